"""Bad input on every argument of every tool gets its rejection and writes nothing: no row, no event, no key."""

import unittest

from tests import helpers
from tests.helpers import KB, support_store
from tests.schema_cases import SchemaDrivenCases


class BadInputTest(SchemaDrivenCases, unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()
        version = helpers.read(self.store, self.ids[0])["updated_at"]
        self.good = {
            "search_knowledge_base": {"knowledge_base_id": KB, "query": "password", "limit": 5},
            "read_knowledge_article": {"knowledge_base_id": KB, "article_id": self.ids[0]},
            "edit_knowledge_article": {"knowledge_base_id": KB, "article_id": self.ids[0], "content": "x",
                                       "title": "T", "expected_version": version, "idempotency_key": "k1"},
            "poll_resource_events": {"resource_type": "knowledge_base", "resource_id": KB,
                                     "after_sequence": 0, "limit": 10},
        }

    def test_an_unknown_argument_is_named(self):
        for name, arguments in self.good.items():
            with self.subTest(tool=name):
                self.assertRejectedUnchanged(name, dict(arguments, knowledgebase_id=KB), "invalid_arguments",
                                             "knowledgebase_id", "additionalProperties")

    def test_arguments_that_are_not_an_object_are_rejected(self):
        for name in self.good:
            for value in (None, [], "knowledge_base_id=kb-support", 1):
                with self.subTest(tool=name, arguments=value):
                    self.assertRejectedUnchanged(name, value, "invalid_arguments", "arguments", "type")

    def test_an_unknown_tool_is_rejected_with_the_tools_there_are(self):
        for name in ("search", "Search_Knowledge_Base", "", "list_record_items", None, 3):
            with self.subTest(tool=name):
                self.assertRejectedUnchanged(name, {}, "unknown_tool")

    def test_an_unknown_resource_type_is_rejected_with_the_allowed_ones(self):
        result = self.store.call_tool("poll_resource_events", dict(self.good["poll_resource_events"],
                                                                   resource_type="articles"))
        self.assertEqual(result["rule"], "enum")
        self.assertIn('"knowledge_base"', result["message"])

    def test_a_resource_type_served_elsewhere_is_unsupported_and_writes_nothing(self):
        self.assertRejectedUnchanged("poll_resource_events", dict(self.good["poll_resource_events"],
                                                                  resource_type="record"),
                                     "unsupported_resource_type")

    def test_missing_resources_are_not_found_and_write_nothing(self):
        for name, argument in (("search_knowledge_base", "knowledge_base_id"),
                               ("read_knowledge_article", "article_id"),
                               ("edit_knowledge_article", "article_id"),
                               ("edit_knowledge_article", "knowledge_base_id"),
                               ("poll_resource_events", "resource_id")):
            with self.subTest(tool=name, argument=argument):
                self.assertRejectedUnchanged(name, dict(self.good[name], **{argument: "nowhere"}), "not_found")

    def test_a_rejection_quotes_the_value_it_got(self):
        result = self.store.call_tool("search_knowledge_base", dict(self.good["search_knowledge_base"], limit=50))
        self.assertEqual(result["got"], 50)
        self.assertIn("an integer from 1 to 20; got 50", result["message"])


if __name__ == "__main__":
    unittest.main()
