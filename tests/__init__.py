"""The unittest suite; `make test` runs it through tests/run.py."""
