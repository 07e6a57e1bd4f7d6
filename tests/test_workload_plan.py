"""day.draw_plan's quicker draws: a plan is the one the plain random.Random calls draw, in every model.

plain_draw_plan is draw_plan with a call per draw and tests.test_workload's PlainWriter; the plans must be equal,
the day's and the late saves' alike, and the draws by popularity and of times must be those of rng.choices and
rng.randrange on the running Python.
"""

import collections
import dataclasses
import itertools
import random
import unittest
from typing import Dict, List, Sequence

import sim
from lab.knowledge_base import day
from lab.knowledge_base import models
from osfoundry_tools.content.workload import zipf_weights
from tests.test_workload import PlainWriter, generators

SMALL = ["--articles", "60", "--questions", "16", "--saves", "40", "--vocabulary", "400"]
DEFAULT = sim.models_from(sim.parser().parse_args([]))["popular"]


def plain_draw_plan(seed: int, scenario: day.Scenario) -> day.Plan:
    """draw_plan with a call per draw."""
    rng = random.Random(seed)
    writer = PlainWriter(rng, scenario.text)
    articles = []
    for number in range(scenario.articles):
        topic = writer.topic(number)
        articles.append(day.Article(writer.title(topic), writer.content(topic), topic))
    sharers: Dict[str, int] = {}
    for article in articles:
        for word in article.topic:
            sharers[word] = sharers.get(word, 0) + 1
    creation_order = list(range(scenario.articles))
    rng.shuffle(creation_order)
    length = scenario.hours * day.HOUR * day.SECOND
    ranks = list(itertools.accumulate(zipf_weights(scenario.articles, scenario.zipf_s)))
    questions = []
    for time in sorted(rng.randrange(length) for _ in range(scenario.questions)):
        rank = rng.choices(range(scenario.articles), cum_weights=ranks)[0]
        questions.append(day.Question(time, rank, writer.question(articles[rank].title, articles[rank].topic,
                                                                  sharers),
                                      writer.content(articles[rank].topic, sentences=1)))
    saves = plain_draw_saves(rng, writer, articles, scenario, 0, length, scenario.saves)
    late: List[day.Save] = []
    if scenario.saves_after_day:
        writer.rng = random.Random(rng.getrandbits(64))
        window = max(scenario.delays, default=0) * day.SECOND
        late = plain_draw_saves(writer.rng, writer, articles, scenario, length, window,
                                round(scenario.saves * window / length))
    return day.Plan(tuple(articles), tuple(creation_order), tuple(questions), tuple(saves), tuple(late))


def plain_draw_saves(rng: random.Random, writer: PlainWriter, articles: Sequence[day.Article],
                     scenario: day.Scenario, start: int, span: int, count: int) -> List[day.Save]:
    ranks = list(itertools.accumulate(zipf_weights(scenario.articles, scenario.zipf_s)))
    saves = []
    for time, kind in zip(sorted(start + rng.randrange(span) for _ in range(count)),
                          day.save_kinds(rng, scenario, count)):
        zipf, uniform = rng.choices(range(scenario.articles), cum_weights=ranks)[0], rng.randrange(scenario.articles)
        saves.append(day.Save(time, plain_draw_change(writer, articles, zipf, kind),
                              plain_draw_change(writer, articles, uniform, kind)))
    return saves


def plain_draw_change(writer: PlainWriter, articles: Sequence[day.Article], rank: int, kind: str) -> day.Change:
    topic = articles[rank].topic
    if kind == "unpublish":
        return day.Change(rank, kind, None, None)
    title = writer.title(topic) if kind == "content+title" else None
    return day.Change(rank, kind, writer.content(topic), title)


class PlanTest(unittest.TestCase):
    def test_every_model_draws_the_plan_a_call_per_draw_draws(self):
        small = sim.models_from(sim.parser().parse_args(SMALL))
        for name, scenario in {**small, **{f"late {n}": s for n, s in models.late_models(small).items()}}.items():
            for seed in (1, 2):
                with self.subTest(model=name, seed=seed):
                    plan = day.draw_plan(seed, scenario)
                    self.assertEqual(plan, plain_draw_plan(seed, scenario))
                    self.assertEqual(bool(plan.late_saves), scenario.saves_after_day)


class DrawsTest(unittest.TestCase):
    def test_a_rank_by_popularity_is_what_choices_draws(self):
        for articles, zipf_s in ((1, 0.9), (2, 0.9), (400, 0.9), (1000, 1.3)):
            scenario = dataclasses.replace(DEFAULT, articles=articles, zipf_s=zipf_s)
            ranks = list(itertools.accumulate(zipf_weights(articles, zipf_s)))
            with self.subTest(articles=articles):
                quick, plain = generators(articles)
                popular = day.rank_drawer(quick, scenario)
                drawn = [popular() for _ in range(2000)]
                self.assertEqual(drawn, [plain.choices(range(articles), cum_weights=ranks)[0] for _ in range(2000)])
                self.assertEqual(quick.getstate(), plain.getstate())
                self.assertEqual(collections.Counter(drawn).most_common(1)[0][0], 0)

    def test_times_are_what_randrange_draws(self):
        for start, span in ((0, 1), (0, 28_800_000_000), (5, 3600), (28_800_000_000, 14_400_000_000)):
            with self.subTest(span=span):
                quick, plain = generators(span)
                self.assertEqual(day.uniform_times(quick, start, span, 500),
                                 [start + plain.randrange(span) for _ in range(500)])
                self.assertEqual(quick.getstate(), plain.getstate())

    def test_no_article_and_no_time_to_draw_are_refused_and_nothing_is_drawn(self):
        rng = random.Random(1)
        state = rng.getstate()
        with self.assertRaisesRegex(ValueError, "a day of no articles has none to draw: give it at least one"):
            day.rank_drawer(rng, dataclasses.replace(DEFAULT, articles=0))
        with self.assertRaisesRegex(ValueError, "no time lies in an empty span of 0 microseconds"):
            day.uniform_times(rng, 0, 0, 3)
        self.assertEqual(day.uniform_times(rng, 0, 0, 0), [])
        self.assertEqual(rng.getstate(), state)


if __name__ == "__main__":
    unittest.main()
