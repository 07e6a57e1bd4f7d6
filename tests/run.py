"""Run the whole unittest suite and end with one line: N passed, N failed, N skipped.

Just before that line, one line per distinct reason a test was skipped, with how many tests it skipped
("skipped 12: needs PostgreSQL (make postgres runs them)"), most first. Exits 1 on any failure or error (errors
count as failed), 0 otherwise.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import osfoundry_tools.minimum_python  # noqa: E402, F401  (before any import that would fail on an older Python)
import unittest  # noqa: E402
from typing import AbstractSet, Dict, List, Set  # noqa: E402
from unittest.suite import _ErrorHolder  # type: ignore[attr-defined]  # noqa: E402  (private; typeshed omits it)


def test_ids(pairs: list) -> set:
    """The IDs of the tests in (test, reason) pairs; a test with several failing subtests counts once."""
    return {getattr(test, "test_case", test).id() for test, _ in pairs}


def skip_reasons(pairs: list, failed: AbstractSet[str] = frozenset()) -> List[str]:
    """The lines naming why tests were skipped, from (test, reason) pairs: one per distinct reason (its whitespace
    made one line), with how many tests it skipped (a test skipped in several subtests for one reason counts
    once; a test that also failed counts as failed, not here), the most frequent first, then by reason."""
    tests: Dict[str, Set[str]] = {}
    for test, reason in pairs:
        test_id = getattr(test, "test_case", test).id()
        if test_id not in failed:
            tests.setdefault(" ".join(str(reason).split()) or "no reason given", set()).add(test_id)
    counted = sorted(tests.items(), key=lambda entry: (-len(entry[1]), entry[0]))
    return [f"skipped {len(ids)}: {reason}" for reason, ids in counted]


def main() -> int:
    """Discover tests/test_*.py, run them, print the closing line, return the exit status."""
    suite = unittest.defaultTestLoader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)
    result = unittest.TextTestRunner(verbosity=int(os.environ.get("VERBOSE", "1"))).run(suite)
    problems = result.failures + result.errors + [(test, "") for test in result.unexpectedSuccesses]
    failed = test_ids(problems)
    not_run = {test.id() for test, _ in problems if isinstance(test, _ErrorHolder)}  # setUpClass and the like
    skipped = test_ids(result.skipped) - failed
    passed = result.testsRun - len(failed - not_run) - len(skipped) - len(result.expectedFailures)
    for line in skip_reasons(result.skipped, failed):
        print(line)
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 0 if not failed and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
