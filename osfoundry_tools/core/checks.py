"""The argument check: every call held against the inputSchema its tool lists, and values no check should walk.

Layer: core. `check` enforces the subset of JSON Schema the tools use and says, in a rejection an agent can act
on, which argument broke which rule; `acceptor` is its quick test, made once per schema; `screen` refuses nesting
and integers past any sound bound before either runs; `checked_text` is the same rule for what people store.
"""

import json
import math
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from osfoundry_tools.core.clock import parse_time
from osfoundry_tools.core.rejections import SHOWN_VALUE_CHARACTERS, InvalidArguments, name_of, quote, resembled, show

ID_CHARACTERS = 128  # the longest ID of anything: a resource, an article, an item, a caller
NAME_CHARACTERS = 200  # the longest name people give a knowledge base, a channel, a field or an option
MAX_NESTING = 32  # objects and arrays inside the arguments, at most this deep
NUMBER_BITS = 1024  # an integer any wider is past what a float (or a JSON client) can hold
SQLITE_INTEGER_MAX = 2 ** 63 - 1  # an integer argument must fit sqlite's 64 bits
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


_KIND_WORDS = {"string": "a string", "integer": "an integer", "number": "a finite number",
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
    words = " or ".join(_KIND_WORDS[k] for k in kinds)
    if schema.get("format") == "date-time":
        return words + " holding an RFC 3339 date-time to the microsecond, such as 2026-11-09T09:15:02.123456Z"
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


class RepeatedKey(ValueError):
    """A JSON object that holds one key twice: which of its values is meant cannot be known."""

    def __init__(self, key: str) -> None:
        super().__init__(f"key {quote(key)} appears twice in one object")
        self.key = key


def unique_json(text: str) -> Any:
    """JSON text as strict_json reads it; RepeatedKey for an object that holds a key twice.

    >>> unique_json('{"status": "fixed", "status": "new"}')
    Traceback (most recent call last):
    osfoundry_tools.core.checks.RepeatedKey: key "status" appears twice in one object
    """
    return strict_json(text, _unique_pairs)


def message_json(text: str) -> Tuple[Any, Optional[RepeatedKey]]:
    """JSON text as strict_json reads it (a repeated key's last value kept, as json.loads keeps it), and the
    RepeatedKey of the first object that holds a key twice, or None: a message's reader still learns its id, to
    refuse it to that id.

    >>> message_json('{"id": 7, "params": {"a": 1, "a": 2}}')
    ({'id': 7, 'params': {'a': 2}}, RepeatedKey('key "a" appears twice in one object'))
    """
    repeated: List[RepeatedKey] = []

    def pairs(items: List[Tuple[str, Any]]) -> Dict[str, Any]:
        found = dict(items)
        if len(found) < len(items) and not repeated:  # one comparison for an object without repeats
            try:
                _unique_pairs(items)
            except RepeatedKey as fault:
                repeated.append(fault)
        return found
    return strict_json(text, pairs), (repeated[0] if repeated else None)


def _unique_pairs(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise RepeatedKey(key)
        seen.add(key)
    return dict(pairs)


def _not_json(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


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
                name, meant = prefix + name_of(key), resembled(key, properties)
                fix = "Remove it and call again." if meant is None else \
                    f'Argument names are case-sensitive: did you mean "{meant}"? Rename it and call again.'
                raise InvalidArguments(
                    f"unknown argument {json.dumps(name, ensure_ascii=False)}: this takes only {allowed}. {fix}",
                    argument=name, rule="additionalProperties", got=show(value[key]))
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
    if not value.isascii() and not _encodes(value):  # ASCII always encodes (isascii reads a flag)
        raise ValueError(f"{what} must be valid Unicode text, not {show(value)!r}")
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
