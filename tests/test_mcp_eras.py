"""Both eras of MCP from one server, without the SDK: the stateless 2026-07-28 revision request by request, the
handshake era as before, and a token's grant applied to every call it makes."""

import json
import threading
import unittest

from osfoundry_tools.server import methods, protocol, routing, tokens
from tests.helpers import KB, support_store
from tests.record_helpers import BUGS, bug_store

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"}}
WRITER = tokens.Grant.of("alice", {"knowledge_base": None, "record": None}, frozenset({tokens.WRITE_SCOPE}))
READER = tokens.Grant.of("reader", {"knowledge_base": None, "record": None}, frozenset())


def server_of(kb_options=None, record_options=None):
    kb, _, article_ids = support_store(**(kb_options or {}))
    records, _, item_ids = bug_store(**(record_options or {}))
    tools = routing.Tools(routing.by_resource_type([kb, records]), threading.Lock())
    return methods.Server(tools), article_ids, item_ids, (kb, records)


def request(method, params=None, meta=MODERN, request_id=1):
    params = dict(params or {})
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def text_of(result):
    return json.loads(result["content"][0]["text"])


class StatelessEraTest(unittest.TestCase):
    def setUp(self):
        self.server, self.articles, self.items, stores = server_of()
        for store in stores:
            self.addCleanup(store.close)

    def test_discover_names_every_version_the_capabilities_and_who_answers(self):
        result = self.server.handle(request("server/discover"))["result"]
        self.assertEqual(result["supportedVersions"][0], "2026-07-28")
        self.assertIn("2024-11-05", result["supportedVersions"])
        self.assertEqual(result["capabilities"], {"tools": {}, "resources": {"subscribe": True, "listChanged": True}})
        self.assertEqual(result["resultType"], "complete")
        self.assertEqual(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
                         protocol.SERVER_INFO["name"])
        self.assertIn("instructions", result)

    def test_every_result_is_complete_and_stamped_and_the_tool_list_says_how_long_to_keep_it(self):
        listed = self.server.handle(request("tools/list"))["result"]
        self.assertEqual([tool["name"] for tool in listed["tools"]], [t["name"] for t in self.server.tools.listing()])
        self.assertEqual((listed["cacheScope"], listed["ttlMs"]), ("public", protocol.TOOLS_TTL_MS))
        called = self.server.handle(request("tools/call", {"name": "read_knowledge_article", "arguments": {
            "knowledge_base_id": KB, "article_id": self.articles[0]}}))["result"]
        self.assertEqual((called["resultType"], called["isError"]), ("complete", False))
        self.assertIn("io.modelcontextprotocol/serverInfo", called["_meta"])
        self.assertEqual(called["structuredContent"]["article_id"], self.articles[0])

    def test_an_unknown_version_is_32022_naming_what_is_served_and_what_was_asked(self):
        answer = self.server.handle(request("tools/list", meta=dict(MODERN, **{
            "io.modelcontextprotocol/protocolVersion": "2099-01-01"})))
        self.assertEqual(answer["error"]["code"], -32022)
        self.assertEqual(answer["error"]["data"], {"supported": list(protocol.SUPPORTED_VERSIONS),
                                                   "requested": "2099-01-01"})

    def test_a_header_that_names_another_version_than_meta_is_32020(self):
        answer = self.server.handle(request("tools/list"), protocol_version="2025-11-25")
        self.assertEqual(answer["error"]["code"], -32020)
        answer = self.server.handle(request("tools/list", meta=None), protocol_version="2026-07-28")
        self.assertEqual(answer["error"]["code"], -32020)

    def test_an_unknown_header_version_is_32022(self):
        answer = self.server.handle(request("tools/list", meta=None), protocol_version="1999-01-01")
        self.assertEqual(answer["error"]["code"], -32022)
        self.assertEqual(answer["error"]["data"]["requested"], "1999-01-01")

    def test_meta_without_client_capabilities_is_invalid_params(self):
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
        self.assertEqual(self.server.handle(request("tools/list", meta=meta))["error"]["code"], -32602)

    def test_ping_and_methods_the_revision_removed_are_unknown_there(self):
        for method in ("ping", "logging/setLevel", "resources/subscribe", "prompts/list"):
            with self.subTest(method=method):
                self.assertEqual(self.server.handle(request(method))["error"]["code"], -32601)


class HandshakeEraTest(unittest.TestCase):
    """Clients before 2026-07-28 and dual-era clients that fall back: as before, whatever came first."""

    def setUp(self):
        self.server, self.articles, _, stores = server_of()
        for store in stores:
            self.addCleanup(store.close)

    def test_discover_without_meta_is_32601_at_once_so_a_dual_era_client_falls_back(self):
        answer = self.server.handle(request("server/discover", meta=None))
        self.assertEqual(answer["error"]["code"], -32601)
        self.assertIn("initialize", answer["error"]["message"])

    def test_initialize_after_a_discover_still_negotiates_and_results_carry_no_stateless_fields(self):
        self.server.handle(request("server/discover"))
        answer = self.server.handle(request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                                           "clientInfo": {"name": "c", "version": "1"}}, meta=None))
        self.assertEqual(answer["result"]["protocolVersion"], "2025-11-25")
        listed = self.server.handle(request("tools/list", meta=None))["result"]
        self.assertEqual(set(listed), {"tools"})
        self.assertEqual(self.server.handle(request("ping", meta=None))["result"], {})


class TokenGrantTest(unittest.TestCase):
    """A token's caller, grant and scopes replace the stores' own for its calls, and for its calls only."""

    def setUp(self):
        self.server, self.articles, self.items, stores = server_of()
        for store in stores:
            self.addCleanup(store.close)

    def call(self, name, arguments, grant):
        return self.server.handle(request("tools/call", {"name": name, "arguments": arguments}), grant=grant)["result"]

    def edit_item(self, grant, key, version=1):
        return self.call("edit_record_item", {"record_channel_id": BUGS, "item_id": self.items[0],
                                              "values": {"title": f"by {grant.caller}"}, "expected_version": version,
                                              "idempotency_key": key}, grant)

    def test_a_token_without_the_write_scope_reads_but_every_edit_is_forbidden(self):
        self.assertFalse(self.call("read_record_item", {"record_channel_id": BUGS, "item_id": self.items[0]},
                                   READER)["isError"])
        self.assertEqual(text_of(self.edit_item(READER, "k"))["error"], "forbidden")
        read = self.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.articles[0]},
                         READER)["structuredContent"]
        edit = self.call("edit_knowledge_article", {"knowledge_base_id": KB, "article_id": self.articles[0],
                                                    "content": "New.", "expected_version": read["updated_at"],
                                                    "idempotency_key": "k"}, READER)
        self.assertEqual(text_of(edit)["error"], "forbidden")
        self.assertFalse(self.edit_item(WRITER, "k")["isError"])

    def test_what_a_grant_leaves_out_looks_absent(self):
        narrow = tokens.Grant.of("narrow", {"knowledge_base": {"kb-billing"}, "record": ()})
        for name, arguments in (("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.articles[0]}),
                                ("list_record_items", {"record_channel_id": BUGS})):
            with self.subTest(tool=name):
                self.assertEqual(text_of(self.call(name, arguments, narrow))["error"], "not_found")
        self.assertFalse(self.call("list_record_items", {"record_channel_id": BUGS}, None)["isError"])

    def test_each_token_caller_has_its_own_idempotency_keys(self):
        first = self.edit_item(WRITER, "same-key")
        other = tokens.Grant.of("bob", {"knowledge_base": None, "record": None}, frozenset({tokens.WRITE_SCOPE}))
        second = self.edit_item(other, "same-key", version=2)
        self.assertEqual(second["structuredContent"]["replay"], False, "bob's key is not alice's")
        self.assertEqual(self.edit_item(WRITER, "same-key")["structuredContent"],
                         dict(first["structuredContent"], replay=True))


if __name__ == "__main__":
    unittest.main()
