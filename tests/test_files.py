"""Database files: each store keeps its own, refuses any other with one line, serves read-only files, says how
durable a write is."""

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import unittest

from osfoundry_tools.content import workload
from osfoundry_tools.engines import database
from osfoundry_tools.engines.database import UnusableFile
from osfoundry_tools.server.options import same_file
from osfoundry_tools.stores import kb_store, record_store
from tests import helpers
from tests.helpers import KB, ROOT, support_store
from tests.record_helpers import BUGS, bug_store


def file_bytes(path):
    with open(path, "rb") as file:
        return file.read()


# What the knowledge-base store imports: copied where an unprivileged user may import them.


def copy_kb_store(folder):
    """The root kb_store.py and the package it re-exports, copied into `folder` (its compiled files left out)."""
    shutil.copy(os.path.join(ROOT, "kb_store.py"), folder)
    shutil.copytree(os.path.join(ROOT, "osfoundry_tools"), os.path.join(folder, "osfoundry_tools"),
                    ignore=shutil.ignore_patterns("__pycache__"))

class Folder(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.folder)

    def path(self, name):
        return os.path.join(self.folder, name)

    def kb_file(self, name="kb.db"):
        store, _, ids = support_store(self.path(name))
        store.close()
        return self.path(name), ids

    def records_file(self, name="records.db"):
        store, _, ids = bug_store(self.path(name))
        store.close()
        return self.path(name), ids


class OneStoreOneFileTest(Folder):
    def test_each_store_refuses_the_others_file_in_one_line_and_leaves_it_as_it_was(self):
        kb_path, _ = self.kb_file()
        records_path, _ = self.records_file()
        for opener, path, other in ((record_store.connect, kb_path, "knowledge-base"),
                                    (kb_store.connect, records_path, "record-channel")):
            before = file_bytes(path)
            with self.subTest(path=path), self.assertRaisesRegex(UnusableFile, f"is a {other} database; give"):
                opener(path)
            self.assertEqual(file_bytes(path), before)

    def test_an_unmarked_file_holding_both_stores_tables_is_refused_by_both(self):
        path, _ = self.kb_file()
        connection = sqlite3.connect(path)
        connection.executescript(record_store.SCHEMA + "PRAGMA application_id = 0; PRAGMA user_version = 0;")
        connection.close()
        for opener, other in ((kb_store.connect, "record-channel"), (record_store.connect, "knowledge-base")):
            with self.subTest(store=other), self.assertRaisesRegex(UnusableFile, f"holds {other} tables"):
                opener(path)

    def test_a_file_of_tables_neither_store_knows_is_refused(self):
        path = self.path("other.db")
        connection = sqlite3.connect(path)
        connection.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
        connection.close()
        for opener in (kb_store.connect, record_store.connect):
            with self.subTest(opener=opener.__module__):
                with self.assertRaisesRegex(UnusableFile, "holds tables this store does not know \\(invoices\\)"):
                    opener(path)

    def test_a_file_another_store_marks_between_the_first_look_and_the_write_is_still_refused(self):
        records_path, _ = self.records_file()
        before = file_bytes(records_path)
        first_look = database.Database._marks_read
        database.Database._marks_read = lambda self: (0, 0, set())  # as the file was an instant before
        try:
            with self.assertRaisesRegex(UnusableFile, "is a record-channel database; give"):
                kb_store.connect(records_path)
        finally:
            database.Database._marks_read = first_look
        self.assertEqual(file_bytes(records_path), before)

    def test_processes_opening_one_new_file_at_once_share_it_only_if_they_are_one_store(self):
        script = ("import sys, time, kb_store, record_store\n"
                  "store = kb_store if sys.argv[1] == 'kb' else record_store\n"
                  "while time.time() < float(sys.argv[3]): pass\n"
                  "try:\n    store.connect(sys.argv[2]).close(); print('opened')\n"
                  "except Exception as refused:\n    print(type(refused).__name__)\n")
        for trial, (kinds, expected) in enumerate(((("kb", "records"), ["UnusableFile", "opened"]),
                                                   (("kb", "records"), ["UnusableFile", "opened"]),
                                                   (("records", "records"), ["opened", "opened"]),
                                                   (("kb", "kb"), ["opened", "opened"]))):
            path, start = self.path(f"race-{trial}.db"), time.time() + 1.0
            racers = [subprocess.Popen([sys.executable, "-c", script, kind, path, str(start)], cwd=ROOT,
                                       stdout=subprocess.PIPE, text=True) for kind in kinds]
            outcomes = sorted(racer.communicate(timeout=60)[0].strip() for racer in racers)
            with self.subTest(trial=trial, kinds=kinds):
                self.assertEqual(outcomes, expected)

    def test_a_file_a_newer_version_wrote_is_refused(self):
        path, _ = self.kb_file()
        connection = sqlite3.connect(path)
        connection.execute(f"PRAGMA user_version = {kb_store.LAYOUT.version + 1}")
        connection.close()
        with self.assertRaisesRegex(UnusableFile, "newer version"):
            kb_store.connect(path)

    def test_a_file_that_is_no_database_is_refused(self):
        path = self.path("notes.txt")
        with open(path, "w") as file:
            file.write("these are notes, not a database " * 200)
        with self.assertRaisesRegex(UnusableFile, "cannot be read as a database"):
            record_store.connect(path)

    def test_an_empty_file_becomes_a_store_and_is_marked_as_its_own(self):
        path = self.path("empty.db")
        open(path, "w").close()
        with record_store.connect(path) as store:
            marks = [store.database.connection.execute(f"PRAGMA {name}").fetchone()[0]
                     for name in ("application_id", "user_version")]
        self.assertEqual(marks, [record_store.LAYOUT.application_id, record_store.LAYOUT.version])

    def test_events_of_a_channel_and_a_knowledge_base_with_one_id_never_mix(self):
        kb_path, _ = self.kb_file()
        with record_store.connect(self.path("records.db")) as records:
            records.create_channel(KB, "Same ID as the knowledge base", workload.BUG_TRACKER_FIELDS)
            records.create_item(KB, {"ticket": "T-1", "title": "t", "status": "new"})
            events = helpers.poll_events(records, "record", KB)
        self.assertEqual([type(e["version"]) for e in events], [int])


def unprivileged_python(folder):
    """A Python 3.9+ and the subprocess options that run it as a user for whom file modes count.

    root may write any file, so as root the test runs as nobody, with an interpreter nobody may start.
    """
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return sys.executable, {}
    if sys.version_info < (3, 9):
        raise unittest.SkipTest("dropping to another user needs Python 3.9's subprocess user=")
    options = {"user": 65534, "group": 65534}
    for python in (sys.executable, shutil.which("python3"), "/usr/bin/python3", "/usr/local/bin/python3"):
        if not python:
            continue
        try:
            probe = subprocess.run([python, "-c", "import sys; print(sys.version_info >= (3, 9))"], cwd=folder,
                                   capture_output=True, text=True, timeout=30, **options)
        except OSError:
            continue
        if probe.stdout.strip() == "True":
            return python, options
    raise unittest.SkipTest("no Python 3.9+ here that the user nobody may start")


class ReadOnlyTest(Folder):
    def test_a_read_only_store_answers_reads_and_refuses_every_write_without_changing_the_file(self):
        kb_path, ids = self.kb_file()
        records_path, items = self.records_file()
        before = (file_bytes(kb_path), file_bytes(records_path))
        with kb_store.connect(kb_path, read_only=True) as kb, record_store.connect(records_path, read_only=True) as rc:
            version = helpers.read(kb, ids[0])["updated_at"]
            self.assertEqual(kb.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": "reset"})
                             ["results"][0]["article_id"], ids[0])
            self.assertEqual(len(helpers.poll_all(kb)), 5)
            edit = helpers.edit(kb, ids[0], version, "k")
            self.assertEqual(edit["error"], "read_only")
            self.assertIn("reads still work", edit["message"])
            page = rc.call_tool("list_record_items", {"record_channel_id": BUGS})
            self.assertEqual(len(page["items"]), 3)
            refused = rc.call_tool("edit_record_item", {"record_channel_id": BUGS, "item_id": items[0],
                                                         "values": {"points": 3}, "expected_version": 1,
                                                         "idempotency_key": "k"})
            self.assertEqual(refused["error"], "read_only")
            for write in (lambda: kb.save_article(KB, ids[0], content="x"), lambda: kb.add_views(KB, ids[0], 1),
                          lambda: rc.create_item(BUGS, {"ticket": "T", "title": "t", "status": "new"})):
                with self.assertRaises(record_store.Rejection) as caught:
                    write()
                self.assertEqual(caught.exception.code, "read_only")
        self.assertEqual((file_bytes(kb_path), file_bytes(records_path)), before)

    def test_a_file_the_process_may_not_write_opens_read_only_by_itself(self):
        kb_path, ids = self.kb_file()
        os.chmod(kb_path, 0o444)
        os.chmod(self.folder, 0o777)  # sqlite keeps its shared-memory file beside the database
        copy_kb_store(self.folder)  # a copy any user may import
        script = ("import kb_store, sys; s = kb_store.connect(sys.argv[1]); "
                  "print(s.database.read_only, s.call_tool('read_knowledge_article', {'knowledge_base_id': "
                  "'kb-support', 'article_id': sys.argv[2]})['title'], s.call_tool('edit_knowledge_article', "
                  "{'knowledge_base_id': 'kb-support', 'article_id': sys.argv[2], 'content': 'x', "
                  "'expected_version': '2026-11-09T09:00:00Z', 'idempotency_key': 'k'})['error'])")
        python, options = unprivileged_python(self.folder)
        done = subprocess.run([python, "-c", script, kb_path, ids[0]], cwd=self.folder, capture_output=True,
                              text=True, timeout=60, **options)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["True", "Reset", "a", "password", "read_only"])

    def test_a_read_only_file_in_a_folder_no_one_may_write_is_served_and_left_as_it_was(self):
        kb_path, ids = self.kb_file()
        copy_kb_store(self.folder)
        os.chmod(kb_path, 0o444)
        os.chmod(self.folder, 0o555)  # no shared-memory file can be made beside the database
        self.addCleanup(os.chmod, self.folder, 0o755)
        names = sorted(os.listdir(self.folder))
        script = ("import sys; sys.dont_write_bytecode = True; import kb_store; s = kb_store.connect(sys.argv[1]); "
                  "print(s.database.read_only, s.call_tool('search_knowledge_base', {'knowledge_base_id': "
                  "'kb-support', 'query': 'reset'})['results'][0]['article_id'])")
        python, options = unprivileged_python(self.folder)
        done = subprocess.run([python, "-c", script, kb_path], cwd=self.folder, capture_output=True, text=True,
                              timeout=60, **options)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.split(), ["True", ids[0]])
        self.assertEqual(sorted(os.listdir(self.folder)), names)

    def test_an_empty_or_missing_file_cannot_be_served_read_only(self):
        with self.assertRaisesRegex(UnusableFile, "no file to read"):
            kb_store.connect(self.path("missing.db"), read_only=True)
        open(self.path("empty.db"), "w").close()
        with self.assertRaisesRegex(UnusableFile, "is empty, but it is read-only"):
            record_store.connect(self.path("empty.db"), read_only=True)


class DurabilityTest(Folder):
    def test_files_are_durable_by_default_and_normal_on_request(self):
        synchronous = {}
        for durability in ("full", "normal", None):
            options = {} if durability is None else {"durability": durability}
            with kb_store.connect(self.path(f"{durability}.db"), **options) as store:
                synchronous[durability] = store.database.connection.execute("PRAGMA synchronous").fetchone()[0]
        self.assertEqual(synchronous, {"full": 2, "normal": 1, None: 2})

    def test_an_unknown_durability_is_refused(self):
        with self.assertRaisesRegex(ValueError, "durability must be one of full, normal"):
            record_store.connect(self.path("x.db"), durability="fast")
        self.assertFalse(os.path.exists(self.path("x.db")))


class ServerFilesTest(Folder):
    def run_server(self, *argv):
        return subprocess.run([sys.executable, "mcp_server.py", *argv], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, input="")

    def test_a_hard_link_to_one_file_is_not_two_databases(self):
        kb_path, _ = self.kb_file()
        os.link(kb_path, self.path("linked.db"))
        self.assertTrue(same_file(kb_path, self.path("linked.db")))
        done = self.run_server("--kb-db", kb_path, "--records-db", self.path("linked.db"))
        self.assertEqual(done.returncode, 2)
        self.assertRegex(done.stderr, r"^mcp_server.py: error: --kb-db and --records-db must be different files")

    def test_another_stores_file_ends_the_server_with_one_line(self):
        kb_path, _ = self.kb_file()
        done = self.run_server("--kb-db", self.path("new-kb.db"), "--records-db", kb_path)
        self.assertEqual(done.returncode, 2)
        self.assertRegex(done.stderr, r"mcp_server.py: error: \S+ is a knowledge-base database; give the "
                                      r"record-channel store a file of its own\n$")

    def test_read_only_serves_existing_files_only(self):
        done = self.run_server("--demo", "--read-only")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--read-only serves existing files", done.stderr)


if __name__ == "__main__":
    unittest.main()
