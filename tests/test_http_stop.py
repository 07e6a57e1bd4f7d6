"""The HTTP server's graceful stop (streamable_http's McpHttpServer.stop_gracefully), in one process and with
--workers: on SIGTERM or Ctrl-C, requests in progress finish (a body that arrives just after the signal is read and
answered, never 400), so does a connection dispatched as the signal lands and the first request of one accepted
just before it, what arrives meanwhile (the backlog too, however full, and refilled as it drains) is answered 503
with Retry-After, and so is a request still arriving when the grace ends; an open listen stream ends at once with
its result, idle connections end at once, and the command exits 0 after SIGTERM, 130 after Ctrl-C, with one line.
A signal wakes the serving loop as it arrives, whichever thread the kernel delivers it to.

Real servers (mcp_server.py) on files in a temporary folder, raw sockets where the bytes on the wire matter; a
signal made to land at the worst moment by a copy of the command whose accepting loop raises it itself
(HOOKED_SERVER); the stop's rules for fresh connections, the backlog and streams on a server in this process; a
signal sent to one thread with pthread_kill. Every wait has a generous bound; what is asserted is that the stop ends
within the grace plus a margin far below the 30 s request deadline that bounded it before, and that the loop was
woken by the signal's own byte, never how soon.
"""

import json
import os
import select
import signal
import socket
import sys
import tempfile
import threading
import time
import unittest
from typing import Tuple
from unittest import mock

from osfoundry_tools.server import command_line, http_workers, listening, streamable_http
from osfoundry_tools.server.http_front import Limits
from tests import test_mcp_server_http
from tests.helpers import ROOT, WAIT_SECONDS, ctrl_c_heard, demo_over_http, until
from tests.test_http_limits import LOOPBACK, read_response, response_of
from tests.test_mcp_http import FakeHandler
from tests.test_mcp_server_http import HttpServer

TIMEOUT = WAIT_SECONDS  # seconds, on every socket and wait here
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


def wakeup_fd() -> int:
    """The process's signal wake-up descriptor (signal.set_wakeup_fd), left as it was."""
    current = signal.set_wakeup_fd(-1)
    signal.set_wakeup_fd(current)
    return current


def in_select(thread_id: int) -> bool:
    """Whether the thread `thread_id` is in a selector's select (the serving loop's wait)."""
    frame = sys._current_frames().get(thread_id)
    return frame is not None and frame.f_code.co_name == "select"


def head_of(body: bytes) -> bytes:
    return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()


class StopCase(unittest.TestCase):
    workers: Tuple[str, ...] = ()

    def serve(self, *extra: str) -> HttpServer:
        return demo_over_http(self, *self.workers, *extra)

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

    def test_during_the_grace_new_connections_get_503_and_so_does_a_request_still_arriving_at_its_end(self):
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
        status, headers, body = response_of(read_response(stalled))  # before: cut, no bytes
        self.assertEqual((status, headers["retry-after"], headers["connection"]), (503, "1", "close"))
        self.assertIn("stopping", body["error"]["message"])
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

    @ctrl_c_heard
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
    @ctrl_c_heard
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

    def test_a_backlog_filled_past_its_size_and_refilled_as_it_is_drained_is_answered_never_reset(self):
        self.server = streamable_http.make_server(FakeHandler(), LOOPBACK._replace(limits=Limits(backlog=4)))
        self.addCleanup(self.server.server_close)
        waiting = [self.connect() for _ in range(5)]  # the kernel queues more than the backlog (Linux one more)
        for client in waiting:
            client.sendall(head_of(PING) + PING)
        again = []  # clients told to send again, which connect again at once
        refused = []
        refuse = self.server.refuse

        def refuse_and_connect_again(connection: socket.socket, reply: bytes) -> None:
            refuse(connection, reply)
            refused.append(connection)
            if len(refused) >= len(waiting) and len(again) < 3:  # the backlog has room: each queued as it drains
                again.append(self.connect())
                select.select([self.server.socket], [], [], TIMEOUT)  # until the kernel has queued it

        with mock.patch.object(self.server, "refuse", refuse_and_connect_again):
            self.stop(TIMEOUT).join(TIMEOUT)  # no connection open: the grace ends at once
        for client in waiting + again:
            status, headers, body = response_of(read_response(client))  # before: the fifth reset
            self.assertEqual((status, headers["retry-after"]), (503, "1"))
        self.assertEqual(len(again), 3)

    def test_a_body_still_arriving_when_the_grace_ends_is_answered_503_while_its_client_sends(self):
        self.serve()
        uploading = self.connect()
        uploading.sendall(head_of(b" " * 4_000_000))
        sending = threading.Event()
        sending.set()

        def trickle() -> None:  # 100 KiB a second: 40 s for the whole body
            try:
                while sending.is_set():
                    uploading.sendall(b" " * 1024)
                    time.sleep(0.01)
            except OSError:  # the server closed the connection
                pass

        thread = threading.Thread(target=trickle)
        thread.start()
        self.addCleanup(thread.join, TIMEOUT)
        self.addCleanup(sending.clear)
        self.assertTrue(until(lambda: self.server.slots.count() == 1 and not self.server.slots.idle))
        self.server.shutdown()
        self.stop(0.2)  # the grace ends long before the body would
        status, headers, body = response_of(read_response(uploading))  # before: cut, no bytes
        self.assertEqual((status, headers["retry-after"], headers["connection"]), (503, "1", "close"))
        self.assertIn("stopping", body["error"]["message"])

    def test_the_stop_ends_an_open_listen_stream_at_once_with_its_result(self):
        stream = listening.Stream("agent", "listen-1", [])
        stream.put([{"jsonrpc": "2.0", "method": "acknowledged"}])
        stream.closing = {"jsonrpc": "2.0", "id": "listen-1", "result": {"resultType": "complete"}}
        self.server = streamable_http.make_server(lambda message, **_: stream, LOOPBACK)
        self.addCleanup(self.server.server_close)
        with mock.patch.object(streamable_http, "STREAM_WAKE_SECONDS", 3600.0):  # its own look: once an hour
            self.serve()
            listener = self.connect()
            listener.sendall(head_of(PING) + PING)
            seen = b""
            while b"acknowledged" not in seen:  # the stream is being written
                chunk = listener.recv(4096)
                self.assertTrue(chunk, seen)
                seen += chunk
            self.server.shutdown()
            self.stop(TIMEOUT)
            while not seen.endswith(b"\n\n") or b'"listen-1"' not in seen:  # before: socket.timeout
                chunk = listener.recv(4096)
                self.assertTrue(chunk, seen)
                seen += chunk
        self.assertEqual(json.loads(seen.split(b"data: ")[-1])["result"], {"resultType": "complete"})

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


@unittest.skipUnless(hasattr(signal, "pthread_kill"), "needs signal.pthread_kill")
class SignalWakeTest(unittest.TestCase):
    """A signal that stops a server wakes its serving loop as it arrives, on whichever thread the kernel delivers it
    (Stop.hear_signals: the wake-up descriptor is the stop's socket), not at the loop's next timeout; the process's
    one wake-up descriptor is handed back whichever stop ends first, and a forked process hears none through its
    parent's stop."""

    def setUp(self):
        self.addCleanup(signal.signal, signal.SIGTERM, signal.getsignal(signal.SIGTERM))
        self.addCleanup(signal.set_wakeup_fd, wakeup_fd())  # as it was, whatever a failed test left

    def new_stop(self) -> streamable_http.Stop:
        stop = streamable_http.Stop()
        self.addCleanup(stop.close)
        return stop

    def test_a_sigterm_delivered_to_another_thread_wakes_the_serving_loop_through_its_stop(self):
        stop = self.new_stop()
        server = streamable_http.make_server(FakeHandler(), LOOPBACK, stop=stop)
        self.addCleanup(server.server_close)
        self.addCleanup(command_line.stop_on_signals(stop, (signal.SIGTERM,)))
        main = threading.get_ident()

        def signal_this_thread() -> None:
            until(lambda: in_select(main))
            signal.pthread_kill(threading.get_ident(), signal.SIGTERM)  # its handler runs on the main thread alone

        taken = []
        woken = stop.woken
        thread = threading.Thread(target=signal_this_thread)
        with mock.patch.object(stop, "woken", lambda: taken.append(woken()) or taken[-1]):
            thread.start()
            server.serve_forever(poll_interval=TIMEOUT)  # before: woken only once this timed out
        thread.join(TIMEOUT)
        self.assertEqual(stop.reason, "SIGTERM")
        self.assertIn(bytes([signal.SIGTERM]), b"".join(taken), "the signal's own byte woke the loop")

    def test_the_wake_up_is_handed_back_whichever_stop_ends_first(self):
        own = socket.socketpair()
        for end in own:
            end.setblocking(False)
            self.addCleanup(end.close)
        signal.set_wakeup_fd(own[1].fileno())
        for first_ends in ("the first to begin", "the last to begin"):
            with self.subTest(first_ends=first_ends):
                stops = [streamable_http.Stop(), streamable_http.Stop()]
                for stop in stops:
                    self.addCleanup(stop.close)
                    stop.hear_signals()
                self.assertEqual(wakeup_fd(), stops[1].wake_end.fileno())
                ending, staying = stops if first_ends == "the first to begin" else stops[::-1]
                ending.close()
                self.assertEqual(wakeup_fd(), staying.wake_end.fileno())
                staying.close()
                self.assertEqual(wakeup_fd(), own[1].fileno())

    @unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
    def test_a_process_forked_while_a_stop_hears_signals_hears_none_through_it(self):
        before = wakeup_fd()
        stop = self.new_stop()
        stop.hear_signals()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: says its wake-up descriptor, and leaves
            try:
                os.write(write_end, str(wakeup_fd()).encode())
            finally:
                os._exit(0)
        os.close(write_end)
        seen = os.read(read_end, 64)
        os.close(read_end)
        os.waitpid(pid, 0)
        self.assertEqual(int(seen), before)  # before: its parent's socket, shared with it
        self.assertEqual(wakeup_fd(), stop.wake_end.fileno())


if __name__ == "__main__":
    unittest.main()
