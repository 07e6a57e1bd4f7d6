"""The examples in the modules' docstrings run and print what they show."""

import doctest

from tests import helpers  # noqa: F401
import kb_store
import plumbing


def load_tests(loader, tests, ignore):
    for module in (kb_store, plumbing):
        tests.addTests(doctest.DocTestSuite(module))
    return tests
