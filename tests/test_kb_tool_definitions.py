"""The four knowledge-base tools are listed as published, and the listing is what every call is checked against."""

import json
import unittest

from tests import helpers
from tests.helpers import KB, support_store
from tests.schema_cases import boundary_cases
from osfoundry_tools.core.checks import check
from osfoundry_tools.stores import kb_store

# The trimmed tools/list of 2026-11-08, as the articles publish it.
HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")

PUBLISHED = json.loads("""[
 {"name": "search_knowledge_base", "description": "Search current published articles in one granted knowledge base. Results cite the article ID and updated time; this is a live database read.", "inputSchema": {"required": ["knowledge_base_id", "query"], "properties": {"query": {"type": "string", "minLength": 2, "maxLength": 200}, "limit": {"type": "integer", "minimum": 1, "maximum": 20}}}, "annotations": {"readOnlyHint": true}},
 {"name": "read_knowledge_article", "description": "Read one current published article by ID from a granted knowledge base and return a stable citation.", "inputSchema": {"required": ["knowledge_base_id", "article_id"]}, "annotations": {"readOnlyHint": true}},
 {"name": "edit_knowledge_article", "description": "Replace article content and optionally its title. Supply the version from read_knowledge_article; concurrent changes are rejected.", "inputSchema": {"required": ["knowledge_base_id", "article_id", "content", "expected_version", "idempotency_key"]}, "annotations": {"readOnlyHint": false, "destructiveHint": true, "openWorldHint": true}},
 {"name": "poll_resource_events", "description": "Resume from an event sequence for one granted channel, Note, knowledge base, record, or session.", "inputSchema": {"required": ["resource_type", "resource_id"], "properties": {"after_sequence": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1, "maximum": 100}}}, "annotations": {"readOnlyHint": true}}
]""")  # noqa: E501  (quoted verbatim, one tool a line)


class PublishedDefinitionsTest(unittest.TestCase):
    def setUp(self):
        self.listed = {tool["name"]: tool for tool in kb_store.connect().list_tools()}

    def test_the_store_lists_exactly_the_four_published_tools(self):
        self.assertEqual(list(self.listed), [tool["name"] for tool in PUBLISHED])

    def test_required_arguments_are_the_published_ones(self):
        for published in PUBLISHED:
            schema = self.listed[published["name"]]["inputSchema"]
            self.assertEqual(schema["required"], published["inputSchema"]["required"], published["name"])

    def test_published_limits_are_kept_word_for_word(self):
        for published in PUBLISHED:
            properties = self.listed[published["name"]]["inputSchema"]["properties"]
            for name, rules in published["inputSchema"].get("properties", {}).items():
                self.assertLessEqual(rules.items(), properties[name].items(), f"{published['name']}.{name}")

    def test_every_published_annotation_is_kept(self):
        for published in PUBLISHED:
            listed = self.listed[published["name"]]["annotations"]
            self.assertLessEqual(published["annotations"].items(), listed.items(), published["name"])

    def test_every_hint_is_set_explicitly_so_no_client_assumes_the_worst(self):
        for name, listed in self.listed.items():
            self.assertEqual(sorted(listed["annotations"]), sorted(HINTS), name)
            self.assertTrue(all(isinstance(v, bool) for v in listed["annotations"].values()), name)

    def test_only_the_edit_leaves_the_conversation_and_it_is_idempotent_by_its_key(self):
        open_world = [name for name, listed in self.listed.items() if listed["annotations"]["openWorldHint"]]
        self.assertEqual(open_world, ["edit_knowledge_article"])
        self.assertTrue(self.listed["edit_knowledge_article"]["annotations"]["idempotentHint"])
        self.assertFalse(self.listed["search_knowledge_base"]["annotations"]["destructiveHint"])

    def test_descriptions_open_with_the_published_sentence(self):
        for published in PUBLISHED:
            self.assertTrue(self.listed[published["name"]]["description"].startswith(published["description"]))

    def test_the_edit_description_says_to_reread_and_that_the_version_is_the_citations_updated_at(self):
        description = self.listed["edit_knowledge_article"]["description"]
        self.assertIn("read_knowledge_article right before editing", description)
        self.assertIn("updated_at (the version in its citation)", description)

    def test_the_edit_tool_takes_an_optional_title(self):
        schema = self.listed["edit_knowledge_article"]["inputSchema"]
        self.assertIn("title", schema["properties"])
        self.assertNotIn("title", schema["required"])

    def test_expected_version_is_a_date_time_as_osfoundrys_client_types_it(self):
        version = self.listed["edit_knowledge_article"]["inputSchema"]["properties"]["expected_version"]
        self.assertEqual((version["type"], version["format"]), ("string", "date-time"))

    def test_every_argument_has_a_type_and_no_other_argument_is_accepted(self):
        for tool in self.listed.values():
            schema = tool["inputSchema"]
            self.assertEqual((schema["type"], schema["additionalProperties"]), ("object", False), tool["name"])
            self.assertLessEqual(set(schema["required"]), set(schema["properties"]))
            for name, rules in schema["properties"].items():
                self.assertIn("type", rules, f"{tool['name']}.{name}")
                self.assertTrue(rules.get("description"), f"{tool['name']}.{name}")

    def test_the_listing_is_plain_json(self):
        self.assertEqual(json.loads(json.dumps(list(self.listed.values()))), list(self.listed.values()))


class OneDefinitionTest(unittest.TestCase):
    """Every bound the listing shows is the bound call_tool enforces: move one, and these fail."""

    def test_every_listed_bound_is_enforced_at_the_edge(self):
        store, _, ids = support_store()
        version = helpers.read(store, ids[0])["updated_at"]
        base = {
            "search_knowledge_base": {"knowledge_base_id": KB, "query": "password"},
            "read_knowledge_article": {"knowledge_base_id": KB, "article_id": ids[0]},
            "edit_knowledge_article": {"knowledge_base_id": KB, "article_id": ids[0], "content": "x",
                                       "expected_version": version, "idempotency_key": "k"},
            "poll_resource_events": {"resource_type": "knowledge_base", "resource_id": KB},
        }
        for tool in store.list_tools():
            for name, value, accepted in boundary_cases(tool["inputSchema"]):
                arguments = dict(base[tool["name"]], **{name: value})
                result = store.call_tool(tool["name"], arguments)
                rejected_here = result.get("error") == "invalid_arguments" and result.get("argument") == name
                size = len(value) if isinstance(value, str) else value
                with self.subTest(tool=tool["name"], argument=name, size=size):
                    self.assertEqual(rejected_here, not accepted, result)


    def test_changing_a_listing_does_not_change_what_is_enforced(self):
        store, _, _ = support_store()
        listed = store.list_tools()
        listed[0]["inputSchema"]["properties"]["limit"]["maximum"] = 1000
        listed[0]["inputSchema"]["additionalProperties"] = True
        result = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": "pw", "limit": 500})
        self.assertEqual(result["rule"], "maximum")
        self.assertEqual(store.list_tools()[0]["inputSchema"]["properties"]["limit"]["maximum"], 20)


class OutputSchemaTest(unittest.TestCase):
    def test_every_successful_result_conforms_to_its_output_schema(self):
        store, clock, ids = support_store()
        version = helpers.read(store, ids[1])["updated_at"]
        calls = [
            ("search_knowledge_base", {"knowledge_base_id": KB, "query": "password email"}),
            ("read_knowledge_article", {"knowledge_base_id": KB, "article_id": ids[0]}),
            ("edit_knowledge_article", {"knowledge_base_id": KB, "article_id": ids[1], "content": "PDF only.",
                                        "title": "Invoices", "expected_version": version, "idempotency_key": "k"}),
            ("edit_knowledge_article", {"knowledge_base_id": KB, "article_id": ids[1], "content": "PDF only.",
                                        "title": "Invoices", "expected_version": version, "idempotency_key": "k"}),
            ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB, "limit": 2}),
        ]
        for name, arguments in calls:
            result = store.call_tool(name, arguments)
            self.assertNotIn("error", result, result)
            check(store.tool(name).output_schema, result, "result")
            helpers.as_json(result)


if __name__ == "__main__":
    unittest.main()
