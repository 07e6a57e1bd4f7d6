"""Nothing crosses a grant: idempotency keys belong to (caller, tool, resource), and a relation to an ungranted
channel reads and refuses the same whatever it holds."""

import json
import os
import shutil
import sqlite3
import tempfile
import unittest

from osfoundry_tools.core import checks
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_store, record_store
from tests import helpers
from tests.helpers import KB, ManualClock, snapshot
from tests.record_helpers import BUGS, bug_store, edit, page, read

PUBLIC, HR = "kb-public", "kb-hr"


def open_again(store, **options):
    """A second connection to a store's database, as another caller or with another grant."""
    kind = type(store)
    if kind is kb_store.KnowledgeBaseStore:
        return kind(store.database, granted=options.get("granted"), clock=store.clock,
                    caller=options.get("caller", store.caller))
    return kind(store.database, granted=options.get("granted"), scopes=store.scopes, rejection_detail="labels",
                clock=store.clock, caller=options.get("caller", store.caller))


def two_bases():
    clock = ManualClock()
    store = kb_store.connect(clock=clock)
    for kb in (PUBLIC, HR):
        store.create_knowledge_base(kb)
        store.create_article(kb, f"Notes of {kb}", "Salaries and holidays.", article_id=f"{kb}-1")
    clock.advance()
    return store, clock


def edit_article(store, kb, key, content="Rewritten."):
    version = helpers.read(store, f"{kb}-1", kb=kb)["updated_at"]
    return helpers.edit(store, f"{kb}-1", version, key, content=content, kb=kb)


class KeyScopeTest(unittest.TestCase):
    def test_a_key_used_in_an_ungranted_knowledge_base_reveals_nothing_to_a_caller_granted_another(self):
        store, _ = two_bases()
        self.assertEqual(edit_article(store, HR, "fix-salaries")["replay"], False)
        public_only = open_again(store, granted={PUBLIC})
        result = edit_article(public_only, PUBLIC, "fix-salaries")
        self.assertEqual(result["replay"], False)  # executed: not idempotency_key_reused, nothing learned of kb-hr
        self.assertEqual(edit_article(public_only, PUBLIC, "fix-salaries", content="Other text.")["error"],
                         "idempotency_key_reused")  # its own key, in its own knowledge base, still guards

    def test_two_callers_on_one_file_never_meet_each_others_keys_or_results(self):
        store, clock, ids = helpers.support_store(caller="alice")
        version = helpers.read(store, ids[0])["updated_at"]
        first = helpers.edit(store, ids[0], version, "k")
        bob = open_again(store, caller="bob")
        again = helpers.edit(bob, ids[0], version, "k")  # alice's very call, from bob: no replay of her result
        self.assertEqual(again["error"], "version_conflict")
        self.assertEqual(helpers.edit(store, ids[0], version, "k"), dict(first, replay=True))
        keys = store.database.connection.execute("SELECT caller, tool, resource_id, key FROM idempotency_keys")
        self.assertEqual([tuple(row) for row in keys], [("alice", "edit_knowledge_article", KB, "k")])

    def test_one_callers_key_on_another_granted_resource_is_another_key(self):
        store, _ = two_bases()
        self.assertEqual(edit_article(store, PUBLIC, "same")["replay"], False)
        self.assertEqual(edit_article(store, HR, "same")["replay"], False)

    def test_a_record_key_is_scoped_alike_and_a_revoked_grant_replays_nothing(self):
        store, clock, ids = bug_store()
        self.assertEqual(edit(store, ids[0], 1, "k", status="triaged")["replay"], False)
        other = open_again(store, caller="someone-else")
        self.assertEqual(edit(other, ids[0], 1, "k", status="triaged")["error"], "version_conflict")
        revoked = open_again(store, granted={"ops"})
        before = snapshot(store)
        self.assertEqual(edit(revoked, ids[0], 1, "k", status="triaged")["error"], "not_found")
        self.assertEqual(snapshot(store), before)

    def test_a_caller_must_be_named(self):
        for caller in ("", None, 7, "x" * (checks.ID_CHARACTERS + 1)):
            with self.subTest(caller=caller), self.assertRaises(ValueError):
                kb_store.connect(caller=caller)

    def test_the_server_serves_the_caller_it_is_given(self):
        options = parse_options(["--demo", "--caller", "ops-bot"])
        workspace = open_workspace(options)
        self.addCleanup(workspace.close)
        self.assertEqual({kind: store.caller for kind, store in workspace.stores.items()},
                         {"knowledge_base": "ops-bot", "record": "ops-bot"})
        self.assertEqual(parse_options(["--demo"]).caller, "agent")


class OlderRecordFilesTest(unittest.TestCase):
    def test_keys_of_a_file_from_before_the_scopes_are_kept_under_their_channel(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "old.db")
        store, _, ids = bug_store(path)
        first = edit(store, ids[0], 1, "k", status="triaged")
        store.close()
        connection = sqlite3.connect(path)
        connection.executescript("""
            ALTER TABLE idempotency_keys RENAME TO keys_now;
            CREATE TABLE idempotency_keys (tool TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL,
                result TEXT NOT NULL, created_at TEXT NOT NULL, PRIMARY KEY (tool, key)) WITHOUT ROWID;
            INSERT INTO idempotency_keys SELECT tool, key, fingerprint, result, created_at FROM keys_now;
            INSERT INTO idempotency_keys VALUES ('edit_record_item', 'orphan', 'f', '{"item_id": "gone"}', 't');
            DROP TABLE keys_now;
            PRAGMA application_id = 0;
            PRAGMA user_version = 0;
        """)
        connection.close()
        with record_store.connect(path) as reopened:
            self.assertEqual(edit(reopened, ids[0], 1, "k", status="triaged"), dict(first, replay=True))
            keys = reopened.database.connection.execute("SELECT caller, resource_id, key FROM idempotency_keys")
            self.assertEqual([tuple(row) for row in keys], [("agent", BUGS, "k")])


LINKS = "links"
LINK_FIELDS = [
    {"key": "name", "label": "Name", "type": "text", "is_required": True},
    {"key": "bug", "label": "Bug", "type": "relation", "related_channel_id": BUGS},
    {"key": "stars", "label": "Stars", "type": "rating", "max_stars": 5},
]


class HiddenRelationTest(unittest.TestCase):
    def setUp(self):
        self.people, self.clock, self.ids = bug_store()
        self.people.create_channel(LINKS, "Links", LINK_FIELDS)
        self.hidden = self.ids[-1]  # an ID the links channel does not use itself (each channel numbers its own)
        self.link = self.people.create_item(LINKS, {"name": "first", "bug": [self.hidden]})["item_id"]
        self.agent = open_again(self.people, granted={LINKS})

    def test_the_schema_names_no_ungranted_channel_and_its_relation_reads_as_null(self):
        listing = page(self.agent, LINKS)
        field = listing["schema"]["fields"][1]
        self.assertEqual(field, {"key": "bug", "label": "Bug", "type": "relation", "is_required": False,
                                 "is_unique": False, "granted": False})
        self.assertEqual(listing["items"][0]["values"]["bug"], None)
        self.assertEqual(read(self.agent, self.link, LINKS)["values"]["bug"], None)
        for answer in (listing, read(self.agent, self.link, LINKS)):
            self.assertNotIn(json.dumps(BUGS), json.dumps(answer))
            self.assertNotIn(self.hidden, json.dumps(answer))

    def test_an_edit_of_the_relation_is_refused_alike_whatever_it_names_and_writes_nothing(self):
        before = snapshot(self.people)
        answers = set()
        for named in ([self.ids[0]], ["itm-99999"], [], None, "not even a list", [self.ids[0], self.ids[1]]):
            result = edit(self.agent, self.link, 1, f"k{len(answers)}", channel=LINKS, bug=named, stars=99)
            self.assertEqual(result["error"], "validation_failed")
            answers.add(json.dumps(result))
        self.assertEqual(len(answers), 1, answers)
        (answer,) = answers
        self.assertIn("relates to a record channel you were not granted", answer)
        self.assertNotIn(BUGS, json.loads(answer)["fields"][0]["message"])
        self.assertEqual(snapshot(self.people), before)

    def test_the_other_fields_still_save_and_a_caller_granted_both_channels_writes_the_relation(self):
        self.assertEqual(edit(self.agent, self.link, 1, "stars", channel=LINKS, stars=4)["version"], 2)
        both = open_again(self.people, granted={LINKS, BUGS})
        self.assertEqual(page(both, LINKS)["schema"]["fields"][1]["related_channel_id"], BUGS)
        self.assertEqual(edit(both, self.link, 2, "bug", channel=LINKS, bug=[self.ids[1]])["version"], 3)
        self.assertEqual(edit(both, self.link, 3, "missing", channel=LINKS, bug=["itm-99999"])["fields"][0]["key"],
                         "bug")
        self.assertEqual(self.people.item(LINKS, self.link)["values"]["bug"], [self.ids[1]])

    def test_people_write_relations_whatever_an_agent_was_granted(self):
        self.people.edit_item(LINKS, self.link, {"bug": [self.ids[2]]})
        self.people.create_item(LINKS, {"name": "second", "bug": [self.ids[1]]})
        self.assertEqual(self.people.schema(LINKS)["fields"][1]["related_channel_id"], BUGS)


class NothingCrossesAGrantTest(unittest.TestCase):
    """What one knowledge base or channel holds changes nothing another caller sees of a granted one."""

    def search_with_neighbour(self, articles_next_door):
        store = kb_store.connect(clock=ManualClock(), granted={PUBLIC})
        for kb in (PUBLIC, HR):
            store.create_knowledge_base(kb)
        store.create_article(PUBLIC, "Note one", "alpha filler text here")
        store.create_article(PUBLIC, "Note two", "omega filler text here")
        for _ in range(articles_next_door):
            store.create_article(HR, "Merger", "alpha merger plan")
        return store.call_tool("search_knowledge_base", {"knowledge_base_id": PUBLIC, "query": "alpha omega"})

    def test_the_ranking_of_a_search_ignores_the_words_of_other_knowledge_bases(self):
        alone = self.search_with_neighbour(0)
        self.assertEqual(len(alone["results"]), 2)
        for count in (1, 5, 30):
            with self.subTest(articles_next_door=count):
                self.assertEqual(self.search_with_neighbour(count), alone)

    def test_ids_are_numbered_per_knowledge_base_and_per_channel(self):
        store, _ = two_bases()
        first = [store.create_article(kb, "Title", "Text.")["article_id"] for kb in (PUBLIC, HR, PUBLIC)]
        self.assertEqual(first, ["art-00001", "art-00001", "art-00002"])
        records, _, _ = bug_store()
        records.create_channel(LINKS, "Links", LINK_FIELDS)
        self.assertEqual(records.create_item(LINKS, {"name": "one"})["item_id"], "itm-00001")
        records.create_item(LINKS, {"name": "mine"}, item_id="itm-00002")
        self.assertEqual(records.create_item(LINKS, {"name": "three"})["item_id"], "itm-00003")

    def test_the_size_rejection_reads_the_same_whatever_a_hidden_relation_holds(self):
        answers = set()
        for linked in (0, 1, 5):
            with self.subTest(linked=linked):
                people, _, ids = bug_store()
                people.create_channel(LINKS, "Links", LINK_FIELDS + [
                    {"key": "notes", "label": "Notes", "type": "text"}])
                link = people.create_item(LINKS, {"name": "x", "bug": ids[:linked]})["item_id"]
                agent = open_again(people, granted={LINKS})
                before = snapshot(people)
                result = edit(agent, link, 1, "k", channel=LINKS, name="n" * 99_980, notes="m" * 99_950)
                self.assertEqual((result["error"], result["rule"]), ("invalid_arguments", "maxLength"))
                self.assertEqual(snapshot(people), before)
                answers.add(json.dumps(result))
        self.assertEqual(len(answers), 1, answers)

    def test_a_replay_never_confirms_a_guess_at_a_hidden_relation(self):
        people, _, ids = bug_store()
        people.create_channel(LINKS, "Links", LINK_FIELDS)
        link = people.create_item(LINKS, {"name": "x"})["item_id"]
        both = open_again(people, granted={LINKS, BUGS})
        self.assertEqual(edit(both, link, 1, "link-1", channel=LINKS, bug=[ids[1]])["version"], 2)
        narrow = open_again(people, granted={LINKS})
        before = snapshot(people)
        answers = {json.dumps(edit(narrow, link, 1, "link-1", channel=LINKS, bug=[guess])) for guess in ids}
        self.assertEqual(len(answers), 1, answers)
        self.assertEqual(json.loads(answers.pop())["error"], "validation_failed")
        self.assertEqual(snapshot(people), before)


if __name__ == "__main__":
    unittest.main()
