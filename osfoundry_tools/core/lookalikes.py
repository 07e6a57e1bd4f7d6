"""Characters as a person reads them: which print nothing, which could pass for others, and what a text could be
read as. So that what people are shown never lets one text pass for another: the approval question names such
characters (server/shown_change.py), and a label that reads like another is followed by its key wherever a
person is shown one (stores/record_fields.py, stores/record_store.py).

Layer: core, below the stores and the server, which both read text here. Standard library only: unicodedata's
names, categories and normal forms, and the tables below.

    >>> as_read("P\\u0430y\\u200b  ＮＯＷ"), as_read("café") == as_read("cafe\\u0301"), as_read("Готово")
    ('Pay NOW', True, 'Гoтoвo')
"""

import collections
import functools
import re
import unicodedata
from typing import Dict, List, Sequence

UNREADABLE = "\ufffd"  # as_read's reading of a letter that could be read as any: a script not known to read as itself


def prints_nothing(character: str) -> bool:
    """Whether a character shows no mark of its own on a screen: what str.isprintable() refuses (controls, format
    characters, spaces other than U+0020, unassigned and private code points), and BLANK_CHARACTERS, which it
    passes (Hangul fillers, the blank Braille pattern, variation selectors...).

    >>> [prints_nothing(c) for c in ("a", "\u3164", "\u2800", "\ufe0f", "\u034f", "\U000e0100", "\u00e9")]
    [False, True, True, True, True, True, False]
    """
    if not character.isprintable():
        return True
    code = ord(character)
    return any(low <= code <= high for low, high in BLANK_CHARACTERS)


BLANK_CHARACTERS = (  # (first, last) code points that print nothing, or a blank, yet str.isprintable() passes
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0),  # Hangul fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x2800, 0x2800),  # Braille pattern blank
    (0xFE00, 0xFE0F), (0xE0100, 0xE01EF),  # variation selectors
    (0x16FE4, 0x16FE4),  # Khitan small script filler
    (0x1D159, 0x1D159), (0x1D173, 0x1D17A),  # musical null notehead, musical format characters
    (0xE0000, 0xE0FFF),  # tag characters and the rest of their default-ignorable plane block
)


def is_mark(character: str) -> bool:
    """A combining mark: drawn on the character before it."""
    return unicodedata.category(character) in ("Mn", "Me")


def script_of(character: str) -> str:
    """The first word of a letter's Unicode name (LATIN, CYRILLIC, GREEK...): its script, near enough."""
    return unicodedata.name(character, "?").split(" ")[0]


def could_pass_for_ascii(character: str) -> bool:
    """Whether a non-ASCII character could be read as an ASCII one, or as nothing: a letter drawn like a Latin one
    (LATIN_LOOKALIKES: Cyrillic а, Greek ο, dotless ı...), a letter of any script not known to read as itself
    (READ_AS_THEMSELVES: Cherokee Ꭺ, Lisu ꓮ, small capital ᴀ...), a form that folds to ASCII (fullwidth Ａ,
    mathematical 𝐚, superscript ¹), a digit of another script (١ reads as 1), punctuation drawn like ASCII's (one
    dot leader, division slash), a combining mark, or a character that prints nothing. An accented letter, a
    Chinese or a Russian word's own letters (б, ж), a dash or a curly quote reads as what it is.

    >>> [could_pass_for_ascii(c) for c in ("а", "ο", "Ａ", "١", "\u2215", "\u3164", "Ꭺ", "ꓮ", "ᴀ", "é", "б", "中", "—")]
    [True, True, True, True, True, True, True, True, True, False, False, False, False]
    """
    if character in LATIN_LOOKALIKES or prints_nothing(character) or is_mark(character):
        return True  # a combining mark alone can make a letter pass for another (i and a dot above it: i̇)
    folded = unicodedata.normalize("NFKC", character)
    if (folded != character and folded.isascii()) or unicodedata.category(character) == "Nd":
        return True
    return character.isalpha() and not reads_as_itself(character)


def reads_as_itself(letter: str) -> bool:
    """Whether a letter cannot be taken for a Latin one: an ASCII letter with marks (é, ñ: they print beside it),
    or a letter of a script in READ_AS_THEMSELVES (whose letters drawn like Latin ones LATIN_LOOKALIKES lists)."""
    base = unicodedata.normalize("NFD", letter)[0]
    if base != letter and base.isascii():
        return True
    return script_of(letter) in READ_AS_THEMSELVES


READ_AS_THEMSELVES = frozenset((  # scripts whose letters, LATIN_LOOKALIKES aside, no reader takes for Latin ones
    "CYRILLIC", "GREEK", "ARMENIAN", "HEBREW", "ARABIC", "SYRIAC", "THAANA", "DEVANAGARI", "BENGALI", "GURMUKHI",
    "GUJARATI", "ORIYA", "TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA", "THAI", "LAO", "TIBETAN", "MYANMAR",
    "GEORGIAN", "ETHIOPIC", "KHMER", "MONGOLIAN", "CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HALFWIDTH",
    "HANGUL", "BOPOMOFO", "IDEOGRAPHIC", "YI",
))


def _drawn_as(lookalikes: str, ascii: str) -> Dict[str, str]:
    """Each lookalike with the ASCII character it is drawn like, the two strings read side by side."""
    if len(lookalikes) != len(ascii):
        raise ValueError(f"{len(lookalikes)} lookalikes and {len(ascii)} ASCII characters: give one for each")
    return dict(zip(lookalikes, ascii))


LATIN_LOOKALIKES: Dict[str, str] = {  # letters and marks drawn like ASCII ones, which no normalisation folds to them
    **_drawn_as("аеорсухіјѕһԁԛԝӏүԍɡѵѡ", "aeopcyxijshdqwlyggvw"),  # Cyrillic (and Latin's script g)
    **_drawn_as("АВЕКМНОРСТХУІЈЅԌԚԜӀ", "ABEKMHOPCTXYIJSGQWI"),
    **_drawn_as("αονριυκχτγϲϳ", "aovpiukxtycj"), **_drawn_as("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹ", "ABEZHIKMNOPTYXC"),  # Greek
    **_drawn_as("օսոհզգ", "ounhqq"), **_drawn_as("ՕՍ", "OU"),  # Armenian
    **_drawn_as("\u2024\u2215\u2044\u2236\u02d0\ua4f8\u0589\u05c3\u16eb\u201a\u2039\u203a\u02bc\u02b9\u2010\u2011"
                "\u2012\u2212\u066b\u06d4\u0701\u0702\ufe52\u2027\u00b7\u0387",  # dots, slashes, colons, quotes...
                ".//::.::.,<>''----,......."),
}
SMALL_CAPITAL = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")  # ᴀ, ʙ, ᴄ...: drawn as a capital, only smaller


def as_read(text: str) -> str:
    """What a text could be read as on a screen: its compatibility forms folded (NFKC: fullwidth Ａ is A, "e" and
    a combining acute are é), what prints nothing dropped, and so are combining marks drawn on a letter read as
    ASCII (i̇ is i); every letter of LATIN_LOOKALIKES, a small capital and a digit of another script as the ASCII
    one it passes for, a letter of a script not known to read as itself as UNREADABLE, and runs of whitespace as
    one space, none at either end. Two texts whose readings are equal could pass for each other; a Russian word,
    an accented one or a Japanese one reads as itself."""
    read: List[str] = []
    for character in unicodedata.normalize("NFKC", text):
        if " " < character < "\x7f":  # printable ASCII, most of any text: read as itself
            read.append(character)
            continue
        reading = read_as(character)
        if not (reading == character and read and read[-1].isascii() and is_mark(character)):
            read.append(reading)
    return " ".join("".join(read).split())


@functools.lru_cache(maxsize=4096)
def read_as(character: str) -> str:
    """What one character (NFKC's, so no compatibility form) could be read as (see as_read): a space for any
    whitespace, nothing for what prints nothing, a combining mark as itself (as_read drops one drawn on a letter
    read as ASCII). Kept for the characters met last: a long text in one script holds few distinct ones."""
    if character.isspace():
        return " "
    if prints_nothing(character):
        return ""
    if character in LATIN_LOOKALIKES:
        return LATIN_LOOKALIKES[character]
    if unicodedata.category(character) == "Nd":
        return str(unicodedata.digit(character))
    capital = SMALL_CAPITAL.fullmatch(unicodedata.name(character, ""))
    if capital:
        return capital.group(1)
    if character.isalpha() and script_of(character) != "LATIN" and could_pass_for_ascii(character):
        return UNREADABLE
    return character


def told_apart(names: Sequence[str], keys: Sequence[str]) -> List[str]:
    """`names` people chose (labels), each followed by its own key in parentheses where it could pass for another:
    at once where it holds a letter that could be read as any (UNREADABLE), then round by round while its reading
    (as_read) is another's too and its key reads unlike theirs; then while it is the very text of another (keys
    differ as text). So "Done" and "Dоne" (a Cyrillic о), of keys done and fake, read "Done (done)" and
    "Dоne (fake)"; a name that reads like no other is shown alone.

    >>> told_apart(["Owner", "\\u041ewner", "Owner (owner2)", "Status"], ["owner", "owner2", "x", "status"])
    ['Owner (owner)', 'Оwner (owner2) (owner2)', 'Owner (owner2) (x)', 'Status']
    """
    shown = [f"{name} ({key})" if UNREADABLE in as_read(name) else name for name, key in zip(names, keys)]
    for _ in range(len(shown)):  # each round makes names longer: a bound no input reaches, and no loop forever
        alike: Dict[str, List[int]] = collections.defaultdict(list)
        for at, name in enumerate(shown):
            alike[as_read(name)].append(at)
        keyed = {at for group in alike.values() if len(group) > 1 for at in group
                 if [as_read(keys[other]) for other in group].count(as_read(keys[at])) == 1}
        if not keyed:
            break
        shown = [f"{name} ({key})" if at in keyed else name for at, (name, key) in enumerate(zip(shown, keys))]
    while len(set(shown)) < len(shown):
        repeated = {name for name in shown if shown.count(name) > 1}
        shown = [f"{name} ({key})" if name in repeated else name for name, key in zip(shown, keys)]
    return shown
