"""A failed edit is one rejection naming every failed field, at each of the four levels of detail, exactly."""

import json
import unittest

from lab.record_channels.scenario import PUBLISHED_INPUTS, PUBLISHED_VALUES_REJECTION
from tests.helpers import snapshot
from tests.record_helpers import BUGS, bug_store, edit, events, read

# PUBLISHED_VALUES_REJECTION is the values-level rejection as the records article prints it, kept once,
# in lab/record_channels/scenario.py. It is json.dumps output with default separators except for one space after
# "fields": [ that line wrapping left; the tests remove it. PUBLISHED_INPUTS are what it answers: labels, 20
# points, "Friday", a formula.

STATUS_LABELS = {"new": "New", "triaged": "Triaged", "in_progress": "In progress", "fixed": "Fixed",
                 "wont_fix": "Won't fix"}
OWNER_LABELS = {"aiko": "Aiko", "mika": "Mika", "ren": "Ren"}


def rejected(detail, values=PUBLISHED_INPUTS):
    store, _, ids = bug_store(rejection_detail=detail)
    return edit(store, ids[0], 1, "k1", **values)


class DetailLevelTest(unittest.TestCase):
    def test_values_level_reproduces_the_published_rejection_character_for_character(self):
        published = PUBLISHED_VALUES_REJECTION.replace('"fields": [ {', '"fields": [{', 1)
        self.assertEqual(json.dumps(rejected("values")), published)

    def test_the_published_text_differs_from_json_dumps_only_by_the_stray_space(self):
        self.assertEqual(json.dumps(json.loads(PUBLISHED_VALUES_REJECTION)),
                         PUBLISHED_VALUES_REJECTION.replace("[ {", "[{"))

    def test_terse_level_says_only_that_validation_failed(self):
        self.assertEqual(json.dumps(rejected("terse")), '{"error": "validation_failed"}')

    def test_field_level_names_the_failed_keys_in_schema_order(self):
        self.assertEqual(rejected("field"), {"error": "validation_failed", "fields": [
            {"key": "status"}, {"key": "owner"}, {"key": "points"}, {"key": "due"}, {"key": "age_days"}]})

    def test_labels_level_adds_each_options_label_and_nothing_else(self):
        values = json.loads(PUBLISHED_VALUES_REJECTION)
        values["fields"][0]["labels"] = STATUS_LABELS
        values["fields"][1]["labels"] = OWNER_LABELS
        self.assertEqual(json.dumps(rejected("labels")), json.dumps(values))

    def test_labels_level_is_the_default(self):
        store, _, ids = bug_store()
        self.assertEqual(edit(store, ids[0], 1, "k1", status="Fixed")["fields"][0]["labels"], STATUS_LABELS)

    def test_an_unknown_detail_level_is_refused_when_the_store_opens(self):
        with self.assertRaisesRegex(ValueError, "terse, field, values, labels"):
            bug_store(rejection_detail="verbose")

    def test_an_unknown_key_comes_after_the_schema_fields_with_the_writable_keys(self):
        result = rejected("values", {"severity": "major", "priority": "high", "status": "triaged"})
        self.assertEqual([f["key"] for f in result["fields"]], ["severity", "priority"])
        self.assertEqual(result["fields"][1]["message"], "values.priority is not a field of this channel")
        self.assertEqual(result["fields"][1]["allowed"][:3], ["ticket", "title", "description"])
        self.assertNotIn("age_days", result["fields"][1]["allowed"])


class WholeEditTest(unittest.TestCase):
    """One bad field among good ones: nothing saved, no event, no key, the version unchanged."""

    def test_one_bad_field_rejects_the_good_ones_with_it(self):
        store, _, ids = bug_store()
        before, log = snapshot(store), events(store)
        result = edit(store, ids[0], 1, "k1", status="triaged", owner="aiko", severity="s2", points=20)
        self.assertEqual([f["key"] for f in result["fields"]], ["points"])
        self.assertEqual(snapshot(store), before)
        self.assertEqual(events(store), log)
        self.assertEqual(read(store, ids[0])["version"], 1)
        self.assertEqual(read(store, ids[0])["values"]["status"], "new")

    def test_the_corrected_edit_with_the_same_key_then_saves_once(self):
        store, _, ids = bug_store()
        edit(store, ids[0], 1, "k1", status="triaged", points=20)
        saved = edit(store, ids[0], 1, "k1", status="triaged", points=13)
        self.assertEqual((saved["version"], saved["replay"]), (2, False))
        self.assertEqual(edit(store, ids[0], 1, "k1", status="triaged", points=13)["replay"], True)

    def test_numbers_are_never_clamped_and_labels_never_converted(self):
        store, _, ids = bug_store()
        for values in ({"points": 20}, {"points": 13.5}, {"status": "In progress"}, {"severity": "major"},
                       {"severity": "S2 Major"}, {"status": "IN_PROGRESS"}, {"owner": " aiko"}):
            with self.subTest(values=values):
                self.assertEqual(edit(store, ids[0], 1, f"k-{values}", **values)["error"], "validation_failed")
        self.assertEqual(store.item(BUGS, ids[0])["version"], 1)

    def test_a_required_field_cannot_be_cleared(self):
        store, _, ids = bug_store(rejection_detail="values")
        for empty in (None, ""):
            result = edit(store, ids[0], 1, f"k-{empty}", title=empty)
            self.assertEqual(result["fields"], [{"key": "title",
                                                 "message": "values.title is required and cannot be cleared"}])

    def test_the_people_side_refuses_the_same_values(self):
        store, _, ids = bug_store()
        with self.assertRaisesRegex(ValueError, "values.points must be between 0 and 13, got 20"):
            store.edit_item(BUGS, ids[0], {"points": 20})
        with self.assertRaisesRegex(ValueError, "values.title is required"):
            store.create_item(BUGS, {"ticket": "BUG-77", "status": "new"})
        self.assertEqual(store.item(BUGS, ids[0])["version"], 1)


if __name__ == "__main__":
    unittest.main()
