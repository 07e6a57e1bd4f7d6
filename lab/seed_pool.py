"""Seed days in worker processes: results in the order of the jobs, progress as each job ends, a worker that dies
named by the job it held, and Ctrl-C ending every worker at once.

Layer: below experiments.py (run_seeds) and the benchmark's job section, on the standard library's multiprocessing
and on cli.py's deaf_children. Why not multiprocessing.Pool: a worker killed in the middle of a job leaves Pool's
imap waiting forever, and concurrent.futures' pool breaks whole without saying which job its dead worker held.
Here each worker holds one job at a time on a pipe of its own, so the job of a worker whose process ends without
answering is known, and the run stops with one line that names it.

Glossary:
  job      one seed day's arguments, pickled to a worker; run_one(job) is its result, pickled back
  worker   a process that runs one job at a time, deaf to Ctrl-C: its parent stops it (terminate, then kill)
  cores    the processors this process may run on (its affinity where the system keeps one), not the machine's
"""

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import signal
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from osfoundry_tools.cli import RunFailed, deaf_children

STOP_GRACE = 0.5  # seconds a worker sent SIGTERM may take before it is killed


class WorkerDied(RunFailed):
    """A worker's process ended before answering its job: str() is one line naming the job and how it ended."""


class JobOverran(WorkerDied):
    """A job held its worker longer than the run allowed (a hung test): str() names the job and the limit."""


class JobFailed(Exception):
    """run_one raised inside a worker: the job's name, then the worker's traceback."""


class JobRefused(RunFailed):
    """run_one raised RunFailed inside a worker (a setting its job cannot run with, not a bug): str() is one line, the
    job's name and the job's own words."""


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the system keeps one (a container or `taskset`
    may allow fewer than the machine has), else the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # macOS and Windows keep no affinity mask
        return os.cpu_count() or 1


@dataclasses.dataclass
class Worker:
    """One worker process, its end of the pipe, and the index of the job it holds (None while idle)."""

    process: Any  # multiprocessing's BaseProcess
    pipe: multiprocessing.connection.Connection
    held: Optional[int] = None
    since: float = 0.0  # when it was given the job it holds (time.monotonic)


def serve(run_one: Callable[[Any], Any], pipe: multiprocessing.connection.Connection) -> None:
    """A worker's life: take a job, answer (True, result), (False, traceback) or, for a RunFailed, (None, its one
    line), until None or a closed pipe.
    SIGTERM ends it at once, whatever handler its parent had (cli.terminated_as_interrupted): that is how the parent
    stops a busy worker."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    while True:
        try:
            job = pipe.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        try:
            answer: Tuple[Optional[bool], Any] = (True, run_one(job))
        except RunFailed as refused:  # the job cannot run so: its one line goes to the parent, which raises
            answer = (None, str(refused))
        except BaseException:  # noqa: BLE001  (a bug in the job: its traceback goes to the parent, which raises)
            answer = (False, traceback.format_exc())
        pipe.send(answer)


Finished = Callable[[int, Any], None]  # finished(index, result), called as each job ends


def run_jobs(run_one: Callable[[Any], Any], jobs: Sequence[Any], processes: int, finished: Finished,
             name_of: Callable[[Any], str], deaf: bool = True, limit: Optional[float] = None) -> List[Any]:
    """run_one(job) for every job, on `processes` workers; the results in the order of `jobs`, whatever order
    they end in. finished(index, result) is called as each job ends. A worker that dies raises WorkerDied, a job
    that raises JobFailed, a job still running `limit` seconds after it was given (where one is set, with more
    than one process) JobOverran; either way, and on Ctrl-C, every worker is stopped before this returns or raises.

    Workers are `deaf` to Ctrl-C unless told otherwise (a test runner's workers must not be: an ignored SIGINT
    is inherited by every process they start). run_one must be a module-level function (under the spawn start
    method the workers import it by name)."""
    if processes <= 1 or len(jobs) <= 1:
        return [run_here(run_one, index, job, finished, name_of) for index, job in enumerate(jobs)]
    workers = start_workers(run_one, min(processes, len(jobs)), deaf)
    try:
        return deal(workers, jobs, finished, name_of, limit)
    finally:
        stop_workers(workers)


def run_here(run_one: Callable[[Any], Any], index: int, job: Any, finished: Finished,
             name_of: Callable[[Any], str] = str) -> Any:
    """One job in this process; a RunFailed it raises comes out as a worker's would (JobRefused, naming the job)."""
    try:
        result = run_one(job)
    except JobRefused:
        raise
    except RunFailed as refused:
        raise JobRefused(f"{name_of(job)}: {refused}") from None
    finished(index, result)
    return result


def start_workers(run_one: Callable[[Any], Any], count: int, deaf: bool) -> List[Worker]:
    """`count` workers, born deaf to Ctrl-C if `deaf` (deaf_children: the terminal's SIGINT reaches them too, and
    their parent stops them itself). They are not daemonic, so that a job may start processes of its own; every
    path out of run_jobs stops them."""
    context = multiprocessing.get_context()
    workers = []
    with deaf_children() if deaf else contextlib.nullcontext():
        for _ in range(count):
            ours, theirs = context.Pipe()
            process = context.Process(target=serve, args=(run_one, theirs))
            process.start()
            theirs.close()
            workers.append(Worker(process, ours))
    return workers


def deal(workers: List[Worker], jobs: Sequence[Any], finished: Finished, name_of: Callable[[Any], str],
         limit: Optional[float] = None) -> List[Any]:
    """Give each idle worker the next job, in the order of `jobs`, until every answer is in (JobOverran for a job
    that holds its worker past `limit` seconds)."""
    results: Dict[int, Any] = {}
    waiting = iter(range(len(jobs)))
    for worker in workers:
        give(worker, next(waiting, None), jobs)
    while len(results) < len(jobs):
        busy = [worker for worker in workers if worker.held is not None]
        ready = multiprocessing.connection.wait([w.pipe for w in busy] + [w.process.sentinel for w in busy],
                                                time_left(busy, limit))
        overran(busy, ready, limit, jobs, name_of)
        for worker in busy:
            if worker.pipe in ready or worker.process.sentinel in ready:
                index = worker.held
                assert index is not None
                results[index] = answer_of(worker, name_of(jobs[index]))
                finished(index, results[index])
                give(worker, next(waiting, None), jobs)
    return [results[index] for index in range(len(jobs))]


def time_left(busy: Sequence[Worker], limit: Optional[float]) -> Optional[float]:
    """Seconds until the first busy worker's job passes `limit` (None: no limit, wait for an answer)."""
    if limit is None:
        return None
    return max(0.0, min(worker.since for worker in busy) + limit - time.monotonic())


def overran(busy: Sequence[Worker], ready: Sequence[Any], limit: Optional[float], jobs: Sequence[Any],
            name_of: Callable[[Any], str]) -> None:
    """JobOverran naming the first job past `limit` that has not answered (its worker is stopped with the rest)."""
    if limit is None:
        return
    now = time.monotonic()
    for worker in busy:
        if worker.held is not None and now - worker.since >= limit and worker.pipe not in ready \
                and worker.process.sentinel not in ready:
            raise JobOverran(f"{name_of(jobs[worker.held])}: still running after {limit:g} s, so its worker "
                             "process was stopped")


def give(worker: Worker, index: Optional[int], jobs: Sequence[Any]) -> None:
    """Send job `index` to `worker` (None: nothing left, the worker stays idle)."""
    worker.held, worker.since = index, time.monotonic()
    if index is not None:
        worker.pipe.send(jobs[index])


def answer_of(worker: Worker, name: str) -> Any:
    """The result `worker` sent for the job called `name`; WorkerDied if its process ended without one."""
    try:
        if worker.pipe.poll():
            ok, value = worker.pipe.recv()
            if ok is None:
                raise JobRefused(f"{name}: {value}")
            if not ok:
                raise JobFailed(f"{name} failed in its worker process:\n{value}")
            return value
    except (EOFError, OSError):
        pass
    worker.process.join(STOP_GRACE)
    raise WorkerDied(f"{name}: its worker process died ({how_it_ended(worker.process.exitcode)})")


def how_it_ended(exitcode: Optional[int]) -> str:
    """'killed by SIGKILL', 'exit status 3', or 'still running' for a worker whose pipe closed first.

    >>> how_it_ended(-9), how_it_ended(3)
    ('killed by SIGKILL', 'exit status 3')
    """
    if exitcode is None:
        return "its pipe closed while it still ran"
    if exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit status {exitcode}"


def stop_workers(workers: Sequence[Worker]) -> None:
    """Stop every worker: an idle one is asked to leave; a busy one (Ctrl-C, or another worker's failure) is sent
    SIGTERM; any still alive after STOP_GRACE is killed. Nothing outlives the call."""
    for worker in workers:
        try:
            if worker.held is None and worker.process.is_alive():
                worker.pipe.send(None)
            else:
                worker.process.terminate()
        except (OSError, ValueError):
            worker.process.terminate()
    for worker in workers:
        worker.process.join(STOP_GRACE)
        if worker.process.is_alive():
            worker.process.kill()
            worker.process.join()
        worker.pipe.close()
