"""The clients of the HTTP load benchmark: one process drives many connections with raw sockets, and reports what it
measured as one line of JSON on stdout.

    python3 -m benchmark.load_clients < PLAN    # the plan: one line of JSON on stdin (benchmark/http_load.py writes it)

Layer: a benchmark helper that imports one function of the project (the open-file limit's, from http_front.py,
which imports nothing else), so that a client process starts at once and spends its CPU on sockets, not on the
product's modules: http_load.py puts in the plan all it needs (the port, each tool's headers and _meta, the
articles and questions). One process serves many connections through a
selector, so 64 clients need no 64 interpreters, and the clients never share the GIL of the benchmark's process.

The plan's "job" is one of:
  load   connect every client at once, warm up, print {"ready": ...}, wait for "go" on stdin, then call in a
         closed loop for the plan's seconds: reads, or reads with one edit in ten; print what was measured
  burst  open every connection at once, send one read on each as soon as it is connected, wait for every answer
  flood  open connections that each send a head of header lines as fast as the server takes them (finished with
         the empty line or not), then close them, or hold them open for the plan's seconds

Glossary:
  client   one connection and its closed loop: a request, its answer, then the next request
  cycle    a client's ten calls: read, search, read, search ... then a read of one of the few articles edited,
           and that article read again (reads) or edited (mix), with that read's version as expected_version, its
           content, and a fresh idempotency key
  window   the seconds a load is timed: the calls answered within it count, each with its round trip
  reply    one HTTP response, framed by its Content-Length
  conflict an edit answered version_conflict (another client saved the article in between): an answer, counted
"""

import errno
import json
import selectors
import socket
import sys
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from osfoundry_tools.server.http_front import raise_open_file_limit

READ, SEARCH, EDIT = "read_knowledge_article", "search_knowledge_base", "edit_knowledge_article"
READS, MIX = "reads", "mix"  # the two workloads: reads only, and one edit in each cycle
CYCLE = 10
CONFLICT = "version_conflict"
HOST = "127.0.0.1"
RECEIVE = 256 * 1024  # the most bytes taken from a connection at a time
FILES_BESIDE = 32  # open files a client process keeps free beside its connections
CONNECTED = (0, errno.EINPROGRESS, errno.EWOULDBLOCK)  # what connect_ex says of a connect under way
GONE = (errno.EPIPE, errno.ECONNRESET, errno.ECONNABORTED)  # the server closed the connection
EXIT_OK, EXIT_FAILED = 0, 1  # cli.py's codes, restated: this file imports nothing of the project
Clock = Callable[[], float]


class LoadFailed(Exception):
    """A server answered a call wrongly, closed a client's connection or fell silent: the run measures nothing."""


# ---------------------------------------------------------------------------
# Requests and replies.


class Reply(NamedTuple):
    status: int
    body: bytes


class ReplyReader:
    """The HTTP/1.1 replies in what one connection receives, each framed by its Content-Length (none: no body)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> List[Reply]:
        """The replies completed by `data`, in order; the start of the next one is kept."""
        self.buffer += data
        replies = []
        reply = self.next_reply()
        while reply is not None:
            replies.append(reply)
            reply = self.next_reply()
        return replies

    def next_reply(self) -> Optional[Reply]:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        lines = bytes(self.buffer[:end]).split(b"\r\n")
        length = content_length(lines[1:])
        if len(self.buffer) < end + 4 + length:
            return None
        body = bytes(self.buffer[end + 4:end + 4 + length])
        del self.buffer[:end + 4 + length]
        return Reply(status_of(lines[0]), body)


def status_of(line: bytes) -> int:
    """The status of a status line such as b"HTTP/1.1 200 OK"; LoadFailed for anything else."""
    words = line.split(b" ")
    if len(words) < 2 or not words[0].startswith(b"HTTP/") or not words[1].isdigit():
        raise LoadFailed(f"the server answered with no HTTP status line: {line[:100]!r}")
    return int(words[1])


def content_length(headers: Sequence[bytes]) -> int:
    for line in headers:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


class Calls:
    """The requests of one plan: each tool call as bytes, the reads and searches made once and kept."""

    def __init__(self, plan: Dict[str, Any]) -> None:
        self.plan = plan
        self.kept: Dict[Tuple[str, str], bytes] = {}

    def request(self, tool: str, target: str, read: Optional[Dict[str, Any]] = None, key: str = "") -> bytes:
        """A POST of tools/call `tool` on `target` (an article, or a search's question); an edit re-saves the
        content of `read`, the article's last read, with its version."""
        if tool == EDIT:
            assert read is not None, "an edit follows a read"
            return self.post(tool, {"knowledge_base_id": self.plan["knowledge_base_id"], "article_id": target,
                                    "content": read["content"], "expected_version": read["updated_at"],
                                    "idempotency_key": key})
        if (tool, target) not in self.kept:
            named = {READ: "article_id", SEARCH: "query"}[tool]
            self.kept[tool, target] = self.post(tool, {"knowledge_base_id": self.plan["knowledge_base_id"],
                                                       named: target})
        return self.kept[tool, target]

    def post(self, tool: str, arguments: Dict[str, Any]) -> bytes:
        params = {"name": tool, "arguments": arguments, "_meta": self.plan["meta"]}
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}).encode("utf-8")
        headers = dict(self.plan["headers"][tool], Host=f"{HOST}:{self.plan['port']}")
        headers["Content-Length"] = str(len(body))
        head = f"POST {self.plan['endpoint']} HTTP/1.1\r\n" + "".join(f"{name}: {value}\r\n"
                                                                     for name, value in headers.items())
        return (head + "\r\n").encode("latin-1") + body


def planned(workload: str, client: int, number: int, articles: Sequence[str], questions: Sequence[str],
            edited: int) -> Tuple[str, str]:
    """The tool of a client's call `number` and what it names: an article (a read, an edit) or a question (a
    search). Each client starts at its own article and question; the last read of each cycle reads one of the
    first `edited` articles, and an edit (the mix's last call) names the article read just before it.

    >>> [planned(MIX, 1, n, ["a", "b", "c", "d"], ["q", "r"], 2) for n in (0, 1, 2, 8, 9, 10, 19)]
    [('read_knowledge_article', 'b'), ('search_knowledge_base', 'r'), ('read_knowledge_article', 'c'), \
('read_knowledge_article', 'b'), ('edit_knowledge_article', 'b'), ('read_knowledge_article', 'c'), \
('edit_knowledge_article', 'a')]
    """
    turn = client + number // 2
    if number % CYCLE >= CYCLE - 2:
        article = articles[turn % min(edited, len(articles))]
        return (EDIT if number % CYCLE == CYCLE - 1 and workload == MIX else READ), article
    if number % 2 == 0:
        return READ, articles[turn % len(articles)]
    return SEARCH, questions[turn % len(questions)]


def outcome(tool: str, reply: Reply) -> Tuple[str, Dict[str, Any]]:
    """What a reply to `tool` says: "answered" (with the tool's result), "saved" or "conflict" for an edit;
    LoadFailed for an HTTP status other than 200, a JSON-RPC error or any other refusal."""
    answer = json.loads(reply.body) if reply.status == 200 else None
    result = answer.get("result") if isinstance(answer, dict) else None
    if not isinstance(result, dict):
        raise LoadFailed(f"{tool}: HTTP {reply.status}, {reply.body[:300]!r}")
    if result.get("isError"):
        text = str(result.get("content"))
        if tool == EDIT and CONFLICT in text:
            return "conflict", result
        raise LoadFailed(f"{tool} failed: {text[:300]}")
    return ("saved" if tool == EDIT else "answered"), result


def article_read(result: Dict[str, Any]) -> Dict[str, Any]:
    """The article a read_knowledge_article result holds (its text is the store's JSON answer)."""
    return json.loads(result["content"][0]["text"])


# ---------------------------------------------------------------------------
# The closed loops of a load.


class Client:
    """One connection and its calls: a request, its answer, then the next request."""

    def __init__(self, number: int, connection: socket.socket, calls: Calls) -> None:
        self.number = number
        self.connection = connection
        self.calls = calls
        self.reader = ReplyReader()
        self.sent = 0  # calls sent so far
        self.sent_at = 0.0
        self.tool = ""
        self.read: Optional[Dict[str, Any]] = None  # the last article read before an edit

    def next_call(self) -> Tuple[str, str]:
        plan = self.calls.plan
        return planned(plan["workload"], self.number, self.sent, plan["articles"], plan["questions"], plan["edited"])

    def send(self, now: float) -> None:
        self.tool, target = self.next_call()
        key = f"{self.calls.plan['key_prefix']}-{self.number}-{self.sent}"
        self.connection.sendall(self.calls.request(self.tool, target, self.read, key))
        self.sent += 1
        self.sent_at = now

    def answered(self, reply: Reply) -> str:
        """The outcome of the call in flight; keeps a read's article when the next call edits it."""
        said, result = outcome(self.tool, reply)
        if self.tool == READ and self.next_call()[0] == EDIT:
            self.read = article_read(result)
        return said


class Tally:
    """What a window measured: each answered call's seconds, and the edits saved and refused as conflicts."""

    def __init__(self) -> None:
        self.samples: List[float] = []
        self.outcomes: Dict[str, int] = {"answered": 0, "saved": 0, "conflict": 0}

    def add(self, said: str, seconds: float) -> None:
        self.samples.append(seconds)
        self.outcomes[said] += 1


def connect_all(port: int, count: int, timeout: float, clock: Clock) -> List[Tuple[socket.socket, float]]:
    """`count` connections opened at once (each connect started before any is waited for), each with the seconds
    it took; LoadFailed for one refused or not connected within `timeout`."""
    raise_open_file_limit(FILES_BESIDE + count)
    selector = selectors.DefaultSelector()
    opened: List[Tuple[socket.socket, float]] = []
    for _ in range(count):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_WRITE, clock())
        if connection.connect_ex((HOST, port)) not in CONNECTED:
            raise LoadFailed(f"a connect to {HOST}:{port} was refused")
    while len(opened) < count:
        events = selector.select(timeout)
        if not events:
            raise LoadFailed(f"{count - len(opened)} connects were not done within {timeout:g} s")
        for key, _ in events:
            done = key.fileobj
            assert isinstance(done, socket.socket), "only sockets are registered"
            selector.unregister(done)
            if done.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                raise LoadFailed(f"a connect to {HOST}:{port} failed")
            done.setblocking(True)
            done.settimeout(timeout)
            opened.append((done, clock() - key.data))
    selector.close()
    return opened


class Loader:
    """The clients of one process, in closed loops over one selector."""

    def __init__(self, plan: Dict[str, Any], clock: Clock = time.perf_counter) -> None:
        self.plan = plan
        self.clock = clock
        self.timeout = float(plan["timeout"])
        opened = connect_all(plan["port"], len(plan["clients"]), self.timeout, clock)
        calls = Calls(plan)
        self.clients = [Client(number, connection, calls) for number, (connection, _) in zip(plan["clients"], opened)]
        self.connect_seconds = [seconds for _, seconds in opened]
        self.selector = selectors.DefaultSelector()
        for client in self.clients:
            self.selector.register(client.connection, selectors.EVENT_READ, client)

    def warm_up(self, calls: int) -> None:
        """Each client makes `calls` untimed calls, and as many more as its number's place in a cycle, so that the
        clients start their windows at every place of their cycles, not all at its first read."""
        self.exchange(lambda client, now: client.sent >= calls + client.number % CYCLE, Tally(), float("inf"))

    def window(self, seconds: float) -> Tally:
        """Every client calls until `seconds` have passed; the calls answered by then are the tally."""
        tally = Tally()
        end = self.clock() + seconds
        self.exchange(lambda client, now: now >= end, tally, end)
        return tally

    def exchange(self, rests: Callable[[Client, float], bool], tally: Tally, end: float) -> None:
        """Each client sends, then sends again on each answer until `rests` says it is done; answers that come by
        `end` go to the tally."""
        now = self.clock()
        for client in self.clients:
            client.send(now)
        busy = len(self.clients)
        while busy:
            events = self.selector.select(self.timeout)
            if not events:
                raise LoadFailed(f"{busy} calls had no answer within {self.timeout:g} s")
            for key, _ in events:
                busy -= self.receive(key.data, rests, tally, end)

    def receive(self, client: Client, rests: Callable[[Client, float], bool], tally: Tally, end: float) -> int:
        """Read what came for `client`; 1 if it answered its call and rests, else 0."""
        data = client.connection.recv(RECEIVE)
        if not data:
            raise LoadFailed("the server closed a client's connection")
        for reply in client.reader.feed(data):
            now = self.clock()
            said = client.answered(reply)
            if now <= end:
                tally.add(said, now - client.sent_at)
            if rests(client, now):
                return 1
            client.send(now)
        return 0

    def close(self) -> None:
        for client in self.clients:
            client.connection.close()
        self.selector.close()


def load(plan: Dict[str, Any], say: Callable[[Dict[str, Any]], None], wait: Callable[[], str]) -> Dict[str, Any]:
    """The load job: connect, warm up, say ready, wait for go, then time the window."""
    loader = Loader(plan)
    try:
        loader.warm_up(plan["warm_up"])
        say({"ready": True})
        if wait().strip() != "go":
            raise LoadFailed("told to stop before the window")
        started = time.process_time()
        tally = loader.window(plan["seconds"])
        return {"samples": tally.samples, "outcomes": tally.outcomes, "connect_seconds": loader.connect_seconds,
                "cpu_seconds": time.process_time() - started}
    finally:
        loader.close()


# ---------------------------------------------------------------------------
# A burst of connects, each sending one request.


class Attempt:
    """One connection of a burst: when its connect began, when it was done, what it sent, what came back."""

    def __init__(self, connection: socket.socket, began: float) -> None:
        self.connection = connection
        self.began = began
        self.connected: Optional[float] = None  # seconds from `began`
        self.sent = 0
        self.reader = ReplyReader()


def burst(plan: Dict[str, Any], clock: Clock = time.perf_counter) -> Dict[str, Any]:
    """The burst job: the plan's `clients` connects started at once, each sending one read once connected. The
    seconds each connect took, each answer's status and its seconds from the burst's start, and how many got none
    (failed: refused or reset, by kind; unanswered: still waiting when `timeout` ran out)."""
    count, request = plan["clients"], Calls(plan).request(READ, plan["articles"][0])
    raise_open_file_limit(FILES_BESIDE + count)
    selector = selectors.DefaultSelector()
    result: Dict[str, Any] = {"connect_seconds": [], "answers": [], "failed": {}}
    began = clock()
    for _ in range(count):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.setblocking(False)
        code = connection.connect_ex((HOST, plan["port"]))
        if code in CONNECTED:
            selector.register(connection, selectors.EVENT_WRITE, Attempt(connection, clock()))
        else:
            _failed(result, errno.errorcode.get(code, str(code)), connection)
    result["issued_seconds"] = clock() - began
    end = began + plan["timeout"]
    while selector.get_map() and clock() < end:
        for key, _ in selector.select(max(0.0, end - clock())):
            _burst_step(selector, key.data, request, began, result, clock)
    result["unanswered"] = len(selector.get_map())
    for key in list(selector.get_map().values()):
        key.data.connection.close()
    selector.close()
    return result


def _burst_step(selector: selectors.BaseSelector, attempt: Attempt, request: bytes, began: float,
                result: Dict[str, Any], clock: Clock) -> None:
    """One event of a burst's connection: its connect done (then its request sent), or its answer received."""
    connection = attempt.connection
    try:
        if attempt.connected is None:
            error = connection.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if error:
                raise OSError(error, "connect")
            attempt.connected = clock() - attempt.began
            result["connect_seconds"].append(attempt.connected)
        if attempt.sent < len(request):
            attempt.sent += connection.send(request[attempt.sent:])
            if attempt.sent == len(request):
                selector.modify(connection, selectors.EVENT_READ, attempt)
            return
        data = connection.recv(RECEIVE)
        if not data:
            raise OSError(errno.ECONNRESET, "closed before answering")
        for reply in attempt.reader.feed(data):
            result["answers"].append([reply.status, clock() - began])
            selector.unregister(connection)
            connection.close()
            return
    except BlockingIOError:
        return
    except OSError as error:
        selector.unregister(connection)
        _failed(result, errno.errorcode.get(error.errno or 0, "closed"), connection)


def _failed(result: Dict[str, Any], kind: str, connection: socket.socket) -> None:
    result["failed"][kind] = result["failed"].get(kind, 0) + 1
    connection.close()


# ---------------------------------------------------------------------------
# A flood of header lines.


class Flooder:
    """One connection of a flood: the parts of its head in turn (the request line and Host, the header lines, the
    empty line if the head is finished), each sent from where the last send stopped."""

    def __init__(self, connection: socket.socket, parts: int) -> None:
        self.connection = connection
        self.parts = parts
        self.part = 0
        self.offset = 0
        self.sent = 0
        self.reader = ReplyReader()
        self.status: Optional[int] = None
        self.closed_by_server = False


def flood(plan: Dict[str, Any], clock: Clock = time.perf_counter) -> Dict[str, Any]:
    """The flood job: `connections` connections each sending a request line, Host and `lines` header lines of
    `line_bytes` bytes (then the empty line if `finish`), as fast as the server reads them; each closed once all is
    sent, or held open until `hold_seconds` after the last send. What the server answered, and how many
    connections it closed."""
    port = plan["port"]
    line = flood_line(plan["line_bytes"])
    opening = f"POST {plan['endpoint']} HTTP/1.1\r\nHost: {HOST}:{port}\r\n".encode("ascii")
    parts = [opening] + [line] * plan["lines"] + ([b"\r\n"] if plan["finish"] else [])
    selector = selectors.DefaultSelector()
    flooders = []
    for connection, _ in connect_all(port, plan["connections"], plan["timeout"], clock):
        connection.setblocking(False)
        flooders.append(Flooder(connection, len(parts)))
        selector.register(connection, selectors.EVENT_READ | selectors.EVENT_WRITE, flooders[-1])
    began = clock()
    end = began + plan["timeout"]
    while any(f.part < f.parts and not f.closed_by_server for f in flooders) and clock() < end:
        for key, events in selector.select(max(0.0, end - clock())):
            _flood_step(selector, key.data, events, parts)
    sent_seconds = clock() - began
    held_until = clock() + plan["hold_seconds"]
    while plan["hold_seconds"] and selector.get_map() and clock() < held_until:
        for key, events in selector.select(max(0.0, held_until - clock())):
            _flood_step(selector, key.data, events, parts)
    statuses: Dict[str, int] = {}
    for flooder in flooders:
        statuses[str(flooder.status)] = statuses.get(str(flooder.status), 0) + 1
        flooder.connection.close()
    selector.close()
    return {"sent_bytes": sum(f.sent for f in flooders), "statuses": statuses, "sent_seconds": sent_seconds,
            "closed_by_server": sum(f.closed_by_server for f in flooders),
            "finished": sum(f.part == f.parts for f in flooders)}


def flood_line(size: int) -> bytes:
    """A header line of exactly `size` bytes, its CRLF included.

    >>> flood_line(16)
    b'X-Flood: aaaaa\\r\\n'
    """
    name = b"X-Flood: "
    return name + b"a" * (size - len(name) - 2) + b"\r\n"


def _flood_step(selector: selectors.BaseSelector, flooder: Flooder, events: int, parts: List[bytes]) -> None:
    """Read what the server sent (its answer, or the end of the connection), then send what the socket takes."""
    connection = flooder.connection
    try:
        if events & selectors.EVENT_READ:
            data = connection.recv(RECEIVE)
            if not data:
                raise ConnectionResetError(errno.ECONNRESET, "closed")
            for reply in flooder.reader.feed(data):
                flooder.status = reply.status
        while events & selectors.EVENT_WRITE and flooder.part < flooder.parts:
            count = connection.send(memoryview(parts[flooder.part])[flooder.offset:])
            flooder.sent += count
            flooder.offset += count
            if flooder.offset == len(parts[flooder.part]):
                flooder.part, flooder.offset = flooder.part + 1, 0
        if flooder.part == flooder.parts and events & selectors.EVENT_WRITE:
            selector.modify(connection, selectors.EVENT_READ, flooder)
    except BlockingIOError:
        return
    except OSError as error:
        if error.errno not in GONE:
            raise
        flooder.closed_by_server = True
        selector.unregister(connection)


# ---------------------------------------------------------------------------
# The command.


def say(line: Dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def main() -> int:
    """Run the job of the plan on stdin's first line; its result (or {"error": ...}) as stdout's last line."""
    plan = json.loads(sys.stdin.readline())
    try:
        if plan["job"] == "load":
            result = load(plan, say, sys.stdin.readline)
        else:
            result = {"burst": burst, "flood": flood}[plan["job"]](plan)
    except (LoadFailed, OSError, ValueError, KeyError) as failure:
        say({"error": f"{type(failure).__name__}: {failure}"})
        return EXIT_FAILED
    say(result)
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
