"""An article's sections, and how well its best one answers a query: where a page's answer sits under a heading,
and how near one another its text holds the query's words.

Layer: below the knowledge-base store (it imports nothing of the project). Documentation answers a question under
one heading of a page whose title is often broader ("Advanced usage", "The basics"), and a long page that holds a
question's words scattered over ten sections is no better answer than a short one holding them in one. So where a
knowledge base's articles have headings, its search weighs each of its best text matches by its best section and
by the nearness of the query's words too (kb_store.weighed_scores). The same code runs on both engines: given the
same matches and the same counts of articles holding each word, sqlite and PostgreSQL weigh them alike.

Glossary:
  section       a heading and the text under it up to the next heading of any level; the text before the first
                heading is a section without a heading. Fenced code is text: a "# comment" in it is no heading
  holds         a section holds a query word when one of its words has the same stem (word_stems: Porter's, as
                sqlite's index stems words)
  section score bm25 over the sections of the articles being weighed: each query word's weight (how rare it is
                among the articles) times its saturated count in the section, a heading's words counting
                HEADING_COUNT times, the section's length against the mean length of those sections
  nearness      how close together a text holds different query words: for each two of its words, NEAR apart at
                most, that hold different query words, the lesser of the two words' weights over the square of
                their distance, summed (term proximity as Rasolofo and Savoy's BM25TP scores it). "frozen" next
                to "field" says more of a question about frozen fields than the two words ten paragraphs apart
"""

import array
import bisect
import collections
import itertools
import math
import operator
import re
from typing import Any, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Set, Tuple

from osfoundry_tools.stores.word_stems import stem

SECTION_READ = 32_000  # characters of a content split into sections: a search's work stays bounded per article
OPENING_READ = SECTION_READ + 1  # characters read of a content to split it: the one past the opening tells whether
# the opening's last line is whole (opening_of)
HEADING_COUNT = 2.0  # a word in a section's heading counts as this many in its text
K1, B = 1.2, 0.75  # bm25's saturation of a word's count and its normalisation by length: the usual values
WHOLE_B = 0.75  # the same normalisation of a whole text's score by its length
NEAR = 5  # words apart at most for two query words to count as near (nearness)
NEAR_READ = 512  # the places where query words stand that nearness reads of an article, the first of each word,
# shared evenly among them: its work stays bounded however often a text repeats them
NEAR_WORDS = 8  # the query words nearness reads of a text that holds more, the weightiest (their pairs: 28)
SECTIONS_KEPT = 64  # headings an article is split at; what follows the last is its text (real pages hold < 60)
TEXTS_KEPT = 256  # article texts a store keeps between searches, most recently used (ArticleTexts)
ANCHOR_CHARACTERS = 200  # an anchor at its longest, its number included: what a read's section argument takes

_WORD = re.compile(r"\w+")
_ADDRESS = re.compile(r"(?<![A-Za-z0-9+.-])([0-9+.-]*)[A-Za-z][A-Za-z0-9+.-]*://[^\s()<>\[\]{}\"'`]+")
# a web address, scheme://...: its scheme from the first letter of the run of scheme characters before '://', which is
# looked for only where such a run starts (what precedes its first letter is kept), so a run is read once, not once
# from each of its letters
_LINK_TARGET = re.compile(r"\]\([^()\s]*(?:\s+\"[^\"]*\")?\)")  # Markdown's [text](target "title"): the part after ]
_OPEN_TARGET = re.compile(r"\]\((?:[^()\s]*(?:\s+(?:\"[^\"]*\"?)?)?)?\Z")  # the same, unfinished where a text ends

_HEADING_OPENS = re.compile(r" {0,3}(#{1,6})([ \t]+)")  # an ATX heading's opening: "## Install", "## Install ##"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")  # a fenced code block opens or closes: ``` or ~~~


class Section(NamedTuple):
    """One section as a search reads it: how many times each lower-case word occurs in its heading and in its
    text, and its length in words."""

    heading: Dict[str, int]
    text: Dict[str, int]
    words: int


class ArticleText(NamedTuple):
    """A content as a search reads it, once per content (article_text): its sections, its whole text as one
    section, its distinct words in order (where a query word's forms are looked up) and where in the whole text
    each word stands (its places, counted in words from 0)."""

    sections: Tuple[Section, ...]
    whole: Section
    vocabulary: Tuple[str, ...]
    places: Dict[str, "array.array[int]"]
    read: str  # the text as read (indexed_text), where a code-like token of the query is looked for as typed
    anchors: Tuple[str, ...]  # each section's anchor (section_anchors), "" for the text before the first heading
    parts: Dict[str, Tuple[int, int]]  # where answering_part's text of each anchor starts and ends in the content
    # read (answering_spans)
    holding: Dict[str, int]  # which of its sections hold each word, in its heading or text: bit i for sections[i]


def markdown_headings(lines: Iterable[str]) -> Iterator[Tuple[int, int, str]]:
    """(line index, level, text) of each Markdown heading of `lines`, fenced code left out.

    >>> list(markdown_headings(["# Title", "```", "# not one", "```", "### Upgrade uv ##"]))
    [(0, 1, 'Title'), (4, 3, 'Upgrade uv')]
    """
    fence = None
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if opened:
            mark = opened.group(1)[0]
            fence = None if fence == mark else (fence or mark)
        elif fence is None:
            heading = heading_of(line)
            if heading is not None:
                yield (number, *heading)


def heading_of(line: str) -> Optional[Tuple[int, str]]:
    """(level, text) of a line that is an ATX heading, or None: its #s, then spaces or tabs, then its text, which a
    closing run of #s after a space or tab does not belong to. Read in one pass, however long the line, as the
    expression " {0,3}(#{1,6})[ \\t]+(.+?)(?:[ \\t]+#+)?[ \\t]*" matches it (its text stripped).

    >>> heading_of("## Install ##"), heading_of("# C#"), heading_of("#  "), heading_of("# "), heading_of("#x")
    ((2, 'Install'), (1, 'C#'), (1, ''), None, None)
    """
    opened = _HEADING_OPENS.match(line)
    if opened is None:
        return None
    level, text = len(opened.group(1)), line[opened.end():].rstrip(" \t")
    if not text:  # the text is a character at least: one of the spaces, where there are two
        return (level, "") if len(opened.group(2)) > 1 else None
    unclosed = text.rstrip("#")
    if unclosed != text and unclosed[-1:] in (" ", "\t"):  # "Install ##": its closing #s are no part of it
        text = unclosed
    return level, text.strip()


class Opening(NamedTuple):
    """What a search splits into sections of a content: its first SECTION_READ characters (text), their lines as a
    search reads them (indexed_text), and the first of those lines that the rest of the content may make read
    otherwise (unsettled; None where none): those lines are text, never headings, so a search names no section
    that a read of the whole content would not know."""

    text: str
    lines: List[str]
    unsettled: Optional[int]


def opening_of(read: str) -> Opening:
    """The Opening of a content, from what was read of it: its first OPENING_READ characters, or all of it. Where
    the content is longer, two things the cut leaves open are unsettled: a last line it shortened (its words may go
    on), and every line from a link whose target it cut, a title over lines most often (the rest may finish the
    target, and a read of the whole content then leaves its lines out, as indexed_text does).

    >>> opening_of("Intro\\n## Proxy").unsettled, opening_of("x" * (SECTION_READ - 3) + "\\n## Proxy").unsettled
    (None, 1)
    >>> opening_of('See [x](y "a\\n# B\\n' + "x" * SECTION_READ).unsettled
    0
    """
    text = read[:SECTION_READ]
    unlinked = without_link_targets(text)  # an unfinished target is looked for before addresses go: it may hold one
    lines = without_addresses(unlinked).split("\n")
    if len(read) <= SECTION_READ:
        return Opening(text, lines, None)
    unsettled = None if read[SECTION_READ] == "\n" else len(lines) - 1
    target = _OPEN_TARGET.search(unlinked) if "](" in unlinked else None
    if target:
        unsettled = unlinked.count("\n", 0, target.start())
    return Opening(text, lines, unsettled)


def opening_headings(opening: Opening) -> Iterator[Tuple[int, int, str]]:
    """markdown_headings of an opening's lines before its unsettled ones: no heading is ever named by the first
    part of its words, nor from the lines of a link's title that the rest of the content may close."""
    unsettled = len(opening.lines) if opening.unsettled is None else opening.unsettled
    return (heading for heading in markdown_headings(opening.lines) if heading[0] < unsettled)


class ArticleTexts:
    """The texts a store's searches have read, by article version, the TEXTS_KEPT most recently used: a knowledge
    base's pages are read once, not once per search. An article's (number, updated_at) names one content, so a
    text kept is never stale; the database's derived dict, which holds this, is emptied on a rollback."""

    def __init__(self) -> None:
        self._texts: "collections.OrderedDict[Any, ArticleText]" = collections.OrderedDict()

    def get(self, version: Any) -> Optional[ArticleText]:
        text = self._texts.get(version)
        if text is not None:
            self._texts.move_to_end(version)
        return text

    def put(self, version: Any, text: ArticleText) -> None:
        self._texts[version] = text
        if len(self._texts) > TEXTS_KEPT:
            self._texts.popitem(last=False)


def article_text(content: str) -> ArticleText:
    """A content's first SECTION_READ characters as a search reads them, web addresses and link targets left out
    (indexed_text), split at its first SECTIONS_KEPT headings (`content`: the content, or its first OPENING_READ
    characters: opening_of).

    >>> [(section.heading, section.text, section.words)
    ...  for section in article_text("Intro.\\n## Proxies\\nUse a proxy.\\n```\\n# code\\n```").sections]
    [({}, {'intro': 1}, 1), ({'proxies': 1}, {'use': 1, 'a': 1, 'proxy': 1, 'code': 1}, 5)]
    """
    opened = opening_of(content)
    opening, lines = opened.text, opened.lines
    found = list(itertools.islice(opening_headings(opened), SECTIONS_KEPT + 1))
    marks = found[:SECTIONS_KEPT]
    bounds = [(-1, "")] + [(line, text) for line, _, text in marks] + [(len(lines), "")]
    names = [""] + anchors_of([text for _, _, text in marks])
    sections: List[Section] = []
    anchors: List[str] = []
    holding: Dict[str, int] = {}
    for (start, heading), (end, _), anchor in zip(bounds, bounds[1:], names):
        heading_words, text_words = word_counts(heading), word_counts("\n".join(lines[start + 1:end]))
        if heading_words or text_words:
            bit = 1 << len(sections)
            for word in itertools.chain(heading_words, text_words):
                holding[word] = holding.get(word, 0) | bit
            sections.append(Section(heading_words, text_words, sum(heading_words.values()) + sum(text_words.values())))
            anchors.append(anchor)
    places = word_places("\n".join(lines))  # its headings' words among them
    whole = {word: len(at) for word, at in places.items()}
    return ArticleText(tuple(sections), Section({}, whole, sum(whole.values())), tuple(sorted(whole)), places,
                       "\n".join(lines), tuple(anchors), answering_spans(line_starts(opening), found, names[1:]),
                       holding)


def answering_spans(starts: Sequence[int], headings: Sequence[Tuple[int, int, str]], names: Sequence[str]
                    ) -> Dict[str, Tuple[int, int]]:
    """Where answering_part's text of each of the first SECTIONS_KEPT `headings` (opening_headings of an opening's
    lines as read, up to one more) starts and ends in the opening, by its anchor in `names` (anchors_of), found
    once per content so that a search's results need not walk their pages' headings again. `starts`: line_starts
    of the opening.

    >>> opening = "# A\\na\\n## B\\nb"
    >>> spans = answering_spans(line_starts(opening), [(0, 1, "A"), (2, 2, "B")], ["a", "b"])
    >>> spans, opening[slice(*spans["a"])] == answering_part(opening, "a")
    ({'a': (0, 6), 'b': (6, 12)}, True)
    """
    length = starts[-1] - 1
    ends = [line for line, _, _ in headings[1:]] + [len(starts) - 1]
    spans: Dict[str, Tuple[int, int]] = {}
    for (line, _, _), end, name in zip(headings, ends, names):
        spans.setdefault(name, (starts[line], min(starts[end], length)))  # the first of an anchor, as read
    return spans


def line_starts(text: str) -> List[int]:
    """Where each line of indexed_text(text) starts in `text`, then len(text) + 1: a line break inside a link
    target that indexed_text leaves out (a link's title over two lines) starts no line of the text as read, so its
    lines and the lines written differ there, and a heading is placed by the lines read.

    >>> line_starts("a\\nb"), line_starts('See [x](y "a title\\nover two").\\n# B')
    ([0, 2, 4], [0, 31, 35])
    """
    starts = list(itertools.accumulate([len(line) + 1 for line in text.split("\n")], initial=0))
    if "](" not in text:
        return starts
    dropped = [match.span() for match in _LINK_TARGET.finditer(text) if "\n" in match.group()]  # seldom any
    if not dropped:
        return starts
    kept, spans = [], iter(dropped)  # both in order: one pass over each, however many links a page holds
    begin, end = next(spans)
    for start in starts:
        while end < start:
            begin, end = next(spans, (len(text) + 1, len(text) + 1))
        if not begin < start <= end:
            kept.append(start)
    return kept


def anchor(heading: str) -> str:
    """A heading's anchor as documentation sites make it: lower case, every character but letters, digits, '_',
    '-' and spaces left out, each space a '-'; cut at ANCHOR_CHARACTERS, so that an agent can pass back every
    anchor a search names.

    >>> anchor("Using `uv` with Docker: a guide"), len(anchor("Very " * 100))
    ('using-uv-with-docker-a-guide', 200)
    """
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")[:ANCHOR_CHARACTERS]


def anchors_of(headings: Sequence[str]) -> List[str]:
    """The anchors of a page's headings in order, each one different: a repeated one numbered from its second
    (install, install-1), past any number an earlier heading's own anchor already holds, as GitHub numbers them.

    >>> anchors_of(["Install", "Usage", "Install"]), anchors_of(["Install", "Install 1", "Install"])
    (['install', 'usage', 'install-1'], ['install', 'install-1', 'install-2'])
    """
    seen: Dict[str, int] = {}
    return [numbered_anchor(heading, seen) for heading in headings]


def numbered_anchor(heading: str, seen: Dict[str, int]) -> str:
    """The anchor of the next heading of a page, `seen` holding the anchors of those before it, each with the last
    number given to a repeat of it (anchors_of)."""
    base = anchor(heading) or "section"
    name = base
    while name in seen:  # taken, by a heading like this one or by one whose own anchor ends so ("Install 1")
        seen[base] += 1
        number = f"-{seen[base]}"
        name = base[:ANCHOR_CHARACTERS - len(number)] + number  # a long one cut to make room for its number
    seen[name] = 0
    return name


class Part(NamedTuple):
    """One section of a content as a reader gets it: its anchor, and where it starts and ends (in characters)."""

    anchor: str
    start: int
    end: int


def content_parts(content: str) -> List[Part]:
    """Each headed section of `content` (its anchor as a search names it, anchors_of), from its heading
    line to the next heading of the same or a higher level: the part a reader asks for by anchor.

    >>> text = "Intro\\n# A\\na\\n## B\\nb\\n# C\\nc"
    >>> [(part.anchor, text[part.start:part.end]) for part in content_parts(text)]
    [('a', '# A\\na\\n## B\\nb\\n'), ('b', '## B\\nb\\n'), ('c', '# C\\nc')]
    """
    starts = line_starts(content)  # the lines as a search reads them, so headings are named alike in both
    marks = list(markdown_headings(indexed_text(content).split("\n")))
    names = anchors_of([text for _, _, text in marks])
    ends = [len(starts) - 1] * len(marks)
    unended: List[int] = []  # the headings whose part goes on, their levels rising: one pass, however many
    for index, (line, level, _) in enumerate(marks):
        while unended and marks[unended[-1]][1] >= level:
            ends[unended.pop()] = line
        unended.append(index)
    return [Part(name, starts[line], min(starts[end], len(content)))
            for (line, _, _), end, name in zip(marks, ends, names)]


class Answering(NamedTuple):
    """A search result's answering section: its anchor, and where answering_part's text of it starts and ends in
    its article's opening (ArticleText.parts), or None for an anchor the opening does not hold."""

    anchor: str
    span: Optional[Tuple[int, int]]

    @classmethod
    def of(cls, text: "ArticleText", name: str) -> "Answering":
        """The section of `text` that a search named `name`."""
        return cls(name, text.parts.get(name))

    def text(self, read: str) -> str:
        """The section's text in the article's first SECTION_READ characters, from its first OPENING_READ (`read`):
        sliced where its place is known, else found by answering_part."""
        return read[self.span[0]:self.span[1]] if self.span else answering_part(read, self.anchor)


def answering_part(content: str, name: str) -> str:
    """The text of the section a search named `name`, from its heading to the next heading of any level, within the
    opening (opening_of: `content` is the content, or its first OPENING_READ characters): what a result's snippet
    quotes, where ArticleText.parts does not place it. Empty where the opening has no such section among its first
    SECTIONS_KEPT headings, the only ones a search names: the headings are walked up to the one after the one
    named, not through a page's thousands.

    >>> answering_part("# A\\na\\n## B\\nb\\n# C", "a")
    '# A\\na\\n'
    """
    opened = opening_of(content)
    opening, starts = opened.text, line_starts(opened.text)
    seen: Dict[str, int] = {}
    start = None
    headings = itertools.islice(opening_headings(opened), SECTIONS_KEPT + 1)
    for index, (line, _, heading) in enumerate(headings):
        if start is not None:
            return opening[starts[start]:starts[line]]
        if index < SECTIONS_KEPT and numbered_anchor(heading, seen) == name:
            start = line
    return "" if start is None else opening[starts[start]:]


def word_places(text: str) -> Dict[str, "array.array[int]"]:
    """Where each lower-case word of `text` stands, in words from 0.

    >>> {word: list(at) for word, at in word_places("Set a proxy, a timeout").items()}
    {'set': [0], 'a': [1, 3], 'proxy': [2], 'timeout': [4]}
    """
    places: Dict[str, "array.array[int]"] = {}
    for place, word in enumerate(_WORD.findall(text.lower())):
        at = places.get(word)
        if at is None:
            places[word] = at = array.array("i")
        at.append(place)
    return places


def word_counts(text: str) -> Dict[str, int]:
    """How many times each lower-case word occurs in `text`."""
    return dict(collections.Counter(_WORD.findall(text.lower())))


def forms(vocabulary: Sequence[str], word_stem: str) -> List[str]:
    """The words of a sorted vocabulary whose stem is `word_stem`. A stem begins its word, but where its last
    letter was changed (y to i: daily, daili), added (e: cloning, clone) or left by a replaced ending (l:
    possibility, possibl); so only the words that begin as the stem does (less that letter, for a stem ending
    in i, e or l) are stemmed: the work is theirs, not the vocabulary's.

    >>> forms(("proxied", "proxies", "proxy", "prune", "pry"), "proxi")
    ['proxied', 'proxies', 'proxy']
    """
    start = word_stem[:-1] if len(word_stem) > 1 and word_stem[-1] in "iel" else word_stem
    found = []
    for index in range(bisect.bisect_left(vocabulary, start), len(vocabulary)):
        if not vocabulary[index].startswith(start):
            break
        if stem(vocabulary[index]) == word_stem:
            found.append(vocabulary[index])
    return found


class TextScore(NamedTuple):
    """How well one article's text answers a query: bm25 over its whole text and over its best section, and the
    nearness of the query words in it (see the glossary)."""

    whole: float
    section: float
    nearness: float
    anchor: str = ""  # the best section's anchor ("" where it has no heading)


def held_forms(read: Dict[int, ArticleText], words: Iterable[str]) -> Dict[int, Dict[str, List[str]]]:
    """Each text's forms of each word's stem (article number -> stem -> the text's words of that stem: forms).

    >>> held_forms({1: article_text("Set a proxy; proxies")}, ["proxy", "cats"])
    {1: {'proxi': ['proxies', 'proxy'], 'cat': []}}
    """
    stems = list(dict.fromkeys(stem(word) for word in words))
    return {number: {word_stem: forms(text.vocabulary, word_stem) for word_stem in stems}
            for number, text in read.items()}


def section_weights(read: Dict[int, ArticleText], weights: Dict[str, float], found: Dict[int, Dict[str, List[str]]],
                    rarity: float) -> Dict[str, float]:
    """Each query word's weight taken `rarity` parts from how rare its stem is among the sections of these texts
    (bm25's inverse document frequency over sections, in the form that stays above 0) and the rest from its weight
    among the articles (`weights`). `found`: held_forms of these texts. A word held by few sections says which
    section answers; a word every section of the matches holds ("settings" in a settings reference) says little,
    however rare it is among all the articles.

    >>> texts = {1: article_text("# A\\nproxy here\\n# B\\ncats"), 2: article_text("# C\\ncats\\n# D\\ncats")}
    >>> weighed = section_weights(texts, {"proxy": 1.0, "cats": 1.0}, held_forms(texts, ["proxy", "cats"]), 1.0)
    >>> {word: round(weight, 2) for word, weight in weighed.items()}
    {'proxy': 1.2, 'cats': 0.36}
    """
    sections = sum(len(text.sections) for text in read.values())
    holding: Dict[str, int] = collections.Counter()
    for number, text in read.items():
        for word_stem, words in found[number].items():
            mask = sections_holding(text, words)
            if mask:
                holding[word_stem] += bin(mask).count("1")
    return {word: rarity * bm25_idf(sections, holding[stem(word)]) + (1 - rarity) * weight
            for word, weight in weights.items()}


def sections_holding(text: ArticleText, words: Iterable[str]) -> int:
    """Which sections of `text` hold any of `words` (in a heading or a text): bit i for text.sections[i].

    >>> bin(sections_holding(article_text("# A\\nproxy\\n# B\\ncats\\n# C\\nproxies"), ["proxy", "proxies"]))
    '0b101'
    """
    mask = 0
    for word in words:
        mask |= text.holding.get(word, 0)
    return mask


def bm25_idf(total: int, holding: int) -> float:
    """How rare a word is among `total` texts of which `holding` hold it: bm25's inverse document frequency, in
    the form that stays above 0 however many hold it."""
    return math.log(1 + (total - holding + 0.5) / (holding + 0.5))


def text_scores(read: Dict[int, ArticleText], weights: Dict[str, float],
                found: Optional[Dict[int, Dict[str, List[str]]]] = None) -> Dict[int, TextScore]:
    """Each article's scores (article number -> its text; query word -> its weight), among these articles.
    `found`: held_forms of these texts and words, where already looked up.

    >>> texts = {1: "# A\\nabout cats\\n# Proxies\\nset a proxy", 2: "# B\\nproxy\\n# C\\ncats"}
    >>> scores = text_scores({n: article_text(text) for n, text in texts.items()}, {"proxy": 2.0, "cats": 1.0})
    >>> scores[1].section > scores[2].section > 0, scores[1].nearness, scores[2].nearness
    (True, 1.0625, 0.25)
    """
    sections = [section for text in read.values() for section in text.sections]
    mean_section = sum(section.words for section in sections) / len(sections) if sections else 1.0
    mean_text = sum(text.whole.words for text in read.values()) / len(read) if read else 1.0
    stemmed = {stem(word): weight for word, weight in weights.items()}
    held = found if found is not None else held_forms(read, weights)
    scores = {}
    for number, text in read.items():
        found_here = held[number]
        section, at = max(((section_score(section, stemmed, found_here, mean_section), -index)
                           for index, section in enumerate(text.sections)), default=(0.0, 0))
        scores[number] = TextScore(section_score(text.whole, stemmed, found_here, mean_text, WHOLE_B), section,
                                   nearness(text.places, stemmed, found_here), text.anchors[-at] if section else "")
    return scores


def best_scores(scores: Iterable[TextScore]) -> TextScore:
    """Each score's best among `scores`, or 1.0 where none is above 0 (so a share of it is 0, never a division by
    0).

    >>> best_scores([TextScore(2.0, 0.0, 1.0), TextScore(1.0, 0.0, 3.0)])[:3], best_scores([])[:3]
    ((2.0, 1.0, 3.0), (1.0, 1.0, 1.0))
    """
    listed = list(scores)
    whole, section, near = (max((float(score[index]) for score in listed), default=0.0) or 1.0 for index in range(3))
    return TextScore(whole, section, near)


def nearness(places: Dict[str, "array.array[int]"], weights: Dict[str, float], found: Dict[str, List[str]]) -> float:
    """The nearness of the weighted query stems in a text whose words stand at `places`, each stem standing where
    the forms `found` of it stand (see the glossary), read over the first places of the NEAR_WORDS weightiest
    stems the text holds, NEAR_READ places shared evenly among them. Taken from the weightiest stem down, each
    stem's places near those of the stems before it count its weight: the lesser of each two.

    >>> places = word_places("frozen fields are set once; a field")
    >>> nearness(places, {"frozen": 2.0, "field": 1.0}, {"frozen": ["frozen"], "field": ["fields", "field"]})
    1.0
    """
    held = sorted((word_stem for word_stem, words in found.items() if words), key=lambda word_stem: -weights[word_stem])
    if len(held) < 2:
        return 0.0
    held = held[:NEAR_WORDS]
    read = NEAR_READ // len(held)
    weightier: Set[int] = set()  # the places of the stems taken so far (a place holds one word)
    total = 0.0
    for word_stem in held:
        own = first_places([places[word] for word in found[word_stem]], read)
        if weightier:
            total += weights[word_stem] * sum(apart(own, weightier, distance) / distance ** 2
                                              for distance in range(1, NEAR + 1))
        weightier.update(own)
    return total


def first_places(places: Sequence["array.array[int]"], count: int) -> List[int]:
    """The first `count` places of all of `places` (each in order).

    >>> first_places([array.array("i", [1, 5, 9]), array.array("i", [2, 3])], 3)
    [1, 2, 3]
    """
    if len(places) == 1:
        return list(places[0][:count])
    return sorted(itertools.chain.from_iterable(at[:count] for at in places))[:count]


def apart(own: List[int], others: Set[int], distance: int) -> int:
    """How many places of `own` stand `distance` before or after one of `others` (the loops run in C).

    >>> apart([1, 10], {3, 8}, 2)
    2
    """
    return (len(others.intersection(map(operator.add, own, itertools.repeat(distance))))
            + len(others.intersection(map(operator.sub, own, itertools.repeat(distance)))))


def section_score(section: Section, weights: Dict[str, float], found: Dict[str, List[str]], mean: float,
                  b: float = B) -> float:
    """bm25 of one section for the weighted query stems, each counted by the forms `found` of it (see the
    glossary), its length normalised by `b`."""
    norm = K1 * (1 - b + b * section.words / (mean or 1.0))
    total = 0.0
    for word_stem, weight in weights.items():
        count = sum(HEADING_COUNT * section.heading.get(form, 0) + section.text.get(form, 0)
                    for form in found[word_stem])
        if count:
            total += weight * count * (K1 + 1) / (count + norm)
    return total


def indexed_text(content: str) -> str:
    """The content as sqlite's search index holds it: web addresses (scheme://...) and the targets of Markdown
    links ([text](other-page.md)) left out, the links' text kept. Their pieces (https, com, github, the product's
    name, the words of another page's file name) are no subject of this page, yet documentation links from every
    page; PostgreSQL's parser keeps an address or a file name as one token of its own, which no query word
    matches, so both engines skip them.

    >>> indexed_text("See [the guide](setting-up.md) or https://example.com/x.")
    'See [the guide] or  '
    """
    return without_addresses(without_link_targets(content))


def without_link_targets(content: str) -> str:
    """The content, the targets of its Markdown links left out (the first step of indexed_text)."""
    return _LINK_TARGET.sub("]", content) if "]" in content and "](" in content else content  # "]": one memchr


def without_addresses(content: str) -> str:
    """The content, its web addresses left out (the second step of indexed_text): none spans a line."""
    return _ADDRESS.sub(r"\1 ", content) if ":" in content and "://" in content else content  # ":": one memchr


_CODE_CANDIDATE = re.compile(r"(?<![\w.-])[-\w.]*\w")  # a run of letters, digits, '_', '.' and '-'
_CAMEL = re.compile(r"[a-z0-9][A-Z]")  # a lower-case letter or digit, then a capital: BaseModel, macOS, PyPI
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def is_code_like(token: str) -> bool:
    """Whether a token as typed names something in code: an option (--fix, -k), a dotted name (model.dump,
    pyproject.toml: two parts at least, one longer than a letter), a name with '_' (HATCH_ENV_DIR, model_dump)
    or in CamelCase (BaseModel).

    >>> [is_code_like(token) for token in ("--fix", "e.g", "Blog.objects", "HATCH_ENV", "TypeAdapter", "many-to")]
    [True, False, True, True, True, False]
    """
    if token.startswith("-"):
        return token.lstrip("-")[:1].isalpha()
    if "." in token:
        return any(len(part) > 1 for part in token.split("."))
    return "_" in token.strip("_") or bool(_CAMEL.search(token))


def code_tokens(query: str) -> List[str]:
    """The code-like tokens of a query as typed (is_code_like), each once, in order.

    >>> code_tokens("Why does --fix skip model.model_dump() and HATCH_ENV_DIR, e.g. in BaseModel?")
    ['--fix', 'model.model_dump', 'HATCH_ENV_DIR', 'BaseModel']
    """
    return list(dict.fromkeys(token for token in _CODE_CANDIDATE.findall(query) if is_code_like(token)))


def code_parts(token: str) -> List[str]:
    """The lower-case words a code-like token is made of, beyond the words a search reads it as (letters, digits
    and '_' runs): the parts of a CamelCase name, and of a name joined by '_'.

    >>> code_parts("BaseModel"), code_parts("HATCH_ENV_DIR"), code_parts("--no-deps")
    (['base', 'model'], ['hatch', 'env', 'dir'], [])
    """
    parts: List[str] = []
    for word in _WORD.findall(token):
        pieces = [piece for chunk in word.split("_") for piece in
                  (_CAMEL_PART.findall(chunk) if _CAMEL.search(chunk) else [chunk])]
        if len(pieces) > 1:
            parts += [piece.lower() for piece in pieces if piece]
    return list(dict.fromkeys(parts))


def holds_exactly(text: str, token: str) -> bool:
    """Whether `text` holds the code-like token as typed, whole (no letter, digit, '_' or '-' around it).

    >>> holds_exactly("Run `ruff check --fix`.", "--fix"), holds_exactly("--fixable", "--fix")
    (True, False)
    """
    if token not in text:
        return False
    return re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", text) is not None


def exact_scores(texts: Dict[int, str], tokens: Sequence[str]) -> Dict[int, float]:
    """Each text's exact matches (article number -> its title and text): the summed weights of the code-like
    tokens it holds as typed, a token's weight how rare it is among these texts (bm25's inverse document
    frequency in the form that stays above 0).

    >>> scores = exact_scores({1: "use --fix", 2: "a fix", 3: "--fix or FOO_BAR"}, ["--fix", "FOO_BAR"])
    >>> {number: round(score, 2) for number, score in scores.items()}
    {1: 0.47, 2: 0, 3: 1.45}
    """
    held = {number: [token for token in tokens if holds_exactly(text, token)] for number, text in texts.items()}
    counts = collections.Counter(token for found in held.values() for token in found)
    weight = {token: bm25_idf(len(texts), count) for token, count in counts.items()}
    return {number: sum(weight[token] for token in found) for number, found in held.items()}


def held_weight(text: str, weights: Dict[str, float]) -> float:
    """The summed weights of the query words whose stems `text` holds.

    >>> held_weight("Using proxies", {"proxy": 2.0, "timeout": 1.5})
    2.0
    """
    found = {stem(word) for word in _WORD.findall(text.lower())}
    return sum(weight for word, weight in weights.items() if stem(word) in found)
