"""The bounded front of the HTTP server: every byte a client sends is read here, within limits, before anything
looks at it.

Layer: server, below streamable_http.py, standard library only; it knows HTTP/1.x syntax and the limits, nothing
of MCP. The transport's server takes a slot for each connection it accepts, and its handler reads each request's
head and body through a RequestReader; whatever breaks a limit or is no HTTP/1.0 or 1.1 request becomes Unreadable,
which the handler answers (with a status and a JSON body) before closing the connection.

Glossary:
  head           the request line and the header fields, up to the empty line that ends them
  fields         a request's header fields as Fields: each value looked up by its name in any case
  request line   METHOD SP TARGET SP HTTP/1.1 (or HTTP/1.0); anything else is Unreadable (400)
  idle           a connection waiting for a request's first byte: closed, without a reply, after idle_seconds
  deadline       when a request must be complete, head and body: its first byte's time + request_seconds (408)
  slot           one of max_connections: held from accept to close; a connection beyond them is refused (503)
  body budget    the bytes of request bodies held at once, over all connections, reserved as they arrive (never
                 as announced): each body's first FREE_BODY bytes are its connection's own, and a share of the
                 budget (Limits.small_share) is kept for bodies announced at most SMALL_BODY, so a ping or a tool
                 call never waits behind large bodies, however many trickle in (BodyBudget says the rest)
  unreadable     input that breaks a limit or is no HTTP/1.x request: answered 400, 408, 414 or 431, then closed
  stopped        a request still arriving when a server's stop ends its grace: its reading ended (Slots.cut_all),
                 it is answered 503, then closed
  give back      once many connections have closed, the memory they used is returned to the system: see below

A client that announces a large body and stalls holds only the bytes it has sent, and is answered 408 and closed at
its request's deadline (request_seconds from its first byte). A body that finds the budget full waits for room
until that deadline, then is answered 503 with Retry-After and closed; one that waits while an older body also
waits for room, holding bytes itself, is answered so at once.

Memory: whatever clients send, what connections and requests hold stays below
    max_connections x (max_request_line + max_header_bytes + max_headers x FIELD_BYTES + CHUNK + FREE_BODY
                       + THREAD_BYTES)
    + body_budget
(1024 x 83.5 KiB + 8 MiB, about 91.5 MiB, with the defaults): a head is read line by line, each line at most what
is left of its bound, its fields made only once it is whole, and a body is read a chunk at a time, each chunk kept
only once its bytes are reserved. A body's parsed JSON may take more than its bytes (about 20 times, for a body of
nothing but tiny values), but only after its token was accepted.

Giving memory back: objects freed are not memory returned. Python keeps its small objects in arenas (1 MiB each
since 3.10) and returns one only once every object in it is freed, and its free lists (tuples, lists, dicts and
frames kept for reuse) hold the objects freed last, scattered over the arenas the connections filled; the C
library keeps the heap its threads freed. So once at least GIVE_BACK_FROM connections were open at once and all but
an eighth of them have closed, the thread of the connection that closed last empties the free lists (a full
gc.collect()) and asks glibc to return its free pages (malloc_trim, where there is one); once the last of them has
closed, again. Each takes a few milliseconds. make bench measures the server's memory after a flood of 1,000
connections (results/performance.md).

Left out on purpose: chunked bodies (refused above, 411), pipelined requests answered out of order (each
connection answers its requests in turn), and a per-client cap (behind a proxy every client has its address).
"""

import gc
import re
import socket
import threading
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Set, Tuple, cast

KIB, MIB = 1024, 1024 * 1024
MAX_SIZE = 1024 * MIB  # the largest size a limit may be given
CHUNK = 4 * KIB  # the most bytes asked of the socket at a time while reading a head
FIELD_BYTES = 200  # what a header field costs beside its text: its name's and value's string objects, a tuple
THREAD_BYTES = 32 * KIB  # a connection's thread, socket and handler (about 26 KiB, measured on Linux)
FREE_BODY = 4 * KIB  # of each body, its connection's own: never waits for the budget (a ping, most tool calls)
SMALL_BODY = 64 * KIB  # a body announced at most this large may use the budget's share kept for small ones
GIVE_BACK_FROM = 64  # connections open at once, after which their closing gives memory back (see above)
LINGER_SECONDS = 1.0  # how long a connection refused mid-request still drops what arrives before it closes
FILES_BESIDE_CONNECTIONS = 64  # open files kept free for the databases, logs and the listening socket
TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110's token: a method, a header's name
METHOD_START = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32} ")  # how a request's first bytes look
CONTROL = re.compile(rb"[\x00-\x08\x0a-\x1f\x7f]")  # forbidden in a header's value (a tab is allowed)
FIELD_LINES = re.compile(rb"(?:[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\x00-\x08\x0a-\x1f\x7f]*\r?\n)*")  # lines of
# Name: value, each a TOKEN, its colon at once, and a value without CONTROL, as header_field takes them
VERSIONS = ("HTTP/1.1", "HTTP/1.0")
Clock = Callable[[], float]


class Limits(NamedTuple):
    """What one client, or all of them together, can make the server hold; each has a command-line option."""

    backlog: int = 1024  # connections the kernel completes and queues while the server accepts others
    max_connections: int = 1024  # open at once; one more is answered 503 with Retry-After, and closed
    max_request_line: int = 8 * KIB  # bytes, its line end included; a longer one is answered 414
    max_header_bytes: int = 16 * KIB  # bytes of all header lines together; more is answered 431
    max_headers: int = 100  # header fields; more is answered 431
    max_body: int = 4 * MIB  # bytes of one request's body; a larger one is answered 413, unread
    body_budget: int = 8 * MIB  # bytes of bodies held at once; a body waits for room, else 503
    request_seconds: float = 30.0  # from a request's first byte until its body's last; then 408
    idle_seconds: float = 60.0  # a connection waits this long for a request's first byte, then closes

    def problem(self) -> Optional[str]:
        """Why these limits cannot serve requests, or None."""
        if self.body_budget < self.max_body:
            return (f"a body budget of {size(self.body_budget)} cannot hold one body of {size(self.max_body)}: "
                    "raise it, or lower the body limit")
        return None

    def memory(self) -> int:
        """The most bytes connections and requests hold at once, whatever clients send (the module's docstring
        says why)."""
        per_connection = (self.max_request_line + self.max_header_bytes + self.max_headers * FIELD_BYTES + CHUNK
                          + FREE_BODY)
        return self.max_connections * (per_connection + THREAD_BYTES) + self.body_budget

    def small_share(self) -> int:
        """The bytes of the body budget kept for small bodies (BodyBudget): an eighth of it, as far as one body of
        max_body still fits beside them; none where no body can be large."""
        if self.max_body <= SMALL_BODY:
            return 0
        return max(0, min(self.body_budget // 8, self.body_budget - self.max_body))

    def describe(self) -> str:
        """The limits in one phrase, as the startup line states them."""
        return (f"at most {self.max_connections} connections (backlog {self.backlog}), each closed after "
                f"{self.idle_seconds:g} s idle; a request within {self.request_seconds:g} s: request line "
                f"{size(self.max_request_line)}, {self.max_headers} header fields in {size(self.max_header_bytes)}, "
                f"body {size(self.max_body)}, {size(self.body_budget)} of bodies at once; connections and "
                f"requests hold at most {size(self.memory())}")


LIMITS_EXPLAINED = {  # each limit's unit and meaning, as the command line's help gives them
    "backlog": ("N", "connections the kernel completes and queues while the server accepts others, so that a "
                "burst of connects never waits for a retry; the kernel caps it at net.core.somaxconn (Linux) or "
                "kern.ipc.somaxconn (macOS)"),
    "max_connections": ("N", "connections open at once; one more is answered 503 with Retry-After and closed; "
                        "the open-file limit is raised to fit them where it can be"),
    "max_request_line": ("BYTES", "bytes of a request line; a longer one is answered 414"),
    "max_header_bytes": ("BYTES", "bytes of a request's header lines together; more are answered 431"),
    "max_headers": ("N", "header fields of a request; more are answered 431"),
    "max_body": ("BYTES", "bytes of one request's body; a larger one is answered 413 without being read"),
    "body_budget": ("BYTES", "bytes of request bodies read or handled at once, over all connections, counted as "
                    "they arrive, not as announced: each body's first 4 KiB are its connection's own, and an eighth "
                    "is kept for bodies of 64 KiB or less, so a ping or a tool call never waits behind large "
                    "bodies; a body that finds no room waits until its request's deadline, then is answered 503 "
                    "with Retry-After"),
    "request_seconds": ("SECONDS", "time from a request's first byte until its last, headers and body; a "
                        "request still arriving is answered 408 and its connection closed (a client that announces "
                        "a large body and stalls holds only what it sent, until then)"),
    "idle_seconds": ("SECONDS", "time a kept-alive connection waits for its next request before it is closed"),
}


def size(count: int) -> str:
    """A number of bytes as the startup line shows it: 16 KiB, 87.5 MiB, 1000 bytes."""
    for unit, name in ((MIB, "MiB"), (KIB, "KiB")):
        if count >= unit:
            return f"{count // unit} {name}" if count % unit == 0 else f"{count / unit:.1f} {name}"
    return f"{count} bytes"


def parse_size(text: str) -> int:
    """A number of bytes from 1 to MAX_SIZE, from text such as 4096, 16KiB or 4MiB (K and M say the same);
    ValueError otherwise.

    >>> parse_size("16KiB"), parse_size("4 MiB"), parse_size("100")
    (16384, 4194304, 100)
    """
    match = re.fullmatch(r"\s*([0-9]{1,12})\s*(?:(K|KiB)|(M|MiB))?\s*", text)
    count = int(match.group(1)) * (KIB if match.group(2) else MIB if match.group(3) else 1) if match else 0
    if not 0 < count <= MAX_SIZE:
        raise ValueError(f"{text!r} is not a number of bytes from 1 to 1GiB, such as 4096, 16KiB or 4MiB")
    return count


class Unreadable(Exception):
    """Input that breaks a limit or is no HTTP/1.0 or 1.1 request: answered with `status`, then closed."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class Ended(Exception):
    """The client closed or reset its connection in the middle of a head: nobody is left to answer."""


class NoRoom(Exception):
    """The body budget made no room for a body's next bytes before its request's deadline (BodyBudget)."""


class Stopped(Exception):
    """The server's stop ended the reading of a request still arriving at the end of its grace (Slots.cut_all):
    the request is answered 503, not read further."""


# ---------------------------------------------------------------------------
# One connection's requests, read within the limits.


class RequestReader:
    """Reads one connection's requests: each head line by line within its bounds (at once when all of it has
    arrived within them), each body once reserved, all before the request's deadline. `buffer` holds bytes received
    and not yet read: at most CHUNK more than the line being read (or the start of the next request, when a client
    sends it early)."""

    def __init__(self, connection: socket.socket, limits: Limits, clock: Clock = time.monotonic,
                 stopped: Callable[[], bool] = lambda: False) -> None:
        self.connection = connection
        self.limits = limits
        self.clock = clock
        self.stopped = stopped  # whether the stop has ended this connection's reading (Stopped), asked at each read
        self.buffer = bytearray()
        self.deadline = 0.0

    def next_request(self) -> bool:
        """Wait up to idle_seconds for a request's first byte, then start its deadline; False when none came
        (the client closed, reset or idled)."""
        if not self.buffer:
            try:
                self.connection.settimeout(self.limits.idle_seconds)
                chunk = self.connection.recv(CHUNK)
            except OSError:  # socket.timeout too
                return False
            if not chunk:
                return False
            self.buffer += chunk
        self.deadline = self.clock() + self.limits.request_seconds
        return True

    def request_line(self) -> Tuple[str, str, str]:
        """The method, target and version of the request line: Unreadable (400 or 414) for any other line, at
        its first bytes when they cannot start one (a TLS handshake, binary)."""
        while not METHOD_START.match(self.buffer):
            if len(self.buffer) > 32 or not TOKEN.fullmatch(self.buffer):
                raise Unreadable(400, "Bad Request: this server speaks HTTP/1.1; send METHOD /mcp HTTP/1.1, then "
                                 "headers")
            self.receive()
        return request_line(self.line(self.limits.max_request_line, self.too_long))

    def too_long(self) -> Unreadable:
        return Unreadable(414, f"URI Too Long: a request line may hold at most {self.limits.max_request_line} bytes")

    def headers(self) -> List[Tuple[str, str]]:
        """The header fields up to the empty line, as (name, value): Unreadable (431) beyond max_headers or
        max_header_bytes, (400) for a line that is no field. The lines are kept as received until the last one
        has come: a client that stops in the middle makes the server hold only their bytes."""
        head = self.whole_head()
        if head is not None and FIELD_LINES.fullmatch(head):  # as nearly every client sends it: no line to refuse
            return [well_formed_field(line) for line in head.decode("latin-1").split("\n")[:-1]]
        lines = head.split(b"\n")[:-1] if head is not None else [line[:-1] for line in self.head_lines()]
        return [header_field(line) for line in lines]

    def whole_head(self) -> Optional[bytes]:
        """The header lines, each with its \\n, when the buffer already holds all of them and the empty line after
        them within the bounds (a client sends its request at once); None otherwise, the buffer untouched
        (head_lines then reads them as they come, or finds the bound they break)."""
        buffer, bound = self.buffer, self.limits.max_header_bytes
        if buffer.startswith(b"\n") or buffer.startswith(b"\r\n"):
            head, size = b"", buffer.index(b"\n") + 1  # no field at all
        else:
            found = [at for at in (buffer.find(b"\n\n", 0, bound), buffer.find(b"\n\r\n", 0, bound)) if at >= 0]
            if not found:
                return None
            end = min(found) + 1
            head, size = bytes(buffer[:end]), end + (2 if buffer[end] == ord("\r") else 1)
        if size > bound or head.count(b"\n") > self.limits.max_headers:
            return None
        del buffer[:size]
        return head

    def head_lines(self) -> List[bytes]:
        """The header lines, their ends included, read one by one as they arrive, each within what is left of
        max_header_bytes: Unreadable (431) beyond it or max_headers."""
        lines: List[bytes] = []
        left = self.limits.max_header_bytes
        while True:
            line = self.line(left, self.too_large)
            left -= len(line)
            if line in (b"\r\n", b"\n"):
                return lines
            if len(lines) == self.limits.max_headers:
                raise self.too_large()
            lines.append(line)

    def too_large(self) -> Unreadable:
        return Unreadable(431, f"Request Header Fields Too Large: at most {self.limits.max_headers} header fields "
                          f"in {self.limits.max_header_bytes} bytes")

    def line(self, limit: int, too_long: Callable[[], Unreadable]) -> bytes:
        """One line, its end included, of at most `limit` bytes; too_long() once the bytes received exceed it."""
        while True:
            end = self.buffer.find(b"\n", 0, limit)
            if end >= 0:
                line = bytes(self.buffer[:end + 1])
                del self.buffer[:end + 1]
                return line
            if len(self.buffer) >= limit:
                raise too_long()
            self.receive()

    def receive(self) -> None:
        """Add what the client sends next to the buffer: Unreadable (408) past the deadline, (400) at its end."""
        self.connection.settimeout(self.time_left())
        try:
            chunk = self.connection.recv(CHUNK)
        except socket.timeout:
            raise self.late() from None
        except OSError:
            raise Ended() from None
        if self.stopped():
            raise Stopped()
        if not chunk:
            raise Unreadable(400, "Bad Request: the connection ended in the middle of a request's headers")
        self.buffer += chunk

    def body(self, length: int, hold: "Hold") -> bytearray:
        """The request's body: `length` bytes, or fewer if the client stops sending; Unreadable (408) past the
        deadline, NoRoom when the body budget makes no room for what arrived, Stopped when the server's stop ended
        the reading. Each chunk is taken into `hold` as it arrives (at most CHUNK at a time, held meanwhile in the
        room the head's reading used), so a body announced large and sent slowly holds only what was sent."""
        body = bytearray()
        early = min(length, len(self.buffer))  # what came with the head
        if early:
            if not hold.take(early):
                raise NoRoom()
            body += self.buffer[:early]
            del self.buffer[:early]
        while len(body) < length:
            self.connection.settimeout(self.time_left())
            try:
                chunk = self.connection.recv(min(CHUNK, length - len(body)))
            except socket.timeout:
                raise self.late() from None
            except OSError:
                chunk = b""
            if self.stopped():
                raise Stopped()
            if not chunk:
                return body
            if not hold.take(len(chunk)):
                raise NoRoom()
            body += chunk
        return body

    def drain(self) -> None:
        """After an answer that closes the connection with the request not read whole: say so (FIN), then read and
        drop what the client still sends for up to LINGER_SECONDS, so that the close does not reset the
        connection, and lose the answer, before the client has read it."""
        scratch = bytearray(CHUNK)
        end = self.clock() + min(LINGER_SECONDS, self.limits.request_seconds)
        try:
            self.connection.shutdown(socket.SHUT_WR)
            while self.clock() < end:
                self.connection.settimeout(end - self.clock())
                if not self.connection.recv_into(scratch):
                    return
        except (OSError, ValueError):  # socket.timeout too; ValueError: a timeout that reached 0 meanwhile
            return

    def time_left(self) -> float:
        """Seconds until the deadline; Unreadable (408) once it has passed."""
        left = self.deadline - self.clock()
        if left <= 0:
            raise self.late()
        return left

    def late(self) -> Unreadable:
        return Unreadable(408, f"Request Timeout: a request's headers and body must arrive within "
                          f"{self.limits.request_seconds:g} s of its first byte; send each request at once")


def request_line(line: bytes) -> Tuple[str, str, str]:
    """METHOD TARGET VERSION of a request line, the target decoded as ISO-8859-1 (as http.server does);
    Unreadable (400) for anything else: HTTP/0.9's two words, HTTP/2's preface, a version other than 1.x."""
    words = line.rstrip(b"\r\n").split(b" ")
    if len(words) != 3 or not TOKEN.fullmatch(words[0]) or not words[1]:
        raise Unreadable(400, "Bad Request: a request line is METHOD TARGET HTTP/1.1, with one space between")
    version = words[2].decode("latin-1")
    if version not in VERSIONS:
        raise Unreadable(400, "Bad Request: this server speaks HTTP/1.1 and HTTP/1.0 only")
    return words[0].decode("ascii"), words[1].decode("latin-1"), version


def well_formed_field(line: str) -> Tuple[str, str]:
    """(name, value) of a header line that FIELD_LINES found well formed, decoded, without its \\n: as header_field
    makes them."""
    name, _, value = (line[:-1] if line.endswith("\r") else line).partition(":")
    return name, value.strip(" \t")


def header_field(line: bytes) -> Tuple[str, str]:
    """(name, value) of one header line without its \\n, the value's surrounding spaces dropped; Unreadable (400)
    for a line without a colon, a name that is no token (a space before the colon, a folded line) or a control
    character."""
    name, colon, value = (line[:-1] if line.endswith(b"\r") else line).partition(b":")
    if not colon:
        raise Unreadable(400, "Bad Request: a header line must be Name: value; one has no colon")
    if not TOKEN.fullmatch(name):
        raise Unreadable(400, "Bad Request: a header's name must be a token followed at once by its colon (no "
                         "space, no folded line)")
    value = value.strip(b" \t")
    if CONTROL.search(value):
        raise Unreadable(400, "Bad Request: a header's value may not hold a control character")
    return name.decode("ascii"), value.decode("latin-1")


class Fields:
    """A request's header fields, looked up by name in any case as http.client.HTTPMessage looks them up (get, get_all,
    in, keys), each value as received; without the email package's machinery, which costs more than the rest of
    reading the head."""

    __slots__ = ("names", "values")

    def __init__(self, fields: Sequence[Tuple[str, str]] = ()) -> None:
        self.names = [name for name, _ in fields]  # as sent, in order, repeated ones too
        self.values: Dict[str, List[str]] = {}  # lower-case name -> its values, in order
        for name, value in fields:
            self.values.setdefault(name.lower(), []).append(value)

    def get(self, name: str, default: Optional[str] = None) -> Optional[str]:
        """The first value of the field `name`, or `default`."""
        values = self.values.get(name.lower())
        return values[0] if values else default

    def get_all(self, name: str) -> Optional[List[str]]:
        """Every value of the field `name`, in order, or None."""
        values = self.values.get(name.lower())
        return list(values) if values else None

    def __contains__(self, name: str) -> bool:
        return name.lower() in self.values

    def keys(self) -> List[str]:
        return list(self.names)


# ---------------------------------------------------------------------------
# What all connections share: the slots and the body budget.


class Slots:
    """The connections open at once, at most `capacity`: each holds a slot from accept to close. `peak` is the most
    open at once since memory was last given back.

    Each connection also says when it waits for a request (idle), whether for its first (fresh: accepted, no request
    yet), when one came, and while that request is still arriving (reading), so that a stop (stop()) ends the
    kept-alive idle ones at once, lets the others finish the request they are reading or answering, and lets a fresh
    one still send its first, until cut_fresh(); at the end of the grace (cut_all()), a request still arriving is
    answered 503 (Stopped), and the rest are cut."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.open: Set[socket.socket] = set()
        self.idle: Set[socket.socket] = set()  # waiting for a request's first byte
        self.fresh: Set[socket.socket] = set()  # of the idle, those waiting for their first request
        self.reading: Set[socket.socket] = set()  # a request has begun on it, and is not read whole yet
        self.cut: Set[socket.socket] = set()  # idle, or reading, when the stop ended their reading
        self.fresh_wait = True  # whether a fresh connection may still wait for its first request
        self.stopping = False
        self.changed = threading.Condition()
        self.peak = 0
        self.follow_up = False  # memory was given back with connections still open: again once all have closed

    def take(self, connection: socket.socket) -> bool:
        """Whether a slot was free for `connection` (it now holds it)."""
        with self.changed:
            if len(self.open) >= self.capacity:
                return False
            self.open.add(connection)
            self.peak = max(self.peak, len(self.open))
            return True

    def release(self, connection: socket.socket) -> bool:
        """Free the slot of `connection`; True when its caller is to give memory back (give_back_memory): at least
        GIVE_BACK_FROM connections were open at once since it was last given back and at most an eighth of them
        still are, or the last of those still open then has closed."""
        with self.changed:
            self.open.discard(connection)
            self.idle.discard(connection)
            self.fresh.discard(connection)
            self.reading.discard(connection)
            self.cut.discard(connection)
            self.changed.notify_all()
            left = len(self.open)
            if self.peak >= GIVE_BACK_FROM and left <= self.peak // 8:
                self.peak, self.follow_up = left, left > 0
                return True
            if self.follow_up and left == 0:
                self.peak, self.follow_up = 0, False
                return True
            return False

    def count(self) -> int:
        with self.changed:
            return len(self.open)

    def waits(self, connection: socket.socket, fresh: bool = False) -> bool:
        """`connection` is about to wait for its next request (`fresh`: its first): False once the server is
        stopping (close it), unless it is fresh and the stop still lets fresh ones wait."""
        with self.changed:
            if self.stopping and not (fresh and self.fresh_wait):
                return False
            self.idle.add(connection)
            if fresh:
                self.fresh.add(connection)
            return True

    def came(self, connection: socket.socket) -> bool:
        """`connection` has stopped waiting (a request's first byte came, or none will): False if the stop ended it
        meanwhile, so that a request arriving at that very moment is answered as one arriving during the stop."""
        with self.changed:
            self.idle.discard(connection)
            self.fresh.discard(connection)
            if connection in self.cut:
                self.cut.discard(connection)
                return False
            return True

    def reads(self, connection: socket.socket) -> None:
        """A request has begun on `connection`: it is reading it, until read_whole()."""
        with self.changed:
            self.reading.add(connection)

    def read_whole(self, connection: socket.socket) -> None:
        """The request on `connection` is read whole (or answered without being read): a cut at the end of the
        grace no longer answers it 503."""
        with self.changed:
            self.reading.discard(connection)

    def stopped_reading(self, connection: socket.socket) -> bool:
        """Whether the stop has ended the reading of the request under way on `connection` (cut_all)."""
        with self.changed:
            return connection in self.cut

    def stop(self) -> None:
        """The server stops: no connection waits for another request, the kept-alive idle ones end now (their
        reading ends: HTTP lets a kept-alive connection close whenever it idles), the fresh ones may still receive
        their first request until cut_fresh(), and those reading or answering a request go on."""
        with self.changed:
            self.stopping = True
            self.end_waits(self.idle - self.fresh)

    def cut_fresh(self) -> None:
        """End the wait of the fresh connections still waiting for their first request, and let no other wait."""
        with self.changed:
            self.fresh_wait = False
            self.end_waits(set(self.fresh))

    def end_waits(self, connections: Set[socket.socket]) -> None:
        """End the reading of idle `connections` (the lock held)."""
        for connection in connections:
            self.cut.add(connection)
            shut(connection, socket.SHUT_RD)
        self.idle -= connections
        self.fresh -= connections

    def cut_all(self, wait_seconds: float) -> None:
        """End every connection still open, then wait up to `wait_seconds` for their threads to close them: one
        whose request is still arriving has its reading ended (its thread answers 503, Stopped), the others their
        reading and writing (a call still running, an answer its client does not read)."""
        with self.changed:
            self.stopping, self.fresh_wait = True, False
            for connection in self.open:
                if connection in self.reading:
                    self.cut.add(connection)
                    shut(connection, socket.SHUT_RD)  # wakes the thread's recv; its answer can still be written
                else:
                    shut(connection, socket.SHUT_RDWR)
            self.changed.wait_for(lambda: not self.open, wait_seconds)

    def wait_closed(self, seconds: float) -> bool:
        """Wait up to `seconds` for every connection to close; whether they all did."""
        with self.changed:
            return self.changed.wait_for(lambda: not self.open, seconds)


def shut(connection: socket.socket, how: int) -> None:
    try:
        connection.shutdown(how)
    except OSError:  # closed meanwhile
        pass


def give_back_memory() -> None:
    """Return to the system the memory that closed connections left in the allocators (the module's docstring says
    why it stays): the free lists emptied by a full collection, then glibc's free pages trimmed where it has
    malloc_trim."""
    gc.collect()
    if MALLOC_TRIM is not None:
        MALLOC_TRIM(0)


def find_malloc_trim() -> Optional[Callable[[int], int]]:
    """glibc's malloc_trim, or None where the C library has none (macOS, or no ctypes)."""
    try:
        import ctypes
        trim = ctypes.CDLL(None).malloc_trim
    except (ImportError, OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return cast(Callable[[int], int], trim)


MALLOC_TRIM = find_malloc_trim()


class BodyBudget:
    """The bytes of request bodies held at once, over all connections, at most `capacity`, reserved as they arrive
    (Hold.take), never as announced, so that a client that announces a large body and sends little holds little.

    A body's first FREE_BODY bytes are its connection's own (the memory bound counts them with each connection),
    so a small request, a ping or most tool calls, never waits for the budget at all. Of the rest, `share` bytes
    are kept for small bodies (announced at most SMALL_BODY): large ones together hold at most capacity - share,
    so that bodies trickling in, or stalled, cannot leave a small request without room.

    A body that finds no room for its next bytes waits until its request's deadline (then its Hold.take says
    False: 503). While it waits, any younger body that also waits and already holds bytes gives up at once (503),
    so that bodies read side by side, each waiting for the others to finish, never all wait out their deadlines:
    the oldest is served."""

    def __init__(self, capacity: int, clock: Clock = time.monotonic, share: int = 0) -> None:
        self.capacity = capacity
        self.share = share
        self.clock = clock
        self.held = 0  # bytes held by all bodies
        self.held_large = 0  # of which by bodies announced larger than SMALL_BODY
        self.waiting: List["Hold"] = []  # the bodies waiting for room, each until its deadline
        self.room = threading.Condition()

    def hold(self, length: int, deadline: float) -> "Hold":
        """The budget of one body announced as `length` bytes, to be read by `deadline` (a clock() time)."""
        return Hold(self, length <= SMALL_BODY, deadline)

    def reserve(self, hold: "Hold", count: int) -> bool:
        """Hold `count` more bytes for `hold`, waiting for room until its deadline; False if none was made (the
        deadline passed, or an older body waits for room while this one holds some)."""
        with self.room:
            waits = False
            try:
                while not self.fits(count, hold.small):
                    left = hold.deadline - self.clock()
                    if left <= 0 or (hold.held and any(other.deadline < hold.deadline for other in self.waiting)):
                        return False
                    if not waits:
                        waits = True
                        self.waiting.append(hold)
                        self.room.notify_all()  # the younger bodies waiting with bytes give up (above)
                    self.room.wait(left)
            finally:
                if waits:
                    self.waiting.remove(hold)
            self.held += count
            self.held_large += 0 if hold.small else count
            hold.held += count
            return True

    def fits(self, count: int, small: bool) -> bool:
        if self.held + count > self.capacity:
            return False
        return small or self.held_large + count <= self.capacity - self.share

    def release(self, hold: "Hold") -> None:
        """Give back every byte `hold` holds."""
        with self.room:
            self.held -= hold.held
            self.held_large -= 0 if hold.small else hold.held
            hold.held = 0
            self.room.notify_all()


class Hold:
    """One body's part of the budget: its first FREE_BODY bytes free, the rest reserved as it arrives."""

    __slots__ = ("budget", "small", "deadline", "held", "free")

    def __init__(self, budget: BodyBudget, small: bool, deadline: float) -> None:
        self.budget, self.small, self.deadline = budget, small, deadline
        self.held = 0  # bytes reserved in the budget
        self.free = FREE_BODY  # bytes still to come before the budget counts them

    def take(self, count: int) -> bool:
        """Room for `count` more bytes of the body; False if the budget made none in time."""
        free = min(count, self.free)
        self.free -= free
        return count == free or self.budget.reserve(self, count - free)

    def release(self) -> None:
        if self.held:
            self.budget.release(self)


def connections_that_fit(wanted: int) -> int:
    """How many connections this process can hold open: its open-file limit is raised (as far as the hard limit
    allows) to fit `wanted` beside FILES_BESIDE_CONNECTIONS other files; fewer than `wanted` if it cannot be."""
    limit = raise_open_file_limit(wanted + FILES_BESIDE_CONNECTIONS)
    return wanted if limit is None else max(1, min(wanted, limit - FILES_BESIDE_CONNECTIONS))


def raise_open_file_limit(needed: int) -> Optional[int]:
    """This process's open-file limit, raised to `needed` where it is lower and the hard limit allows: the limit
    then, or None where there is none (or the platform keeps no such limit)."""
    try:
        import resource
    except ImportError:  # not POSIX: leave the system's limit alone
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):  # macOS refuses more than its kern.maxfilesperproc
            pass
    return None if soft == resource.RLIM_INFINITY else soft
