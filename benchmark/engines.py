"""Engines: the record store on sqlite and on PostgreSQL side by side: writers at once, and the cost of one edit.

Layer: a benchmark client. Its writers drive the record store through call_tool only, with benchmark/writers.py's
own code (read_record_item, then edit_record_item with that version and a fresh idempotency key; a
version_conflict is counted, re-read and retried); the bugs are filed through the people side. The single-chain
check reads each finished database with plain SQL, as ground truth that does not depend on the store code it
checks. A measurement, not a test: nothing here asserts a time.

Glossary:
  engine      what holds the store: sqlite (a WAL file, durability "full") or PostgreSQL (a database on the
              server named by OSFOUNDRY_TEST_POSTGRES, durability "full": synchronous_commit on)
  shape       where the writers' edits land (SHAPES): every writer on one hot item; all on items drawn at
              random from one channel; each on items of a channel of its own
  run         one engine, shape and number of writers: a fresh database, the writers started together, saved
              edits per second from that start to the last writer's counts, then the single-chain check
  overtaking  the fewest writers at which PostgreSQL saves more edits per second than sqlite
  edit cost   one process's edit_record_item latency, each edit with the version its previous edit returned

PostgreSQL is measured in a database made on that server for the measurement and dropped after it; the stores'
two schemas there are dropped before each run. The server's other databases are left alone.
"""

import contextlib
import dataclasses
import os
import random
import tempfile
import urllib.parse
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from benchmark.timing import latency, timed
from benchmark.tools import OTHER_SIX, SIX_FIELDS
from benchmark.writers import (
    EVENTS_OF_CHANNEL, REPEATED_KEYS, STORED_VERSIONS, chain_problems, count_problems, read_ground_truth,
    run_together, sequence_problems, writer,
)
from osfoundry_tools.content.workload import BUG_TRACKER as CHANNEL

SQLITE, POSTGRESQL = "sqlite", "PostgreSQL"
HOT, SHARED, SEPARATE = "one hot item", "many items, one channel", "one channel each"
SHAPES = (HOT, SHARED, SEPARATE)
SERVER = "OSFOUNDRY_TEST_POSTGRES"  # the environment variable naming the PostgreSQL server to measure on
RECORD_SCHEMA = "osfoundry_record_channel"
SCHEMAS = (RECORD_SCHEMA, "osfoundry_knowledge_base")  # dropped before each run, to start fresh
EDITED = 50  # items the edit cost cycles over, as the tools section's edits do
PROBLEMS_KEPT = 5  # the first problems of a broken chain kept in the facts


@dataclasses.dataclass(frozen=True)
class Plan:
    """How much the section measures."""

    writers: Tuple[int, ...]  # the numbers of writer processes
    edits: int  # saved edits per writer per run
    items: int  # bugs per channel
    repetitions: int  # of every run, and of the edit cost
    calls: int  # timed edits per engine per repetition of the edit cost


# ---------------------------------------------------------------------------
# The PostgreSQL server, and a database of the measurement's own on it.


def postgres_server(environ: Mapping[str, str] = os.environ) -> Tuple[Optional[str], str]:
    """The URL of the PostgreSQL server to measure on, or None and the reason there is none."""
    url = environ.get(SERVER)
    if not url:
        return None, f"`{SERVER}` is not set"
    psycopg = psycopg_or_none()
    if psycopg is None:
        return None, "this Python has no psycopg"
    try:
        administered(url, "SELECT 1")
    except psycopg.Error as error:
        return None, f"the server named by `{SERVER}` cannot be reached: {str(error).strip().splitlines()[0]}"
    return url, ""


def psycopg_or_none() -> Any:
    """The driver, imported here and not above, since only a PostgreSQL measurement needs it; None without it
    (server_url then says so, and nothing else asks)."""
    try:
        import psycopg
    except ImportError:
        return None
    return psycopg


def with_database(url: str, name: str) -> str:
    """`url` naming the database `name` instead of its own."""
    parts = urllib.parse.urlsplit(url)
    query = [(key, value) for key, value in urllib.parse.parse_qsl(parts.query) if key != "dbname"]
    return urllib.parse.urlunsplit(parts._replace(path="/" + name, query=urllib.parse.urlencode(query)))


def administered(url: str, statement: str) -> List[Tuple[Any, ...]]:
    """The rows of one statement run outside any transaction on the database at `url`."""
    with psycopg_or_none().connect(url, autocommit=True) as connection:
        cursor = connection.execute(statement)
        return cursor.fetchall() if cursor.description else []


@contextlib.contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """A new database on the server at `url`, for this measurement alone: its URL. Dropped afterwards."""
    name = f"osfoundry_engines_{os.getpid()}"
    administered(url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    administered(url, f"CREATE DATABASE {name}")
    try:
        yield with_database(url, name)
    finally:
        administered(url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def server_facts(url: str) -> Dict[str, str]:
    """The server's version, how this machine reaches it, and whether it syncs its log to the disk (fsync)."""
    ((version,),) = administered(url, "SHOW server_version")
    ((fsync,),) = administered(url, "SHOW fsync")
    parts = urllib.parse.urlsplit(url)
    host = dict(urllib.parse.parse_qsl(parts.query)).get("host") or parts.hostname or ""
    reached = "its Unix socket" if not host or host.startswith("/") else f"TCP to {host}"
    return {"version": str(version).split()[0], "reached": reached, "fsync": str(fsync)}


# ---------------------------------------------------------------------------
# A run: a fresh database, its bug trackers, the writers started together, the check.


def fresh(engine: str, place: str) -> str:
    """A new, empty store location: a new file in the folder `place` (sqlite), or the database at the URL `place`
    with the stores' schemas dropped (PostgreSQL)."""
    if engine == POSTGRESQL:
        for schema in SCHEMAS:
            administered(place, f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        return place
    handle, path = tempfile.mkstemp(prefix="engines-", suffix=".db", dir=place)
    os.close(handle)  # an empty file: sqlite makes it a new database
    return path


def file_channels(location: str, channels: Sequence[str], items: int, seed: int) -> Dict[str, List[str]]:
    """Each of `channels` a bug tracker (workload.BUG_TRACKER_FIELDS) of `items` New bugs: their item IDs."""
    with record_store.connect(location) as store:
        return {channel: file_bugs(store, channel, items, random.Random(f"{seed}:{channel}"))
                for channel in channels}


def file_bugs(store: record_store.RecordStore, channel: str, count: int, rng: random.Random) -> List[str]:
    """A new bug tracker `channel` of `count` bugs from workload.new_bug, filed in one transaction."""
    store.create_channel(channel, "Bug tracker", workload.BUG_TRACKER_FIELDS)
    with store.database.write():
        for number in range(1, count + 1):
            store.create_item(channel, workload.new_bug(rng, number, workload.DESCRIPTION_CHARACTERS))
    return store.item_ids(channel)


def channel_names(shape: str, writers: int) -> List[str]:
    """The channels a run of `shape` files: one for each writer, or one for all."""
    return [f"{CHANNEL}-{number}" for number in range(1, writers + 1)] if shape == SEPARATE else [CHANNEL]


def assignments(shape: str, channels: Dict[str, List[str]], writers: int) -> List[Tuple[str, List[str]]]:
    """What each writer edits: its channel, and the items it draws from."""
    if shape == SEPARATE:
        return list(channels.items())
    ((channel, item_ids),) = channels.items()
    return [(channel, item_ids[:1] if shape == HOT else item_ids)] * writers


def run(engine: str, place: str, shape: str, writers: int, edits: int, items: int, seed: int) -> Dict[str, Any]:
    """One run (see the glossary). Returns {"writers", "edits" (saved, summed), "conflicts", "busy", "seconds",
    "edits_per_second", "chain": {"ok", "problems" (the first few), "problem_count"}}."""
    location = fresh(engine, place)
    channels = file_channels(location, channel_names(shape, writers), items, seed)
    assigned = assignments(shape, channels, writers)
    counts, seconds = run_together(writer, [(location, channel, item_ids, edits, seed, number)
                                            for number, (channel, item_ids) in enumerate(assigned, 1)])
    saved = sum(c["saved"] for c in counts)
    expected = {channel: edits * [c for c, _ in assigned].count(channel) for channel in channels}
    return {"writers": writers, "edits": saved, "conflicts": sum(c["version_conflict"] for c in counts),
            "busy": sum(c["busy"] for c in counts), "seconds": seconds,
            "edits_per_second": saved / seconds if seconds > 0 else float("inf"),
            "chain": check_chains(engine, location, expected)}



# ---------------------------------------------------------------------------
# The single-chain check, on either engine.


def check_chains(engine: str, location: str, expected: Dict[str, int]) -> Dict[str, Any]:
    """benchmark/writers.py's single-chain check of each channel, with the 'updated' events it should hold."""
    problems: List[str] = []
    repeated: Set[Tuple[Any, ...]] = set()
    for channel, edits in expected.items():
        events, stored, keys = ground_truth(engine, location, channel)
        problems += (sequence_problems(channel, [event[0] for event in events])
                     + chain_problems(channel, events, stored) + count_problems(channel, events, edits))
        repeated.update((key, times) for key, times in keys)
    problems += [f"idempotency key {key!r} is stored {times} times" for key, times in sorted(repeated)]
    return {"ok": not problems, "problems": problems[:PROBLEMS_KEPT], "problem_count": len(problems)}


def ground_truth(engine: str, location: str,
                 channel: str) -> Tuple[List[Tuple[Any, ...]], Dict[str, int], List[Tuple[Any, ...]]]:
    """From one snapshot: the channel's events, its items' stored versions, and the keys stored more than once."""
    if engine == SQLITE:
        return read_ground_truth(location, channel)
    psycopg = psycopg_or_none()
    with psycopg.connect(location) as connection:
        connection.isolation_level, connection.read_only = psycopg.IsolationLevel.REPEATABLE_READ, True
        connection.execute(f"SET search_path TO {RECORD_SCHEMA}")
        events = [tuple(row) for row in connection.execute(pyformat(EVENTS_OF_CHANNEL), (channel,)).fetchall()]
        stored = {item_id: version for item_id, version in
                  connection.execute(pyformat(STORED_VERSIONS), (channel,)).fetchall()}
        repeated = [tuple(row) for row in connection.execute(REPEATED_KEYS).fetchall()]
        connection.rollback()
    return events, stored, repeated


def pyformat(statement: str) -> str:
    """A statement with sqlite's '?' parameters in psycopg's '%s'."""
    return statement.replace("?", "%s")


# ---------------------------------------------------------------------------
# The cost of one edit: one process, one engine after the other.


class Editor:
    """edit_record_item through call_tool, one call per number: the items in turn, each with the version its
    previous edit returned, six fields as the tools section sets them."""

    def __init__(self, store: record_store.RecordStore, item_ids: Sequence[str]) -> None:
        self.store, self.item_ids = store, list(item_ids)
        self.versions = {item_id: store.item(CHANNEL, item_id)["version"] for item_id in self.item_ids}
        self.keys = 0

    def __call__(self, number: int) -> None:
        item_id, turn = self.item_ids[number % len(self.item_ids)], number // len(self.item_ids)
        self.keys += 1
        result = self.store.call_tool("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": item_id, "values": (SIX_FIELDS, OTHER_SIX)[turn % 2],
            "expected_version": self.versions[item_id], "idempotency_key": f"cost-{self.keys}"})
        if "error" in result:
            raise RuntimeError(f"edit_record_item was refused during the benchmark: {result}")
        self.versions[item_id] = result["version"]


def edit_costs(places: Dict[str, str], plan: Plan, log: Callable[[str], None]) -> Dict[str, List[Dict[str, float]]]:
    """Per engine, per repetition, the median and p99 of `plan.calls` edits in microseconds; within a repetition
    the engines are timed one after the other."""
    stores = {engine: record_store.connect(fresh(engine, place)) for engine, place in places.items()}
    try:
        editors = {engine: Editor(store, file_bugs(store, CHANNEL, plan.items, random.Random(1))[:EDITED])
                   for engine, store in stores.items()}
        costs: Dict[str, List[Dict[str, float]]] = {engine: [] for engine in places}
        for repetition in range(plan.repetitions):
            log(f"engines: the cost of one edit, repetition {repetition + 1} of {plan.repetitions}")
            for engine, editor in editors.items():
                costs[engine].append(latency(timed(editor, plan.calls)))
    finally:
        for store in stores.values():
            store.close()
    return costs


# ---------------------------------------------------------------------------
# The section: every run, then the cost of one edit.


def measure(directory: str, plan: Plan, log: Callable[[str], None],
            environ: Mapping[str, str] = os.environ) -> Dict[str, Any]:
    """Every shape and number of writers on sqlite and, where a server is named and psycopg imports, PostgreSQL;
    the runs of the two engines alternate, so each pair is measured back to back."""
    url, missing = postgres_server(environ)
    with contextlib.ExitStack() as stack:
        places = {SQLITE: directory}
        if url is not None:
            places[POSTGRESQL] = stack.enter_context(scratch_database(url))
        runs: Dict[str, Dict[str, Dict[str, List[Dict[str, Any]]]]] = {
            engine: {shape: {str(w): [] for w in plan.writers} for shape in SHAPES} for engine in places}
        for repetition in range(plan.repetitions):
            for shape in SHAPES:
                for writers in plan.writers:
                    log(f"engines: {shape}, {writers} writer{'s' if writers > 1 else ''}, "
                        f"repetition {repetition + 1} of {plan.repetitions}")
                    for engine, place in places.items():
                        runs[engine][shape][str(writers)].append(
                            run(engine, place, shape, writers, plan.edits, plan.items, seed=repetition + 1))
        costs = edit_costs(places, plan, log)
        server = server_facts(url) if url is not None else None
    return {"plan": dataclasses.asdict(plan), "cpus": os.cpu_count() or 1, "postgres": server,
            "not_measured": missing, "runs": runs, "edit_cost": costs}
