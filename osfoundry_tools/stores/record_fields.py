"""Record-channel fields: the 16 types, what each accepts, and the rejection an agent reads when a value fails.

Layer: used by record_store.py, knows nothing of sqlite. A channel's schema is a
list of `Field`s; `check_value` judges one value against one field and returns a
`Failure` (or None); `rejection` turns a list of failures into the JSON an agent
receives, at one of four levels of detail.

Glossary:
  field       key, label, type, is_required, is_unique and the type's config
              (max_length, min/max, max_stars, options, related_channel_id, expression)
  option      {value, label, color} of a select or multi_select: the value is stored,
              the label is what people see; a label is never accepted as a value
  failure     one field's reason to refuse an edit: its key, a message naming
              `values.<key>`, and what is allowed (option values and labels, or a range)
  rejection   {"error": "validation_failed", ...}: every failure of one edit at once
  detail      how much a rejection says: terse, field, values or labels

Nothing here converts or clamps: "In progress" is not `in_progress`, 20 is not 13.

    >>> points = Field.from_definition({"key": "points", "label": "Points", "type": "number", "min": 0, "max": 13})
    >>> check_value(points, 20).message
    'values.points must be between 0 and 13, got 20'
    >>> check_value(points, 8) is None
    True
"""

import calendar
import dataclasses
import datetime
import functools
import json
import math
import re
import unicodedata
import urllib.parse
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from osfoundry_tools.core.checks import ID_CHARACTERS, NAME_CHARACTERS, checked_id, checked_text
from osfoundry_tools.core.lookalikes import as_read, told_apart
from osfoundry_tools.core.rejections import quote, resembled, show

FIELD_TYPES = ("text", "number", "date", "boolean", "email", "phone", "url", "select", "multi_select",
               "currency", "percentage", "rating", "relation", "file", "json", "formula")
DETAILS = ("terse", "field", "values", "labels")

TEXT_MAX_CHARACTERS = 100_000  # a text field without max_length
JSON_MAX_CHARACTERS = 10_000   # a json field's value, serialised
FILES_MAX = 20                 # attachments in one file field
RELATIONS_MAX = 100            # related items in one relation field
LISTED_FAILURES = 20           # a rejection lists this many failed fields, then says how many more
FIELDS_MAX = 64                # fields in one channel's schema
OPTIONS_MAX = 100              # options of one select or multi_select
OPTION_VALUE_CHARACTERS = 64   # an option's value; its label may take NAME_CHARACTERS, its colour COLOR_CHARACTERS
COLOR_CHARACTERS = 32
STARS_MAX = 100
STARS_DEFAULT = 5
PHONE_DIGITS = (7, 15)
PHONE_CHARACTERS = 32          # a phone number written out: 15 digits, with room for a + and a separator after each
EMAIL_CHARACTERS = 254         # an email address at its longest (RFC 5321's path, less its angle brackets)
EMAIL_LOCAL_CHARACTERS = 64    # the part before its @ at its longest (RFC 5321's local-part)
URL_CHARACTERS = 2048          # a URL, in a url field or a file's url: what browsers and servers reliably take
FILE_NAME_CHARACTERS = 255     # a file's name, as most file systems bound one

_CONFIG = {  # the config keys each type takes: a definition with any other key is refused
    "text": ("max_length",), "number": ("min", "max"), "currency": ("min", "max"),
    "percentage": ("min", "max"), "rating": ("max_stars",), "select": ("options",),
    "multi_select": ("options",), "relation": ("related_channel_id",), "formula": ("expression",),
}
_UNIQUE_TYPES = ("text", "number", "date", "email", "phone", "url", "select", "currency", "percentage", "rating")
_BASIC_KEYS = ("key", "label", "type", "is_required", "is_unique")
_KEY = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_PHONE = re.compile(r"\+?[0-9 ().\-]+", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # the control characters (Unicode's Cc): no address holds one
_FORMULA = re.compile(r"(days_since|days_until)\((\w+)\)", re.ASCII)
ITEM_TIMES = ("created_at", "updated_at")  # what a formula may name besides the channel's date fields


# ---------------------------------------------------------------------------
# A field, as people define it and as the schema in every page shows it.


@dataclasses.dataclass(frozen=True)
class Field:
    """One field of a channel's schema."""

    key: str
    label: str
    type: str
    is_required: bool = False
    is_unique: bool = False
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_definition(cls, definition: Mapping[str, Any]) -> "Field":
        """A field from its JSON definition; ValueError naming the problem if the definition is unsound.

        Everything a definition holds goes into every listing page and some rejections, so it must be text an
        agent can read: known keys of the right types, within the limits above, valid Unicode without NUL.
        """
        if not isinstance(definition, Mapping):
            raise ValueError(f"a field definition must be an object, not {show(definition)!r}")
        definition = dict(definition)
        key, kind = definition.get("key"), definition.get("type")
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"field key {show(key)!r} must be 1-64 lowercase letters, digits or _, starting with a "
                             "letter")
        if kind not in FIELD_TYPES:
            raise ValueError(f"field {key!r} has type {show(kind)!r}; the types are {', '.join(FIELD_TYPES)}")
        allowed = _BASIC_KEYS + _CONFIG.get(kind, ())
        unknown = [show(name) for name in definition if name not in allowed]
        if unknown:
            raise ValueError(f"field {key!r} ({kind}) takes only {', '.join(allowed)}, not {unknown}")
        for flag in ("is_required", "is_unique"):
            if not isinstance(definition.get(flag, False), bool):
                raise ValueError(f"field {key!r}: {flag} must be true or false")
        field = cls(key=key, label=checked_text(definition.get("label") or key, f"field {key!r}'s label",
                                                NAME_CHARACTERS),
                    type=kind, is_required=definition.get("is_required", False),
                    is_unique=definition.get("is_unique", False),
                    config={name: definition[name] for name in _CONFIG.get(kind, ()) if name in definition})
        field._check_config()
        return field

    def _check_config(self) -> None:
        config, key = self.config, self.key
        if self.is_unique and self.type not in _UNIQUE_TYPES:
            raise ValueError(f"field {key!r}: a {self.type} field cannot be unique")
        if self.type == "formula" and (self.is_required or self.is_unique):
            raise ValueError(f"field {key!r}: a formula is computed, so it is neither required nor unique")
        if self.type in ("select", "multi_select"):
            _check_options(key, config.get("options"))
        if self.type == "relation":
            checked_id(config.get("related_channel_id"), f"field {key!r}'s related_channel_id")
        if self.type == "formula" and not _FORMULA.fullmatch(str(config.get("expression", ""))):
            raise ValueError(f"field {key!r}: expression must be days_since(<time>) or days_until(<date field>)")
        for name in ("min", "max"):
            if name in config and not _is_number(config[name]):
                raise ValueError(f"field {key!r}: {name} must be a finite number")
        if "min" in config and "max" in config and config["min"] > config["max"]:
            raise ValueError(f"field {key!r}: min must not exceed max")
        for name, highest in (("max_length", TEXT_MAX_CHARACTERS), ("max_stars", STARS_MAX)):
            value = config.get(name, 1)
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= highest:
                raise ValueError(f"field {key!r}: {name} must be a whole number from 1 to {highest:,}")

    def definition(self) -> Dict[str, Any]:
        """The field as the schema in a listing page shows it."""
        return {"key": self.key, "label": self.label, "type": self.type, "is_required": self.is_required,
                "is_unique": self.is_unique, **self.config}

    @property
    def writable(self) -> bool:
        return self.type != "formula"

    def stars(self) -> Tuple[int, int]:
        """The inclusive range of a rating field: 1 to its max_stars."""
        return 1, self.config.get("max_stars", STARS_DEFAULT)

    def bounds(self) -> Tuple[Optional[float], Optional[float]]:
        """The inclusive range of a numeric field (None: open), after its type's defaults."""
        if self.type == "rating":
            return self.stars()
        if self.type == "percentage":
            return self.config.get("min", 0), self.config.get("max", 100)
        return self.config.get("min"), self.config.get("max")

    def options(self) -> List[Mapping[str, Any]]:
        return list(self.config.get("options", ()))

    @functools.cached_property
    def option_values(self) -> FrozenSet[str]:
        """The values a select field accepts, for the membership test of every edit."""
        return frozenset(option["value"] for option in self.config.get("options", ()))

    @functools.cached_property
    def passes(self) -> Callable[[Any], bool]:
        """check_value's quick test, made once per field: True only for a value it saves as sent (a clearing None,
        "" or [] is not one); a False sends the value to check_value, for its words. Types with rules this does
        not repeat (currency's cents, the web's forms, relations, files, JSON) always take check_value's way."""
        make = _QUICK_TESTS.get(self.type)
        return make(self) if make is not None else _never


def _check_options(key: str, options: Any) -> None:
    """A select's options: 1 to OPTIONS_MAX of {value, label, color?}, text within limits, distinct values."""
    if not isinstance(options, list) or not 0 < len(options) <= OPTIONS_MAX:
        raise ValueError(f"field {key!r}: options must be a list of 1 to {OPTIONS_MAX} {{value, label, color}}")
    for option in options:
        if not isinstance(option, Mapping) or not {"value", "label"} <= set(option) <= {"value", "label", "color"}:
            raise ValueError(f"field {key!r}: each option is {{value, label}} and may add color, not {show(option)!r}")
        checked_text(option["value"], f"an option value of field {key!r}", OPTION_VALUE_CHARACTERS)
        checked_text(option["label"], f"an option label of field {key!r}", NAME_CHARACTERS)
        if "color" in option:
            checked_text(option["color"], f"an option colour of field {key!r}", COLOR_CHARACTERS)
    values = [option["value"] for option in options]
    if len(set(values)) != len(values):
        raise ValueError(f"field {key!r}: option values must be distinct")


def parse_schema(definitions: Sequence[Mapping[str, Any]]) -> Tuple[Field, ...]:
    """A channel's fields from their definitions; ValueError for a bad one, a repeated key or too many."""
    if not isinstance(definitions, (list, tuple)) or len(definitions) > FIELDS_MAX:
        raise ValueError(f"a channel's fields must be a list of at most {FIELDS_MAX} field definitions")
    fields = tuple(Field.from_definition(d) for d in definitions)
    keys = [f.key for f in fields]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"field keys must be distinct; repeated: {', '.join(repeated)}")
    dates = {f.key for f in fields if f.type == "date"}
    for field in fields:
        if field.type == "formula":
            function, argument = formula_parts(field)
            names = ITEM_TIMES if function == "days_since" else ()
            if argument not in names and argument not in dates:
                raise ValueError(f"field {field.key!r}: {field.config['expression']} names neither a date field "
                                 f"nor one of {', '.join(ITEM_TIMES)}")
    return fields


# ---------------------------------------------------------------------------
# Failures, and the rejection they make at each level of detail.


@dataclasses.dataclass(frozen=True)
class Failure:
    """Why one field refuses its value: a message for the agent and what the field allows."""

    key: str
    message: str
    allowed: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # "allowed" values, or "min"/"max"
    labels: Optional[Mapping[str, str]] = None  # option value -> label, shown at the labels level


def rejection(failures: Sequence[Failure], detail: str) -> Dict[str, Any]:
    """The validation_failed result an agent receives, at the given detail.

    It lists the first LISTED_FAILURES failures and then how many more there were, so that no edit,
    however many bad keys it sends, makes an answer longer than that.

    >>> owner = Failure("owner", 'values.owner must be one of the option values, got "Aiko"',
    ...                 {"allowed": ["aiko"]}, {"aiko": "Aiko"})
    >>> rejection([owner], "field")
    {'error': 'validation_failed', 'fields': [{'key': 'owner'}]}
    >>> rejection([owner], "labels")["fields"][0]["labels"]
    {'aiko': 'Aiko'}
    >>> rejection([owner] * 25, "field")["more_fields"]
    5
    """
    if detail not in DETAILS:
        raise ValueError(f"rejection detail must be one of {', '.join(DETAILS)}, not {detail!r}")
    if detail == "terse":
        return {"error": "validation_failed"}
    fields = []
    for failure in failures[:LISTED_FAILURES]:
        entry: Dict[str, Any] = {"key": failure.key}
        if detail in ("values", "labels"):
            entry.update(message=failure.message, **failure.allowed)
        if detail == "labels" and failure.labels is not None:
            entry["labels"] = dict(failure.labels)
        fields.append(entry)
    result: Dict[str, Any] = {"error": "validation_failed", "fields": fields}
    if len(failures) > LISTED_FAILURES:
        result["more_fields"] = len(failures) - LISTED_FAILURES
    return result


def got(value: Any) -> str:
    """A value as a message quotes it: JSON, cut when long; NaN and infinities as JSON5 spells them."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return quote(value)


def _fail(field: Field, text: str, value: Any = None, *, quote: bool = True, **allowed: Any) -> Failure:
    message = f"values.{field.key} {text}" + (f", got {got(value)}" if quote else "")
    return Failure(field.key, message, allowed)


def unknown_field(key: Any, writable: Sequence[Field], number: int) -> Failure:
    """The `number`th key (from 0) the channel has no field for: the first carries the writable keys, and each that
    a rejection lists names the writable field it reads as, where there is one (another case or width of its key,
    or its label)."""
    name = show(key) if isinstance(key, str) else quote(key, ascii_only=True)
    allowed = {"allowed": [field.key for field in writable]} if number == 0 else {}
    hint = _resembled(key, writable) if number < LISTED_FAILURES else ""  # past those, a rejection says none
    return Failure(name, f"values.{name} is not a field of this channel{hint}", allowed)


def _resembled(key: Any, writable: Sequence[Field]) -> str:
    """What a message adds for a key that reads as a field's key or label once case and width are set aside."""
    meant = resembled(key, [field.key for field in writable])
    if meant is not None:
        return f"; keys are case-sensitive: did you mean {json.dumps(meant)}?"
    labels = {field.label: field.key for field in reversed(writable)}  # a label two fields share: the first's
    meant = resembled(key, [field.label for field in writable])
    if meant is not None:
        return (f"; a field is written by its key, not its label: did you mean {json.dumps(labels[meant])} "
                f"(labelled {quote(meant)})?")
    return ""


def ungranted_relation(field: Field) -> Failure:
    """A relation to a channel the caller was not granted: refused alike whatever it holds, naming no channel."""
    return Failure(field.key, f"values.{field.key} relates to a record channel you were not granted, so you cannot "
                              "write it; leave it out of values")


def not_unique(field: Field, value: Any, holder: str) -> Failure:
    """A unique field's value that another item already holds."""
    message = f"values.{field.key} must be unique in this channel, got {got(value)}, which item {holder} already has"
    return Failure(field.key, message)


def missing_relations(field: Field, missing: Sequence[str]) -> Failure:
    """Relation IDs that name no live item of the related channel."""
    channel = field.config["related_channel_id"]
    shown = missing[0] if len(missing) == 1 else list(missing)
    return _fail(field, f"must name items that exist in record channel {json.dumps(channel)}", shown)


# ---------------------------------------------------------------------------
# One value against one field.


def check_value(field: Field, value: Any) -> Optional[Failure]:
    """The failure of `value` for `field`, or None if it may be saved (None clears an optional field)."""
    if not field.writable:
        return Failure(field.key, f"values.{field.key} is a formula field and is computed, not written")
    if value is None or value == "" or value == []:
        if field.is_required:
            return _fail(field, "is required and cannot be cleared", quote=False)
        return None
    return _CHECKS[field.type](field, value)


def _text(field: Field, value: Any) -> Optional[Failure]:
    limit = field.config.get("max_length", TEXT_MAX_CHARACTERS)
    if not isinstance(value, str):
        return _fail(field, "must be text", value)
    if not _is_unicode(value):
        return _fail(field, "must be valid Unicode text without NUL characters", value)
    if len(value) > limit:
        return _fail(field, f"must be at most {limit} characters, got {len(value)}", quote=False,
                     max_length=limit)
    return None


def _number(field: Field, value: Any) -> Optional[Failure]:
    low, high = field.bounds()
    if not _is_number(value):
        return _fail(field, "must be a number" + _range_words(low, high, " "), value, **_allowed(low, high))
    if (low is not None and value < low) or (high is not None and value > high):
        return _fail(field, "must be" + _range_words(low, high, " "), value, **_allowed(low, high))
    if field.type == "currency" and round(value, 2) != value:
        return _fail(field, "must be an amount with at most 2 decimal places", value)
    return None


def _allowed(low: Optional[float], high: Optional[float]) -> Dict[str, Any]:
    """What a rejection of a number says it allows: min and max, where the field has them."""
    return {name: bound for name, bound in (("min", low), ("max", high)) if bound is not None}


def _rating(field: Field, value: Any) -> Optional[Failure]:
    low, high = field.stars()
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        return _fail(field, f"must be a whole number of stars from {low} to {high}", value, min=low, max=high)
    return None


def _range_words(low: Optional[float], high: Optional[float], lead: str) -> str:
    if low is not None and high is not None:
        return f"{lead}between {low} and {high}"
    if low is not None:
        return f"{lead}at least {low}"
    if high is not None:
        return f"{lead}at most {high}"
    return ""


def _date(field: Field, value: Any) -> Optional[Failure]:
    if isinstance(value, str) and _DATE.fullmatch(value):
        try:
            datetime.date.fromisoformat(value)
            return None
        except ValueError:
            return _fail(field, "must be a date as YYYY-MM-DD that the calendar has " + _no_such_day(value), value)
    return _fail(field, "must be a date as YYYY-MM-DD", value)


def _no_such_day(written: str) -> str:
    """Why a date written as YYYY-MM-DD is none: '(2026-02 has 28 days)', '(a month is 01 to 12)'."""
    year, month = int(written[:4]), int(written[5:7])
    if not 1 <= month <= 12:
        return "(a month is 01 to 12)"
    if year < 1:
        return "(a year is 0001 or later)"
    return f"({written[:7]} has {calendar.monthrange(year, month)[1]} days)"


def _boolean(field: Field, value: Any) -> Optional[Failure]:
    return None if isinstance(value, bool) else _fail(field, "must be true or false", value)


def _email(field: Field, value: Any) -> Optional[Failure]:
    words = "must be an email address such as name@example.com"
    if isinstance(value, str) and len(value) <= EMAIL_CHARACTERS and _is_unicode(value) and _EMAIL.fullmatch(value):
        if _CONTROL.search(value):
            return _fail(field, words + ", with no control character", value)
        if value.index("@") > EMAIL_LOCAL_CHARACTERS:
            return _fail(field, words + f", with at most {EMAIL_LOCAL_CHARACTERS} characters before the @", value)
        return None
    return _fail(field, words, value)


def _phone(field: Field, value: Any) -> Optional[Failure]:
    low, high = PHONE_DIGITS
    if isinstance(value, str) and _PHONE.fullmatch(value):
        if len(value) > PHONE_CHARACTERS:
            return _fail(field, f"must be a phone number of at most {PHONE_CHARACTERS} characters such as "
                                "+81 3 1234 5678", value)
        digits = sum(c.isdigit() for c in value)
        if low <= digits <= high:
            return None
    return _fail(field, f"must be a phone number of {low} to {high} digits such as +81 3 1234 5678", value)


def _url(field: Field, value: Any) -> Optional[Failure]:
    if _is_url(value):
        return None
    if isinstance(value, str) and _CONTROL.search(value):
        return _fail(field, "must be an http or https URL, with no control character", value)
    return _fail(field, "must be an http or https URL", value)


def _select(field: Field, value: Any) -> Optional[Failure]:
    if isinstance(value, str) and value in field.option_values:
        return None
    return _option_failure(field, "must be one of the option values", value)


def _multi_select(field: Field, value: Any) -> Optional[Failure]:
    values = field.option_values
    if not isinstance(value, list):
        return _option_failure(field, "must be a list of option values", value)
    strangers = [v for v in value if not isinstance(v, str) or v not in values]
    if strangers:
        return _option_failure(field, "must hold only option values",
                               strangers[0] if len(strangers) == 1 else strangers)
    if len(set(value)) != len(value):
        return _option_failure(field, "must not repeat an option", value)
    return None


def _option_values(field: Field) -> List[str]:
    return [option["value"] for option in field.options()]


def _option_failure(field: Field, text: str, value: Any) -> Failure:
    failure = _fail(field, text, value, allowed=_option_values(field))
    return dataclasses.replace(failure, labels=option_labels(field))


def option_labels(field: Field) -> Dict[str, str]:
    """A select's option values, each with the label people see (its value where it has none)."""
    return {option["value"]: option.get("label", option["value"]) for option in field.options()}


def _relation(field: Field, value: Any) -> Optional[Failure]:
    if isinstance(value, list) and len(value) <= RELATIONS_MAX and len(set(map(str, value))) == len(value) \
            and all(isinstance(v, str) and 0 < len(v) <= ID_CHARACTERS and _is_unicode(v) for v in value):
        return None  # whether the items exist is the store's question
    channel = json.dumps(field.config["related_channel_id"])
    return _fail(field, f"must be a list of at most {RELATIONS_MAX} distinct item IDs from record channel {channel}",
                 value)


def _file(field: Field, value: Any) -> Optional[Failure]:
    def sound(item: Any) -> bool:
        return (isinstance(item, dict) and set(item) == {"name", "url"} and isinstance(item["name"], str)
                and 0 < len(item["name"]) <= FILE_NAME_CHARACTERS and _is_unicode(item["name"])
                and _is_url(item["url"]))
    if isinstance(value, list) and len(value) <= FILES_MAX and all(sound(item) for item in value):
        return None
    return _fail(field, f'must be a list of at most {FILES_MAX} files, each {{"name": text, "url": an http or '
                        'https URL}', value)


def _json(field: Field, value: Any) -> Optional[Failure]:
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError):
        return _fail(field, "must be strict JSON (no NaN or infinities)", value)
    if not _is_unicode(text) or ("\\u0000" in text and _holds_nul(value)):  # json.dumps writes NUL as \u0000
        return _fail(field, "must be JSON whose texts and keys are valid Unicode without NUL characters", value)
    if len(text) > JSON_MAX_CHARACTERS:
        return _fail(field, f"must be JSON of at most {JSON_MAX_CHARACTERS} characters, got {len(text)}",
                     quote=False)
    return None


def _holds_nul(value: Any) -> bool:
    """Whether a JSON value holds a NUL character in any text or key, at any depth (walked without recursion)."""
    waiting = [value]
    while waiting:
        item = waiting.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            waiting += item.keys()
            waiting += item.values()
        elif isinstance(item, list):
            waiting += item
    return False


def _never(value: Any) -> bool:
    return False


def _passes_text(field: Field) -> Callable[[Any], bool]:
    limit = field.config.get("max_length", TEXT_MAX_CHARACTERS)
    return lambda value: (type(value) is str and 0 < len(value) <= limit and "\x00" not in value
                          and (value.isascii() or _is_unicode(value)))


def _passes_number(field: Field) -> Callable[[Any], bool]:
    low, high = field.bounds()
    low = -math.inf if low is None else low
    high = math.inf if high is None else high
    return lambda value: (((type(value) is float and math.isfinite(value)) or
                           (type(value) is int and -_WIDEST <= value <= _WIDEST)) and low <= value <= high)


_WIDEST = 2 ** 63  # an integer a float holds, far within 1.8e308: the quick test leaves wider ones to _is_number


def _passes_rating(field: Field) -> Callable[[Any], bool]:
    low, high = field.stars()
    return lambda value: type(value) is int and low <= value <= high


def _passes_date(field: Field) -> Callable[[Any], bool]:
    return lambda value: type(value) is str and len(value) == 10 and _is_date(value)  # YYYY-MM-DD, nothing longer kept


@functools.lru_cache(maxsize=1024)
def _is_date(text: str) -> bool:
    """Whether _date passes the text (whatever the field: it names the field only in a failure); kept, since the
    same dates are written again and again, and the calendar's answer never changes."""
    return _DATE.fullmatch(text) is not None and _calendar_has(text)


def _calendar_has(written: str) -> bool:
    try:
        datetime.date.fromisoformat(written)
    except ValueError:
        return False
    return True


def _passes_select(field: Field) -> Callable[[Any], bool]:
    options = field.option_values  # never "": an option value has a character at least
    return lambda value: type(value) is str and value in options


_QUICK_TESTS: Dict[str, Callable[[Field], Callable[[Any], bool]]] = {
    "text": _passes_text, "number": _passes_number, "percentage": _passes_number, "rating": _passes_rating,
    "date": _passes_date, "boolean": lambda field: lambda value: type(value) is bool, "select": _passes_select,
}
_CHECKS: Dict[str, Callable[[Field, Any], Optional[Failure]]] = {
    "text": _text, "number": _number, "currency": _number, "percentage": _number, "rating": _rating,
    "date": _date, "boolean": _boolean, "email": _email, "phone": _phone, "url": _url, "select": _select,
    "multi_select": _multi_select, "relation": _relation, "file": _file, "json": _json,
}


def _is_number(value: Any) -> bool:
    """A JSON number a float can hold: not a bool, not NaN or an infinity, not an integer past 1.8e308."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def _is_unicode(text: str) -> bool:
    """Valid Unicode text without NUL (which C strings, and many clients, take for the end of the text)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return "\x00" not in text


def _is_url(value: Any) -> bool:
    if not isinstance(value, str) or len(value) > URL_CHARACTERS or not _is_unicode(value) \
            or any(c.isspace() for c in value) or _CONTROL.search(value):
        return False
    try:
        parts = urllib.parse.urlsplit(value)
        port = parts.port  # ValueError for a port past 65535 or no number; 0, which no browser opens, is refused below
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and port != 0 and _port_digits(parts.netloc)


def _port_digits(netloc: str) -> bool:
    """Whether a URL's port, where it writes one, is ASCII digits alone: Python 3.9's urlsplit reads a port with
    int(), which takes "+80" and "٨٠" (Arabic-Indic digits) as 80, where newer Pythons refuse them as no number."""
    host = netloc.rpartition("@")[2]
    if "[" in host:  # an IPv6 host: its own colons are between the brackets
        host = host.partition("[")[2].partition("]")[2]
    port = host.partition(":")[2]
    return not port or (port.isascii() and port.isdigit())


# ---------------------------------------------------------------------------
# Unique values: one key for every spelling of the same value.


def unique_key(field: Field, value: Any) -> str:
    """The key a unique field's value is held under, the same for every spelling of one value (the value stored is
    the one given): text the same once composed as Unicode's NFC composes it ("é" as one character or as "e" and a
    combining accent); an email address in any case (RFC 5321 lets a mailbox's part before the @ tell case apart
    but counsels against relying on it); a URL whose scheme and host differ only in case, or whose path is empty
    where another's is "/" (RFC 3986); a phone number's digits and its leading +, whatever separates them; a number
    by its value (3 and 3.0).

    >>> email = Field.from_definition({"key": "contact", "label": "Contact", "type": "email", "is_unique": True})
    >>> unique_key(email, "Ana@Example.COM") == unique_key(email, "ana@example.com")
    True
    >>> text = Field.from_definition({"key": "name", "label": "Name", "type": "text", "is_unique": True})
    >>> unique_key(text, "Cafe\u0301") == unique_key(text, "Caf\u00e9")
    True
    >>> unique_key(text, "BUG") == unique_key(text, "bug")
    False
    """
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        value = unicodedata.normalize("NFC", value)
        value = _UNIQUE_SPELLINGS.get(field.type, str)(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _url_key(url: str) -> str:
    """A URL with its scheme and host in lower case and an empty path written "/".

    >>> _url_key("HTTPS://user:Pw@Example.COM:8080?q=A")
    'https://user:Pw@example.com:8080/?q=A'
    """
    parts = urllib.parse.urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    return urllib.parse.urlunsplit((parts.scheme.lower(), userinfo + at + host.lower(), parts.path or "/",
                                    parts.query, parts.fragment))


def _phone_key(phone: str) -> str:
    """A phone number's leading + and its digits, the separators left out.

    >>> _phone_key("+81 (3) 1234-5678"), _phone_key("03.1234.5678")
    ('+81312345678', '0312345678')
    """
    return ("+" if phone.lstrip().startswith("+") else "") + "".join(c for c in phone if c.isdigit())


_UNIQUE_SPELLINGS: Dict[str, Callable[[str], str]] = {"email": str.lower, "url": _url_key, "phone": _phone_key}


# ---------------------------------------------------------------------------
# Formulas: computed on every read from the item's times and the store's clock.


def as_people_read(field: Field, value: Any) -> Optional[str]:
    """A stored value as a person reads it where a change is put to them: options by their labels, a boolean as
    yes or no, text as it is (a json field's quoted), anything else as its JSON; None for nothing. Values that
    differ seldom read the same: a label that reads like another option's (the same text, or one that could pass
    for it: lookalikes.as_read) is followed by its option's value, a value that is no option says so, and a
    multi_select whose labels could run together (one reads as holding ", ") is a JSON list; where two still would
    (a label written like another's suffixed one), the question shows their stored_text beside them.

    >>> tag = Field.from_definition({"key": "tag", "label": "Tag", "type": "multi_select", "options": [
    ...     {"value": "a", "label": "Bug"}, {"value": "b", "label": "\u0412ug"}, {"value": "c", "label": "UI"}]})
    >>> as_people_read(tag, ["a", "c"]), as_people_read(tag, ["x"]), as_people_read(tag, [])
    ('Bug (a), UI', 'x (not an option)', None)
    """
    if value is None or value == [] or value == "":
        return None
    if field.type == "select":
        return option_read(option_names(field), value)
    if field.type == "multi_select" and isinstance(value, list):
        names = option_names(field)
        labels = [option_read(names, item) for item in value]
        return json.dumps(labels, ensure_ascii=False) if any(", " in as_read(label) for label in labels) \
            else ", ".join(labels)
    if field.type == "boolean":
        return "yes" if value else "no"
    if isinstance(value, str) and field.type != "json":  # a json field's text is quoted: it may look like an object
        return value
    return json.dumps(value, ensure_ascii=False)


def stored_text(value: Any) -> Optional[str]:
    """A stored value as its JSON, as the item's row holds it (keys in their stored order: two values whose keys
    come in another order are stored differently, so they differ here too), for the question to tell a change
    by and to show where as_people_read's text could leave two values alike; None for nothing (null, "" and []
    all clear a field).

    >>> stored_text({"b": 1, "a": "é"}), stored_text("1"), stored_text([])
    ('{"b": 1, "a": "é"}', '"1"', None)
    """
    if value is None or value == [] or value == "":
        return None
    return json.dumps(value, ensure_ascii=False)


def option_names(field: Field) -> Dict[str, str]:
    """Each option's value, with its label as a person is shown it: alone, or followed by its value where it reads
    like another option's label (lookalikes.told_apart: "Done" and "Dоne", with a Cyrillic о)."""
    labels = {value: str(label) for value, label in option_labels(field).items()}
    return dict(zip(labels, told_apart(list(labels.values()), list(labels))))


def option_read(names: Mapping[str, str], value: Any) -> str:
    """One option as a person reads it (`names`: option_names); a stored value that is no option, as itself and
    saying so."""
    return names[value] if value in names else f"{value} (not an option)"


def formula_parts(field: Field) -> Tuple[str, str]:
    """(function, argument) of a formula field, whose expression Field.from_definition has checked."""
    parts = _formula_parts(field.config["expression"])
    if parts is None:
        raise ValueError(f"field {field.key!r}: {field.config['expression']!r} is not a formula")
    return parts


@functools.lru_cache(maxsize=256)
def _formula_parts(expression: str) -> Optional[Tuple[str, str]]:
    """An expression's (function, argument), read once: a listing computes a formula for every item it shows."""
    match = _FORMULA.fullmatch(expression)
    return None if match is None else (match.group(1), match.group(2))


ONE_DAY = datetime.timedelta(days=1)


def formula_value(field: Field, values: Mapping[str, Any], times: Mapping[str, datetime.datetime],
                  now: datetime.datetime) -> Optional[int]:
    """days_since(created_at | updated_at | a date field) or days_until(a date field), in whole days."""
    function, argument = _formula_parts(field.config["expression"]) or formula_parts(field)
    moment = times.get(argument)  # an item's own time, or else a date field's day
    if moment is None:
        if values.get(argument) is None:
            return None
        day = datetime.date.fromisoformat(values[argument])
        moment = datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.timezone.utc)
    return formula_days(function, moment, now)


def formula_days(function: str, moment: datetime.datetime, now: datetime.datetime) -> int:
    """What days_since or days_until gives for `moment` at `now`: whole days, rounded down."""
    days = (now - moment) // ONE_DAY
    return days if function == "days_since" else -days
