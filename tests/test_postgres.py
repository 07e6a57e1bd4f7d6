"""The stores on PostgreSQL: what that engine needs of its own, beside the shared contract cases run there.

Without OSFOUNDRY_TEST_POSTGRES (make test), only what needs no server runs: the one line a missing driver gets,
the URL's password kept out of messages, the server's options. Under make postgres the rest runs too: events in
commit order where a SEQUENCE would lose one, writers on different resources not waiting, a lost connection,
the schema marks, and four servers on one database.
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest
from unittest import mock

from osfoundry_tools.content import demo
from osfoundry_tools.core.rejections import Busy
from osfoundry_tools.engines import database, postgres_database
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.stores import kb_search, kb_store, record_store
from tests import postgres_helpers
from tests.helpers import KB, ROOT, ManualClock, server_options_refused, support_store
from tests.postgres_helpers import needs_postgres
from tests.record_helpers import BUGS, EVERY_TYPE, OPS, bug_store, events
from tests.test_mcp_server import ServerProcess

SERVER = os.path.join(ROOT, "mcp_server.py")
URL = "postgresql://agent:secret@db.example:5432/osfoundry"


class DriverTest(unittest.TestCase):
    """What needs no server: the driver imported only for a URL, and one line where it is missing."""

    def test_a_url_without_the_driver_is_refused_in_one_line_that_says_what_to_install(self):
        with mock.patch.dict(sys.modules, {"psycopg": None}):  # import psycopg now raises ImportError
            with self.assertRaises(database.UnusableFile) as refused:
                kb_store.connect("postgresql:///osfoundry")
        message = str(refused.exception)
        self.assertEqual(len(message.splitlines()), 1)
        self.assertIn("pip install 'psycopg[binary]'", message)

    def test_the_server_without_the_driver_exits_2_with_one_line(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "psycopg.py"), "w", encoding="utf-8") as fake:
                fake.write("raise ImportError('not installed')\n")
            run = subprocess.run([sys.executable, SERVER, "--kb-db", "postgresql:///osfoundry"], cwd=ROOT,
                                 env=dict(os.environ, PYTHONPATH=folder), stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=60)
        self.assertEqual(run.returncode, 2)
        self.assertEqual(len(run.stderr.strip().splitlines()), 1, run.stderr)
        self.assertIn("psycopg", run.stderr)

    def test_sqlite_stores_never_import_the_postgresql_side(self):
        code = ("import kb_store, record_store, mcp_server, sys; "
                "print('osfoundry_tools.engines.postgres_database' in sys.modules)")
        run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(run.stdout.strip(), "False", run.stderr)

    def test_a_password_in_the_url_never_reaches_a_message(self):
        self.assertEqual(database.shown_location(URL), "postgresql://agent:***@db.example:5432/osfoundry")
        self.assertEqual(database.shown_location("store.db"), "store.db")
        self.assertEqual(database.shown_location("postgresql:///osfoundry"), "postgresql:///osfoundry")

    def test_the_server_takes_one_url_for_both_stores_and_checks_no_folder_for_it(self):
        options = parse_options(["--kb-db", URL, "--records-db", URL])
        self.assertEqual((options.kb_db, options.records_db), (URL, URL))
        code, message = server_options_refused(["--kb-db", "same.db", "--records-db", "same.db"])
        self.assertEqual(code, 2)
        self.assertIn("must be different files", message)

    def test_the_statements_take_psycopgs_parameters(self):
        self.assertEqual(postgres_database.translated("a = ? AND b = :kb AND c LIKE 'x%' AND d = '10:30'"),
                         "a = %s AND b = %(kb)s AND c LIKE 'x%%' AND d = '10:30'")

    def test_a_title_weighs_as_much_against_content_on_both_engines(self):
        weight = kb_search.TITLE_WEIGHT
        self.assertIn(f"bm25(search_index_1, {weight}, 1.0)", kb_search.FTS5.statements(1, 1).scored)
        self.assertIn(f"{weight} * in_title.n0 + in_content.n0", kb_search.TSVECTOR.statements(1, 1).scored)


SCHEMA_4_SEARCH = ("ALTER TABLE articles ADD COLUMN search TSVECTOR GENERATED ALWAYS AS (setweight(to_tsvector("
                   "'english', title), 'A') || setweight(to_tsvector('english', content), 'B')) STORED")


def as_schema_4(url: str) -> None:
    """The knowledge-base schema as version 4 left it: the 'english' configuration (which drops its stop words), no
    outline, no word counts."""
    with postgres_helpers.raw_connection(url) as connection:
        connection.execute("SET search_path TO osfoundry_knowledge_base")
        for statement in ("DROP INDEX articles_outlined", "ALTER TABLE articles DROP COLUMN outline",
                          "ALTER TABLE articles DROP COLUMN words", "ALTER TABLE articles DROP COLUMN search",
                          SCHEMA_4_SEARCH, "CREATE INDEX articles_search ON articles USING GIN (search)",
                          "DROP TEXT SEARCH CONFIGURATION every_word", "DROP TEXT SEARCH DICTIONARY every_word_stem",
                          "UPDATE store_marks SET version = 4"):
            connection.execute(statement)


@needs_postgres
class SchemaFourTest(unittest.TestCase):
    def setUp(self):
        self.url = postgres_helpers.new_database()
        with kb_store.connect(self.url) as store:
            store.create_knowledge_base(KB, "Support")
            store.create_article(KB, "Install", "## Upgrading\n\nHow do I get https://github.com/acme/tool?",
                                 article_id="a")
        as_schema_4(self.url)

    def test_a_database_of_schema_4_is_upgraded_to_search_every_word_and_weigh_headings(self):
        with kb_store.connect(self.url) as store:
            def found(query):
                return [hit["article_id"] for hit in store.call_tool("search_knowledge_base", {
                    "knowledge_base_id": KB, "query": query})["results"]]
            self.assertEqual(found("how do I"), ["a"])  # stop words of 'english', indexed now
            self.assertEqual(found("github"), [])  # an address is no word
            self.assertEqual(found("upgrading"), ["a"])
            with store.database.read() as connection:
                self.assertEqual(connection.execute("SELECT outline FROM articles").fetchone()[0], "Upgrading")
                self.assertEqual(connection.execute("SELECT version FROM store_marks").fetchone()[0],
                                 kb_store.LAYOUT.version)

    def test_a_database_of_schema_4_opened_read_only_is_refused_in_one_line(self):
        with self.assertRaisesRegex(database.UnusableFile, "schema 4, which opening it to write upgrades to 5"):
            kb_store.connect(self.url, read_only=True)


class SequenceStandIn(postgres_database.PostgresDialect):
    """What the event log would be with a PostgreSQL SEQUENCE: numbers handed out at once, never taken back."""

    def append_event(self, connection, resource_id, event_type, subject_id, version):
        connection.execute("CREATE SEQUENCE IF NOT EXISTS stand_in_sequence")
        connection.execute("INSERT INTO events (resource_id, sequence, type, subject_id, version) "
                           "SELECT ?, nextval('stand_in_sequence'), ?, ?, CAST(? AS JSONB)",
                           (resource_id, event_type, subject_id, json.dumps(version)))


@needs_postgres
class EventOrderTest(unittest.TestCase):
    """A poller that resumes from its last sequence sees every event: numbers are taken in commit order and
    given back on rollback. The same steps with a SEQUENCE lose an event, so the test would catch one."""

    def setUp(self):
        self.url = postgres_helpers.new_database()
        self.first, _, _ = bug_store(self.url)
        self.second, self.poller = record_store.connect(self.url), record_store.connect(self.url)
        for store in (self.first, self.second, self.poller):
            self.addCleanup(store.close)
        with self.first.database.connection.raw.transaction():
            self.first.database.connection.execute("CREATE SEQUENCE IF NOT EXISTS stand_in_sequence START 1000")
        self.start = events(self.first)[-1]["sequence"]

    def interleave(self, dialect):
        """Writer one appends and waits; writer two appends and commits, if it can; a poller polls; writer one
        commits; the poller resumes. Returns the sequences the poller saw and those that exist."""
        second_done = threading.Event()
        outer = self.first.database.write()
        connection = outer.__enter__()
        dialect.append_event(connection, BUGS, "updated", "one", 2)

        def second_writer():
            with self.second.database.write() as other:
                dialect.append_event(other, BUGS, "updated", "two", 2)
            second_done.set()
        writer = threading.Thread(target=second_writer)
        writer.start()
        second_done.wait(1.0)  # with a SEQUENCE it commits at once; with the counter row it waits for writer one
        seen = [e["sequence"] for e in events(self.poller, BUGS, self.start)]
        cursor = seen[-1] if seen else self.start
        outer.__exit__(None, None, None)
        writer.join(timeout=10)
        seen += [e["sequence"] for e in events(self.poller, BUGS, cursor)]
        return seen, [e["sequence"] for e in events(self.poller, BUGS, self.start)]

    def test_the_counter_row_keeps_commit_order_so_a_resuming_poller_misses_nothing(self):
        seen, stored = self.interleave(postgres_database.POSTGRES)
        self.assertEqual(stored, [self.start + 1, self.start + 2])
        self.assertEqual(seen, stored)

    def test_a_sequence_would_let_a_resuming_poller_skip_an_event(self):
        seen, stored = self.interleave(SequenceStandIn())
        self.assertEqual(len(stored), 2)
        self.assertLess(len(seen), len(stored), "a SEQUENCE hands out a number that commits after a later one")

    def test_a_rolled_back_event_leaves_no_gap(self):
        with self.assertRaises(RuntimeError):
            with self.first.database.write() as connection:
                postgres_database.POSTGRES.append_event(connection, BUGS, "updated", "never", 9)
                raise RuntimeError("the edit fails after its event")
        with self.first.database.write() as connection:
            postgres_database.POSTGRES.append_event(connection, BUGS, "updated", "kept", 9)
        self.assertEqual([e["sequence"] for e in events(self.first, BUGS, self.start)], [self.start + 1])


class Racing(threading.Thread):
    """A call made in a thread of its own, started at once; result() waits for its answer."""

    def __init__(self, call):
        super().__init__()
        self.call, self.answer = call, None
        self.start()

    def run(self):
        self.answer = self.call()

    def result(self):
        self.join(timeout=30)
        return self.answer


def edit_values(store, item_id, values, key, channel=BUGS):
    """An agent's edit of an item's `values`, from the version it reads first."""
    version = store.call_tool("read_record_item", {"record_channel_id": channel, "item_id": item_id})["version"]
    return store.call_tool("edit_record_item", {"record_channel_id": channel, "item_id": item_id, "values": values,
                                                "expected_version": version, "idempotency_key": key})


def edit_title(store, item_id, version, key, channel=BUGS):
    return store.call_tool("edit_record_item", {"record_channel_id": channel, "item_id": item_id,
                                                "values": {"title": f"Edited with {key}"},
                                                "expected_version": version, "idempotency_key": key})


@needs_postgres
class EngineTest(unittest.TestCase):
    """What the move to PostgreSQL is for, and what an agent sees when the server goes away."""

    def setUp(self):
        self.url = postgres_helpers.new_database()
        self.store, self.clock, self.ids = bug_store(self.url)
        self.addCleanup(self.store.close)

    def test_a_writer_on_another_channel_does_not_wait(self):
        other = record_store.connect(self.url, busy_timeout=0.5, clock=ManualClock())
        self.addCleanup(other.close)
        with self.store.database.write() as connection:  # an edit of BUGS, not yet committed
            self.store.EVENTS.append(connection, BUGS, "updated", self.ids[0], 2)
            started = time.monotonic()
            result = edit_title(other, "ops-1", 1, "ops-key", channel=OPS)
            waited = time.monotonic() - started
        self.assertEqual(result["version"], 2, result)
        self.assertLess(waited, 0.5, "it would have waited for the lock past its busy timeout")

    def test_a_writer_on_the_same_channel_waits_for_the_event_counter_then_saves(self):
        other = record_store.connect(self.url, busy_timeout=0.3, clock=ManualClock())
        self.addCleanup(other.close)
        with self.store.database.write() as connection:
            self.store.EVENTS.append(connection, BUGS, "updated", self.ids[0], 2)
            result = edit_title(other, self.ids[1], 1, "bugs-key")
        self.assertEqual(result["error"], "busy")
        self.assertEqual(edit_title(other, self.ids[1], 1, "bugs-key")["version"], 2)

    def test_two_items_racing_for_one_unique_value_get_busy_then_not_unique(self):
        other = record_store.connect(self.url, clock=ManualClock())
        self.addCleanup(other.close)
        with self.store.database.write():  # the first claim of the value, not yet committed
            self.assertEqual(edit_values(self.store, self.ids[0], {"ticket": "T-1"}, "first")["version"], 2)
            racing = Racing(lambda: edit_values(other, self.ids[1], {"ticket": "T-1"}, "second"))
            time.sleep(0.3)  # the other edit now waits on the unique index
        self.assertEqual(racing.result()["error"], "busy", "the unique index caught what validation could not see")
        again = edit_values(other, self.ids[1], {"ticket": "T-1"}, "second")
        self.assertEqual(again["error"], "validation_failed")
        self.assertIn(self.ids[0], json.dumps(again))

    def test_an_item_an_edit_relates_to_cannot_be_deleted_before_the_edit_commits(self):
        person = record_store.connect(self.url, busy_timeout=0.3, clock=ManualClock())
        self.addCleanup(person.close)
        with self.store.database.write():
            linked = edit_values(self.store, "every-1", {"bugs": [self.ids[0]]}, "link", channel=EVERY_TYPE)
            self.assertEqual(linked["version"], 2)
            with self.assertRaises(Busy):
                person.delete_item(BUGS, self.ids[0])
        self.assertEqual(person.delete_item(BUGS, self.ids[0]), 2)

    def test_a_lost_connection_is_a_storage_error_and_the_next_call_reconnects(self):
        with postgres_helpers.raw_connection(self.url) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
                          "AND application_name = 'osfoundry'")
        lost = edit_title(self.store, self.ids[0], 1, "after-loss")
        self.assertEqual(lost["error"], "storage_error")
        self.assertIn("same idempotency_key", lost["message"])
        saved = edit_title(self.store, self.ids[0], 1, "after-loss")
        self.assertEqual((saved["version"], saved["replay"]), (2, False))

    def test_both_stores_share_one_database_each_in_its_schema(self):
        before = events(self.store)
        kb = kb_store.connect(self.url)
        self.addCleanup(kb.close)
        kb.create_knowledge_base("kb-one")
        self.assertEqual((kb.database.schema, self.store.database.schema),
                         ("osfoundry_knowledge_base", "osfoundry_record_channel"))
        self.assertEqual(events(self.store), before)  # the record store's own log, untouched

    def test_a_newer_schema_is_refused_and_changes_nothing(self):
        with postgres_helpers.raw_connection(self.url) as admin:
            admin.execute("UPDATE osfoundry_record_channel.store_marks SET version = version + 1")
        with self.assertRaises(database.UnusableFile) as refused:
            record_store.connect(self.url)
        self.assertIn("newer version", str(refused.exception))
        self.assertNotIn("\n", str(refused.exception))

    def test_a_schema_of_someone_elses_tables_is_refused_and_left_as_it_was(self):
        other = postgres_helpers.new_database()
        with postgres_helpers.raw_connection(other) as admin:
            admin.execute("CREATE SCHEMA osfoundry_knowledge_base")
            admin.execute("CREATE TABLE osfoundry_knowledge_base.articles (x INTEGER)")
        with self.assertRaises(database.UnusableFile) as refused:
            kb_store.connect(other)
        self.assertIn("holds tables this store did not make", str(refused.exception))
        with postgres_helpers.raw_connection(other) as admin:
            tables = admin.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                   "'osfoundry_knowledge_base'").fetchall()
        self.assertEqual(tables, [("articles",)])

    def test_a_user_who_may_not_create_the_schema_gets_one_line(self):
        with postgres_helpers.raw_connection(self.url) as admin:
            admin.execute("DROP ROLE IF EXISTS reader")
            admin.execute("CREATE ROLE reader LOGIN")  # not the database's owner: it may not create schemas
        self.addCleanup(self.drop_role)
        url = self.url.replace("postgres@", "reader@")
        with self.assertRaises(database.UnusableFile) as refused:
            kb_store.connect(url)
        self.assertEqual(len(str(refused.exception).splitlines()), 1)
        self.assertIn("permission denied", str(refused.exception))

    def drop_role(self):
        with postgres_helpers.raw_connection() as admin:
            admin.execute("DROP ROLE IF EXISTS reader")

    def test_an_unreachable_server_is_one_line(self):
        with self.assertRaises(database.UnusableFile) as refused:
            record_store.connect(self.url + "&port=1")
        self.assertEqual(len(str(refused.exception).splitlines()), 1)


@needs_postgres
class SearchTest(unittest.TestCase):
    """What the README says of search on PostgreSQL: weights as bm25's here, English stop words left out."""

    def setUp(self):
        self.store, _, self.ids = support_store(postgres_helpers.new_database())
        self.addCleanup(self.store.close)

    def search(self, query):
        found = self.store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query})
        return [result["article_id"] for result in found["results"]]

    def test_a_word_in_the_title_ranks_above_the_same_word_in_the_content(self):
        self.store.create_article(KB, "Billing overview", "Everything about quotas, once.", article_id="in-text")
        self.store.create_article(KB, "Quotas", "Limits per plan.", article_id="in-title")
        self.assertEqual(self.search("quotas")[:2], ["in-title", "in-text"])

    def test_a_query_of_stop_words_only_finds_nothing(self):
        self.assertEqual(self.search("how do I"), [])
        self.assertEqual(self.search("how do I reset"), [self.ids[0]])


@needs_postgres
class SeveralServersTest(unittest.TestCase):
    """Four mcp_server.py processes on one database, agents racing through each on one article and one item: one
    chain of versions each, and every poller, whichever server it asks, sees every event once, in order."""

    SERVERS, SAVES = 4, 5

    def start_servers(self, url):
        servers = []
        for _ in range(self.SERVERS):
            server = ServerProcess("--demo", "--kb-db", url, "--records-db", url)
            self.addCleanup(server.close)
            server.handshake()
            servers.append(server)
        return servers

    def test_four_servers_on_one_database_keep_one_chain_and_every_poller_sees_every_event(self):
        servers = self.start_servers(postgres_helpers.new_database())
        kb, channel = demo.KNOWLEDGE_BASE, demo.CHANNEL
        first = servers[0].call("list_record_items", {"record_channel_id": channel, "limit": 1})
        item = first["structuredContent"]["items"][0]["item_id"]
        article = servers[0].call("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": kb,
                                                            "limit": 1})["structuredContent"]["events"][0]["article_id"]
        saved = {"article": [], "item": []}
        agents = [threading.Thread(target=self.agent, args=(n, server, kb, article, channel, item, saved))
                  for n, server in enumerate(servers)]
        for agent in agents:
            agent.start()
        for agent in agents:
            agent.join(timeout=120)
        self.assertEqual(len(saved["article"]), self.SERVERS * self.SAVES)
        self.assertEqual(len(saved["item"]), self.SERVERS * self.SAVES)

        logs = [[self.poll_all(server, "knowledge_base", kb), self.poll_all(server, "record", channel)]
                for server in servers]
        for log in logs[1:]:
            self.assertEqual(log, logs[0], "every server's poller sees the same events")
        for chain in logs[0]:
            self.assertEqual([e["sequence"] for e in chain], list(range(1, len(chain) + 1)), "gap-free")
        kb_log, item_log = logs[0]
        article_versions = [e["updated_at"] for e in kb_log if e["article_id"] == article and e["type"] == "updated"]
        self.assertEqual(sorted(article_versions), sorted(version for version, _ in saved["article"]))
        self.assertEqual(article_versions, sorted(article_versions), "in commit order, each from the one before")
        item_versions = [e["version"] for e in item_log if e["item_id"] == item and e["type"] == "updated"]
        self.assertEqual(item_versions, list(range(2, 2 + self.SERVERS * self.SAVES)))

    def agent(self, n, server, kb, article, channel, item, saved):
        """Read, then edit with the version read, until SAVES edits of each are saved; a conflict reads again."""
        for kind in ("article", "item"):
            tries = 0
            while len([v for v in saved[kind] if v[1] == n]) < self.SAVES and tries < 50 * self.SAVES:
                tries += 1
                key = f"agent-{n}-{kind}-{tries}"
                if kind == "article":
                    version = server.call("read_knowledge_article", {"knowledge_base_id": kb, "article_id": article})
                    result = server.call("edit_knowledge_article", {
                        "knowledge_base_id": kb, "article_id": article, "content": f"Agent {n}, try {tries}.",
                        "expected_version": version["structuredContent"]["updated_at"], "idempotency_key": key})
                else:
                    version = server.call("read_record_item", {"record_channel_id": channel, "item_id": item})
                    result = server.call("edit_record_item", {
                        "record_channel_id": channel, "item_id": item, "values": {"title": f"Agent {n}, try {tries}"},
                        "expected_version": version["structuredContent"]["version"], "idempotency_key": key})
                if not result.get("isError"):
                    content = result["structuredContent"]
                    saved[kind].append((content["citation"]["updated_at"] if kind == "article" else
                                        content["version"], n))

    def test_own_content_is_written_once_and_a_read_only_server_serves_it_without_writing(self):
        url = postgres_helpers.new_database()
        sources = ["--kb-from-dir", os.path.join(ROOT, "examples", "help-center"), "--channel-from",
                   os.path.join(ROOT, "examples", "feature-requests.csv"),
                   os.path.join(ROOT, "examples", "feature-requests.fields.json")]
        for _ in range(2):  # the second start finds both sources and serves them as found
            writer = ServerProcess("--kb-db", url, "--records-db", url, *sources)
            writer.handshake()
            self.assertEqual(writer.close()[0], 0)
        self.assertIn("served as found", writer.log_text)
        reader = ServerProcess("--read-only", "--kb-db", url, "--records-db", url)
        self.addCleanup(reader.close)
        reader.handshake()
        page = reader.call("list_record_items", {"record_channel_id": "feature-requests", "limit": 50})
        items = page["structuredContent"]["items"]
        self.assertEqual(len(items), 15)
        refused = reader.call("edit_record_item", {"record_channel_id": "feature-requests",
                                                   "item_id": items[0]["item_id"], "values": {"title": "Changed"},
                                                   "expected_version": items[0]["version"], "idempotency_key": "r"})
        self.assertEqual(json.loads(refused["content"][0]["text"])["error"], "read_only")

    @staticmethod
    def poll_all(server, resource_type, resource_id):
        found, after = [], 0
        while True:
            page = server.call("poll_resource_events", {"resource_type": resource_type, "resource_id": resource_id,
                                                        "after_sequence": after})["structuredContent"]
            found += page["events"]
            after = page["last_sequence"]
            if not page["has_more"]:
                return found


if __name__ == "__main__":
    unittest.main()
