# The project's commands. Standard library only: nothing to install.
PYTHON ?= python3

.PHONY: test results
test:  ## run the whole unittest suite; the last line reads "N passed, N failed, N skipped"
	$(PYTHON) tests/run.py

results:  ## regenerate results/ from both experiments and the sensitivity page (about six minutes on two cores)
	$(PYTHON) sim.py
	$(PYTHON) sim.py --sensitivity
	$(PYTHON) triage.py

.PHONY: sensitivity-check
sensitivity-check:  ## rerun the sensitivity page and compare it with the committed one (about four minutes)
	SIM_SENSITIVITY=1 $(PYTHON) -m unittest -v tests.test_sim.CommittedSensitivityTest

.PHONY: bench
bench:  ## time the tools against the bare sqlite transaction and how cost grows; writes results/performance.md (about 5 min)
	$(PYTHON) bench.py

# The real-client test: the official MCP SDK, in .venv only (the product and `make test` stay standard library).
VENV ?= .venv
.PHONY: conformance
conformance:  ## install mcp==2.3.0 into .venv (Python >= 3.10) and run tests/test_mcp_sdk.py there; a skip fails
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q mcp==2.3.0
	MCP_SDK_REQUIRED=1 $(VENV)/bin/python -m unittest -v tests.test_mcp_sdk
