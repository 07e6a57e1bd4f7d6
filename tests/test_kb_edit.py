"""edit_knowledge_article: a compare-and-swap on updated_at with a mandatory idempotency key."""

import unittest

from tests.helpers import KB, edit, poll_all, read, snapshot, support_store
from osfoundry_tools.core.rejections import VersionConflict
from osfoundry_tools.stores import kb_store


class CompareAndSwapTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()
        self.article = self.ids[0]

    def test_an_edit_with_the_current_version_saves_and_returns_the_new_citation(self):
        before = read(self.store, self.article)
        self.clock.advance()
        result = edit(self.store, self.article, before["updated_at"], "k1", content="Use the new reset page.")
        after = read(self.store, self.article)
        self.assertEqual(result, {"citation": after["citation"], "replay": False})
        self.assertGreater(after["updated_at"], before["updated_at"])
        self.assertEqual((after["title"], after["content"]), (before["title"], "Use the new reset page."))

    def test_an_edit_may_replace_the_title_too(self):
        version = read(self.store, self.article)["updated_at"]
        edit(self.store, self.article, version, "k1", content="Text.", title="Reset your password")
        self.assertEqual(read(self.store, self.article)["title"], "Reset your password")

    def test_a_stale_version_is_a_conflict_that_tells_the_agent_to_reread_and_writes_nothing(self):
        stale = read(self.store, self.article)["updated_at"]
        self.clock.advance()
        self.store.save_article(KB, self.article, content="A person's newer text.")
        before = snapshot(self.store)
        result = edit(self.store, self.article, stale, "k1")
        self.assertEqual(result["error"], "version_conflict")
        self.assertIn("read_knowledge_article again", result["message"])
        self.assertIn("re-apply your change", result["message"])
        self.assertEqual(snapshot(self.store), before)

    def test_a_conflict_does_not_hand_back_the_newer_content_or_version(self):
        stale = read(self.store, self.article)["updated_at"]
        self.clock.advance()
        newer = self.store.save_article(KB, self.article, content="A person's newer text.")["updated_at"]
        result = edit(self.store, self.article, stale, "k1")
        self.assertNotIn(newer, str(result))
        self.assertNotIn("newer text", str(result))

    def test_the_same_instant_written_with_an_offset_is_the_same_version(self):
        version = read(self.store, self.article)["updated_at"]  # whole seconds, in UTC
        with_offset = version.replace("T09:", "T10:").replace(".000000Z", "+01:00")
        self.assertEqual(edit(self.store, self.article, with_offset, "k1")["replay"], False)

    def test_an_unpublished_article_cannot_be_edited_and_reads_as_not_found(self):
        version = read(self.store, self.article)["updated_at"]
        self.store.unpublish_article(KB, self.article)
        before = snapshot(self.store)
        result = edit(self.store, self.article, version, "k1")
        self.assertEqual(result["error"], "not_found")
        self.assertEqual(result["message"], read(self.store, self.article)["message"])
        self.assertEqual(snapshot(self.store), before)

    def test_a_draft_cannot_be_edited_by_an_agent(self):
        version = self.store.article(KB, "draft-1")["updated_at"]
        self.assertEqual(edit(self.store, "draft-1", version, "k1")["error"], "not_found")
        self.assertEqual(self.store.article(KB, "draft-1")["updated_at"], version)

    def test_two_writers_with_the_same_version_one_wins_and_the_loser_writes_no_event(self):
        version = read(self.store, self.article)["updated_at"]
        events = len(poll_all(self.store))
        first = edit(self.store, self.article, version, "writer-a", content="A")
        second = edit(self.store, self.article, version, "writer-b", content="B")
        self.assertEqual((first["replay"], second["error"]), (False, "version_conflict"))
        self.assertEqual(len(poll_all(self.store)), events + 1)
        self.assertEqual(read(self.store, self.article)["content"], "A")


    def test_the_clock_is_read_inside_the_write_transaction_so_versions_follow_commit_order(self):
        modes = []
        clock = self.clock
        self.store.clock = lambda: (modes.append(self.store.database._mode), clock())[1]
        edit(self.store, self.article, read(self.store, self.article)["updated_at"], "k1")
        self.assertEqual(modes, ["write"])

    def test_the_save_underneath_is_itself_a_compare_and_swap(self):
        with self.store.database.write() as connection:
            row = connection.execute(kb_store.SELECT_ARTICLE, (KB, self.article)).fetchone()
        self.store.save_article(KB, self.article, content="A person got there first.")
        with self.assertRaises(VersionConflict):
            with self.store.database.write() as connection:
                self.store._save(connection, row, self.clock(), content="Built on the old row.")
        self.assertEqual(self.store.article(KB, self.article)["content"], "A person got there first.")


class IdempotencyTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()
        self.article = self.ids[0]
        self.version = read(self.store, self.article)["updated_at"]

    def test_the_same_key_and_arguments_replay_the_first_result_and_write_no_event(self):
        first = edit(self.store, self.article, self.version, "k1")
        before = snapshot(self.store)
        self.clock.advance()
        again = edit(self.store, self.article, self.version, "k1")
        self.assertEqual(again, dict(first, replay=True))
        self.assertEqual(snapshot(self.store), before)

    def test_a_replay_is_recognised_whatever_the_order_of_the_arguments(self):
        first = edit(self.store, self.article, self.version, "k1")
        arguments = {"idempotency_key": "k1", "expected_version": self.version, "content": "New text.",
                     "article_id": self.article, "knowledge_base_id": KB}
        self.assertEqual(self.store.call_tool("edit_knowledge_article", arguments), dict(first, replay=True))

    def test_the_same_key_with_different_arguments_is_refused_and_writes_nothing(self):
        edit(self.store, self.article, self.version, "k1")
        before = snapshot(self.store)
        for changed in ({"content": "Other text."}, {"title": "Other"}, {"article_id": self.ids[1]}):
            arguments = dict({"article_id": self.article, "content": "New text."}, **changed)
            result = edit(self.store, version=self.version, key="k1", **arguments)
            with self.subTest(changed=changed):
                self.assertEqual(result["error"], "idempotency_key_reused")
                self.assertIn("Use a new key", result["message"])
        self.assertEqual(snapshot(self.store), before)

    def test_a_rejected_edit_stores_nothing_so_the_same_key_works_after_a_reread(self):
        self.store.save_article(KB, self.article, content="A person's change.")
        self.assertEqual(edit(self.store, self.article, self.version, "k1")["error"], "version_conflict")
        fresh = read(self.store, self.article)["updated_at"]
        retry = edit(self.store, self.article, fresh, "k1", content="A person's change. And mine.")
        self.assertEqual(retry["replay"], False)
        self.assertEqual(read(self.store, self.article)["content"], "A person's change. And mine.")

    def test_a_replay_still_answers_after_the_article_moved_on(self):
        first = edit(self.store, self.article, self.version, "k1")
        self.store.save_article(KB, self.article, content="Later.")
        self.assertEqual(edit(self.store, self.article, self.version, "k1"), dict(first, replay=True))

    def test_keys_are_case_sensitive_strings(self):
        edit(self.store, self.article, self.version, "Key")
        fresh = read(self.store, self.article)["updated_at"]
        self.assertEqual(edit(self.store, self.article, fresh, "key")["replay"], False)


if __name__ == "__main__":
    unittest.main()
