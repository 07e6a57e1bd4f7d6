"""Search and read: published articles only, citations that carry the version, queries of any content."""

import os
import random
import re
import tempfile
import unittest
from unittest import mock

from osfoundry_tools.stores import kb_snippets, kb_store
from tests import helpers
from tests.helpers import KB, OTHER_KB, support_store
from tests.postgres_helpers import sqlite_only

CITATION_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z")


def search(store, query, kb=KB, **more):
    return store.call_tool("search_knowledge_base", dict(knowledge_base_id=kb, query=query, **more))


def found(result):
    return [hit["article_id"] for hit in result["results"]]


class CitationTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_read_returns_the_article_and_a_citation_of_its_version(self):
        result = helpers.read(self.store, self.ids[0])
        self.assertEqual(set(result), {"article_id", "title", "content", "updated_at", "citation"})
        self.assertEqual((result["title"], result["content"]), helpers.ARTICLES[0])
        self.assertEqual(result["citation"], {"knowledge_base_id": KB, "article_id": self.ids[0],
                                              "updated_at": result["updated_at"]})
        self.assertRegex(result["updated_at"], CITATION_TIME)

    def test_a_citation_time_is_the_injected_clock_in_rfc3339_utc_with_microseconds(self):
        self.clock.advance(0.123456)
        version = self.store.save_article(KB, self.ids[0], content="Changed.")["updated_at"]
        self.assertEqual(version, self.clock.now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
        self.assertTrue(version.endswith(".123456Z"), version)

    def test_saves_in_the_same_microsecond_still_get_increasing_versions(self):
        versions = [self.store.save_article(KB, self.ids[0], content=f"v{n}")["updated_at"] for n in range(3)]
        self.assertEqual(len(set(versions)), 3)
        self.assertEqual(versions, sorted(versions))
        self.assertEqual(helpers.read(self.store, self.ids[0])["updated_at"], versions[-1])

    def test_search_results_carry_the_same_citation_a_read_gives(self):
        hit = search(self.store, "reset password")["results"][0]
        self.assertEqual(set(hit), {"article_id", "title", "updated_at", "snippet", "citation"})
        self.assertEqual(hit["citation"], helpers.read(self.store, hit["article_id"])["citation"])
        self.assertIn("Reset password", hit["snippet"])


class PublishedOnlyTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_search_never_returns_a_draft_or_an_unpublished_article(self):
        hits = found(search(self.store, "password passwords phone twelve characters", limit=20))
        self.assertIn(self.ids[0], hits)
        self.assertNotIn("draft-1", hits)
        self.assertNotIn("gone-1", hits)

    def test_draft_unpublished_and_missing_articles_read_as_the_same_not_found(self):
        messages = set()
        for article_id in ("draft-1", "gone-1", "no-such-article"):
            result = helpers.read(self.store, article_id)
            self.assertEqual(result["error"], "not_found")
            messages.add(result["message"].replace(article_id, "ID"))
        self.assertEqual(len(messages), 1, messages)

    def test_an_unpublished_article_disappears_from_search_and_read_at_once(self):
        self.assertIn(self.ids[1], found(search(self.store, "invoices")))
        self.store.unpublish_article(KB, self.ids[1])
        self.assertNotIn(self.ids[1], found(search(self.store, "invoices")))
        self.assertEqual(helpers.read(self.store, self.ids[1])["error"], "not_found")

    def test_a_published_draft_becomes_searchable(self):
        self.store.publish_article(KB, "draft-1")
        self.assertIn("draft-1", found(search(self.store, "twelve characters")))

    def test_a_save_reindexes_the_article(self):
        self.store.save_article(KB, self.ids[2], content="Teammates join through single sign-on.")
        self.assertEqual(found(search(self.store, "single sign-on"))[0], self.ids[2])
        self.assertNotIn(self.ids[2], found(search(self.store, "seven days")))

    def test_search_stays_inside_the_knowledge_base_asked_for(self):
        self.assertEqual(found(search(self.store, "refunds")), [])
        self.assertEqual(found(search(self.store, "refunds", kb=OTHER_KB)), ["refund-1"])

    def test_an_article_id_from_another_knowledge_base_is_not_found(self):
        self.assertEqual(helpers.read(self.store, "refund-1")["error"], "not_found")


class RankingTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_a_title_match_ranks_above_a_content_match(self):
        self.store.create_article(KB, "Security keys", "Add a hardware key for email sign-in.", article_id="keys")
        self.store.create_article(KB, "Email settings", "Choose which notices you receive.", article_id="mail")
        hits = found(search(self.store, "email"))
        self.assertEqual(hits[0], "mail")
        self.assertEqual(set(hits), {"mail", "keys", self.ids[0]})

    def test_a_title_word_weighs_more_than_a_content_word_even_in_a_longer_field(self):
        # with equal weights bm25 puts the short content first: the title's weight is what turns it round
        self.store.create_article(KB, "Account email settings and notification preferences for every teammate",
                                  "Choose which notices you receive each week.", article_id="title")
        self.store.create_article(KB, "Keys", "Email sign-in.", article_id="content")
        hits = found(search(self.store, "email"))
        self.assertLess(hits.index("title"), hits.index("content"))

    def test_drafts_and_unpublished_articles_do_not_weigh_in_the_ranking(self):
        # bm25 favours rare words; words common only in hidden articles must not look common
        store, _, _ = support_store()
        for n in range(6):
            store.create_article(KB, f"Hidden {n}", "alpha alpha alpha", published=False, article_id=f"hidden-{n}")
        store.create_article(KB, "Gone", "alpha", article_id="gone-alpha")
        store.unpublish_article(KB, "gone-alpha")
        for n in range(6):
            store.create_article(KB, f"Common {n}", "beta and more words here", article_id=f"common-{n}")
        store.create_article(KB, "First", "alpha and more words here", article_id="a-alpha")
        store.create_article(KB, "Second", "beta and more words here", article_id="a-beta")
        self.assertEqual(found(search(store, "alpha beta"))[0], "a-alpha")

    def test_articles_matching_more_words_rank_first(self):
        self.assertEqual(found(search(self.store, "how do I reset my password by email"))[0], self.ids[0])

    def test_ties_break_by_article_id(self):
        for article_id in ("tie-c", "tie-a", "tie-b"):
            self.store.create_article(KB, "Zebra", "Zebra.", article_id=article_id)
        self.assertEqual(found(search(self.store, "zebra")), ["tie-a", "tie-b", "tie-c"])

    def test_limit_bounds_the_results(self):
        for n in range(25):
            self.store.create_article(KB, f"Quota {n}", "Quota limits.", article_id=f"quota-{n:02d}")
        self.assertEqual(len(search(self.store, "quota")["results"]), 10)
        self.assertEqual(len(search(self.store, "quota", limit=20)["results"]), 20)
        self.assertEqual(len(search(self.store, "quota", limit=1)["results"]), 1)

    def test_words_match_through_stemming(self):
        self.assertIn(self.ids[2], found(search(self.store, "inviting teammate")))

    @sqlite_only("PostgreSQL's english text search keeps accents, as the README says")
    def test_words_match_through_accents(self):
        self.store.create_article(KB, "Café menu", "Crème brûlée.", article_id="cafe")
        self.assertIn("cafe", found(search(self.store, "cafe creme")))


class QueryTextTest(unittest.TestCase):
    """Search text of any content is read as words and never raises a sqlite error."""

    QUERIES = ['""', '" ', '""""', "a OR", "OR OR", "AND", "NOT x", "multi-agent", "c++*", "x:y", "( ", "((", ") ",
               "title:reset", "NEAR(reset password)", "reset*", "^reset", "-password", "+password", "{a b}",
               "password'; DROP TABLE articles; --", "パスワード リセット", "пароль", "🔑🔑", "🔑 password",
               "\\x00", "\t\n ", "  ", "!!", "%_%", "[x]", "\\\\", "' ", "x" * 200]

    def test_no_query_raises_or_fails(self):
        store, _, ids = support_store()
        for query in self.QUERIES:
            result = search(store, query)
            with self.subTest(query=query):
                self.assertIn("results", result, result)

    def test_a_nul_character_is_refused_as_the_encoding_it_breaks(self):
        store, _, _ = support_store()
        result = search(store, "a\u0000b")
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", "query", "encoding"))

    def test_operators_are_plain_words(self):
        store, _, ids = support_store()
        self.assertEqual(found(search(store, "-password"))[0], ids[0])
        self.assertEqual(found(search(store, "title:reset"))[0], ids[0])
        self.assertEqual(found(search(store, "password'; DROP TABLE articles; --"))[0], ids[0])
        self.assertEqual(len(helpers.poll_all(store)), 5)  # nothing was dropped

    def test_a_query_with_no_word_matches_nothing(self):
        store, _, _ = support_store()
        for query in ["!!", "  ", "🔑🔑", "()"]:
            self.assertEqual(search(store, query), {"results": []}, query)


class SnippetTest(unittest.TestCase):
    """A result quotes 16 words of content from just before the first query word found in it."""

    WORDS = " ".join(f"w{n}" for n in range(40))

    def test_the_snippet_starts_three_words_before_the_first_query_word_and_says_where_it_was_cut(self):
        self.assertEqual(kb_snippets.snippet(self.WORDS, "w20 w30"),
                         "…" + " ".join(f"w{n}" for n in range(17, 33)) + "…")

    def test_a_match_near_the_start_or_in_the_title_only_quotes_from_the_start(self):
        start = " ".join(f"w{n}" for n in range(16)) + "…"
        self.assertEqual(kb_snippets.snippet(self.WORDS, "w1"), start)
        self.assertEqual(kb_snippets.snippet(self.WORDS, "nowhere"), start)

    def test_a_word_counts_only_where_a_word_begins_and_a_longer_form_finds_its_stem(self):
        self.assertEqual(kb_snippets.snippet("Coupons a b c d e f g pons h", "pons"), "…e f g pons h")
        self.assertEqual(kb_snippets.snippet("a b c d e f password resets", "resetting"), "…e f password resets")

    def test_search_results_carry_the_snippet_of_their_content(self):
        store, _, ids = support_store()
        hit = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": "email link"})["results"][0]
        self.assertEqual(hit["snippet"], "…Reset password. A link arrives by email.")

    def test_the_first_word_start_is_the_first_of_each_stems_own(self):
        chooser = random.Random(5)
        stems = ["ab", "ba", "abc", "b", "é", "a1"]
        for _ in range(20_000):
            text = "".join(chooser.choice("abc -1é_") for _ in range(chooser.randrange(12)))
            looked_for = chooser.sample(stems, chooser.randrange(1, 4))
            with self.subTest(text=text, stems=looked_for):
                self.assertEqual(kb_snippets.first_word_start(text, looked_for), first_start(text, looked_for))

    def test_the_words_quoted_are_the_lead_before_the_hit_and_the_rest_after_it(self):
        chooser = random.Random(7)
        for _ in range(5_000):
            pieces = ["w ", "word ", "  ", "\n", "x" * 90, "é "]
            content = "".join(chooser.choice(pieces) for _ in range(chooser.randrange(60)))
            hit, length = chooser.randrange(len(content) + 1), len(content) + chooser.choice([0, 0, 1])
            with self.subTest(content=content, hit=hit, length=length):
                self.assertEqual(kb_snippets._quote_around(content, length, hit), quoted_around(content, length, hit))


def first_start(text, stems):
    """The first place where one of `stems` begins a word of `text`, 0 if none does, each stem looked for alone."""
    starts = [found.start() for stem in stems for found in re.finditer(re.escape(stem), text)
              if found.start() == 0 or not text[found.start() - 1].isalnum()]
    return min(starts, default=0)


def quoted_around(content, length, hit):
    """A snippet as its constants define it, every word of the stretches read."""
    start = max(0, hit - kb_snippets.SNIPPET_REACH[0])
    before, after = content[start:hit].split(), content[hit:hit + kb_snippets.SNIPPET_REACH[1]].split()
    lead = before[-kb_snippets.SNIPPET_LEAD:] if before else []
    tail = after[:kb_snippets.SNIPPET_WORDS - len(lead)]
    quoted = ("…" if len(before) > len(lead) or start else "") + " ".join(lead + tail) + (
        "…" if len(after) > len(tail) or hit + kb_snippets.SNIPPET_REACH[1] < length else "")
    most = kb_snippets.SNIPPET_CHARACTERS
    return quoted if len(quoted) <= most else quoted[:most - 1] + "…"


class KeptSnippetsTest(unittest.TestCase):
    """A snippet is quoted once per article version and words, and kept: never another version's."""

    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_a_search_asked_again_quotes_the_same_and_one_after_a_save_quotes_the_saved_content(self):
        first = search(self.store, "email link")
        self.assertEqual(search(self.store, "email link"), first)
        self.store.save_article(KB, self.ids[0], content="A link by email. " + "Other words come first. " * 2)
        again = search(self.store, "email link")["results"]
        self.assertEqual([hit["snippet"] for hit in again if hit["article_id"] == self.ids[0]],
                         ["A link by email. Other words come first. Other words come first."])

    def test_the_snippets_kept_are_the_latest_and_no_more_and_quote_what_a_fresh_search_does(self):
        queries = ["email link", "password", "invoices", "reset", "sign-in email", "seven days"]
        fresh = []
        for query in queries:
            with self.store.database.read():
                self.store.database.derived().clear()  # nothing kept: each snippet quoted anew
            fresh.append(search(self.store, query))
        with mock.patch.object(kb_store, "SNIPPETS_KEPT", 2):
            for query, expected in zip(queries * 2, fresh * 2):
                self.assertEqual(search(self.store, query), expected, query)
                with self.store.database.read():
                    self.assertLessEqual(len(self.store.database.derived()[kb_store.SNIPPETS]), 2)

    @sqlite_only("PRAGMA data_version tells a sqlite file's derived dict when to forget")
    def test_a_search_of_a_file_asks_once_whether_another_connection_wrote(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        store, _, _ = support_store(os.path.join(folder.name, "kb.sqlite"))
        self.addCleanup(store.close)
        statements = []
        store.database.connection.set_trace_callback(statements.append)
        self.assertTrue(search(store, "email link")["results"])
        self.assertEqual(statements.count("PRAGMA data_version"), 1, statements)  # FTS5 asks its own, "-- PRAGMA"


if __name__ == "__main__":
    unittest.main()
