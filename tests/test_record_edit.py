"""edit_record_item is a compare-and-swap on an integer version, keyed for replay, allowed only with the write scope."""

import json
import unittest

from tests.helpers import snapshot
from tests.postgres_helpers import sqlite_only
from tests.record_helpers import BUGS, EVERY_TYPE, bug_store, edit, events, read
from osfoundry_tools.core.idempotency import fingerprint, result_text
from osfoundry_tools.core.tools import DEFAULT_CALLER
from osfoundry_tools.stores import record_store


@sqlite_only("it reads sqlite's query plans")
class QueryPlanTest(unittest.TestCase):
    def test_an_items_unique_values_are_found_by_index_not_by_scanning_the_channel(self):
        store, _, _ = bug_store()
        plan = store.database.connection.execute("EXPLAIN QUERY PLAN " + record_store.UNINDEX_ITEM, (1,)).fetchall()
        details = " ".join(row["detail"] for row in plan)
        self.assertIn("unique_values_by_item", details)
        self.assertNotIn("SCAN", details)


class CompareAndSwapTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store()

    def test_an_edit_with_the_version_just_read_saves_and_increments_the_version(self):
        item = read(self.store, self.ids[0])
        result = edit(self.store, self.ids[0], item["version"], "k1", status="triaged", owner="aiko")
        self.assertEqual(result, {"item_id": self.ids[0], "version": 2, "replay": False})
        now = read(self.store, self.ids[0])
        self.assertEqual((now["version"], now["values"]["status"], now["values"]["owner"]), (2, "triaged", "aiko"))

    def test_fields_left_out_are_kept_and_null_clears_an_optional_field(self):
        edit(self.store, self.ids[0], 1, "k1", owner="ren", points=3)
        edit(self.store, self.ids[0], 2, "k2", owner=None)
        values = read(self.store, self.ids[0])["values"]
        self.assertEqual((values["owner"], values["points"], values["ticket"]), (None, 3, "BUG-1"))
        self.assertNotIn("owner", self.store.item(BUGS, self.ids[0])["values"])

    def test_empty_text_and_an_empty_list_clear_a_field_too(self):
        edit(self.store, "every-1", 1, "k1", channel=EVERY_TYPE, site="https://example.com", tags=["ui"])
        edit(self.store, "every-1", 2, "k2", channel=EVERY_TYPE, site="", tags=[])
        self.assertEqual(self.store.item(EVERY_TYPE, "every-1")["values"], {"name": "first"})

    def test_a_stale_version_is_a_conflict_that_writes_nothing_and_says_to_reread(self):
        self.store.edit_item(BUGS, self.ids[0], {"status": "in_progress"})  # a person, in between
        before = snapshot(self.store)
        result = edit(self.store, self.ids[0], 1, "k1", severity="s2")
        self.assertEqual((result["error"], result["item_id"], result["expected_version"]),
                         ("version_conflict", self.ids[0], 1))
        self.assertIn("read_record_item again", result["message"])
        self.assertNotIn("current_version", result, "the agent must re-read, not retry with a number")
        self.assertEqual(snapshot(self.store), before)

    def test_after_a_conflict_a_reread_and_the_same_key_save_once(self):
        self.store.edit_item(BUGS, self.ids[0], {"status": "in_progress"})
        edit(self.store, self.ids[0], 1, "k1", severity="s2")
        version = read(self.store, self.ids[0])["version"]
        self.assertEqual(edit(self.store, self.ids[0], version, "k1", severity="s2")["version"], 3)
        self.assertEqual(read(self.store, self.ids[0])["values"]["status"], "in_progress", "the person's change stays")

    def test_a_future_version_is_a_conflict_too(self):
        self.assertEqual(edit(self.store, self.ids[0], 99, "k1", status="fixed")["error"], "version_conflict")

    def test_a_deleted_item_is_not_found_not_a_conflict(self):
        self.store.delete_item(BUGS, self.ids[0])
        before = snapshot(self.store)
        self.assertEqual(edit(self.store, self.ids[0], 1, "k1", status="fixed")["error"], "not_found")
        self.assertEqual(read(self.store, self.ids[0])["error"], "not_found")
        self.assertEqual(snapshot(self.store), before)

    def test_every_save_and_the_deletion_bump_the_version(self):
        self.store.edit_item(BUGS, self.ids[0], {"points": 1})
        edit(self.store, self.ids[0], 2, "k1", points=2)
        self.assertEqual(self.store.delete_item(BUGS, self.ids[0]), 4)
        self.assertEqual(self.store.item(BUGS, self.ids[0])["version"], 4)

    def test_empty_values_are_refused_before_anything_is_read(self):
        before = snapshot(self.store)
        result = self.store.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": self.ids[0],
                                                           "values": {}, "expected_version": 1,
                                                           "idempotency_key": "k1"})
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", "values", "minProperties"))
        self.assertEqual(snapshot(self.store), before)

    def test_values_that_are_not_json_are_refused(self):
        result = edit(self.store, self.ids[0], 1, "k1", title={1, 2})
        self.assertEqual((result["error"], result["argument"]), ("invalid_arguments", "values"))


class Text(str):
    """A str of another type: the fingerprint and the kept result take the general way for it."""


class Arguments(dict):
    """A dict of another type, likewise."""


class IdempotencyTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store()

    def test_the_same_call_again_replays_the_first_result_and_writes_no_event(self):
        first = edit(self.store, self.ids[0], 1, "k1", status="triaged")
        log = events(self.store)
        self.store.edit_item(BUGS, self.ids[0], {"owner": "mika"})  # even after a later change
        again = edit(self.store, self.ids[0], 1, "k1", status="triaged")
        self.assertEqual(again, dict(first, replay=True))
        self.assertEqual(len(events(self.store)), len(log) + 1)

    def test_the_same_key_with_other_arguments_is_refused_and_writes_nothing(self):
        edit(self.store, self.ids[0], 1, "k1", status="triaged")
        before = snapshot(self.store)
        for other in ({"status": "fixed"}, {"status": "triaged", "owner": "ren"}):
            with self.subTest(values=other):
                self.assertEqual(edit(self.store, self.ids[0], 1, "k1", **other)["error"], "idempotency_key_reused")
        self.assertEqual(edit(self.store, self.ids[1], 1, "k1", status="triaged")["error"], "idempotency_key_reused")
        self.assertEqual(snapshot(self.store), before)

    def test_key_order_inside_values_does_not_change_the_call(self):
        first = self.store.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": self.ids[0],
                                                          "values": {"status": "triaged", "owner": "aiko"},
                                                          "expected_version": 1, "idempotency_key": "k1"})
        again = self.store.call_tool("edit_record_item", {"idempotency_key": "k1", "expected_version": 1,
                                                          "values": {"owner": "aiko", "status": "triaged"},
                                                          "item_id": self.ids[0], "record_channel_id": BUGS})
        self.assertEqual(again, dict(first, replay=True))

    def test_the_edits_own_fingerprint_is_the_one_of_the_whole_call(self):  # its quick way agrees with the general
        odd = "é \u2028 \"quoted\" back\\slash \x01 \ud800 🙂"
        changes = [{"status": "triaged"}, {"title": odd, "points": 3, "due": None, "tags": ["b", "a"]},
                   {"extra": {"z": [1.5, float("nan"), True], "a": {"y": 2 ** 62, "b": "x"}}, "done": False}]
        calls = [{"record_channel_id": BUGS, "item_id": item_id, "values": values, "expected_version": version,
                  "idempotency_key": key}
                 for item_id in ("itm-00001", odd) for values in changes for version in (1, 2 ** 62)
                 for key in ("k1", odd)]
        calls += [dict(calls[0], expected_version=True), dict(calls[0], expected_version=2.0),  # not ints: the general
                  dict(calls[0], extra=1), dict(calls[0], item_id=Text("itm-00001"))]  # way, as for any other call
        for arguments in calls + [Arguments(calls[0])]:
            with self.subTest(arguments=repr(arguments)[:80]):
                self.assertEqual(record_store._fingerprint_with_values(arguments), fingerprint(arguments))

    def test_a_key_stored_from_the_general_fingerprint_replays(self):  # as a key an earlier version stored does
        arguments = {"record_channel_id": BUGS, "item_id": self.ids[0], "values": {"title": "Café “x”"},
                     "expected_version": 1, "idempotency_key": "k1"}
        with self.store.database.write() as connection:
            connection.execute("INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)",
                               (DEFAULT_CALLER, "edit_record_item", BUGS, "k1", fingerprint(arguments),
                                result_text({"item_id": self.ids[0], "version": 2, "replay": False}),
                                "2026-11-09T09:00:00Z"))
        self.assertEqual(self.store.call_tool("edit_record_item", arguments),
                         {"item_id": self.ids[0], "version": 2, "replay": True})
        self.assertEqual(read(self.store, self.ids[0])["version"], 1)

    def test_the_first_result_is_kept_as_json_dumps_writes_it(self):
        for result in ({"item_id": "itm-00001", "version": 2, "replay": False},
                       {"item_id": "é\u2028\"🙂", "version": 2 ** 62, "replay": False},
                       {"item_id": "itm-00001", "version": True, "replay": False},  # the general way, below
                       {"item_id": Text("itm-00001"), "version": 2, "replay": False},
                       {"item_id": "itm-00001", "version": 2}, {"item_id": "itm-00001", "version": 2, "replay": True}):
            with self.subTest(result=result):
                self.assertEqual(record_store._result_text(result), json.dumps(result))
        edit(self.store, self.ids[0], 1, "k1", status="triaged")
        kept = self.store.database.connection.execute("SELECT result FROM idempotency_keys").fetchone()[0]
        self.assertEqual(kept, json.dumps({"item_id": self.ids[0], "version": 2, "replay": False}))

    def test_a_conflicted_or_rejected_call_stores_no_key(self):
        edit(self.store, self.ids[0], 7, "k1", status="triaged")
        edit(self.store, self.ids[0], 1, "k2", status="Triaged")
        keys = self.store.database.connection.execute("SELECT COUNT(*) FROM idempotency_keys").fetchone()[0]
        self.assertEqual(keys, 0)


class ScopeTest(unittest.TestCase):
    def test_without_the_write_scope_an_edit_is_forbidden_and_writes_nothing(self):
        store, _, ids = bug_store(scopes=())
        before = snapshot(store)
        result = edit(store, ids[0], 1, "k1", status="triaged")
        self.assertEqual((result["error"], result["required_scope"]), ("forbidden", "osfoundry:write"))
        self.assertIn("osfoundry:write", result["message"])
        self.assertEqual(snapshot(store), before)

    def test_reads_need_no_scope(self):
        store, _, ids = bug_store(scopes=("osfoundry:read",))
        self.assertEqual(read(store, ids[0])["version"], 1)
        self.assertEqual(edit(store, ids[0], 1, "k1", status="triaged")["error"], "forbidden")

    def test_the_listing_declares_the_scope_the_store_enforces(self):
        store, _, _ = bug_store()
        listed = {tool["name"]: tool for tool in store.list_tools()}
        self.assertEqual(listed["edit_record_item"]["securitySchemes"],
                         [{"type": "oauth2", "scopes": [record_store.WRITE_SCOPE]}])
        self.assertNotIn("securitySchemes", listed["read_record_item"])

    def test_a_single_string_is_not_mistaken_for_a_set_of_scopes(self):
        with self.assertRaisesRegex(TypeError, "not one string"):
            bug_store(scopes="osfoundry:write")


class EventTest(unittest.TestCase):
    def test_creates_saves_and_deletes_are_logged_with_the_version_after_each(self):
        store, _, ids = bug_store(items=2)
        edit(store, ids[0], 1, "k1", status="triaged")
        store.edit_item(BUGS, ids[1], {"owner": "ren"})
        store.delete_item(BUGS, ids[0])
        self.assertEqual(events(store), [
            {"sequence": 1, "type": "created", "item_id": ids[0], "version": 1},
            {"sequence": 2, "type": "created", "item_id": ids[1], "version": 1},
            {"sequence": 3, "type": "updated", "item_id": ids[0], "version": 2},
            {"sequence": 4, "type": "updated", "item_id": ids[1], "version": 2},
            {"sequence": 5, "type": "deleted", "item_id": ids[0], "version": 3},
        ])

    def test_each_channel_has_its_own_gap_free_sequence(self):
        store, _, ids = bug_store(items=2)
        self.assertEqual([e["sequence"] for e in events(store, "ops")], [1])
        self.assertEqual([e["sequence"] for e in events(store, BUGS, after=1)], [2])

    def test_a_poll_resumes_from_the_cursor_and_pages_with_has_more(self):
        store, _, ids = bug_store(items=5)
        page = store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": BUGS,
                                                        "after_sequence": 1, "limit": 2})
        self.assertEqual(([e["sequence"] for e in page["events"]], page["last_sequence"], page["has_more"]),
                         ([2, 3], 3, True))
        for after in (40, 2 ** 63 - 1):  # past the head, up to the largest sequence sqlite can store
            past = store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": BUGS,
                                                            "after_sequence": after})
            self.assertEqual((past["events"], past["last_sequence"], past["has_more"]), ([], 5, False))
        beyond = store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": BUGS,
                                                          "after_sequence": 10 ** 20})
        self.assertEqual((beyond["error"], beyond["argument"], beyond["rule"]),
                         ("invalid_arguments", "after_sequence", "range"))

    def test_a_knowledge_base_poll_is_unsupported_here(self):
        store, _, _ = bug_store()
        result = store.call_tool("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": BUGS})
        self.assertEqual((result["error"], result["served"]), ("unsupported_resource_type", ["record"]))


if __name__ == "__main__":
    unittest.main()
