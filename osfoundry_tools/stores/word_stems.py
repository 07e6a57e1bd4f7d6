"""English word stems by Porter's algorithm (M. F. Porter, "An algorithm for suffix stripping", 1980).

Layer: the bottom (it imports nothing of the project). sqlite's FTS5 index stems words by this algorithm
(its 'porter' tokenizer); a knowledge base's sections are read with the same stems (kb_sections), so a question
finds "configuring" in a heading "Configuration" as the index finds it in the text, on either engine.

Glossary:
  consonant  a letter other than a, e, i, o, u, and other than a y after a consonant
  measure    m in the form [C](VC){m}[V] of a stem: how many vowel-consonant runs it holds
  cvc        a stem ending consonant, vowel, consonant, the last not w, x or y (hop, not how)

>>> [stem(word) for word in ("configuring", "configuration", "proxies", "proxy", "uses", "using", "formatting")]
['configur', 'configur', 'proxi', 'proxi', 'us', 'us', 'format']
"""

import functools
from typing import Callable, Sequence, Tuple

_VOWELS = frozenset("aeiou")


def _consonant(word: str, index: int) -> bool:
    letter = word[index]
    if letter in _VOWELS:
        return False
    return letter != "y" or index == 0 or not _consonant(word, index - 1)


def measure(stem_: str) -> int:
    """m of [C](VC){m}[V].

    >>> measure("tr"), measure("trouble"), measure("troubles"), measure("private")
    (0, 1, 2, 2)
    """
    kinds = "".join("c" if _consonant(stem_, index) else "v" for index in range(len(stem_)))
    return kinds.lstrip("c").count("vc") if kinds else 0


def _has_vowel(stem_: str) -> bool:
    return any(not _consonant(stem_, index) for index in range(len(stem_)))


def _double_consonant(word: str) -> bool:
    return len(word) > 1 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    return (len(word) > 2 and _consonant(word, len(word) - 3) and not _consonant(word, len(word) - 2)
            and _consonant(word, len(word) - 1) and word[-1] not in "wxy")


Rule = Tuple[str, str]  # a suffix and what replaces it


def _replace(word: str, rules: Sequence[Rule], allowed: Callable[[str], bool]) -> str:
    """The word with the longest of `rules`' suffixes it ends with replaced, when what stays before the suffix is
    allowed; unchanged otherwise (a suffix that matches but is not allowed stops the step)."""
    for suffix, replacement in rules:
        if word.endswith(suffix):
            stem_ = word[:len(word) - len(suffix)]
            return stem_ + replacement if allowed(stem_) else word
    return word


def _longest_first(rules: Sequence[Rule]) -> Tuple[Rule, ...]:
    return tuple(sorted(rules, key=lambda rule: -len(rule[0])))


_STEP_2 = _longest_first([
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"), ("bli", "ble"),
    ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"),
    ("ator", "ate"), ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"),
    ("iviti", "ive"), ("biliti", "ble"), ("logi", "log")])
_STEP_3 = _longest_first([
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", "")])
_STEP_4 = _longest_first([(suffix, "") for suffix in (
    "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
    "iti", "ous", "ive", "ize")])


def _step_1a(word: str) -> str:
    for suffix, replacement in (("sses", "ss"), ("ies", "i"), ("ss", "ss"), ("s", "")):
        if word.endswith(suffix):
            return word[:len(word) - len(suffix)] + replacement
    return word


def _step_1b(word: str) -> str:
    if word.endswith("eed"):
        return word[:-1] if measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[:-len(suffix)]):
            return _step_1b_tidy(word[:-len(suffix)])
    return word


def _step_1b_tidy(stem_: str) -> str:
    """After -ed or -ing: conflat(ed) to conflate, hopp(ing) to hop, fil(ing) to file."""
    if stem_.endswith(("at", "bl", "iz")):
        return stem_ + "e"
    if _double_consonant(stem_) and stem_[-1] not in "lsz":
        return stem_[:-1]
    return stem_ + "e" if measure(stem_) == 1 and _cvc(stem_) else stem_


def _step_1c(word: str) -> str:
    return word[:-1] + "i" if word.endswith("y") and _has_vowel(word[:-1]) else word


def _step_4(word: str) -> str:
    if word.endswith("ion"):
        stem_ = word[:-3]
        return stem_ if measure(stem_) > 1 and stem_.endswith(("s", "t")) else word
    return _replace(word, _STEP_4, lambda stem_: measure(stem_) > 1)


def _step_5(word: str) -> str:
    if word.endswith("e"):
        stem_ = word[:-1]
        if measure(stem_) > 1 or (measure(stem_) == 1 and not _cvc(stem_)):
            word = stem_
    return word[:-1] if measure(word) > 1 and _double_consonant(word) and word.endswith("l") else word


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """The stem of a lower-case word; a word of two letters or fewer is its own stem.

    >>> [stem(word) for word in ("caresses", "ponies", "agreed", "hopping", "relational", "adjustment", "controll")]
    ['caress', 'poni', 'agre', 'hop', 'relat', 'adjust', 'control']
    """
    if len(word) <= 2 or not word.isalpha():
        return word
    word = _step_1c(_step_1b(_step_1a(word)))
    word = _replace(word, _STEP_2, lambda stem_: measure(stem_) > 0)
    word = _replace(word, _STEP_3, lambda stem_: measure(stem_) > 0)
    return _step_5(_step_4(word))
