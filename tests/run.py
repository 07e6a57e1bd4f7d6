"""Run the whole unittest suite and end with one line: N passed, N failed, N skipped.

Exits 1 on any failure or error (errors count as failed), 0 otherwise.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import osfoundry_tools.minimum_python  # noqa: E402, F401  (before any import that would fail on an older Python)
import unittest  # noqa: E402
from unittest.suite import _ErrorHolder  # type: ignore[attr-defined]  # noqa: E402  (private; typeshed omits it)


def test_ids(pairs: list) -> set:
    """The IDs of the tests in (test, reason) pairs; a test with several failing subtests counts once."""
    return {getattr(test, "test_case", test).id() for test, _ in pairs}


def main() -> int:
    """Discover tests/test_*.py, run them, print the closing line, return the exit status."""
    suite = unittest.defaultTestLoader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)
    result = unittest.TextTestRunner(verbosity=int(os.environ.get("VERBOSE", "1"))).run(suite)
    problems = result.failures + result.errors + [(test, "") for test in result.unexpectedSuccesses]
    failed = test_ids(problems)
    not_run = {test.id() for test, _ in problems if isinstance(test, _ErrorHolder)}  # setUpClass and the like
    skipped = test_ids(result.skipped) - failed
    passed = result.testsRun - len(failed - not_run) - len(skipped) - len(result.expectedFailures)
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 0 if not failed and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
