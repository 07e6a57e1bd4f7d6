"""Writers: 1, 2, 4 processes editing one WAL database file: edits per second, conflicts, one chain of versions.

Layer: a benchmark client. It drives the record store through call_tool (the
writers) and its people methods (filing the bugs) only. The single-chain check
is the one exception: it reads the finished file with plain SQL, as ground truth
that does not depend on the store code it checks. A measurement, not a test:
nothing here asserts a time.

Glossary:
  writer    one OS process (spawned) with its own connection: read_record_item, then
            edit_record_item with that version, until it has saved its share of edits
  edit      one intended change of an item (status and points), under its own idempotency key
  conflict  a version_conflict: another writer saved the item in between; re-read and retry
  chain     an item's 'updated' events: versions 2, 3, ... up to its stored version, no gap or repeat

    python3 -m benchmark.writers --processes 2 --edits 200   # one line of figures
    python3 -m benchmark.writers --processes 4 --edits 500 --items 20 --seed 1
"""

import contextlib
import multiprocessing
import os
import platform
import queue
import random
import sqlite3
import sys
import tempfile
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark import fixtures
from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from osfoundry_tools.cli import EXIT_FAILED, EXIT_OK, OneLineParser, deaf_children, positive, run_main
from osfoundry_tools.content.workload import BUG_TRACKER as CHANNEL

PROCESSES = 2
EDITS = 500  # saved edits per writer
ITEMS = 20  # a small hot set, so writers meet on the same items
SEED = 1
START_SECONDS = 60.0  # how long a ready writer waits for the start signal
MAX_ATTEMPTS = 1000  # tries of one edit before a writer gives up: compare-and-swap always lets someone win
RETRIED = ("version_conflict", "busy")

STATUSES = [option["value"] for field in workload.BUG_TRACKER_FIELDS if field["key"] == "status"
            for option in field["options"]]
POINTS = next((f["min"], f["max"]) for f in workload.BUG_TRACKER_FIELDS if f["key"] == "points")


# ---------------------------------------------------------------------------
# One run: the tracker, the writers started together, their counts, the check.


def run_writers(directory: str, processes: int, edits_per_process: int, items: int, seed: int) -> Dict[str, Any]:
    """One run: a fresh WAL database file in `directory` holding a bug-tracker channel of `items` items
    (workload.BUG_TRACKER_FIELDS, created through the people side, bugs from workload.new_bug),
    then `processes` OS processes that each make `edits_per_process` successful edits through
    call_tool only: read_record_item, then edit_record_item with that version and a fresh idempotency key,
    on an item drawn from a seeded random.Random per process; on version_conflict, count it, re-read and retry.
    All processes start together (one start signal, sent once every writer is connected and has said so); the
    clock runs from that signal until the last writer reports its counts. Each edit keeps its key across its retries
    (a refused call stores nothing under it).
    Returns {"processes", "edits" (successful, summed), "conflicts", "busy" (Busy rejections, if any),
             "seconds", "edits_per_second", "chain": {"ok": bool, "problems": [str, ...]}}."""
    if processes < 1 or edits_per_process < 0 or items < 1:
        raise ValueError(f"need processes >= 1, edits_per_process >= 0 and items >= 1, got {processes}, "
                         f"{edits_per_process} and {items}")
    path, item_ids = bug_tracker(directory, items, seed)
    counts, seconds = run_processes(path, item_ids, processes, edits_per_process, seed)
    edits = sum(c["saved"] for c in counts)
    return {"processes": processes, "edits": edits, "conflicts": sum(c["version_conflict"] for c in counts),
            "busy": sum(c["busy"] for c in counts), "seconds": seconds,
            "edits_per_second": edits / seconds if seconds > 0 else float("inf"),
            "chain": check_chain(path, CHANNEL, processes * edits_per_process)}


def bug_tracker(directory: str, items: int, seed: int) -> Tuple[str, List[str]]:
    """A new database file in `directory` with the bug tracker of `items` New bugs; its path and the item IDs."""
    handle, path = tempfile.mkstemp(prefix="writers-", suffix=".db", dir=directory)
    os.close(handle)  # an empty file: sqlite makes it a new database
    store, item_ids = fixtures.bug_channel(path, items, seed)
    store.close()
    return path, item_ids


def run_processes(path: str, item_ids: Sequence[str], processes: int, edits: int,
                  seed: int) -> Tuple[List[Dict[str, int]], float]:
    """Spawn the writers, start them together once all are ready, wait for the last to exit: their counts
    and the seconds from the start signal to the last writer's report of them."""
    return run_together(writer, [(path, CHANNEL, list(item_ids), edits, seed, number)
                                 for number in range(1, processes + 1)])


def run_together(target: Callable[..., None],
                 arguments: Sequence[Tuple[Any, ...]]) -> Tuple[List[Dict[str, Any]], float]:
    """One spawned process per tuple of `arguments`, running target(*those, start, reports): each reports once
    it is ready, then waits for `start`, then reports its counts (or {"failed": traceback}). Returns the counts
    and the seconds from the start signal to the last process's report of them."""
    context = multiprocessing.get_context("spawn")
    start, reports = context.Event(), context.Queue()
    writers = [context.Process(target=target, args=(*given, start, reports)) for given in arguments]
    with deaf_children():  # Ctrl-C is the benchmark's to handle: it stops them below
        for process in writers:
            process.start()
    try:
        collect(reports, writers)  # every writer connected and waiting
        began = time.perf_counter()
        start.set()
        counts = collect(reports, writers)
        seconds = time.perf_counter() - began  # to the last writer's counts, not its exit: teardown is not editing
        for process in writers:
            process.join()
    finally:
        for process in writers:
            if process.is_alive():
                process.terminate()
                process.join()
    return counts, seconds


def collect(reports: Any, writers: Sequence[Any]) -> List[Dict[str, Any]]:
    """One report from each writer; RuntimeError with its traceback if one failed, or if one died silently."""
    received: List[Dict[str, Any]] = []
    while len(received) < len(writers):
        try:
            report = reports.get(timeout=1.0)
        except queue.Empty:
            dead = [p.exitcode for p in writers if p.exitcode not in (None, 0)]
            if dead:
                raise RuntimeError(f"a writer exited with status {dead[0]} before reporting") from None
            continue
        if "failed" in report:
            raise RuntimeError("a writer failed:\n" + report["failed"])
        received.append(report)
    return received


# ---------------------------------------------------------------------------
# One writer: its own connection and random.Random, edits through call_tool only.


def writer(path: str, channel: str, item_ids: List[str], edits: int, seed: int, number: int, start: Any,
           reports: Any) -> None:
    """A writer process on `channel` of the store at `path` (a file or a postgresql:// URL): report ready, wait for
    `start`, save `edits` edits, report its counts (or its traceback)."""
    try:
        with record_store.connect(path) as store:
            rng = random.Random(f"writer {number} of seed {seed}")
            reports.put({"ready": number})
            if not start.wait(START_SECONDS):
                raise RuntimeError(f"no start signal within {START_SECONDS:.0f} s")
            reports.put(write_edits(store, rng, item_ids, edits, f"w{number}", channel))
    except BaseException:
        reports.put({"failed": f"writer {number}: {traceback.format_exc()}"})


def write_edits(store: record_store.RecordStore, rng: random.Random, item_ids: Sequence[str], edits: int,
                name: str, channel: str = CHANNEL) -> Dict[str, int]:
    """Save `edits` edits, each on an item of `channel` drawn from `rng`: how many saved, conflicted and were
    busy."""
    counts = {"saved": 0, "version_conflict": 0, "busy": 0}
    for index in range(1, edits + 1):
        edit_until_saved(store, rng.choice(item_ids), edit_values(rng), f"{name}-{index}", counts, channel)
    return counts


def edit_values(rng: random.Random) -> Dict[str, Any]:
    """A valid change of two fields of the tracker: a status option and points within their bounds."""
    return {"status": rng.choice(STATUSES), "points": rng.randint(*POINTS)}


def edit_until_saved(store: record_store.RecordStore, item_id: str, values: Dict[str, Any], key: str,
                     counts: Dict[str, int], channel: str = CHANNEL) -> None:
    """Read, then edit with the version read, until saved; a refused edit stores nothing, so the key is kept."""
    for _ in range(MAX_ATTEMPTS):
        outcome = read_and_edit(store, item_id, values, key, channel)
        counts[outcome] += 1
        if outcome == "saved":
            return
    raise RuntimeError(f"edit {key} of {item_id} was not saved in {MAX_ATTEMPTS} attempts")


def read_and_edit(store: record_store.RecordStore, item_id: str, values: Dict[str, Any], key: str,
                  channel: str = CHANNEL) -> str:
    """One attempt on an item of `channel`: 'saved', 'version_conflict' or 'busy'; RuntimeError on any other
    result."""
    item = store.call_tool("read_record_item", {"record_channel_id": channel, "item_id": item_id})
    result = item
    if "error" not in item:
        result = store.call_tool("edit_record_item", {"record_channel_id": channel, "item_id": item_id,
                                                      "values": values, "expected_version": item["version"],
                                                      "idempotency_key": key})
    if result.get("error") in RETRIED:
        return result["error"]
    if "error" in result or result["replay"]:
        raise RuntimeError(f"edit {key} of {item_id}: {result}")
    return "saved"


# ---------------------------------------------------------------------------
# The single-chain check, on the finished file.

EVENTS_OF_CHANNEL = "SELECT sequence, type, subject_id, version FROM events WHERE resource_id = ? ORDER BY sequence"
STORED_VERSIONS = "SELECT id, version FROM items WHERE channel_id = ? ORDER BY number"
REPEATED_KEYS = "SELECT key, COUNT(*) FROM idempotency_keys GROUP BY key HAVING COUNT(*) > 1 ORDER BY key"


def check_chain(path: str, channel_id: str, expected_edits: int) -> Dict[str, Any]:
    """The single-chain check on a finished database file: per item, the 'updated' events' versions form
    one gap-free chain 2..v ending at the item's stored version (plus its 'created' event at 1); the channel's
    event sequences are exactly 1..N with no gap or repeat; the number of 'updated' events equals
    expected_edits; no idempotency key is stored twice. Returns {"ok": bool, "problems": [...]}
    (problems say in a sentence what is wrong, e.g. 'item itm-00003: versions 2, 3, 3, 5')."""
    events, stored, repeated = read_ground_truth(path, channel_id)
    problems = (sequence_problems(channel_id, [e[0] for e in events]) + chain_problems(channel_id, events, stored)
                + count_problems(channel_id, events, expected_edits)
                + [f"idempotency key {key!r} is stored {times} times" for key, times in repeated])
    return {"ok": not problems, "problems": problems}


def read_ground_truth(path: str, channel_id: str) -> Tuple[List[Tuple[Any, ...]], Dict[str, int], List[Tuple]]:
    """From one snapshot of the file: the channel's events, its items' stored versions, repeated keys."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no database file at {path}")
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute("BEGIN")
        try:
            events = connection.execute(EVENTS_OF_CHANNEL, (channel_id,)).fetchall()
            stored = dict(connection.execute(STORED_VERSIONS, (channel_id,)).fetchall())
            repeated = connection.execute(REPEATED_KEYS).fetchall()
        finally:
            connection.execute("ROLLBACK")
    return events, stored, repeated


def sequence_problems(channel_id: str, sequences: Sequence[int]) -> List[str]:
    """The channel's sequences must be exactly 1..N."""
    wrong = next((i for i, sequence in enumerate(sequences) if sequence != i + 1), None)
    if wrong is None:
        return []
    where = f"after {sequences[wrong - 1]} comes {sequences[wrong]}" if wrong else f"the first is {sequences[0]}"
    return [f"channel {channel_id}: event sequences should run 1 to {len(sequences)} with no gap or repeat, "
            f"but {where}"]


def chain_problems(channel_id: str, events: Sequence[Tuple[Any, ...]], stored: Dict[str, int]) -> List[str]:
    """Per item: one 'created' event at version 1, then 'updated' versions 2..v, v its stored version."""
    if not stored:
        return [f"channel {channel_id} has no items"]
    created: Dict[str, List[int]] = {item_id: [] for item_id in stored}
    updated: Dict[str, List[int]] = {item_id: [] for item_id in stored}
    problems = []
    for sequence, kind, subject, version in events:
        if subject not in stored:
            problems.append(f"event {sequence} names {subject!r}, which is not an item of channel {channel_id}")
        elif kind in ("created", "updated"):
            (created if kind == "created" else updated)[subject].append(version)
        else:
            problems.append(f"item {subject}: event {sequence} is {kind!r}, which no writer makes")
    for item_id, version in stored.items():
        if created[item_id] != [1]:
            problems.append(f"item {item_id}: 'created' events at versions {listed(created[item_id])}, "
                            "not one at version 1")
        should = list(range(2, version + 1))
        if updated[item_id] != should:
            problems.append(f"item {item_id}: versions {listed(updated[item_id], should)} "
                            f"({len(updated[item_id])} 'updated' events); its stored version is {version}, "
                            f"so they should run {listed(should) if len(should) < 3 else f'2 to {version}'}")
    return problems


def count_problems(channel_id: str, events: Sequence[Tuple[Any, ...]], expected_edits: int) -> List[str]:
    """One 'updated' event per saved edit."""
    updates = sum(1 for event in events if event[1] == "updated")
    if updates == expected_edits:
        return []
    return [f"channel {channel_id}: {updates} 'updated' events, but {expected_edits} edits were made"]


def listed(versions: Sequence[int], should: Optional[Sequence[int]] = None) -> str:
    """Versions as a sentence shows them: all if few, else the stretch around the first that differs from `should`."""
    if not versions:
        return "none"
    should = versions if should is None else should
    first = next((i for i, (got, want) in enumerate(zip(versions, should)) if got != want),
                 min(len(versions), len(should)))
    low, high = (0, len(versions)) if len(versions) <= 8 else (max(0, first - 3), first + 3)
    shown = ", ".join(map(str, versions[low:high]))
    return ("…, " if low else "") + shown + (", …" if high < len(versions) else "")


# ---------------------------------------------------------------------------
# The command line: one line of figures.


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = OneLineParser(prog="benchmark.writers", description=(
        "Time writer processes editing one WAL database file through call_tool: edits per second, "
        "version conflicts, and the single-chain check."))
    p.add_argument("--processes", type=positive, default=PROCESSES, help=f"writer processes (default {PROCESSES})")
    p.add_argument("--edits", type=positive, default=EDITS, help=f"saved edits per process (default {EDITS})")
    p.add_argument("--items", type=positive, default=ITEMS, help=f"bugs in the tracker (default {ITEMS})")
    p.add_argument("--seed", type=positive, default=SEED, help=f"seed of the bugs and the writers (default {SEED})")
    options = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        run = run_writers(directory, options.processes, options.edits, options.items, options.seed)
    chain = "ok" if run["chain"]["ok"] else f"BROKEN ({len(run['chain']['problems'])} problems)"
    writers = f"{run['processes']} writer{'s' if run['processes'] > 1 else ''}"
    print(f"{writers} x {options.edits} edits on {options.items} items: "
          f"{run['edits_per_second']:.0f} edits/s, {run['edits']} edits in {run['seconds']:.2f} s, "
          f"conflicts {run['conflicts']}, busy {run['busy']}, chain {chain} "
          f"(Python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.system()} {platform.machine()})")
    for problem in run["chain"]["problems"]:
        print(problem, file=sys.stderr)
    return EXIT_OK if run["chain"]["ok"] else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(run_main("benchmark.writers", main))
