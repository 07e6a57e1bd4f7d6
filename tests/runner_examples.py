"""Tests that pass, fail and skip on purpose, for the runner's own tests (tests/test_run.py) to count. Its name
does not start with test_, so discovery never runs it as part of the suite."""

import unittest


class Examples(unittest.TestCase):
    def test_that_passes(self):
        self.assertTrue(True)

    def test_that_fails(self):
        self.assertEqual(1, 2)

    @unittest.skip("an example of a skip")
    def test_that_is_skipped(self):
        pass
