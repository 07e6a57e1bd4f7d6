"""A unique field holds one value however it is spelled: composed or decomposed accents, an email address's case,
a URL's scheme and host case, a phone number's separators. A second spelling is refused as the first is, naming
the item that holds it, and writes nothing; values that really differ still pass. A file whose items already
hold two spellings of one value (schema 4, before this) is upgraded so that the older item keeps the claim.
"""

import json
import os
import shutil
import sqlite3
import tempfile
import unittest

from tests.helpers import ManualClock, snapshot
from tests.postgres_helpers import default_location, on_postgres, raw_connection
from tests.record_helpers import edit
from osfoundry_tools.stores import record_store

SPELLED = "spelled"
FIELDS = [{"key": "name", "label": "Name", "type": "text", "is_unique": True},
          {"key": "contact", "label": "Contact", "type": "email", "is_unique": True},
          {"key": "site", "label": "Site", "type": "url", "is_unique": True},
          {"key": "phone", "label": "Phone", "type": "phone", "is_unique": True},
          {"key": "note", "label": "Note", "type": "text"}]
HELD = {"name": "Caf\u00e9 Zo\u00eb", "contact": "Ana@Example.com", "site": "https://Docs.Example.com",
        "phone": "+81 3 1234 5678"}
OTHER_SPELLINGS = {"name": ["Cafe\u0301 Zoe\u0308"], "contact": ["ana@example.com", "ANA@EXAMPLE.COM"],
                   "site": ["HTTPS://docs.example.COM/", "https://docs.example.com"],
                   "phone": ["+81-3-1234-5678", "+81 (3) 1234.5678", "+81312345678"]}
DIFFERENT = {"name": ["cafe\u0301 zoe\u0308", "Cafe Zoe"], "contact": ["ana@example.org"],
             "site": ["https://docs.example.com/Guide", "http://docs.example.com/"],
             "phone": ["81 3 1234 5678", "+81 3 1234 5679"]}


def spelled_store(path=None):
    clock = ManualClock()
    store = record_store.connect(path or default_location(), clock=clock)
    store.create_channel(SPELLED, "Spelled", FIELDS)
    store.create_item(SPELLED, HELD, item_id="held")
    store.create_item(SPELLED, {"note": "nothing unique yet"}, item_id="other")
    clock.advance()
    return store, clock


class OneValueManySpellingsTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock = spelled_store()
        self.addCleanup(self.store.close)

    def test_an_agents_edit_with_another_spelling_is_refused_naming_the_holder_and_writes_nothing(self):
        before = snapshot(self.store)
        for key, spellings in OTHER_SPELLINGS.items():
            for number, spelling in enumerate(spellings):
                result = edit(self.store, "other", 1, f"{key}-{number}", channel=SPELLED, **{key: spelling})
                with self.subTest(key=key, spelling=spelling):
                    self.assertEqual(result.get("error"), "validation_failed", result)
                    self.assertIn(f"values.{key} must be unique in this channel", result["fields"][0]["message"])
                    self.assertIn("which item held already has", result["fields"][0]["message"])
        self.assertEqual(snapshot(self.store), before)

    def test_a_persons_create_or_edit_with_another_spelling_is_refused_and_writes_nothing(self):
        before = snapshot(self.store)
        for key, spellings in OTHER_SPELLINGS.items():
            for spelling in spellings:
                with self.subTest(key=key, spelling=spelling):
                    with self.assertRaises(record_store.InvalidValues):
                        self.store.create_item(SPELLED, {key: spelling}, item_id="third")
                    with self.assertRaises(record_store.InvalidValues):
                        self.store.edit_item(SPELLED, "other", {key: spelling})
        self.assertEqual(snapshot(self.store), before)

    def test_values_that_really_differ_are_taken(self):
        version = 1
        for key, values in DIFFERENT.items():
            for number, value in enumerate(values):
                result = edit(self.store, "other", version, f"d-{key}-{number}", channel=SPELLED, **{key: value})
                with self.subTest(key=key, value=value):
                    self.assertEqual(result.get("version"), version + 1, result)
                version += 1

    def test_the_holder_keeps_its_own_value_in_another_spelling_and_frees_it_when_it_changes(self):
        self.assertEqual(edit(self.store, "held", 1, "k1", channel=SPELLED, contact="ana@EXAMPLE.com")["version"], 2)
        self.assertEqual(self.store.item(SPELLED, "held")["values"]["contact"], "ana@EXAMPLE.com")
        self.assertEqual(edit(self.store, "held", 2, "k2", channel=SPELLED, contact="zoe@example.com")["version"], 3)
        self.assertEqual(edit(self.store, "other", 1, "k3", channel=SPELLED, contact="ANA@example.com")["version"], 2)


def as_schema_4(path):
    """What schema 4 let in, written over the store at `path` (a sqlite file or a PostgreSQL URL): each unique value
    held exactly as spelled, and two items holding two spellings of one email address."""
    if on_postgres():
        connection, mark = raw_connection(path), "%s"
        connection.execute("SET search_path TO osfoundry_record_channel")
    else:
        connection, mark = sqlite3.connect(path), "?"
    connection.execute(f"UPDATE items SET fields = {mark} WHERE id = 'other'",
                       (json.dumps({"note": "nothing unique yet", "contact": "ANA@example.COM"}),))
    connection.execute("DELETE FROM unique_values")
    for item_id, values in (("held", HELD), ("other", {"contact": "ANA@example.COM"})):
        for key, value in values.items():
            connection.execute(f"INSERT INTO unique_values SELECT {mark}, {mark}, {mark}, number FROM items "
                               f"WHERE id = {mark}", (SPELLED, key, json.dumps(value, ensure_ascii=False), item_id))
    connection.execute("UPDATE store_marks SET version = 4" if on_postgres() else "PRAGMA user_version = 4")
    connection.commit()
    connection.close()


class UpgradeTest(unittest.TestCase):
    def test_a_store_of_schema_4_holding_two_spellings_keeps_the_older_items_claim(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = default_location() if on_postgres() else os.path.join(folder, "old.db")
        store, clock = spelled_store(path)
        store.close()
        as_schema_4(path)
        with record_store.connect(path, clock=clock) as reopened:
            with reopened.database.read() as connection:
                rows = connection.execute(
                    "SELECT i.id, u.field_key, u.value FROM unique_values AS u JOIN items AS i "
                    "ON i.number = u.item_number ORDER BY i.id, u.field_key").fetchall()
            self.assertIn(("held", "contact", '"ana@example.com"'), [tuple(row) for row in rows])
            self.assertNotIn("contact", [row[1] for row in rows if row[0] == "other"])
            self.assertEqual(reopened.item(SPELLED, "other")["values"]["contact"], "ANA@example.COM")
            refused = edit(reopened, "other", 1, "again", channel=SPELLED, contact="ANA@example.COM")
            self.assertIn("which item held already has", refused["fields"][0]["message"])
            self.assertEqual(edit(reopened, "other", 1, "note", channel=SPELLED, name="renamed")["version"], 2)
            with self.assertRaises(record_store.InvalidValues):
                reopened.create_item(SPELLED, {"contact": "ana@example.com"}, item_id="third")


if __name__ == "__main__":
    unittest.main()
