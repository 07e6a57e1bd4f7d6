"""Search quality on real content: each documentation set's questions asked through the served tools.

benchmark/search_sets/ holds real documentation sets (pages as their projects ship them, with their licences) and
the questions a user of each would ask, each with the pages that answer it, written before the search was tuned
(benchmark/search_quality.py). Each set is served as `mcp_server.py --kb-from-dir` serves a folder, on sqlite (make
test) and on PostgreSQL (make postgres), and every question asked through tools/call.

The issue's goal, 17 of every 20 questions first, is not met (results/performance.md, "Search quality on real
content", says by how much and why): these tests hold the search to what it reached when measured (FIRST), above
plain bm25, and to the goal it meets, the same first page on both engines for 9 in 10 questions.
"""

import math
import os
import unittest

from benchmark import search_quality
from benchmark.search_quality import GOAL_FIRST, GOAL_SAME_FIRST, measure, question_sets
from osfoundry_tools.content import own_content
from tests.postgres_helpers import default_location, needs_postgres, on_postgres

ENGINE = "postgresql" if on_postgres() else "sqlite"
FIRST = {"black": 21, "click": 32, "django-ninja": 47, "django-rest-framework": 27, "fastapi": 25, "hatch": 45,
         "httpx": 27, "mkdocs-material": 28, "polars": 52, "pydantic": 43, "ruff": 67, "sqlmodel": 45,
         "starlette": 49, "textual": 51, "typer": 51, "uv": 26}  # questions first when measured: the lower of the
# two engines' counts


def shown_misses(result: search_quality.SetResult) -> str:
    return "\n".join(f"  {question!r}: wants {list(answers)}, got {found}"
                     for question, answers, found in search_quality.misses(result))


class TheSetsTest(unittest.TestCase):
    """What the measurement rests on: three real sets or more, each large enough, licensed, and asked about."""

    def test_there_are_three_sets_of_twenty_pages_and_twenty_questions_each_with_its_licence(self):
        sets = question_sets()
        self.assertGreaterEqual(len(sets), 3)
        for question_set in sets:
            with self.subTest(question_set.name):
                folder = os.path.dirname(question_set.pages)
                self.assertGreaterEqual(len(own_content.read_knowledge_base(question_set.pages).articles), 20)
                self.assertGreaterEqual(len(question_set.questions), 20)
                self.assertTrue(any(name.upper().startswith("LICENSE") for name in os.listdir(folder)))
                self.assertTrue(os.path.exists(os.path.join(folder, "SOURCE.md")))

    def test_every_answer_names_a_published_page_of_its_set(self):
        for question_set in question_sets():
            pages = {article.article_id for article in own_content.read_knowledge_base(question_set.pages).articles
                     if article.published}
            for question, answers in question_set.questions:
                with self.subTest(question_set.name, question=question):
                    self.assertTrue(answers)
                    self.assertLessEqual(set(answers), pages)


class RealContentTest(unittest.TestCase):
    """Each set served from a new database on this run's engine, every question asked through tools/call."""

    @classmethod
    def setUpClass(cls):
        cls.results = [measure(question_set, ENGINE, default_location()) for question_set in question_sets()]

    def test_every_set_keeps_as_many_questions_first_as_when_it_was_measured(self):
        self.assertEqual({result.question_set.name for result in self.results}, set(FIRST))
        for result in self.results:
            with self.subTest(result.question_set.name, engine=ENGINE):
                first = result.scores()["search"]
                self.assertGreaterEqual(first.first, FIRST[result.question_set.name],
                                        f"{first.first} of {first.asked} first (the goal: "
                                        f"{math.ceil(GOAL_FIRST * first.asked)}); the misses:\n" + shown_misses(result))

    def test_the_search_finds_more_first_than_plain_bm25_over_every_word_over_all_the_sets(self):
        scores = [result.scores() for result in self.results]  # on Typer alone, plain bm25 finds one more
        for figure in ("first", "reciprocal"):
            with self.subTest(figure):
                self.assertGreater(sum(getattr(score["search"], figure) for score in scores),
                                   sum(getattr(score["plain"], figure) for score in scores))

    @needs_postgres
    def test_at_least_9_in_10_questions_find_the_same_first_page_on_sqlite(self):
        for result in self.results:
            on_sqlite = measure(result.question_set, "sqlite", ":memory:")
            with self.subTest(result.question_set.name):
                same = search_quality.same_first(result.search, on_sqlite.search)
                asked = len(result.search)
                differing = [(question, a[:1], b[:1]) for (question, _), a, b in
                             zip(result.question_set.questions, result.search, on_sqlite.search) if a[:1] != b[:1]]
                self.assertGreaterEqual(same, math.ceil(GOAL_SAME_FIRST * asked), differing)


class LibrariesTest(unittest.TestCase):
    """The field's libraries beside ours: the standard library's FTS5 ways always run; the others where installed."""

    def test_one_set_runs_through_ours_and_fts5_and_the_page_shows_each_way_pooled(self):
        from benchmark import search_libraries
        httpx = [question_set for question_set in question_sets() if question_set.name == "httpx"]
        measured = search_libraries.measure_libraries(sets=httpx)
        ways = measured["ways"]
        self.assertEqual(ways[:3], ["ours", "sqlite FTS5 bm25", "sqlite FTS5 bm25, title x10"])
        for way in ways:
            self.assertEqual(len(measured["sets"]["httpx"][way]["ranks"]), len(httpx[0].questions))
        ours = search_libraries.figures(measured["sets"]["httpx"]["ours"]["ranks"])
        self.assertGreaterEqual(ours["first"], FIRST["httpx"])
        page = "\n".join(search_libraries.section(measured))
        for way in ways:
            self.assertIn(f"| {way} |", page)


class RerankChoiceTest(unittest.TestCase):
    """The re-ranker's weights are chosen on one half of the sets and counted on the other (search_rerank.py), from
    recorded cosines and words' scores; no model is needed to check the arithmetic."""

    def test_a_replay_orders_the_weighed_matches_by_the_pairs_blend(self):
        from benchmark import search_rerank
        cosines = {1: (0.5, 0.5, 0.5), 2: (0.55, 0.0, 0.1)}  # page 1 near throughout, page 2 in one section
        weighed = (cosines, {1: 1.0, 2: 2.0})
        ids = {1: "one", 2: "two"}
        self.assertEqual(search_rerank.replayed(["two", "one", "x"], weighed, "0.0/0.0", ids), ["two", "one", "x"])
        self.assertEqual(search_rerank.replayed(["two", "one", "x"], weighed, "0.3/0.0", ids), ["one", "two", "x"])
        self.assertEqual(search_rerank.replayed(["two", "one"], weighed, "0.3/1.0", ids), ["two", "one"])

    def test_each_half_is_counted_at_the_pair_the_other_half_chose(self):
        from benchmark import search_rerank
        pairs = {"0.0/0.1": [1, 2], "0.3/0.1": [2, 1]}
        ranks = {"a": dict(pairs), "b": {"0.0/0.1": [1, 1], "0.3/0.1": [2, 2]},
                 "c": {"0.0/0.1": [2, 2], "0.3/0.1": [1, 1]}, "d": dict(pairs)}
        first, second, every = search_rerank.held_out(ranks)
        self.assertEqual((first["tuned_on"], first["pair"]), (["a", "c"], "0.3/0.1"))  # 3 firsts against 1
        self.assertEqual(first["first"], 1)  # b and d at 0.3/0.1: d's second question alone
        self.assertEqual((second["tuned_on"], second["pair"]), (["b", "d"], "0.0/0.1"))
        self.assertEqual(search_rerank.out_of_sample({"ranks": ranks, "held_out": [first, second]}),
                         {"b": 0, "d": 1, "a": 1, "c": 0})
        self.assertEqual(every["pair"], "0.0/0.1")  # 4 firsts each: the tie goes to the smaller share of the page


if __name__ == "__main__":
    unittest.main()
