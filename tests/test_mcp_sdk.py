"""The official Python SDK client (`mcp`, 2.x) lists and calls every tool of mcp_server.py.

The SDK needs Python >= 3.10 and is not part of the standard library, so without it
this test is skipped; `make conformance` installs mcp==2.3.0 into .venv and runs it
there with MCP_SDK_REQUIRED=1, which turns the skip into a failure.
"""

import asyncio
import json
import os
import sys
import tempfile
import unittest

from tests.helpers import ROOT, sdk_missing, store_definitions

try:
    import jsonschema
    from mcp import ClientSession, MCPError, StdioServerParameters
    from mcp.client.stdio import stdio_client
except ImportError as error:  # the SDK is optional: make conformance installs it
    SDK_MISSING = sdk_missing(error)
else:
    SDK_MISSING = ""

from benchmark import round_trips
from osfoundry_tools.content import demo

SERVER = os.path.join(ROOT, "mcp_server.py")
KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
REQUIRED = os.environ.get("MCP_SDK_REQUIRED") == "1"


def in_session(check, *server_args):
    """Run `await check(session)` in an SDK client session with `mcp_server.py --demo`; return what it returns."""

    async def run():
        parameters = StdioServerParameters(command=sys.executable, args=[SERVER, "--demo", *server_args], cwd=ROOT)
        with tempfile.TemporaryFile("w+") as errlog:  # the SDK needs a real file for the server's stderr
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    return await check(session)

    return asyncio.run(run())


def read_demo_article(argv):
    """The tools/call result of one read of round_trips.demo_article() on a fresh server, through round_trips's
    client."""
    client = round_trips.Client(argv)
    try:
        client.handshake()
        return client.request("tools/call", {"name": round_trips.TOOL, "arguments": round_trips.demo_article()})
    finally:
        client.close()


def without_versions(answer):
    """An answer without its updated_at values: each server writes the demo, so each stamps its own start."""
    return {key: without_versions(value) if isinstance(value, dict) else value
            for key, value in answer.items() if key != "updated_at"}


def require_sdk():
    """Only reached when the class was not skipped: with MCP_SDK_REQUIRED=1, a missing SDK fails."""
    if SDK_MISSING:
        raise AssertionError(SDK_MISSING)


class SkipReasonTest(unittest.TestCase):
    """Where the SDK cannot be imported, its modules skip for one reason, the real one, in one line."""

    def test_every_sdk_module_gives_the_same_reason_and_on_python_3_9_names_the_version_it_needs(self):
        from tests import test_mcp_sdk_modes
        self.assertEqual(SDK_MISSING, test_mcp_sdk_modes.SDK_MISSING)
        self.assertNotIn("\n", SDK_MISSING)
        if sys.version_info < (3, 10):
            self.assertIn("needs Python 3.10 or newer", SDK_MISSING)


@unittest.skipIf(SDK_MISSING and not REQUIRED, SDK_MISSING)
class SdkClientTest(unittest.TestCase):
    """The SDK's client, as Claude Code's peers use it, against our server."""

    @classmethod
    def setUpClass(cls):
        require_sdk()
        cls.definitions = store_definitions()
        cls.article = demo.draw_plan(demo.SEED).published()[0]

    def test_the_sdk_negotiates_the_latest_version_and_reads_server_info(self):
        async def check(session):
            return session.initialize_result, await session.send_ping()

        result, _ = in_session(check)
        self.assertEqual(result.protocol_version, "2025-11-25")
        self.assertEqual(result.server_info.name, "osfoundry-reconstruction")
        self.assertIsNotNone(result.capabilities.tools)
        self.assertIn("expected_version", result.instructions)

    def test_the_sdk_lists_the_seven_tools_as_the_stores_define_them(self):
        async def check(session):
            return (await session.list_tools()).tools

        tools = in_session(check)
        self.assertEqual(sorted(tool.name for tool in tools), sorted(self.definitions))
        for tool in tools:
            with self.subTest(tool=tool.name):
                definition = self.definitions[tool.name]
                self.assertEqual(tool.input_schema, definition["inputSchema"])
                self.assertEqual(tool.output_schema, definition["outputSchema"])
                self.assertEqual(tool.title, definition["title"])
                self.assertEqual(tool.description, definition["description"])
                self.assertEqual(tool.annotations.model_dump(by_alias=True, exclude_none=True),
                                 definition["annotations"])

    def test_the_sdk_calls_every_tool_and_each_result_conforms_to_its_output_schema(self):
        async def check(session):
            await session.list_tools()  # the SDK validates structured content against the listed outputSchema
            page = await session.call_tool("list_record_items", {"record_channel_id": CHANNEL, "limit": 2})
            item = page.structured_content["items"][0]
            read = await session.call_tool("read_knowledge_article",
                                           {"knowledge_base_id": KB, "article_id": self.article.article_id})
            calls = {
                "search_knowledge_base": {"knowledge_base_id": KB, "query": self.article.title},
                "poll_resource_events": {"resource_type": "record", "resource_id": CHANNEL, "limit": 3},
                "read_record_item": {"record_channel_id": CHANNEL, "item_id": item["item_id"]},
                "edit_record_item": {"record_channel_id": CHANNEL, "item_id": item["item_id"],
                                     "values": {"owner": "ren"}, "expected_version": item["version"],
                                     "idempotency_key": "sdk-1"},
                "edit_knowledge_article": {"knowledge_base_id": KB, "article_id": self.article.article_id,
                                           "content": "Rewritten through the SDK.",
                                           "expected_version": read.structured_content["updated_at"],
                                           "idempotency_key": "sdk-1"},
            }
            results = {"list_record_items": page, "read_knowledge_article": read}
            for name, arguments in calls.items():
                results[name] = await session.call_tool(name, arguments)
            return results

        results = in_session(check)
        self.assertEqual(sorted(results), sorted(self.definitions))
        for name, result in results.items():
            with self.subTest(tool=name):
                self.assertFalse(result.is_error, result.content)
                jsonschema.validate(result.structured_content, self.definitions[name]["outputSchema"])
                self.assertEqual(json.loads(result.content[0].text), result.structured_content)

    def test_a_version_conflict_and_an_idempotent_replay_through_the_sdk(self):
        async def check(session):
            read = await session.call_tool("read_record_item", {"record_channel_id": CHANNEL, "item_id": "itm-00001"})
            edit = {"record_channel_id": CHANNEL, "item_id": "itm-00001", "values": {"status": "triaged"},
                    "expected_version": read.structured_content["version"], "idempotency_key": "sdk-replay"}
            first = await session.call_tool("edit_record_item", edit)
            again = await session.call_tool("edit_record_item", edit)
            stale = await session.call_tool("edit_record_item", dict(edit, idempotency_key="sdk-stale"))
            return first, again, stale

        first, again, stale = in_session(check)
        self.assertEqual(first.structured_content["replay"], False)
        self.assertEqual(again.structured_content, dict(first.structured_content, replay=True))
        self.assertTrue(stale.is_error)
        self.assertIsNone(stale.structured_content)
        self.assertEqual(json.loads(stale.content[0].text)["error"], "version_conflict")
        self.assertIn("read_record_item again", stale.content[0].text)

    def test_bad_arguments_are_error_results_and_an_unknown_tool_is_invalid_params(self):
        async def check(session):
            bad = await session.call_tool("list_record_items", {"record_channel_id": CHANNEL, "limit": 500})
            try:
                await session.call_tool("drop_all_tables", {})
            except MCPError as error:
                unknown = error.error.code
            else:
                unknown = None
            after = await session.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                                     "resource_id": KB})
            return bad, unknown, after

        bad, unknown, after = in_session(check)
        self.assertTrue(bad.is_error)
        self.assertIn('argument "limit" must be an integer from 1 to 50', json.loads(bad.content[0].text)["message"])
        self.assertEqual(unknown, -32602)
        self.assertFalse(after.is_error)  # the server went on

    def test_the_sdk_meets_a_conflict_made_by_the_simulated_colleague(self):
        async def check(session):
            listed = await session.call_tool("list_record_items", {"record_channel_id": CHANNEL})
            seen = {item["item_id"]: item["version"] for item in listed.structured_content["items"]}
            for _ in range(1000):  # at most 20 s
                await asyncio.sleep(0.02)
                for item_id, version in seen.items():
                    now = await session.call_tool("read_record_item", {"record_channel_id": CHANNEL,
                                                                       "item_id": item_id})
                    if now.structured_content["version"] > version:
                        return await session.call_tool("edit_record_item", {
                            "record_channel_id": CHANNEL, "item_id": item_id, "values": {"points": 5},
                            "expected_version": version, "idempotency_key": "sdk-late"})
            return None

        result = in_session(check, "--people-edit-every", "0.05")
        self.assertIsNotNone(result, "no item changed in 20 s")
        self.assertTrue(result.is_error)
        self.assertIsNone(result.structured_content)
        self.assertEqual(json.loads(result.content[0].text)["error"], "version_conflict")


@unittest.skipIf(SDK_MISSING and not REQUIRED, SDK_MISSING)
class SdkServerBenchmarkTest(unittest.TestCase):
    """benchmark/sdk_server.py, the same read served by the SDK's MCPServer, as benchmark/round_trips.py --sdk
    times it."""

    @classmethod
    def setUpClass(cls):
        require_sdk()
        cls.command = round_trips.sdk_server_command()

    def test_this_python_has_the_sdk_so_the_sdk_server_runs_with_it(self):
        self.assertEqual(self.command, [sys.executable, round_trips.SDK_SERVER])

    def test_round_trips_on_the_sdk_server_returns_one_positive_sample_per_call(self):
        samples = round_trips.round_trips(self.command, round_trips.TOOL, round_trips.demo_article(), 20)
        self.assertEqual(len(samples), 20)
        self.assertTrue(all(sample > 0 for sample in samples))

    def test_the_sdk_server_answers_the_read_with_our_structured_result(self):
        ours, theirs = read_demo_article([sys.executable, SERVER, "--demo"]), read_demo_article(self.command)
        self.assertFalse(ours["isError"])
        self.assertFalse(theirs["isError"])
        self.assertEqual(without_versions(theirs["structuredContent"]), without_versions(ours["structuredContent"]))
        answer = theirs["structuredContent"]
        self.assertEqual(answer["citation"]["updated_at"], answer["updated_at"])
        self.assertEqual(json.loads(theirs["content"][0]["text"]), answer)

    def test_a_rejected_read_is_an_error_result_that_stops_the_benchmark(self):
        with self.assertRaisesRegex(RuntimeError, "not_found"):
            round_trips.round_trips(self.command, round_trips.TOOL, {"knowledge_base_id": KB, "article_id": "missing"},
                                  count=1, warm_up=0)


if __name__ == "__main__":
    unittest.main()
