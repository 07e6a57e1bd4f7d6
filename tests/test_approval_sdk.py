"""A person approves every agent write, through the official Python SDK (`mcp` 2.3.0): its client in the
2026-07-28, legacy and auto modes, over stdio and Streamable HTTP, with an elicitation_callback playing the person.

Per mode and transport, one session meets an approval, a decline (its key then used again), a dismissal and an
answer that comes after the bound. Then, in the stateless era, a forged, an altered, an expired and a replayed
requestState, each refused with nothing written; and an approval that waits while a person saves the same article
ends as version_conflict, with one chain of versions. The handshake era over HTTP is refused (the server keeps no
session to ask back on), as the README says.

Skipped without the SDK, like tests/test_mcp_sdk.py; `make conformance` runs it with MCP_SDK_REQUIRED=1.
"""

import asyncio
import os
import sqlite3
import sys
import tempfile
import unittest
from typing import Any, Dict, List

from tests.helpers import ROOT
from tests.test_mcp_sdk_modes import MODES, MODERN, SDK_MISSING, HttpServer, require_sdk
from osfoundry_tools.stores import kb_store
from osfoundry_tools.content import demo

try:
    import httpx2
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import ElicitResult, Implementation
except ImportError:  # the SDK is optional: SDK_MISSING says why, and make conformance installs it
    pass

SERVER = os.path.join(ROOT, "mcp_server.py")
KB = demo.KNOWLEDGE_BASE
BOUND = 2.0  # --approval-timeout of the servers here: a "late" person answers after it
ARTICLE = "art-00003"


class Person:
    """The elicitation_callback: answers each request as the next scripted behaviour says, and keeps what it read."""

    def __init__(self) -> None:
        self.script: List[str] = []
        self.read: List[str] = []
        self.meanwhile = None  # called while the person is asked, before they answer (a colleague's save)

    async def __call__(self, context: Any, params: Any) -> Any:
        self.read.append(params.message)
        behaviour = self.script.pop(0)
        if self.meanwhile is not None:
            self.meanwhile()
        if behaviour == "late":
            await asyncio.sleep(BOUND + 0.8)
            return ElicitResult(action="accept", content={"decision": "approve"})
        if behaviour == "cancel":
            return ElicitResult(action="cancel")
        return ElicitResult(action="accept", content={"decision": behaviour, "reason": f"{behaviour} by test"})


def edit_arguments(version: str, key: str) -> Dict[str, Any]:
    return {"knowledge_base_id": KB, "article_id": ARTICLE, "expected_version": version, "idempotency_key": key,
            "content": f"Rewritten with a person's approval ({key})."}


def text(result: Any) -> str:
    return result.content[0].text


async def version_of(client: Any) -> str:
    read = await client.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": ARTICLE})
    return read.structured_content["updated_at"]


async def session(client: Any, person: Person, tag: str) -> Dict[str, Any]:
    """Decline, then the same key approved; a dismissal; a late answer. What each call answered."""
    found: Dict[str, Any] = {}
    version = found["first version"] = await version_of(client)
    person.script = ["decline", "approve"]
    found["declined"] = await client.call_tool("edit_knowledge_article", edit_arguments(version, tag))
    found["unchanged"] = await version_of(client)
    found["approved"] = await client.call_tool("edit_knowledge_article", edit_arguments(version, tag))
    version = await version_of(client)
    person.script = ["cancel"]
    found["cancelled"] = await client.call_tool("edit_knowledge_article", edit_arguments(version, tag + "-2"))
    person.script = ["late"]
    found["late"] = await client.call_tool("edit_knowledge_article", edit_arguments(version, tag + "-3"))
    found["after late"] = await version_of(client)
    found["version before"] = version
    return found


def run_http(url: str, mode: str, work) -> Any:
    """`await work(client, person)` in an SDK client over Streamable HTTP at `url`, its person the callback."""
    async def run():
        person = Person()
        async with httpx2.AsyncClient() as transport:
            async with Client(streamable_http_client(url, http_client=transport), mode=mode,
                              elicitation_callback=person,
                              client_info=Implementation(name=f"approval-{mode}", version="1")) as client:
                return await work(client, person)
    return asyncio.run(run())


@unittest.skipIf(SDK_MISSING and os.environ.get("MCP_SDK_REQUIRED") != "1", SDK_MISSING or "")
class ApprovalThroughTheSdkTest(unittest.TestCase):
    http: "HttpServer"

    @classmethod
    def setUpClass(cls):
        require_sdk()
        cls.http = HttpServer("--approve-writes", "--approval-timeout", str(BOUND))
        cls.addClassCleanup(cls.http.stop)

    def run_stdio(self, mode: str, work) -> Any:
        async def run(errlog):
            parameters = StdioServerParameters(command=sys.executable, args=[
                SERVER, "--demo", "--approve-writes", "--approval-timeout", str(BOUND)], cwd=ROOT)
            person = Person()
            async with Client(stdio_client(parameters, errlog=errlog), mode=mode, elicitation_callback=person,
                              client_info=Implementation(name=f"approval-{mode}", version="1")) as client:
                return await work(client, person)
        with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
            return asyncio.run(run(errlog))

    def run_http(self, mode: str, work) -> Any:
        return run_http(self.http.url, mode, work)

    def check_session(self, found: Dict[str, Any], stateless: bool) -> None:
        declined = found["declined"]
        self.assertTrue(declined.is_error)
        self.assertIn('"error": "declined"', text(declined))
        self.assertIn("decline by test", text(declined))
        self.assertEqual(found["unchanged"], found["first version"])  # the decline saved nothing
        self.assertFalse(found["approved"].is_error, text(found["approved"]))
        self.assertEqual(found["approved"].structured_content["replay"], False)  # the declined key was still free
        self.assertIn('"answer": "cancelled"', text(found["cancelled"]))
        late = text(found["late"])
        self.assertIn("expired" if stateless else '"answer": "unanswered"', late)
        self.assertEqual(found["after late"], found["version before"])  # the late approval saved nothing

    def test_every_mode_over_stdio(self):
        for mode in MODES:
            with self.subTest(mode=mode):
                found = self.run_stdio(mode, lambda client, person, tag=f"stdio-{mode}": session(client, person, tag))
                self.check_session(found, stateless=mode != "legacy")

    def test_the_stateless_modes_over_http_and_the_handshake_refused(self):
        for mode in (MODERN, "auto"):
            with self.subTest(mode=mode):
                found = self.run_http(mode, lambda client, person, tag=f"http-{mode}": session(client, person, tag))
                self.check_session(found, stateless=True)

        async def legacy(client, person):
            return await client.call_tool("edit_knowledge_article", edit_arguments(await version_of(client), "h"))
        refused = self.run_http("legacy", legacy)
        self.assertIn('"error": "approval_unavailable"', text(refused))
        self.assertIn("2026-07-28", text(refused))

    def test_forged_altered_and_expired_states_are_refused_and_a_replayed_round_gets_its_result(self):
        async def work(client, person):
            version = await version_of(client)
            arguments = edit_arguments(version, "states")
            session_ = client.session
            first = await session_.call_tool("edit_knowledge_article", arguments, allow_input_required=True)
            state = first.request_state
            approved = {"approval": ElicitResult(action="accept", content={"decision": "approve"})}
            prefix, body, mac = state.split(".")
            outcomes = {}
            for case, forged in (("forged", "osf1.e30.AAAA"), ("altered", f"{prefix}.{body[:-1]}A.{mac}")):
                outcomes[case] = await session_.call_tool("edit_knowledge_article", arguments, request_state=forged,
                                                          input_responses=approved)
            outcomes["unchanged"] = await version_of(client)
            saved = await session_.call_tool("edit_knowledge_article", arguments, request_state=state,
                                             input_responses=approved)
            outcomes["saved"] = saved
            outcomes["replayed"] = await session_.call_tool("edit_knowledge_article", arguments, request_state=state,
                                                            input_responses=approved)
            later = edit_arguments(await version_of(client), "expired")
            waited = await session_.call_tool("edit_knowledge_article", later, allow_input_required=True)
            await asyncio.sleep(BOUND + 0.5)
            outcomes["expired"] = await session_.call_tool("edit_knowledge_article", later,
                                                           request_state=waited.request_state,
                                                           input_responses=approved)
            outcomes["version"] = version
            return outcomes

        outcomes = self.run_http(MODERN, work)
        for case in ("forged", "altered", "expired"):
            self.assertIn('"error": "invalid_request_state"', text(outcomes[case]), case)
        self.assertEqual(outcomes["unchanged"], outcomes["version"])
        self.assertFalse(outcomes["saved"].is_error, text(outcomes["saved"]))
        self.assertFalse(outcomes["replayed"].is_error, text(outcomes["replayed"]))  # the same round, sent again
        self.assertIn('"replay": true', text(outcomes["replayed"]))
        self.assertIn("expired", text(outcomes["expired"]))


@unittest.skipIf(SDK_MISSING and os.environ.get("MCP_SDK_REQUIRED") != "1", SDK_MISSING or "")
class ApprovalRacingASaveTest(unittest.TestCase):
    """While the person is asked, a colleague saves the same article in the shared database file: the approved edit
    ends as version_conflict, and the article has one chain of versions, the colleague's last."""

    def test_an_approval_that_meets_a_newer_save_is_a_conflict(self):
        require_sdk()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = os.path.join(folder.name, "kb.db")
        server = HttpServer("--approve-writes", "--kb-db", path)
        self.addCleanup(server.stop)
        colleague = kb_store.connect(path)
        self.addCleanup(colleague.close)

        async def work(client, person):
            person.script = ["approve"]
            person.meanwhile = lambda: colleague.save_article(KB, ARTICLE, content="A colleague saved first.")
            answer = await client.call_tool("edit_knowledge_article", edit_arguments(await version_of(client), "race"))
            return answer, await version_of(client)

        answer, version = run_http(server.url, MODERN, work)
        self.assertIn('"error": "version_conflict"', text(answer))
        self.assertIn("A person approved this change, but the article", text(answer))
        with sqlite3.connect(path) as connection:
            versions = [row[0] for row in connection.execute(
                "SELECT version FROM events WHERE resource_id = ? AND subject_id = ? ORDER BY sequence",
                (KB, ARTICLE))]
            content = connection.execute("SELECT content FROM articles WHERE id = ?", (ARTICLE,)).fetchone()[0]
        self.assertEqual(versions[-1], version)
        self.assertEqual(len(set(versions)), len(versions))
        self.assertEqual(content, "A colleague saved first.")


@unittest.skipIf(SDK_MISSING and os.environ.get("MCP_SDK_REQUIRED") != "1", SDK_MISSING or "")
class ApprovingADeepChangeTest(unittest.TestCase):
    """The person approves a change made deep inside a line of 10,000 characters and sees it: the changed words
    in their context in the question the SDK's elicitation_callback receives, over HTTP (2026-07-28) and over
    stdio (the handshake era's elicitation/create), and then exactly that change saved."""

    def setUp(self):
        require_sdk()
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = os.path.join(folder.name, "kb.db")
        sentences = ["Your reset link works once and expires after 60 minutes.", "Ask an administrator for help.",
                     "Sign-in codes arrive by text message.", "Workspaces keep their records."]
        self.line = " ".join(sentences[n % 3 + (n % 7 == 0)] for n in range(260))
        self.at = self.line.index("60 minutes", 7_000)
        server = HttpServer("--approve-writes", "--kb-db", self.path)  # writes the demo, then the long line
        self.addCleanup(server.stop)
        with kb_store.connect(self.path) as kb:
            kb.save_article(KB, ARTICLE, content="Intro.\n" + self.line + "\nThe end.")
        self.server = server

    def changed(self) -> str:
        return "Intro.\n" + self.line[:self.at] + "6 days" + self.line[self.at + len("60 minutes"):] + "\nThe end."

    async def work(self, client, person):
        person.script = ["approve"]
        arguments = dict(edit_arguments(await version_of(client), "deep"), content=self.changed())
        answer = await client.call_tool("edit_knowledge_article", arguments)
        read = await client.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": ARTICLE})
        return answer, read.structured_content["content"], person.read

    def check(self, answer, content, read):
        self.assertFalse(answer.is_error, text(answer))
        self.assertEqual(content, self.changed())
        self.assertEqual(len(read), 1)
        question = read[0]
        self.assertIn("«60 minutes»", question)
        self.assertIn("«6 days»", question)
        context = self.line[self.at - 20:self.at]
        self.assertIn(context + "«6 days»", question)
        self.assertRegex(question, r"unchanged characters")
        self.assertLess(len(question), 2_000)

    def test_over_http_in_the_stateless_era(self):
        self.check(*run_http(self.server.url, MODERN, self.work))

    def test_over_stdio_in_the_handshake_era(self):
        self.server.stop()

        async def run(errlog):
            parameters = StdioServerParameters(command=sys.executable, args=[
                SERVER, "--approve-writes", "--kb-db", self.path], cwd=ROOT)
            person = Person()
            async with Client(stdio_client(parameters, errlog=errlog), mode="legacy", elicitation_callback=person,
                              client_info=Implementation(name="approval-deep", version="1")) as client:
                return await self.work(client, person)
        with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
            self.check(*asyncio.run(run(errlog)))


if __name__ == "__main__":
    unittest.main()
