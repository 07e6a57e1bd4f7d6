"""Several processes serving one port: the parent binds the listening socket, forks the workers, waits until
each says it is ready, and stops them together.

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
  stop       SIGTERM to every worker still running, then each waited for (SIGKILL after STOP_SECONDS); a worker
             is deaf to Ctrl-C, which reaches its parent, and the parent stops it so
"""

import contextlib
import os
import signal
import socket
import sys
import threading
import time
import traceback
from typing import Callable, Dict, Iterator, Optional

from osfoundry_tools import cli

MAX_WORKERS = 64  # more processes than this would only take turns for the cores and the databases' locks
STOP_SECONDS = 60.0  # how long a stopped worker may take to answer the requests under way before it is killed
Work = Callable[[int, Callable[[], None]], int]


class WorkerEnded(Exception):
    """A worker ended before the server was stopped: which, and how (its message is the one line to show)."""


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
    """The workers of one listener: started with start(), announced by wait_ready(), watched by supervise()."""

    def __init__(self, listener: socket.socket, count: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.listener = listener
        self.count = count
        self.clock = clock
        self.numbers: Dict[int, int] = {}  # pid -> the worker's number, 1 to count, while it runs
        self.ready_read, self.ready_write = os.pipe()
        self.lifeline_read, self.lifeline_write = os.pipe()

    def start(self, work: Work) -> None:
        """Fork each worker, born deaf to Ctrl-C and with SIGTERM held back until it has set its own handling, so
        that no signal runs the parent's handlers in a child (cli.deaf_children: a Ctrl-C to the parent meanwhile
        is not lost either); then close the parent's copies of the listener, of the ready pipe's writing end and
        of the lifeline's reading end."""
        for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, not once by each worker too
            stream.flush()
        for number in range(1, self.count + 1):
            with cli.deaf_children(), held_back(signal.SIGTERM):
                pid = os.fork()
                if pid == 0:
                    self.be_worker(number, work)  # never returns
            self.numbers[pid] = number
        self.listener.close()
        os.close(self.ready_write)
        os.close(self.lifeline_read)

    def be_worker(self, number: int, work: Work) -> None:
        """In the child: run `work` and leave with its status, never returning into the parent's code (no exit
        handler of the parent's runs twice). Ctrl-C stays ignored (the parent, which hears it, stops the workers);
        SIGTERM ends the worker until `work` sets its own handling."""
        status = 1
        try:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
            os.close(self.ready_read)
            os.close(self.lifeline_write)
            threading.Thread(target=stop_when_gone, args=(self.lifeline_read,), name="lifeline", daemon=True).start()
            status = work(number, self.ready)
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
        """In a worker: tell the parent it can answer."""
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
        if said < self.count:
            raise self.ended(*os.waitpid(-1, 0))

    def supervise(self) -> None:
        """Until a worker ends, which raises WorkerEnded; the caller stops the others (stop()). A SIGTERM or
        Ctrl-C to the parent interrupts this with its exception."""
        pid, status = os.waitpid(-1, 0)
        raise self.ended(pid, status)

    def ended(self, pid: int, status: int) -> WorkerEnded:
        """The WorkerEnded of a worker that ended by itself, `status` as waitpid gives it."""
        number = self.numbers.pop(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        how = f"was killed by signal {-code}" if code < 0 else f"ended with status {code}"
        return WorkerEnded(f"worker {number} (pid {pid}) {how}: the server stops")

    def stop(self) -> None:
        """SIGTERM to every worker still running, and each waited for; SIGKILL for one still there after
        STOP_SECONDS. Then the lifeline is let go: no worker is left to hold to it."""
        for pid in self.numbers:
            send(pid, signal.SIGTERM)
        deadline = self.clock() + STOP_SECONDS
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
        if self.lifeline_write >= 0:
            os.close(self.lifeline_write)
            self.lifeline_write = -1


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
