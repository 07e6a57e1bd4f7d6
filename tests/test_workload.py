"""workload.py's quicker draws: each makes the very draws of the random.Random calls it stands for.

A plan must be drawn exactly as the plain calls draw it (the pages are written from the plans), and the quicker
ways repeat what random's methods do in Python. So this module keeps the plain calls (PlainWriter, the Writer with a
call per draw) and checks on the running Python that the quicker ways give the same values and leave the generator
where the calls leave it: a Python whose random module draws otherwise fails here, not in the pages.
"""

import itertools
import random
import unittest
from typing import Any, Dict, List, Optional, Sequence, Tuple

from osfoundry_tools.content import workload
from osfoundry_tools.content.workload import ANY, BACKGROUND, FILLER, TOPIC, TextSettings

SIZES = [*range(1, 300), 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 8 * 3600 * 10 ** 6, 10 ** 20]


def plain_subject_words(rng: random.Random, size: int) -> List[str]:
    """subject_words with a call per draw."""
    words: Dict[str, None] = {}
    while len(words) < size:
        syllables = rng.choice((2, 3, 4))
        words["".join(rng.choice(workload.CONSONANTS) + rng.choice(workload.VOWELS) for _ in range(syllables))] = None
    return list(words)


class PlainWriter:
    """The Writer with a call per draw, and its sentences filled word by word: what the Writer must write."""

    def __init__(self, rng: random.Random, settings: TextSettings) -> None:
        self.rng = rng
        self.settings = settings
        self.words = plain_subject_words(rng, settings.vocabulary)
        areas = max(1, settings.articles // settings.area_articles)
        self.word_weights = [0.0] * areas + list(itertools.accumulate(
            workload.zipf_weights(len(self.words) - areas, settings.word_zipf_s)))
        self.titles: set = set()
        self.templates = [self.template() for _ in range(workload.TEMPLATES)]

    def topic(self, number: int) -> Tuple[str, ...]:
        areas = max(1, self.settings.articles // self.settings.area_articles)
        topic: Dict[str, None] = {self.words[number % areas]: None}
        while len(topic) < self.settings.topic_words:
            topic[self.rng.choices(self.words, cum_weights=self.word_weights, k=1)[0]] = None
        return tuple(topic)

    def title(self, topic: Sequence[str]) -> str:
        for _ in range(100):
            title = " ".join(self.rng.sample(list(topic[1:]), self.settings.title_words)).capitalize()
            if title not in self.titles:
                break
        else:
            title = f"{title} {self.rng.choice(self.words)}"
        self.titles.add(title)
        return title

    def template(self) -> Tuple[Any, ...]:
        share = self.settings.topic_share
        kinds = self.rng.choices((TOPIC, ANY, None), (share, (1 - share) * BACKGROUND, (1 - share) * (1 - BACKGROUND)),
                                 k=self.rng.randint(*workload.SENTENCE_WORDS))
        return tuple(self.rng.choice(FILLER) if kind is None else kind for kind in kinds)

    def content(self, topic: Sequence[str], sentences: Optional[int] = None) -> str:
        chosen = self.rng.choices(self.templates, k=sentences or workload.sentences_of(self.settings.article_words))
        slots = [word for template in chosen for word in template if word in (TOPIC, ANY)]
        topic_words = iter(self.rng.choices(topic, k=slots.count(TOPIC)))
        any_words = iter(self.rng.choices(self.words, k=slots.count(ANY)))
        written = []
        for template in chosen:
            words = [next(topic_words) if word is TOPIC else next(any_words) if word is ANY else word
                     for word in template]
            sentence = " ".join(words) + "."
            written.append(sentence[0].upper() + sentence[1:])
        return " ".join(written)

    def question(self, title: str, topic: Sequence[str], sharers: Dict[str, int]) -> str:
        title_word = self.rng.choice(title.lower().split())
        others = [w for w in topic if w != title_word]
        shared = max(others, key=lambda w: (sharers[w], -others.index(w)))
        words = [title_word, shared, self.rng.choice([w for w in others if w != shared])]
        self.rng.shuffle(words)
        return " ".join([self.rng.choice(workload.OPENERS)] + words)


def generators(seed: int) -> Tuple[random.Random, random.Random]:
    """Two generators in the same state: one for the quicker draws, one for the plain calls."""
    return random.Random(seed), random.Random(seed)


class NoChoices(random.Random):
    """A generator whose choices method may not be called: the draws must be made another way."""

    def choices(self, *arguments: Any, **options: Any) -> List[Any]:
        raise AssertionError("rng.choices was called")


class BelowTest(unittest.TestCase):
    def test_below_draws_what_randrange_choice_and_randint_draw(self):
        for n in SIZES:
            with self.subTest(n=n):
                quick, plain = generators(n)
                self.assertEqual([workload.below(quick.getrandbits, n) for _ in range(30)],
                                 [plain.randrange(n) for _ in range(30)])
                if n < 2 ** 62:  # a longer sequence has no len()
                    self.assertEqual([workload.below(quick.getrandbits, n) for _ in range(30)],
                                     [plain.choice(range(n)) for _ in range(30)])
                self.assertEqual([8 + workload.below(quick.getrandbits, n) for _ in range(30)],
                                 [plain.randint(8, 8 + n - 1) for _ in range(30)])
                self.assertEqual(quick.getstate(), plain.getstate())

    def test_an_empty_range_is_refused_and_draws_nothing(self):
        rng = random.Random(1)
        state = rng.getstate()
        for n in (0, -1):
            with self.subTest(n=n), self.assertRaisesRegex(ValueError, r"no whole number lies in \[0, -?\d\)"):
                workload.below(rng.getrandbits, n)
        self.assertEqual(rng.getstate(), state)


class UniformChoicesTest(unittest.TestCase):
    def test_uniform_choices_draw_what_choices_draws_for_every_size(self):
        for size in range(1, 300):
            population = tuple(f"w{i}" for i in range(size))
            for count in (0, 1, 2, 7, 100):
                with self.subTest(size=size, count=count):
                    quick, plain = generators(size * 1000 + count)
                    self.assertEqual(workload.uniform_choices(quick, population, count),
                                     plain.choices(population, k=count))
                    self.assertEqual(quick.getstate(), plain.getstate())

    def test_a_power_of_two_words_is_drawn_in_one_call_and_any_other_size_by_choices(self):
        for size in sorted(workload.BYTE_POWERS):
            with self.subTest(size=size):
                self.assertEqual(len(workload.uniform_choices(NoChoices(size), range(size), 50)), 50)
        for size in (3, 6, 12, 512):
            with self.subTest(size=size), self.assertRaisesRegex(AssertionError, "rng.choices was called"):
                workload.uniform_choices(NoChoices(size), range(size), 50)

    def test_an_empty_population_is_refused_as_choices_refuses_it(self):
        with self.assertRaises(IndexError):
            workload.uniform_choices(random.Random(1), (), 3)
        self.assertEqual(workload.uniform_choices(random.Random(1), (), 0), [])


class SubjectWordsTest(unittest.TestCase):
    def test_the_vocabulary_is_the_one_a_call_per_draw_makes(self):
        for seed, size in itertools.product(range(1, 6), (0, 1, 50, 3000)):
            with self.subTest(seed=seed, size=size):
                quick, plain = generators(seed)
                self.assertEqual(workload.subject_words(quick, size), plain_subject_words(plain, size))
                self.assertEqual(quick.getstate(), plain.getstate())


class WriterTest(unittest.TestCase):
    """The Writer writes what PlainWriter writes, draw for draw, with topics drawn at once (8 words) or not."""

    def assert_writes_as_plain(self, seed: int, settings: TextSettings) -> None:
        quick_rng, plain_rng = generators(seed)
        quick, plain = workload.Writer(quick_rng, settings), PlainWriter(plain_rng, settings)
        self.assertEqual(quick.words, plain.words)
        self.assertEqual(quick.templates, plain.templates)
        self.assertTrue(any(t[0] is TOPIC for t in quick.templates) and any(t[0] is ANY for t in quick.templates),
                        "some sentences open with each kind of open word, which is capitalised")
        topics = [quick.topic(number) for number in range(settings.articles)]
        self.assertEqual(topics, [plain.topic(number) for number in range(settings.articles)])
        sharers = dict.fromkeys(itertools.chain.from_iterable(topics), 2)
        for topic in topics:
            title = quick.title(topic)
            self.assertEqual(title, plain.title(topic))
            for sentences in (None, 1, 3, 0, -1):
                self.assertEqual(quick.content(topic, sentences), plain.content(topic, sentences))
            self.assertEqual(quick.question(title, topic, sharers), plain.question(title, topic, sharers))
        self.assertEqual(quick_rng.getstate(), plain_rng.getstate())

    def test_the_day_as_written_by_default(self):
        self.assertEqual(TextSettings(articles=1).topic_words, 8)
        for seed in (1, 2):
            with self.subTest(seed=seed):
                self.assert_writes_as_plain(seed, TextSettings(articles=120, area_articles=11))

    def test_topics_of_other_sizes_and_other_settings(self):
        for topic_words, title_words in ((6, 2), (4, 3), (16, 3), (5, 1)):
            settings = TextSettings(articles=60, vocabulary=500, topic_words=topic_words, title_words=title_words,
                                    article_words=40, topic_share=0.5, word_zipf_s=1.1)
            with self.subTest(topic_words=topic_words):
                self.assert_writes_as_plain(7, settings)

    def test_a_vocabulary_too_small_for_the_topics_is_refused_before_any_draw(self):
        rng = random.Random(1)
        state = rng.getstate()
        with self.assertRaisesRegex(ValueError, "a vocabulary of 26 words cannot give each topic 7 words besides "
                                                "the 20 areas' words"):
            workload.Writer(rng, TextSettings(articles=400, area_articles=20, vocabulary=26))
        self.assertEqual(rng.getstate(), state)
        self.assert_writes_as_plain(3, TextSettings(articles=400, area_articles=20, vocabulary=27))


if __name__ == "__main__":
    unittest.main()
