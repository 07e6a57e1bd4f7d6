"""The HTTP server's graceful stop (streamable_http's McpHttpServer.stop_gracefully), in one process and with
--workers: on SIGTERM or Ctrl-C, requests in progress finish (a body that arrives just after the signal is read and
answered, never 400), so does a connection dispatched as the signal lands and the first request of one accepted
just before it, what arrives meanwhile (the backlog too) is answered 503 with Retry-After, a client that stalls is
cut at the end of the grace, idle connections end at once, and the command exits 0 after SIGTERM, 130 after Ctrl-C,
with one line.

Real servers (mcp_server.py) on files in a temporary folder, raw sockets where the bytes on the wire matter; a
signal made to land at the worst moment by a copy of the command whose accepting loop raises it itself
(HOOKED_SERVER); the stop's rules for fresh connections and the backlog on a server in this process. Every wait has
a generous bound; what is asserted is that the stop ends within the grace plus a margin far below the 30 s request
deadline that bounded it before.
"""

import json
import os
import signal
import socket
import tempfile
import threading
import time
import unittest
from typing import Callable, Tuple
from unittest import mock

from osfoundry_tools.server import http_workers, streamable_http
from tests import test_mcp_server_http
from tests.helpers import ROOT
from tests.test_http_limits import LOOPBACK, read_response, response_of
from tests.test_mcp_http import FakeHandler
from tests.test_mcp_server_http import HttpServer

TIMEOUT = 20  # seconds, on every socket and wait here
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
HOOKED_SERVER = """\
import signal, sys, threading
sys.path.insert(0, {root!r})
from osfoundry_tools.server import command_line, streamable_http

dispatch = streamable_http.McpHttpServer.process_request
serve = streamable_http.McpHttpServer.process_request_thread
gate = threading.Event()  # the first connection's thread serves once the accepting loop has moved on


def process_request(server, request, client_address):
    dispatch(server, request, client_address)  # the connection's thread has started, and waits at the gate
    if not gate.is_set():
        signal.raise_signal(signal.{signal})  # lands here: a handler that raised leaves now, the gate shut
    gate.set()


def process_request_thread(server, request, client_address):
    gate.wait(5)
    serve(server, request, client_address)


streamable_http.McpHttpServer.process_request = process_request
streamable_http.McpHttpServer.process_request_thread = process_request_thread
sys.exit(command_line.main())
"""  # mcp_server.py, with {signal} landing as the first connection is dispatched, before its thread reads


def until(condition: Callable[[], bool], seconds: float = TIMEOUT) -> bool:
    """Whether `condition()` holds within `seconds`, asked every 10 ms."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def head_of(body: bytes) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()


class StopCase(unittest.TestCase):
    workers: Tuple[str, ...] = ()

    def serve(self, *extra: str) -> HttpServer:
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        server = HttpServer("--demo", "--kb-db", os.path.join(folder.name, "kb.db"), "--records-db",
                            os.path.join(folder.name, "records.db"), *self.workers, *extra)
        self.addCleanup(server.log.close)
        self.addCleanup(lambda: server.process.poll() is None and server.process.kill())
        return server

    def connect(self, server: HttpServer) -> socket.socket:
        client = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
        self.addCleanup(client.close)
        return client

    def serve_hooked(self, signal_name: str, *extra: str) -> HttpServer:
        """A server whose accepting loop raises `signal_name` on itself as it dispatches the first connection: just
        after that connection's thread has started, as a signal from outside may land (HOOKED_SERVER)."""
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        hooked = os.path.join(folder.name, "mcp_server.py")
        with open(hooked, "w", encoding="utf-8") as file:
            file.write(HOOKED_SERVER.format(root=ROOT, signal=signal_name))
        with mock.patch.object(test_mcp_server_http, "SERVER", hooked):
            return self.serve(*extra)

    def answered(self, client: socket.socket) -> bytes:
        """The next answer on `client`, once the server has read the request (a ping first, on a kept-alive one)."""
        client.sendall(head_of(PING) + PING)
        return read_response(client)

    def test_a_body_that_arrives_just_after_sigterm_is_read_and_answered(self):
        server = self.serve()
        client = self.connect(server)
        self.assertTrue(self.answered(client).startswith(b"HTTP/1.1 200 "))  # the connection is served
        client.sendall(head_of(PING))
        time.sleep(0.5)  # the head is read; its body is still to come
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        client.sendall(PING)
        status, headers, body = response_of(read_response(client))
        self.assertEqual((status, body["result"]), (200, {}), body)
        self.assertEqual(headers["connection"], "close")
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 0)
        self.assertEqual(server.text().count("mcp_server: SIGTERM: stopping"), 1)  # the one line (and a worker's)
        self.assertNotIn("Traceback", server.text())

    def test_a_sigterm_that_lands_as_a_connection_is_dispatched_leaves_its_request_answered(self):
        server = self.serve_hooked("SIGTERM")
        client = self.connect(server)
        client.sendall(head_of(PING) + PING)
        reply = read_response(client)  # before the fix: no bytes, the connection closed under its thread
        self.assertTrue(reply.startswith(b"HTTP/1.1 200 "), reply)
        self.assertEqual(response_of(reply)[2]["result"], {})
        if self.workers:  # the worker that took the connection stopped (and was replaced): stop the rest
            self.assertTrue(until(lambda: "serves in its place" in server.text()), server.text())
            server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 0)
        self.assertNotIn("failed", server.text())
        self.assertNotIn("Traceback", server.text())

    def test_during_the_grace_new_connections_get_503_and_a_stalled_client_is_cut_at_its_end(self):
        server = self.serve("--http-grace-seconds", "2")
        stalled = self.connect(server)
        self.assertTrue(self.answered(stalled).startswith(b"HTTP/1.1 200 "))
        stalled.sendall(head_of(b" " * 1000) + b" ")  # in progress, and it will never end
        time.sleep(0.5)
        stopped_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        late = self.connect(server)
        late.sendall(head_of(PING) + PING)
        status, headers, body = response_of(read_response(late))
        self.assertEqual((status, headers["retry-after"]), (503, "1"))
        self.assertIn("stopping", body["error"]["message"])
        try:
            self.assertEqual(stalled.recv(1), b"")  # cut at the end of the grace (or answered, then closed)
        except ConnectionResetError:
            pass
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 0)
        self.assertLess(time.monotonic() - stopped_at, 15, "the grace, not the 30 s request deadline")

    def test_idle_kept_alive_connections_do_not_hold_the_stop(self):
        server = self.serve("--http-grace-seconds", "30")
        idle = self.connect(server)
        self.assertTrue(self.answered(idle).startswith(b"HTTP/1.1 200 "))
        stopped_at = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(idle.recv(1), b"")
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 0)
        self.assertLess(time.monotonic() - stopped_at, 15, "nothing was in progress: no grace to wait out")

    def test_ctrl_c_stops_with_one_line_and_status_130(self):
        server = self.serve()
        client = self.connect(server)
        self.assertTrue(self.answered(client).startswith(b"HTTP/1.1 200 "))
        before = server.text()
        server.process.send_signal(signal.SIGINT)
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 130)
        after = [line for line in server.text()[len(before):].splitlines()
                 if not line.startswith("mcp_server worker ")]
        self.assertEqual(after, ["mcp_server.py: interrupted; stopped"])


class OneProcessStopTest(StopCase):
    def test_a_ctrl_c_that_lands_as_a_connection_is_dispatched_leaves_its_request_answered(self):
        server = self.serve_hooked("SIGINT")
        client = self.connect(server)
        client.sendall(head_of(PING) + PING)
        reply = read_response(client)
        self.assertTrue(reply.startswith(b"HTTP/1.1 200 "), reply)
        self.assertEqual(server.process.wait(timeout=TIMEOUT), 130)
        self.assertTrue(server.text().endswith("\nmcp_server.py: interrupted; stopped\n"), server.text())
        self.assertNotIn("Traceback", server.text())


@unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
class WorkersStopTest(StopCase):
    workers = ("--workers", "2")


del StopCase


class StopInThisProcessTest(unittest.TestCase):
    """A server in this process, its serving loop stopped (shutdown()), then stop_gracefully on a thread: what a
    connection accepted with no request yet, and one still in the listener's backlog, are answered; a hurried stop
    (a second Ctrl-C) does not wait out the grace."""

    def setUp(self):
        self.server = streamable_http.make_server(FakeHandler(), LOOPBACK)
        self.addCleanup(self.server.server_close)

    def connect(self) -> socket.socket:
        client = socket.create_connection(self.server.server_address, timeout=TIMEOUT)
        self.addCleanup(client.close)
        return client

    def serve(self) -> None:
        thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        self.addCleanup(thread.join, TIMEOUT)

    def serve_one_fresh_connection(self) -> socket.socket:
        """A connection accepted and waiting for its first request (another, connected after it, was answered, so
        the one accepting loop has taken it), the serving loop then stopped."""
        self.serve()
        fresh = self.connect()
        with socket.create_connection(self.server.server_address, timeout=TIMEOUT) as other:
            other.sendall(head_of(PING) + PING)
            self.assertTrue(read_response(other).startswith(b"HTTP/1.1 200 "))
        self.assertTrue(until(lambda: self.server.slots.count() == 1 and len(self.server.slots.idle) == 1))
        self.server.shutdown()
        return fresh

    def stop(self, grace: float) -> threading.Thread:
        """stop_gracefully(grace) on a thread, begun once this returns."""
        stopping = threading.Thread(target=self.server.stop_gracefully, args=(grace,))
        stopping.start()
        self.addCleanup(stopping.join, TIMEOUT)
        self.assertTrue(until(lambda: self.server.slots.stopping))
        return stopping

    def test_a_connection_accepted_before_the_stop_has_its_first_request_answered(self):
        fresh = self.serve_one_fresh_connection()
        with mock.patch.object(streamable_http, "FIRST_REQUEST_SECONDS", TIMEOUT, create=True):  # however slow
            self.stop(TIMEOUT)
            fresh.sendall(head_of(PING) + PING)  # after the stop began
            status, headers, body = response_of(read_response(fresh))  # before the fix: closed, no bytes
        self.assertEqual((status, "result" in body, headers["connection"]), (200, True, "close"))

    def test_one_that_sends_nothing_in_its_time_is_answered_503_with_retry_after(self):
        fresh = self.serve_one_fresh_connection()
        with mock.patch.object(streamable_http, "FIRST_REQUEST_SECONDS", 0.0, create=True):
            self.stop(TIMEOUT)
            status, headers, body = response_of(read_response(fresh))  # before the fix: closed, no bytes
        self.assertEqual((status, headers["retry-after"], headers["connection"]), (503, "1", "close"))
        self.assertIn("stopping", body["error"]["message"])

    def test_connections_still_in_the_backlog_are_answered_503_not_reset(self):
        waiting = [self.connect() for _ in range(3)]  # the serving loop never ran: all in the backlog
        for client in waiting:
            client.sendall(head_of(PING) + PING)
        self.stop(TIMEOUT)  # no connection open: the grace ends at once
        for client in waiting:
            status, headers, body = response_of(read_response(client))  # before: ConnectionResetError
            self.assertEqual((status, headers["retry-after"]), (503, "1"))

    def test_a_hurried_stop_cuts_what_is_still_open_without_waiting_out_its_grace(self):
        self.serve()
        stalled = self.connect()
        stalled.sendall(head_of(b" " * 1000) + b" ")  # in progress, and it will never end
        self.assertTrue(until(lambda: self.server.slots.count() == 1 and not self.server.slots.idle))
        self.server.shutdown()
        stopping = self.stop(3600.0)
        self.server.stop.hurry()  # as a second Ctrl-C does
        stopping.join(TIMEOUT)
        self.assertFalse(stopping.is_alive(), "the stop waits out its hour of grace")
        self.assertEqual(self.server.slots.count(), 0)


if __name__ == "__main__":
    unittest.main()
