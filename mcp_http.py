"""MCP's Streamable HTTP transport for the MCP server: one endpoint, /mcp, where each POST carries one message.

Layer: a transport under mcp_server, beside its stdio loop; it knows HTTP and bearer tokens, not the
tools. mcp_server hands it a `handle` that answers one parsed message; this module decides only who may
ask, whether the request is well formed, and which HTTP status carries the answer.

Glossary (the MCP specification's transports page and security section, revisions 2025-11-25 and 2026-07-28):
  endpoint        the one path, /mcp, that takes a POST holding one JSON-RPC message
  answer          what `handle` returns: a JSON-RPC response, or None (a notification or a client's response)
  origin          a browser's Origin header; one that is not allowed is refused (403) against DNS rebinding
  host            the Host header; on a server bound to a loopback address it must name a loopback host (421)
  bearer token    the secret after "Authorization: Bearer "; Tokens turns it into a grant or refuses it (401)
  grant           what a token allows (mcp_tokens.Grant), passed to `handle` with each message
  metadata        the RFC 9728 protected-resource document that tells a client how to authenticate

Left out on purpose: server-sent events (every answer is one JSON body, which the specification allows),
sessions (no Mcp-Session-Id is ever sent; GET and DELETE are refused with 405), resumability, and TLS
(bind to a loopback address, or put a TLS proxy in front).
"""

import base64
import http
import http.server
import ipaddress
import json
import logging
import re
import socket
import sys
import urllib.parse
from typing import Any, Callable, Dict, FrozenSet, List, NamedTuple, Optional, Tuple, cast

import plumbing
from mcp_tokens import WRITE_SCOPE, Grant, Tokens

log = logging.getLogger("osfoundry.mcp")

Handle = Callable[..., Optional[Dict[str, Any]]]
# handle(message, grant=Optional[Grant], protocol_version=Optional[str]) -> the JSON-RPC answer, or None

ENDPOINT = "/mcp"
METADATA_PATHS = ("/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp")
MAX_BODY_BYTES = 4 * 1024 * 1024  # as mcp_server.MAX_LINE_BYTES: a larger body is refused (413) unread
IDLE_SECONDS = 60  # a kept-alive connection silent this long is closed, and its thread ends
REALM = "osfoundry"
STATELESS_VERSION = "2026-07-28"  # the revision under which an unknown method is a 404
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INTERNAL_ERROR = -32700, -32600, -32601, -32603
HEADER_MISMATCH, UNSUPPORTED_VERSION = -32020, -32022
BAD_REQUEST_CODES = frozenset({PARSE_ERROR, INVALID_REQUEST, HEADER_MISMATCH, UNSUPPORTED_VERSION})
JSON_TYPE = "application/json"
ACCEPTABLE_TYPES = frozenset({JSON_TYPE, "application/*", "*/*"})
HOST_HEADER = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")  # a name or [IPv6], a port


class HttpOptions(NamedTuple):
    """Where to listen and whom to admit."""

    host: str  # e.g. "127.0.0.1"
    port: int  # 0: any free port
    tokens: Optional[Tokens]  # None: no authentication (grant=None is passed to handle)
    allowed_origins: FrozenSet[str]  # besides http(s)://localhost|127.0.0.1|[::1] on any port, always allowed


class Refusal(Exception):
    """A request answered with an HTTP error status and a JSON-RPC error body, before `handle` sees it."""

    def __init__(self, status: int, message: str, headers: Optional[Dict[str, str]] = None,
                 code: int = INVALID_REQUEST) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.code = code


# ---------------------------------------------------------------------------
# The rules, as pure functions of header values.


def error_message(request_id: Any, code: int, message: str) -> Dict[str, Any]:
    """A JSON-RPC error response (the same shape as mcp_server.error_message)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def encoded(message: Dict[str, Any]) -> bytes:
    """Compact JSON in UTF-8, as mcp_server.write_message writes a line; TypeError or ValueError if not JSON."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate the client sent, echoed back: escape everything instead
        return json.dumps(message, separators=(",", ":"), allow_nan=False).encode("ascii")


def request_id(message: Any) -> Any:
    """The id of a request, as an error answer may echo it; None when it has no valid one."""
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


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


def accepts_json(accept: Optional[str]) -> bool:
    """Whether an Accept header admits a JSON answer; an absent one admits anything."""
    if accept is None:
        return True
    for media_range in accept.split(","):
        media_type, *parameters = [part.strip().lower() for part in media_range.split(";")]
        refused = any(re.fullmatch(r"q=0(?:\.0{0,3})?", parameter.replace(" ", "")) for parameter in parameters)
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
        return (f"Header mismatch: Mcp-Method is {plumbing.quote(headers.get('Mcp-Method'))}, the body's method "
                f"{plumbing.quote(method)}; send the method in both")
    key = NAMED_METHODS.get(method)
    params = message.get("params")
    named = params.get(key) if key is not None and isinstance(params, dict) else None
    if key is not None and header_value(headers.get("Mcp-Name")) != named:
        return (f"Header mismatch: Mcp-Name is {plumbing.quote(headers.get('Mcp-Name'))}, the body's {key} "
                f"{plumbing.quote(named)}; send the {key} in both")
    return None


def header_value(value: Optional[str]) -> Optional[str]:
    """A routing header's text: as sent, or decoded from =?base64?...?= (how a value beyond plain ASCII travels)."""
    if value is None or not (value.startswith("=?base64?") and value.endswith("?=")):
        return value
    try:
        return base64.b64decode(value[len("=?base64?"):-2], validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


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


def body_length(values: Optional[List[str]]) -> int:
    """The body's length from the Content-Length header values; Refusal when absent, malformed or too large."""
    if not values:
        raise Refusal(http.HTTPStatus.LENGTH_REQUIRED, "Length Required: send the message with a Content-Length "
                      "header (a chunked body is not accepted)")
    if len(set(values)) != 1 or not re.fullmatch(r"[0-9]{1,20}", values[0].strip()):
        raise Refusal(http.HTTPStatus.BAD_REQUEST, "Invalid Request: Content-Length must be one decimal number of "
                      "bytes")
    length = int(values[0])
    if length > MAX_BODY_BYTES:
        raise Refusal(http.HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"Invalid Request: a message may hold at most "
                      f"{MAX_BODY_BYTES} bytes; this one announced {length}")
    return length


def parsed(body: bytes) -> Any:
    """The JSON value of a request body; Refusal (400, -32700) when it is not one JSON text in UTF-8."""
    try:
        return plumbing.strict_json(body.decode("utf-8"))
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Parse error: the body is not one JSON text in UTF-8 "
                      f"({error})", code=PARSE_ERROR) from None


# ---------------------------------------------------------------------------
# The server and its request handler.


class McpHttpServer(http.server.ThreadingHTTPServer):
    """A threaded HTTP server holding what its requests need: the message handler and the options."""

    daemon_threads = True  # an open keep-alive connection never holds the process at exit

    def __init__(self, handle: Handle, options: HttpOptions) -> None:
        self.handle_message = handle
        self.options = options
        super().__init__((options.host, options.port), RequestHandler)
        self.loopback = is_loopback(options.host)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that failed outside `handle` (the client went away, or a bug): logged, not on stderr."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            log.debug("connection from %s ended: %s", client_address[0], error)
        else:
            log.exception("a request from %s failed", client_address[0])


class McpHttpServer6(McpHttpServer):
    """The same, bound to an IPv6 address such as ::1."""

    address_family = socket.AF_INET6


class RequestHandler(http.server.BaseHTTPRequestHandler):
    """One connection: each request is checked (origin, host, path, token, headers, body), then answered."""

    protocol_version = "HTTP/1.1"  # keep-alive: a client sends its next request on the same connection
    server_version = "osfoundry-mcp"
    timeout = IDLE_SECONDS
    disable_nagle_algorithm = True  # headers and body leave at once, not 40 ms apart on a kept-alive connection
    body_read = False  # whether this request's body has been read, so the connection can serve another

    @property
    def mcp(self) -> McpHttpServer:
        return cast(McpHttpServer, self.server)

    def do_POST(self) -> None:
        self.serve(self.post)

    def do_GET(self) -> None:
        self.serve(self.get)

    def __getattr__(self, name: str) -> Callable[[], None]:
        """Every other method (DELETE, PUT, HEAD, ...): refused, where BaseHTTPRequestHandler would say 501."""
        if name.startswith("do_"):
            return lambda: self.serve(self.refuse_method)
        raise AttributeError(name)

    def serve(self, route: Callable[[], None]) -> None:
        """Run the checks every request shares, then `route`; a Refusal becomes its error response."""
        self.body_read = False
        try:
            self.check_origin()
            self.check_host()
            route()
        except Refusal as refusal:
            self.send_json(refusal.status, error_message(None, refusal.code, refusal.message), refusal.headers)

    def path_only(self) -> str:
        return urllib.parse.urlsplit(self.path).path

    def post(self) -> None:
        """The endpoint: authenticate, check the headers, read and parse the body, answer it."""
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
        message = parsed(self.read_body(body_length(self.headers.get_all("Content-Length"))))
        self.answer(message, grant, self.headers.get("MCP-Protocol-Version"))

    def get(self) -> None:
        """The metadata document when tokens are configured; the endpoint refuses GET (no event stream)."""
        path = self.path_only()
        if path in METADATA_PATHS and self.mcp.options.tokens is not None:
            self.send_json(http.HTTPStatus.OK, self.metadata())
        else:
            self.refuse_method()

    def refuse_method(self) -> None:
        """405 on the endpoint (it takes only POST) and on the metadata (only GET); 404 elsewhere."""
        path = self.path_only()
        if path == ENDPOINT:
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, f"Method Not Allowed: {ENDPOINT} takes one JSON-RPC "
                          "message per POST; this server offers no event stream and no sessions", {"Allow": "POST"})
        if path in METADATA_PATHS and self.mcp.options.tokens is not None:
            raise Refusal(http.HTTPStatus.METHOD_NOT_ALLOWED, "Method Not Allowed: the metadata is read with GET",
                          {"Allow": "GET"})
        raise self.not_found()

    def not_found(self) -> Refusal:
        return Refusal(http.HTTPStatus.NOT_FOUND, f"Not Found: the MCP endpoint is {ENDPOINT}")

    def check_origin(self) -> None:
        """403 for a browser page of an origin not allowed (DNS rebinding); no Origin is not a browser's call."""
        origin = self.headers.get("Origin")
        if origin is not None and not origin_allowed(origin, self.mcp.options.allowed_origins):
            raise Refusal(http.HTTPStatus.FORBIDDEN, f"Forbidden: the Origin {plumbing.quote(origin)} is not "
                          "allowed; loopback origins are, and the server's --allow-origin option adds one")

    def check_host(self) -> None:
        """421 for a Host that is not a loopback name on a server bound to a loopback address."""
        if len(self.headers.get_all("Host") or []) > 1:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, "Invalid Request: send one Host header")
        host = self.headers.get("Host")
        if self.mcp.loopback and host is not None and (host_name(host) or "").lower() not in LOOPBACK_HOSTS:
            raise Refusal(http.HTTPStatus.MISDIRECTED_REQUEST, f"Misdirected Request: this server listens on "
                          f"a loopback address and answers only Host localhost, 127.0.0.1 or [::1], not "
                          f"{plumbing.quote(host)}")

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
        log.debug("request of caller %s", plumbing.loggable(grant.caller))
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

    def read_body(self, length: int) -> bytes:
        """Exactly `length` bytes of body; Refusal (400) when the client sends fewer and stops."""
        body = self.rfile.read(length)
        if len(body) < length:
            raise Refusal(http.HTTPStatus.BAD_REQUEST, f"Invalid Request: the body ended after {len(body)} of the "
                          f"{length} bytes its Content-Length announced")
        self.body_read = True
        return body

    def answer(self, message: Any, grant: Optional[Grant], protocol_version: Optional[str]) -> None:
        """Hand the message to the handler and send its answer with the status that fits it (a stateless request
        whose routing headers do not name what its body does is refused first: 400, -32020)."""
        mismatch = routing_mismatch(message, self.headers) if protocol_version == STATELESS_VERSION else None
        if mismatch is not None:
            self.send_json(http.HTTPStatus.BAD_REQUEST, error_message(request_id(message), HEADER_MISMATCH, mismatch))
            return
        try:
            answer = self.mcp.handle_message(message, grant=grant, protocol_version=protocol_version)
            body = None if answer is None else encoded(answer)
        except Exception as error:  # a bug: the client gets an error and the server goes on
            log.exception("the answer to a message over HTTP failed")
            self.send_json(http.HTTPStatus.INTERNAL_SERVER_ERROR, error_message(
                request_id(message), INTERNAL_ERROR, f"Internal error: {type(error).__name__}: {error}"))
            return
        self.send(status_for(answer, protocol_version), body)

    def send_json(self, status: int, message: Dict[str, Any], headers: Optional[Dict[str, str]] = None) -> None:
        self.send(status, encoded(message), headers)

    def send(self, status: int, body: Optional[bytes], headers: Optional[Dict[str, str]] = None) -> None:
        """One response; the connection is closed after it when a request body was left unread."""
        if not self.body_read and self.announces_body():
            self.close_connection = True
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if body is not None:
            self.send_header("Content-Type", JSON_TYPE)
        self.send_header("Content-Length", str(len(body or b"")))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def announces_body(self) -> bool:
        return "Transfer-Encoding" in self.headers or self.headers.get("Content-Length", "0").strip() != "0"

    def log_message(self, format: str, *args: Any) -> None:
        """The request line and status at debug level, never a header; not the default lines on stderr."""
        log.debug("http %s: %s", self.client_address[0], printable(format % args))


# ---------------------------------------------------------------------------
# Starting and running.


def make_server(handle: Handle, options: HttpOptions) -> http.server.ThreadingHTTPServer:
    """A server bound to options.host and options.port and ready to serve (server_address gives the port)."""
    host = options.host[1:-1] if options.host.startswith("[") and options.host.endswith("]") else options.host
    server_class = McpHttpServer6 if ":" in host else McpHttpServer
    return server_class(handle, options._replace(host=host))


def bound_address(server: http.server.HTTPServer) -> Tuple[str, int]:
    """The host and port a server listens on (the port chosen, when 0 was asked)."""
    address = cast(Tuple[Any, ...], server.server_address)
    return str(address[0]), int(address[1])


def serve_http(handle: Handle, options: HttpOptions, ready: Callable[[Tuple[str, int]], None]) -> None:
    """Serve until shutdown() or KeyboardInterrupt, calling ready(address) once bound; the socket always closes."""
    server = make_server(handle, options)
    try:
        ready(bound_address(server))
        server.serve_forever()
    except KeyboardInterrupt:
        log.info("interrupted: the HTTP server stops")
    finally:
        server.server_close()
