"""Timing for the benchmark: samples, their summaries, and the floor every tool is measured against.

Layer: a benchmark client's helpers; nothing here calls a tool. bench.py times tool
calls with `timed`, summarises each repetition with `latency`, and divides by the
floor: the bare compare-and-swap transaction that any edit tool on sqlite must at
least pay, run with Python's sqlite3 on the same kind of database, in the same run.

Glossary:
  sample       the wall time of one call, in seconds
  repetition   one batch of samples of every measured thing, taken one after another,
               so that a ratio is always between figures of the same moment of the machine
  floor        the bare compare-and-swap transaction (see FloorTransaction)
  summary      the median of the repetitions' figures, with their min and max
"""

import dataclasses
import gc
import math
import sqlite3
import statistics
import time
from typing import Any, Callable, Dict, List, Sequence

from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store
from osfoundry_tools.stores import record_store
from osfoundry_tools.core.dialect import EVENT_APPEND, KEY_LOOKUP, KEY_STORE
from osfoundry_tools.core.tools import DEFAULT_CALLER
from osfoundry_tools.content.workload import BUG_TRACKER as CHANNEL  # the bug tracker's ID, as the experiments name it
from osfoundry_tools.content.workload import KNOWLEDGE_BASE as KB  # the support knowledge base's ID


def timed(call: Callable[[int], Any], count: int, clock: Callable[[], float] = time.perf_counter) -> List[float]:
    """Seconds taken by call(0), call(1), ... call(count - 1), each timed alone, garbage collection paused."""
    samples = []
    gc.collect()
    gc.disable()
    try:
        for number in range(count):
            started = clock()
            call(number)
            samples.append(clock() - started)
    finally:
        gc.enable()
    return samples


def percentile(samples: Sequence[float], share: float) -> float:
    """The nearest-rank percentile: the smallest sample with at least `share` of the samples at or below it.

    >>> percentile([5, 1, 4, 2, 3], 0.5), percentile(range(1, 101), 0.99)
    (3, 99)
    """
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def latency(samples: Sequence[float]) -> Dict[str, float]:
    """One repetition's median and 99th percentile, in microseconds."""
    return {"median": 1e6 * statistics.median(samples), "p99": 1e6 * percentile(samples, 0.99)}


@dataclasses.dataclass(frozen=True)
class Summary:
    """A figure over repetitions: the median, and the smallest and largest repetition."""

    median: float
    low: float
    high: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "Summary":
        return cls(statistics.median(values), min(values), max(values))


def summarise(repetitions: Sequence[Dict[str, float]], key: str) -> Summary:
    """The Summary of one key of several repetitions' figures."""
    return Summary.of([figures[key] for figures in repetitions])


def ratios(numerators: Sequence[Dict[str, float]], denominators: Sequence[Dict[str, float]],
           key: str = "median") -> Summary:
    """Repetition by repetition, numerator / denominator; their Summary (pairs are taken in the same run)."""
    return Summary.of([n[key] / d[key] for n, d in zip(numerators, denominators)])


# ---------------------------------------------------------------------------
# The floor: what an edit costs with nothing but the transaction.


# The statements both floors share with the stores' own idempotency table and event log are plumbing's, as sqlite
# runs them (KEY_LOOKUP, EVENT_APPEND, KEY_STORE).


class FloorTransaction:
    """The bare compare-and-swap of one record item, in plain sqlite3 on a record store's own tables.

    BEGIN IMMEDIATE; look the idempotency key up (a miss); select the item; update it where its version
    is still the one read (writing its fields and preview back as they were, so the item stays whole for
    the tools timed beside it); append the event; store the key; COMMIT. The SQL is the store's, so the
    floor differs from edit_record_item only by what Python does around it: argument checks, the
    fingerprint, validation, JSON and the rest.
    """

    def __init__(self, connection: sqlite3.Connection, item_ids: Sequence[str]) -> None:
        self.connection = connection
        self.item_ids = list(item_ids)
        self.keys = 0

    def __call__(self, number: int) -> None:
        execute = self.connection.execute
        item_id = self.item_ids[number % len(self.item_ids)]
        self.keys += 1
        key = f"floor-{self.keys}"
        execute("BEGIN IMMEDIATE")
        execute(KEY_LOOKUP, (DEFAULT_CALLER, "edit_record_item", CHANNEL, key)).fetchone()
        row, version, preview, fields = execute(
            "SELECT number, version, preview, fields FROM items WHERE channel_id = ? AND id = ?",
            (CHANNEL, item_id)).fetchone()
        swapped = execute(record_store.UPDATE_ITEM, (fields, preview, version + 1, "2026-11-09T09:00:00.000000Z",
                                                     row, version)).rowcount
        execute(EVENT_APPEND, (CHANNEL, "updated", item_id, version + 1, CHANNEL))
        execute(KEY_STORE, (DEFAULT_CALLER, "edit_record_item", CHANNEL, key, "0" * 64,
                            '{"version": %d}' % (version + 1), "2026-11-09T09:00:00Z"))
        execute("COMMIT")
        if swapped != 1:
            raise RuntimeError(f"the floor's compare-and-swap of {item_id} failed: is another writer on this file?")


class KnowledgeBaseFloor:
    """The bare compare-and-swap of one article, in plain sqlite3 on a knowledge-base store's own tables: the
    floor of edit_knowledge_article, which pays for its search index as well.

    BEGIN IMMEDIATE; look the idempotency key up (a miss); select the article; update it where its version is
    still the one read (writing it back as it was: its title, content, opening and version, so that the article
    stays whole for the tools timed beside it); update its row of the knowledge base's search index (delete it,
    insert it again); append the event; store the key; merge the index by the store's budget for one article
    (kb_store.MERGE_PAGES: the work FTS5's automerge used to do inside the insert); COMMIT. The SQL is the store's.
    """

    def __init__(self, connection: sqlite3.Connection, article_ids: Sequence[str], kb: str = KB) -> None:
        self.connection, self.kb = connection, kb
        self.article_ids = list(article_ids)
        self.keys = 0
        (number,) = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (kb,)).fetchone()
        self.index = kb_search.index_table(number)

    def __call__(self, number: int) -> None:
        execute, kb, index = self.connection.execute, self.kb, self.index
        article_id = self.article_ids[number % len(self.article_ids)]
        self.keys += 1
        key = f"floor-{self.keys}"
        execute("BEGIN IMMEDIATE")
        execute(KEY_LOOKUP, (DEFAULT_CALLER, "edit_knowledge_article", kb, key)).fetchone()
        row, title, content, opening, outline, status, version = execute(
            "SELECT number, title, content, opening, outline, status, updated_at FROM articles WHERE "
            "knowledge_base_id = ? AND id = ?", (kb, article_id)).fetchone()
        swapped = execute(kb_store.UPDATE_ARTICLE, (title, content, opening, outline, status, version, row,
                                                    version)).rowcount
        execute(f"DELETE FROM {index} WHERE rowid = ?", (row,))
        execute(f"INSERT INTO {index} (rowid, title, content) VALUES (?, ?, ?)", (row, title, content))
        execute(EVENT_APPEND, (kb, "updated", article_id, version, kb))
        execute(KEY_STORE, (DEFAULT_CALLER, "edit_knowledge_article", kb, key, "0" * 64, '{"citation": {}}', version))
        execute(f"INSERT INTO {index} ({index}, rank) VALUES ('merge', ?)", (kb_search.MERGE_PAGES,))
        execute("COMMIT")
        if swapped != 1:
            raise RuntimeError(f"the floor's compare-and-swap of {article_id} failed: is another writer on this file?")
