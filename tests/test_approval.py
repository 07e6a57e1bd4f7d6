"""A person approves every agent write (--approve-writes, approval.py), tested on the protocol without the SDK.

The stateless era asks through the call's own answer (input_required, then a retry carrying the person's answer
and a sealed requestState); the handshake era over stdio asks with an elicitation/create request in the middle of
the call; over HTTP in the handshake era it cannot ask and refuses. Every refusal writes nothing and leaves the
idempotency key free: each test that refuses compares every row of both stores before and after.
"""

import contextlib
import http.client
import io
import json
import os
import shutil
import tempfile
import threading
import unittest
from typing import Any, Dict

from osfoundry_tools.content import demo
from osfoundry_tools.server import (
    approval, methods, routing, shown_change, stdio, streamable_http, tokens, workspace,
)
from osfoundry_tools.stores import kb_store
from osfoundry_tools.server.options import parse_options
from tests.helpers import KB, ManualClock, snapshot, support_store
from tests.record_helpers import BUGS, bug_store, read
from tests.test_mcp_sdk_modes import HttpServer

ELICITING: Dict[str, Any] = {"elicitation": {}}
CLIENT = {"name": "test-client", "version": "1"}
VERSION_KEY, CAPABILITIES_KEY = "io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities"
KEY = b"a shared sealing key of 32 bytes"
KINDS = tokens.grant_keys(workspace.SERVED)
HELD = tokens.Grant.of("held-bot", {"knowledge_base": None, "record": None}, {tokens.WRITE_SCOPE}, approve_writes=True)
FREE = tokens.Grant.of("free-bot", {"knowledge_base": None, "record": None}, frozenset({tokens.WRITE_SCOPE}))


class Clock:
    """Seconds that stand still until a test moves them: the seal's expiry clock."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def meta(capabilities=ELICITING):
    return {VERSION_KEY: "2026-07-28", CAPABILITIES_KEY: capabilities, "io.modelcontextprotocol/clientInfo": CLIENT}


def call(name, arguments, request_id=1, **extra):
    params = dict({"name": name, "arguments": arguments}, **extra)
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def answered(result):
    return json.loads(result["content"][0]["text"])


def approve(reason=None):
    return {approval.INPUT_KEY: {"action": "accept", "content": dict({"decision": "approve"},
                                                                     **({"reason": reason} if reason else {}))}}


def decline(reason=None):
    return {approval.INPUT_KEY: {"action": "accept", "content": dict({"decision": "decline"},
                                                                     **({"reason": reason} if reason else {}))}}


class Workspace:
    """Both test stores behind one Server with approvals on (every caller, unless `every_caller` is False)."""

    def __init__(self, every_caller=True, key=KEY, bound=60.0, stores=None):
        if stores is None:
            self.kb, self.kb_clock, self.articles = support_store()
            self.records, self.records_clock, self.items = bug_store()
        else:
            (self.kb, self.kb_clock, self.articles), (self.records, self.records_clock, self.items) = stores
        self.clock = Clock()
        tools = routing.Tools(routing.by_resource_type([self.kb, self.records]), threading.Lock())
        self.approvals = approval.Approvals(approval.Seal(key, clock=self.clock), every_caller, bound)
        self.server = methods.Server(tools, approvals=self.approvals)

    def close(self):
        self.kb.close()
        self.records.close()

    def rows(self):
        return snapshot(self.kb), snapshot(self.records)

    def article_edit(self, key="edit-1", **changes):
        article = self.kb.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.articles[0]})
        return dict({"knowledge_base_id": KB, "article_id": self.articles[0], "idempotency_key": key,
                     "expected_version": article["updated_at"],
                     "content": article["content"] + "\nAdded by the agent."},
                    **changes)

    def item_edit(self, key="item-1"):
        return {"record_channel_id": BUGS, "item_id": self.items[0], "expected_version": read(self.records,
                self.items[0])["version"], "values": {"status": "in_progress"}, "idempotency_key": key}

    def stateless(self, name, arguments, grant=None, capabilities=ELICITING, **extra):
        params = dict({"name": name, "arguments": arguments, "_meta": meta(capabilities)}, **extra)
        message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
        return self.server.handle(message, grant)["result"]


class StatelessEraTest(unittest.TestCase):
    """MCP 2026-07-28: the question in the first answer, the person's answer in the retry."""

    def setUp(self):
        self.space = Workspace()
        self.addCleanup(self.space.close)

    def ask(self, arguments, name="edit_knowledge_article", **options):
        first = self.space.stateless(name, arguments, **options)
        self.assertEqual(first["resultType"], "input_required", first)
        return first

    def test_the_first_round_asks_the_person_and_writes_nothing(self):
        before = self.space.rows()
        first = self.ask(self.space.article_edit(title="Reset it"))
        self.assertEqual(self.space.rows(), before)
        request = first["inputRequests"][approval.INPUT_KEY]
        self.assertEqual(request["method"], "elicitation/create")
        self.assertEqual(request["params"]["mode"], "form")
        self.assertEqual(request["params"]["requestedSchema"]["properties"]["decision"]["enum"], ["approve", "decline"])
        message = request["params"]["message"]
        self.assertIn('Agent "agent" asks', message)
        self.assertIn("Title: Reset «a password» -> Reset «it»", message)
        self.assertIn("«↵Added by the agent.»", message)
        self.assertIn("this one change", message)

    def test_an_approval_saves_exactly_that_change_once(self):
        arguments = self.space.article_edit()
        first = self.ask(arguments)
        saved = self.space.stateless("edit_knowledge_article", arguments, requestState=first["requestState"],
                                     inputResponses=approve())
        self.assertEqual(saved["resultType"], "complete")
        self.assertFalse(saved["isError"], saved)
        article = self.space.kb.call_tool("read_knowledge_article", {"knowledge_base_id": KB,
                                                                     "article_id": self.space.articles[0]})
        self.assertTrue(article["content"].endswith("Added by the agent."))
        self.assertEqual(self.space.approvals.tally.counts["approved and saved"], 1)

    def test_a_decline_writes_nothing_says_why_and_leaves_the_key_for_a_new_request(self):
        arguments = self.space.article_edit()
        before = self.space.rows()
        first = self.ask(arguments)
        refused = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=first["requestState"],
                                                inputResponses=decline("wrong article")))
        self.assertEqual((refused["error"], refused["answer"], refused["reason"]), ("declined", "declined",
                                                                                   "wrong article"))
        self.assertIn("the person using test-client declined", refused["message"])
        self.assertEqual(self.space.rows(), before)
        again = self.ask(arguments)  # the same key: asked afresh, then saved
        saved = self.space.stateless("edit_knowledge_article", arguments, requestState=again["requestState"],
                                     inputResponses=approve())
        self.assertIs(answered(saved)["replay"], False)

    def test_a_dismissal_or_a_retry_without_an_answer_is_declined_and_writes_nothing(self):
        arguments = self.space.article_edit()
        first = self.ask(arguments)
        before = self.space.rows()
        for responses, outcome in (({approval.INPUT_KEY: {"action": "cancel"}}, "cancelled"), (None, "unanswered"),
                                   ({approval.INPUT_KEY: {"action": "accept", "content": {}}}, "declined"),
                                   ({"other": {"action": "accept"}}, "unanswered")):
            refused = answered(self.space.stateless("edit_knowledge_article", arguments,
                                                    requestState=first["requestState"], inputResponses=responses))
            self.assertEqual((refused["error"], refused["answer"]), ("declined", outcome))
        self.assertEqual(self.space.rows(), before)

    def test_a_forged_altered_expired_or_borrowed_state_is_refused_and_writes_nothing(self):
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        prefix, body, mac = state.split(".")
        altered_body = body[:-2] + ("AA" if body[-2:] != "AA" else "BB")
        cases = {
            "forged": "osf1.e30.AAAA",
            "not ours": "hello",
            "altered": f"{prefix}.{altered_body}.{mac}",
            "other key": approval.Seal(b"another key of at least 16 bytes").issue("agent", "edit_knowledge_article",
                                                                                 arguments, 60),
        }
        before = self.space.rows()
        for case, forged in cases.items():
            refused = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=forged,
                                                    inputResponses=approve()))
            self.assertEqual(refused["error"], "invalid_request_state", case)
        other_arguments = dict(arguments, content="Something else entirely.")
        refused = answered(self.space.stateless("edit_knowledge_article", other_arguments, requestState=state,
                                                inputResponses=approve()))
        self.assertIn("another call", refused["message"])
        refused = answered(self.space.stateless("edit_knowledge_article", arguments, grant=HELD, requestState=state,
                                                inputResponses=approve()))
        self.assertIn("another call", refused["message"])  # another caller's state
        self.space.clock.now += 61
        refused = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=state,
                                                inputResponses=approve()))
        self.assertIn("expired", refused["message"])
        self.assertEqual(self.space.rows(), before)

    def test_the_same_approved_round_sent_again_gets_the_stored_result_and_writes_nothing(self):
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        saved = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=state,
                                              inputResponses=approve()))
        before = self.space.rows()
        again = self.space.stateless("edit_knowledge_article", arguments, requestState=state, inputResponses=approve())
        self.assertFalse(again["isError"], again)
        self.assertEqual(answered(again), dict(saved, replay=True))
        self.assertEqual(self.space.rows(), before)
        self.assertEqual(self.space.approvals.tally.counts["approved and saved"], 1)
        for responses in (decline(), None):  # a retry that lost the approval: still saved, not "nothing was saved"
            self.assertEqual(answered(self.space.stateless("edit_knowledge_article", arguments, requestState=state,
                                                           inputResponses=responses)), dict(saved, replay=True))
        other = dict(arguments, idempotency_key="edit-2")  # the state is of that call only
        refused = answered(self.space.stateless("edit_knowledge_article", other, requestState=state,
                                                inputResponses=approve()))
        self.assertEqual(refused["error"], "invalid_request_state")
        self.assertIn("another call", refused["message"])
        self.assertEqual(self.space.rows(), before)

    def test_a_refused_state_says_what_the_call_without_it_will_do(self):
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        self.space.stateless("edit_knowledge_article", arguments, requestState=state, inputResponses=approve())
        self.space.clock.now += 61
        refused = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=state,
                                                inputResponses=approve()))
        self.assertIn("expired", refused["message"])
        self.assertIn("this call saved nothing", refused["message"])
        self.assertIn("you get that result back (replay: true)", refused["message"])
        told = self.space.stateless("edit_knowledge_article", arguments)  # as the message tells: nobody asked
        self.assertIs(answered(told)["replay"], True)

    def test_servers_sharing_a_key_accept_each_others_states(self):
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        other = Workspace(stores=((self.space.kb, self.space.kb_clock, self.space.articles),
                                  (self.space.records, self.space.records_clock, self.space.items)))
        saved = other.stateless("edit_knowledge_article", arguments, requestState=state, inputResponses=approve())
        self.assertFalse(saved["isError"], saved)

    def test_a_version_already_stale_is_answered_at_once_without_asking(self):
        arguments = self.space.article_edit()
        self.space.kb.save_article(KB, self.space.articles[0], content="A person's newer text.")
        answer = self.space.stateless("edit_knowledge_article", arguments)
        self.assertEqual(answer["resultType"], "complete")
        self.assertEqual(answered(answer)["error"], "version_conflict")
        self.assertEqual(self.space.approvals.tally.counts["version_conflict before asking"], 1)
        self.assertEqual(self.space.approvals.tally.counts["asked"], 0)

    def test_an_approval_that_meets_a_newer_save_is_a_conflict_saying_so_and_one_chain_of_versions(self):
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        self.space.kb_clock.advance()
        person = self.space.kb.save_article(KB, self.space.articles[0], content="The person saved first.")
        refused = answered(self.space.stateless("edit_knowledge_article", arguments, requestState=state,
                                                inputResponses=approve()))
        self.assertEqual((refused["error"], refused["approved"]), ("version_conflict", True))
        self.assertIn("A person approved this change, but the article", refused["message"])
        article = self.space.kb.call_tool("read_knowledge_article", {"knowledge_base_id": KB,
                                                                     "article_id": self.space.articles[0]})
        self.assertEqual((article["content"], article["updated_at"]), ("The person saved first.",
                                                                      person["updated_at"]))
        events = self.space.kb.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                                  "resource_id": KB})["events"]
        mine = [event for event in events if event["article_id"] == self.space.articles[0]]
        self.assertEqual([event["updated_at"] for event in mine][-1], person["updated_at"])
        self.assertEqual(len({event["updated_at"] for event in mine}), len(mine))
        self.assertEqual(self.space.approvals.tally.counts["approved, then changed meanwhile"], 1)

    def test_an_item_is_shown_by_its_labels(self):
        first = self.ask(self.space.item_edit(), name="edit_record_item")
        message = first["inputRequests"][approval.INPUT_KEY]["params"]["message"]
        self.assertIn("Status: «New» -> «In progress»", message)
        self.assertIn('"Bug number 1"', message)

    def test_a_client_that_cannot_ask_its_user_is_refused_and_nothing_is_written(self):
        before = self.space.rows()
        for capabilities in ({}, {"elicitation": {"url": {}}}, {"sampling": {}}):
            refused = answered(self.space.stateless("edit_knowledge_article", self.space.article_edit(),
                                                    capabilities=capabilities))
            self.assertEqual(refused["error"], "approval_unavailable", capabilities)
            self.assertIn("elicitation", refused["message"])
        self.assertEqual(self.space.rows(), before)

    def test_reads_and_replays_are_never_held(self):
        read_answer = self.space.stateless("read_record_item", {"record_channel_id": BUGS,
                                                                "item_id": self.space.items[0]})
        self.assertEqual(read_answer["resultType"], "complete")
        arguments = self.space.article_edit()
        state = self.ask(arguments)["requestState"]
        self.space.stateless("edit_knowledge_article", arguments, requestState=state, inputResponses=approve())
        replay = self.space.stateless("edit_knowledge_article", arguments)  # the same call again: writes nothing
        self.assertIs(answered(replay)["replay"], True)


MALFORMED_STATES = {  # what a client may send in place of a requestState, none of which this server sealed
    "non-ASCII": "osf2.é.AAAA", "non-ASCII signature": "osf2.e30." + "é" * 43, "emoji": "\U0001f600",
    "a lone surrogate": "osf2.\ud800.x", "oversized": "osf2." + "A" * 5000 + "." + "A" * 43,
    "empty": "", "two parts": "osf2.e30", "four parts": "osf2.e30.AAAA.AAAA", "old format": "osf1.e30.AAAA",
    "an integer": 7, "null": None, "a list": ["osf2"], "an object": {"state": "osf2"}, "true": True,
    "padding": "osf2.e30=." + "A" * 43,
}


class MalformedStateTest(unittest.TestCase):
    """Any requestState a client sends is judged without an exception: a plain refusal naming requestState, never
    -32603, nothing written, the key still free, in the stateless era over HTTP and over stdio."""

    def setUp(self):
        self.space = Workspace()
        self.addCleanup(self.space.close)

    def test_the_seal_refuses_each_in_words(self):
        seal = approval.Seal(KEY)
        for case, state in MALFORMED_STATES.items():
            with self.subTest(case=case):
                reason = seal.refusal(state, "agent", "edit_knowledge_article", {}, "store")
                self.assertIsInstance(reason, str)

    def test_a_state_signed_under_the_key_but_holding_no_claims_is_refused(self):
        seal = approval.Seal(KEY)
        for body in (b"[]", b"7", b"\xff\xfe", b"{"):
            encoded = approval._encode(body)
            state = f"{approval.STATE_PREFIX}.{encoded}.{seal._mac(encoded)}"
            self.assertEqual(seal.refusal(state, "agent", "t", {}, ""), "it is not a requestState this server issued")

    def test_each_is_refused_through_the_server_and_nothing_is_written(self):
        arguments = self.space.article_edit()
        before = self.space.rows()
        for case, state in MALFORMED_STATES.items():
            with self.subTest(case=case):
                answer = self.space.server.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                    "name": "edit_knowledge_article", "arguments": arguments, "_meta": meta(),
                    "requestState": state, "inputResponses": approve()}})
                self.assertNotIn("error", answer)
                refused = answered(answer["result"])
                self.assertEqual(refused["error"], "invalid_request_state")
                self.assertIn("requestState", refused["message"])
        self.assertEqual(self.space.rows(), before)
        state = self.space.stateless("edit_knowledge_article", arguments)["requestState"]  # the key is still free
        saved = self.space.stateless("edit_knowledge_article", arguments, requestState=state, inputResponses=approve())
        self.assertIs(answered(saved)["replay"], False)

    def test_each_is_refused_over_stdio_and_over_http_with_a_result_not_an_error(self):
        arguments = self.space.article_edit()
        stdio_client = StdioClient(self.space.server)
        self.addCleanup(stdio_client.close)
        http_server = streamable_http.make_server(self.space.server.handle, streamable_http.HttpOptions(
            "127.0.0.1", 0, None, frozenset()))
        thread = threading.Thread(target=http_server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.addCleanup(http_server.server_close)
        self.addCleanup(http_server.shutdown)
        before = self.space.rows()
        for case, state in MALFORMED_STATES.items():
            message = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
                "name": "edit_knowledge_article", "arguments": arguments, "_meta": meta(), "requestState": state,
                "inputResponses": approve()}}
            stdio_client.send(message)
            over_stdio = stdio_client.receive()
            connection = http.client.HTTPConnection("127.0.0.1", http_server.server_address[1], timeout=10)
            self.addCleanup(connection.close)
            connection.request("POST", "/mcp", json.dumps(message), {
                "Content-Type": "application/json", "Accept": "application/json", "MCP-Protocol-Version": "2026-07-28",
                "Mcp-Method": "tools/call", "Mcp-Name": "edit_knowledge_article"})
            response = connection.getresponse()
            over_http = json.loads(response.read())
            for transport, answer in (("stdio", over_stdio), ("http", over_http)):
                with self.subTest(case=case, transport=transport):
                    self.assertNotIn("error", answer, answer)
                    self.assertEqual(answered(answer["result"])["error"], "invalid_request_state")
            self.assertEqual(response.status, 200)
        self.assertEqual(self.space.rows(), before)


class StoreBoundStateTest(unittest.TestCase):
    """A state means one call on one store: a copy of the store's file refuses it, the same file reopened (a
    restart, another process) takes it."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.path = os.path.join(self.folder, "kb.db")
        kb, _, self.articles = support_store(self.path)
        kb.close()

    def space_on(self, path):
        kb, clock, _ = support_store_on(path)
        records, records_clock, items = bug_store()
        space = Workspace(stores=((kb, clock, self.articles), (records, records_clock, items)))
        self.addCleanup(space.close)
        return space

    def test_the_identity_is_the_file_s_not_its_path(self):
        copy = os.path.join(self.folder, "copy.db")
        shutil.copyfile(self.path, copy)
        link = os.path.join(self.folder, "link.db")
        os.link(self.path, link)
        identities = {}
        for name, path in (("file", self.path), ("again", self.path), ("hard link", link), ("copy", copy)):
            with kb_store.connect(path) as store:
                identities[name] = store.database.identity
                reader = store.database.reader()
                self.assertEqual(reader.identity, store.database.identity)
                reader.close()
        self.assertEqual(identities["file"], identities["again"])
        self.assertEqual(identities["file"], identities["hard link"])
        self.assertNotEqual(identities["file"], identities["copy"])
        with kb_store.connect(":memory:") as one, kb_store.connect(":memory:") as two:
            self.assertNotEqual(one.database.identity, two.database.identity)

    def test_a_copy_of_the_files_refuses_the_state_and_the_same_file_reopened_takes_it(self):
        one = self.space_on(self.path)
        arguments = one.article_edit()
        state = one.stateless("edit_knowledge_article", arguments)["requestState"]
        copy = os.path.join(self.folder, "copy.db")
        with kb_store.connect(copy) as copied:
            one.kb.database.copy_to(copied.database)
        other = self.space_on(copy)
        refused = answered(other.stateless("edit_knowledge_article", arguments, requestState=state,
                                           inputResponses=approve()))
        self.assertEqual(refused["error"], "invalid_request_state")
        self.assertIn("another store", refused["message"])
        restarted = self.space_on(self.path)
        saved = restarted.stateless("edit_knowledge_article", arguments, requestState=state,
                                    inputResponses=approve())
        self.assertIs(answered(saved)["replay"], False)
        article = other.kb.call_tool("read_knowledge_article", {"knowledge_base_id": KB,
                                                                "article_id": self.articles[0]})
        self.assertFalse(article["content"].endswith("Added by the agent."), "the copy was not written")


def support_store_on(path):
    """The support store's file at `path`, opened as it is."""
    clock = ManualClock()
    return kb_store.connect(path, clock=clock), clock, None


class TokenHoldsTest(unittest.TestCase):
    """Without --approve-writes, a token whose grant says approve_writes is held, and no other."""

    def setUp(self):
        self.space = Workspace(every_caller=False)
        self.addCleanup(self.space.close)

    def test_a_held_token_is_asked_and_a_free_one_saves_as_today(self):
        held = self.space.stateless("edit_knowledge_article", self.space.article_edit("held"), grant=HELD)
        self.assertEqual(held["resultType"], "input_required")
        self.assertIn('Agent "held-bot"', held["inputRequests"][approval.INPUT_KEY]["params"]["message"])
        free = self.space.stateless("edit_knowledge_article", self.space.article_edit("free"), grant=FREE)
        self.assertIs(answered(free)["replay"], False)

    def test_the_token_file_reads_approve_writes_and_refuses_a_value_that_is_not_true_or_false(self):
        folder = self.enterContext_tempdir()
        path = os.path.join(folder, "tokens.json")
        for value, expected in ((True, True), (False, False)):
            write_private(path, {"a-token-of-sixteen-chars": {"caller": "bot", "approve_writes": value}})
            grant = tokens.Tokens.load(path, KINDS).grant_for("a-token-of-sixteen-chars")
            self.assertIs(grant.approve_writes, expected)
        write_private(path, {"a-token-of-sixteen-chars": {"caller": "bot", "approve_writes": "yes"}})
        with self.assertRaisesRegex(tokens.TokenFileError, "approve_writes that is a JSON string"):
            tokens.Tokens.load(path, KINDS)

    def enterContext_tempdir(self):
        import tempfile
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        return folder.name


def write_private(path, value):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as file:
        json.dump(value, file)


class HandshakeOverHttpTest(unittest.TestCase):
    def test_a_held_write_without_a_stdio_connection_is_refused_naming_what_works(self):
        space = Workspace()
        self.addCleanup(space.close)
        before = space.rows()
        answer = space.server.handle(call("edit_knowledge_article", space.article_edit()), HELD)
        refused = answered(answer["result"])
        self.assertEqual(refused["error"], "approval_unavailable")
        self.assertIn("2026-07-28", refused["message"])
        self.assertEqual(space.rows(), before)


class StdioClient:
    """A client at the other end of a real pipe pair, with mcp_server.serve running in a thread."""

    def __init__(self, server):
        client_to_server, self.to_server = os.pipe()
        self.from_server, server_to_client = os.pipe()
        self.writer = os.fdopen(self.to_server, "wb")
        self.reader = os.fdopen(self.from_server, "rb")
        stdin, stdout = os.fdopen(client_to_server, "rb"), os.fdopen(server_to_client, "wb")
        self.thread = threading.Thread(target=self.run, args=(server, stdin, stdout), daemon=True)
        self.thread.start()

    @staticmethod
    def run(server, stdin, stdout):
        try:
            stdio.serve(server, stdin, stdout)
        finally:
            stdout.close()
            stdin.close()

    def send(self, message):
        self.writer.write(json.dumps(message).encode() + b"\n")
        self.writer.flush()

    def receive(self):
        line = self.reader.readline()
        return json.loads(line) if line else None

    def close(self):
        self.writer.close()
        self.thread.join(5)
        self.reader.close()


class HandshakeOverStdioTest(unittest.TestCase):
    """The handshake era over stdio: the server asks with elicitation/create during the call."""

    def setUp(self):
        self.space = Workspace(bound=5.0)
        self.addCleanup(self.space.close)
        self.client = StdioClient(self.space.server)
        self.addCleanup(self.client.close)

    def connect(self, capabilities=ELICITING):
        self.client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities, "clientInfo": CLIENT}})
        self.assertEqual(self.client.receive()["id"], 0)

    def question(self, arguments, request_id=1):
        self.client.send(call("edit_knowledge_article", arguments, request_id))
        asked = self.client.receive()
        self.assertEqual(asked["method"], "elicitation/create")
        return asked

    def test_an_approved_write_is_saved_and_a_declined_one_is_not(self):
        self.connect()
        arguments = self.space.article_edit()
        asked = self.question(arguments)
        self.assertIn("Added by the agent.", asked["params"]["message"])
        before = self.space.rows()
        self.client.send({"jsonrpc": "2.0", "id": asked["id"], "result": decline("not this one")["approval"]})
        refused = answered(self.client.receive()["result"])
        self.assertEqual((refused["error"], refused["reason"]), ("declined", "not this one"))
        self.assertEqual(self.space.rows(), before)
        asked = self.question(arguments, request_id=2)  # the same key, asked afresh
        self.client.send({"jsonrpc": "2.0", "id": asked["id"], "result": approve()["approval"]})
        answer = self.client.receive()
        self.assertEqual(answer["id"], 2)
        self.assertIs(answered(answer["result"])["replay"], False)

    def test_a_ping_is_answered_meanwhile_and_other_requests_after_the_call(self):
        self.connect()
        asked = self.question(self.space.article_edit())
        self.client.send({"jsonrpc": "2.0", "id": 50, "method": "ping"})
        self.assertEqual(self.client.receive(), {"jsonrpc": "2.0", "id": 50, "result": {}})
        self.client.send({"jsonrpc": "2.0", "id": 51, "method": "tools/list"})
        self.client.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "cancel"}})
        self.assertEqual(answered(self.client.receive()["result"])["answer"], "cancelled")
        self.assertEqual(self.client.receive()["id"], 51)

    def test_a_cancelled_call_gets_no_answer_and_writes_nothing(self):
        self.connect()
        before = self.space.rows()
        self.question(self.space.article_edit(), request_id=9)
        self.client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})
        self.client.send({"jsonrpc": "2.0", "id": 10, "method": "ping"})
        self.assertEqual(self.client.receive()["id"], 10)  # the next answer is the ping's, not the call's
        self.assertEqual(self.space.rows(), before)

    def test_a_cancellation_naming_another_kind_of_id_cancels_nothing(self):
        self.connect()
        asked = self.question(self.space.article_edit(), request_id=9)
        for other in (9.0, "9", [9]):  # no JSON-RPC id of 9 but the integer
            self.client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": other}})
        self.client.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "cancel"}})
        self.client.send({"jsonrpc": "2.0", "id": 10, "method": "ping"})
        answer = self.client.receive()  # the call was still there to answer, before the ping: the person dismissed it
        self.assertEqual(answer["id"], 9, answer)
        self.assertEqual(answered(answer["result"])["answer"], "cancelled")
        self.assertEqual(self.client.receive()["id"], 10)

    def test_no_answer_within_the_bound_is_declined_as_unanswered(self):
        self.space.approvals.bound = 0.2
        self.connect()
        before = self.space.rows()
        self.question(self.space.article_edit())
        refused = answered(self.client.receive()["result"])
        self.assertEqual((refused["error"], refused["answer"]), ("declined", "unanswered"))
        self.assertIn("0.2 seconds", refused["message"])
        self.assertEqual(self.space.rows(), before)

    def test_an_answer_holding_a_key_twice_is_no_answer_and_saves_nothing(self):
        self.connect()
        before = self.space.rows()
        asked = self.question(self.space.article_edit())
        approving = json.dumps(approve()["approval"])  # {"action": "accept", "content": {...}}
        twice = approving[:-1] + ', "action": "decline"}'  # which of the two the person chose cannot be known
        self.client.writer.write(b'{"jsonrpc": "2.0", "id": %s, "result": %s}\n' % (
            json.dumps(asked["id"]).encode(), twice.encode()))
        self.client.writer.flush()
        refused = answered(self.client.receive()["result"])
        self.assertEqual((refused["error"], refused["answer"]), ("declined", "unanswered"))
        self.assertEqual(self.space.rows(), before)

    def test_an_answer_sent_with_the_call_before_the_question_is_never_taken(self):
        self.connect()
        arguments = self.space.article_edit()
        before = self.space.rows()
        self.client.send(call("edit_knowledge_article", arguments, 1))
        for guess in ("osfoundry-approval-1", "osfoundry-approval-0", 1):
            self.client.send({"jsonrpc": "2.0", "id": guess, "result": approve()["approval"]})
        asked = self.client.receive()
        self.assertEqual(asked["method"], "elicitation/create")
        self.assertRegex(asked["id"], r"^osfoundry-approval-[A-Za-z0-9_-]{20,}$")
        self.assertEqual(self.space.rows(), before, "nothing saved on an answer sent before the question")
        self.client.send({"jsonrpc": "2.0", "id": asked["id"], "result": decline()["approval"]})
        self.assertEqual(answered(self.client.receive()["result"])["error"], "declined")
        again = self.question(arguments, request_id=2)
        self.assertNotEqual(again["id"], asked["id"])
        self.client.send({"jsonrpc": "2.0", "id": again["id"], "result": approve()["approval"]})
        self.assertIs(answered(self.client.receive()["result"])["replay"], False)

    def test_a_client_that_did_not_declare_elicitation_is_refused(self):
        self.connect(capabilities={})
        self.client.send(call("edit_knowledge_article", self.space.article_edit()))
        refused = answered(self.client.receive()["result"])
        self.assertEqual(refused["error"], "approval_unavailable")


class ProcessesSharingAKeyTest(unittest.TestCase):
    """Server processes on one database accept each other's requestStates when they share a key: two servers given
    one --approval-key-file, and the workers of one --workers server, whose key is made before they fork."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name
        self.key = os.path.join(self.folder, "approval.key")
        with open(os.open(self.key, os.O_WRONLY | os.O_CREAT, 0o600), "w", encoding="utf-8") as file:
            file.write("0123456789abcdef0123456789abcdef\n")

    def serve(self, *args):
        server = HttpServer("--approve-writes", "--kb-db", os.path.join(self.folder, "kb.db"), "--records-db",
                            os.path.join(self.folder, "records.db"), *args)
        self.addCleanup(server.stop)
        return server

    def first_round(self, server, key):
        status, read = server.post(modern_call("read_knowledge_article", {"knowledge_base_id": demo.KNOWLEDGE_BASE,
                                                                          "article_id": "art-00004"}))
        version = read["result"]["structuredContent"]["updated_at"]
        arguments = {"knowledge_base_id": demo.KNOWLEDGE_BASE, "article_id": "art-00004", "idempotency_key": key,
                     "expected_version": version, "content": f"Saved after approval {key}."}
        status, first = server.post(modern_call("edit_knowledge_article", arguments))
        self.assertEqual(first["result"]["resultType"], "input_required", first)
        return arguments, first["result"]["requestState"]

    def test_a_state_from_one_server_is_accepted_by_another_with_the_same_key_file(self):
        one = self.serve("--approval-key-file", self.key)
        two = self.serve("--approval-key-file", self.key)
        stranger = self.serve()  # a key of its own
        arguments, state = self.first_round(one, "shared-1")
        _, refused = stranger.post(modern_call("edit_knowledge_article", arguments, requestState=state,
                                               inputResponses=approve()))
        self.assertEqual(answered(refused["result"])["error"], "invalid_request_state")
        _, saved = two.post(modern_call("edit_knowledge_article", arguments, requestState=state,
                                        inputResponses=approve()))
        self.assertIs(answered(saved["result"])["replay"], False)

    def test_the_workers_of_one_server_share_the_key_it_made(self):
        pool = self.serve("--workers", "2")
        for round_ in range(6):  # each POST may reach either worker: some rounds cross from one to the other
            arguments, state = self.first_round(pool, f"workers-{round_}")
            _, saved = pool.post(modern_call("edit_knowledge_article", arguments, requestState=state,
                                             inputResponses=approve()))
            self.assertFalse(saved["result"]["isError"], saved)


def modern_call(name, arguments, **extra):
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": dict({"name": name, "arguments": arguments, "_meta": meta()}, **extra)}


class RequestMessageTest(unittest.TestCase):
    """What the person reads holds every changed line, whatever their number, within the question's bound
    (tests/test_shown_change.py shows the rest of how a change reads)."""

    def article(self, title, lines):
        return {"kind": "article", "id": "art-1", "where": KB, "title": title, "content": "\n".join(lines)}

    def test_every_changed_line_is_shown_and_none_is_left_out(self):
        before = self.article("Old", [f"line {n}" for n in range(40)])
        after = self.article("Old", [f"line {n}" for n in range(10)] + [f"new line {n}" for n in range(30)])
        message = approval.request_message("bot", "Edit a knowledge article", before, after, {})
        self.assertIn("Title: unchanged", message)
        self.assertIn("(10 unchanged lines)", message)
        self.assertEqual(message.count("\n+ «new␣»line"), 30)
        self.assertNotIn("more changed lines", message)
        self.assertLessEqual(len(message), shown_change.QUESTION_CHARACTERS)

    def test_a_line_that_starts_with_dashes_is_a_change_like_any_other(self):
        before, after = self.article("T", ["--- a rule", "kept"]), self.article("T", ["kept", "+++ added"])
        message = approval.request_message("bot", "Edit", before, after, {})
        self.assertIn("\n- «--- a rule»\n", message)
        self.assertIn("\n+ «+++ added»", message)

    def test_nobody_is_held_without_the_flag_or_a_token_that_says_so(self):
        approvals = approval.Approvals(approval.Seal(KEY), every_caller=False)
        self.assertFalse(approvals.holds(True, None))
        self.assertFalse(approvals.holds(True, FREE))
        self.assertTrue(approvals.holds(True, HELD))
        self.assertFalse(approvals.holds(False, HELD))


class CommandLineTest(unittest.TestCase):
    def refused(self, argv, said):
        """The options exit with status 2 and one line on stderr matching `said`."""
        error = io.StringIO()
        with contextlib.redirect_stderr(error), self.assertRaises(SystemExit) as exited:
            parse_options(argv)
        self.assertEqual(exited.exception.code, 2)
        self.assertRegex(error.getvalue(), said)

    def test_the_bound_must_be_positive_and_at_most_a_day(self):
        for bad, said in (("0", "not a positive number"), ("-1", "not a positive number"),
                          ("86401", "more than a day"), ("soon", "not a positive number")):
            self.refused(["--demo", "--approve-writes", "--approval-timeout", bad], said)
        options = parse_options(["--demo", "--approve-writes", "--approval-timeout", "30"])
        self.assertEqual((options.approve_writes, options.approval_timeout), (True, 30.0))
        self.assertEqual(len(options.approval_key), approval.KEY_BYTES)

    def test_a_bound_with_nothing_to_time_is_refused_and_a_typed_default_is_no_change(self):
        self.refused(["--demo", "--approval-timeout", "30"], r"--approval-timeout times a person's answer to a write "
                     r"put to them: add --approve-writes \(or --tokens")
        self.assertFalse(parse_options(["--demo", "--approval-timeout", "600"]).approve_writes)

    def test_a_key_file_must_exist_be_private_and_hold_sixteen_bytes(self):
        import tempfile
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        path = os.path.join(folder.name, "key")
        self.refused(["--demo", "--approval-key-file", path], "No such file or directory")
        with open(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "w") as file:
            file.write("short\n")
        self.refused(["--demo", "--approval-key-file", path], "at least 16 bytes")
        with open(path, "w") as file:
            file.write("0123456789abcdef0123456789abcdef\n")
        options = parse_options(["--demo", "--approval-key-file", path])
        self.assertEqual(options.approval_key, b"0123456789abcdef0123456789abcdef")
        if os.name == "posix":
            os.chmod(path, 0o644)
            self.refused(["--demo", "--approval-key-file", path], r"may be read by other users.*chmod 600")


if __name__ == "__main__":
    unittest.main()
