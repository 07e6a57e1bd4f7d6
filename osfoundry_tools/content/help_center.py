"""Readable English support articles: the help centre of osFoundry, a made-up team workspace product, for the demo.

Layer: content, beside workload.py and like it below everything that fills a store:
the server's demo takes its knowledge base from here, so that an agent asking "how do
I reset my password" finds an article that answers it. The simulations keep
workload.py's made-up vocabulary; only the demo reads English. It never opens a store
or calls a tool; it only draws from a random.Random it is given.

The words are data, apart from the code: JSON files in help_center_catalogue/, the
folder beside this module, whose README.md says what each file holds (the subjects of
each category, the qualifiers, the places, the axes, the phrases around a subject's
text, a colleague's revisions, the questions people type). They are read once, at
import, and checked as they are read: a file edited wrong stops the import with one
ValueError naming it. The module keeps the logic: the variants and their qualified
titles, the bodies, the revisions.

Glossary:
  subject     one thing customers ask about (password-reset, card-declined): a stable key, a category, a
              title, and the parts of its article written out in SUBJECTS
  catalogue   the SUBJECTS in the order articles are written: the four categories taken in turn, so the
              first 80 articles are 80 different subjects
  qualifier   what a variant is about: a device (Android), a role (admin), a plan (Enterprise), a data region
              or a billing country; it has a phrase for the title and a note for the body
  axis        the qualifiers of one kind; a subject names the axes that make sense for it
  variant     an article of one subject for one or more qualifiers, one of each of as many axes: its title
              names them ("Reset your password on Android") and its body carries their notes
  level       how many qualifiers a variant has: every level-1 variant is written before any level-2 one
  ask         a question a customer types about a subject, in their own words; every article quotes its
              subject's two, which also makes the words of questions ("how", "I", "my") common, so that
              search weighs them little
  note        a "Note: " paragraph of an article, general to its category; a revision adds or changes one
  revision    the body a colleague saves after an edit: a step reworded or its menu path written otherwise, a
              note added or changed, or a new closing line; never the body it started from

Left out on purpose: links between articles, images and markup (bodies are plain text: paragraphs split by a
blank line, steps as lines "1. ..."), and any language but English.
"""

import dataclasses
import importlib.resources
import itertools
import json
import random
from typing import Any, Collection, Dict, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

CATEGORIES = ("accounts", "billing", "integrations", "troubleshooting")
NOTE_SHARE = 0.4  # share of articles written with a "Note: " paragraph
NOTED_QUALIFIERS = 1  # an article of more qualifiers is long enough with their notes, and gets no "Note: "
MAX_NOTES = 2  # "Note: " paragraphs a revision may grow an article to
NOTE = "Note: "
TAP_DEVICES = ("iphone", "ipad", "android")  # where a step says "tap", not "click"


@dataclasses.dataclass(frozen=True)
class HelpArticle:
    """One help centre article as first written: its subject's key, category, title and body."""

    title: str
    content: str
    category: str
    subject: str  # a short stable key such as "password-reset", the same for all its variants


class Subject(NamedTuple):
    """One thing customers ask about, and the parts of its article; {click} and {Click} become tap on phones."""

    key: str
    category: str
    title: str
    topic: str  # a noun phrase the opening sentence names: "resetting a forgotten password"
    summary: str  # what it is, a few sentences
    steps: Tuple[str, ...]
    trouble: str  # what to do if the steps do not work
    asks: Tuple[str, ...]  # questions customers ask about it, in their own words
    axes: Tuple[str, ...]  # the kinds of qualifier its variants take, in the order a title names them


class Qualifier(NamedTuple):
    """One value of an axis: how a title names it, and what an article of it adds."""

    key: str
    phrase: str  # "on Android"; in brackets at the end of a title when bracketed: "Enterprise plan"
    note: str
    bracketed: bool = False


# ---------------------------------------------------------------------------
# Reading the catalogue. Its words are JSON files in help_center_catalogue/, beside this module; the README.md
# there says what each file holds. Each file is read once, here, at import, and checked as it is read, so that a
# file edited wrong stops the import with one ValueError naming it, rather than with a KeyError in the writing.

_FOLDER = "help_center_catalogue"
_KNOWN_SHOWN = 12  # names an error lists of those a value may be; of more, it gives their number
_PACKAGE = __name__.rpartition(".")[0]  # the package whose folder holds the catalogue: osfoundry_tools.content


def _malformed(name: str, problem: str) -> ValueError:
    """The one error a catalogue file that does not fit raises, naming it by its path in the folder."""
    return ValueError(f"{_FOLDER}/{name}: {problem}")


class _CatalogueFile:
    """One file of the catalogue, parsed. Every value the module takes from it passes one of the checks below,
    and a value that does not fit raises an error naming the file and where in it the value is."""

    def __init__(self, name: str, fields: Optional[Sequence[str]] = None) -> None:
        self.name = name  # its path in the folder, such as "subjects/billing.json"
        parsed = self._parsed()
        self.data: Any = (  # an object of exactly `fields` or, without them, a list of entries
            self.entries(parsed, "the file") if fields is None else self.fields(parsed, "the file", fields))

    def _parsed(self) -> Any:
        """The file's JSON, read where the package is installed."""
        place = importlib.resources.files(_PACKAGE).joinpath(_FOLDER)
        for part in self.name.split("/"):
            place = place.joinpath(part)
        try:
            return json.loads(place.read_text(encoding="utf-8"), object_pairs_hook=self._once_each)
        except FileNotFoundError:
            raise self.wrong("is missing (an install copies the files pyproject.toml's package-data names)") from None
        except json.JSONDecodeError as error:
            raise self.wrong(f"is not JSON: {error}") from None

    def _once_each(self, pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
        """One object of the file, refused if it names a field twice (JSON would silently keep the last)."""
        named: Set[str] = set()
        for field, _ in pairs:
            if field in named:
                raise self.wrong(f"names {field!r} twice in one object")
            named.add(field)
        return dict(pairs)

    def wrong(self, problem: str) -> ValueError:
        """The error for what in this file does not fit."""
        return _malformed(self.name, problem)

    def fields(self, value: Any, what: str, names: Sequence[str], optional: Sequence[str] = ()) -> Dict[str, Any]:
        """`value` as an object holding each of the fields `names`, perhaps some of `optional`, and no other."""
        missing = [name for name in names if name not in self.mapping(value, what)]
        if missing:
            raise self.wrong(f"{what} lacks {', '.join(missing)}")
        unknown = [name for name in value if name not in names and name not in optional]
        if unknown:
            allowed = ", ".join([*names, *optional])
            raise self.wrong(f"{what} holds {', '.join(unknown)}, none of its fields ({allowed})")
        return value

    def mapping(self, value: Any, what: str) -> Dict[str, Any]:
        """`value` as an object of any fields."""
        if not isinstance(value, dict):
            raise self.wrong(f"{what} should be an object, not {value!r:.60}")
        return value

    def entries(self, value: Any, what: str) -> List[Any]:
        """`value` as a list of one item or more."""
        if not isinstance(value, list) or not value:
            raise self.wrong(f"{what} should be a list of one item or more, not {value!r:.60}")
        return value

    def numbered(self, value: Any, what: str, each: str) -> Iterator[Tuple[str, Any]]:
        """The items of the list `value`, each with where it is: ("country 3", its item)."""
        return ((f"{each} {n}", item) for n, item in enumerate(self.entries(value, what), 1))

    def text(self, value: Any, what: str, *placeholders: str) -> str:
        """`value` as a text that is not empty. Given `placeholders`, it is one the module fills in, and may hold no
        braces but those: "{topic}"."""
        if not isinstance(value, str) or not value:
            raise self.wrong(f"{what} should be a text, not {value!r:.60}")
        if placeholders:
            try:
                value.format_map(dict.fromkeys(placeholders, ""))
            except (AttributeError, IndexError, KeyError, TypeError, ValueError):
                allowed = ", ".join("{" + placeholder + "}" for placeholder in placeholders)
                raise self.wrong(f"{what} may hold no braces but {allowed}: {value!r:.80}") from None
        return value

    def texts(self, value: Any, what: str, *placeholders: str) -> Tuple[str, ...]:
        """`value` as a list of texts, one or more, each as `text` takes it."""
        items = self.numbered(value, what, f"{what}, item")
        return tuple(self.text(item, where, *placeholders) for where, item in items)

    def known(self, value: Any, what: str, names: Collection[str]) -> str:
        """`value` as one of `names`: a subject's key, an axis, a qualifier's key."""
        if self.text(value, what) not in names:
            choice = ", ".join(names) if len(names) <= _KNOWN_SHOWN else f"the {len(names)} it may name"
            raise self.wrong(f"{what} names {value!r}, which is none of {choice}")
        return value

    def flag(self, value: Any, what: str) -> bool:
        """`value` as true or false."""
        if not isinstance(value, bool):
            raise self.wrong(f"{what} should be true or false, not {value!r:.60}")
        return value

    def row(self, value: Any, what: str, names: Sequence[str]) -> Tuple[str, ...]:
        """`value` as an object of exactly the fields `names`, each a text: their texts in that order."""
        fields = self.fields(value, what, names)
        return tuple(self.text(fields[name], f"{what}'s {name}") for name in names)


# ---------------------------------------------------------------------------
# The catalogue: subjects/<category>.json, for each category about 20 subjects, each with the two questions
# customers ask about it in their own words (every article of the subject quotes them).

Written = Tuple[str, str, str, str, Tuple[str, ...], str]  # one subject as the catalogue writes it
_SUBJECT_FIELDS = ("key", "title", "topic", "summary", "steps", "trouble", "asks")
_VERBS = ("click", "Click")  # the placeholders of a subject's steps and trouble text: "click" or "tap"


def _read_subjects(category: str) -> List[Tuple[Written, Tuple[str, ...]]]:
    """The subjects of `category` in the order of its file, each with its asks."""
    file = _CatalogueFile(f"subjects/{category}.json")
    return [_written(file, entry, where) for where, entry in file.numbered(file.data, "the file", "subject")]


def _written(file: _CatalogueFile, entry: Any, where: str) -> Tuple[Written, Tuple[str, ...]]:
    """One subject of a file: (key, title, topic, summary, steps, trouble), and its asks."""
    fields = file.fields(entry, where, _SUBJECT_FIELDS)
    key = file.text(fields["key"], f"{where}'s key")
    title, topic, summary = (file.text(fields[name], f"{key}'s {name}") for name in ("title", "topic", "summary"))
    steps = file.texts(fields["steps"], f"{key}'s steps", *_VERBS)
    trouble = file.text(fields["trouble"], f"{key}'s trouble", *_VERBS)
    return (key, title, topic, summary, steps, trouble), file.texts(fields["asks"], f"{key}'s asks")


def _asks(written: Dict[str, List[Tuple[Written, Tuple[str, ...]]]]) -> Dict[str, Tuple[str, ...]]:
    """Each subject's asks by its key, in the order of the files; a key written twice is refused."""
    asks: Dict[str, Tuple[str, ...]] = {}
    for category, subjects in written.items():
        for row, questions in subjects:
            if row[0] in asks:
                raise _malformed(f"subjects/{category}.json", f"writes the subject {row[0]!r} a second time")
            asks[row[0]] = questions
    return asks


_WRITTEN = {category: _read_subjects(category) for category in CATEGORIES}
ACCOUNTS: List[Written] = [row for row, _ in _WRITTEN["accounts"]]
BILLING: List[Written] = [row for row, _ in _WRITTEN["billing"]]
INTEGRATIONS: List[Written] = [row for row, _ in _WRITTEN["integrations"]]
TROUBLESHOOTING: List[Written] = [row for row, _ in _WRITTEN["troubleshooting"]]
ASKS = _asks(_WRITTEN)  # two questions customers ask in their own words, per subject; an article quotes them

# ---------------------------------------------------------------------------
# The qualifiers: one axis per kind and, where a category needs other notes, per category (qualifiers.json);
# the data regions and billing countries, each qualifier written from a place's name (places.json); and which
# axes the subjects of each category take (axes.json).

_LISTED_AXES = ("device", "billing-device", "trouble-device", "role", "billing-role", "plan", "paid-plan")


def _read_qualifiers() -> Dict[str, Tuple[Qualifier, ...]]:
    """The axes whose qualifiers qualifiers.json writes out one by one, by the axis's name."""
    file = _CatalogueFile("qualifiers.json", _LISTED_AXES)
    return {axis: tuple(_qualifier(file, entry, where) for where, entry in file.numbered(file.data[axis], axis, axis))
            for axis in _LISTED_AXES}


def _qualifier(file: _CatalogueFile, entry: Any, where: str) -> Qualifier:
    """One qualifier: its key, phrase and note, and "bracketed": true where a title brackets its phrase."""
    fields = file.fields(entry, where, ("key", "phrase", "note"), ("bracketed",))
    key, phrase, note = (file.text(fields[name], f"{where}'s {name}") for name in ("key", "phrase", "note"))
    return Qualifier(key, phrase, note, file.flag(fields.get("bracketed", False), f"{where}'s bracketed"))


_LISTED = _read_qualifiers()
DEVICES = _LISTED["device"]
BILLING_DEVICES = _LISTED["billing-device"]
TROUBLE_DEVICES = _LISTED["trouble-device"]
ROLES = _LISTED["role"]
BILLING_ROLES = _LISTED["billing-role"]
PLANS = _LISTED["plan"]
PAID_PLANS = _LISTED["paid-plan"]

_PLACES = _CatalogueFile("places.json", ("region", "country"))


def _pattern(place: str, own: Tuple[str, ...], *placeholders: str) -> Dict[str, Any]:
    """How the qualifiers of one kind of place are written: a phrase and a note holding `placeholders`, whether a
    title brackets the phrase, and the fields `own` to this kind."""
    fields = _PLACES.fields(_PLACES.data[place], place, ("phrase", "note", "bracketed") + own)
    for name in ("phrase", "note"):
        _PLACES.text(fields[name], f"{place}'s {name}", *placeholders)
    _PLACES.flag(fields["bracketed"], f"{place}'s bracketed")
    return fields


def _place(pattern: Dict[str, Any], key: str, **names: str) -> Qualifier:
    """The qualifier of one place: its pattern's phrase and note with `names` filled in."""
    return Qualifier(key, pattern["phrase"].format(**names), pattern["note"].format(**names), pattern["bracketed"])


def _country(entry: Any, where: str) -> Tuple[str, str, str]:
    """One billing country: its name, its currency, and its tax, written out or named among the shared taxes."""
    fields = _PLACES.fields(entry, where, ("name", "currency"), ("tax", "shared_tax"))
    if ("tax" in fields) == ("shared_tax" in fields):
        raise _PLACES.wrong(f"{where} should hold either tax or shared_tax, not both or neither")
    if "shared_tax" in fields:
        shared = {"eu": EU_TAX, "abroad": ABROAD_TAX}
        tax = shared[_PLACES.known(fields["shared_tax"], f"{where}'s shared_tax", shared)]
    else:
        tax = _PLACES.text(fields["tax"], f"{where}'s tax")
    return _PLACES.text(fields["name"], f"{where}'s name"), _PLACES.text(fields["currency"], f"{where}'s currency"), tax


_REGION = _pattern("region", ("names",), "name")
REGIONS = _PLACES.texts(_REGION["names"], "region's names")
HOSTING = tuple(_place(_REGION, name.lower(), name=name) for name in REGIONS)
_COUNTRY = _pattern("country", ("shared_taxes", "countries"), "name", "currency", "tax")
EU_TAX, ABROAD_TAX = _PLACES.row(_COUNTRY["shared_taxes"], "country's shared_taxes", ("eu", "abroad"))
COUNTRIES = tuple(  # (the name as a sentence uses it, the currency of its invoices, how tax is added)
    _country(entry, where) for where, entry in _PLACES.numbered(_COUNTRY["countries"], "countries", "country"))
BILLING_COUNTRIES = tuple(_place(_COUNTRY, name.replace("the ", "").lower().replace(" ", "-"), name=name,
                                 currency=currency, tax=tax) for name, currency, tax in COUNTRIES)

_AXES_FILE = _CatalogueFile("axes.json", ("narrower", "category", "subject"))


def _narrower() -> Dict[str, Tuple[Qualifier, ...]]:
    """The axes that take some of the qualifiers of a listed axis, such as the browsers of the trouble devices."""
    narrower = {}
    for axis, entry in _AXES_FILE.mapping(_AXES_FILE.data["narrower"], "narrower").items():
        if axis in _LISTED or axis in ("region", "country"):
            raise _AXES_FILE.wrong(f"narrower axis {axis!r} has the name of an axis of its own")
        fields = _AXES_FILE.fields(entry, f"narrower axis {axis}", ("of", "keys"))
        wider = {q.key: q for q in _LISTED[_AXES_FILE.known(fields["of"], f"{axis}'s of", _LISTED)]}
        narrower[axis] = tuple(wider[_AXES_FILE.known(key, f"{axis}'s keys", wider)]
                               for key in _AXES_FILE.texts(fields["keys"], f"{axis}'s keys"))
    return narrower


AXES: Dict[str, Tuple[Qualifier, ...]] = {
    "device": DEVICES, "billing-device": BILLING_DEVICES, "trouble-device": TROUBLE_DEVICES, **_narrower(),
    "role": ROLES, "billing-role": BILLING_ROLES, "plan": PLANS, "paid-plan": PAID_PLANS,
    "region": HOSTING, "country": BILLING_COUNTRIES,
}


def _axis_names(value: Any, what: str) -> Tuple[str, ...]:
    """Names of axes, each one of AXES, in the order a title names them."""
    return tuple(_AXES_FILE.known(axis, what, AXES) for axis in _AXES_FILE.texts(value, what))


_BY_CATEGORY = _AXES_FILE.fields(_AXES_FILE.data["category"], "category", CATEGORIES)
CATEGORY_AXES = {  # the axes of a category's subjects, in the order a title names them
    category: _axis_names(_BY_CATEGORY[category], f"{category}'s axes") for category in CATEGORIES}
SUBJECT_AXES = {  # the subjects for which some of their category's axes make no sense
    _AXES_FILE.known(key, "subject", ASKS): _axis_names(axes, f"{key}'s axes")
    for key, axes in _AXES_FILE.mapping(_AXES_FILE.data["subject"], "subject").items()}

# ---------------------------------------------------------------------------
# The sentences around a subject's own text, drawn anew for every article (phrases.json). They are drawn at
# random, so they avoid the words questions turn on (add, email, password, log, connect, phone...): otherwise the
# draw, not the subject, would decide which article a question finds first.

_PHRASES = _CatalogueFile("phrases.json", ("openings", "step_leads", "trouble_leads", "ask_leads", "closings",
                                           "notes"))
OPENINGS = _PHRASES.texts(_PHRASES.data["openings"], "openings", "topic")
STEP_LEADS = _PHRASES.texts(_PHRASES.data["step_leads"], "step_leads", "where")
TROUBLE_LEADS = _PHRASES.texts(  # each reads well before any first sentence
    _PHRASES.data["trouble_leads"], "trouble_leads")
ASK_LEADS = _PHRASES.texts(_PHRASES.data["ask_leads"], "ask_leads")
CLOSINGS = _PHRASES.texts(_PHRASES.data["closings"], "closings")
_NOTES_BY_CATEGORY = _PHRASES.fields(_PHRASES.data["notes"], "notes", CATEGORIES)
NOTES = {category: _PHRASES.texts(_NOTES_BY_CATEGORY[category], f"{category}'s notes") for category in CATEGORIES}

# What a colleague's revision draws from (revisions.json).

_REVISIONS = _CatalogueFile("revisions.json", ("notes", "step_rewordings", "menu_paths"))


def _changes(kind: str) -> Tuple[Tuple[str, str], ...]:
    """The (before, after) pairs of one kind of change: what a revision may write in place of what."""
    pairs = (_REVISIONS.row(entry, where, ("before", "after"))
             for where, entry in _REVISIONS.numbered(_REVISIONS.data[kind], kind, kind))
    return tuple((before, after) for before, after in pairs)


REVISION_NOTES = _REVISIONS.texts(  # what a colleague adds after a customer call, to any category
    _REVISIONS.data["notes"], "notes")
STEP_REWORDINGS = _changes("step_rewordings")  # a step's first words, and others for them: never to a click
MENU_PATHS = _changes("menu_paths")  # two ways to write a way through menus: Admin > Members


def _catalogue() -> Tuple[Subject, ...]:
    """The subjects in writing order: one of each category in turn."""
    written = {"accounts": ACCOUNTS, "billing": BILLING, "integrations": INTEGRATIONS,
               "troubleshooting": TROUBLESHOOTING}
    rows = itertools.zip_longest(*(written[category] for category in CATEGORIES))
    return tuple(_subject(category, row) for turn in rows for category, row in zip(CATEGORIES, turn)
                 if row is not None)


def _subject(category: str, row: Written) -> Subject:
    """One subject of the catalogue, with its questions and the axes its variants take."""
    key, title, topic, summary, steps, trouble = row
    return Subject(key, category, title, topic, summary, steps, trouble, asks=ASKS[key],
                   axes=SUBJECT_AXES.get(key, CATEGORY_AXES[category]))


SUBJECTS = _catalogue()
SUBJECT_KEYS = tuple(subject.key for subject in SUBJECTS)

# The questions people type, each with the subject whose article must answer it first (questions.json).

_QUESTIONS = _CatalogueFile("questions.json")


def _question(entry: Any, where: str) -> Tuple[str, str]:
    """(what people type, the subject whose article answers it), from questions.json."""
    question, subject = _QUESTIONS.row(entry, where, ("question", "subject"))
    return question, _QUESTIONS.known(subject, f"{where}'s subject", ASKS)


QUESTIONS: Tuple[Tuple[str, str], ...] = tuple(
    _question(entry, where) for where, entry in _QUESTIONS.numbered(_QUESTIONS.data, "the file", "question"))

# ---------------------------------------------------------------------------
# Writing.

Variant = Tuple[Subject, Tuple[Qualifier, ...]]  # a subject and the qualifiers of one of its articles
DEVICE_KEYS = frozenset(q.key for axis in ("device", "trouble-device") for q in AXES[axis])


def write_articles(rng: random.Random, count: int) -> List[HelpArticle]:
    """`count` articles with distinct titles: first each subject once, then variants of them, fewest qualifiers first.

    >>> [article.subject for article in write_articles(random.Random(1), 4)]
    ['password-reset', 'card-declined', 'slack', 'slow-pages']
    """
    if count < 0:
        raise ValueError(f"count must be 0 or more, not {count}")
    return [_write(rng, subject, qualifiers, title)
            for subject, qualifiers, title in itertools.islice(_titled(_variants(rng)), count)]


def _variants(rng: random.Random) -> Iterator[Variant]:
    """Every subject with no qualifier, then with one, two... each level's in an order the rng shuffles."""
    yield from ((subject, ()) for subject in SUBJECTS)
    for level in range(1, max(len(subject.axes) for subject in SUBJECTS) + 1):
        per_subject = []
        for subject in SUBJECTS:
            combinations = [(subject, qualifiers) for axes in itertools.combinations(subject.axes, level)
                            for qualifiers in itertools.product(*(AXES[axis] for axis in axes))]
            rng.shuffle(combinations)
            per_subject.append(combinations)
        yield from _in_turn(per_subject)


def _in_turn(lists: Sequence[Sequence[Variant]]) -> Iterator[Variant]:
    """The items of the lists taken one from each in turn, skipping lists used up."""
    for row in itertools.zip_longest(*lists):
        yield from (item for item in row if item is not None)


def _titled(variants: Iterator[Variant]) -> Iterator[Tuple[Subject, Tuple[Qualifier, ...], str]]:
    """Each variant with its title, skipping a title met before; once all are used, all again numbered (2), (3)..."""
    seen: Set[str] = set()
    written = []
    for subject, qualifiers in variants:
        title = qualified_title(subject.title, [q.phrase for q in qualifiers if not q.bracketed],
                                [q.phrase for q in qualifiers if q.bracketed])
        if title not in seen:
            seen.add(title)
            written.append((subject, qualifiers, title))
            yield subject, qualifiers, title
    for number in itertools.count(2):  # the last resort: every combination has been written
        yield from ((subject, qualifiers, f"{title} ({number})") for subject, qualifiers, title in written)


def qualified_title(title: str, inline: Sequence[str], bracketed: Sequence[str]) -> str:
    """A subject's title naming its qualifiers: phrases before any final "?", bracketed ones at the end.

    >>> qualified_title("Why was my card declined?", ["on Android", "in Germany"], ["Team plan"])
    'Why was my card declined on Android in Germany? (Team plan)'
    >>> qualified_title("Reset your password", [], [])
    'Reset your password'
    """
    head, mark = (title[:-1], "?") if title.endswith("?") else (title, "")
    text = "".join([head] + [f" {phrase}" for phrase in inline] + [mark])
    return f"{text} ({', '.join(bracketed)})" if bracketed else text


def _write(rng: random.Random, subject: Subject, qualifiers: Tuple[Qualifier, ...], title: str) -> HelpArticle:
    """One article of `subject` for `qualifiers`, under `title`."""
    return HelpArticle(title, body(rng, subject, qualifiers), subject.category, subject.key)


def body(rng: random.Random, subject: Subject, qualifiers: Sequence[Qualifier] = ()) -> str:
    """An article's text: an opening and the summary, the qualifiers' notes, the steps, what to do if they fail,
    the questions customers ask, perhaps a note, and a closing line; wording drawn from the rng."""
    parts = _parts(subject, _tapping(qualifiers))
    inline = "".join(f" {q.phrase}" for q in qualifiers if not q.bracketed)
    device = next((f" {q.phrase}" for q in qualifiers if q.key in DEVICE_KEYS), "")
    paragraphs = [f"{rng.choice(OPENINGS).format(topic=subject.topic + inline)} {subject.summary}"]
    if qualifiers:
        paragraphs.append(" ".join(q.note for q in qualifiers))
    paragraphs.append(f"{rng.choice(STEP_LEADS).format(where=device)}\n{parts.steps}")
    paragraphs.append(f"{rng.choice(TROUBLE_LEADS)} {parts.trouble}")
    paragraphs.append(f"{rng.choice(ASK_LEADS)} {' '.join(subject.asks)}")
    if rng.random() < NOTE_SHARE and len(qualifiers) <= NOTED_QUALIFIERS:
        paragraphs.append(NOTE + rng.choice(NOTES[subject.category]))
    paragraphs.append(rng.choice(CLOSINGS))
    return "\n\n".join(paragraphs)


def _tapping(qualifiers: Sequence[Qualifier]) -> bool:
    """Whether the article is for a touch screen, where steps say tap."""
    return any(q.key in TAP_DEVICES for q in qualifiers)


class Parts(NamedTuple):
    """A subject's steps (numbered lines) and trouble paragraph, with its clicks or taps filled in."""

    steps: str
    trouble: str


_PARTS: Dict[Tuple[str, bool], Parts] = {}


def _parts(subject: Subject, tapping: bool) -> Parts:
    """The subject's steps and trouble text for a touch screen or not, written once and kept."""
    key = (subject.key, tapping)
    if key not in _PARTS:
        verbs = {"click": "tap", "Click": "Tap"} if tapping else {"click": "click", "Click": "Click"}
        steps = "\n".join(f"{n}. {step.format_map(verbs)}" for n, step in enumerate(subject.steps, 1))
        _PARTS[key] = Parts(steps, subject.trouble.format_map(verbs))
    return _PARTS[key]


# ---------------------------------------------------------------------------
# Revising: what a colleague saving an edit writes.


def revise(rng: random.Random, article: HelpArticle) -> str:
    """A new body for `article`, as a colleague's edit: a step reworded, a note added or changed, or a new closing.

    The edit is drawn from those that would change the body, so the body returned always differs.

    >>> article = write_articles(random.Random(1), 1)[0]
    >>> revised = revise(random.Random(2), article)
    >>> revised != article.content, revised.splitlines()[0] == article.content.splitlines()[0]
    (True, True)
    """
    paragraphs = article.content.split("\n\n")
    edits = [_reword_step, _rewrite_menu_path, _change_note, _add_note, _change_closing]
    rng.shuffle(edits)
    for edit in edits:
        edited = edit(rng, paragraphs, article.category)
        if edited is not None and "\n\n".join(edited) != article.content:
            return "\n\n".join(edited)
    return article.content + "\n\n" + NOTE + _new_note(rng, article.content, article.category)  # unreachable:
    # below MAX_NOTES a note can be added, and at MAX_NOTES one can be changed to a note the article lacks


def _step_lines(paragraphs: Sequence[str]) -> List[Tuple[int, int]]:
    """(paragraph, line) of every numbered step line."""
    return [(p, n) for p, paragraph in enumerate(paragraphs) for n, line in enumerate(paragraph.split("\n"))
            if line[:1].isdigit() and ". " in line[:4]]


def _replace_line(paragraphs: Sequence[str], where: Tuple[int, int], line: str) -> List[str]:
    """The paragraphs with one line replaced."""
    p, n = where
    lines = paragraphs[p].split("\n")
    lines[n] = line
    return [*paragraphs[:p], "\n".join(lines), *paragraphs[p + 1:]]


def _line(paragraphs: Sequence[str], where: Tuple[int, int]) -> str:
    """The line at (paragraph, line)."""
    return paragraphs[where[0]].split("\n")[where[1]]


def _reword_step(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A step that opens with a verb a colleague would put otherwise, reworded; None if no step does."""
    choices = []
    for where in _step_lines(paragraphs):
        number, text = _line(paragraphs, where).split(" ", 1)
        choices += [(where, f"{number} {after}{text[len(before):]}") for before, after in STEP_REWORDINGS
                    if text.startswith(before)]
    if not choices:
        return None
    where, line = rng.choice(choices)
    return _replace_line(paragraphs, where, line)


def _rewrite_menu_path(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A step's way through menus written the other way ("Admin, then Members" or "Admin > Members");
    None if no step goes through menus."""
    choices = [(where, before, after) for where in _step_lines(paragraphs) for before, after in MENU_PATHS
               if before in _line(paragraphs, where)]
    if not choices:
        return None
    where, before, after = rng.choice(choices)
    return _replace_line(paragraphs, where, _line(paragraphs, where).replace(before, after))


def _new_note(rng: random.Random, content: str, category: str) -> str:
    """A note the content does not hold yet, from its category's and the colleagues' own."""
    notes = [n for n in NOTES.get(category, ()) + REVISION_NOTES if n not in content]
    return rng.choice(notes or list(REVISION_NOTES))


def _change_note(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """One "Note: " paragraph replaced by another note; None if there is none."""
    places = [p for p, paragraph in enumerate(paragraphs) if paragraph.startswith(NOTE)]
    if not places:
        return None
    p = rng.choice(places)
    return [*paragraphs[:p], NOTE + _new_note(rng, "\n\n".join(paragraphs), category), *paragraphs[p + 1:]]


def _add_note(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """A new "Note: " paragraph before the closing line; None once the article has MAX_NOTES."""
    if sum(paragraph.startswith(NOTE) for paragraph in paragraphs) >= MAX_NOTES:
        return None
    at = max(1, len(paragraphs) - 1)
    return [*paragraphs[:at], NOTE + _new_note(rng, "\n\n".join(paragraphs), category), *paragraphs[at:]]


def _change_closing(rng: random.Random, paragraphs: List[str], category: str) -> Optional[List[str]]:
    """Another closing line in place of the last paragraph; None if the last paragraph is no closing line."""
    if paragraphs[-1] not in CLOSINGS:
        return None
    return [*paragraphs[:-1], rng.choice([c for c in CLOSINGS if c != paragraphs[-1]])]
