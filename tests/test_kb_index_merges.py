"""A search index is merged by budget: FTS5's automerge is off, each transaction that writes an index merges it
before it commits (kb_store.MERGE_PAGES per article it wrote), and the index stays correct, few-segmented and
as small as FTS5's own merging keeps it; an older file is upgraded to the same policy."""

import os
import shutil
import sqlite3
import tempfile
import unittest

from tests import helpers
from tests.helpers import KB, support_store
from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store

QUERIES = ("reset password", "invoices export month", "teammate invitation", "topic words", "passwords 3")


def segments(store, number=1):
    """How many segments the index holds: each has at least one row in FTS5's %_idx table."""
    table = kb_search.index_table(number)
    return store.database.connection.execute(f"SELECT count(DISTINCT segid) FROM {table}_idx").fetchone()[0]


def automerge(store, number=1):
    table = kb_search.index_table(number)
    row = store.database.connection.execute(f"SELECT v FROM {table}_config WHERE k = 'automerge'").fetchone()
    return None if row is None else row[0]


def answers(store):
    """What the searches find: each result's article, title and snippet (versions differ from store to store)."""
    found = []
    for query in QUERIES:
        result = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query, "limit": 20})
        found.append([(r["article_id"], r["title"], r["snippet"]) for r in result["results"]])
    return found


def integrity(store, number=1):
    """FTS5's own check of the index against what it holds; raises sqlite3.DatabaseError if they differ."""
    table = kb_search.index_table(number)
    store.database.connection.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")


def write_many(store, clock, count=100):
    """`count` articles, each created in a transaction of its own, then every one of them edited once."""
    for number in range(count):
        clock.advance()
        store.create_article(KB, f"Article {number}", f"Topic words {number}; reset passwords {number % 7}.",
                             article_id=f"a-{number}")
    for number in range(count):
        version = helpers.read(store, f"a-{number}")["updated_at"]
        clock.advance()
        result = helpers.edit(store, f"a-{number}", version, f"k-{number}",
                              content=f"Rewritten topic words {number}; export invoices {number % 5}.")
        assert "error" not in result, result


class MergeBudgetTest(unittest.TestCase):
    def test_a_new_index_leaves_merging_to_the_store(self):
        store, _, _ = support_store()
        self.assertEqual(automerge(store), 0)
        self.assertEqual(automerge(store, 2), 0)

    def test_many_writes_leave_a_correct_index_of_few_segments(self):
        store, clock, _ = support_store()
        write_many(store, clock)
        integrity(store)
        self.assertLessEqual(segments(store), 8)  # without the budget, crisis merges alone: 15 or more

    def test_a_merged_index_answers_as_one_built_from_scratch(self):
        store, clock, _ = support_store()
        write_many(store, clock)
        fresh, fresh_clock, _ = support_store()
        for number in range(100):
            article = store.article(KB, f"a-{number}")
            fresh.create_article(KB, article["title"], article["content"], article_id=f"a-{number}")
        self.assertEqual(answers(store), answers(fresh))
        store.optimize_search_index()  # one segment: the same answers again
        self.assertEqual(answers(store), answers(fresh))

    def test_the_file_stays_as_small_as_automerge_keeps_it(self):
        sizes = {}
        for budget in (True, False):
            store, clock, _ = support_store()
            if not budget:  # FTS5 merging on its own, as before schema 4
                store.database.connection.execute("INSERT INTO search_index_1 (search_index_1, rank) "
                                                  "VALUES ('automerge', 4)")
                store.database.at_commit = lambda key, make: kb_search.IndexMerge(None, "")  # no budget paid
            write_many(store, clock)
            sizes[budget] = store.database.connection.execute("PRAGMA page_count").fetchone()[0]
        self.assertLessEqual(sizes[True], sizes[False] * 1.1)

    def test_an_edit_that_fails_merges_nothing(self):
        store, clock, ids = support_store()
        before = helpers.snapshot(store)
        result = helpers.edit(store, ids[0], "2020-01-01T00:00:00.000000Z", "stale")
        self.assertEqual(result["error"], "version_conflict")
        self.assertEqual(helpers.snapshot(store), before)


class UpgradeTest(unittest.TestCase):
    def test_a_file_of_schema_3_is_merged_by_budget_from_then_on(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "kb.db")
        store, clock, _ = support_store(path)
        found = answers(store)
        store.close()
        connection = sqlite3.connect(path)  # as schema 3 left it: FTS5's default merging
        for table in ("search_index_1", "search_index_2"):
            connection.execute(f"DELETE FROM {table}_config WHERE k = 'automerge'")
        connection.execute("PRAGMA user_version = 3")
        connection.commit()
        connection.close()
        with kb_store.connect(path, clock=clock) as reopened:
            self.assertEqual((automerge(reopened), automerge(reopened, 2)), (0, 0))
            self.assertEqual(reopened.database.connection.execute("PRAGMA user_version").fetchone()[0],
                             kb_store.LAYOUT.version)
            self.assertEqual(answers(reopened), found)
            write_many(reopened, clock, 30)
            integrity(reopened)


if __name__ == "__main__":
    unittest.main()
