"""The runner's closing lines: why tests were skipped, one line per distinct reason, just before the count."""

import contextlib
import io
import unittest
from unittest import mock

from tests import run
from tests.run import skip_reasons


def named_case(name):
    """A test case of three tests that is made here, not found by discovery (its tests are only named)."""
    class Named(unittest.TestCase):
        def test_one(self):
            pass

        def test_two(self):
            pass

        def test_three(self):
            pass

    return Named(name)


class SkipReasonsTest(unittest.TestCase):
    def test_reasons_are_grouped_counted_by_test_and_listed_most_first(self):
        one, two, three = named_case("test_one"), named_case("test_two"), named_case("test_three")
        postgres = "needs PostgreSQL (make postgres runs them)"
        pairs = [(one, postgres), (two, postgres), (three, "no Python 3.13 on this machine")]
        self.assertEqual(skip_reasons(pairs), ["skipped 2: needs PostgreSQL (make postgres runs them)",
                                               "skipped 1: no Python 3.13 on this machine"])

    def test_a_test_skipped_in_several_subtests_for_one_reason_counts_once(self):
        case = named_case("test_one")
        subtests = [unittest.case._SubTest(case, "", {"python": version}) for version in ("3.9", "3.13")]
        self.assertEqual(skip_reasons([(subtest, "no such Python") for subtest in subtests]),
                         ["skipped 1: no such Python"])

    def test_a_failed_test_is_left_out_and_whitespace_makes_one_line(self):
        one, two = named_case("test_one"), named_case("test_two")
        pairs = [(one, "needs\n  the mcp package"), (two, "needs the mcp package")]
        self.assertEqual(skip_reasons(pairs, {two.id()}), ["skipped 1: needs the mcp package"])

    def test_equal_counts_are_listed_by_reason(self):
        one, two = named_case("test_one"), named_case("test_two")
        self.assertEqual(skip_reasons([(two, "b"), (one, "a")]), ["skipped 1: a", "skipped 1: b"])

    def test_the_runner_prints_them_just_before_its_last_line(self):
        class Skipping(unittest.TestCase):
            @unittest.skip("needs a printer")
            def test_a(self):
                pass

            def test_b(self):
                pass

        suite = unittest.defaultTestLoader.loadTestsFromTestCase(Skipping)
        printed, progress = io.StringIO(), io.StringIO()
        with mock.patch.object(unittest.defaultTestLoader, "discover", return_value=suite), \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(progress):
            status = run.main(jobs=1)
        self.assertEqual(status, 0)
        self.assertEqual(printed.getvalue().splitlines()[-2:],
                         ["skipped 1: needs a printer", "1 passed, 0 failed, 1 skipped"])


class DealtTest(unittest.TestCase):
    """Modules dealt to worker processes come to the same closing line as one process running them all."""

    MODULES = ["tests.test_clock", "tests.runner_examples"]

    def closing_lines(self, jobs):
        suite = unittest.defaultTestLoader.loadTestsFromNames(self.MODULES)
        printed, progress = io.StringIO(), io.StringIO()
        with mock.patch.object(unittest.defaultTestLoader, "discover", return_value=suite), \
                contextlib.redirect_stdout(printed), contextlib.redirect_stderr(progress):
            status = run.main(jobs=jobs)
        return status, printed.getvalue().splitlines(), progress.getvalue()

    def test_two_processes_count_what_one_counts_and_print_every_failure(self):
        one, two = self.closing_lines(1), self.closing_lines(2)
        self.assertEqual(one[:2], two[:2])
        self.assertEqual(two[0], 1)
        self.assertRegex(two[1][-1], r"^\d+ passed, 1 failed, 1 skipped$")
        self.assertIn("FAIL: tests.runner_examples.Examples.test_that_fails", two[2])
        self.assertIn("on 2 processes", two[2])


if __name__ == "__main__":
    unittest.main()
