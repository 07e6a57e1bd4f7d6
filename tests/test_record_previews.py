"""A listing shows each item's stored preview: the page it gives is the page cut anew from the values, every save
keeps it so, an older file gains previews when it is upgraded, and a channel read once is forgotten when it may
have changed."""

import os
import shutil
import sqlite3
import tempfile
import unittest

from tests.record_helpers import BUGS, EVERY_TYPE, bug_store, edit, page
from osfoundry_tools.stores import record_store

LONG = "Ünïcode “quoted” text with \"quotes\", a back\\slash and a line\nbreak, " * 4  # past PREVIEW_CHARACTERS


def cut_anew(store, channel_id, limit=50):
    """The page's items as _shown cuts them from the whole stored values: what a page showed before previews
    were kept."""
    with store.database.read() as connection:
        channel = store._granted_channel(connection, channel_id)
        rows = connection.execute(record_store.PAGE_OF_ROWS, (channel_id, float("inf"), limit)).fetchall()
        return [store._shown(channel, row, store.clock(), preview=True) for row in rows]


def varied(store, clock):
    """Items of EVERY_TYPE holding each kind of value a preview cuts or keeps, made and then saved both ways."""
    made = []
    values = [
        {"name": "plain"},
        {"name": "long", "extra": {"note": LONG, "list": list(range(40))}, "tags": ["ui", "db"],
         "price": 12.5, "share": 0.1 + 0.2, "stars": 3, "done": True, "due": "2026-11-01"},
        {"name": "files", "files": [{"name": "é.png", "url": "https://example.com/" + "a" * 150}],
         "bugs": [], "extra": [LONG], "count": -5},
        {"name": "short", "extra": "x" * record_store.PREVIEW_CHARACTERS, "site": "https://example.com"},
    ]
    for number, value in enumerate(values):
        clock.advance(86_400 * (number + 1))
        made.append(store.create_item(EVERY_TYPE, value, item_id=f"varied-{number}")["item_id"])
    return made


class StoredPreviewTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store(items=4)
        self.made = varied(self.store, self.clock)
        self.store.edit_item(EVERY_TYPE, "varied-2", {"bugs": [self.ids[0]], "name": "related"})
        self.clock.advance(3 * 86_400)

    def test_a_page_from_stored_previews_is_the_page_cut_anew(self):
        for channel in (BUGS, EVERY_TYPE):
            with self.subTest(channel=channel):
                self.assertEqual(page(self.store, channel)["items"], cut_anew(self.store, channel))

    def test_an_agent_s_save_and_a_person_s_save_keep_the_preview(self):
        self.assertEqual(edit(self.store, "varied-1", 1, "k1", channel=EVERY_TYPE, extra=None, tags=["db"],
                              name="renamed")["version"], 2)
        self.store.edit_item(EVERY_TYPE, "varied-0", {"extra": {"again": LONG}})
        self.assertEqual(edit(self.store, self.ids[0], 1, "k2", description=LONG, owner="ren")["version"], 2)
        shown = {item["item_id"]: item["values"] for item in page(self.store, EVERY_TYPE)["items"]}
        self.assertEqual((shown["varied-1"]["extra"], shown["varied-1"]["tags"]), (None, ["db"]))
        self.assertTrue(shown["varied-0"]["extra"].endswith(record_store.CUT_MARK))
        for channel in (BUGS, EVERY_TYPE):
            with self.subTest(channel=channel):
                self.assertEqual(page(self.store, channel)["items"], cut_anew(self.store, channel))

    def test_formulas_are_computed_at_the_time_of_the_call(self):
        ages = [item["values"]["age"] for item in page(self.store, EVERY_TYPE)["items"]]
        self.clock.advance(2 * 86_400)
        self.assertEqual([item["values"]["age"] for item in page(self.store, EVERY_TYPE)["items"]],
                         [age + 2 for age in ages])

    def test_a_relation_the_caller_may_not_see_is_null_in_the_page_as_in_a_read(self):
        hidden = record_store.RecordStore(self.store.database, granted={EVERY_TYPE}, scopes=self.store.scopes,
                                          rejection_detail="labels", clock=self.clock)
        items = {item["item_id"]: item["values"] for item in page(hidden, EVERY_TYPE)["items"]}
        self.assertIsNone(items["varied-2"]["bugs"])
        self.assertEqual(page(self.store, EVERY_TYPE)["items"][1]["values"]["bugs"], [self.ids[0]])
        self.assertEqual(page(hidden, EVERY_TYPE)["items"], cut_anew(hidden, EVERY_TYPE))

    def test_a_store_that_cuts_elsewhere_cuts_the_values_anew(self):
        other = record_store.RecordStore(self.store.database, granted=None, scopes=self.store.scopes,
                                         rejection_detail="labels", clock=self.clock, preview_characters=40)
        items = page(other, EVERY_TYPE)["items"]
        self.assertEqual(items, cut_anew(other, EVERY_TYPE))
        self.assertEqual(len(items[2]["values"]["extra"]), 40)

    def test_a_preview_is_ascii_json_of_every_field_in_schema_order(self):
        (preview,) = self.store.database.connection.execute(
            "SELECT preview FROM items WHERE id = 'varied-1'").fetchone()
        self.assertTrue(preview.isascii())
        keys = [field["key"] for field in self.store.schema(EVERY_TYPE)["fields"]]
        self.assertEqual(list(record_store.json.loads(preview)), keys)


class UpgradeTest(unittest.TestCase):
    def test_a_file_of_schema_3_gains_a_preview_for_every_item_and_lists_as_before(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "old.db")
        store, clock, ids = bug_store(path, items=5)
        varied(store, clock)
        store.delete_item(BUGS, ids[1])
        before = {channel: page(store, channel) for channel in (BUGS, EVERY_TYPE)}
        store.close()
        connection = sqlite3.connect(path)  # the items table as schema 3 made it: no preview
        connection.executescript("""
            PRAGMA foreign_keys = OFF;
            CREATE TABLE old_items (
                number INTEGER PRIMARY KEY, channel_id TEXT NOT NULL REFERENCES channels (id), id TEXT NOT NULL,
                version INTEGER NOT NULL CHECK (version >= 1), fields TEXT NOT NULL, created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL, deleted_at TEXT, UNIQUE (channel_id, id));
            INSERT INTO old_items SELECT number, channel_id, id, version, fields, created_at, updated_at, deleted_at
                FROM items;
            DROP TABLE items;
            ALTER TABLE old_items RENAME TO items;
            CREATE INDEX items_by_page ON items (channel_id, number);
            PRAGMA user_version = 3;
        """)
        connection.close()
        with record_store.connect(path, clock=clock) as reopened:
            connection = reopened.database.connection
            self.assertEqual(connection.execute("PRAGMA user_version").fetchone()[0], record_store.LAYOUT.version)
            self.assertEqual(connection.execute("SELECT count(*) FROM items WHERE preview = ''").fetchone()[0], 0)
            for channel in (BUGS, EVERY_TYPE):
                with self.subTest(channel=channel):
                    self.assertEqual(page(reopened, channel), before[channel])
            self.assertEqual(edit(reopened, ids[0], 1, "after", status="triaged")["version"], 2)
            self.assertEqual(page(reopened)["items"][-1]["values"]["status"], "triaged")


class KeptChannelTest(unittest.TestCase):
    """A channel's row is read once and kept: whatever may have changed it since empties what was kept."""

    def setUp(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        self.path = os.path.join(folder, "bugs.db")
        self.store, self.clock, self.ids = bug_store(self.path)

    def test_a_change_another_connection_commits_is_seen_at_once(self):
        self.assertEqual(page(self.store)["schema"]["name"], "Bugs")
        other = sqlite3.connect(self.path)
        other.execute("UPDATE channels SET name = 'Bugs, renamed elsewhere' WHERE id = ?", (BUGS,))
        other.commit()
        other.close()
        self.assertEqual(page(self.store)["schema"]["name"], "Bugs, renamed elsewhere")

    def test_a_channel_made_in_a_write_that_rolls_back_is_forgotten_with_it(self):
        with self.assertRaises(KeyError):
            with self.store.database.write():
                self.store.create_channel("fleeting", "Fleeting", [{"key": "name", "label": "Name", "type": "text"}])
                self.assertEqual(page(self.store, "fleeting")["items"], [])  # read, and kept, inside the write
                raise KeyError("the person changed their mind")
        self.assertEqual(page(self.store, "fleeting")["error"], "not_found")

    def test_a_copy_over_the_database_is_read_anew(self):
        self.assertEqual(page(self.store)["schema"]["name"], "Bugs")
        source, _, _ = bug_store()
        source.create_channel("only-in-the-copy", "Copied", [{"key": "name", "label": "Name", "type": "text"}])
        with source.database.write() as connection:
            connection.execute("UPDATE channels SET name = 'Copied bugs' WHERE id = ?", (BUGS,))
        source.database.copy_to(self.store.database)
        self.assertEqual(page(self.store)["schema"]["name"], "Copied bugs")
        self.assertEqual(page(self.store, "only-in-the-copy")["items"], [])


if __name__ == "__main__":
    unittest.main()
