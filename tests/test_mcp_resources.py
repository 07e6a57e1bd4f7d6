"""Articles and items as MCP resources, in both eras, without the SDK: resources/list page by page, the templates,
resources/read with the version and citation, and a grant applied exactly as the read tools apply it."""

import base64
import json
import unittest
from unittest import mock

from osfoundry_tools.server import resources, tokens
from tests.helpers import KB, OTHER_KB
from tests.record_helpers import BUGS
from tests.test_mcp_eras import READER, request, server_of

KB_ONLY = tokens.Grant.of("kb-reader", {"knowledge_base": [KB]}, frozenset())


def article_uri(article_id, kb=KB):
    return f"osfoundry://knowledge_base/{kb}/articles/{article_id}"


class ResourcesTest(unittest.TestCase):
    def setUp(self):
        self.server, self.articles, self.items, stores = server_of()
        for store in stores:
            self.addCleanup(store.close)

    def ask(self, method, params=None, grant=None, meta=True):
        message = request(method, params) if meta else request(method, params, meta=None)
        return self.server.handle(message, grant=grant)

    def every_page(self, grant=None, meta=True):
        uris, cursor, pages = [], None, 0
        while True:
            answer = self.ask("resources/list", {"cursor": cursor} if cursor else {}, grant, meta)["result"]
            uris += [entry["uri"] for entry in answer["resources"]]
            pages += 1
            cursor = answer.get("nextCursor")
            if cursor is None:
                return uris, pages

    def test_every_published_article_and_live_item_is_listed_once_page_by_page_in_both_eras(self):
        expected = [article_uri(a) for a in self.articles] + [article_uri("refund-1", OTHER_KB)]
        for meta in (True, False):
            with self.subTest(stateless=meta), mock.patch.object(resources, "PAGE", 2):
                uris, pages = self.every_page(meta=meta)
                self.assertEqual(len(uris), len(set(uris)))
                self.assertEqual(sorted(u for u in uris if "knowledge_base" in u), sorted(expected))
                self.assertIn(f"osfoundry://record/{BUGS}/items/{self.items[0]}", uris)
                self.assertNotIn(article_uri("draft-1"), uris)
                self.assertNotIn(article_uri("gone-1"), uris)
                self.assertGreater(pages, len(uris) // 2 - 1)

    def test_a_grant_lists_only_what_it_may_read(self):
        uris, _ = self.every_page(grant=KB_ONLY)
        self.assertEqual(sorted(uris), sorted(article_uri(a) for a in self.articles))

    def test_read_answers_what_the_read_tool_answers_with_version_and_citation(self):
        content = self.ask("resources/read", {"uri": article_uri(self.articles[0])})["result"]["contents"][0]
        answer = json.loads(content["text"])
        self.assertEqual(answer["article_id"], self.articles[0])
        self.assertEqual(content["_meta"]["io.osfoundry/version"], answer["updated_at"])
        self.assertEqual(content["_meta"]["io.osfoundry/citation"], answer["citation"])
        item = self.ask("resources/read", {"uri": f"osfoundry://record/{BUGS}/items/{self.items[0]}"}, meta=False)
        self.assertEqual(json.loads(item["result"]["contents"][0]["text"])["item_id"], self.items[0])

    def test_ungranted_unpublished_draft_and_missing_read_alike(self):
        cases = {"ungranted": (article_uri("refund-1", OTHER_KB), KB_ONLY),
                 "unpublished": (article_uri("gone-1"), None),
                 "draft": (article_uri("draft-1"), None), "missing": (article_uri("nope"), None),
                 "a log": (f"osfoundry://knowledge_base/{KB}", None), "not ours": ("https://example.com/x", None),
                 "a query": (article_uri(self.articles[0]) + "?after_sequence=1", None)}
        shapes = set()
        for case, (uri, grant) in cases.items():
            with self.subTest(case=case):
                error = self.ask("resources/read", {"uri": uri}, grant)["error"]
                self.assertEqual(error["code"], -32002)
                shapes.add((error["message"].replace(json.dumps(uri), "URI"), tuple(error["data"])))
        self.assertEqual(len(shapes), 1)

    def test_bad_params_are_invalid_params(self):
        for method, params in (("resources/read", {}), ("resources/read", {"uri": 5}),
                               ("resources/list", {"cursor": "not-ours"}), ("resources/list", {"cursor": 7}),
                               ("resources/templates/list", {"cursor": "x"})):
            with self.subTest(method=method, params=params):
                self.assertEqual(self.ask(method, params)["error"]["code"], -32602)

    def test_a_cursor_out_of_range_too_deep_or_too_long_is_invalid_params_never_an_internal_error(self):
        def cursor(text):
            return base64.urlsafe_b64encode(text.encode()).decode()

        cursors = {"a number past 64 bits": cursor('[0, "", 99999999999999999999]'),
                   "a negative number": cursor('[0, "", -1]'), "a kind of true": cursor('[true, "", 0]'),
                   "no such kind": cursor('[2, "", 0]'), "a number of 1.5": cursor('[0, "", 1.5]'),
                   "NaN": cursor('[0, "", NaN]'), "an ID too long": cursor(json.dumps([0, "k" * 129, 0])),
                   "an object": cursor('{"kind": 0}'), "four parts": cursor('[0, "", 0, 0]'),
                   "nested deep": cursor("[" * 2000), "nested deeper than any bound": cursor("[" * 100_000),
                   "not UTF-8": base64.urlsafe_b64encode(b"\xff\xfe[0]").decode(), "not ASCII": "\u00b2\u0663",
                   "very long": "A" * 1_000_000, "a list": [cursor('[0, "", 0]')], "a number": 5}
        for case, value in cursors.items():
            with self.subTest(case=case):
                error = self.ask("resources/list", {"cursor": value})["error"]
                self.assertEqual(error["code"], -32602)
                self.assertIn("unknown cursor", error["message"])
        self.assertIn("resources", self.ask("resources/list", {"cursor": cursor('[1, "", 0]')})["result"])

    def test_the_templates_name_both_kinds(self):
        templates = self.ask("resources/templates/list")["result"]["resourceTemplates"]
        self.assertEqual([t["uriTemplate"] for t in templates],
                         ["osfoundry://knowledge_base/{knowledge_base_id}/articles/{article_id}",
                          "osfoundry://record/{record_channel_id}/items/{item_id}"])

    def test_both_eras_declare_resources_with_subscribe_and_list_changes_only_at_2026(self):
        discovered = self.ask("server/discover")["result"]["capabilities"]
        initialized = self.server.handle(request("initialize", {"protocolVersion": "2025-11-25"}, meta=None))
        self.assertEqual(discovered["resources"], {"subscribe": True, "listChanged": True})  # listen's field
        self.assertEqual(initialized["result"]["capabilities"]["resources"], {"subscribe": True, "listChanged": False})

    def test_a_reader_token_reads_resources_too(self):
        answer = self.ask("resources/read", {"uri": article_uri(self.articles[1])}, READER)
        self.assertIn("contents", answer["result"])


if __name__ == "__main__":
    unittest.main()
