"""The handshake era's sessions over Streamable HTTP: an Mcp-Session-Id issued at initialize, what its
resources/subscribe asked for, and the GET stream that carries the notifications, kept where every --workers
process of one server sees them.

Layer: server, beside the HTTP transport; it knows sessions, not the tools (the subscriptions it keeps are URIs and
the sequence each resumes after, checked by the methods before they are kept).

Glossary:
  session ID  43 URL-safe characters from secrets (256 random bits), sent once in the initialize answer's
              Mcp-Session-Id header; only its SHA-256 is kept, so the table names no session one could use
  holder      the SHA-256 of the bearer token that initialized the session ("" without tokens): a request bearing
              another token gets the same 404 as an unknown session, and learns nothing of it
  book        one SQLite file, in a folder of the server's own (0700) made before the workers are forked, that every
              worker opens: the sessions, their subscriptions, and which GET stream holds each (a POST and the
              GET of one session may reach different workers); a server's restart starts an empty book, and the
              client, answered 404, initializes again (the spec's way), resuming from its after_sequence
  stream turn a counter per session: a new GET takes the turn, and the stream of an older turn ends at its next look
  confirmed   where a subscription's client has read up to, as the Last-Event-ID of a GET says (listening.
              SessionFeed): a GET without one goes on from it, so that nothing is lost; what a stream wrote is
              never taken as read (the client may have gone before reading it)
  idle        a session that no request and no open GET stream has touched for idle_seconds is forgotten

Bounds: at most max_sessions in all and max_per_caller for one token (beyond, initialize is answered without a
session and nothing is kept: the client's tools work, its resources/subscribe says why it cannot); at most
MAX_SUBSCRIPTIONS URIs per session; sessions expire when idle.
"""

import hashlib
import os
import secrets
import shutil
import sqlite3
import tempfile
import threading
import time
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple, cast

MAX_SESSIONS = 1000
MAX_PER_CALLER = 32
MAX_SUBSCRIPTIONS = 100  # URIs one session may subscribe
IDLE_SECONDS = 600.0  # a session untouched this long is forgotten
TOUCH_SECONDS = 5.0  # a session's last use is written at most this often (a request, a GET stream's look)
BOOK_NAME = "sessions.db"
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sessions (id_hash TEXT PRIMARY KEY, holder TEXT NOT NULL, caller TEXT NOT NULL, "
    "seen REAL NOT NULL, turn INTEGER NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS sessions_by_holder ON sessions (holder)",
    "CREATE TABLE IF NOT EXISTS subscriptions (id_hash TEXT NOT NULL, uri TEXT NOT NULL, cursor INTEGER NOT NULL, "
    "revision INTEGER NOT NULL, PRIMARY KEY (id_hash, uri))",
)


class Full(Exception):
    """No session may be opened now: the caps are reached (the message says which)."""


class Subscription(NamedTuple):
    uri: str  # as the client subscribed it, after_sequence included
    cursor: int  # the last sequence its client confirmed (at first, the one it subscribed after)
    revision: int  # changed by each resources/subscribe of the URI, not by the stream's own progress


def fingerprint(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Session(NamedTuple):
    """A session found for a request: its key in the book, and the caller it counts against."""

    id_hash: str
    caller: str


class Book:
    """The sessions of one server, in the SQLite file at `path` (made if missing), shared by its workers: each
    process opens its own connection on first use (after the fork)."""

    def __init__(self, path: str, max_sessions: int = MAX_SESSIONS, max_per_caller: int = MAX_PER_CALLER,
                 idle_seconds: float = IDLE_SECONDS, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.max_sessions, self.max_per_caller, self.idle_seconds = max_sessions, max_per_caller, idle_seconds
        self.clock = clock
        self.guard = threading.Lock()
        self.connection: Optional[sqlite3.Connection] = None
        self.pid = -1

    def db(self) -> sqlite3.Connection:
        """This process's connection (a forked worker opens its own)."""
        if self.connection is None or self.pid != os.getpid():
            self.connection = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            self.connection.execute("PRAGMA journal_mode=WAL")
            self.connection.execute("PRAGMA synchronous=OFF")  # a session outlives no server: nothing to keep safe
            for statement in SCHEMA:
                self.connection.execute(statement)
            self.pid = os.getpid()
        return self.connection

    def run(self, work: Callable[[sqlite3.Connection], object], write: bool = False) -> object:
        with self.guard:
            connection = self.db()
            if not write:
                return work(connection)
            connection.execute("BEGIN IMMEDIATE")
            try:
                result = work(connection)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
            return result

    def open(self, token: Optional[str], caller: str) -> str:
        """A new session for the bearer of `token` (None without tokens): its ID; Full beyond the caps. The idle
        sessions are forgotten first."""
        session_id = secrets.token_urlsafe(32)
        holder = fingerprint(token) if token is not None else ""

        def work(connection: sqlite3.Connection) -> None:
            self.forget_idle(connection)
            (count,) = connection.execute("SELECT count(*) FROM sessions").fetchone()
            if count >= self.max_sessions:
                raise Full(f"this server holds {self.max_sessions} sessions, its limit; end one you hold (DELETE "
                           "with its Mcp-Session-Id) or initialize again later")
            (mine,) = connection.execute("SELECT count(*) FROM sessions WHERE holder = ?", (holder,)).fetchone()
            if mine >= self.max_per_caller:
                raise Full(f"you hold {self.max_per_caller} sessions, the limit for one token; end one you no longer "
                           "use (DELETE with its Mcp-Session-Id), or wait until an idle one expires")
            connection.execute("INSERT INTO sessions (id_hash, holder, caller, seen) VALUES (?, ?, ?, ?)",
                               (fingerprint(session_id), holder, caller, self.clock()))

        self.run(work, write=True)
        return session_id

    def forget_idle(self, connection: sqlite3.Connection) -> None:
        cutoff = self.clock() - self.idle_seconds
        stale = [row[0] for row in connection.execute("SELECT id_hash FROM sessions WHERE seen < ?", (cutoff,))]
        for id_hash in stale:
            connection.execute("DELETE FROM subscriptions WHERE id_hash = ?", (id_hash,))
            connection.execute("DELETE FROM sessions WHERE id_hash = ?", (id_hash,))

    def find(self, session_id: str, token: Optional[str]) -> Optional[Session]:
        """The session of this ID held by this token, touched now; None for an unknown, expired or forged ID, and
        for another token's session alike."""
        holder = fingerprint(token) if token is not None else ""
        id_hash = fingerprint(session_id)

        def work(connection: sqlite3.Connection) -> Optional[Session]:
            row = connection.execute("SELECT holder, caller, seen FROM sessions WHERE id_hash = ?",
                                     (id_hash,)).fetchone()
            if row is None or not secrets.compare_digest(row[0], holder):
                return None
            if row[2] < self.clock() - self.idle_seconds:
                return None
            if self.clock() - row[2] >= TOUCH_SECONDS:
                connection.execute("UPDATE sessions SET seen = ? WHERE id_hash = ?", (self.clock(), id_hash))
            return Session(id_hash, row[1])

        return self.run(work)  # type: ignore[return-value]

    def end(self, session: Session) -> None:
        """DELETE: the session and its subscriptions forgotten; its GET stream ends at its next look."""
        def work(connection: sqlite3.Connection) -> None:
            connection.execute("DELETE FROM subscriptions WHERE id_hash = ?", (session.id_hash,))
            connection.execute("DELETE FROM sessions WHERE id_hash = ?", (session.id_hash,))

        self.run(work, write=True)

    def subscribe(self, session: Session, uri: str, cursor: int) -> None:
        """resources/subscribe: the URI (again, from `cursor`); ValueError beyond MAX_SUBSCRIPTIONS."""
        def work(connection: sqlite3.Connection) -> None:
            (count,) = connection.execute("SELECT count(*) FROM subscriptions WHERE id_hash = ? AND uri != ?",
                                          (session.id_hash, uri)).fetchone()
            if count >= MAX_SUBSCRIPTIONS:
                raise ValueError(f"a session may subscribe {MAX_SUBSCRIPTIONS} URIs; unsubscribe one first, or "
                                 "subscribe a knowledge base's or channel's URI to watch all of it")
            (revision,) = connection.execute("SELECT coalesce(max(revision), 0) + 1 FROM subscriptions WHERE "
                                             "id_hash = ?", (session.id_hash,)).fetchone()
            connection.execute("INSERT OR REPLACE INTO subscriptions VALUES (?, ?, ?, ?)",
                               (session.id_hash, uri, cursor, revision))

        self.run(work, write=True)

    def unsubscribe(self, session: Session, uri: str) -> None:
        self.run(lambda connection: connection.execute("DELETE FROM subscriptions WHERE id_hash = ? AND uri = ?",
                                                       (session.id_hash, uri)), write=True)

    def take_turn(self, session: Session) -> int:
        """A GET stream starts: its turn (an older stream of the session ends at its next look)."""
        def work(connection: sqlite3.Connection) -> int:
            connection.execute("UPDATE sessions SET turn = turn + 1, seen = ? WHERE id_hash = ?",
                               (self.clock(), session.id_hash))
            return int(connection.execute("SELECT turn FROM sessions WHERE id_hash = ?",
                                          (session.id_hash,)).fetchone()[0])

        return self.run(work, write=True)  # type: ignore[return-value]

    def look(self, session: Session, turn: int, progress: Dict[str, Tuple[int, int]]) -> Optional[List[Subscription]]:
        """A GET stream's look, every moment: its `progress` saved (URI -> (revision, cursor) the client confirmed,
        kept only while the subscription is still that revision, and only forward), the session touched; its
        subscriptions now, or None once the session is gone or another stream took the turn."""
        def work(connection: sqlite3.Connection) -> Optional[List[Subscription]]:
            row = connection.execute("SELECT turn, seen FROM sessions WHERE id_hash = ?",
                                     (session.id_hash,)).fetchone()
            if row is None or row[0] != turn:
                return None
            if self.clock() - row[1] >= TOUCH_SECONDS:
                connection.execute("UPDATE sessions SET seen = ? WHERE id_hash = ?", (self.clock(), session.id_hash))
            for uri, (revision, cursor) in progress.items():
                connection.execute("UPDATE subscriptions SET cursor = ? WHERE id_hash = ? AND uri = ? AND "
                                   "revision = ? AND cursor < ?", (cursor, session.id_hash, uri, revision, cursor))
            return [Subscription(*row) for row in connection.execute(
                "SELECT uri, cursor, revision FROM subscriptions WHERE id_hash = ? ORDER BY uri",
                (session.id_hash,))]

        return self.run(work, write=bool(progress))  # type: ignore[return-value]

    def count(self) -> int:
        return cast(int, self.run(lambda connection: connection.execute("SELECT count(*) FROM sessions").fetchone()[0]))


class Held(NamedTuple):
    """The session a request names, as the methods use it."""

    book: Book
    session: Session

    def subscribe(self, uri: str, cursor: int) -> None:
        self.book.subscribe(self.session, uri, cursor)

    def unsubscribe(self, uri: str) -> None:
        self.book.unsubscribe(self.session, uri)


FOLDER_PREFIX = "osfoundry-sessions-"
OWNER_NAME = "owner"  # the process ID of the server that made the folder, which removes it when it stops


def new_folder(directory: Optional[str] = None) -> str:
    """A folder of this server's own (0700) for its book, made before any worker is forked, with its owner's
    process ID; first, the folders of this user's servers that ended without removing theirs (killed) go."""
    sweep_orphans(directory)
    folder = tempfile.mkdtemp(prefix=FOLDER_PREFIX, dir=directory)
    with open(os.path.join(folder, OWNER_NAME), "w", encoding="ascii") as owner:
        owner.write(str(os.getpid()))
    return folder


def sweep_orphans(directory: Optional[str] = None) -> List[str]:
    """Remove the session folders in `directory` (the temporary one by default) that this user owns and whose
    owner process has ended: a server killed before it could remove its own. A folder without an owner file (one
    being made, or another program's) or whose owner still runs is left alone. Returns the folders removed."""
    directory = directory or tempfile.gettempdir()
    try:
        names = [name for name in os.listdir(directory) if name.startswith(FOLDER_PREFIX)]
    except OSError:
        return []
    removed = []
    for name in names:
        folder = os.path.join(directory, name)
        if _orphaned(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _orphaned(folder: str) -> bool:
    """Whether `folder` is this user's and its owner file names a process that no longer runs (never judged where
    the system has no user IDs, Windows, whose os.kill would end the process it asks about)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return False
    try:
        if os.lstat(folder).st_uid != getuid():
            return False
        with open(os.path.join(folder, OWNER_NAME), encoding="ascii") as owner:
            pid = int(owner.read(20))
    except (OSError, ValueError):
        return False
    if pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it runs, as another user: not ours to judge
        return False
    return False


def remove_folder(folder: str) -> None:
    shutil.rmtree(folder, ignore_errors=True)


def book_in(folder: str) -> Book:
    return Book(os.path.join(folder, BOOK_NAME))
