"""The MCP Inspector's command line lists and calls our tools and finds nothing unportable in their schemas.

The Inspector (a Node program, fetched by npx from the npm registry) lints every tool's schemas for what some
MCP clients cannot read, such as a "type" given as a list; with --strict it prints each finding. It needs
the network, so `make test` skips it; `make conformance` runs it (MCP_INSPECTOR=1), and without npx, or
where npx cannot fetch the Inspector, skips it with a message saying so.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.helpers import ROOT

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"
RUN = os.environ.get("MCP_INSPECTOR") == "1"
WAIT = 300  # seconds: the first run downloads the Inspector
SERVER = [sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo"]


def inspector(*arguments):
    """One Inspector command-line run against the demo server: its exit status, stdout and stderr."""
    npx = shutil.which("npx")
    if npx is None:
        raise unittest.SkipTest("npx is not installed: the MCP Inspector's check needs Node.js")
    done = subprocess.run([npx, "--yes", INSPECTOR, "--cli", *SERVER, *arguments], capture_output=True, text=True,
                          timeout=WAIT, cwd=ROOT, stdin=subprocess.DEVNULL)
    if done.returncode != 0 and "npm error" in done.stderr:
        raise unittest.SkipTest(f"npx could not fetch {INSPECTOR}: {done.stderr.strip().splitlines()[-1]}")
    return done


def findings(stderr):
    """The Inspector's lines about the server's schemas (npm's own warnings and the server's log aside)."""
    return [line for line in stderr.splitlines()
            if not line.startswith(("npm warn", "mcp_server:")) and line.strip()]


@unittest.skipUnless(RUN, "fetches the Inspector with npx: make conformance runs it (MCP_INSPECTOR=1)")
class InspectorTest(unittest.TestCase):
    def test_it_lists_the_seven_tools_and_finds_no_schema_it_calls_unportable(self):
        done = inspector("--method", "tools/list", "--strict")
        self.assertEqual(done.returncode, 0, done.stderr)
        names = [tool["name"] for tool in json.loads(done.stdout)["tools"]]
        self.assertEqual(len(names), 7)
        self.assertEqual(findings(done.stderr), [])

    def test_it_calls_a_tool_and_gets_structured_content(self):
        done = inspector("--method", "tools/call", "--tool-name", "search_knowledge_base",
                         "--tool-arg", "knowledge_base_id=kb-support", "--tool-arg", "query=reset my password")
        self.assertEqual(done.returncode, 0, done.stderr)
        result = json.loads(done.stdout)
        self.assertFalse(result.get("isError"))
        self.assertTrue(result["structuredContent"]["results"])

    def test_a_rejection_comes_through_as_the_server_sent_it_not_as_the_clients_own_error(self):
        done = inspector("--method", "tools/call", "--tool-name", "read_knowledge_article",
                         "--tool-arg", "knowledge_base_id=kb-support", "--tool-arg", "article_id=art-99999")
        result = json.loads(done.stdout)  # the Inspector exits non-zero on isError, after printing the result
        self.assertTrue(result["isError"], done.stderr)
        self.assertNotIn("structuredContent", result)
        self.assertEqual(json.loads(result["content"][0]["text"])["error"], "not_found")



@unittest.skipUnless(RUN, "fetches the Inspector with npx: make conformance runs it (MCP_INSPECTOR=1)")
class InspectorOverHttpTest(unittest.TestCase):
    """The Inspector's command line over Streamable HTTP, with a bearer token, in each era it can speak."""

    TOKEN = "inspector-token-0123456789abcdef"

    @classmethod
    def setUpClass(cls):
        from tests.test_mcp_server_http import HttpServer, write_tokens
        cls.folder = tempfile.TemporaryDirectory()
        tokens = write_tokens(cls.folder.name, {cls.TOKEN: {"caller": "inspector", "knowledge_bases": "*",
                                                            "channels": "*"}})
        cls.server = HttpServer("--demo", "--tokens", tokens)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        cls.folder.cleanup()

    def inspect(self, *arguments):
        npx = shutil.which("npx")
        if npx is None:
            raise unittest.SkipTest("npx is not installed: the MCP Inspector's check needs Node.js")
        url = f"http://127.0.0.1:{self.server.port}/mcp"
        return subprocess.run([npx, "--yes", INSPECTOR, "--cli", url, "--transport", "http", *arguments],
                              capture_output=True, text=True, timeout=WAIT, cwd=ROOT, stdin=subprocess.DEVNULL)

    def test_it_lists_the_tools_with_a_token_in_each_era(self):
        for era in ("legacy", "modern"):
            with self.subTest(era=era):
                done = self.inspect("--header", f"Authorization: Bearer {self.TOKEN}", "--protocol-era", era,
                                    "--method", "tools/list")
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertEqual(len(json.loads(done.stdout)["tools"]), 7)

    def test_without_a_token_it_is_refused(self):
        done = self.inspect("--method", "tools/list")
        self.assertNotEqual(done.returncode, 0)
        self.assertRegex(done.stdout + done.stderr, "401|Unauthorized|auth_required")  # it asks for OAuth at the 401


if __name__ == "__main__":
    unittest.main()
