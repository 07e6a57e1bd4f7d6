"""An MCP server for the two stores, over stdio or Streamable HTTP: point Claude Code, Codex or any MCP client at
the seven tools.

Layer: the product's front door, a client of the stores it is given; it adds the
protocol and nothing else. tools/list is the stores' own list_tools() (one source
of truth), and tools/call is their call_tool(); a store's rejection becomes a
result with isError true, whose text tells the agent what to do next.

Glossary (MCP's words, as ../shared/MCP.md uses them):
  message        one JSON-RPC 2.0 object on one line of stdin or stdout, UTF-8, ending in "\\n"
  request        a message with an id (a string or an integer): always answered, with the same id
  notification   a message without an id: never answered, not even when it is wrong
  protocol error a JSON-RPC error (-32700 parse, -32600 invalid request, -32601 unknown method,
                 -32602 invalid params, -32603 internal): the request itself was wrong
  tool error     a tools/call result with isError true: the call was understood, the store refused it
  workspace      the stores, keyed by the resource_type each polls for, the lock around every call that
                 may write, each store's readers (over HTTP), and the simulated colleague if any
  reader         a connection of its own to a store's database, for reads only: a read (a tool whose
                 annotations say readOnlyHint) runs on one, beside the other calls

  era            a request whose params' _meta names a protocol version is the stateless 2026-07-28
                 revision's (server/discover, tools/list, tools/call); any other, the handshake era's
                 (initialize first). Nothing is kept between requests: each chooses its own
  grant          a bearer token's (mcp_tokens.Grant), over HTTP: its calls are answered as its caller
  approval       with --approve-writes (or a token's approve_writes), a write waits for a person (approval.py):
                 asked through the call's own answer in the stateless era, by an elicitation/create request of
                 ours over stdio in the handshake era, refused over HTTP in the handshake era (no session)
  peer           the stdio connection: what initialize said the client can do, and how to ask its user

Left out on purpose: resources, prompts, logging and progress (the stores have only
tools); pagination of tools/list (seven tools fit). On stdio, requests are handled one
at a time, in the order they arrive (while a write waits for a person, a ping is answered and
the rest wait their turn); over HTTP (mcp_http.py) at once: each edit under the
workspace lock, each read on a reader of its store (under the lock too for a store in memory).
"""

import minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)


import argparse
import queue
import collections
import dataclasses
import functools
import json
import logging
import os
import random
import secrets
import signal
import socket
import sqlite3
import sys
import threading
import time
from typing import (Any, BinaryIO, Callable, Deque, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional,
                    Sequence, Tuple, Union, cast)

import approval
import content_files
import database
import http_front
import http_workers
import kb_store
import mcp_demo
import mcp_http
import mcp_tokens
import plumbing
import record_fields
import record_store
import cli
from cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, VERSION, OneLineParser, kind_of, run_main

log = logging.getLogger("osfoundry.mcp")

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")  # the handshake era, newest first
LATEST_VERSION = PROTOCOL_VERSIONS[0]
STATELESS_VERSIONS = ("2026-07-28",)  # the stateless era: no initialize, the version in every request's _meta
SUPPORTED_VERSIONS = STATELESS_VERSIONS + PROTOCOL_VERSIONS  # what server/discover and -32022 name, newest first
META = "io.modelcontextprotocol/"  # the prefix of the stateless era's _meta keys
VERSION_KEY, CAPABILITIES_KEY, SERVER_INFO_KEY = (META + "protocolVersion", META + "clientCapabilities",
                                                  META + "serverInfo")
CLIENT_INFO_KEY = META + "clientInfo"
TOOLS_TTL_MS = 300_000  # how long a client may keep tools/list: the tools never change while a server runs
GRANT_FIELDS = {"knowledge_base": "knowledge_bases", "record": "channels"}  # a token's grant, by resource_type
MAX_LINE_BYTES = 4 * 1024 * 1024  # a longer line is answered -32600 and skipped; the largest call, 100,000
#                                   characters of content, takes at most 600 KB even with every character escaped
SERVER_INFO = {"name": "osfoundry-reconstruction", "title": "osFoundry tools, reconstructed", "version": VERSION}
INSTRUCTIONS = (
    "Knowledge-base and record-channel tools on a shared workspace where people edit too. Keep each citation "
    "(article_id and updated_at) with your answer. Right before an edit, read the article or item again and pass "
    "its updated_at or version as expected_version; on version_conflict read again, re-apply your change and "
    "edit again (the same idempotency_key is fine). To learn what changed, call poll_resource_events with the "
    "last_sequence of your previous poll (0 the first time) instead of re-reading everything. Every "
    "list_record_items page carries the channel's schema: read it there and send option values, never labels. "
    "A result with isError true says what to do next."
)
APPROVAL_INSTRUCTIONS = (
    " Every edit is put to a person for approval before it is saved: make each edit one complete change they can "
    "judge, and if one comes back declined, do not send it again unless they ask for it.")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
HEADER_MISMATCH, UNSUPPORTED_VERSION = -32020, -32022  # the stateless era's own errors
POLL = plumbing.POLL_RESOURCE_EVENTS.name
LOGGED_CHARACTERS = 300  # of each message received, with --verbose


class ProtocolError(Exception):
    """A request answered with a JSON-RPC error instead of a result (`data`: the error's data, if any)."""

    def __init__(self, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


# ---------------------------------------------------------------------------
# The tools: every store's definitions listed once, each call routed to the store that serves it.


def by_resource_type(stores: Iterable[plumbing.AgentTools]) -> Dict[str, plumbing.AgentTools]:
    """The stores keyed by the RESOURCE_TYPE each declares, in the order given; ValueError for two of one type."""
    keyed: Dict[str, plumbing.AgentTools] = {}
    for store in stores:
        kind = store.RESOURCE_TYPE
        if kind is None or kind in keyed:
            raise ValueError(f"{type(store).__name__} needs a resource_type of its own, not {kind!r}")
        keyed[kind] = store
    return keyed


class Turn:
    """One read waiting for a reader: its lock is held until Readers.give_back hands it one (None: the readers
    closed)."""

    __slots__ = ("handed", "reader")

    def __init__(self) -> None:
        self.handed = threading.Lock()
        self.handed.acquire()
        self.reader: Optional[plumbing.AgentTools] = None

    def hand(self, reader: Optional[plumbing.AgentTools]) -> None:
        self.reader = reader
        self.handed.release()


def stopping() -> plumbing.StorageError:
    """The answer to a read that comes as the readers close."""
    return plumbing.StorageError("the server is stopping; nothing was read. Send the same call to a server that is "
                                 "running.")


class Readers:
    """A store's connections for reads (database.Database.reader), each serving one read at a time: a read takes an
    idle one for the length of its call and gives it back. When all are busy, reads wait their turn, first come
    first served: a reader given back goes straight to the read that has waited longest (with a plain queue, a
    thread giving one back and taking one again would take it before any waiting thread woke, for ever)."""

    def __init__(self, store: plumbing.AgentTools, count: int) -> None:
        """`count` readers of the store's database, opened now; UnusableFile in one line if one cannot be (those
        opened are closed again)."""
        self.readers: List[plumbing.AgentTools] = []
        self.idle: List[plumbing.AgentTools] = []
        self.waiting: Deque[Turn] = collections.deque()
        self.guard = threading.Lock()  # held only to look at idle and waiting
        self.closed = False
        try:
            for _ in range(count):
                self.readers.append(store.on(store.database.reader()))
                self.idle.append(self.readers[-1])
        except database.UnusableFile as error:
            self.close()
            shown = database.shown_location(store.database.path)
            raise database.UnusableFile(f"{shown}: a connection for reads (of {count}) cannot be opened beside the "
                                        f"store's own ({error}); raise the limit it met (open files, or "
                                        "PostgreSQL's max_connections) or run fewer server processes") from error
        except BaseException:
            self.close()
            raise

    def take(self) -> plumbing.AgentTools:
        """An idle reader, at once or in turn; StorageError once the readers are closed (the server is stopping)."""
        with self.guard:
            if self.closed:
                raise stopping()
            if self.idle:
                return self.idle.pop()
            turn = Turn()
            self.waiting.append(turn)
        turn.handed.acquire()
        if turn.reader is None:
            raise stopping()
        return turn.reader

    def give_back(self, reader: plumbing.AgentTools) -> None:
        """A reader done with its read: to the read that has waited longest, else idle."""
        with self.guard:
            if self.waiting:
                self.waiting.popleft().hand(reader)
            else:
                self.idle.append(reader)

    def close(self, wait: float = plumbing.BUSY_TIMEOUT_SECONDS) -> None:
        """Close every reader once the reads under way have given theirs back (`wait` seconds at most); the reads
        waiting, and any later one, answer StorageError."""
        with self.guard:
            if self.closed:
                return
            self.closed = True
            for turn in self.waiting:
                turn.hand(None)
            busy = [Turn() for _ in range(len(self.readers) - len(self.idle))]  # each served as a read given back
            self.waiting = collections.deque(busy)
        deadline = time.monotonic() + wait
        for turn in busy:
            turn.handed.acquire(timeout=max(0.0, deadline - time.monotonic()))
        for reader in self.readers:
            reader.close()


class Tools:
    """The stores' tools as one list; poll_resource_events goes to the store of its resource_type.

    Each tool's definition decides where its calls run: one whose annotations say readOnlyHint true, on one of
    its store's readers, beside every other call; any other (an edit), on the store's own connection under the
    workspace lock, one at a time. A store without readers (one in memory, which no second connection can
    open) serves its reads under the lock too."""

    def __init__(self, stores: Mapping[str, plumbing.AgentTools], lock: threading.Lock,
                 readers: Optional[Mapping[str, Readers]] = None) -> None:
        """`stores`: resource_type -> the store that keeps that type's event logs, in listing order
        (by_resource_type makes it from the stores); `readers`: resource_type -> that store's readers, if any."""
        self.stores = dict(stores)
        self.lock = lock
        self.readers = dict(readers or {})
        self.views: Dict[Any, plumbing.AgentTools] = {}  # (store, grant) -> the store as that caller sees it
        self.definitions: Dict[str, Dict[str, Any]] = {}
        self.route: Dict[str, plumbing.AgentTools] = {}
        for store in self.stores.values():
            for definition in store.list_tools():
                name = definition["name"]
                if name in self.definitions:  # poll_resource_events: every store lists the very same definition
                    if definition != self.definitions[name]:
                        raise ValueError(f"two stores define the tool {name} differently; one definition is listed")
                    continue
                self.definitions[name] = definition
                self.route[name] = store
        self.reads = frozenset(name for name, definition in self.definitions.items()
                               if definition.get("annotations", {}).get("readOnlyHint") is True)

    def listing(self) -> List[Dict[str, Any]]:
        """The tools/list entries, exactly as the stores define them."""
        return list(self.definitions.values())

    def call(self, name: str, arguments: Dict[str, Any], grant: Optional[mcp_tokens.Grant] = None) -> Dict[str, Any]:
        """The store's answer to one call (a result or a rejection): a read on one of its readers, anything else
        under the workspace lock; with a token's `grant`, the store answers as that caller, with its grant and
        scopes."""
        store = self.route[name]
        if name == POLL:
            kind = arguments.get("resource_type")
            if not isinstance(kind, str) or kind not in self.stores:  # a list or an object is no key to look up
                return self.unserved_poll(arguments)
            store = self.stores[kind]
        readers = self.readers.get(store.RESOURCE_TYPE or "") if name in self.reads else None
        if readers is None:
            with self.lock:
                return self.as_caller(store, grant).call_tool(name, arguments)
        try:
            reader = readers.take()
        except plumbing.Rejection as rejection:
            return rejection.as_result()
        try:
            return self.as_caller(reader, grant).call_tool(name, arguments)
        finally:
            readers.give_back(reader)

    def preview(self, name: str, arguments: Dict[str, Any],
                grant: Optional[mcp_tokens.Grant] = None) -> plumbing.Preview:
        """What a write would answer and change if it ran now (plumbing.AgentTools.preview), under the workspace
        lock, on the store's own connection, as the caller sees it; nothing is written."""
        with self.lock:
            return self.as_caller(self.route[name], grant).preview(name, arguments)

    def caller(self, name: str, grant: Optional[mcp_tokens.Grant] = None) -> str:
        """Who a call of `name` is answered as: the token's caller, else the store's own."""
        return grant.caller if grant is not None else self.route[name].caller

    def as_caller(self, store: plumbing.AgentTools, grant: Optional[mcp_tokens.Grant]) -> plumbing.AgentTools:
        """The store itself without a token, else as the token's caller sees it."""
        return store if grant is None else self.as_granted(store, grant)

    def as_granted(self, store: plumbing.AgentTools, grant: mcp_tokens.Grant) -> plumbing.AgentTools:
        """The store (its own connection, or one of its readers) as a token's caller sees it (kept, one per
        connection and grant). A store of a resource type the grant does not name serves that caller nothing."""
        key = (store, grant)
        view = self.views.get(key)
        if view is None:
            field = GRANT_FIELDS.get(store.RESOURCE_TYPE or "")
            granted = getattr(grant, field) if field else frozenset()
            view = self.views[key] = store.for_caller(grant.caller, granted, grant.scopes)
        return view

    def unserved_poll(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        """A poll no store serves: its arguments checked as a store checks them, then a rejection naming the
        resource types served."""
        try:
            plumbing.screen(arguments)
            plumbing.check(plumbing.POLL_RESOURCE_EVENTS.input_schema, arguments)
        except plumbing.Rejection as rejection:
            return rejection.as_result()
        return plumbing.unsupported_resource_type(arguments["resource_type"], list(self.stores),
                                                  "this server").as_result()


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


# ---------------------------------------------------------------------------
# The protocol: one message in, at most one message out.


class Exchange(NamedTuple):
    """Whom a request comes from and how they can be answered: a token's grant (HTTP), the stdio connection that
    can ask its user (the handshake era over stdio; None over HTTP), the stateless era's _meta (None in the
    handshake era), and the request's id."""

    grant: Optional[mcp_tokens.Grant] = None
    peer: Optional["Peer"] = None
    meta: Optional[Dict[str, Any]] = None
    request_id: Any = None


NO_EXCHANGE = Exchange()  # a request with no token, no stdio connection and no _meta
Method = Callable[[Dict[str, Any], Exchange], Dict[str, Any]]


class Server:
    """JSON-RPC 2.0 in both of MCP's eras, chosen per request: a request whose params' _meta names a protocol
    version is served statelessly (2026-07-28: server/discover, tools/list, tools/call, each result marked
    complete and stamped with the server's identity); any other is served in the handshake era (initialize, ping,
    tools/list, tools/call), as every client before 2026-07-28 speaks. Notifications are never answered. Nothing
    is kept between requests, so one Server answers every stdio line and every HTTP request alike."""

    def __init__(self, tools: Tools, instructions: str = INSTRUCTIONS,
                 approvals: Optional[approval.Approvals] = None) -> None:
        """`approvals`: who must have a person approve each write (approval.Approvals), None for nobody."""
        self.tools = tools
        self.instructions = instructions
        self.approvals = approvals
        self.methods: Dict[str, Method] = {
            "initialize": self.initialize, "ping": lambda params, exchange: {},
            "tools/list": self.list_tools, "tools/call": self.call_tool,
        }
        self.stateless_methods: Dict[str, Method] = {
            "server/discover": self.discover, "tools/list": self.list_cached_tools, "tools/call": self.call_tool,
        }

    def handle_line(self, line: bytes, peer: Optional["Peer"] = None) -> Optional[Dict[str, Any]]:
        """The answer to one line of stdin, or None (a notification, a client's response, a blank line); `peer`:
        the stdio connection, which can put a question to the client's user."""
        try:
            text = line.decode("utf-8").strip()
            if not text:  # a blank line carries no message and no id to answer
                return None
            log.debug("received %s", plumbing.loggable(text[:LOGGED_CHARACTERS]))
            message = plumbing.strict_json(text)
        except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            return error_message(None, PARSE_ERROR, f"Parse error: the line is not one JSON text in UTF-8 ({error})")
        return self.handle(message, peer=peer)

    def handle(self, message: Any, grant: Optional[mcp_tokens.Grant] = None,
               protocol_version: Optional[str] = None, peer: Optional["Peer"] = None) -> Optional[Dict[str, Any]]:
        """The answer to one parsed message, or None when nothing may be answered. `grant`: a bearer token's, whose
        caller, grant and scopes its tool calls get (None: the stores' own); `protocol_version`: the request's
        MCP-Protocol-Version header, over HTTP; `peer`: the stdio connection, over stdio."""
        if isinstance(message, list):
            return error_message(None, INVALID_REQUEST, "Invalid Request: batches (JSON arrays) are not supported "
                                 "since MCP 2025-06-18; send one message per line")
        if not isinstance(message, dict):
            return error_message(None, INVALID_REQUEST, "Invalid Request: a message must be a JSON object")
        if "id" not in message:
            self.notification(message)
            return None
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, (str, int)):
            return error_message(None, INVALID_REQUEST, "Invalid Request: id must be a string or an integer")
        if "method" not in message and ("result" in message or "error" in message):
            log.warning("ignored a response to id %s: this server sends no requests", plumbing.loggable(request_id))
            return None
        try:
            exchange = Exchange(grant, peer, None, request_id)
            return {"jsonrpc": "2.0", "id": request_id, "result": self.request(message, exchange, protocol_version)}
        except CallCancelled:  # the client cancelled the call while its user was asked: nothing may be answered
            return None
        except ProtocolError as error:
            return error_message(request_id, error.code, error.message, error.data)
        except Exception as error:  # a bug must reach the client as an error, and the server must go on
            log.exception("request %s failed", plumbing.loggable(request_id))
            return error_message(request_id, INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}")

    def request(self, message: Dict[str, Any], exchange: Exchange = NO_EXCHANGE,
                header: Optional[str] = None) -> Dict[str, Any]:
        """The result of a request, in the era it asks for, or ProtocolError."""
        if message.get("jsonrpc") != "2.0":
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "jsonrpc" must be "2.0"')
        method, params = message.get("method"), message.get("params", {})
        if not isinstance(method, str):
            raise ProtocolError(INVALID_REQUEST, 'Invalid Request: "method" must be a string')
        if not isinstance(params, dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: "params" of {plumbing.quote(method)} must be an '
                                "object")
        meta = params.get("_meta")
        if method != "initialize" and isinstance(meta, dict) and VERSION_KEY in meta:
            return self.stateless(method, params, exchange._replace(meta=meta, peer=None), header)
        check_handshake_header(method, header)
        if method not in self.methods:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {plumbing.quote(method)}"
                                + (DISCOVER_NEEDS_META if method == "server/discover" else ""))
        return self.methods[method](params, exchange)

    def stateless(self, method: str, params: Dict[str, Any], exchange: Exchange,
                  header: Optional[str]) -> Dict[str, Any]:
        """A request of the stateless era: its version and capabilities checked, its result marked complete (unless
        it asks for input) and stamped with who answered."""
        meta = exchange.meta or {}
        version = meta[VERSION_KEY]
        if version not in STATELESS_VERSIONS:
            raise ProtocolError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                                {"supported": list(SUPPORTED_VERSIONS), "requested": version})
        if header is not None and header != version:
            raise ProtocolError(HEADER_MISMATCH, f"Header mismatch: MCP-Protocol-Version {plumbing.quote(header)} "
                                f"but _meta names {plumbing.quote(version)}; send the same version in both")
        if not isinstance(meta.get(CAPABILITIES_KEY), dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: _meta needs "{CAPABILITIES_KEY}", an object (the '
                                "client's capabilities, {} for none)")
        if method not in self.stateless_methods:
            raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {plumbing.quote(method)} is not served in MCP "
                                f"{version}; this server answers {', '.join(self.stateless_methods)} there")
        result = self.stateless_methods[method](params, exchange)
        return {"resultType": "complete", **result, "_meta": {SERVER_INFO_KEY: dict(SERVER_INFO)}}

    def discover(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """server/discover: the versions served, the capabilities, the instructions."""
        return {"supportedVersions": list(SUPPORTED_VERSIONS), "capabilities": {"tools": {}},
                "instructions": self.instructions, "ttlMs": TOOLS_TTL_MS, "cacheScope": "public"}

    def list_cached_tools(self, params: Dict[str, Any], exchange: Exchange) -> Dict[str, Any]:
        """tools/list in the stateless era: the same list, with how long and by whom it may be cached (every
        caller gets the same tools; what a grant allows is judged at each call)."""
        return dict(self.list_tools(params, exchange), ttlMs=TOOLS_TTL_MS, cacheScope="public")

    def notification(self, message: Dict[str, Any]) -> None:
        """Note a notification; never answer one, not even a malformed or unknown one."""
        method, params = message.get("method"), message.get("params")
        if method == "notifications/cancelled":
            # Requests are answered one at a time before the next line is read, so a cancellation always
            # names a request already answered (or none): there is nothing left to stop, and nothing to send.
            cancelled = params.get("requestId") if isinstance(params, dict) else None
            log.debug("cancellation of request %s: already answered", plumbing.loggable(cancelled))
        elif method != "notifications/initialized":
            log.debug("ignored notification %s", plumbing.loggable(method))

    def initialize(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """Negotiate: echo a supported version, otherwise offer the latest (the client decides whether to go on).
        Over stdio, the connection keeps what the client can do (its capabilities) and its name."""
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: initialize needs "protocolVersion", a string '
                                f'such as "{LATEST_VERSION}"')
        version = asked if asked in PROTOCOL_VERSIONS else LATEST_VERSION
        client = params.get("clientInfo")
        if not isinstance(client, dict):
            client = {}
        if exchange.peer is not None:
            exchange.peer.met(params.get("capabilities"), client)
        log.info("client %s (version %s) asked for MCP %s; speaking %s", plumbing.loggable(client.get("name", "?")),
                 plumbing.loggable(client.get("version", "?")), plumbing.loggable(asked), version)
        return {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": dict(SERVER_INFO),
                "instructions": self.instructions}

    def list_tools(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """Every tool on one page."""
        if params.get("cursor") is not None:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: unknown cursor; tools/list has one page, ask "
                                "without a cursor")
        return {"tools": self.tools.listing()}

    def call_tool(self, params: Dict[str, Any], exchange: Exchange = NO_EXCHANGE) -> Dict[str, Any]:
        """One tool call; a wrong name or non-object arguments are protocol errors, the rest the store judges."""
        name, arguments = params.get("name"), params.get("arguments", {})
        if "name" not in params or not isinstance(name, str):
            raise ProtocolError(INVALID_PARAMS, 'Invalid params: tools/call needs "name", a tool name from '
                                "tools/list")
        if name not in self.tools.definitions:
            raise ProtocolError(INVALID_PARAMS, f"Unknown tool: {plumbing.quote(name)}; tools/list names the "
                                f"{len(self.tools.definitions)} tools")
        if not isinstance(arguments, dict):
            raise ProtocolError(INVALID_PARAMS, f'Invalid params: "arguments" of {name} must be an object')
        if self.approvals is not None and self.approvals.holds(name not in self.tools.reads, exchange.grant):
            held = self.held_call_stateless if exchange.meta is not None else self.held_call
            return held(name, arguments, params, exchange)
        return tool_result(self.tools.call(name, arguments, exchange.grant))

    # -- a write a person must approve ----------------------------------------

    def held_call(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                  exchange: Exchange) -> Dict[str, Any]:
        """The handshake era: ask the client's user during the call (elicitation/create over stdio), then save the
        change if they approve. Over HTTP, where this server keeps no session to ask back on, refused."""
        approvals, peer, grant = cast(approval.Approvals, self.approvals), exchange.peer, exchange.grant
        if peer is None:
            return tool_result(approval.unavailable(HANDSHAKE_OVER_HTTP).as_result())
        if not approval.can_elicit(peer.capabilities):
            return tool_result(approval.unavailable(
                "your client did not declare the elicitation capability (form mode) when it connected").as_result())
        question = self.question(name, arguments, grant)
        if isinstance(question, dict):
            return tool_result(question)
        approvals.tally.add("asked")
        answer = approval.Answer.of(peer.ask(approval.ELICIT, approval.elicitation(question), approvals.bound,
                                             exchange.request_id))
        if not answer.approved:
            return tool_result(approvals.refused(answer, approval.who_answers(peer.client)))
        return tool_result(approvals.committed(self.tools.call(name, arguments, grant)))

    def held_call_stateless(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                            exchange: Exchange) -> Dict[str, Any]:
        """The stateless era: the first round answers input_required (the question, and a sealed requestState);
        the retry carrying the person's answer and that state saves the change if they approved."""
        if "requestState" in params:
            return self.answered_stateless(name, arguments, params, exchange)
        approvals, meta = cast(approval.Approvals, self.approvals), exchange.meta or {}
        if not approval.can_elicit(meta.get(CAPABILITIES_KEY)):
            return tool_result(approval.unavailable(
                f'your client did not declare the elicitation capability (form mode) in "{CAPABILITIES_KEY}"'
            ).as_result())
        question = self.question(name, arguments, exchange.grant)
        if isinstance(question, dict):
            return tool_result(question)
        approvals.tally.add("asked")
        state = approvals.seal.issue(self.tools.caller(name, exchange.grant), name, arguments, approvals.bound)
        return {"resultType": "input_required", "requestState": state,
                "inputRequests": {approval.INPUT_KEY: {"method": approval.ELICIT,
                                                       "params": approval.elicitation(question)}}}

    def answered_stateless(self, name: str, arguments: Dict[str, Any], params: Dict[str, Any],
                           exchange: Exchange) -> Dict[str, Any]:
        """The stateless era's retry: its requestState checked against the seal, then the person's answer."""
        approvals, grant, meta = cast(approval.Approvals, self.approvals), exchange.grant, exchange.meta or {}
        refusal = approvals.seal.refusal(params["requestState"], self.tools.caller(name, grant), name, arguments)
        if refusal is not None:
            return tool_result(approval.state_refused(refusal))
        answer = approval.Answer.of(approval.answers_of(params.get("inputResponses")))
        if not answer.approved:
            return tool_result(approvals.refused(answer, approval.who_answers(meta.get(CLIENT_INFO_KEY))))
        saved = self.tools.call(name, arguments, grant)
        if saved.get("replay") is True:  # the change this state approved is saved already: a replay of the state
            return tool_result(approval.state_refused("it was used already: the change it approved is saved"))
        return tool_result(approvals.committed(saved))

    def question(self, name: str, arguments: Dict[str, Any],
                 grant: Optional[mcp_tokens.Grant]) -> Union[str, Dict[str, Any]]:
        """What to ask the person about a write, or the answer to give at once (a rejection, a replay) when the
        call, run now and rolled back, would write nothing."""
        preview = self.tools.preview(name, arguments, grant)
        at_once = cast(approval.Approvals, self.approvals).screen(preview.answer)
        if at_once is not None:
            return at_once
        title = self.tools.definitions[name].get("title", name)
        return approval.request_message(self.tools.caller(name, grant), title, preview.before, preview.after,
                                        arguments)


HANDSHAKE_OVER_HTTP = (
    "this request came over HTTP in the handshake era, where this server keeps no session on which to ask your "
    f"client's user back: have your client speak MCP {STATELESS_VERSIONS[0]} (it asks through the call's own "
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
        raise ProtocolError(HEADER_MISMATCH, f"Header mismatch: MCP-Protocol-Version {plumbing.quote(header)} but "
                            f'the params of {plumbing.quote(method)} carry no "_meta" naming it')
    raise ProtocolError(UNSUPPORTED_VERSION, "Unsupported protocol version",
                        {"supported": list(SUPPORTED_VERSIONS), "requested": header})


def error_message(request_id: Any, code: int, message: str, data: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A JSON-RPC error response (with `data`, if any)."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def too_long(limit: int) -> Dict[str, Any]:
    """The answer to a line longer than the limit, whose id cannot be known."""
    return error_message(None, INVALID_REQUEST, f"Invalid Request: a message may hold at most {limit} bytes; "
                         "this line was longer and was skipped")


# ---------------------------------------------------------------------------
# The transport: newline-delimited messages on stdin and stdout.


CHUNK_BYTES = 65536  # what one read of stdin asks for


def read_lines(read: Callable[[int], bytes], limit: int) -> Iterator[Optional[bytes]]:
    """Each line that `read(n)` yields until it returns b"" (EOF), its end included; None in place of a line over
    `limit` bytes (its end not counted), whose bytes are dropped as they come, never held.

    >>> chunks = iter([b"ab\\ncd", b"efgh\\n", b"ij"])
    >>> list(read_lines(lambda n: next(chunks, b""), 3))
    [b'ab\\n', None, b'ij']
    """
    pending, too_long = bytearray(), False
    while True:
        chunk = read(CHUNK_BYTES)
        if not chunk:
            break
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if too_long or end < 0:
                if not too_long:
                    pending += chunk[start:]
                    too_long = len(pending) > limit + 1  # past the longest line allowed and a "\r"
                if too_long:
                    pending.clear()
                if end < 0:
                    break
            if too_long:
                too_long = False
                yield None
            else:
                pending += chunk[start:end + 1]
                yield within(bytes(pending), limit)
                pending.clear()
            start = end + 1
    if too_long or pending:
        yield None if too_long else within(bytes(pending), limit)


def within(line: bytes, limit: int) -> Optional[bytes]:
    """The line, or None if it holds more than `limit` bytes before its end."""
    return line if len(line.rstrip(b"\r\n")) <= limit else None


def reader_of(stream: BinaryIO) -> Callable[[int], bytes]:
    """How to read a stream's bytes as they come: os.read on its file descriptor where it has one (no buffer, so
    no lock a thread could hold at the interpreter's exit), else the stream's own read1 or read."""
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):  # io.BytesIO and other streams without a descriptor
        return getattr(stream, "read1", stream.read)
    return functools.partial(os.read, descriptor)


def write_message(stream: BinaryIO, message: Dict[str, Any]) -> None:
    """One message as one line: compact JSON, "\\n", flushed."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the client sent, echoed back: escape everything instead
        data = json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")
    stream.write(data + b"\n")
    stream.flush()


END = object()  # what the inbox holds once stdin has closed
INBOX_LINES = 64  # lines read ahead of the one being answered; the reader waits while the inbox is full
DEFERRED_LINES = 1000  # requests held back while a person is asked; past this the question goes unanswered


def read_in_background(stdin: BinaryIO, limit: int) -> "queue.Queue[Any]":
    """An inbox that a thread fills with each line of stdin (None for one over `limit`), then END at EOF: so that
    while a call waits for a person's answer, the server can still read the client's messages, and stop waiting."""
    inbox: "queue.Queue[Any]" = queue.Queue(INBOX_LINES)

    def pump() -> None:
        try:
            for line in read_lines(reader_of(stdin), limit):
                inbox.put(line)
        except (OSError, ValueError) as error:  # stdin broke or was closed under the reader: as EOF
            log.info("stdin could not be read (%s): stopping", error)
        finally:
            inbox.put(END)

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    return inbox


class Peer:
    """The client at the other end of stdio, as far as a call needs it: what it said it can do when it connected
    (initialize's capabilities) and its name, and a way to ask its user a question in the middle of a call (a
    request of ours, whose response comes back on stdin among the client's own messages).

    While a question waits, a ping is answered at once, a cancellation of the call ends it unanswered
    (CallCancelled), and every other message is held back, in order, to be answered after the call."""

    def __init__(self, inbox: "queue.Queue[Any]", stdout: BinaryIO,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.inbox = inbox
        self.stdout = stdout
        self.clock = clock
        self.deferred: Deque[Any] = collections.deque()
        self.capabilities: Any = None
        self.client: Dict[str, Any] = {}
        self.asked = 0

    def met(self, capabilities: Any, client: Dict[str, Any]) -> None:
        """What initialize said of the client."""
        self.capabilities, self.client = capabilities, client

    def lines(self) -> Iterator[Optional[bytes]]:
        """Each line to answer, those held back during a question first, until stdin closes."""
        while True:
            line = self.deferred.popleft() if self.deferred else self.inbox.get()
            if line is END:
                return
            yield line

    def ask(self, method: str, params: Dict[str, Any], seconds: float, call_id: Any) -> Any:
        """Send the client our request and wait at most `seconds` for its result; None if none came (no answer in
        time, an error, stdin closed, too many messages held back). CallCancelled if the client cancels the call
        `call_id` meanwhile."""
        self.asked += 1
        asked_id = f"osfoundry-approval-{self.asked}"
        write_message(self.stdout, {"jsonrpc": "2.0", "id": asked_id, "method": method, "params": params})
        deadline = self.clock() + seconds
        while len(self.deferred) < DEFERRED_LINES:
            try:
                line = self.inbox.get(timeout=max(0.0, deadline - self.clock()))
            except queue.Empty:
                return None
            if line is END:
                self.deferred.append(END)
                return None
            message = self.sort(line, call_id)
            if isinstance(message, dict) and message.get("id") == asked_id and "method" not in message:
                return message.get("result")
        log.warning("a question to the client's user went unanswered: %d messages came meanwhile", DEFERRED_LINES)
        return None

    def sort(self, line: Optional[bytes], call_id: Any) -> Any:
        """A line read while a question waits: a response (returned), a ping (answered), the call's cancellation
        (CallCancelled), anything else held back for later."""
        try:
            message = plumbing.strict_json(line.decode("utf-8")) if line is not None else None
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            self.deferred.append(line)
            return None
        method, params = message.get("method"), message.get("params")
        if method == "notifications/cancelled" and isinstance(params, dict) and "id" not in message and \
                params.get("requestId") == call_id:
            raise CallCancelled()
        if method == "ping" and "id" in message:
            write_message(self.stdout, {"jsonrpc": "2.0", "id": message["id"], "result": {}})
        elif "method" in message:
            self.deferred.append(line)
        return message


def serve(server: Server, stdin: BinaryIO, stdout: BinaryIO, limit: int = MAX_LINE_BYTES) -> None:
    """Answer every line of stdin on stdout until EOF."""
    peer = Peer(read_in_background(stdin, limit), stdout)
    for line in peer.lines():
        answer = too_long(limit) if line is None else server.handle_line(line, peer)
        if answer is None:
            continue
        try:
            write_message(stdout, answer)
        except (TypeError, ValueError) as error:  # a bug: an answer that is not JSON must not end the server
            log.exception("the answer to request %s is not JSON", plumbing.loggable(answer.get("id")))
            write_message(stdout, error_message(answer.get("id"), INTERNAL_ERROR, f"Internal error: {error}"))


# ---------------------------------------------------------------------------
# The workspace: the stores the command line describes, and the colleague.


@dataclasses.dataclass
class Workspace:
    """What one server process serves."""

    stores: Dict[str, plumbing.AgentTools]  # resource_type -> its store, as by_resource_type keys them
    lock: threading.Lock  # held by every call that may write (an edit, a change of the colleague's)
    colleague: Optional[mcp_demo.Colleague]
    description: str  # for the startup line
    instructions: str
    readers: Dict[str, Readers] = dataclasses.field(default_factory=dict)  # resource_type -> its store's readers

    def tools(self) -> Tools:
        return Tools(self.stores, self.lock, self.readers)

    def close(self, wait: float = plumbing.BUSY_TIMEOUT_SECONDS) -> None:
        """Stop the colleague, then close every connection, each once the calls under way on it are answered
        (`wait` seconds at most for each kind): the readers, then the stores' own. A connection closed under a
        call still running on it may take the process down with it."""
        if self.colleague is not None:
            self.colleague.stop()
        for readers in self.readers.values():
            readers.close(wait)
        edits_done = self.lock.acquire(timeout=wait)
        try:
            for store in self.stores.values():
                store.close()
        finally:
            if edits_done:
                self.lock.release()


def open_readers(stores: Mapping[str, plumbing.AgentTools], count: Optional[int] = None) -> Dict[str, Readers]:
    """Readers for each store that can have them (none for a store in memory, which only its own connection can
    see): `count` each, or as many as its engine says (database.Database.READERS); UnusableFile in one line if one
    cannot be opened, with every reader opened so far closed again."""
    opened: Dict[str, Readers] = {}
    try:
        for kind, store in stores.items():
            if store.database.shareable:
                opened[kind] = Readers(store, store.database.READERS if count is None else count)
    except BaseException:
        for readers in opened.values():
            readers.close()
        raise
    return opened


def open_workspace(options: argparse.Namespace, clock: Callable[[], Any] = plumbing.wall_clock,
                   fill: bool = True) -> Workspace:
    """Open both stores as the options say; with --demo, write the demo's knowledge base and bug tracker into each
    database that does not hold them yet; write each --kb-from-dir and --channel-from source whose ID the database
    does not hold yet. With fill=False (a worker of --workers, whose parent filled the databases) only open: no
    source is read again and nothing is written.

    The sources are read and checked before any database is opened: content_files.ContentError leaves every
    file as it was. Serving HTTP, where requests are answered at once, each store of a file or a PostgreSQL
    database also opens its connections for reads (open_readers; over stdio, answered one at a time, reads would
    gain nothing by them); one that cannot be opened fails the start with database.UnusableFile, in one line."""
    content = (content_files.read_content(options.kb_from_dir, options.channel_from) if fill
               else content_files.Content())
    kb_path, records_path = options.kb_db or ":memory:", options.records_db or ":memory:"
    kb_shown, records_shown = database.shown_location(kb_path), database.shown_location(records_path)  # no password
    read_only = True if options.read_only else None  # None: read-only where the process may not write
    kb = kb_store.connect(kb_path, granted=options.grant_kb, clock=clock, caller=options.caller,
                          durability=options.durability, read_only=read_only)
    try:
        records = record_store.connect(records_path, granted=options.grant_channel, scopes=options.scopes,
                                       rejection_detail=options.rejection_detail, clock=clock,
                                       caller=options.caller, durability=options.durability, read_only=read_only)
    except BaseException:
        kb.close()
        raise
    lock, colleague, plan, kept = threading.Lock(), None, None, []
    try:
        if options.demo:
            plan = mcp_demo.draw_plan(options.seed)
            kept = write_demo(plan, kb, records, kb_shown, records_shown) if fill else []
            if options.people_edit_every:
                colleague = mcp_demo.Colleague(kb, records, plan, random.Random(options.seed), lock,
                                               options.people_edit_every)
        kept_content = content_files.write_content(content, kb, records)
        stores = by_resource_type([kb, records])
        over_http = getattr(options, "http", None) is not None
        readers = open_readers(stores) if over_http else {}
    except BaseException:
        kb.close()
        records.close()
        raise
    loaded = describe_content(content, kept_content, kb_shown, records_shown)
    description = describe(options, kb_shown, records_shown, plan, kept, loaded)
    if over_http:
        description += describe_readers(stores, readers)
    return Workspace(stores, lock, colleague, description, instructions_for(options), readers)


def describe_readers(stores: Mapping[str, plumbing.AgentTools], readers: Mapping[str, Readers]) -> str:
    """The startup line's account of where reads run, serving HTTP."""
    shared = [f"{kind} {len(readers[kind].readers)}" for kind in stores if kind in readers]
    alone = [kind for kind in stores if kind not in readers]
    parts = [f"connections for reads beside each store's own: {', '.join(shared)}"] if shared else []
    parts += [f"reads under the workspace lock (in memory): {', '.join(alone)}"] if alone else []
    return "".join("; " + part for part in parts)


def write_demo(plan: mcp_demo.Plan, kb: kb_store.KnowledgeBaseStore, records: record_store.RecordStore,
               kb_path: str, records_path: str) -> List[str]:
    """The demo's knowledge base and bug tracker, each written (in one transaction) where its database does not
    hold it yet; returns the paths of the databases that held it, served as found."""
    kept = []
    for holds, write, path in ((lambda: kb.has_knowledge_base(mcp_demo.KNOWLEDGE_BASE),
                                lambda: mcp_demo.write_knowledge_base(kb, plan), kb_path),
                               (lambda: records.has_channel(mcp_demo.CHANNEL),
                                lambda: mcp_demo.write_bug_tracker(records, plan), records_path)):
        try:
            if not holds():
                write()
                continue
        except plumbing.IdTaken:  # another server, sharing the database, wrote it in between
            pass
        kept.append(path)
    return kept


def describe(options: argparse.Namespace, kb_path: str, records_path: str, plan: Optional[mcp_demo.Plan],
             kept: Sequence[str], loaded: Sequence[str] = ()) -> str:
    """The startup line's account of what is served; `kept`: database files that already held something;
    `loaded`: what describe_content says of the --kb-from-dir and --channel-from sources."""
    parts = [f"knowledge bases in {kb_path}", f"record channels in {records_path}"]
    if plan is not None:
        demo = f"demo (seed {options.seed}): {mcp_demo.describe(plan)}"
        parts.append(demo + (f", written only where new: {', '.join(kept)} served as found" if kept else ""))
    parts.extend(loaded)
    if getattr(options, "tokens", None) is not None:
        parts.append(f"callers, grants and scopes from the token file: {options.tokens!r}")
    else:
        parts.append("granted knowledge bases: " + (", ".join(options.grant_kb) if options.grant_kb else "all"))
        parts.append("granted record channels: " + (", ".join(options.grant_channel) if options.grant_channel
                                                    else "all"))
        parts.append("scopes: " + (", ".join(options.scopes) or "none (edit_record_item answers forbidden)"))
        parts.append(f"caller: {options.caller}")
    if getattr(options, "approve_writes", False):
        parts.append(f"writes: each put to a person for approval (answer within {options.approval_timeout:g} s)")
    parts.append(f"durability: {options.durability}")
    parts.append(f"rejection detail: {options.rejection_detail}")
    if options.people_edit_every:
        parts.append(f"people save an article and move an item every {options.people_edit_every:g} s")
    return "; ".join(parts)


def describe_content(content: content_files.Content, kept: Sequence[content_files.Source], kb_path: str,
                     records_path: str) -> List[str]:
    """Each source as loaded, or as found already in its database file (written only where new)."""
    parts = []
    for source in content.sources():
        path = kb_path if isinstance(source, content_files.KnowledgeBase) else records_path
        if any(source is found for found in kept):
            parts.append(f"{source.label()} already in {path}, served as found, not loaded from {source.source} "
                         f"(to load the files again, remove {path} or serve from memory)")
        else:
            parts.append(source.summary())
    return parts


def instructions_for(options: argparse.Namespace) -> str:
    """INSTRUCTIONS, plus the IDs an agent may use where the server knows them (no tool lists them)."""
    kbs = options.grant_kb or ([mcp_demo.KNOWLEDGE_BASE] if options.demo else []) + [
        content_files.knowledge_base_id(folder) for folder in options.kb_from_dir]
    channels = options.grant_channel or ([mcp_demo.CHANNEL] if options.demo else []) + [
        content_files.channel_id(rows) for rows, _ in options.channel_from]
    known = [f"knowledge base IDs: {', '.join(kbs)}"] if kbs else []
    known += [f"record channel IDs: {', '.join(channels)}"] if channels else []
    held = APPROVAL_INSTRUCTIONS if getattr(options, "approve_writes", False) else ""
    return INSTRUCTIONS + held + (f" Served here: {'; '.join(known)}." if known else "")


# ---------------------------------------------------------------------------
# The command line.


def seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


class OneRecordALine(logging.Formatter):
    """A log record whose only line starts are its own: every further line (a traceback's, or a line break a
    client smuggled into an error) is indented under it, and other line separators are escaped."""

    SEPARATORS = {"\r": "\\r", "\x0b": "\\x0b", "\x0c": "\\x0c", "\x1c": "\\x1c", "\x1d": "\\x1d",
                  "\x1e": "\\x1e", "\x85": "\\x85", "\u2028": "\\u2028", "\u2029": "\\u2029"}

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for separator, escaped in self.SEPARATORS.items():
            text = text.replace(separator, escaped)
        return text.replace("\n", "\n    | ")


def caller_name(text: str) -> str:
    """A caller's name: 1 to plumbing.ID_CHARACTERS printable characters, as a store takes it."""
    if not 0 < len(text) <= plumbing.ID_CHARACTERS or not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} is not a caller name of 1 to {plumbing.ID_CHARACTERS} printable "
                                         "characters")
    return text


PROG = "mcp_server.py"  # the command's name in its messages, unless started by another name (osfoundry-mcp)


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command line, each option explained."""
    p = OneLineParser(prog=prog, description=(
        "Serve the seven osFoundry tools (knowledge bases and record channels) over MCP on stdio: "
        "newline-delimited JSON-RPC on stdin and stdout, logs on stderr. Give --demo, a database file, "
        "your own content (--kb-from-dir, --channel-from), or several of them."))
    p.add_argument("--demo", action="store_true", help=(
        f"serve a demo workspace: knowledge base {mcp_demo.KNOWLEDGE_BASE} (a help centre of {mcp_demo.ARTICLES} "
        f"published articles in English on accounts, billing, integrations and troubleshooting, beside "
        f"{mcp_demo.DRAFTS} drafts and {mcp_demo.UNPUBLISHED} unpublished one) and "
        f"the bug tracker channel {mcp_demo.CHANNEL} ({mcp_demo.ITEMS} New items); in memory, unless a database "
        "file below is given, in which case the demo is written into it, whole, if the file does not hold it yet, "
        "and served as found if it does"))
    p.add_argument("--kb-db", metavar="PATH", help="a knowledge-base database file, created if absent; several "
                   "processes may share it (default: in memory); or a postgresql:// URL, which servers on several "
                   "machines may share (needs psycopg 3)")
    p.add_argument("--records-db", metavar="PATH", help="a record-channel database file, created if absent "
                   "(default: in memory), which must differ from --kb-db; or a postgresql:// URL, which may be the "
                   "same database as --kb-db's (each store keeps a schema of its own)")
    p.add_argument("--kb-from-dir", metavar="DIR", action="append", help=(
        "serve a folder of Markdown files as a knowledge base, repeatable: one article per .md file (subfolders "
        "too), titled by its first '# ' heading (else by its file name), a draft if its front matter says "
        "draft: true; the knowledge base's ID is the folder's name, each article's its path in the folder without "
        ".md (lower-cased, other characters as -). Every file is checked before anything is written; with "
        "--kb-db, it is written into the file only if that knowledge base is not there yet (one that is, is served "
        "as found)"))
    p.add_argument("--channel-from", metavar=("ROWS", "FIELDS"), nargs=2, action="append", help=(
        "serve a record channel, repeatable: ROWS a CSV file (a header row of field keys, one item per row) or "
        "a JSON Lines file (.jsonl, one object per line), FIELDS a JSON file of its field definitions (a list "
        "as create_channel takes them, or {\"name\": ..., \"fields\": [...]}); the channel's ID is ROWS's "
        "name without extension. Every row is checked before anything is written; with --records-db, it is "
        "written into the file only if that channel is not there yet (one that is, is served as found)"))
    p.add_argument("--grant-kb", metavar="ID", action="append", help="a knowledge base the agent may use; "
                   "repeat for several (default: all); others answer not_found, as if absent")
    p.add_argument("--grant-channel", metavar="ID", action="append", help="a record channel the agent may use; "
                   "repeat for several (default: all)")
    p.add_argument("--no-write-scope", dest="scopes", action="store_const", const=(),
                   default=(record_store.WRITE_SCOPE,), help=f"connect without the {record_store.WRITE_SCOPE} "
                   "OAuth scope: edit_record_item then answers forbidden (reads need no scope)")
    p.add_argument("--rejection-detail", choices=record_fields.DETAILS, default="labels", help=(
        "how much a failed record edit says: terse (the code only), field (the keys), values (what each allows), "
        "labels (also each option's label; the default)"))
    p.add_argument("--people-edit-every", metavar="SECONDS", type=seconds, help=(
        "with --demo: every SECONDS, a simulated colleague saves a random published article and moves a random "
        "item (new status or owner), so the agent meets stale citations and version conflicts"))
    p.add_argument("--seed", type=int, help=f"with --demo: the seed the demo's content is drawn from (default "
                   f"{mcp_demo.SEED})")
    p.add_argument("--caller", metavar="NAME", type=caller_name, default=plumbing.DEFAULT_CALLER, help=(
        "who the agent is: its idempotency keys are its own, so two servers with different callers on one "
        f"database never meet each other's keys (default {plumbing.DEFAULT_CALLER})"))
    p.add_argument("--durability", choices=tuple(database.DURABILITY), default=database.DURABILITY_DEFAULT, help=(
        "full: every acknowledged edit survives a power cut (the default); normal: faster, an edit survives the "
        "server being killed, but a power cut may lose the last ones"))
    p.add_argument("--read-only", action="store_true", help=(
        "serve the database files for reading only: searches, reads, listings and polls work, edits answer "
        "read_only (a file this process may not write is served so anyway)"))
    p.add_argument("--http", metavar="[HOST:]PORT", type=http_address, help=(
        "serve MCP's Streamable HTTP at http://HOST:PORT/mcp instead of stdio (HOST defaults to 127.0.0.1; port 0 "
        "picks a free one, logged at startup); a HOST other than a loopback address needs --tokens"))
    p.add_argument("--tokens", metavar="FILE", help=(
        "with --http: a JSON file mapping each bearer token to its grant, {\"TOKEN\": {\"caller\": NAME, "
        "\"knowledge_bases\": [IDs] or \"*\", \"channels\": [IDs] or \"*\", \"scopes\": [\"osfoundry:write\"]}}; "
        "a request without a valid token is refused (401). It replaces --grant-kb, --grant-channel, "
        "--no-write-scope and --caller, and must not be readable by other users (chmod 600)"))
    p.add_argument("--allow-origin", metavar="ORIGIN", action="append", help=(
        "with --http: a browser Origin allowed besides the loopback ones, e.g. https://app.example (repeatable); "
        "requests from any other Origin are refused (403), against DNS rebinding"))
    p.add_argument("--workers", metavar="N", type=workers, default=1, help=(
        f"with --http: serve from N processes sharing the port, 1 to {http_workers.MAX_WORKERS} (default 1); each "
        "opens the databases itself, so they must be files or PostgreSQL, and each has the limits below. One "
        "process runs Python one thread at a time: more workers serve more calls at once, up to the cores"))
    p.add_argument("--approve-writes", action="store_true", help=(
        "put every agent write (edit_knowledge_article, edit_record_item) to a person before it is saved, through "
        "MCP elicitation: the request shows the change, the person approves or declines, and nothing is saved "
        "without an approval of that exact change. A client that cannot ask its user gets every write refused. "
        "With --tokens, a token's \"approve_writes\": true holds that token's agent alone"))
    p.add_argument("--approval-timeout", metavar="SECONDS", type=approval_seconds, default=approval.APPROVAL_SECONDS,
                   help=f"how long a person may take to answer an approval request, up to a day (default "
                   f"{approval.APPROVAL_SECONDS:g}); past it the write is answered declined (no answer) and nothing "
                   "is saved")
    p.add_argument("--approval-key-file", metavar="FILE", help=(
        "a private file (chmod 600) holding the key, 16 bytes or more, that seals approval requests "
        "(MCP 2026-07-28's requestState): servers given the same file accept each other's, so several "
        "machines can serve one workspace. Default: a random key per server start, which its --workers share"))
    p.add_argument("--verbose", action="store_true", help="log every message received on stderr")
    limits = p.add_argument_group("limits of the HTTP server", "with --http: what clients, authenticated or not, "
                                  "can make the server hold; BYTES as 4096, 16KiB or 4MiB")
    for field, (unit, meaning) in http_front.LIMITS_EXPLAINED.items():
        default = getattr(http_front.Limits(), field)
        shown = http_front.size(default) if unit == "BYTES" else f"{default:g}"
        limits.add_argument(limit_flag(field), metavar=unit, type=functools.partial(limit_value, unit),
                            help=f"{meaning} (default {shown})")
    return p


def approval_seconds(text: str) -> float:
    """--approval-timeout: a positive number of seconds up to a day."""
    value = seconds(text)
    if value > 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is more than a day (86400 seconds)")
    return value


def check_approval(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """The key that seals approval requests, read now (one line if the file is refused), else made for this start
    (before any worker is forked, so that all share it)."""
    if options.approval_key_file is None:
        options.approval_key = secrets.token_bytes(approval.KEY_BYTES)
        return
    try:
        options.approval_key = approval.load_key(options.approval_key_file, read_private_key)
    except OSError as error:
        p.error(f"--approval-key-file: {options.approval_key_file}: {error.strerror or error}")
    except ValueError as error:
        p.error(f"--approval-key-file: {error}")


def read_private_key(path: str) -> bytes:
    """A key file's bytes: a regular file of 4 KiB at most that no other user may read (as a token file)."""
    try:
        return cli.read_file(path, 4096, lambda status: mcp_tokens.check_private(path, status.st_mode))
    except cli.FileTooLarge:
        raise ValueError(f"{path} is larger than 4 KiB: a key file holds one key") from None
    except cli.FileRefused as refused:
        raise ValueError(f"{path}: {refused}; give the path of a file holding the key") from None
    except ValueError as refused:
        raise ValueError(f"{path} {refused}") from None


def approvals_for(options: argparse.Namespace) -> approval.Approvals:
    """Who must have a person approve each write: every caller with --approve-writes, else only tokens that say
    approve_writes."""
    return approval.Approvals(approval.Seal(options.approval_key), options.approve_writes, options.approval_timeout)


def workers(text: str) -> int:
    """--workers' N."""
    count = http_workers.worker_count(text)
    if count is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of workers from 1 to "
                                         f"{http_workers.MAX_WORKERS}")
    return count


def limit_flag(field: str) -> str:
    """The option of one of http_front.Limits: --http-max-connections for max_connections."""
    return "--http-" + field.replace("_", "-")


def limit_value(unit: str, text: str) -> Any:
    """A limit's value: N a whole number from 1 to 1,000,000, BYTES a size up to 1 GiB, SECONDS up to a day."""
    if unit == "BYTES":
        try:
            return http_front.parse_size(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    if unit == "SECONDS":
        if seconds(text) <= 86_400:
            return seconds(text)
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds up to 86400")
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and 0 < int(digits) <= 1_000_000:
        return int(digits)
    raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 1000000")


def parse_options(argv: Optional[Sequence[str]] = None, prog: str = PROG) -> argparse.Namespace:
    """The options, checked together; a bad one exits with status 2 and one line on stderr."""
    p = parser(prog)
    options = p.parse_args(argv)
    options.kb_from_dir, options.channel_from = options.kb_from_dir or [], options.channel_from or []
    content = options.kb_from_dir or options.channel_from
    if not (options.demo or options.kb_db or options.records_db or content):
        p.error("nothing to serve: give --demo, --kb-db and/or --records-db, or --kb-from-dir or --channel-from")
    if not options.demo and (options.people_edit_every or options.seed is not None):
        p.error("--people-edit-every and --seed act on the demo workspace: add --demo")
    if options.read_only and (options.demo or content or not (options.kb_db and options.records_db)):
        p.error("--read-only serves existing files: give --kb-db and --records-db, without --demo, --kb-from-dir "
                "or --channel-from")
    check_sources(p, options)
    for flag, path in (("--kb-db", options.kb_db), ("--records-db", options.records_db)):
        if path and database.is_postgres(path):
            continue
        if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
            p.error(f"{flag}: the folder of {path!r} does not exist")
        if path and os.path.exists(path) and not os.path.isfile(path):  # a folder, a FIFO, a device: never opened
            p.error(f"{flag}: {path!r} is {kind_of(os.stat(path).st_mode)}, not a database file")
    if options.kb_db and options.records_db and not database.is_postgres(options.kb_db) and \
            same_file(options.kb_db, options.records_db):
        p.error("--kb-db and --records-db must be different files (each store keeps its own event logs)")
    if options.seed is None:
        options.seed = mcp_demo.SEED
    check_http(p, options)
    check_approval(p, options)
    return options


def check_http(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """--tokens, --allow-origin and the limits only with --http, the limits gathered into options.http_limits, a
    token file in place of the command line's grant, a host beyond this machine only with tokens; the token file
    read now (one line if it is refused)."""
    limits = {field: getattr(options, f"http_{field}") for field in http_front.Limits._fields
              if getattr(options, f"http_{field}") is not None}
    if options.http is None:
        for flag, given in (("--tokens", options.tokens), ("--allow-origin", options.allow_origin),
                            ("--workers", options.workers != 1), *((limit_flag(field), True) for field in limits)):
            if given:
                p.error(f"{flag} acts on the HTTP transport: add --http [HOST:]PORT")
        return
    options.http_limits = http_front.Limits(**limits)
    check_workers(p, options)
    problem = options.http_limits.problem()
    if problem is not None:
        p.error(f"{limit_flag('body_budget')}: {problem} ({limit_flag('max_body')})")
    host, _ = options.http
    if options.tokens is None:
        if not mcp_http.is_loopback(host):
            p.error(f"--http {host}: serving beyond this machine needs --tokens FILE, so that every request carries "
                    "a token and its grant")
        return
    commanded = [flag for flag, given in (("--grant-kb", options.grant_kb), ("--grant-channel", options.grant_channel),
                                          ("--no-write-scope", options.scopes != (record_store.WRITE_SCOPE,)),
                                          ("--caller", options.caller != plumbing.DEFAULT_CALLER)) if given]
    if commanded:
        p.error(f"--tokens gives each token its own caller, grant and scopes: leave out {', '.join(commanded)}")
    try:
        options.tokens = mcp_tokens.Tokens.load(options.tokens)
    except mcp_tokens.TokenFileError as refused:
        p.error(f"--tokens: {refused}")


def check_workers(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """More than one worker only where processes can be forked, and on databases every worker can open: files or
    PostgreSQL, not memory, which one process alone sees."""
    if options.workers == 1:
        return
    if not http_workers.can_fork():
        p.error("--workers: this platform cannot fork processes (Windows): run several servers behind a load "
                "balancer instead")
    in_memory = [flag for flag, path in (("--kb-db", options.kb_db), ("--records-db", options.records_db))
                 if not path or path == ":memory:"]
    if in_memory:
        p.error(f"--workers {options.workers}: each worker opens the databases itself, and a database in memory "
                f"is one process's alone: give {' and '.join(in_memory)} a file or a postgresql:// URL")


def http_address(text: str) -> Tuple[str, int]:
    """[HOST:]PORT, the host 127.0.0.1 unless given ([::1]:8765 for an IPv6 one), the port 0 to 65535."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not [HOST:]PORT with a port from 0 to 65535, e.g. 8765 or "
                                         "127.0.0.1:8765")
    return host, int(port)


def check_sources(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """Each --kb-from-dir a folder, each --channel-from a .csv or .jsonl file and a field file, and no two
    sources (the demo's included) of one ID; what the files hold is checked when the workspace opens."""
    demo = [("knowledge base", mcp_demo.KNOWLEDGE_BASE, "--demo"),
            ("record channel", mcp_demo.CHANNEL, "--demo")] if options.demo else []
    try:
        content_files.check_paths(options.kb_from_dir, options.channel_from, demo)
    except content_files.ContentError as problem:
        p.error(str(problem))


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path, a symbolic link or a hard link to it."""
    if os.path.exists(first) and os.path.exists(second):
        return os.path.samefile(first, second)
    return os.path.realpath(first) == os.path.realpath(second)


def serve_command(argv: Optional[Sequence[str]] = None, prog: str = PROG) -> int:
    """Serve until stdin closes; 0 on EOF, 2 for bad options, content files that cannot be served, or a database
    that cannot be opened."""
    options = parse_options(argv, prog)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneRecordALine("mcp_server: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if options.verbose else logging.INFO, handlers=[handler])
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must never corrupt the protocol
    started = time.perf_counter()
    listener = None
    if options.http is not None:  # before anything is opened or written: a port taken changes nothing
        try:
            host, port = options.http
            listener = http_workers.listen(host, port, options.http_limits.backlog)
        except OSError as error:
            print(f"{prog}: error: cannot listen on {shown_address(*options.http)}: "
                  f"{os.strerror(error.errno) if error.errno else error}; "
                  "choose another port, or stop the process that holds it", file=sys.stderr)
            return EXIT_USAGE
    try:
        workspace = open_workspace(options)
    except (database.UnusableFile, content_files.ContentError) as error:
        return refused_start(listener, f"{prog}: error: {error}")
    except (sqlite3.DatabaseError, plumbing.Rejection) as error:
        return refused_start(listener, f"{prog}: error: cannot open the databases: {error}")
    revisions = f"MCP {', '.join(STATELESS_VERSIONS)} (stateless) and {', '.join(PROTOCOL_VERSIONS)} (initialize)"
    if listener is not None and options.workers > 1:
        return serve_in_workers(options, workspace, listener, f"{revisions}; {workspace.description}", started)
    tools = workspace.tools()
    server = Server(tools, workspace.instructions, approvals_for(options))
    if workspace.colleague is not None:
        workspace.colleague.start()
    if listener is not None:
        return serve_over_http(server, options, workspace, listener, f"{revisions}; {workspace.description}",
                               started)
    log.info("serving %d tools over stdio, %s; %s; ready in %.2f s", len(tools.listing()), revisions,
             workspace.description, time.perf_counter() - started)
    try:
        serve(server, sys.stdin.buffer, protocol_out)
        log.info("stdin closed: stopping")
    except BrokenPipeError:  # the client closed our stdout: nobody is left to answer
        os.dup2(os.open(os.devnull, os.O_WRONLY), protocol_out.fileno())  # so the exit's flush cannot fail
        log.info("stdout closed: stopping")
    finally:
        log_approvals(server)
        workspace.close()
    return EXIT_OK


def log_approvals(server: Server) -> None:
    """At the end, how the approvals went, where any was asked or answered at once."""
    if server.approvals is not None and any(server.approvals.tally.counts.values()):
        log.info("approvals: %s", server.approvals.tally.summary())


def refused_start(listener: Optional[socket.socket], message: str) -> int:
    """A start that cannot go on: the port let go, `message` on stderr, EXIT_USAGE."""
    if listener is not None:
        listener.close()
    print(message, file=sys.stderr)
    return EXIT_USAGE


def serve_over_http(server: Server, options: argparse.Namespace, workspace: Workspace, listener: socket.socket,
                    description: str, started: float, worker: bool = False) -> int:
    """Serve Streamable HTTP on `listener` (bound to options.http) until Ctrl-C or SIGTERM; 0 then. As one worker of
    several (`worker`), without the startup line: the parent says when all serve."""
    host, port = options.http
    http_options = mcp_http.HttpOptions(host, port, options.tokens, frozenset(options.allow_origin or ()),
                                        options.http_limits)

    def ready(address: Tuple[str, int]) -> None:
        if worker:
            return
        log.info("serving %d tools over Streamable HTTP at http://%s/mcp, %s; limits: %s; ready in %.2f s",
                 len(server.tools.listing()), shown_address(*address), description, options.http_limits.describe(),
                 time.perf_counter() - started)

    signal.signal(signal.SIGTERM, stop_worker_on_sigterm if worker else stop_on_sigterm)
    try:
        mcp_http.serve_http(functools.partial(handle_logged, server), http_options, ready, listener)
        log.info("stopping")
    finally:
        log_approvals(server)
        workspace.close()
    return EXIT_OK


def serve_in_workers(options: argparse.Namespace, workspace: Workspace, listener: socket.socket, description: str,
                     started: float) -> int:
    """Serve Streamable HTTP on `listener` from options.workers processes (http_workers) until Ctrl-C or SIGTERM
    (0), or until a worker ends by itself (EXIT_FAILED, the others stopped). `workspace`, opened to check and fill
    the databases once, is closed before the fork: each worker opens its own, the demo's colleague in the first
    alone."""
    tool_count = len(workspace.tools().listing())
    workspace.close()
    address = listener.getsockname()
    pool = http_workers.Workers(listener, options.workers)
    signal.signal(signal.SIGTERM, stop_on_sigterm)
    try:
        pool.start(functools.partial(serve_as_worker, options, description, listener))
        pool.wait_ready()
        log.info("serving %d tools over Streamable HTTP at http://%s/mcp, %s; %d worker processes, each with "
                 "these limits: %s; ready in %.2f s", tool_count, shown_address(*address[:2]), description,
                 options.workers, options.http_limits.describe(), time.perf_counter() - started)
        pool.supervise()
    except http_workers.WorkerEnded as ended:
        log.error("%s", ended)
        return EXIT_FAILED
    finally:
        pool.stop()
    return EXIT_OK  # never reached: supervise() ends in WorkerEnded, SIGTERM or Ctrl-C


def serve_as_worker(options: argparse.Namespace, description: str, listener: socket.socket, number: int,
                    ready: Callable[[], None]) -> int:
    """One worker: its own workspace, opened only (the parent filled the databases; the colleague in worker 1
    alone), its log lines named by its number, served on `listener` until SIGTERM (the parent's, on Ctrl-C too);
    a workspace that cannot be opened ends it with one line and status 2."""
    for handler in logging.getLogger().handlers:
        handler.setFormatter(OneRecordALine(f"mcp_server worker {number}: %(message)s"))
    own = argparse.Namespace(**vars(options))
    if number > 1:
        own.people_edit_every = None
    try:
        workspace = open_workspace(own, fill=False)
    except (database.UnusableFile, content_files.ContentError, sqlite3.DatabaseError, plumbing.Rejection) as error:
        log.error("cannot open the databases: %s", error)
        return EXIT_USAGE
    server = Server(workspace.tools(), workspace.instructions, approvals_for(own))
    if workspace.colleague is not None:
        workspace.colleague.start()
    ready()
    return serve_over_http(server, own, workspace, listener, description, time.perf_counter(), worker=True)


def shown_address(host: str, port: int) -> str:
    """host:port as a URL writes it: an IPv6 host in brackets."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def handle_logged(server: Server, message: Any, grant: Optional[mcp_tokens.Grant] = None,
                  protocol_version: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """Server.handle for one HTTP request, each message logged as stdio logs its lines (with --verbose), the value
    of any key that looks like a credential left out."""
    if log.isEnabledFor(logging.DEBUG):
        log.debug("received %s%s", mcp_http.loggable_message(message, LOGGED_CHARACTERS),
                  f" from {plumbing.loggable(grant.caller)}" if grant is not None else "")
    return server.handle(message, grant, protocol_version)


def stop_on_sigterm(number: int, frame: Any) -> None:
    """SIGTERM ends the HTTP server as EOF ends the stdio one: one line, status 0."""
    log.info("SIGTERM: stopping")
    raise SystemExit(EXIT_OK)


def stop_worker_on_sigterm(number: int, frame: Any) -> None:
    """A worker's stop_on_sigterm, deaf to the SIGTERMs that follow the first (a service manager's to the whole
    group of processes, then the parent's): the requests under way are answered before the worker ends."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    stop_on_sigterm(number, frame)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command (and the package's osfoundry-mcp): serve_command, with Ctrl-C ending it in one line and exit
    status 130; its messages name it as it was started."""
    started_as = os.path.basename(sys.argv[0]) if argv is None else ""
    prog = started_as if started_as and not started_as.startswith("-") else PROG
    return run_main(prog, functools.partial(serve_command, prog=prog), argv, interrupted="interrupted; stopped")


if __name__ == "__main__":
    sys.exit(main())
