"""People's views: the best text match first, the other matches most viewed first; views are not a version."""

import json
import os
import random
import sqlite3
import tempfile
import unittest

from osfoundry_tools.core import idempotency, rejections
from osfoundry_tools.stores import kb_search, kb_snippets, kb_store
from tests import helpers
from tests.helpers import KB, OTHER_KB, support_store


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

    def test_the_order_is_that_of_its_keys_however_the_views_and_scores_tie(self):
        chooser = random.Random(3)
        for _ in range(3_000):
            rows = [(number, chooser.choice([-2.0, -1.5, -1.0, 0.0]), chooser.choice([0, 1, 5]),
                     chooser.choice("abcdefgh") + str(number)) for number in range(chooser.randrange(1, 12))]
            chooser.shuffle(rows)
            limit = chooser.randrange(1, 8)
            weighed = {row[0]: chooser.choice([-3.0, -2.0]) for row in chooser.sample(rows, chooser.randrange(2))}
            with self.subTest(rows=rows, limit=limit, weighed=weighed):
                self.assertEqual(kb_search.best_then_most_viewed(rows, limit, weighed or None),
                                 best_then_by_keys(rows, limit, weighed))

    def test_the_tool_description_tells_the_agent_how_results_are_ordered(self):
        description = kb_store.SEARCH_KNOWLEDGE_BASE.description
        self.assertIn("best text match comes first", description)
        self.assertIn("most viewed first", description)


def best_then_by_keys(rows, limit, weighed):
    """best_then_most_viewed's order as its keys state it: the best by (weighed or engine score, ID), the others by
    (most viewed, score, ID)."""
    best = min((row for row in rows if row[0] in weighed), key=lambda row: (weighed[row[0]], row[3])) if weighed \
        else min(rows, key=lambda row: (row[1], row[3]))
    others = sorted((row for row in rows if row is not best), key=lambda row: (-row[2], row[1], row[3]))
    return [best] + others[:limit - 1]


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
            with self.subTest(article=article_id), self.assertRaises(rejections.NotFound):
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


SCHEMA_ONE = """
CREATE TABLE knowledge_bases (id TEXT PRIMARY KEY, name TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE articles (
    number INTEGER PRIMARY KEY, knowledge_base_id TEXT NOT NULL REFERENCES knowledge_bases (id),
    id TEXT NOT NULL, title TEXT NOT NULL, content TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('draft', 'published', 'unpublished')), updated_at TEXT NOT NULL,
    UNIQUE (knowledge_base_id, id));
CREATE VIRTUAL TABLE article_index USING fts5(title, content, tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TABLE events (resource_id TEXT NOT NULL, sequence INTEGER NOT NULL, type TEXT NOT NULL,
    subject_id TEXT NOT NULL, version NOT NULL, PRIMARY KEY (resource_id, sequence)) WITHOUT ROWID;
CREATE TABLE idempotency_keys (tool TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
    result TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (tool, key)) WITHOUT ROWID;
"""  # what the version before the marks wrote: schema 1, one search index for every knowledge base
VERSION = "2026-11-09T09:00:00.000000Z"


def write_schema_one(path, edit):
    """A schema-1 file: two knowledge bases, a long article, a draft, and the key of one edit already made."""
    connection = sqlite3.connect(path)
    connection.executescript(SCHEMA_ONE)
    rows = [(1, KB, "art-00001", "Reset a password", "Open Settings, then Security.", "published"),
            (2, KB, "long", "Long read", "word " * 2_000, "published"),
            (3, KB, "draft-1", "Password policy draft", "Passwords will need twelve characters.", "draft"),
            (4, "kb-other", "art-00004", "Refunds", "Refunds take five days; reset nothing.", "published")]
    connection.executemany("INSERT INTO knowledge_bases VALUES (?, ?)", [(KB, "Support"), ("kb-other", "Other")])
    for number, kb, article_id, title, content, status in rows:
        connection.execute("INSERT INTO articles VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (number, kb, article_id, title, content, status, VERSION))
        if status == "published":
            connection.execute("INSERT INTO article_index (rowid, title, content) VALUES (?, ?, ?)",
                               (number, title, content))
    result = {"citation": {"knowledge_base_id": KB, "article_id": "art-00001", "updated_at": VERSION}, "replay": False}
    connection.execute("INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?)",
                       ("edit_knowledge_article", "k-old", idempotency.fingerprint(edit), json.dumps(result), VERSION))
    connection.commit()
    connection.close()
    return result


class OlderFilesTest(unittest.TestCase):
    def test_a_file_from_before_the_marks_is_upgraded_in_place_and_keeps_its_articles_and_keys(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "old.db")
            edit = {"knowledge_base_id": KB, "article_id": "art-00001", "content": "New text.",
                    "expected_version": VERSION, "idempotency_key": "k-old"}
            first = write_schema_one(path, edit)
            with kb_store.connect(path) as reopened:
                self.assertEqual(reopened.article(KB, "art-00001")["views"], 0)
                self.assertEqual(found(reopened, "reset password"), ["art-00001"])
                self.assertEqual(found(reopened, "reset", kb="kb-other"), ["art-00004"])  # an index of its own
                self.assertEqual(found(reopened, "long read")[0], "long")
                self.assertNotIn("draft-1", found(reopened, "password policy twelve", limit=20))
                self.assertEqual(reopened.call_tool("edit_knowledge_article", edit), dict(first, replay=True))
                self.assertEqual(reopened.create_article(KB, "Next", "Text.")["article_id"], "art-00005")
                connection = reopened.database.connection
                self.assertEqual(connection.execute("SELECT length(opening) FROM articles WHERE id = 'long'")
                                 .fetchone()[0], kb_snippets.OPENING)
                self.assertEqual(connection.execute("PRAGMA user_version").fetchone()[0], kb_store.LAYOUT.version)
                self.assertEqual(connection.execute("PRAGMA application_id").fetchone()[0],
                                 kb_store.LAYOUT.application_id)
                self.assertIsNone(connection.execute(
                    "SELECT name FROM sqlite_master WHERE name = 'article_index'").fetchone())


if __name__ == "__main__":
    unittest.main()
