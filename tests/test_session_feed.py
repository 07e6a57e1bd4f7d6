"""A session's GET stream across reconnections (the handshake era over HTTP), its feed driven by hand: each message
carries its position as event ID; a GET that sends the last one back goes on with no gap and no duplicate, one that
sends none loses nothing (what the client may have read comes again), and a GET refused for the caps on streams
leaves the session's open one alone."""

import os
import tempfile
import unittest

from osfoundry_tools.server import listening, sessions
from osfoundry_tools.server.protocol import ProtocolError
from osfoundry_tools.server.routing import POLL
from tests.helpers import KB, edit, read
from tests.test_mcp_eras import server_of

LOG = f"osfoundry://knowledge_base/{KB}"


class SessionFeedTest(unittest.TestCase):
    def setUp(self):
        self.server, self.articles, _, (self.kb, records) = server_of()
        self.addCleanup(self.kb.close)
        self.addCleanup(records.close)
        self.hub = self.server.hub
        self.hub.autostart = False  # the test ticks: each feed is read exactly when it says
        self.addCleanup(self.hub.stop)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.book = sessions.Book(os.path.join(folder.name, sessions.BOOK_NAME))
        self.session = self.book.find(self.book.open(None, "alice"), None)
        self.start = self.server.tools.call(POLL, {"resource_type": "knowledge_base", "resource_id": KB,
                                                   "after_sequence": 2 ** 62, "limit": 1})["last_sequence"]
        self.book.subscribe(self.session, LOG, self.start)
        self.saves = 0

    def save(self):
        self.saves += 1
        article = self.articles[self.saves % len(self.articles)]
        version = read(self.kb, article)["updated_at"]
        self.assertNotIn("error", edit(self.kb, article, version, f"key-{self.saves}", f"Text {self.saves}."))
        return self.start + self.saves

    def get(self, last_event_id=None):
        """A GET of the session, as the transport opens it, after its first look."""
        resuming = {} if last_event_id is None else {"last_event_id": last_event_id}
        feed = listening.SessionFeed(self.hub, self.book, self.session, **resuming)
        self.assertTrue(feed.look())
        return feed

    def delivered(self, feed):
        """(sequence, event ID) of each message the stream has for its client now."""
        self.hub.tick()
        found = []
        while True:
            taken = feed.stream.take(0)
            if taken is None:
                return found
            found.append((taken[0]["params"]["_meta"]["io.osfoundry/sequence"], taken[1]))

    def test_each_message_carries_its_position_and_a_get_sending_it_back_goes_on_with_no_gap_nor_duplicate(self):
        first = self.get()
        sent = [self.save(), self.save()]
        got = self.delivered(first)
        self.assertEqual([sequence for sequence, _ in got], sent)
        self.assertTrue(all(event_id for _, event_id in got))
        first.stream.release()  # the client read the first message only, and went away
        missed = self.save()
        again = self.get(got[0][1])
        self.assertEqual([sequence for sequence, _ in self.delivered(again)], [sent[1], missed])
        self.assertEqual(self.delivered(again), [])

    def test_a_get_without_last_event_id_loses_nothing_the_client_may_not_have_read(self):
        first = self.get()
        sent = self.save()
        self.assertEqual([sequence for sequence, _ in self.delivered(first)], [sent])  # written, maybe never read
        self.assertTrue(first.look())
        first.stream.release()
        later = self.save()
        again = self.get()
        self.assertEqual([sequence for sequence, _ in self.delivered(again)], [sent, later])

    def test_the_position_a_get_sends_back_is_kept_for_the_next_get_without_one(self):
        first = self.get()
        sent = [self.save(), self.save()]
        got = self.delivered(first)
        first.stream.release()
        self.get(got[0][1]).stream.release()  # the position the client sent back is kept in the book
        self.assertEqual([sequence for sequence, _ in self.delivered(self.get())], sent[1:])

    def test_an_event_id_of_another_session_or_made_up_is_ignored(self):
        other = self.book.find(self.book.open(None, "alice"), None)
        self.book.subscribe(other, LOG, self.start)
        elsewhere = listening.SessionFeed(self.hub, self.book, other)
        self.assertTrue(elsewhere.look())
        sent = self.save()
        (_, foreign), = self.delivered(elsewhere)
        tag = listening.session_tag(self.session)
        for event_id in (foreign, f"{tag}:{sent}=\u00b9", f"{tag}:{sent}=1.", f"{tag}:{2 ** 63}=1",
                         f"{tag}:{sent}=1" * 2000, None, ""):
            with self.subTest(event_id=event_id and event_id[:40]):
                feed = self.get(event_id)
                self.assertEqual([sequence for sequence, _ in self.delivered(feed)], [sent])  # from the book
                feed.stream.release()

    def test_a_get_refused_for_the_caps_on_streams_leaves_the_open_one_alone(self):
        self.hub.max_per_caller = 1
        first = self.get()
        with self.assertRaises(ProtocolError):
            listening.SessionFeed(self.hub, self.book, self.session)
        self.assertTrue(first.look())  # still the session's stream
        sent = self.save()
        self.assertEqual([sequence for sequence, _ in self.delivered(first)], [sent])


if __name__ == "__main__":
    unittest.main()
