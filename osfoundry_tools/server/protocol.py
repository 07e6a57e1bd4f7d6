"""MCP's JSON-RPC in both eras, once for both transports: the versions, the error codes, an error's message, a
tool's answer as a result, and one message as bytes.

Layer: server, its bottom; it imports only the standard library.

Glossary (MCP's words):
  message        one JSON-RPC 2.0 object; UTF-8 JSON
  request        a message with an id (a string or an integer): always answered, with the same id
  notification   a message without an id: never answered, not even when it is wrong
  protocol error a JSON-RPC error (-32700 parse, -32600 invalid request, -32601 unknown method,
                 -32602 invalid params, -32603 internal): the request itself was wrong
  tool error     a tools/call result with isError true: the call was understood, the store refused it
  era            a request whose params' _meta names a protocol version is the stateless 2026-07-28
                 revision's (server/discover, tools/list, tools/call); any other, the handshake era's
                 (initialize first). Nothing is kept between requests: each chooses its own
"""

import json
import re
from typing import Any, Dict, Optional

from osfoundry_tools.cli import VERSION
from osfoundry_tools.core import rejections

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # the handshake era, newest first
LATEST_VERSION = PROTOCOL_VERSIONS[0]
STATELESS_VERSIONS = ("2026-07-28",)  # the stateless era: no initialize, the version in every request's _meta
SUPPORTED_VERSIONS = STATELESS_VERSIONS + PROTOCOL_VERSIONS  # what server/discover and -32022 name, newest first
META = "io.modelcontextprotocol/"  # the prefix of the stateless era's _meta keys
VERSION_KEY, CAPABILITIES_KEY, SERVER_INFO_KEY = (META + "protocolVersion", META + "clientCapabilities",
                                                  META + "serverInfo")
CLIENT_INFO_KEY = META + "clientInfo"
TOOLS_TTL_MS = 300_000  # how long a client may keep tools/list: the tools never change while a server runs


SERVER_INFO = {"name": "osfoundry-reconstruction", "title": "osFoundry tools, reconstructed", "version": VERSION}
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
HEADER_MISMATCH, UNSUPPORTED_VERSION = -32020, -32022  # the stateless era's own errors
LOGGED_CHARACTERS = 300  # of each message received, with --verbose
CREDENTIAL_NAME = re.compile(r"token|secret|passw|bearer|^auth$|authoriz|api[-_]?key|^key$|jwt|credential|session|"
                             r"cookie", re.IGNORECASE)  # a query parameter or a message's key that may hold one


class ProtocolError(Exception):
    """A request answered with a JSON-RPC error instead of a result (`data`: the error's data, if any)."""

    def __init__(self, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


def tool_result(answer: Dict[str, Any]) -> Dict[str, Any]:
    """A store's answer as a CallToolResult: the JSON as text, and as structuredContent unless it is a rejection.

    A rejection (isError true) travels as text only. The Python SDK checks structuredContent against the
    tool's outputSchema only on success, but the TypeScript SDK's client (the Inspector's, other Node clients')
    checks whatever structuredContent it finds, and a rejection never matches the success schema: the agent
    would get "-32602 Structured content does not match the tool's output schema" instead of the rejection.
    """
    text = json.dumps(answer, ensure_ascii=False)
    result: Dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": "error" in answer}
    if not result["isError"]:
        result["structuredContent"] = answer
    return result


HANDSHAKE_OVER_HTTP = (
    "this request came over HTTP in the handshake era, where this server cannot ask your client's user back during "
    f"a call: have your client speak MCP {STATELESS_VERSIONS[0]} (it asks through the call's own "
    "answer), or connect over stdio")


class CallCancelled(Exception):
    """The client cancelled a call while its user was being asked: the call gets no answer."""


DISCOVER_NEEDS_META = (f' without "_meta": server/discover is MCP {STATELESS_VERSIONS[0]}\'s and needs "_meta" with '
                       f'"{VERSION_KEY}" and "{CAPABILITIES_KEY}"; a client of the handshake era opens with initialize')


def check_handshake_header(method: str, header: Optional[str]) -> None:
    """Over HTTP, a handshake-era request's MCP-Protocol-Version header: one this server speaks, and not the
    stateless era's without its _meta."""
    if header is None or header in PROTOCOL_VERSIONS:
        return
    if header in STATELESS_VERSIONS:
        raise ProtocolError(HEADER_MISMATCH, f"Header mismatch: MCP-Protocol-Version {rejections.quote(header)} but "
                            f'the params of {rejections.quote(method)} carry no "_meta" naming it')
    raise ProtocolError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                        {"supported": list(SUPPORTED_VERSIONS), "requested": header})


def same_request_id(named: Any, request_id: Any) -> bool:
    """Whether a message naming `named` (a cancellation's requestId) names the request of `request_id`: JSON-RPC
    ids are strings or integers, the same only when of one kind and equal (3.0 and true name no request 3).

    >>> same_request_id(3, 3), same_request_id(3.0, 3), same_request_id(True, 1), same_request_id("3", 3)
    (True, False, False, False)
    """
    return type(named) is type(request_id) and isinstance(named, (str, int)) and named == request_id


def error_message(request_id: Any, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A JSON-RPC error response (with `data`, if any)."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def request_id(message: Any) -> Any:
    """The id of a request, as an error answer may echo it; None when it has no valid one."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


def repeated_key_refusal(message: Any, repeated: Exception) -> Dict[str, Any]:
    """Invalid Request, to the message's id (null where it has no valid one), for a message an object of which holds
    a key twice (`repeated` names it): which of the values is meant cannot be known."""
    return error_message(request_id(message), INVALID_REQUEST, f"Invalid Request: {repeated}, and which of its "
                         "values is meant cannot be known; send each key of an object once")


def repeated_key_error(message: Any, repeated: Exception) -> Optional[Dict[str, Any]]:
    """What stdio answers such a message: repeated_key_refusal, or None for a notification, which is never
    answered (over HTTP every request is answered, so streamable_http refuses a notification too)."""
    if isinstance(message, dict) and "method" in message and "id" not in message:
        return None
    return repeated_key_refusal(message, repeated)


def loggable_message(message: Any, limit: int = LOGGED_CHARACTERS) -> str:
    """A message as a log line holds it, the same on both transports: its JSON in ASCII (so no character a client
    sent can begin a line), cut to `limit` characters ("..." marks a cut), the value of each key that looks like a
    credential replaced (redacted).

    >>> loggable_message({"method": "tools/call", "params": {"api_key": "k-1", "query": "caf\u00e9 " * 80}}, 76)
    '{"method": "tools/call", "params": {"api_key": "[redacted]", "query": "ca...'
    """
    try:
        text = json.dumps(redacted(message))
    except (RecursionError, ValueError):  # nested deeper than json.dumps goes from here; a lone surrogate is JSON
        return "(a message nested too deep to log)"
    return text if len(text) <= limit else text[:limit - 3] + "..."


def redacted(value: Any, depth: int = 3) -> Any:
    """`value` with "[redacted]" for the value of every key that looks like a credential, `depth` objects deep."""
    if not isinstance(value, dict) or depth == 0:
        return value
    return {key: "[redacted]" if CREDENTIAL_NAME.search(key) else redacted(item, depth - 1)
            for key, item in value.items()}


def encoded(message: Dict[str, Any]) -> bytes:
    """One message as both transports send it: compact JSON in UTF-8; TypeError or ValueError if it is not JSON."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the client sent, echoed back: escape everything instead
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


def too_long(limit: int) -> Dict[str, Any]:
    """The answer to a line longer than the limit, whose id cannot be known."""
    return error_message(None, INVALID_REQUEST, f"Invalid Request: a message may hold at most {limit} bytes; "
                         "this line was longer and was skipped")
