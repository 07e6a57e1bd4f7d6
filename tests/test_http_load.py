"""The load benchmark's clients and figures: replies framed, requests made, outcomes told apart (a version_conflict is
an answer), the floods' heads just within the bounds, /proc read, and each job run once against a real server.

No test asserts how fast anything is; every socket has a timeout, and the live ones talk to 127.0.0.1 only.
"""

import json
import os
import socket
import tempfile
import threading
import unittest

from osfoundry_tools.server import http_front
from osfoundry_tools.content import demo
from benchmark import http_load, load_clients, round_trips
from benchmark.load_clients import EDIT, MIX, READ, READS, SEARCH, LoadFailed, Reply, ReplyReader

TIMEOUT = 10.0  # seconds, on every socket of these tests


def answer(result, status=200):
    """A reply carrying a JSON-RPC result."""
    return Reply(status, json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode("utf-8"))


def text_result(value, error=False):
    return {"content": [{"type": "text", "text": json.dumps(value)}], "isError": error}


class ReplyReaderTest(unittest.TestCase):
    def test_replies_come_whole_however_the_bytes_are_cut(self):
        first = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello"
        second = b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 2\r\n\r\n{}"
        reader = ReplyReader()
        self.assertEqual(reader.feed(first[:20]), [])
        self.assertEqual(reader.feed(first[20:] + second[:40]), [Reply(200, b"hello")])
        self.assertEqual(reader.feed(second[40:]), [Reply(431, b"{}")])
        self.assertEqual(ReplyReader().feed(first + second), [Reply(200, b"hello"), Reply(431, b"{}")])

    def test_a_reply_without_a_length_has_no_body_and_a_line_that_is_no_status_is_refused(self):
        self.assertEqual(ReplyReader().feed(b"HTTP/1.1 202 Accepted\r\nServer: x\r\n\r\n"), [Reply(202, b"")])
        with self.assertRaisesRegex(LoadFailed, "no HTTP status line"):
            ReplyReader().feed(b"garbage\r\n\r\n")


class RequestsTest(unittest.TestCase):
    PLAN = dict(http_load.base_plan(8765), workload=MIX, key_prefix="k", clients=[0])

    def parsed(self, request):
        head, _, body = request.partition(b"\r\n\r\n")
        first, *lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(": ", 1) for line in lines)
        self.assertEqual(int(headers["Content-Length"]), len(body))
        return first, headers, json.loads(body)

    def test_a_read_is_a_stateless_post_made_once_and_kept(self):
        calls = load_clients.Calls(self.PLAN)
        request = calls.request(READ, "art-00003")
        first, headers, body = self.parsed(request)
        self.assertEqual(first, "POST /mcp HTTP/1.1")
        self.assertEqual((headers["Host"], headers["Mcp-Method"], headers["Mcp-Name"]),
                         ("127.0.0.1:8765", "tools/call", READ))
        self.assertEqual(headers["MCP-Protocol-Version"], round_trips.STATELESS)
        self.assertEqual(body["params"], {"name": READ, "arguments": {
            "knowledge_base_id": demo.KNOWLEDGE_BASE, "article_id": "art-00003"},
            "_meta": round_trips.STATELESS_META})
        self.assertIs(calls.request(READ, "art-00003"), request)
        self.assertEqual(self.parsed(calls.request(SEARCH, "reset my password"))[2]["params"]["arguments"]["query"],
                         "reset my password")

    def test_an_edit_resaves_the_article_read_with_its_version_and_the_key_given(self):
        read = {"content": "Text.", "updated_at": "2026-12-03T08:00:00.000001Z"}
        _, headers, body = self.parsed(load_clients.Calls(self.PLAN).request(EDIT, "art-00003", read, "k-0-9"))
        self.assertEqual(headers["Mcp-Name"], EDIT)
        self.assertEqual(body["params"]["arguments"], {
            "knowledge_base_id": demo.KNOWLEDGE_BASE, "article_id": "art-00003", "content": "Text.",
            "expected_version": "2026-12-03T08:00:00.000001Z", "idempotency_key": "k-0-9"})

    def test_a_client_keeps_the_read_before_its_edit_and_edits_that_article_with_a_key_of_its_own(self):
        near, far = socket.socketpair()
        near.settimeout(TIMEOUT)
        far.settimeout(TIMEOUT)
        with near, far:
            client = load_clients.Client(1, near, load_clients.Calls(self.PLAN))
            client.sent = 8
            client.send(0.0)
            read = self.parsed(far.recv(65536))[2]["params"]["arguments"]["article_id"]
            article = {"article_id": read, "content": "Body.", "updated_at": "2026-12-03T09:00:00.000000Z"}
            self.assertEqual(client.answered(answer(text_result(article))), "answered")
            client.send(0.0)
            edit = self.parsed(far.recv(65536))[2]["params"]
        self.assertEqual(edit["name"], EDIT)
        self.assertEqual((edit["arguments"]["article_id"], edit["arguments"]["expected_version"]),
                         (read, "2026-12-03T09:00:00.000000Z"))
        self.assertEqual(edit["arguments"]["idempotency_key"], "k-1-9")


class OutcomeTest(unittest.TestCase):
    def test_an_edit_is_saved_or_refused_as_a_conflict_and_both_are_answers(self):
        self.assertEqual(load_clients.outcome(EDIT, answer(text_result({"citation": {}})))[0], "saved")
        conflict = text_result({"error": "version_conflict", "message": "read again"}, error=True)
        self.assertEqual(load_clients.outcome(EDIT, answer(conflict))[0], "conflict")
        self.assertEqual(load_clients.outcome(READ, answer(text_result({"title": "x"})))[0], "answered")

    def test_any_other_refusal_fails_the_run(self):
        conflict = text_result({"error": "version_conflict"}, error=True)
        not_found = text_result({"error": "not_found"}, error=True)
        error = Reply(200, b'{"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "no"}}')
        for tool, reply in ((READ, answer(conflict)), (EDIT, answer(not_found)), (READ, error),
                            (READ, Reply(503, b'{"error": "busy"}'))):
            with self.subTest(tool=tool, reply=reply.body[:40]), self.assertRaises(LoadFailed):
                load_clients.outcome(tool, reply)


class PlanTest(unittest.TestCase):
    def test_both_workloads_share_a_cycle_but_the_mix_edits_where_the_reads_read_again(self):
        articles, questions = [f"a{n}" for n in range(20)], ["q0", "q1", "q2"]
        for client in (0, 3):
            reads = [load_clients.planned(READS, client, n, articles, questions, 4) for n in range(30)]
            mix = [load_clients.planned(MIX, client, n, articles, questions, 4) for n in range(30)]
            self.assertEqual([tool for tool, _ in mix].count(EDIT), 3)
            for n, (read, mixed) in enumerate(zip(reads, mix)):
                self.assertEqual(mixed, (EDIT, read[1]) if n % 10 == 9 else read)
                if n % 10 == 9:
                    self.assertEqual(mixed[1], mix[n - 1][1])  # the article read just before
                    self.assertIn(mixed[1], articles[:4])

    def test_the_clients_are_dealt_among_the_loaders(self):
        self.assertEqual(http_load.shares(4, 2), [[0, 2], [1, 3]])
        self.assertEqual(sorted(sum(http_load.shares(64), [])), list(range(64)))


class FiguresTest(unittest.TestCase):
    def test_a_run_counts_the_calls_of_every_loader_in_its_window(self):
        results = [{"samples": [0.001, 0.003], "outcomes": {"answered": 1, "saved": 1, "conflict": 0},
                    "connect_seconds": [0.002], "cpu_seconds": 0.1},
                   {"samples": [0.002, 0.002], "outcomes": {"answered": 1, "saved": 0, "conflict": 1},
                    "connect_seconds": [0.004], "cpu_seconds": 0.3}]
        figures = http_load.run_figures(results, 2.0, 0.9)
        self.assertEqual(figures, {"median": 2000.0, "p99": 3000.0, "calls_per_second": 2.0, "saved": 1,
                                   "conflicts": 1, "server_cpu": 0.9, "loaders_cpu": 0.2, "connect_max": 0.004})
        with self.assertRaisesRegex(RuntimeError, "no call was answered"):
            http_load.run_figures([dict(results[0], samples=[])], 2.0, None)

    def test_a_burst_counts_slow_connects_answers_of_200_and_the_rest(self):
        result = {"connect_seconds": [0.001, 1.02, 0.5], "answers": [[200, 0.2], [200, 1.3], [503, 0.1]],
                  "failed": {"ECONNRESET": 1}, "unanswered": 0, "issued_seconds": 0.01}
        figures = http_load.burst_figures(4, result, 0.5)
        self.assertEqual((figures["waited"], figures["connect_max"], figures["answered"]), (2, 1.02, 2))
        self.assertEqual((figures["answer_median"], figures["answer_max"]), (0.75, 1.3))
        self.assertEqual(figures["statuses"], {"200": 2, "503": 1})
        none = http_load.burst_figures(1, dict(result, connect_seconds=[], answers=[]), 0.5)
        self.assertEqual((none["connect_max"], none["answer_median"], none["answer_max"]), (None, None, None))


class ProcTest(unittest.TestCase):
    """ProcessStatus and the machine's CPU, read from a made-up /proc."""

    def setUp(self):
        self.proc = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.proc.name, "42"))
        self.write("42/status", "Name:\tpython3\nVmHWM:\t  81920 kB\nVmRSS:\t  40960 kB\nRssAnon:\t  20480 kB\n"
                                "Threads:\t7\n")
        self.write("42/stat", "42 (a (b) c) S 1 " + " ".join(["0"] * 9) + " 150 50 0 0\n")
        self.write("42/clear_refs", "")
        self.write("stat", "cpu  100 20 30 1000 9 4 5 1 0 0\ncpu0 1 2 3\n")
        self.status = http_load.ProcessStatus(42, self.proc.name)

    def tearDown(self):
        self.proc.cleanup()

    def write(self, path, text):
        with open(os.path.join(self.proc.name, path), "w", encoding="ascii") as file:
            file.write(text)

    def test_memory_threads_and_cpu_time_are_read_from_status_and_stat(self):
        self.assertEqual((self.status.rss_mib(), self.status.peak_mib(), self.status.anonymous_mib()),
                         (40.0, 80.0, 20.0))
        self.assertEqual(self.status.threads(), 7)
        self.assertEqual(self.status.cpu_seconds(), 200 / os.sysconf("SC_CLK_TCK"))  # utime + stime
        self.assertEqual(http_load.machine_busy_seconds(self.proc.name), 160 / os.sysconf("SC_CLK_TCK"))

    def test_the_peak_is_reset_through_clear_refs_where_it_can_be(self):
        self.assertTrue(self.status.reset_peak())
        with open(os.path.join(self.proc.name, "42", "clear_refs"), encoding="ascii") as clear:
            self.assertEqual(clear.read(), "5")

    def test_a_process_or_a_proc_that_is_not_there_reads_as_none(self):
        gone = http_load.ProcessStatus(43, self.proc.name)
        self.assertEqual((gone.rss_mib(), gone.peak_mib(), gone.threads(), gone.cpu_seconds()), (None,) * 4)
        self.assertFalse(gone.reset_peak())
        self.assertIsNone(http_load.machine_busy_seconds(os.path.join(self.proc.name, "none")))
        self.assertEqual(http_load.cpu_seconds([self.status, gone]), None)

    def test_a_server_with_workers_is_measured_on_its_workers_and_one_without_on_itself(self):
        os.makedirs(os.path.join(self.proc.name, "42", "task", "42"))
        self.assertEqual([status.path for status in http_load.serving(42, self.proc.name)],
                         [os.path.join(self.proc.name, "42")])  # no children file: itself
        self.write("42/task/42/children", "")
        self.assertEqual(len(http_load.serving(42, self.proc.name)), 1)
        self.write("42/task/42/children", "51 52 ")
        self.assertEqual([status.path for status in http_load.serving(42, self.proc.name)],
                         [os.path.join(self.proc.name, "51"), os.path.join(self.proc.name, "52")])


class FloodsTest(unittest.TestCase):
    """The floods against http_front's reader with the default limits: the held heads are just within the bounds."""

    def read_head(self, lines, line_bytes):
        """The header fields http_front reads of a head of `lines` flood lines of `line_bytes` (sent by a thread,
        since a head beyond the bounds may be more than the socket holds)."""
        near, far = socket.socketpair()
        opening = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:65535\r\n"
        head = opening + load_clients.flood_line(line_bytes) * lines + b"\r\n"
        sender = threading.Thread(target=self.send, args=(far, head), daemon=True)
        with near, far:
            near.settimeout(TIMEOUT)
            far.settimeout(TIMEOUT)
            sender.start()
            try:
                reader = http_front.RequestReader(near, http_front.Limits())
                self.assertTrue(reader.next_request())
                reader.request_line()
                return reader.headers()
            finally:
                near.shutdown(socket.SHUT_RDWR)
                sender.join(TIMEOUT)

    @staticmethod
    def send(connection, data):
        try:
            connection.sendall(data)
        except OSError:  # the reader stopped reading and closed
            pass

    def test_the_heads_held_open_have_as_many_fields_and_bytes_as_the_bounds_allow_and_no_more(self):
        plan = http_load.Plan(clients=(1,), seconds=1.0, repetitions=1, bursts=(64,), flood_connections=24,
                              flood_lines=100, held=1000, hold_seconds=1.0, retry_seconds=0.5)
        long_lines, held, heads = http_load.floods(plan)
        self.assertEqual((long_lines["finish"], held["finish"], heads["finish"]), (True, False, False))
        self.assertEqual(len(self.read_head(heads["lines"], heads["line_bytes"])), http_front.Limits().max_headers)
        for lines, line_bytes in ((heads["lines"] + 1, heads["line_bytes"]), (heads["lines"], heads["line_bytes"] + 2),
                                  (long_lines["lines"], long_lines["line_bytes"])):
            with self.subTest(lines=lines, line_bytes=line_bytes), self.assertRaises(http_front.Unreadable) as refused:
                self.read_head(lines, line_bytes)
            self.assertEqual(refused.exception.status, 431)


class LiveTest(unittest.TestCase):
    """Each job of load_clients once, in this process, against mcp_server.py --demo --http (in memory)."""

    @classmethod
    def setUpClass(cls):
        cls.server = round_trips.HttpServer(round_trips.HTTP_SERVER)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def head(self):
        """The sequence of the knowledge base's last event, polled page by page."""
        client, after, more = round_trips.HttpClient(self.server.port, timeout=TIMEOUT), 0, True
        try:
            while more:
                result = client.request("tools/call", {"name": "poll_resource_events", "arguments": {
                    "resource_type": "knowledge_base", "resource_id": demo.KNOWLEDGE_BASE,
                    "after_sequence": after, "limit": 100}})
                page = json.loads(result["content"][0]["text"])
                after, more = page["last_sequence"], page["has_more"]
        finally:
            client.close()
        return after

    def test_a_load_of_edits_saves_each_one_counted_and_nothing_for_a_conflict(self):
        before = self.head()
        plan = dict(http_load.base_plan(self.server.port), job="load", clients=[0, 1], workload=MIX, seconds=0.3,
                    warm_up=10, key_prefix="live", timeout=TIMEOUT)
        said = []
        result = load_clients.load(plan, said.append, lambda: "go\n")
        self.assertEqual(said, [{"ready": True}])
        outcomes = result["outcomes"]
        self.assertEqual(sum(outcomes.values()), len(result["samples"]))
        self.assertEqual(len(result["connect_seconds"]), 2)
        saved = self.head() - before  # each client's warm-up saved one edit, and its last call may end after the window
        self.assertTrue(2 + outcomes["saved"] <= saved <= 2 + outcomes["saved"] + 2, (saved, outcomes))

    def test_a_burst_is_answered_whole(self):
        plan = dict(http_load.base_plan(self.server.port), job="burst", clients=20, timeout=TIMEOUT)
        figures = http_load.burst_figures(20, load_clients.burst(plan), 0.5)
        self.assertEqual((figures["connected"], figures["answered"], figures["statuses"]), (20, 20, {"200": 20}))
        self.assertEqual((figures["failed"], figures["unanswered"]), ({}, 0))

    def test_a_flood_of_long_lines_is_answered_431_and_closed_by_the_server(self):
        plan = {"job": "flood", "port": self.server.port, "endpoint": round_trips.ENDPOINT, "connections": 3,
                "lines": 5, "line_bytes": 65000, "finish": False, "hold_seconds": 3.0, "timeout": TIMEOUT}
        result = load_clients.flood(plan)
        self.assertEqual(result["statuses"], {"431": 3})
        self.assertEqual(result["closed_by_server"], 3)


if __name__ == "__main__":
    unittest.main()
