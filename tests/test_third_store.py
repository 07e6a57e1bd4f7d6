"""A third store is a schema, its tools and its handlers: the core polls for it, open_store opens it, and the MCP
server lists, routes, polls, grants (over HTTP, with a bearer token) and closes it with no edit of its own.

The third store here is a tiny memo board defined in this file: one tool (add_memo) and the shared
poll_resource_events, for resource_type "note". Its event logs are kept under "board:<ID>", not under the
ID an agent sends, so a poll that skipped the store's `_granted_log` would find nothing.
"""

import http.client
import json
import os
import shutil
import sqlite3
import tempfile
import threading
import unittest
from unittest import mock

from osfoundry_tools.core import agent_tools, checks, clock, events, rejections, tools
from osfoundry_tools.engines import database, opening
from osfoundry_tools.server import methods, routing, streamable_http, tokens, workspace
from osfoundry_tools.stores import kb_store, record_store, resource_events
from tests.helpers import ROOT  # noqa: F401  (puts the project on the path)

MEMO_LAYOUT = database.Layout(
    name="memo-board", application_id=0x4D454D4F, version=1, tables=frozenset({"memos"}),  # "MEMO"
    schema="CREATE TABLE IF NOT EXISTS memos (board TEXT NOT NULL, id TEXT NOT NULL, text TEXT NOT NULL, "
           "PRIMARY KEY (board, id)) WITHOUT ROWID;")

ADD_MEMO = tools.Tool(
    name="add_memo", title="Add a memo", description="Pin a memo to a granted board.",
    input_schema=tools.object_schema({
        "board_id": tools.string(1, checks.ID_CHARACTERS, "A board you were granted."),
        "text": tools.string(1, 200, "The memo."),
    }, ["board_id", "text"]),
    output_schema=tools.object_schema({"item_id": {"type": "string"}, "version": {"type": "integer"}},
                                         ["item_id", "version"]),
    annotations=tools.SHARED_WRITE)


class MemoStore(agent_tools.AgentTools):
    """The whole of a third store: its tools, its resource type, its event log, its handlers."""

    TOOLS = (ADD_MEMO, resource_events.POLL_RESOURCE_EVENTS)
    RESOURCE_TYPE = "note"
    GRANT_KEY = "boards"  # a token file lists the boards a grant allows under this key
    EVENTS = events.EventLog(subject_key="item_id", version_key="version")

    def _tool_add_memo(self, arguments):
        with self.database.write() as connection:
            board = self._granted_log(connection, arguments["board_id"])
            (count,) = connection.execute("SELECT COUNT(*) FROM memos WHERE board = ?", (board,)).fetchone()
            memo_id = f"memo-{count + 1}"
            connection.execute("INSERT INTO memos VALUES (?, ?, ?)", (board, memo_id, arguments["text"]))
            self.EVENTS.append(connection, board, "created", memo_id, 1)
        return {"item_id": memo_id, "version": 1}

    def _granted_log(self, connection, board_id):
        if not self.is_granted(board_id):
            raise rejections.NotFound(f"board {rejections.quote(board_id)} is not granted to you.")
        return "board:" + board_id


def connect_memos(path=":memory:", **options):
    """The third store's connect(): one call."""
    return opening.open_store(MemoStore, path, MEMO_LAYOUT, **options)


def call(server, name, arguments, request_id=1):
    """tools/call through the JSON-RPC server: the result's JSON (structuredContent or the rejection)."""
    answer = server.handle({"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
                            "params": {"name": name, "arguments": arguments}})
    result = answer["result"]
    return result.get("structuredContent") or json.loads(result["content"][0]["text"])


class ThirdStoreServedTest(unittest.TestCase):
    """A server over three stores, made from the stores alone."""

    def setUp(self):
        self.kb = kb_store.connect()
        self.kb.create_knowledge_base("kb-support")
        self.kb.create_article("kb-support", "Reset a password", "Open Settings, then Security.")
        self.records = record_store.connect()
        self.memos = connect_memos(granted=["b1"])
        self.stores = routing.by_resource_type([self.kb, self.records, self.memos])
        self.workspace = workspace.Workspace(self.stores, threading.Lock(), None, "three stores", "")
        self.addCleanup(self.workspace.close)
        self.server = methods.Server(self.workspace.tools())

    def test_the_stores_are_keyed_by_their_own_resource_types(self):
        self.assertEqual(self.stores, {"knowledge_base": self.kb, "record": self.records, "note": self.memos})

    def test_tools_list_holds_the_third_stores_tool_once_beside_the_others(self):
        answer = self.server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        listed = answer["result"]["tools"]
        self.assertEqual([tool["name"] for tool in listed], [
            "search_knowledge_base", "read_knowledge_article", "edit_knowledge_article", "poll_resource_events",
            "list_record_items", "read_record_item", "edit_record_item", "add_memo"])
        self.assertEqual(listed[-1], ADD_MEMO.listing())

    def test_a_call_of_the_third_stores_tool_reaches_it(self):
        self.assertEqual(call(self.server, "add_memo", {"board_id": "b1", "text": "Standup at ten"}),
                         {"item_id": "memo-1", "version": 1})
        with self.memos.database.read() as connection:
            rows = [tuple(row) for row in connection.execute("SELECT board, id, text FROM memos")]
        self.assertEqual(rows, [("board:b1", "memo-1", "Standup at ten")])
        refused = call(self.server, "add_memo", {"board_id": "b2", "text": "x"})
        self.assertEqual(refused, {"error": "not_found", "message": 'board "b2" is not granted to you.'})

    def test_a_poll_of_the_third_stores_type_reaches_its_log_through_its_granted_log(self):
        for text in ("one", "two"):
            call(self.server, "add_memo", {"board_id": "b1", "text": text})
        polled = call(self.server, "poll_resource_events", {"resource_type": "note", "resource_id": "b1"})
        self.assertEqual(polled, {"events": [
            {"sequence": 1, "type": "created", "item_id": "memo-1", "version": 1},
            {"sequence": 2, "type": "created", "item_id": "memo-2", "version": 1}], "last_sequence": 2,
            "has_more": False})
        later = call(self.server, "poll_resource_events", {"resource_type": "note", "resource_id": "b1",
                                                           "after_sequence": 1, "limit": 1})
        self.assertEqual([event["sequence"] for event in later["events"]], [2])
        hidden = call(self.server, "poll_resource_events", {"resource_type": "note", "resource_id": "b2"})
        self.assertEqual(hidden["error"], "not_found")

    def test_the_other_stores_polls_still_reach_their_own_stores(self):
        polled = call(self.server, "poll_resource_events", {"resource_type": "knowledge_base",
                                                            "resource_id": "kb-support"})
        self.assertEqual([(e["type"], e["article_id"]) for e in polled["events"]], [("created", "art-00001")])
        missing = call(self.server, "poll_resource_events", {"resource_type": "record", "resource_id": "b1"})
        self.assertEqual(missing["error"], "not_found")
        self.assertIn("record channel", missing["message"])

    def test_a_poll_no_store_serves_names_all_three_types(self):
        refused = call(self.server, "poll_resource_events", {"resource_type": "session", "resource_id": "s"})
        self.assertEqual(refused["error"], "unsupported_resource_type")
        self.assertEqual(refused["served"], ["knowledge_base", "record", "note"])
        self.assertTrue(refused["message"].startswith('this server keeps event logs for resource_type '
                                                      '"knowledge_base" and "record" and "note" only, not "session"'))

    def test_closing_the_workspace_closes_every_store(self):
        self.workspace.close()
        for store in self.stores.values():
            with self.assertRaises(sqlite3.ProgrammingError):
                store.database.connection.execute("SELECT 1")

    def test_two_stores_of_one_resource_type_are_refused(self):
        with self.assertRaisesRegex(ValueError, "MemoStore needs a resource_type of its own, not 'note'"):
            routing.by_resource_type([self.memos, self.memos])


MEMO_TOKEN = "memo-bot-token-0123456789abcdef"  # grants board b1 and nothing of the other stores
READ_TOKEN = "reader-token-0123456789abcdef"  # grants every board, but no write scope


class ThirdStoreOverHttpTest(unittest.TestCase):
    """The same three stores behind the Streamable HTTP transport, each request's bearer token granting its boards
    under the key the memo store declares, through the server's own token file reader."""

    def setUp(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "tokens.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump({MEMO_TOKEN: {"caller": "memo-bot", "boards": ["b1"], "scopes": [tools.WRITE_SCOPE]},
                       READ_TOKEN: {"caller": "reader", "boards": "*", "knowledge_bases": "*"}}, file)
        os.chmod(path, 0o600)
        self.memos = connect_memos()
        kb = kb_store.connect()
        kb.create_knowledge_base("kb-support")
        kb.create_article("kb-support", "Reset a password", "Open Settings, then Security.")
        stores = routing.by_resource_type([kb, record_store.connect(), self.memos])
        served = workspace.Workspace(stores, threading.Lock(), None, "three stores", "")
        self.addCleanup(served.close)
        grants = tokens.Tokens.load(path, tokens.grant_keys(stores.values()))
        server = methods.Server(served.tools())
        options = streamable_http.HttpOptions("127.0.0.1", 0, grants, frozenset())
        self.http = streamable_http.make_server(server.handle, options)
        self.addCleanup(self.http.server_close)
        thread = threading.Thread(target=self.http.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 5)
        self.addCleanup(self.http.shutdown)

    def call(self, token, name, arguments):
        """tools/call over HTTP with `token`: the answer's JSON (its structuredContent or the rejection)."""
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments}})
        connection = http.client.HTTPConnection("127.0.0.1", streamable_http.bound_address(self.http)[1], timeout=5)
        self.addCleanup(connection.close)
        connection.request("POST", "/mcp", body, {"Content-Type": "application/json", "Authorization":
                                                  f"Bearer {token}", "Accept": "application/json, text/event-stream"})
        answer = json.loads(connection.getresponse().read())
        result = answer["result"]
        return result.get("structuredContent") or json.loads(result["content"][0]["text"])

    def test_a_token_granting_a_board_adds_to_it_as_its_caller_and_finds_no_other_board(self):
        self.assertEqual(self.call(MEMO_TOKEN, "add_memo", {"board_id": "b1", "text": "Standup at ten"}),
                         {"item_id": "memo-1", "version": 1})
        self.assertEqual(self.call(MEMO_TOKEN, "add_memo", {"board_id": "b2", "text": "x"})["error"], "not_found")
        polled = self.call(MEMO_TOKEN, "poll_resource_events", {"resource_type": "note", "resource_id": "b1"})
        self.assertEqual([event["item_id"] for event in polled["events"]], ["memo-1"])
        with self.memos.database.read() as connection:
            self.assertEqual([row[0] for row in connection.execute("SELECT board FROM memos")], ["board:b1"])

    def test_a_token_that_names_no_knowledge_base_is_granted_none_and_one_that_does_reads_it(self):
        search = {"knowledge_base_id": "kb-support", "query": "reset"}
        self.assertEqual(self.call(MEMO_TOKEN, "search_knowledge_base", search)["error"], "not_found")
        self.assertEqual(len(self.call(READ_TOKEN, "search_knowledge_base", search)["results"]), 1)

    def test_a_token_granting_every_board_polls_any_and_leaves_the_stores_own_grant_alone(self):
        self.call(MEMO_TOKEN, "add_memo", {"board_id": "b1", "text": "Standup at ten"})
        polled = self.call(READ_TOKEN, "poll_resource_events", {"resource_type": "note", "resource_id": "b1"})
        self.assertEqual(polled["last_sequence"], 1)
        self.assertIsNone(self.memos.granted)

    def test_a_token_file_listing_a_key_no_store_declares_is_refused(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, folder)
        path = os.path.join(folder, "tokens.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump({MEMO_TOKEN: {"caller": "memo-bot", "notebooks": ["b1"]}}, file)
        os.chmod(path, 0o600)
        with self.assertRaisesRegex(tokens.TokenFileError, "unknown key 'notebooks'; a grant may hold only "
                                    "'caller', 'knowledge_bases', 'channels', 'boards', 'scopes', 'approve_writes'"):
            tokens.Tokens.load(path, tokens.grant_keys([kb_store.KnowledgeBaseStore, record_store.RecordStore,
                                                        MemoStore]))


class SharedPollAndOpenTest(unittest.TestCase):
    """What the plumbing does for any store: the poll's type check, open_store's defaults and its cleanup."""

    def test_the_shared_poll_answers_only_the_stores_resource_type(self):
        memos = connect_memos()
        self.addCleanup(memos.close)
        refused = memos.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": "b1"})
        self.assertEqual(refused["served"], ["note"])
        self.assertEqual(refused["message"], 'this store keeps event logs for resource_type "note" only, not '
                                             '"record"; poll with resource_type "note" and its ID, or ask the '
                                             'server that holds the record.')

    def test_a_store_that_lists_the_poll_must_declare_a_known_resource_type_and_a_log(self):
        for declared in ({}, {"RESOURCE_TYPE": "memo", "EVENTS": MemoStore.EVENTS}, {"RESOURCE_TYPE": "note"}):
            with self.subTest(declared=declared), self.assertRaisesRegex(TypeError, "needs a RESOURCE_TYPE"):
                tools_listed = (resource_events.POLL_RESOURCE_EVENTS,)
                type("Careless", (agent_tools.AgentTools,), dict(declared, TOOLS=tools_listed))
        type("Pollless", (agent_tools.AgentTools,), {"TOOLS": (ADD_MEMO,)})  # no poll listed: nothing to declare

    def test_open_store_passes_the_options_on_and_defaults_the_clock_to_wall_time(self):
        memos = connect_memos(granted=["b1"], caller="ops-bot", durability="normal")
        self.addCleanup(memos.close)
        self.assertEqual((memos.granted, memos.caller, memos.clock), (frozenset({"b1"}), "ops-bot",
                                                                       clock.wall_clock))
        self.assertIs(memos.database.layout, MEMO_LAYOUT)
        for store in (kb_store.connect(), record_store.connect()):
            self.addCleanup(store.close)
            self.assertIs(store.clock, clock.wall_clock)

    def test_open_store_closes_the_file_when_the_store_refuses_its_options(self):
        closed = []
        close = database.Database.close
        with mock.patch.object(database.Database, "close", lambda self: (closed.append(self), close(self))):
            with self.assertRaisesRegex(ValueError, "rejection_detail must be one of"):
                record_store.connect(rejection_detail="everything")
            with self.assertRaisesRegex(ValueError, "caller must be a name"):
                kb_store.connect(caller="")
        self.assertEqual([db.layout.name for db in closed], ["record-channel", "knowledge-base"])


if __name__ == "__main__":
    unittest.main()
