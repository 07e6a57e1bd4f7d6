"""The MCP server over HTTP under load: many clients at once, bursts of connects and floods of header lines, on our
server and on the official SDK's, with what each costs the server in CPU and resident memory.

    python3 bench.py --only http      # this section, as make bench measures it (the SDK's server where mcp imports)

Layer: a client of any Streamable HTTP server command, like round_trips.py (whose HttpServer starts it). The
clients run in processes of their own (benchmark/load_clients.py: raw sockets, each request made once), which this
module starts and drives in step; this process only waits for them and reads the servers' entries in /proc. Every
server serves the demo's knowledge base from a database file (WAL, durability full), as an operator serves one;
ours also as two processes on one pair of files, each client process's connections on one of them, as a TCP load
balancer would deal them. A measurement, not a test: nothing here asserts a time.

Glossary:
  loader   a client process; a run's clients are shared among at most LOADERS of them
  run      some clients calling at once in closed loops for a window of seconds, after a warm-up: calls per
           second, the median and p99 round trip, the CPU seconds the server and the loaders spent per second
  burst    many connections opened at once, each sending one read: how long each connect took (a SYN the kernel
           dropped is sent again after about a second), how many were answered, and when the last was
  flood    connections sending more header lines than any bound allows, or heads held open just within the
           bounds: the server's resident memory at its peak during the flood, and after it
  idle     the resident memory (VmRSS) of a server just started that has answered one call
  pair     our server as two processes on the same database files
"""

import contextlib
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from osfoundry_tools.content import help_center
from osfoundry_tools.server import http_front
from osfoundry_tools.content import demo
from benchmark import round_trips
from benchmark.load_clients import EDIT, MIX, READ, READS, SEARCH
from benchmark.round_trips import OURS, THE_SDKS, HttpClient, HttpServer
from benchmark.timing import latency
from osfoundry_tools.cli import deaf_children

ROOT = round_trips.ROOT
OUR_PAIR = "mcp_server.py, two processes on one pair of files"
OUR_WORKERS = "mcp_server.py --workers 2, one port"
ALONE = (OURS, THE_SDKS)  # the servers of one process: bursts and floods are measured on them
WORKLOADS = (READS, MIX)
LOADERS = 2  # client processes per run: this machine's two cores are shared with the server
EDITED_ARTICLES = 8  # the articles the mix edits (and both workloads read last in each cycle): some contention
WARM_UP_CALLS = 10  # untimed calls per client before a window: one cycle, its edit included
CALL_SECONDS = 60.0  # the longest a client process waits for any answer before it gives the run up
BURST_SECONDS = 60.0  # the longest a burst waits for its last answer
FLOOD_SECONDS = 60.0  # the longest a flood may take to send
FLOOD_LINE_BYTES = 65_000  # each header line of a flood, as the hostile client sent them
SETTLE_SECONDS = 10.0  # the longest the server's threads are waited for after a flood
AFTER_SECONDS = 0.5  # then at least this long before its memory is read
SAMPLE_SECONDS = 0.01  # how often the server's resident memory is read during a flood
KIB_PER_MIB = 1024


class Plan(NamedTuple):
    """What the section measures (bench.py's Sizes give it)."""

    clients: Tuple[int, ...]  # clients at once in each run
    seconds: float  # each run's window
    repetitions: int  # of every run and burst, back to back within each
    bursts: Tuple[int, ...]  # connections opened at once
    flood_connections: int  # connections of each flood of long header lines
    flood_lines: int  # header lines of FLOOD_LINE_BYTES each connection sends
    held: int  # connections holding a head just within the bounds
    hold_seconds: float  # how long the held floods stay open
    retry_seconds: float  # a connect that took this long waited for the kernel to send its SYN again


# ---------------------------------------------------------------------------
# The servers.


def servers(directory: str) -> Dict[str, List[List[str]]]:
    """The commands of each server's processes: ours, our pair, ours with two workers, and where mcp imports the
    SDK's; each server serving the demo's knowledge base from files of its own."""
    commands = {OURS: [our_server(directory, "ours")], OUR_PAIR: [our_server(directory, "pair")] * 2,
                OUR_WORKERS: [our_server(directory, "workers") + ["--workers", "2"]]}
    sdk = round_trips.sdk_server_command()
    if sdk is not None:
        commands[THE_SDKS] = [[*round_trips.over_http(sdk), "--kb-db", os.path.join(directory, "load-sdk-kb.db")]]
    return commands


def our_server(directory: str, name: str) -> List[str]:
    """mcp_server.py serving the demo over HTTP from the files `name` gives in `directory`, at a free port."""
    return [sys.executable, os.path.join(ROOT, "mcp_server.py"), "--demo", "--kb-db",
            os.path.join(directory, f"load-{name}-kb.db"), "--records-db",
            os.path.join(directory, f"load-{name}-records.db"), "--http", "127.0.0.1:0"]


class ProcessStatus:
    """What Linux's /proc says of a process: its resident memory now and at its peak, its threads, its CPU time;
    None for each where there is no /proc (macOS)."""

    def __init__(self, pid: int, proc: str = "/proc") -> None:
        self.path = os.path.join(proc, str(pid))

    def field(self, name: str) -> Optional[int]:
        """A number of /proc/PID/status, such as VmRSS (in KiB) or Threads."""
        try:
            with open(os.path.join(self.path, "status"), encoding="ascii") as status:
                for line in status:
                    if line.startswith(name + ":"):
                        return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            return None
        return None

    def rss_mib(self) -> Optional[float]:
        return _mib(self.field("VmRSS"))

    def anonymous_mib(self) -> Optional[float]:
        """The resident memory no file backs (RssAnon): what the process allocated."""
        return _mib(self.field("RssAnon"))

    def peak_mib(self) -> Optional[float]:
        return _mib(self.field("VmHWM"))

    def threads(self) -> Optional[int]:
        return self.field("Threads")

    def reset_peak(self) -> bool:
        """Set the peak (VmHWM) to the resident memory now, where Linux allows it (/proc/PID/clear_refs)."""
        try:
            with open(os.path.join(self.path, "clear_refs"), "w", encoding="ascii") as clear:
                clear.write("5")
            return True
        except OSError:
            return False

    def cpu_seconds(self) -> Optional[float]:
        """User and system CPU seconds the process has used (/proc/PID/stat's utime and stime)."""
        try:
            with open(os.path.join(self.path, "stat"), encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError, AttributeError):
            return None


def serving(pid: int, proc: str = "/proc") -> List[ProcessStatus]:
    """The processes that serve for the server `pid`: its workers (its children, /proc/PID/task/PID/children) if
    it has any, else itself."""
    try:
        with open(os.path.join(proc, str(pid), "task", str(pid), "children"), encoding="ascii") as children:
            workers = [int(word) for word in children.read().split()]
    except (OSError, ValueError):
        workers = []
    return [ProcessStatus(worker, proc) for worker in workers or [pid]]


def _mib(kib: Optional[int]) -> Optional[float]:
    return None if kib is None else kib / KIB_PER_MIB


class Sampler:
    """The largest resident memory read every SAMPLE_SECONDS, by a thread of its own, until stopped."""

    def __init__(self, status: ProcessStatus) -> None:
        self.status = status
        self.largest = 0.0
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        while not self.stopped.is_set():
            self.largest = max(self.largest, self.status.rss_mib() or 0.0)
            self.stopped.wait(SAMPLE_SECONDS)

    def stop(self) -> float:
        self.stopped.set()
        self.thread.join()
        return self.largest


# ---------------------------------------------------------------------------
# Client processes.


class Loader:
    """A client process of benchmark/load_clients.py, its plan written on its stdin; its lines read one by one."""

    def __init__(self, plan: Dict[str, Any]) -> None:
        with deaf_children():  # Ctrl-C is ours to handle: stop() ends it
            self.process = subprocess.Popen([sys.executable, "-m", "benchmark.load_clients"], cwd=ROOT,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            text=True, encoding="utf-8")
        self.tell(json.dumps(plan))

    def tell(self, line: str) -> None:
        assert self.process.stdin is not None, "a pipe"
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def said(self) -> Dict[str, Any]:
        """Its next line; RuntimeError if it failed or ended without one."""
        assert self.process.stdout is not None, "a pipe"
        line = self.process.stdout.readline()
        if not line:
            error = self.process.stderr.read() if self.process.stderr is not None else ""
            raise RuntimeError(f"a client process ended without a word: {error.strip()[-500:]}")
        said = json.loads(line)
        if "error" in said:
            raise RuntimeError(f"a client process failed: {said['error']}")
        return dict(said)

    def stop(self) -> None:
        """Close its stdin and wait for it (killed if it has not ended within 10 s)."""
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()


def base_plan(port: int) -> Dict[str, Any]:
    """What every client process is told: where to send, with which headers and _meta, about what."""
    headers = {tool: HttpClient.headers("tools/call", {"name": tool}) for tool in (READ, SEARCH, EDIT)}
    return {"port": port, "endpoint": round_trips.ENDPOINT, "meta": round_trips.STATELESS_META, "headers": headers,
            "knowledge_base_id": demo.KNOWLEDGE_BASE, "timeout": CALL_SECONDS, "edited": EDITED_ARTICLES,
            "articles": [article.article_id for article in demo.draw_plan(demo.SEED).published()],
            "questions": [question for question, _ in help_center.QUESTIONS]}


def shares(clients: int, loaders: int = LOADERS) -> List[List[int]]:
    """The clients' numbers each loader drives, dealt in turn.

    >>> shares(5), shares(1)
    ([[0, 2, 4], [1, 3]], [[0]])
    """
    return [list(range(first, clients, loaders)) for first in range(min(clients, loaders))]


# ---------------------------------------------------------------------------
# Runs, bursts and floods.


def load_run(ports: Sequence[int], statuses: Sequence[ProcessStatus], clients: int, workload: str, seconds: float,
             key: str) -> Dict[str, Any]:
    """`clients` clients at once for a window of `seconds`, from their loaders (each on one of the server's
    processes at `ports`, in turn): latency (µs), calls per second, edits saved and refused as conflicts, the CPU
    seconds per second of the server's processes and of the loaders, each together, and the slowest connect."""
    loaders: List[Loader] = []
    try:
        for number, share in enumerate(shares(clients)):
            loaders.append(Loader(dict(base_plan(ports[number % len(ports)]), job="load", clients=share,
                                       workload=workload, seconds=seconds, warm_up=WARM_UP_CALLS,
                                       key_prefix=f"{key}-{number}")))
        for loader in loaders:
            loader.said()  # ready
        cpu, busy, began = cpu_seconds(statuses), machine_busy_seconds(), time.perf_counter()
        for loader in loaders:
            loader.tell("go")
        results = [loader.said() for loader in loaders]
        took, spent, busied = time.perf_counter() - began, cpu_seconds(statuses), machine_busy_seconds()
    finally:
        for loader in loaders:
            loader.stop()
    return dict(run_figures(results, seconds, per_second(cpu, spent, took)),
                machine_cpu=per_second(busy, busied, took))


def per_second(before: Optional[float], after: Optional[float], seconds: float) -> Optional[float]:
    return None if before is None or after is None else (after - before) / seconds


def machine_busy_seconds(proc: str = "/proc") -> Optional[float]:
    """The CPU seconds all of this machine's processors have spent on anything but waiting, since it started
    (/proc/stat: user, nice, system, irq, softirq, steal); None without /proc."""
    try:
        with open(os.path.join(proc, "stat"), encoding="ascii") as stat:
            fields = stat.readline().split()
        user, nice, system, _, _, irq, softirq, steal = (int(field) for field in fields[1:9])
        return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None


def cpu_seconds(statuses: Sequence[ProcessStatus]) -> Optional[float]:
    """The CPU seconds of all the processes together; None where any cannot be read."""
    spent = [status.cpu_seconds() for status in statuses]
    return None if None in spent else sum(s for s in spent if s is not None)


def run_figures(results: Sequence[Dict[str, Any]], seconds: float, server_cpu: Optional[float]) -> Dict[str, Any]:
    """One run's figures from what its loaders measured."""
    samples = [sample for result in results for sample in result["samples"]]
    if not samples:
        raise RuntimeError(f"no call was answered within the window of {seconds:g} s")
    outcomes = [result["outcomes"] for result in results]
    return dict(latency(samples), calls_per_second=len(samples) / seconds,
                saved=sum(o["saved"] for o in outcomes), conflicts=sum(o["conflict"] for o in outcomes),
                server_cpu=server_cpu, loaders_cpu=sum(result["cpu_seconds"] for result in results) / seconds,
                connect_max=max(s for result in results for s in result["connect_seconds"]))


def burst_run(port: int, clients: int, retry_seconds: float) -> Dict[str, Any]:
    """`clients` connects at once, each sending one read."""
    loader = Loader(dict(base_plan(port), job="burst", clients=clients, timeout=BURST_SECONDS))
    try:
        result = loader.said()
    finally:
        loader.stop()
    return burst_figures(clients, result, retry_seconds)


def burst_figures(clients: int, result: Dict[str, Any], retry_seconds: float) -> Dict[str, Any]:
    """A burst's figures: connects (how many waited `retry_seconds` or more, the slowest), answers (how many,
    their statuses, the median and the last, from the burst's start), and the connections that got none."""
    connects = result["connect_seconds"]
    answered = [seconds for status, seconds in result["answers"] if status == 200]
    statuses: Dict[str, int] = {}
    for status, _ in result["answers"]:
        statuses[str(status)] = statuses.get(str(status), 0) + 1
    return {"clients": clients, "connected": len(connects), "waited": sum(s >= retry_seconds for s in connects),
            "connect_max": max(connects, default=None), "answered": len(answered), "statuses": statuses,
            "answer_median": statistics.median(answered) if answered else None,
            "answer_max": max(answered, default=None), "failed": result["failed"],
            "unanswered": result["unanswered"], "issued_seconds": result["issued_seconds"]}


def floods(plan: Plan) -> List[Dict[str, Any]]:
    """The floods, in the order each server meets them: long header lines sent whole, then closed; the same held
    open, the head unfinished; and heads just within our default bounds (as many fields and bytes as they allow),
    held open, on many connections."""
    limits = http_front.Limits()
    fields = limits.max_headers - 1  # Host is one
    host_line = len("Host: 127.0.0.1:65535\r\n")
    long_lines = {"connections": plan.flood_connections, "lines": plan.flood_lines, "line_bytes": FLOOD_LINE_BYTES}
    return [dict(long_lines, name="long lines", finish=True, hold_seconds=0.0),
            dict(long_lines, name="long lines, held open", finish=False, hold_seconds=plan.hold_seconds),
            {"name": "heads within the bounds, held open", "connections": plan.held, "lines": fields,
             "line_bytes": (limits.max_header_bytes - host_line) // fields, "finish": False,
             "hold_seconds": plan.hold_seconds}]


def flood_runs(command: List[str], plan: Plan, log: Callable[[str], None]) -> Dict[str, Any]:
    """On a server of its own, just started: its idle memory, then each flood in turn, with the server's memory
    during and after it. Without /proc, the floods still run and their answers count; no memory is read."""
    with HttpServer(command) as server:
        status = ProcessStatus(server.process.pid)
        round_trips.http_round_trips(server.port, round_trips.TOOL, round_trips.demo_article(), 1, 0)
        threads, _ = settled(status, status.threads())
        facts: Dict[str, Any] = {"idle": status.rss_mib(), "idle_anonymous": status.anonymous_mib(),
                                 "threads": threads, "runs": []}
        for flood in floods(plan):
            log(f"http: flood of {flood['name']}")
            facts["runs"].append(flood_run(server.port, status, flood, threads))
    return facts


def flood_run(port: int, status: ProcessStatus, flood: Dict[str, Any], threads: Optional[int]) -> Dict[str, Any]:
    """One flood: what the server answered, its peak memory during (VmHWM reset just before, else the largest of
    the samples), and its memory once its threads are back to `threads` (at most SETTLE_SECONDS)."""
    reset = status.reset_peak()
    sampler = Sampler(status)
    loader = Loader(dict(flood, job="flood", port=port, endpoint=round_trips.ENDPOINT, timeout=FLOOD_SECONDS))
    try:
        result = loader.said()
    finally:
        loader.stop()
        sampled = sampler.stop()
    peak = max(sampled, (status.peak_mib() or 0.0) if reset else 0.0)
    threads_after, waited = settled(status, threads)
    after = status.rss_mib()
    return dict(flood, during=None if after is None else peak, after=after, after_anonymous=status.anonymous_mib(),
                threads_after=threads_after, peak_from="VmHWM" if reset else "samples", settle_seconds=waited,
                answers=result)


def settled(status: ProcessStatus, threads: Optional[int],
            clock: Callable[[], float] = time.perf_counter) -> Tuple[Optional[int], float]:
    """Wait until the server runs no more than `threads` threads (at most SETTLE_SECONDS), then AFTER_SECONDS; its
    threads then, and the seconds waited."""
    began = clock()
    while threads is not None and (status.threads() or 0) > threads and clock() - began < SETTLE_SECONDS:
        time.sleep(SAMPLE_SECONDS)
    time.sleep(AFTER_SECONDS)
    return status.threads(), clock() - began


# ---------------------------------------------------------------------------
# The section.


def measure(directory: str, plan: Plan, log: Callable[[str], None]) -> Dict[str, Any]:
    """Every run on each server (all started once, every repetition back to back) and every burst on each
    single-process server; then each single-process server's floods, on a server of its own just started."""
    commands = servers(directory)
    single = [name for name in commands if name in ALONE]
    runs: Dict[str, Dict[str, Dict[str, List[Dict[str, Any]]]]] = {
        workload: {name: {str(clients): [] for clients in plan.clients} for name in commands}
        for workload in WORKLOADS}
    bursts: Dict[str, Dict[str, List[Dict[str, Any]]]] = {name: {str(n): [] for n in plan.bursts} for name in single}
    with contextlib.ExitStack() as stack:
        running = {name: [stack.enter_context(HttpServer(argv)) for argv in argvs] for name, argvs in commands.items()}
        for repetition in range(plan.repetitions):
            log(f"http: repetition {repetition + 1} of {plan.repetitions}")
            for workload in WORKLOADS:
                for clients in plan.clients:
                    for number, (name, processes) in enumerate(running.items()):
                        runs[workload][name][str(clients)].append(load_run(
                            [server.port for server in processes],
                            [status for server in processes for status in serving(server.process.pid)], clients,
                            workload, plan.seconds, f"r{repetition}-{workload}-{clients}-{number}"))
            for count in plan.bursts:
                for name in single:
                    bursts[name][str(count)].append(burst_run(running[name][0].port, count, plan.retry_seconds))
    flooded = {name: flood_runs(commands[name][0], plan, log) for name in single}
    return {"runs": runs, "bursts": bursts, "floods": flooded, "plan": plan._asdict(), "sdk": THE_SDKS in commands,
            "loaders": LOADERS, "warm_up": WARM_UP_CALLS, "edited": EDITED_ARTICLES, "cpus": os.cpu_count() or 1,
            "flood_line_bytes": FLOOD_LINE_BYTES, "limits": http_front.Limits()._asdict(),
            "commands": {name: [_shown(argv) for argv in argvs[:1]] for name, argvs in commands.items()}}


def _shown(argv: Sequence[str]) -> str:
    """A server's command as the page shows it: its script and options, the scratch folder's paths as file names."""
    script = next(index for index, word in enumerate(argv) if word.endswith(".py"))
    return " ".join(os.path.relpath(word, ROOT) if word.endswith(".py") else os.path.basename(word)
                    for word in argv[script:])
