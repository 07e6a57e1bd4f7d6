"""What a search quotes of each result: a snippet of words from just before the first query word its content
holds, read from the content's opening, kept apart for long contents.

Layer: stores, beside kb_search.py (whose query words it looks for), below the knowledge-base store, which keeps
each article's opening (opening_of) and quotes it (snippet_of).
"""

import functools
import re
from typing import Optional, Sequence, Tuple

from osfoundry_tools.stores.kb_search import query_words

SNIPPET_WORDS = 16  # words of content a search result quotes
SNIPPET_LEAD = 3    # of which this many come before the first query word found
SNIPPET_CHARACTERS = 300  # and at most this many characters, however long the words
SNIPPET_SCAN = 4000  # characters of content searched for the first query word (else the snippet is the start)
SNIPPET_STEMS = 8  # distinct query words a snippet looks for (a question seldom holds more)
SNIPPET_REACH = (200, 800)  # characters before and after the hit where the snippet's words are cut
OPENING = SNIPPET_SCAN + SNIPPET_REACH[1]  # a content longer than this keeps its opening apart, for searches
STEM_KEEP = 4       # a query word also finds words that start with its first max(4, length - 4) letters


def snippet(content: str, query: str) -> str:
    """SNIPPET_WORDS words of `content` from just before the first query word it holds (its start if none).

    A word counts where it starts a word of the text; a word also matches words that begin like it
    (its first max(4, length - 4) letters), a rough stand-in for the index's stemming. The work is
    bounded whatever was stored: SNIPPET_STEMS words looked for in the first SNIPPET_SCAN characters,
    and a snippet of at most SNIPPET_CHARACTERS characters.

    >>> snippet("Open Settings, then Security, and choose Reset password. A link arrives by email.", "resetting")
    '…Security, and choose Reset password. A link arrives by email.'
    """
    return snippet_of(content[:OPENING], len(content), query)


def snippet_of(opening: str, length: int, query: str) -> str:
    """The snippet of a content of `length` characters whose first ones are `opening` (at least SNIPPET_SCAN
    and SNIPPET_REACH's second more, where the content has them): what a search reads of each result."""
    return _quote_around(opening, length, first_word_start(opening[:SNIPPET_SCAN].lower(), _snippet_stems(query)))


def first_word_start(text: str, stems: Sequence[str]) -> int:
    """Where the first of `stems` to begin a word of `text` begins, 0 where none does. A stem counts where no letter
    or digit comes just before it. Each is looked for only before the place found so far (a stem the text lacks
    costs a scan of that stretch alone), in C and in one pass whatever the text repeats.

    >>> first_word_start("a bank of banners", ("ban", "of")), first_word_start("a bank", ("ank", "x"))
    (2, 0)
    """
    first = len(text)
    for stem in stems:
        end = first + len(stem) - 1  # a stem found before `first` ends by here
        start = text.find(stem, 0, end)
        if start > 0 and text[start - 1].isalnum():  # inside a word: the next place it begins one
            found = _word_pattern(stem).search(text, start + 1, end)
            start = found.start() if found else -1
        if start >= 0:
            first = start
    return first if first < len(text) else 0


@functools.lru_cache(maxsize=256)
def _snippet_stems(query: str) -> Tuple[str, ...]:
    """The first SNIPPET_STEMS distinct stems a snippet looks for, worked out once per query, not per result."""
    stems = dict.fromkeys(word[:max(STEM_KEEP, len(word) - 4)] for word in query_words(query))
    return tuple(stems)[:SNIPPET_STEMS]


def _quote_around(content: str, length: int, hit: int) -> str:
    """The words of the snippet: SNIPPET_LEAD before `hit`, the rest from it, cut from a bounded stretch of
    `content`, the opening of a content of `length` characters."""
    reach_before, reach_after = SNIPPET_REACH
    start = hit - reach_before if hit > reach_before else 0
    lead = content[start:hit].rsplit(None, SNIPPET_LEAD)  # words only: no empty string, whatever the spaces
    cut_before = len(lead) > SNIPPET_LEAD
    if cut_before:
        del lead[0]  # the rest of the stretch, not a word of the lead
    room = SNIPPET_WORDS - len(lead)
    tail = content[hit:hit + reach_after].split(None, room)
    cut_after = len(tail) > room
    if cut_after:
        del tail[room]
    quoted = (("…" if cut_before or start else "") + " ".join(lead + tail)
              + ("…" if cut_after or hit + reach_after < length else ""))
    return quoted if len(quoted) <= SNIPPET_CHARACTERS else quoted[:SNIPPET_CHARACTERS - 1] + "…"


def opening_of(content: str) -> Optional[str]:
    """What a long content keeps apart for searches: its first OPENING characters; None for one no longer."""
    return content[:OPENING] if len(content) > OPENING else None


@functools.lru_cache(maxsize=256)
def _word_pattern(word: str) -> "re.Pattern[str]":
    """`word` where no letter or digit comes just before it (the literal first, so the search runs in C)."""
    escaped = re.escape(word)
    return re.compile(f"{escaped}(?<![^\\W_]{escaped})")
