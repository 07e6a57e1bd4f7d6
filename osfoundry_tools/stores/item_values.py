"""An item's stored values with each value's JSON kept beside it: a save encodes only the values it changes, and
the values an item's last save left are found again at its place (for the very text it wrote), not decoded.

Layer: a store's helper, record_store.py's. A row holds its values as json.dumps(values, ensure_ascii=False)
and its preview as json.dumps(previewed) in ASCII; ItemValues builds both from pieces, one per value
('"key": value'), joined as json.dumps joins them, so the text is byte for byte what json.dumps writes.

Glossary:
  piece     one value as its item's text holds it: '"status": "triaged"'
  preview   every field of the channel in schema order, unset ones and formulas null, text (or the JSON of a
            list or object) cut at PREVIEW_CHARACTERS, in ASCII: what a listing shows of an item
  kept      the ItemValues the latest save of an item wrote, with its text, by the item's place: found only for
            a row holding that very text, so safe whoever wrote the row and whatever rolled back, since a text
            always decodes to the same values

    >>> saved = ItemValues.of({"title": "Login fails", "points": 3}).changed({"points": None, "owner": "aiko"})
    >>> saved.text()
    '{"title": "Login fails", "owner": "aiko"}'
"""

import functools
import json
import threading
from json.encoder import encode_basestring, encode_basestring_ascii
from typing import Any, Dict, Hashable, Mapping, NamedTuple, Sequence, Tuple

from osfoundry_tools.core.json_text import encoder

PREVIEW_CHARACTERS = 120
CUT_MARK = "…"
KEPT_CHARACTERS = 4_000_000  # the texts kept, counted together: about as many items of the bug tracker's size
KEPT_ITEM_CHARACTERS = 20_000  # a longer item's text is decoded on every save: keeping it would crowd the others out

as_text = encoder(ensure_ascii=False)  # json.dumps(value, ensure_ascii=False)
_as_ascii = encoder()  # json.dumps(value)


class PreviewSlots(NamedTuple):
    """A channel's preview, field by field in schema order (preview_slots)."""

    keys: Tuple[str, ...]  # the key whose piece each slot shows: "" for a formula (never stored, so always null)
    nulls: Tuple[str, ...]  # the piece each slot shows when the item holds no value there


class ItemValues(NamedTuple):
    """An item's set values, and each one's piece in its text and in its preview (in the values' order). Never
    changed once made: a save makes new ItemValues (changed), which the kept ones may be shared with."""

    values: Dict[str, Any]
    texts: Dict[str, str]
    previews: Dict[str, str]

    @classmethod
    def of(cls, values: Mapping[str, Any]) -> "ItemValues":
        """The ItemValues of a mapping of values, encoded now."""
        return _NONE.changed(values)

    def changed(self, changes: Mapping[str, Any]) -> "ItemValues":
        """These values with `changes` applied (null, "" and [] clear a field), only the changed ones encoded."""
        values, texts, previews = {**self.values, **changes}, dict(self.texts), dict(self.previews)
        for key, value in changes.items():
            kind = type(value)
            if (kind is str and 0 < len(value) <= PREVIEW_CHARACTERS) or kind is int:  # most values: never cut
                texts[key], previews[key] = _short_pieces(key, value)
            elif value is None or value == "" or value == []:
                del values[key]
                texts.pop(key, None)
                previews.pop(key, None)
            else:
                texts[key] = text = _named(key) + as_text(value)
                previews[key] = _previewed(key, value, text)
        return _made(ItemValues, (values, texts, previews))

    def text(self) -> str:
        """The values as the row stores them: json.dumps(values, ensure_ascii=False)."""
        return f"{{{', '.join(self.texts.values())}}}"  # "{" + ... + "}" in one string, not two copies of it

    def preview(self, slots: PreviewSlots) -> str:
        """The preview a listing shows of the item, in a channel's preview slots (preview_slots)."""
        return f"{{{', '.join(map(self.previews.get, slots.keys, slots.nulls))}}}"  # a piece, or its null


def preview_slots(fields: Sequence[Any]) -> PreviewSlots:
    """A channel's preview slots, from its fields (record_fields.Field) in schema order."""
    return PreviewSlots(tuple("" if field.type == "formula" else field.key for field in fields),
                        tuple(_named(field.key) + "null" for field in fields))


_NONE = ItemValues({}, {}, {})
_made = tuple.__new__  # _made(ItemValues, (values, texts, previews)): half the time of the NamedTuple's own __new__


@functools.lru_cache(maxsize=1024)
def _named(key: str) -> str:
    """A piece's start: the key as JSON, then ': ' (in ASCII: a field key is one, record_fields._KEY)."""
    return _as_ascii(key) + ": "


@functools.lru_cache(maxsize=4096)
def _short_pieces(key: str, value: Any) -> Tuple[str, str]:
    """The pieces of a value never cut, a str of at most PREVIEW_CHARACTERS or an int (its type exactly: a bool would
    find an int's pieces here), in the item's text and in its preview; kept, since the same few values (a select's
    options, a status, points) are written again and again."""
    if type(value) is int:  # json.dumps writes an int as int.__repr__ does
        text = _named(key) + int.__repr__(value)
        return text, text
    text = _named(key) + encode_basestring(value)
    return text, text if text.isascii() else _named(key) + encode_basestring_ascii(value)


def _previewed(key: str, value: Any, text: str) -> str:
    """A value's piece in a preview, from its piece in the text when that is already ASCII and needs no cut."""
    if isinstance(value, (str, list, dict)):
        shown = cut(value, PREVIEW_CHARACTERS)
        if shown is not value:
            return _named(key) + _as_ascii(shown)
    return text if text.isascii() else _named(key) + _as_ascii(value)


def cut(value: Any, characters: int) -> Any:
    """A value as a preview shows it: text (or the JSON of a list or object) cut at `characters`; the value
    itself when it needs no cut."""
    text = value if isinstance(value, str) else None
    if isinstance(value, (list, dict)):
        text = as_text(value)
    if text is None or len(text) <= characters:
        return value
    return text[:characters - len(CUT_MARK)] + CUT_MARK


class Kept:
    """The ItemValues the latest save of each item wrote, with the text it wrote, by the item's place (a store's
    database and the row's number): found again only for a row that holds that very text, so a rolled-back save,
    another writer or a place reused is a miss, never stale values. At most `item_characters` of text each, the
    oldest forgotten past `characters` in all. A place, not the text, is the key: hashing a long text on every
    save would cost more than comparing it with the one kept."""

    def __init__(self, characters: int = KEPT_CHARACTERS, item_characters: int = KEPT_ITEM_CHARACTERS) -> None:
        self.characters, self.item_characters = characters, item_characters
        self._lock = threading.Lock()
        self._by_place: Dict[Hashable, Tuple[str, ItemValues]] = {}
        self._characters = 0

    def values_of(self, text: str, place: Hashable = None) -> ItemValues:
        """The values a row's text holds: kept from the save that wrote it at `place`, or decoded now."""
        found = self._by_place.get(place)
        if found is not None and found[0] == text:
            return found[1]
        return ItemValues.of(json.loads(text))

    def keep(self, place: Hashable, text: str, values: ItemValues) -> None:
        """Keep the values a save wrote as `text` at `place`, for the next save of the same item."""
        if len(text) > self.item_characters:
            return
        by_place = self._by_place
        self._lock.acquire()  # rather than `with`: every save passes here, and this takes a third of the time
        try:
            earlier = by_place.pop(place, None)  # and the place goes last again: the oldest are the first
            by_place[place] = (text, values)
            self._characters += len(text) - (0 if earlier is None else len(earlier[0]))
            while self._characters > self.characters:
                self._characters -= len(by_place.pop(next(iter(by_place)))[0])
        finally:
            self._lock.release()


KEPT = Kept()  # one for the process: a text means the same values in every store and file
