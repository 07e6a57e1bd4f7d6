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
  bug          the values a person files in the bug tracker: New, nothing triaged yet
"""

import dataclasses
import itertools
import random
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

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


def subject_words(rng: random.Random, size: int) -> List[str]:
    """`size` distinct made-up words of two to four consonant-vowel syllables."""
    words: Dict[str, None] = {}
    while len(words) < size:
        syllables = rng.choice((2, 3, 4))
        words["".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(syllables))] = None
    return list(words)


def sentences_of(article_words: int) -> int:
    """The whole sentences an article of about `article_words` words holds (270 and 280 words both give 25)."""
    return max(1, round(article_words / MEAN_SENTENCE_WORDS))


class Writer:
    """Writes titles, contents and questions from a plan's vocabulary; keeps every title unique."""

    def __init__(self, rng: random.Random, settings: TextSettings) -> None:
        self.rng = rng
        self.settings = settings
        self.words = subject_words(rng, settings.vocabulary)
        areas = max(1, settings.articles // settings.area_articles)  # the first words name the areas, in no topic
        self.word_weights = [0.0] * areas + list(itertools.accumulate(
            zipf_weights(len(self.words) - areas, settings.word_zipf_s)))
        self.titles: set = set()
        self.templates = [self.template() for _ in range(TEMPLATES)]
        self.shapes = [_shape(t) for t in self.templates]

    def topic(self, number: int) -> Tuple[str, ...]:
        """Article `number`'s subject: its area's word, then distinct words, common ones shared by many articles.

        Areas hold about area_articles articles each, so every article shares its area's word with others.
        """
        areas = max(1, self.settings.articles // self.settings.area_articles)
        topic: Dict[str, None] = {self.words[number % areas]: None}
        while len(topic) < self.settings.topic_words:
            topic[self.rng.choices(self.words, cum_weights=self.word_weights, k=1)[0]] = None
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
        """A sentence of SENTENCE_WORDS words: TOPIC and ANY mark the words each use of it draws anew."""
        share = self.settings.topic_share
        kinds = self.rng.choices((TOPIC, ANY, None), (share, (1 - share) * BACKGROUND, (1 - share) * (1 - BACKGROUND)),
                                 k=self.rng.randint(*SENTENCE_WORDS))
        return tuple(self.rng.choice(FILLER) if kind is None else kind for kind in kinds)

    def content(self, topic: Sequence[str], sentences: Optional[int] = None) -> str:
        """An article's text: about article_words words in sentences drawn from the plan's templates."""
        count = sentences or sentences_of(self.settings.article_words)
        chosen = self.rng.choices(self.shapes, k=count)
        topic_words = iter(self.rng.choices(topic, k=sum(shape.topic_slots for shape in chosen)))
        any_words = iter(self.rng.choices(self.words, k=sum(shape.any_slots for shape in chosen)))
        words = [next(topic_words) if slot is TOPIC else next(any_words) for shape in chosen for slot in shape.slots]
        at = 0  # the sentences' words are in one list: a sentence that opens with one capitalises it there
        for shape in chosen:
            if shape.opens_open:
                words[at] = words[at][0].upper() + words[at][1:]
            at += len(shape.slots)
        return " ".join(shape.text for shape in chosen).format(*words)  # one format: a sentence is no object

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


class Shape(NamedTuple):
    """A template ready to fill: its sentence with {} where it leaves a word open, and what each {} takes."""

    text: str  # capitalised where it opens with a word of its own, with its full stop
    slots: Tuple[str, ...]
    topic_slots: int
    any_slots: int
    opens_open: bool  # it opens with a {}: the word filled in is capitalised


def _shape(template: Sequence[str]) -> Shape:
    slots = tuple(word for word in template if word in (TOPIC, ANY))
    text = " ".join("{}" if word in (TOPIC, ANY) else word for word in template) + "."
    opens_open = template[0] in (TOPIC, ANY)
    return Shape(text if opens_open else text[0].upper() + text[1:], slots, slots.count(TOPIC), slots.count(ANY),
                 opens_open)

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
