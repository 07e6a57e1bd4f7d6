"""The official Python SDK (`mcp` 2.3.0) in each of its connection modes, over stdio and Streamable HTTP.

`mcp.Client(target, mode=...)`: "auto" probes server/discover and falls back to initialize, "legacy" forces the
initialize handshake, "2026-07-28" pins the stateless revision without any probe. For each mode and transport one
client session lists the seven tools, calls each once on the demo (every structured result checked against its
outputSchema), meets a version conflict, and shows which era it spoke: what the SDK negotiated, what the results
carry (a stateless result is stamped with the server's identity, a handshake one is not), and what the server
logged ("client ... asked for MCP ..." for each initialize, with --verbose every stdio line it received).

Over HTTP also: bearer tokens (a write token edits, a read-only token gets forbidden and still reads, no token or a
wrong one cannot connect), and over both transports a raw request naming an unknown revision gets -32022.

Like tests/test_mcp_sdk.py, skipped without the SDK; `make conformance` runs it with MCP_SDK_REQUIRED=1.
"""

import asyncio
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid
from typing import Any, Dict, List, Optional

from tests.helpers import ROOT, sdk_missing, store_definitions

try:
    import httpx2
    import jsonschema
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation
except ImportError as error:  # the SDK is optional: make conformance installs it
    SDK_MISSING = sdk_missing(error)
else:
    SDK_MISSING = ""

from osfoundry_tools.content import demo

SERVER = os.path.join(ROOT, "mcp_server.py")
KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
REQUIRED = os.environ.get("MCP_SDK_REQUIRED") == "1"
MODERN, HANDSHAKE = "2026-07-28", "2025-11-25"
MODES = ("auto", "legacy", MODERN)
SERVER_NAME = "osfoundry-reconstruction"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
WRITE_TOKEN = "sdk-modes-write-token-0123456789"
READ_TOKEN = "sdk-modes-read-token-0123456789"
WRONG_TOKEN = "sdk-modes-wrong-token-0123456789"
READY = re.compile(r"at http://127\.0\.0\.1:(\d+)/mcp")
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
UNKNOWN_REVISION = "2099-01-01"


def require_sdk():
    """Only reached when the class was not skipped: with MCP_SDK_REQUIRED=1, a missing SDK fails."""
    if SDK_MISSING:
        raise AssertionError(SDK_MISSING)


def asked_for(lines: List[str], client: str) -> List[str]:
    """The server's log lines of an initialize from the client named `client`."""
    return [line for line in lines if f'client "{client}"' in line and "asked for MCP" in line]


def received(lines: List[str], method: str) -> List[str]:
    """The --verbose lines of the stdio messages received for `method` (JSON escaped in the log: \\"method\\")."""
    pattern = re.compile(r'received .*method\W+' + re.escape(method) + r'\\?"')
    return [line for line in lines if pattern.search(line)]


def messages(error: BaseException) -> List[str]:
    """The text of an exception and of every exception it groups or was caused by."""
    found = [f"{type(error).__name__}: {error}"]
    for inner in list(getattr(error, "exceptions", ())) + [error.__cause__, error.__context__]:
        if isinstance(inner, BaseException) and inner is not error:
            found += messages(inner)
    return found


def unknown_revision_request(request_id: int = 1) -> Dict[str, Any]:
    """A stateless tools/list naming a revision no server speaks."""
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": UNKNOWN_REVISION,
        "io.modelcontextprotocol/clientCapabilities": {}}}}


# ---------------------------------------------------------------------------
# One session: list, call every tool, meet a conflict.


async def exercise(client: Any, article_id: str, key: str) -> Dict[str, Any]:
    """In an entered Client: the tools/list result, each tool's successful result, one failing call, and what
    the SDK negotiated."""
    listed = await client.list_tools()
    page = await client.call_tool("list_record_items", {"record_channel_id": CHANNEL, "limit": 2})
    item = page.structured_content["items"][0]
    read = await client.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article_id})
    current = await client.call_tool("read_record_item", {"record_channel_id": CHANNEL, "item_id": item["item_id"]})
    results = {"list_record_items": page, "read_knowledge_article": read, "read_record_item": current}
    calls: Dict[str, Dict[str, Any]] = {
        "search_knowledge_base": {"knowledge_base_id": KB, "query": "password"},
        "poll_resource_events": {"resource_type": "record", "resource_id": CHANNEL, "limit": 3},
        "edit_record_item": {"record_channel_id": CHANNEL, "item_id": item["item_id"], "values": {"owner": "ren"},
                             "expected_version": current.structured_content["version"], "idempotency_key": key},
        "edit_knowledge_article": {"knowledge_base_id": KB, "article_id": article_id,
                                   "content": f"Rewritten through the SDK ({key}).",
                                   "expected_version": read.structured_content["updated_at"],
                                   "idempotency_key": key},
    }
    for name, arguments in calls.items():
        results[name] = await client.call_tool(name, arguments)
    stale = await client.call_tool("edit_record_item", {**calls["edit_record_item"], "idempotency_key": key + "-stale"})
    session = client.session
    return {"listed": listed, "results": results, "stale": stale, "protocol_version": client.protocol_version,
            "initialize_result": session.initialize_result, "discover_result": session.discover_result,
            "server_info": client.server_info}


def client_name(mode: str, transport: str) -> str:
    return f"sdk-modes-{mode}-{transport}-{uuid.uuid4().hex[:8]}"


def run_stdio_session(mode: str, article_id: str, name: str) -> Dict[str, Any]:
    """One session with a fresh `mcp_server.py --demo --verbose` over stdio; its stderr log in "log"."""

    async def run(errlog):
        parameters = StdioServerParameters(command=sys.executable, args=[SERVER, "--demo", "--verbose"], cwd=ROOT)
        async with Client(stdio_client(parameters, errlog=errlog), mode=mode,
                          client_info=Implementation(name=name, version="1.0")) as client:
            return await exercise(client, article_id, f"modes-{mode}-stdio")

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:  # the SDK needs a real file for stderr
        outcome = asyncio.run(run(errlog))
        errlog.seek(0)
        outcome["log"] = errlog.read().splitlines()
    return outcome


async def http_client(url: str, mode: str, token: Optional[str], work, name: Optional[str] = None):
    """`await work(client)` in a Client over Streamable HTTP at `url`, with `token` as bearer (None: no header)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    info = Implementation(name=name or client_name(mode, "http"), version="1.0")
    async with httpx2.AsyncClient(headers=headers) as transport_client:
        async with Client(streamable_http_client(url, http_client=transport_client), mode=mode,
                          client_info=info) as client:
            return await work(client)


# ---------------------------------------------------------------------------
# A server over HTTP, run as a process for a test class.


class HttpServer:
    """`mcp_server.py --demo --http 127.0.0.1:0 ARGS`, its stderr read by a thread, stopped with SIGINT."""

    def __init__(self, *args: str) -> None:
        self.lines: List[str] = []
        self.changed = threading.Condition()
        self.process = subprocess.Popen([sys.executable, SERVER, "--demo", "--http", "127.0.0.1:0", *args], cwd=ROOT,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        text=True, encoding="utf-8")
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        line = self.wait_for(READY.search, 15)
        if line is None:
            self.stop()
            raise AssertionError("the HTTP server did not say where it listens:\n" + "\n".join(self.lines))
        found = READY.search(line)
        assert found is not None
        self.port = int(found.group(1))
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            with self.changed:
                self.lines.append(line.rstrip("\n"))
                self.changed.notify_all()
        with self.changed:
            self.changed.notify_all()

    def wait_for(self, matches, timeout: float, start: int = 0) -> Optional[str]:
        """The first log line from `start` on for which matches(line) is true, waiting up to `timeout` s."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for line in self.lines[start:]:
                    if matches(line):
                        return line
                left = deadline - time.monotonic()
                if left <= 0 or (self.process.poll() is not None and not self.reader.is_alive()):
                    return None
                self.changed.wait(left)

    def mark(self) -> int:
        with self.changed:
            return len(self.lines)

    def log_until_marker(self, start: int) -> List[str]:
        """The log lines from `start` up to a marker: a raw initialize sent now, whose log line, once seen, proves
        every line of the requests before it has been read."""
        marker = f"sdk-modes-marker-{uuid.uuid4().hex[:8]}"
        status, answer = self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": marker, "version": "1"}}})
        assert status == 200 and "result" in answer, (status, answer)
        if self.wait_for(lambda line: f'client "{marker}"' in line, 10, start) is None:
            raise AssertionError("the server did not log the marker initialize:\n" + "\n".join(self.lines[start:]))
        with self.changed:
            lines = list(self.lines[start:])
        return lines[:next(i for i, line in enumerate(lines) if f'client "{marker}"' in line)]

    def post(self, message: Dict[str, Any], token: Optional[str] = None):
        """A raw POST of one message: (HTTP status, parsed body)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            headers = dict(JSON_HEADERS, **({"Authorization": f"Bearer {token}"} if token else {}))
            connection.request("POST", "/mcp", json.dumps(message).encode(), headers)
            response = connection.getresponse()
            return response.status, json.loads(response.read() or b"null")
        finally:
            connection.close()

    def stop(self) -> int:
        """SIGINT, then wait; the exit status (terminate and kill if it will not stop)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(5)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
        self.reader.join(5)
        if self.process.stderr is not None:
            self.process.stderr.close()
        return self.process.returncode


# ---------------------------------------------------------------------------
# The checks every session shares.


class ModesCase(unittest.TestCase):
    """What each session must show, whatever the transport."""

    definitions: Dict[str, Dict[str, Any]]
    article_id: str

    @classmethod
    def setUpClass(cls):
        require_sdk()
        cls.definitions = store_definitions()
        cls.article_id = demo.draw_plan(demo.SEED).published()[0].article_id

    def check_session(self, outcome: Dict[str, Any], mode: str) -> None:
        """The seven tools as the stores define them, each called successfully with a conforming result, the
        stale edit an error result with readable text, and the era the mode must have spoken."""
        tools = outcome["listed"].tools
        self.assertEqual(sorted(tool.name for tool in tools), sorted(self.definitions))
        for tool in tools:
            with self.subTest(tool=tool.name):
                definition = self.definitions[tool.name]
                self.assertEqual(tool.input_schema, definition["inputSchema"])
                self.assertEqual(tool.output_schema, definition["outputSchema"])
                self.assertEqual(tool.title, definition["title"])
                self.assertEqual(tool.description, definition["description"])
                self.assertEqual(tool.annotations.model_dump(by_alias=True, exclude_none=True),
                                 definition["annotations"])
        results = outcome["results"]
        self.assertEqual(sorted(results), sorted(self.definitions))
        for name, result in results.items():
            with self.subTest(tool=name):
                self.assertFalse(result.is_error, result.content)
                jsonschema.validate(result.structured_content, self.definitions[name]["outputSchema"])
                self.assertEqual(json.loads(result.content[0].text), result.structured_content)
        self.assertFalse(results["edit_record_item"].structured_content["replay"])
        stale = outcome["stale"]
        self.assertTrue(stale.is_error)
        self.assertIsNone(stale.structured_content)
        self.assertEqual(json.loads(stale.content[0].text)["error"], "version_conflict")
        self.assertIn("read_record_item again", stale.content[0].text)
        if mode == "legacy":
            self.check_handshake_era(outcome)
        else:
            self.check_stateless_era(outcome, probed=mode == "auto")

    def check_handshake_era(self, outcome: Dict[str, Any]) -> None:
        self.assertEqual(outcome["protocol_version"], HANDSHAKE)
        self.assertIsNotNone(outcome["initialize_result"])
        self.assertIsNone(outcome["discover_result"])
        self.assertEqual(outcome["server_info"].name, SERVER_NAME)
        for result in [outcome["listed"], outcome["stale"], *outcome["results"].values()]:
            self.assertIsNone(result.meta, "a handshake-era result carries no serverInfo stamp")

    def check_stateless_era(self, outcome: Dict[str, Any], probed: bool) -> None:
        self.assertEqual(outcome["protocol_version"], MODERN)
        self.assertIsNone(outcome["initialize_result"], "the stateless revision has no initialize")
        discovered = outcome["discover_result"]
        if probed:  # auto: the server's own server/discover answer was adopted
            self.assertIn(MODERN, discovered.supported_versions)
            self.assertIn(HANDSHAKE, discovered.supported_versions)
            self.assertEqual(outcome["server_info"].name, SERVER_NAME)
        else:  # pinned: the SDK synthesises a discover result and sends no probe
            self.assertEqual(discovered.supported_versions, [MODERN])
            self.assertIsNone(outcome["server_info"])
        listed = outcome["listed"]
        self.assertEqual((listed.ttl_ms, listed.cache_scope), (300_000, "public"))
        for result in [listed, outcome["stale"], *outcome["results"].values()]:
            self.assertEqual(result.result_type, "complete")
            self.assertEqual(result.meta[SERVER_INFO_KEY]["name"], SERVER_NAME)


# ---------------------------------------------------------------------------
# stdio: one server process per session (the SDK starts it and closes its stdin).


@unittest.skipIf(SDK_MISSING and not REQUIRED, SDK_MISSING)
class StdioModesTest(ModesCase):

    def check_stdio(self, mode: str) -> None:
        name = client_name(mode, "stdio")
        outcome = run_stdio_session(mode, self.article_id, name)
        self.check_session(outcome, mode)
        log = outcome["log"]
        initializes, discovers = received(log, "initialize"), received(log, "server/discover")
        if mode == "legacy":
            self.assertEqual(len(asked_for(log, name)), 1, log)
            self.assertIn(f"speaking {HANDSHAKE}", asked_for(log, name)[0])
            self.assertEqual((len(initializes), discovers), (1, []), log)
        else:
            self.assertEqual((asked_for(log, name), initializes), ([], []), log)
            self.assertEqual(len(discovers), 1 if mode == "auto" else 0, log)
        self.assertIn("mcp_server: stdin closed: stopping", log[-1], "the server did not stop on EOF")

    def test_auto_mode_probes_discover_and_speaks_the_stateless_revision(self):
        self.check_stdio("auto")

    def test_legacy_mode_speaks_the_initialize_handshake(self):
        self.check_stdio("legacy")

    def test_the_pinned_2026_07_28_mode_sends_neither_discover_nor_initialize(self):
        self.check_stdio(MODERN)

    def test_a_raw_request_for_an_unknown_revision_gets_32022(self):
        process = subprocess.run([sys.executable, SERVER, "--demo"], cwd=ROOT, capture_output=True, timeout=30,
                                 input=(json.dumps(unknown_revision_request(7)) + "\n").encode())
        self.assertEqual(process.returncode, 0, process.stderr)
        answer = json.loads(process.stdout.decode().splitlines()[0])
        self.assertEqual(answer["id"], 7)
        self.assertEqual(answer["error"]["code"], -32022)
        self.assertIn(MODERN, answer["error"]["data"]["supported"])
        self.assertEqual(answer["error"]["data"]["requested"], UNKNOWN_REVISION)


# ---------------------------------------------------------------------------
# Streamable HTTP: one server for the class, one session per mode.


class HttpCase(ModesCase):
    """One HTTP server for the class (server_args() on its command line), stopped with SIGINT at the end."""

    server: HttpServer

    @classmethod
    def server_args(cls) -> List[str]:
        return []

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = HttpServer(*cls.server_args())
        cls.addClassCleanup(cls.stop_server)

    @classmethod
    def stop_server(cls):
        status = cls.server.stop()
        if status != 130:  # Ctrl-C's status, in one process as with --workers
            raise AssertionError(f"the HTTP server exited with status {status} after SIGINT, not 130")


@unittest.skipIf(SDK_MISSING and not REQUIRED, SDK_MISSING)
class HttpModesTest(HttpCase):

    @classmethod
    def server_args(cls) -> List[str]:
        return ["--verbose"]

    def check_http(self, mode: str) -> None:
        name = client_name(mode, "http")
        start = self.server.mark()
        outcome = asyncio.run(http_client(self.server.url, mode, None,
                                          lambda client: exercise(client, self.article_id, f"modes-{mode}-http"),
                                          name))
        self.check_session(outcome, mode)
        log = self.server.log_until_marker(start)
        if mode == "legacy":
            self.assertEqual(len(asked_for(log, name)), 1, log)
            self.assertIn(f"speaking {HANDSHAKE}", asked_for(log, name)[0])
        else:
            self.assertEqual(asked_for(log, name), [], log)
            self.assertEqual([line for line in log if "asked for MCP" in line], [], log)

    def test_auto_mode_probes_discover_and_speaks_the_stateless_revision(self):
        self.check_http("auto")

    def test_legacy_mode_speaks_the_initialize_handshake(self):
        self.check_http("legacy")

    def test_the_pinned_2026_07_28_mode_never_initializes(self):
        self.check_http(MODERN)

    def test_a_raw_request_for_an_unknown_revision_gets_32022_and_400(self):
        status, answer = self.server.post(unknown_revision_request(7))
        self.assertEqual(status, 400)
        self.assertEqual(answer["id"], 7)
        self.assertEqual(answer["error"]["code"], -32022)
        self.assertIn(MODERN, answer["error"]["data"]["supported"])
        self.assertEqual(answer["error"]["data"]["requested"], UNKNOWN_REVISION)


@unittest.skipIf(SDK_MISSING and not REQUIRED, SDK_MISSING)
class HttpTokensTest(HttpCase):
    """--tokens: a write token and a read-only one, in each of the SDK's modes."""

    @classmethod
    def server_args(cls) -> List[str]:
        folder = tempfile.TemporaryDirectory()
        cls.addClassCleanup(folder.cleanup)
        path = os.path.join(folder.name, "tokens.json")
        with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w", encoding="utf-8") as file:
            json.dump({WRITE_TOKEN: {"caller": "alice", "knowledge_bases": "*", "channels": "*",
                                     "scopes": ["osfoundry:write"]},
                       READ_TOKEN: {"caller": "reader", "knowledge_bases": "*", "channels": "*"}}, file)
        return ["--tokens", path]

    async def edit_both(self, client: Any, key: str) -> Dict[str, Any]:
        """A read of an item and of an article, then an edit of each at its current version."""
        item = await client.call_tool("read_record_item", {"record_channel_id": CHANNEL, "item_id": "itm-00002"})
        article = await client.call_tool("read_knowledge_article", {"knowledge_base_id": KB,
                                                                    "article_id": self.article_id})
        edit_item = await client.call_tool("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": "itm-00002", "values": {"owner": "ren"},
            "expected_version": item.structured_content["version"], "idempotency_key": key})
        edit_article = await client.call_tool("edit_knowledge_article", {
            "knowledge_base_id": KB, "article_id": self.article_id, "content": f"Edited with a token ({key}).",
            "expected_version": article.structured_content["updated_at"], "idempotency_key": key})
        return {"read_record_item": item, "read_knowledge_article": article, "edit_record_item": edit_item,
                "edit_knowledge_article": edit_article}

    def test_the_write_token_edits_in_every_mode(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                results = asyncio.run(http_client(self.server.url, mode, WRITE_TOKEN,
                                                  lambda client, key=f"write-{mode}": self.edit_both(client, key)))
                for name, result in results.items():
                    self.assertFalse(result.is_error, (name, result.content))
                    jsonschema.validate(result.structured_content, self.definitions[name]["outputSchema"])

    def test_the_read_only_token_is_forbidden_to_edit_and_still_reads_in_every_mode(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                results = asyncio.run(http_client(self.server.url, mode, READ_TOKEN,
                                                  lambda client, key=f"read-{mode}": self.edit_both(client, key)))
                for name in ("read_record_item", "read_knowledge_article"):
                    self.assertFalse(results[name].is_error, (name, results[name].content))
                    jsonschema.validate(results[name].structured_content, self.definitions[name]["outputSchema"])
                for name in ("edit_record_item", "edit_knowledge_article"):
                    result = results[name]
                    self.assertTrue(result.is_error, (name, result.content))
                    self.assertIsNone(result.structured_content)
                    self.assertEqual(json.loads(result.content[0].text)["error"], "forbidden", name)
                    self.assertIn("osfoundry:write", result.content[0].text)

    def test_without_a_valid_token_the_sdk_cannot_connect(self):
        async def work(client):
            return await client.list_tools()

        for mode in MODES:
            for token in (None, WRONG_TOKEN):
                with self.subTest(mode=mode, token="none" if token is None else "wrong"):
                    try:
                        asyncio.run(http_client(self.server.url, mode, token, work))
                    except Exception as error:  # the SDK wraps the refusal in task-group ExceptionGroups
                        self.assertIn("Unauthorized", " ".join(messages(error)))
                    else:
                        self.fail("the SDK connected and listed the tools without a valid token")

    def test_a_raw_request_for_an_unknown_revision_gets_32022_and_400_with_a_token(self):
        status, answer = self.server.post(unknown_revision_request(), WRITE_TOKEN)
        self.assertEqual((status, answer["error"]["code"]), (400, -32022))
        self.assertEqual(answer["error"]["data"]["requested"], UNKNOWN_REVISION)
        self.assertEqual(self.server.post(unknown_revision_request())[0], 401)


if __name__ == "__main__":
    unittest.main()
