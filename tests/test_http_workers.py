"""mcp_server.py --http --workers N: N processes sharing one port, each with its own connections to the databases.
Both workers answer; agents whose calls land on either keep one chain of versions and a gap-free log (the checks
of two servers behind a load balancer, on one port); SIGTERM stops every worker; a worker that dies is replaced
and the service goes on, while workers that keep dying stop the server in one line; what cannot be served by
several processes is refused before anything is written."""

import os
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from osfoundry_tools.content import demo, own_content
from osfoundry_tools.server import command_line, http_workers, streamable_http
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_store, record_store
from tests import test_http_processes
from tests.helpers import assert_server_refuses, ctrl_c_heard, demo_over_http, until
from tests.test_concurrent_reads import locations
from tests.test_http_limits import read_response, response_of
from tests.test_http_stop import PING, head_of
from tests.test_mcp_server_http import Agent

STOP_SECONDS = 30
CONNECTIONS = 200  # new connections tried before concluding that one worker never answers


def workers_of(pid):
    """The worker processes of the server `pid` (its children), by pgrep."""
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, timeout=10)
    return sorted(int(line) for line in found.stdout.split())


def gone(pid):
    """Whether no process `pid` is left (a worker its parent waited for)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def ended(pid):
    """Whether the process `pid` has ended: gone, or a zombie that whoever adopted it has not waited for yet."""
    state = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
    return not state.stdout.strip() or state.stdout.strip().startswith("Z")


def read_bytes(path):
    with open(path, "rb") as file:
        return file.read()


def served(test, *extra):
    """The demo served by `--workers 2` on two files (or one PostgreSQL database), stopped when the test ends."""
    server = demo_over_http(test, "--workers", "2", *extra, databases=locations)
    test.addCleanup(kill_left, workers_of(server.process.pid))  # last: after its server's own stop
    return server


def holder(client, pids):
    """Which of the processes `pids` holds the server's end of the connection `client` (Linux's /proc), or None."""
    port = client.getsockname()[1]
    for pid in pids:
        table = {}
        with open(f"/proc/{pid}/net/tcp", encoding="ascii") as tcp:
            for line in tcp.read().splitlines()[1:]:
                fields = line.split()
                table[fields[9]] = int(fields[2].rsplit(":", 1)[1], 16)  # inode -> remote port
        for descriptor in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{descriptor}")
            except OSError:  # closed meanwhile
                continue
            if link.startswith("socket:[") and table.get(link[8:-1]) == port:
                return pid
    return None


def kill_left(workers):
    """SIGKILL to each of `workers` still running (a test that failed has left them serving)."""
    for pid in workers:
        found = subprocess.run(["ps", "-o", "stat=,args=", "-p", str(pid)], capture_output=True, text=True, timeout=10)
        if "mcp_server.py" in found.stdout and not found.stdout.strip().startswith("Z"):
            os.kill(pid, signal.SIGKILL)


@unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
class WorkersChainTest(test_http_processes.TwoServersTest):
    """TwoServersTest's agents, alternating between two connections to one port served by two workers."""

    def setUp(self):
        server = served(self)
        self.servers = [server, server]
        self.ports = [server.port, server.port]


@unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
class WorkersTest(unittest.TestCase):
    def test_the_startup_line_says_how_many_workers_serve_and_each_answers(self):
        server = served(self, "--verbose")
        self.assertIn("; 2 worker processes, each with these limits: at most 1024 connections", server.text())
        self.assertEqual(len(workers_of(server.process.pid)), 2)
        for _ in range(CONNECTIONS):  # a new connection each time: either worker may take it
            agent = Agent(server.port)
            try:
                agent.call("search_knowledge_base", {"knowledge_base_id": "kb-support", "query": "password"})
            finally:
                agent.close()
            text = server.text()
            if all(f"mcp_server worker {n}: received" in text for n in (1, 2)):
                break
        for number in (1, 2):
            self.assertIn(f"mcp_server worker {number}: received", server.text())

    def test_sigterm_to_the_server_stops_every_worker_and_exits_0(self):
        server = served(self)
        workers = workers_of(server.process.pid)
        self.assertEqual(len(workers), 2)
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(timeout=STOP_SECONDS), 0)
        self.assertTrue(all(gone(pid) for pid in workers), workers)
        self.assertIn("mcp_server: SIGTERM: stopping", server.text())

    @ctrl_c_heard
    def test_ctrl_c_to_the_server_stops_every_worker_and_exits_130(self):
        server = served(self)
        workers = workers_of(server.process.pid)
        for worker in workers:
            os.kill(worker, signal.SIGINT)  # deaf to Ctrl-C: their parent stops them
        time.sleep(0.2)
        self.assertFalse(any(ended(pid) for pid in workers))
        self.assertNotIn("interrupted", server.text())
        server.process.send_signal(signal.SIGINT)
        self.assertEqual(server.process.wait(timeout=STOP_SECONDS), 130)
        self.assertTrue(all(gone(pid) for pid in workers), workers)
        text = server.text()
        self.assertTrue(text.endswith("\nmcp_server.py: interrupted; stopped\n"), text)
        self.assertEqual(sorted(text.count(f"mcp_server worker {n}: SIGTERM: stopping") for n in (1, 2)), [1, 1])

    def test_a_worker_stops_once_for_the_sigterms_of_a_service_manager_and_of_its_parent(self):
        server = served(self)
        workers = workers_of(server.process.pid)
        for pid in workers + [server.process.pid]:  # as systemd signals the whole group of processes
            os.kill(pid, signal.SIGTERM)
        self.assertEqual(server.process.wait(timeout=STOP_SECONDS), 0)
        text = server.text()
        self.assertEqual([text.count(f"mcp_server worker {n}: SIGTERM: stopping") for n in (1, 2)], [1, 1], text)
        self.assertNotIn("Traceback", text)

    def test_workers_whose_server_is_killed_stop_by_themselves_and_free_the_port(self):
        server = served(self)
        workers = workers_of(server.process.pid)
        server.process.kill()
        server.process.wait(timeout=STOP_SECONDS)
        self.assertTrue(until(lambda: all(ended(pid) for pid in workers), 10, every=0.05), workers)
        self.assertEqual([server.text().count(f"mcp_server worker {n}: SIGTERM: stopping") for n in (1, 2)], [1, 1])
        listener = http_workers.listen("127.0.0.1", server.port, 8)  # OSError if a worker still held it
        listener.close()

    def test_a_worker_killed_is_replaced_and_the_service_goes_on(self):
        server = served(self)
        first, second = workers_of(server.process.pid)
        os.kill(second, signal.SIGKILL)
        # the killed worker may still be listed a moment (a zombie until its parent reaps it): wait for a new one
        self.assertTrue(until(lambda: len(set(workers_of(server.process.pid)) - {first, second}) == 1, 20, 0.05))
        replacement = (set(workers_of(server.process.pid)) - {first, second}).pop()
        self.assertTrue(until(lambda: second not in workers_of(server.process.pid), 20, 0.05), "the killed one reaped")
        self.addCleanup(kill_left, [replacement])
        self.assertIsNone(server.process.poll(), "the server goes on")
        self.assertRegex(server.text(), rf"\nmcp_server: worker ([12]) \(pid {second}\) was killed by signal 9; a new "
                         rf"worker \1 \(pid {replacement}\) serves in its place\n")
        for _ in range(20):  # new connections, either worker: every one answered
            agent = Agent(server.port)
            try:
                self.assertIn("results", agent.call("search_knowledge_base", {"knowledge_base_id": "kb-support",
                                                                              "query": "password"}))
            finally:
                agent.close()
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(timeout=STOP_SECONDS), 0)
        self.assertTrue(until(lambda: gone(first) and gone(replacement), 10, 0.05))

    @unittest.skipUnless(os.path.isdir("/proc/self/fd"), "finds the worker holding a connection in /proc")
    def test_a_worker_killed_mid_request_ends_its_connection_unanswered_and_a_new_one_is_answered(self):
        server = served(self)
        workers = workers_of(server.process.pid)
        client = socket.create_connection(("127.0.0.1", server.port), timeout=STOP_SECONDS)
        self.addCleanup(client.close)
        client.sendall(head_of(PING) + PING[:5])  # a request under way: its body still to come
        self.assertTrue(until(lambda: holder(client, workers) is not None, 20, 0.05))
        killed = holder(client, workers)
        os.kill(killed, signal.SIGKILL)
        try:
            self.assertEqual(client.recv(1), b"")  # its end closed by the kernel: no byte of any answer
        except ConnectionResetError:  # or reset, when the worker had bytes of it unread
            pass
        self.assertTrue(until(lambda: f"(pid {killed}) was killed by signal 9; a new worker" in server.text(), 20))
        with socket.create_connection(("127.0.0.1", server.port), timeout=STOP_SECONDS) as again:
            again.sendall(head_of(PING) + PING)  # sent again: whichever worker takes it answers
            status, _, body = response_of(read_response(again))
        self.assertEqual((status, body["result"]), (200, {}))
        server.process.send_signal(signal.SIGTERM)
        self.assertEqual(server.process.wait(timeout=STOP_SECONDS), 0)

    def test_the_port_is_free_again_once_the_server_stopped(self):
        server = served(self)
        server.stop()
        listener = http_workers.listen("127.0.0.1", server.port, 8)  # OSError if a worker still held it
        listener.close()


class RefusedTest(unittest.TestCase):
    def test_what_several_processes_cannot_serve_is_refused_in_one_line(self):
        with tempfile.TemporaryDirectory() as folder:
            kb_db = os.path.join(folder, "kb.db")
            assert_server_refuses(self, {
                ("--demo", "--workers", "2"): "--workers acts on the HTTP transport: add --http",
                ("--demo", "--http", "0", "--workers", "2"): "give --kb-db and --records-db a file",
                ("--demo", "--http", "0", "--kb-db", kb_db, "--workers", "2"): "give --records-db a file",
                ("--demo", "--http", "0", "--kb-db", kb_db, "--records-db", ":memory:", "--workers", "2"):
                    "give --records-db a file",
                ("--demo", "--http", "0", "--workers", "0"): "is not a whole number of workers from 1 to 64",
                ("--demo", "--http", "0", "--workers", "65"): "is not a whole number of workers from 1 to 64",
                ("--demo", "--http", "0", "--workers", "two"): "is not a whole number of workers from 1 to 64",
            })
            self.assertEqual(os.listdir(folder), [], "nothing is written for refused options")

    def test_a_refused_worker_count_leaves_the_database_files_as_they_were(self):
        with tempfile.TemporaryDirectory() as folder:
            kb_db = os.path.join(folder, "kb.db")
            with kb_store.connect(kb_db):
                pass
            before = {name: read_bytes(os.path.join(folder, name)) for name in os.listdir(folder)}
            assert_server_refuses(self, {
                ("--demo", "--http", "0", "--kb-db", kb_db, "--workers", "2"): "give --records-db a file",
                ("--demo", "--http", "0", "--kb-db", kb_db, "--records-db", os.path.join(folder, "r.db"),
                 "--workers", "65"): "is not a whole number of workers from 1 to 64"})
            self.assertEqual({name: read_bytes(os.path.join(folder, name)) for name in os.listdir(folder)}, before)

    def test_a_platform_without_fork_is_told_to_run_servers_behind_a_balancer(self):
        with tempfile.TemporaryDirectory() as folder, mock.patch.object(http_workers, "can_fork", lambda: False):
            kb_db, records_db = os.path.join(folder, "kb.db"), os.path.join(folder, "records.db")
            assert_server_refuses(self, {("--demo", "--http", "0", "--kb-db", kb_db, "--records-db", records_db,
                                          "--workers", "2"): "cannot fork processes (Windows)"})
            self.assertEqual(os.listdir(folder), [])

    def test_one_worker_is_the_single_process_server(self):
        options = parse_options(["--demo", "--http", "0"])
        self.assertEqual(options.workers, 1)


class StopSignalTest(unittest.TestCase):
    """A signal that stops a server only marks its Stop (command_line.stop_on_signals): nothing is raised where it
    lands, so it cannot land between an accept and its connection's thread."""

    def setUp(self):
        for number in (signal.SIGTERM, signal.SIGINT):
            self.addCleanup(signal.signal, number, signal.getsignal(number))
        self.stop = streamable_http.Stop()
        self.addCleanup(self.stop.close)

    def test_a_worker_stopping_ignores_the_sigterms_that_follow(self):
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a worker
        stopped = command_line.stop_on_signals(self.stop, (signal.SIGTERM, signal.SIGINT))
        signal.raise_signal(signal.SIGTERM)  # handled before this returns; before the fix, SystemExit here
        self.assertEqual((self.stop.reason, self.stop.hurried), ("SIGTERM", False))
        signal.raise_signal(signal.SIGTERM)
        self.assertEqual((self.stop.reason, self.stop.hurried), ("SIGTERM", False))
        stopped()
        self.assertIs(signal.getsignal(signal.SIGTERM), signal.SIG_IGN)

    def test_a_ctrl_c_ignored_already_stays_ignored_as_in_a_worker(self):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stopped = command_line.stop_on_signals(self.stop, (signal.SIGTERM, signal.SIGINT))
        signal.raise_signal(signal.SIGINT)
        self.assertIsNone(self.stop.reason)
        stopped()
        self.assertIs(signal.getsignal(signal.SIGINT), signal.SIG_IGN)

    def test_a_ctrl_c_after_the_stop_ends_its_grace_and_raises_again_once_stopped(self):
        signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a server in the foreground
        stopped = command_line.stop_on_signals(self.stop, (signal.SIGTERM, signal.SIGINT))
        signal.raise_signal(signal.SIGTERM)
        signal.raise_signal(signal.SIGINT)
        self.assertEqual((self.stop.reason, self.stop.hurried), ("SIGTERM", True))
        stopped()
        with self.assertRaises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)


class OpenOnlyTest(unittest.TestCase):
    """A worker opens the databases its parent filled: it neither writes the demo nor reads the sources again."""

    def test_a_worker_writes_nothing_where_its_parent_would_write_the_demo(self):
        with tempfile.TemporaryDirectory() as folder:
            kb_db, records_db = os.path.join(folder, "kb.db"), os.path.join(folder, "records.db")
            options = parse_options(["--demo", "--http", "0", "--kb-db", kb_db, "--records-db", records_db,
                                                "--workers", "2"])
            open_workspace(options, fill=False).close()
            with kb_store.connect(kb_db) as kb, record_store.connect(records_db) as records:
                self.assertFalse(kb.has_knowledge_base(demo.KNOWLEDGE_BASE))
                self.assertFalse(records.has_channel(demo.CHANNEL))

    def test_a_worker_does_not_read_the_sources_again(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "a.md"), "w", encoding="utf-8") as article:
                article.write("# A\nText.\n")  # a folder that holds no .md file is refused with the options
            options = parse_options(["--http", "0", "--kb-db", os.path.join(folder, "kb.db"),
                                                "--records-db", os.path.join(folder, "records.db"),
                                                "--kb-from-dir", folder, "--workers", "2"])
            with mock.patch.object(own_content, "read_content", side_effect=AssertionError("read")):
                workspace = open_workspace(options, fill=False)
            workspace.close()


@unittest.skipUnless(http_workers.can_fork(), "needs os.fork")
class WorkersUnitTest(unittest.TestCase):
    """http_workers alone, on workers that are plain functions."""

    def test_a_worker_that_ends_before_it_is_ready_is_named_and_the_others_stopped(self):
        listener = http_workers.listen("127.0.0.1", 0, 8)
        pool = http_workers.Workers(listener, 2)

        def work(number, ready):
            if number == 2:
                return 3
            ready()
            time.sleep(STOP_SECONDS)
            return 0

        pool.start(work)
        try:
            with self.assertRaisesRegex(http_workers.WorkerEnded, r"^worker 2 \(pid \d+\) ended with status 3: "):
                pool.wait_ready()
        finally:
            pool.stop()
        self.assertEqual(pool.numbers, {})

    def test_workers_that_keep_ending_are_replaced_until_the_sixth_within_a_minute_stops_the_server(self):
        listener = http_workers.listen("127.0.0.1", 0, 8)
        pool = http_workers.Workers(listener, 2, stop_seconds=10, backlog=77)

        def work(number, ready):
            ready()
            if number == 2:
                return 4
            time.sleep(STOP_SECONDS)
            return 0

        told = []
        pool.start(work)
        try:
            pool.wait_ready()
            with self.assertRaisesRegex(http_workers.WorkerEnded, r"^worker 2 \(pid \d+\) ended with status 4, the "
                                        r"6th worker to end within 60 s: the server stops$"), \
                    mock.patch.object(socket.socket, "listen") as listen:
                pool.supervise(work, told.append)
        finally:
            pool.stop()
        self.assertEqual(len(told), 5)
        self.assertEqual(listen.call_args_list, [mock.call(77)] * 5)  # its backlog back, which a stop shrinks
        self.assertRegex(told[0], r"^worker 2 \(pid \d+\) ended with status 4; a new worker 2 \(pid \d+\) serves in "
                         r"its place$")
        self.assertEqual(pool.numbers, {})

    def test_kill_ends_at_once_workers_that_a_stop_would_wait_for(self):
        listener = http_workers.listen("127.0.0.1", 0, 8)
        self.addCleanup(listener.close)  # kill() leaves it, as the command's stop() has let it go already
        pool = http_workers.Workers(listener, 2, stop_seconds=600)  # a stop would wait ten minutes for them

        def work(number, ready):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # deaf to the stop: only SIGKILL ends them
            ready()
            time.sleep(600)
            return 0

        pool.start(work)
        pids = list(pool.numbers)
        try:
            pool.wait_ready()
            pool.kill()
        finally:
            for pid in pids:  # whatever happened, no worker outlives the test
                http_workers.send(pid, signal.SIGKILL)
        self.assertEqual(pool.numbers, {})
        for pid in pids:
            with self.assertRaises(ChildProcessError):  # reaped by kill(): no zombie left
                os.waitpid(pid, os.WNOHANG)
        self.assertEqual(pool.lifeline_write, -1)


if __name__ == "__main__":
    unittest.main()
