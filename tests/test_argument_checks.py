"""The argument check: the subset of JSON Schema the tools use, and rejections that name argument, rule and value."""

import dataclasses
import json
import sqlite3
import unittest

from tests import helpers  # noqa: F401
from tests.test_hostile_input import HOSTILE
from osfoundry_tools.core.agent_tools import AgentTools
from osfoundry_tools.core.clock import wall_clock
from osfoundry_tools.core.checks import MAX_NESTING, acceptor, check, checked_text, describe, screen
from osfoundry_tools.core.compiled_checks import compiled
from osfoundry_tools.core.rejections import InvalidArguments, show
from osfoundry_tools.core.tools import Tool, integer, object_schema, string
from osfoundry_tools.engines.database import Database, Layout
from osfoundry_tools.stores import kb_store
from osfoundry_tools.stores import record_store

SCHEMA = object_schema({
    "name": string(2, 5, "a name"),
    "count": integer(1, 20, "a count"),
    "when": {"type": "string", "format": "date-time"},
    "kind": {"type": "string", "enum": ["a", "b"]},
    "values": {"type": "object"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "ratio": {"type": ["number", "null"]},
}, ["name"])


def rejection(value):
    try:
        check(SCHEMA, value)
    except InvalidArguments as error:
        return error.as_result()
    return None


class CheckTest(unittest.TestCase):
    def assertRejected(self, arguments, argument, rule):
        result = rejection(arguments)
        self.assertIsNotNone(result, f"{arguments!r} was accepted")
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", argument, rule), result)
        json.dumps(result, allow_nan=False)
        return result

    def test_valid_arguments_pass(self):
        self.assertIsNone(rejection({"name": "ab", "count": 20, "when": "2026-11-09T09:15:02Z", "kind": "b",
                                     "values": {"x": [1]}, "tags": ["t"], "ratio": None}))

    def test_a_bool_is_not_an_integer(self):
        self.assertRejected({"name": "ab", "count": True}, "count", "type")

    def test_a_float_is_not_an_integer_even_when_whole(self):
        self.assertRejected({"name": "ab", "count": 1.0}, "count", "type")

    def test_a_string_of_digits_is_not_an_integer(self):
        result = self.assertRejected({"name": "ab", "count": "5"}, "count", "type")
        self.assertIn('got "5" (a string)', result["message"])

    def test_nan_and_infinity_are_not_numbers_and_are_quoted_as_strict_json(self):
        for value in (float("nan"), float("inf"), float("-inf")):
            result = self.assertRejected({"name": "ab", "ratio": value}, "ratio", "type")
            self.assertEqual(result["got"], str(value))

    def test_an_integer_too_large_for_a_float_is_not_a_number(self):
        self.assertRejected({"name": "ab", "ratio": 10 ** 400}, "ratio", "type")
        self.assertIsNone(rejection({"name": "ab", "ratio": 10 ** 300}))

    def test_bounds_are_inclusive(self):
        self.assertIsNone(rejection({"name": "ab", "count": 1}))
        self.assertRejected({"name": "ab", "count": 0}, "count", "minimum")
        self.assertRejected({"name": "ab", "count": 21}, "count", "maximum")

    def test_string_lengths_count_characters_not_bytes(self):
        self.assertIsNone(rejection({"name": "ééééé"}))
        self.assertRejected({"name": "a"}, "name", "minLength")
        self.assertRejected({"name": "abcdef"}, "name", "maxLength")

    def test_a_lone_surrogate_is_rejected_before_it_reaches_sqlite(self):
        self.assertRejected({"name": "a\ud800b"}, "name", "encoding")

    def test_text_people_give_is_held_to_the_same_rule_ascii_or_not(self):
        for text in ("plain", "é" * 5, "😀", "x" * 9):
            with self.subTest(text=text):
                self.assertIs(checked_text(text, "a title", 9), text)
        for text, words in (("a\ud800b", "valid Unicode"), ("\udc80", "valid Unicode"), ("a\x00", "NUL"),
                            ("é\x00", "NUL"), ("", "1 to 9"), ("x" * 10, "1 to 9"), (b"bytes", "1 to 9")):
            with self.subTest(text=text):
                with self.assertRaisesRegex(ValueError, f"^a title must .*{words}"):
                    checked_text(text, "a title", 9)

    def test_missing_required_and_unknown_arguments_are_named(self):
        result = self.assertRejected({}, "name", "required")
        self.assertIn("a string of 2 to 5 characters", result["message"])
        result = self.assertRejected({"name": "ab", "colour": 1}, "colour", "additionalProperties")
        self.assertIn("name, count, when, kind, values, tags, ratio", result["message"])

    def test_an_unknown_argument_that_reads_as_a_known_one_is_named_with_it(self):
        for sent in ("Name", "NAME", "ｎａｍｅ", "Ｎame"):
            with self.subTest(sent=sent):
                result = self.assertRejected({sent: "ab"}, sent, "additionalProperties")
                self.assertTrue(result["message"].endswith(
                    'Argument names are case-sensitive: did you mean "name"? Rename it and call again.'), result)
        result = self.assertRejected({"name": "ab", "colour": 1}, "colour", "additionalProperties")
        self.assertTrue(result["message"].endswith("Remove it and call again."), result)

    def test_enum_and_format(self):
        result = self.assertRejected({"name": "ab", "kind": "c"}, "kind", "enum")
        self.assertIn('one of "a", "b"', result["message"])
        self.assertRejected({"name": "ab", "when": "Friday"}, "when", "format")

    def test_array_items_are_checked_with_their_index(self):
        self.assertRejected({"name": "ab", "tags": ["ok", 3]}, "tags[1]", "type")

    def test_arguments_that_are_not_an_object_are_rejected(self):
        for value in (None, [], "x", 3):
            self.assertRejected(value, "arguments", "type")

    def test_long_values_are_quoted_cut(self):
        self.assertEqual(show("x" * 500), "x" * 80 + "… (500 characters)")
        self.assertEqual(show(5), 5)

    def test_descriptions_read_as_words(self):
        self.assertEqual(describe(integer(1, 20, "")), "an integer from 1 to 20")
        self.assertEqual(describe(integer(0, None, "")), "an integer of at least 0")
        self.assertEqual(describe(string(1, 9, "")), "a string of 1 to 9 characters")


ECHO_LAYOUT = Layout(name="echo", application_id=0x4543484F, version=1, schema="", tables=frozenset())  # "ECHO"


class Echo(AgentTools):
    TOOLS = (Tool("echo", "Echo", "Echo.", object_schema({"n": integer(0, 9, "")}, ["n"]),
                  object_schema({}, []), {"readOnlyHint": True}),)

    def __init__(self, failure=None):
        super().__init__(Database(":memory:", ECHO_LAYOUT), granted=None, clock=wall_clock)
        self.failure = failure

    def _tool_echo(self, arguments):
        if self.failure:
            raise self.failure
        return {"n": arguments["n"]}


class CallToolTest(unittest.TestCase):
    def test_a_valid_call_reaches_the_handler(self):
        self.assertEqual(Echo().call_tool("echo", {"n": 3}), {"n": 3})

    def test_an_unknown_tool_is_a_rejection_naming_the_tools(self):
        result = Echo().call_tool("ech", {"n": 3})
        self.assertEqual(result["error"], "unknown_tool")
        self.assertIn("echo", result["message"])

    def test_a_tool_name_that_is_not_a_string_is_an_unknown_tool(self):
        self.assertEqual(Echo().call_tool(None, {"n": 3})["error"], "unknown_tool")

    def test_a_call_reaches_the_tool_that_tool_finds_whatever_tools_the_store_lists_now(self):
        double = Tool("double", "Double", "Double.", Echo.TOOLS[0].input_schema, object_schema({}, []),
                      {"readOnlyHint": True})

        class Twice(Echo):
            TOOLS = Echo.TOOLS + (double, dataclasses.replace(double, input_schema=object_schema({}, [])))

            def _tool_double(self, arguments):
                return {"n": 2 * arguments["n"]}
        store = Twice()
        self.assertEqual([store.call_tool(name, {"n": 3}) for name in ("echo", "double")], [{"n": 3}, {"n": 6}])
        self.assertEqual(store.call_tool("double", {})["error"], "invalid_arguments")  # the first "double" listed
        store.TOOLS = (double,)  # listed otherwise since the class was made: what tool() finds is called
        self.assertEqual((store.call_tool("double", {"n": 4}), store.call_tool("echo", {"n": 4})["error"]),
                         ({"n": 8}, "unknown_tool"))
        self.assertEqual(Twice().call_tool("echo", {"n": 5}), {"n": 5})

    def test_a_locked_database_becomes_a_busy_rejection(self):
        result = Echo(sqlite3.OperationalError("database is locked")).call_tool("echo", {"n": 3})
        self.assertEqual(result["error"], "busy")
        self.assertIn("same idempotency_key", result["message"])

    def test_a_bug_becomes_an_internal_error_not_a_traceback(self):
        with self.assertLogs("osfoundry", "ERROR"):
            result = Echo(ZeroDivisionError("division by zero")).call_tool("echo", {"n": 3})
        self.assertEqual(result["error"], "internal_error")
        self.assertIn("ZeroDivisionError", result["message"])



class AcceptorTest(unittest.TestCase):
    """call_tool's quick test, made once per tool: what it accepts, check() accepts; what it cannot judge, it
    leaves to check() (so every rejection keeps check()'s words)."""

    def schemas(self):
        tools = kb_store.KnowledgeBaseStore.TOOLS + record_store.RecordStore.TOOLS
        return [("SCHEMA", SCHEMA)] + [(tool.name, tool.input_schema) for tool in tools]

    def values(self, schema):
        """The hostile values in every argument of `schema`, and a few that are sound."""
        sound = {"knowledge_base_id": "kb", "record_channel_id": "bugs", "item_id": "itm-00001", "article_id": "a",
                 "query": "reset password", "content": "Text.", "title": "T", "values": {"status": "new"},
                 "expected_version": "2026-11-09T09:15:02.123456Z", "idempotency_key": "k", "limit": 5,
                 "resource_type": "record", "resource_id": "bugs", "after_sequence": 0, "before_id": "itm-00002",
                 "name": "abc", "count": 3, "when": "2026-11-09T09:15:02Z", "kind": "a", "tags": ["t"],
                 "ratio": None}
        if isinstance(schema["properties"].get("expected_version"), dict) and \
                schema["properties"]["expected_version"]["type"] == "integer":
            sound["expected_version"] = 1  # a record item's version
        good = {key: value for key, value in sound.items() if key in schema["properties"]}
        yield good
        for argument in schema["properties"]:
            for value in list(HOSTILE.values()) + [1, 0, -1, 2 ** 63, 50, 51, "é", "2026-13-01T00:00:00Z", [], {}]:
                yield dict(good, **{argument: value})
        yield {key: value for key, value in good.items() if key != next(iter(good))}  # one missing
        yield dict(good, unknown=1)
        yield ["not", "an", "object"]

    def test_what_the_quick_test_accepts_check_accepts_and_sound_calls_take_the_quick_way(self):
        judged = 0
        for name, schema in self.schemas():
            accepts = acceptor(schema)
            for number, value in enumerate(self.values(schema)):
                with self.subTest(schema=name, value=number):
                    if accepts(value):
                        check(schema, value)  # raises if the quick test let through what check() refuses
                    elif number == 0 and name != "SCHEMA":  # SCHEMA has a list of types: check() alone
                        self.fail(f"a sound call of {name} was left to check()")
                    judged += 1
        self.assertGreater(judged, 1000)

    def test_a_schema_with_words_it_was_not_written_for_is_left_to_check(self):
        for schema in ({"type": "string", "pattern": "^a"}, {"type": ["string", "null"]}, {"minProperties": 1},
                       object_schema({"a": {"type": "string", "pattern": "^a"}}, [])):
            with self.subTest(schema=schema):
                self.assertFalse(acceptor(schema)("a" if "pattern" in schema else {"a": "a"}))


class CompiledTest(unittest.TestCase):
    """call_tool's compiled test, written once from each tool's inputSchema: what it admits, screen() and check()
    both pass; every sound call is admitted; what it cannot judge goes to them."""

    schemas, values = AcceptorTest.schemas, AcceptorTest.values

    def test_what_the_compiled_test_admits_screen_and_check_pass(self):
        judged = admitted = 0
        for name, schema in self.schemas():
            admits = compiled(schema)
            for number, value in enumerate(self.values(schema)):
                with self.subTest(schema=name, value=number):
                    if admits(value):
                        screen(value)  # raises if the compiled test let through what screen() refuses
                        check(schema, value)  # or what check() refuses
                        admitted += 1
                    elif number == 0 and name != "SCHEMA":
                        self.fail(f"a sound call of {name} was not admitted")
                    judged += 1
        self.assertGreater(judged, 1000)
        self.assertGreater(admitted, 20)

    def test_open_values_are_screened_as_screen_screens_them(self):
        admits = record_store.EDIT_RECORD_ITEM.admits
        sound = {"record_channel_id": "bugs", "item_id": "itm-00001", "expected_version": 1, "idempotency_key": "k"}

        def nested(levels):
            value = {}
            for _ in range(levels):
                value = {"a": value}
            return value
        for values, passes in ((nested(MAX_NESTING - 1), True), (nested(MAX_NESTING), False),
                               ({"points": 2 ** 1024}, False), ({"points": 2 ** 1000}, True),
                               ({"tags": [[1, [2 ** 1100]]]}, False), ({"tags": [True, None, 1.5, "x"]}, True)):
            arguments = dict(sound, values=values)
            with self.subTest(values=str(values)[:40]):
                try:
                    screen(arguments)
                    screened = True
                except InvalidArguments:
                    screened = False
                self.assertEqual(screened, passes)
                self.assertEqual(admits(arguments), passes)

    def test_an_object_inside_an_object_is_held_to_its_own_schema(self):
        inner = object_schema({"y": integer(0, 9, "")}, ["y"])
        schema = object_schema({"note": {"type": "string"}, "inner": inner, "other": object_schema({}, [])}, [])
        admits = compiled(schema)
        for value, passes in (({"inner": {}}, False), ({"inner": {"y": 1}}, True), ({"inner": {"y": 10}}, False),
                              ({"inner": {"y": 1, "z": 2}}, False), ({"note": "x", "other": {}}, True),
                              ({"other": {"y": 1}}, False), ({"inner": {"inner": {"y": 1}}}, False)):
            with self.subTest(value=value):
                try:
                    check(schema, value)
                    checked = True
                except InvalidArguments:
                    checked = False
                self.assertEqual(checked, passes)
                self.assertEqual(admits(value), passes)

    def test_a_schema_with_words_it_was_not_written_for_is_left_to_check(self):
        for schema in ({"type": "string", "pattern": "^a"}, {"type": ["string", "null"]}, {"minProperties": 1},
                       object_schema({"a": {"type": "string", "pattern": "^a"}}, []),
                       {"type": "object", "properties": {"a": {"type": "string"}}}):
            with self.subTest(schema=schema):
                self.assertFalse(compiled(schema)("a" if "pattern" in schema else {"a": "a"}))


if __name__ == "__main__":
    unittest.main()
