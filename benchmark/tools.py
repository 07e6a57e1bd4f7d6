"""The seven agent tools as the benchmark calls them: one call per number, arguments an agent would send.

Layer: a benchmark client; every call goes through call_tool. An edit sends the
version its previous edit returned (read once at the start), so each succeeds;
any rejection stops the benchmark, since a refused call would time the wrong path.

    workload = Workload(kb, article_ids, written, records, item_ids)
    seconds = timed(workload.call("read_record_item"), 500)
"""

import dataclasses
import itertools
import json
import statistics
from typing import Any, Callable, Dict, List, Sequence

from osfoundry_tools.stores import kb_store
from osfoundry_tools.core import checks
from osfoundry_tools.core import clock
from osfoundry_tools.stores import item_values
from osfoundry_tools.stores import record_store
from lab.experiments import bytes_of
from lab.record_channels.runs import UnvalidatedStore
from benchmark.fixtures import KB, Written
from benchmark.timing import CHANNEL

KB_TOOLS = ("search_knowledge_base", "read_knowledge_article", "edit_knowledge_article")  # the rest are the records'
TIMED = ("search_knowledge_base", "read_knowledge_article", "edit_knowledge_article",
         "poll_resource_events.knowledge_base", "list_record_items", "read_record_item", "edit_record_item",
         "poll_resource_events.record")  # what the benchmark times: the seven tools, the poll on both stores
STUBBED = "edit_record_item, validation stubbed"
KB_FLOOR = "knowledge-base floor"  # edit_knowledge_article's own floor (benchmark/timing.py's KnowledgeBaseFloor)
MEMORY, WAL = "memory", "WAL file"  # the database kinds every tool is timed on
EDITED = 50  # articles and items the edits cycle over
SIZED = 50  # the first calls of each batch whose result sizes are kept
POLL_BACK = 10  # a poll asks for the events after head - POLL_BACK: an agent a few saves behind
SIX_FIELDS = {"status": "triaged", "owner": "aiko", "severity": "s2", "points": 3, "area": "api",
              "due": "2026-11-13"}  # a triage as table R6 times it
OTHER_SIX = {"status": "in_progress", "owner": "mika", "severity": "s3", "points": 5, "area": "web",
             "due": "2026-11-20"}


def mid_query(article: Written) -> str:
    """A question as the simulated agent asks it: an opener, then three of the article's topic words."""
    return "how do i " + " ".join(article.topic[1:4])


def distinct_mid_queries(written: Sequence[Written]) -> List[str]:
    """Questions as the simulated agent asks them, none asked twice: each article's first three topic words (as
    mid_query), then its other threes in turn, the articles taken round. A search keeps the snippets it quoted for
    words it is asked again (kb_store.SNIPPETS), so timing the same few questions over and over would time those
    kept snippets, not a search."""
    threes = [[" ".join(words) for words in itertools.combinations(article.topic[1:], 3)] for article in written]
    return ["how do i " + words for round_ in itertools.zip_longest(*threes) for words in round_ if words]


def narrow_query(article: Written) -> str:
    """The article's area word: a handful of articles hold it."""
    return article.topic[0]


BROAD_QUERY = "the and"  # words nearly every article holds


@dataclasses.dataclass
class Workload:
    """The stores, the IDs to call with, and the versions the edits will send."""

    kb: kb_store.KnowledgeBaseStore
    article_ids: List[str]
    written: List[Written]
    records: record_store.RecordStore
    item_ids: List[str]
    counters: Dict[str, int] = dataclasses.field(default_factory=dict)
    sizes: Dict[str, List[int]] = dataclasses.field(default_factory=dict)
    article_versions: Dict[str, str] = dataclasses.field(default_factory=dict)
    item_versions: Dict[str, int] = dataclasses.field(default_factory=dict)

    def call(self, tool: str, store: Any = None,
             values: Sequence[Dict[str, Any]] = (SIX_FIELDS, OTHER_SIX)) -> Callable[[int], Any]:
        """A function of the call number that makes one call of `tool` ("poll_resource_events.record" for a poll).

        store: another store on the same database, to call instead (the validation comparison);
        values: what edit_record_item saves, taken in turn on each pass over the edited items.
        """
        name, _, kind = tool.partition(".")
        if name == "poll_resource_events":
            arguments_of = self._poll_resource_events(kind)
        elif name == "edit_record_item":
            arguments_of = self._edit_record_item(values)
        else:
            arguments_of = getattr(self, "_" + name)()
        target = store or (self.kb if name in KB_TOOLS or kind == "knowledge_base" else self.records)
        sizes = self.sizes.setdefault(tool, [])

        def one(number: int) -> Any:
            result = target.call_tool(name, arguments_of(number))
            if "error" in result:
                raise RuntimeError(f"{tool} was refused during the benchmark: {json.dumps(result)[:300]}")
            self._saw(name, result)
            if number < SIZED:
                sizes.append(bytes_of(result))
            return result
        return one

    def size(self, tool: str) -> float:
        """The median size in bytes of the results of `tool` seen so far."""
        return statistics.median(self.sizes[tool])

    # -- arguments, per tool ---------------------------------------------------

    def _search_knowledge_base(self) -> Callable[[int], Dict[str, Any]]:
        queries = distinct_mid_queries(self.written)
        return lambda n: {"knowledge_base_id": KB, "query": queries[n % len(queries)]}

    def _read_knowledge_article(self) -> Callable[[int], Dict[str, Any]]:
        return lambda n: {"knowledge_base_id": KB, "article_id": self.article_ids[n % len(self.article_ids)]}

    def _edit_knowledge_article(self) -> Callable[[int], Dict[str, Any]]:
        edited = self.article_ids[:EDITED]
        versions = self.article_versions
        versions.update((article_id, self.kb.article(KB, article_id)["updated_at"]) for article_id in edited)
        contents = [article.content for article in self.written] or ["Open Settings, then Security."]

        def arguments(n: int) -> Dict[str, Any]:
            article_id = edited[n % len(edited)]
            return {"knowledge_base_id": KB, "article_id": article_id, "content": contents[n % len(contents)],
                    "expected_version": versions[article_id], "idempotency_key": self._key("kb")}
        return arguments

    def _list_record_items(self) -> Callable[[int], Dict[str, Any]]:
        return lambda n: {"record_channel_id": CHANNEL}

    def _read_record_item(self) -> Callable[[int], Dict[str, Any]]:
        return lambda n: {"record_channel_id": CHANNEL, "item_id": self.item_ids[n % len(self.item_ids)]}

    def _edit_record_item(self, values: Sequence[Dict[str, Any]]) -> Callable[[int], Dict[str, Any]]:
        edited = self.item_ids[:EDITED]
        versions = self.item_versions
        versions.update((item_id, self.records.item(CHANNEL, item_id)["version"]) for item_id in edited)

        def arguments(n: int) -> Dict[str, Any]:
            item_id, turn = edited[n % len(edited)], n // len(edited)
            return {"record_channel_id": CHANNEL, "item_id": item_id, "values": values[turn % len(values)],
                    "expected_version": versions[item_id], "idempotency_key": self._key("record")}
        return arguments

    def _poll_resource_events(self, kind: str) -> Callable[[int], Dict[str, Any]]:
        store, resource = (self.kb, KB) if kind == "knowledge_base" else (self.records, CHANNEL)
        head = store.call_tool("poll_resource_events", {"resource_type": kind, "resource_id": resource,
                                                        "after_sequence": checks.SQLITE_INTEGER_MAX})["last_sequence"]
        after = max(0, head - POLL_BACK)
        return lambda n: {"resource_type": kind, "resource_id": resource, "after_sequence": after}

    # -- keeping the versions an edit will send ----------------------------------

    def _saw(self, name: str, result: Dict[str, Any]) -> None:
        if name == "edit_knowledge_article":
            citation = result["citation"]
            self.article_versions[citation["article_id"]] = citation["updated_at"]
        elif name == "edit_record_item":
            self.item_versions[result["item_id"]] = result["version"]

    def _key(self, prefix: str) -> str:
        self.counters[prefix] = self.counters.get(prefix, 0) + 1
        return f"bench-{prefix}-{self.counters[prefix]}"


def unvalidated(records: record_store.RecordStore) -> record_store.RecordStore:
    """A store on the same database as `records` whose validation is stubbed out, as table R6 weighs it."""
    return UnvalidatedStore(records.database, granted=None, scopes=(record_store.WRITE_SCOPE,),
                                        rejection_detail="labels", clock=records.clock)


def edit_parts(work: Workload) -> Dict[str, Callable[[int], Any]]:
    """edit_record_item taken apart: each piece of Python it adds to the floor, as a call to time alone.

    Every piece is the store's own code, as the edit calls it, on an item of the workload's channel, outside any
    transaction. The item's values are found as an edit finds them: kept from the save that wrote its text, once
    the workload's edits have saved it (bench.py times the parts after the tools), decoded otherwise.
    """
    store, item_id = work.records, work.item_ids[0]
    connection = store.database.connection
    arguments = {"record_channel_id": CHANNEL, "item_id": item_id, "values": SIX_FIELDS, "expected_version": 1,
                 "idempotency_key": "bench-parts"}
    row = connection.execute(record_store.SAVED_ITEM, (CHANNEL, item_id)).fetchone()
    channel = store._granted_channel(connection, CHANNEL)
    place = (id(store.database), row["number"])
    found = item_values.KEPT.values_of(row["fields"], place)
    saved = found.changed(SIX_FIELDS)
    result = {"item_id": item_id, "version": row["version"] + 1, "replay": False}
    tool = record_store.EDIT_RECORD_ITEM

    def screened_and_tested(n: int) -> bool:  # as call_tool does: the compiled test of screen() and check() both,
        return tool.admits(arguments)  # before their walks, which a call needs only if it refuses
    return {
        "the arguments screened and tested against the inputSchema": screened_and_tested,
        "the idempotency fingerprint (canonical JSON, SHA-256)": lambda n: record_store._fingerprint_with_values(
            arguments),
        "the channel's schema (kept while the file is unchanged)": lambda n: store._granted_channel(connection,
                                                                                                    CHANNEL),
        "the item's stored values found (kept by their text)": lambda n: item_values.KEPT.values_of(row["fields"],
                                                                                                      place),
        "the six values validated": lambda n: store._validate(connection, channel, SIX_FIELDS, row["number"],
                                                              agent=True),
        "the six values applied and encoded": lambda n: found.changed(SIX_FIELDS),
        "the item's text joined and its size bounded": lambda n: store._agent_text(channel, saved),
        "the preview kept for listings": lambda n: saved.preview(channel.preview_slots),
        "the clock read and formatted": lambda n: clock.format_time(store.clock()),
        "the result encoded for the idempotency table": lambda n: record_store._result_text(result),
    }
