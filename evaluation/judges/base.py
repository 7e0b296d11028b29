"""Judge infrastructure shared by every LLM judge: prompts, trimming, runs, the judgment log.

Every judgment goes through :meth:`Judge.ask`: the prompt is rendered from ``prompts/judge_*.txt``,
sent through the judge role's ``LLMClient.structured`` (which adds constrained JSON for local
models, retries and the on-disk response cache), validated into a pydantic verdict, and appended
to a JSONL log. A batch that stops half-way resumes from that log: any judgment whose key (judge
model + node + rendered prompt + run index) is already logged is read back instead of asked again.

Trimming: the bundled local judge has an 8,192-token context, so every input is cut to a token
budget (``input_budget_tokens``) before rendering. Survey content keeps *every* section heading
and the opening share of each section's text (budget split evenly across sections), so the judge
still sees the whole structure; lists (references, outline lines) keep their first items and
say how many were dropped. Tokens are estimated as characters / 4.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence, TypeVar

import jinja2
from pydantic import BaseModel, ValidationError

from ...errors import UserError
from ...models import Survey
from ...settings import Settings

V = TypeVar("V", bound=BaseModel)

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"
CHARS_PER_TOKEN = 4
# Room left for the fixed prompt text (criteria, instructions) around the trimmed inputs.
TEMPLATE_RESERVE_TOKENS = 1400
# Input cap for API judges: long enough for a whole survey section list, short enough to keep
# a 20-survey batch affordable (see estimate_judge_cost).
API_INPUT_BUDGET_TOKENS = 24000
# Input cap for the local judge: prompt processing is linear in length on a CPU, and a 270M
# model gains little from more text; 2,000 tokens keeps one call to ~10-20 s on 2 free cores.
LOCAL_INPUT_BUDGET_TOKENS = 2000


# --- prompts ---------------------------------------------------------------------------------
_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(PROMPTS_DIR)),
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    autoescape=False,
)


def render_prompt(name: str, **values: Any) -> str:
    """Render ``prompts/judge_<name>.txt``; a missing value is an error, never an empty hole."""
    return _ENV.get_template(f"judge_{name}.txt").render(**values).strip() + "\n"


# --- trimming --------------------------------------------------------------------------------
def approx_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def is_local_model(spec: str) -> bool:
    return spec == "local" or spec.startswith("gguf:")


def input_budget_tokens(settings: Settings) -> int:
    """Tokens available for the variable inputs of one judge prompt
    (``evaluation.judge_input_tokens``, capped by the local model's context)."""
    spec = settings.llm.for_role("judge")
    wanted = settings.evaluation.judge_input_tokens
    if is_local_model(spec):
        room = settings.llm.local_n_ctx - settings.llm.max_output_tokens - TEMPLATE_RESERVE_TOKENS
        return max(256, min(room, wanted or LOCAL_INPUT_BUDGET_TOKENS))
    return wanted or API_INPUT_BUDGET_TOKENS


def trim_text(text: str, max_tokens: int) -> str:
    limit = max(0, max_tokens) * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return cut + " [...]"


def trim_lines(lines: Sequence[str], max_tokens: int) -> str:
    """Keep leading lines within the budget and note how many were left out."""
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = approx_tokens(line) + 1
        if used + cost > max_tokens:
            break
        kept.append(line)
        used += cost
    dropped = len(lines) - len(kept)
    if dropped:
        kept.append(f"[... {dropped} more not shown]")
    return "\n".join(kept)


def trim_sections(survey: Survey, max_tokens: int) -> str:
    """Every heading, plus the opening share of each section's text within ``max_tokens``."""
    sections = [s for s in survey.sections if s.heading or s.text]
    if not sections:
        return trim_text(survey.text, max_tokens)
    headings_cost = sum(approx_tokens(s.heading) + 2 for s in sections)
    per_section = max(0, (max_tokens - headings_cost) // len(sections))
    parts = []
    for s in sections:
        head = "#" * max(1, s.level) + " " + s.heading if s.heading else ""
        body = trim_text(s.text.strip(), per_section) if per_section else ""
        parts.append(f"{head}\n{body}".strip())
    return "\n\n".join(parts)


def outline_lines(survey: Survey) -> list[str]:
    return [f"[{e.level}, {json.dumps(e.title)}]" for e in survey.outline]


def outline_text(survey: Survey, max_tokens: int) -> str:
    return trim_lines(outline_lines(survey), max_tokens)


def reference_lines(survey: Survey) -> list[str]:
    return [(r.text or r.title or r.key).strip() for r in survey.references]


# --- the judgment log ------------------------------------------------------------------------
class JudgmentLog:
    """Append-only JSONL of judgments, read back on start so a batch resumes where it stopped."""

    def __init__(self, path: Path):
        self.path = path
        self._records: dict[str, dict] = {}
        self._lock = threading.Lock()
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut short by an interrupted write
                if isinstance(rec, dict) and "key" in rec:
                    self._records[rec["key"]] = rec

    def __len__(self) -> int:
        return len(self._records)

    def get(self, key: str) -> dict | None:
        return self._records.get(key)

    def append(self, record: dict) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._records[record["key"]] = record


def default_log_path(settings: Settings, batch: str) -> Path:
    return settings.home / "judgments" / f"{batch}.jsonl"


# --- the judge -------------------------------------------------------------------------------
@dataclass
class Judge:
    """One judge model plus its log. ``client`` is the judge role's ``LLMClient``."""

    client: Any
    settings: Settings
    log: JudgmentLog | None = None
    runs: int = 1
    model_spec: str = ""
    asked: int = field(default=0)  # judgments sent to the model (not read from the log)
    on_judgment: Callable[[str], None] | None = None

    @property
    def budget(self) -> int:
        return input_budget_tokens(self.settings)

    def ask(self, node: str, prompt: str, schema: type[V], *, run: int = 0) -> V:
        """One judgment. Run ``k > 0`` adds a run marker so cached runs are distinct calls."""
        text = prompt if run == 0 else f"{prompt}\n(Independent evaluation run {run + 1}.)\n"
        key = hashlib.sha256(f"{self.model_spec}\x00{node}\x00{text}".encode()).hexdigest()[:32]
        if self.log is not None and (rec := self.log.get(key)) is not None:
            try:
                return schema.model_validate(rec["verdict"])
            except ValidationError:
                pass  # logged under an older verdict schema: ask again

        verdict = self.client.structured(text, schema, node=node)
        self.asked += 1
        if self.log is not None:
            self.log.append({"key": key, "node": node, "run": run, "model": self.model_spec,
                             "verdict": verdict.model_dump(mode="json")})
        if self.on_judgment is not None:
            self.on_judgment(node)
        return verdict

    def ask_runs(self, node: str, prompt: str, schema: type[V]) -> list[V]:
        """``settings.evaluation.judge_runs`` (or ``runs``) independent judgments of one prompt."""
        return [self.ask(node, prompt, schema, run=k) for k in range(max(1, self.runs))]


def make_judge(settings: Settings, clients: Any = None, *, log_path: Path | None = None,
               batch: str = "judges", use_log: bool = True) -> Judge:
    """The judge for ``settings`` (``settings.llm.judge`` or the default model; local offline)."""
    if clients is None:
        from ...llm import build_role_clients

        clients = build_role_clients(settings)
    client = getattr(clients, "judge", None)
    if client is None:
        raise UserError("no judge model configured (set llm.judge or llm.default)")
    log = JudgmentLog(log_path or default_log_path(settings, batch)) if use_log else None
    return Judge(client=client, settings=settings, log=log,
                 runs=settings.evaluation.judge_runs,
                 model_spec=settings.llm.for_role("judge"))


def structured_error_types() -> tuple[type[BaseException], ...]:
    """Errors that mean "this judgment failed" (the score becomes None with the reason)."""
    try:
        from ...llm import StructuredOutputError
    except ImportError:  # pragma: no cover - llm package always ships with surveygraph
        return (ValueError,)
    return (StructuredOutputError, ValueError)


def usable_note(note: str) -> bool:
    """A note that says something: at least two different words (the 270M model writes "1",
    "10 points" or "100 points, 350 points, 200 points, ...")."""
    return len({w.lower() for w in re.findall(r"[A-Za-z]{2,}", note or "")}) >= 2


def rationale_of(notes: Sequence[str], fallback: str) -> str:
    """The judge's first usable note; small local models often leave notes empty or write a bare
    number, and then the rationale says what the score means and quotes what the judge wrote,
    instead of passing the number off as a reason."""
    note = next((n.strip() for n in notes if usable_note(n)), "")
    if note:
        return note
    raw = next((n.strip() for n in notes if n and n.strip()), "")
    return f"{fallback} (the judge gave no usable note{f': {raw[:40]!r}' if raw else ''})"


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def mean_if_complete(results: Sequence[Any]) -> float | None:
    """Mean of the results' values; None when any is missing (an average over the judgments that
    happened to succeed would not be the paper's score)."""
    values = [r.value for r in results if r.value is not None]
    return mean(values) if len(values) == len(results) else None


def swap_label(label: str) -> str:
    """Un-flip an A/B verdict made with the two inputs in swapped positions."""
    return {"A": "B", "B": "A"}.get(label, label)


def failed_result(name: str, exc: BaseException, family: str = "rubric"):
    """A score the judge could not produce: value None, the reason as its rationale."""
    from ...models import MetricResult

    reason = (str(exc).splitlines() or [type(exc).__name__])[0][:300]
    return MetricResult(name=name, family=family, value=None, rationale=f"judge failed: {reason}")


def scored_runs(name: str, judge: "Judge", node: str, prompt: str, schema: type, *,
                scale: str, rubric: str):
    """One rubric score averaged over the judge's runs (``schema`` has ``score`` and ``notes``);
    a failed judgment becomes value None with the reason."""
    from ...models import MetricResult

    try:
        verdicts = judge.ask_runs(node, prompt, schema)
    except structured_error_types() as exc:
        return failed_result(name, exc)
    scores = [float(v.score) for v in verdicts]
    notes = [v.notes for v in verdicts]
    top = scale.split("-")[1]
    return MetricResult(
        name=name, family="rubric", value=mean(scores),
        rationale=rationale_of(notes, f"{mean(scores):.1f}/{top} on the {rubric} {name} rubric"),
        details={"scale": scale, "runs": scores, "notes": notes},
    )
