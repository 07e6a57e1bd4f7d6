"""Listen streams without the SDK, in one process: a save notifies each stream watching it once, with its sequence;
a stream resumes from a sequence with no gap and no duplicate; the caps, the slow listener's resync notice, and a
listen for what the caller may not see."""

import unittest

from osfoundry_tools.server import listening, tokens
from tests.helpers import KB, OTHER_KB, edit, read
from tests.test_mcp_eras import WRITER, request, server_of

LOG = f"osfoundry://knowledge_base/{KB}"
KB_ONLY = tokens.Grant.of("kb-only", {"knowledge_base": [KB]}, frozenset({tokens.WRITE_SCOPE}))
WAIT = 5.0  # seconds at most for a notification that must come


def listen_request(*uris, request_id=1):
    return request("subscriptions/listen", {"notifications": {"resourceSubscriptions": list(uris)}},
                   request_id=request_id)


class ListenTest(unittest.TestCase):
    def setUp(self):
        self.server, self.articles, self.items, (self.kb, self.records) = server_of()
        self.addCleanup(self.kb.close)
        self.addCleanup(self.records.close)
        self.addCleanup(self.server.hub.stop)
        self.saves = 0

    def listen(self, *uris, grant=None, request_id=1):
        stream = self.server.handle(listen_request(*uris, request_id=request_id), grant=grant)
        self.assertIsInstance(stream, listening.Stream, stream)
        ack = stream.next(WAIT)
        self.assertEqual(ack["method"], "notifications/subscriptions/acknowledged")
        self.assertEqual(ack["params"]["notifications"]["resourceSubscriptions"], list(dict.fromkeys(uris)))
        return stream

    def save(self, article):
        self.saves += 1
        version = read(self.kb, article)["updated_at"]
        self.assertNotIn("error", edit(self.kb, article, version, f"key-{self.saves}", f"Text {self.saves}."))

    def sequences(self, stream, count):
        got = []
        for _ in range(count):
            message = stream.next(WAIT)
            self.assertIsNotNone(message, f"only {got} came")
            got.append(message["params"]["_meta"]["io.osfoundry/sequence"])
        self.assertIsNone(stream.next(0.2))  # nothing more
        return got

    def test_a_save_notifies_each_stream_once_with_its_sequence(self):
        whole, one, both = self.listen(LOG), self.listen(LOG + f"/articles/{self.articles[0]}", request_id=2), \
            self.listen(LOG, LOG + f"/articles/{self.articles[0]}", request_id=3)
        self.save(self.articles[0])
        self.save(self.articles[1])
        first, second = self.sequences(whole, 2)
        self.assertEqual(second, first + 1)
        self.assertEqual(self.sequences(one, 1), [first])
        self.assertEqual(self.sequences(both, 2), [first, second])

    def test_a_notification_names_the_article_its_version_and_the_subscription(self):
        stream = self.listen(LOG, request_id="listen-9")
        self.save(self.articles[2])
        params = stream.next(WAIT)["params"]
        self.assertEqual(params["uri"], LOG + f"/articles/{self.articles[2]}")
        self.assertEqual(params["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-9")
        self.assertEqual(params["_meta"]["io.osfoundry/version"], read(self.kb, self.articles[2])["updated_at"])

    def test_a_resumed_stream_gets_exactly_what_it_missed_then_goes_on(self):
        first = self.listen(LOG)
        self.save(self.articles[0])
        (seen,) = self.sequences(first, 1)
        first.release()
        self.save(self.articles[1])
        self.save(self.articles[0])
        resumed = self.listen(f"{LOG}?after_sequence={seen}", request_id=2)
        self.save(self.articles[2])
        self.assertEqual(self.sequences(resumed, 3), [seen + 1, seen + 2, seen + 3])

    def test_a_forged_or_malformed_sequence_is_refused(self):
        for query, code in (("after_sequence=99999", -32602), ("after_sequence=-1", -32602),
                            ("after_sequence=x", -32602), ("from=1", -32602),
                            ("after_sequence=1&after_sequence=2", -32602)):
            with self.subTest(query=query):
                answer = self.server.handle(listen_request(f"{LOG}?{query}"))
                self.assertEqual(answer["error"]["code"], code)
        self.assertEqual(self.server.hub.streams, [])

    def test_ungranted_missing_and_unpublished_are_refused_alike(self):
        cases = {"ungranted": (f"osfoundry://knowledge_base/{OTHER_KB}", KB_ONLY),
                 "missing": ("osfoundry://knowledge_base/nope", KB_ONLY),
                 "unpublished": (LOG + "/articles/gone-1", KB_ONLY), "draft": (LOG + "/articles/draft-1", None)}
        for case, (uri, grant) in cases.items():
            with self.subTest(case=case):
                self.assertEqual(self.server.handle(listen_request(LOG, uri), grant=grant)["error"]["code"], -32002)
        self.assertEqual(self.server.hub.streams, [])

    def test_bad_listen_params_are_invalid_params(self):
        for params in ({}, {"notifications": []}, {"notifications": {"resourceSubscriptions": "x"}},
                       {"notifications": {"resourceSubscriptions": [LOG] * 101}}):
            with self.subTest(params=params):
                answer = self.server.handle(request("subscriptions/listen", params))
                self.assertEqual(answer["error"]["code"], -32602)

    def test_streams_are_capped_per_caller_and_in_all_and_a_released_one_frees_its_place(self):
        self.server.hub.max_per_caller, self.server.hub.max_streams = 2, 3
        mine = [self.listen(LOG, grant=WRITER, request_id=n) for n in (1, 2)]
        refused = self.server.handle(listen_request(LOG), grant=WRITER)["error"]
        self.assertEqual(refused["code"], -32000)
        self.assertIn("one stream", refused["message"])
        self.listen(LOG, grant=KB_ONLY)
        self.assertIn("limit", self.server.handle(listen_request(LOG), grant=KB_ONLY)["error"]["message"])
        mine[0].release()
        self.listen(LOG, grant=WRITER, request_id=3)

    def test_a_listener_that_never_reads_gets_one_resync_notice_then_its_stream_ends(self):
        self.server.hub.outbox, self.server.hub.autostart = 3, False  # the test ticks
        stream = self.server.handle(listen_request(LOG))
        for number in range(6):
            self.save(self.articles[number % 3])
        self.server.hub.tick()
        taken = []
        for _ in range(10):
            try:
                message = stream.next(WAIT)
            except listening.Closed:
                break
            taken.append(message)
        self.assertEqual(taken[0]["method"], "notifications/subscriptions/acknowledged")
        sequences = [m["params"]["_meta"]["io.osfoundry/sequence"] for m in taken[1:-1]]
        self.assertEqual(len(sequences), 2)  # the outbox held the ack and two
        notice = taken[-1]["params"]
        self.assertEqual(notice["uri"], LOG)
        self.assertEqual(notice["_meta"]["io.osfoundry/resyncFrom"], sequences[-1])
        stream.release()
        self.assertEqual(self.server.hub.streams, [])

    def test_subscribe_over_http_in_the_handshake_era_says_what_to_do(self):
        answer = self.server.handle(request("resources/subscribe", {"uri": LOG}, meta=None))
        self.assertEqual(answer["error"]["code"], -32600)
        self.assertIn("subscriptions/listen", answer["error"]["message"])

    def test_stop_ends_every_stream_and_refuses_new_ones(self):
        stream = self.listen(LOG)
        self.server.hub.stop()
        with self.assertRaises(listening.Closed):
            stream.next(WAIT)
        self.assertEqual(self.server.handle(listen_request(LOG))["error"]["code"], -32000)


if __name__ == "__main__":
    unittest.main()
