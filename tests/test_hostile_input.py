"""Hostile input, every argument of every tool: a rejection naming the argument, strict UTF-8 JSON, nothing written.

Property style: for each tool of both stores and each argument of its inputSchema, a battery of values a
hostile caller might send (wrong types, deep nesting, huge and non-finite numbers, lone surrogates, NUL,
10 MB strings), and the same inside `values` and as argument names. For each, the answer must be a rejection
(never internal_error), name the argument, be strict JSON that encodes as UTF-8, and leave the database as
`iterdump()` found it.
"""

import io
import json
import logging
import unittest

from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server import command_line, methods, stdio, workspace
from osfoundry_tools.server.options import parse_options
from tests import helpers
from tests.helpers import KB, support_store
from tests.record_helpers import BUGS, bug_store


def nested(depth, inner=1):
    value = inner
    for level in range(depth):
        value = [value] if level % 2 else {"a": value}
    return value


HOSTILE = {  # name -> value; each is judged against every argument
    "null": None, "a bool": True, "a float": 1.5, "an object": {"x": 1}, "a list": [1, "two"],
    "nested 1,000 deep": nested(1000), "nested 40 deep": nested(40),
    "an integer of 5,000 digits": 10 ** 5000, "a negative integer of 5,000 digits": -(10 ** 5000),
    "an integer past 64 bits": 2 ** 64, "NaN": float("nan"), "infinity": float("inf"),
    "a lone surrogate": "ab\ud800cd", "a NUL": "a\x00b", "10 MB of text": "x" * 10_000_000,
    "a string of digits": "12", "an empty string": "",
}
HOSTILE_VALUES = {  # inside values, keyed as a field of the bug tracker or as a key of their own
    "points nested 1,000 deep": {"points": nested(1000)},
    "points of 5,000 digits": {"points": 10 ** 5000},
    "description of 10 MB": {"description": "x" * 10_000_000},
    "a NaN owner": {"owner": float("nan")},
    "a NUL title": {"title": "bad\x00title"},
    "a lone surrogate in a key": {"ti\udc80tle": "x"},
    "a lone surrogate in a value": {"title": "\udfff"},
    "a 10 MB key": {"k" * 10_000_000: 1},
    "an integer key": {1: "x"},
    "a deep key path": {"extra": nested(35)},
}


def strict_utf8_json(result):
    return json.dumps(result, ensure_ascii=False, allow_nan=False).encode("utf-8")


class HostileArgumentsTest(unittest.TestCase):
    def stores(self):
        kb, _, ids = support_store()
        version = helpers.read(kb, ids[0])["updated_at"]
        kb_calls = {
            "search_knowledge_base": {"knowledge_base_id": KB, "query": "password", "limit": 5},
            "read_knowledge_article": {"knowledge_base_id": KB, "article_id": ids[0]},
            "edit_knowledge_article": {"knowledge_base_id": KB, "article_id": ids[0], "content": "x", "title": "T",
                                       "expected_version": version, "idempotency_key": "k1"},
            "poll_resource_events": {"resource_type": "knowledge_base", "resource_id": KB, "after_sequence": 0,
                                     "limit": 10},
        }
        records, _, items = bug_store()
        record_calls = {
            "list_record_items": {"record_channel_id": BUGS, "before_id": items[2], "limit": 5},
            "read_record_item": {"record_channel_id": BUGS, "item_id": items[0]},
            "edit_record_item": {"record_channel_id": BUGS, "item_id": items[0], "values": {"status": "triaged"},
                                 "expected_version": 1, "idempotency_key": "k1"},
            "poll_resource_events": {"resource_type": "record", "resource_id": BUGS, "after_sequence": 0,
                                     "limit": 10},
        }
        return [(kb, kb_calls), (records, record_calls)]

    # A hostile value of the right type is text like any other: a read may answer it (a search for "a\x00b"), and
    # an edit that sends it under the key already used answers idempotency_key_reused. What no value may do:
    # reach internal_error, answer anything but strict UTF-8 JSON, or write.
    JUDGED = ("validation_failed", "not_found", "unsupported_resource_type", "idempotency_key_reused",
              "version_conflict")

    def assert_rejected_cleanly(self, store, name, arguments, argument, before):
        result = store.call_tool(name, arguments)
        self.assertNotEqual(result.get("error"), "internal_error", result.get("message"))
        if result.get("error") == "invalid_arguments":
            self.assertTrue(str(result["argument"]).startswith(argument), (result["argument"], argument))
        elif "error" in result:
            self.assertIn(result["error"], self.JUDGED)
        else:
            self.assertNotIn("edit", name, "a hostile value was saved")
        self.assertLess(len(strict_utf8_json(result)), 20_000)
        self.assertEqual(helpers.dump(store), before)

    def test_every_argument_of_every_tool_rejects_every_hostile_value_cleanly(self):
        tried = 0
        for store, calls in self.stores():
            before = helpers.dump(store)
            for name, good in calls.items():
                self.assertNotIn("error", store.call_tool(name, good), name)
                before = helpers.dump(store)
                store.call_tool(name, good)  # the edit again: a replay, which writes nothing
                for argument in good:
                    for what, value in HOSTILE.items():
                        if value == good[argument] or what == "an empty string" and argument == "query":
                            continue
                        with self.subTest(tool=name, argument=argument, value=what):
                            self.assert_rejected_cleanly(store, name, dict(good, **{argument: value}), argument, before)
                            tried += 1
        self.assertGreater(tried, 250)

    def test_hostile_argument_names_are_rejected_by_a_name_that_encodes(self):
        for store, calls in self.stores():
            before = helpers.dump(store)
            for name, good in calls.items():
                for extra in ("\ud800", "x" * 100_000, "\x00", "values\n{\"error\": \"forged\"}"):
                    with self.subTest(tool=name, extra=extra[:20]):
                        result = store.call_tool(name, dict(good, **{extra: 1}))
                        self.assertEqual((result["error"], result["rule"]),
                                         ("invalid_arguments", "additionalProperties"))
                        self.assertLessEqual(len(result["argument"]), rejections.SHOWN_VALUE_CHARACTERS + 40)
                        strict_utf8_json(result)
                        self.assertEqual(helpers.dump(store), before)

    def test_hostile_values_are_judged_by_name_and_write_nothing(self):
        store, calls = self.stores()[1]
        good = calls["edit_record_item"]
        before = helpers.dump(store)
        for what, values in HOSTILE_VALUES.items():
            with self.subTest(values=what):
                self.assert_rejected_cleanly(store, "edit_record_item", dict(good, values=values), "values", before)

    def test_an_expected_version_of_5000_digits_is_named_as_such(self):
        store, calls = self.stores()[1]
        result = store.call_tool("edit_record_item", dict(calls["edit_record_item"], expected_version=10 ** 5000))
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", "expected_version", "range"))


class HostileProtocolTest(unittest.TestCase):
    def setUp(self):
        options = parse_options(["--demo"])
        self.workspace = workspace.open_workspace(options)
        self.addCleanup(self.workspace.close)
        self.server = methods.Server(self.workspace.tools())

    def call(self, arguments):
        return self.server.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                   "params": {"name": "poll_resource_events", "arguments": arguments}})

    def test_a_resource_type_that_is_a_list_or_an_object_is_a_rejection_naming_it(self):
        for kind in (["record"], {"record": 1}, None, 7, nested(100)):
            with self.subTest(resource_type=kind):
                answer = self.call({"resource_type": kind, "resource_id": "bugs"})
                self.assertNotIn("error", answer)  # no protocol error: a tool result the agent can read
                result = json.loads(answer["result"]["content"][0]["text"])
                self.assertEqual((answer["result"]["isError"], result["error"]), (True, "invalid_arguments"))
                self.assertTrue(result["argument"].startswith("resource_type"))

    def test_nothing_a_client_sends_can_start_a_line_of_the_log(self):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(command_line.OneRecordALine("mcp_server: %(message)s"))
        logger = logging.getLogger("osfoundry")
        logger.addHandler(handler)
        level = logger.level
        logger.setLevel(logging.DEBUG)
        try:
            forged = "2025-06-18\nmcp_server: people: saved art-00001 (forged)\u2028mcp_server: x\r"
            self.server.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": forged, "clientInfo": {"name": "evil\nmcp_server: forged", "version": "\x85"}}})
            stdio.answer_line(self.server, b'{"jsonrpc": "2.0", "method": "notifications/x\\nmcp_server: forged"}')
        finally:
            logger.removeHandler(handler)
            logger.setLevel(level)
        lines = stream.getvalue().split("\n")
        self.assertGreater(len(lines), 2)
        for line in lines:
            with self.subTest(line=line):
                self.assertNotRegex(line, r"^mcp_server: (people|forged|x)")
                self.assertNotIn("\u2028", line)
                self.assertNotIn("\r", line)


def deep(depth):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


SELECT = {"key": "x", "label": "X", "type": "select"}
PEOPLE_RECORD_CALLS = {
    "an option that is a string": lambda s: s.create_channel("d", "D", [dict(SELECT, options=["a"])]),
    "options that are a number": lambda s: s.create_channel("d", "D", [dict(SELECT, options=5)]),
    "an option label that is a list": lambda s: s.create_channel("d", "D", [dict(
        SELECT, options=[{"value": "a", "label": [1, 2]}])]),
    "an option value holding NUL": lambda s: s.create_channel("d", "D", [dict(
        SELECT, options=[{"value": "a\x00", "label": "A"}])]),
    "a field that is a string": lambda s: s.create_channel("d", "D", ["x"]),
    "fields that are None": lambda s: s.create_channel("d", "D", None),
    "a channel name that is None": lambda s: s.create_channel("d", None, []),
    "a channel name of a million characters": lambda s: s.create_channel("d", "n" * 10 ** 6, []),
    "a channel ID taken": lambda s: s.create_channel(BUGS, "Again", []),
    f"a channel ID of {checks.ID_CHARACTERS + 1} characters":
        lambda s: s.create_channel("d" * (checks.ID_CHARACTERS + 1), "D", []),
    "a negative max_length": lambda s: s.create_channel("d", "D", [{"key": "x", "label": "X", "type": "text",
                                                                   "max_length": -5}]),
    "a max_length of 1.5": lambda s: s.create_channel("d", "D", [{"key": "x", "label": "X", "type": "text",
                                                                 "max_length": 1.5}]),
    "max_stars of 10**400": lambda s: s.create_channel("d", "D", [{"key": "x", "label": "X", "type": "rating",
                                                                  "max_stars": 10 ** 400}]),
    "a minimum that is NaN": lambda s: s.create_channel("d", "D", [{"key": "x", "label": "X", "type": "number",
                                                                   "min": float("nan")}]),
    "a minimum that is True": lambda s: s.create_channel("d", "D", [{"key": "x", "label": "X", "type": "number",
                                                                    "min": True}]),
    "values that are None": lambda s: s.create_item(BUGS, None),
    "values that are a list": lambda s: s.create_item(BUGS, [("title", "x")]),
    "a key that is an integer": lambda s: s.create_item(BUGS, {1: "x"}),
    "an integer of 3001 bits": lambda s: s.create_item(BUGS, {"title": "t", "ticket": "T-9", "status": "new",
                                                              "points": 2 ** 3000}),
    "values nested 100 deep": lambda s: s.create_item(BUGS, {"title": deep(100)}),
    "an item ID holding NUL": lambda s: s.create_item(BUGS, {"title": "t"}, item_id="a\x00b"),
    "an item ID that is a number": lambda s: s.create_item(BUGS, {"title": "t"}, item_id=5),
    "an item ID taken": lambda s: s.create_item(BUGS, {"title": "t", "ticket": "T-9", "status": "new"},
                                                item_id=s.item_ids(BUGS)[0]),
    "an edit of no values": lambda s: s.edit_item(BUGS, s.item_ids(BUGS)[0], {}),
    "an edit of None": lambda s: s.edit_item(BUGS, s.item_ids(BUGS)[0], None),
    "an edit of an ID that is a list": lambda s: s.edit_item(BUGS, ["x"], {"title": "y"}),
    "an edit that outgrows the item": lambda s: s.edit_item(BUGS, s.item_ids(BUGS)[0], {"title": "y" * 210_000}),
    "a delete of an ID that is an object": lambda s: s.delete_item(BUGS, {"a": 1}),
}

FIRST_ARTICLE = "art-00001"  # support_store's first article
PEOPLE_KB_CALLS = {
    "a knowledge base ID taken": lambda s: s.create_knowledge_base(KB),
    "a knowledge base name that is a list": lambda s: s.create_knowledge_base("kb-2", ["x"]),
    "a knowledge base ID holding NUL": lambda s: s.create_knowledge_base("k\x00b"),
    "a title holding a lone surrogate": lambda s: s.create_article(KB, "T\ud800", "c"),
    "content holding NUL": lambda s: s.create_article(KB, "T", "a\x00b"),
    "an article ID taken": lambda s: s.create_article(KB, "T", "c", article_id=FIRST_ARTICLE),
    "published that is a string": lambda s: s.create_article(KB, "T", "c", published="no"),
    "a save of a lone surrogate": lambda s: s.save_article(KB, FIRST_ARTICLE, content="\udc80"),
    "a save of an ID that is a list": lambda s: s.save_article(KB, ["a"], content="x"),
    "2**63 views": lambda s: s.add_views(KB, FIRST_ARTICLE, 2 ** 63),
    "views that would pass 2**63 - 1": lambda s: s.add_views(KB, FIRST_ARTICLE, 2 ** 63 - 1),
    "negative views": lambda s: s.add_views(KB, FIRST_ARTICLE, -1),
}


class PeopleSideTest(unittest.TestCase):
    """The people's methods refuse what the agents' tools refuse, with a ValueError, and write nothing."""

    def assert_refused_and_nothing_written(self, store, calls):
        for what, call in calls.items():
            with self.subTest(call=what):
                before = helpers.snapshot(store)
                with self.assertRaises(ValueError):
                    call(store)
                self.assertEqual(helpers.snapshot(store), before)

    def test_bad_record_definitions_values_and_ids_are_refused(self):
        store, _, _ = bug_store()
        self.assert_refused_and_nothing_written(store, PEOPLE_RECORD_CALLS)

    def test_bad_knowledge_base_arguments_are_refused(self):
        store, _, ids = support_store()
        self.assertEqual(ids[0], FIRST_ARTICLE)
        store.add_views(KB, FIRST_ARTICLE, 5)
        self.assert_refused_and_nothing_written(store, PEOPLE_KB_CALLS)


if __name__ == "__main__":
    unittest.main()
