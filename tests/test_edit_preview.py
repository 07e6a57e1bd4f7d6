"""A store's preview of an edit (plumbing.AgentTools.preview): what the call would answer and change if it ran
now, found in a transaction that is rolled back. It is what a server asks a person to approve, so it must write
nothing (no row, no event, no idempotency key) and show the change as a person reads it. A contract module: make
postgres runs it on PostgreSQL too."""

import unittest

from tests.helpers import KB, snapshot, support_store
from tests.record_helpers import BUGS, bug_store, read


class ArticlePreviewTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()
        self.addCleanup(self.store.close)
        article = self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.ids[0]})
        self.arguments = {"knowledge_base_id": KB, "article_id": self.ids[0], "title": "A new title",
                          "content": article["content"] + "\nOne more line.", "idempotency_key": "preview-1",
                          "expected_version": article["updated_at"]}
        self.title = article["title"]

    def test_a_preview_answers_as_the_edit_would_and_writes_nothing(self):
        before = snapshot(self.store)
        preview = self.store.preview("edit_knowledge_article", self.arguments)
        self.assertEqual(snapshot(self.store), before)
        self.assertFalse(preview.answer["replay"])
        self.assertEqual(preview.answer["citation"]["article_id"], self.ids[0])
        self.assertEqual((preview.before["title"], preview.after["title"]), (self.title, "A new title"))
        self.assertTrue(preview.after["content"].endswith("One more line."))
        self.assertEqual((preview.before["kind"], preview.before["where"]), ("article", KB))

    def test_after_a_preview_the_edit_itself_saves_with_its_key_unconsumed(self):
        self.store.preview("edit_knowledge_article", self.arguments)
        saved = self.store.call_tool("edit_knowledge_article", self.arguments)
        self.assertIs(saved["replay"], False)

    def test_a_stale_version_previews_as_the_conflict_it_would_meet(self):
        self.store.save_article(KB, self.ids[0], content="A person's save.")
        before = snapshot(self.store)
        preview = self.store.preview("edit_knowledge_article", self.arguments)
        self.assertEqual(preview.answer["error"], "version_conflict")
        self.assertIsNone(preview.after)
        self.assertEqual(snapshot(self.store), before)

    def test_a_saved_key_previews_as_its_replay_with_nothing_to_show_after(self):
        self.store.call_tool("edit_knowledge_article", self.arguments)
        preview = self.store.preview("edit_knowledge_article", self.arguments)
        self.assertIs(preview.answer["replay"], True)
        self.assertIsNone(preview.after)

    def test_an_article_not_granted_shows_nothing_and_previews_as_not_found(self):
        narrow = self.store.for_caller("narrow", {"kb-billing"}, ("osfoundry:write",))
        preview = narrow.preview("edit_knowledge_article", self.arguments)
        self.assertEqual(preview.answer["error"], "not_found")
        self.assertIsNone(preview.before)

    def test_bad_arguments_preview_as_their_rejection(self):
        preview = self.store.preview("edit_knowledge_article", dict(self.arguments, expected_version="yesterday"))
        self.assertEqual(preview.answer["error"], "invalid_arguments")
        preview = self.store.preview("edit_knowledge_article", ["not", "an", "object"])
        self.assertEqual(preview.answer["error"], "invalid_arguments")


class ItemPreviewTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = bug_store()
        self.addCleanup(self.store.close)
        version = read(self.store, self.ids[0])["version"]
        self.arguments = {"record_channel_id": BUGS, "item_id": self.ids[0], "expected_version": version,
                          "values": {"status": "in_progress", "owner": "ren"}, "idempotency_key": "preview-2"}

    def test_an_item_shows_each_field_by_label_and_each_option_by_its_label(self):
        before = snapshot(self.store)
        preview = self.store.preview("edit_record_item", self.arguments)
        self.assertEqual(snapshot(self.store), before)
        was, now = ({label: shown for label, shown, _ in side["fields"]} for side in (preview.before, preview.after))
        self.assertEqual((was["Status"], now["Status"]), ("New", "In progress"))
        self.assertEqual((was["Owner"], now["Owner"]), (None, "Ren"))
        self.assertEqual(preview.before["title"], "Bug number 1")  # the field named title, not the first text
        self.assertEqual(preview.answer["version"], self.arguments["expected_version"] + 1)

    def test_a_bad_value_previews_as_its_validation_failure(self):
        preview = self.store.preview("edit_record_item", dict(self.arguments, values={"status": "In progress"}))
        self.assertEqual(preview.answer["error"], "validation_failed")
        self.assertIsNone(preview.after)

    def test_a_read_tool_previews_as_its_answer_with_no_subject(self):
        preview = self.store.preview("read_record_item", {"record_channel_id": BUGS, "item_id": self.ids[0]})
        self.assertEqual(preview.answer["item_id"], self.ids[0])
        self.assertIsNone(preview.before)


if __name__ == "__main__":
    unittest.main()
