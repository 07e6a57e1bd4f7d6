"""Several processes on one store file: compare-and-swap forms one chain, one key writes once, a killed writer
leaves nothing. One set of cases; each store's test module runs it with its own side (tests/store_worker.py).
Under make postgres the same cases run on a PostgreSQL database, where the held lock is a row lock."""

import json
import os
import select
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from typing import Any

from tests import postgres_helpers
from tests.helpers import ROOT, snapshot

WORKER = os.path.join(ROOT, "tests", "store_worker.py")
WRITERS = 4
SUCCESSES_EACH = 12
SECONDS = 60


class ConcurrencyCases:
    """Mixed into a unittest.TestCase that sets KIND, SIDE, and defines make_store(path) and events(store, after)."""

    KIND = ""
    SIDE: Any = None  # KnowledgeBaseSide or RecordSide of tests/store_worker.py
    VERSION_KEY = ""  # what an event calls the version

    def make_store(self, path):
        """(store, subject): a store on `path` holding the article or item the workers edit."""
        raise NotImplementedError

    def events(self, store, after=0):
        raise NotImplementedError

    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.path = postgres_helpers.new_database() if postgres_helpers.on_postgres() else \
            os.path.join(folder.name, "store.db")
        self.store, self.subject = self.make_store(self.path)
        self.addCleanup(self.store.close)

    def run_workers(self, argument_lists):
        """Start one worker per argument list, wait for all (bounded), return each one's stdout lines."""
        processes = [subprocess.Popen([sys.executable, WORKER, self.KIND, *map(str, arguments)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for arguments in argument_lists]
        outputs = []
        for process in processes:
            out, err = process.communicate(timeout=SECONDS + 30)
            if process.returncode != 0:
                raise AssertionError(f"worker failed: {err}")
            outputs.append([json.loads(line) for line in out.splitlines()])
        return outputs

    def read(self, store=None):
        return self.SIDE.read(store or self.store, self.subject)

    def edit(self, version, key, content="New text.", store=None):
        return self.SIDE.edit(store or self.store, self.subject, version, key, content)

    def test_concurrent_writers_form_one_chain_of_versions(self):
        start = self.read()["version"]
        sequence_before = len(self.events(self.store))
        start_at = time.time() + 1.5  # all writers start together, after their interpreters are up
        outputs = self.run_workers([("cas", self.path, self.subject, f"w{n}", SUCCESSES_EACH, SECONDS, start_at)
                                    for n in range(WRITERS)])
        attempts = [line for lines in outputs for line in lines]
        wins = [a for a in attempts if "error" not in a["result"]]
        errors = {a["result"]["error"] for a in attempts if "error" in a["result"]}
        self.assertLessEqual(errors, {"version_conflict"}, "losers must get version_conflict, never busy")
        self.assertEqual(len(wins), WRITERS * SUCCESSES_EACH)

        # each expected version was used by exactly one success, and the successes chain from the start
        successor = {}
        for win in wins:
            self.assertNotIn(win["expected"], successor, "two writes succeeded from one version")
            successor[win["expected"]] = (win["saved"], win["content"])
        chain, version, content = [], start, None
        while version in successor:
            version, content = successor[version]
            chain.append(version)
        self.assertEqual(len(chain), len(wins), "a success is missing from the chain: a lost update")
        self.assertEqual(self.read(), {"version": version, "content": content})

        # one event per success, gap-free, in chain order, each with its write's version
        events = self.events(self.store, after=sequence_before)
        self.assertEqual([e["sequence"] for e in events],
                         list(range(sequence_before + 1, sequence_before + len(wins) + 1)))
        self.assertEqual([e[self.VERSION_KEY] for e in events], chain)
        self.assertEqual({e["type"] for e in events}, {"updated"})

    def test_one_key_sent_by_several_processes_at_once_writes_once(self):
        version = self.read()["version"]
        events_before = len(self.events(self.store))
        start_at = time.time() + 1.5
        results = [lines[0] for lines in self.run_workers([("same-key", self.path, self.subject, version, start_at)
                                                           for _ in range(WRITERS)])]
        self.assertEqual(sorted(r["replay"] for r in results), [False] + [True] * (WRITERS - 1))
        self.assertEqual(len({json.dumps(dict(r, replay=None)) for r in results}), 1)
        self.assertEqual(len(self.events(self.store)), events_before + 1)

    def hold_write_lock(self, seconds):
        """Another connection takes the write lock now (on PostgreSQL: the edited row's) and releases it after
        `seconds`."""
        if postgres_helpers.on_postgres():
            postgres_helpers.hold_row_lock(self, self.path, self.SIDE.TABLE, self.subject, seconds)
            return
        other = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        release = threading.Timer(seconds, lambda: (other.execute("COMMIT"), other.close()))
        release.start()
        self.addCleanup(release.join)

    def test_a_write_waits_for_a_brief_lock_and_succeeds(self):
        version = self.read()["version"]
        self.hold_write_lock(0.3)
        self.assertEqual(self.edit(version, "k1")["replay"], False)

    def test_a_lock_held_past_the_busy_timeout_is_a_busy_rejection_that_writes_nothing(self):
        store = self.SIDE.connect(self.path, busy_timeout=0.1)
        self.addCleanup(store.close)
        version = self.read(store)["version"]
        before = snapshot(store)
        self.hold_write_lock(0.6)
        result = self.edit(version, "k1", store=store)
        self.assertEqual(result["error"], "busy")
        self.assertIn("same idempotency_key", result["message"])
        time.sleep(0.7)
        self.assertEqual(snapshot(store), before)
        self.assertEqual(self.edit(version, "k1", store=store)["replay"], False)

    @unittest.skipUnless(hasattr(signal, "SIGKILL"), "needs SIGKILL")
    def test_a_writer_killed_inside_its_transaction_leaves_a_sound_database_without_the_edit(self):
        version = self.read()["version"]
        before, events_before = snapshot(self.store), len(self.events(self.store))
        worker = subprocess.Popen([sys.executable, WORKER, self.KIND, "crash", self.path, self.subject, str(version)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready, _, _ = select.select([worker.stdout], [], [], 30)
            self.assertTrue(ready, "the worker never reached its transaction")
            self.assertEqual(worker.stdout.readline().strip(), "inside")
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.communicate(timeout=30)
        self.assertEqual(worker.returncode, -signal.SIGKILL)

        survivor = self.SIDE.connect(self.path)
        self.addCleanup(survivor.close)
        if not postgres_helpers.on_postgres():  # a server's own recovery; sqlite's file must be checked
            self.assertEqual(survivor.database.connection.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        self.assertEqual(snapshot(survivor), before)
        retry = self.edit(version, "crash-key", "Never committed.", store=survivor)
        self.assertEqual(retry["replay"], False)
        self.assertEqual(self.edit(version, "crash-key", "Never committed.", store=survivor), dict(retry, replay=True))
        self.assertEqual(len(self.events(survivor)), events_before + 1)
