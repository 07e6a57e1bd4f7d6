"""The argument check compiled: one Python function per inputSchema, written from the schema once, that says
whether a call passes both screen() and check() without walking the schema on every call.

Layer: core. `compiled(schema)` reads the same definition tools/list shows and writes the tests it asks for as
Python source (a closed object's keys, each argument's type, lengths, bounds, enums, dates; the open values of an
argument screened for nesting and wide integers as screen() screens them), compiles that once and returns it.
It answers True only for calls screen() and check() both pass; a False sends the call to them, so every refusal
keeps their words. A schema holding a keyword this was not written for compiles to a function that is always
False (screen() and check() alone judge it).

    >>> admits = compiled({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
    ...                    "required": ["n"], "additionalProperties": False})
    >>> admits({"n": 3}), admits({"n": 0}), admits({"n": 3, "m": 1})
    (True, False, False)
"""

import math
from typing import Any, Callable, Dict, List, Mapping, Optional

from osfoundry_tools.core.checks import _PLAIN_KEYWORDS, MAX_NESTING, NUMBER_BITS, SQLITE_INTEGER_MAX, _encodes
from osfoundry_tools.core.clock import parse_time


def compiled(schema: Mapping[str, Any]) -> Callable[[Any], bool]:
    """The call test for `schema`: True only when screen(value) and check(schema, value) would both pass."""
    writer = _Writer()
    test = writer.expression(schema, "value", 0)
    if test is None:
        return _never
    source = "\n".join(writer.functions + ["def admits(value):", f"    return {test}"])
    space: Dict[str, Any] = dict(writer.constants, _plain=_plain, _encodes=_encodes, _time=parse_time,
                                 _finite=math.isfinite)
    exec(compile(source, f"<the call test of a {schema.get('type', 'schema')}>", "exec"), space)
    whole = test[:-len("(value)")]  # a closed object's test is one call of its function: that function is the test
    return space[whole] if test == whole + "(value)" and whole in writer.names else space["admits"]


def _never(value: Any) -> bool:
    return False


def _plain(container: Any, depth: int) -> bool:
    """What screen() asks of an argument's open contents: no container deeper than MAX_NESTING (a container at
    `depth` already), no integer wider than NUMBER_BITS."""
    for item in (container.values() if type(container) is dict else container):
        kind = type(item)
        if kind is int:
            if item.bit_length() > NUMBER_BITS:
                return False
        elif kind is dict or kind is list:
            if depth >= MAX_NESTING or (item and not _plain(item, depth + 1)):
                return False
        elif isinstance(item, (dict, list, int)) and not isinstance(item, bool):  # a subclass: screen() judges it
            return False
    return True


class _Writer:
    """Python source for the tests of a schema: an expression per value, a function per object."""

    def __init__(self) -> None:
        self.functions: List[str] = []
        self.names: List[str] = []  # the functions' names, in the same order
        self.constants: Dict[str, Any] = {}

    def constant(self, value: Any) -> str:
        name = f"_c{len(self.constants)}"
        self.constants[name] = value
        return name

    def expression(self, schema: Any, name: str, depth: int) -> Optional[str]:
        """A Python expression over the variable `name`, true only when the value passes; None when unsure.
        `depth`: the containers the value sits in (the arguments object itself is at 0)."""
        if not isinstance(schema, Mapping) or not set(schema) <= _PLAIN_KEYWORDS or depth >= MAX_NESTING:
            return None
        if "anyOf" in schema:
            if len(schema) != 1 or not isinstance(schema["anyOf"], list):
                return None
            branches = [self.expression(branch, name, depth) for branch in schema["anyOf"]]
            if not branches or any(branch is None for branch in branches):
                return None
            return "(" + " or ".join(f"({branch})" for branch in branches) + ")"
        kind = schema.get("type")
        write = _KINDS.get(kind) if isinstance(kind, str) else None
        test = write(self, schema, name, depth) if write is not None else None
        if test is None:
            return None
        if "enum" in schema:
            if not isinstance(schema["enum"], list):
                return None
            test = f"({test} and {name} in {self.constant(list(schema['enum']))})"
        return test

    def string(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if not _whole(low) or (high is not None and not _whole(high)):
            return None
        length = f"{low} <= len({name})" + (f" <= {high}" if high is not None else "")
        test = (f"type({name}) is str and {length} and '\\x00' not in {name} and "
                f"({name}.isascii() or _encodes({name}))")
        if schema.get("format") == "date-time":
            test += f" and _time({name}) is not None"
        return "(" + test + ")"

    def integer(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        low, high = schema.get("minimum", -SQLITE_INTEGER_MAX), schema.get("maximum", SQLITE_INTEGER_MAX)
        if not _bound(low) or not _bound(high):
            return None
        low, high = max(low, -SQLITE_INTEGER_MAX), min(high, SQLITE_INTEGER_MAX)
        return f"(type({name}) is int and {self.constant(low)} <= {name} <= {self.constant(high)})"

    def number(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
        if not _bound(low) or not _bound(high):
            return None
        within = f"{self.constant(low)} <= {name} <= {self.constant(high)}"
        return (f"(((type({name}) is float and _finite({name})) or (type({name}) is int and "
                f"-{SQLITE_INTEGER_MAX} <= {name} <= {SQLITE_INTEGER_MAX})) and {within})")

    def boolean(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        return f"(type({name}) is bool)"

    def null(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        return f"({name} is None)"

    def array(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        if "items" not in schema:
            return f"(type({name}) is list and _plain({name}, {depth}))"
        item = self.expression(schema["items"], "item", depth + 1)
        if item is None:
            return None
        return f"(type({name}) is list and all({item} for item in {name}))"

    def object(self, schema: Mapping[str, Any], name: str, depth: int) -> Optional[str]:
        properties, required = schema.get("properties", {}), schema.get("required", [])
        closed = schema.get("additionalProperties") is False
        if not isinstance(properties, Mapping) or not isinstance(required, list) or \
                schema.get("additionalProperties", True) not in (True, False):
            return None
        if not properties and not closed:  # open contents: screened alone
            return f"(type({name}) is dict and _plain({name}, {depth}))"
        if not closed or not set(required) <= set(properties):  # open with named properties: check() alone
            return None
        lines = ["    if type(value) is not dict: return False"]
        if set(required) == set(properties):
            lines.append(f"    if len(value) != {len(properties)}: return False")
        else:
            lines.append(f"    if not value.keys() <= {self.constant(frozenset(properties))}: return False")
        for number, (key, branch) in enumerate(properties.items()):
            variable = f"v{number}"
            test = self.expression(branch, variable, depth + 1)  # an object inside adds its function first
            if test is None:
                return None
            if key in required:
                lines += [f"    {variable} = value.get({key!r}, _missing)",
                          f"    if {variable} is _missing or not {test}: return False"]
            else:
                lines += [f"    {variable} = value.get({key!r}, _missing)",
                          f"    if {variable} is not _missing and not {test}: return False"]
        lines.append("    return True")
        self.constants["_missing"] = _MISSING
        function = f"_object{len(self.functions)}"  # named once those inside are written, so no two share a name
        self.functions.append("\n".join([f"def {function}(value):"] + lines))
        self.names.append(function)
        return f"{function}({name})"


_MISSING = object()


def _whole(number: Any) -> bool:
    return type(number) is int


def _bound(number: Any) -> bool:
    return type(number) in (int, float) and not math.isnan(number)


_KINDS: Dict[str, Callable[[_Writer, Mapping[str, Any], str, int], Optional[str]]] = {
    "string": _Writer.string, "integer": _Writer.integer, "number": _Writer.number, "boolean": _Writer.boolean,
    "null": _Writer.null, "array": _Writer.array, "object": _Writer.object,
}
