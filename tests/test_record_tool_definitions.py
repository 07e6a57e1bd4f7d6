"""The record tools are listed as published, and the listing is what every call is checked against."""

import json
import unittest

from tests.record_helpers import BUGS, bug_store
from tests.schema_cases import boundary_cases
from osfoundry_tools.core.checks import check

# The trimmed tools/list of 2026-11-09, as the records article prints it.
PUBLISHED = json.loads("""[
 {"name": "list_record_items", "description": "List the schema and a bounded page of item previews from one granted record channel. Use read_record_item for the complete values.", "inputSchema": {"required": ["record_channel_id"], "properties": {"record_channel_id": {"type": "string"}, "before_id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}}}, "annotations": {"readOnlyHint": true}},
 {"name": "read_record_item", "description": "Read one item by ID from a granted record channel and return its current version.", "inputSchema": {"required": ["record_channel_id", "item_id"]}},
 {"name": "edit_record_item", "description": "Update validated fields in one record item. Supply the version from read_record_item; concurrent changes are rejected.", "inputSchema": {"required": ["record_channel_id", "item_id", "values", "expected_version", "idempotency_key"], "properties": {"values": {"type": "object"}}}, "annotations": {"readOnlyHint": false, "destructiveHint": true}, "securitySchemes": [{"type": "oauth2", "scopes": ["osfoundry:write"]}]}
]""")  # noqa: E501  (quoted verbatim, one tool a line)


class PublishedDefinitionsTest(unittest.TestCase):
    def setUp(self):
        store, _, _ = bug_store()
        self.listed = {tool["name"]: tool for tool in store.list_tools()}

    def test_the_store_lists_the_three_published_tools_and_the_shared_poll(self):
        self.assertEqual(list(self.listed), [t["name"] for t in PUBLISHED] + ["poll_resource_events"])

    def test_required_arguments_and_published_properties_are_kept_word_for_word(self):
        for published in PUBLISHED:
            schema = self.listed[published["name"]]["inputSchema"]
            self.assertEqual(schema["required"], published["inputSchema"]["required"], published["name"])
            for name, rules in published["inputSchema"].get("properties", {}).items():
                self.assertLessEqual(rules.items(), schema["properties"][name].items(), f"{published['name']}.{name}")

    def test_values_is_an_object_and_nothing_more_as_published(self):
        self.assertEqual(self.listed["edit_record_item"]["inputSchema"]["properties"]["values"], {"type": "object"})

    def test_published_annotations_and_security_schemes_are_kept(self):
        for published in PUBLISHED:
            listed = self.listed[published["name"]]
            self.assertLessEqual(published.get("annotations", {}).items(), listed["annotations"].items())
            self.assertEqual(listed.get("securitySchemes"), published.get("securitySchemes"))

    def test_read_is_marked_read_only_where_the_trimmed_list_showed_no_annotation(self):
        self.assertEqual(self.listed["read_record_item"]["annotations"],
                         {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                          "openWorldHint": False})

    def test_every_hint_is_set_explicitly_and_the_edit_is_open_world_like_the_article_edit(self):
        for name, listed in self.listed.items():
            self.assertEqual(len(listed["annotations"]), 4, name)
        self.assertEqual(self.listed["edit_record_item"]["annotations"],
                         {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True,
                          "openWorldHint": True})

    def test_descriptions_open_with_the_published_sentences(self):
        for published in PUBLISHED:
            self.assertTrue(self.listed[published["name"]]["description"].startswith(published["description"]))

    def test_the_edit_description_asks_for_option_values_and_a_fresh_version(self):
        description = self.listed["edit_record_item"]["description"]
        self.assertIn("never labels", description)
        self.assertIn("read the item again", description)

    def test_expected_version_is_an_integer_from_1(self):
        version = self.listed["edit_record_item"]["inputSchema"]["properties"]["expected_version"]
        self.assertEqual((version["type"], version["minimum"]), ("integer", 1))


class OneDefinitionTest(unittest.TestCase):
    def test_every_listed_bound_is_enforced_at_the_edge(self):
        store, _, ids = bug_store(items=60)
        base = {
            "list_record_items": {"record_channel_id": BUGS},
            "read_record_item": {"record_channel_id": BUGS, "item_id": ids[0]},
            "edit_record_item": {"record_channel_id": BUGS, "item_id": ids[0], "values": {"points": 1},
                                 "expected_version": 1, "idempotency_key": "k"},
            "poll_resource_events": {"resource_type": "record", "resource_id": BUGS},
        }
        for tool in store.list_tools():
            for name, value, accepted in boundary_cases(tool["inputSchema"]):
                result = store.call_tool(tool["name"], dict(base[tool["name"]], **{name: value}))
                rejected_here = result.get("error") == "invalid_arguments" and result.get("argument") == name \
                    and result.get("rule") != "cursor"  # a well-formed before_id naming no item is another error
                with self.subTest(tool=tool["name"], argument=name, value=str(value)[:12]):
                    self.assertEqual(rejected_here, not accepted, result)

    def test_changing_a_listing_does_not_change_what_is_enforced(self):
        store, _, _ = bug_store()
        store.list_tools()[0]["inputSchema"]["properties"]["limit"]["maximum"] = 500
        result = store.call_tool("list_record_items", {"record_channel_id": BUGS, "limit": 51})
        self.assertEqual(result["rule"], "maximum")


class OutputSchemaTest(unittest.TestCase):
    def test_every_successful_result_conforms_to_its_output_schema(self):
        store, _, ids = bug_store(items=3)
        edit = {"record_channel_id": BUGS, "item_id": ids[0], "values": {"status": "fixed"}, "expected_version": 1,
                "idempotency_key": "k"}
        calls = [
            ("list_record_items", {"record_channel_id": BUGS, "limit": 2}),
            ("list_record_items", {"record_channel_id": "every-type"}),
            ("read_record_item", {"record_channel_id": BUGS, "item_id": ids[1]}),
            ("edit_record_item", edit),
            ("edit_record_item", edit),
            ("poll_resource_events", {"resource_type": "record", "resource_id": BUGS, "limit": 2}),
        ]
        for name, arguments in calls:
            result = store.call_tool(name, arguments)
            with self.subTest(tool=name):
                self.assertNotIn("error", result, result)
                check(store.tool(name).output_schema, result, "result")
                json.dumps(result, allow_nan=False)


if __name__ == "__main__":
    unittest.main()
