"""Several mcp_server.py --http processes on one database, as behind any TCP load balancer: two servers on the same
two WAL files (under make postgres, on one PostgreSQL database), agents alternating between them call by call,
editing with compare-and-swap and reading. The saved edits form one chain of versions, the event log is gap-free,
each saved edit is logged exactly once, both servers answer the same log, and a read on one server sees an edit
the other has just acknowledged."""

import tempfile
import threading
import unittest

from tests.test_concurrent_reads import locations
from tests.test_mcp_server_http import Agent, HttpServer
from osfoundry_tools.content import demo

KB, CHANNEL = demo.KNOWLEDGE_BASE, demo.CHANNEL
AGENTS, SAVES = 4, 4
JOIN_SECONDS = 120


class Alternating:
    """One agent with a connection to each server, each call on the next server in turn."""

    def __init__(self, ports, first):
        self.agents = [Agent(port) for port in ports]
        self.calls = first

    def call(self, name, arguments):
        self.calls += 1
        return self.agents[self.calls % len(self.agents)].call(name, arguments)

    def close(self):
        for agent in self.agents:
            agent.close()


class Kind:
    """How an agent reads and edits an article or an item, and what its events call it."""

    def __init__(self, read, edit, version, saved, subject_key, version_key):
        self.read, self.edit, self.version, self.saved = read, edit, version, saved
        self.subject_key, self.version_key = subject_key, version_key


def article_kind(article):
    return Kind(lambda agent: agent.call("read_knowledge_article", {"knowledge_base_id": KB, "article_id": article}),
                lambda agent, version, key: agent.call("edit_knowledge_article", {
                    "knowledge_base_id": KB, "article_id": article, "content": f"{key}.", "expected_version": version,
                    "idempotency_key": key}),
                lambda answer: answer["updated_at"], lambda answer: answer["citation"]["updated_at"],
                "article_id", "updated_at")


def item_kind(item):
    return Kind(lambda agent: agent.call("read_record_item", {"record_channel_id": CHANNEL, "item_id": item}),
                lambda agent, version, key: agent.call("edit_record_item", {
                    "record_channel_id": CHANNEL, "item_id": item, "values": {"title": key},
                    "expected_version": version, "idempotency_key": key}),
                lambda answer: answer["version"], lambda answer: answer["version"], "item_id", "version")


class TwoServersTest(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        kb_db, records_db = locations(folder.name)
        self.servers = []
        for _ in range(2):  # the first writes the demo, the second serves it as found
            server = HttpServer("--demo", "--kb-db", kb_db, "--records-db", records_db)
            self.addCleanup(server.log.close)
            self.addCleanup(server.stop)
            self.servers.append(server)
        self.ports = [server.port for server in self.servers]

    def test_agents_alternating_between_two_servers_keep_one_chain_and_a_gap_free_log(self):
        for server in self.servers:
            self.assertIn("connections for reads beside each store's own: knowledge_base", server.text())
        reader = Alternating(self.ports, 0)
        self.addCleanup(reader.close)
        item = reader.call("list_record_items", {"record_channel_id": CHANNEL, "limit": 1})["items"][0]["item_id"]
        article = reader.call("search_knowledge_base", {"knowledge_base_id": KB, "query": "password"})["results"][0][
            "article_id"]
        kinds = {"article": article_kind(article), "item": item_kind(item)}
        start = {name: kind.version(kind.read(reader)) for name, kind in kinds.items()}
        saved = {name: [] for name in kinds}  # (expected, saved) of every edit saved
        unseen = []  # an edit acknowledged by one server that the other's next read did not show
        agents = [threading.Thread(target=self.edit_until_saved, args=(n, kinds, saved, unseen), daemon=True)
                  for n in range(AGENTS)]
        for agent in agents:
            agent.start()
        for agent in agents:
            agent.join(JOIN_SECONDS)
        self.assertFalse(any(agent.is_alive() for agent in agents))
        self.assertEqual(unseen, [])
        logs = [{name: self.poll_all(Agent(port), name) for name in kinds} for port in self.ports]
        self.assertEqual(logs[0], logs[1], "both servers answer the same log")
        for name, kind in kinds.items():
            with self.subTest(kind=name):
                self.assertEqual(len(saved[name]), AGENTS * SAVES)
                chain = sorted(saved[name], key=lambda pair: pair[1])
                self.assertEqual([expected for expected, _ in chain],
                                 [start[name]] + [version for _, version in chain[:-1]],
                                 "each saved edit was made from the version the one before it saved")
                events = logs[0][name]
                self.assertEqual([event["sequence"] for event in events], list(range(1, len(events) + 1)),
                                 "gap-free")
                subject = article if name == "article" else item
                logged = [event[kind.version_key] for event in events
                          if event[kind.subject_key] == subject and event["type"] == "updated"]
                self.assertEqual(logged, [version for _, version in chain], "each saved edit logged once, in order")

    def edit_until_saved(self, n, kinds, saved, unseen):
        """Read, then edit with the version read, until SAVES edits of each kind are saved; a conflict reads again.
        Every call goes to the other server than the call before; a save is read back at once."""
        agent = Alternating(self.ports, n)
        try:
            for name, kind in kinds.items():
                won = tries = 0
                while won < SAVES and tries < 60 * SAVES:
                    tries += 1
                    expected = kind.version(kind.read(agent))
                    answer = kind.edit(agent, expected, f"agent-{n}-{name}-{tries}")
                    if "error" in answer:
                        assert answer["error"] == "version_conflict", answer
                        continue
                    won += 1
                    saved[name].append((expected, kind.saved(answer)))
                    seen = kind.version(kind.read(agent))
                    if seen < kind.saved(answer):
                        unseen.append((name, kind.saved(answer), seen))
        finally:
            agent.close()

    @staticmethod
    def poll_all(agent, name):
        kind, resource = ("knowledge_base", KB) if name == "article" else ("record", CHANNEL)
        found, after = [], 0
        try:
            while True:
                page = agent.call("poll_resource_events", {"resource_type": kind, "resource_id": resource,
                                                           "after_sequence": after})
                found += page["events"]
                after = page["last_sequence"]
                if not page["has_more"]:
                    return found
        finally:
            agent.close()


if __name__ == "__main__":
    unittest.main()
