"""Bad input on every argument of every tool gets its rejection and writes nothing: no row, no event, no key."""

import unittest

from tests import helpers
from tests.helpers import KB, snapshot, support_store


def bad_values(rules):
    """(what is wrong, value, the rule that must reject it) for one argument's schema."""
    yield "null", None, "type"
    if rules["type"] == "integer":
        yield "a bool", True, "type"
        yield "a float", 1.0, "type"
        yield "a string of digits", "5", "type"
        yield "NaN", float("nan"), "type"
        yield "a list", [1], "type"
        yield "below the minimum", rules["minimum"] - 1, "minimum"
        yield "far below", -(10 ** 9), "minimum"
        if "maximum" in rules:
            yield "above the maximum", rules["maximum"] + 1, "maximum"
            yield "far above", 10 ** 9, "maximum"
    if rules["type"] == "string":
        yield "an integer", 7, "type"
        yield "a bool", False, "type"
        yield "a list", ["text"], "type"
        yield "an object", {"text": "x"}, "type"
        yield "a lone surrogate", "ab\ud800cd", "encoding"
        if "enum" in rules:
            yield "an unknown resource type", "knowledge-base", "enum"
            return
        if "format" in rules:
            yield "not a date-time", "2026-11-09 09:15", "format"
            yield "a date only", "2026-11-09", "format"
            return
        if rules["minLength"] > 0:
            yield "too short", "x" * (rules["minLength"] - 1), "minLength"
        yield "too long", "x" * (rules["maxLength"] + 1), "maxLength"


class BadInputTest(unittest.TestCase):
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

    def assertRejectedUnchanged(self, name, arguments, code, argument=None, rule=None):
        before = snapshot(self.store)
        result = self.store.call_tool(name, arguments)
        self.assertEqual(result.get("error"), code, result)
        if argument is not None:
            self.assertEqual((result["argument"], result["rule"]), (argument, rule), result)
            self.assertIn(f'"{argument}"', result["message"])
        helpers.as_json(result)
        self.assertEqual(snapshot(self.store), before, "a rejected call wrote something")

    def test_the_good_calls_succeed_so_each_rejection_below_is_the_bad_value(self):
        for name, arguments in self.good.items():
            self.assertNotIn("error", self.store.call_tool(name, arguments), name)

    def test_every_bad_value_of_every_argument_is_rejected_by_name(self):
        cases = 0
        for tool in self.store.list_tools():
            for argument, rules in tool["inputSchema"]["properties"].items():
                for what, value, rule in bad_values(rules):
                    arguments = dict(self.good[tool["name"]], **{argument: value})
                    with self.subTest(tool=tool["name"], argument=argument, bad=what):
                        self.assertRejectedUnchanged(tool["name"], arguments, "invalid_arguments", argument, rule)
                    cases += 1
        self.assertGreater(cases, 100)

    def test_every_missing_required_argument_is_named(self):
        for tool in self.store.list_tools():
            for argument in tool["inputSchema"]["required"]:
                arguments = {k: v for k, v in self.good[tool["name"]].items() if k != argument}
                with self.subTest(tool=tool["name"], missing=argument):
                    self.assertRejectedUnchanged(tool["name"], arguments, "invalid_arguments", argument, "required")

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
