"""How cost grows: database files of growing size, built in fresh processes, then timed side by side.

Layer: a benchmark client. Each file is built by its own process (`python3 -m
benchmark.growth build KIND SIZE PATH`), which prints one JSON line with the build's
time and its peak memory; bench.py then opens every size at once and times them in
turn within each repetition, so that the sizes are compared at the same moment of
the machine.

    python3 -m benchmark.growth build articles 10000 /tmp/kb-10000.db    # {"seconds": ..., "peak_rss_mib": ...}

Kinds: articles (a knowledge base written as sim.py writes it; the output also
carries queries for its articles), help_articles (the demo's help centre in natural
English, with its questions), items (a bug channel; the output carries the before_id
of a deep page) and events (an event log of `updated` events in record channel bugs).
A knowledge base is timed beside its search floor: the bare FTS5 query that ranks
the same OR of the query's words on the same index (see floor_calls).
"""

import json
import os
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from benchmark import fixtures
from osfoundry_tools.content import help_center
from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store
from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from benchmark.fixtures import KB
from benchmark.memory import peak_rss_mib
from benchmark.timing import CHANNEL
from benchmark.tools import BROAD_QUERY, POLL_BACK, mid_query, narrow_query
from osfoundry_tools.cli import EXIT_OK, OneLineParser, run_deaf, run_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # where `-m benchmark.growth` runs
KINDS = ("articles", "help_articles", "items", "events")
FLOOR = " floor"  # a label's floor is timed under the label and this
FLOOR_QUERY = "SELECT rowid FROM {index} WHERE {index} MATCH ? ORDER BY rank LIMIT 10"  # the search floor
QUERIED = 20  # articles whose words make the narrow and mid queries
DEEP = 0.9  # a deep page starts this far into the channel, newest first
POLL_PAGE = 100  # a poll from the middle of the log asks for a full page
MIN_SIZE = 60  # enough items for a full deep page


# ---------------------------------------------------------------------------
# Building one file (in its own process).


def build(kind: str, size: int, path: str) -> Dict[str, Any]:
    """Build a file of `kind` and `size` at `path`; what bench.py needs to know of it."""
    started = time.perf_counter()
    facts = BUILDERS[kind](size, path)
    return dict(facts, kind=kind, size=size, path=path, seconds=time.perf_counter() - started,
                bytes=os.path.getsize(path), peak_rss_mib=peak_rss_mib())


def _articles(size: int, path: str) -> Dict[str, Any]:
    store, _, written = fixtures.knowledge_base(path, size, keep=QUERIED)
    with store:
        return _queries(store, {"narrow": [narrow_query(a) for a in written], "mid": [mid_query(a) for a in written],
                                "broad": [BROAD_QUERY]})


def _help_articles(size: int, path: str) -> Dict[str, Any]:
    with fixtures.help_centre(path, size) as store:
        return _queries(store, {"question": [question for question, _ in help_center.QUESTIONS],
                                "broad": [BROAD_QUERY]})


def _queries(store: kb_store.KnowledgeBaseStore, queries: Dict[str, List[str]]) -> Dict[str, Any]:
    """The queries of each class, how many articles each matches and how many a search of it scores."""
    return {"queries": queries,
            "matched": {name: [_matches(store, query) for query in texts] for name, texts in queries.items()},
            "scored": {name: [scored(store, query) for query in texts] for name, texts in queries.items()}}


def _matches(store: kb_store.KnowledgeBaseStore, query: str) -> int:
    """How many published articles hold a word of the query (what the floor ranks, all of them)."""
    with store.database.read() as connection:
        index = kb_search.index_table(kb_store._existing_number(connection, KB))
        (count,) = connection.execute(f"SELECT count(*) FROM {index} WHERE {index} MATCH ?",
                                      (kb_search.match_expression(query),)).fetchone()
    return count


def scored(store: kb_store.KnowledgeBaseStore, query: str) -> int:
    """How many articles one search scores with bm25: FTS5 reads each one's lengths (its %_docsize row) to score
    it, and sqlite's trace shows each read."""
    reads: List[str] = []
    store.database.connection.set_trace_callback(lambda sql: reads.append(sql) if "_docsize' WHERE id=" in sql
                                                 else None)
    try:
        store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query})
    finally:
        store.database.connection.set_trace_callback(None)
    return len(reads)


def _items(size: int, path: str) -> Dict[str, Any]:
    store, ids = fixtures.bug_channel(path, size)
    store.close()
    deep = min(int(DEEP * len(ids)), len(ids) - record_store.PAGE_LIMIT_DEFAULT - 1)  # a full page follows it
    return {"deep_before_id": ids[deep]}


def _events(size: int, path: str) -> Dict[str, Any]:
    with record_store.connect(path) as store:
        store.create_channel(CHANNEL, "Bug tracker", workload.BUG_TRACKER_FIELDS)
        fixtures.event_log(store, CHANNEL, size)
    return {}


BUILDERS: Dict[str, Callable[[int, str], Dict[str, Any]]] = {"articles": _articles, "help_articles": _help_articles,
                                                             "items": _items, "events": _events}


def build_apart(kind: str, size: int, path: str) -> Dict[str, Any]:
    """Build in a fresh Python process, so its peak memory is the build's alone."""
    run = run_deaf([sys.executable, "-m", "benchmark.growth", "build", kind, str(size), path],
                   cwd=ROOT)  # Ctrl-C is the benchmark's to handle
    if run.returncode != 0:
        raise RuntimeError(f"building {size} {kind} failed: {run.stderr.strip()[-500:]}")
    return json.loads(run.stdout)


# ---------------------------------------------------------------------------
# What each size is timed on: a list of (label, one call) per file.


def search_calls(store: kb_store.KnowledgeBaseStore, facts: Dict[str, Any]) -> Dict[str, Callable[[int], Any]]:
    """A search per query class, cycling through that class's queries, and its floor (the label + FLOOR)."""
    calls = {}
    for name, queries in facts["queries"].items():
        calls[name] = _calling(store, "search_knowledge_base",
                               [{"knowledge_base_id": KB, "query": query} for query in queries])
        calls[name + FLOOR] = floor_calls(store, queries)
    return calls


def floor_calls(store: kb_store.KnowledgeBaseStore, queries: Sequence[str]) -> Callable[[int], Any]:
    """The search floor of these queries, cycling through them: FTS5 alone ranking the same OR of each query's
    words on the same index and connection (the expression the search sent before it was bounded), the best 10
    rowids and nothing else: no grant, no article rows, no snippets."""
    connection = store.database.connection
    with store.database.read():
        statement = FLOOR_QUERY.format(index=kb_search.index_table(kb_store._existing_number(connection, KB)))
    expressions = [kb_search.match_expression(query) for query in queries]
    return lambda number: connection.execute(statement, (expressions[number % len(expressions)],)).fetchall()


def list_calls(store: record_store.RecordStore, facts: Dict[str, Any]) -> Dict[str, Callable[[int], Any]]:
    """The first page, and a page that starts DEEP into the channel."""
    return {"first": _calling(store, "list_record_items", [{"record_channel_id": CHANNEL}]),
            "deep": _calling(store, "list_record_items",
                             [{"record_channel_id": CHANNEL, "before_id": facts["deep_before_id"]}])}


def poll_calls(store: record_store.RecordStore, facts: Dict[str, Any]) -> Dict[str, Callable[[int], Any]]:
    """An agent a few events behind the head, and one resuming from the middle of the log with a full page."""
    size = facts["size"]
    return {"head": _calling(store, "poll_resource_events", [_poll(size - POLL_BACK)]),
            "middle": _calling(store, "poll_resource_events", [_poll(size // 2, POLL_PAGE)])}


def _poll(after: int, limit: int = 100) -> Dict[str, Any]:
    return {"resource_type": "record", "resource_id": CHANNEL, "after_sequence": max(0, after), "limit": limit}


def _calling(store: Any, tool: str, argument_list: Sequence[Dict[str, Any]]) -> Callable[[int], Any]:
    def one(number: int) -> Any:
        result = store.call_tool(tool, argument_list[number % len(argument_list)])
        if "error" in result:
            raise RuntimeError(f"{tool} was refused during the benchmark: {json.dumps(result)[:300]}")
        return result
    return one


CALLS: Dict[str, Callable[[Any, Dict[str, Any]], Dict[str, Callable[[int], Any]]]] = {
    "articles": search_calls, "help_articles": search_calls, "items": list_calls, "events": poll_calls}
OPEN: Dict[str, Callable[[str], Any]] = {"articles": kb_store.connect, "help_articles": kb_store.connect,
                                         "items": record_store.connect, "events": record_store.connect}


def open_built(facts: Dict[str, Any]) -> Any:
    """A store on a built file."""
    return OPEN[facts["kind"]](facts["path"])


def calls_for(store: Any, facts: Dict[str, Any]) -> Dict[str, Callable[[int], Any]]:
    """What to time on a built file, by label."""
    return CALLS[facts["kind"]](store, facts)


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = OneLineParser(prog="benchmark.growth", description="Build one benchmark file and print what it holds.")
    p.add_argument("command", choices=["build"], help="build: the one thing this module does on its own")
    p.add_argument("kind", choices=KINDS, help="what the file holds: a knowledge base of made-up articles or of "
                   "help-centre articles, a bug channel's items, or a bug channel's event log")
    p.add_argument("size", type=int, help=f"how many articles, items or events (at least {MIN_SIZE})")
    p.add_argument("path", help="the sqlite file to write; it must not exist yet")
    options = p.parse_args(argv)
    if options.size < MIN_SIZE:
        p.error(f"size must be at least {MIN_SIZE}")
    if os.path.exists(options.path):
        p.error(f"{options.path} exists; give a new file")
    print(json.dumps(build(options.kind, options.size, options.path)))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_main("benchmark.growth", main))
