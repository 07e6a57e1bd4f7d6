"""Hostile values in every field type, at any depth, and addresses at the edges of validity: each is refused by the
field it was sent for, in strict UTF-8 JSON, never as internal_error, and the whole database (rows, events,
idempotency keys) stays as it was."""

import json
import unittest

from tests import helpers
from tests.record_helpers import BUGS, EVERY_TYPE, bug_store
from osfoundry_tools.stores import record_fields

SOUND = {  # a value each writable field of EVERY_TYPE saves; "bugs" is filled in with a live item of BUGS
    "name": "ok", "count": 1, "due": "2026-11-13", "done": True, "contact": "aiko@example.com",
    "phone": "+81 3 1234 5678", "site": "https://example.com/a", "stage": "todo", "tags": ["ui"], "price": 1.5,
    "share": 50, "stars": 2, "bugs": None, "files": [{"name": "log.txt", "url": "https://files.example.com/log"}],
    "extra": {"a": ["b", {"c": "d"}], "e": "f"},
}
UNSOUND_TEXT = {"a NUL": "\x00", "a lone high surrogate": "\ud800", "a lone low surrogate": "\udfff"}


def spoiled(value, bad):
    """`value` with `bad` put into one of its strings (a text, an item of a list, an object's key or value), once
    for each string it holds, at any depth."""
    if isinstance(value, str):
        yield value[:1] + bad + value[1:]
    elif isinstance(value, list):
        for index, item in enumerate(value):
            for worse in spoiled(item, bad):
                yield value[:index] + [worse] + value[index + 1:]
    elif isinstance(value, dict):
        for key, item in value.items():
            yield {(bad + name if name == key else name): inner for name, inner in value.items()}
            for worse in spoiled(item, bad):
                yield dict(value, **{key: worse})


class FieldValuesTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store()
        self.sound = dict(SOUND, bugs=[self.ids[0]])

    def edit(self, values, key="k1"):
        return self.store.call_tool("edit_record_item", {
            "record_channel_id": EVERY_TYPE, "item_id": "every-1", "values": values, "expected_version": 1,
            "idempotency_key": key})

    def assert_refused_by(self, key, values, before, *, message=None):
        result = self.edit(values)
        self.assertEqual(result.get("error"), "validation_failed", result)
        self.assertEqual([failed["key"] for failed in result["fields"]], [key])
        if message is not None:
            self.assertIn(message, result["fields"][0]["message"])
        json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")
        self.assertEqual(helpers.dump(self.store), before)
        return result

    def test_every_sound_value_is_saved_so_each_refusal_below_is_the_bad_text(self):
        for number, (key, value) in enumerate(self.sound.items(), 1):
            with self.subTest(field=key):
                result = self.store.call_tool("edit_record_item", {
                    "record_channel_id": EVERY_TYPE, "item_id": "every-1", "values": {key: value},
                    "expected_version": number, "idempotency_key": f"sound-{key}"})
                self.assertEqual(result.get("version"), number + 1, result)

    def test_nul_or_a_lone_surrogate_anywhere_in_any_value_is_refused_by_its_field(self):
        before, tried = helpers.dump(self.store), 0
        for key, value in self.sound.items():
            for what, bad in UNSOUND_TEXT.items():
                for worse in spoiled(value, bad):
                    with self.subTest(field=key, holding=what, value=repr(worse)):
                        self.assert_refused_by(key, {key: worse}, before)
                        tried += 1
        self.assertGreater(tried, 50)

    def test_a_json_value_holding_nul_or_a_lone_surrogate_says_so(self):
        before = helpers.dump(self.store)
        for value in ({"a": "x\x00y"}, {"a\x00": 1}, ["\ud800"], {"\udc80": 1}):
            with self.subTest(value=repr(value)):
                self.assert_refused_by("extra", {"extra": value}, before, message="without NUL characters")
        self.assert_refused_by("extra", {"extra": [float("nan")]}, before, message="no NaN or infinities")

    def test_a_related_id_of_bad_text_is_refused_like_any_bad_id(self):
        before = helpers.dump(self.store)
        for bad in ("itm-\ud800", "itm-\x00", "\udfff"):
            with self.subTest(related=repr(bad)):
                self.assert_refused_by("bugs", {"bugs": [self.ids[0], bad]}, before, message="distinct item IDs")

    def test_addresses_at_the_edges_of_validity_are_saved(self):
        local = "a" * record_fields.EMAIL_LOCAL_CHARACTERS
        longest = local + "@" + ".".join(["b" * 63, "b" * 63, "c" * 61])
        self.assertEqual(len(longest), record_fields.EMAIL_CHARACTERS)
        phone_longest = "+" + "(" * (record_fields.PHONE_CHARACTERS - 16) + "9" * 15
        edges = [("contact", local + "@example.com"), ("contact", longest), ("contact", "josé@例え.jp"),
                 ("phone", "5551234"), ("phone", "+" + "9" * 15), ("phone", phone_longest),
                 ("site", "http://example.com:65535/"), ("site", "http://[::1]:8080/a"),
                 ("site", "https://例え.jp/パス?q=値#節"), ("files", [{"name": "a", "url": "https://e.com:1/a"}])]
        for number, (key, value) in enumerate(edges, 1):
            with self.subTest(field=key, value=value):
                result = self.store.call_tool("edit_record_item", {
                    "record_channel_id": EVERY_TYPE, "item_id": "every-1", "values": {key: value},
                    "expected_version": number, "idempotency_key": f"edge-{number}"})
                self.assertEqual(result.get("version"), number + 1, result)

    def test_addresses_just_past_the_edges_of_validity_are_refused_by_their_field(self):
        before = helpers.dump(self.store)
        local = "a" * (record_fields.EMAIL_LOCAL_CHARACTERS + 1)
        past = [("contact", local + "@example.com", "at most 64 characters before the @"),
                ("contact", "aiko\x01@example.com", "control character"),
                ("contact", "aiko@example.com\x7f", "control character"),
                ("contact", "aiko@exam\x9bple.com", "control character"),
                ("phone", "(" * (record_fields.PHONE_CHARACTERS - 6) + "1234567", "at most 32 characters"),
                ("phone", "1" * 7 + " " * 100_000, "at most 32 characters"),
                ("phone", "+" + "9" * 16, "7 to 15 digits"),
                ("site", "http://exa\x01mple.com/", "control character"),
                ("site", "https://example.com/a\x1bb", "control character"),
                ("site", "https://example.com/\x9b", "control character"),
                ("site", "http://example.com:65536/", "http or https URL"),
                ("site", "http://example.com:port/", "http or https URL"),
                ("site", "http://example.com:0/", "http or https URL"),
                ("site", "http://example.com:+80/", "http or https URL"),  # a number to Python 3.9's int()
                ("site", "http://example.com:\u0668\u0660/", "http or https URL"),  # Arabic-Indic 80, as well
                ("site", "http://example.com: 80/", "http or https URL"),
                ("files", [{"name": "a", "url": "https://e.com:+443/a"}], "files"),
                ("files", [{"name": "a", "url": "https://e.com:99999/a"}], "files"),
                ("files", [{"name": "a", "url": "https://e.com/\x00"}], "files")]
        for key, value, words in past:
            with self.subTest(field=key, value=repr(value)[:60]):
                self.assert_refused_by(key, {key: value}, before, message=words)


class UnknownKeysTest(unittest.TestCase):
    """A key that is no field but reads like one (another case, full-width letters, a label) names the field it
    resembles; one that resembles none is refused as before; nothing is written either way."""

    def setUp(self):
        self.store, self.clock, self.ids = bug_store()

    def rejected(self, values, channel=BUGS, item=None):
        before = helpers.dump(self.store)
        result = self.store.call_tool("edit_record_item", {
            "record_channel_id": channel, "item_id": item or self.ids[0], "values": values, "expected_version": 1,
            "idempotency_key": "k1"})
        self.assertEqual(result["error"], "validation_failed")
        self.assertEqual(helpers.dump(self.store), before)
        return {failed["key"]: failed["message"] for failed in result["fields"]}

    def test_a_key_in_another_case_or_width_names_the_field_it_reads_as(self):
        for sent in ("Status", "STATUS", "ｓｔａｔｕｓ", "Ｓtatus"):
            with self.subTest(key=sent):
                self.assertEqual(self.rejected({sent: "triaged"})[sent],
                                 f'values.{sent} is not a field of this channel; keys are case-sensitive: did you '
                                 'mean "status"?')

    def test_a_label_sent_as_a_key_names_the_field_it_labels(self):
        store, _, _ = bug_store()
        store.create_channel("labelled", "Labelled", [{"key": "due_on", "label": "Due date", "type": "date"}])
        item = store.create_item("labelled", {})["item_id"]
        self.store = store
        message = self.rejected({"Due date": "2026-11-13"}, channel="labelled", item=item)["Due date"]
        self.assertEqual(message, 'values.Due date is not a field of this channel; a field is written by its key, not '
                                  'its label: did you mean "due_on" (labelled "Due date")?')

    def test_a_key_sent_twice_in_two_spellings_is_refused_whole(self):
        messages = self.rejected({"status": "triaged", "Status": "fixed"})
        self.assertEqual(list(messages), ["Status"])
        self.assertIn('did you mean "status"?', messages["Status"])

    def test_a_key_that_resembles_no_field_keeps_its_plain_words(self):
        self.assertEqual(self.rejected({"priority": "high"})["priority"],
                         "values.priority is not a field of this channel")


if __name__ == "__main__":
    unittest.main()
