"""Several processes serving one port: the parent binds the listening socket, forks the workers, waits until
each says it is ready, replaces one that dies, and stops them together.

One process runs Python one thread at a time, and nearly all of an HTTP read's time is Python's: more clients
of one process take turns. Workers are whole processes, each with its own interpreter and its own connections
to the databases, opened after the fork; the parent holds no thread and no database connection when it forks,
and serves nothing itself.

Glossary:
  listener   the bound, listening socket every worker accepts from; non-blocking, so that a worker woken for a
             connection another worker took returns to its loop instead of waiting in accept()
  work       what a worker runs: work(number, ready) serves until it is stopped and returns its exit status;
             it calls ready() once it can answer (its databases open)
  ready      a byte each worker writes on a pipe the parent reads; the parent says it serves once all have
  lifeline   a pipe the parent holds open and never writes: a worker reading its end of file knows the parent is
             gone (killed with SIGKILL, say) and stops itself, rather than serving the port on, unsupervised
  heal       a worker that ends by itself (killed, crashed) is replaced at once by a new one of its number,
             which opens its own workspace as the first did, from the listener the parent keeps (its backlog
             given back first: a worker stopped alone shrinks it as it lets the port go); the service goes on
             answering meanwhile from the others. Once more than MAX_ENDS have ended within ENDS_SECONDS,
             serving is plainly failing (a database gone, a bug at start): the server stops, in one line naming
             the last worker's end, with exit status 1
  stop       SIGTERM to every worker still running, then each waited for (SIGKILL after its grace and
             STOP_MARGIN_SECONDS); each stops as one process does (streamable_http's stop: requests in progress
             finish within the grace); a worker is deaf to Ctrl-C, which reaches its parent, and the parent
             stops it so
"""

import collections
import contextlib
import os
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Callable, Deque, Dict, Iterator, Optional

from osfoundry_tools import cli

MAX_WORKERS = 64  # more processes than this would only take turns for the cores and the databases' locks
STOP_SECONDS = 60.0  # how long a stopped worker may take to answer the requests under way before it is killed
STOP_MARGIN_SECONDS = 15.0  # beyond a worker's grace: its databases closed, the calls still running answered
MAX_ENDS = 5  # workers that may end by themselves within ENDS_SECONDS, each replaced; one more stops the server
ENDS_SECONDS = 60.0
BACKLOG = 1024  # the listener's, as http_front.Limits has it unless --http-backlog says otherwise
Work = Callable[[int, Callable[[], None]], int]


class WorkerEnded(Exception):
    """Workers ended before the server was stopped, so that it stops: which, and how (its message is the one line
    to show)."""


def can_fork() -> bool:
    """Whether this platform starts workers (os.fork: Linux and macOS, not Windows)."""
    return hasattr(os, "fork")


def listen(host: str, port: int, backlog: int) -> socket.socket:
    """The listener on host:port (an IPv6 host such as ::1 as one), with `backlog`; OSError if the port is taken."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.create_server((host, port), family=family, backlog=backlog)
    listener.setblocking(False)
    return listener


class Workers:
    """The workers of one listener: started with start(), announced by wait_ready(), watched and replaced by
    supervise(), stopped with stop()."""

    def __init__(self, listener: socket.socket, count: int, clock: Callable[[], float] = time.monotonic,
                 stop_seconds: float = STOP_SECONDS, backlog: int = BACKLOG) -> None:
        self.listener = listener
        self.count = count
        self.backlog = backlog  # the listener's, given back to it before a worker is replaced
        self.clock = clock
        self.stop_seconds = stop_seconds
        self.numbers: Dict[int, int] = {}  # pid -> the worker's number, 1 to count, while it runs
        self.ended_at: Deque[float] = collections.deque()  # when workers ended by themselves, within ENDS_SECONDS
        self.ready_read, self.ready_write = os.pipe()
        self.lifeline_read, self.lifeline_write = os.pipe()

    def start(self, work: Work) -> None:
        """Fork each worker, then close the parent's copy of the ready pipe's writing end. The parent keeps the
        listener and the lifeline's reading end, which a worker started in place of one that ended inherits."""
        for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, not once by each worker too
            stream.flush()
        for number in range(1, self.count + 1):
            self.fork(number, work, self.ready)
        os.close(self.ready_write)
        self.ready_write = -1

    def fork(self, number: int, work: Work, ready: Callable[[], None]) -> int:
        """Fork worker `number`, born deaf to Ctrl-C and with SIGTERM held back until it has set its own handling,
        so that no signal runs the parent's handlers in a child (cli.deaf_children: a Ctrl-C to the parent
        meanwhile is not lost either); its pid."""
        with cli.deaf_children(), held_back(signal.SIGTERM):
            pid = os.fork()
            if pid == 0:
                self.be_worker(number, work, ready)  # never returns
            self.numbers[pid] = number  # before a SIGTERM held back meanwhile stops the pool: stop() knows it
        return pid

    def be_worker(self, number: int, work: Work, ready: Callable[[], None]) -> None:
        """In the child: run `work` and leave with its status, never returning into the parent's code (no exit
        handler of the parent's runs twice). Ctrl-C stays ignored (the parent, which hears it, stops the workers);
        SIGTERM ends the worker until `work` sets its own handling."""
        status = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
            for descriptor in (self.ready_read, self.lifeline_write):
                if descriptor >= 0:
                    os.close(descriptor)
            threading.Thread(target=stop_when_gone, args=(self.lifeline_read,), name="lifeline", daemon=True).start()
            status = work(number, ready)
        except SystemExit as leaving:
            status = leaving.code if isinstance(leaving.code, int) else (0 if leaving.code is None else 1)
        except BaseException:
            traceback.print_exc()
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    pass
            os._exit(status)

    def ready(self) -> None:
        """In a worker of the first start: tell the parent it can answer."""
        os.write(self.ready_write, b".")
        os.close(self.ready_write)

    def wait_ready(self) -> None:
        """Until every worker has said it is ready; WorkerEnded if one ended first (the others are stopped)."""
        said = 0
        try:
            while said < self.count:
                chunk = os.read(self.ready_read, self.count)
                if not chunk:
                    break
                said += len(chunk)
        finally:
            os.close(self.ready_read)
            self.ready_read = -1
        if said < self.count:
            pid, status = os.waitpid(-1, 0)
            raise WorkerEnded(f"{self.ended(pid, status)}: the server stops")

    def supervise(self, work: Work, told: Callable[[str], None]) -> None:
        """Replace each worker that ends by itself with a new one of its number (it opens its own workspace as
        every worker does), `told` one line about it; WorkerEnded once more than MAX_ENDS have ended within
        ENDS_SECONDS, when serving is plainly failing (the caller stops the others: stop()). A SIGTERM or Ctrl-C
        to the parent interrupts this with its exception."""
        while True:
            pid, status = os.waitpid(-1, 0)
            if pid not in self.numbers:
                continue
            number = self.numbers[pid]
            how = self.ended(pid, status)
            now = self.clock()
            self.ended_at.append(now)
            while self.ended_at and self.ended_at[0] < now - ENDS_SECONDS:
                self.ended_at.popleft()
            if len(self.ended_at) > MAX_ENDS:
                raise WorkerEnded(f"{how}, the {count_of(len(self.ended_at))} worker to end within "
                                  f"{ENDS_SECONDS:g} s: the server stops")
            self.listener.listen(self.backlog)  # a worker that stopped (SIGTERM) shrank it as it let the port go
            new = self.fork(number, work, lambda: None)
            told(f"{how}; a new worker {number} (pid {new}) serves in its place")

    def ended(self, pid: int, status: int) -> str:
        """How a worker ended by itself, `status` as waitpid gives it (it is no longer counted as running)."""
        number = self.numbers.pop(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        how = f"was killed by signal {-code}" if code < 0 else f"ended with status {code}"
        return f"worker {number} (pid {pid}) {how}"

    def stop(self) -> None:
        """Let the listener go, then SIGTERM to every worker still running, and each waited for; SIGKILL for one
        still there after stop_seconds. Then the lifeline is let go: no worker is left to hold to it."""
        for descriptor in ("ready_write", "lifeline_read"):
            if getattr(self, descriptor) >= 0:
                os.close(getattr(self, descriptor))
                setattr(self, descriptor, -1)
        self.listener.close()
        for pid in self.numbers:
            send(pid, signal.SIGTERM)
        deadline = self.clock() + self.stop_seconds
        while True:
            for pid in [pid for pid in self.numbers if reaped(pid)]:
                del self.numbers[pid]
            if not self.numbers:
                break
            if self.clock() > deadline:
                for pid in self.numbers:
                    send(pid, signal.SIGKILL)
                deadline = float("inf")
            time.sleep(0.02)
        self.let_go_of_lifeline()

    def kill(self) -> None:
        """A second Ctrl-C during stop(): SIGKILL to every worker still running, each reaped, the lifeline let go
        (their open requests end unanswered, as one process's are cut)."""
        for pid in list(self.numbers):
            send(pid, signal.SIGKILL)
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:  # reaped already
                pass
            del self.numbers[pid]
        self.let_go_of_lifeline()

    def let_go_of_lifeline(self) -> None:
        """Close the lifeline's end: no worker is left to hold to it."""
        if self.lifeline_write >= 0:
            os.close(self.lifeline_write)
            self.lifeline_write = -1


def count_of(number: int) -> str:
    """An ordinal in words where short: 6 -> "6th"."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


@contextlib.contextmanager
def held_back(number: int) -> Iterator[None]:
    """A block in which signal `number` is blocked: one that arrives meanwhile waits until the block ends."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {number})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def stop_when_gone(lifeline: int) -> None:
    """In a worker, on a thread of its own: once the parent is gone (the lifeline's end of file), SIGTERM to this
    worker, which stops it as its parent would have."""
    while os.read(lifeline, 1):
        pass
    os.kill(os.getpid(), signal.SIGTERM)


def send(pid: int, number: int) -> None:
    """Signal `number` to `pid`, unless it is gone already."""
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


def reaped(pid: int) -> bool:
    """Whether the child `pid` has ended (and is now waited for)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return done == pid


def worker_count(text: str) -> Optional[int]:
    """A number of workers from 1 to MAX_WORKERS, or None."""
    digits = text.strip()
    if digits.isascii() and digits.isdigit() and 1 <= int(digits) <= MAX_WORKERS:
        return int(digits)
    return None
