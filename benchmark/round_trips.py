"""Round trips over stdio: how long an MCP client waits for one tools/call, request written to answer read.

Layer: a client of any stdio MCP server command (ours by default). It starts the
server, does the handshake, sends a few warm-up calls, then times `count` calls
one after another, each from writing the request line to reading its answer.
A measurement, not a test: nothing here asserts a time.

    python3 -m benchmark.round_trips             # 2000 reads of one demo article on mcp_server.py --demo
    python3 -m benchmark.round_trips --sdk       # the same on benchmark/sdk_server.py, the official SDK's (needs mcp)
    python3 -m benchmark.round_trips --count 500 -- python3 other_server.py --flag
"""

import argparse
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

import mcp_demo
import plumbing
from benchmark.timing import percentile
from cli import EXIT_FAILED, EXIT_OK, OneLineParser, deaf_children, positive, run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SERVER = [sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo"]
SDK_SERVER = os.path.join(ROOT, "benchmark", "sdk_server.py")
VENV_PYTHON = os.path.join(ROOT, ".venv", *(("Scripts", "python.exe") if os.name == "nt" else ("bin", "python")))
OURS, THE_SDKS = "mcp_server.py (this project, standard library)", "benchmark/sdk_server.py (official mcp SDK)"
TOOL = "read_knowledge_article"
COUNT = 2000
WARM_UP = 50


def demo_article() -> Dict[str, str]:
    """The arguments of a read of the demo's first published article (default seed)."""
    article = mcp_demo.draw_plan(mcp_demo.SEED).published()[0]
    return {"knowledge_base_id": mcp_demo.KNOWLEDGE_BASE, "article_id": article.article_id}


def sdk_server_command() -> Optional[List[str]]:
    """benchmark/sdk_server.py under an interpreter that can import mcp (this one, else .venv's), or None."""
    if importlib.util.find_spec("mcp") is not None:
        return [sys.executable, SDK_SERVER]
    if os.path.exists(VENV_PYTHON) and subprocess.run([VENV_PYTHON, "-c", "import mcp"], stdin=subprocess.DEVNULL,
                                                      capture_output=True).returncode == 0:
        return [VENV_PYTHON, SDK_SERVER]
    return None


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


def round_trips(argv: Sequence[str], tool: str, arguments: Dict[str, Any], count: int, warm_up: int = WARM_UP,
                clock: Callable[[], float] = time.perf_counter) -> List[float]:
    """Seconds per tools/call round trip, `count` of them after `warm_up` untimed ones, on a fresh server.

    UnknownTool if the server does not list `tool`; RuntimeError if it fails a call, dies or answers wrongly.
    """
    client = Client(argv)
    try:
        client.handshake()
        listed = [t.get("name") for t in client.request("tools/list").get("tools", [])]
        if tool not in listed:
            raise UnknownTool(f"the server lists no tool {tool!r}; it lists {', '.join(map(str, listed))}")
        samples = []
        for number in range(warm_up + count):
            started = clock()
            result = client.request("tools/call", {"name": tool, "arguments": arguments})
            elapsed = clock() - started
            if result.get("isError"):
                raise RuntimeError(f"{tool} failed: {result['content'][0]['text'][:300]}")
            if number >= warm_up:
                samples.append(elapsed)
    except BrokenPipeError:
        raise RuntimeError(f"the server exited (status {client.process.wait()}) before reading a request") from None
    finally:
        status = client.close()
    if status != 0:
        raise RuntimeError(f"the server exited with status {status}")
    return samples


def summary(samples: Sequence[float]) -> Dict[str, float]:
    """Median, 99th percentile, min and max, in milliseconds."""
    return {"median": 1000 * statistics.median(samples), "p99": 1000 * percentile(samples, 0.99),
            "min": 1000 * min(samples), "max": 1000 * max(samples)}


def json_object(text: str) -> Dict[str, Any]:
    """--arguments: a JSON object, strictly (NaN and Infinity are not JSON)."""
    try:
        value = plumbing.strict_json(text)
    except (ValueError, RecursionError) as error:
        raise argparse.ArgumentTypeError(f"{text!r} is not JSON ({error})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{text!r} is not a JSON object such as {{\"article_id\": \"art-00001\"}}")
    return value



def parser() -> OneLineParser:
    p = OneLineParser(prog="benchmark.round_trips", description=(
        f"Time tools/call {TOOL} round trips over stdio against a server command (default: mcp_server.py --demo)."))
    p.add_argument("--count", type=positive, default=COUNT, help=f"timed round trips (default {COUNT})")
    p.add_argument("--tool", default=TOOL, help=f"the tool to call (default {TOOL})")
    p.add_argument("--arguments", type=json_object, help="its arguments as a JSON object (default: a read of the "
                   "demo's first published article)")
    p.add_argument("--sdk", action="store_true", help="time benchmark/sdk_server.py, the same read served by the "
                   "official MCP SDK, instead (needs the mcp package here or in .venv: make conformance)")
    p.add_argument("server", nargs="*", help="the server command after --, e.g. -- python3 mcp_server.py --demo")
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Time the round trips and print one line of figures; one line and EXIT_USAGE for a bad option or an unknown
    tool, EXIT_FAILED for a server that fails."""
    p = parser()
    options = p.parse_args(argv)
    server = sdk_server(p, options) if options.sdk else options.server or DEFAULT_SERVER
    if shutil.which(server[0]) is None:
        p.error(f"cannot run the server command: {server[0]!r} is not a program on the PATH")
    arguments = demo_article() if options.arguments is None else options.arguments
    try:
        figures = summary(round_trips(server, options.tool, arguments, options.count))
    except UnknownTool as error:
        p.error(f"--tool: {error}")
    except (RuntimeError, OSError) as error:
        print(f"benchmark.round_trips: {error}", file=sys.stderr)
        return EXIT_FAILED
    served = " on the official SDK's server" if options.sdk else ""
    print(f"{options.count} round trips of tools/call {options.tool}{served}: median {figures['median']:.3f} ms, "
          f"p99 {figures['p99']:.3f} ms, min {figures['min']:.3f} ms, max {figures['max']:.3f} ms "
          f"(Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.system()} {platform.machine()})")
    return EXIT_OK


def sdk_server(p: OneLineParser, options: argparse.Namespace) -> List[str]:
    """The SDK server's command for --sdk; a one-line error without mcp or beside a server command."""
    if options.server:
        p.error("--sdk times benchmark/sdk_server.py: give it without a server command")
    command = sdk_server_command()
    if command is None:
        p.error("--sdk needs the mcp package, in this Python or in .venv (make conformance installs it there)")
    return command


if __name__ == "__main__":
    sys.exit(run_main("benchmark.round_trips", main))
