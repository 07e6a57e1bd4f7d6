"""bench.py: where the stores stand against the bare sqlite transaction, and how their cost grows.

    python3 bench.py              # about 13 minutes on two cores; writes results/performance.md (make bench runs it
                                  # inside a throwaway PostgreSQL cluster, for the engines section)
    python3 bench.py --quick      # a smoke run of every section in seconds (its figures mean little)

Layer: a client (see the README's "What is here, layer by layer"): every measured call goes through call_tool,
or through the MCP server over stdio or Streamable HTTP. This file holds the sizes, the goals, the
command line and the order of the sections; in benchmark/, timing.py times and
summarises, tools.py and growth.py make the calls, writers.py runs the concurrent
writers, engines.py runs them on sqlite and on PostgreSQL (the server named by
OSFOUNDRY_TEST_POSTGRES, if any), round_trips.py the round trips, http_load.py
the HTTP server under load (its clients in processes of load_clients.py), push.py
listen streams beside polling (our extension), and report.py writes the page.

Every latency is the median over REPETITIONS of each repetition's own median (or
99th percentile), with the smallest and largest repetition beside it. Within a
repetition everything compared is measured back to back, so a ratio is always
between figures taken at the same moment of a shared, noisy machine.
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)


import argparse
import contextlib
import cProfile
import dataclasses
import datetime
import json
import os
import platform
import pstats
import sqlite3
import sys
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

from benchmark import (
    cores, engines, fixtures, growth, guards, http_load, memory, push, report, round_trips, search_quality, writers,
)
from lab.knowledge_base import day, seed_profile
from lab.knowledge_base.models import models_of
from lab.knowledge_base.scenario import DAY_AS_STATED, MAIN_SEEDS, MODELS, RANGE_GROUPS
from benchmark.timing import FloorTransaction, KnowledgeBaseFloor, latency, timed
from benchmark.tools import EDITED, KB_FLOOR, MEMORY, STUBBED, TIMED, WAL, Workload, edit_parts, unvalidated
from osfoundry_tools.cli import (
    EXIT_OK, Destination, FileRefused, OneLineParser, duration, output_folder, read_file, removed_unless_written,
    run_deaf, run_main, shown, write_files,
)
from lab import seed_pool
from lab.experiments import DRAWS, GROUP_SIZE, RESULTS, ROOT, RUNS, commit_of

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE, FACTS = "performance.md", "performance.json"
BEFORE = os.path.join(HERE, "benchmark", "before_issue_44.json")  # see before_speed_up()
FACTS_BYTES = 64 * 1024 * 1024  # the largest facts file --render reads (a full run's is about 0.1 MiB)
DATABASE_KINDS = (MEMORY, WAL)


@dataclasses.dataclass(frozen=True)
class Sizes:
    """How much each section measures; FULL for the results, QUICK for a smoke run."""

    repetitions: int
    calls: int  # timed calls per tool per repetition
    articles: int  # the knowledge base the seven tools are timed on
    items: int  # the bug channel they are timed on
    growth_seconds: float  # at most this long per growth figure per repetition (at least GROWTH_MIN calls)
    growth_calls: int
    poll_events: Tuple[int, ...]
    search_articles: Tuple[int, ...]
    list_items: Tuple[int, ...]
    day_scales: Tuple[int, ...]
    writer_processes: Tuple[int, ...]
    writer_edits: int  # per process
    writer_items: int  # the hot set they edit
    engine_writers: Tuple[int, ...]  # writer processes per run of the engines section, on sqlite and PostgreSQL
    engine_edits: int  # saved edits per writer per run
    engine_items: int  # bugs per channel
    engine_repetitions: int  # of each run, and of the cost of one edit (`calls` edits per engine)
    round_trips: int  # timed round trips per server and transport per repetition
    clients: Tuple[int, ...]  # clients at once on our HTTP server, one run of each per repetition
    client_calls: int  # timed round trips per client per run
    load_clients: Tuple[int, ...]  # clients at once on each HTTP server under load, from client processes
    load_seconds: float  # the timed window of each load run
    load_repetitions: int  # of every load run and burst
    bursts: Tuple[int, ...]  # connections opened at once, each sending one read
    flood_connections: int  # connections sending long header lines
    flood_lines: int  # header lines of 65,000 bytes each of them sends
    held_heads: int  # connections holding a head just within the bounds
    hold_seconds: float  # how long the held floods stay open
    sim_arguments: Tuple[str, ...]  # the sim.py run whose peak memory is reported
    profiled_edits: int
    days_per_process: int  # seed days each process runs when the job section times 1, 2 and every core
    push_listeners: int = 100  # listen streams on one server while saves are timed to their notifications
    push_saves: int = 100  # saves per repetition of the push section
    push_idle_seconds: float = 2.0  # the listeners idle this long while the server's CPU is measured


FULL = Sizes(repetitions=5, calls=500, articles=400, items=200, growth_seconds=1.0, growth_calls=200,
             poll_events=(10_000, 100_000, 1_000_000), search_articles=(400, 10_000, 100_000),
             list_items=(1_000, 100_000), day_scales=(1, 10, 100), writer_processes=(1, 2, 4), writer_edits=500,
             writer_items=20, engine_writers=(1, 2, 4, 8), engine_edits=300, engine_items=200, engine_repetitions=3,
             round_trips=2000, clients=(1, 4, 16), client_calls=500, load_clients=(1, 4, 16, 64), load_seconds=2.0,
             load_repetitions=3, bursts=(64, 1000), flood_connections=24, flood_lines=100, held_heads=1000,
             hold_seconds=2.0, sim_arguments=(), profiled_edits=5000, days_per_process=4)
QUICK = Sizes(repetitions=2, calls=30, articles=60, items=60, growth_seconds=0.1, growth_calls=10,
              poll_events=(200, 2_000), search_articles=(60, 300), list_items=(60, 300), day_scales=(1,),
              writer_processes=(1, 2), writer_edits=20, writer_items=5, engine_writers=(1, 2), engine_edits=10,
              engine_items=20, engine_repetitions=1, round_trips=20, clients=(1, 4, 16), client_calls=5,
              load_clients=(1, 16), load_seconds=0.1, load_repetitions=1, bursts=(64, 250),
              flood_connections=24, flood_lines=20, held_heads=100, hold_seconds=0.3,
              sim_arguments=("--seeds", "1", "--ranges", "0"), profiled_edits=200, days_per_process=1,
              push_listeners=20, push_saves=10, push_idle_seconds=0.2)
GROWTH_MIN = 5
KEPT_ARTICLES = 50  # articles whose words the timed searches use
# Measured in this order: builds and the sim.py runs start while this process is small (on systems where a
# child's peak memory includes its parent's).
SECTIONS = ("memory", "job", "growth", "quality", "tools", "guards", "day", "writers", "engines", "mcp", "http",
            "push")

# The goals, from the issue: what a design that holds at scale should show.
GOALS = {
    "edit_over_floor": 2.0,  # a full edit_record_item within 2x the floor
    "validation_share": 15.0,  # validation under 15% of the edit (the article's overhead was 75%)
    "poll_flat": 1.2,  # poll latency within 20% from the smallest log to the largest
    "search_question_ms": 10.0,  # a natural question at the largest knowledge base, median over the questions
    "search_broad_ms": 20.0,  # the broadest query (words every article holds) at the largest knowledge base
    "search_over_floor": 2.0,  # narrow and mid queries within 2x the search floor at the largest knowledge base
    "list_flat": 1.2,  # a page as fast at the largest channel as at the smallest (we allow 20%)
    "adversarial_over_ordinary": 10.0,  # a search over planted adversarial articles within 10x an ordinary one
    "record_edit_over_floor": 3.0,  # issue 17: edit_record_item within 3x the floor, in memory
    "seed_over_sqlite": 1.5,  # issue 44: a seed day within 1.5x the time of its own sqlite statements
    "kb_edit_over_own_floor": 3.0,  # edit_knowledge_article within 3x its own floor (the index update included)
    "kb_edit_p99_over_median": 5.0,  # edit_knowledge_article's p99 within 5x its median on a WAL file
    "listing_over_floor": 10.0,  # a page of list_record_items within 10x the floor, in memory
    "main_job_seconds": 30.0,  # python3 sim.py --seeds 1-5 (the README's main job) on two idle cores
    "main_seeds_seconds": 1.0,  # python3 sim.py --seeds 1-5 --ranges 0: the main seeds alone
    "two_processes_speedup": 1.7,  # issue 44: seed days per second on 2 processes at least this many times on 1
    # issue 30, our HTTP server under load:
    "connect_retry_seconds": 0.5,  # no connect of a burst of 64 this long: a dropped SYN is sent again after ~1 s
    "flood_over_idle_mib": 100.0,  # resident memory during any flood within this much above idle
    "flood_after_mib": 20.0,  # and within this much of idle once the flood's connections have closed
    "read_scaling": 1.5,  # reads per second at 16 clients at least this many times those at 1
}


# ---------------------------------------------------------------------------
# The seven tools and the floor, in memory and on a WAL file.


def workload(kind: str, directory: str, sizes: Sizes) -> Workload:
    """The knowledge base of the default day and a bug channel, on a database of `kind`."""
    kb_path, records_path = ((":memory:", ":memory:") if kind == MEMORY else
                             (os.path.join(directory, "tools-kb.db"), os.path.join(directory, "tools-bugs.db")))
    kb, article_ids, written = fixtures.knowledge_base(kb_path, sizes.articles, keep=KEPT_ARTICLES)
    records, item_ids = fixtures.bug_channel(records_path, sizes.items)
    return Workload(kb, article_ids, written, records, item_ids)


def measure_tools(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """Per database kind and repetition: the floor, the knowledge-base floor, each tool, and edit_record_item with
    validation stubbed; in memory, also the parts of edit_record_item timed alone."""
    workloads = {kind: workload(kind, directory, sizes) for kind in DATABASE_KINDS}
    floors = {kind: FloorTransaction(w.records.database.connection, w.item_ids[:EDITED])
              for kind, w in workloads.items()}
    kb_floors = {kind: KnowledgeBaseFloor(w.kb.database.connection, w.article_ids[:EDITED])
                 for kind, w in workloads.items()}
    runs: Dict[str, Dict[str, List[Dict[str, float]]]] = {kind: {} for kind in DATABASE_KINDS}
    parts: Dict[str, List[Dict[str, float]]] = {}
    for repetition in range(sizes.repetitions):
        log(f"tools: repetition {repetition + 1} of {sizes.repetitions}")
        for kind, work in workloads.items():
            figures = runs[kind]
            figures.setdefault("floor", []).append(latency(timed(floors[kind], sizes.calls)))
            figures.setdefault(KB_FLOOR, []).append(latency(timed(kb_floors[kind], sizes.calls)))
            for tool in TIMED:
                figures.setdefault(tool, []).append(latency(timed(work.call(tool), sizes.calls)))
            stubbed = work.call("edit_record_item", store=unvalidated(work.records))
            figures.setdefault(STUBBED, []).append(latency(timed(stubbed, sizes.calls)))
        for part, call in edit_parts(workloads[MEMORY]).items():
            parts.setdefault(part, []).append(latency(timed(call, sizes.calls)))
    result = {"runs": runs, "parts": parts, "bytes": {tool: workloads[MEMORY].size(tool) for tool in TIMED},
              "profile": profile_edits(workloads[MEMORY], sizes.profiled_edits)}
    for work in workloads.values():
        work.kb.close()
        work.records.close()
    return result


def profile_edits(work: Workload, count: int) -> List[Tuple[str, float]]:
    """Where edit_record_item's time goes in memory: each function's own time, as a share of the whole.

    cProfile adds a cost to every Python call, so it overstates Python against sqlite; the shares rank
    the parts, they do not time them.
    """
    call = work.call("edit_record_item")
    profiler = cProfile.Profile()
    profiler.enable()
    for number in range(count):
        call(number)
    profiler.disable()
    stats = pstats.Stats(profiler)
    entries = stats.stats  # type: ignore[attr-defined]  # Stats.__init__ sets it; typeshed leaves it out
    total = sum(entry[2] for entry in entries.values())
    parts = [(_function_name(where), entry[2] / total * 100) for where, entry in entries.items()]
    return sorted(parts, key=lambda part: -part[1])[:12]


def _function_name(where: Tuple[str, int, str]) -> str:
    path, line, name = where
    if path == "~":
        return name.strip("<>").replace("method ", "")
    return f"{os.path.basename(path)}:{name}"


# ---------------------------------------------------------------------------
# Growth: poll, search and list over files of growing size.


def measure_growth(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """Build every file apart, then time all sizes of a kind in turn within each repetition, after the floor
    on a small WAL file of the same directory."""
    plan = {"events": sizes.poll_events, "articles": sizes.search_articles, "help_articles": sizes.search_articles,
            "items": sizes.list_items}
    built: Dict[str, List[Dict[str, Any]]] = {}
    for kind, counts in plan.items():
        for size in counts:
            log(f"growth: building {size:,} {kind}")
            path = os.path.join(directory, f"growth-{kind}-{size}.db")
            built.setdefault(kind, []).append(growth.build_apart(kind, size, path))
    store, item_ids = fixtures.bug_channel(os.path.join(directory, "growth-floor.db"), EDITED)
    floor = FloorTransaction(store.database.connection, item_ids)
    timings = {kind: _time_sizes(facts, floor, sizes, log) for kind, facts in built.items()}
    store.close()
    return {"built": built, "timings": timings}


def _time_sizes(facts: List[Dict[str, Any]], floor: FloorTransaction, sizes: Sizes,
                log: Callable[[str], None]) -> Dict[str, Any]:
    """Per size, per label, one latency per repetition; each repetition times the floor, then the sizes in turn."""
    stores = [growth.open_built(f) for f in facts]
    calls = [growth.calls_for(store, f) for store, f in zip(stores, facts)]
    runs: List[Dict[str, List[Dict[str, float]]]] = [{} for _ in facts]
    floors = []
    for repetition in range(sizes.repetitions):
        log(f"growth: timing {facts[0]['kind']}, repetition {repetition + 1} of {sizes.repetitions}")
        floors.append(latency(timed(floor, sizes.calls)))
        for per_size, labelled in zip(runs, calls):
            for label, call in labelled.items():
                samples = timed_for(call, sizes.growth_calls, sizes.growth_seconds)
                per_size.setdefault(label, []).append(dict(latency(samples), calls=len(samples)))
    for store in stores:
        store.close()
    return {"sizes": runs, "floor": floors}


def timed_for(call: Callable[[int], Any], count: int, seconds: float) -> List[float]:
    """Up to `count` timed calls, fewer if they take more than `seconds` (but at least GROWTH_MIN)."""
    first = timed(call, GROWTH_MIN)
    affordable = int(seconds / max(sum(first) / len(first), 1e-9))
    return first + timed(call, max(0, min(count, affordable) - GROWTH_MIN))


def measure_quality(log: Callable[[str], None], quick: bool = False) -> Dict[str, Any]:
    """Search quality on real documentation sets (benchmark/search_quality.py), on sqlite and, where the server
    OSFOUNDRY_TEST_POSTGRES names can be reached, on PostgreSQL too; the field's libraries beside ours on every set
    (on the first only in a quick run)."""
    url, reason = engines.postgres_server()
    return dict(search_quality.measure_all(url, log, library_sets=1 if quick else None), postgres=reason)


def measure_guards(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """What the guards cost: each durability mode on WAL files, and searches over planted adversarial articles."""
    return {"durability": guards.measure_durability(directory, sizes.articles, sizes.items, sizes.calls,
                                                          sizes.repetitions, log),
            "adversaries": guards.measure_adversaries(directory, sizes.articles, sizes.calls,
                                                            sizes.repetitions, log)}


# ---------------------------------------------------------------------------
# The knowledge-base day, scaled.


SHARE_RUNS = 2  # runs of each kind (the seed as sim.py runs it, its statements alone) per repetition, the least kept


def measure_day(sizes: Sizes, log: Callable[[str], None], seed: int = 1) -> Dict[str, Any]:
    """sim.py's day for one seed at each scale: the three checks' calls and bytes at the end of the day; and, once
    per repetition, where the time of sim.py's first seed goes (lab/knowledge_base/seed_profile.py), then that seed
    as sim.py runs it beside its sqlite statements timed alone, with what one reading of their stopwatch costs."""
    seeds, alone, scenario = [], [], models_of(DAY_AS_STATED)[MODELS[0]]
    for repetition in range(sizes.repetitions):
        log(f"day: seed {seed} on stopwatches, then as sim.py runs it, repetition {repetition + 1} of "
            f"{sizes.repetitions}")
        seeds.append(seed_profile.timed_seed(seed, scenario)[1])
        alone.append(seed_profile.sqlite_share(seed, scenario, runs=SHARE_RUNS)._asdict())
    rows = []
    for scale in sizes.day_scales:
        log(f"day: scale x{scale}")
        scenario = fixtures.day_scenario(scale)
        started = time.perf_counter()
        plan = day.draw_plan(seed, scenario)
        replica = day.run_zipf_day(plan, scenario, day.Published(plan, scenario))
        end = replica["hours"][-1]
        rows.append({"scale": scale, "articles": scenario.articles, "questions": scenario.questions,
                     "saves": scenario.saves, "citations": end["citations"],
                     "distinct": end["distinct_citations"], "events": end["events_polled"],
                     "checks": len(replica["hours"]), "costs": end["costs"], "seconds": time.perf_counter() - started})
    return {"scales": rows, "seeds": seeds, "alone": alone, "runs": SHARE_RUNS,
            "reading": seed_profile.reading_seconds()}


# ---------------------------------------------------------------------------
# Writers, the MCP round trip, and peak memory.


def before_speed_up() -> Dict[str, Any]:
    """The figures issue 44's speed-up is compared with (BEFORE: the edit's parts, its ratio and the seed's parts of
    the last run before it, taken unchanged from that commit's results/performance.json), shown beside this run's."""
    with open(BEFORE, encoding="utf-8") as kept:
        return json.load(kept)


def measure_writers(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """Per number of processes, one run per repetition, each on a new file; and, per repetition, the floor
    alone in this one process, on a file like theirs."""
    runs: Dict[int, List[Dict[str, Any]]] = {}
    floors = []
    for repetition in range(sizes.repetitions):
        path = os.path.join(directory, f"writers-floor-{repetition}.db")
        store, item_ids = fixtures.bug_channel(path, sizes.writer_items)
        floors.append(latency(timed(FloorTransaction(store.database.connection, item_ids), sizes.calls)))
        store.close()
        for processes in sizes.writer_processes:
            log(f"writers: {processes} processes, repetition {repetition + 1} of {sizes.repetitions}")
            folder = tempfile.mkdtemp(dir=directory)
            runs.setdefault(processes, []).append(writers.run_writers(
                folder, processes, sizes.writer_edits, sizes.writer_items, seed=repetition + 1))
    return {"runs": runs, "floor": floors}


def measure_engines(directory: str, sizes: Sizes, run: Dict[str, str],
                    log: Callable[[str], None]) -> Dict[str, Any]:
    """sqlite and PostgreSQL side by side (benchmark/engines.py): writer processes in three shapes, and the cost
    of one edit; with the date and command of `run` (this run's machine facts) and its Python, since the section
    may be merged into another run's page."""
    started = time.perf_counter()
    plan = engines.Plan(writers=sizes.engine_writers, edits=sizes.engine_edits, items=sizes.engine_items,
                        repetitions=sizes.engine_repetitions, calls=sizes.calls)
    facts = engines.measure(directory, plan, log)
    return dict(facts, measured=measured_by(run, time.perf_counter() - started))


def python_shown() -> str:
    """The Python running this, as a command line in this folder names it: `.venv/bin/python`, or python3."""
    inside = os.path.relpath(sys.executable, HERE)
    return inside if not inside.startswith("..") else "python3"


def measure_mcp(sizes: Sizes, run: Dict[str, str], log: Callable[[str], None]) -> Dict[str, Any]:
    """Round trips of tools/call read_knowledge_article over stdio and over Streamable HTTP, on ours and on the
    official SDK's servers if it can run; then on our HTTP server, several clients at once. Each HTTP server starts
    once and serves every repetition, each on new connections. With the date and command of `run` and its Python,
    as the engines section, since the section may be merged into another run's page."""
    started = time.perf_counter()
    stdio, http = {round_trips.OURS: round_trips.DEFAULT_SERVER}, {round_trips.OURS: round_trips.HTTP_SERVER}
    sdk = round_trips.sdk_server_command()
    if sdk is not None:
        stdio[round_trips.THE_SDKS], http[round_trips.THE_SDKS] = sdk, round_trips.over_http(sdk)
    facts: Dict[str, Any] = {"runs": {name: [] for name in stdio}, "http": {name: [] for name in http},
                             "concurrency": {str(clients): [] for clients in sizes.clients}}
    with contextlib.ExitStack() as stack:
        ports = {name: stack.enter_context(round_trips.HttpServer(argv)).port for name, argv in http.items()}
        for repetition in range(sizes.repetitions):
            log(f"mcp: repetition {repetition + 1} of {sizes.repetitions}")
            _mcp_repetition(facts, stdio, ports, sizes)
    plan = {"round_trips": sizes.round_trips, "warm_up": round_trips.WARM_UP, "clients": list(sizes.clients),
            "client_calls": sizes.client_calls, "client_warm_up": round_trips.CLIENT_WARM_UP}
    return dict(facts, plan=plan, sdk=sdk is not None, measured=measured_by(run, time.perf_counter() - started))


def _mcp_repetition(facts: Dict[str, Any], stdio: Dict[str, List[str]], ports: Dict[str, int], sizes: Sizes) -> None:
    """One repetition of the mcp section, back to back: each server over stdio, each over HTTP, then our HTTP server
    with each number of clients at once (latency, and the calls per second of all clients together)."""
    tool, arguments = round_trips.TOOL, round_trips.demo_article()
    for name, argv in stdio.items():
        facts["runs"][name].append(latency(round_trips.round_trips(argv, tool, arguments, sizes.round_trips)))
    for name, port in ports.items():
        facts["http"][name].append(latency(round_trips.http_round_trips(port, tool, arguments, sizes.round_trips)))
    for clients in sizes.clients:
        samples, seconds = round_trips.concurrent_round_trips(ports[round_trips.OURS], tool, arguments, clients,
                                                              sizes.client_calls)
        facts["concurrency"][str(clients)].append(dict(latency(samples), calls_per_second=len(samples) / seconds))


def measure_http(directory: str, sizes: Sizes, run: Dict[str, str], log: Callable[[str], None]) -> Dict[str, Any]:
    """Our HTTP server and the SDK's under load (benchmark/http_load.py): reads and a mix with edits from client
    processes, bursts of connects, floods of header lines and the server's memory through them; with the date and
    command of `run` and its Python, as the mcp section, since the section may be merged into another run's page."""
    started = time.perf_counter()
    plan = http_load.Plan(clients=sizes.load_clients, seconds=sizes.load_seconds, repetitions=sizes.load_repetitions,
                          bursts=sizes.bursts, flood_connections=sizes.flood_connections, flood_lines=sizes.flood_lines,
                          held=sizes.held_heads, hold_seconds=sizes.hold_seconds,
                          retry_seconds=GOALS["connect_retry_seconds"])
    facts = http_load.measure(directory, plan, log)
    return dict(facts, measured=measured_by(run, time.perf_counter() - started))


def measure_push(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """Our extension: the seed day with one listen stream instead of hourly polls (counted), and the delay from a
    save by another process to its notification on each of push_listeners streams (timed, once a repetition)."""
    log("push: the seed day with a listener")
    seed_day = push.seed_day()
    runs = []
    for repetition in range(sizes.repetitions):
        log(f"push: repetition {repetition + 1} of {sizes.repetitions}, {sizes.push_listeners} listeners")
        with tempfile.TemporaryDirectory(dir=directory) as folder:
            runs.append(push.delays(folder, sizes.push_listeners, sizes.push_saves, sizes.push_idle_seconds))
    return {"day": seed_day, "runs": runs}


def measure_memory(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Optional[Dict[str, Any]]:
    """Peak memory of a sim.py run (its results go to a scratch folder); None where it cannot be read."""
    if memory.peak_rss_mib() is None:
        return None
    log("memory: a sim.py run " + " ".join(sizes.sim_arguments or ("(default)",)))
    out, facts = os.path.join(directory, "sim-results"), os.path.join(directory, "sim-peak.json")
    started = time.perf_counter()
    run = run_deaf([sys.executable, os.path.join(HERE, "benchmark", "memory.py"), facts,
                    os.path.join(HERE, "sim.py"), *sizes.sim_arguments, "--out", out])  # Ctrl-C is ours to handle
    if run.returncode != 0:
        raise RuntimeError(f"sim.py failed: {run.stderr.strip()[-500:]}")
    with open(facts, encoding="utf-8") as peak:
        return dict(json.load(peak), seconds=time.perf_counter() - started,
                    arguments=list(sizes.sim_arguments), range_seeds=GROUP_SIZE * RANGE_GROUPS * DRAWS)


def measure_job(directory: str, sizes: Sizes, log: Callable[[str], None]) -> Dict[str, Any]:
    """What --jobs buys: seed days per second on 1, 2 and every usable core (benchmark/cores.py), and the main job
    timed whole with --jobs 1 (the memory section times it with the default, every core); and the main seeds alone
    (sim.py with no range groups) timed as a command. Where a seed's time goes is the day section's."""
    cores_facts = cores.seed_days_per_second(sizes.repetitions, sizes.days_per_process, log)
    one_arguments = [*(sizes.sim_arguments or ("--seeds", MAIN_SEEDS)), "--jobs", "1"]  # the memory run's, on one
    one_process = timed_sim(directory, one_arguments, "sim-one-process", log)
    arguments = sizes.sim_arguments[:2] or ("--seeds", MAIN_SEEDS)
    main_seeds = timed_sim(directory, [*arguments, "--ranges", "0"], "sim-main-seeds", log)
    return {"main_seeds": {"arguments": [*arguments, "--ranges", "0"], "seconds": main_seeds},
            "one_process": {"arguments": one_arguments, "seconds": one_process},
            "processes": seed_pool.usable_cores(), "cores": cores_facts}


def timed_sim(directory: str, arguments: Sequence[str], out: str, log: Callable[[str], None]) -> float:
    """sim.py with `arguments`, its results into a scratch folder, timed whole from starting Python to its end."""
    log(f"job: sim.py {' '.join(arguments)}")
    started = time.perf_counter()
    run = run_deaf([sys.executable, os.path.join(HERE, "sim.py"), *arguments, "--out", os.path.join(directory, out)])
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        raise RuntimeError(f"sim.py failed: {run.stderr.strip()[-500:]}")
    return seconds


# ---------------------------------------------------------------------------
# The machine, and the command line.


def machine(now: datetime.datetime, command: Sequence[str]) -> Dict[str, str]:
    """What the figures were measured on, and by which command at which commit."""
    return {"date": now.strftime("%Y-%m-%d"), "system": f"{platform.system()} {platform.release()}",
            "machine": platform.machine(), "processor": platform.processor() or "unknown",
            "cpus": str(os.cpu_count()), "python": f"{platform.python_implementation()} {platform.python_version()}",
            "sqlite": sqlite3.sqlite_version, "command": " ".join(["python3", "bench.py", *command]),
            "commit": commit_of(ROOT)}


def measured_by(run: Dict[str, str], seconds: float) -> Dict[str, Any]:
    """When, by which command and at which commit a section was measured (a run's machine facts), and in how long."""
    return {"date": run["date"], "command": run["command"], "commit": run.get("commit"), "python": python_shown(),
            "seconds": seconds}


def parser() -> OneLineParser:
    p = OneLineParser(prog="bench.py", description=(
        "Time the seven agent tools against the bare sqlite transaction, and how their cost grows; "
        "write results/performance.md, and the measured facts it is written from to performance.json."))
    p.add_argument("--quick", action="store_true", help="a smoke run of every section with tiny sizes")
    p.add_argument("--out", metavar="DIR", help="where performance.md and .json go, made if missing (default: "
                   "results/ for a full run of every section, or a --render of results/performance.json; a new "
                   "folder under runs/ for any other, so that no try overwrites the committed page)")
    p.add_argument("--only", choices=SECTIONS, action="append",
                   help="measure only this section (repeatable); the others are left out of the page")
    p.add_argument("--render", metavar="FACTS.json",
                   help="measure nothing: write performance.md again from the facts of an earlier run")
    p.add_argument("--into", metavar="FACTS.json",
                   help="with --only: measure those sections and merge them into the facts of an earlier full run, "
                   "each merged section saying when and by what it was measured; the page and the facts go where "
                   "--render would put them (results/ for the committed facts)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


class Estimate:
    """The time a run has left, from the seconds each section took in the committed full run, scaled by how much
    slower or faster than that run the sections done so far went."""

    def __init__(self, sections: Sequence[str], reference: Dict[str, float],
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.sections, self.reference, self.clock = list(sections), reference, clock
        self.current, self.began = 0, clock()
        self.done: Dict[str, float] = {}  # seconds each finished section took in this run

    def enter(self, section: str) -> None:
        """The run finishes the section it was in, if any, and starts `section`."""
        if self.current < len(self.sections) and self.sections[self.current] != section:
            self.done[self.sections[self.current]] = self.clock() - self.began
        self.current, self.began = self.sections.index(section), self.clock()

    def pace(self) -> float:
        """This run's seconds per second of the committed run, over the sections it has finished (1 before any)."""
        compared = [name for name in self.done if self.reference.get(name)]
        if not compared:
            return 1.0
        return sum(self.done[name] for name in compared) / sum(self.reference[name] for name in compared)

    def left(self) -> Optional[Tuple[float, float]]:
        """Seconds left in this section and after it, or None without a reference for a section still to run.
        A section running longer than expected has 0 left in it: how much more, nothing here can tell."""
        ahead = self.sections[self.current:]
        if any(section not in self.reference for section in ahead):
            return None
        pace, spent = self.pace(), self.clock() - self.began
        return max(0.0, pace * self.reference[ahead[0]] - spent), pace * sum(self.reference[s] for s in ahead[1:])

    def said(self) -> str:
        """The estimate in words, empty without one."""
        left = self.left()
        if left is None:
            return ""
        here, after = left
        if here > 0:
            return f" (about {duration(here + after)} left, by the committed run's times)"
        then = f"; then about {duration(after)} of other sections" if after >= 1 else ""
        return f" (longer than the committed run took here{then})"


def reference_seconds(options: argparse.Namespace) -> Dict[str, float]:
    """What each section took in the committed full run, for a full run's estimates (none for a quick one)."""
    try:
        with open(os.path.join(RESULTS, FACTS), encoding="utf-8") as saved:
            facts = json.load(saved)
        return {} if options.quick else {str(k): float(v) for k, v in facts["section_seconds"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def measure(options: argparse.Namespace, command: Sequence[str], log: Callable[[str], None]) -> Dict[str, Any]:
    """Every chosen section, in SECTIONS order: the facts the page is written from."""
    sizes = QUICK if options.quick else FULL
    started = time.perf_counter()
    facts: Dict[str, Any] = {"machine": machine(datetime.datetime.now(), command), "sizes": dataclasses.asdict(sizes),
                             "goals": GOALS, "quick": options.quick, "section_seconds": {},
                             "before": before_speed_up()}
    chosen = [section for section in SECTIONS if section in (options.only or SECTIONS)]
    estimate = Estimate(chosen, reference_seconds(options))

    def said(line: str) -> None:
        log(line + estimate.said())

    with tempfile.TemporaryDirectory() as directory:
        measures = {"tools": lambda: measure_tools(directory, sizes, said),
                    "growth": lambda: measure_growth(directory, sizes, said),
                    "quality": lambda: measure_quality(said, options.quick),
                    "guards": lambda: measure_guards(directory, sizes, said),
                    "day": lambda: measure_day(sizes, said),
                    "writers": lambda: measure_writers(directory, sizes, said),
                    "engines": lambda: measure_engines(directory, sizes, facts["machine"], said),
                    "mcp": lambda: measure_mcp(sizes, facts["machine"], said),
                    "http": lambda: measure_http(directory, sizes, facts["machine"], said),
                    "push": lambda: measure_push(directory, sizes, said),
                    "memory": lambda: measure_memory(directory, sizes, said),
                    "job": lambda: measure_job(directory, sizes, said)}
        for section in chosen:
            estimate.enter(section)
            begun = time.perf_counter()
            facts[section] = measures[section]()
            facts["section_seconds"][section] = time.perf_counter() - begun
    facts["seconds"] = time.perf_counter() - started
    return facts


def destination(p: argparse.ArgumentParser, options: argparse.Namespace) -> Destination:
    """Where the page goes, checked before any work: results/ only for a full run of every section or a render
    of the committed facts (or an explicit --out); a folder of its own under runs/ otherwise."""
    if options.render or options.into:
        committed, given = os.path.join(RESULTS, FACTS), options.render or options.into
        canonical = os.path.exists(given) and os.path.exists(committed) and os.path.samefile(given, committed)
        changed = [] if canonical else ["--into" if options.into else "--render"]
    else:
        changed = [flag for flag, given in (("--quick", options.quick), ("--only", options.only)) if given]
    chosen = output_folder(p, options.out, changed, RESULTS, RUNS, "bench")
    if chosen.note and not options.quiet:
        print(f"bench.py: {chosen.note}", file=sys.stderr, flush=True)
    return chosen


def rendered(p: argparse.ArgumentParser, path: str) -> str:
    """The page of the facts an earlier run kept, for --render; a one-line error for a file that holds no such
    facts, or is no regular file (a FIFO is refused, never waited on) or larger than FACTS_BYTES (nothing is
    written then)."""
    return report.markdown(facts_of(p, path))


def facts_of(p: argparse.ArgumentParser, path: str) -> Dict[str, Any]:
    """The facts an earlier run kept in `path`, checked by rendering them; a one-line error as rendered() says."""
    try:
        facts = json.loads(read_file(path, FACTS_BYTES).decode("utf-8"))
    except FileRefused as refused:
        p.error(f"cannot read the facts in {path}: it {refused}")
    except (OSError, ValueError) as error:  # UnicodeDecodeError too
        p.error(f"cannot read the facts in {path}: {error}")
    try:
        report.markdown(facts)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
        p.error(f"{path} holds no facts of a bench.py run ({type(error).__name__}: {error})")
    return cast(Dict[str, Any], facts)


def merged_into(earlier: Dict[str, Any], fresh: Dict[str, Any]) -> Dict[str, Any]:
    """The earlier run's facts with each section of `fresh` in place of its own, stamped with when, by what
    command and on which Python it was measured (a section that stamps itself keeps its stamp); the goals are
    this code's."""
    merged = json.loads(json.dumps(earlier))
    merged["goals"] = fresh["goals"]
    if "before" in fresh:  # the figures before issue 44's speed-up, which the merged sections are set beside
        merged["before"] = fresh["before"]
    run = fresh["machine"]
    for section, seconds in fresh["section_seconds"].items():
        measured = fresh[section]
        if isinstance(measured, dict) and "measured" not in measured:
            measured = dict(measured, measured=measured_by(run, seconds))
        merged[section] = measured
        merged["section_seconds"][section] = seconds
    return merged


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Measure every section (or read the facts of an earlier run), write the page and the facts."""
    p = parser()
    options = p.parse_args(argv)
    command = sys.argv[1:] if argv is None else list(argv)
    log = (lambda line: None) if options.quiet else (lambda line: print(f"bench.py: {line}", file=sys.stderr))
    if options.render and (options.quick or options.only or options.into):
        p.error("--render measures nothing: give it without --quick, --only or --into")
    if options.into and (options.quick or not options.only):
        p.error("--into merges the sections --only names into a full run's facts: give --only, and not --quick")
    page = rendered(p, options.render) if options.render else None
    earlier = facts_of(p, options.into) if options.into else None
    if earlier is not None and earlier.get("quick"):
        p.error(f"{options.into} holds the facts of a --quick run: merge only into a full run's")
    chosen = destination(p, options)
    with removed_unless_written(chosen):
        if page is None:
            facts = json.loads(json.dumps(measure(options, command, log)))  # as the .json keeps them: one rendering
            seconds = facts["seconds"]
            facts = merged_into(earlier, facts) if earlier is not None else facts
            files = {PAGE: report.markdown(facts), FACTS: json.dumps(facts, indent=1) + "\n"}
        else:
            files = {PAGE: page}
        made = write_files(chosen.folder, files) or chosen.reserved
    took = "" if page is not None else f" in {seconds:.0f} s"
    log(f"wrote {shown(chosen.folder)}/{' and '.join(files)}{took}" + (" (a new folder)" if made else ""))
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_main("bench.py", main))
