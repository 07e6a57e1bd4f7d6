"""Where a seed's time goes: one seed of the day timed again, with each kind of work on its own stopwatch.

Layer: above day.py (whose plan and replicas it runs), below rerun.py, which runs it, and report.py, which
shows the parts in the page's run-time section, so that the next person knows where the time goes before
changing it.

rerun.py runs sim.py's first main seed this way, in its pool like the others; the day is the same, on stores
opened through a `connect` that times them from outside:
every public method of the store on one stopwatch (outermost calls only), and its sqlite connection
behind a stand-in that times each statement, the rows fetched from it and the backup that copies a
replica. Nothing is profiled function by function, so the parts are wall times, with a few Python
calls added per statement and per store call (charged to sqlite and to the stores).

The stopwatches slow what they time: a store call and a statement each pass through a stand-in and read the
clock twice. So the seed's own time is taken apart from them (plain_seed), and its sqlite part again with only
the statements on a stopwatch (sqlite_alone), less what that stopwatch's readings cost (reading_seconds).

Glossary:
  part     one kind of work in a seed: the plan's text, sqlite's statements, the stores and the tool
           plumbing around those statements, or the agent and the day's own bookkeeping
  reading  one interval on the sqlite stopwatch: a statement, a fetch of its rows, or a backup
"""

import time
from typing import Any, Callable, Dict, Iterator, NamedTuple, Tuple

from osfoundry_tools.stores import kb_store
from lab.knowledge_base import day

TEXT = "the plan: articles, questions and saves written (workload.py), and its draws"
SQLITE = "sqlite: statements, rows fetched, the backup copying each replica"
STORES = "the stores around them: tool plumbing, argument checks, transactions, rows to results"
AGENT = "the agent and the day: citations, checks, the event loop, counting calls and bytes"
PARTS = (TEXT, SQLITE, STORES, AGENT)
Clock = Callable[[], float]


class Stopwatch:
    """Seconds spent inside one kind of call; a call made inside another adds nothing more (depth)."""

    def __init__(self, clock: Clock) -> None:
        self.clock, self.seconds, self.depth = clock, 0.0, 0
        self.readings = 0  # intervals timed inline by TimedConnection and TimedCursor (each also reads the clock)

    def timed(self, call: Callable[..., Any]) -> Callable[..., Any]:
        """`call`, with its time added unless another timed call is under way."""
        def timed_call(*args: Any, **kwargs: Any) -> Any:
            self.depth += 1
            started = self.clock()
            try:
                return call(*args, **kwargs)
            finally:
                self.depth -= 1
                if not self.depth:
                    self.seconds += self.clock() - started
        return timed_call


class TimedCursor:
    """A cursor whose rows are fetched on the sqlite stopwatch (timed inline: a closure per row would weigh)."""

    __slots__ = ("_cursor", "_watch")

    def __init__(self, cursor: Any, watch: Stopwatch) -> None:
        self._cursor, self._watch = cursor, watch

    def fetchone(self) -> Any:
        started = self._watch.clock()
        row = self._cursor.fetchone()
        self._watch.seconds += self._watch.clock() - started
        self._watch.readings += 1
        return row

    def fetchall(self) -> Any:
        started = self._watch.clock()
        rows = self._cursor.fetchall()
        self._watch.seconds += self._watch.clock() - started
        self._watch.readings += 1
        return rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class TimedConnection:
    """A stand-in for a store's sqlite3 connection: statements and backups on the sqlite stopwatch."""

    def __init__(self, connection: Any, watch: Stopwatch) -> None:
        self._connection, self._watch = connection, watch

    def execute(self, *args: Any) -> TimedCursor:
        started = self._watch.clock()
        cursor = self._connection.execute(*args)
        self._watch.seconds += self._watch.clock() - started
        self._watch.readings += 1
        return TimedCursor(cursor, self._watch)

    def backup(self, target: Any, **options: Any) -> None:
        started = self._watch.clock()
        self._connection.backup(getattr(target, "_connection", target), **options)
        self._watch.seconds += self._watch.clock() - started
        self._watch.readings += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def statements_timed(store: kb_store.KnowledgeBaseStore, sqlite: Stopwatch) -> kb_store.KnowledgeBaseStore:
    """`store`, its sqlite connection behind a stand-in that times each statement on `sqlite`."""
    store.database.connection = TimedConnection(store.database.connection, sqlite)  # type: ignore[assignment]
    return store


def timed_connect(stores: Stopwatch, sqlite: Stopwatch) -> day.Connect:
    """kb_store.connect, returning a store whose public methods run on `stores` and statements on `sqlite`."""
    def connect(**options: Any) -> kb_store.KnowledgeBaseStore:
        store = statements_timed(kb_store.connect(**options), sqlite)
        for name in dir(store):
            method = getattr(store, name)
            if not name.startswith("_") and callable(method) and getattr(method, "__self__", None) is store:
                setattr(store, name, stores.timed(method))
        return store
    return connect


def timed_seed(seed: int, scenario: day.Scenario,
               clock: Clock = time.perf_counter) -> Tuple[Dict[str, Any], Dict[str, float]]:
    """What day.run_seed returns, measured on the stopwatches, and the seconds of each part (PARTS): they add
    up to the seed's time."""
    stores, sqlite = Stopwatch(clock), Stopwatch(clock)
    started = clock()
    plan = day.draw_plan(seed, scenario)
    drawn = clock()
    result = day.run_plan(plan, scenario, timed_connect(stores, sqlite))
    ended = clock()
    return result, {TEXT: drawn - started, SQLITE: sqlite.seconds, STORES: stores.seconds - sqlite.seconds,
                    AGENT: ended - drawn - stores.seconds}


class SqliteShare(NamedTuple):
    """A seed as sim.py runs it beside its sqlite statements, each timed in a run of its own."""

    seed: float  # seconds of the seed with no stopwatch at all (day.run_seed, as a worker of sim.py runs it)
    sqlite: float  # seconds on the sqlite stopwatch in a run where nothing else is on one
    readings: int  # the intervals that stopwatch read (statements, fetches, backups)

    def net_sqlite(self, reading: float) -> float:
        """The sqlite part less what its stopwatch's own readings cost, at `reading` seconds each."""
        return self.sqlite - self.readings * reading


def plain_seed(seed: int, scenario: day.Scenario, clock: Clock = time.perf_counter) -> float:
    """Seconds of the seed as sim.py runs it: no stopwatch, no stand-in."""
    started = clock()
    day.run_seed(seed, scenario)
    return clock() - started


def sqlite_alone(seed: int, scenario: day.Scenario, clock: Clock = time.perf_counter) -> Tuple[float, int]:
    """The seed's sqlite part, with only its statements on a stopwatch (no store call wrapped), and its readings."""
    sqlite = Stopwatch(clock)
    day.run_plan(day.draw_plan(seed, scenario), scenario, lambda **options: statements_timed(
        kb_store.connect(**options), sqlite))
    return sqlite.seconds, sqlite.readings


def sqlite_share(seed: int, scenario: day.Scenario, clock: Clock = time.perf_counter, runs: int = 2) -> SqliteShare:
    """The seed as sim.py runs it, then its sqlite part timed alone (see SqliteShare), each the least of `runs`
    runs: the two are taken in runs of their own, so a run the machine disturbed would move their ratio, and
    a disturbance only ever lengthens a run."""
    seconds = min(plain_seed(seed, scenario, clock) for _ in range(runs))
    return SqliteShare(seconds, *min(sqlite_alone(seed, scenario, clock) for _ in range(runs)))


def reading_seconds(clock: Clock = time.perf_counter, calls: int = 20_000, batches: int = 7) -> float:
    """What one reading adds to the sqlite stopwatch beyond the statement itself: an interval around a call into C
    that does nothing (len), timed as TimedConnection times a statement; the least over batches, since anything
    else the machine does only lengthens a batch."""
    class Idle:
        execute = staticmethod(len)

    def batch() -> float:
        watch = Stopwatch(clock)
        connection = TimedConnection(Idle(), watch)
        for _ in range(calls):
            connection.execute("")
        return watch.seconds / calls
    return min(batch() for _ in range(batches))
