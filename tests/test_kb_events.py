"""The event log: one event per visible save, per knowledge base, sequence 1, 2, 3 ... and a cursor to resume from."""

import unittest

from tests.helpers import KB, OTHER_KB, edit, poll_all, read, snapshot, support_store


def poll(store, kb=KB, **more):
    return store.call_tool("poll_resource_events", dict(resource_type="knowledge_base", resource_id=kb, **more))


class EventLogTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_the_setup_wrote_one_event_per_visible_save_in_order(self):
        events = poll_all(self.store)
        self.assertEqual([(e["sequence"], e["type"], e["article_id"]) for e in events],
                         [(1, "created", self.ids[0]), (2, "created", self.ids[1]), (3, "created", self.ids[2]),
                          (4, "created", "gone-1"), (5, "unpublished", "gone-1")])

    def test_each_kind_of_save_writes_its_event_with_the_new_version(self):
        article = self.ids[0]
        saves = [
            ("updated", lambda: self.store.save_article(KB, article, content="Changed.")),
            ("renamed", lambda: self.store.save_article(KB, article, title="Reset your password")),
            ("updated", lambda: edit(self.store, article, read(self.store, article)["updated_at"], "k1")["citation"]),
            ("renamed", lambda: edit(self.store, article, read(self.store, article)["updated_at"], "k2",
                                     title="Passwords")["citation"]),
            ("updated", lambda: edit(self.store, article, read(self.store, article)["updated_at"], "k3",
                                     title="Passwords")["citation"]),
            ("unpublished", lambda: self.store.unpublish_article(KB, article)),
            ("published", lambda: self.store.publish_article(KB, article)),
            ("published", lambda: self.store.publish_article(KB, "draft-1")),
        ]
        for expected_type, save in saves:
            self.clock.advance()
            citation = save()
            last = poll_all(self.store)[-1]
            self.assertEqual((last["type"], last["article_id"], last["updated_at"]),
                             (expected_type, citation["article_id"], citation["updated_at"]))

    def test_saves_of_drafts_write_no_event(self):
        before = len(poll_all(self.store))
        self.store.save_article(KB, "draft-1", content="Still a draft.")
        self.store.create_article(KB, "Another draft", "Draft.", published=False)
        self.assertEqual(len(poll_all(self.store)), before)

    def test_a_save_of_an_unpublished_article_writes_it_gone_again_at_its_new_version_and_reads_stay_not_found(self):
        self.clock.advance()
        citation = self.store.save_article(KB, "gone-1", content="Still unpublished.")
        last = poll_all(self.store)[-1]
        self.assertEqual(set(last), {"sequence", "type", "article_id", "updated_at"})  # no title, no content
        self.assertEqual((last["type"], last["article_id"], last["updated_at"]),
                         ("unpublished", "gone-1", citation["updated_at"]))
        gone, missing = read(self.store, "gone-1"), read(self.store, "no-such-article")
        self.assertEqual(gone["error"], missing["error"])
        self.assertEqual(gone["error"], "not_found")

    def test_sequences_run_from_one_with_no_gap_even_after_rejected_edits(self):
        version = read(self.store, self.ids[0])["updated_at"]
        edit(self.store, self.ids[0], version, "k1")
        edit(self.store, self.ids[0], version, "k2")  # version_conflict
        edit(self.store, "missing", version, "k3")  # not_found
        self.store.save_article(KB, self.ids[1], content="Changed.")
        sequences = [event["sequence"] for event in poll_all(self.store)]
        self.assertEqual(sequences, list(range(1, len(sequences) + 1)))
        self.assertEqual(len(sequences), 7)

    def test_each_knowledge_base_has_its_own_log(self):
        self.assertEqual([(e["sequence"], e["article_id"]) for e in poll_all(self.store, OTHER_KB)],
                         [(1, "refund-1")])


class PollTest(unittest.TestCase):
    def setUp(self):
        self.store, self.clock, self.ids = support_store()

    def test_poll_returns_the_events_after_the_cursor_and_where_to_resume(self):
        page = poll(self.store, after_sequence=3)
        self.assertEqual([e["sequence"] for e in page["events"]], [4, 5])
        self.assertEqual((page["last_sequence"], page["has_more"]), (5, False))

    def test_poll_pages_by_limit_and_says_when_more_remain(self):
        first = poll(self.store, limit=2)
        second = poll(self.store, limit=2, after_sequence=first["last_sequence"])
        third = poll(self.store, limit=2, after_sequence=second["last_sequence"])
        self.assertEqual([[e["sequence"] for e in page["events"]] for page in (first, second, third)],
                         [[1, 2], [3, 4], [5]])
        self.assertEqual([page["has_more"] for page in (first, second, third)], [True, True, False])

    def test_a_page_that_ends_exactly_at_the_head_has_no_more(self):
        self.assertFalse(poll(self.store, limit=5)["has_more"])

    def test_the_defaults_are_from_zero_and_a_hundred(self):
        for n in range(120):
            self.store.save_article(KB, self.ids[0], content=f"Revision {n}.")
        page = poll(self.store)
        self.assertEqual((page["events"][0]["sequence"], len(page["events"]), page["has_more"]), (1, 100, True))

    def test_polling_at_the_head_returns_nothing_and_keeps_the_cursor(self):
        self.assertEqual(poll(self.store, after_sequence=5), {"events": [], "last_sequence": 5, "has_more": False})

    def test_a_cursor_past_the_head_gets_an_empty_page_and_the_head_to_resume_from(self):
        self.assertEqual(poll(self.store, after_sequence=999), {"events": [], "last_sequence": 5, "has_more": False})
        self.store.save_article(KB, self.ids[0], content="Changed.")
        self.assertEqual([e["sequence"] for e in poll(self.store, after_sequence=5)["events"]], [6])

    def test_an_empty_log_polls_as_zero(self):
        self.store.create_knowledge_base("kb-empty")
        self.assertEqual(poll(self.store, "kb-empty"), {"events": [], "last_sequence": 0, "has_more": False})

    def test_polling_writes_nothing(self):
        before = snapshot(self.store)
        poll(self.store, after_sequence=2, limit=1)
        self.assertEqual(snapshot(self.store), before)

    def test_another_resource_type_is_unsupported_here(self):
        for resource_type in ("channel", "note", "record", "session"):
            result = self.store.call_tool("poll_resource_events", {"resource_type": resource_type,
                                                                   "resource_id": KB})
            self.assertEqual(result["error"], "unsupported_resource_type", resource_type)
            self.assertIn('"knowledge_base"', result["message"])


if __name__ == "__main__":
    unittest.main()
