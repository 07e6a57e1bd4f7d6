"""mcp_server.py --http end to end: a token file's grants, 8 agents editing at once over HTTP, and the options that
refuse an unsafe or contradictory command line."""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from osfoundry_tools.content import demo
from osfoundry_tools.server.options import parse_options
from tests.helpers import ROOT, server_options_refused

SERVER = os.path.join(ROOT, "mcp_server.py")
WRITE_TOKEN, READ_TOKEN = "agent-token-with-write-0123456789", "reader-token-read-only-9876543210"
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}
KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
AGENTS, SAVES = 8, 4


def write_tokens(folder, tokens, mode=0o600):
    path = os.path.join(folder, "tokens.json")
    with open(path, "w", encoding="utf-8") as file:
        json.dump(tokens, file)
    os.chmod(path, mode)
    return path


class HttpServer:
    """mcp_server.py --http on a free port: its address read from its startup line, its stderr kept."""

    def __init__(self, *args):
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, SERVER, "--http", "127.0.0.1:0", *args], cwd=ROOT,
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = re.search(r"at http://127\.0\.0\.1:(\d+)/mcp", self.text())
            if found:
                self.port = int(found.group(1))
                return
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited: {self.text()}")
            time.sleep(0.05)
        raise AssertionError(f"the server never said where it listens: {self.text()}")

    def text(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        return self.text()


class Agent:
    """One HTTP client of the stateless era, on a kept-alive connection, with its bearer token."""

    def __init__(self, port, token=None):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.token, self.next_id = token, 0

    def post(self, method, params):
        self.next_id += 1
        body = json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                           "params": dict(params, _meta=MODERN)})
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
        if "name" in params:
            headers["Mcp-Name"] = params["name"]
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        self.connection.request("POST", "/mcp", body, headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def call(self, name, arguments):
        status, answer = self.post("tools/call", {"name": name, "arguments": arguments})
        assert status == 200, (status, answer)
        result = answer["result"]
        return json.loads(result["content"][0]["text"])

    def close(self):
        self.connection.close()


class SeveralAgentsTest(unittest.TestCase):
    """Eight agents, each with its own token and caller, racing over HTTP on one article and one item."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        tokens = {f"agent-{n}-token-0123456789abcdef": {"caller": f"agent-{n}", "knowledge_bases": "*",
                                                         "channels": "*", "scopes": ["osfoundry:write"]}
                  for n in range(AGENTS)}
        tokens[READ_TOKEN] = {"caller": "reader", "knowledge_bases": "*", "channels": "*"}
        cls.tokens = sorted(token for token in tokens if token != READ_TOKEN)
        cls.server = HttpServer("--demo", "--kb-db", os.path.join(cls.folder.name, "kb.db"), "--records-db",
                                os.path.join(cls.folder.name, "records.db"), "--verbose", "--tokens",
                                write_tokens(cls.folder.name, tokens))

    @classmethod
    def tearDownClass(cls):
        cls.log = cls.server.stop()
        cls.folder.cleanup()

    def test_eight_agents_keep_one_chain_each_and_the_log_has_every_saved_edit_once(self):
        reader = Agent(self.server.port, READ_TOKEN)
        self.addCleanup(reader.close)
        item = reader.call("list_record_items", {"record_channel_id": CHANNEL, "limit": 1})["items"][0]["item_id"]
        article = reader.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "password"})["results"][0][
            "article_id"]
        saved = {"article": [], "item": []}
        agents = [threading.Thread(target=self.edit_until_saved, args=(token, article, item, saved))
                  for token in self.tokens]
        for agent in agents:
            agent.start()
        for agent in agents:
            agent.join(timeout=120)
        self.assertEqual((len(saved["article"]), len(saved["item"])), (AGENTS * SAVES, AGENTS * SAVES))
        item_log = [e for e in self.poll(reader, "record", CHANNEL) if e["item_id"] == item and e["type"] == "updated"]
        self.assertEqual([e["version"] for e in item_log], list(range(2, 2 + AGENTS * SAVES)))
        self.assertEqual(sorted(e["version"] for e in item_log), sorted(saved["item"]))
        kb_log = [e for e in self.poll(reader, "knowledge_base", KB) if e["article_id"] == article]
        versions = [e["updated_at"] for e in kb_log if e["type"] == "updated"]
        self.assertEqual(versions, sorted(saved["article"]), "one chain: each edit from the version before")

    def edit_until_saved(self, token, article, item, saved):
        agent = Agent(self.server.port, token)
        try:
            for kind in ("article", "item"):
                won = tries = 0
                while won < SAVES and tries < 60 * SAVES:
                    tries += 1
                    key = f"{token[:8]}-{kind}-{tries}"
                    if kind == "article":
                        read = agent.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article})
                        result = agent.call("edit_knowledge_article", {
                            "knowledge_base_id": KB, "article_id": article, "content": f"{key}.",
                            "expected_version": read["updated_at"], "idempotency_key": key})
                        version = result.get("citation", {}).get("updated_at")
                    else:
                        read = agent.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item})
                        result = agent.call("edit_record_item", {
                            "record_channel_id": CHANNEL, "item_id": item, "values": {"title": key},
                            "expected_version": read["version"], "idempotency_key": key})
                        version = result.get("version")
                    if "error" not in result:
                        won += 1
                        saved[kind].append(version)
                    else:
                        assert result["error"] == "version_conflict", result
        finally:
            agent.close()

    @staticmethod
    def poll(agent, resource_type, resource_id):
        found, after = [], 0
        while True:
            page = agent.call("poll_resource_events", {"resource_type": resource_type, "resource_id": resource_id,
                                                       "after_sequence": after})
            found += page["events"]
            after = page["last_sequence"]
            if not page["has_more"]:
                return found

    def test_a_request_without_a_valid_token_is_401_and_no_token_is_ever_logged(self):
        for token in (None, "not-a-token-of-this-server-0000"):
            with self.subTest(token=token):
                agent = Agent(self.server.port, token)
                self.addCleanup(agent.close)
                status, answer = agent.post("tools/list", {})
                self.assertEqual(status, 401)
                self.assertNotIn("result", answer)
        self.assertNotIn(READ_TOKEN, self.server.text())
        self.assertFalse(any(token in self.server.text() for token in self.tokens))


class OptionsTest(unittest.TestCase):
    """The HTTP options refuse, each in one line, what would expose or contradict the grant."""

    def test_contradictory_or_unsafe_http_options_are_refused(self):
        with tempfile.TemporaryDirectory() as folder:
            tokens = write_tokens(folder, {WRITE_TOKEN: {"caller": "alice", "knowledge_bases": "*", "channels": "*"}})
            readable = write_tokens(os.path.join(folder), {WRITE_TOKEN: {"caller": "alice"}}, mode=0o644)
            cases = {
                ("--demo", "--tokens", tokens): "add --http",
                ("--demo", "--allow-origin", "https://a.example"): "add --http",
                ("--demo", "--http", "0.0.0.0:8765"): "needs --tokens",
                ("--demo", "--http", "8765", "--tokens", tokens, "--grant-kb", "kb-support"): "leave out --grant-kb",
                ("--demo", "--http", "8765", "--tokens", tokens, "--caller", "bob"): "leave out --caller",
                ("--demo", "--http", "nope"): "[HOST:]PORT",
                ("--demo", "--http", "70000"): "[HOST:]PORT",
                ("--demo", "--http", "8765", "--tokens", readable): "chmod 600",
            }
            for argv, expected in cases.items():
                with self.subTest(argv=argv):
                    code, message = server_options_refused(argv)
                    self.assertEqual(code, 2)
                    self.assertIn(expected, message)
                    self.assertEqual(len(message.strip().splitlines()), 1, message)
                    self.assertNotIn(WRITE_TOKEN, message)

    def test_a_port_alone_listens_on_loopback(self):
        self.assertEqual(parse_options(["--demo", "--http", "8765"]).http, ("127.0.0.1", 8765))
        self.assertEqual(parse_options(["--demo", "--http", "[::1]:0"]).http, ("::1", 0))

    def test_a_port_taken_is_one_line_and_exit_2_with_nothing_written_in_one_process_or_several(self):
        with socket.create_server(("127.0.0.1", 0)) as taken, tempfile.TemporaryDirectory() as folder:
            port = taken.getsockname()[1]
            for extra in ((), ("--workers", "2")):
                with self.subTest(extra=extra):
                    done = subprocess.run([sys.executable, SERVER, "--demo", "--http", f"127.0.0.1:{port}",
                                           "--kb-db", os.path.join(folder, "kb.db"), "--records-db",
                                           os.path.join(folder, "records.db"), *extra],
                                          cwd=ROOT, capture_output=True, text=True, timeout=60)
                    self.assertEqual(done.returncode, 2)
                    self.assertEqual(done.stderr, f"mcp_server.py: error: cannot listen on 127.0.0.1:{port}: "
                                     "Address already in use; choose another port, or stop the process that "
                                     "holds it\n")
                    self.assertEqual(os.listdir(folder), [], "no database is made for a server that cannot listen")


if __name__ == "__main__":
    unittest.main()
