"""Listen streams without the SDK, in one process: a save notifies each stream watching it once, with its sequence;
a stream resumes from a sequence with no gap and no duplicate, a removal missed included; the caps, a cancelled
listen, the slow listener's resync notice and what it costs, and a listen for what the caller may not see."""

import http.client
import io
import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from typing import Optional
from unittest import mock

from osfoundry_tools.server import listening, stdio, streamable_http, tokens
from osfoundry_tools.server.routing import POLL
from osfoundry_tools.stores import kb_store
from tests.helpers import KB, OTHER_KB, ROOT, edit, read
from tests.record_helpers import BUGS
from tests.test_mcp_eras import WRITER, request, server_of

LOG = f"osfoundry://knowledge_base/{KB}"
KB_TYPE = "knowledge_base"
KB_ONLY = tokens.Grant.of("kb-only", {"knowledge_base": [KB]}, frozenset({tokens.WRITE_SCOPE}))
WAIT = 5.0  # seconds at most for a notification that must come


def stream_message(stream):
    message = stream.next(WAIT)
    assert message is not None, "nothing came"
    return message


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

    def head(self, kind=KB_TYPE, log_id=KB):
        return self.server.tools.call(POLL, {"resource_type": kind, "resource_id": log_id,
                                             "after_sequence": 2 ** 62, "limit": 1})["last_sequence"]

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

    def test_once_the_hub_has_stopped_its_watcher_reads_the_stores_no_more(self):
        self.listen(LOG)  # the watcher starts with the first stream
        watcher = self.server.hub.thread
        self.assertTrue(watcher.is_alive())
        self.server.hub.stop()
        self.assertFalse(watcher.is_alive())  # so the stores may close: no read of theirs is left under way

    def test_list_changes_come_to_who_asked_for_created_unpublished_published_and_deleted_not_plain_saves(self):
        asked = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}}))
        narrow = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}},
                                            request_id=2), grant=KB_ONLY)
        plain = self.listen(LOG, request_id=3)
        for stream in (asked, narrow):
            self.assertEqual(stream.next(WAIT)["params"]["notifications"], {"resourcesListChanged": True})
        created = self.kb.create_article(KB, "A new article", "Its text.")["article_id"]
        self.save(self.articles[0])  # an edit: the list is the same
        self.kb.unpublish_article(KB, self.articles[1])
        self.kb.publish_article(KB, self.articles[1])
        self.records.delete_item(BUGS, self.items[0])
        self.server.hub.wake()
        told = [stream_message(asked) for _ in range(4)]
        self.assertEqual([message["method"] for message in told], ["notifications/resources/list_changed"] * 4)
        self.assertEqual(sorted(message["params"]["_meta"]["io.osfoundry/event"] for message in told),
                         ["created", "deleted", "published", "unpublished"])
        self.assertIn(f"{LOG}/articles/{created}", [message["params"]["_meta"]["io.osfoundry/uri"] for message in told])
        self.assertIsNone(asked.next(0.3))
        narrow_told = [stream_message(narrow) for _ in range(3)]  # its grant holds no channel: no deletion
        self.assertEqual(sorted(message["params"]["_meta"]["io.osfoundry/event"] for message in narrow_told),
                         ["created", "published", "unpublished"])
        self.assertIsNone(narrow.next(0.3))
        self.assertEqual({stream_message(plain)["method"] for _ in range(4)}, {"notifications/resources/updated"})

    def test_list_changes_come_from_a_knowledge_base_created_after_the_listen_within_its_grant_once(self):
        self.server.hub.discover_seconds = 0  # look for new logs at every read of them
        asked = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}}))
        narrow = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}},
                                            request_id=2), grant=KB_ONLY)
        for stream in (asked, narrow):
            self.assertEqual(stream.next(WAIT)["params"]["notifications"], {"resourcesListChanged": True})
        self.kb.create_knowledge_base("kb-later", "Created after the listen")
        later = "osfoundry://knowledge_base/kb-later"
        for title in ("Its first article", "Its second article"):
            created = self.kb.create_article("kb-later", title, "Its text.")["article_id"]
            self.server.hub.wake()
            told = stream_message(asked)
            self.assertEqual(told["method"], "notifications/resources/list_changed")
            meta = told["params"]["_meta"]
            self.assertEqual((meta["io.osfoundry/uri"], meta["io.osfoundry/event"]), (f"{later}/articles/{created}",
                                                                                     "created"))
            self.assertIsNone(asked.next(0.3))  # once, however often the new log was looked for
        self.assertIsNone(narrow.next(0.3))  # its grant holds only the knowledge base it named

    def test_a_quiet_look_for_new_logs_matches_no_stream_again_and_a_new_log_matches_each_grant_once(self):
        hub = self.server.hub
        hub.autostart, hub.discover_seconds = False, 0  # the test looks, as often as it likes
        streams = [self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}},
                                              request_id=number)) for number in range(3)]
        with mock.patch.object(listening.resources, "granted_logs", wraps=listening.resources.granted_logs) as matched:
            hub.discover()
            hub.discover()
            self.assertEqual(matched.call_count, 1)  # three streams of one grant, the same logs twice
            self.kb.create_knowledge_base("kb-later", "Created after the listen")
            hub.discover()
            hub.discover()
            self.assertEqual(matched.call_count, 2)
        for stream in streams:
            self.assertIn("osfoundry://knowledge_base/kb-later", {watch.target.log_uri for watch in stream.watches})

    def test_a_list_changed_field_that_is_no_boolean_is_invalid_params_and_opens_nothing(self):
        answer = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": 1}}))
        self.assertEqual(answer["error"]["code"], -32602)
        self.assertEqual(self.server.hub.streams, [])

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

    def test_a_replay_longer_than_the_outbox_arrives_whole_at_the_pace_of_its_reader(self):
        self.server.hub.outbox = 4
        first = self.listen(LOG)
        self.save(self.articles[0])
        (seen,) = self.sequences(first, 1)
        for number in range(30):
            self.save(self.articles[number % 3])
        resumed = self.listen(f"{LOG}?after_sequence={seen}", request_id=2)
        got = []
        while len(got) < 30:
            time.sleep(0.01)  # a slow reader
            message = resumed.next(WAIT)
            self.assertIsNotNone(message)
            got.append(message["params"]["_meta"]["io.osfoundry/sequence"])
        self.assertEqual(got, list(range(seen + 1, seen + 31)))
        self.save(self.articles[1])
        self.assertEqual(self.sequences(resumed, 1), [seen + 31])

    def test_a_forged_or_malformed_sequence_is_refused(self):
        for query, code in (("after_sequence=99999", -32602), ("after_sequence=-1", -32602),
                            ("after_sequence=x", -32602), ("from=1", -32602),
                            ("after_sequence=1&after_sequence=2", -32602),
                            ("after_sequence=%C2%B2", -32602), ("after_sequence=%D9%A3", -32602),  # ², Arabic 3
                            ("after_sequence=%EF%BC%91", -32602), ("after_sequence=1%E2%80%8B", -32602),
                            ("after_sequence=+1", -32602), ("after_sequence=1_0", -32602),
                            ("after_sequence=" + "0" * 19, -32602)):
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

    def test_thousands_of_listeners_meet_the_cap_and_leave_nothing_behind(self):
        hub = self.server.hub
        hub.autostart = False  # no watcher: only the opening is measured
        answers = [self.server.handle(listen_request(LOG, request_id=n), grant=tokens.Grant.of(
            f"agent-{n}", {"knowledge_base": None}, frozenset())) for n in range(listening.MAX_STREAMS + 500)]
        opened = [answer for answer in answers if isinstance(answer, listening.Stream)]
        refused = [answer["error"]["code"] for answer in answers if not isinstance(answer, listening.Stream)]
        self.assertEqual((len(opened), refused), (listening.MAX_STREAMS, [-32000] * 500))
        for stream in opened:
            stream.release()
        self.assertEqual(hub.streams, [])
        self.listen(LOG)

    def test_a_listener_that_never_reads_gets_one_resync_notice_then_its_stream_ends(self):
        hub, now = self.server.hub, [0.0]
        hub.outbox, hub.autostart, hub.clock = 3, False, lambda: now[0]  # the test ticks, and moves the clock
        stream = self.server.handle(listen_request(LOG))
        for number in range(6):
            self.save(self.articles[number % 3])
        hub.tick()  # the outbox fills: the stream waits
        self.assertEqual((len(stream.outbox), stream.behind), (3, {}))
        now[0] = hub.slow_seconds
        hub.tick()  # still full that much later: it cannot keep up
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

    def test_a_reader_too_slow_for_its_replay_costs_a_few_reads_a_tick_not_a_busy_loop(self):
        hub = self.server.hub
        hub.outbox, hub.autostart = 4, False  # the test ticks
        start = self.head()
        for number in range(60):
            self.save(self.articles[number % 3])
        self.listen(LOG)  # a live listener, at the head
        slow = self.listen(f"{LOG}?after_sequence={start}", request_id=2)
        reads = hub.outbox // 2 + 2  # of the slow one's log, two events a read, until its outbox fills; the live one's
        with mock.patch.object(listening, "EVENTS_PER_READ", 2), \
                mock.patch.object(hub.tools, "call", wraps=hub.tools.call) as calls:
            for _ in range(10):
                calls.reset_mock()
                self.assertFalse(hub.tick())  # nothing for a stream that can take it: no tick at once after
                polls = [call for call in calls.call_args_list if call.args[0] == POLL]
                self.assertLessEqual(len(polls), reads)
                slow.next(0)  # the reader takes one message a tick

    def test_a_reader_that_takes_less_than_its_replay_brings_falls_behind_though_it_reads(self):
        hub, now = self.server.hub, [0.0]
        hub.outbox, hub.autostart, hub.clock, hub.slow_seconds = 4, False, lambda: now[0], 3.0
        start = self.head()
        for number in range(40):
            self.save(self.articles[number % 3])
        slow = self.listen(f"{LOG}?after_sequence={start}")
        taken = []
        for second in range(1, 20):
            hub.tick()
            if slow.behind:
                break
            taken.append(slow.next(0)["params"]["_meta"]["io.osfoundry/sequence"])  # one message a second
            now[0] = second
        self.assertTrue(slow.behind, "a reader three seconds behind its oldest message kept its stream")
        rest = []
        while True:
            try:
                rest.append(slow.next(WAIT))
            except listening.Closed:
                break
        sequences = taken + [message["params"]["_meta"]["io.osfoundry/sequence"] for message in rest[:-1]]
        self.assertEqual(sequences, list(range(start + 1, start + 1 + len(sequences))))
        self.assertEqual(rest[-1]["params"]["_meta"]["io.osfoundry/resyncFrom"], sequences[-1])

    def test_a_cancelled_listen_ends_unanswered_and_frees_its_place_for_its_own_connection_only(self):
        self.server.hub.max_per_caller = 1
        connection, another = object(), object()  # over stdio, the Peer that sent the listen and a stranger
        stream = self.server.handle(listen_request(LOG, request_id=7), peer=connection)
        self.assertEqual(stream.next(WAIT)["method"], "notifications/subscriptions/acknowledged")
        for sender, request_id in ((another, 7), (None, 7), (connection, "7"), (connection, 8)):
            with self.subTest(sender=sender, request_id=request_id):
                self.assertIsNone(self.server.handle(
                    {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": request_id}},
                    peer=sender))
                self.assertEqual(self.server.hub.streams, [stream])
        self.server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}},
                           peer=connection)
        with self.assertRaises(listening.Closed):
            stream.next(0.1)
        self.assertIsNone(stream.closing)  # a cancelled request is not answered
        self.assertEqual(self.server.hub.streams, [])
        self.listen(LOG, request_id=7)  # its place is free

    def test_a_resume_replays_a_deletion_and_an_unpublishing_missed_and_its_other_uris_go_on(self):
        item, other_item = (f"osfoundry://record/{BUGS}/items/{item}" for item in self.items[:2])
        article = f"{LOG}/articles/{self.articles[0]}"
        kb_seen, records_seen = self.head(), self.head("record", BUGS)
        self.records.delete_item(BUGS, self.items[0])
        self.kb.unpublish_article(KB, self.articles[0])
        resumed = self.listen(f"{item}?after_sequence={records_seen}", f"{other_item}?after_sequence={records_seen}",
                              f"{article}?after_sequence={kb_seen}")
        told = [stream_message(resumed)["params"] for _ in range(2)]
        self.assertEqual(sorted((params["uri"], params["_meta"]["io.osfoundry/event"]) for params in told),
                         sorted([(item, "deleted"), (article, "unpublished")]))
        self.records.edit_item(BUGS, self.items[1], {"title": "Renamed bug"})
        self.server.hub.wake()
        self.assertEqual(stream_message(resumed)["params"]["uri"], other_item)  # the others go on
        cases = {"draft": (f"{LOG}/articles/draft-1", None), "missing": (f"{LOG}/articles/nope", None),
                 "ungranted": (f"osfoundry://knowledge_base/{OTHER_KB}/articles/refund-1", KB_ONLY),
                 "ungranted log": (f"osfoundry://knowledge_base/{OTHER_KB}", KB_ONLY)}
        shapes = set()
        for case, (uri, grant) in cases.items():
            with self.subTest(case=case):
                error = self.server.handle(listen_request(f"{uri}?after_sequence=0"), grant=grant)["error"]
                self.assertEqual(error["code"], -32002)
                shapes.add(error["message"].replace(json.dumps(f"{uri}?after_sequence=0"), "URI"))
        self.assertEqual(len(shapes), 1)

    def test_saves_of_an_unpublished_article_reach_no_listener_though_the_poll_lists_them(self):
        whole = self.listen(LOG)
        lists = self.server.handle(request("subscriptions/listen", {"notifications": {"resourcesListChanged": True}},
                                           request_id=2))
        self.assertEqual(lists.next(WAIT)["method"], "notifications/subscriptions/acknowledged")
        seen = self.head()
        for number in range(2):
            self.kb.save_article(KB, "gone-1", content=f"Still unpublished, edited {number}.")
        created = self.kb.create_article(KB, "A new article", "Its text.")["article_id"]  # news to both
        self.server.hub.wake()
        for stream in (whole, lists):
            meta = stream_message(stream)["params"]["_meta"]
            self.assertEqual((meta["io.osfoundry/sequence"], meta["io.osfoundry/event"]), (seen + 3, "created"))
        self.assertIn(created, json.dumps(meta))
        polled = self.server.tools.call(POLL, {"resource_type": KB_TYPE, "resource_id": KB, "after_sequence": seen})
        self.assertEqual([(event["type"], event["article_id"]) for event in polled["events"]],
                         [("unpublished", "gone-1"), ("unpublished", "gone-1"), ("created", created)])

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


class HttpServerCase(unittest.TestCase):
    """A server over Streamable HTTP in this process, for the classes below."""

    bearer_tokens: Optional[tokens.Tokens] = None

    def setUp(self):
        self.server, self.articles, _, (self.kb, records) = server_of()
        self.addCleanup(self.kb.close)
        self.addCleanup(records.close)
        self.addCleanup(self.server.hub.stop)
        limits = streamable_http.Limits(request_seconds=0.5)
        self.http = streamable_http.make_server(self.server.handle, streamable_http.HttpOptions(
            "127.0.0.1", 0, self.bearer_tokens, frozenset(), limits, 2.0))
        self.thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()
        self.addCleanup(self.stop)
        self.stopped = False

    def stop(self):
        if not self.stopped:
            self.stopped = True
            self.http.shutdown()
            self.http.stop_gracefully(2.0)
            self.thread.join(5)

    def listen(self, receive_buffer=None, uri=LOG, token=None):
        body = json.dumps(listen_request(uri, request_id="http-1")).encode()
        connection = socket.socket()
        if receive_buffer:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        connection.connect(self.http.server_address)
        self.addCleanup(connection.close)
        connection.settimeout(WAIT)
        authorization = f"Authorization: Bearer {token}\r\n".encode() if token else b""
        connection.sendall(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                           + authorization + b"Accept: application/json, text/event-stream\r\n"
                           b"MCP-Protocol-Version: 2026-07-28\r\n"
                           b"Mcp-Method: subscriptions/listen\r\nContent-Length: " + str(len(body)).encode()
                           + b"\r\n\r\n" + body)
        return connection

    def read_until(self, connection, marker):
        seen = b""
        while marker not in seen:
            chunk = connection.recv(65536)
            if not chunk:
                break
            seen += chunk
        return seen

    def save_many(self, count):
        tools = self.server.tools
        for number in range(count):
            article = self.articles[number % len(self.articles)]
            version = read(self.kb, article)["updated_at"]
            self.assertNotIn("error", tools.call("edit_knowledge_article", {
                "knowledge_base_id": KB, "article_id": article, "content": f"Text {number}.",
                "expected_version": version, "idempotency_key": f"many-{number}"}))
            self.server.hub.wake()


class HttpStreamTest(HttpServerCase):
    """A listen stream over Streamable HTTP: keep-alives, a listener that never reads, and the stop."""

    def test_an_idle_stream_gets_keep_alives(self):
        with mock.patch.object(streamable_http, "KEEPALIVE_SECONDS", 0.2), \
                mock.patch.object(streamable_http, "STREAM_WAKE_SECONDS", 0.05):
            connection = self.listen()
            seen = self.read_until(connection, b": keep-alive\n\n")
        self.assertIn(b"text/event-stream", seen)
        self.assertIn(b"acknowledged", seen)
        self.assertIn(b": keep-alive\n\n", seen)

    def test_the_stop_ends_each_stream_with_its_result(self):
        connection = self.listen()
        self.read_until(connection, b"acknowledged")
        self.save_many(1)
        self.read_until(connection, b"resources/updated")
        self.stop()
        rest = self.read_until(connection, b"never comes")
        last = json.loads(rest.strip().split(b"data: ")[-1])
        self.assertEqual(last["id"], "http-1")
        self.assertEqual(last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "http-1")
        self.assertEqual(self.server.hub.streams, [])

    def test_a_listener_that_never_reads_is_cut_and_its_stream_released(self):
        self.server.hub.outbox, self.server.hub.slow_seconds = 16, 0.2
        deadline = time.monotonic() + WAIT
        with mock.patch.object(streamable_http, "STREAM_SEND_BUFFER", 4096):
            self.listen(receive_buffer=2048)
            while (not self.server.hub.streams or self.server.hub.streams[0].outbox) and \
                    time.monotonic() < deadline:  # until its ack is written, the send buffer set before it
                time.sleep(0.01)
        self.assertEqual(len(self.server.hub.streams), 1)
        self.save_many(300)  # far more than the socket buffers and the outbox hold
        while self.server.hub.streams and time.monotonic() < deadline + WAIT:
            time.sleep(0.05)
        self.assertEqual(self.server.hub.streams, [])


class HttpTokensTest(HttpServerCase):
    """Over HTTP with bearer tokens: a token's grant decides what it lists, reads and listens to."""

    KB_TOKEN = "listen-kb-only-token-0123456789"
    bearer_tokens = tokens.Tokens({KB_TOKEN: KB_ONLY})

    def post(self, message):
        connection = http.client.HTTPConnection(*self.http.server_address, timeout=WAIT)
        self.addCleanup(connection.close)
        uri = message["params"].get("uri")
        connection.request("POST", "/mcp", json.dumps(message), {
            "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
            "Authorization": f"Bearer {self.KB_TOKEN}", "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": message["method"], **({"Mcp-Name": uri} if uri else {})})
        return json.loads(connection.getresponse().read())

    def test_a_token_lists_reads_and_listens_to_its_grant_only(self):
        listed = self.post(request("resources/list"))["result"]["resources"]
        self.assertEqual({entry["uri"].split("/")[3] for entry in listed}, {KB})
        other = f"osfoundry://knowledge_base/{OTHER_KB}"
        for method, params in (("resources/read", {"uri": other + "/articles/refund-1"}),
                               ("subscriptions/listen", {"notifications": {"resourceSubscriptions": [other]}})):
            with self.subTest(method=method):
                self.assertEqual(self.post(request(method, params))["error"]["code"], -32002)
        connection = self.listen(token=self.KB_TOKEN)
        self.assertIn(b"acknowledged", self.read_until(connection, b"acknowledged"))
        self.assertEqual([stream.caller for stream in self.server.hub.streams], ["kb-only"])


class PeerStreamsTest(unittest.TestCase):
    """A stdio connection keeps only its open listen streams: one that ends leaves no trace, however many come."""

    def test_a_stream_that_ends_leaves_the_connection_s_list(self):
        hub = listening.Hub(tools=None)  # type: ignore[arg-type]  # no watch: the streams are opened and closed
        peer = stdio.Peer(queue.Queue(), io.BytesIO())
        try:
            streams = [hub.open("caller", f"s-{n}", []) for n in range(3)]
            for stream in streams:
                peer.stream(stream, hub)
            for stream in streams[:2]:
                hub.close(stream)
            for _ in range(400):  # each ends in its writer thread
                with peer.streams_lock:
                    if len(peer.streams) == 1:
                        break
                time.sleep(0.05)
            self.assertEqual(peer.streams, streams[2:])
            peer.hang_up(hub)
            self.assertEqual(hub.streams, [])
        finally:
            hub.stop()


class StdioStreamTest(unittest.TestCase):
    """mcp_server.py over real pipes, on a database file that this test process saves into (another process than
    the server): a modern listen beside other calls, a legacy subscribe and unsubscribe, the exit at EOF."""

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.kb_db = os.path.join(folder.name, "kb.db")
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo", "--kb-db", self.kb_db, "--records-db",
             os.path.join(folder.name, "records.db")], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL)
        self.addCleanup(self.end)
        self.lines: "queue.Queue[dict]" = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(json.loads(line)) for line in self.process.stdout],
                         daemon=True).start()
        self.saves = 0

    def end(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def next(self, timeout=WAIT):
        return self.lines.get(timeout=timeout)

    def save(self):
        self.saves += 1
        with kb_store.connect(self.kb_db, granted=None) as store:
            store.save_article("kb-support", f"art-0000{self.saves}", content=f"Saved elsewhere {self.saves}.")

    def test_a_modern_listen_streams_beside_other_calls_and_ends_with_stdin(self):
        self.send(listen_request("osfoundry://knowledge_base/kb-support", request_id="s-1"))
        self.assertEqual(self.next()["method"], "notifications/subscriptions/acknowledged")
        self.send(request("resources/templates/list", request_id=2))
        self.assertEqual(self.next()["id"], 2)  # answered while the stream is open
        self.save()
        update = self.next()["params"]
        self.assertEqual(update["uri"], "osfoundry://knowledge_base/kb-support/articles/art-00001")
        self.assertEqual(update["_meta"]["io.modelcontextprotocol/subscriptionId"], "s-1")
        self.process.stdin.close()
        self.assertEqual(self.process.wait(WAIT), 0)

    def test_a_cancelled_listen_ends_unanswered_and_frees_its_place(self):
        support = "osfoundry://knowledge_base/kb-support"
        for number in range(listening.MAX_PER_CALLER + 1):  # one more than the cap: each cancelled frees its place
            self.send(listen_request(support, request_id=f"c-{number}"))
            self.assertEqual(self.next()["method"], "notifications/subscriptions/acknowledged")
            self.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": f"c-{number}"}})
        self.send(listen_request(support, request_id="open"))
        self.assertEqual(self.next()["method"], "notifications/subscriptions/acknowledged")
        self.save()
        self.assertEqual(self.next()["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "open")
        self.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
        self.assertEqual(self.next(), {"jsonrpc": "2.0", "id": 4, "result": {}})
        self.assertTrue(self.lines.empty())  # neither the save nor a result for the cancelled ones

    def test_legacy_subscribe_notifies_until_unsubscribe(self):
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
        self.assertTrue(self.next()["result"]["capabilities"]["resources"]["subscribe"])
        uri = "osfoundry://knowledge_base/kb-support/articles/art-00001"
        self.send({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}})
        self.assertEqual(self.next(), {"jsonrpc": "2.0", "id": 2, "result": {}})
        self.save()
        note = self.next()
        self.assertEqual((note["method"], note["params"]["uri"]), ("notifications/resources/updated", uri))
        self.assertNotIn("io.modelcontextprotocol/subscriptionId", note["params"]["_meta"])
        self.send({"jsonrpc": "2.0", "id": 3, "method": "resources/unsubscribe", "params": {"uri": uri}})
        self.assertEqual(self.next()["id"], 3)
        self.saves = 0
        self.save()  # art-00001 again: nobody listens to it now
        self.send({"jsonrpc": "2.0", "id": 4, "method": "ping"})
        time.sleep(0.3)  # several ticks of the watcher
        self.assertEqual(self.next(), {"jsonrpc": "2.0", "id": 4, "result": {}})
        self.assertTrue(self.lines.empty())
