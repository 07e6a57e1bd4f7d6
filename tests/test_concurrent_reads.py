"""Reads side by side: over HTTP, each store of a file (or a PostgreSQL database) keeps connections for reads, and a
tool whose definition says readOnlyHint runs on one of them, beside the edits, which keep the workspace lock.

What must hold: every tool goes where its one definition says; a read sees every edit acknowledged before it began;
grants, callers and scopes answer exactly as on the store's own connection; closing the workspace closes every
connection; a reader that cannot be opened fails the start in one line. A store in memory keeps one connection, so
its reads take the lock as before. Under make postgres the same cases run on a PostgreSQL database.
"""

import dataclasses
import os
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest
import urllib.parse
from unittest import mock

from osfoundry_tools.content import demo
from osfoundry_tools.core import rejections
from osfoundry_tools.core.tools import SHARED_WRITE, WRITE_SCOPE
from osfoundry_tools.engines import database, opening
from osfoundry_tools.server import routing, tokens
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_store, resource_events
from tests import postgres_helpers
from tests.helpers import ROOT
from tests.postgres_helpers import needs_postgres, sqlite_only

KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
WAIT = 30  # seconds a thread that must finish is given: a bound, never a measure
EDITS = 25  # acknowledged edits of each store while the readers read
SEARCH = {"knowledge_base_id": KB, "query": "card"}


def locations(folder):
    """(--kb-db, --records-db): two WAL files of a temporary folder, or one new PostgreSQL database for both."""
    if postgres_helpers.on_postgres():
        url = postgres_helpers.new_database()
        return url, url
    return os.path.join(folder, "kb.db"), os.path.join(folder, "records.db")


def open_served(test, *extra):
    """The demo workspace as `mcp_server.py --http` opens it (readers and all), closed when the test ends."""
    folder = tempfile.TemporaryDirectory()
    test.addCleanup(folder.cleanup)
    kb_db, records_db = locations(folder.name)
    options = parse_options(["--demo", "--kb-db", kb_db, "--records-db", records_db,
                                        "--http", "127.0.0.1:0", *extra])
    workspace = open_workspace(options)
    test.addCleanup(workspace.close)
    return workspace


def finished(test, call):
    """Run `call` in a thread; the thread, started (join it with a timeout, then look at .result). It is joined
    again before the test's earlier cleanups close what it uses, even when the test fails."""
    def run():
        thread.result = call()
    thread = threading.Thread(target=run, daemon=True)
    thread.result = None
    thread.start()
    test.addCleanup(thread.join, WAIT)
    return thread


def first_item(tools):
    return tools.call("list_record_items", {"record_channel_id": CHANNEL, "limit": 1})["items"][0]["item_id"]


def first_article(tools):
    return tools.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                               "limit": 1})["events"][0]["article_id"]


def read_calls(article, item):
    """One call of each read tool, on each store."""
    return [("search_knowledge_base", {"knowledge_base_id": KB, "query": "password"}),
            ("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article}),
            ("list_record_items", {"record_channel_id": CHANNEL, "limit": 5}),
            ("read_record_item", {"record_channel_id": CHANNEL, "item_id": item}),
            ("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB}),
            ("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL})]


def edit_article(tools, article, key, grant=None):
    version = tools.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article}, grant)
    return tools.call("edit_knowledge_article", {"knowledge_base_id": KB, "article_id": article, "content": key,
                                                 "expected_version": version.get("updated_at", "2026-01-01T00:00:00Z"),
                                                 "idempotency_key": key}, grant)


def edit_item(tools, item, key, grant=None):
    version = tools.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item}, grant)
    return tools.call("edit_record_item", {"record_channel_id": CHANNEL, "item_id": item, "values": {"title": key},
                                           "expected_version": version.get("version", 1), "idempotency_key": key},
                      grant)


class RoutingTest(unittest.TestCase):
    """Where each call runs, decided by the tool's one definition."""

    def setUp(self):
        self.workspace = open_served(self)
        self.tools = self.workspace.tools()
        self.article, self.item = first_article(self.tools), first_item(self.tools)

    def test_the_reads_are_the_tools_whose_listed_annotations_say_read_only(self):
        listed = {tool["name"]: tool["annotations"]["readOnlyHint"] for tool in self.tools.listing()}
        self.assertEqual(self.tools.reads, {name for name, read_only in listed.items() if read_only})
        self.assertEqual(self.tools.reads, {"search_knowledge_base", "read_knowledge_article", "list_record_items",
                                            "read_record_item", "poll_resource_events"})
        self.assertEqual(set(self.workspace.readers), {"knowledge_base", "record"})

    def test_reads_are_answered_while_an_edit_holds_the_lock_and_edits_wait_for_it(self):
        with self.workspace.lock:  # as an edit in progress holds it
            reads = finished(self, lambda: [self.tools.call(name, arguments)
                                      for name, arguments in read_calls(self.article, self.item)])
            reads.join(WAIT)
            self.assertFalse(reads.is_alive(), "a read waited for the workspace lock")
            self.assertFalse(any("error" in answer for answer in reads.result), reads.result)
            edit = finished(self, lambda: edit_item(self.tools, self.item, "while-locked"))
            edit.join(0.2)
            self.assertTrue(edit.is_alive(), "an edit ran without the workspace lock")
        edit.join(WAIT)
        self.assertEqual(edit.result["version"], 2)

    def test_reads_are_answered_while_an_edit_waits_for_another_writer_of_the_file(self):
        release = self.hold_article()
        edit = finished(self, lambda: edit_article(self.tools, self.article, "after-the-other-writer"))
        for _ in range(WAIT * 100):  # until the edit holds the workspace lock, waiting for the other writer
            if self.workspace.lock.locked():
                break
            threading.Event().wait(0.01)
        reads = finished(self, lambda: [self.tools.call(name, arguments)
                                  for name, arguments in read_calls(self.article, self.item)])
        reads.join(WAIT)
        self.assertFalse(reads.is_alive(), "a read waited for an edit that waits for another writer")
        self.assertTrue(edit.is_alive(), "the edit did not wait for the other writer")
        release()
        edit.join(WAIT)
        self.assertEqual(edit.result["replay"], False)

    def hold_article(self):
        """Another connection, as another process would, takes the knowledge base's write lock (on PostgreSQL, the
        article's row lock) until the function returned is called (or the test ends)."""
        path = self.workspace.stores["knowledge_base"].database.path
        if postgres_helpers.on_postgres():
            other = postgres_helpers.raw_connection(path)
            other.execute("BEGIN")
            other.execute("SELECT 1 FROM osfoundry_knowledge_base.articles WHERE knowledge_base_id = %s AND id = %s "
                          "FOR UPDATE", (KB, self.article))
        else:
            other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            other.execute("BEGIN IMMEDIATE")
        held = [other]

        def release():
            if held:
                held.pop().execute("COMMIT")
                other.close()
        self.addCleanup(release)
        return release

    def test_a_read_tool_defined_without_read_only_is_routed_as_an_edit(self):
        unsure = dataclasses.replace(kb_store.READ_KNOWLEDGE_ARTICLE, annotations=SHARED_WRITE)

        class Unsure(kb_store.KnowledgeBaseStore):
            TOOLS = (kb_store.SEARCH_KNOWLEDGE_BASE, unsure, kb_store.EDIT_KNOWLEDGE_ARTICLE,
                     resource_events.POLL_RESOURCE_EVENTS)

        path = self.workspace.stores["knowledge_base"].database.path
        store = opening.open_store(Unsure, path, kb_store.LAYOUT)
        self.addCleanup(store.close)
        stores = routing.by_resource_type([store])
        readers = routing.open_readers(stores, 1)
        self.addCleanup(readers["knowledge_base"].close)
        tools = routing.Tools(stores, threading.Lock(), readers)
        self.assertEqual(tools.reads, {"search_knowledge_base", "poll_resource_events"})
        with tools.lock:
            search = finished(self, lambda: tools.call("search_knowledge_base", SEARCH))
            search.join(WAIT)
            read = finished(self, lambda: tools.call("read_knowledge_article", {"knowledge_base_id": KB,
                                                                          "article_id": self.article}))
            read.join(0.2)
            self.assertFalse(search.is_alive())
            self.assertTrue(read.is_alive(), "a tool not defined read-only ran beside the lock")
        read.join(WAIT)
        self.assertEqual(read.result["article_id"], self.article)

    def test_a_reader_refuses_to_write(self):
        reader = self.workspace.readers["record"].readers[0].database
        with self.assertRaisesRegex(RuntimeError, "asked to write"):
            with reader.write():
                pass
        with self.assertRaises((reader.ENGINE_ERROR, rejections.Rejection)):  # sqlite's is a StorageError
            with reader.read() as connection:
                connection.execute("UPDATE items SET version = version + 1")
        self.assertEqual(self.tools.call("read_record_item", {"record_channel_id": CHANNEL,
                                                              "item_id": self.item})["version"], 1)


class FreshReadsTest(unittest.TestCase):
    """A read on a reader sees every edit acknowledged before it began, while edits go on."""

    def test_every_read_sees_at_least_the_last_edit_acknowledged_before_it(self):
        workspace = open_served(self)
        tools = workspace.tools()
        article, item = first_article(tools), first_item(tools)
        acknowledged = {"article": "", "item": 1, "events": 0}
        guard, stale, done = threading.Lock(), [], threading.Event()

        def edit():
            for n in range(EDITS):
                for kind, change in (("article", edit_article), ("item", edit_item)):
                    answer = change(tools, article if kind == "article" else item, f"edit-{kind}-{n}")
                    with guard:
                        acknowledged[kind] = answer["citation"]["updated_at"] if kind == "article" else \
                            answer["version"]
                        acknowledged["events"] += 1
            done.set()

        def read():
            while not done.is_set():
                with guard:
                    floor = dict(acknowledged)
                seen = tools.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article})
                shown = tools.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item})
                kb_log = tools.call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                                             "after_sequence": 82})  # the demo's own events
                item_log = tools.call("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL,
                                                               "after_sequence": demo.ITEMS})  # the demo's
                logged = len(kb_log["events"]) + len(item_log["events"])
                if seen["updated_at"] < floor["article"] or shown["version"] < floor["item"] or \
                        logged < floor["events"]:
                    stale.append((floor, seen["updated_at"], shown["version"], logged))

        readers = [threading.Thread(target=read, daemon=True) for _ in range(6)]  # more threads than readers
        for thread in readers:
            thread.start()
        editor = threading.Thread(target=edit, daemon=True)
        editor.start()
        editor.join(120)
        done.set()
        for thread in readers:
            thread.join(WAIT)
        self.assertFalse(editor.is_alive() or any(thread.is_alive() for thread in readers))
        self.assertEqual(stale, [])
        self.assertEqual(acknowledged["item"], 1 + EDITS)

    def test_a_read_waiting_for_a_reader_gets_one_while_others_read_without_pause(self):
        workspace = open_served(self)
        tools = workspace.tools()
        article, stop = first_article(tools), threading.Event()
        self.addCleanup(stop.set)

        def keep_reading():
            while not stop.is_set():
                tools.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article})

        for _ in range(2 * len(workspace.readers["knowledge_base"].readers)):  # each asks again at once
            threading.Thread(target=keep_reading, daemon=True).start()
        waiting = finished(self, lambda: [tools.call("search_knowledge_base", SEARCH) for _ in range(20)])
        waiting.join(WAIT)
        stop.set()
        self.assertFalse(waiting.is_alive(), "a read waited for ever while others took the readers in turn")
        self.assertTrue(all(answer["results"] for answer in waiting.result))

    @sqlite_only("the derived() dict is forgotten by PRAGMA data_version; PostgreSQL's keeps rows only ever added")
    def test_what_a_reader_derived_is_forgotten_once_another_connection_commits(self):
        workspace = open_served(self)
        records = workspace.stores["record"]
        reader = workspace.readers["record"].readers[0].database
        with reader.read():
            reader.derived()["kept"] = True
        with reader.read():
            self.assertIn("kept", reader.derived())  # nothing committed since
        records.edit_item(CHANNEL, records.item_ids(CHANNEL)[0], {"status": "triaged"})
        with reader.read():
            self.assertNotIn("kept", reader.derived())


class GrantsOnReadersTest(unittest.TestCase):
    """A token's caller, grant and scopes answer on a reader exactly as on the store's own connection."""

    GRANTS = (tokens.Grant.of("reader", {"knowledge_base": None, "record": None}),
              tokens.Grant.of("other-kb", {"knowledge_base": {"kb-other"}, "record": {CHANNEL}}),
              tokens.Grant.of("no-channel", {"knowledge_base": {KB}, "record": ()}, {WRITE_SCOPE}))

    def test_each_grant_reads_the_same_on_a_reader_as_under_the_lock(self):
        workspace = open_served(self)
        with_readers, under_lock = workspace.tools(), routing.Tools(workspace.stores, workspace.lock)
        article, item = first_article(with_readers), first_item(with_readers)
        for grant in self.GRANTS:
            for name, arguments in read_calls(article, item):
                with self.subTest(caller=grant.caller, tool=name):
                    self.assertEqual(with_readers.call(name, arguments, grant), under_lock.call(name, arguments, grant))
        refused = with_readers.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article},
                                    self.GRANTS[1])
        self.assertEqual(refused["error"], "not_found")
        self.assertEqual(edit_item(with_readers, item, "no-scope", self.GRANTS[0])["error"], "forbidden")
        self.assertEqual(edit_item(with_readers, item, "no-grant", self.GRANTS[2])["error"], "not_found")
        viewed = {key[0] for key in with_readers.views}
        self.assertTrue(viewed & set(workspace.readers["knowledge_base"].readers), "a reader served the grants")


class OpenAndCloseTest(unittest.TestCase):
    def test_closing_the_workspace_closes_every_connection_and_a_later_read_says_so(self):
        workspace = open_served(self)
        tools = workspace.tools()
        connections = [store.database for store in workspace.stores.values()] + [
            reader.database for readers in workspace.readers.values() for reader in readers.readers]
        self.assertEqual(len(connections), 2 + 2 * workspace.stores["record"].database.READERS)
        workspace.close()
        for opened in connections:
            with self.subTest(path=opened.path), self.assertRaises(opened.ENGINE_ERROR):  # closed
                opened.connection.execute("SELECT 1")
        answer = tools.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": "itm-00001"})
        self.assertEqual(answer["error"], "storage_error")
        self.assertIn("stopping", answer["message"])

    def test_a_reader_that_cannot_be_opened_fails_the_start_and_closes_what_was_opened(self):
        opened, real = [], database.Database.reader

        def second_fails(self):
            if len(opened) == 1:  # the first store's reader opened, the second's refused
                raise database.UnusableFile(f"{self.path} cannot be opened: unable to open database file")
            opened.append(real(self))
            return opened[-1]

        with mock.patch.object(database.Database, "reader", second_fails), \
                self.assertRaises(database.UnusableFile) as refused:
            open_served(self)
        self.assertEqual(len(str(refused.exception).splitlines()), 1)
        self.assertRegex(str(refused.exception), r"a connection for reads \(of \d+\) cannot be opened beside the "
                         "store's own")
        for reader in opened:
            with self.assertRaises(reader.ENGINE_ERROR):  # closed
                reader.connection.execute("SELECT 1")

    @sqlite_only("the server is started on two files")
    def test_the_server_exits_2_with_one_line_when_a_reader_cannot_be_opened(self):
        with tempfile.TemporaryDirectory() as folder:
            script = ("import sys, mcp_server\nfrom osfoundry_tools.engines import database\n"
                      "def refused(self):\n"
                      "    raise database.UnusableFile(self.path + ' cannot be opened: too many open files')\n"
                      "database.Database.reader = refused\n"
                      "sys.exit(mcp_server.main(sys.argv[1:]))\n")
            run = subprocess.run([sys.executable, "-c", script, "--demo", "--kb-db", os.path.join(folder, "kb.db"),
                                  "--records-db", os.path.join(folder, "r.db"), "--http", "127.0.0.1:0"], cwd=ROOT,
                                 stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("a connection for reads (of 1) cannot be opened beside the store's own", run.stderr)

    @needs_postgres
    def test_a_role_allowed_fewer_connections_than_the_readers_fails_the_start_in_one_line(self):
        url = postgres_helpers.new_database()
        name = urllib.parse.urlsplit(url).path[1:]
        with postgres_helpers.raw_connection() as admin:
            admin.execute("DROP ROLE IF EXISTS few")
            admin.execute("CREATE ROLE few LOGIN CONNECTION LIMIT 2")  # the stores' own two, no reader
            admin.execute(f"ALTER DATABASE {name} OWNER TO few")
        self.addCleanup(self.drop_role, name)
        limited = url.replace("postgres@", "few@")
        run = subprocess.run([sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo", "--kb-db", limited,
                              "--records-db", limited, "--http", "127.0.0.1:0"], cwd=ROOT, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 2, run.stderr)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertRegex(run.stderr, r"a connection for reads \(of \d+\) cannot be opened beside the store's own")
        self.assertIn("too many connections", run.stderr)

    @staticmethod
    def drop_role(name):
        with postgres_helpers.raw_connection() as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            admin.execute("DROP ROLE IF EXISTS few")

    def test_stdio_opens_no_readers(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        kb_db, records_db = locations(folder.name)
        workspace = open_workspace(parse_options(["--demo", "--kb-db", kb_db,
                                                                        "--records-db", records_db]))
        self.addCleanup(workspace.close)
        self.assertEqual(workspace.readers, {})
        self.assertNotIn("for reads", workspace.description)


@sqlite_only("a private in-memory database is sqlite's")
class InMemoryTest(unittest.TestCase):
    """A store in memory has one connection no other can open: its reads take the workspace lock, as before."""

    def test_reads_of_a_store_in_memory_wait_for_the_lock(self):
        workspace = open_workspace(parse_options(["--demo", "--http", "127.0.0.1:0"]))
        self.addCleanup(workspace.close)
        self.assertEqual(workspace.readers, {})
        self.assertIn("reads under the workspace lock (in memory): knowledge_base, record", workspace.description)
        tools = workspace.tools()
        with workspace.lock:
            read = finished(self, lambda: tools.call("list_record_items", {"record_channel_id": CHANNEL, "limit": 1}))
            read.join(0.2)
            self.assertTrue(read.is_alive())
        read.join(WAIT)
        self.assertEqual(len(read.result["items"]), 1)
        with self.assertRaisesRegex(ValueError, "private to its connection"):
            workspace.stores["record"].database.reader()

    def test_a_file_beside_one_in_memory_gets_readers_of_its_own(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        workspace = open_workspace(parse_options(
            ["--demo", "--records-db", os.path.join(folder.name, "r.db"), "--http", "127.0.0.1:0"]))
        self.addCleanup(workspace.close)
        self.assertEqual(set(workspace.readers), {"record"})
        self.assertIn("; connections for reads beside each store's own: record 1; reads under the workspace lock "
                      "(in memory): knowledge_base", workspace.description)


if __name__ == "__main__":
    unittest.main()
