"""Run the shared contract tests on the PostgreSQL cluster OSFOUNDRY_TEST_POSTGRES names (make postgres), each
store on a database of its own, and end with one line: N passed, N failed, N skipped.

These are the same test modules `make test` runs on sqlite: their stores open at
tests/postgres_helpers.default_location(), which is this database here. A test that holds for sqlite alone says so
with postgres_helpers.sqlite_only and is skipped here, with its reason.
"""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests import postgres_helpers  # noqa: E402
from tests.run import skip_reasons, test_ids  # noqa: E402

CONTRACT_MODULES = (  # bad input, compare-and-swap, idempotency, events, grants, crashes: what every engine promises
    "tests.test_postgres",
    "tests.test_kb_bad_input", "tests.test_record_bad_input",
    "tests.test_kb_edit", "tests.test_record_edit",
    "tests.test_kb_events", "tests.test_kb_grants", "tests.test_grant_scope",
    "tests.test_record_rejections", "tests.test_record_listing", "tests.test_record_unique_spellings",
    "tests.test_kb_search_and_read",
    "tests.test_hostile_input",
    "tests.test_kb_concurrency", "tests.test_record_concurrency",
    "tests.test_concurrent_reads", "tests.test_http_processes",
    "tests.test_search_questions", "tests.test_search_quality", "tests.test_kb_sections", "tests.test_kb_section_reads",
    "tests.test_edit_preview", "tests.test_rerank",
    "tests.test_approval",
    "tests.test_mcp_resources", "tests.test_mcp_listen", "tests.test_http_sessions", "tests.test_session_feed",
)


class DatabasesDropped(unittest.TextTestResult):
    """The databases a test made are dropped once it has finished."""

    def stopTest(self, test: unittest.TestCase) -> None:
        super().stopTest(test)
        postgres_helpers.drop_test_databases()


def main() -> int:
    if not postgres_helpers.on_postgres():
        print("run_postgres.py: set OSFOUNDRY_TEST_POSTGRES to a database of a cluster where these tests may make and "
              "drop databases (make postgres does)", file=sys.stderr)
        return 2
    suite = unittest.defaultTestLoader.loadTestsFromNames(CONTRACT_MODULES)
    runner = unittest.TextTestRunner(verbosity=int(os.environ.get("VERBOSE", "1")),
                                     resultclass=DatabasesDropped)  # type: ignore[arg-type]  # typeshed is narrower
    result = runner.run(suite)
    failed = test_ids(result.failures + result.errors)
    skipped = test_ids(result.skipped) - failed
    passed = result.testsRun - len(failed) - len(skipped)
    for line in skip_reasons(result.skipped, failed):
        print(line)
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 0 if not failed and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
