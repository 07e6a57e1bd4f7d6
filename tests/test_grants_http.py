"""A narrow token against a real server over Streamable HTTP, in both eras of MCP: a knowledge base and a channel
outside its grant answer every tool, resources method, subscription and listen exactly as ones that do not exist,
never show in resources/list or in what a stream sends, and a key another token of its caller used on them replays
nothing; a session answers only the token that opened it, a rotated token of the same caller included.

Each answer for the hidden ID is compared, byte for byte, with the answer for an absent ID of the same length, once
each ID is written as ID."""

import base64
import http.client
import json
import os
import tempfile
import threading
import unittest

from osfoundry_tools.server import sessions, streamable_http, tokens
from tests.helpers import KB
from tests.record_helpers import BUGS
from tests.test_mcp_eras import MODERN, server_of

HIDDEN_KB, ABSENT_KB = "hidden-kb", "absent-kb"
HIDDEN_CHANNEL, ABSENT_CHANNEL = "hidden-channel", "absent-channel"
NARROW, NARROW_NEXT, WIDE = "narrow-token-5f2c9e1a7b", "narrow-token-rotated-8d3b6a0f4c", "wide-token-3e7a1c9b5d"
SCOPES = frozenset({tokens.WRITE_SCOPE})
NARROW_GRANT = tokens.Grant.of("narrow", {"knowledge_base": {KB}, "record": {BUGS}}, SCOPES)
WIDE_GRANT = tokens.Grant.of("narrow", {"knowledge_base": None, "record": None}, SCOPES)  # the caller's other token
WAIT = 10.0


def hidden_and_absent(template):
    """A call aimed at the hidden knowledge base and channel, and the same call aimed at absent ones."""
    text = json.dumps(template)
    return tuple(json.loads(text.replace("{kb}", kb).replace("{channel}", channel))
                 for kb, channel in ((HIDDEN_KB, HIDDEN_CHANNEL), (ABSENT_KB, ABSENT_CHANNEL)))


def tool_calls(article_version):
    return [
        ("search_knowledge_base", {"knowledge_base_id": "{kb}", "query": "salaries"}),
        ("read_knowledge_article", {"knowledge_base_id": "{kb}", "article_id": "pay-1"}),
        ("read_knowledge_article", {"knowledge_base_id": "{kb}", "article_id": "pay-1", "section": "x"}),
        ("edit_knowledge_article", {"knowledge_base_id": "{kb}", "article_id": "pay-1", "content": "Cut.",
                                    "expected_version": article_version, "idempotency_key": "wide-key"}),
        ("edit_knowledge_article", {"knowledge_base_id": "{kb}", "article_id": "pay-1", "content": "Cut.",
                                    "expected_version": "2000-01-01T00:00:00Z", "idempotency_key": "stale"}),
        ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": "{kb}"}),
        ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": "{kb}", "after_sequence": 1}),
        ("list_record_items", {"record_channel_id": "{channel}"}),
        ("list_record_items", {"record_channel_id": "{channel}", "before_id": "sec-1"}),
        ("read_record_item", {"record_channel_id": "{channel}", "item_id": "sec-1"}),
        ("edit_record_item", {"record_channel_id": "{channel}", "item_id": "sec-1", "values": {"title": "Cut."},
                              "expected_version": 1, "idempotency_key": "wide-key"}),
        ("edit_record_item", {"record_channel_id": "{channel}", "item_id": "sec-1", "values": {"nope": 1},
                              "expected_version": 9, "idempotency_key": "bad"}),
        ("poll_resource_events", {"resource_type": "record", "resource_id": "{channel}"}),
    ]


URIS = ["osfoundry://knowledge_base/{kb}/articles/pay-1", "osfoundry://knowledge_base/{kb}",
        "osfoundry://knowledge_base/{kb}?after_sequence=0", "osfoundry://knowledge_base/{kb}?after_sequence=99",
        "osfoundry://knowledge_base/{kb}/articles/pay-1?after_sequence=0", "osfoundry://record/{channel}",
        "osfoundry://record/{channel}/items/sec-1", "osfoundry://record/{channel}/items/sec-1?after_sequence=0"]


class NarrowTokenTest(unittest.TestCase):
    def setUp(self):
        self.server, self.articles, _, (self.kb, self.records) = server_of()
        self.addCleanup(self.kb.close)
        self.addCleanup(self.records.close)
        self.addCleanup(self.server.hub.stop)
        self.kb.create_knowledge_base(HIDDEN_KB, "Payroll")
        self.kb.create_article(HIDDEN_KB, "Salaries", "Salaries of everyone.", article_id="pay-1")
        self.records.create_channel(HIDDEN_CHANNEL, "Incidents", [{"key": "title", "label": "Title", "type": "text"}])
        self.records.create_item(HIDDEN_CHANNEL, {"title": "Breach"}, item_id="sec-1")
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        book = sessions.Book(os.path.join(folder.name, sessions.BOOK_NAME))
        known = tokens.Tokens({NARROW: NARROW_GRANT, NARROW_NEXT: NARROW_GRANT, WIDE: WIDE_GRANT})
        self.http = streamable_http.make_server(self.server.handle, streamable_http.HttpOptions(
            "127.0.0.1", 0, known, frozenset(), streamable_http.Limits(request_seconds=5.0), 2.0, book,
            self.server.hub))
        thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()

        def stop():
            self.http.shutdown()
            self.http.stop_gracefully(1.0)
            thread.join(WAIT)

        self.addCleanup(stop)

    def post(self, body, token=NARROW, session=None):
        """(status, Mcp-Session-Id, the body as sent) of one POST; a stream's response itself."""
        connection = http.client.HTTPConnection(*self.http.server_address[:2], timeout=WAIT)
        self.addCleanup(connection.close)
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream",
                   "Content-Type": "application/json"}
        if session is not None:
            headers["Mcp-Session-Id"] = session
        connection.request("POST", "/mcp", json.dumps(body).encode(), headers)
        response = connection.getresponse()
        if response.getheader("Content-Type") == "text/event-stream":
            return response
        return response.status, response.getheader("Mcp-Session-Id"), response.read().decode()

    def ask(self, method, params, stateless, token=NARROW, session=None):
        params = dict(params, _meta=MODERN) if stateless else params
        return self.post({"jsonrpc": "2.0", "id": 5, "method": method, "params": params}, token, session)

    def initialize(self, token=NARROW):
        status, session, _ = self.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            token)
        self.assertEqual(status, 200)
        return session

    def assert_alike(self, hidden, absent):
        """The two answers, each ID written as ID, are the same bytes (and neither is a stream)."""
        self.assertIsInstance(hidden, tuple, "the hidden one was answered with a stream")
        self.assertIsInstance(absent, tuple, "the absent one was answered with a stream")
        shown = [(status, text.replace(kb, "ID").replace(channel, "ID"))
                 for (status, _, text), kb, channel in ((hidden, HIDDEN_KB, HIDDEN_CHANNEL),
                                                        (absent, ABSENT_KB, ABSENT_CHANNEL))]
        self.assertEqual(shown[0], shown[1])
        self.assertNotIn("Salaries", hidden[2])
        self.assertNotIn("Breach", hidden[2])

    def test_every_tool_answers_a_hidden_resource_as_an_absent_one_in_both_eras(self):
        version = self.kb.article(HIDDEN_KB, "pay-1")["updated_at"]
        first = self.ask("tools/call", {"name": "edit_knowledge_article", "arguments": hidden_and_absent(
            tool_calls(version)[3][1])[0]}, True, WIDE)  # the caller's other token uses the key on the hidden one
        self.assertNotIn("isError\":true", first[2].replace(" ", ""))
        version = self.kb.article(HIDDEN_KB, "pay-1")["updated_at"]
        for name, template in tool_calls(version):
            hidden, absent = hidden_and_absent(template)
            for stateless in (True, False):
                with self.subTest(tool=name, arguments=template, stateless=stateless):
                    self.assert_alike(self.ask("tools/call", {"name": name, "arguments": hidden}, stateless),
                                      self.ask("tools/call", {"name": name, "arguments": absent}, stateless))

    def test_resources_read_subscribe_and_listen_answer_a_hidden_uri_as_an_absent_one(self):
        session = self.initialize()
        for template in URIS:
            hidden, absent = hidden_and_absent(template)
            with self.subTest(uri=template):
                for stateless in (True, False):
                    self.assert_alike(self.ask("resources/read", {"uri": hidden}, stateless),
                                      self.ask("resources/read", {"uri": absent}, stateless))
                self.assert_alike(self.ask("resources/subscribe", {"uri": hidden}, False, session=session),
                                  self.ask("resources/subscribe", {"uri": absent}, False, session=session))
                listens = [self.ask("subscriptions/listen", {"notifications": {"resourceSubscriptions": [uri]}},
                                    True) for uri in (hidden, absent)]
                self.assert_alike(*listens)

    def test_resources_list_names_nothing_hidden_whatever_the_cursor(self):
        for stateless in (True, False):
            cursor, uris = None, []
            while True:
                status, _, text = self.ask("resources/list", {} if cursor is None else {"cursor": cursor}, stateless)
                self.assertEqual(status, 200, text)
                page = json.loads(text)["result"]
                uris += [resource["uri"] for resource in page["resources"]]
                cursor = page.get("nextCursor")
                if cursor is None:
                    break
            self.assertTrue(uris)
            self.assertFalse([uri for uri in uris if HIDDEN_KB in uri or HIDDEN_CHANNEL in uri])
        for position in ([0, HIDDEN_KB, 0], [1, HIDDEN_CHANNEL, 0], [0, "a", 0], [1, "a", 0]):
            with self.subTest(cursor=position):
                _, _, text = self.ask("resources/list", {"cursor": encode(position)}, True)
                self.assertNotIn("hidden-", text)

    def test_a_stream_listening_for_every_change_hears_nothing_of_a_hidden_one(self):
        stream = self.ask("subscriptions/listen", {"notifications": {
            "resourceSubscriptions": [f"osfoundry://knowledge_base/{KB}"], "resourcesListChanged": True}}, True)
        self.assertEqual(json.loads(next_event(stream))["method"], "notifications/subscriptions/acknowledged")
        self.kb.create_article(HIDDEN_KB, "Bonuses", "Bonuses of everyone.", article_id="pay-2")
        hidden = self.kb.article(HIDDEN_KB, "pay-1")["updated_at"]
        self.ask("tools/call", {"name": "edit_knowledge_article", "arguments": {
            "knowledge_base_id": HIDDEN_KB, "article_id": "pay-1", "content": "Cut.", "expected_version": hidden,
            "idempotency_key": "wide-edit"}}, True, WIDE)
        self.kb.create_article(KB, "Opening hours", "We open at nine.", article_id="hours-1")
        opened = f"osfoundry://knowledge_base/{KB}/articles/hours-1"
        updated, listed = json.loads(next_event(stream)), json.loads(next_event(stream))  # the first news it hears
        self.assertEqual((updated["method"], updated["params"].get("uri")), ("notifications/resources/updated", opened))
        self.assertEqual((listed["method"], listed["params"]["_meta"].get("io.osfoundry/uri")),
                         ("notifications/resources/list_changed", opened))
        stream.close()

    def test_a_session_answers_only_its_token_not_even_a_rotated_token_of_its_caller(self):
        session = self.initialize()
        for token in (NARROW_NEXT, WIDE):
            with self.subTest(token=token):
                status, _, text = self.ask("tools/list", {}, False, token, session)
                self.assertEqual(status, 404, text)
                status, _, text = self.ask("resources/subscribe", {"uri": f"osfoundry://knowledge_base/{KB}"},
                                           False, token, session)
                self.assertEqual(status, 404, text)
        self.assertEqual(self.ask("tools/list", {}, False, NARROW, session)[0], 200)


def encode(position):
    """A resources/list cursor of ours at `position`: [kind's index, log ID, number]."""
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


def next_event(response):
    """The data of the next server-sent event of a stream (comments and keep-alives passed over)."""
    data = []
    while True:
        line = response.fp.readline().decode()
        if not line:
            raise AssertionError("the stream ended")
        if line.startswith("data:"):
            data.append(line[5:].strip())
        elif line in ("\n", "\r\n") and data:
            return "\n".join(data)


if __name__ == "__main__":
    unittest.main()
