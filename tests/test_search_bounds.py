"""A search's work is bounded by its result: the words held by most articles, the cap on ranked matches, the listing.

A knowledge base of at most kb_store.WORD_SAMPLE articles ranks exactly as bm25 over every subject word of the
query (kb_store.subject_words: its function words left out when it holds others; checked against that ranking,
written here as plain SQL). A larger one leaves out the words held by at least half of its
first WORD_SAMPLE articles when the query holds a rarer word, ranks at most RANKED_MATCHES matches (the first
created), and lists a query of such words only by views, then oldest first. The work is counted, not timed: every
article bm25 scores costs FTS5 one read of its lengths, which sqlite's trace shows.
"""

import random
import unittest
from typing import List
from unittest import mock

from tests.helpers import KB, OTHER_KB, support_store
from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store
from osfoundry_tools.content import workload

LARGE = 2500  # articles of the large knowledge base: more than WORD_SAMPLE, so its rules apply
assert LARGE > kb_search.WORD_SAMPLE == kb_search.RANKED_MATCHES == 1000


def found(store, query, kb=KB, **more) -> List[str]:
    result = store.call_tool("search_knowledge_base", dict(knowledge_base_id=kb, query=query, **more))
    return [hit["article_id"] for hit in result["results"]]


def bm25_scored(store, query, **more) -> int:
    """How many articles one search scored with bm25: FTS5 reads each one's lengths (%_docsize) to score it."""
    lengths = []
    store.database.connection.set_trace_callback(lambda sql: lengths.append(sql) if "_docsize' WHERE id=" in sql
                                                 else None)
    try:
        found(store, query, **more)
    finally:
        store.database.connection.set_trace_callback(None)
    return len(lengths)


def bm25_over_every_word(store, query, kb=KB, limit=10) -> List[str]:
    """The ranking before the bounds, as a reference: every subject word of the query; the best bm25 match first,
    then the others most viewed first (with views), then by bm25, then by article ID."""
    connection = store.database.connection
    (number,) = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (kb,)).fetchone()
    subject = kb_search.subject_words(kb_search.query_words(query))
    table, expression = kb_search.index_table(number), kb_search.any_of(subject)
    matches = (f"FROM {table} JOIN articles AS a ON a.number = {table}.rowid WHERE {table} MATCH ? "
               "AND a.status = 'published'")
    rank = f"bm25({table}, {kb_search.TITLE_WEIGHT}, 1.0)"
    ranked = [row[0] for row in connection.execute(f"SELECT a.id {matches} ORDER BY {rank}, a.id", (expression,))]
    viewed = connection.execute("SELECT 1 FROM articles WHERE knowledge_base_id = ? AND views > 0", (kb,)).fetchone()
    if not viewed or not ranked:
        return ranked[:limit]
    others = connection.execute(f"SELECT a.id {matches} AND a.id != ? ORDER BY a.views DESC, {rank}, a.id LIMIT ?",
                                (expression, ranked[0], limit - 1)).fetchall()
    return [ranked[0]] + [row[0] for row in others]


class SmallKnowledgeBaseTest(unittest.TestCase):
    """At most WORD_SAMPLE articles: every match ranked by every word, exactly as before the bounds."""

    @classmethod
    def setUpClass(cls):
        cls.store, _, _ = support_store()
        writer = workload.Writer(random.Random(7), workload.TextSettings(articles=300))
        cls.topics = [writer.topic(number) for number in range(300)]
        with cls.store.database.write():
            for number, topic in enumerate(cls.topics):
                cls.store.create_article(KB, writer.title(topic), writer.content(topic), article_id=f"w-{number:03d}")
        rng = random.Random(8)
        cls.queries = [" ".join(rng.sample(topic, 3)) for topic in rng.sample(cls.topics, 40)]
        cls.queries += ["the and", "the", "how do i " + cls.topics[3][1], "ZZZ no such words"]

    def test_the_ranking_is_bm25_over_every_word_without_views(self):
        for query in self.queries:
            with self.subTest(query=query):
                self.assertEqual(found(self.store, query, limit=20), bm25_over_every_word(self.store, query, limit=20))

    def test_the_ranking_is_bm25_over_every_word_with_views(self):
        store, _, _ = support_store()
        self.store.database.copy_to(store.database)
        rng = random.Random(9)
        for number in rng.sample(range(300), 120):
            store.add_views(KB, f"w-{number:03d}", rng.choice([1, 2, 5, 5, 40, 900]))  # ties among equal views
        for query in self.queries:
            with self.subTest(query=query):
                self.assertEqual(found(store, query, limit=20), bm25_over_every_word(store, query, limit=20))

    def test_a_word_held_by_most_articles_still_ranks_and_matches(self):
        plan = self.plan("the zzz")
        self.assertFalse(plan.large)
        self.assertEqual(plan.rarer(), ["the", "zzz"])
        self.assertEqual(len(found(self.store, "the")), 10)  # a function word alone is looked for

    def test_a_function_word_beside_another_word_is_left_out_however_many_articles_hold_it(self):
        self.assertEqual(found(self.store, "the zzz"), [])
        self.assertEqual(found(self.store, "how do I " + self.topics[3][1]), found(self.store, self.topics[3][1]))

    def plan(self, query):
        with self.store.database.read() as connection:
            return kb_search.SearchPlan.read(connection, KB, 1, kb_search.query_words(query))


class LargeKnowledgeBaseTest(unittest.TestCase):
    """LARGE articles after support_store's three. Every one holds "filler"; "capword" 45% of them (more than
    RANKED_MATCHES); "late" those after the first WORD_SAMPLE only (60% of all, none of the sample); a form of
    "connect" three in four; "zebra" two. The last is the best match for "capword" and the last that holds it."""

    @classmethod
    def setUpClass(cls):
        cls.store, _, _ = support_store()
        cls.ids = {}
        with cls.store.database.write():
            for n in range(1, LARGE + 1):
                words = ["filler", "text"]
                words += ["capword"] * (n % 20 < 9) + ["late"] * (n > kb_search.WORD_SAMPLE)
                words += ["connecting"] * (n % 4 != 0) + ["zebra"] * (n in (7, 1700))
                title = "Capword capword guide" if n == LARGE else f"Article {n}"
                cls.ids[n] = cls.store.create_article(KB, title, " ".join(words) + ".")["article_id"]
        cls.n_of = {article_id: n for n, article_id in cls.ids.items()}
        cls.capword_holders = [n for n in cls.ids if n % 20 < 9]

    def plan(self, query):
        with self.store.database.read() as connection:
            return kb_search.SearchPlan.read(connection, KB, 1, kb_search.query_words(query))

    def test_the_knowledge_base_is_large_and_the_counts_come_from_its_first_articles(self):
        plan = self.plan("filler capword late connections zebra")
        self.assertTrue(plan.large)
        self.assertEqual(plan.counts["filler"], kb_search.WORD_SAMPLE - 3)  # the three articles before hold none
        self.assertEqual(plan.counts["late"], 0)  # held by 60% of the articles, but by none of the first 1,000
        self.assertEqual(plan.common(), ["filler", "connections"])
        self.assertEqual(plan.rarer(), ["capword", "late", "zebra"])

    def test_stemmed_query_words_find_the_counts_of_the_stem_the_index_holds(self):
        plan = self.plan("connections connected connect CONNECTING")
        self.assertEqual(len(set(plan.counts.values())), 1, plan.counts)
        self.assertTrue(all(plan.is_common(word) for word in plan.counts))

    def test_a_word_held_by_most_articles_is_left_out_when_a_rarer_word_is_present(self):
        hits = found(self.store, "zebra filler")
        self.assertEqual(sorted(hits), sorted([self.ids[7], self.ids[1700]]))  # not every article holding filler
        self.assertEqual(hits, found(self.store, "zebra"))
        self.assertEqual(bm25_scored(self.store, "zebra filler"), 2)

    def test_a_query_of_common_words_lists_the_oldest_articles_holding_them(self):
        self.assertEqual(found(self.store, "filler connections"), [self.ids[n] for n in range(1, 11)])
        self.assertEqual(bm25_scored(self.store, "filler connections"), 0)  # no text ranking, nothing scored

    def test_a_query_of_common_words_lists_the_most_viewed_among_the_first_matches_first(self):
        store, _, _ = support_store()
        self.store.database.copy_to(store.database)
        store.add_views(KB, self.ids[600], 5)
        store.add_views(KB, self.ids[900], 9)
        store.add_views(KB, self.ids[2000], 1000)  # after the first RANKED_MATCHES articles holding "filler"
        self.assertEqual(found(store, "filler", limit=4), [self.ids[900], self.ids[600], self.ids[1], self.ids[2]])

    def test_rarer_words_that_match_nothing_leave_the_common_words_to_list(self):
        self.assertEqual(self.plan("nosuchword filler").rarer(), ["nosuchword"])
        self.assertEqual(found(self.store, "nosuchword filler"), found(self.store, "filler"))
        self.assertEqual(found(self.store, "nosuchword"), [])

    def test_a_word_common_only_after_the_first_articles_still_ranks(self):
        hits = [self.n_of[hit] for hit in found(self.store, "late zebra", limit=20)]
        self.assertEqual(hits[:2], [1700, 7])  # both words, then zebra alone: "late" weighs nothing in bm25
        self.assertTrue(all(n > kb_search.WORD_SAMPLE for n in hits[2:]), hits)  # found through "late"

    def test_at_most_the_first_ranked_matches_are_scored_and_the_best_match_after_them_is_not_found(self):
        self.assertGreater(len(self.capword_holders), kb_search.RANKED_MATCHES)
        hits = found(self.store, "capword", limit=20)
        first = {self.ids[n] for n in self.capword_holders[:kb_search.RANKED_MATCHES]}
        self.assertTrue(set(hits) <= first, hits)
        self.assertNotIn(self.ids[LARGE], hits)  # the best text match, but created after them
        self.assertEqual(bm25_scored(self.store, "capword"), kb_search.RANKED_MATCHES)
        self.assertEqual(len(bm25_over_every_word(self.store, "capword", limit=LARGE)), len(self.capword_holders))

    def test_the_work_of_a_broad_query_does_not_grow_with_its_matches(self):
        self.assertEqual(bm25_scored(self.store, "filler text connections late capword"), kb_search.RANKED_MATCHES)
        self.assertEqual(bm25_scored(self.store, "filler text"), 0)

    def test_ties_at_the_last_ranked_place_break_by_article_id(self):
        hits = found(self.store, "capword", limit=3)
        ranked = found(self.store, "capword", limit=20)
        self.assertEqual(hits, ranked[:3])
        self.assertEqual(ranked, sorted(ranked))  # equal scores (equal texts): by article ID

    def test_another_knowledge_base_changes_no_count_and_no_result(self):
        before = (self.plan("zebra filler capword"), found(self.store, "zebra filler capword", limit=20))
        store, _, _ = support_store()
        self.store.database.copy_to(store.database)
        with store.database.write():
            for n in range(1200):
                store.create_article(OTHER_KB, f"Other {n}", "zebra capword zebra.")
        with store.database.read() as connection:
            plan = kb_search.SearchPlan.read(connection, KB, 1, ["zebra", "filler", "capword"])
        self.assertEqual((plan, found(store, "zebra filler capword", limit=20)), before)


class ResultRowsTest(unittest.TestCase):
    def test_the_rows_of_many_numbers_are_read_in_chunks_and_agree_with_one_statement(self):
        store, _, _ = support_store(":memory:")
        connection = store.database.connection
        numbers = [number for (number,) in connection.execute("SELECT number FROM articles ORDER BY number DESC")]
        statements: List[str] = []
        whole = kb_search.rows_in_order(connection, numbers)
        connection.set_trace_callback(statements.append)
        with mock.patch.object(kb_search, "RESULTS_READ", 2):
            chunked = kb_search.rows_in_order(connection, numbers)
        connection.set_trace_callback(None)
        self.assertEqual([tuple(row) for row in chunked], [tuple(row) for row in whole])
        self.assertEqual([row[0] for row in whole], numbers)
        self.assertEqual(len(statements), (len(numbers) + 1) // 2, statements)
        connection.set_trace_callback(statements.append)
        self.assertEqual(kb_search.article_rows(connection, []), [])
        connection.set_trace_callback(None)
        self.assertEqual(len(statements), (len(numbers) + 1) // 2)  # no number, no statement


class ToolDescriptionTest(unittest.TestCase):
    def test_the_description_states_the_bounds(self):
        description = kb_store.SEARCH_KNOWLEDGE_BASE.description
        self.assertIn("at least half", description)
        self.assertIn(f"{kb_search.RANKED_MATCHES:,}", description)


if __name__ == "__main__":
    unittest.main()
