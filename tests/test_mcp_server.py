"""mcp_server.py over real pipes: what a client of the server relies on (the handshake, the tools, their errors,
logging, a clean exit), the demo, the colleague, the CLI; the official SDK client is tests/test_mcp_sdk.py. One
server process serves each class.
"""

import contextlib
import io
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from benchmark import round_trips
from osfoundry_tools.content import demo
from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server import stdio
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_store, record_store
from tests.helpers import ROOT, assert_server_refuses, server_options_refused, store_definitions

SERVER = os.path.join(ROOT, "mcp_server.py")
VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
WAIT = 20.0  # seconds before a missing answer fails a test instead of hanging it
NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


class ServerProcess:
    """mcp_server.py as a client runs it: pipes for stdin and stdout, stderr to a file, every stdout line kept."""

    def __init__(self, *args):
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, SERVER, *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.stderr, cwd=ROOT)
        self.lines = []  # every raw stdout line, in order
        self.incoming = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        self.next_id = 1000

    def _read(self):
        for line in iter(self.process.stdout.readline, b""):
            self.lines.append(line)
            self.incoming.put(line)
        self.incoming.put(None)

    def write(self, data):
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message):
        self.write(json.dumps(message).encode("utf-8") + b"\n")

    def receive(self):
        line = self.incoming.get(timeout=WAIT)
        assert line is not None, "the server closed stdout"
        return json.loads(line)

    def request(self, method, params=None, request_id=None):
        """Send one request and return the very next message, which must answer it."""
        if request_id is None:
            self.next_id += 1
            request_id = self.next_id
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        answer = self.receive()
        assert answer.get("id") == request_id, (request_id, answer)
        return answer

    def call(self, name, arguments):
        """tools/call; returns the CallToolResult."""
        answer = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in answer, answer
        return answer["result"]

    def handshake(self, version="2025-11-25"):
        answer = self.request("initialize", {"protocolVersion": version, "capabilities": {},
                                             "clientInfo": {"name": "test_mcp_server", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def nothing_pending(self):
        """True when a ping sent now is answered by the very next line: nothing else was written before it."""
        return self.request("ping", {}, request_id="after-notifications") == {
            "jsonrpc": "2.0", "id": "after-notifications", "result": {}}

    def close(self):
        """Close stdin; the exit status and the seconds the server took to exit."""
        started = time.monotonic()
        self.process.stdin.close()
        status = self.process.wait(timeout=WAIT)
        elapsed = time.monotonic() - started
        self.reader.join(timeout=WAIT)
        self.process.stdout.close()
        self.log_text = self.log()
        self.stderr.close()
        return status, elapsed

    def log(self):
        """Everything the server wrote on stderr so far."""
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8")


def validate(schema, value):
    """Raise plumbing.InvalidArguments unless `value` satisfies the JSON Schema subset the tools use."""
    checks.check(schema, value, "structuredContent")


def rejection(result):
    """The store's rejection a tool error carries: isError true, the rejection's JSON as text, no structuredContent."""
    assert result["isError"] is True, result
    assert "structuredContent" not in result, "a TypeScript client would check it against the outputSchema"
    (text,) = result["content"]
    assert text["type"] == "text"
    return json.loads(text["text"])


class DemoSession:
    """What a test needs from the demo content: a published article, a draft, an item."""

    plan = demo.draw_plan(demo.SEED)
    article = plan.published()[0].article_id
    draft = next(a.article_id for a in plan.articles if a.status == "draft")


def ping_of_size(size):
    """A ping request of exactly `size` bytes of JSON."""
    message = {"jsonrpc": "2.0", "id": "big", "method": "ping", "params": {"padding": ""}}
    message["params"]["padding"] = "x" * (size - len(json.dumps(message)))
    line = json.dumps(message).encode("utf-8")
    assert len(line) == size
    return line


def successful_calls(article_id, item_id):
    """One successful call of each of the seven tools, on the demo."""
    return {
        "search_knowledge_base": {"knowledge_base_id": KB, "query": DemoSession.plan.published()[0].title,
                                  "limit": 3},
        "read_knowledge_article": {"knowledge_base_id": KB, "article_id": article_id},
        "poll_resource_events": {"resource_type": "knowledge_base", "resource_id": KB, "limit": 5},
        "list_record_items": {"record_channel_id": CHANNEL, "limit": 5},
        "read_record_item": {"record_channel_id": CHANNEL, "item_id": item_id},
    }


class ProtocolTest(unittest.TestCase):
    """Checks 2-12 against one `--demo` server."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--demo")
        cls.server.handshake()

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def alive(self):
        self.assertTrue(self.server.nothing_pending())

    def read_article(self, article_id=DemoSession.article):
        result = self.server.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article_id})
        self.assertFalse(result["isError"], result)
        return result["structuredContent"]

    def heads(self):
        """The last sequence of the demo's two event logs."""
        return [self.server.call("poll_resource_events", {"resource_type": kind, "resource_id": resource,
                                                          "after_sequence": 2 ** 53 - 1})["structuredContent"]
                ["last_sequence"] for kind, resource in (("knowledge_base", KB), ("record", CHANNEL))]

    def first_item(self):
        result = self.server.call("list_record_items", {"record_channel_id": CHANNEL, "limit": 1})
        return result["structuredContent"]["items"][0]

    # -- 2. initialize -----------------------------------------------------------

    def test_initialize_echoes_each_supported_version_with_tools_and_server_info(self):
        for version in VERSIONS:
            with self.subTest(version=version):
                result = self.server.handshake(version)["result"]
                self.assertEqual(result["protocolVersion"], version)
                self.assertEqual(result["capabilities"]["tools"], {})
                self.assertEqual(result["serverInfo"]["name"], "osfoundry-reconstruction")
                self.assertIsInstance(result["serverInfo"]["version"], str)
                self.assertIn("expected_version", result["instructions"])
                self.assertIn(f"knowledge base IDs: {KB}", result["instructions"])

    def test_initialize_answers_an_unknown_version_with_the_latest(self):
        for version in ("2099-01-01", "2026-07-28", "1.0"):
            with self.subTest(version=version):
                self.assertEqual(self.server.handshake(version)["result"]["protocolVersion"], "2025-11-25")

    def test_initialize_without_a_protocol_version_is_invalid_params(self):
        answer = self.server.request("initialize", {"capabilities": {}})
        self.assertEqual(answer["error"]["code"], -32602)
        self.assertIn("protocolVersion", answer["error"]["message"])

    # -- 3. notifications, 12. cancellation ---------------------------------------

    def test_notifications_get_no_answer_even_unknown_or_malformed_ones(self):
        for notification in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                             {"jsonrpc": "2.0", "method": "notifications/unheard_of", "params": {"x": 1}},
                             {"jsonrpc": "2.0", "method": "tools/call", "params": "not an object"},
                             {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": [7]},
                             {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": {}}},
                             {"jsonrpc": "2.0", "method": {"not": "a string"}}, {"jsonrpc": "2.0"},
                             {"jsonrpc": "1.0", "method": "notifications/initialized"}):
            self.server.send(notification)
        self.alive()

    def test_cancelling_an_unknown_or_finished_request_changes_nothing(self):
        before = self.server.request("tools/call", {"name": "read_knowledge_article", "arguments": {
            "knowledge_base_id": KB, "article_id": DemoSession.article}}, request_id="finished-read")
        for request_id in ("finished-read", "never-sent", 424242):
            self.server.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                              "params": {"requestId": request_id, "reason": "test"}})
        self.alive()
        self.assertEqual(self.read_article()["updated_at"], before["result"]["structuredContent"]["updated_at"])

    # -- 4. ping, 5. ids -------------------------------------------------------------

    def test_ping_answers_an_empty_object_with_or_without_params(self):
        self.assertEqual(self.server.request("ping")["result"], {})
        self.assertEqual(self.server.request("ping", {})["result"], {})

    def test_ids_zero_large_and_string_come_back_unchanged_with_their_type(self):
        for request_id in (0, 2 ** 53 - 1, "abc", -1, ""):
            with self.subTest(id=request_id):
                answer = self.server.request("ping", {}, request_id=request_id)
                self.assertIs(type(answer["id"]), type(request_id))
                self.assertEqual(answer["id"], request_id)
                self.assertEqual(answer["result"], {})

    def test_an_id_that_is_not_a_string_or_integer_is_an_invalid_request_with_null_id(self):
        for request_id in (1.5, True, None, [1], {"a": 1}):
            with self.subTest(id=request_id):
                self.server.send({"jsonrpc": "2.0", "id": request_id, "method": "ping"})
                answer = self.server.receive()
                self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32600))
        self.alive()

    # -- 6. unknown methods ----------------------------------------------------------

    def test_unknown_methods_and_server_discover_get_method_not_found_at_once(self):
        for method in ("server/discover", "resources/delete", "prompts/list", "tools/delete", ""):
            with self.subTest(method=method):
                started = time.monotonic()
                answer = self.server.request(method, {})
                self.assertEqual(answer["error"]["code"], -32601)
                self.assertIn("Method not found", answer["error"]["message"])
                self.assertLess(time.monotonic() - started, 5.0)  # at once, not after a client's 10 s timeout
        self.alive()

    def test_a_request_with_a_wrong_jsonrpc_or_method_is_an_invalid_request_with_its_id(self):
        for message in ({"jsonrpc": "1.0", "id": 5, "method": "ping"}, {"id": 5, "method": "ping"},
                        {"jsonrpc": "2.0", "id": 5, "method": 42}, {"jsonrpc": "2.0", "id": 5}):
            with self.subTest(message=message):
                self.server.send(message)
                answer = self.server.receive()
                self.assertEqual((answer["id"], answer["error"]["code"]), (5, -32600))

    def test_params_that_are_not_an_object_are_invalid_params(self):
        answer = self.server.request("tools/list", [1, 2])
        self.assertEqual(answer["error"]["code"], -32602)

    # -- 7. lines that are not one JSON-RPC object -----------------------------------

    def test_a_line_that_is_not_json_gets_a_parse_error_with_null_id_and_the_server_goes_on(self):
        for line in (b"not json", b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', b"\xff\xfe{}",
                     b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": NaN}}', b"[" * 100000):
            with self.subTest(line=line[:40]):
                self.server.write(line + b"\n")
                answer = self.server.receive()
                self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32700))
                self.assertIn("Parse error", answer["error"]["message"])
        self.alive()

    def test_a_key_written_twice_is_refused_to_its_id_and_saves_nothing(self):
        item = self.first_item()
        arguments = ('{"record_channel_id": "%s", "item_id": "%s", "values": {"status": "fixed", "status": "new"}, '
                     '"expected_version": %d, "idempotency_key": "twice-1"}' % (CHANNEL, item["item_id"],
                                                                                item["version"]))
        for line, answered in (
                ('{"jsonrpc": "2.0", "id": 71, "method": "tools/call", "params": {"name": "edit_record_item", '
                 '"arguments": %s}}' % arguments, 71),
                ('{"jsonrpc": "2.0", "id": 72, "id": 73, "method": "ping"}', 73)):
            with self.subTest(line=line[-60:]):
                self.server.write(line.encode("utf-8") + b"\n")
                answer = self.server.receive()
                self.assertEqual((answer["id"], answer["error"]["code"]), (answered, -32600))
                self.assertIn("appears twice in one object", answer["error"]["message"])
        self.server.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized", "params": {"a": 1, "a": 2}}\n')
        after = self.server.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item["item_id"]})
        self.assertEqual(after["structuredContent"]["version"], item["version"])  # and the notification: no answer
        self.alive()

    def test_a_batch_or_another_json_value_gets_an_invalid_request_and_the_server_goes_on(self):
        for line in (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', b"[]", b"42", b'"ping"', b"null"):
            with self.subTest(line=line):
                self.server.write(line + b"\n")
                answer = self.server.receive()
                self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32600))
        self.alive()

    def test_an_over_long_line_gets_an_invalid_request_and_the_next_line_is_served(self):
        self.server.write(ping_of_size(stdio.MAX_LINE_BYTES + 1) + b"\n")
        answer = self.server.receive()
        self.assertEqual((answer["id"], answer["error"]["code"]), (None, -32600))
        self.assertIn(str(stdio.MAX_LINE_BYTES), answer["error"]["message"])
        self.alive()

    def test_a_line_of_exactly_the_limit_is_served_and_crlf_and_blank_lines_are_accepted(self):
        self.server.write(b"\n\r\n" + ping_of_size(stdio.MAX_LINE_BYTES) + b"\r\n")
        self.assertEqual(self.server.receive(), {"jsonrpc": "2.0", "id": "big", "result": {}})

    # -- 8. tools/list ----------------------------------------------------------------

    def test_tools_list_gives_the_seven_store_definitions_unchanged_with_valid_unique_names(self):
        tools = self.server.request("tools/list", {})["result"]["tools"]
        definitions = store_definitions()
        names = [tool["name"] for tool in tools]
        self.assertEqual(len(names), len(set(names)))
        self.assertEqual(sorted(names), sorted(definitions))
        self.assertEqual(len(names), 7)
        for tool in tools:
            with self.subTest(tool=tool["name"]):
                self.assertRegex(tool["name"], NAME)
                self.assertEqual(tool, definitions[tool["name"]])
                self.assertEqual(tool["inputSchema"]["type"], "object")
                self.assertEqual(tool["outputSchema"]["type"], "object")
                self.assertEqual(sorted(tool["annotations"]), sorted(HINTS))
                self.assertTrue(all(isinstance(tool["annotations"][hint], bool) for hint in HINTS))
        (edit,) = [tool for tool in tools if tool["name"] == "edit_record_item"]
        self.assertEqual(edit["securitySchemes"], [{"type": "oauth2", "scopes": ["osfoundry:write"]}])

    def test_tools_list_with_a_cursor_is_invalid_params(self):
        self.assertEqual(self.server.request("tools/list", {"cursor": "page-2"})["error"]["code"], -32602)

    # -- 9. successful calls ------------------------------------------------------------

    def test_a_successful_call_of_each_tool_is_valid_against_its_output_schema(self):
        definitions = store_definitions()
        item = self.first_item()
        calls = successful_calls(DemoSession.article, item["item_id"])
        article = self.read_article()
        calls["edit_knowledge_article"] = {"knowledge_base_id": KB, "article_id": DemoSession.article,
                                           "content": article["content"] + " Checked by the test.",
                                           "expected_version": article["updated_at"], "idempotency_key": "check-9"}
        calls["edit_record_item"] = {"record_channel_id": CHANNEL, "item_id": item["item_id"],
                                     "values": {"severity": "s3"}, "expected_version": item["version"],
                                     "idempotency_key": "check-9"}
        polls = {"resource_type": "record", "resource_id": CHANNEL}
        self.assertEqual(len(calls), 7)
        for name, arguments in list(calls.items()) + [("poll_resource_events", polls)]:
            with self.subTest(tool=name, arguments=arguments):
                result = self.server.call(name, arguments)
                self.assertIs(result["isError"], False)
                (text,) = result["content"]
                self.assertEqual(text["type"], "text")
                self.assertEqual(json.loads(text["text"]), result["structuredContent"])
                validate(definitions[name]["outputSchema"], result["structuredContent"])
                self.assertNotIn("error", result["structuredContent"])

    def test_the_output_validator_rejects_a_result_that_breaks_the_schema(self):
        schema = store_definitions()["read_record_item"]["outputSchema"]
        for wrong in ({"item_id": "x", "version": 1}, {"item_id": "x", "version": "1", "values": {}},
                      {"item_id": "x", "version": 1, "values": {}, "extra": True}):
            with self.subTest(wrong=wrong), self.assertRaises(rejections.InvalidArguments):
                validate(schema, wrong)

    # -- 10. protocol errors of tools/call ---------------------------------------------

    def test_an_unknown_tool_a_missing_name_and_non_object_arguments_are_invalid_params(self):
        read = {"knowledge_base_id": KB, "article_id": DemoSession.article}
        for params in ({"name": "delete_everything", "arguments": {}}, {"arguments": read}, {"name": None},
                       {"name": 42, "arguments": read}, {"name": "read_knowledge_article", "arguments": [read]},
                       {"name": "read_knowledge_article", "arguments": "article"},
                       {"name": "read_knowledge_article", "arguments": None}):
            with self.subTest(params=params):
                answer = self.server.request("tools/call", params)
                self.assertEqual(answer["error"]["code"], -32602)
                self.assertNotIn("result", answer)
        answer = self.server.request("tools/call", {"name": "delete_everything", "arguments": {}})
        self.assertIn('Unknown tool: "delete_everything"', answer["error"]["message"])
        self.alive()

    # -- 11. tool errors -----------------------------------------------------------------

    def test_bad_arguments_for_every_tool_are_tool_errors_with_a_readable_text(self):
        bad = {  # tool -> (arguments, the argument the text must name)
            "search_knowledge_base": ({"knowledge_base_id": KB, "query": "x"}, "query"),
            "read_knowledge_article": ({"knowledge_base_id": KB}, "article_id"),
            "edit_knowledge_article": ({"knowledge_base_id": KB, "article_id": DemoSession.article, "content": "x",
                                        "expected_version": "yesterday", "idempotency_key": "k"},
                                       "expected_version"),
            "poll_resource_events": ({"resource_type": "banana", "resource_id": KB}, "resource_type"),
            "list_record_items": ({"record_channel_id": CHANNEL, "limit": 51}, "limit"),
            "read_record_item": ({"record_channel_id": CHANNEL, "item_id": 7}, "item_id"),
            "edit_record_item": ({"record_channel_id": CHANNEL, "item_id": "itm-00001", "values": {},
                                  "expected_version": 0, "idempotency_key": "k"}, "expected_version"),
        }
        self.assertEqual(sorted(bad), sorted(store_definitions()))
        heads = self.heads()
        for name, (arguments, argument) in bad.items():
            with self.subTest(tool=name):
                result = self.server.call(name, arguments)
                refused = rejection(result)
                self.assertEqual(refused["error"], "invalid_arguments")
                self.assertIn(f'"{argument}"', refused["message"])
                self.assertTrue(refused["message"].endswith("Fix this argument and call again.")
                                or refused["message"].startswith("missing required argument"), refused)
        self.assertEqual(self.heads(), heads)  # no event: nothing was written
        self.alive()

    def test_a_missing_article_and_an_unknown_knowledge_base_are_tool_errors_saying_what_to_do(self):
        for arguments in ({"knowledge_base_id": KB, "article_id": DemoSession.draft},
                          {"knowledge_base_id": "kb-nowhere", "article_id": DemoSession.article}):
            with self.subTest(arguments=arguments):
                result = self.server.call("read_knowledge_article", arguments)
                self.assertEqual(rejection(result)["error"], "not_found")
                self.assertRegex(result["content"][0]["text"], r"Use search_knowledge_base|Check the knowledge_base_id")

    # -- compare-and-swap and idempotency through the server --------------------------------

    def test_a_stale_version_is_a_conflict_that_saves_nothing_and_a_resent_edit_is_replayed(self):
        article = self.read_article(DemoSession.plan.published()[1].article_id)
        edit = {"knowledge_base_id": KB, "article_id": article["article_id"], "content": "First fix.",
                "expected_version": article["updated_at"], "idempotency_key": "cas-1"}
        first = self.server.call("edit_knowledge_article", edit)
        self.assertEqual(first["structuredContent"]["replay"], False)
        again = self.server.call("edit_knowledge_article", edit)
        self.assertEqual(again["structuredContent"], dict(first["structuredContent"], replay=True))
        reused = self.server.call("edit_knowledge_article", dict(edit, content="Other fix."))
        self.assertEqual(rejection(reused)["error"], "idempotency_key_reused")
        stale = self.server.call("edit_knowledge_article", dict(edit, content="Late fix.", idempotency_key="cas-2"))
        self.assertEqual(rejection(stale)["error"], "version_conflict")
        self.assertIn("read_knowledge_article again", stale["content"][0]["text"])
        now = self.read_article(article["article_id"])
        self.assertEqual((now["content"], now["updated_at"]),
                         ("First fix.", first["structuredContent"]["citation"]["updated_at"]))

    def test_a_record_edit_with_a_label_is_rejected_with_the_labels_and_saves_nothing(self):
        item = self.first_item()
        result = self.server.call("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": item["item_id"], "values": {"status": "In progress"},
            "expected_version": item["version"], "idempotency_key": "label-1"})
        (failed,) = rejection(result)["fields"]
        self.assertEqual(failed["labels"]["in_progress"], "In progress")
        after = self.server.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item["item_id"]})
        self.assertEqual(after["structuredContent"]["version"], item["version"])

    def test_poll_goes_to_the_store_of_its_resource_type_and_names_both_for_another(self):
        kb = self.server.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB})
        self.assertIn("article_id", kb["structuredContent"]["events"][0])
        records = self.server.call("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL})
        self.assertIn("item_id", records["structuredContent"]["events"][0])
        crossed = self.server.call("poll_resource_events", {"resource_type": "record", "resource_id": KB})
        self.assertEqual(rejection(crossed)["error"], "not_found")
        for other in ("channel", "note", "session"):
            with self.subTest(resource_type=other):
                result = self.server.call("poll_resource_events", {"resource_type": other, "resource_id": KB})
                self.assertEqual(rejection(result)["error"], "unsupported_resource_type")
                self.assertEqual(rejection(result)["served"], ["knowledge_base", "record"])
                self.assertIn('"knowledge_base" and "record" only', rejection(result)["message"])
        for arguments, argument in (({"resource_type": "note", "resource_id": KB, "limit": 0}, "limit"),
                                    ({"resource_id": KB}, "resource_type"),
                                    ({"resource_type": 7, "resource_id": KB}, "resource_type")):
            with self.subTest(arguments=arguments):  # checked as a store checks them, before the type is judged
                result = rejection(self.server.call("poll_resource_events", arguments))
                self.assertEqual((result["error"], result["argument"]), ("invalid_arguments", argument))


class LifecycleTest(unittest.TestCase):
    """Checks 1 and 13: a whole session, good and bad lines mixed, then EOF."""

    def test_stdout_holds_only_json_rpc_answers_one_per_request_and_eof_exits_0(self):
        server = ServerProcess("--demo", "--verbose")
        server.handshake()
        requests = 0
        for line in (b"garbage", b"[]", b'{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                     b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}',
                     b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search_knowledge_base",'
                     b' "arguments": {"knowledge_base_id": "kb-support", "query": "\xc3\xa9t\xc3\xa9 \\ud800 print"}}}',
                     b'{"jsonrpc": "2.0", "id": "\\ud800", "method": "nope"}',
                     b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"api_key": "k-secret"}}}'):
            server.write(line + b"\n")
            requests += b'"method": "notifications' not in line
        for _ in range(requests):
            server.receive()
        status, _ = server.close()  # within WAIT, or close() raises: no timing here, which a busy machine would flake
        self.assertEqual(status, 0, server.log_text)
        self.assertEqual(len(server.lines), 1 + requests)  # the handshake's answer, then one per request
        for line in server.lines:
            self.assertTrue(line.endswith(b"\n") and not line.endswith(b"\r\n"))
            self.assertEqual(line.count(b"\n"), 1)
            message = json.loads(line.decode("utf-8"))
            self.assertEqual(message["jsonrpc"], "2.0")
            self.assertIn("id", message)
            self.assertEqual(len(set(message) & {"result", "error"}), 1)
        log = server.log_text
        self.assertRegex(log.splitlines()[0], r"^mcp_server: serving 7 tools over stdio.*knowledge base kb-support "
                         r"\(80 published help-centre articles in English, 6 drafts, 1 unpublished\).*60 New items.*"
                         r"rejection detail: labels; ready in")
        self.assertIn("stdin closed", log)
        self.assertIn('received {"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"_meta": {"api_key": '
                      '"[redacted]"}}}', log)  # each message as the HTTP front logs it: whole, a credential left out
        self.assertIn('received a line that is no JSON message: "garbage"', log)
        self.assertNotIn("k-secret", log)

    def test_eof_right_after_start_exits_0(self):
        server = ServerProcess("--demo")
        status, _ = server.close()  # within WAIT, or close() raises
        self.assertEqual((status, server.lines), (0, []))
        self.assertTrue(server.log_text.endswith("mcp_server: stdin closed: stopping\n"), server.log_text)


class ColleagueTest(unittest.TestCase):
    """--people-edit-every: an agent meets stale citations and version conflicts."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess("--demo", "--people-edit-every", "0.05")
        cls.server.handshake()

    @classmethod
    def tearDownClass(cls):
        status, _ = cls.server.close()
        assert status == 0, cls.server.log_text

    def wait_for_event(self, resource_type, resource_id, after, is_wanted):
        """Poll until an event is_wanted(event), or fail after WAIT seconds."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            page = self.server.call("poll_resource_events", {"resource_type": resource_type,
                                                             "resource_id": resource_id, "after_sequence": after})
            page = page["structuredContent"]
            for event in page["events"]:
                if is_wanted(event):
                    return event
            after = page["last_sequence"]
            time.sleep(0.02)
        self.fail(f"no {resource_type} event came in {WAIT} s")

    def test_an_item_a_person_moved_after_the_listing_is_a_version_conflict(self):
        cursor = self.server.call("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL,
                                                           "after_sequence": 2 ** 53 - 1})
        listed = self.server.call("list_record_items", {"record_channel_id": CHANNEL})["structuredContent"]["items"]
        seen = {item["item_id"]: item["version"] for item in listed}
        moved = self.wait_for_event("record", CHANNEL, cursor["structuredContent"]["last_sequence"],
                                    lambda e: e["item_id"] in seen and e["version"] > seen[e["item_id"]])
        result = self.server.call("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": moved["item_id"], "values": {"points": 3},
            "expected_version": seen[moved["item_id"]], "idempotency_key": "after-the-move"})
        self.assertEqual(rejection(result)["error"], "version_conflict")
        self.assertRegex(self.server.log(), r"people: \w+ set (status|owner) of item itm-\d+ to \w+, now version")

    def test_an_article_a_person_saved_after_the_read_makes_the_citation_stale_and_the_edit_conflict(self):
        cursor = self.server.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                                           "after_sequence": 2 ** 53 - 1})
        cited = {}
        for article in DemoSession.plan.published():
            read = self.server.call("read_knowledge_article", {"knowledge_base_id": KB,
                                                               "article_id": article.article_id})
            cited[article.article_id] = read["structuredContent"]["citation"]["updated_at"]
        saved = self.wait_for_event("knowledge_base", KB, cursor["structuredContent"]["last_sequence"],
                                    lambda e: e["updated_at"] > cited.get(e["article_id"], "~"))
        now = self.server.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": saved["article_id"]})
        self.assertNotEqual(now["structuredContent"]["updated_at"], cited[saved["article_id"]])  # stale citation
        result = self.server.call("edit_knowledge_article", {
            "knowledge_base_id": KB, "article_id": saved["article_id"], "content": "Too late.",
            "expected_version": cited[saved["article_id"]], "idempotency_key": "after-the-save"})
        self.assertEqual(rejection(result)["error"], "version_conflict")
        self.assertRegex(self.server.log(), r"people: \w+ saved article art-\d+, now version 20\d\d-")


class DemoWorkspaceTest(unittest.TestCase):
    """What --demo serves, and the flags that shape a workspace (in-process: no server needed)."""

    def open(self, *argv):
        workspace = open_workspace(parse_options(list(argv)))
        self.addCleanup(workspace.close)
        return workspace

    def test_the_demo_holds_published_articles_drafts_one_unpublished_and_sixty_new_bugs(self):
        workspace = self.open("--demo")
        kb, records = workspace.stores["knowledge_base"], workspace.stores["record"]
        statuses = [kb.article(KB, a.article_id)["status"] for a in DemoSession.plan.articles]
        self.assertEqual({s: statuses.count(s) for s in set(statuses)},
                         {"published": 80, "draft": 6, "unpublished": 1})
        items = [records.item(CHANNEL, i) for i in records.item_ids(CHANNEL)]
        self.assertEqual(len(items), 60)
        self.assertEqual({item["values"]["status"] for item in items}, {"new"})
        self.assertEqual(len({item["values"]["ticket"] for item in items}), 60)

    def test_the_demo_content_depends_on_the_seed_only(self):
        first, again, other = demo.draw_plan(5), demo.draw_plan(5), demo.draw_plan(6)
        self.assertEqual((first.articles, first.items), (again.articles, again.items))
        self.assertNotEqual(first.articles, other.articles)

    def test_grants_and_scope_reach_the_stores(self):
        workspace = self.open("--demo", "--grant-kb", "kb-other", "--grant-channel", CHANNEL, "--no-write-scope")
        tools = workspace.tools()
        hidden = tools.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "help me"})
        self.assertEqual(hidden["error"], "not_found")
        item_id = workspace.stores["record"].item_ids(CHANNEL)[0]
        forbidden = tools.call("edit_record_item", {"record_channel_id": CHANNEL, "item_id": item_id,
                                                    "values": {"status": "triaged"}, "expected_version": 1,
                                                    "idempotency_key": "k"})
        self.assertEqual(forbidden["error"], "forbidden")
        self.assertIn("knowledge base IDs: kb-other; record channel IDs: bugs", workspace.instructions)

    def test_the_rejection_detail_reaches_the_record_store(self):
        workspace = self.open("--demo", "--rejection-detail", "terse")
        item_id = workspace.stores["record"].item_ids(CHANNEL)[0]
        refused = workspace.tools().call("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": item_id, "values": {"status": "Triaged"},
            "expected_version": 1, "idempotency_key": "k"})
        self.assertEqual(refused, {"error": "validation_failed"})

    def test_the_startup_line_says_when_the_databases_hold_nothing_to_serve_and_what_fills_them(self):
        temporary = tempfile.TemporaryDirectory()
        self.addCleanup(temporary.cleanup)
        files = ["--kb-db", os.path.join(temporary.name, "kb.db"), "--records-db", os.path.join(temporary.name, "r.db")]
        empty = self.open(*files)
        self.assertTrue(empty.description.startswith("nothing served yet: "), empty.description)
        self.assertIn("start once with --demo", empty.description)
        empty.close()
        self.assertNotIn("nothing served yet", self.open("--demo", *files).description)
        self.assertNotIn("nothing served yet", self.open(*files).description)  # the demo is there now

    def test_demo_files_are_written_once_and_keep_their_changes_across_restarts(self):
        temporary = tempfile.TemporaryDirectory()
        self.addCleanup(temporary.cleanup)
        folder = temporary.name
        argv = ["--demo", "--kb-db", os.path.join(folder, "kb.db"), "--records-db", os.path.join(folder, "r.db")]
        first = open_workspace(parse_options(argv))
        item_id = first.stores["record"].item_ids(CHANNEL)[0]
        first.stores["record"].edit_item(CHANNEL, item_id, {"status": "fixed"})
        first.close()
        second = self.open(*argv)
        self.assertEqual(second.stores["record"].item(CHANNEL, item_id)["values"]["status"], "fixed")
        self.assertEqual(len(second.stores["record"].item_ids(CHANNEL)), 60)
        self.assertIn(f"written only where new: {argv[2]}, {argv[4]} served as found", second.description)


class ColleagueChangesTest(unittest.TestCase):
    """What one change of the simulated colleague does, called directly (no thread, no waiting)."""

    def setUp(self):
        self.workspace = open_workspace(parse_options(["--demo", "--people-edit-every", "60"]))
        self.addCleanup(self.workspace.close)
        self.colleague = self.workspace.colleague
        self.kb, self.records = self.workspace.stores["knowledge_base"], self.workspace.stores["record"]

    def test_a_save_gives_a_published_article_a_newer_version_and_an_updated_event(self):
        before = {a.article_id: self.kb.article(KB, a.article_id) for a in DemoSession.plan.articles}
        head = self.kb.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                          "resource_id": KB, "after_sequence": 2 ** 53 - 1})
        note = self.colleague.save_article()
        (changed,) = [i for i, old in before.items() if self.kb.article(KB, i) != old]
        after = self.kb.article(KB, changed)
        self.assertEqual(before[changed]["status"], "published")
        self.assertGreater(after["updated_at"], before[changed]["updated_at"])
        self.assertNotEqual(after["content"], before[changed]["content"])
        self.assertIn(f"saved article {changed}, now version {after['updated_at']}", note)
        events = self.kb.call_tool("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                                            "after_sequence": head["last_sequence"]})
        self.assertEqual(head["last_sequence"], 82)  # 81 created (80 published, 1 later unpublished), 1 unpublished
        self.assertEqual(events["events"], [{"sequence": 83, "type": "updated", "article_id": changed,
                                             "updated_at": after["updated_at"]}])

    def test_a_move_sets_another_option_value_of_status_or_owner_and_adds_one_version(self):
        records = self.records
        before = {i: records.item(CHANNEL, i) for i in records.item_ids(CHANNEL)}
        for _ in range(20):
            self.colleague.move_item()
        for item_id, old in before.items():
            new = records.item(CHANNEL, item_id)
            changed = {k for k in set(old["values"]) | set(new["values"])
                       if old["values"].get(k) != new["values"].get(k)}
            self.assertLessEqual(changed, {"status", "owner"})
            self.assertEqual(bool(changed), new["version"] > old["version"])
        self.assertEqual(sum(records.item(CHANNEL, i)["version"] - 1 for i in before), 20)

    def test_a_failing_change_is_logged_and_the_colleague_goes_on(self):
        empty, records = kb_store.connect(), record_store.connect()  # no knowledge base: every save fails
        demo.write_bug_tracker(records, DemoSession.plan)
        colleague = demo.Colleague(empty, records, DemoSession.plan, random.Random(1), threading.Lock(), 0.01)
        with self.assertLogs("osfoundry.demo", "INFO") as logs:
            colleague.start()
            deadline = time.monotonic() + WAIT
            while sum("now version" in line for line in logs.output) < 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            colleague.stop()
        empty.close()
        records.close()
        self.assertTrue(any("a change failed (NotFound" in line for line in logs.output), logs.output)
        self.assertGreaterEqual(sum("set" in line and "now version" in line for line in logs.output), 3)


class CommandLineTest(unittest.TestCase):
    """Bad options exit with status 2 and one line; --help explains every flag."""

    def test_bad_options_exit_2_with_one_line_saying_why(self):
        folder = tempfile.gettempdir()
        cases = {
            (): "nothing to serve",
            ("--demo", "--rejection-detail", "loud"): "invalid choice: 'loud'",
            ("--demo", "--people-edit-every", "0"): "not a positive number of seconds",
            ("--demo", "--people-edit-every", "nan"): "not a positive number of seconds",
            ("--people-edit-every", "1", "--kb-db", os.path.join(folder, "x.db")): "add --demo",
            ("--seed", "3", "--records-db", os.path.join(folder, "x.db")): "add --demo",
            ("--demo", "--seed", "three"): "invalid int value",
            ("--demo", "--kb-db", "/no/such/folder/kb.db"): "does not exist",
            ("--demo", "--kb-db", folder): "is a folder",
            ("--demo", "--kb-db", "same.db", "--records-db", "./same.db"): "different files",
            ("--demo", "--frobnicate"): "unrecognized arguments",
        }
        assert_server_refuses(self, cases)

    def test_help_explains_every_flag(self):
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout), self.assertRaises(SystemExit) as exit:
            parse_options(["--help"])
        self.assertEqual(exit.exception.code, 0)
        for flag in ("--demo", "--kb-db", "--records-db", "--grant-kb", "--grant-channel", "--no-write-scope",
                     "--rejection-detail", "--people-edit-every", "--seed", "--verbose"):
            self.assertIn(flag, stdout.getvalue())

    @unittest.skipUnless(shutil.which("openssl") and shutil.which("sh"), "needs openssl and sh")
    def test_a_missing_approval_key_file_is_refused_with_a_command_that_makes_one_the_server_takes(self):
        with tempfile.TemporaryDirectory() as folder:
            key = os.path.join(folder, "approval key")
            code, said = server_options_refused(["--demo", "--approval-key-file", key])
            self.assertEqual((code, said.count("\n")), (2, 1), said)
            self.assertIn("No such file or directory; make the key once with: ", said)
            (command,) = re.findall(r"make the key once with: (\(.*?\)) \(python3 ", said)
            subprocess.run(["sh", "-c", command], check=True, timeout=WAIT)
            self.assertEqual(os.stat(key).st_mode & 0o777, 0o600)
            self.assertEqual(len(parse_options(["--demo", "--approval-key-file", key]).approval_key), 64)

    def test_a_bad_option_through_the_real_command_writes_one_line_and_nothing_on_stdout(self):
        run = subprocess.run([sys.executable, SERVER, "--rejection-detail", "loud"], capture_output=True,
                             timeout=WAIT, cwd=ROOT, stdin=subprocess.DEVNULL)
        self.assertEqual((run.returncode, run.stdout), (2, b""))
        self.assertEqual(run.stderr.count(b"\n"), 1)

    def test_a_file_that_is_not_a_database_exits_2_with_one_line(self):
        with tempfile.NamedTemporaryFile(suffix=".db") as bogus:
            bogus.write(b"this is not sqlite" * 100)
            bogus.flush()
            run = subprocess.run([sys.executable, SERVER, "--kb-db", bogus.name], capture_output=True,
                                 timeout=WAIT, cwd=ROOT, stdin=subprocess.DEVNULL)
        self.assertEqual((run.returncode, run.stdout), (2, b""))
        self.assertEqual(run.stderr.count(b"\n"), 1, run.stderr)
        self.assertIn(b"not a database", run.stderr)


class BenchmarkSmokeTest(unittest.TestCase):
    """benchmark/round_trips.py measures real, successful round trips (its figures are never asserted)."""

    def test_round_trips_returns_one_positive_sample_per_call(self):
        samples = round_trips.round_trips([sys.executable, SERVER, "--demo"], round_trips.TOOL,
                                        round_trips.demo_article(), count=5, warm_up=2)
        self.assertEqual(len(samples), 5)
        self.assertTrue(all(sample > 0 for sample in samples))
        self.assertEqual(set(round_trips.summary(samples)), {"median", "p99", "min", "max"})

    def test_a_failing_call_stops_the_benchmark(self):
        with self.assertRaisesRegex(RuntimeError, "not_found"):
            round_trips.round_trips([sys.executable, SERVER, "--demo"], round_trips.TOOL,
                                  {"knowledge_base_id": KB, "article_id": "missing"}, count=1, warm_up=0)

    def test_the_sdk_server_without_the_mcp_package_exits_2_with_one_line(self):
        # -S: no site-packages, where mcp lives (even in .venv); -E: no PYTHONPATH to find it elsewhere
        run = subprocess.run([sys.executable, "-S", "-E", round_trips.SDK_SERVER], capture_output=True, timeout=WAIT,
                             cwd=ROOT, stdin=subprocess.DEVNULL)
        self.assertEqual((run.returncode, run.stdout), (2, b""))
        self.assertEqual(run.stderr.count(b"\n"), 1, run.stderr)
        self.assertIn(b"needs the mcp package", run.stderr)
        self.assertIn(b"make conformance", run.stderr)


if __name__ == "__main__":
    unittest.main()
