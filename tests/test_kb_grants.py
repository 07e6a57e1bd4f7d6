"""A knowledge base that is not granted answers exactly like one that does not exist, for every tool."""

import unittest

from tests import helpers
from tests.helpers import KB, OTHER_KB, snapshot, support_store
from osfoundry_tools.stores import kb_store


def calls(kb, article_id, version):
    """One call of every tool aimed at knowledge base `kb`."""
    return [
        ("search_knowledge_base", {"knowledge_base_id": kb, "query": "password refunds"}),
        ("read_knowledge_article", {"knowledge_base_id": kb, "article_id": article_id}),
        ("edit_knowledge_article", {"knowledge_base_id": kb, "article_id": article_id, "content": "x",
                                    "expected_version": version, "idempotency_key": "k1"}),
        ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": kb}),
    ]


class GrantTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store(granted={KB})
        self.refund_version = self.store.article(OTHER_KB, "refund-1")["updated_at"]

    def test_an_ungranted_and_a_missing_knowledge_base_give_identical_rejections(self):
        for (name, ungranted), (_, missing) in zip(calls(OTHER_KB, "refund-1", self.refund_version),
                                                    calls("kb-nowhere", "refund-1", self.refund_version)):
            left = self.store.call_tool(name, ungranted)
            right = self.store.call_tool(name, missing)
            with self.subTest(tool=name):
                self.assertEqual(left["error"], "not_found")
                self.assertEqual(left["message"].replace(OTHER_KB, "ID"), right["message"].replace("kb-nowhere", "ID"))
                self.assertEqual(set(left), set(right))

    def test_a_valid_edit_on_an_ungranted_knowledge_base_is_not_found_and_writes_nothing(self):
        before = snapshot(self.store)
        result = self.store.call_tool(*calls(OTHER_KB, "refund-1", self.refund_version)[2])
        self.assertEqual(result["error"], "not_found")
        self.assertEqual(snapshot(self.store), before)

    def test_a_stale_edit_on_an_ungranted_knowledge_base_is_not_found_not_a_conflict(self):
        result = self.store.call_tool(*calls(OTHER_KB, "refund-1", "2000-01-01T00:00:00.000000Z")[2])
        self.assertEqual(result["error"], "not_found")

    def test_an_idempotency_key_used_on_a_granted_base_replays_nothing_for_an_ungranted_one(self):
        version = helpers.read(self.store, self.ids[0])["updated_at"]
        helpers.edit(self.store, self.ids[0], version, "k1")
        other = kb_store_for(self.store, granted={OTHER_KB})
        result = helpers.edit(other, self.ids[0], version, "k1")
        self.assertEqual(result["error"], "not_found")

    def test_granted_knowledge_bases_work_as_usual(self):
        for name, arguments in calls(KB, self.ids[0], helpers.read(self.store, self.ids[0])["updated_at"]):
            self.assertNotIn("error", self.store.call_tool(name, arguments), name)

    def test_no_grant_means_every_knowledge_base(self):
        store, _, _ = support_store()
        self.assertEqual(helpers.read(store, "refund-1", kb=OTHER_KB)["article_id"], "refund-1")

    def test_an_empty_grant_means_none(self):
        store, _, ids = support_store(granted=set())
        self.assertEqual(helpers.read(store, ids[0])["error"], "not_found")

    def test_a_single_string_is_not_mistaken_for_a_set_of_ids(self):
        with self.assertRaisesRegex(TypeError, "not one string"):
            support_store(granted=KB)


def kb_store_for(store, granted):
    """A second caller on the same database with another grant."""
    return kb_store.KnowledgeBaseStore(store.database, granted=granted, clock=store.clock)


if __name__ == "__main__":
    unittest.main()
