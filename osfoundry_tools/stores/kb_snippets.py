"""What a search quotes of each result: a snippet of words from just before the first query word its content
holds, read from the content's opening, kept apart for long contents.

Layer: stores, beside kb_search.py (whose query words it looks for), below the knowledge-base store, which keeps
each article's opening (opening_of) and quotes it (snippet_of).
"""

import functools
import re
from typing import Optional, Tuple

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
    text = opening[:SNIPPET_SCAN].lower()
    starts = [_word_start(text, stem) for stem in _snippet_stems(query)]
    hit = min((start for start in starts if start >= 0), default=0)
    return _quote_around(opening, length, hit)


@functools.lru_cache(maxsize=256)
def _snippet_stems(query: str) -> Tuple[str, ...]:
    """The first SNIPPET_STEMS distinct stems a snippet looks for, worked out once per query, not per result."""
    stems = dict.fromkeys(word[:max(STEM_KEEP, len(word) - 4)] for word in query_words(query))
    return tuple(stems)[:SNIPPET_STEMS]


def _quote_around(content: str, length: int, hit: int) -> str:
    """The words of the snippet: SNIPPET_LEAD before `hit`, the rest from it, cut from a bounded stretch of
    `content`, the opening of a content of `length` characters."""
    reach_before, reach_after = SNIPPET_REACH
    start = max(0, hit - reach_before)
    before = content[start:hit].rsplit(None, SNIPPET_LEAD)
    lead = before[1:] if len(before) > SNIPPET_LEAD else [w for w in before if w]
    after = content[hit:hit + reach_after].split(None, SNIPPET_WORDS - len(lead))
    tail = after[:SNIPPET_WORDS - len(lead)]
    opening = "…" if len(before) > SNIPPET_LEAD or start > 0 else ""
    closing = "…" if len(after) > len(tail) or hit + reach_after < length else ""
    quoted = opening + " ".join(lead + tail) + closing
    return quoted if len(quoted) <= SNIPPET_CHARACTERS else quoted[:SNIPPET_CHARACTERS - 1] + "…"


def opening_of(content: str) -> Optional[str]:
    """What a long content keeps apart for searches: its first OPENING characters; None for one no longer."""
    return content[:OPENING] if len(content) > OPENING else None


def _word_start(text: str, word: str) -> int:
    """Where `word` first begins a word of `text`, or -1; one pass in C whatever the text repeats."""
    start = text.find(word)
    if start <= 0 or not text[start - 1].isalnum():
        return start
    found = _word_pattern(word).search(text, start + 1)
    return found.start() if found else -1


@functools.lru_cache(maxsize=256)
def _word_pattern(word: str) -> "re.Pattern[str]":
    """`word` where no letter or digit comes just before it (the literal first, so the search runs in C)."""
    escaped = re.escape(word)
    return re.compile(f"{escaped}(?<![^\\W_]{escaped})")
