"""Plumbing both stores share: tools as data, argument checks, errors, transactions, idempotency, events.

Layer: below kb_store.py and record_store.py, above sqlite3 (and PostgreSQL, whose
Dialect postgres_database.py holds). Nothing here knows what an article or a record
item is; a store hands in its tools, its SQL and its handlers, and gets back one
`call_tool` entry point that checks every call against the same inputSchema it lists.

Glossary (the words mean exactly this in both stores):
  tool             a definition an agent can list and call: name, title, description,
                   inputSchema, outputSchema, annotations (and securitySchemes where published)
  rejection        a tool error: a dict {"error": code, "message": text, ...}; it writes nothing
  version          what a compare-and-swap compares; an agent sends it back as expected_version
  idempotency key  an agent's name for one intended write; the same key with the same
                   arguments replays the first result instead of writing twice
  event            one row of a resource's log: {sequence, type, <subject>, <version>}
  sequence         an event's position in its resource's log: 1, 2, 3 ... with no gaps
  cursor           the last sequence an agent has seen; it polls with after_sequence=cursor
  grant            the set of resource IDs a caller may use; anything else looks absent
  dialect          what a store does differently on an engine (numbering, holding a key, appending an
                   event); a connection names its own (dialect_of), sqlite's being Dialect itself
  caller           who is calling, named when a store is opened ("agent" unless said); an
                   idempotency key belongs to (caller, tool, resource): one caller never meets
                   another's keys, nor its own keys of another resource

Left out on purpose: authentication (a store is opened for one caller, with its
grant) and pruning of old idempotency keys (Stripe keeps them 24 hours; a
reconstruction run never lives that long). The database file itself is database.py's.
"""

import copy
import dataclasses
import datetime
import hashlib
import json
import logging
import math
import re
import sqlite3
from typing import Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, TypeVar

log = logging.getLogger("osfoundry")

BUSY_TIMEOUT_SECONDS = 10.0
SHOWN_VALUE_CHARACTERS = 80  # how much of a bad value a rejection quotes back
ID_CHARACTERS = 128  # the longest ID of anything: a resource, an article, an item, a caller
NAME_CHARACTERS = 200  # the longest name people give a knowledge base, a channel, a field or an option
DEFAULT_CALLER = "agent"  # the caller a store serves unless connect() names another
WRITE_SCOPE = "osfoundry:write"  # the OAuth scope every edit tool needs
MAX_NESTING = 32  # objects and arrays inside the arguments, at most this deep
NUMBER_BITS = 1024  # an integer any wider is past what a float (or a JSON client) can hold
SHOWN_INTEGER_BITS = 12_000  # a wider integer is described, not written out (Python refuses past 4,300 digits)
SQLITE_INTEGER_MAX = 2 ** 63 - 1  # an integer argument must fit sqlite's 64 bits
EMPTY_VALUE = "(empty)"  # how a Preview's subject shows a field that holds nothing

# ---------------------------------------------------------------------------
# Rejections: small exception classes inside, dicts at the tool boundary.


class Rejection(Exception):
    """A tool call the store refuses; becomes {"error": code, "message": ...} at call_tool."""

    code = "rejected"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def as_result(self) -> Dict[str, Any]:
        """The JSON an agent receives."""
        return {"error": self.code, "message": self.message, **self.details}


class InvalidArguments(Rejection):
    """An argument breaks the tool's inputSchema; the details name the argument, rule and value."""

    code = "invalid_arguments"


class NotFound(Rejection):
    """The resource does not exist, is not granted, or is not visible to agents."""

    code = "not_found"


class VersionConflict(Rejection):
    """expected_version is not the current version: someone saved in between."""

    code = "version_conflict"


class IdempotencyKeyReused(Rejection):
    """The idempotency key was already used for a different call."""

    code = "idempotency_key_reused"


class Forbidden(Rejection):
    """The caller lacks the OAuth scope this tool needs."""

    code = "forbidden"


class UnsupportedResourceType(Rejection):
    """poll_resource_events was asked for a resource type this store does not serve."""

    code = "unsupported_resource_type"


class UnknownTool(Rejection):
    """No tool has this name."""

    code = "unknown_tool"


class IdTaken(ValueError):
    """People's side: a knowledge base, article, channel or item of this ID exists already (a ValueError, as every
    refusal of a people's method is, so that a caller can tell "already there" from "wrong")."""


class Busy(Rejection):
    """Other writers held the database longer than the busy timeout."""

    code = "busy"


class StorageError(Rejection):
    """sqlite could not read or write the database file (disk I/O, a full disk); nothing was saved."""

    code = "storage_error"


class ReadOnly(Rejection):
    """The database file may not be written: reads work, writes are refused."""

    code = "read_only"


def storage_failure(error: BaseException) -> Optional[Rejection]:
    """The rejection for an error sqlite raised about its file, or None when the error is no storage failure.

    Busy past the timeout is Busy; disk I/O, a full disk, a damaged file and the like are StorageError. A
    constraint or a misused API is a bug, not the storage's: None, so it stays an internal error.
    """
    if not isinstance(error, sqlite3.DatabaseError) or isinstance(
            error, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return None
    text = str(error)
    if "locked" in text or "busy" in text:
        return Busy("other writers held the database past the busy timeout; nothing was saved. Wait a moment and "
                    "send the same call again, with the same idempotency_key.")
    return StorageError(f"the database could not be read or written ({text[:120]}); nothing was saved. Send the "
                        "same call again, with the same idempotency_key, once the storage is back; if it keeps "
                        "failing, tell a person.")


# ---------------------------------------------------------------------------
# Clock helpers: versions that are times are RFC 3339 UTC with microseconds.

ONE_MICROSECOND = datetime.timedelta(microseconds=1)
_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)


def wall_clock() -> datetime.datetime:
    """The default clock: the only place a store reads wall time."""
    return datetime.datetime.now(datetime.timezone.utc)


def format_time(moment: datetime.datetime) -> str:
    """An aware datetime as RFC 3339 UTC with microseconds, e.g. 2026-11-09T09:15:02.123456Z."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("the clock must return an aware datetime (UTC), got a naive one")
    t = moment if moment.tzinfo is datetime.timezone.utc else moment.astimezone(datetime.timezone.utc)
    return t.isoformat(timespec="microseconds")[:-6] + "Z"  # "+00:00" as "Z"; isoformat is quicker than strftime


def parse_time(text: str) -> Optional[datetime.datetime]:
    """An RFC 3339 date-time (Z or an offset, up to microseconds) as aware UTC; None if it is not one."""
    match = _RFC3339.fullmatch(text)
    if not match:
        return None
    *fields, fraction, zone = match.groups()
    try:
        year, month, day, hour, minute, second = (int(f) for f in fields)
        offset = datetime.timedelta(0)
        if zone not in ("Z", "z"):
            sign = 1 if zone[0] == "+" else -1
            offset = sign * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        moment = datetime.datetime(
            year, month, day, hour, minute, second, int((fraction or "0").ljust(6, "0")),
            tzinfo=datetime.timezone(offset),
        )
        return moment.astimezone(datetime.timezone.utc)
    except (ValueError, OverflowError):
        return None


def checked_time(text: str) -> datetime.datetime:
    """A time already known to be RFC 3339 (one this code stored, or one the schema checked) as aware UTC."""
    moment = parse_time(text)
    if moment is None:
        raise ValueError(f"not an RFC 3339 date-time: {text!r}")
    return moment


def next_time_version(previous: Optional[str], now: datetime.datetime) -> str:
    """The clock's time as a version, moved one microsecond past `previous` if it would not exceed it.

    >>> still = datetime.datetime(2026, 11, 9, 9, 15, 2, 123456, tzinfo=datetime.timezone.utc)
    >>> next_time_version("2026-11-09T09:15:02.123456Z", still)
    '2026-11-09T09:15:02.123457Z'
    """
    candidate = format_time(now)
    if previous is not None and candidate <= previous:
        earlier = parse_time(previous)
        assert earlier is not None, f"stored version is not a time: {previous!r}"
        candidate = format_time(earlier + ONE_MICROSECOND)
    return candidate


# ---------------------------------------------------------------------------
# Tools as data, and the argument check that enforces what they list.


@dataclasses.dataclass(frozen=True)
class Tool:
    """One agent tool, exactly as listed to clients and enforced on every call."""

    name: str
    title: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    annotations: Mapping[str, Any]
    security_schemes: Tuple[Mapping[str, Any], ...] = ()
    accepts: Callable[[Any], bool] = dataclasses.field(init=False, repr=False, compare=False)
    # acceptor(input_schema), made once: call_tool's quick test before the full check()

    def __post_init__(self) -> None:
        object.__setattr__(self, "accepts", acceptor(self.input_schema))

    def listing(self) -> Dict[str, Any]:
        """The tool as an MCP tools/list entry: a copy, so no caller can loosen what call_tool enforces."""
        entry: Dict[str, Any] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": self.annotations,
        }
        if self.security_schemes:
            entry["securitySchemes"] = list(self.security_schemes)
        return copy.deepcopy(entry)


# Every MCP hint set, since a client assumes the worst of a missing one (readOnlyHint false,
# destructiveHint true, idempotentHint false, openWorldHint true). The published lists show
# readOnlyHint true on the reads and readOnlyHint false, destructiveHint true (and, for
# articles, openWorldHint true) on the edits; these keep every published value and fill
# the rest. An edit is idempotent because its idempotency key is mandatory: the same call
# again replays the first result. Its effect leaves the conversation (every other agent and
# person sees the saved version next), which is the published reason for openWorldHint.
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
SHARED_WRITE = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": True}


def object_schema(properties: Mapping[str, Any], required: List[str]) -> Dict[str, Any]:
    """A closed JSON Schema object: the listed properties, these required, nothing else."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }


def string(min_length: int, max_length: int, description: str, **extra: Any) -> Dict[str, Any]:
    """A JSON Schema string with length bounds."""
    return {"type": "string", "minLength": min_length, "maxLength": max_length,
            "description": description, **extra}


def integer(minimum: int, maximum: Optional[int], description: str, **extra: Any) -> Dict[str, Any]:
    """A JSON Schema integer with bounds (maximum None: unbounded above)."""
    schema = {"type": "integer", "minimum": minimum, "description": description, **extra}
    if maximum is not None:
        schema["maximum"] = maximum
    return schema


_JSON_TYPES = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v),
    "boolean": lambda v: isinstance(v, bool),
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "null": lambda v: v is None,
}


def _finite(number: float) -> bool:
    try:
        return math.isfinite(number)
    except OverflowError:  # an integer too large for a float
        return False


_ARTICLES = {"string": "a string", "integer": "an integer", "number": "a finite number",
             "boolean": "true or false", "object": "an object", "array": "an array", "null": "null"}
_TYPE_NAMES = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
               list: "an array", dict: "an object", type(None): "null"}


def describe(schema: Mapping[str, Any]) -> str:
    """What a schema accepts, in words an agent can act on.

    >>> describe({"type": "integer", "minimum": 1, "maximum": 20})
    'an integer from 1 to 20'
    """
    if "enum" in schema:
        return "one of " + ", ".join(json.dumps(v) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(describe(branch) for branch in schema["anyOf"])
    kinds = schema.get("type", "object")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    words = " or ".join(_ARTICLES[k] for k in kinds)
    if schema.get("format") == "date-time":
        return words + " holding an RFC 3339 date-time such as 2026-11-09T09:15:02.123456Z"
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None and high is not None:
        return f"{words} of {low} to {high} characters"
    if low is not None:
        return f"{words} of at least {low} character{'s' if low != 1 else ''}"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{words} from {low} to {high}"
    if low is not None:
        return f"{words} of at least {low}"
    return words


def strict_json(text: str, object_pairs_hook: Optional[Callable[[List[Tuple[str, Any]]], Any]] = None) -> Any:
    """JSON text as Python values, strictly: NaN, Infinity and -Infinity, which json.loads takes, are not JSON
    and raise ValueError like any other fault of the text; `object_pairs_hook` as json.loads takes it (a file's
    reader refuses a key written twice with one).

    >>> strict_json('{"a": [1, 2.5]}')
    {'a': [1, 2.5]}
    >>> strict_json('[NaN]')
    Traceback (most recent call last):
    ValueError: NaN is not JSON
    """
    return json.loads(text, parse_constant=_not_json, object_pairs_hook=object_pairs_hook)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def show(value: Any) -> Any:
    """A bad value as a rejection quotes it: strict JSON, valid Unicode, and cut when long."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > SHOWN_INTEGER_BITS:
        return f"an integer of {value.bit_length()} bits"  # its digits would cost more than they tell
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)[:SHOWN_VALUE_CHARACTERS].encode("utf-8", "replace").decode("utf-8")
        except (ValueError, RecursionError):
            return f"a {type(value).__name__} that cannot be shown"
    text = text.encode("utf-8", "replace").decode("utf-8")  # a lone surrogate becomes "?"
    value = json.loads(text)
    if len(text) <= SHOWN_VALUE_CHARACTERS:
        return value
    if isinstance(value, str):
        return value[:SHOWN_VALUE_CHARACTERS] + f"… ({len(value)} characters)"
    return text[:SHOWN_VALUE_CHARACTERS] + "…"


def quote(value: Any, *, ascii_only: bool = False) -> str:
    """A value as a message quotes it: its JSON text, cut when long, non-ASCII kept as is.

    ascii_only: non-ASCII escaped (é as \\u00e9), for the messages that have always quoted so: their wording,
    which tests and results compare, stays byte for byte.

    >>> quote("café"), quote("café", ascii_only=True)
    ('"café"', '"caf\\\\u00e9"')
    """
    return json.dumps(show(value), ensure_ascii=ascii_only)


def loggable(value: Any) -> str:
    """A value a client sent, as a log line may hold it: JSON in ASCII, cut, so no character can start a line."""
    return quote(value, ascii_only=True)


def name_of(key: Any) -> str:
    """An argument or field name as a message shows it: cut when long, valid Unicode, whatever was sent."""
    shown = show(key)
    return shown if isinstance(shown, str) else json.dumps(shown)


def _reject(path: str, rule: str, schema: Mapping[str, Any], value: Any, why: str = "") -> InvalidArguments:
    given = show(value)
    if rule == "type" and value is not None:
        why = f" ({_TYPE_NAMES.get(type(value), type(value).__name__)})" + why
    message = (f'argument "{path}" must be {describe(schema)}; got {json.dumps(given, ensure_ascii=False)}'
               f"{why}. Fix this argument and call again.")
    return InvalidArguments(message, argument=path, rule=rule, got=given)


def _characters(text: str) -> str:
    return f", which has {len(text)} character{'' if len(text) == 1 else 's'}"


def check(schema: Mapping[str, Any], value: Any, path: str = "arguments") -> None:
    """Raise InvalidArguments unless `value` satisfies `schema` (the subset of JSON Schema the tools use)."""
    if "anyOf" in schema:  # a nullable value: {"anyOf": [{"type": "string"}, {"type": "null"}]}
        if not any(_satisfies(branch, value, path) for branch in schema["anyOf"]):
            raise _reject(path, "type", schema, value)
        return
    kinds = schema.get("type")
    if kinds is not None and not (_JSON_TYPES[kinds](value) if isinstance(kinds, str) else
                                  any(_JSON_TYPES[k](value) for k in kinds)):
        raise _reject(path, "type", schema, value)
    if isinstance(value, str):
        _check_string(schema, value, path)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        _check_number(schema, value, path)
    elif isinstance(value, dict):
        _check_object(schema, value, path)
    elif isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            check(schema["items"], item, f"{path}[{index}]")
    if "enum" in schema and value not in schema["enum"]:
        raise _reject(path, "enum", schema, value)


def acceptor(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """A quick test made once from a schema: True only for values check() accepts, False for the rest, so that a
    call which passes skips check()'s walk (it costs more than a read's whole transaction) and one which does not
    gets check()'s own words. A schema with anything this was not written for is always left to check()."""
    if not isinstance(schema, Mapping) or not set(schema) <= _PLAIN_KEYWORDS:
        return _never
    if "anyOf" in schema:
        branches = [acceptor(branch) for branch in schema["anyOf"]]
        return lambda value: any(branch(value) for branch in branches)
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in _ACCEPTORS:  # a list of types, or none: check() alone
        return _never
    test = _ACCEPTORS[kind](schema)
    if "enum" in schema:
        allowed = list(schema["enum"])
        return lambda value: test(value) and value in allowed
    return test


_PLAIN_KEYWORDS = frozenset({"type", "description", "title", "default", "minLength", "maxLength", "format", "minimum",
                             "maximum", "enum", "anyOf", "properties", "required", "additionalProperties", "items"})


def _never(value: Any) -> bool:
    return False


def _accepts_string(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    low, high = schema.get("minLength", 0), schema.get("maxLength", math.inf)
    moment = schema.get("format") == "date-time"
    return lambda value: (isinstance(value, str) and low <= len(value) <= high and "\x00" not in value
                          and (value.isascii() or _encodes(value)) and (not moment or parse_time(value) is not None))


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _accepts_number(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    if schema["type"] == "integer":
        low, high = max(low, -SQLITE_INTEGER_MAX), min(high, SQLITE_INTEGER_MAX)
        return lambda value: isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
    return lambda value: _JSON_TYPES["number"](value) and low <= value <= high


def _accepts_object(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    properties = {key: acceptor(branch) for key, branch in schema.get("properties", {}).items()}
    closed, required = schema.get("additionalProperties") is False, tuple(schema.get("required", ()))

    def test(value: Any) -> bool:
        if not isinstance(value, dict) or (closed and not value.keys() <= properties.keys()):
            return False
        for key in required:
            if key not in value:
                return False
        for key, item in value.items():
            accepts = properties.get(key)
            if accepts is not None and not accepts(item):
                return False
        return True
    return test


def _accepts_array(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    items = acceptor(schema["items"]) if "items" in schema else None
    return lambda value: isinstance(value, list) and (items is None or all(items(item) for item in value))


_ACCEPTORS: Dict[str, Callable[[Mapping[str, Any]], Callable[[Any], bool]]] = {
    "string": _accepts_string, "integer": _accepts_number, "number": _accepts_number, "object": _accepts_object,
    "array": _accepts_array, "boolean": lambda schema: lambda value: isinstance(value, bool),
    "null": lambda schema: lambda value: value is None,
}


def _satisfies(schema: Mapping[str, Any], value: Any, path: str) -> bool:
    try:
        check(schema, value, path)
    except InvalidArguments:
        return False
    return True


def _check_string(schema: Mapping[str, Any], value: str, path: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _reject(path, "encoding", schema, value, ", which is not valid Unicode text") from None
    if "\x00" in value:  # C strings, and many clients, end text there: it is never part of a sound argument
        raise _reject(path, "encoding", schema, value, ", which holds a NUL character (U+0000)")
    if len(value) < schema.get("minLength", 0):
        raise _reject(path, "minLength", schema, value, _characters(value))
    if len(value) > schema.get("maxLength", math.inf):
        raise _reject(path, "maxLength", schema, value, _characters(value))
    if schema.get("format") == "date-time" and parse_time(value) is None:
        raise _reject(path, "format", schema, value)


def _check_number(schema: Mapping[str, Any], value: float, path: str) -> None:
    if schema.get("type") == "integer" and abs(value) > SQLITE_INTEGER_MAX:
        raise _reject(path, "range", schema, value, ", which does not fit in 64 bits")
    if value < schema.get("minimum", -math.inf):
        raise _reject(path, "minimum", schema, value)
    if value > schema.get("maximum", math.inf):
        raise _reject(path, "maximum", schema, value)


def _check_object(schema: Mapping[str, Any], value: Mapping[str, Any], path: str) -> None:
    properties = schema.get("properties", {})
    prefix = "" if path == "arguments" else path + "."
    if schema.get("additionalProperties") is False:
        for key in value:
            if key not in properties:
                allowed = ", ".join(properties) or "no arguments"
                name = prefix + name_of(key)
                raise InvalidArguments(
                    f'unknown argument {json.dumps(name, ensure_ascii=False)}: this takes only {allowed}. Remove it '
                    "and call again.", argument=name, rule="additionalProperties", got=show(value[key]))
    for key in schema.get("required", ()):
        if key not in value:
            raise InvalidArguments(
                f'missing required argument "{prefix}{key}": it must be {describe(properties[key])}.',
                argument=prefix + key, rule="required")
    for key, item in value.items():
        if key in properties:
            check(properties[key], item, prefix + key)


def checked_text(value: Any, what: str, limit: int) -> str:
    """Text people give: 1 to `limit` characters of valid Unicode without NUL, or ValueError saying so.

    What agents may not send, people may not store either: an answer must hold nothing an agent cannot echo.
    """
    if not isinstance(value, str) or not 0 < len(value) <= limit:
        raise ValueError(f"{what} must be 1 to {limit:,} characters of text, not {show(value)!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} must be valid Unicode text, not {show(value)!r}") from None
    if "\x00" in value:
        raise ValueError(f"{what} must not hold a NUL character, as {show(value)!r} does")
    return value


def checked_id(value: Any, what: str) -> str:
    """An ID people give (a knowledge base, an article, a channel, an item): 1 to ID_CHARACTERS characters of
    text; an agent could not name a longer one, and no answer repeats one beyond that."""
    return checked_text(value, what, ID_CHARACTERS)


def screen(arguments: Any) -> None:
    """Refuse what no check should have to walk: nesting past MAX_NESTING, integers past NUMBER_BITS.

    Iterative, so no input can exhaust the stack, and in one pass over the elements: only non-empty
    containers wait on the stack, each with the name of the argument it sits in, which a rejection names.
    """
    if not isinstance(arguments, dict):
        return  # check() says what arguments must be
    stack = []
    for key, value in arguments.items():  # every integer here first, then what the containers hold
        if isinstance(value, int):
            _screen_integer(value, (key,))
        elif value and isinstance(value, (dict, list)):
            stack.append((value, (key,), 1))
    while stack:
        container, where, depth = stack.pop()
        for item in (container.values() if isinstance(container, dict) else container):
            if isinstance(item, int):
                if item.bit_length() > NUMBER_BITS:  # a bool never is
                    _screen_integer(item, where)
            elif isinstance(item, (dict, list)):
                if depth >= MAX_NESTING:
                    path = _path(where)
                    raise InvalidArguments(
                        f"argument {json.dumps(path, ensure_ascii=False)} nests objects and arrays deeper than "
                        f"{MAX_NESTING} levels. Send flatter values and call again.", argument=path, rule="nesting",
                        got=f"more than {MAX_NESTING} levels")
                if item:
                    stack.append((item, where, depth + 1))


def _screen_integer(value: Any, where: Tuple[Any, ...]) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > NUMBER_BITS:
        path = _path(where)
        raise InvalidArguments(f"argument {json.dumps(path, ensure_ascii=False)} holds an integer of "
                               f"{value.bit_length()} bits, more than any JSON client can read. Send a number within "
                               "range and call again.", argument=path, rule="range", got=show(value))


def _path(keys: Sequence[Any]) -> str:
    """Where a value sits in the arguments, as a rejection names it: values.points, tags[2]; cut when long."""
    path = "arguments"
    for key in keys:
        name = name_of(key) if not isinstance(key, int) else f"[{key}]"
        path = name if path == "arguments" else f"{path}{name}" if isinstance(key, int) else f"{path}.{name}"
        if len(path) > 2 * SHOWN_VALUE_CHARACTERS:
            return path[:2 * SHOWN_VALUE_CHARACTERS] + "…"
    return path


# ---------------------------------------------------------------------------
# The agent side of a store: list the tools, check each call, turn failures into rejections.

Tools = TypeVar("Tools", bound="AgentTools")  # a store's own class: `with connect() as store` keeps its methods


class AgentTools:
    """The base of a store: its database, grant and clock, `list_tools` and `call_tool`, and the poll.

    A store supplies TOOLS and one `_tool_<name>` method per tool. A store that lists POLL_RESOURCE_EVENTS
    also declares RESOURCE_TYPE (the resource_type its event logs answer to), EVENTS (how its events read)
    and `_granted_log`; the poll itself is this class's.
    """

    TOOLS: Tuple[Tool, ...] = ()
    RESOURCE_TYPE: Optional[str] = None  # e.g. "knowledge_base": what poll_resource_events asks this store for
    EVENTS: Optional["EventLog"] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if any(tool.name == POLL_RESOURCE_EVENTS.name for tool in cls.TOOLS) and (
                cls.RESOURCE_TYPE not in RESOURCE_TYPES or cls.EVENTS is None):
            raise TypeError(f"{cls.__name__} lists {POLL_RESOURCE_EVENTS.name}, so it needs a RESOURCE_TYPE "
                            f"among {', '.join(RESOURCE_TYPES)} and an EVENTS log, not {cls.RESOURCE_TYPE!r} and "
                            f"{cls.EVENTS!r}")

    def __init__(self, database: Any, *, granted: Optional[Iterable[str]], clock: Callable[[], Any],
                 caller: str = DEFAULT_CALLER, scopes: Iterable[str] = (WRITE_SCOPE,)) -> None:
        self.database = database
        self.clock = clock
        self._serve(caller, granted, scopes)

    def _serve(self, caller: str, granted: Optional[Iterable[str]], scopes: Iterable[str]) -> None:
        """Whom this store answers: the caller's name, its grant and its OAuth scopes, each checked."""
        if isinstance(granted, str):
            raise TypeError("granted is a collection of resource IDs, not one string")
        if isinstance(scopes, str):
            raise TypeError("scopes is a collection of OAuth scopes, not one string")
        if not isinstance(caller, str) or not caller or len(caller) > ID_CHARACTERS:
            raise ValueError(f"caller must be a name of 1 to {ID_CHARACTERS} characters, not {caller!r}")
        self.caller = caller
        self.granted = None if granted is None else frozenset(granted)
        self.scopes = frozenset(scopes)

    def for_caller(self: "Tools", caller: str, granted: Optional[Iterable[str]], scopes: Iterable[str]) -> "Tools":
        """This store answering another caller, with that caller's grant and scopes, on the same database and
        clock: what a server gives each bearer token's requests. Closing it closes the shared database."""
        view = copy.copy(self)
        view._serve(caller, granted, scopes)
        return view

    def on(self: "Tools", database: Any) -> "Tools":
        """This store, for the same caller, grant and scopes, on another connection to its database (a server's
        reader: database.Database.reader()). Closing it closes that connection only."""
        view = copy.copy(self)
        view.database = database
        return view

    def require_scope(self, tool: str, scope: str = WRITE_SCOPE) -> None:
        """Forbidden unless this caller holds `scope` (an edit's, by default)."""
        if scope not in self.scopes:
            raise Forbidden(f"{tool} needs the OAuth scope {scope}, which this connection was not granted; nothing "
                            "was saved. Do not retry: tell the person what you wanted to change, or ask them to "
                            "reconnect with write access.", required_scope=scope)

    def is_granted(self, resource_id: str) -> bool:
        """Whether this caller may use the resource (None as the grant: every resource)."""
        return self.granted is None or resource_id in self.granted

    def __enter__(self: "Tools") -> "Tools":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def close(self) -> None:
        """Close the database connection."""
        self.database.close()

    def list_tools(self) -> List[Dict[str, Any]]:
        """Every tool as an MCP tools/list entry, from the same definitions call_tool enforces."""
        return [tool.listing() for tool in self.TOOLS]

    def tool(self, name: str) -> Tool:
        """The definition of one tool; UnknownTool if this store has none by that name."""
        for tool in self.TOOLS:
            if tool.name == name:
                return tool
        names = ", ".join(t.name for t in self.TOOLS)
        raise UnknownTool(f"there is no tool named {quote(name, ascii_only=True)}; this store has {names}.")

    def call_tool(self, name: str, arguments: Any) -> Dict[str, Any]:
        """Run one tool call as an agent would: JSON in, a JSON-serialisable dict out, never an exception."""
        try:
            tool = self.tool(name)
            screen(arguments)
            if not tool.accepts(arguments):
                check(tool.input_schema, arguments)
            return getattr(self, "_tool_" + tool.name)(arguments)
        except Rejection as rejection:
            return rejection.as_result()
        except sqlite3.DatabaseError as error:  # outside a transaction: the transaction helpers convert their own
            failure = storage_failure(error)
            return failure.as_result() if failure is not None else _internal_error(name, error)
        except Exception as error:  # a bug must still reach the agent as a rejection, not a traceback
            return _internal_error(name, error)

    def preview(self, name: str, arguments: Any) -> "Preview":
        """What one call would answer and change if it ran now, found by running it in a write transaction that is
        then rolled back: nothing is written, no event is appended, no idempotency key is kept. `before` and
        `after` are the call's subject as a person reads it (_as_people_see), after only when the call would
        write. What a server asks a person to approve is this, and the rejection a call would meet (a stale
        version, a bad value) is answered without asking anyone."""
        try:
            with self.database.write():
                before = self._as_people_see(name, arguments)
                answer = self.call_tool(name, arguments)
                writes = "error" not in answer and answer.get("replay") is False
                raise _Undone(Preview(answer, before, self._as_people_see(name, arguments) if writes else None))
        except _Undone as undone:
            return undone.preview
        except Rejection as rejection:  # the transaction could not begin: a read-only file, a busy database
            return Preview(rejection.as_result(), None, None)

    def _as_people_see(self, name: str, arguments: Any) -> Optional[Dict[str, Any]]:
        """The subject of a write call (the article, the item) as a person reads it, or None if the call names
        none this caller may see. A store whose tools write supplies it; its keys are Subject's."""
        return None

    def _tool_poll_resource_events(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """poll_resource_events, for every store: its own resource_type only, a granted resource only."""
        resource_type, events = self.RESOURCE_TYPE, self.EVENTS
        if resource_type is None or events is None:  # __init_subclass__ refuses such a store; this says so to mypy
            raise NotImplementedError(f"{type(self).__name__} lists {POLL_RESOURCE_EVENTS.name} but has no "
                                      "RESOURCE_TYPE or EVENTS")
        if arguments["resource_type"] != resource_type:
            raise unsupported_resource_type(arguments["resource_type"], [resource_type])
        with self.database.read() as connection:
            log_id = self._granted_log(connection, arguments["resource_id"])
            return events.poll(connection, log_id, arguments.get("after_sequence", 0),
                               arguments.get("limit", POLL_LIMIT_DEFAULT))

    def _granted_log(self, connection: sqlite3.Connection, resource_id: str) -> str:
        """Inside a read: the event-log ID of the resource `resource_id` names, if it exists and is granted;
        NotFound, worded as the store's other tools word it, otherwise. A store that polls supplies it."""
        raise NotImplementedError(f"{type(self).__name__} lists {POLL_RESOURCE_EVENTS.name} but has no _granted_log")


class Preview(NamedTuple):
    """What AgentTools.preview found: the answer the call would get now, and its subject before and after (each
    None when there is none to show: the call is rejected, replayed, or names nothing visible).

    A subject is a dict: "kind" ("article" or "item"), "id", "where" (its knowledge base or channel), "title",
    and either "content" (an article's text) or "fields" (an item's [label, value as shown] pairs, in schema
    order)."""

    answer: Dict[str, Any]
    before: Optional[Dict[str, Any]]
    after: Optional[Dict[str, Any]]


class _Undone(Exception):
    """Raised inside a preview's transaction to roll it back, carrying what it found."""

    def __init__(self, preview: Preview) -> None:
        super().__init__("preview")
        self.preview = preview


def _internal_error(name: Any, error: Exception) -> Dict[str, Any]:
    log.exception("tool %s failed", loggable(name))
    return {"error": "internal_error",
            "message": f"the store failed ({type(error).__name__}: {show(str(error))}); nothing was saved. "
                       "Retrying will probably fail the same way: report it to a person."}


# ---------------------------------------------------------------------------
# Idempotency: the first result of a keyed write, replayed for the same call.

IDEMPOTENCY_SCHEMA = """
CREATE TABLE IF NOT EXISTS idempotency_keys (
    caller      TEXT NOT NULL,   -- who sent the key: another caller's keys are another key space
    tool        TEXT NOT NULL,
    resource_id TEXT NOT NULL,   -- the knowledge base or record channel the call wrote to
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,   -- sha256 of the call's canonical JSON arguments
    result      TEXT NOT NULL,   -- the first result, replayed with "replay": true
    created_at  TEXT NOT NULL,
    PRIMARY KEY (caller, tool, resource_id, key)
) WITHOUT ROWID;
"""


IDEMPOTENCY_KEY_CHARACTERS = 255
IDEMPOTENCY_KEY = string(1, IDEMPOTENCY_KEY_CHARACTERS, "A fresh unique string for this change, e.g. a UUID.")
# every keyed edit's idempotency_key argument, in every store


class KeyScope(NamedTuple):
    """Where an idempotency key lives: one caller's calls of one tool on one resource (a NamedTuple: every edit
    makes one, and a frozen dataclass takes several times as long to build)."""

    caller: str
    tool: str
    resource_id: str


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
# json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":")), without building an encoder on
# every call: the same text, so fingerprints stored by earlier versions still match


def fingerprint(arguments: Mapping[str, Any]) -> str:
    """A digest of the call's arguments that ignores key order."""
    return hashlib.sha256(_CANONICAL(arguments).encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------
# What differs between engines, for what every store shares.

KEY_LOOKUP = ("SELECT fingerprint, result FROM idempotency_keys WHERE caller = ? AND tool = ? AND resource_id = ? "
              "AND key = ?")
KEY_STORE = ("INSERT INTO idempotency_keys (caller, tool, resource_id, key, fingerprint, result, created_at) "
             "VALUES (?, ?, ?, ?, ?, ?, ?)")
EVENT_APPEND = ("INSERT INTO events (resource_id, sequence, type, subject_id, version) "
                "SELECT ?, COALESCE(MAX(sequence), 0) + 1, ?, ?, ? FROM events WHERE resource_id = ?")


class Dialect:
    """The few things a store does differently on each engine: numbering new rows, holding an idempotency key,
    appending an event, and making creations safe. This class is sqlite's, where BEGIN IMMEDIATE lets one writer
    in at a time, so a read followed by a write can never be raced; postgres_database.py holds PostgreSQL's, where
    writers on different resources run at once. A connection names its dialect (dialect_of); the statements both
    engines run alike stay in the stores.
    """

    name = "sqlite"
    row_lock = ""  # what a person's save adds to the SELECT of the row it changes, to hold it until COMMIT
    share_lock = ""  # what a write adds to the SELECT of rows it relies on, so that none is deleted before COMMIT
    search: Any = None  # the knowledge-base store's search statements, where they are not its own (sqlite's FTS5)

    def next_number(self, connection: Any, table: str) -> int:
        """A new row's number in `table` (articles, items, knowledge_bases): one past the largest."""
        return connection.execute(f"SELECT COALESCE(MAX(number), 0) + 1 FROM {table}").fetchone()[0]

    def serialize_creation(self, connection: Any) -> None:
        """Before a person's create checks that an ID is free: nothing to do, writers already take turns."""

    def claim_key(self, connection: Any, scope: KeyScope, key: str, digest: str, created_at: str) -> Any:
        """The row (fingerprint, result) stored for this key, or None when the key is this transaction's to keep."""
        return connection.execute(KEY_LOOKUP, (scope.caller, scope.tool, scope.resource_id, key)).fetchone()

    def keep_key(self, connection: Any, scope: KeyScope, key: str, digest: str, result: str, created_at: str) -> None:
        """Store the first result of a key claim_key gave this transaction."""
        connection.execute(KEY_STORE, (scope.caller, scope.tool, scope.resource_id, key, digest, result, created_at))

    def append_event(self, connection: Any, resource_id: str, event_type: str, subject_id: str,
                     version: Any) -> None:
        """The resource's next event: one past its last, gap-free and in commit order because writers take turns."""
        connection.execute(EVENT_APPEND, (resource_id, event_type, subject_id, version, resource_id))


SQLITE = Dialect()


def dialect_of(connection: Any) -> Dialect:
    """The dialect of a store's connection: its own `dialect`, or sqlite's for a sqlite3 connection."""
    return getattr(connection, "dialect", SQLITE)


def idempotent(connection: sqlite3.Connection, scope: KeyScope, arguments: Mapping[str, Any], created_at: str,
               write: Callable[[], Dict[str, Any]], digest: Optional[str] = None) -> Dict[str, Any]:
    """Inside an open write transaction: replay the stored result for this key, or run `write` and store it.

    digest: the arguments' fingerprint, if the caller already took it. A rejection raised by `write`
    escapes and rolls the transaction back, so the key stays free. How the key is held while `write` runs is the
    engine's (Dialect.claim_key): one writer at a time on sqlite, a claimed row on PostgreSQL.
    """
    key, digest, dialect = arguments["idempotency_key"], digest or fingerprint(arguments), dialect_of(connection)
    row = dialect.claim_key(connection, scope, key, digest, created_at)
    if row is not None:
        if row["fingerprint"] != digest:
            raise IdempotencyKeyReused(
                f"idempotency_key {quote(key)} was already used for a different {scope.tool} call on "
                f"{quote(scope.resource_id)}; nothing was saved. Use a new key for a new change; reuse a key only "
                "to resend the very same call.",
                idempotency_key=show(key))
        return dict(json.loads(row["result"]), replay=True)
    result = dict(write(), replay=False)
    dialect.keep_key(connection, scope, key, digest, json.dumps(result), created_at)
    return result


def upgrade_idempotency_keys(connection: sqlite3.Connection, resource_of: Callable[[Dict[str, Any]], Optional[str]],
                             caller: str = DEFAULT_CALLER) -> None:
    """Schema 1 to 2: keys kept per (tool, key) move to (caller, tool, resource); a key whose resource its stored
    result does not tell is dropped (a key only guards retries, which an upgrade outlives)."""
    rows = connection.execute("SELECT tool, key, fingerprint, result, created_at FROM idempotency_keys").fetchall()
    connection.execute("DROP TABLE idempotency_keys")
    connection.execute(IDEMPOTENCY_SCHEMA)
    for row in rows:
        resource = resource_of(json.loads(row["result"]))
        if resource is not None:
            connection.execute("INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (caller, row["tool"], resource, row["key"], row["fingerprint"], row["result"],
                                row["created_at"]))


# ---------------------------------------------------------------------------
# The event log: per resource, sequence 1, 2, 3 ... in commit order, and its poll.

EVENT_LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    resource_id TEXT    NOT NULL,
    sequence    INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    subject_id  TEXT    NOT NULL,  -- the article or item the event is about
    version             NOT NULL,  -- its version after the event (text or integer, as the store keeps it)
    PRIMARY KEY (resource_id, sequence)
) WITHOUT ROWID;
"""

POLL_LIMIT_DEFAULT = 100


@dataclasses.dataclass(frozen=True)
class EventLog:
    """How a store names an event's subject and version in what agents receive."""

    subject_key: str  # "article_id" or "item_id"
    version_key: str  # "updated_at" or "version"

    def append(self, connection: sqlite3.Connection, resource_id: str, event_type: str,
               subject_id: str, version: Any) -> None:
        """Inside an open write transaction: add the resource's next event, gap-free and in commit order (how is
        the engine's: Dialect.append_event)."""
        dialect_of(connection).append_event(connection, resource_id, event_type, subject_id, version)

    def poll(self, connection: sqlite3.Connection, resource_id: str, after_sequence: int,
             limit: int) -> Dict[str, Any]:
        """Events with sequence > after_sequence, oldest first, at most `limit`, and where to resume."""
        after_sequence = min(after_sequence, SQLITE_INTEGER_MAX)  # no sequence is larger; sqlite takes no more
        rows = connection.execute(
            "SELECT sequence, type, subject_id, version FROM events "
            "WHERE resource_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            (resource_id, after_sequence, limit + 1)).fetchall()
        events = [{"sequence": r["sequence"], "type": r["type"], self.subject_key: r["subject_id"],
                   self.version_key: r["version"]} for r in rows[:limit]]
        if events:
            cursor = events[-1]["sequence"]
        else:  # nothing new: stay put, or come back to the head if the agent was past it
            (head,) = connection.execute("SELECT COALESCE(MAX(sequence), 0) FROM events WHERE resource_id = ?",
                                         (resource_id,)).fetchone()
            cursor = min(after_sequence, head)
        return {"events": events, "last_sequence": cursor, "has_more": len(rows) > limit}


RESOURCE_TYPES = ["channel", "note", "knowledge_base", "record", "session"]

_EVENT_SCHEMA = {
    "type": "object",
    "properties": {
        "sequence": {"type": "integer", "minimum": 1},
        "type": {"type": "string"},
        "article_id": {"type": "string", "description": "knowledge_base events: the article"},
        "updated_at": {"type": "string", "format": "date-time",
                       "description": "knowledge_base events: the article's version after the event"},
        "item_id": {"type": "string", "description": "record events: the item"},
        "version": {"type": "integer", "description": "record events: the item's version after the event"},
    },
    "required": ["sequence", "type"],
    "additionalProperties": False,
}

POLL_RESOURCE_EVENTS = Tool(
    name="poll_resource_events",
    title="Poll resource events",
    description=(
        "Resume from an event sequence for one granted channel, Note, knowledge base, record, or session. "
        "Pass the last_sequence of your previous poll as after_sequence (0 the first time): you get every "
        "event after it, oldest first, and a new last_sequence to keep. One integer replaces re-reading "
        "everything you cited; re-read only the articles or items the events name. An 'unpublished' event "
        "means a cited article is gone, not merely changed. If has_more is true, poll again at once."
    ),
    input_schema=object_schema({
        "resource_type": {"type": "string", "enum": RESOURCE_TYPES, "description":
                          "knowledge_base for a knowledge base's log, record for a record channel's"},
        "resource_id": string(1, ID_CHARACTERS, "The knowledge base ID or record channel ID."),
        "after_sequence": integer(0, None, "Return events after this sequence; your last last_sequence.",
                                  default=0),
        "limit": integer(1, 100, "At most this many events.", default=POLL_LIMIT_DEFAULT),
    }, ["resource_type", "resource_id"]),
    output_schema=object_schema({
        "events": {"type": "array", "items": _EVENT_SCHEMA},
        "last_sequence": {"type": "integer", "minimum": 0},
        "has_more": {"type": "boolean"},
    }, ["events", "last_sequence", "has_more"]),
    annotations=READ_ONLY,
)


def unsupported_resource_type(resource_type: str, served: Sequence[str],
                              holder: str = "this store") -> UnsupportedResourceType:
    """The rejection for a poll of a resource type that `holder` keeps no event log for."""
    kinds = [json.dumps(kind) for kind in served]
    return UnsupportedResourceType(
        f"{holder} keeps event logs for resource_type {' and '.join(kinds)} only, not {quote(resource_type)}; "
        f"poll with resource_type {' or '.join(kinds)} and its ID, or ask the server that holds the {resource_type}.",
        served=list(served))
