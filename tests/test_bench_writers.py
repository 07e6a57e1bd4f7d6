"""benchmark/writers.py: writer processes save every edit in one chain per item, and the chain check catches a break."""

import contextlib
import glob
import os
import sqlite3
import tempfile
import unittest

from benchmark import writers
from benchmark.writers import CHANNEL, check_chain, run_writers

EDITS = 40  # per process: enough to meet on a hot set, small enough for a second
ITEMS = 3


def copy_of(path, directory):
    """A copy of a finished database, through sqlite's backup API, to corrupt without touching the original."""
    copy = os.path.join(directory, "copy.db")
    with contextlib.closing(sqlite3.connect(path)) as source, contextlib.closing(sqlite3.connect(copy)) as target:
        source.backup(target)
    return copy


def change(path, statement, *parameters):
    """Run one raw SQL write on the file, as a corruption no store would make."""
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(statement, parameters)


class WritersTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        cls.two = run_writers(cls.folder.name, 2, EDITS, ITEMS, seed=1)
        (cls.finished,) = glob.glob(os.path.join(cls.folder.name, "*.db"))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = copy_of(self.finished, folder.name)

    def test_two_writers_save_every_edit_in_one_chain(self):
        self.assertEqual(self.two["processes"], 2)
        self.assertEqual(self.two["edits"], 2 * EDITS)
        self.assertEqual(self.two["chain"], {"ok": True, "problems": []})
        self.assertGreater(self.two["seconds"], 0)
        self.assertAlmostEqual(self.two["edits_per_second"], self.two["edits"] / self.two["seconds"])
        self.assertGreaterEqual(self.two["conflicts"], 0)
        self.assertEqual(self.two["busy"], 0, "a 10-second busy timeout outlasts every write here")

    def test_one_writer_never_conflicts(self):
        with tempfile.TemporaryDirectory() as directory:
            one = run_writers(directory, 1, EDITS, ITEMS, seed=2)
        self.assertEqual((one["edits"], one["conflicts"], one["busy"]), (EDITS, 0, 0))
        self.assertTrue(one["chain"]["ok"], one["chain"]["problems"])

    def test_a_rejection_other_than_a_conflict_fails_the_run_with_the_writers_result(self):
        with tempfile.TemporaryDirectory() as directory:
            path, _ = writers.bug_tracker(directory, ITEMS, seed=1)
            with self.assertRaisesRegex(RuntimeError, r"a writer failed:(.|\n)*edit w\d-1 of itm-09999: "
                                                      r"\{'error': 'not_found'"):
                writers.run_processes(path, ["itm-09999"], 2, EDITS, seed=1)

    def test_the_copy_of_a_finished_run_passes_the_check(self):
        self.assertEqual(check_chain(self.path, CHANNEL, 2 * EDITS), {"ok": True, "problems": []})

    def test_a_deleted_update_event_breaks_its_items_chain_and_the_sequences(self):
        sequence, item_id = self.update_in_the_middle()
        change(self.path, "DELETE FROM events WHERE resource_id = ? AND sequence = ?", CHANNEL, sequence)
        check = check_chain(self.path, CHANNEL, 2 * EDITS)
        self.assertFalse(check["ok"])
        self.assertTrue(any(p.startswith(f"item {item_id}: versions ") for p in check["problems"]), check)
        self.assertIn(f"channel {CHANNEL}: event sequences should run 1 to {ITEMS + 2 * EDITS - 1}"
                      f" with no gap or repeat, but after {sequence - 1} comes {sequence + 1}", check["problems"])

    def test_a_bumped_stored_version_names_the_item(self):
        _, item_id = self.update_in_the_middle()
        change(self.path, "UPDATE items SET version = version + 1 WHERE channel_id = ? AND id = ?", CHANNEL, item_id)
        check = check_chain(self.path, CHANNEL, 2 * EDITS)
        self.assertFalse(check["ok"])
        self.assertEqual(len(check["problems"]), 1, check)
        self.assertRegex(check["problems"][0], rf"^item {item_id}: versions .*; its stored version is \d+")

    def test_a_wrong_number_of_expected_edits_fails_the_check(self):
        check = check_chain(self.path, CHANNEL, 2 * EDITS + 1)
        self.assertEqual(check, {"ok": False, "problems": [
            f"channel {CHANNEL}: {2 * EDITS} 'updated' events, but {2 * EDITS + 1} edits were made"]})

    def test_versions_in_a_problem_show_the_stretch_where_the_chain_breaks(self):
        self.assertEqual(writers.listed([2, 3, 3, 5], [2, 3, 4, 5]), "2, 3, 3, 5")
        self.assertEqual(writers.listed(list(range(2, 20)) + [20, 20], list(range(2, 22))),
                         "…, 18, 19, 20, 20")

    def update_in_the_middle(self):
        """The sequence and item of an 'updated' event halfway through the channel's log."""
        with contextlib.closing(sqlite3.connect(self.path)) as connection:
            return connection.execute("SELECT sequence, subject_id FROM events WHERE resource_id = ? AND type = "
                                      "'updated' ORDER BY sequence LIMIT 1 OFFSET ?", (CHANNEL, EDITS)).fetchone()


if __name__ == "__main__":
    unittest.main()
