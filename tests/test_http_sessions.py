"""The handshake era's sessions over Streamable HTTP: the book's rules (unguessable IDs bound to a token, the caps,
expiry, the GET stream's turn and progress) and the transport's (Mcp-Session-Id at initialize, 404 for an unknown,
forged or another token's session, resources/subscribe kept in the session and notified on its GET stream, DELETE).
"""

import http.client
import json
import os
import tempfile
import threading
import time
import unittest

from osfoundry_tools.server import methods, sessions, streamable_http, tokens
from tests.helpers import KB, read
from tests.test_mcp_eras import server_of

LOG = f"osfoundry://knowledge_base/{KB}"
TOKEN_A, TOKEN_B = "session-token-a-0123456789", "session-token-b-0123456789"
GRANT_A = tokens.Grant.of("alice", {"knowledge_base": None, "record": None}, frozenset({tokens.WRITE_SCOPE}))
GRANT_B = tokens.Grant.of("bob", {"knowledge_base": None, "record": None}, frozenset({tokens.WRITE_SCOPE}))
WAIT = 10.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class BookTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.clock = Clock()
        self.book = sessions.Book(os.path.join(folder.name, sessions.BOOK_NAME), max_sessions=3, max_per_caller=2,
                                  idle_seconds=60, clock=self.clock)

    def test_an_id_is_long_random_and_found_only_with_its_token(self):
        first, second = self.book.open(TOKEN_A, "alice"), self.book.open(TOKEN_A, "alice")
        self.assertNotEqual(first, second)
        self.assertEqual(len(first), 43)
        self.assertEqual(self.book.find(first, TOKEN_A).caller, "alice")
        self.assertIsNone(self.book.find(first, TOKEN_B))
        self.assertIsNone(self.book.find(first, None))
        self.assertIsNone(self.book.find(first[:-1] + ("A" if first[-1] != "A" else "B"), TOKEN_A))

    def test_the_book_keeps_no_usable_id(self):
        session_id = self.book.open(TOKEN_A, "alice")
        with open(self.book.path, "rb") as file:
            self.assertNotIn(session_id.encode(), file.read())

    def test_the_caps_per_token_and_in_all_refuse_and_keep_nothing(self):
        self.book.open(TOKEN_A, "alice")
        self.book.open(TOKEN_A, "alice")
        with self.assertRaisesRegex(sessions.Full, "2 sessions, the limit for one token"):
            self.book.open(TOKEN_A, "alice")
        self.assertEqual(self.book.count(), 2)
        self.book.open(TOKEN_B, "bob")
        with self.assertRaisesRegex(sessions.Full, "3 sessions, its limit"):
            self.book.open(None, "anyone")
        self.assertEqual(self.book.count(), 3)

    def test_an_idle_session_expires_and_makes_room(self):
        kept = self.book.open(TOKEN_A, "alice")
        idle = self.book.open(TOKEN_A, "alice")
        self.clock.now += 40
        self.assertIsNotNone(self.book.find(kept, TOKEN_A))  # touched: 40 s idle from here
        self.clock.now += 30
        self.assertIsNone(self.book.find(idle, TOKEN_A))
        self.book.open(TOKEN_A, "alice")  # the idle one is forgotten, so the cap of 2 holds room
        self.assertEqual(self.book.count(), 2)
        self.assertIsNotNone(self.book.find(kept, TOKEN_A))

    def test_end_forgets_the_session_and_its_subscriptions(self):
        session = self.book.find(self.book.open(TOKEN_A, "alice"), TOKEN_A)
        self.book.subscribe(session, LOG, 5)
        turn = self.book.take_turn(session)
        self.book.end(session)
        self.assertIsNone(self.book.look(session, turn, {}))
        self.assertEqual(self.book.run(lambda db: db.execute("SELECT count(*) FROM subscriptions").fetchone()[0]), 0)

    def test_a_newer_stream_takes_the_turn_and_progress_keeps_to_its_revision(self):
        session = self.book.find(self.book.open(TOKEN_A, "alice"), TOKEN_A)
        self.book.subscribe(session, LOG, 5)
        older = self.book.take_turn(session)
        (subscription,) = self.book.look(session, older, {})
        self.assertEqual((subscription.cursor, subscription.revision), (5, 1))
        self.book.look(session, older, {LOG: (1, 9)})
        self.assertEqual(self.book.look(session, older, {})[0].cursor, 9)
        self.book.subscribe(session, LOG, 3)  # subscribed again, from 3: the stream's old progress is not kept
        self.book.look(session, older, {LOG: (1, 12)})
        self.assertEqual(self.book.look(session, older, {})[0][1:], (3, 2))
        newer = self.book.take_turn(session)
        self.assertIsNone(self.book.look(session, older, {}))
        self.assertIsNotNone(self.book.look(session, newer, {}))


@unittest.skipUnless(hasattr(os, "getuid"), "the sweep judges folders by user and process IDs (POSIX)")
class FolderTest(unittest.TestCase):
    """A server killed before it removed its session folder: the next server's new_folder removes it, and only it."""

    def setUp(self):
        parent = tempfile.TemporaryDirectory()
        self.addCleanup(parent.cleanup)
        self.parent = parent.name

    def folder(self, owner):
        folder = os.path.join(self.parent, sessions.FOLDER_PREFIX + str(len(os.listdir(self.parent))))
        os.mkdir(folder)
        if owner is not None:
            with open(os.path.join(folder, sessions.OWNER_NAME), "w") as file:
                file.write(owner)
        return folder

    def ended_pid(self):
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        return child

    def test_a_dead_owners_folder_goes_and_a_live_or_unowned_one_stays(self):
        dead = self.folder(str(self.ended_pid()))
        live = self.folder(str(os.getppid()))
        unowned = self.folder(None)
        garbled = self.folder("not a pid")
        other = os.path.join(self.parent, "someone-else-" + str(self.ended_pid()))
        os.mkdir(other)
        made = sessions.new_folder(self.parent)
        self.addCleanup(sessions.remove_folder, made)
        self.assertFalse(os.path.exists(dead))
        for kept in (live, unowned, garbled, other, made):
            self.assertTrue(os.path.isdir(kept), kept)
        with open(os.path.join(made, sessions.OWNER_NAME)) as owner:
            self.assertEqual(owner.read(), str(os.getpid()))
        self.assertEqual(sessions.sweep_orphans(self.parent), [])  # its own folder is never an orphan


class HttpSessionTest(unittest.TestCase):
    """A server over Streamable HTTP in this process, with tokens and a book of sessions."""

    def setUp(self):
        self.server, self.articles, _, (self.kb, records) = server_of()
        self.addCleanup(self.kb.close)
        self.addCleanup(records.close)
        self.addCleanup(self.server.hub.stop)
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.book = sessions.Book(os.path.join(folder.name, sessions.BOOK_NAME), max_per_caller=2)
        self.http = self.serve(self.server)

    def serve(self, server):
        """`server` over HTTP on a port of its own, sharing the book (as another --workers process does)."""
        http_server = streamable_http.make_server(server.handle, streamable_http.HttpOptions(
            "127.0.0.1", 0, tokens.Tokens({TOKEN_A: GRANT_A, TOKEN_B: GRANT_B}), frozenset(),
            streamable_http.Limits(request_seconds=2.0), 2.0, self.book, server.hub))
        thread = threading.Thread(target=http_server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()

        def stop():
            http_server.shutdown()
            http_server.stop_gracefully(1.0)
            thread.join(5)

        self.addCleanup(stop)
        return http_server

    def call(self, method, body=None, token=TOKEN_A, session=None, accept="application/json, text/event-stream"):
        connection = http.client.HTTPConnection(*self.http.server_address[:2], timeout=WAIT)
        self.addCleanup(connection.close)
        headers = {"Authorization": f"Bearer {token}", "Accept": accept}
        if body is not None:
            headers["Content-Type"] = "application/json"
        if session is not None:
            headers["Mcp-Session-Id"] = session
        connection.request(method, "/mcp", json.dumps(body).encode() if body is not None else None, headers)
        response = connection.getresponse()
        if response.getheader("Content-Type") == "text/event-stream":
            return response
        data = response.read()
        return response.status, response.getheader("Mcp-Session-Id"), json.loads(data) if data else None

    def initialize(self, token=TOKEN_A):
        status, session, answer = self.call("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
            token)
        self.assertEqual(status, 200, answer)
        return session

    def subscribe(self, session, uri=LOG, token=TOKEN_A):
        return self.call("POST", {"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": uri}},
                         token, session)

    def save(self, article, number):
        version = read(self.kb, article)["updated_at"]
        self.assertNotIn("error", self.server.tools.call("edit_knowledge_article", {
            "knowledge_base_id": KB, "article_id": article, "content": f"Text {number}.",
            "expected_version": version, "idempotency_key": f"session-{number}"}))

    def test_initialize_issues_a_session_id_and_a_failed_one_keeps_none(self):
        session = self.initialize()
        self.assertRegex(session, r"^[A-Za-z0-9_-]{43}$")
        status, none, answer = self.call("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        self.assertIsNone(none)
        self.assertIn("error", answer)
        self.assertEqual(self.book.count(), 1)

    def test_an_unknown_forged_or_other_tokens_session_is_404_and_subscribes_nothing(self):
        session = self.initialize()
        for forged, token in (("forged", TOKEN_A), (session[:-2] + "xx", TOKEN_A), (session, TOKEN_B)):
            status, _, answer = self.subscribe(forged, token=token)
            self.assertEqual(status, 404, forged)
            self.assertIn("initialize again", answer["error"]["message"])
            self.assertEqual(self.call("GET", session=forged, token=token)[0], 404)
            self.assertEqual(self.call("DELETE", session=forged, token=token)[0], 404)
        self.assertEqual(self.book.run(lambda db: db.execute("SELECT count(*) FROM subscriptions").fetchone()[0]), 0)
        self.assertEqual(self.book.count(), 1)

    def test_subscribe_without_a_session_says_how_to_get_one(self):
        status, _, answer = self.subscribe(None)
        self.assertEqual(status, 400)
        self.assertIn("Mcp-Session-Id", answer["error"]["message"])

    def test_beyond_the_cap_per_token_initialize_is_answered_without_a_session_and_keeps_nothing(self):
        self.initialize()
        self.initialize()
        with self.assertLogs("osfoundry.mcp", "WARNING") as logged:
            status, session, answer = self.call("POST", {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {}}})
        self.assertEqual((status, session), (200, None))
        self.assertEqual(answer["result"]["protocolVersion"], "2025-11-25")
        self.assertIn("the limit for one token", logged.output[0])
        self.assertEqual(self.book.count(), 2)
        status, _, answer = self.subscribe(None)
        self.assertIn("limit on sessions", answer["error"]["message"])
        self.assertIsNotNone(self.initialize(TOKEN_B))  # another token has its own

    def test_a_stateless_request_ignores_the_session_header(self):
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities":
                {}}
        connection = http.client.HTTPConnection(*self.http.server_address[:2], timeout=WAIT)
        self.addCleanup(connection.close)
        connection.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                                       "params": {"_meta": meta}}).encode(),
                           {"Authorization": f"Bearer {TOKEN_A}", "Content-Type": "application/json",
                            "Mcp-Session-Id": "forged", "MCP-Protocol-Version": "2026-07-28",
                            "Mcp-Method": "tools/list"})
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        self.assertIn("tools", json.loads(response.read())["result"])

    def test_the_get_stream_carries_what_the_session_subscribed_and_delete_ends_it(self):
        session = self.initialize()
        stream = self.call("GET", session=session, accept="text/event-stream")
        self.assertEqual(stream.status, 200)
        self.assertEqual(self.subscribe(session)[0], 200)
        time.sleep(2 * streamable_http.LOOK_SECONDS)  # the stream has looked at the session since
        self.save(self.articles[0], 1)
        self.server.hub.wake()
        line = b""
        while b"resources/updated" not in line:
            line = stream.fp.readline()
            self.assertNotEqual(line, b"", "the stream ended before the notification")
        notification = json.loads(line.split(b"data: ", 1)[1])
        self.assertEqual(notification["params"]["uri"], f"{LOG}/articles/{self.articles[0]}")
        self.assertIn("io.osfoundry/sequence", notification["params"]["_meta"])
        self.assertEqual(self.call("DELETE", session=session)[0], 204)
        deadline = time.monotonic() + WAIT
        while stream.fp.readline() and time.monotonic() < deadline:
            pass
        self.assertLess(time.monotonic(), deadline, "the GET stream did not end with its session")
        self.assertEqual(self.subscribe(session)[0], 404)
        self.assertEqual(self.book.count(), 0)

    def test_a_subscribe_taken_by_one_worker_is_notified_on_the_get_stream_another_holds(self):
        other = methods.Server(self.server.tools)  # another worker: its own hub, the same stores and book
        self.addCleanup(other.hub.stop)
        session = self.initialize()
        second = self.http
        self.http = self.serve(other)
        stream = self.call("GET", session=session, accept="text/event-stream")  # held by the other
        self.http = second
        self.assertEqual(self.subscribe(session)[0], 200)  # taken by the first
        time.sleep(2 * streamable_http.LOOK_SECONDS)
        self.save(self.articles[1], 2)
        line = b""
        while b"resources/updated" not in line:
            line = stream.fp.readline()
            self.assertNotEqual(line, b"", "the stream ended before the notification")
        self.assertIn(self.articles[1], json.loads(line.split(b"data: ", 1)[1])["params"]["uri"])
        self.assertEqual(len(other.hub.streams), 1)
        self.assertEqual(self.server.hub.streams, [])

    def test_get_without_a_session_or_event_stream_accept_is_refused(self):
        self.assertEqual(self.call("GET")[0], 405)
        session = self.initialize()
        self.assertEqual(self.call("GET", session=session, accept="application/json")[0], 406)
        self.assertEqual(self.call("DELETE")[0], 405)


if __name__ == "__main__":
    unittest.main()


