.PHONY: install test test-fast

install:  ## everything for a fresh machine: torch CPU, the package with extras, offline models
	bash scripts/install.sh

test:  ## the whole suite, including the slow real-model tests
	pytest -q

test-fast:  ## skip the slow real-model tests
	pytest -q -m "not slow"
