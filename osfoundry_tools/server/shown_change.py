"""What a person is shown of a change they are asked to approve: every character that changes, in its context,
within a bound. A change that cannot be shown whole within the bound is refused, never approved unseen.

Layer: server, below approval.py, which puts the lines made here between its opening and closing sentences. It
knows the stores' subjects (agent_tools.Preview: an article's title and content, an item's fields by label, each
value as a person reads it, None for nothing) and nothing of the protocol.

How a change reads:
  line        an article's content is split after each "\\n", the line's end kept: a CRLF turned LF, or a final
              newline added or dropped, is a change like any other and is shown
  pair        a changed line, title or field value is shown as two lines, "- " the old and "+ " the new; a line
              only added or only removed as its "+ " or "- " line alone; a short value as one line, old -> new,
              unless the line holds right-to-left text (a client could draw the new side where the old reads)
  span        what differs within a pair, between « and »; «» where nothing was or is. Spans come from a diff of
              words, runs of whitespace and single other characters
  context     up to CONTEXT_CHARACTERS of unchanged text each side of a span; the rest is counted, as in
              "…(9,812 unchanged characters)…", and so are the unchanged lines between changes: "(12 unchanged
              lines)". Only unchanged text is ever left out
  visible     inside a span, whitespace other than one space between two other characters is marked: ␣ a space,
              ⇥ a tab, ␍ a carriage return, ↵ a line feed. Everywhere, a character that prints nothing or could
              reorder or hide text (controls, format characters such as U+202E, spaces other than U+0020, and
              the blanks str.isprintable() passes: Hangul fillers, U+2800, variation selectors...) is shown as
              its code, ⟨U+202E⟩, and so are these marks themselves and "…" where the text holds them, combining
              marks stacked past STACKED_MARKS, and the first character of what a client rendering Markdown or
              HTML would not show as written (MARKUP: &#8238;, <!--, [text](target), \\*; in a span, DELIMITERS:
              * ` ~ and a _ outside a word), so that no text passes for the question's own words or hides in a
              style
  non-ASCII   under a pair, each distinct non-ASCII character of its spans, once. Every one that could pass for
              another (in a word that mixes scripts, or readable as ASCII: could_pass_for_ascii) is named with
              its Unicode name, however many there are; the others (é, 中, б, —) fill the room left up to
              NAMED_CHARACTERS and are counted past it. So a Cyrillic а put for a Latin a is seen, whatever
              else changes on the line, and a long edit in another script is not refused for its notes
  alike       a pair whose span reads alike on both sides (lookalikes.as_read: "café" in NFC and in NFD, "Pay" and
              "Pаy") says so under its notes (READ_ALIKE); a field whose two values read alike is followed on each
              side by its stored JSON, in ASCII where that reads alike too
  names       under the opening sentence, the characters of its names (the agent's, the subject's title and IDs)
              that a reader could take for others where they stand (names_note); a name in Russian, Japanese or
              with accents has none. A label that reads like another of its channel is followed by its key, and
              an option's by its value, by the store (lookalikes.told_apart)
  bound       a span longer than SPAN_CHARACTERS, or a question longer than QUESTION_CHARACTERS, cannot be
              shown: the write is refused with change_too_large_to_approve, nothing is saved and its
              idempotency key stays free

>>> side_by_side("expires after 60 minutes.", "expires after 6 days.")
('- expires after «60 minutes».', '+ expires after «6 days».', [])
"""

import bisect
import difflib
import json
import re
import unicodedata
from typing import Any, Dict, FrozenSet, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from osfoundry_tools.core.agent_tools import EMPTY_VALUE
from osfoundry_tools.core.lookalikes import (
    UNREADABLE, as_read, could_pass_for_ascii, is_mark, prints_nothing, read_as, script_of,
)
from osfoundry_tools.core.rejections import Rejection

CONTEXT_CHARACTERS = 40  # of unchanged text shown each side of a span: enough to read the words around a change
SPAN_CHARACTERS = 2000  # of one span, at most: a paragraph rewritten, not a page
QUESTION_CHARACTERS = 6000  # of the whole question: what an elicitation dialog shows without tiring its reader
NAMED_CHARACTERS = 4  # non-ASCII characters named under a pair at least; past it, accented letters are listed
#                        unnamed, and every other character is named all the same
INLINE_CHARACTERS = 60  # a value whose two sides are each this short is shown on one line, old -> new
JOINED_SAME = 3  # unchanged characters between two spans at most, for the two to be shown as one
ELIDED_AT_LEAST = 24  # unchanged text is cut only where this many characters or more would be left out: fewer
#                       take less room shown than counted

TOKEN = re.compile(r"\w+|[^\S\n]+|\n|.", re.DOTALL)  # a word, a run of whitespace within a line, a line feed, other
WHITESPACE_MARKS = {" ": "␣", "\t": "⇥", "\r": "␍", "\n": "↵"}
OWN_MARKS = frozenset("«»␣⇥␍↵⟨⟩…")  # shown by their codes where a text holds them, so that no text fakes a
#                                      mark, nor text left out (…)


class ChangeTooLarge(Rejection):
    """A change that cannot be shown whole to the person asked to approve it."""

    code = "change_too_large_to_approve"


def too_large(why: str) -> ChangeTooLarge:
    """The rejection of a change beyond the bounds, saying what to do instead."""
    return ChangeTooLarge(
        f"this change cannot be shown whole to the person who must approve it ({why}); nothing was saved and "
        "nobody was asked. Split it into smaller edits that each change a few paragraphs or fields, and send "
        "them one at a time (each with an idempotency_key of its own): each is then shown whole and approved "
        "on its own.", span_characters=SPAN_CHARACTERS, question_characters=QUESTION_CHARACTERS)


# ---------------------------------------------------------------------------
# Characters as a person can tell them apart.


def code_of(character: str) -> str:
    return f"⟨U+{ord(character):04X}⟩"


def visible(text: str, span: bool = False) -> str:
    """`text` with every character that prints nothing, could pass for another or would not be shown as written
    by a client that renders Markdown or HTML (MARKUP; in a `span`, DELIMITERS too) shown as a mark or its code,
    and so is a combining mark past STACKED_MARKS on one character, or with none of the text's to sit on (it would
    sit on the question's « or »); in a `span`, spaces too, but one between two other characters.

    >>> visible("a\\tb\\u202ec«d»"), visible(" a b  c\\r\\n", span=True), visible("&#8238; [x](y) **z**", span=True)
    ('a⇥b⟨U+202E⟩c⟨U+00AB⟩d⟨U+00BB⟩', '␣a b␣␣c␍↵', '⟨U+0026⟩#8238; [x⟨U+005D⟩(y) ⟨U+002A⟩⟨U+002A⟩z⟨U+002A⟩⟨U+002A⟩')
    """
    coded = {found.start() for found in MARKUP.finditer(text)}
    if span:
        coded.update(found.start() for found in DELIMITERS.finditer(text))
    shown = []
    last = len(text) - 1
    stacked = 0
    for at, character in enumerate(text):
        stacked = stacked + 1 if is_mark(character) else 0
        if character in OWN_MARKS or at in coded or stacked > STACKED_MARKS or stacked > at:
            shown.append(code_of(character))
        elif character == " ":
            alone = 0 < at < last and not text[at - 1].isspace() and not text[at + 1].isspace()
            shown.append(" " if alone or not span else "␣")
        elif character in WHITESPACE_MARKS:
            shown.append(WHITESPACE_MARKS[character])
        elif prints_nothing(character):
            shown.append(code_of(character))
        else:
            shown.append(character)
    return "".join(shown)


MARKUP = re.compile(  # the first character of what a client rendering Markdown or HTML would not show as written
    r"&(?=#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)"  # a character reference (&#8238; is U+202E)
    r"|<(?=[A-Za-z/!?])"  # a tag, a comment (<!-- hides what follows), an autolink
    r"|\](?=[(\[:])"  # a link or an image, whose target is not shown, a reference or its definition
    r"|\\(?=[!-/:-@\[-`{-~])")  # a backslash escape, which hides the backslash
DELIMITERS = re.compile(r"[*~`]|_(?![^\W_])|(?<![^\W_])_")  # emphasis, strikethrough and code, which vanish into
#                                                         the style they make; a "_" within a word makes none
STACKED_MARKS = 3  # combining marks on one character shown as themselves, at most: Vietnamese takes two, and a
#                    stack of forty would spill over the lines around it


def as_name(text: str) -> str:
    """A name people chose (a label, a title, an ID), as the question shows it right before its own punctuation
    (": ", "/", ")", a quote): visible, and a last character that would make markup with that punctuation ("]"
    and ":" a link's definition, "<" and "/" a tag, "\\" and a quote an escape) shown by its code.

    >>> as_name("[x]"), as_name("kb<"), as_name("a[b]c")
    ('[x⟨U+005D⟩', 'kb⟨U+003C⟩', 'a[b]c')
    """
    shown = visible(text)
    if text[-1:] in ("]", "<", "\\") and shown.endswith(text[-1]):
        shown = shown[:-1] + code_of(text[-1])
    return shown


WRITTEN_TOGETHER = {script: "CJK" for script in ("HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HALFWIDTH", "HANGUL",
                                                 "BOPOMOFO", "IDEOGRAPHIC")}  # what one Japanese, Korean or Chinese
#                                                                                word mixes: its ー is KATAKANA-HIRAGANA


def mixed_words(spans: Sequence[str]) -> List[Tuple[str, str]]:
    """(word, its scripts) of each word of the spans whose letters mix scripts, each word once; the scripts a
    Japanese, Korean or Chinese word is written in together count as one (WRITTEN_TOGETHER)."""
    mixed: Dict[str, str] = {}
    for span in spans:
        for word in re.findall(r"\w+", span):
            scripts = sorted(scripts_of(word))
            if len(scripts) > 1:
                mixed[word] = " and ".join(scripts)
    return list(mixed.items())


def lookalikes_first(found: Sequence[str], mixed: Sequence[Tuple[str, str]]) -> List[str]:
    """The characters of `found` that could pass for others: those in a word that mixes scripts, then those that
    could be read as ASCII (could_pass_for_ascii), each group in the order found."""
    in_mixed = [c for c in found if any(c in word for word, _ in mixed)]
    return in_mixed + [c for c in found if c not in in_mixed and could_pass_for_ascii(c)]


def character_name(character: str) -> str:
    """A character as a note names it: itself (by its code where it prints nothing, is one of the question's marks,
    or is a combining mark, which would sit on the note's own comma), its code point and its Unicode name."""
    by_code = character in OWN_MARKS or prints_nothing(character) or is_mark(character)
    shown = code_of(character) if by_code else character
    return f"{shown} U+{ord(character):04X} {unicodedata.name(character, '(no name)')}"


def named_characters(spans: Sequence[str]) -> Optional[str]:
    """The note under a side of a pair: each distinct non-ASCII character of its spans, once; None if there are
    none. Every one that could pass for another (lookalikes_first: in a word that mixes scripts, or readable as
    ASCII) is named with its Unicode name, however many there are (saying so past NAMED_CHARACTERS); the others,
    which read as what they are (é, 中, —), fill the room left up to NAMED_CHARACTERS and are counted past it.

    >>> named_characters(["pаss"])
    'non-ASCII: а U+0430 CYRILLIC SMALL LETTER A (in «pаss», which mixes CYRILLIC and LATIN letters)'
    >>> named_characters(["Müller, Øre, ааа", "café"])
    'non-ASCII: Ø U+00D8 LATIN CAPITAL LETTER O WITH STROKE, а U+0430 CYRILLIC SMALL LETTER A, ü U+00FC LATIN \
SMALL LETTER U WITH DIAERESIS, é U+00E9 LATIN SMALL LETTER E WITH ACUTE'
    """
    found = list(dict.fromkeys(c for span in spans for c in span if not c.isascii()))
    if not found:
        return None
    mixed = mixed_words(spans)
    suspects = lookalikes_first(found, mixed)
    others = [c for c in found if c not in suspects]
    room = max(NAMED_CHARACTERS - len(suspects), 0)
    names = ", ".join(character_name(c) for c in suspects + others[:room])
    lead = "non-ASCII" if len(suspects) <= NAMED_CHARACTERS else \
        f"non-ASCII ({len(suspects)} characters that could pass for others: more than usual, all named)"
    rest = others[room:]
    more = f", and {len(rest):,} more: accented letters, letters of other scripts, dashes and the like" if rest else ""
    words = "".join(f" (in «{visible(word)}», which mixes {scripts} letters)" for word, scripts in mixed[:2])
    return f"{lead}: {names}{more}{words}"


def names_note(names: Sequence[str]) -> Optional[str]:
    """The note under the question's opening sentence: each character of the names it shows (the agent's, the
    subject's title and IDs: people chose them, and so could make one pass for another) that could pass for
    another where it stands (passing_in), once; None if there is none, as for a name in Russian, Japanese or with
    accents.

    >>> names_note(["agent", "R\\u0435fund policy", "kb", "art-1"])
    'could pass for others in the names above: е U+0435 CYRILLIC SMALL LETTER IE (in «Rеfund», which mixes \
CYRILLIC and LATIN letters)'
    """
    found = list(dict.fromkeys(c for name in names for c in passing_in(name)))
    if not found:
        return None
    mixed = [(word, scripts) for word, scripts in mixed_words(names) if any(c in word for c in found)]
    words = "".join(f" (in «{visible(word)}», which mixes {scripts} letters)" for word, scripts in mixed[:2])
    return f"could pass for others in the names above: {', '.join(character_name(c) for c in found)}{words}"


def passing_in(name: str) -> List[str]:
    """The characters of a name that a reader could take for others where they stand: of those that could pass for
    ASCII (could_pass_for_ascii), every one but a letter or a mark (a digit of another script, a dot leader, what
    prints nothing); a mark drawn on a letter read as ASCII (i̇); a letter of a script not known to read as
    itself, or a Latin one read as an ASCII letter (small capitals); and a letter of a word that mixes scripts, or
    of a word that reads as ASCII (аррӏе) where no other word of the name is in its script. So a Russian title's
    "о" (about) is its own, and "аррӏе refunds" names all five letters of аррӏе."""
    found = []
    words = [(word.start(), word.end(), scripts_of(word.group())) for word in re.finditer(r"\w+", name)]
    for at, character in enumerate(name):
        if character.isascii() or not could_pass_for_ascii(character):
            continue
        if is_mark(character):
            passing = at > 0 and read_as(name[at - 1]).isascii()
        elif not character.isalpha():
            passing = True
        else:
            reading = as_read(character)
            word = next((start, end, scripts) for start, end, scripts in words if start <= at < end)
            others = {script for start, _, scripts in words if start != word[0] for script in scripts}
            passing = UNREADABLE in reading or (reading.isascii() and script_of(character) == "LATIN") \
                or len(word[2]) > 1 or (as_read(name[word[0]:word[1]]).isascii() and not word[2] & others)
        if passing:
            found.append(character)
    return found


def scripts_of(word: str) -> FrozenSet[str]:
    """The scripts of a word's letters, those a Japanese, Korean or Chinese word mixes counted as one."""
    return frozenset(WRITTEN_TOGETHER.get(script_of(c), script_of(c)) for c in word if c.isalpha())


# ---------------------------------------------------------------------------
# The diff: what two sequences (of lines, of tokens) have in common, found in time near their length.

Code = Tuple[str, int, int, int, int]  # difflib's opcode: tag, a_from, a_to, b_from, b_to


def diff_codes(a: Sequence[str], b: Sequence[str]) -> List[Code]:
    """The opcodes (as difflib's) that turn `a` into `b`, "equal" runs between the others.

    A patience diff: the common start and end set apart, then the elements found once in each side, in the
    longest chain that keeps their order on both, taken as fixed points (where there are none, runs of
    RUN_SIZES elements found once), and the same again between them; what is left is diffed by difflib when
    it is at most SMALL_GAP elements (difflib's own search takes time in the cube of a stretch of repeated
    words), else it is one change. Every "equal" run is equal,
    so whatever the diff finds, nothing that changes is shown as unchanged.

    >>> diff_codes(list("abcd"), list("axcd"))
    [('equal', 0, 1, 0, 1), ('replace', 1, 2, 1, 2), ('equal', 2, 4, 2, 4)]
    """
    blocks = sorted(matching_blocks(a, b))
    codes: List[Code] = []
    at_a = at_b = 0
    for a_from, b_from, size in blocks + [(len(a), len(b), 0)]:
        if at_a < a_from or at_b < b_from:
            tag = "replace" if at_a < a_from and at_b < b_from else "delete" if at_a < a_from else "insert"
            codes.append((tag, at_a, a_from, at_b, b_from))
        if size:
            if codes and codes[-1][0] == "equal":
                codes[-1] = ("equal", codes[-1][1], a_from + size, codes[-1][3], b_from + size)
            else:
                codes.append(("equal", a_from, a_from + size, b_from, b_from + size))
        at_a, at_b = a_from + size, b_from + size
    return codes


SMALL_GAP = 120  # elements of both sides between fixed points, at most, for difflib to diff them
RUN_SIZES = (4, 16)  # where no element is found once on each side, runs of so many elements are tried


def matching_blocks(a: Sequence[str], b: Sequence[str]) -> List[Tuple[int, int, int]]:
    """(a_from, b_from, size) of runs equal in `a` and `b`, none overlapping, in any order (see diff_codes)."""
    blocks: List[Tuple[int, int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        a_lo, a_hi, b_lo, b_hi = stack.pop()
        start = 0
        while a_lo + start < a_hi and b_lo + start < b_hi and a[a_lo + start] == b[b_lo + start]:
            start += 1
        if start:
            blocks.append((a_lo, b_lo, start))
            a_lo, b_lo = a_lo + start, b_lo + start
        end = 0
        while a_hi - end > a_lo and b_hi - end > b_lo and a[a_hi - 1 - end] == b[b_hi - 1 - end]:
            end += 1
        if end:
            blocks.append((a_hi - end, b_hi - end, end))
            a_hi, b_hi = a_hi - end, b_hi - end
        if a_lo == a_hi or b_lo == b_hi:
            continue
        size, fixed = 1, fixed_points(a, a_lo, a_hi, b, b_lo, b_hi, 1)
        for longer in RUN_SIZES:
            if fixed or a_hi - a_lo < longer or b_hi - b_lo < longer:
                break
            size, fixed = longer, fixed_points(a, a_lo, a_hi, b, b_lo, b_hi, longer)
        if fixed:
            last_a, last_b = a_lo, b_lo
            for at_a, at_b in fixed:
                stack.append((last_a, at_a, last_b, at_b))
                blocks.append((at_a, at_b, size))
                last_a, last_b = at_a + size, at_b + size
            stack.append((last_a, a_hi, last_b, b_hi))
        elif (a_hi - a_lo) + (b_hi - b_lo) <= SMALL_GAP:
            matcher = difflib.SequenceMatcher(None, a[a_lo:a_hi], b[b_lo:b_hi], autojunk=False)
            blocks += [(a_lo + i, b_lo + j, size) for i, j, size in matcher.get_matching_blocks() if size]
    return blocks


def fixed_points(a: Sequence[str], a_lo: int, a_hi: int, b: Sequence[str], b_lo: int, b_hi: int,
                 size: int) -> List[Tuple[int, int]]:
    """(at_a, at_b) of the runs of `size` elements found once in a[a_lo:a_hi] and once in b[b_lo:b_hi], the
    longest chain of them in the same order on both sides (patience sorting), none overlapping, in order."""
    seen_a: Dict[Any, int] = {}
    for at in range(a_lo, a_hi - size + 1):
        run = a[at] if size == 1 else tuple(a[at:at + size])
        seen_a[run] = -1 if run in seen_a else at
    seen_b: Dict[Any, int] = {}
    for at in range(b_lo, b_hi - size + 1):
        run = b[at] if size == 1 else tuple(b[at:at + size])
        seen_b[run] = -1 if run in seen_b else at
    pairs = sorted((at_a, seen_b[element]) for element, at_a in seen_a.items()
                   if at_a >= 0 and seen_b.get(element, -1) >= 0)
    tops: List[int] = []  # the last at_b of the best run of each length
    ends: List[int] = []  # the index in pairs where that run ends
    before: List[int] = [-1] * len(pairs)
    for index, (_, at_b) in enumerate(pairs):
        length = bisect.bisect_left(tops, at_b)
        if length == len(tops):
            tops.append(at_b)
            ends.append(index)
        else:
            tops[length], ends[length] = at_b, index
        before[index] = ends[length - 1] if length else -1
    chain: List[Tuple[int, int]] = []
    index = ends[-1] if ends else -1
    while index >= 0:
        chain.append(pairs[index])
        index = before[index]
    fixed: List[Tuple[int, int]] = []
    for at_a, at_b in reversed(chain):
        if not fixed or (at_a >= fixed[-1][0] + size and at_b >= fixed[-1][1] + size):
            fixed.append((at_a, at_b))
    return fixed


# ---------------------------------------------------------------------------
# One pair: the old and the new text, each with its spans marked and its context cut.


class Piece(NamedTuple):
    """A run of a pair: unchanged text (old == new), or a span (what the old side had there, what the new has)."""

    old: str
    new: str
    changed: bool


def pieces(old: str, new: str) -> List[Piece]:
    """The runs of a pair, unchanged and changed in turn, from a diff of their tokens; spans closer than
    JOINED_SAME characters joined into one."""
    a, b = TOKEN.findall(old), TOKEN.findall(new)
    runs = [Piece("".join(a[a_from:a_to]), "".join(b[b_from:b_to]), tag != "equal")
            for tag, a_from, a_to, b_from, b_to in diff_codes(a, b)]
    return joined(runs)


def joined(runs: List[Piece]) -> List[Piece]:
    """Spans with at most JOINED_SAME unchanged characters between them made one, as a person reads them."""
    merged: List[Piece] = []
    for run in runs:
        if run.changed and len(merged) >= 2 and merged[-2].changed and not merged[-1].changed \
                and len(merged[-1].old) <= JOINED_SAME:
            same = merged.pop()
            span = merged.pop()
            run = Piece(span.old + same.old + run.old, span.new + same.new + run.new, True)
        merged.append(run)
    return merged


def count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'s' * (number != 1)}"


def context(text: str, where: str) -> str:
    """Unchanged text as shown beside a span: whole when short, else cut to CONTEXT_CHARACTERS at the span's side
    (`where`: "before" the first span, "after" the last, "between" two), what is left out counted."""
    keep = CONTEXT_CHARACTERS * (2 if where == "between" else 1)
    if len(text) < keep + ELIDED_AT_LEAST:
        return visible(text)
    left_out = f"…({count(len(text) - keep, 'unchanged character')})…"
    if where == "before":
        return left_out + visible(text[-CONTEXT_CHARACTERS:])
    if where == "after":
        return visible(text[:CONTEXT_CHARACTERS]) + left_out
    return visible(text[:CONTEXT_CHARACTERS]) + left_out + visible(text[-CONTEXT_CHARACTERS:])


def side(runs: Sequence[Piece], new: bool) -> Tuple[str, List[str]]:
    """One side of a pair as shown, and its spans' texts; ChangeTooLarge for a span beyond SPAN_CHARACTERS."""
    shown, spans = [], []
    for at, run in enumerate(runs):
        text = run.new if new else run.old
        if run.changed:
            if len(text) > SPAN_CHARACTERS:
                raise too_large(f"one place changes {count(len(text), 'character')} at once, and a person is shown "
                                f"{SPAN_CHARACTERS:,} at most in one place")
            shown.append(f"«{visible(text, span=True)}»")
            spans.append(text)
        else:
            where = "before" if at == 0 else "after" if at == len(runs) - 1 else "between"
            shown.append(context(text, where))
    return "".join(shown), spans


def side_by_side(old: str, new: str) -> Tuple[str, str, List[str]]:
    """A changed text as its "- " and "+ " lines, and the notes that name their non-ASCII characters, and say
    that the two read alike where a span does (READ_ALIKE)."""
    runs = pieces(old, new)
    (was, old_spans), (now, new_spans) = side(runs, False), side(runs, True)
    notes = [f"  {sign} {note}" for sign, note in (("-", named_characters(old_spans)),
                                                    ("+", named_characters(new_spans))) if note]
    if any(read_alike(run.old, run.new) for run in runs if run.changed):
        notes.append(f"  {READ_ALIKE}")
    return "- " + was, "+ " + now, notes


READ_ALIKE = "- and + read alike where they change: only the characters named above tell them apart"


def read_alike(old: str, new: str) -> bool:
    """Whether a span reads on both sides as the same text (as_read: "café" and "cafe" with a combining accent,
    "Pay" and "Pаy"), and differs in more than its whitespace, which the span marks.

    >>> read_alike("Pay", "P\\u0430y"), read_alike("resume", "résumé"), read_alike(" ", "  ")
    (True, False, False)
    """
    return old.split() != new.split() and as_read(old) == as_read(new)


def right_to_left(text: str) -> bool:
    """Whether a text holds a right-to-left letter or an Arabic digit, which a client laying out bidirectional text
    would draw, with what stands between two of them, from right to left."""
    return any(unicodedata.bidirectional(c) in ("R", "AL", "AN") for c in text)


# ---------------------------------------------------------------------------
# What a subject's change reads as.


def value_change(label: str, old: Optional[str], new: Optional[str]) -> List[str]:
    """A title's or a field's change: on one line when both sides are short (`label: old -> new`) and the line
    holds no right-to-left text (which could draw the new side where the old one reads), else as a pair under the
    label; a value that holds nothing is shown as EMPTY_VALUE, outside any marks."""
    if old is None or new is None:
        was = EMPTY_VALUE if old is None else f"«{visible(old, span=True)}»"
        now = EMPTY_VALUE if new is None else f"«{visible(new, span=True)}»"
        for text in (old, new):
            if text is not None and len(text) > SPAN_CHARACTERS:
                raise too_large(f"{label} changes {count(len(text), 'character')} at once, and a person is shown "
                                f"{SPAN_CHARACTERS:,} at most in one place")
        notes = [f"  {sign} {note}" for sign, note in (("-", old and named_characters([old])),
                                                        ("+", new and named_characters([new]))) if note]
        was_line, now_line = "- " + was, "+ " + now
    else:
        was_line, now_line, notes = side_by_side(old, new)
    if len(was_line) <= INLINE_CHARACTERS and len(now_line) <= INLINE_CHARACTERS and "…(" not in was_line + now_line \
            and not right_to_left(f"{label}{old}{new}"):
        return [f"{label}: {was_line[2:]} -> {now_line[2:]}", *notes]
    return [f"{label}:", was_line, now_line, *notes]


def lines_of(text: str) -> List[str]:
    """`text` split after each "\\n", each line's end kept (a last line without one, as it is); no other
    character ends a line here.

    >>> lines_of("a\\r\\nb\\n\\nc\\u2028d"), lines_of("a\\n")
    (['a\\r\\n', 'b\\n', '\\n', 'c\\u2028d'], ['a\\n'])
    """
    return LINE.findall(text)


LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def content_change(old: str, new: str) -> List[str]:
    """An article's content: each changed line as a pair (each line added or removed alone as its "+ " or "- "
    line), and the unchanged lines between counted."""
    a, b = lines_of(old), lines_of(new)
    shown: List[str] = []
    changes = 0
    kept = 0
    for tag, a_from, a_to, b_from, b_to in diff_codes(a, b):
        if tag == "equal":
            kept += a_to - a_from
            continue
        if kept:
            shown.append(f"({count(kept, 'unchanged line')})")
            kept = 0
        changes += 1
        shown += lines_changed(a[a_from:a_to], b[b_from:b_to])
    if kept and shown:
        shown.append(f"({count(kept, 'unchanged line')})")
    if not changes:
        return ["Content: unchanged"]
    return [f"Content ({count(len(a), 'line')} before, {len(b):,} after), changed in "
            f"{count(changes, 'place')}:", *shown]


def lines_changed(old: Sequence[str], new: Sequence[str]) -> List[str]:
    """The lines shown for one changed block: as many old lines as new ones are paired one to one; otherwise the
    block is one pair (its line ends shown as ↵); lines only removed or only added are shown alone."""
    if not new or not old:
        sign, text = ("-", "".join(old)) if old else ("+", "".join(new))
        runs = [Piece(text, "", True)] if old else [Piece("", text, True)]
        alone, spans = side(runs, new=bool(new))
        note = named_characters(spans)
        return [f"{sign} {alone}", *([f"  {sign} {note}"] if note else [])]
    pairs = zip(old, new) if len(old) == len(new) else [("".join(old), "".join(new))]
    shown: List[str] = []
    for was, now in pairs:
        was_line, now_line, notes = side_by_side(*without_same_end(was, now))
        shown += [was_line, now_line, *notes]
    return shown


def without_same_end(old: str, new: str) -> Tuple[str, str]:
    """A pair without the line end ("\\n" or "\\r\\n") that both sides end with alike: an unchanged line end is
    not shown, and a CRLF turned LF is shown whole."""
    end = line_end(old)
    if end and line_end(new) == end:
        return old[:-len(end)], new[:-len(end)]
    return old, new


def line_end(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""


def item_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> List[str]:
    """Each field of an item whose stored text would change, by label, in schema order. Where the two values
    would read alike (the same text, or read_alike: a text in NFC and in NFD), each is followed by its stored
    JSON, and where they differ only in the order of their keys, that is said, so no change is ever shown as
    none."""
    changed: List[str] = []
    for (label, was, was_stored), (_, value, stored) in zip(before["fields"], after["fields"]):
        if was_stored == stored:
            continue
        if was is not None and value is not None and (was == value or read_alike(was, value)):
            in_ascii = read_alike(str(was_stored), str(stored))
            was, value = stored_beside(was, was_stored, in_ascii), stored_beside(value, stored, in_ascii)
        changed += value_change(as_name(label), was, value)
        if only_order_differs(was_stored, stored):
            changed.append(f"  {ONLY_ORDER}")
    return changed or [NO_FIELD_CHANGES]


NO_FIELD_CHANGES = "No field's value changes: approving saves the same values again, as a new version"
ONLY_ORDER = "the same keys and values, in another order: the stored text changes all the same"


def only_order_differs(was: Optional[str], now: Optional[str]) -> bool:
    """Whether two stored JSON texts differ only in the order of an object's keys.

    >>> only_order_differs('{"a": 1, "b": 2}', '{"b": 2, "a": 1}'), only_order_differs('{"a": 1}', '{"a": 1.0}')
    (True, False)
    """
    if was is None or now is None or was == now:
        return False
    return json.dumps(json.loads(was), sort_keys=True) == json.dumps(json.loads(now), sort_keys=True)


def stored_beside(shown: str, stored: Optional[str], in_ascii: bool) -> Optional[str]:
    """A value as shown, followed by its stored JSON, for two values that would otherwise read alike; the JSON
    `in_ascii` (every other character by its escape, "d\\u043ene") where the two stored texts read alike too."""
    if stored is None:
        return None
    return f"{shown} (stored as {json.dumps(json.loads(stored)) if in_ascii else stored})"


def article_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> List[str]:
    """An article's title, then its content."""
    title = (value_change("Title", before["title"], after["title"]) if before["title"] != after["title"]
             else ["Title: unchanged"])
    return title + content_change(before["content"], after["content"])
