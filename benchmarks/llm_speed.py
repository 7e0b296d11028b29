"""Speed of the bundled local model: raw llama.cpp vs the surveygraph LLM layer.

Measures, on the same prompts:
  raw-text      llama_cpp.Llama.create_completion (prompt eval + generation tokens/s)
  raw-grammar   create_completion with llama-cpp-python's own JSON-schema grammar
  fast-grammar  surveygraph's grammar decoder (sample first, check the grammar, full pass only on rejection)
  client-text   LLMClient.complete (rendering, metering, no cache)
  client-json   LLMClient.structured (grammar decoding + pydantic validation)

Usage: python benchmarks/llm_speed.py [--runs 2] [--max-tokens 64] [--threads N]
Numbers are noisy on a shared machine: the script prints `uptime` before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pydantic import BaseModel

REPO_ROOT = Path(__file__).resolve().parents[1]

PROMPTS = [
    "Write one paragraph introducing dense passage retrieval for a survey on retrieval-augmented generation.",
    "Summarise in two sentences why large language models hallucinate and how retrieval helps.",
]


class SectionIdea(BaseModel):
    title: str
    description: str
    keywords: list[str]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def rate(tokens: int, seconds: float) -> float:
    return tokens / seconds if seconds > 0 else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=None, help="llama.cpp threads (default: idle cores)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from llama_cpp import LlamaGrammar
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from surveygraph.llm import LLMClient, TokenMeter, make_chat_model
    from surveygraph.llm.grammar_decoding import decode_with_grammar
    from surveygraph.llm.local import default_threads, render_instruction_prompt
    from surveygraph.settings import load_settings
    from langchain_core.messages import HumanMessage

    threads = args.threads or default_threads()
    # The user's data home (so the assembled GGUF is reused); the response cache stays off.
    settings = load_settings(**{"llm.local_threads": threads, "llm.local_n_ctx": 2048, "llm.cache": False})
    print(f"# before: {uptime()}  threads={threads}", file=sys.stderr)
    model = make_chat_model("local", settings)
    client = LLMClient(model, spec="local", meter=TokenMeter(), max_output_tokens=args.max_tokens)
    llama, _lock = model._llama()
    schema = SectionIdea.model_json_schema()
    gbnf = json_schema_to_gbnf(json.dumps(schema))
    rows: dict[str, list[tuple[int, int, float, float]]] = {}

    def add(name: str, n_in: int, n_out: int, prompt_s: float, total_s: float) -> None:
        rows.setdefault(name, []).append((n_in, n_out, prompt_s, total_s))

    for run in range(args.runs):
        for prompt in PROMPTS:
            text = render_instruction_prompt([HumanMessage(prompt)])
            tokens = llama.tokenize(text.encode(), add_bos=True, special=True)
            # Prompt-eval speed: a 1-token completion is almost all prompt processing.
            llama.reset()
            t0 = time.perf_counter()
            llama.create_completion(tokens, max_tokens=1, temperature=0.0)
            prompt_s = time.perf_counter() - t0
            llama.reset()
            t0 = time.perf_counter()
            out = llama.create_completion(tokens, max_tokens=args.max_tokens, temperature=0.3, repeat_penalty=1.3,
                                          seed=run, logit_bias={llama.token_eos(): float("-inf")})
            add("raw-text", len(tokens), out["usage"]["completion_tokens"], prompt_s, time.perf_counter() - t0)
            json_prompt = render_instruction_prompt([HumanMessage(prompt + "\n\nReply with a JSON object.")])
            json_tokens = llama.tokenize(json_prompt.encode(), add_bos=True, special=True)
            llama.reset()
            t0 = time.perf_counter()
            out = llama.create_completion(json_tokens, max_tokens=args.max_tokens, temperature=0.3,
                                          repeat_penalty=1.1, seed=run, grammar=LlamaGrammar.from_string(gbnf))
            add("raw-grammar", len(json_tokens), out["usage"]["completion_tokens"], prompt_s, time.perf_counter() - t0)
            t0 = time.perf_counter()
            fast = decode_with_grammar(llama, json_tokens, gbnf, max_tokens=args.max_tokens, seed=run)
            add("fast-grammar", len(json_tokens), fast.completion_tokens, prompt_s, time.perf_counter() - t0)
            t0 = time.perf_counter()
            client.complete(prompt, node="bench-text")
            entry = client.meter.entries()[-1]
            add("client-text", entry["input_tokens"], entry["output_tokens"], prompt_s, time.perf_counter() - t0)
            t0 = time.perf_counter()
            client.structured(prompt, SectionIdea, node="bench-json")
            entry = client.meter.entries()[-1]
            add("client-json", entry["input_tokens"], entry["output_tokens"], prompt_s, time.perf_counter() - t0)

    print(f"# after: {uptime()}", file=sys.stderr)
    raw = rows["raw-text"]
    print(f"raw prompt eval: {rate(sum(s[0] for s in raw), sum(s[2] for s in raw)):.0f} tok/s "
          f"({sum(s[0] for s in raw)} tokens)")
    print()
    print("| path | calls | output tok | output tok/s (end to end) | s/call |")
    print("|---|---|---|---|---|")
    for name, samples in rows.items():
        n_out = sum(s[1] for s in samples)
        total_s = sum(s[3] for s in samples)
        print(f"| {name} | {len(samples)} | {n_out} | {rate(n_out, total_s):.1f} | {total_s / len(samples):.2f} |")


if __name__ == "__main__":
    main()
