"""The one transaction helper: BEGIN IMMEDIATE, COMMIT, or ROLLBACK and re-raise; nested writes as SAVEPOINTs."""

import contextlib
import os
import sqlite3
import tempfile
import threading
import unittest

from tests import helpers  # noqa: F401  (puts the project on the path)
from osfoundry_tools.engines.database import CHECKPOINT_PAGES, Database, Layout

SCHEMA = Layout(name="notes", application_id=0x4E4F5445, version=1,
                schema="CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL);", tables=frozenset({"notes"}))


def texts(database):
    return [row[0] for row in database.connection.execute("SELECT text FROM notes ORDER BY rowid")]


class TransactionHelperTest(unittest.TestCase):
    def setUp(self):
        self.database = Database(":memory:", SCHEMA)

    def tearDown(self):
        self.database.close()

    def test_write_commits_when_the_body_returns(self):
        with self.database.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('kept')")
        self.assertFalse(self.database.connection.in_transaction)
        self.assertEqual(texts(self.database), ["kept"])

    def test_write_rolls_back_and_reraises_the_original_error(self):
        with self.assertRaisesRegex(KeyError, "boom"):
            with self.database.write() as connection:
                connection.execute("INSERT INTO notes VALUES ('lost')")
                raise KeyError("boom")
        self.assertFalse(self.database.connection.in_transaction)
        self.assertEqual(texts(self.database), [])

    def test_nested_write_rolls_back_to_its_savepoint_only(self):
        with self.database.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('outer')")
            with self.assertRaises(ValueError):
                with self.database.write() as inner:
                    inner.execute("INSERT INTO notes VALUES ('inner')")
                    raise ValueError
            with self.database.write() as inner:
                inner.execute("INSERT INTO notes VALUES ('second inner')")
        self.assertEqual(texts(self.database), ["outer", "second inner"])

    def test_an_error_after_a_nested_write_rolls_back_everything(self):
        with self.assertRaises(RuntimeError):
            with self.database.write():
                with self.database.write() as inner:
                    inner.execute("INSERT INTO notes VALUES ('inner')")
                raise RuntimeError
        self.assertEqual(texts(self.database), [])

    def test_a_read_inside_a_write_shares_it_and_a_helper_entered_again_is_judged_again(self):
        reading, writing, done = self.database.read(), self.database.write(), []
        with self.database.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('kept')")
            with reading as inner:  # nested: the write's own view, left open
                self.assertEqual([row[0] for row in inner.execute("SELECT text FROM notes")], ["kept"])
            self.assertTrue(self.database.connection.in_transaction)
            with writing as inner:  # nested: a savepoint, whose action waits for the outermost commit
                inner.execute("INSERT INTO notes VALUES ('savepoint')")
                self.database.after_commit("a", lambda: done.append("after"))
            self.assertEqual(done, [])
        self.assertEqual(done, ["after"])
        with reading:  # outermost this time: a read of its own, which commits nothing
            self.assertTrue(self.database.in_transaction and self.database.connection.in_transaction)
            self.database.after_commit("b", lambda: done.append("after a read"))
        with self.assertRaises(KeyError):
            with writing as connection:  # outermost this time: rolled back whole
                connection.execute("INSERT INTO notes VALUES ('lost')")
                raise KeyError("boom")
        self.assertFalse(self.database.in_transaction or self.database.connection.in_transaction)
        self.assertEqual((texts(self.database), done), (["kept", "savepoint"], ["after"]))

    def test_a_write_inside_a_read_is_refused(self):
        with self.database.read():
            with self.assertRaisesRegex(RuntimeError, "inside a read"):
                with self.database.write():
                    pass
        self.assertFalse(self.database.connection.in_transaction)

    def test_a_constraint_failure_leaves_no_open_transaction(self):
        with self.assertRaises(sqlite3.IntegrityError):
            with self.database.write() as connection:
                connection.execute("INSERT INTO notes VALUES ('first')")
                connection.execute("INSERT INTO notes VALUES (NULL)")
        self.assertFalse(self.database.connection.in_transaction)
        self.assertEqual(texts(self.database), [])


class CloseTest(unittest.TestCase):
    """A connection is never closed under a transaction another thread is running on it (the driver would free
    what that thread's statement is reading, and the process would crash)."""

    def setUp(self):
        self.database = Database(":memory:", SCHEMA)
        self.started, self.release, self.read = threading.Event(), threading.Event(), []

    def reading(self):
        with self.database.read() as connection:
            self.started.set()
            self.release.wait(5)
            self.read.append(connection.execute("SELECT count(*) FROM notes").fetchone()[0])

    def test_close_waits_for_the_transaction_under_way_then_closes(self):
        reader = threading.Thread(target=self.reading)
        reader.start()
        self.started.wait(5)
        threading.Timer(0.2, self.release.set).start()
        self.database.close(wait=5)
        reader.join(5)
        self.assertEqual(self.read, [0])  # its statement ran to the end, on an open connection
        with self.assertRaises(sqlite3.ProgrammingError):
            self.database.connection.execute("SELECT 1")

    def test_past_its_wait_close_leaves_the_connection_open_and_says_so(self):
        reader = threading.Thread(target=self.reading)
        reader.start()
        self.started.wait(5)
        with self.assertLogs("osfoundry", "WARNING") as said:
            self.database.close(wait=0.05)
        self.release.set()
        reader.join(5)
        self.assertEqual(self.read, [0])
        self.assertIn("still in a transaction", said.output[0])
        self.database.close()  # nothing under way now: closed
        with self.assertRaises(sqlite3.ProgrammingError):
            self.database.connection.execute("SELECT 1")


class FileDatabaseTest(unittest.TestCase):
    def test_a_file_database_uses_wal_and_a_busy_timeout(self):
        with tempfile.TemporaryDirectory() as folder:
            database = Database(os.path.join(folder, "t.db"), SCHEMA, busy_timeout=3.5)
            try:
                mode = database.connection.execute("PRAGMA journal_mode").fetchone()[0]
                timeout = database.connection.execute("PRAGMA busy_timeout").fetchone()[0]
            finally:
                database.close()
        self.assertEqual(mode, "wal")
        self.assertEqual(timeout, 3500)

    def test_write_takes_the_write_lock_at_begin(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "t.db")
            database = Database(path, SCHEMA)
            other = sqlite3.connect(path, timeout=0, isolation_level=None)
            try:
                with database.write():
                    with self.assertRaisesRegex(sqlite3.OperationalError, "locked"):
                        other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()
                database.close()


class AtCommitTest(unittest.TestCase):
    """Work kept for the end of a transaction: done once, just before COMMIT, and never for a rollback."""

    def setUp(self):
        self.database = Database(":memory:", SCHEMA)
        self.done = []

    def tearDown(self):
        self.database.close()

    def note(self, text):
        def action():
            self.done.append(text)
            self.database.connection.execute("INSERT INTO notes VALUES (?)", (text,))
        return action

    def test_an_action_runs_once_at_the_outermost_commit_inside_the_transaction(self):
        with self.database.write():
            for key in ("a", "b", "a"):
                with self.database.write():  # nested writes keep theirs for the outermost one
                    self.database.at_commit(key, lambda key=key: self.note(f"once for {key}"))
            self.assertEqual(self.done, [])
        self.assertEqual(self.done, ["once for a", "once for b"])
        self.assertEqual(texts(self.database), ["once for a", "once for b"])  # committed with the rest
        with self.database.write():
            pass
        self.assertEqual(len(self.done), 2)  # and kept for that transaction only

    def test_a_transaction_that_rolls_back_runs_none(self):
        with self.assertRaises(ValueError):
            with self.database.write():
                self.database.at_commit("a", lambda: self.note("never"))
                raise ValueError
        with self.database.write():
            pass
        self.assertEqual(self.done, [])

    def test_an_action_that_fails_rolls_the_transaction_back(self):
        def failing():
            def action():
                self.database.connection.execute("INSERT INTO notes VALUES (NULL)")
            return action
        with self.assertRaises(sqlite3.IntegrityError):
            with self.database.write() as connection:
                connection.execute("INSERT INTO notes VALUES ('body')")
                self.database.at_commit("bad", failing)
        self.assertFalse(self.database.connection.in_transaction)
        self.assertEqual(texts(self.database), [])

    def test_it_belongs_inside_a_write(self):
        for opened in (self.database.read, lambda: contextlib.nullcontext()):
            with self.subTest(opened=opened), opened():
                with self.assertRaisesRegex(RuntimeError, "inside a write"):
                    self.database.at_commit("a", lambda: self.note("never"))


class AfterCommitTest(unittest.TestCase):
    """Work kept for after a write: once, after the outermost COMMIT, outside the transaction and its lock; never
    after a rollback or a read."""

    def setUp(self):
        self.database = Database(":memory:", SCHEMA)
        self.done = []
        self.addCleanup(self.database.close)

    def action(self, text):
        def run():
            # outside the transaction, free to open one of its own, and the lock free for another thread
            free = []

            def try_the_lock():
                got = self.database._lock.acquire(blocking=False)
                if got:
                    self.database._lock.release()
                free.append(got)
            other = threading.Thread(target=try_the_lock)
            other.start()
            other.join()
            self.done.append((text, self.database.in_transaction, free[0]))
            with self.database.write() as connection:
                connection.execute("INSERT INTO notes VALUES (?)", (text,))
        return run

    def test_an_action_runs_once_after_the_outermost_commit(self):
        with self.database.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('body')")
            for key in ("a", "b", "a"):
                with self.database.write():
                    self.database.after_commit(key, self.action(f"after {key}"))
            self.assertEqual(self.done, [])
        self.assertEqual(self.done, [("after a", False, True), ("after b", False, True)])
        self.assertEqual(texts(self.database), ["body", "after a", "after b"])
        with self.database.write():
            pass
        self.assertEqual(len(self.done), 2)

    def test_none_runs_after_a_rollback_or_a_read(self):
        with self.assertRaises(ValueError):
            with self.database.write():
                self.database.after_commit("a", self.action("never"))
                raise ValueError
        with self.database.read():
            self.database.after_commit("b", self.action("never"))
        with self.database.write():
            pass
        self.assertEqual((self.done, texts(self.database)), ([], []))

    def test_it_belongs_inside_a_transaction(self):
        with self.assertRaisesRegex(RuntimeError, "inside a transaction"):
            self.database.after_commit("a", self.action("never"))


class CheckpointTest(unittest.TestCase):
    def test_a_file_checkpoints_every_checkpoint_pages_and_its_log_stays_that_small(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "t.db")
            database = Database(path, SCHEMA)
            try:
                pages = database.connection.execute("PRAGMA wal_autocheckpoint").fetchone()[0]
                for number in range(400):  # about 4 MiB written, eight times the log's bound
                    with database.write() as connection:
                        connection.execute("INSERT INTO notes VALUES (?)", (f"{number:04d}" + "x" * 10_000,))
                page_size = database.connection.execute("PRAGMA page_size").fetchone()[0]
                log = os.path.getsize(path + "-wal")
            finally:
                database.close()
        self.assertEqual(pages, CHECKPOINT_PAGES)
        self.assertLess(log, 2 * CHECKPOINT_PAGES * (page_size + 24))  # sqlite's own 1,000 pages would be 4 MiB


class CopyTest(unittest.TestCase):
    def test_a_copy_holds_what_the_original_held_and_then_lives_apart(self):
        original, copy = Database(":memory:", SCHEMA), Database(":memory:", SCHEMA)
        with original.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('kept')")
        with copy.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('replaced')")
        original.copy_to(copy)
        self.assertEqual(texts(copy), ["kept"])
        with copy.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('only in the copy')")
        self.assertEqual(texts(original), ["kept"])


if __name__ == "__main__":
    unittest.main()
