"""Storage faults, tried the way SQLite tests itself: fail the Nth statement of every write, for every N.

Each write path of both stores runs with sqlite failing (disk I/O, a full disk) at statement N of its
transaction, for N from the BEGIN to the COMMIT. Each time the call must answer storage_error (the tools)
or raise StorageError (the people's side), leave the database exactly as it was, pass integrity_check, and
let the very same call succeed next.
"""

import sqlite3
import unittest

from tests import helpers
from tests.helpers import KB, support_store
from tests.record_helpers import BUGS, bug_store
from osfoundry_tools.engines.database import Database, Layout, split_statements
from osfoundry_tools.core import rejections

FAULTS = ("disk I/O error", "database or disk is full")
MOST_STATEMENTS = 200  # no write of ours runs as many; the loop stops when the call no longer meets its fault


class FaultyConnection:
    """A sqlite3 connection whose next write transaction fails at its Nth statement (0 is the BEGIN itself)."""

    def __init__(self, connection: sqlite3.Connection, fail_at: int, message: str) -> None:
        self._connection = connection
        self.fail_at, self.message = fail_at, message
        self.counted, self.fired = None, False

    def execute(self, sql, *parameters):
        self._count(sql)
        return self._connection.execute(sql, *parameters)

    def executemany(self, sql, *parameters):
        self._count(sql)
        return self._connection.executemany(sql, *parameters)

    def _count(self, sql):
        if self.fired:
            return
        if sql.startswith("BEGIN IMMEDIATE"):
            self.counted = -1
        if self.counted is not None:
            self.counted += 1
            if self.counted == self.fail_at:
                self.fired = True
                raise sqlite3.OperationalError(self.message)

    def __getattr__(self, name):
        return getattr(self._connection, name)


def dump(store):
    return list(store.database.connection.iterdump())


def integrity(store):
    return store.database.connection.execute("PRAGMA integrity_check").fetchone()[0]


def kb_paths():
    """name -> (a fresh store, the write to try on it, whether it is a tool call)."""
    def fresh():
        store, clock, ids = support_store()
        clock.advance()
        return store, ids

    def edit(store, ids):
        version = helpers.read(store, ids[0])["updated_at"]
        return helpers.edit(store, ids[0], version, "fault-key", content="Rewritten in a failing moment.")

    return {
        "edit_knowledge_article": (fresh, edit, True),
        "create_knowledge_base": (fresh, lambda s, ids: s.create_knowledge_base("kb-new", "New"), False),
        "create_article": (fresh, lambda s, ids: s.create_article(KB, "Fresh", "A new article."), False),
        "save_article": (fresh, lambda s, ids: s.save_article(KB, ids[1], content="Saved.", title="Renamed"), False),
        "unpublish_article": (fresh, lambda s, ids: s.unpublish_article(KB, ids[2]), False),
        "publish_article": (fresh, lambda s, ids: s.publish_article(KB, "draft-1"), False),
        "add_views": (fresh, lambda s, ids: s.add_views(KB, ids[0], 5), False),
        "optimize_search_index": (fresh, lambda s, ids: s.optimize_search_index(), False),
    }


def record_paths():
    def fresh():
        store, clock, ids = bug_store(items=3)
        clock.advance()
        return store, ids

    def edit(store, ids):
        version = store.call_tool("read_record_item", {"record_channel_id": BUGS, "item_id": ids[0]})["version"]
        return store.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": ids[0],
                                                    "values": {"status": "triaged", "points": 3},
                                                    "expected_version": version, "idempotency_key": "fault-key"})

    fields = [{"key": "name", "label": "Name", "type": "text", "is_required": True, "is_unique": True}]
    return {
        "edit_record_item": (fresh, edit, True),
        "create_channel": (fresh, lambda s, ids: s.create_channel("people", "People", fields), False),
        "create_item": (fresh, lambda s, ids: s.create_item(BUGS, {"ticket": "BUG-900", "title": "New",
                                                                   "status": "new"}), False),
        "edit_item": (fresh, lambda s, ids: s.edit_item(BUGS, ids[1], {"ticket": "BUG-901", "owner": "ren"}), False),
        "delete_item": (fresh, lambda s, ids: s.delete_item(BUGS, ids[2]), False),
    }


class EveryStatementFailsOnceTest(unittest.TestCase):
    def assert_survives_every_fault(self, paths):
        for name, (fresh, write, is_tool) in paths.items():
            for message in FAULTS:
                with self.subTest(path=name, fault=message):
                    tried = self.try_every_statement(fresh, write, is_tool, message)
                    self.assertGreater(tried, 2)  # BEGIN, at least one statement, COMMIT

    def try_every_statement(self, fresh, write, is_tool, message):
        for fail_at in range(MOST_STATEMENTS):
            store, ids = fresh()
            before = dump(store)
            real = store.database.connection
            faulty = store.database.connection = FaultyConnection(real, fail_at, message)
            outcome = self.run_write(store, ids, write, is_tool)
            store.database.connection = real
            if not faulty.fired:  # the write ran fewer statements than fail_at: every one has failed once
                self.assertIsNone(outcome)
                return fail_at
            self.assertIsNotNone(outcome, f"statement {fail_at} failed and the call did not say so")
            self.assertEqual(outcome["error"], "storage_error")
            self.assertIn("nothing was saved", outcome["message"])
            self.assertIn("same idempotency_key", outcome["message"])
            self.assertIn(message, outcome["message"])
            self.assertFalse(real.in_transaction)
            self.assertEqual(dump(store), before, f"statement {fail_at} left a trace")
            self.assertEqual(integrity(store), "ok")
            self.assertIsNone(self.run_write(store, ids, write, is_tool), "the same call failed again")
        self.fail(f"a write ran more than {MOST_STATEMENTS} statements")

    @staticmethod
    def run_write(store, ids, write, is_tool):
        """None when the write succeeded, else its rejection as a dict."""
        try:
            result = write(store, ids)
        except rejections.Rejection as rejection:
            assert not is_tool, "a tool raised instead of answering"
            return rejection.as_result()
        if is_tool and "error" in result:
            return result
        return None

    def test_every_knowledge_base_write_survives_a_failure_at_every_statement(self):
        self.assert_survives_every_fault(kb_paths())

    def test_every_record_write_survives_a_failure_at_every_statement(self):
        self.assert_survives_every_fault(record_paths())


TRIGGERED = Layout(name="trigger test", application_id=0x54524947, version=1, tables=frozenset({"notes"}), schema="""
CREATE TABLE IF NOT EXISTS notes (text TEXT NOT NULL);
CREATE TRIGGER IF NOT EXISTS no_forbidden BEFORE INSERT ON notes WHEN NEW.text = 'forbidden'
BEGIN
    SELECT RAISE(ROLLBACK, 'forbidden text; nothing was kept');
END;
""")


class NestedWriteTest(unittest.TestCase):
    def test_a_trigger_that_ends_the_transaction_inside_a_nested_write_keeps_its_own_error(self):
        database = Database(":memory:", TRIGGERED)
        with self.assertRaisesRegex(sqlite3.IntegrityError, "forbidden text"):
            with database.write() as connection:
                connection.execute("INSERT INTO notes VALUES ('kept until the rollback')")
                with database.write() as inner:
                    inner.execute("INSERT INTO notes VALUES ('forbidden')")
        self.assertFalse(database.connection.in_transaction)
        self.assertEqual(database.connection.execute("SELECT count(*) FROM notes").fetchone()[0], 0)
        with database.write() as connection:
            connection.execute("INSERT INTO notes VALUES ('fine')")
        self.assertEqual(database.connection.execute("SELECT text FROM notes").fetchall()[0][0], "fine")

    def test_a_schema_splits_where_statements_end_so_a_trigger_body_keeps_its_semicolons(self):
        statements = split_statements(TRIGGERED.schema)
        self.assertEqual(len(statements), 2)
        self.assertTrue(statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END;"))
        with self.assertRaisesRegex(ValueError, "incomplete"):
            split_statements("CREATE TABLE t (x); CREATE TABLE u (")


class BusyTest(unittest.TestCase):
    def test_a_write_that_cannot_begin_answers_busy_and_changes_nothing(self):
        store, _, ids = support_store()
        before = dump(store)
        real = store.database.connection
        store.database.connection = FaultyConnection(real, 0, "database is locked")
        version = helpers.read(store, ids[0])["updated_at"]
        result = helpers.edit(store, ids[0], version, "k")
        store.database.connection = real
        self.assertEqual(result["error"], "busy")
        self.assertEqual(dump(store), before)


if __name__ == "__main__":
    unittest.main()
