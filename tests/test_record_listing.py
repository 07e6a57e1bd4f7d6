"""Listing pages carry the schema, bounded previews and a before_id cursor that inserts and deletes cannot move."""

import json
import random
import sqlite3
import unittest

from tests.record_helpers import BUGS, EVERY_TYPE, bug, bug_store, page, read
from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload


def walk(store, limit, between_pages=lambda seen: None):
    """Every page from the newest, calling `between_pages` after each; returns the item IDs in page order."""
    seen, before_id = [], None
    while True:
        arguments = {"limit": limit} if before_id is None else {"limit": limit, "before_id": before_id}
        result = page(store, **arguments)
        assert "error" not in result, result
        seen += [item["item_id"] for item in result["items"]]
        before_id = result["next_before_id"]
        if before_id is None:
            return seen
        between_pages(seen)


def churned_walk(seed):
    """A walk by pages of 7 over 60 bugs; after each page, 2 bugs are created and 2 of the 60 are deleted.

    Returns the 60 bugs' IDs, the IDs the pages listed in order, the IDs deleted and the IDs created.
    """
    store, clock, ids = bug_store(items=60)
    rng = random.Random(seed)
    deleted, created = set(), []

    def churn(seen):
        for _ in range(2):
            clock.advance()
            created.append(store.create_item(BUGS, bug(1000 + len(created)))["item_id"])
        for victim in rng.sample([i for i in ids if i not in deleted], 2):  # read or not yet read
            store.delete_item(BUGS, victim)
            deleted.add(victim)
    return ids, walk(store, 7, churn), deleted, created


class PageTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store(items=7)

    def test_items_come_newest_first_in_pages_of_the_limit(self):
        first = page(self.store, limit=3)
        self.assertEqual([i["item_id"] for i in first["items"]], self.ids[::-1][:3])
        self.assertEqual(first["next_before_id"], self.ids[4])
        self.assertEqual(walk(self.store, 3), self.ids[::-1])

    def test_the_last_page_says_so_with_a_null_cursor(self):
        self.assertIsNone(page(self.store, limit=7)["next_before_id"])
        self.assertEqual(page(self.store, limit=2, before_id=self.ids[1])["items"][0]["item_id"], self.ids[0])
        self.assertEqual(page(self.store, before_id=self.ids[0]), {
            "schema": self.store.schema(BUGS), "items": [], "next_before_id": None})

    def test_the_default_page_is_the_maximum_of_50(self):
        store, _, ids = bug_store(items=51)
        result = page(store)
        self.assertEqual((len(result["items"]), result["next_before_id"]), (50, ids[1]))

    def test_every_page_carries_the_whole_schema_with_option_values_and_labels(self):
        schemas = []
        before_id = None
        for _ in range(3):
            result = page(self.store, limit=3, **({"before_id": before_id} if before_id else {}))
            schemas.append(result["schema"])
            before_id = result["next_before_id"]
        self.assertEqual(schemas, [self.store.schema(BUGS)] * 3)
        status = next(f for f in schemas[0]["fields"] if f["key"] == "status")
        self.assertIn({"value": "wont_fix", "label": "Won't fix", "color": "red"}, status["options"])
        self.assertEqual([f["key"] for f in schemas[0]["fields"]],
                         [f["key"] for f in workload.BUG_TRACKER_FIELDS])

    def test_a_preview_cuts_text_at_120_characters_and_a_read_gives_it_whole(self):
        preview = page(self.store, limit=1)["items"][0]
        description = preview["values"]["description"]
        self.assertEqual(len(description), record_store.PREVIEW_CHARACTERS)
        self.assertTrue(description.endswith("…"))
        full = read(self.store, preview["item_id"])["values"]["description"]
        self.assertEqual(full, bug(7)["description"])
        self.assertTrue(full.startswith(description[:-1]))
        self.assertEqual(preview["values"]["ticket"], "BUG-7", "short text is shown whole")

    def test_the_preview_length_is_the_stores_to_choose_and_must_leave_room_for_the_cut_mark(self):
        store, _, _ = bug_store(items=1, preview_characters=40)
        description = page(store)["items"][0]["values"]["description"]
        self.assertEqual((len(description), description[-1]), (40, "…"))
        for bad in (0, 1):
            with self.subTest(preview_characters=bad), self.assertRaises(ValueError):
                record_store.connect(preview_characters=bad)

    def test_a_preview_holds_the_id_the_version_and_every_field_and_a_read_the_same_shape(self):
        self.store.edit_item(BUGS, self.ids[6], {"points": 5})
        preview = page(self.store, limit=1)["items"][0]
        self.assertEqual((preview["item_id"], preview["version"]), (self.ids[6], 2))
        self.assertEqual(list(preview["values"]), [f["key"] for f in workload.BUG_TRACKER_FIELDS])
        item = read(self.store, self.ids[6])
        self.assertEqual(list(item), ["item_id", "version", "values"])
        self.assertEqual((item["version"], item["values"]["points"], item["values"]["age_days"]), (2, 5, 0))

    def test_long_lists_and_objects_are_cut_in_previews_too(self):
        self.store.edit_item(EVERY_TYPE, "every-1", {"extra": {"log": ["line"] * 40}})
        preview = page(self.store, EVERY_TYPE)["items"][0]["values"]["extra"]
        self.assertEqual((type(preview), len(preview)), (str, 120))
        self.assertEqual(read(self.store, "every-1", EVERY_TYPE)["values"]["extra"], {"log": ["line"] * 40})

    def test_deleted_items_leave_the_pages(self):
        self.store.delete_item(BUGS, self.ids[3])
        self.assertEqual(walk(self.store, 2), [i for i in self.ids[::-1] if i != self.ids[3]])
        self.assertEqual(self.store.item_ids(BUGS), walk(self.store, 50), "the ground truth agrees with the pages")

    def test_a_store_used_as_a_context_manager_closes_its_database(self):
        with record_store.connect() as store:
            store.create_channel(BUGS, "Bugs", workload.BUG_TRACKER_FIELDS)
        with self.assertRaises(sqlite3.ProgrammingError):  # "Cannot operate on a closed database."
            store.database.connection.execute("SELECT 1")


class CursorTest(unittest.TestCase):
    """A before_id cursor sees every item that existed throughout exactly once, whatever changes between pages."""

    def test_creates_and_deletes_between_pages_neither_repeat_nor_skip_an_item(self):
        for seed in range(5):
            ids, seen, deleted, created = churned_walk(seed)
            with self.subTest(seed=seed):
                self.assertEqual(len(seen), len(set(seen)), "an item was listed twice")
                throughout = [i for i in ids if i not in deleted]
                self.assertEqual([i for i in seen if i in throughout], throughout[::-1])
                self.assertFalse(set(seen) & set(created), "items created during the pass come after the cursor")

    def test_the_cursor_item_itself_may_be_deleted_between_pages(self):
        store, _, ids = bug_store(items=6)
        first = page(store, limit=3)
        store.delete_item(BUGS, first["next_before_id"])
        rest = page(store, limit=3, before_id=first["next_before_id"])
        self.assertEqual([i["item_id"] for i in rest["items"]], ids[2::-1])

    def test_an_unknown_or_foreign_cursor_is_a_clear_error(self):
        store, _, _ = bug_store()
        for before_id in ("itm-99999", "ops-1", "every-1"):
            result = page(store, before_id=before_id)
            with self.subTest(before_id=before_id):
                self.assertEqual((result["error"], result["argument"], result["rule"]),
                                 ("invalid_arguments", "before_id", "cursor"))
                self.assertIn("next_before_id of the previous page", result["message"])
                self.assertIn(json.dumps(before_id), result["message"])


if __name__ == "__main__":
    unittest.main()
