"""Round trips over stdio and Streamable HTTP: how long an MCP client waits for one tools/call, request to answer.

Layer: a client of any MCP server command (ours by default). Over stdio it starts
the server, does the handshake, sends a few warm-up calls, then times `count`
calls one after another, each from writing the request line to reading its
answer. Over HTTP it starts a server command that serves Streamable HTTP and says
on stderr where ("http://127.0.0.1:PORT"), then does the same with requests of
the stateless era (2026-07-28: no handshake, each request carries its protocol
version), one POST at a time on one kept-alive connection per client; with
several clients, each is a thread with a connection of its own, and all time
their calls together. A measurement, not a test: nothing here asserts a time.

    python3 -m benchmark.round_trips             # 2000 reads of one demo article on mcp_server.py --demo
    python3 -m benchmark.round_trips --sdk       # the same on benchmark/sdk_server.py, the official SDK's (needs mcp)
    python3 -m benchmark.round_trips --http      # over HTTP, on mcp_server.py --demo --http 127.0.0.1:0
    python3 -m benchmark.round_trips --http --clients 16 --count 500   # 16 clients at once, 500 reads each
    python3 -m benchmark.round_trips --count 500 -- python3 other_server.py --flag

Left out on purpose: server-sent events (both servers here answer each POST with
one JSON body), sessions, and TLS.
"""

import argparse
import http.client
import importlib.util
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple

from osfoundry_tools.content import demo
from osfoundry_tools.core import checks
from benchmark.timing import percentile
from osfoundry_tools.cli import EXIT_FAILED, EXIT_OK, OneLineParser, deaf_children, positive, run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SERVER = [sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo"]
HTTP_SERVER = [*DEFAULT_SERVER, "--http", "127.0.0.1:0"]  # port 0: any free port, which its log names
SDK_SERVER = os.path.join(ROOT, "benchmark", "sdk_server.py")
VENV_PYTHON = os.path.join(ROOT, ".venv", *(("Scripts", "python.exe") if os.name == "nt" else ("bin", "python")))
OURS, THE_SDKS = "mcp_server.py (this project, standard library)", "benchmark/sdk_server.py (official mcp SDK)"
TOOL = "read_knowledge_article"
COUNT = 2000
WARM_UP = 50
CLIENT_WARM_UP = 10  # untimed calls per client before several clients time theirs together
STATELESS = "2026-07-28"  # the stateless era: no handshake, the version and capabilities in each request's _meta
STATELESS_META = {"io.modelcontextprotocol/protocolVersion": STATELESS,
                  "io.modelcontextprotocol/clientCapabilities": {}}
ENDPOINT = "/mcp"
LISTENING = re.compile(r"http://127\.0\.0\.1:([0-9]+)")  # ours: "... at http://127.0.0.1:PORT/mcp"; uvicorn's too
STARTUP_SECONDS = 60  # the longest an HTTP server may take to say where it listens


def demo_article() -> Dict[str, str]:
    """The arguments of a read of the demo's first published article (default seed)."""
    article = demo.draw_plan(demo.SEED).published()[0]
    return {"knowledge_base_id": demo.KNOWLEDGE_BASE, "article_id": article.article_id}


def sdk_server_command() -> Optional[List[str]]:
    """benchmark/sdk_server.py under an interpreter that can import mcp (this one, else .venv's), or None."""
    if importlib.util.find_spec("mcp") is not None:
        return [sys.executable, SDK_SERVER]
    if os.path.exists(VENV_PYTHON) and subprocess.run([VENV_PYTHON, "-c", "import mcp"], stdin=subprocess.DEVNULL,
                                                      capture_output=True).returncode == 0:
        return [VENV_PYTHON, SDK_SERVER]
    return None


def sdk_http_server_command() -> Optional[List[str]]:
    """benchmark/sdk_server.py --http under an interpreter that can import mcp, or None."""
    command = sdk_server_command()
    return None if command is None else over_http(command)


def over_http(sdk_command: List[str]) -> List[str]:
    """The SDK server's command (sdk_server_command()'s) serving Streamable HTTP instead of stdio."""
    return [*sdk_command, "--http"]


class Client:
    """A bare stdio client: one request at a time, each answer read before the next request is sent."""

    def __init__(self, argv: Sequence[str]) -> None:
        with deaf_children():  # Ctrl-C is ours to handle; none is lost while the server starts
            self.process = subprocess.Popen(list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL)
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None, "both are pipes"
        self.stdin, self.stdout = stdin, stdout
        self.next_id = 0

    def send(self, method: str, params: Optional[Dict[str, Any]] = None, *, notify: bool = False) -> None:
        message: Dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if not notify:
            self.next_id += 1
            message["id"] = self.next_id
        self.stdin.write(json.dumps(message).encode("utf-8") + b"\n")
        self.stdin.flush()

    def receive(self) -> Dict[str, Any]:
        """The next answer; RuntimeError if the server exited, or answered another id or with an error."""
        line = self.stdout.readline()
        if not line:
            raise RuntimeError(f"the server exited (status {self.process.wait()}) before answering")
        answer = json.loads(line)
        if answer.get("id") != self.next_id or "error" in answer:
            raise RuntimeError(f"unexpected answer to request {self.next_id}: {line[:300]!r}")
        return answer["result"]

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        self.send(method, params)
        return self.receive()

    def handshake(self) -> Dict[str, Any]:
        result = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                             "clientInfo": {"name": "osfoundry-round-trips", "version": "1"}})
        self.send("notifications/initialized", notify=True)
        return result

    def close(self) -> int:
        """Close stdin, as a client ends a session; the server's exit status."""
        try:
            self.stdin.close()
        except BrokenPipeError:  # it had exited with a request unread
            pass
        status = self.process.wait(timeout=10)
        self.stdout.close()
        return status


class UnknownTool(ValueError):
    """The server lists no tool of the name asked for."""


Request = Callable[[str, Optional[Dict[str, Any]]], Dict[str, Any]]  # client.request(method, params) -> result


def check_listed(request: Request, tool: str) -> None:
    """UnknownTool if the server does not list `tool`."""
    listed = [t.get("name") for t in request("tools/list", None).get("tools", [])]
    if tool not in listed:
        raise UnknownTool(f"the server lists no tool {tool!r}; it lists {', '.join(map(str, listed))}")


def timed_calls(request: Request, tool: str, arguments: Dict[str, Any], count: int, warm_up: int,
                clock: Callable[[], float]) -> List[float]:
    """Seconds per tools/call, `count` of them after `warm_up` untimed ones; RuntimeError for a failed call."""
    samples = []
    for number in range(warm_up + count):
        started = clock()
        result = request("tools/call", {"name": tool, "arguments": arguments})
        elapsed = clock() - started
        if result.get("isError"):
            raise RuntimeError(f"{tool} failed: {result['content'][0]['text'][:300]}")
        if number >= warm_up:
            samples.append(elapsed)
    return samples


def round_trips(argv: Sequence[str], tool: str, arguments: Dict[str, Any], count: int, warm_up: int = WARM_UP,
                clock: Callable[[], float] = time.perf_counter) -> List[float]:
    """Seconds per tools/call round trip over stdio, `count` of them after `warm_up` untimed ones, on a fresh server.

    UnknownTool if the server does not list `tool`; RuntimeError if it fails a call, dies or answers wrongly.
    """
    client = Client(argv)
    try:
        client.handshake()
        check_listed(client.request, tool)
        samples = timed_calls(client.request, tool, arguments, count, warm_up, clock)
    except BrokenPipeError:
        raise RuntimeError(f"the server exited (status {client.process.wait()}) before reading a request") from None
    finally:
        status = client.close()
    if status != 0:
        raise RuntimeError(f"the server exited with status {status}")
    return samples


# ---------------------------------------------------------------------------
# Streamable HTTP.


class HttpServer:
    """A server command serving Streamable HTTP, from start to stop; `port` is where its log on stderr says it listens.
    Stopped by SIGTERM (or at the end of a `with` block), which both servers here take as a stop.

    Its stderr is read to the end by a thread of its own (so a chatty log never fills the pipe and stalls it),
    its stdout is discarded. RuntimeError if it exits, or stays silent for STARTUP_SECONDS, before it says.
    """

    def __init__(self, argv: Sequence[str], startup_seconds: float = STARTUP_SECONDS) -> None:
        with deaf_children():  # Ctrl-C is ours to handle: stop() ends the server
            self.process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace")
        self.found: Optional[int] = None  # the port, once its log names it
        self.last_line = "nothing on stderr"
        self.said = threading.Event()  # the port is known, or stderr has ended
        assert self.process.stderr is not None, "a pipe"
        self.reader = threading.Thread(target=self.read_log, args=(self.process.stderr,), daemon=True)
        self.reader.start()
        if not self.said.wait(startup_seconds) or self.found is None:
            self.stop()
            raise RuntimeError(f"the server did not say where it listens (status {self.process.returncode}); "
                               f"its last line: {self.last_line[:300]}")
        self.port: int = self.found

    def read_log(self, stderr: IO[str]) -> None:
        for line in stderr:
            self.last_line = line.strip()
            found = LISTENING.search(line) if self.found is None else None
            if found:
                self.found = int(found.group(1))
                self.said.set()
        self.said.set()

    def stop(self) -> None:
        """Terminate the server and wait for it (killed if it has not ended within 10 s)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.reader.join(timeout=10)
        if self.process.stderr is not None:
            self.process.stderr.close()

    def __enter__(self) -> "HttpServer":
        return self

    def __exit__(self, *exception: Any) -> None:
        self.stop()


class HttpClient:
    """A bare Streamable HTTP client of the stateless era: one kept-alive connection, each answer read before the
    next POST. Every request carries the version and capabilities in its _meta and the headers the era asks for
    (MCP-Protocol-Version, Mcp-Method, and Mcp-Name for a tools/call)."""

    def __init__(self, port: int, host: str = "127.0.0.1", timeout: float = 60.0) -> None:
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout)
        self.next_id = 0

    def request(self, method: str, params: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """The result of one request; RuntimeError for an HTTP status other than 200, another id or an error."""
        self.next_id += 1
        params = dict(params or {}, _meta=STATELESS_META)
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        self.connection.request("POST", ENDPOINT, body.encode("utf-8"), self.headers(method, params))
        response = self.connection.getresponse()
        data = response.read()
        answer = json.loads(data) if response.status == 200 else {}
        if response.status != 200 or answer.get("id") != self.next_id or "error" in answer:
            raise RuntimeError(f"unexpected answer to request {self.next_id} (HTTP {response.status}): {data[:300]!r}")
        return answer["result"]

    @staticmethod
    def headers(method: str, params: Dict[str, Any]) -> Dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": STATELESS, "Mcp-Method": method}
        if method == "tools/call":
            headers["Mcp-Name"] = params["name"]
        return headers

    def close(self) -> None:
        self.connection.close()


def http_round_trips(port: int, tool: str, arguments: Dict[str, Any], count: int, warm_up: int = WARM_UP,
                     clock: Callable[[], float] = time.perf_counter) -> List[float]:
    """Seconds per tools/call round trip over Streamable HTTP, `count` after `warm_up` untimed ones, on a new
    connection to the server at `port`. UnknownTool if it does not list `tool`; RuntimeError for a failed call."""
    client = HttpClient(port)
    try:
        check_listed(client.request, tool)
        return timed_calls(client.request, tool, arguments, count, warm_up, clock)
    finally:
        client.close()


def concurrent_round_trips(port: int, tool: str, arguments: Dict[str, Any], clients: int, count: int,
                           warm_up: int = CLIENT_WARM_UP,
                           clock: Callable[[], float] = time.perf_counter) -> Tuple[List[float], float]:
    """`clients` threads, each on a connection of its own to the HTTP server at `port`: after `warm_up` untimed
    calls each, they start together and each times `count` round trips. Every client's samples, and the seconds
    from their common start to the last one's end. UnknownTool if the server does not list `tool`; RuntimeError if
    any client fails."""
    http_round_trips(port, tool, arguments, 0, 0, clock)  # the tool is listed
    start = threading.Barrier(clients + 1)
    samples: List[List[float]] = [[] for _ in range(clients)]
    failures: List[BaseException] = []

    def client_thread(index: int) -> None:
        client = HttpClient(port)
        try:
            timed_calls(client.request, tool, arguments, warm_up, 0, clock)
            start.wait()
            samples[index] = timed_calls(client.request, tool, arguments, count, 0, clock)
        except BaseException as error:  # the failure is raised in the caller's thread
            failures.append(error)
            start.abort()
        finally:
            client.close()

    threads = [threading.Thread(target=client_thread, args=(index,), daemon=True) for index in range(clients)]
    for thread in threads:
        thread.start()
    try:
        start.wait()
    except threading.BrokenBarrierError:
        pass  # a client failed: its failure is raised below
    started = clock()
    for thread in threads:
        thread.join()
    seconds = clock() - started
    first = next((f for f in failures if not isinstance(f, threading.BrokenBarrierError)), None)
    if first is not None:
        raise RuntimeError(f"a client failed: {first}") from first
    return [sample for per_client in samples for sample in per_client], seconds


def summary(samples: Sequence[float]) -> Dict[str, float]:
    """Median, 99th percentile, min and max, in milliseconds."""
    return {"median": 1000 * statistics.median(samples), "p99": 1000 * percentile(samples, 0.99),
            "min": 1000 * min(samples), "max": 1000 * max(samples)}


def json_object(text: str) -> Dict[str, Any]:
    """--arguments: a JSON object, strictly (NaN and Infinity are not JSON)."""
    try:
        value = checks.strict_json(text)
    except (ValueError, RecursionError) as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON ({error})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{text!r} is not a JSON object such as {{\"article_id\": \"art-00001\"}}")
    return value


def parser() -> OneLineParser:
    p = OneLineParser(prog="benchmark.round_trips", description=(
        f"Time tools/call {TOOL} round trips over stdio or Streamable HTTP against a server command (default: "
        "mcp_server.py --demo)."))
    p.add_argument("--count", type=positive, default=COUNT, help=f"timed round trips, per client (default {COUNT})")
    p.add_argument("--tool", default=TOOL, help=f"the tool to call (default {TOOL})")
    p.add_argument("--arguments", type=json_object, help="its arguments as a JSON object (default: a read of the "
                   "demo's first published article)")
    p.add_argument("--sdk", action="store_true", help="time benchmark/sdk_server.py, the same read served by the "
                   "official MCP SDK, instead (needs the mcp package here or in .venv: make conformance)")
    p.add_argument("--http", action="store_true", help="over Streamable HTTP, in the stateless era (2026-07-28): "
                   "the server command must serve it and say on stderr where, as http://127.0.0.1:PORT (default: "
                   "mcp_server.py --demo --http 127.0.0.1:0)")
    p.add_argument("--clients", type=positive, default=1, help="with --http: this many clients at once, each a "
                   "thread with a connection of its own, all timing their calls together (default 1)")
    p.add_argument("server", nargs="*", help="the server command after --, e.g. -- python3 mcp_server.py --demo")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Time the round trips and print one line of figures; one line and EXIT_USAGE for a bad option or an unknown
    tool, EXIT_FAILED for a server that fails."""
    p = parser()
    options = p.parse_args(argv)
    if options.clients > 1 and not options.http:
        p.error(f"--clients {options.clients}: several clients at once are timed over HTTP; add --http")
    server = sdk_server(p, options) if options.sdk else options.server or (HTTP_SERVER if options.http
                                                                           else DEFAULT_SERVER)
    if shutil.which(server[0]) is None:
        p.error(f"cannot run the server command: {server[0]!r} is not a program on the PATH")
    arguments = demo_article() if options.arguments is None else options.arguments
    try:
        samples, seconds = measured(options, server, arguments)
    except UnknownTool as error:
        p.error(f"--tool: {error}")
    except (RuntimeError, OSError) as error:
        print(f"benchmark.round_trips: {error}", file=sys.stderr)
        return EXIT_FAILED
    figures = summary(samples)
    served = " on the official SDK's server" if options.sdk else ""
    how = f" over HTTP by {options.clients} clients at once" if options.clients > 1 else \
        " over HTTP" if options.http else ""
    rate = f", {len(samples) / seconds:,.0f} calls per second" if options.clients > 1 else ""
    print(f"{options.count} round trips{' each' if options.clients > 1 else ''} of tools/call {options.tool}{served}"
          f"{how}: median {figures['median']:.3f} ms, p99 {figures['p99']:.3f} ms, min {figures['min']:.3f} ms, "
          f"max {figures['max']:.3f} ms{rate} (Python {platform.python_version()}, {os.cpu_count()} CPUs, "
          f"{platform.system()} {platform.machine()})")
    return EXIT_OK


def measured(options: argparse.Namespace, server: List[str], arguments: Dict[str, Any]) -> Tuple[List[float], float]:
    """The samples the options ask for, and the seconds the timed calls took together."""
    if not options.http:
        samples = round_trips(server, options.tool, arguments, options.count)
        return samples, sum(samples)
    with HttpServer(server) as running:
        if options.clients > 1:
            return concurrent_round_trips(running.port, options.tool, arguments, options.clients, options.count)
        samples = http_round_trips(running.port, options.tool, arguments, options.count)
        return samples, sum(samples)


def sdk_server(p: OneLineParser, options: argparse.Namespace) -> List[str]:
    """The SDK server's command for --sdk (its HTTP one with --http); a one-line error without mcp or beside a
    server command."""
    if options.server:
        p.error("--sdk times benchmark/sdk_server.py: give it without a server command")
    command = sdk_http_server_command() if options.http else sdk_server_command()
    if command is None:
        p.error("--sdk needs the mcp package, in this Python or in .venv (make conformance installs it there)")
    return command


if __name__ == "__main__":
    sys.exit(run_main("benchmark.round_trips", main))
