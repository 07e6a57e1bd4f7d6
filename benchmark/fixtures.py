"""What the benchmark measures on: knowledge bases, bug channels and event logs of a given size.

Layer: a benchmark client. Articles and bugs are made by the experiments' own
writers (workload.Writer, workload.new_bug) and stored through the people side
of the stores, in one transaction per batch so that a 100k-article build takes
seconds; an event log is filled through the store's own EventLog.append. Articles
are written one at a time and not kept, so a build holds only the database; the
help centre's articles in natural English (help_center.write_articles) are all
written first, as the demo writes them.
"""

import dataclasses
import random
from typing import Iterator, List, Optional, Tuple

from osfoundry_tools.content import help_center
from osfoundry_tools.stores import kb_store
from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from lab.knowledge_base.day import Scenario
from lab.knowledge_base.scenario import ARTICLES, DAY_AS_STATED
from benchmark.timing import CHANNEL

KB = workload.KNOWLEDGE_BASE
BATCH = 2000  # people's creations per transaction
VOCABULARY_PER_ARTICLE = workload.VOCABULARY / ARTICLES  # a larger knowledge base has as many words per article


def day_scenario(scale: int = 1) -> Scenario:
    """sim.py's default day (as stated) with articles, questions and saves (and the vocabulary) multiplied by
    `scale`."""
    base = DAY_AS_STATED
    return dataclasses.replace(base, articles=base.articles * scale, questions=base.questions * scale,
                               saves=base.saves * scale, vocabulary=base.vocabulary * scale)


def article_text(articles: int) -> workload.TextSettings:
    """The default day's way of writing articles, for a knowledge base of `articles` articles."""
    vocabulary = max(workload.VOCABULARY, round(articles * VOCABULARY_PER_ARTICLE))
    return workload.TextSettings(articles=articles, vocabulary=vocabulary)


@dataclasses.dataclass(frozen=True)
class Written:
    """One article as written: its title, content and topic words (the first names its area)."""

    title: str
    content: str
    topic: Tuple[str, ...]


def articles(seed: int, count: int) -> Iterator[Written]:
    """`count` articles written as sim.py writes them, one at a time."""
    writer = workload.Writer(random.Random(seed), article_text(count))
    for number in range(count):
        topic = writer.topic(number)
        yield Written(writer.title(topic), writer.content(topic), topic)


def knowledge_base(path: str, count: int, seed: int = 1,
                   keep: int = 0, durability: str = "full") -> Tuple[kb_store.KnowledgeBaseStore, List[str],
                                                                     List[Written]]:
    """A store on `path` with knowledge base kb-support of `count` published articles.

    Returns the store, the article IDs in creation order, and the first `keep` articles as written.
    """
    store = kb_store.connect(path, durability=durability)
    store.create_knowledge_base(KB, "Support")
    ids: List[str] = []
    kept: List[Written] = []
    written = articles(seed, count)
    for start in range(0, count, BATCH):
        with store.database.write():
            for article in _take(written, min(BATCH, count - start)):
                ids.append(store.create_article(KB, article.title, article.content)["article_id"])
                if len(kept) < keep:
                    kept.append(article)
    return store, ids, kept


def help_centre(path: str, count: int, seed: int = 1) -> kb_store.KnowledgeBaseStore:
    """A store on `path` with knowledge base kb-support of `count` published articles in natural English: the
    demo's help centre (help_center.write_articles), its subjects first, then their variants."""
    store = kb_store.connect(path)
    store.create_knowledge_base(KB, "Support")
    written = help_center.write_articles(random.Random(seed), count)
    for start in range(0, count, BATCH):
        with store.database.write():
            for article in written[start:start + BATCH]:
                store.create_article(KB, article.title, article.content)
    return store


def bug_channel(path: str, count: int, seed: int = 1,
                durability: str = "full") -> Tuple[record_store.RecordStore, List[str]]:
    """A store on `path` with the bug tracker `bugs` of `count` New bugs, newest first in the returned IDs."""
    store = record_store.connect(path, durability=durability)
    store.create_channel(CHANNEL, "Bug tracker", workload.BUG_TRACKER_FIELDS)
    rng = random.Random(f"{seed}:bugs")
    for start in range(0, count, BATCH):
        with store.database.write():
            for number in range(start + 1, min(start + BATCH, count) + 1):
                store.create_item(CHANNEL, workload.new_bug(rng, number, workload.DESCRIPTION_CHARACTERS))
    return store, store.item_ids(CHANNEL)


def event_log(store: record_store.RecordStore, resource_id: str, count: int,
              item_ids: Optional[List[str]] = None) -> None:
    """Append `count` `updated` events to `resource_id`'s log, as saves of its items would, in batches."""
    subjects = item_ids or [f"itm-{n:05d}" for n in range(1, 201)]
    for start in range(0, count, BATCH * 10):
        with store.database.write() as connection:
            for number in range(start, min(start + BATCH * 10, count)):
                store.EVENTS.append(connection, resource_id, "updated", subjects[number % len(subjects)],
                                    2 + number // len(subjects))


def _take(iterator: Iterator[Written], count: int) -> List[Written]:
    return [next(iterator) for _ in range(count)]
