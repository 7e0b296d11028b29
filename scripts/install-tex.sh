#!/usr/bin/env bash
# Optional TeX, so `generate --pdf` and tests/test_latex_compile.py can build PDFs (lualatex with
# Latin Modern; pdftotext from poppler-utils checks the PDF's citation numbers). Debian/Ubuntu,
# as root with apt-get. Without it survey.tex is still written and the PDF test skips with a reason.
# Usage: bash scripts/install-tex.sh
set -euo pipefail
if command -v lualatex >/dev/null 2>&1 && command -v latexmk >/dev/null 2>&1 && command -v pdftotext >/dev/null 2>&1; then
  echo "TeX already installed"
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "error: installing TeX needs root and apt-get; install latexmk, LuaLaTeX, Latin Modern and poppler-utils by hand" >&2
  exit 2
fi
echo "installing TeX (latexmk, LuaLaTeX, XeLaTeX, Latin Modern) and poppler-utils via apt-get ..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq latexmk texlive-latex-recommended texlive-luatex texlive-xetex \
  texlive-fonts-recommended lmodern poppler-utils >/dev/null
echo "TeX installed"
