"""The bad inputs of issue 11 with the exit status and message each must give.

Shared by tests/test_fault_inputs.py (asserts every row) and benchmarks/reliability_inputs.py
(writes the table to benchmarks/results/reliability_inputs.md). Each case runs the real command
line in a subprocess (``python -m surveygraph``), so exit statuses are the ones a shell sees.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from tests.poisoned_corpus import TOPIC, write_corpus

PASSWORD = "hunter2-s3cret"
UNREACHABLE = f"http://admin:{PASSWORD}@127.0.0.1:9/v1"  # port 9 (discard): nothing listens


@dataclass
class Scratch:
    """Files and homes the cases point at."""

    root: Path
    home: Path  # a data home holding the poisoned corpus
    files: dict[str, Path] = field(default_factory=dict)


@dataclass
class Case:
    name: str
    args: list[str]  # "{home}", "{root}" and "{file:NAME}" are filled from the Scratch
    code: int
    message: str  # must appear in stderr
    env: dict[str, str] = field(default_factory=dict)
    check: Callable[[Scratch], list[str]] | None = None  # extra problems found after the run
    needs: str | None = None  # an importable module this case needs ABSENT (skipped otherwise)
    stdout: str = ""  # must appear in stdout


def _resumable_and_no_secret(scratch: Scratch) -> list[str]:
    """The run stopped at its first call: its checkpoint is kept for --resume, no survey is
    pretended, and the password in the URL is written nowhere."""
    problems = []
    if not list((scratch.home / "runs").glob("*/checkpoints.sqlite")):
        problems.append("no checkpoint kept to resume from")
    if list((scratch.home / "runs").glob("*/survey.md")):
        problems.append("a survey was written from floors although no call reached the model")
    for path in scratch.home.rglob("*"):
        if path.is_file() and PASSWORD.encode() in path.read_bytes():
            problems.append(f"password written to {path.relative_to(scratch.home)}")
    return problems


CASES = [
    Case("--home is a file", ["--home", "{file:plain}", "corpus", "stats"], 2, "is a file, not a folder"),
    Case("--home below a file", ["--home", "{file:plain}/sub", "generate", "RAG"], 2, "is a file, not a folder"),
    Case("--config does not exist", ["--config", "{root}/missing.toml", "corpus", "stats"], 2, "missing.toml"),
    Case("empty topic", ["generate", ""], 2, "the topic is empty"),
    Case("whitespace topic", ["generate", "   \t "], 2, "the topic is empty"),
    Case("punctuation-only topic", ["generate", "?!... --- ???"], 2, "has no words"),
    Case("digits-only topic", ["generate", "1234 5678"], 2, "has no words"),
    Case("5,000-character topic", ["generate", "retrieval " * 500], 2, "characters long (at most 300)"),
    Case("markup in a user-given name", ["generate", "RAG", "--judges", "[red]nosuch[/red]"], 2,
         "unknown judge: [red]nosuch[/red]"),
    Case("unknown model provider", ["generate", TOPIC, "--llm", "nosuch:model"], 2, "unknown model provider 'nosuch'"),
    # Rich turns ":x:" into an emoji: the name must print as typed (issue 20)
    Case("model name with an emoji code", ["generate", TOPIC, "--llm", "openai:x:y"], 2, "model: openai:x:y",
         env={"OPENAI_API_KEY": ""}),
    Case("provider package missing", ["generate", TOPIC, "--llm", "anthropic:claude-3-5-haiku-latest"], 2,
         "pip install 'surveygraph[anthropic]'", needs="langchain_anthropic"),
    # Fail fast (issue 20): an unreachable server stops the run at its first call with one line
    # naming the URL (password redacted), exit 2, resumable; it is never a "finished" floor survey.
    Case("every LLM call fails (no server), password in llm.base_url",
         ["generate", TOPIC, "--llm", "openai:gpt-4o-mini", "--sections", "2", "--subsections", "1"], 2,
         # relevance off: most poisoned papers are off topic, and this case is about failing calls
         "could not reach the model 'openai:gpt-4o-mini' at http://admin:***@127.0.0.1:9/v1", env={"SURVEYGRAPH_LLM__BASE_URL": UNREACHABLE, "SURVEYGRAPH_LLM__RETRIES": "0",
                                      "SURVEYGRAPH_GENERATION__SELF_EVALUATE": "false",
                                      "SURVEYGRAPH_GENERATION__RELEVANCE": "false"},
         check=_resumable_and_no_secret),
    Case("evaluate with an unreachable judge model", ["evaluate", "{file:survey}", "--judges", "sam",
                                                      "--judge-llm", "openai:gpt-4o-mini"], 2,
         "could not reach the model 'openai:gpt-4o-mini'",
         env={"SURVEYGRAPH_LLM__BASE_URL": UNREACHABLE, "OPENAI_API_KEY": "sk-test", "SURVEYGRAPH_LLM__RETRIES": "0"}),
    Case("corpus search hits a title that is Rich markup (\"[/b] ... [bold]\")",
         ["corpus", "search", "Markup-Breaking Titles", "-k", "3"], 0, "", stdout="[/b] Markup-Breaking"),
    Case("evaluate a binary (/bin/ls-like)", ["evaluate", "{file:binary}"], 4, "is not a survey"),
    Case("evaluate an empty file", ["evaluate", "{file:empty}"], 4, "is not a survey"),
    Case("evaluate non-survey JSON", ["evaluate", "{file:nonsurvey_json}"], 4, "JSON object has no survey fields"),
    Case("evaluate a JSON list", ["evaluate", "{file:json_list}"], 4, "is not a survey"),
    Case("evaluate headings without text", ["evaluate", "{file:headings}"], 4, "no text"),
    Case("evaluate a path that does not exist", ["evaluate", "{root}/nope.md"], 2, "not found"),
    # issue 31: read with a size cap and a text check before parsing (/dev/zero grew to 5.7 GB), and
    # `generate --human` refuses what `evaluate` refuses, before the run (it scored 0 silently)
    Case("evaluate an endless device (/dev/zero)", ["evaluate", "/dev/zero"], 4, "not a regular file"),
    Case("evaluate a 40 MB file", ["evaluate", "{file:huge}"], 4, "larger than 32 MB"),
    Case("generate --human a binary", ["generate", TOPIC, "--human", "{file:binary}"], 4, "is not a survey"),
    Case("generate --human an empty file", ["generate", TOPIC, "--human", "{file:empty}"], 4, "is not a survey"),
    Case("evaluate a real survey (control)", ["evaluate", "{file:survey}", "--metrics", "structure,integrity"], 0, ""),
]


def make_scratch(root: Path) -> Scratch:
    """Fixture files plus a home with the poisoned corpus ingested through the CLI."""
    root.mkdir(parents=True, exist_ok=True)
    files = {
        "plain": root / "plain.txt", "binary": root / "binary.bin", "empty": root / "empty.md",
        "nonsurvey_json": root / "config.json", "json_list": root / "list.json", "headings": root / "headings.md",
        "survey": root / "survey.md", "huge": root / "huge.md",
    }
    files["plain"].write_text("not a folder\n")
    ls = Path("/bin/ls")
    files["binary"].write_bytes(ls.read_bytes() if ls.is_file() else b"\x7fELF\x02\x01\x01\x00" + bytes(range(256)) * 8)
    files["empty"].write_text("")
    files["huge"].write_text("# A Survey\n\n## Text\n\n" + "Retrieval grounds answers in evidence. " * 1_050_000)  # 40 MB
    files["nonsurvey_json"].write_text(json.dumps({"name": "pkg", "version": "1.0", "dependencies": {}}))
    files["json_list"].write_text(json.dumps([1, 2, 3]))
    files["headings"].write_text("# A Survey\n\n## Introduction\n\n## Methods\n")
    files["survey"].write_text(
        "# A Survey on Retrieval-Augmented Generation\n\n## Introduction\n\nRetrieval-augmented generation grounds "
        "language models in retrieved evidence [1]. Dense retrievers improve recall [2].\n\n## Methods\n\n"
        "Rerankers reduce distracting passages [2].\n\n## References\n\n[1] A. Author. Grounded answers. 2025.\n"
        "[2] B. Author. Dense retrievers. 2025.\n")
    home = root / "home"
    done = run_cli(["corpus", "ingest", str(write_corpus(root / "poisoned.jsonl"))], home=home)
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed: {done.stderr[-500:]}")
    return Scratch(root=root, home=home, files=files)


def run_cli(args: list[str], *, home: Path | None = None, env: dict | None = None, timeout: int = 900):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("SURVEYGRAPH_")}
    environ.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", ANONYMIZED_TELEMETRY="False", **(env or {}))
    environ.pop("ANTHROPIC_API_KEY", None)
    environ.pop("OPENAI_API_KEY", None)
    prefix = ["--home", str(home)] if home is not None and "--home" not in args else []
    return subprocess.run([sys.executable, "-m", "surveygraph", *prefix, *args], env=environ,
                          capture_output=True, text=True, timeout=timeout)


def fill(args: list[str], scratch: Scratch) -> list[str]:
    out = []
    for arg in args:
        for name, path in scratch.files.items():
            arg = arg.replace("{file:" + name + "}", str(path))
        out.append(arg.replace("{home}", str(scratch.home)).replace("{root}", str(scratch.root)))
    return out


def run_case(case: Case, scratch: Scratch) -> dict:
    """Run one case; the result says what happened and every way it differs from the expectation."""
    done = run_cli(fill(case.args, scratch), home=scratch.home, env=case.env)
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    problems = []
    if done.returncode != case.code:
        problems.append(f"exit {done.returncode}, expected {case.code}")
    if case.message and case.message not in " ".join(done.stderr.split()):
        problems.append(f"message lacks {case.message!r}")
    if case.stdout and case.stdout not in done.stdout:
        problems.append(f"stdout lacks {case.stdout!r}")
    if "Traceback" in done.stderr:
        problems.append("traceback printed")
    if case.code != 0 and len(errors) != 1:
        problems.append(f"{len(errors)} error lines")
    if case.check is not None:
        problems += case.check(scratch)
    first = " ".join(errors[0].split()) if errors else ""
    return {"case": case.name, "exit": done.returncode, "expected": case.code, "message": first,
            "problems": problems}
