"""An item's values kept with each value's JSON: the text and the preview built from pieces are byte for byte what
json.dumps writes, a save encodes only what it changes, and the values kept by their text are never stale, nor
kept past their bounds."""

import json
import os
import tempfile
import unittest

from tests.record_helpers import BUGS, EVERY_TYPE, bug_store, edit, read
from osfoundry_tools.core.json_text import encoder
from osfoundry_tools.stores import item_values, record_store
from osfoundry_tools.stores.item_values import PREVIEW_CHARACTERS, ItemValues, Kept, cut

LONG = "Ünïcode “quoted” text with \"quotes\", a back\\slash, a line\nbreak and a tab\t, " * 4
VALUES = [
    {},
    {"title": "Login fails", "points": 3, "status": "new"},
    {"note": LONG, "price": 12.5, "share": 0.1 + 0.2, "big": 2 ** 62, "small": -5, "done": True, "off": False},
    {"tags": ["ui", "é"], "extra": {"b": [1, {"c": LONG}], "a": None}, "empty": {}},  # set values: [] would clear
    {"short": "x" * PREVIEW_CHARACTERS, "longer": "x" * (PREVIEW_CHARACTERS + 1), "emoji": "🙂 ok",
     "nan": float("nan")},
]


def preview_as_dumped(fields, values):
    """A preview as one json.dumps writes it: every field in schema order, formulas and unset fields null, text (or
    the JSON of a list or object) cut at PREVIEW_CHARACTERS."""
    shown = {}
    for field in fields:
        value = None if field.type == "formula" else values.get(field.key)
        shown[field.key] = cut(value, PREVIEW_CHARACTERS) if isinstance(value, (str, list, dict)) else value
    return json.dumps(shown)


class Text(str):
    """A str of another type."""


class Number(int):
    """An int of another type."""


class PiecesTest(unittest.TestCase):
    def test_the_text_is_what_json_dumps_writes(self):
        for values in VALUES:
            with self.subTest(values=list(values)):
                self.assertEqual(ItemValues.of(values).text(), json.dumps(values, ensure_ascii=False))

    def test_a_change_applies_as_a_merge_does_and_clears_with_null_empty_text_and_an_empty_list(self):
        before = ItemValues.of({"a": 1, "b": "two", "c": [3], "d": "four"})
        after = before.changed({"b": None, "c": [], "d": "", "a": "one", "e": {"x": 1}})
        self.assertEqual(after.text(), json.dumps({"a": "one", "e": {"x": 1}}, ensure_ascii=False))
        self.assertEqual(list(after.values), ["a", "e"])
        self.assertEqual(before.text(), '{"a": 1, "b": "two", "c": [3], "d": "four"}')  # the first never changes

    def test_values_equal_to_python_but_not_in_json_keep_their_own_pieces(self):  # 1, True and 1.0 are equal keys
        values = ItemValues.of({})  # of the pieces kept by value: only exact ints and short strs are kept there
        for changes in ({"a": 1}, {"a": True}, {"a": 1.0}, {"a": 1}, {"a": False}, {"a": 0}, {"a": "1"},
                        {"a": Text("x")}, {"a": "x"}, {"a": Number(1)}):
            values = values.changed(changes)
            with self.subTest(changes=changes):
                self.assertEqual(values.text(), json.dumps(changes, ensure_ascii=False))
                self.assertEqual(values.previews["a"], json.dumps(changes)[1:-1])

    def test_the_preview_is_what_json_dumps_writes_in_ascii(self):
        store, _, _ = bug_store(items=0)
        with store.database.read() as connection:
            channel = store._granted_channel(connection, BUGS)
        for values in ({"title": LONG, "points": 3}, {"title": "Short", "description": "é" * 500, "owner": "aiko"},
                       {"title": "Café", "description": "ok"}, {}):
            with self.subTest(values=list(values)):
                text = ItemValues.of(values).preview(channel.preview_slots)
                self.assertTrue(text.isascii())
                self.assertEqual(text, preview_as_dumped(channel.fields, values))

    def test_an_encoder_built_once_writes_what_json_dumps_writes(self):
        for options in ({}, {"ensure_ascii": False}, {"sort_keys": True, "ensure_ascii": False,
                                                      "separators": (",", ":")}):
            encode = encoder(**options)
            for value in VALUES + ["é", 3, 2.5, None, True, [1, "x"]]:
                with self.subTest(options=options, value=repr(value)[:40]):
                    self.assertEqual(encode(value), json.dumps(value, **options))


class KeptTest(unittest.TestCase):
    def test_a_text_not_kept_is_decoded_and_one_kept_is_found_only_at_its_place_for_its_very_text(self):
        kept = Kept()
        text = '{"a": 1}'
        self.assertEqual(kept.values_of(text, "p").values, {"a": 1})
        values = ItemValues.of({"a": 1})
        kept.keep("p", text, values)
        self.assertIs(kept.values_of("".join(['{"a": ', '1}']), "p"), values)  # an equal text, another object
        self.assertIsNot(kept.values_of(text, "q"), values)
        other = kept.values_of('{"a": 2}', "p")  # the row holds another text: decoded, never the kept values
        self.assertEqual(other.values, {"a": 2})

    def test_the_oldest_are_forgotten_past_the_bound_and_a_long_text_is_never_kept(self):
        kept = Kept(characters=30, item_characters=20)
        texts = ['{"a": %d}' % n for n in range(10, 15)]  # 9 characters each
        for place, text in enumerate(texts):
            kept.keep(place, text, ItemValues.of(json.loads(text)))
        self.assertEqual([text for text, _ in kept._by_place.values()], texts[-3:])
        self.assertEqual(kept._characters, 27)
        kept.keep(9, json.dumps({"a": "x" * 20}), ItemValues.of({"a": "x" * 20}))
        self.assertEqual([text for text, _ in kept._by_place.values()], texts[-3:])
        kept.keep(4, '{"b": 1}', ItemValues.of({"b": 1}))  # a place saved again holds its latest text only
        self.assertEqual([text for text, _ in kept._by_place.values()], texts[-3:-1] + ['{"b": 1}'])
        self.assertEqual(kept._characters, 26)

    def test_an_edit_after_another_connection_saved_the_item_keeps_that_save(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "bugs.db")
            agent, _, ids = bug_store(path, items=1)
            person = record_store.connect(path, clock=agent.clock)
            try:
                version = edit(agent, ids[0], 1, "first", status="triaged")["version"]  # its values now kept
                version = person.edit_item(BUGS, ids[0], {"description": "Rewritten by a person."})
                self.assertNotIn("error", edit(agent, ids[0], version, "second", owner="aiko"))
                values = read(agent, ids[0])["values"]
                self.assertEqual((values["description"], values["status"], values["owner"]),
                                 ("Rewritten by a person.", "triaged", "aiko"))
            finally:
                person.close()
                agent.close()

    def test_a_rolled_back_edit_leaves_nothing_that_a_later_edit_could_read(self):
        store, _, ids = bug_store(items=1)
        refused = edit(store, ids[0], 1, "bad", status="triaged", points=99)  # points past their maximum
        self.assertEqual(refused["error"], "validation_failed")
        self.assertNotIn("error", edit(store, ids[0], 1, "good", owner="mika"))
        self.assertEqual(store.item(BUGS, ids[0])["values"].get("status"), "new")
        item = store.item(EVERY_TYPE, "every-1")
        self.assertEqual(item["values"], {"name": "first"})

    def test_the_store_keeps_what_it_saved_by_the_text_it_wrote(self):
        store, _, ids = bug_store(items=1)
        edit(store, ids[0], 1, "one", status="triaged")
        with store.database.read() as connection:
            text = connection.execute(record_store.SELECT_ITEM, (BUGS, ids[0])).fetchone()["fields"]
        place = (id(store.database), 1)  # the item's row number
        self.assertEqual(item_values.KEPT.values_of(text, place).text(), text)
        self.assertEqual(item_values.KEPT._by_place[place][0], text)


if __name__ == "__main__":
    unittest.main()
