"""The demo workspace mcp_server.py serves with --demo, and the simulated colleague who keeps changing it.

Layer: product, a client of the stores' people's side (plain methods); it never
calls a tool, and it takes its content from help_center.py and workload.py only,
never from the experiments. The knowledge base is a help centre in plain English
(help_center.py: accounts, billing, integrations, troubleshooting), so that an agent
asked "how do I reset my password" or "why was my card declined" finds the article
that answers it. The bug tracker holds New items filed like triage.py's
(workload.new_bug), for an agent to triage. The simulations keep their own made-up
vocabulary: only the demo reads English.

Glossary:
  plan        what one seed draws before anything is written: the articles (with their
              statuses) and the bug reports; writing it twice writes the same
  colleague   a background thread that, every few seconds, saves one published article (a
              revision: a step reworded, a note added) and moves one item (its status or
              owner), as people do while an agent works
  move        one people's edit of an item: a new status or a new owner

Left out on purpose: people creating or deleting things while the server runs (a save
and a move are enough to meet a stale citation and a version conflict).
"""

import dataclasses
import logging
import random
import threading
from typing import Any, Dict, List, Optional, Tuple

from osfoundry_tools.content import help_center, workload
from osfoundry_tools.stores import kb_store, record_store

log = logging.getLogger("osfoundry.demo")

SEED = 1  # the default seed of the demo's content
KNOWLEDGE_BASE = workload.KNOWLEDGE_BASE  # "kb-support", as in the simulation
KNOWLEDGE_BASE_NAME = "Support"
CHANNEL = workload.BUG_TRACKER  # "bugs", as in the record experiments
CHANNEL_NAME = "Bugs"
ARTICLES = 80   # published: one per help-centre subject, so that every question of help_center.QUESTIONS
#                finds its article
DRAFTS = 6      # and, beyond them, variants of some subjects ("... on Android") that people are still writing
UNPUBLISHED = 1  # and one variant that was published, then taken away
ITEMS = 60      # New bug reports
TICKET_START = 1001
PEOPLE = ("aiko", "mika", "ren")  # the bug tracker's owners, who also write the articles


@dataclasses.dataclass(frozen=True)
class DemoArticle:
    """One article of the demo knowledge base as first written."""

    article_id: str
    written: help_center.HelpArticle
    status: str  # "published", "draft" or "unpublished"

    @property
    def title(self) -> str:
        return self.written.title

    @property
    def content(self) -> str:
        return self.written.content


@dataclasses.dataclass(frozen=True)
class Plan:
    """Everything one seed draws: the articles and the bug reports."""

    articles: Tuple[DemoArticle, ...]
    items: Tuple[Dict[str, Any], ...]

    def published(self) -> List[DemoArticle]:
        """The articles written as published (people may unpublish nothing while the server runs)."""
        return [a for a in self.articles if a.status == "published"]


def draw_plan(seed: int) -> Plan:
    """The demo's articles and bug reports: the articles drawn from random.Random(seed), the reports from a
    generator of their own, so that neither changes when the other is written differently."""
    written = help_center.write_articles(random.Random(seed), ARTICLES + DRAFTS + UNPUBLISHED)
    statuses = ["published"] * ARTICLES + ["draft"] * DRAFTS + ["unpublished"] * UNPUBLISHED
    articles = tuple(DemoArticle(f"art-{number + 1:05d}", article, status)
                     for number, (article, status) in enumerate(zip(written, statuses)))
    bugs = random.Random(f"bugs-{seed}")
    items = tuple(workload.new_bug(bugs, TICKET_START + n, workload.DESCRIPTION_CHARACTERS) for n in range(ITEMS))
    return Plan(articles, items)


# ---------------------------------------------------------------------------
# Writing the plan through the people's side.


def write_knowledge_base(store: kb_store.KnowledgeBaseStore, plan: Plan) -> None:
    """The demo knowledge base: every article created, drafts as drafts, the unpublished one taken away; in one
    transaction, so that a file never keeps half a demo (it would be served as found at the next start)."""
    with store.database.write():
        store.create_knowledge_base(KNOWLEDGE_BASE, KNOWLEDGE_BASE_NAME)
        for article in plan.articles:
            store.create_article(KNOWLEDGE_BASE, article.title, article.content, article_id=article.article_id,
                                 published=article.status != "draft")
            if article.status == "unpublished":
                store.unpublish_article(KNOWLEDGE_BASE, article.article_id)


def write_bug_tracker(store: record_store.RecordStore, plan: Plan) -> None:
    """The demo bug tracker: the experiments' fields and the plan's New items, in one transaction."""
    with store.database.write():
        store.create_channel(CHANNEL, CHANNEL_NAME, workload.BUG_TRACKER_FIELDS)
        for values in plan.items:
            store.create_item(CHANNEL, values)


# ---------------------------------------------------------------------------
# The simulated colleague.


class Colleague:
    """People at work while an agent is connected: every `interval` seconds, one article save and one item move.

    Every change (its reads and its save) runs under `lock`, the workspace lock the server holds around each
    edit, so a change and an edit never interleave: an agent's edit never lands between the colleague's read of
    an article and its save. Reads run beside, on connections of their own, and see a change once it is saved.
    Changes are logged on stderr, never printed (stdout is the protocol's).
    """

    def __init__(self, kb: kb_store.KnowledgeBaseStore, records: record_store.RecordStore, plan: Plan,
                 rng: random.Random, lock: threading.Lock, interval: float) -> None:
        self.kb, self.records, self.plan = kb, records, plan
        self.rng, self.lock, self.interval = rng, lock, interval
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, name="colleague", daemon=True)

    def start(self) -> None:
        """Begin changing things in the background."""
        self.thread.start()

    def stop(self) -> None:
        """Stop after the change in progress, if any."""
        self.stopped.set()
        if self.thread.ident is not None:  # started
            self.thread.join()

    def run(self) -> None:
        """Until stopped: wait an interval, then save an article and move an item, each logged once done.

        The log is written after the lock is released: a client slow to read stderr may hold up the
        colleague, never a tool call.
        """
        while not self.stopped.wait(self.interval):
            for change in (self.save_article, self.move_item):
                try:
                    with self.lock:
                        done = change()
                except Exception as error:  # a failed change must not end the colleague, nor the server
                    done = f"a change failed ({type(error).__name__}: {error})"
                if done:
                    log.info("people: %s", done)

    def save_article(self) -> Optional[str]:
        """A person revises one published article as it now stands (last writer wins: people do not compare
        versions)."""
        article = self.rng.choice(self.plan.published())
        stored = self.kb.article(KNOWLEDGE_BASE, article.article_id)
        if stored["status"] != "published":
            return None
        person = self.rng.choice(PEOPLE).capitalize()
        now = dataclasses.replace(article.written, title=stored["title"], content=stored["content"])
        cited = self.kb.save_article(KNOWLEDGE_BASE, article.article_id, content=help_center.revise(self.rng, now))
        return f"{person} saved article {article.article_id}, now version {cited['updated_at']}"

    def move_item(self) -> Optional[str]:
        """A person moves one live item: a new status or a new owner."""
        item_ids = self.records.item_ids(CHANNEL)
        if not item_ids:
            return None
        item_id = self.rng.choice(item_ids)
        key = self.rng.choice(("status", "owner"))
        current = self.records.item(CHANNEL, item_id)["values"].get(key)
        value = self.rng.choice([v for v in workload.option_values(key) if v != current])
        person = self.rng.choice(PEOPLE).capitalize()
        version = self.records.edit_item(CHANNEL, item_id, {key: value})
        return f"{person} set {key} of item {item_id} to {value}, now version {version}"


def describe(plan: Plan) -> str:
    """What the demo holds, for the server's startup line."""
    drafts = sum(a.status == "draft" for a in plan.articles)
    gone = sum(a.status == "unpublished" for a in plan.articles)
    return (f"knowledge base {KNOWLEDGE_BASE} ({len(plan.published())} published help-centre articles in English, "
            f"{drafts} drafts, {gone} unpublished), record channel {CHANNEL} ({len(plan.items)} New items)")
