"""What people write: the articles' text, the bug reports and the bug tracker they are filed in.

Layer: content, above the stores and below everything that fills them: the
server's demo, the experiments (lab/) and the benchmark take their articles,
bugs and tracker from here, so that none of them imports another. It never opens
a store or calls a tool; it only draws text from a random.Random it is given.

Glossary:
  popularity   Zipf weights 1/k^s over ranks 1..n: how unevenly people's questions, saves and
               words fall (the same law for articles and for the words topics share)
  vocabulary   the made-up subject words one seed writes from: two to four consonant-vowel syllables,
               so no word means anything and none collides with a FILLER word
  topic        an article's subject words; the first names its product area, shared with the area's
               other articles
  template     a sentence shape with open slots (TOPIC, ANY) that each use fills anew
  draw         what one call of random.Random takes from its generator; the articles' text makes some of
               its draws without the calls (below, uniform_choices), exactly as the calls make them
  bug          the values a person files in the bug tracker: New, nothing triaged yet
"""

import dataclasses
import functools
import itertools
import random
from bisect import bisect_right
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

KNOWLEDGE_BASE = "kb-support"  # the support knowledge base of the articles' day, and of the demo
BUG_TRACKER = "bugs"  # the bug tracker channel of the record article's runs, and of the demo

# ---------------------------------------------------------------------------
# Popularity.


def zipf_weights(n: int, s: float) -> List[float]:
    """Zipf weights 1/k^s of ranks 1..n, unnormalised.

    >>> zipf_weights(4, 1.0)
    [1.0, 0.5, 0.3333333333333333, 0.25]
    """
    return [1.0 / k ** s for k in range(1, n + 1)]


@functools.lru_cache(maxsize=16)
def cumulative_zipf(n: int, s: float) -> Tuple[float, ...]:
    """The running sums of zipf_weights(n, s), the cum_weights a draw by popularity bisects: worked out once a
    process, as every seed of a scenario draws by the same ones (they took a plan half a millisecond).

    >>> cumulative_zipf(4, 1.0)
    (1.0, 1.5, 1.8333333333333333, 2.083333333333333)
    """
    return tuple(itertools.accumulate(zipf_weights(n, s)))

# ---------------------------------------------------------------------------
# Article text (our design; the articles do not say). ARTICLE_WORDS is calibrated: a read of an article then
# weighs about the published 1.5 KiB.

VOCABULARY = 3000  # made-up subject words per seed
WORD_ZIPF_S = 0.5  # how unevenly topics share subject words
TOPIC_WORDS = 8  # subject words per article
TITLE_WORDS = 3
TOPIC_SHARE = 0.25  # share of an article's words taken from its topic
ARTICLE_WORDS = 270  # calibrated: a read of an article then weighs about the published 1.5 KiB
AREA_ARTICLES = 5  # articles per subject area in the day as stated; every topic holds its area's word
CONSONANTS = "bdfgklmnprtvz"
VOWELS = "aiou"
SYLLABLE_COUNTS = (2, 3, 4)  # a word's syllables, uniform
SYLLABLES = tuple(consonant + vowel for consonant in CONSONANTS for vowel in VOWELS)  # by consonant, then vowel
FILLER = ("the", "a", "to", "and", "of", "in", "is", "you", "your", "it", "for", "on", "with", "this",
          "can", "when", "then", "if", "or", "not", "be", "will", "from", "by", "at", "as", "are", "that")
OPENERS = ("how do i", "why does my", "what happened", "help", "problem", "fix my")  # no FILLER word
BACKGROUND = 0.03  # share of non-topic words that are subject words of any topic
TEMPLATES = 400  # sentence shapes a plan writes its articles from
SENTENCE_WORDS = (8, 14)  # words per template sentence, uniform
MEAN_SENTENCE_WORDS = sum(SENTENCE_WORDS) / 2  # 11: sentences of an article are article_words / this
TOPIC, ANY = "<topic word>", "<any subject word>"  # the words a template leaves open


@dataclasses.dataclass(frozen=True)
class TextSettings:
    """How one knowledge base's articles are written; the defaults are the experiments' day's."""

    articles: int  # articles the vocabulary's areas are laid out for
    vocabulary: int = VOCABULARY
    word_zipf_s: float = WORD_ZIPF_S
    topic_words: int = TOPIC_WORDS
    title_words: int = TITLE_WORDS
    article_words: int = ARTICLE_WORDS
    topic_share: float = TOPIC_SHARE
    area_articles: int = AREA_ARTICLES


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """What rng._randbelow(n) draws, given rng.getrandbits: the draw of rng.choice, randrange, randint, shuffle and
    sample. It reads the top n.bit_length() bits of one output of the generator, again while they reach n.

    A plan makes about 150,000 draws, and a call of choice or randint costs several times the draw it makes: the
    plan's busiest loops make this draw themselves, inline, from a bound getrandbits. tests/test_workload.py pins
    it to the methods on the running Python, so a Python whose random module draws otherwise fails there, never
    in the pages.
    """
    if n <= 0:
        raise ValueError(f"no whole number lies in [0, {n}): draw below a number of at least 1")
    bits = n.bit_length()
    drawn = getrandbits(bits)
    while drawn >= n:
        drawn = getrandbits(bits)
    return drawn


BYTE_POWERS = frozenset(2 ** b for b in range(9))  # 1 to 256: sizes uniform_choices draws at once


def uniform_choices(rng: random.Random, population: Sequence[Any], count: int) -> List[Any]:
    """rng.choices(population, k=count): the same draws, made at once where the population's size is a power of two.

    random() joins the top 27 bits of one 32-bit output to the top 26 of the next, so for a size of 2^b (b <= 8)
    floor(random() * size) is the top b bits of the first output: multiplying by a power of two rounds nothing.
    One getrandbits(64 * count) then holds every draw's two outputs, the first output in the lowest 32 bits. A topic
    of TOPIC_WORDS words is such a population, and its words are most of a plan's draws; this takes a third less
    time than the call.
    """
    size = len(population)
    if count <= 0 or size not in BYTE_POWERS:
        return rng.choices(population, k=count)
    shift = 9 - size.bit_length()  # 8 - b: from the output's top byte to its top b bits
    outputs = rng.getrandbits(64 * count).to_bytes(8 * count, "little")  # two outputs a draw
    return [population[top >> shift] for top in outputs[3::8]]  # the top byte of each draw's first output


def subject_words(rng: random.Random, size: int) -> List[str]:
    """`size` distinct made-up words of two to four consonant-vowel syllables.

    A word is rng.choice((2, 3, 4)) syllables, each rng.choice(CONSONANTS) + rng.choice(VOWELS); the draws are
    made inline, as `below` makes them (the calls took three times as long as the draws).
    """
    getrandbits = rng.getrandbits
    counts, consonants, vowels = len(SYLLABLE_COUNTS), len(CONSONANTS), len(VOWELS)
    count_bits, consonant_bits, vowel_bits = counts.bit_length(), consonants.bit_length(), vowels.bit_length()
    words: Dict[str, None] = {}
    while len(words) < size:
        count = getrandbits(count_bits)
        while count >= counts:
            count = getrandbits(count_bits)
        word = ""
        for _ in range(SYLLABLE_COUNTS[count]):
            consonant = getrandbits(consonant_bits)
            while consonant >= consonants:
                consonant = getrandbits(consonant_bits)
            vowel = getrandbits(vowel_bits)
            while vowel >= vowels:
                vowel = getrandbits(vowel_bits)
            word += SYLLABLES[consonant * vowels + vowel]
        words[word] = None
    return list(words)


def sentences_of(article_words: int) -> int:
    """The whole sentences an article of about `article_words` words holds (270 and 280 words both give 25)."""
    return max(1, round(article_words / MEAN_SENTENCE_WORDS))


class Writer:
    """Writes titles, contents and questions from a plan's vocabulary; keeps every title unique.

    Its draws are those of the plain calls each method's docstring names, made with fewer calls (the text is most
    of a plan's time); tests/test_workload.py holds the plain calls and checks that both write the same. `rng` is
    a random.Random: a generator that draws otherwise would write other text than its calls.
    """

    def __init__(self, rng: random.Random, settings: TextSettings) -> None:
        self.areas = max(1, settings.articles // settings.area_articles)  # the first words name the areas
        if settings.vocabulary - self.areas < settings.topic_words - 1:
            raise ValueError(f"a vocabulary of {settings.vocabulary} words cannot give each topic "
                             f"{settings.topic_words - 1} words besides the {self.areas} areas' words: give it more "
                             f"words, or the topics fewer")
        self.rng = rng
        self.settings = settings
        self.words = subject_words(rng, settings.vocabulary)
        self.word_weights = [0.0] * self.areas + list(  # the areas' words are in no topic
            cumulative_zipf(len(self.words) - self.areas, settings.word_zipf_s))
        self.titles: set = set()
        self.sentences = sentences_of(settings.article_words)
        share = settings.topic_share
        self.slot_weights = list(itertools.accumulate((share, (1 - share) * BACKGROUND,
                                                       (1 - share) * (1 - BACKGROUND))))
        self.templates = [self.template() for _ in range(TEMPLATES)]
        self.shapes = [_shape(t) for t in self.templates]
        self.capitals: Dict[str, str] = {}  # word -> the word opening a sentence

    def topic(self, number: int) -> Tuple[str, ...]:
        """Article `number`'s subject: its area's word, then distinct words, common ones shared by many articles.

        Areas hold about area_articles articles each, so every article shares its area's word with others. A word
        is rng.choices(words, cum_weights=word_weights)[0], as that call draws it.
        """
        words, weights, random = self.words, self.word_weights, self.rng.random
        total, last = weights[-1] + 0.0, len(words) - 1
        topic: Dict[str, None] = {words[number % self.areas]: None}
        while len(topic) < self.settings.topic_words:
            topic[words[bisect_right(weights, random() * total, 0, last)]] = None
        return tuple(topic)

    def title(self, topic: Sequence[str]) -> str:
        """A title of topic words never used before by any article (so a title names one version of one)."""
        for _ in range(100):
            words = self.rng.sample(list(topic[1:]), self.settings.title_words)  # a title does not name the area
            title = " ".join(words).capitalize()
            if title not in self.titles:
                break
        else:  # every combination was taken: add a word from the whole vocabulary
            title = f"{title} {self.rng.choice(self.words)}"
        self.titles.add(title)
        return title

    def template(self) -> Tuple[Any, ...]:
        """A sentence of SENTENCE_WORDS words: TOPIC and ANY mark the words each use of it draws anew.

        The draws of rng.choices((TOPIC, ANY, None), (topic_share, ...), k=rng.randint(*SENTENCE_WORDS)), then of
        rng.choice(FILLER) for each None in turn.
        """
        low, high = SENTENCE_WORDS
        getrandbits, fillers = self.rng.getrandbits, len(FILLER)
        bits = fillers.bit_length()
        words = self.rng.choices((TOPIC, ANY, None), cum_weights=self.slot_weights,
                                 k=low + below(getrandbits, high - low + 1))
        for at, word in enumerate(words):
            if word is None:
                filler = getrandbits(bits)  # below(getrandbits, fillers), inline
                while filler >= fillers:
                    filler = getrandbits(bits)
                words[at] = FILLER[filler]
        return tuple(words)

    def content(self, topic: Sequence[str], sentences: Optional[int] = None) -> str:
        """An article's text: about article_words words in sentences drawn from the plan's templates.

        The draws of rng.choices(shapes, k=sentences), then rng.choices(topic, ...) for every TOPIC the sentences
        leave open and rng.choices(words, ...) for every ANY, each word going to the next open place of its kind.
        The sentences are filled as one string, so that an article costs a few calls rather than one per word.
        """
        rng = self.rng
        chosen = rng.choices(self.shapes, k=sentences or self.sentences)
        if not chosen:
            return ""
        texts, places = zip(*chosen)
        letters = "".join(places)  # a letter an open place, as in Shape
        kinds = letters.lower()
        others = kinds.count(ANY_LETTER)
        words = uniform_choices(rng, topic, len(kinds) - others)
        if others:
            at = -1
            for word in rng.choices(self.words, k=others):
                at = kinds.find(ANY_LETTER, at + 1)
                words.insert(at, word)
        capitals = self.capitals
        for letter in OPENING_LETTERS:
            at = letters.find(letter)
            while at >= 0:
                word = words[at]
                words[at] = capitals.get(word) or capitals.setdefault(word, word[0].upper() + word[1:])
                at = letters.find(letter, at + 1)
        return " ".join(texts) % tuple(words)

    def question(self, title: str, topic: Sequence[str], sharers: Dict[str, int]) -> str:
        """What a person types about an article: an opener, a word of its title, two more of its topic.

        One of the two is the topic word most other articles share (its area's, most often), so that the
        search always finds a second article, even when the target itself is gone.
        """
        title_word = self.rng.choice(title.lower().split())
        others = [w for w in topic if w != title_word]
        shared = max(others, key=lambda w: (sharers[w], -others.index(w)))
        words = [title_word, shared, self.rng.choice([w for w in others if w != shared])]
        self.rng.shuffle(words)
        return " ".join([self.rng.choice(OPENERS)] + words)


TOPIC_LETTER, ANY_LETTER = "t", "a"  # how a Shape's letters name its open places
OPENING_LETTERS = (TOPIC_LETTER.upper(), ANY_LETTER.upper())  # the letter of a place that opens its sentence
SLOT_LETTERS = {TOPIC: TOPIC_LETTER, ANY: ANY_LETTER}


class Shape(NamedTuple):
    """A template ready to fill: its sentence with %s where it leaves a word open, and what each %s takes."""

    text: str  # capitalised where it opens with a word of its own, with its full stop
    letters: str  # a letter a %s: TOPIC_LETTER or ANY_LETTER, in capitals if it opens the sentence


def _shape(template: Sequence[str]) -> Shape:
    letters = "".join([SLOT_LETTERS[word] for word in template if word in SLOT_LETTERS])
    text = " ".join(["%s" if word in SLOT_LETTERS else word for word in template]) + "."
    if template[0] in SLOT_LETTERS:
        return Shape(text, letters[0].upper() + letters[1:])
    return Shape(text[0].upper() + text[1:], letters)

# ---------------------------------------------------------------------------
# Bug reports, as people file them.

DESCRIPTION_CHARACTERS = (300, 4000)  # a description's length, uniform
SYMPTOMS = ("fails", "hangs", "crashes", "shows a blank page", "returns a 500 error", "loses the draft",
            "charges twice", "logs the user out", "is slow", "shows stale data")
PLACES = ("checkout", "the invoice list", "sign-in", "the mobile app", "the settings page", "CSV export",
          "the search box", "password reset", "the REST API", "file upload")
TRIGGERS = ("after an update", "on Safari", "with two tabs open", "for new accounts", "on slow networks",
            "at month end", "with a long name", "behind a proxy", "after a retry", "in dark mode")
SENTENCES = ("I tried twice and cleared the cache; it happened again.", "Reported from a customer call.",
             "Steps: sign in, open the page, change one field and save.", "Seen by two customers this week.",
             "Expected the change to stay; it was gone after a reload.", "No error shows in the browser console.",
             "The server log shows a timeout after 30 seconds.", "It started after Tuesday's release.",
             "A screenshot is attached to the support ticket.", "Works on Chrome, not on Firefox.")
REPORTERS = ("ana", "bo", "chen", "dara", "eli", "fumi", "gus", "hana")


def description(rng: random.Random, opening: str, low: int, high: int) -> str:
    """A made-up bug report that opens with `opening`, of a length drawn uniformly from low to high characters."""
    length = rng.randint(low, high)
    sentences, size = [opening], len(opening)
    while size < length:
        sentences.append(rng.choice([s for s in SENTENCES if s != sentences[-1]]))
        size += len(sentences[-1]) + 1
    return " ".join(sentences)[:length - 1].rstrip(" ;:,.").ljust(length - 1, ".") + "."


def new_bug(rng: random.Random, number: int, characters: Tuple[int, int]) -> Dict[str, Any]:
    """The values of one bug as a person files it: New, nothing triaged yet; `characters`: its description's.

    >>> bug = new_bug(random.Random(1), 7, (300, 300))
    >>> bug["ticket"], bug["status"], len(bug["description"]), sorted(bug)
    ('BUG-7', 'new', 300, ['description', 'reporter', 'status', 'ticket', 'title'])
    """
    place, symptom, trigger = rng.choice(PLACES), rng.choice(SYMPTOMS), rng.choice(TRIGGERS)
    title = f"{place[0].upper()}{place[1:]} {symptom} {trigger}"
    return {"ticket": f"BUG-{number}", "title": title, "status": "new",
            "description": description(rng, f"{title}.", *characters),
            "reporter": f"{rng.choice(REPORTERS)}.{rng.choice(REPORTERS)}@example.com"}

# ---------------------------------------------------------------------------
# The articles' bug tracker: its fields, as a person defines them on the people's side.

BUG_TRACKER_FIELDS: List[Dict[str, Any]] = [
    {"key": "ticket", "label": "Ticket", "type": "text", "is_required": True, "is_unique": True, "max_length": 20},
    {"key": "title", "label": "Title", "type": "text", "is_required": True, "max_length": 200},
    {"key": "description", "label": "Description", "type": "text", "max_length": 8000},
    {"key": "status", "label": "Status", "type": "select", "is_required": True, "options": [
        {"value": "new", "label": "New", "color": "gray"},
        {"value": "triaged", "label": "Triaged", "color": "blue"},
        {"value": "in_progress", "label": "In progress", "color": "yellow"},
        {"value": "fixed", "label": "Fixed", "color": "green"},
        {"value": "wont_fix", "label": "Won't fix", "color": "red"}]},
    {"key": "owner", "label": "Owner", "type": "select", "options": [
        {"value": "aiko", "label": "Aiko", "color": "purple"},
        {"value": "mika", "label": "Mika", "color": "teal"},
        {"value": "ren", "label": "Ren", "color": "orange"}]},
    {"key": "severity", "label": "Severity", "type": "select", "options": [
        {"value": "s1", "label": "S1 Critical", "color": "red"},
        {"value": "s2", "label": "S2 Major", "color": "orange"},
        {"value": "s3", "label": "S3 Minor", "color": "yellow"},
        {"value": "s4", "label": "S4 Trivial", "color": "gray"}]},
    {"key": "points", "label": "Points", "type": "number", "min": 0, "max": 13},
    {"key": "area", "label": "Area", "type": "select", "options": [
        {"value": "api", "label": "API", "color": "blue"},
        {"value": "web", "label": "Web", "color": "teal"},
        {"value": "mobile", "label": "Mobile", "color": "purple"},
        {"value": "billing", "label": "Billing", "color": "green"},
        {"value": "auth", "label": "Auth", "color": "orange"}]},
    {"key": "due", "label": "Due", "type": "date"},
    {"key": "reporter", "label": "Reporter", "type": "email"},
    {"key": "age_days", "label": "Age (days)", "type": "formula", "expression": "days_since(created_at)"},
]


def tracker_field(key: str) -> Dict[str, Any]:
    """The definition of one field of the bug tracker."""
    return next(field for field in BUG_TRACKER_FIELDS if field["key"] == key)


def option_values(key: str) -> List[str]:
    """The option values of one select field of the bug tracker, in their order."""
    return [option["value"] for option in tracker_field(key)["options"]]
