"""Layers import downward only: nothing below graphs/ imports graphs/ or cli/ (the guide's rule,
checked on the source so that a lazy import inside a function counts too)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOWER = ("agents", "evaluation", "retrieval", "memory", "llm", "prompts")
UPPER = ("graphs", "cli", "api")


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1] if package else []
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = (node.module or "").removeprefix("surveygraph.")
            found.append((node.lineno, name))
            found += [(node.lineno, f"{name}.{a.name}".strip(".")) for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name.removeprefix("surveygraph.")) for a in node.names]
    return found


def test_lower_layers_never_import_graphs_or_cli():
    offenders = []
    for layer in LOWER:
        for path in sorted((ROOT / layer).rglob("*.py")):
            for line, name in _imported_modules(path):
                if name.split(".")[0] in UPPER:
                    offenders.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    assert not offenders, "\n".join(offenders)


def test_the_checker_sees_a_lazy_upward_import(tmp_path, monkeypatch):
    bad = ROOT / "evaluation" / "_layer_probe.py"
    assert not bad.exists()
    module = tmp_path / "evaluation" / "x.py"
    module.parent.mkdir()
    module.write_text("def f():\n    from ..graphs.evaluation import build_evaluation_graph\n")
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    names = [n for _, n in _imported_modules(module)]
    assert "graphs.evaluation" in names
