"""Tools as data: each agent tool's name, description, inputSchema, outputSchema and annotations in one place.

Layer: core. The same Tool is listed by tools/list and enforced on every call (its `admits` is compiled from its
inputSchema once); nobody restates a limit elsewhere.
"""

import copy
import dataclasses
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from osfoundry_tools.core.checks import acceptor
from osfoundry_tools.core.compiled_checks import compiled

DEFAULT_CALLER = "agent"  # the caller a store serves unless connect() names another
WRITE_SCOPE = "osfoundry:write"  # the OAuth scope every edit tool needs


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
    # acceptor(input_schema), made once: the quick test of check() alone
    admits: Callable[[Any], bool] = dataclasses.field(init=False, repr=False, compare=False)
    # compiled(input_schema), made once: call_tool's test of screen() and check() together; a False sends the call
    # to them for their words

    def __post_init__(self) -> None:
        object.__setattr__(self, "accepts", acceptor(self.input_schema))
        object.__setattr__(self, "admits", compiled(self.input_schema))

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
