"""mcp_server.py over stdio, stopped by SIGTERM as closing stdin stops it: the message under way is answered (a
question waiting for a person is given up, its write not made, and answered "stopped" whichever of the two stopped
it), then one line, the approvals' summary, the databases closed, status 0; before, SIGTERM killed it (status -15)
with nothing said. Ctrl-C still ends it with status 130 (tests/test_commands.py).

A real server on pipes; each line is waited for at most TIMEOUT seconds, by a reader thread.
"""

import json
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import unittest
from typing import Any, Dict, Optional

from tests.helpers import ROOT
from tests.test_mcp_server_http import SERVER

TIMEOUT = 20  # seconds, for each line and for the exit
ELICITING: Dict[str, Any] = {"elicitation": {}}  # a client that can put a question to its user
ITEM = {"record_channel_id": "bugs", "item_id": "itm-00060"}


class StdioServer:
    """mcp_server.py on pipes, its stdout read line by line by a thread, its stderr kept."""

    def __init__(self, *args: str) -> None:
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, SERVER, *args], cwd=ROOT, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.errors)
        self.lines: "queue.Queue[Optional[bytes]]" = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()
        self.next_id = 0

    def read(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: Dict[str, Any]) -> None:
        self.process.stdin.write(json.dumps(message).encode() + b"\n")  # type: ignore[union-attr]
        self.process.stdin.flush()  # type: ignore[union-attr]

    def request(self, method: str, params: Dict[str, Any]) -> int:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def receive(self) -> Optional[Dict[str, Any]]:
        """The next message on stdout; None once stdout has closed."""
        line = self.lines.get(timeout=TIMEOUT)
        return json.loads(line) if line is not None else None

    def call(self, name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        self.request("tools/call", {"name": name, "arguments": arguments})
        return json.loads(self.receive()["result"]["content"][0]["text"])  # type: ignore[index]

    def text(self) -> str:
        self.errors.seek(0)
        return self.errors.read().decode("utf-8", "replace")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()  # type: ignore[union-attr]
        self.errors.close()


class SigtermOverStdioTest(unittest.TestCase):
    def serve(self, *args: str) -> StdioServer:
        server = StdioServer("--demo", *args)
        self.addCleanup(server.close)
        server.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": ELICITING,
                                      "clientInfo": {"name": "test", "version": "1"}})
        self.assertIn("result", server.receive() or {})
        return server

    def test_sigterm_stops_an_idle_server_with_one_line_and_status_0(self):
        server = self.serve()
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(TIMEOUT), 0)  # before: -15
        self.assertTrue(server.text().endswith("\nmcp_server: SIGTERM: stopping\n"), server.text())

    def test_sigterm_while_a_question_waits_answers_the_call_saving_nothing_and_says_how_approvals_went(self):
        server = self.serve("--approve-writes")
        version = server.call("read_record_item", ITEM)["version"]
        call_id = server.request("tools/call", {"name": "edit_record_item", "arguments": dict(
            ITEM, expected_version=version, values={"status": "triaged"}, idempotency_key="stop-1")})
        question = server.receive()
        self.assertEqual(question["method"], "elicitation/create")
        server.process.send_signal(signal.SIGTERM)
        refusal = self.answered_stopped(server, call_id, "SIGTERM")  # before: no answer, stdout closed by the kill
        self.assertIn("the server is stopping", refusal["message"])

    def test_stdin_closing_while_a_question_waits_answers_the_call_as_stopped_not_as_a_silent_person(self):
        server = self.serve("--approve-writes")
        version = server.call("read_record_item", ITEM)["version"]
        call_id = server.request("tools/call", {"name": "edit_record_item", "arguments": dict(
            ITEM, expected_version=version, values={"status": "triaged"}, idempotency_key="eof-1")})
        self.assertEqual(server.receive()["method"], "elicitation/create")
        server.process.stdin.close()  # type: ignore[union-attr]
        self.answered_stopped(server, call_id, "stdin closed")  # before: "unanswered", "no answer came ... within
        # 600 seconds", the moment stdin closed

    def answered_stopped(self, server, call_id, cause):
        """The call waiting for its person answered 'stopped' (not as a person too slow), nothing saved, then the
        server gone with exit 0, its log naming `cause` and counting the question as stopped; the refusal."""
        answer = server.receive()
        self.assertEqual(answer["id"], call_id, answer)
        refusal = json.loads(answer["result"]["content"][0]["text"])
        self.assertEqual(refusal["answer"], "stopped", refusal)
        self.assertNotIn("no answer came", refusal["message"])
        self.assertIn("nothing was saved", refusal["message"])
        self.assertIsNone(server.receive(), "stdout closes: the server has stopped")
        self.assertEqual(server.process.wait(TIMEOUT), 0)
        text = server.text()
        self.assertIn(f"\nmcp_server: {cause}: stopping\nmcp_server: approvals: asked: 1; ", text)
        self.assertIn("; unanswered: 0; stopped: 1; ", text)
        self.assertNotIn("Traceback", text)
        return refusal


if __name__ == "__main__":
    unittest.main()
