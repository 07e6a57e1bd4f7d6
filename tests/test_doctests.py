"""The examples in the modules' docstrings run and print what they show."""

import doctest

from tests import helpers  # noqa: F401
from lab import experiments
import kb_store
import plumbing
import record_fields
import record_store


def load_tests(loader, tests, ignore):
    for module in (experiments, kb_store, plumbing, record_fields, record_store):
        tests.addTests(doctest.DocTestSuite(module))
    return tests
