"""What pushing changes saves beside polling for them (our extension, not the articles'): the seed day with one
listen stream instead of hourly polls, counted; and the delay from a save to its notification with many listeners
on one server over Streamable HTTP, timed.

Layer: a client of the server (a process of its own, over HTTP) and of the lab's day; it measures, report.py writes.
"""

import json
import os
import random
import selectors
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

from lab.knowledge_base import day
from benchmark import fixtures
from osfoundry_tools.content import demo
from osfoundry_tools.server import listening, resources
from osfoundry_tools.server.protocol import SERVER_INFO, SERVER_INFO_KEY, encoded
from osfoundry_tools.stores import kb_store

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STATELESS_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}
SPACING_SECONDS = 0.1  # mean time between two saves of the timed run (drawn uniformly from 0 to twice it)
SEED = 7  # of those spacings and the articles saved


# ---------------------------------------------------------------------------
# The seed day, counted.


def seed_day(seed: int = 1) -> Dict[str, Any]:
    """sim.py's day (as stated, seed `seed`): the hourly polls' calls and bytes, and the same people's saves pushed
    to one listen stream watching the knowledge base all day: one call, and the bytes of the request, the ack,
    each notification and the closing result, as JSON."""
    scenario = fixtures.day_scenario(1)
    plan = day.draw_plan(seed, scenario)
    published = day.Published(plan, scenario)
    polled = day.run_zipf_day(plan, scenario, published)
    end = polled["hours"][-1]
    replica = day.Day(plan, scenario, "zipf", published)  # the same saves, nobody asking
    target = resources.parse(f"{resources.SCHEME}knowledge_base/{day.KB}", resume=True)
    start = log_head(replica.store)
    replica.loop.run()
    meta = {listening.SUBSCRIPTION_ID: 1}
    request = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": [target.uri]}, "_meta": STATELESS_META}}
    ack = {"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
           "params": {"notifications": {"resourceSubscriptions": [target.uri]}, "_meta": meta}}
    closing = {"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete",
                                                     "_meta": {**meta, SERVER_INFO_KEY: dict(SERVER_INFO)}}}
    events = events_after(replica.store, start)
    pushed = sum(len(encoded(listening.notification(meta, target, str(e["article_id"]), e))) for e in events)
    framing = sum(len(encoded(message)) for message in (request, ack, closing))
    return {"seed": seed, "hours": len(polled["hours"]), "saves": scenario.saves,
            "poll": list(end["costs"]["poll"]), "events_polled": end["events_polled"],
            "events_pushed": len(events), "push": [1, pushed + framing], "push_framing": framing}


def log_head(store: kb_store.KnowledgeBaseStore) -> int:
    return store.call_tool("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": day.KB,
                                                    "after_sequence": 2 ** 62})["last_sequence"]


def events_after(store: kb_store.KnowledgeBaseStore, after: int) -> List[Dict[str, Any]]:
    found: List[Dict[str, Any]] = []
    while True:
        page = store.call_tool("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": day.KB,
                                                        "after_sequence": after})
        found += page["events"]
        after = page["last_sequence"]
        if not page["has_more"]:
            return found


# ---------------------------------------------------------------------------
# The delay from a save to its notification, timed.


class Server:
    """mcp_server.py --demo on a knowledge-base file, over HTTP on a free port."""

    def __init__(self, directory: str, listeners: int) -> None:
        """Each listener an agent of its own, with a token (push-tokens.json) for its caller."""
        self.kb_db = os.path.join(directory, "push-kb.db")
        records = os.path.join(directory, "push-records.db")
        tokens = os.path.join(directory, "push-tokens.json")
        with open(os.open(tokens, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as file:
            json.dump({token(number): {"caller": f"agent-{number}", "knowledge_bases": "*"}
                       for number in range(listeners)}, file)
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "mcp_server.py"), "--demo", "--kb-db", self.kb_db, "--records-db",
             records, "--http", "127.0.0.1:0", "--http-max-connections", "1000", "--tokens", tokens],
            cwd=HERE, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        for line in self.process.stderr:
            if "/mcp" in line and "serving" in line:
                self.port = int(line.split("127.0.0.1:")[1].split("/")[0])
                break
        else:
            raise RuntimeError("the server did not start")
        threading.Thread(target=lambda: [None for _ in self.process.stderr or ()], daemon=True).start()

    def cpu_seconds(self) -> Optional[float]:
        """User and system CPU seconds the server has used (Linux's /proc; None elsewhere)."""
        try:
            with open(f"/proc/{self.process.pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def token(number: int) -> str:
    return f"push-benchmark-token-{number:06d}"


def open_listener(port: int, request_id: int) -> socket.socket:
    """One subscriptions/listen stream on the demo's knowledge base, its ack read."""
    body = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": [f"{resources.SCHEME}knowledge_base/{demo.KNOWLEDGE_BASE}"]},
        "_meta": STATELESS_META}}).encode()
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       b"Authorization: Bearer " + token(request_id).encode() + b"\r\n"
                       b"Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                       b"Mcp-Method: subscriptions/listen\r\nContent-Length: " + str(len(body)).encode() +
                       b"\r\n\r\n" + body)
    seen = b""
    while b"acknowledged" not in seen:
        chunk = connection.recv(65536)
        if not chunk:
            raise RuntimeError(f"a listen stream closed before its ack: {seen[:300]!r}")
        seen += chunk
    connection.setblocking(False)
    return connection


def receive(connections: List[socket.socket], arrivals: List[Tuple[int, int, float]], stop: threading.Event) -> None:
    """Record (listener, sequence, when) for each notification any connection brings, until `stop`."""
    chooser = selectors.DefaultSelector()
    pending: Dict[int, bytes] = {}
    for index, connection in enumerate(connections):
        chooser.register(connection, selectors.EVENT_READ, index)
        pending[index] = b""
    while not stop.is_set():
        for key, _ in chooser.select(0.1):
            try:
                chunk = key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            now = time.time()
            lines = (pending[key.data] + chunk).split(b"\n")
            pending[key.data] = lines.pop()
            for line in lines:
                if line.startswith(b"data: ") and b"resources/updated" in line:
                    meta = json.loads(line[6:])["params"]["_meta"]
                    arrivals.append((key.data, meta[resources.META_SEQUENCE], now))
    chooser.close()


def delays(directory: str, listeners: int, saves: int, idle_seconds: float = 2.0) -> Dict[str, Any]:
    """`listeners` streams on one server, `saves` saves from this process (another than the server's) at random
    spacings: each notification's delay from its save, and the server's CPU idle (for `idle_seconds`) and during
    the saves."""
    server = Server(directory, listeners)
    connections: List[socket.socket] = []
    try:
        connections = [open_listener(server.port, number) for number in range(listeners)]
        arrivals: List[Tuple[int, int, float]] = []
        stop = threading.Event()
        reader = threading.Thread(target=receive, args=(connections, arrivals, stop), daemon=True)
        reader.start()
        idle_start, idle_cpu = time.monotonic(), server.cpu_seconds()
        time.sleep(idle_seconds)
        before = server.cpu_seconds()
        idle = cpu_share(idle_cpu, before, time.monotonic() - idle_start)
        saved = save_at_random(server.kb_db, saves)
        busy = cpu_share(before, server.cpu_seconds(), 0.0)
        deadline = time.monotonic() + 10
        while len(arrivals) < listeners * saves and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # any duplicate would come by now
        stop.set()
        reader.join(5)
    finally:
        for connection in connections:
            connection.close()
        server.stop()
    delays_ms = sorted((when - saved[sequence]) * 1000 for _, sequence, when in arrivals if sequence in saved)
    pairs = {(listener, sequence) for listener, sequence, _ in arrivals}
    return {"listeners": listeners, "saves": saves, "notifications": len(arrivals), "distinct": len(pairs),
            "expected": listeners * saves, "delays_ms": percentiles(delays_ms), "idle_cpu_share": idle,
            "busy_cpu_seconds": busy, "watch_seconds": listening.WATCH_SECONDS}


def save_at_random(kb_db: str, saves: int) -> Dict[int, float]:
    """`saves` saves of the demo's articles at random spacings: sequence -> when its save returned."""
    rng = random.Random(SEED)
    saved: Dict[int, float] = {}
    with kb_store.connect(kb_db, granted=None) as store:
        head = log_head_of(store)
        for number in range(saves):
            time.sleep(rng.uniform(0, 2 * SPACING_SECONDS))
            article = f"art-{rng.randrange(1, 81):05d}"
            store.save_article(demo.KNOWLEDGE_BASE, article, content=f"Saved for the push benchmark, {number}.")
            saved[head + number + 1] = time.time()
    return saved


def log_head_of(store: kb_store.KnowledgeBaseStore) -> int:
    return store.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                    "resource_id": demo.KNOWLEDGE_BASE,
                                                    "after_sequence": 2 ** 62})["last_sequence"]


def cpu_share(before: Optional[float], after: Optional[float], seconds: float) -> Optional[float]:
    if before is None or after is None:
        return None
    return (after - before) / seconds if seconds else after - before


def percentiles(values: List[float]) -> Dict[str, Optional[float]]:
    if not values:
        return {"median": None, "p99": None, "max": None}
    return {"median": values[len(values) // 2], "p99": values[min(len(values) - 1, int(len(values) * 0.99))],
            "max": values[-1]}
