"""One typed settings object for all of surveygraph.

Precedence (highest first): explicit overrides (CLI flags) > environment (``SURVEYGRAPH_*``,
nested with ``__``, e.g. ``SURVEYGRAPH_LLM__WRITER=openai:gpt-4o-mini``) > TOML file
(``--config FILE``, else ``./surveygraph.toml``, else ``<home>/surveygraph.toml``) > defaults.
"""

from __future__ import annotations

import contextvars
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from .errors import UserError

# The TOML file chosen for the Settings being built (set by load_settings); a context var keeps
# concurrent loads (tests, threads) from seeing each other's file.
_TOML_FILE: contextvars.ContextVar[Path | None] = contextvars.ContextVar("_TOML_FILE", default=None)


def default_home() -> Path:
    return Path(platformdirs.user_data_dir("surveygraph", appauthor=False))


class EmbeddingSettings(BaseModel):
    # The encoder of the paper index. "minilm-head" (default): the bundled MiniLM reading a paper's
    # title and the opening of its abstract (retrieval/embeddings.py HEAD_TOKENS): the 74,728-paper
    # corpus embeds in about 11 minutes on 2 cores, and the topic pool's dense retrieval and
    # relevance features read meaning (weighted AUC of topic-string cosine on the relevance labels
    # 0.89, against 0.77 for minilm-static; topic_pool.md, session 21). "minilm-static": a model2vec
    # static model distilled locally from MiniLM, the whole corpus in about a minute of CPU, for
    # stores far larger than this corpus. "minilm": MiniLM on 256 word pieces (about 46 minutes).
    # Anything else: a sentence-transformers model name or path (needs network for hub names).
    model: str = "minilm-head"
    backend: Literal["torch", "onnx"] = "torch"
    batch_size: int = Field(64, ge=1)
    max_seq_length: int = Field(256, ge=16)
    cache: bool = True


class StoreSettings(BaseModel):
    # When set (e.g. http://localhost:8000), use a Chroma server via HttpClient instead of the
    # embedded PersistentClient under <home>/store/chroma.
    chroma_url: str | None = None
    # Keep a Chroma copy of every vector (a mirror for other tools; searches read store/index).
    # Off: on the 74,728-paper corpus it made an ingest take 157 s instead of 100 s and 899 MB
    # instead of 667 MB, and no query reads it (docs/corpus.md "Chroma"). A chroma_url turns it
    # on: the vectors then go to that server.
    chroma_mirror: bool = False
    collection: str = "papers"
    outline_collection: str = "outlines"
    # The outline DB is small (one entry per human survey) and searched with paraphrased topics,
    # so it keeps the contextual MiniLM whatever encoder the paper index uses.
    outline_embedding_model: str = "minilm"
    # The search index (retrieval/snapshot.py, docs/corpus.md "Scale"). An ingest embeds and
    # indexes this many papers at a time: its memory is bounded by the batch, not the corpus.
    ingest_batch: int = Field(20_000, ge=100)
    # Segments of at least ann_min_rows papers answer dense queries through an IVF index that
    # scans ann_nprobe of its 4 sqrt(rows) lists. 96 is the smallest value of the measured sweep
    # (16..96) with mean recall@100 >= 0.95 of the exact scan at 1M papers (0.952; 64: 0.927):
    # BENCHMARKS.md "Scale".
    ann_min_rows: int = Field(100_000, ge=1)
    # ... and dense search uses them only above ann_exact_below papers: the exact scan is fast
    # enough below (25 ms p50 at 300k) and IVF recall with 2-3 segments was 0.934 at 300k.
    ann_exact_below: int = Field(500_000, ge=0)
    ann_nprobe: int = Field(96, ge=1)
    # merge_factor segments of one size tier are merged into one, up to max_segment_rows papers.
    merge_factor: int = Field(8, ge=2)
    max_segment_rows: int = Field(250_000, ge=100)


class RetrievalSettings(BaseModel):
    k: int = Field(10, ge=1)
    candidates: int = Field(200, ge=1)  # per retriever, before fusion
    rrf_k: int = Field(60, ge=1)
    tre: bool = True
    # TRE picks k papers from the top k * tre_pool_factor fused candidates (SurveyForge's L -> K).
    tre_pool_factor: int = Field(3, ge=1)
    tre_bucket_years: int = Field(2, ge=1)


class LLMSettings(BaseModel):
    # "local" = bundled Gemma 3 270M GGUF via llama.cpp; "gguf:PATH"; or "provider:model" for any
    # LangChain chat model (openai:gpt-4o-mini, anthropic:claude-..., ollama:llama3.1, ...).
    default: str = "local"
    planner: str | None = None
    writer: str | None = None
    judge: str | None = None
    base_url: str | None = None  # OpenAI-compatible servers (vLLM, llama.cpp server, ...)
    temperature: float = 0.3
    max_output_tokens: int = Field(512, ge=16)  # per call
    max_tokens: int | None = Field(None, ge=1)  # whole-run budget (input + output); None = unlimited
    cache: bool = True
    # The bundled Gemma 3 270M is a base model: its outlines, sub-queries and prose never passed
    # the gate in any measured run (BENCHMARKS.md), so generation skips those calls and uses the
    # offline floors unless this is set. API and other local models are always called.
    local_drafts: bool = False
    retries: int = Field(3, ge=0)
    # Seconds a model server may stay silent before a call fails: the whole reply of a plain call,
    # the gap between two chunks of a streamed one (httpx's read timeout; connecting gets at most
    # 10 s). A timed-out call is retried like any network error, so a server that accepts the
    # connection and never answers stops the run after (retries + 1) x timeout (docs/llm.md).
    # 300 s covers a 7B model on a CPU server writing 512 tokens after a 3,000-token prompt.
    timeout: float = Field(300.0, gt=0)
    local_n_ctx: int = Field(8192, ge=512)
    local_threads: int | None = None
    # llama.cpp weight repacking; None = auto (off on AMX CPUs, whose AMX kernels crash in some VMs).
    local_weight_repack: bool | None = None

    def for_role(self, role: str) -> str:
        return getattr(self, role, None) or self.default


class GenerationSettings(BaseModel):
    # Where runs keep their LangGraph checkpoints: None = checkpoints.sqlite in the run directory;
    # a postgresql:// URL = that database (langgraph-checkpoint-postgres), so a run can be resumed
    # by a worker on another machine (graphs/batch.py, docs/generation.md "Many workers").
    checkpointer: str | None = None
    # Seconds a batch worker keeps reconnecting to a lost batch database (PostgreSQL stopped or
    # unreachable) before it exits with one error line; its job stays resumable (docs/generation.md).
    db_outage_limit: float = Field(300.0, ge=0)
    sections: int = Field(5, ge=1)
    subsections: int = Field(3, ge=1)  # per section
    # With relevance off (the ablation), |P_R|: the topic's nearest candidates, all of them kept.
    outline_candidates: int = Field(300, ge=10)
    # The recall-first pool (retrieval/literature_pool.py): at most pool_rounds rounds of
    # retrieval, pool_per_query ids per engine and query; memory M keeps the memory_limit most
    # probable on-topic papers (the manifest records how many there were).
    pool_rounds: int = Field(4, ge=1, le=10)
    pool_per_query: int = Field(1000, ge=10, le=5000)
    memory_limit: int = Field(1500, ge=10)
    # Only candidates retrieval/topic_judge.py judges on topic enter M (and the survey shrinks to
    # what is on topic); off = the ablation that keeps every candidate.
    relevance: bool = True
    # A multi-facet topic's paper must be about every facet, by its words or its facet's vocabulary
    # (retrieval/topic_judge.py TopicJudge.facets_hold); off = the ablation, the model alone decides.
    facet_gate: bool = True
    papers_per_section: int = Field(60, ge=1)  # |M_i|
    papers_per_subsection: int = Field(8, ge=1)  # K_Oij
    # A pool of at most this many on-topic papers is a short survey: every subsection cites all the
    # papers placed under it, so the survey cites every on-topic work found (0 = always K per subsection).
    cite_whole_pool_below: int = Field(60, ge=0)
    # A larger pool's survey cites at least this many works when its outline places that many:
    # subsections holding more placed papers than K read more of them (agents/reader.py
    # reading_budgets; 0 = K per subsection). A 109-paper pool parted into seven subsections otherwise
    # cited 45 of them.
    min_cited: int = Field(60, ge=0)
    subqueries: int = Field(3, ge=1)
    outline_demos: Literal["related", "random", "none"] = "related"
    # Human outlines never used as demonstrations (matched on topic or title, case-insensitive):
    # benchmarks exclude the same-topic human survey so its structure cannot leak into ours.
    exclude_outlines: list[str] = Field(default_factory=list)
    memory_subquery: bool = True  # MS
    memory_retrieval: bool = True  # MR
    tre: bool = True  # TRE
    # a subsection's candidates ranked by their fit to its queries fused with their closeness to the
    # topic (agents/reader.py topic_fused); off: by the queries alone
    topic_fusion: bool = True
    polish: bool = True
    llm_smoothing: bool = False
    concurrency: int = Field(4, ge=1)
    self_evaluate: bool = True
    seed: int = 0
    abstract_chars: int = Field(500, ge=50)  # abstract excerpt per paper in writer prompts
    paragraphs: int = Field(2, ge=1)  # paragraphs asked per subsection
    # Content floor (agents/synthesis.py): statements quoted per work besides its contribution (a
    # finding, a limitation, the problem it states), the text used whenever model prose is invalid
    # or worse (agents/gate.py).
    synthesis_per_paper: int = Field(2, ge=1)
    # Comparison table per section + the survey's figure (agents/illustrate.py); off = ablation.
    illustrate: bool = True
    # Length preset. "default": 5 x 3 subsections, small prompts (fits the bundled local model).
    # "surveyforge": SurveyForge-scale surveys for API models (8 x 4 subsections, the paper's
    # 1,500 outline candidates, 15 papers and 4 paragraphs per subsection). A preset only fills
    # fields left unset, so `--preset surveyforge --sections 6` keeps 6. Cost: docs/generation.md.
    preset: Literal["default", "surveyforge"] = "default"

    @model_validator(mode="after")
    def _apply_preset(self) -> "GenerationSettings":
        for name, value in GENERATION_PRESETS[self.preset].items():
            if name not in self.model_fields_set:
                setattr(self, name, value)
        return self


GENERATION_PRESETS: dict[str, dict[str, Any]] = {
    "default": {},
    "surveyforge": {"sections": 8, "subsections": 4, "outline_candidates": 1500, "papers_per_section": 60,
                    "papers_per_subsection": 15, "paragraphs": 4, "abstract_chars": 800, "synthesis_per_paper": 3},
}
# Output tokens per model call a preset needs (4 paragraphs of a subsection do not fit in 512);
# applied to llm.max_output_tokens only when the user left it unset.
PRESET_OUTPUT_TOKENS = {"default": None, "surveyforge": 1536}


class EvaluationSettings(BaseModel):
    # Encoder for the similarity metrics (RA-AlignF1, tau-MaxSim, SGSimEval sigma, claim support).
    # minilm-static: the encoder the shipped validity table (evaluation/data/validity.json) and its
    # calibrated tau were measured with, and ~30x cheaper on the long section texts these metrics
    # read (a cold leaderboard spent 60% of its time there). "minilm" is the accurate choice: it
    # reproduces SurveyLens' Table 4 a little better (RA-AlignF1 +0.88 vs +0.85, tau-MaxSim +0.69
    # vs +0.54; BENCHMARKS.md). The quality score's topic reading keeps MiniLM whatever this says
    # (evaluation/data/topicality_gate.json names the encoder it was fitted with).
    embedding_model: str = "minilm-static"
    # SurveyLens' alignment threshold (0.95, set for Qwen3-Embedding-8B). Used as given when
    # tau_mode = "paper"; "calibrated" (default) uses the encoder's per-component τ shipped in
    # evaluation/data/calibration/<encoder>.json (same meaning on our encoders' similarity scale,
    # see evaluation/calibration.py), falling back to `tau` for an encoder without a calibration.
    tau: float = Field(0.95, ge=0.0, lt=1.0)
    tau_mode: Literal["calibrated", "paper"] = "calibrated"
    lam: float = 1.0
    sim_mode: Literal["cosine", "chroma_l2"] = "cosine"
    rescale_maxsim: bool = False
    # SAM-R title matching: rapidfuzz ratio on normalised titles (after arXiv id and exact title).
    ref_match_fuzzy: int = Field(92, ge=50, le=100)
    judges: list[str] = Field(default_factory=list)
    judge_runs: int = Field(1, ge=1)
    # Tokens of survey text per judge prompt; None = 2,000 for the local model (fits its context
    # and keeps a call to seconds on a laptop CPU), 24,000 for API judges.
    judge_input_tokens: int | None = Field(None, ge=256)
    # How a checklist is built from a human survey when no task is given: "llm" (the judge writes
    # every group), "extractive" (no model: taxonomy categories, tables, named methods per
    # subsection) or "auto" (the judge writes each group; an unusable or ungrounded one is
    # replaced by the extractive group).
    checklist_construction: Literal["auto", "llm", "extractive"] = "auto"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SURVEYGRAPH_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_assignment=True,
    )

    home: Path = Field(default_factory=default_home)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    generation: GenerationSettings = Field(default_factory=GenerationSettings)
    evaluation: EvaluationSettings = Field(default_factory=EvaluationSettings)

    @field_validator("home", mode="after")
    @classmethod
    def _expand_home(cls, v: Path) -> Path:
        return v.expanduser().resolve()

    @model_validator(mode="after")
    def _preset_output_tokens(self) -> "Settings":
        """The generation preset's per-call output limit, unless llm.max_output_tokens was set."""
        tokens = PRESET_OUTPUT_TOKENS[self.generation.preset]
        if tokens and "max_output_tokens" not in self.llm.model_fields_set:
            self.llm.max_output_tokens = tokens
        return self

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        toml_file = _TOML_FILE.get()
        if toml_file is not None:
            sources.append(TomlConfigSettingsSource(settings_cls, toml_file=toml_file))
        return tuple(sources)

    def with_embedding_model(self, model: str) -> "Settings":
        """A copy whose ``embedding.model`` is ``model`` (the outline DB and the evaluators use
        their own encoders; see ``store.outline_embedding_model``, ``evaluation.embedding_model``)."""
        if self.embedding.model == model:
            return self
        return self.model_copy(update={"embedding": self.embedding.model_copy(update={"model": model})})

    # --- where things live under the data home -------------------------------------------
    @property
    def store_dir(self) -> Path:
        return self.home / "store"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def runs_dir(self) -> Path:
        return self.home / "runs"

    @property
    def models_dir(self) -> Path:
        """Models this data home keeps for itself (older homes hold the bundled GGUF here)."""
        return self.home / "models"

    @property
    def shared_models_dir(self) -> Path:
        """Per-user model cache shared by every data home: the bundled models depend only on the
        installed packages, so a new home (a test, a CI run, a second corpus) does not copy them
        again (the GGUF alone is 242 MB). SURVEYGRAPH_MODELS_DIR moves it."""
        import os

        import platformdirs

        override = os.environ.get("SURVEYGRAPH_MODELS_DIR")
        return Path(override) if override else Path(platformdirs.user_cache_dir("surveygraph", appauthor=False)) / "models"


def _find_toml(config: Path | None, home_hint: Path | None) -> Path | None:
    if config is not None:
        return config
    cwd_file = Path.cwd() / "surveygraph.toml"
    if cwd_file.is_file():
        return cwd_file
    home_file = (home_hint or default_home()) / "surveygraph.toml"
    return home_file if home_file.is_file() else None


def _deep_set(target: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    for part in parts[:-1]:
        target = target.setdefault(part, {})
    target[parts[-1]] = value


def load_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """Build Settings from defaults < TOML < env < overrides.

    ``overrides`` use dotted keys for nested fields (``{"llm.writer": "openai:gpt-4o"}``);
    None values are ignored so CLI options left unset do not mask env or TOML values.
    Raises FileNotFoundError for an explicit config path that does not exist.
    """
    if config is not None and not Path(config).is_file():
        raise FileNotFoundError(f"config file not found: {config}")
    nested: dict[str, Any] = {}
    for key, value in overrides.items():
        if value is not None:
            _deep_set(nested, key, value)
    home_hint = Path(nested["home"]) if "home" in nested else None
    toml_file = _find_toml(Path(config) if config else None, home_hint)
    token = _TOML_FILE.set(toml_file)
    try:
        return Settings(**nested)
    except tomllib.TOMLDecodeError as exc:  # a typo in the file is the user's, not a crash
        raise UserError(f"the settings file {toml_file} is not valid TOML: {exc}") from None
    finally:
        _TOML_FILE.reset(token)


def check_home(home: Path) -> None:
    """A data home must be a folder, or one that can be made: a file there, or a path no folder
    can be created at (``/proc/x``), used to give a traceback."""
    check_folder(home, "the data home", "pass --home DIR or set SURVEYGRAPH_HOME")


def check_folder(path: Path, what: str, hint: str) -> None:
    """``path`` is a folder or can be made one; else one UserError naming ``what`` and ``hint``.

    A missing folder is created and removed again to find out (mkdir is the only reliable test:
    /proc is a writable-looking directory where nothing can be made)."""
    path = Path(path)
    for existing in (path, *path.parents):
        if existing.exists():
            if not existing.is_dir():
                where = what if existing == path else f"a parent of {what} ({existing})"
                raise UserError(f"{where} is a file, not a folder: {path} ({hint})")
            break
    if path.is_dir():
        return
    made = [p for p in (path, *path.parents) if not p.exists()]
    try:
        path.mkdir(parents=True)
    except OSError as exc:
        raise UserError(f"cannot create {what} {path}: {exc.strerror or exc} ({hint})") from None
    for folder in made:  # deepest first: leave nothing behind
        folder.rmdir()


def check_output_folder(path: Path, force: bool, name: str, force_name: str) -> None:
    """An output folder: not a file, and empty unless ``force`` (nothing a user has is overwritten
    by accident). ``name`` / ``force_name`` are how the caller spells them (--out / --force)."""
    path = Path(path)
    check_folder(path, f"{name}", "give a folder")
    if path.is_dir() and any(path.iterdir()) and not force:
        raise UserError(f"{path} is not empty; pass {force_name} to write into it")


def invalid_setting(exc: ValidationError, prefix: str = "") -> UserError:
    """A pydantic error as one line: the first problem, named by its dotted place."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "(settings)"
    return UserError(f"invalid setting {prefix}{where}: {first['msg']}")


def checked_settings(config: Path | None = None, **overrides: Any) -> Settings:
    """``load_settings`` for the command line and the Python API: a missing or malformed config
    file, a bad value or a data home that cannot be a folder is one UserError line."""
    try:
        settings = load_settings(Path(config) if config else None, **overrides)
    except FileNotFoundError as exc:
        raise UserError(str(exc)) from None
    except ValidationError as exc:
        raise invalid_setting(exc) from None
    check_home(settings.home)
    return settings
