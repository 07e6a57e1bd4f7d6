"""The HTTP server's limits, before authentication: a backlog for bursts, a cap on connections, bounded heads, a
deadline per request, idle connections closed, a budget for bodies, and the options that set them.

Real servers on 127.0.0.1 in threads (tests.test_mcp_http's ServerCase), clients on raw sockets where the bytes on
the wire matter; every socket has a timeout, and no test asserts how fast anything is.
"""

import http.client
import json
import logging
import os
import platform
import re
import select
import socket
import subprocess
import sys
import threading
import time
import unittest
from typing import Any, Dict, List, Optional, Tuple
from unittest import mock

from osfoundry_tools.server import http_front, streamable_http
from osfoundry_tools.server.http_front import Limits
from osfoundry_tools.server.options import limit_flag, parse_options
from tests.helpers import ROOT, assert_server_refuses
from tests.test_mcp_http import FakeHandler, ServerCase, request

TIMEOUT = 10  # seconds, on every socket of these tests
LOOPBACK = streamable_http.HttpOptions("127.0.0.1", 0, None, frozenset())  # any free port, no token


def response_of(data: bytes) -> Tuple[int, Dict[str, str], Any]:
    """The status, headers (names lower-cased) and JSON body of one raw HTTP response."""
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value for name, value in (line.split(": ", 1) for line in lines)}
    return int(status_line.split(" ")[1]), headers, json.loads(body) if body else None


def post_bytes(body: bytes, headers: str = "") -> bytes:
    """A whole POST /mcp on the wire."""
    return (f"POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{headers}"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def read_response(client: socket.socket) -> bytes:
    """One response with a Content-Length, read from a kept-alive connection."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(4096)
        if not chunk:
            return data
        data += chunk
    length = int(re.search(rb"Content-Length: (\d+)", data).group(1))  # type: ignore[union-attr]
    while len(data.partition(b"\r\n\r\n")[2]) < length:
        data += client.recv(4096)
    return data


class Refusals:
    """Assertions on a raw refusal: a status line, a JSON-RPC error body, the connection closed."""

    def assertJsonRefusal(self: Any, data: bytes, status: int) -> Dict[str, Any]:
        self.assertTrue(data.startswith(f"HTTP/1.1 {status} ".encode()), data[:200])
        found, headers, body = response_of(data)
        self.assertEqual((headers["content-type"], headers["connection"]), ("application/json", "close"))
        self.assertEqual((body["jsonrpc"], body["id"], body["error"]["code"]), ("2.0", None, -32600))
        self.assertNotIn(b"<", data)  # no HTML anywhere
        return body


class BacklogTest(unittest.TestCase):
    def test_the_backlog_option_is_what_listen_is_given(self):
        for limits, backlog in ((Limits(), 1024), (Limits(backlog=77), 77)):
            with self.subTest(backlog=backlog), mock.patch.object(socket.socket, "listen", autospec=True) as listen:
                server = streamable_http.make_server(FakeHandler(), LOOPBACK._replace(limits=limits))
                server.server_close()
                self.assertEqual(listen.call_args_list[0][0][-1], backlog)  # the first; the stop's last shrinks it

    def test_64_simultaneous_connects_complete_before_any_accept_and_are_all_answered(self):
        """With the stdlib's backlog of 5, most of these connects would wait for the kernel to retry, and here,
        with nothing accepting, never complete at all."""
        server = streamable_http.make_server(FakeHandler(), LOOPBACK)
        self.addCleanup(server.server_close)
        clients = [socket.socket() for _ in range(64)]
        for client in clients:
            self.addCleanup(client.close)
            client.setblocking(False)
            client.connect_ex(server.server_address)
        pending, deadline = set(clients), time.monotonic() + TIMEOUT
        while pending and time.monotonic() < deadline:  # no accept() has been called yet
            _, writable, _ = select.select([], list(pending), [], 0.5)
            pending -= set(writable)
        self.assertEqual(len(pending), 0, "connects still waiting")
        self.assertEqual([client.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) for client in clients], [0] * 64)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        self.addCleanup(thread.join, TIMEOUT)
        self.addCleanup(server.shutdown)
        for number, client in enumerate(clients):
            client.settimeout(TIMEOUT)
            client.sendall(post_bytes(request(request_id=number)))
        statuses = [response_of(read_response(client))[0] for client in clients]
        self.assertEqual(statuses, [200] * 64)


class ConnectionCapTest(ServerCase, Refusals):
    limits = Limits(max_connections=2)

    def kept_alive(self) -> http.client.HTTPConnection:
        connection = self.connection()
        self.assertEqual(self.post(request(), connection=connection).status, 200)
        return connection

    def test_a_connection_beyond_the_cap_is_answered_503_with_retry_after_at_once_and_closed(self):
        first, _ = self.kept_alive(), self.kept_alive()
        with self.assertLogs("osfoundry.mcp", logging.WARNING) as logs, \
                socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as third:
            third.sendall(post_bytes(request()))
            with third.makefile("rb") as response:
                data = response.read()  # to the end: the server closed it
        self.assertIn("all 2 connections are open: new ones are refused (503)", logs.output[0])
        body = self.assertJsonRefusal(data, 503)
        self.assertEqual(response_of(data)[1]["retry-after"], "1")
        self.assertIn("2 connections at once", body["error"]["message"])
        self.assertEqual(len(self.handler.calls), 2, "the third request never reached the handler")
        first.close()
        self.assertEqual(self.answered_once_a_slot_frees(), 200)

    def answered_once_a_slot_frees(self) -> int:
        """The status of a request on a new connection, retried while the server has not yet seen a close."""
        for _ in range(200):
            status = self.post(request()).status
            if status != 503:
                return status
            time.sleep(0.05)
        return 503


class HeadBoundsTest(ServerCase, Refusals):
    """The defaults: a request line of 8 KiB, 100 header fields in 16 KiB."""

    def test_a_request_line_over_its_bound_is_414_in_json_and_one_at_its_bound_is_read(self):
        fitting = b"GET /" + b"a" * (8 * 1024 - len(b"GET / HTTP/1.1\r\n")) + b" HTTP/1.1\r\n"
        self.assertEqual(len(fitting), 8 * 1024)
        self.assertTrue(self.raw(fitting + b"Host: localhost\r\n\r\n").startswith(b"HTTP/1.1 404 "))
        longer = fitting.replace(b"/a", b"/aa", 1)
        self.assertJsonRefusal(self.raw(longer + b"Host: localhost\r\n\r\n"), 414)
        self.assertEqual(self.handler.calls, [])

    def test_header_lines_over_16_kib_are_431_in_json(self):
        headers = b"".join(b"X-Big-%d: %s\r\n" % (number, b"b" * 990) for number in range(17))
        body = self.assertJsonRefusal(self.raw(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n" + headers + b"\r\n"),
                                      431)
        self.assertIn("100 header fields in 16384 bytes", body["error"]["message"])

    def test_more_than_100_header_fields_are_431_and_100_are_read(self):
        fields = "".join(f"X-Field-{number}: {number}\r\n" for number in range(97))  # + Host, Content-Type, -Length
        self.assertTrue(self.raw(post_bytes(request(), fields)).startswith(b"HTTP/1.1 200 "))  # 100 with its length
        self.assertJsonRefusal(self.raw(post_bytes(request(), fields + "X-One-More: 1\r\n")), 431)

    def test_a_flood_of_long_header_lines_is_refused_having_read_no_more_than_the_bound(self) -> None:
        """100 header lines of 65,000 bytes, as the flood that took the server to a gigabyte: the reader holds at
        most the header bound and one chunk, and reads no more than that from the socket."""
        held: List[int] = []  # bytes the reader holds after each receive
        read: List[int] = []  # bytes each receive took from the socket
        real_receive = http_front.RequestReader.receive

        def receive(reader: http_front.RequestReader) -> None:
            before = len(reader.buffer)
            try:
                real_receive(reader)
            finally:
                held.append(len(reader.buffer))
                read.append(len(reader.buffer) - before)

        with mock.patch.object(http_front.RequestReader, "receive", autospec=True, side_effect=receive):
            data = self.flood(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n", [b"X-Flood: " + b"f" * 65_000 + b"\r\n"]
                              * 100)
        self.assertJsonRefusal(data, 431)
        self.assertLessEqual(max(held), 16 * 1024 + http_front.CHUNK)
        self.assertLessEqual(sum(read), (8 + 16) * 1024 + http_front.CHUNK, "no more read than the bounds")

    def flood(self, start: bytes, lines: List[bytes]) -> bytes:
        """Send as much of start + lines as the server takes (it stops reading and closes), then its answer."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            try:
                client.sendall(start)
                for line in lines:
                    client.sendall(line)
            except OSError:  # the server closed its end
                pass
            data = b""
            try:
                while True:
                    chunk = client.recv(4096)
                    if not chunk:
                        return data
                    data += chunk
            except ConnectionResetError:
                return data


class DeadlineTest(ServerCase, Refusals):
    limits = Limits(request_seconds=0.5, idle_seconds=5)

    def dribble(self, start: bytes, drops: bytes) -> Tuple[bytes, int]:
        """Send `start`, then one byte of `drops` every 0.1 s until the server answers: its answer, and how many
        bytes of `drops` went."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            client.sendall(start)
            for sent in range(len(drops)):
                if select.select([client], [], [], 0.1)[0]:
                    break
                client.send(drops[sent:sent + 1])
            with client.makefile("rb") as response:
                return response.read(), sent

    def test_a_client_dribbling_its_headers_is_answered_408_at_the_deadline_and_closed(self):
        data, sent = self.dribble(b"POST /mcp HTTP/1.1\r\nHost: localhost\r\n", b"X-Slow: " + b"s" * 92)  # 10 s
        body = self.assertJsonRefusal(data, 408)
        self.assertIn("within 0.5 s", body["error"]["message"])
        self.assertLess(sent, 100, "cut before it finished")
        self.assertEqual(self.handler.calls, [])

    def test_a_body_dribbled_past_the_deadline_is_408_and_never_handled(self):
        data, sent = self.dribble(post_bytes(b"x" * 100)[:-100], request() + b" " * 100)
        self.assertJsonRefusal(data, 408)
        self.assertEqual(self.handler.calls, [])

    def test_each_request_of_a_kept_alive_connection_has_a_deadline_of_its_own(self):
        connection = self.connection()
        self.assertEqual(self.post(request(), connection=connection).status, 200)
        time.sleep(0.8)  # longer than request_seconds, shorter than idle_seconds
        self.assertEqual(self.post(request(), connection=connection).status, 200)


class IdleTest(ServerCase):
    limits = Limits(idle_seconds=0.3)

    def test_a_kept_alive_connection_left_idle_is_closed_and_its_slot_freed(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            client.sendall(post_bytes(request()))
            self.assertEqual(response_of(read_response(client))[0], 200)
            self.assertEqual(client.recv(1), b"", "closed by the server")
        self.assertTrue(self.slots_empty())

    def test_a_connection_that_never_sends_is_closed_without_a_reply(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            self.assertEqual(client.recv(1), b"")

    def slots_empty(self) -> bool:
        for _ in range(200):
            if self.server.slots.count() == 0:  # type: ignore[attr-defined]
                return True
            time.sleep(0.02)
        return False


class HoldingHandler(FakeHandler):
    """A FakeHandler whose method "hold" waits, inside the handler, until the test lets it go."""

    def __init__(self) -> None:
        super().__init__()
        self.entered, self.let_go = threading.Event(), threading.Event()

    def __call__(self, message: Any, grant: Any = None, protocol_version: Optional[str] = None) -> Any:
        if isinstance(message, dict) and message.get("method") == "hold":
            self.entered.set()
            self.let_go.wait(TIMEOUT)
        return super().__call__(message, grant, protocol_version)


class BodyBudgetTest(ServerCase, Refusals):
    limits = Limits(max_body=20_000, body_budget=30_000, request_seconds=0.5)
    handler: HoldingHandler

    @classmethod
    def make_handler(cls) -> FakeHandler:
        return HoldingHandler()

    def test_a_body_waits_for_room_in_the_budget_and_is_answered_503_when_none_comes_in_time(self):
        """Each body's first 4 KiB are its connection's own; the budget counts the rest as it arrives."""
        held = request("hold") + b" " * (20_000 - len(request("hold")))
        holder = threading.Thread(target=self.raw, args=(post_bytes(held),))
        holder.start()
        self.addCleanup(holder.join, TIMEOUT)
        self.addCleanup(self.handler.let_go.set)
        self.assertTrue(self.handler.entered.wait(TIMEOUT))
        small = self.raw(post_bytes(request(request_id=2) + b" " * 17_000))  # 15,904 + 12,9xx fit in 30,000
        self.assertTrue(small.startswith(b"HTTP/1.1 200 "), small)
        refused = self.raw(post_bytes(request(request_id=3) + b" " * 19_900))  # 15,904 + 15,8xx do not
        self.assertJsonRefusal(refused, 503)
        self.assertEqual(response_of(refused)[1]["retry-after"], "1")
        self.handler.let_go.set()
        holder.join(TIMEOUT)
        again = self.raw(post_bytes(request(request_id=4) + b" " * 19_900))
        self.assertTrue(again.startswith(b"HTTP/1.1 200 "), again)
        with self.handler.lock:
            self.assertEqual(sorted(call[0]["id"] for call in self.handler.calls), [1, 2, 4])
        self.assertEqual(self.server.bodies.held, 0)  # type: ignore[attr-defined]

    def test_a_body_over_the_body_limit_is_413(self):
        self.assertJsonRefusal(self.raw(post_bytes(b" " * 20_001)), 413)


class SlowSenders:
    """Connections that each announce a body of `length` bytes, send `first` of them at once, then a byte every
    half second until closed: the clients that once stalled every POST by reserving what they announced."""

    def __init__(self, port: int, count: int, length: int, first: int = 1) -> None:
        self.clients = [socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT) for _ in range(count)]
        head = post_bytes(b" " * length)[:-length]
        for client in self.clients:
            client.sendall(head + b" " * first)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.trickle, daemon=True)
        self.thread.start()

    def trickle(self) -> None:
        while not self.stop.wait(0.5):
            for client in self.clients:
                try:
                    client.send(b" ")
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(TIMEOUT)
        for client in self.clients:
            client.close()


class FairBodiesTest(ServerCase):
    """Bytes are reserved as they arrive: no number of slow senders keeps a small request waiting. Every socket
    has a generous timeout; the only time asserted is a bound far above what an answer takes (2 s)."""

    limits = Limits(request_seconds=20)

    def setUp(self) -> None:
        super().setUp()
        # The server is the class's: the bodies of an earlier test's senders, closed at its cleanup, are given back
        # as the server's threads notice the close, which may be just after the next test starts.
        bodies, deadline = self.server.bodies, time.monotonic() + TIMEOUT  # type: ignore[attr-defined]
        while bodies.held and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(bodies.held, 0, "an earlier test's bodies were never given back")

    def timed_post(self, body: bytes) -> Tuple[int, float]:
        started = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            client.sendall(post_bytes(body))
            status = response_of(read_response(client))[0]
        return status, time.monotonic() - started

    def senders(self, count: int, length: int, first: int = 1) -> SlowSenders:
        senders = SlowSenders(self.port, count, length, first)
        self.addCleanup(senders.close)
        return senders

    def test_slow_senders_announcing_the_largest_bodies_do_not_delay_a_ping(self):
        self.senders(4, Limits().max_body)
        for number in range(5):
            status, took = self.timed_post(request("ping", request_id=number))
            self.assertEqual(status, 200)
            self.assertLess(took, 2.0, "a ping waited behind bodies announced but not sent")
        self.assertLess(self.server.bodies.held, 64 * 1024)  # type: ignore[attr-defined]

    def test_bodies_sent_nearly_whole_then_stalled_leave_room_for_a_tool_call(self):
        self.senders(2, Limits().max_body, first=Limits().max_body - 1000)
        bodies = self.server.bodies  # type: ignore[attr-defined]
        # at least one nearly whole body held (the second may give up its room to the older one, as the budget says)
        full, deadline = Limits().max_body - 64 * 1024, time.monotonic() + TIMEOUT
        while bodies.held_large < full and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(bodies.held_large, full)
        status, took = self.timed_post(request("tools/call", name="edit") + b" " * 30_000)  # beyond the free 4 KiB
        self.assertEqual(status, 200)
        self.assertLess(took, 2.0, "a small body waited behind large ones: the share kept for small ones is gone")


class BudgetUnitTest(unittest.TestCase):
    """BodyBudget alone: what bodies hold, the share kept for small ones, who gives up when all wait."""

    def test_a_body_holds_what_arrived_beyond_its_free_bytes_and_gives_it_back(self):
        budget = http_front.BodyBudget(100_000, share=10_000)
        hold = budget.hold(90_000, time.monotonic() + TIMEOUT)
        self.assertTrue(hold.take(http_front.FREE_BODY))
        self.assertEqual(budget.held, 0)
        self.assertTrue(hold.take(5_000))
        self.assertEqual((budget.held, budget.held_large), (5_000, 5_000))
        hold.release()
        self.assertEqual((budget.held, budget.held_large), (0, 0))

    def test_large_bodies_never_take_the_share_kept_for_small_ones(self):
        budget = http_front.BodyBudget(100_000, share=10_000)
        past = time.monotonic() - 1
        large = budget.hold(200_000, past)
        self.assertTrue(large.take(http_front.FREE_BODY + 90_000))
        self.assertFalse(budget.hold(200_000, past).take(http_front.FREE_BODY + 1))
        small = budget.hold(http_front.SMALL_BODY, past)
        self.assertTrue(small.take(http_front.FREE_BODY + 10_000))
        self.assertFalse(budget.hold(100, past).take(http_front.FREE_BODY + 1))

    def test_a_younger_body_waiting_with_bytes_gives_up_while_an_older_one_waits(self):
        budget = http_front.BodyBudget(20_000)
        now = time.monotonic()
        older, younger = budget.hold(200_000, now + TIMEOUT), budget.hold(200_000, now + TIMEOUT + 1)
        self.assertTrue(older.take(http_front.FREE_BODY + 10_000))
        self.assertTrue(younger.take(http_front.FREE_BODY + 10_000))
        outcomes: Dict[str, bool] = {}
        waiting = threading.Thread(target=lambda: outcomes.update(older=older.take(5_000)))
        waiting.start()
        while not budget.waiting:
            time.sleep(0.01)
        self.assertFalse(younger.take(5_000), "the younger gives up at once")
        younger.release()
        waiting.join(TIMEOUT)
        self.assertEqual(outcomes, {"older": True})
        self.assertEqual(budget.held, 15_000)


class ExpectContinueTest(ServerCase):
    def test_a_client_waiting_for_100_continue_gets_it_then_its_answer(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            body = request(request_id=5)
            client.sendall(post_bytes(body, "Expect: 100-continue\r\n")[:-len(body)])
            self.assertEqual(client.recv(100), b"HTTP/1.1 100 Continue\r\n\r\n")
            client.sendall(body)
            self.assertEqual(response_of(read_response(client))[2]["id"], 5)

    def test_a_refused_request_gets_no_100_continue_and_its_body_is_not_awaited(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT) as client:
            client.sendall(post_bytes(b"{}", "Expect: 100-continue\r\n").replace(b"application/json", b"text/plain")
                           [:-2])
            self.assertTrue(client.recv(4096).startswith(b"HTTP/1.1 415 "))


class StopTest(unittest.TestCase):
    def test_closing_the_server_ends_its_idle_kept_alive_connections_at_once(self):
        server = streamable_http.make_server(FakeHandler(), LOOPBACK)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        with socket.create_connection(server.server_address, timeout=TIMEOUT) as client:
            client.sendall(post_bytes(request()))
            self.assertEqual(response_of(read_response(client))[0], 200)
            server.shutdown()
            server.server_close()  # the connection idles for 60 s otherwise
            self.assertEqual(client.recv(1), b"")
        thread.join(TIMEOUT)
        self.assertEqual(server.slots.count(), 0)


class GiveBackTest(unittest.TestCase):
    """Memory given back once a crowd of connections has dispersed: when at most an eighth of at least 64 are
    left, and again when the last closes; never for fewer."""

    def releases(self, slots: http_front.Slots, connections: List[Any]) -> List[int]:
        """How many connections were left open at each release that called for giving memory back."""
        called = []
        for connection in list(connections):
            connections.remove(connection)
            if slots.release(connection):
                called.append(len(connections))
        return called

    def test_a_crowd_of_64_gives_back_with_8_left_and_at_the_last(self):
        slots, crowd = http_front.Slots(1024), [object() for _ in range(64)]
        self.assertTrue(all(slots.take(connection) for connection in crowd))  # type: ignore[arg-type]
        self.assertEqual(self.releases(slots, crowd), [8, 0])

    def test_a_crowd_of_1000_gives_back_as_it_thins(self):
        slots, crowd = http_front.Slots(1024), [object() for _ in range(1000)]
        for connection in crowd:
            slots.take(connection)  # type: ignore[arg-type]
        self.assertEqual(self.releases(slots, crowd), [125, 15, 0])

    def test_fewer_than_64_at_once_never_call_for_it_however_many_come_and_go(self):
        slots = http_front.Slots(1024)
        for _ in range(20):
            crowd = [object() for _ in range(http_front.GIVE_BACK_FROM - 1)]
            for connection in crowd:
                slots.take(connection)  # type: ignore[arg-type]
            self.assertEqual(self.releases(slots, crowd), [])

    def test_a_refused_connection_does_not_count_towards_a_crowd(self):
        slots = http_front.Slots(2)
        crowd = [object() for _ in range(100)]
        taken = [connection for connection in crowd if slots.take(connection)]  # type: ignore[arg-type]
        self.assertEqual((len(taken), slots.peak), (2, 2))
        self.assertEqual(self.releases(slots, taken), [])

    def test_giving_back_empties_the_free_lists_and_trims_the_c_heap(self):
        trim = mock.Mock(return_value=1)
        with mock.patch.object(http_front.gc, "collect") as collect, \
                mock.patch.object(http_front, "MALLOC_TRIM", trim):
            http_front.give_back_memory()
        collect.assert_called_once_with()
        trim.assert_called_once_with(0)
        with mock.patch.object(http_front.gc, "collect") as collect, mock.patch.object(http_front, "MALLOC_TRIM", None):
            http_front.give_back_memory()  # no malloc_trim: the collection alone
        collect.assert_called_once_with()

    @unittest.skipUnless(platform.libc_ver()[0] == "glibc", "glibc's malloc_trim")
    def test_glibc_s_malloc_trim_is_found_and_answers(self):
        self.assertIsNotNone(http_front.MALLOC_TRIM)
        self.assertIn(http_front.MALLOC_TRIM(0), (0, 1))  # type: ignore[misc]

    def test_the_server_gives_memory_back_after_a_crowd_of_connections_closes(self):
        server = streamable_http.make_server(FakeHandler(), LOOPBACK)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        self.addCleanup(thread.join, TIMEOUT)
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        with mock.patch.object(http_front, "give_back_memory") as give_back:
            clients = [socket.create_connection(server.server_address, timeout=TIMEOUT) for _ in range(64)]
            for number, client in enumerate(clients):
                client.sendall(post_bytes(request(request_id=number)))
            self.assertEqual([response_of(read_response(client))[0] for client in clients], [200] * 64)
            self.assertEqual(give_back.call_count, 0, "all 64 are still open")
            for client in clients:
                client.close()
            deadline = time.monotonic() + TIMEOUT
            while (server.slots.count() or give_back.call_count < 2) and time.monotonic() < deadline:
                time.sleep(0.02)  # the slot is freed just before its thread gives memory back
            time.sleep(0.1)  # a third call, were there one, would come now
            self.assertEqual((server.slots.count(), give_back.call_count), (0, 2))


class LimitsTest(unittest.TestCase):
    def test_the_memory_bound_is_the_arithmetic_the_readme_states(self):
        per_connection = (8 + 16) * 1024 + 100 * http_front.FIELD_BYTES + http_front.CHUNK + http_front.FREE_BODY \
            + http_front.THREAD_BYTES
        self.assertEqual(Limits().memory(), 1024 * per_connection + 8 * 1024 * 1024)
        self.assertIn("connections and requests hold at most 91.5 MiB", Limits().describe())
        self.assertEqual(Limits(max_connections=2, max_headers=1).memory(),
                         2 * ((8 + 16 + 4 + 4 + 32) * 1024 + http_front.FIELD_BYTES) + 8 * 1024 * 1024)

    def test_sizes_are_read_with_their_unit_and_refused_beyond_1_gib(self):
        self.assertEqual([http_front.parse_size(text) for text in ("1", "16KiB", "16K", "4 MiB", "1024M")],
                         [1, 16384, 16384, 4 * 1024 * 1024, 1024 ** 3])
        for text in ("0", "1025MiB", "4GiB", "-1", "1.5K", ""):
            with self.subTest(text=text), self.assertRaises(ValueError):
                http_front.parse_size(text)


class OptionsTest(unittest.TestCase):
    def test_each_limit_has_an_option_read_into_the_limits(self):
        options = parse_options(["--demo", "--http", "0", "--http-backlog", "2048",
                                            "--http-max-connections", "9", "--http-max-request-line", "2KiB",
                                            "--http-max-header-bytes", "32KiB", "--http-max-headers", "50",
                                            "--http-max-body", "1MiB", "--http-body-budget", "8MiB",
                                            "--http-request-seconds", "2.5", "--http-idle-seconds", "7"])
        self.assertEqual(options.http_limits, Limits(2048, 9, 2048, 32768, 50, 1024 ** 2, 8 * 1024 ** 2, 2.5, 7))
        self.assertEqual(parse_options(["--demo", "--http", "0"]).http_limits, Limits())

    def test_limits_without_http_or_that_cannot_serve_are_refused_in_one_line(self):
        assert_server_refuses(self, {
            ("--demo", "--http-max-connections", "5"): "--http-max-connections acts on the HTTP transport",
            ("--demo", "--http", "0", "--http-max-connections", "0"): "whole number from 1",
            ("--demo", "--http", "0", "--http-max-body", "2GiB"): "from 1 to 1GiB",
            ("--demo", "--http", "0", "--http-idle-seconds", "-1"): "positive number of seconds",
            ("--demo", "--http", "0", "--http-request-seconds", "100000"): "up to 86400",
            ("--demo", "--http", "0", "--http-body-budget", "1MiB"): "cannot hold one body of 4 MiB",
            ("--demo", "--http-grace-seconds", "2"): "--http-grace-seconds acts on the HTTP transport",
            ("--demo", "--http", "0", "--http-grace-seconds", "-1"): "from 0 to 3600",
            ("--demo", "--http", "0", "--http-grace-seconds", "soon"): "from 0 to 3600",
        })
        self.assertEqual(parse_options(["--demo", "--http", "0"]).http_grace_seconds, 5.0)
        self.assertEqual(parse_options(["--demo", "--http", "0", "--http-grace-seconds", "0"]).http_grace_seconds, 0)

    def test_the_http_page_states_each_limit_with_its_default_and_option(self):
        with open(os.path.join(ROOT, "docs", "http.md"), encoding="utf-8") as page:
            text = page.read()
        for field, (unit, _) in http_front.LIMITS_EXPLAINED.items():
            default = getattr(Limits(), field)
            shown = http_front.size(default) if unit == "BYTES" else f"{default:g}"
            shown += " s" if unit == "SECONDS" else ""
            with self.subTest(field=field):
                self.assertIn(f"| {shown} | `{limit_flag(field)} {unit}` |", text)
        self.assertEqual(list(http_front.LIMITS_EXPLAINED), list(Limits._fields))

    def test_the_startup_line_states_the_limits_in_effect(self):
        process = subprocess.Popen([sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo", "--http",
                                    "127.0.0.1:0", "--http-max-connections", "7", "--http-idle-seconds", "9"],
                                   cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        try:
            line = process.stderr.readline()  # type: ignore[union-attr]
        finally:
            process.terminate()
            process.communicate(timeout=30)
        self.assertRegex(line, r"at http://127\.0\.0\.1:\d+/mcp, ")
        self.assertIn("limits: at most 7 connections (backlog 1024), each closed after 9 s idle; a request within "
                      "30 s: request line 8 KiB, 100 header fields in 16 KiB, body 4 MiB, 8 MiB of bodies at once",
                      line)


if __name__ == "__main__":
    unittest.main()
