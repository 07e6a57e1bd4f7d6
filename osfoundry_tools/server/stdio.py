"""The stdio transport: newline-delimited messages on stdin and stdout, read by a thread so that a call waiting for a
person's answer still sees the client's messages.

Layer: server, a transport: it hands the methods one line at a time. It stops at EOF, or once `stopping()` says so
(SIGTERM's mark, looked at between two messages and while a question waits): the message under way is answered
first, and a question waiting for a person is given up, the call answered "stopped" (Peer.stopping: for EOF too,
never as if the person had not answered in time).
"""

import collections
import functools
import logging
import os
import queue
import secrets
import threading
import time
from typing import Any, BinaryIO, Callable, Deque, Dict, Iterator, List, Optional

from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server import listening
from osfoundry_tools.server.methods import Server
from osfoundry_tools.server.protocol import (
    INTERNAL_ERROR, PARSE_ERROR, CallCancelled, encoded, error_message, loggable_message, repeated_key_error,
    same_request_id, too_long,
)

log = logging.getLogger("osfoundry.mcp")
MAX_LINE_BYTES = 4 * 1024 * 1024  # a longer line is answered -32600 and skipped; the largest call, 100,000
#                                   characters of content, takes at most 600 KB even with every character escaped


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
    stream.write(encoded(message) + b"\n")
    stream.flush()


END = object()  # what the inbox holds once stdin has closed
INBOX_LINES = 64  # lines read ahead of the one being answered; the reader waits while the inbox is full
DEFERRED_LINES = 1000  # requests held back while a person is asked; past this the question goes unanswered
STOP_LOOK_SECONDS = 0.1  # how often a wait for stdin looks whether a stop was asked
QUESTION_ID_BYTES = 16  # of randomness in the id of each question put to the client's user


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
                 clock: Callable[[], float] = time.monotonic, stopping: Callable[[], bool] = lambda: False) -> None:
        self.inbox = inbox
        self.stdout = stdout
        self.clock = clock
        self.asked_to_stop = stopping  # whether a stop was asked (a signal's handler marks it, nothing more)
        self.hung_up = False  # stdin has closed
        self.deferred: Deque[Any] = collections.deque()
        self.capabilities: Any = None
        self.client: Dict[str, Any] = {}
        self.asked = 0
        self.writing = threading.Lock()  # the answers and the listen streams' notifications share stdout
        self.subscriptions: Optional[listening.Stream] = None  # resources/subscribe's, in the handshake era
        self.streams: List[listening.Stream] = []  # those still open: each leaves the list as it ends
        self.streams_lock = threading.Lock()  # streams end in their writer threads, while hang_up reads the list

    def send(self, message: Dict[str, Any]) -> None:
        """One message on stdout, whole, whichever thread sends it."""
        with self.writing:
            write_message(self.stdout, message)

    def stream(self, stream: listening.Stream, hub: listening.Hub) -> None:
        """Write a listen stream's messages as they come, then its closing result; ended when stdin closes."""
        with self.streams_lock:
            self.streams.append(stream)

        def ended() -> None:
            hub.close(stream)
            with self.streams_lock:
                self.streams.remove(stream)  # a connection that opens and cancels listens keeps no trace of them
            if stream.closing is not None:
                self.send(stream.closing)

        listening.writer_thread(stream, self.send, ended)

    def hang_up(self, hub: listening.Hub) -> None:
        """stdin closed: every stream of this connection ends, unwritten (nobody is left to read it)."""
        with self.streams_lock:
            open_now = list(self.streams)
        for stream in open_now:
            stream.closing = None
            hub.close(stream)

    def met(self, capabilities: Any, client: Dict[str, Any]) -> None:
        """What initialize said of the client."""
        self.capabilities, self.client = capabilities, client

    def stopping(self) -> bool:
        """Whether the server is stopping: a stop was asked, or stdin has closed (a question given up for either is
        answered "stopped", not as a person's silence)."""
        return self.hung_up or self.asked_to_stop()

    def lines(self) -> Iterator[Optional[bytes]]:
        """Each line to answer, those held back during a question first, until stdin closes or a stop is asked."""
        while not self.asked_to_stop():
            line = self.deferred.popleft() if self.deferred else self.next_line()
            if line is END:
                self.hung_up = True
                return
            yield line

    def next_line(self, seconds: Optional[float] = None) -> Any:
        """The inbox's next line, waiting `seconds` at most (queue.Empty then; None: as long as it takes); END once
        stdin has closed or a stop is asked, which the wait looks at every STOP_LOOK_SECONDS."""
        deadline = None if seconds is None else self.clock() + seconds
        while not self.asked_to_stop():
            left = STOP_LOOK_SECONDS if deadline is None else max(0.0, min(STOP_LOOK_SECONDS, deadline - self.clock()))
            try:
                return self.inbox.get(timeout=left)
            except queue.Empty:
                if deadline is not None and self.clock() >= deadline:
                    raise
        return END

    def ask(self, method: str, params: Dict[str, Any], seconds: float, call_id: Any) -> Any:
        """Send the client our request and wait at most `seconds` for its result; None if none came (no answer in
        time, an error, stdin closed, a stop asked, too many messages held back). CallCancelled if the client cancels
        the call `call_id` meanwhile.

        The request's id is drawn at random as it is sent, so only a client that has read the question can answer
        it: a response sent along with the call, before the question, names an id that cannot be the question's
        and is dropped, as any response to no question of ours is."""
        self.asked += 1
        asked_id = f"osfoundry-approval-{secrets.token_urlsafe(QUESTION_ID_BYTES)}"  # a response sent early never fits
        self.send({"jsonrpc": "2.0", "id": asked_id, "method": method, "params": params})
        deadline = self.clock() + seconds
        while len(self.deferred) < DEFERRED_LINES:
            try:
                line = self.next_line(max(0.0, deadline - self.clock()))
            except queue.Empty:
                return None
            if line is END:
                self.hung_up = True
                self.deferred.append(END)  # the lines that came before it are answered after the call
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
            message, repeated = checks.message_json(line.decode("utf-8")) if line is not None else (None, None)
        except (ValueError, RecursionError):
            message, repeated = None, None
        if not isinstance(message, dict) or (repeated is not None and "method" in message):
            self.deferred.append(line)  # answered in its turn (a message holding a key twice, refused then)
            return None
        if repeated is not None:  # a response holding a key twice: which answer was meant cannot be known
            log.warning("a response was taken as no answer: %s", repeated)
            return dict(message, result=None)
        method, params = message.get("method"), message.get("params")
        if method == "notifications/cancelled" and isinstance(params, dict) and "id" not in message and \
                same_request_id(params.get("requestId"), call_id):
            raise CallCancelled()
        if method == "ping" and "id" in message:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": {}})
        elif "method" in message:
            self.deferred.append(line)
        return message


def answer_line(server: Server, line: bytes, peer: Optional["Peer"] = None) -> Optional[Dict[str, Any]]:
    """The answer to one line of stdin, or None (a notification, a client's response, a blank line); `peer`:
    the stdio connection, which can put a question to the client's user."""
    try:
        text = line.decode("utf-8").strip()
        if not text:  # a blank line carries no message and no id to answer
            return None
        message, repeated = checks.message_json(text)
    except (ValueError, RecursionError) as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        log.debug("received a line that is no JSON message: %s",
                  loggable_message(line.decode("utf-8", "replace").strip()))
        return error_message(None, PARSE_ERROR, f"Parse error: the line is not one JSON text in UTF-8 ({error})")
    log.debug("received %s", loggable_message(message))
    if repeated is not None:
        log.warning("a message was refused: %s", repeated)
        return repeated_key_error(message, repeated)
    return server.handle(message, peer=peer)


def serve(server: Server, stdin: BinaryIO, stdout: BinaryIO, limit: int = MAX_LINE_BYTES,
          stopping: Callable[[], bool] = lambda: False) -> None:
    """Answer every line of stdin on stdout until EOF, or until `stopping()` says a stop was asked (looked at
    between two messages, and while a question waits): the message under way is answered first."""
    peer = Peer(read_in_background(stdin, limit), stdout, stopping=stopping)
    try:
        for line in peer.lines():
            answer = too_long(limit) if line is None else answer_line(server, line, peer)
            if isinstance(answer, listening.Stream):
                peer.stream(answer, server.hub)
            elif answer is not None:
                send_answer(peer, answer)
    finally:
        peer.hang_up(server.hub)


def send_answer(peer: Peer, answer: Dict[str, Any]) -> None:
    try:
        peer.send(answer)
    except (TypeError, ValueError) as error:  # a bug: an answer that is not JSON must not end the server
        log.exception("the answer to request %s is not JSON", rejections.loggable(answer.get("id")))
        peer.send(error_message(answer.get("id"), INTERNAL_ERROR, f"Internal error: {error}"))
