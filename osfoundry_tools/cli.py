"""What every command shares: the one-line parser, option types, exit codes, output folders, the files it is given
to read, progress, Ctrl-C.

Layer: the bottom of the commands, beside the stores: sim.py, triage.py, bench.py,
mcp_server.py and the benchmark's scripts take their parser from here, and it
imports nothing of the project. A bad option costs one line on stderr and exit
status 2, whatever the command; Ctrl-C costs one line and exit status 130.

Glossary:
  option type   a function from the option's text to its value, raising argparse.ArgumentTypeError
                with a sentence that names what was wrong
  exit code     EXIT_OK, EXIT_FAILED (the work ran and found a failure, or its files could not be written),
                EXIT_USAGE (a bad option, nothing done), EXIT_INTERRUPTED (Ctrl-C: 128 + SIGINT, as shells
                report it), EXIT_TERMINATED (SIGTERM, where the command takes it as a Ctrl-C)
  canonical run a command run with the settings its committed results/ page was made with: the only
                run that writes results/ unless --out says otherwise; any other run writes into a
                folder of its own under runs/
  derived       said of a default worked out from the other options (sim.py's --area-articles is
                √--articles): the option's value is None until the command works it out, and that value
                typed back is no change
  probe         a file created, written and removed in an output folder before any work, so that a folder
                that cannot be written (a read-only disk, /proc, a full one) costs one line, not the run
  regular file  what a command reads from a path it is given: never a folder, FIFO, device or socket, which
                could block the read forever or never end it
  progress      done out of total on stderr, with an estimate of the time left: one line rewritten
                in place on a terminal, plain lines (at every tenth of the work) anywhere else
"""

import argparse
import contextlib
import datetime
import math
import os
import re
import shlex
import signal
import stat
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, NoReturn, Optional, Sequence, Set, TextIO

VERSION = "0.7.0"  # of the whole project: every command's --version, the server's serverInfo, the package
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # SIGTERM's: 128 + SIGTERM, as shells report it
PROGRESS_STEPS = 10  # plain progress lines per run when stderr is not a terminal
REDRAW_SECONDS = 0.1  # a terminal's progress line is rewritten at most this often
LAST_SEED = 1_000_000  # the largest seed a run may reach, ranges included: a typo such as 1-10000000000 is refused


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a bad option costs one line of stderr (and exit status 2), not the whole usage; every
    command answers --version.

    prog is a script ("sim.py"), a module run with -m ("benchmark.growth") or an installed command
    ("osfoundry-mcp"); the line names the command that explains every option.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.derived: Dict[str, Callable[[argparse.Namespace], Any]] = {}  # dest -> its derived default
        self.add_argument("--version", action="version", version=f"%(prog)s {VERSION}",
                          help="print the version and exit")

    def derive_default(self, dest: str, derive: Callable[[argparse.Namespace], Any]) -> None:
        """Give the option `dest` (default None) a derived default: derive(options) is the value it takes when
        not given, so that changed_settings counts that value, typed back, as no change."""
        self.derived[dest] = derive

    def error(self, message: str) -> NoReturn:
        if self.prog.endswith(".py"):
            command = f"python3 {self.prog}"
        elif "." in self.prog:  # a module run with -m
            command = f"python3 -m {self.prog}"
        else:  # an installed command, such as osfoundry-mcp
            command = self.prog
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} ({command} --help explains every option)\n")


# ---------------------------------------------------------------------------
# Option types.


def parse_seeds(text: str) -> List[int]:
    """'1-5' or '1,3,8-10' as a sorted list of distinct seeds from 1 to LAST_SEED.

    >>> parse_seeds("1,3,8-10"), parse_seeds("2-4,3")
    ([1, 3, 8, 9, 10], [2, 3, 4])
    """
    seeds: Set[int] = set()
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)(?:\s*-\s*(\d+))?\s*", part)
        if not match:
            raise argparse.ArgumentTypeError(f"{text!r} is not a seed list such as 1-5 or 1,3,8-10")
        low, high = int(match.group(1)), int(match.group(2) or match.group(1))
        if low < 1 or high < low:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} is not a range of seeds from 1 upwards")
        if high > LAST_SEED:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} reaches past seed {LAST_SEED:,}, the last a run takes")
        seeds.update(range(low, high + 1))
    return sorted(seeds)


def bounded(kind: type, text: str, low: Any, high: Any) -> Any:
    """text as a finite `kind` from low to high (high None: no upper bound), or an argparse error saying so.

    >>> bounded(float, "0.5", 0.0, None)
    0.5
    >>> bounded(float, "inf", 0.0, None)
    Traceback (most recent call last):
    argparse.ArgumentTypeError: 'inf' is not a finite number
    >>> bounded(int, "1.5", 1, None)
    Traceback (most recent call last):
    argparse.ArgumentTypeError: '1.5' is not a whole number
    """
    number = "whole number" if kind is int else "number"  # '1.5' where a count is meant is a number, not a whole one
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a {number}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if value < low or (high is not None and value > high):
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise argparse.ArgumentTypeError(f"{text!r} is not a {number} {bounds}")
    return value


def last_seed_reached(p: argparse.ArgumentParser, seeds: Sequence[int], after: int) -> None:
    """Refuse, in one line, `after` further seeds past the largest of `seeds` (the range groups of every draw)
    that reach past LAST_SEED."""
    if max(seeds) + after > LAST_SEED:
        p.error(f"--ranges and --draws reach seed {max(seeds) + after:,}, past {LAST_SEED:,}, the last seed a run "
                "takes: give fewer of them")


def positive(text: str) -> int:
    """An integer of at least 1."""
    return bounded(int, text, 1, None)


def non_negative(text: str) -> int:
    """An integer of at least 0."""
    return bounded(int, text, 0, None)


def share(text: str) -> float:
    """A number from 0 to 1."""
    return bounded(float, text, 0.0, 1.0)


def exponent(text: str) -> float:
    """A finite number of at least 0."""
    return bounded(float, text, 0.0, None)


# ---------------------------------------------------------------------------
# Where a run writes: results/ for the canonical run, a folder of its own under runs/ for any other.


def changed_settings(p: argparse.ArgumentParser, options: argparse.Namespace, apart: Sequence[str]) -> List[str]:
    """The options whose values differ from their defaults, as flags ("--seeds"), leaving out those in
    `apart` (destinations such as "jobs" or "out", which move no figure). An option with a derived default
    differs only when it was given a value other than the one derived from the other options."""
    defaults = p.parse_args([])
    derived = getattr(p, "derived", {})
    flags = {action.dest: action.option_strings[-1] for action in p._actions if action.option_strings}

    def differs(name: str, value: Any) -> bool:
        if name in derived:
            return value is not None and value != derived[name](options)
        return bool(getattr(defaults, name, value) != value)

    return [flags.get(name, name) for name, value in vars(options).items()
            if name not in apart and differs(name, value)]


def check_folder(p: argparse.ArgumentParser, flag: str, folder: str) -> None:
    """Refuse, before any work, a folder that cannot be written: no name, a file in its place, or no writable
    folder to make it in."""
    if not folder.strip():
        p.error(f"{flag}: give the name of a folder")
    if os.path.exists(folder) and not os.path.isdir(folder):
        p.error(f"{flag}: {folder!r} is a file, not a folder")
    existing = os.path.abspath(folder)
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        p.error(f"{flag}: {folder!r} cannot be made: {existing!r} is a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        p.error(f"{flag}: {folder!r} cannot be written: {existing!r} is not writable")


class Destination(NamedTuple):
    """Where a run writes, and what to say of it."""

    folder: str
    note: str  # a line saying why it is not results/ (empty when there is nothing to say)
    reserved: bool  # made already, empty, for this run alone: to be removed if the run writes nothing
    made: str = ""  # the outermost folder made for the run (`folder` or one above it), removed too if left empty


def output_folder(p: argparse.ArgumentParser, out: Optional[str], changed: Sequence[str], results: str, runs: str,
                  name: str, now: Callable[[], datetime.datetime] = datetime.datetime.now) -> Destination:
    """Where a run writes, checked before any work: made if missing, and a probe written into it.

    An explicit --out wins; otherwise the canonical run (nothing `changed`) writes `results`, and any other
    run a new folder `runs`/<name>-<time>, made at once so that no other run takes it, so that nothing a user
    tries can overwrite the committed pages.
    """
    if out is not None or not changed:
        flag, folder = ("--out", out) if out is not None else ("results", results)
        made = writable_folder(p, flag, folder)
        return Destination(folder, "", reserved=made is not None, made=made or "")
    writable_folder(p, "runs", runs)
    base = os.path.join(runs, f"{name}-{now():%Y%m%d-%H%M%S}")
    folder, number = base, 1
    while True:
        try:
            os.mkdir(folder)
            break
        except FileExistsError:  # another run of the same second
            number += 1
            folder = f"{base}-{number}"
    verb = "differs" if len(changed) == 1 else "differ"
    return Destination(folder, f"{', '.join(changed)} {verb} from the committed results' settings: writing into "
                       f"{shown(folder)}/ (--out {shlex.quote(shown(results))} would replace the committed page)",
                       reserved=True, made=folder)


def writable_folder(p: argparse.ArgumentParser, flag: str, folder: str) -> Optional[str]:
    """Make `folder` if missing and write a probe into it, before any work: the outermost folder made (None if it
    was there), or one line and exit status 2 if it cannot be written, leaving no folder made for it behind."""
    check_folder(p, flag, folder)
    made = outermost_missing(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        probe(folder)
    except OSError as error:
        remove_made(folder, made)
        p.error(f"{flag}: {folder!r} cannot be written ({error.strerror or error})")
    return made


def outermost_missing(folder: str) -> Optional[str]:
    """The outermost of `folder` and the folders above it that do not exist (None if it exists)."""
    missing = None
    path = os.path.abspath(folder)
    while not os.path.exists(path):
        missing, path = path, os.path.dirname(path)
    return missing


def probe(folder: str) -> None:
    """Create, write and remove a file of its own in `folder`: OSError if the folder cannot take a file."""
    descriptor, path = tempfile.mkstemp(prefix=".probe-", dir=folder)
    try:
        os.write(descriptor, b"probe\n")
    finally:
        os.close(descriptor)
        os.remove(path)


def remove_made(folder: str, made: Optional[str]) -> None:
    """Remove `folder` and the folders above it up to `made`, each only if empty (a folder that holds anything
    stays, and so do the ones above it)."""
    if not made:
        return
    path, top = os.path.abspath(folder), os.path.abspath(made)
    if os.path.commonpath([path, top]) != top:  # `made` above nothing of `folder`: only `folder` itself
        top = path
    while True:
        if os.path.isdir(path) and not os.path.islink(path):  # one that was never made is passed over
            try:
                os.rmdir(path)
            except OSError:
                return
        if path == top or os.path.dirname(path) == path:
            return
        path = os.path.dirname(path)


@contextlib.contextmanager
def removed_unless_written(destination: Destination) -> Iterator[None]:
    """A block that writes into `destination`: a folder made for the run is removed again (down to the outermost
    one made) if the block ends in an error or Ctrl-C before anything was written into it."""
    try:
        yield
    except BaseException:
        if destination.reserved:
            remove_made(destination.folder, destination.made or destination.folder)
        raise


def shown(path: str) -> str:
    """A path as a user would type it: relative to the working folder when inside it."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def write_text(path: str, text: str) -> None:
    """Write a results file with "\\n" line ends on every platform."""
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(text)


def write_files(folder: str, files: Dict[str, str]) -> bool:
    """Each file's text into `folder` (made if missing; True if it was): every file is written under a temporary
    name first and renamed only once all are written, so an interruption leaves no partial file, and none of
    the new files unless all of them could be written (the renames themselves take microseconds). CannotWrite,
    in one line, if the disk refuses (output_folder's probe passed, then the disk filled, say)."""
    made = not os.path.isdir(folder)
    pending: Dict[str, str] = {}
    renamed: List[str] = []
    try:
        os.makedirs(folder, exist_ok=True)
        for name, text in files.items():
            path = os.path.join(folder, name)
            pending[path] = f"{path}.partial-{os.getpid()}"
            write_text(pending[path], text)
        for path, temporary in list(pending.items()):
            os.replace(temporary, path)
            del pending[path]
            renamed.append(os.path.basename(path))
    except OSError as error:
        written = f"only {' and '.join(renamed)} written" if renamed else "nothing was written"
        raise CannotWrite(f"cannot write into {shown(folder)}/ ({error.strerror or error}); {written}") from None
    finally:
        for temporary in pending.values():
            if os.path.exists(temporary):
                os.remove(temporary)
    return made


class RunFailed(Exception):
    """A run that could not finish for a reason outside its code: one line saying why and what was written;
    run_main ends the command with it and EXIT_FAILED."""


class CannotWrite(RunFailed):
    """A run's files that the disk refused after the run."""


# ---------------------------------------------------------------------------
# The files a command is given to read.


class FileRefused(ValueError):
    """A path to read that names no regular file (a folder, FIFO, device or socket): the message says what it
    names, without the path, for the caller to put in front."""


class FileTooLarge(FileRefused):
    """A regular file larger than its reader takes: the message gives its size and the bound."""


def kind_of(mode: int) -> str:
    """What a file's mode (os.stat's st_mode) says it is, for a message: "a folder", "a FIFO (named pipe)"...

    >>> kind_of(stat.S_IFIFO | 0o600), kind_of(stat.S_IFREG | 0o644)
    ('a FIFO (named pipe)', 'a regular file')
    """
    kinds = ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISLNK, "a symbolic link"))
    return next((kind for test, kind in kinds if test(mode)), "a special file")


def read_file(path: str, limit: int, inspect: Callable[[os.stat_result], None] = lambda status: None) -> bytes:
    """The bytes of the regular file at `path` (links followed), at most `limit` of them, read so that nothing
    can block or fill memory: FileRefused for a path naming anything else, checked before it is opened (a device
    is never opened) and again on what was opened (a FIFO opens without waiting for a writer, then is refused,
    whatever the path was swapped for meanwhile); FileTooLarge past `limit`, checked on the opened file before
    reading, and no more than `limit` + 1 bytes read if it grows. `inspect` sees the opened file's status before
    anything is read (to refuse a mode, say). OSError as os.open raises it (FileNotFoundError, PermissionError)."""
    _check_regular(os.stat(path))
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(descriptor, "rb") as file:
        status = os.fstat(descriptor)
        _check_regular(status)
        inspect(status)
        _check_size(status.st_size, limit)
        data = file.read(limit + 1)
    _check_size(len(data), limit)
    return data


def _check_regular(status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        raise FileRefused(f"is {kind_of(status.st_mode)}, not a regular file")


def _check_size(size: int, limit: int) -> None:
    if size > limit:
        raise FileTooLarge(f"is {size:,} bytes, larger than the {limit:,} read from such a file")


# ---------------------------------------------------------------------------
# Progress, and Ctrl-C.


def duration(seconds: float) -> str:
    """A time left as a person says it.

    >>> duration(4.2), duration(75), duration(3720)
    ('5 s', '1 min 15 s', '62 min')
    """
    seconds = math.ceil(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{round(seconds / 60)} min"


class Progress:
    """done/total of a run on stderr, with the time left estimated from the pace so far."""

    def __init__(self, prog: str, total: int, unit: str, stream: Optional[TextIO] = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.prog, self.total, self.unit = prog, total, unit
        self.stream = sys.stderr if stream is None else stream
        self.clock = clock
        self.started = clock()
        self.terminal = self.stream.isatty()
        self.drawn = -math.inf  # when the terminal's line was last drawn
        self.step = 0  # the tenths of the work already reported in plain lines

    def line(self, done: int) -> str:
        """'sim.py: 12/210 seeds, about 1 min 20 s left'."""
        text = f"{self.prog}: {done}/{self.total} {self.unit}"
        elapsed = self.clock() - self.started
        if 0 < done < self.total:
            text += f", about {duration(elapsed * (self.total - done) / done)} left"
        elif done == self.total:
            text += f" in {elapsed:.1f} s"
        return text

    def update(self, done: int) -> None:
        """Report that `done` of the total are done."""
        if self.terminal:
            if done == self.total or self.clock() - self.drawn >= REDRAW_SECONDS:
                self.drawn = self.clock()
                self.stream.write("\r\x1b[K" + self.line(done) + ("\n" if done == self.total else ""))
                self.stream.flush()
            return
        step = done * PROGRESS_STEPS // max(1, self.total)
        if step > self.step or done in (0, self.total):
            self.step = step
            print(self.line(done), file=self.stream, flush=True)


def ignore_interrupts() -> None:
    """Make this process deaf to Ctrl-C: for child processes, which the terminal's SIGINT reaches too and
    which their parent stops itself (given as a pool's initializer or a subprocess's preexec_fn)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def deaf_children() -> Iterator[None]:
    """A block in which the processes started (multiprocessing's or subprocess's, whatever the start method) are
    born deaf to Ctrl-C: SIGINT is ignored here meanwhile, and an ignored signal stays ignored in a child, even
    across exec. It is also held back (blocked), so a Ctrl-C meanwhile is not lost but arrives as the block ends:
    Python runs its fork handlers inside, where a KeyboardInterrupt would only be printed ("Exception ignored")
    and the Ctrl-C forgotten. (Where signals cannot be blocked, a Ctrl-C inside is lost: keep it short.)"""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if hasattr(signal, "pthread_sigmask") else None
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if held is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


class Terminated(KeyboardInterrupt):
    """SIGTERM (kill, a CI runner's timeout, a container stopping), raised as a Ctrl-C is: every path that stops
    the workers and removes the run's folder on Ctrl-C does so on it too."""


@contextlib.contextmanager
def terminated_as_interrupted() -> Iterator[None]:
    """A block in which SIGTERM raises Terminated, a KeyboardInterrupt, instead of ending the process at once
    with its workers left running and its run's folder left behind; run_main ends it with EXIT_TERMINATED.
    Worker processes go back to SIGTERM's default (seed_pool.serve), so that their parent can still stop them."""
    def terminate(signum: int, frame: Any) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


class ReaderMayLeave:
    """stdout or stderr of a run whose reader may go away (`| head`, a closed terminal, a closed descriptor): what is
    written after it left is dropped, so the run still writes its files, instead of failing on BrokenPipeError."""

    def __init__(self, stream: Optional[TextIO]) -> None:
        self.stream = stream
        self.gone = stream is None  # a descriptor closed before the start (`2>&-`): Python gives None

    def write(self, text: str) -> int:
        self._try(lambda stream: stream.write(text))
        return len(text)

    def flush(self) -> None:
        self._try(lambda stream: stream.flush())

    def isatty(self) -> bool:
        return not self.gone and self.stream is not None and self.stream.isatty()

    def __getattr__(self, name: str) -> Any:  # encoding, fileno...: the stream's own, where it has one
        return getattr(self.stream, name)

    def _try(self, action: Callable[[TextIO], Any]) -> None:
        if self.gone or self.stream is None:
            return
        try:
            action(self.stream)
        except (OSError, ValueError):  # EPIPE, a closed file
            self.gone = True
            with contextlib.suppress(OSError, ValueError):  # what is still buffered goes nowhere, even at exit
                nowhere = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(nowhere, self.stream.fileno())
                finally:
                    os.close(nowhere)


@contextlib.contextmanager
def readers_may_leave() -> Iterator[None]:
    """A block whose stdout and stderr are ReaderMayLeave: a run piped into `head`, or started with a closed
    descriptor, writes its files all the same."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = ReaderMayLeave(sys.stdout), ReaderMayLeave(sys.stderr)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams


def run_deaf(argv: Sequence[str], **options: Any) -> "subprocess.CompletedProcess[str]":
    """subprocess.run(argv, capture_output=True, text=True, **options) for a child this process stops itself:
    started deaf to Ctrl-C (deaf_children, so no Ctrl-C is lost while it starts), and killed if this process is
    interrupted while it runs."""
    with deaf_children():
        process = subprocess.Popen(list(argv), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **options)
    try:
        out, err = process.communicate()
    except BaseException:
        process.kill()
        process.wait()
        raise
    return subprocess.CompletedProcess(list(argv), process.returncode, out, err)


def run_main(prog: str, main: Callable[[Optional[Sequence[str]]], int], argv: Optional[Sequence[str]] = None,
             interrupted: str = "interrupted; nothing was written") -> int:
    """main(argv), except that Ctrl-C ends it with one line on stderr and EXIT_INTERRUPTED, and a run that could
    not finish (RunFailed: files the disk refused, a worker process that died) with one line and EXIT_FAILED: no
    traceback."""
    try:
        return main(argv)
    except RunFailed as refused:
        print(f"{prog}: error: {refused}", file=sys.stderr, flush=True)
        return EXIT_FAILED
    except KeyboardInterrupt as stopped:
        start = "\r\x1b[K" if sys.stderr.isatty() else ""  # over a progress line, and the terminal's ^C
        print(f"{start}{prog}: {interrupted}", file=sys.stderr, flush=True)
        return EXIT_TERMINATED if isinstance(stopped, Terminated) else EXIT_INTERRUPTED
