"""Bad input on every argument of every record tool, and channels out of the grant: clear errors that write nothing."""

import unittest

from tests.helpers import snapshot
from tests.record_helpers import BUGS, OPS, bug_store
from tests.schema_cases import SchemaDrivenCases
from osfoundry_tools.stores import record_store


def good_calls(item_id, channel=BUGS):
    """One valid call of every tool on `channel`."""
    return {
        "list_record_items": {"record_channel_id": channel, "limit": 5},
        "read_record_item": {"record_channel_id": channel, "item_id": item_id},
        "edit_record_item": {"record_channel_id": channel, "item_id": item_id, "values": {"status": "triaged"},
                             "expected_version": 1, "idempotency_key": "k1"},
        "poll_resource_events": {"resource_type": "record", "resource_id": channel, "after_sequence": 0, "limit": 10},
    }


class BadInputTest(SchemaDrivenCases, unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store()
        self.good = good_calls(self.ids[0])
        self.good["list_record_items"]["before_id"] = self.ids[2]

    def test_an_unknown_argument_is_named(self):
        for name in self.good:
            with self.subTest(tool=name, unknown="channel_id"):
                self.assertRejectedUnchanged(name, dict(self.good[name], channel_id=BUGS), "invalid_arguments",
                                             "channel_id", "additionalProperties")

    def test_bad_field_values_of_every_kind_in_one_edit_write_nothing(self):
        values = {"status": "Fixed", "points": float("nan"), "due": "tomorrow", "owner": 3, "age_days": 1,
                  "reporter": "aiko", "ticket": "x" * 21, "nope": True, "title": None}
        self.assertRejectedUnchanged("edit_record_item", dict(self.good["edit_record_item"], values=values),
                                     "validation_failed")
        result = self.store.call_tool("edit_record_item", dict(self.good["edit_record_item"], values=values))
        self.assertEqual([f["key"] for f in result["fields"]],
                         ["ticket", "title", "status", "owner", "points", "due", "reporter", "age_days", "nope"])

    def test_missing_channels_and_items_are_not_found_and_write_nothing(self):
        for name, argument in (("list_record_items", "record_channel_id"), ("read_record_item", "item_id"),
                               ("read_record_item", "record_channel_id"), ("edit_record_item", "item_id"),
                               ("edit_record_item", "record_channel_id"), ("poll_resource_events", "resource_id")):
            with self.subTest(tool=name, argument=argument):
                self.assertRejectedUnchanged(name, dict(self.good[name], **{argument: "nowhere"}), "not_found")

    def test_an_item_of_another_channel_is_not_found_here(self):
        for name in ("read_record_item", "edit_record_item"):
            self.assertRejectedUnchanged(name, dict(self.good[name], item_id="ops-1"), "not_found")


class GrantTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store(granted={BUGS})

    def test_an_ungranted_and_a_missing_channel_give_identical_rejections_for_every_tool(self):
        ungranted, missing = good_calls("ops-1", OPS), good_calls("ops-1", "nowhere")
        for name in ungranted:
            left, right = self.store.call_tool(name, ungranted[name]), self.store.call_tool(name, missing[name])
            with self.subTest(tool=name):
                self.assertEqual(left["error"], "not_found")
                self.assertEqual(left["message"].replace(OPS, "ID"), right["message"].replace("nowhere", "ID"))
                self.assertEqual(set(left), set(right))

    def test_an_edit_on_an_ungranted_channel_is_not_found_even_when_stale_or_invalid_and_writes_nothing(self):
        before = snapshot(self.store)
        for version, values in ((1, {"status": "triaged"}), (9, {"status": "triaged"}), (1, {"points": 99})):
            arguments = dict(good_calls("ops-1", OPS)["edit_record_item"], expected_version=version, values=values)
            self.assertEqual(self.store.call_tool("edit_record_item", arguments)["error"], "not_found")
        self.assertEqual(snapshot(self.store), before)

    def test_granted_channels_work_and_an_empty_grant_means_none(self):
        for name, arguments in good_calls(self.ids[0]).items():
            self.assertNotIn("error", self.store.call_tool(name, arguments), name)
        store, _, ids = bug_store(granted=())
        self.assertEqual(store.call_tool("read_record_item", good_calls(ids[0])["read_record_item"])["error"],
                         "not_found")

    def test_a_second_caller_with_another_grant_cannot_replay_the_firsts_key(self):
        helpers_call = good_calls(self.ids[0])["edit_record_item"]
        self.assertEqual(self.store.call_tool("edit_record_item", helpers_call)["replay"], False)
        other = record_store.RecordStore(self.store.database, granted={OPS}, scopes=("osfoundry:write",),
                                         rejection_detail="labels", clock=self.clock)
        self.assertEqual(other.call_tool("edit_record_item", helpers_call)["error"], "not_found")


if __name__ == "__main__":
    unittest.main()
