"""The official Python SDK (`mcp` 2.3.0) as a listener, in modern (2026-07-28) and legacy mode, over stdio and
Streamable HTTP: it lists and reads the resources, listens to a knowledge base (subscriptions/listen, or
resources/subscribe in the handshake era), gets a notification for a save made by another process, disconnects,
and reconnects with the last sequence it saw: it gets exactly the saves it missed, then the next live one.

Over stdio each connection starts its own server, so the reconnection is a server restart too; over HTTP the server
runs two --workers processes, one of which is killed between the two listens (and replaced), so the reconnection
follows a worker's restart and may meet either worker. The SDK hands a listener each notification's
URI only; the sequence in its _meta is read from the frames the transport carried (a tap on the client's read
stream), as a client that resumes would read it.

In the handshake era over HTTP the client's session (Mcp-Session-Id) carries its subscriptions, and the
notifications come on the session's GET stream, which may be held by the other worker than the one that took the
subscribe; a client that sends no session is told how to get one.

Like tests/test_mcp_sdk.py, skipped without the SDK; `make conformance` runs it with MCP_SDK_REQUIRED=1.
"""

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from tests.helpers import ROOT
from tests.test_mcp_sdk_modes import SDK_MISSING, HttpServer, require_sdk

try:  # the SDK is optional (make conformance installs it); SDK_MISSING says why it is not here
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared.exceptions import MCPError
except ImportError:
    pass

from osfoundry_tools.content import demo

if TYPE_CHECKING:  # a mixin: only its subclasses, TestCases too, run as tests
    _TestCase = unittest.TestCase
else:
    _TestCase = object
SERVER = os.path.join(ROOT, "mcp_server.py")
KB = demo.KNOWLEDGE_BASE
LOG = f"osfoundry://knowledge_base/{KB}"
REQUIRED = os.environ.get("MCP_SDK_REQUIRED") == "1"
WAIT = 15.0  # seconds at most for a notification that must come
SEQUENCE = "io.osfoundry/sequence"


def save_elsewhere(kb_db: str, article_id: str, text: str) -> None:
    """A person's save from another process on the same database file."""
    script = ("import sys; from osfoundry_tools.stores import kb_store\n"
              "with kb_store.connect(sys.argv[1], granted=None) as store:\n"
              "    store.save_article(sys.argv[2], sys.argv[3], content=sys.argv[4])\n")
    subprocess.run([sys.executable, "-c", script, kb_db, KB, article_id, text], cwd=ROOT, check=True, timeout=30)


@contextlib.asynccontextmanager
async def tapped(transport, frames: List[Dict[str, Any]]):
    """The transport, each message it delivers to the client also kept in `frames` as JSON."""
    async with transport as (read, write):
        send, receive = anyio.create_memory_object_stream[Any](1000)

        async def pump():
            async with send:
                async for item in read:
                    message = getattr(item, "message", None)
                    if message is not None:
                        frames.append(message.model_dump(by_alias=True, mode="json", exclude_none=True))
                    await send.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(pump)
            try:
                yield receive, write
            finally:
                group.cancel_scope.cancel()


def updates(frames: List[Dict[str, Any]]) -> List[int]:
    """The sequences of the resources/updated notifications among `frames`, in order."""
    return [frame["params"]["_meta"][SEQUENCE] for frame in frames
            if frame.get("method") == "notifications/resources/updated" and SEQUENCE in frame["params"]["_meta"]]


async def until(frames: List[Dict[str, Any]], count: int) -> List[int]:
    """Wait until `count` updates have come (at most WAIT seconds), then a moment more for any extra."""
    with anyio.fail_after(WAIT):
        while len(updates(frames)) < count:
            await anyio.sleep(0.02)
    await anyio.sleep(0.5)
    return updates(frames)


def workers_of(parent: int) -> List[int]:
    """The live child processes of `parent`, from Linux's /proc (none elsewhere)."""
    found = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == parent and fields[0] != "Z":
            found.append(int(entry))
    return sorted(found)


class ListenCase(_TestCase):
    """One transport's scenario in both modes; a subclass, a TestCase too, says how to connect."""

    @classmethod
    def setUpClass(cls):
        if not SDK_MISSING:
            return
        if REQUIRED:
            require_sdk()
        raise unittest.SkipTest(SDK_MISSING)

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.kb_db = os.path.join(folder.name, "kb.db")
        self.records_db = os.path.join(folder.name, "records.db")
        self.server_args = ["--demo", "--kb-db", self.kb_db, "--records-db", self.records_db]
        self.saves = 0

    def transport(self):
        raise NotImplementedError

    def save(self, article_id: str) -> None:
        self.saves += 1
        save_elsewhere(self.kb_db, article_id, f"Saved elsewhere, change {self.saves}.")

    async def connect(self, mode: str, frames: List[Dict[str, Any]]):
        return Client(tapped(self.transport(), frames), mode=mode, cache=None)

    async def browse(self, mode: str) -> str:
        """List the first page and the templates, read one article: its URI."""
        async with await self.connect(mode, []) as client:
            listed = await client.list_resources()
            self.assertEqual(len(listed.resources), 100)
            self.assertIsNotNone(listed.next_cursor)
            second = await client.session.list_resources(params={"cursor": listed.next_cursor})
            self.assertFalse({str(r.uri) for r in listed.resources} & {str(r.uri) for r in second.resources})
            templates = await client.list_resource_templates()
            self.assertEqual(len(templates.resource_templates), 2)
            uri = str(listed.resources[0].uri)
            read = await client.read_resource(uri)
            answer = json.loads(read.contents[0].text)
            self.assertEqual(read.contents[0].meta["io.osfoundry/version"], answer["updated_at"])
            with self.assertRaises(MCPError) as missing:
                await client.read_resource(uri + "-missing")
            self.assertEqual(missing.exception.error.code, -32002)
            return uri

    async def listen_modern(self, frames, uri: str, saves, count: int) -> List[int]:
        async with await self.connect("2026-07-28", frames) as client:
            async with client.listen(resource_subscriptions=[uri], resources_list_changed=True,
                                     tools_list_changed=True) as subscription:
                self.assertEqual(subscription.honored.resource_subscriptions, [uri])
                self.assertTrue(subscription.honored.resources_list_changed)
                self.assertIsNone(subscription.honored.tools_list_changed)  # the tools never change: not honoured
                for article in saves:
                    self.save(article)
                seen = await until(frames, count)
                with anyio.fail_after(WAIT):
                    event = await subscription.__anext__()
                self.assertTrue(str(event.uri).startswith(LOG + "/articles/"))
                return seen

    async def listen_legacy(self, frames, uri: str, saves, count: int) -> List[int]:
        async with await self.connect("legacy", frames) as client:
            await client.session.subscribe_resource(uri)
            for article in saves:
                self.save(article)
            return await until(frames, count)

    def scenario(self, mode: str) -> None:
        listen = self.listen_modern if mode != "legacy" else self.listen_legacy
        asyncio.run(self.browse(mode))
        first: List[Dict[str, Any]] = []
        (seen,) = asyncio.run(listen(first, LOG, ["art-00001"], 1))
        self.save("art-00002")  # while nobody listens
        self.restart()
        self.save("art-00003")
        again: List[Dict[str, Any]] = []
        resumed = asyncio.run(listen(again, f"{LOG}?after_sequence={seen}", ["art-00004"], 3))
        self.assertEqual(resumed, [seen + 1, seen + 2, seen + 3])

    def restart(self) -> None:
        """Between the two listens: over stdio each connection starts a server of its own anyway."""

    def test_modern(self):
        self.scenario("2026-07-28")


class StdioListenTest(ListenCase, unittest.TestCase):
    def transport(self):
        return stdio_client(StdioServerParameters(command=sys.executable, args=[SERVER, *self.server_args],
                                                  cwd=ROOT))

    def test_legacy(self):
        self.scenario("legacy")


class HttpListenTest(ListenCase, unittest.TestCase):
    server: Optional[HttpServer] = None

    def setUp(self):
        super().setUp()
        self.server = HttpServer(*self.server_args[1:], "--workers", "2")
        self.addCleanup(self.server.stop)

    def transport(self):
        return streamable_http_client(self.server.url)

    def restart(self) -> None:
        """Kill one of the two workers and wait for the one that replaces it (Linux's /proc names them; elsewhere
        the workers are left as they are)."""
        assert self.server is not None
        before = workers_of(self.server.process.pid)
        if len(before) != 2:
            return
        os.kill(before[0], signal.SIGKILL)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            now = workers_of(self.server.process.pid)
            if len(now) == 2 and before[0] not in now:
                time.sleep(0.5)  # the new worker opens its databases and starts serving
                return
            time.sleep(0.05)
        self.fail(f"no worker replaced the one killed: {workers_of(self.server.process.pid)}")

    def test_legacy(self):
        self.scenario("legacy")

    def test_legacy_with_a_session_the_server_never_issued_is_refused(self):
        async def run():
            async with await self.connect("legacy", []) as client:
                await client.list_resources()

        asyncio.run(run())
        request = urllib.request.Request(self.server.url, method="POST", data=json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "resources/subscribe", "params": {"uri": LOG}}).encode(),
            headers={"Content-Type": "application/json", "Mcp-Session-Id": "forged"})
        with self.assertRaises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=WAIT)
        self.assertEqual(refused.exception.code, 404)

if __name__ == "__main__":
    unittest.main()
