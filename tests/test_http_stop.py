"""The HTTP server's graceful stop (streamable_http's McpHttpServer.stop_gracefully), in one process and with
--workers: on SIGTERM or Ctrl-C, requests in progress finish (a body that arrives just after the signal is read and
answered, never 400), what arrives meanwhile is answered 503 with Retry-After, a client that stalls is cut at the
end of the grace, idle connections end at once, and the command exits 0 after SIGTERM, 130 after Ctrl-C, with one
line.

Real servers (mcp_server.py) on files in a temporary folder, raw sockets where the bytes on the wire matter. Every
wait has a generous bound; what is asserted is that the stop ends within the grace plus a margin far below the
30 s request deadline that bounded it before.
"""

import json
import os
import signal
import socket
import tempfile
import time
import unittest
from typing import Tuple

from osfoundry_tools.server import http_workers
from tests.test_http_limits import read_response, response_of
from tests.test_mcp_server_http import HttpServer

TIMEOUT = 20  # seconds, on every socket and wait here
PING = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()


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
    pass


@unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
class WorkersStopTest(StopCase):
    workers = ("--workers", "2")


del StopCase

if __name__ == "__main__":
    unittest.main()
