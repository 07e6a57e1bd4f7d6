"""MCP's Streamable HTTP transport for the MCP server: one endpoint, /mcp, where each POST carries one message.

Layer: server, a transport beside stdio.py; it knows HTTP and bearer tokens, not the tools. The
command hands it a `handle` that answers one parsed message; this module decides only who may
ask, whether the request is well formed, and which HTTP status carries the answer.

Glossary (the MCP specification's transports page and security section, revisions 2025-11-25 and 2026-07-28):
  endpoint        the one path, /mcp, that takes a POST holding one JSON-RPC message
  answer          what `handle` returns: a JSON-RPC response, or None (a notification or a client's response)
  origin          a browser's Origin header; one that is not allowed is refused (403) against DNS rebinding
  host            the Host header, and the host of an absolute-form target (POST http://HOST/mcp), which must
                  be well formed (400); on a server bound to a loopback address each must name a loopback host
                  (421), so that no name a DNS rebinding points here reaches the tools
  bearer token    the secret after "Authorization: Bearer "; Tokens turns it into a grant or refuses it (401)
  grant           what a token allows (tokens.Grant), passed to `handle` with each message
  metadata        the RFC 9728 protected-resource document that tells a client how to authenticate
  stop            on SIGTERM or Ctrl-C (or shutdown()): asked of the server through a Stop, which a signal's
                  handler only marks (the serving loop sees it between two connections, so that no signal lands
                  between an accept and its connection's thread), and whose socket the signal's arrival wakes the
                  loop through, on whichever thread it lands; the server stops waiting for new requests, lets
                  each request whose first byte has come finish within the grace (--http-grace-seconds, default
                  GRACE_SECONDS) and closes its connection after the answer; kept-alive idle connections and
                  listen streams end at once (a listen's result written); a connection accepted before the stop
                  with no request yet has its first request served if it comes within FIRST_REQUEST_SECONDS, and
                  is answered 503 with Retry-After after that; a new connection, one still waiting in the backlog,
                  or a request that arrives on a connection as the stop ends it, is answered 503 with Retry-After;
                  at the end of the grace, a request still arriving is answered 503 too, connections still open
                  otherwise (a client that does not read, a call still running) are cut, the backlog is shrunk
                  and answered 503 until empty, and the listener closed. The command then exits 0 after SIGTERM,
                  130 after Ctrl-C, with one line, in one process as with --workers

Before any of that, http_front.py reads each request within its limits (connections, head and body sizes, a
deadline per request), and every header that decides who asks or what is asked must come once: two Origin,
Host, Authorization, Content-Length or Mcp-* headers are refused (400), as a token in the query string is.
Every error this server writes is a JSON-RPC error body with an HTTP status line, never an HTML page; the
log names each request by its method and path, never its query string or a header.

Sessions, in the handshake era only (sessions.py): a successful initialize is answered with an Mcp-Session-Id (when
the server was given a book, as the command always does); a request that sends it is served in that session (its
resources/subscribe kept there), GET with it opens the session's event stream (its notifications), DELETE with it
ends the session; an unknown, expired or forged ID, or another token's session, is answered 404, after which the
client initializes again. A request without the header is served as before, sessionless; 2026-07-28 requests are
always sessionless (the header is not read). Initialize beyond the caps on sessions is answered without one.

Server-sent events carry only a subscriptions/listen stream and a session's GET stream (write_stream); every other
answer is one JSON body, which the specification allows. A session's GET stream is resumable: each of its events
has an id (its position, listening.SessionFeed), and a GET that sends the last one back as Last-Event-ID goes on
from it with no gap and no duplicate. A listen resumes from its URIs' after_sequence instead (2026-07-28 has no
Last-Event-ID). Left out on purpose: TLS (bind to a loopback address, or put a TLS proxy in front).
"""

import base64
import collections
import errno
import http
import http.server
import ipaddress
import logging
import os
import re
import select
import selectors
import signal
import socket
import sys
import threading
import time
import urllib.parse
from typing import (
    Any, Callable, ClassVar, Deque, Dict, FrozenSet, List, NamedTuple, Optional, Set, Tuple, Union, cast,
)

from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server import http_front, listening, sessions
from osfoundry_tools.server.http_front import Limits
from osfoundry_tools.server.protocol import (
    HEADER_MISMATCH, INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, STATELESS_VERSIONS,
    UNSUPPORTED_VERSION, VERSION_KEY, CREDENTIAL_NAME, ProtocolError, encoded, error_message, repeated_key_refusal,
    request_id,
)
from osfoundry_tools.server.tokens import WRITE_SCOPE, Grant, Tokens

log = logging.getLogger("osfoundry.mcp")

Handle = Callable[..., Optional[Dict[str, Any]]]
# handle(message, grant=Optional[Grant], protocol_version=Optional[str]) -> the JSON-RPC answer, or None

ENDPOINT = "/mcp"
METADATA_PATHS = ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")
MAX_BODY_BYTES = Limits().max_body  # as mcp_server.MAX_LINE_BYTES: a larger body is refused (413) unread
REALM = "osfoundry"
STATELESS_VERSION = STATELESS_VERSIONS[0]  # the revision under which an unknown method is a 404
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
BAD_REQUEST_CODES = frozenset({PARSE_ERROR, INVALID_REQUEST, HEADER_MISMATCH, UNSUPPORTED_VERSION})
JSON_TYPE = "application/json"
PHRASES = {int(status): status.phrase for status in http.HTTPStatus}  # a status line's reason: 200 -> OK
ACCEPTABLE_TYPES = frozenset({JSON_TYPE, "application/*", "*/*"})
HOST_HEADER = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")  # a name or [IPv6], a port
SINGLE_HEADERS = frozenset({"host", "origin", "authorization", "content-length", "content-type", "transfer-encoding"})
# ... and every Mcp-* header (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id): each must come once
DECIMAL = re.compile(r"[0-9]{1,20}")  # a Content-Length
REFUSED_QUALITY = re.compile(r"q=0(?:\.0{0,3})?")  # an Accept media range's q=0: that type is refused
RETRY_SECONDS = 1  # the Retry-After of a 503: the connections or the body budget were full, or the server stops
GRACE_SECONDS = 5.0  # on SIGTERM or Ctrl-C, how long requests in progress may take to finish (--http-grace-seconds)
CUT_SECONDS = 1.0  # once the grace is over, how long the connections cut are given to close
FIRST_REQUEST_SECONDS = 1.0  # at a stop, how long a connection accepted with no request yet has to send one
WARN_EVERY_SECONDS = 60.0  # the same warning (all connections in use, out of descriptors) once a minute at most
REFUSED_LINGERING = 32  # connections refused for want of a slot that wait a moment before they are closed
DRAIN_CHUNKS = 16  # of http_front.CHUNK: what a refused connection's client sent, read and dropped as it is closed
LAST_DRAIN_SECONDS = 1.0  # at most, answering 503 to the backlog before the listener closes, however many reconnect
UNREAD_LINE = "(no request line read)"  # the log's name for a request refused before its request line was read
NO_FIELDS = http_front.Fields()  # the headers of a request whose head is not read (yet)
STOPPING = f"Service Unavailable: this server is stopping; send again in {RETRY_SECONDS} s, to it or to another"


class HttpOptions(NamedTuple):
    """Where to listen and whom to admit."""

    host: str  # e.g. "127.0.0.1"
    port: int  # 0: any free port
    tokens: Optional[Tokens]  # None: no authentication (grant=None is passed to handle)
    allowed_origins: FrozenSet[str]  # besides http(s)://localhost|127.0.0.1|[::1] on any port, always allowed
    limits: Limits = Limits()  # what clients can make the server hold: connections, sizes, deadlines
    grace_seconds: float = GRACE_SECONDS  # on a stop, how long requests in progress may take to finish
    book: Optional[sessions.Book] = None  # the handshake era's sessions; None: none are issued
    hub: Optional[listening.Hub] = None  # the listen streams, which a session's GET stream is one of


class Refusal(Exception):
    """A request answered with an HTTP error status and a JSON-RPC error body, before `handle` sees it."""

    def __init__(self, status: int, message: str, headers: Optional[Dict[str, str]] = None,
                 code: int = INVALID_REQUEST, request_id: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.code = code
        self.request_id = request_id  # the id of the request refused, where it was read: what the answer echoes


# ---------------------------------------------------------------------------
# The rules, as pure functions of header values.


def printable(text: str) -> str:
    """Text a client sent, as one log line may hold it: control characters escaped."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", lambda match: f"\\x{ord(match.group()):02x}", text)


def is_loopback(host: str) -> bool:
    """Whether a bind address or host name is this machine only: localhost, 127.0.0.0/8 or ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def origin_allowed(origin: str, allowed_origins: FrozenSet[str]) -> bool:
    """Whether a browser page at `origin` may call: a loopback origin on any port, or one listed exactly."""
    if origin in allowed_origins:
        return True
    try:
        parts = urllib.parse.urlsplit(origin)
        parts.port  # noqa: B018  (raises ValueError for a port that is not one)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.hostname in LOOPBACK_HOSTS and not parts.path \
        and not parts.query and not parts.fragment and parts.username is None


def host_name(host_header: str) -> Optional[str]:
    """The name in a Host header without its port ("::1" for "[::1]:8000"); None for a malformed one."""
    if not HOST_HEADER.fullmatch(host_header):
        return None
    if host_header.startswith("["):
        return host_header[1:host_header.index("]")]
    return host_header.rsplit(":", 1)[0] if ":" in host_header else host_header


def target_authority(target: str) -> Optional[str]:
    """The host[:port] of an absolute-form request target (http://127.0.0.1:8765/mcp), to be checked as a Host
    header is; None for the usual origin-form (/mcp). Refusal (400) for one that is malformed (its host not as a
    Host header's, a port that is no number), names a user, or has a scheme other than http or https."""
    if target.startswith("/") or target == "*":
        return None
    scheme, colon, rest = target.partition(":")
    if not colon or not rest.startswith("//"):
        return None  # no absolute URL: the path check answers 404
    authority = rest[2:].split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if scheme.lower() not in ("http", "https") or "@" in authority or host_name(authority) is None:
        raise Refusal(http.HTTPStatus.BAD_REQUEST, "Invalid Request: an absolute request target must be "
                      "http://HOST[:PORT]/mcp, its host as a Host header names it, without a user")
    return authority


def accepts_json(accept: Optional[str]) -> bool:
    """Whether an Accept header admits a JSON answer; an absent one admits anything."""
    if accept is None:
        return True
    for media_range in accept.split(","):
        media_type, *parameters = [part.strip().lower() for part in media_range.split(";")]
        refused = any(REFUSED_QUALITY.fullmatch(parameter.replace(" ", "")) for parameter in parameters)
        if media_type in ACCEPTABLE_TYPES and not refused:
            return True
    return False


def is_json_type(content_type: Optional[str]) -> bool:
    """Whether a Content-Type is application/json, with any parameters (charset=utf-8)."""
    return content_type is not None and content_type.split(";")[0].strip().lower() == JSON_TYPE


def bearer_token(authorization: Optional[str]) -> Optional[str]:
    """The token of an "Authorization: Bearer <token>" header; None when absent or of another form."""
    scheme, _, token = (authorization or "").strip().partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token and " " not in token else None


NAMED_METHODS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}  # what Mcp-Name carries


def routing_mismatch(message: Any, headers: Any) -> Optional[str]:
    """Why a stateless request's Mcp-Method and Mcp-Name headers do not fit its body, or None: 2026-07-28 asks for
    Mcp-Method on every request and Mcp-Name on those that name a tool, prompt or resource, so that a proxy can
    route without reading the body."""
    if not isinstance(message, dict) or not isinstance(message.get("method"), str) or "id" not in message:
        return None  # notifications, responses and what is no request are the handler's to judge
    method = message["method"]
    if header_value(headers.get("Mcp-Method")) != method:
        return (f"Header mismatch: Mcp-Method is {rejections.quote(headers.get('Mcp-Method'))}, the body's method "
                f"{rejections.quote(method)}; send the method in both")
    key = NAMED_METHODS.get(method)
    params = message.get("params")
    named = params.get(key) if key is not None and isinstance(params, dict) else None
    if key is not None and header_value(headers.get("Mcp-Name")) != named:
        return (f"Header mismatch: Mcp-Name is {rejections.quote(headers.get('Mcp-Name'))}, the body's {key} "
                f"{rejections.quote(named)}; send the {key} in both")
    return None


def header_value(value: Optional[str]) -> Optional[str]:
    """A routing header's text: as sent, or decoded from =?base64?...?= (how a value beyond plain ASCII travels)."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[len("=?base64?"):-2], validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


SESSION_HEADER = "Mcp-Session-Id"
EVENT_STREAM = "text/event-stream"
LOOK_SECONDS = 0.25  # how often a session's GET stream looks at what its session subscribed


def is_handshake_request(message: Any) -> bool:
    """Whether a message belongs to the handshake era (a session may serve it): not a 2026-07-28 request, whose
    params' _meta names its version."""
    if not isinstance(message, dict) or message.get("method") == "initialize":
        return True
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    return not (isinstance(meta, dict) and VERSION_KEY in meta)


def accepts_events(accept: Optional[str]) -> bool:
    """Whether an Accept header admits server-sent events (a GET stream needs it said)."""
    return any(part.split(";")[0].strip().lower() in (EVENT_STREAM, "text/*", "*/*")
               for part in (accept or "").split(","))


def status_for(answer: Optional[Dict[str, Any]], protocol_version: Optional[str]) -> int:
    """The HTTP status that carries an answer: 202 for none, 400 or 404 for some errors, else 200."""
    if answer is None:
        return http.HTTPStatus.ACCEPTED
    error = answer.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    if code in BAD_REQUEST_CODES:
        return http.HTTPStatus.BAD_REQUEST
    if code == METHOD_NOT_FOUND and protocol_version == STATELESS_VERSION:
        return http.HTTPStatus.NOT_FOUND
    return http.HTTPStatus.OK


def body_length(values: Optional[List[str]], limit: int = MAX_BODY_BYTES) -> int:
    """The body's length from the Content-Length header values; Refusal when absent, malformed or over `limit`."""
    if not values:
        raise Refusal(http.HTTPStatus.LENGTH_REQUIRED, "Length Required: send the message with a Content-Length "
                      "header (a chunked body is not accepted)")
    if len(set(values)) != 1 or not DECIMAL.fullmatch(values[0].strip()):
        raise Refusal(http.HTTPStatus.BAD_REQUEST, "Invalid Request: Content-Length must be one decimal number of "
                      "bytes")
    length = int(values[0])
    if length > limit:
        raise Refusal(http.HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"Invalid Request: a message may hold at most "
                      f"{limit} bytes; this one announced {length}")
    return length


def keeps_alive(version: str, connection: Optional[List[str]]) -> bool:
    """Whether a connection stays open after its answer, from the request's version and Connection headers:
    HTTP/1.1 unless Connection: close, HTTP/1.0 only with Connection: keep-alive."""
    options = {option.strip().lower() for value in connection or [] for option in value.split(",")}
    return "close" not in options and (version == "HTTP/1.1" or "keep-alive" in options)


def repeated_header(headers: Any) -> Optional[str]:
    """The first header that decides who asks or what is asked (SINGLE_HEADERS, Mcp-*) sent more than once, or
    None: with two, one check could read the first and another the second."""
    names = [name.lower() for name in headers.keys()]
    if len(set(names)) == len(names):
        return None
    for name in dict.fromkeys(names):
        if names.count(name) > 1 and (name in SINGLE_HEADERS or name.startswith("mcp-")):
            return name
    return None


def credential_in_query(target: str) -> Optional[str]:
    """The name of a query-string parameter that looks like a credential (access_token, token, api_key...), or
    None: a token travels only in the Authorization header."""
    query = target.partition("?")[2].partition("#")[0]
    if not query:
        return None
    for name, _ in urllib.parse.parse_qsl(query, keep_blank_values=True):
        if CREDENTIAL_NAME.search(name):
            return name
    return None


def path_of(target: str) -> str:
    """A request target's path: without its query string (which the log never shows) or a URL's scheme, user
    and host. A target that starts with "/" is all path (//host/mcp is the path //host/mcp, not /mcp)."""
    if target.startswith("/"):
        return target.split("?", 1)[0].split("#", 1)[0]
    try:
        return urllib.parse.urlsplit(target).path
    except ValueError:  # a malformed URL such as http://[x/mcp, which may hold a user and password
        return "(a malformed URL)"


def parsed(body: Union[bytes, bytearray]) -> Any:
    """The JSON value of a request body; Refusal (400, -32700) when it is not one JSON text in UTF-8, and (400,
    -32600, to its id) when an object of it holds a key twice."""
    try:
        message, repeated = checks.message_json(body.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Parse error: the body is not one JSON text in UTF-8 "
                      f"({error})", code=PARSE_ERROR) from None
    if repeated is not None:  # refused to its id; a notification too, since a request over HTTP is always answered
        refused = repeated_key_refusal(message, repeated)
        raise Refusal(http.HTTPStatus.BAD_REQUEST, refused["error"]["message"], request_id=refused["id"])
    return message


# ---------------------------------------------------------------------------
# The server and its request handler.


KEEPALIVE_SECONDS = 15.0  # of quiet on a listen stream before a comment line keeps it open
STREAM_WAKE_SECONDS = 0.5  # how often a quiet listen stream counts its quiet towards a keep-alive
STREAM_SEND_BUFFER = 64 * 1024  # bytes the kernel holds for one listen stream's client (not the default megabytes)
WAKE_BYTES = 512  # the most wake-up bytes the serving loop takes at a time


class Stop:
    """A stop asked of a serving McpHttpServer, from another thread or from a signal's handler, which may run
    anywhere on the main thread: ask() only records why and wakes the serving loop (a byte on a socket it watches
    beside the listener), which sees it between two connections and returns, so that no exception ever lands
    between an accept and the start of that connection's thread. hurry() ends the stop's grace at once.

    A signal's Python handler runs on the main thread alone, once that thread next runs Python: a signal the kernel
    delivers to another thread (a connection's) would be seen only when the loop's select times out. So a stop that
    hears signals (hear_signals(), on the main thread) has the signal's arrival itself write its number on the
    wake-up socket (signal.set_wakeup_fd), on whichever thread it lands: the loop wakes at once, and the handler
    runs as it returns. A process has one such descriptor: the stops that hear signals hand it on in turn (the
    last to begin holds it; whichever ends, the one before it, or what was there before them all, gets it back),
    and a process forked from one hears none through its parent's sockets."""

    hearing: ClassVar[List["Stop"]] = []  # the stops that hear signals, in the order they began to
    before: ClassVar[int] = -1  # the wake-up descriptor before the first of them

    def __init__(self) -> None:
        self.reason: Optional[str] = None  # why the stop was asked ("SIGTERM", "SIGINT", "shutdown"), once it was
        self.hurried = False  # the grace is to end now (a second Ctrl-C)
        pair = socket.socketpair()
        for end in pair:
            end.setblocking(False)  # set_wakeup_fd's condition, and a wake never waits
        self.waker: Optional[socket.socket] = pair[0]  # the loop's end: readable once woken
        self.wake_end: Optional[socket.socket] = pair[1]  # the end a stop, or a signal's arrival, writes on

    def ask(self, reason: str) -> None:
        """Stop serving, for `reason` (the first given is kept)."""
        if self.reason is None:
            self.reason = reason
        self.wake()

    def hurry(self) -> None:
        """End the stop's grace now: the connections still open are cut."""
        self.hurried = True
        self.wake()

    def wake(self) -> None:
        """A byte for the serving loop, which wakes at once to look at the stop."""
        end = self.wake_end
        if end is not None:
            try:
                end.send(b".")
            except OSError:  # full: the loop is woken already; or closed meanwhile
                pass

    def woken(self) -> bytes:
        """Take the wake-up bytes, so that the loop waits again: a "." for each wake(), a signal's number for each
        signal that arrived while this stop heard them."""
        taken = bytearray()
        try:
            while self.waker is not None and len(taken) < WAKE_BYTES:
                chunk = self.waker.recv(WAKE_BYTES)
                if not chunk:
                    break
                taken += chunk
        except OSError:  # none left (BlockingIOError)
            pass
        return bytes(taken)

    def hear_signals(self) -> None:
        """Have each signal that has a Python handler wake the serving loop as it arrives, on whichever thread the
        kernel delivers it to; until deaf_to_signals() or close(). Call it on the main thread, as signal.signal
        (ValueError elsewhere)."""
        if self.wake_end is None or self in Stop.hearing:
            return
        previous = signal.set_wakeup_fd(self.wake_end.fileno(), warn_on_full_buffer=False)  # full: woken already
        if not Stop.hearing:
            Stop.before = previous
        Stop.hearing.append(self)

    def deaf_to_signals(self) -> None:
        """Undo hear_signals(): the wake-up descriptor goes to the stop that heard signals before this one began to
        (whichever of them ends first), or back to what it was before them all. On the main thread."""
        if self not in Stop.hearing:
            return
        Stop.hearing.remove(self)
        holder = Stop.hearing[-1].wake_end if Stop.hearing else None
        if holder is not None:
            signal.set_wakeup_fd(holder.fileno(), warn_on_full_buffer=False)
        else:
            signal.set_wakeup_fd(Stop.before)

    @classmethod
    def forget_signals(cls) -> None:
        """In a process just forked: its parent's stops are not its own, so signals wake none of them (their
        sockets are shared with the parent) and the wake-up descriptor is what it was before them."""
        if cls.hearing:
            cls.hearing.clear()
            signal.set_wakeup_fd(cls.before)

    def close(self) -> None:
        """Let the sockets go, deaf to signals first (on the main thread, where it heard them), so that no signal
        writes on a descriptor closed, or reused meanwhile; ask() and hurry() still record after it, waking
        nothing."""
        self.deaf_to_signals()
        ends, self.waker, self.wake_end = (self.waker, self.wake_end), None, None  # first: no handler sends on them
        for end in ends:
            if end is not None:
                end.close()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=Stop.forget_signals)


class McpHttpServer(http.server.ThreadingHTTPServer):
    """A threaded HTTP server holding what its requests need: the message handler, the options, and what the limits
    share between connections (the slots and the body budget)."""

    daemon_threads = True  # an open keep-alive connection never holds the process at exit

    def __init__(self, handle: Handle, options: HttpOptions, clock: Callable[[], float] = time.monotonic,
                 listener: Optional[socket.socket] = None, stop: Optional[Stop] = None) -> None:
        self.handle_message = handle
        self.owns_stop = stop is None  # its sockets are then closed with the server's
        self.stop = stop if stop is not None else Stop()
        self.loop_ended = threading.Event()  # set while serve_forever does not run
        self.loop_ended.set()
        self.options = options
        self.limits = options.limits
        self.clock = clock
        self.request_queue_size = options.limits.backlog  # listen()'s: a burst of connects waits there, not in retries
        self.slots = http_front.Slots(options.limits.max_connections)
        self.bodies = http_front.BodyBudget(options.limits.body_budget, clock, options.limits.small_share())
        self.busy = response_bytes(http.HTTPStatus.SERVICE_UNAVAILABLE, f"Service Unavailable: this server holds "
                                   f"{options.limits.max_connections} connections at once, all open; connect again "
                                   f"in {RETRY_SECONDS} s", {"Retry-After": str(RETRY_SECONDS)})
        self.stopping_reply = response_bytes(http.HTTPStatus.SERVICE_UNAVAILABLE, STOPPING,
                                             {"Retry-After": str(RETRY_SECONDS)})
        self.warned: Dict[str, float] = {}  # each warning's text: when it was last logged
        self.dated: Tuple[int, str] = (-1, "")  # the second of the Date last written, and its text
        self.closing: Deque[Tuple[float, socket.socket]] = collections.deque()  # refused: (when to close, which)
        self.streams: Set[listening.Stream] = set()  # the listen streams being written, which a stop ends at once
        self.streams_lock = threading.Lock()
        super().__init__((options.host, options.port), RequestHandler, bind_and_activate=listener is None)
        if listener is not None:  # bound and listening already, shared with other workers (http_workers)
            self.socket.close()
            self.socket = listener
            self.server_address = listener.getsockname()
            self.server_name, self.server_port = options.host, self.server_address[1]
        self.loopback = is_loopback(options.host)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Accept connections and start each one's thread until a stop is asked (self.stop: shutdown(), or a
        signal's handler), which is looked at only here, between two connections; what serve_forever of
        socketserver does, woken at once by the stop rather than at the next poll_interval."""
        self.loop_ended.clear()
        try:
            with selectors.DefaultSelector() as selector:
                selector.register(self.socket, selectors.EVENT_READ)
                selector.register(cast(socket.socket, self.stop.waker), selectors.EVENT_READ)
                while self.stop.reason is None:
                    ready = [key.fileobj for key, _ in selector.select(poll_interval)]
                    if self.stop.waker in ready:
                        self.stop.woken()
                    if self.stop.reason is not None:
                        break
                    if self.socket in ready:
                        self.accept_one()
                    self.service_actions()
        finally:
            self.loop_ended.set()

    def accept_one(self) -> None:
        """Accept a connection and hand it to process_request: socketserver's _handle_request_noblock, without the
        bare except that closed the connection under its thread when a signal's exception landed in between."""
        try:
            request, client_address = self.get_request()
        except OSError:  # none waits (another worker took it), or out of descriptors
            return
        try:
            self.process_request(request, client_address)
        except Exception:  # no thread could start: nothing else holds the connection
            self.handle_error(request, client_address)
            self.shutdown_request(request)

    def shutdown(self) -> None:
        """Stop serve_forever, and wait until it has returned (call it from another thread than the loop's)."""
        self.stop.ask("shutdown")
        self.loop_ended.wait()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread of its own while a slot is free; else answer 503 at once, from the
        accepting thread."""
        if not self.slots.take(request):
            self.refuse_busy(request)
            return
        threading.Thread(target=self.process_request_thread, args=(request, client_address), daemon=True).start()

    def refuse_busy(self, connection: socket.socket) -> None:
        """The 503 of a connection beyond max_connections, written without waiting (it fits any socket buffer); the
        connection is closed LINGER_SECONDS later, so that the request it sends meanwhile does not reset it before
        the client reads the 503 (at most REFUSED_LINGERING wait so; beyond them the oldest is closed at once, what
        its client has sent by then read and dropped first: let_go)."""
        self.warning("all %d connections are open: new ones are refused (503) until one closes; "
                     "--http-max-connections raises the cap", self.limits.max_connections)
        self.refuse(connection, self.busy)

    def refuse(self, connection: socket.socket, reply: bytes) -> None:
        """Write a whole 503 `reply` without waiting, and close the connection LINGER_SECONDS later (let_go)."""
        try:
            connection.setblocking(False)
            connection.send(reply)
            connection.shutdown(socket.SHUT_WR)
        except OSError:  # the client is gone already
            pass
        self.closing.append((self.clock() + http_front.LINGER_SECONDS, connection))
        while len(self.closing) > REFUSED_LINGERING:
            let_go(self.closing.popleft()[1])

    def service_actions(self) -> None:
        """Between accepts (serve_forever calls it): close the refused connections whose time has come."""
        while self.closing and self.closing[0][0] <= self.clock():
            let_go(self.closing.popleft()[1])

    def shutdown_request(self, request: Any) -> None:
        """Close the connection and free its slot; once most of a crowd of connections has closed, give the memory
        they used back (http_front.give_back_memory), on this thread, whose connection is closed already."""
        super().shutdown_request(request)
        if self.slots.release(request):
            http_front.give_back_memory()

    def get_request(self) -> Tuple[Any, Any]:
        """accept(); out of file descriptors, a pause first, so that the accepting loop does not spin."""
        try:
            connection, address = super().get_request()
        except OSError as error:
            if error.errno in (errno.EMFILE, errno.ENFILE):
                self.warning("out of file descriptors (%s): raise ulimit -n or lower --http-max-connections", error)
                time.sleep(0.1)
            raise
        connection.setblocking(True)  # as on Linux, where a connection never inherits a listener's O_NONBLOCK
        return connection, address

    def warning(self, text: str, *args: Any) -> None:
        """A warning, each text at most once every WARN_EVERY_SECONDS: a flood makes one line, not one a
        connection."""
        now = self.clock()
        if now - self.warned.get(text, now - WARN_EVERY_SECONDS) >= WARN_EVERY_SECONDS:
            self.warned[text] = now
            log.warning(text, *args)

    def writes(self, stream: listening.Stream) -> None:
        """`stream` is being written to its client, until wrote(stream): a stop ends it at once (end_streams)."""
        with self.streams_lock:
            self.streams.add(stream)

    def wrote(self, stream: listening.Stream) -> None:
        with self.streams_lock:
            self.streams.discard(stream)

    def end_streams(self) -> None:
        """The stop: every listen stream being written ends now, its result written and its connection closed,
        rather than at its next look."""
        with self.streams_lock:
            streams = list(self.streams)
        for stream in streams:
            stream.end()

    def server_close(self) -> None:
        """Stop at once: stop listening, end every connection (stop_gracefully(0))."""
        self.stop_gracefully(0)

    def stop_gracefully(self, grace: float) -> None:
        """Stop within `grace` seconds (once serve_forever has returned): every kept-alive idle connection ends
        now, and every listen stream, its result written; the requests in progress, those whose first byte has
        come, are read, answered and their connections closed, and so is the first request of a connection
        accepted with none yet, if it comes within FIRST_REQUEST_SECONDS (and the grace), after which such a
        connection is answered 503 with Retry-After; what arrives meanwhile, a new connection or a request on one
        the stop ended, is answered 503 so too. The grace ends once no connection is open, when the stop is
        hurried, or at its end, when a request still arriving is answered 503 and every other connection still
        open is cut (a client that does not read its answer, a call still running). Then the listener is let go
        (let_listener_go: its backlog answered 503), and the connections answered 503 are closed once their
        clients have closed, LINGER_SECONDS after their answer at most (at once with no grace)."""
        self.slots.stop()
        self.end_streams()
        began = self.clock()
        end, fresh_end = began + grace, began + min(grace, FIRST_REQUEST_SECONDS)
        try:
            self.socket.setblocking(False)  # the backlog is taken at once, and accept() never waits
        except OSError:  # closed already (a second server_close)
            pass
        try:
            while self.slots.count() and self.clock() < end and not self.stop.hurried:
                if self.clock() >= fresh_end:
                    self.slots.cut_fresh()
                self.refuse_arrivals(min(0.05, max(0.0, end - self.clock())))
        finally:
            self.slots.cut_all(CUT_SECONDS)
            self.let_listener_go()
            self.let_go_refused(self.clock() + (http_front.LINGER_SECONDS if grace > 0 else 0.0))
            if self.owns_stop:
                self.stop.close()

    def let_listener_go(self) -> None:
        """Close the listener, resetting as few connections as the kernel allows: closing it resets every
        connection the kernel completed and queued, and clients told to send again may connect again at once. So
        its backlog is first shrunk to none: the kernel completes at most one more connection (Linux; about one
        on macOS), and answers no other SYN, which its client's kernel sends again a second later, to find the
        port closed (connection refused: nothing was sent). Then every connection queued is answered 503 until none
        is left (LAST_DRAIN_SECONDS at most), and the listener closed: only a connection whose handshake completes
        between the last accept and the close (or was half done as the backlog shrank) is reset. With --workers
        the listener is every worker's, so only the last close resets any; http_workers gives the backlog back
        before it starts a worker in place of one that stopped."""
        try:
            self.socket.listen(0)
            self.refuse_backlog(until=self.clock() + LAST_DRAIN_SECONDS)
        except (OSError, ValueError):  # out of descriptors, or the listener is gone (a second server_close)
            pass
        super().server_close()

    def refuse_arrivals(self, seconds: float) -> None:
        """During a stop's grace: wait up to `seconds` for new connections and answer each 503 (refuse_backlog),
        and close the refused connections whose time has come; a hurry() (a second Ctrl-C) ends the wait at once."""
        self.service_actions()
        waker = self.stop.waker
        try:
            ready, _, _ = select.select([self.socket] + ([waker] if waker is not None else []), [], [], seconds)
            if waker is not None and waker in ready:
                self.stop.woken()
            if self.socket in ready:
                self.refuse_backlog()
        except (OSError, ValueError):  # out of descriptors, or the listener is gone: the stop goes on
            time.sleep(seconds)

    def refuse_backlog(self, until: Optional[float] = None) -> None:
        """Answer 503 (as refuse_busy does) to each connection waiting in the non-blocking listener's backlog, so
        that none is reset when the listener closes: during the grace, at most as many as it holds (the stop looks
        at its clock between two such rounds); with `until` (a clock() time), the last drain before the listener
        closes, until none is left, however many clients connect again meanwhile, or `until` comes."""
        taken = 0
        while taken < self.limits.backlog if until is None else self.clock() < until:
            try:
                connection, _ = self.socket.accept()
            except (BlockingIOError, InterruptedError):  # none waits (or another worker took it)
                return
            self.refuse(connection, self.stopping_reply)
            taken += 1

    def let_go_refused(self, until: float) -> None:
        """Close each refused connection once its client has closed its end (what it sends meanwhile is read and
        dropped, so that the close resets none before the client has read its 503), at its time (refuse()) or
        `until` at the latest."""
        scratch = bytearray(http_front.CHUNK)
        with selectors.DefaultSelector() as selector:
            for _, connection in self.closing:
                selector.register(connection, selectors.EVENT_READ)
            while self.closing:
                due = min(self.closing[0][0], until)
                if self.clock() >= due:
                    connection = self.closing.popleft()[1]
                    selector.unregister(connection)
                    let_go(connection, scratch)
                    continue
                for key, _ in selector.select(due - self.clock()):
                    connection = cast(socket.socket, key.fileobj)
                    if not still_open(connection, scratch):
                        self.closing = collections.deque(entry for entry in self.closing if entry[1] is not connection)
                        selector.unregister(connection)
                        connection.close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed outside `handle` (the client went away, or a bug): logged, not on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError, socket.timeout)):
            log.debug("connection from %s ended: %s", client_address[0], error)
        else:
            log.exception("a request from %s failed", client_address[0])


class McpHttpServer6(McpHttpServer):
    """The same, bound to an IPv6 address such as ::1."""

    address_family = socket.AF_INET6


def let_go(connection: socket.socket, scratch: Optional[bytearray] = None) -> None:
    """Close a refused connection, what its client has sent by now read and dropped first (DRAIN_CHUNKS at most),
    so that the close is an end of file to the client, not the reset that unread bytes make."""
    scratch = scratch if scratch is not None else bytearray(http_front.CHUNK)
    try:
        for _ in range(DRAIN_CHUNKS):
            if not connection.recv_into(scratch):  # the client has closed
                break
    except OSError:  # nothing more to read now (BlockingIOError), or reset
        pass
    connection.close()


def still_open(connection: socket.socket, scratch: bytearray) -> bool:
    """Whether a non-blocking connection is still open once what its client sent is read (into `scratch`, dropped)."""
    try:
        return connection.recv_into(scratch) > 0
    except BlockingIOError:
        return True
    except OSError:  # reset
        return False


def response_bytes(status: int, message: str, headers: Dict[str, str]) -> bytes:
    """A whole response that closes its connection: a JSON-RPC error body under `status`."""
    body = encoded(error_message(None, INVALID_REQUEST, message))
    return response_head(status, [("Content-Type", JSON_TYPE), ("Content-Length", str(len(body))), *headers.items(),
                                  ("Connection", "close")]) + body


def response_head(status: int, fields: List[Tuple[str, str]]) -> bytes:
    """A response's status line and header fields, up to the empty line that ends them, as http.server writes them
    (ISO-8859-1)."""
    lines = [f"HTTP/1.1 {int(status)} {PHRASES.get(int(status), '')}", *(f"{name}: {value}" for name, value in fields)]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class RequestHandler(http.server.BaseHTTPRequestHandler):
    """One connection: each request read within the limits, checked (headers, origin, host, path, token, body),
    then answered; what is no request is answered with a JSON error, and the connection closed."""

    protocol_version = "HTTP/1.1"  # keep-alive: a client sends its next request on the same connection
    server_version = "osfoundry-mcp"
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart on a kept-alive connection
    body_read = False  # whether this request's body has been read, so the connection can serve another
    unread = False  # whether the connection closes with part of a request unread (then drained a moment first)
    requests_read = 0  # requests whose first byte this connection has read
    reader: http_front.RequestReader
    headers: Any  # an http_front.Fields, looked up as http.server's HTTPMessage is (get, get_all, in, keys)

    @property
    def mcp(self) -> McpHttpServer:
        return cast(McpHttpServer, self.server)

    def setup(self) -> None:
        super().setup()
        slots, connection = self.mcp.slots, self.connection
        self.reader = http_front.RequestReader(connection, self.mcp.limits, self.mcp.clock,
                                               lambda: slots.stopped_reading(connection))

    def handle_one_request(self) -> None:
        """Wait for a request, read its head and serve it. The connection closes when none comes in time, when the
        client leaves, after what is no request (answered 400, 408, 414 or 431 first), and once the server
        stops: a fresh connection's first request is still served if it comes within FIRST_REQUEST_SECONDS, and
        one that comes as the stop ends the wait is answered 503, with Retry-After (a fresh connection's, before it
        comes)."""
        self.close_connection = True
        self.command, self.path, self.request_version, self.requestline = "", "", "HTTP/1.1", UNREAD_LINE
        self.headers = NO_FIELDS
        self.body_read = False
        fresh = not self.requests_read
        if not self.mcp.slots.waits(self.connection, fresh):  # the server is stopping: no further request here
            if fresh:  # the stop no longer waits for first requests: what it sends is answered as arrivals are
                self.refuse_stopping()
            return
        came = self.reader.next_request()
        if not self.mcp.slots.came(self.connection):  # the stop ended the wait
            if came or fresh:  # a request that came at that moment, or a fresh connection's still to come: 503
                self.refuse_stopping()
            return
        if not came:
            return
        self.requests_read += 1
        self.mcp.slots.reads(self.connection)
        try:
            self.read_head()
        except http_front.Unreadable as problem:
            self.unread = True
            self.send_json(problem.status, error_message(None, INVALID_REQUEST, problem.message))
            return
        except http_front.Stopped:  # still arriving at the end of the stop's grace
            self.refuse_stopping()
            return
        except http_front.Ended:
            return
        self.serve({"POST": self.post, "GET": self.get, "DELETE": self.delete}.get(self.command, self.refuse_method))

    def refuse_stopping(self) -> None:
        """The 503 of a request that comes during a stop, or is still arriving when its grace ends, the rest of the
        request read and dropped (finish: drain) so that closing the connection does not reset it before the client
        has read the 503."""
        self.unread = True
        self.mcp.slots.read_whole(self.connection)
        self.write(self.mcp.stopping_reply)

    def read_head(self) -> None:
        """The request line and headers, kept as BaseHTTPRequestHandler keeps them (the headers looked up as its
        HTTPMessage looks them up), and whether the connection stays open after the answer (HTTP/1.1 unless
        Connection: close, HTTP/1.0 with Connection: keep-alive)."""
        self.command, self.path, self.request_version = self.reader.request_line()
        try:
            self.headers = http_front.Fields(self.reader.headers())
        finally:  # the line as the log shows it, made once the head is read (a slow client makes it hold less)
            self.requestline = f"{self.command} {path_of(self.path)} {self.request_version}"
        self.close_connection = not keeps_alive(self.request_version, self.headers.get_all("Connection"))

    def serve(self, route: Callable[[], None]) -> None:
        """Run the checks every request shares, then `route`; a Refusal becomes its error response."""
        try:
            self.check_headers()
            self.check_origin()
            self.check_host()
            route()
        except Refusal as refusal:
            self.send_json(refusal.status, error_message(refusal.request_id, refusal.code, refusal.message),
                           refusal.headers)

    def path_only(self) -> str:
        return path_of(self.path)

    def post(self) -> None:
        """The endpoint: authenticate, check the headers, read and parse the body (its bytes reserved in the body
        budget while it is read and answered), answer it."""
        if self.path_only() != ENDPOINT:
            raise self.not_found()
        grant = self.authenticate()
        if not is_json_type(self.headers.get("Content-Type")):
            raise Refusal(http.HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type: send the message "
                          f"with Content-Type: {JSON_TYPE}")
        if not accepts_json(self.headers.get("Accept")):
            raise Refusal(http.HTTPStatus.NOT_ACCEPTABLE, f"Not Acceptable: answers are {JSON_TYPE}; send "
                          f"Accept: {JSON_TYPE}, text/event-stream")
        if "Transfer-Encoding" in self.headers:
            raise Refusal(http.HTTPStatus.LENGTH_REQUIRED, "Length Required: send the message with a "
                          "Content-Length header (a chunked body is not accepted)")
        length = body_length(self.headers.get_all("Content-Length"), self.mcp.limits.max_body)
        hold = self.mcp.bodies.hold(length, self.reader.deadline)
        try:
            message = parsed(self.read_body(length, hold))
            version = self.headers.get("MCP-Protocol-Version")
            if self.book is not None and is_handshake_request(message):
                self.answer_in_session(message, grant, version, hold)
            else:
                self.answer(message, grant, version, hold)
        finally:
            hold.release()

    # -- sessions (the handshake era) -----------------------------------------

    @property
    def book(self) -> Optional[sessions.Book]:
        return self.mcp.options.book

    def token(self) -> Optional[str]:
        """The bearer token a session is bound to (None on a server without tokens)."""
        if self.mcp.options.tokens is None:
            return None
        return bearer_token(self.headers.get("Authorization"))

    def session(self) -> Optional[sessions.Session]:
        """The session the request's Mcp-Session-Id names, held by its token; None without the header; Refusal
        (404) for an unknown, expired or forged one, and for another token's (which is not told apart)."""
        session_id = self.headers.get(SESSION_HEADER)
        if session_id is None or self.book is None:
            return None
        found = self.book.find(session_id, self.token()) if 0 < len(session_id) <= 200 else None
        if found is None:
            raise Refusal(http.HTTPStatus.NOT_FOUND, "Not Found: no session of yours has this Mcp-Session-Id (it "
                          "ended, expired, or never was); initialize again without the header for a new one")
        return found

    def answer_in_session(self, message: Any, grant: Optional[Grant], version: Optional[str],
                          hold: http_front.Hold) -> None:
        """A handshake-era message: initialize opens a session (beyond the caps it is answered without one, and the
        client goes on sessionless: its tools work, a subscribe says why it cannot), another is served in the
        session it names (404 for one unknown), or sessionless without the header."""
        book = cast(sessions.Book, self.book)
        if isinstance(message, dict) and message.get("method") == "initialize" and "id" in message:
            caller = grant.caller if grant is not None else ""
            try:
                session_id = book.open(self.token(), caller or "(this server's own caller)")
            except sessions.Full as full:
                self.mcp.warning("an initialize was answered without a session: %s", str(full))
                self.answer(message, grant, version, hold)
                return
            opened = book.find(session_id, self.token())
            held = sessions.Held(book, cast(sessions.Session, opened))
            self.answer(message, grant, version, hold, session=held, headers={SESSION_HEADER: session_id},
                        failed=lambda: book.end(held.session))
            return
        session = self.session()
        self.answer(message, grant, version, hold, session=None if session is None else sessions.Held(book, session))

    def session_stream(self) -> None:
        """GET with an Mcp-Session-Id: the session's notifications as server-sent events, for as long as the client
        reads, the session lasts, and no newer GET of it takes over."""
        self.authenticate()
        session = self.session()
        if session is None:
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, f"Method Not Allowed: GET {ENDPOINT} opens a session's "
                          f"event stream and needs its {SESSION_HEADER} (initialize answers with one); a message "
                          "goes in a POST", {"Allow": "POST, GET, DELETE"})
        if not accepts_events(self.headers.get("Accept")):
            raise Refusal(http.HTTPStatus.NOT_ACCEPTABLE, f"Not Acceptable: the stream is {EVENT_STREAM}; send "
                          f"Accept: {EVENT_STREAM}")
        hub = self.mcp.options.hub
        if hub is None:
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, "Method Not Allowed: this server has no event stream",
                          {"Allow": "POST, DELETE"})
        try:
            feed = listening.SessionFeed(hub, cast(sessions.Book, self.book), session,
                                         self.headers.get("Last-Event-ID"))
        except ProtocolError as refused:  # the caps on streams
            raise Refusal(http.HTTPStatus.TOO_MANY_REQUESTS, f"Too Many Requests: {refused.message}",
                          {"Retry-After": str(RETRY_SECONDS)}, code=refused.code) from None
        self.write_stream(feed.stream, feed.look)

    def delete(self) -> None:
        """DELETE with an Mcp-Session-Id: the session ended (204); its GET stream ends within a moment."""
        if self.path_only() != ENDPOINT or self.book is None or SESSION_HEADER not in self.headers:
            self.refuse_method()
            return
        self.authenticate()
        session = cast(sessions.Session, self.session())
        cast(sessions.Book, self.book).end(session)
        self.send(http.HTTPStatus.NO_CONTENT, None)

    def get(self) -> None:
        """The metadata document when tokens are configured; the endpoint refuses GET (no event stream)."""
        path = self.path_only()
        if path in METADATA_PATHS and self.mcp.options.tokens is not None:
            self.send_json(http.HTTPStatus.OK, self.metadata())
        elif path == ENDPOINT and self.book is not None and SESSION_HEADER in self.headers:
            self.session_stream()
        else:
            self.refuse_method()

    def refuse_method(self) -> None:
        """405 on the endpoint (it takes only POST) and on the metadata (only GET); 404 elsewhere."""
        path = self.path_only()
        if path == ENDPOINT:
            if self.book is not None:
                raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, f"Method Not Allowed: {ENDPOINT} takes one JSON-RPC "
                              f"message per POST; GET and DELETE need the {SESSION_HEADER} that initialize answers "
                              "with", {"Allow": "POST, GET, DELETE"})
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, f"Method Not Allowed: {ENDPOINT} takes one JSON-RPC "
                          "message per POST; this server offers no event stream and no sessions", {"Allow": "POST"})
        if path in METADATA_PATHS and self.mcp.options.tokens is not None:
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, "Method Not Allowed: the metadata is read with GET",
                          {"Allow": "GET"})
        raise self.not_found()

    def not_found(self) -> Refusal:
        return Refusal(http.HTTPStatus.NOT_FOUND, f"Not Found: the MCP endpoint is {ENDPOINT}")

    def check_headers(self) -> None:
        """400 for a header that must come once sent twice, an HTTP/1.1 request without Host, and a query-string
        parameter that looks like a credential (its value is never echoed nor logged)."""
        repeated = repeated_header(self.headers)
        if repeated is not None:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Invalid Request: send one {repeated} header, not several")
        if self.request_version == "HTTP/1.1" and "Host" not in self.headers:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, "Invalid Request: an HTTP/1.1 request names its Host")
        name = credential_in_query(self.path)
        if name is not None:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Invalid Request: the query string's "
                          f"{rejections.quote(name)} looks like a credential; a token travels only in the "
                          "Authorization: Bearer header, and one sent in a URL should be taken as seen by others")

    def check_origin(self) -> None:
        """403 for a browser page of an origin not allowed (DNS rebinding); no Origin is not a browser's call."""
        origin = self.headers.get("Origin")
        if origin is not None and not origin_allowed(origin, self.mcp.options.allowed_origins):
            raise Refusal(http.HTTPStatus.FORBIDDEN, f"Forbidden: the Origin {rejections.quote(origin)} is not "
                          "allowed; loopback origins are, and the server's --allow-origin option adds one")

    def check_host(self) -> None:
        """421 for a Host, or an absolute-form target's host (http://HOST/mcp, which a server must read in place
        of Host), that is not a loopback name on a server bound to a loopback address; 400 for an absolute-form
        target that is malformed, names a user, or is not http(s)."""
        host = self.headers.get("Host")
        named = [host] if host is not None else []
        authority = target_authority(self.path)
        if authority is not None:
            named.append(authority)
        for name in named if self.mcp.loopback else ():
            if (host_name(name) or "").lower() not in LOOPBACK_HOSTS:
                raise Refusal(http.HTTPStatus.MISDIRECTED_REQUEST, f"Misdirected Request: this server listens on "
                              f"a loopback address and answers only Host localhost, 127.0.0.1 or [::1], not "
                              f"{rejections.quote(name)}")

    def authenticate(self) -> Optional[Grant]:
        """The grant of the request's bearer token; None without tokens configured; Refusal (401) otherwise."""
        tokens = self.mcp.options.tokens
        if tokens is None:
            return None
        token = bearer_token(self.headers.get("Authorization"))
        grant = tokens.grant_for(token) if token is not None else None
        if grant is None:
            challenge = f'Bearer realm="{REALM}", resource_metadata="{self.base_url()}{METADATA_PATHS[0]}"'
            if token is not None:
                challenge += ', error="invalid_token"'
            log.debug("refused a request from %s: %s bearer token", self.client_address[0],
                      "an unknown" if token is not None else "no")
            raise Refusal(http.HTTPStatus.UNAUTHORIZED, "Unauthorized: a valid bearer token is needed; send "
                          "Authorization: Bearer <token> with a token this server was given",
                          {"WWW-Authenticate": challenge})
        log.debug("request of caller %s", rejections.loggable(grant.caller))
        return grant

    def base_url(self) -> str:
        """http://HOST:PORT as the client addressed the server (a well-formed Host), else its bound address."""
        host = self.headers.get("Host")
        if host is not None and host_name(host) is not None:
            return f"http://{host}"
        address, port = bound_address(self.mcp)
        return f"http://[{address}]:{port}" if ":" in address else f"http://{address}:{port}"

    def metadata(self) -> Dict[str, Any]:
        """The RFC 9728 protected-resource metadata: the resource, and that a bearer token goes in a header."""
        return {"resource": f"{self.base_url()}{ENDPOINT}", "bearer_methods_supported": ["header"],
                "scopes_supported": [WRITE_SCOPE], "authorization_servers": []}

    def read_body(self, length: int, hold: http_front.Hold) -> bytearray:
        """Exactly `length` bytes of body, after a 100 Continue if the client waits for one, each chunk reserved in
        the body budget (`hold`) as it arrives; Refusal (400) when the client sends fewer and stops, (408) when
        they arrive after the request's deadline, (503) when the budget has no room for them in time."""
        if self.request_version == "HTTP/1.1" and (self.headers.get("Expect") or "").lower() == "100-continue":
            self.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            body = self.reader.body(length, hold)
        except http_front.Unreadable as late:
            raise Refusal(late.status, late.message) from None
        except http_front.NoRoom:
            raise Refusal(http.HTTPStatus.SERVICE_UNAVAILABLE, "Service Unavailable: the server holds as many "
                          f"request bodies as it may at once; send again in {RETRY_SECONDS} s",
                          {"Retry-After": str(RETRY_SECONDS)}) from None
        except http_front.Stopped:  # still arriving at the end of the stop's grace
            raise Refusal(http.HTTPStatus.SERVICE_UNAVAILABLE, STOPPING,
                          {"Retry-After": str(RETRY_SECONDS)}) from None
        self.mcp.slots.read_whole(self.connection)
        if len(body) < length:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Invalid Request: the body ended after {len(body)} of the "
                          f"{length} bytes its Content-Length announced")
        self.body_read = True
        return body

    def answer(self, message: Any, grant: Optional[Grant], protocol_version: Optional[str],
               hold: Optional[http_front.Hold] = None, session: Optional[sessions.Held] = None,
               headers: Optional[Dict[str, str]] = None, failed: Optional[Callable[[], None]] = None) -> None:
        """Hand the message to the handler and send its answer with the status that fits it (a stateless request
        whose routing headers do not name what its body does is refused first: 400, -32020); a listen stream's
        body is given back to the budget (`hold`) before the stream is written, for as long as it stays open.
        `session`: the handshake era's session the request is served in; `headers`: sent with a result only;
        `failed`: called before any other answer is sent."""
        mismatch = routing_mismatch(message, self.headers) if protocol_version == STATELESS_VERSION else None
        if mismatch is not None:
            self.send_json(http.HTTPStatus.BAD_REQUEST, error_message(request_id(message), HEADER_MISMATCH, mismatch))
            return
        try:
            extra = {} if session is None else {"session": session}
            answer = self.mcp.handle_message(message, grant=grant, protocol_version=protocol_version, **extra)
            if isinstance(answer, listening.Stream):
                if hold is not None:
                    hold.release()
                self.write_stream(answer)
                return
            body = None if answer is None else encoded(answer)
        except Exception as error:  # a bug: the client gets an error and the server goes on
            log.exception("the answer to a message over HTTP failed")
            if failed is not None:
                failed()
            self.send_json(http.HTTPStatus.INTERNAL_SERVER_ERROR, error_message(
                request_id(message), INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}"))
            return
        succeeded = answer is not None and "result" in answer
        if not succeeded and failed is not None:
            failed()
        self.send(status_for(answer, protocol_version), body, headers if succeeded else None)

    def write_stream(self, stream: listening.Stream, look: Optional[Callable[[], bool]] = None) -> None:
        """A listen stream as server-sent events: the ack, each notification as it comes, a comment every
        KEEPALIVE_SECONDS of quiet (so that proxies and clients keep an idle stream open), and the listen's result
        once the stream ends or the server stops (at once: stop_gracefully ends it); the connection closes after it.
        The kernel holds at most STREAM_SEND_BUFFER bytes for the client, the stream's outbox the rest
        (listening.OUTBOX messages); a client that does not read is cut after request_seconds of a blocked write,
        and its stream released. `look`, every LOOK_SECONDS: a session's GET stream following its session (False:
        the session is over, the stream ends)."""
        self.close_connection = True
        self.mcp.slots.read_whole(self.connection)
        self.log_request(200)
        fields = [("Server", self.version_string()), ("Date", self.date_time_string()),
                  ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("Connection", "close")]
        quiet = 0.0
        looked = time.monotonic()
        self.mcp.writes(stream)
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, STREAM_SEND_BUFFER)
            self.write(response_head(200, fields))
            while True:
                if self.mcp.slots.stopping:
                    stream.end()
                if look is not None and time.monotonic() - looked >= LOOK_SECONDS:
                    looked = time.monotonic()
                    if not look():
                        stream.end()
                try:
                    taken = stream.take(LOOK_SECONDS if look is not None else STREAM_WAKE_SECONDS)
                except listening.Closed:
                    break
                if taken is None:
                    quiet += LOOK_SECONDS if look is not None else STREAM_WAKE_SECONDS
                    if quiet >= KEEPALIVE_SECONDS:
                        self.write(b": keep-alive\n\n")
                        quiet = 0.0
                    continue
                quiet = 0.0
                message, event_id = taken
                named = b"" if event_id is None else b"id: " + event_id.encode("ascii") + b"\n"
                self.write(b"event: message\n" + named + b"data: " + encoded(message) + b"\n\n")
            if stream.closing is not None:
                self.write(b"event: message\ndata: " + encoded(stream.closing) + b"\n\n")
        except (OSError, ValueError):  # the client went away or stopped reading
            log.debug("a listen stream's client went away")
        finally:
            self.mcp.wrote(stream)
            stream.release()

    def send_error(self, code: int, message: Optional[str] = None, explain: Optional[str] = None) -> None:
        """What http.server itself would refuse with its HTML page: a JSON error instead, and the connection closed."""
        self.close_connection = True
        try:
            reason = http.HTTPStatus(code).phrase
        except ValueError:  # a status of no name
            reason = "Error"
        self.send_json(code, error_message(None, INVALID_REQUEST, f"{reason}: {message or explain or reason}"))

    def send_json(self, status: int, message: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> None:
        self.send(status, encoded(message), headers)

    def send(self, status: int, body: Optional[bytes], headers: Optional[Dict[str, str]] = None) -> None:
        """One response, its head and body in one write (one packet, one wake-up of the client, for a small answer);
        the connection is closed after it when a request body was left unread."""
        if not self.body_read and self.announces_body():
            self.close_connection = self.unread = True
        if self.mcp.slots.stopping:  # the last answer on this connection: the server stops
            self.close_connection = True
        self.mcp.slots.read_whole(self.connection)
        self.log_request(status)
        fields = [("Server", self.version_string()), ("Date", self.date_time_string()), *(headers or {}).items()]
        if body is not None:
            fields.append(("Content-Type", JSON_TYPE))
        fields.append(("Content-Length", str(len(body or b""))))
        if self.close_connection:
            fields.append(("Connection", "close"))
        elif self.request_version == "HTTP/1.0":
            fields.append(("Connection", "keep-alive"))
        head = response_head(status, fields)
        self.write(head + body if body and self.command != "HEAD" else head)  # within request_seconds, or cut

    def date_time_string(self, timestamp: Optional[float] = None) -> str:
        """The Date header's text as http.server writes it, made once a second and shared by that second's answers
        (email.utils makes it at some cost)."""
        if timestamp is not None:
            return super().date_time_string(timestamp)
        second = int(time.time())
        dated = self.mcp.dated
        if dated[0] != second:
            dated = self.mcp.dated = (second, super().date_time_string(second))
        return dated[1]

    def write(self, data: bytes) -> None:
        """Send `data` whole within request_seconds (socket.timeout beyond: the connection is dropped)."""
        self.connection.settimeout(self.mcp.limits.request_seconds)
        self.wfile.write(data)

    def finish(self) -> None:
        super().finish()
        if self.unread:
            self.reader.drain()

    def announces_body(self) -> bool:
        return "Transfer-Encoding" in self.headers or self.headers.get("Content-Length", "0").strip() != "0"

    def log_message(self, format: str, *args: Any) -> None:
        """The request's method, path and version and its status at debug level, never its query string nor a
        header; not the default lines on stderr."""
        if log.isEnabledFor(logging.DEBUG):  # most servers log no request: nothing is formatted for them
            log.debug("http %s: %s", self.client_address[0], printable(format % args))


# ---------------------------------------------------------------------------
# Starting and running.


def make_server(handle: Handle, options: HttpOptions, listener: Optional[socket.socket] = None,
                stop: Optional[Stop] = None) -> McpHttpServer:
    """A server bound to options.host and options.port, or serving `listener` (bound there already), and ready to
    serve (server_address gives the port) until `stop` (its own, without one) is asked."""
    host = options.host[1:-1] if options.host.startswith("[") and options.host.endswith("]") else options.host
    server_class = McpHttpServer6 if ":" in host else McpHttpServer
    return server_class(handle, options._replace(host=host), listener=listener, stop=stop)


def bound_address(server: http.server.HTTPServer) -> Tuple[str, int]:
    """The host and port a server listens on (the port chosen, when 0 was asked)."""
    address = cast(Tuple[Any, ...], server.server_address)
    return str(address[0]), int(address[1])


def serve_http(handle: Handle, options: HttpOptions, ready: Callable[[Tuple[str, int]], None],
               listener: Optional[socket.socket] = None, stop: Optional[Stop] = None,
               stopping: Callable[[Optional[str]], None] = lambda reason: None) -> None:
    """Serve until `stop` is asked (by a signal's handler, say) or shutdown(), calling ready(address) once bound
    (or on `listener`, bound already: a worker's), then stopping(the stop's reason) and the graceful stop within
    options.grace_seconds (McpHttpServer.stop_gracefully; hurried by stop.hurry()); the socket always closes,
    whatever ends the serving. The open-file limit is raised to fit max_connections, or the connections lowered to
    fit it (with a warning)."""
    wanted = options.limits.max_connections
    fitting = http_front.connections_that_fit(wanted)
    if fitting < wanted:
        log.warning("the open-file limit (ulimit -n) leaves room for %d connections: at most %d are served, not %d",
                    fitting, fitting, wanted)
        options = options._replace(limits=options.limits._replace(max_connections=fitting))
    server = make_server(handle, options, listener, stop)
    try:
        ready(bound_address(server))
        server.serve_forever()
        stopping(server.stop.reason)
    finally:
        server.stop_gracefully(options.grace_seconds)
