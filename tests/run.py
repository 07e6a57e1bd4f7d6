"""Run the whole unittest suite and end with one line: N passed, N failed, N skipped.

Exits 1 on any failure or error (errors count as failed), 0 otherwise.
"""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main() -> int:
    """Discover tests/test_*.py, run them, print the closing line, return the exit status."""
    sys.path.insert(0, ROOT)
    suite = unittest.defaultTestLoader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)
    result = unittest.TextTestRunner(verbosity=int(os.environ.get("VERBOSE", "1"))).run(suite)
    skipped = len(result.skipped)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    passed = result.testsRun - failed - skipped - len(result.expectedFailures)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
