"""People's views: the best text match first, the other matches most viewed first; views are not a version."""

import os
import sqlite3
import tempfile
import unittest

from tests import helpers
from tests.helpers import KB, OTHER_KB, support_store
import kb_store


def found(store, query, kb=KB, **more):
    result = store.call_tool("search_knowledge_base", dict(knowledge_base_id=kb, query=query, **more))
    return [hit["article_id"] for hit in result["results"]]


class RankingByViewsTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()
        # four articles about ledgers: "best" holds the query words in its title, the others one in the text
        self.store.create_article(KB, "Ledger totals", "Ledger totals add taxes.", article_id="best")
        for name, text in (("quiet", "A ledger line, and a ledger note, for quiet reasons."),
                           ("popular", "A ledger line appears here for popular reasons, among many other words."),
                           ("middling", "A ledger line appears for middling reasons.")):
            self.store.create_article(KB, f"Billing {name}", text, article_id=name)

    def test_without_views_the_matches_rank_by_text_alone(self):
        self.assertEqual(found(self.store, "ledger totals")[0], "best")
        self.assertEqual(found(self.store, "ledger totals")[1:4], ["quiet", "middling", "popular"])  # not ID order

    def test_the_best_text_match_stays_first_and_the_others_follow_most_viewed_first(self):
        self.store.add_views(KB, "popular", 500)
        self.store.add_views(KB, "middling", 40)
        self.store.add_views(KB, "best", 1)
        hits = found(self.store, "ledger totals")
        self.assertEqual(hits, ["best", "popular", "middling", "quiet"])

    def test_the_most_viewed_article_is_not_first_unless_it_is_the_best_match(self):
        self.store.add_views(KB, "quiet", 10_000)
        self.assertEqual(found(self.store, "ledger totals")[:2], ["best", "quiet"])

    def test_equally_viewed_matches_keep_their_text_order(self):
        for name in ("quiet", "popular", "middling"):
            self.store.add_views(KB, name, 7)
        self.assertEqual(found(self.store, "ledger totals")[1:4], ["quiet", "middling", "popular"])

    def test_limit_counts_the_best_match_and_limit_one_gives_only_it(self):
        self.store.add_views(KB, "popular", 5)
        self.assertEqual(found(self.store, "ledger totals", limit=1), ["best"])
        self.assertEqual(found(self.store, "ledger totals", limit=2), ["best", "popular"])

    def test_views_of_a_draft_or_of_another_knowledge_base_change_nothing_the_agent_sees(self):
        before = found(self.store, "ledger totals", limit=20)
        self.store.add_views(KB, "draft-1", 10 ** 6)
        self.store.add_views(OTHER_KB, "refund-1", 10 ** 6)
        self.assertEqual(found(self.store, "ledger totals", limit=20), before)
        self.assertNotIn("draft-1", found(self.store, "password twelve characters", limit=20))

    def test_the_tool_description_tells_the_agent_how_results_are_ordered(self):
        description = kb_store.SEARCH_KNOWLEDGE_BASE.description
        self.assertIn("best text match comes first", description)
        self.assertIn("most viewed first", description)


class ViewsAreNotAVersionTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_adding_views_keeps_the_version_and_writes_no_event(self):
        version = helpers.read(self.store, self.ids[0])["updated_at"]
        events = helpers.poll_all(self.store)
        self.clock.advance()
        self.store.add_views(KB, self.ids[0], 3)
        self.store.add_views(KB, self.ids[0], 4)
        self.assertEqual(helpers.read(self.store, self.ids[0])["updated_at"], version)
        self.assertEqual(helpers.poll_all(self.store), events)
        self.assertEqual(self.store.article(KB, self.ids[0])["views"], 7)

    def test_an_edit_keeps_the_views(self):
        self.store.add_views(KB, self.ids[0], 9)
        version = helpers.read(self.store, self.ids[0])["updated_at"]
        self.assertNotIn("error", helpers.edit(self.store, self.ids[0], version, "k"))
        self.assertEqual(self.store.article(KB, self.ids[0])["views"], 9)

    def test_bad_counts_and_missing_articles_are_refused_and_change_nothing(self):
        before = helpers.snapshot(self.store)
        for views in (-1, 1.5, "3", True, None):
            with self.subTest(views=views), self.assertRaisesRegex(ValueError, "views must be a whole number"):
                self.store.add_views(KB, self.ids[0], views)
        for kb, article_id in ((KB, "no-such-article"), (OTHER_KB, self.ids[0]), ("kb-none", self.ids[0])):
            with self.subTest(article=article_id), self.assertRaises(kb_store.NotFound):
                self.store.add_views(kb, article_id, 1)
        self.assertEqual(helpers.snapshot(self.store), before)


class SearchIndexTest(unittest.TestCase):
    def test_optimizing_the_index_changes_no_result(self):
        store, _, ids = support_store()
        for n in range(30):
            store.create_article(KB, f"Quota {n}", f"Quota limits and invoices, part {n}.", article_id=f"q-{n:02d}")
        store.save_article(KB, "q-07", content="Quota limits for invoices, rewritten.")
        queries = ("quota", "invoices quota limits", "reset password", "part 7")
        before = [store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": q, "limit": 20})
                  for q in queries]
        store.optimize_search_index()
        after = [store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": q, "limit": 20})
                 for q in queries]
        self.assertEqual(after, before)
        self.assertEqual(len(after[0]["results"]), 20)


class OlderFilesTest(unittest.TestCase):
    def test_a_file_written_before_views_and_marks_existed_is_upgraded_and_keeps_its_keys(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "old.db")
            store, _, ids = support_store(path)
            store.create_article(KB, "Long read", "word " * 2_000, article_id="long")
            version = helpers.read(store, ids[0])["updated_at"]
            first = helpers.edit(store, ids[0], version, "k-old")
            store.close()
            make_schema_one(path)
            with kb_store.connect(path) as reopened:
                self.assertEqual(reopened.article(KB, ids[0])["views"], 0)
                self.assertEqual(found(reopened, "reset password")[0], ids[0])
                self.assertEqual(found(reopened, "long read")[0], "long")
                self.assertEqual(reopened.database.connection.execute(
                    "SELECT length(opening) FROM articles WHERE id = 'long'").fetchone()[0], kb_store.OPENING)
                self.assertEqual(helpers.edit(reopened, ids[0], version, "k-old"), dict(first, replay=True))
                connection = reopened.database.connection
                self.assertEqual(connection.execute("PRAGMA user_version").fetchone()[0], kb_store.LAYOUT.version)
                self.assertEqual(connection.execute("PRAGMA application_id").fetchone()[0],
                                 kb_store.LAYOUT.application_id)


def make_schema_one(path):
    """Turn a knowledge-base file back into what the version before the marks wrote (schema 1)."""
    connection = sqlite3.connect(path)
    connection.executescript("""
        DROP INDEX articles_by_views;
        ALTER TABLE articles DROP COLUMN views;
        ALTER TABLE articles DROP COLUMN opening;
        ALTER TABLE idempotency_keys RENAME TO keys_now;
        CREATE TABLE idempotency_keys (tool TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
            result TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (tool, key)) WITHOUT ROWID;
        INSERT INTO idempotency_keys SELECT tool, key, fingerprint, result, created_at FROM keys_now;
        DROP TABLE keys_now;
        PRAGMA application_id = 0;
        PRAGMA user_version = 0;
    """)
    connection.commit()
    connection.close()


if __name__ == "__main__":
    unittest.main()
