# The project's commands. Standard library only: nothing to install.
PYTHON ?= python3

.PHONY: test results
test:  ## run the whole unittest suite; the last line reads "N passed, N failed, N skipped"
	$(PYTHON) tests/run.py

results:  ## regenerate results/ from the experiments (about a minute on two cores)
	$(PYTHON) sim.py
