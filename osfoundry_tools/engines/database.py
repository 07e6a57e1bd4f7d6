"""One store's sqlite file: the connection, the BEGIN IMMEDIATE helper, and the marks that make the file the store's.

Layer: engines, below the stores and above the core (whose rejections and shared
tables it uses). A store describes what its file holds as a `Layout`; `Database`
opens a file for it and either finds it the store's own (marked with the layout's
application_id and schema version), makes a new or empty file so, upgrades a file an
older version wrote, or refuses it with one line: another store's file, a file of
tables it does not know, a newer version's file. Two stores therefore never share a
file, and their event logs never mix. opening.open_store, every store's connect(),
opens a Database for the store's layout, or a postgres_database.PostgresDatabase for a postgresql:// URL.

Glossary:
  layout        a store's tables, its application_id, its schema version and the upgrades from older versions
  mark          PRAGMA application_id (which store) and PRAGMA user_version (which schema version)
  durability    "full": every acknowledged write survives a power cut (WAL, synchronous=FULL);
                "normal": it survives the process being killed, but a power cut may lose the last
                writes (WAL, synchronous=NORMAL); never a corrupt file either way
  read-only     a file the process may not write: reads work, writes are refused with read_only. With no
                writer's shared memory beside it, it is read as immutable: changes a writer makes later
                are not seen until the store is opened again
  storage error sqlite could not read or write the file (disk I/O, disk full, corruption): the
                transaction is rolled back and the caller told it may retry with the same key
  derived       what a store keeps of rows that are only ever added (a channel's parsed schema), forgotten
                whenever the file may have changed under it (Database.derived)
  at commit     work a store leaves to the end of a write transaction, done once before its COMMIT
                (Database.at_commit: a search index's merge budget)
  checkpoint    the log copied into the database file, every CHECKPOINT_PAGES pages of it
  reader        another connection to a store's file, for reads only (Database.reader): each read on it is a
                transaction of its own, which sees every transaction committed before it began, whichever
                connection or process wrote it (WAL), and runs beside the writer's transactions
  identity      what tells a store's data from a copy of it (Database.identity): a file's device and inode, not
                its path, so a copy differs while a restart or another process on the same file matches; a
                private memory has a random one of its own. An approval sealed for one store is refused by another
"""

import copy
import dataclasses
import logging
import os
import secrets
import sqlite3
import threading
import time
import urllib.parse
from typing import Any, Callable, Dict, FrozenSet, List, Mapping, Optional, Set, Tuple, Type, TypeVar

from osfoundry_tools.core.events import EVENT_LOG_SCHEMA
from osfoundry_tools.core.idempotency import IDEMPOTENCY_SCHEMA
from osfoundry_tools.core.rejections import Busy, ReadOnly, Rejection, StorageError

log = logging.getLogger("osfoundry")

BUSY_TIMEOUT_SECONDS = 10.0  # how long a write waits for the writers before it, then answers busy
DURABILITY = {"full": "FULL", "normal": "NORMAL"}  # durability -> PRAGMA synchronous, on WAL
DURABILITY_DEFAULT = "full"
CHECKPOINT_PAGES = 128
# A write that takes the log past this many pages (512 KiB) copies them into the database file before it returns:
# sqlite's automatic checkpoint, which syncs the file (and, at durability "normal", the log first). Its cost grows
# with the pages it copies and syncs, so it is the slowest write of all: at sqlite's 1,000 pages, one article edit in
# 75 checkpointed and took 12 to 14 times the median edit at durability "normal" (3 times at "full"). At 128, about
# every tenth edit of an article does, for 4 times the median (2 times), and the log stays within half a MiB while
# no reader holds it back.
SHARED_TABLES = frozenset({"events", "idempotency_keys"})  # every store keeps these: the core's (events, idempotency)
MEMORY = (":memory:", "")  # both are private in-memory databases

Upgrade = Callable[[sqlite3.Connection], None]
Action = TypeVar("Action", bound=Callable[[], None])


def storage_failure(error: BaseException) -> Optional[Rejection]:
    """The rejection for an error sqlite raised about its file, or None when the error is no storage failure.

    Busy past the timeout is Busy; disk I/O, a full disk, a damaged file and the like are StorageError. A
    constraint or a misused API is a bug, not the storage's: None, so it stays an internal error.
    """
    if not isinstance(error, sqlite3.DatabaseError) or isinstance(
            error, (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError)):
        return None
    text = str(error)
    if "locked" in text or "busy" in text:
        return Busy("other writers held the database past the busy timeout; nothing was saved. Wait a moment and "
                    "send the same call again, with the same idempotency_key.")
    return StorageError(f"the database could not be read or written ({text[:120]}); nothing was saved. Send the "
                        "same call again, with the same idempotency_key, once the storage is back; if it keeps "
                        "failing, tell a person.")



class UnusableFile(sqlite3.DatabaseError):
    """A database file this store will not open; the message says why in one line and what to do."""


@dataclasses.dataclass(frozen=True)
class Layout:
    """What a store keeps in its file, and how it knows the file is its own."""

    name: str  # as messages name the store, e.g. "memo-board"
    application_id: int  # PRAGMA application_id of the store's files
    version: int  # PRAGMA user_version this code writes
    schema: str  # the store's CREATE ... IF NOT EXISTS statements (the core's shared tables are added to them)
    tables: FrozenSet[str]  # the store's own tables, FTS shadow tables included
    upgrades: Mapping[int, Upgrade] = dataclasses.field(default_factory=dict)  # n -> from version n to n + 1
    # n -> the part of the step from n that only moves data, in statements every engine runs: PostgreSQL runs it
    # after its own changes of the tables (postgres_upgrades); sqlite's upgrade calls it itself
    data_upgrades: Mapping[int, Upgrade] = dataclasses.field(default_factory=dict)
    postgres_schema: str = ""  # the same tables in PostgreSQL's types, "" for a store served from sqlite only
    postgres_upgrades: Mapping[int, str] = dataclasses.field(default_factory=dict)  # n -> PostgreSQL's statements

    def __post_init__(self) -> None:
        KNOWN_LAYOUTS[self.application_id] = self

    def statements(self) -> List[str]:
        """Every CREATE statement of the file: the store's, then the shared tables'."""
        return split_statements("\n".join((self.schema, EVENT_LOG_SCHEMA, IDEMPOTENCY_SCHEMA)))


KNOWN_LAYOUTS: Dict[int, Layout] = {}  # application_id -> layout, for messages that name another store's file


def split_statements(script: str) -> List[str]:
    """A script as its statements, split where sqlite says a statement is complete (so a trigger body holds)."""
    statements, current = [], ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        raise ValueError(f"the schema ends with an incomplete statement: {current.strip()[:80]!r}")
    return statements


def add_column(connection: sqlite3.Connection, table: str, column: str, definition: str) -> bool:
    """An upgrade step: ALTER TABLE ... ADD COLUMN unless the table has the column already; whether it added it."""
    if column in {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}:
        return False
    connection.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
    return True


class Database:
    """One sqlite connection in autocommit mode whose transactions are opened explicitly.

    postgres_database.PostgresDatabase is the same with PostgreSQL underneath: it keeps the transactions' nesting
    below and supplies its own opening, BEGIN and failures (the attributes and methods marked "engine"). What the
    stores do differently on each engine is the connection's dialect.Dialect."""

    ENGINE_ERROR: Type[Exception] = sqlite3.DatabaseError  # engine: the driver's errors
    identity: str  # engine: what tells this store's data from a copy of it (the module's docstring)
    BEGIN = {True: "BEGIN IMMEDIATE", False: "BEGIN"}  # engine: how a write and a read begin
    reads_only = False  # a reader's (see reader()): a write on it is a bug, refused
    READERS = 1  # engine: the readers a server opens beside this connection. A sqlite read is this process's own
    # work, mostly Python's, which runs one thread at a time: on two cores, with 16 HTTP clients reading one
    # article, 2 readers per store made the server spend about 10% more time per read than 1 (515 against 437 us,
    # median of 6 runs) and 4 about 65% more, answering fewer; searching a knowledge base of 5,000 articles, 2 took
    # 60% more. One reader per store costs nothing beside the workspace lock, and a read no longer waits for an
    # edit (its sync to disk, or another process's write lock for up to the busy timeout)

    def __init__(self, path: str, layout: Layout, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS,
                 durability: str = DURABILITY_DEFAULT, read_only: Optional[bool] = None) -> None:
        """read_only: True opens the file for reading only; None (the default) does so when the process may
        not write it."""
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {', '.join(DURABILITY)}, not {durability!r}")
        self.path, self.layout, self.durability = path, layout, durability
        if read_only is None:
            read_only = path not in MEMORY and os.path.exists(path) and not os.access(path, os.W_OK)
        if read_only and (path in MEMORY or not os.path.exists(path)):
            raise UnusableFile(f"{path or ':memory:'} cannot be opened read-only: there is no file to read")
        self.read_only, self.busy_timeout = read_only, busy_timeout
        self.connection = _connect(path, busy_timeout, self.read_only)
        self._start_afresh()
        try:
            self.connection.execute("PRAGMA foreign_keys = ON")
            self._decide(*self._marks_read())  # before anything is written, so a refused file stays as it was
            if path not in MEMORY and not self.read_only:
                try:
                    _write_ahead(self.connection, busy_timeout)
                except sqlite3.OperationalError as error:
                    self._raise_failure(error)
                self.connection.execute(f"PRAGMA synchronous = {DURABILITY[durability]}")
                self.connection.execute(f"PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES}")
            if not self.read_only:
                self._make()
            self.identity = identity_of(path)
        except BaseException:
            self.connection.close()
            raise

    def _start_afresh(self) -> None:
        """What each connection keeps of its own, as it is before its first transaction."""
        self._lock = threading.RLock()
        self._mode: Optional[str] = None  # None, "read" or "write": the open transaction, if any
        self._savepoints = 0
        self._undone = 0  # writes and savepoints of this connection rolled back so far
        self._derived: Dict[Any, Any] = {}  # see derived()
        self._derived_at: Optional[Tuple[int, int]] = None  # (data_version, _undone) when _derived was last valid
        self._at_commit: Dict[Any, Any] = {}  # key -> an action (a callable), see at_commit()
        self._after_commit: Dict[Any, Any] = {}  # key -> an action, see after_commit()
        self._committed: List[Any] = []  # the after_commit actions of the write that just committed, to run

    # -- the file's marks: whose it is, which version ----------------------------

    def _marks_read(self) -> Tuple[int, int, Set[str]]:
        """The file's application_id, user_version and table names, read in a transaction of their own."""
        try:
            with self.read() as connection:
                return _marks(connection)
        except (sqlite3.DatabaseError, Rejection) as error:  # not a database at all, or one sqlite cannot read
            cause = error.__cause__ if isinstance(error, Rejection) and error.__cause__ else error
            raise UnusableFile(f"{self.path} cannot be read as a database: {cause}") from error

    def _decide(self, owner: int, version: int, tables: Set[str]) -> Optional[int]:
        """Whether the file is the layout's: the schema version to upgrade from (None: new or current), or refused."""
        layout = self.layout
        if owner == 0 and not tables:
            self._refuse_if_read_only("is empty")
            return None
        if owner not in (0, layout.application_id):
            other = KNOWN_LAYOUTS.get(owner)
            whose = f"a {other.name} database" if other else f"not a {layout.name} database (application_id {owner})"
            raise UnusableFile(f"{self.path} is {whose}; give the {layout.name} store a file of its own")
        if owner == 0:
            self._recognise_unmarked(tables)
            version = 1  # files written before the marks existed are version 1
        if version > layout.version:
            raise UnusableFile(f"{self.path} was written by a newer version of this {layout.name} store (schema "
                               f"{version}, this one knows {layout.version}); use the newer version")
        if version < layout.version:
            self._refuse_if_read_only(f"was written by an older version (schema {version}) and must be upgraded")
            return version
        return None

    def _recognise_unmarked(self, tables: set) -> None:
        """An unmarked file holding tables: this store's own from before the marks, or refused."""
        layout = self.layout
        strangers = sorted(tables - layout.tables - SHARED_TABLES)
        if strangers or not tables & layout.tables:
            others = [other.name for other in KNOWN_LAYOUTS.values()
                      if other is not layout and set(strangers) & other.tables]
            whose = f"holds {' and '.join(others)} tables" if others else "holds tables this store does not know"
            raise UnusableFile(f"{self.path} {whose} ({', '.join(strangers or sorted(tables))[:200]}); give the "
                               f"{layout.name} store a file of its own")

    def _refuse_if_read_only(self, what: str) -> None:
        if self.read_only:
            raise UnusableFile(f"{self.path} {what}, but it is read-only; make it writable once, or give another file")

    def _make(self) -> None:
        """In one write: decide again (another process may have made the file its own since), upgrade, create what
        is missing, mark the file."""
        layout, version = self.layout, self.layout.version
        with self.write() as connection:
            from_version = self._decide(*_marks(connection))
            for step in range(from_version or version, version):
                if step not in layout.upgrades:
                    raise UnusableFile(f"{self.path}: no upgrade of the {layout.name} schema from version {step}")
                layout.upgrades[step](connection)
            for statement in layout.statements():
                connection.execute(statement)
            connection.execute(f"PRAGMA application_id = {int(layout.application_id)}")
            connection.execute(f"PRAGMA user_version = {int(version)}")

    # -- the connection ---------------------------------------------------------

    def close(self, wait: float = BUSY_TIMEOUT_SECONDS) -> None:
        """Close the connection once the transaction under way on it, in any thread, has ended (`wait` seconds at
        most): the driver runs a statement with the interpreter's lock released, and a connection closed under it
        frees what it is reading, which takes the process down. Past the wait it stays open, and a warning says
        so: a connection left to the process's end costs nothing, and a crash costs everything."""
        if not self._lock.acquire(timeout=wait):
            log.warning("the %s database's connection was still in a transaction after %g s; it is left open",
                        self.layout.name, wait)
            return
        try:
            self.connection.close()
        finally:
            self._lock.release()

    @property
    def shareable(self) -> bool:
        """Whether another connection can open this database: a file or a server's, not a private memory."""
        return self.path not in MEMORY

    def reader(self) -> "Database":
        """Another connection to this database, for reads only, with a lock, transactions and derived() dict of
        its own: its reads run beside this connection's transactions, and each sees every transaction committed
        before it began (sqlite's WAL; a snapshot taken at a read's first statement on PostgreSQL). It checks and
        writes nothing as it opens (this connection checked the marks), and refuses to write: a write is a bug
        (RuntimeError), and sqlite's PRAGMA query_only refuses any statement that would change the file.

        UnusableFile, in one line, if it cannot be opened; ValueError for a private in-memory database, which no
        other connection can see."""
        if not self.shareable:
            raise ValueError(f"{self.path or ':memory:'} is private to its connection: no reader can open it")
        reader = copy.copy(self)
        reader._start_afresh()
        reader.reads_only = True
        reader.connection = self._reader_connection()
        return reader

    def _reader_connection(self) -> Any:
        """Engine: a new connection for reader()."""
        connection = _connect(self.path, self.busy_timeout, self.read_only)
        try:
            connection.execute("PRAGMA query_only = ON")
        except sqlite3.Error as error:
            connection.close()
            raise UnusableFile(f"{self.path} cannot be opened for reads: {error}") from error
        return connection

    def copy_to(self, other: "Database") -> None:
        """Replace everything in `other` with a consistent copy of this database (sqlite's backup API)."""
        with self._lock:
            self.connection.backup(other.connection)
            other._derived_at = None

    @property
    def in_transaction(self) -> bool:
        """Whether a read or a write of this connection is open (a `with` of read() or write())."""
        return self._mode is not None

    def at_commit(self, key: Any, make: Callable[[], Action]) -> Action:
        """Inside a write: the action kept under `key` for the end of the outermost transaction (made by `make` the
        first time), to run once just before its COMMIT, in the order the actions were made, and not at all if it
        rolls back: work a store does once per transaction, in proportion to what the transaction wrote."""
        if self._mode != "write":
            raise RuntimeError("at_commit belongs inside a write")
        action = self._at_commit.get(key)
        if action is None:
            action = self._at_commit[key] = make()
        return action

    def derived(self) -> Dict[Any, Any]:
        """Inside a transaction: a dict in which a store keeps what it derives from rows that are only ever added,
        never changed (a channel's parsed schema), so that a call need not read and parse them again.

        It is emptied whenever it might be stale: when another connection has committed since it was filled
        (PRAGMA data_version changes exactly then, whichever process wrote), when a write of this connection
        was rolled back (what it added may be gone), and when copy_to replaced the database. The PRAGMA costs a
        fraction of reading a channel's row.
        """
        changed = 0 if self.path in MEMORY else self.connection.execute("PRAGMA data_version").fetchone()[0]
        stamp = (changed, self._undone)  # no other connection can write a private in-memory database
        if stamp != self._derived_at:
            self._derived.clear()
            self._derived_at = stamp
        return self._derived

    def write(self) -> "Transaction":
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK and re-raise; nested, a SAVEPOINT.

        sqlite's own failures (busy past the timeout, disk I/O, a full disk) leave the transaction rolled
        back and become the rejections Busy and StorageError, which say that nothing was saved.
        """
        return Transaction(self, writes=True)

    def read(self) -> "Transaction":
        """A consistent snapshot for several SELECTs; inside a write, that write's view."""
        return Transaction(self, writes=False)

    def after_commit(self, key: Any, action: Callable[[], None]) -> None:
        """Inside a transaction: `action` (the first one kept under `key`) to run once after the outermost write
        commits, outside the transaction and its lock (so it may start transactions of its own); never if the
        outermost rolls back, nor after a read. For work too slow to hold the write lock through, such as embedding."""
        if self._mode is None:
            raise RuntimeError("after_commit belongs inside a transaction")
        self._after_commit.setdefault(key, action)

    def _begin(self, writes: bool) -> None:
        """Open the outermost transaction: BEGIN IMMEDIATE for a write, BEGIN for a read."""
        if writes and self.reads_only:
            raise RuntimeError(f"a reader connection of the {self.layout.name} database was asked to write: route "
                               "writes to the store's own connection")
        if writes and self.read_only:
            raise ReadOnly(f"the {self.layout.name} database file is read-only, so nothing can be saved; reads "
                           "still work. Ask a person to make the file writable, then send the same call again.")
        try:
            self.connection.execute(self.BEGIN[writes])
        except self.ENGINE_ERROR as error:
            self._raise_failure(error)
        self._mode = "write" if writes else "read"

    def _end(self, writes: bool, error: Optional[BaseException]) -> None:
        """Close the outermost transaction: COMMIT a write whose body returned, roll back anything else. sqlite's
        failures, in the body or at COMMIT, leave nothing open and become rejections; other errors pass as they are."""
        committed = False
        try:
            if error is not None:
                if isinstance(error, self.ENGINE_ERROR):
                    failure = self.failure(error)
                    if failure is not None:
                        raise failure from error
            elif writes:
                try:
                    if self._at_commit:
                        for action in self._at_commit.values():
                            action()
                    self.connection.execute("COMMIT")
                except self.ENGINE_ERROR as failed:
                    self._roll_back()
                    self._raise_failure(failed, committing=True)
                committed = True
                if self._after_commit:
                    self._committed = list(self._after_commit.values())
        finally:
            self._mode = None
            if self._at_commit:
                self._at_commit.clear()
            if self._after_commit:
                self._after_commit.clear()
            if not committed:  # a COMMIT that returned left no transaction open
                self._roll_back()
                if writes:
                    self._undone += 1

    def _roll_back(self) -> None:
        """ROLLBACK if a transaction is still open (a failed COMMIT, or sqlite itself, may have ended it)."""
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    def failure(self, error: Exception, committing: bool = False) -> Optional[Rejection]:
        """Engine: the rejection the driver's failure means (Busy, StorageError), or None if it means none (a
        refused file, a constraint, a misused API); `committing`: it ended a COMMIT."""
        return None if isinstance(error, UnusableFile) else storage_failure(error)

    def _raise_failure(self, error: Exception, committing: bool = False) -> None:
        """Raise the driver's failure as the rejection it means, or as itself if it means none."""
        failure = self.failure(error, committing)
        if failure is None:
            raise error
        raise failure from error

    def _enter_nested(self, writes: bool) -> None:
        """Inside an open transaction: a read shares it; a write opens a SAVEPOINT (never inside a read)."""
        if not writes:
            return
        if self._mode == "read":
            raise RuntimeError("a write cannot start inside a read transaction")
        self.connection.execute(f"SAVEPOINT nested_{self._savepoints + 1}")
        self._savepoints += 1

    def _exit_nested(self, writes: bool, error: Optional[BaseException]) -> None:
        """RELEASE a nested write's SAVEPOINT, or roll back to it alone on error (if the transaction is still
        open: a RAISE(ROLLBACK) or a full disk may have ended it already)."""
        if not writes:
            return
        name = f"nested_{self._savepoints}"
        try:
            if error is None:
                try:
                    self.connection.execute(f"RELEASE {name}")
                except BaseException:
                    self._undo_savepoint(name)
                    raise
            else:
                self._undo_savepoint(name)
        finally:
            self._savepoints -= 1

    def _undo_savepoint(self, name: str) -> None:
        self._undone += 1
        if self.connection.in_transaction:
            self.connection.execute(f"ROLLBACK TO {name}")
            self.connection.execute(f"RELEASE {name}")


class Transaction:
    """What Database.write() and Database.read() return: `with` it to hold the database's lock and run a
    transaction (the outermost one), a SAVEPOINT (a write inside a write) or nothing (a read inside either).

    A class of its own rather than a contextlib generator: every tool call opens one, and a generator's
    machinery costs more than the BEGIN and COMMIT themselves in memory.
    """

    __slots__ = ("database", "writes", "nested")

    def __init__(self, database: Database, *, writes: bool) -> None:
        self.database, self.writes, self.nested = database, writes, False

    def __enter__(self) -> sqlite3.Connection:
        database = self.database
        database._lock.acquire()
        try:
            self.nested = database._mode is not None
            if not self.nested:
                database._begin(self.writes)
            elif self.writes:  # a read inside shares the transaction: nothing to open
                database._enter_nested(True)
        except BaseException:
            database._lock.release()
            raise
        return database.connection

    def __exit__(self, kind: Optional[type], error: Optional[BaseException], traceback: Any) -> None:
        database = self.database
        if self.nested:  # only the outermost transaction commits, so only it has after_commit's actions to run
            try:
                if self.writes:
                    database._exit_nested(True, error)
            finally:
                database._lock.release()
            return
        try:
            database._end(self.writes, error)
        finally:
            committed = database._committed
            if committed:
                database._committed = []
            database._lock.release()
        for action in committed:  # after_commit's: the write is in, the lock free
            action()


POSTGRES_SCHEMES = ("postgresql://", "postgres://")  # a location that starts so is a PostgreSQL database's URL


def is_postgres(location: str) -> bool:
    """Whether a store's location is a PostgreSQL URL (else it is a sqlite file, or ":memory:")."""
    return isinstance(location, str) and location.startswith(POSTGRES_SCHEMES)


def shown_location(location: str) -> str:
    """A location as messages and logs may show it: a URL's password left out."""
    if not is_postgres(location):
        return location
    parts = urllib.parse.urlsplit(location)
    if parts.password is None:
        return location
    host = parts.netloc.rsplit("@", 1)[1]
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def identity_of(path: str) -> str:
    """The identity of a store's data (Database.identity): a file's device and inode, which its copies do not
    share and a restart or another process on the same file does; a private memory's, a random token of its own.
    OSError if the file cannot be looked at."""
    if path in MEMORY:
        return "memory:" + secrets.token_hex(16)
    status = os.stat(path)
    return f"sqlite:{status.st_dev}:{status.st_ino}"


def _marks(connection: sqlite3.Connection) -> Tuple[int, int, Set[str]]:
    owner = connection.execute("PRAGMA application_id").fetchone()[0]
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")}
    return owner, version, tables


def _write_ahead(connection: sqlite3.Connection, busy_timeout: float) -> None:
    """PRAGMA journal_mode = WAL, tried again until busy_timeout: on a new file another process is making, sqlite
    answers "locked" at once rather than waiting, as other statements do."""
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def _connect(path: str, busy_timeout: float, read_only: bool) -> sqlite3.Connection:
    """A connection in autocommit mode. A read-only file is opened with mode=ro where a writer keeps its shared
    memory beside it (sqlite then shares it and sees the writer's changes), and as immutable otherwise: sqlite
    then creates no file beside it (which the file's owner might not be able to open after us) and needs none."""
    target = path
    if read_only:
        shared = os.path.exists(path + "-shm")
        target = "file:" + urllib.parse.quote(os.path.abspath(path)) + ("?mode=ro" if shared else "?immutable=1")
    try:
        connection = sqlite3.connect(target, timeout=busy_timeout, isolation_level=None, check_same_thread=False,
                                     uri=read_only)
    except sqlite3.Error as error:
        raise UnusableFile(f"{path} cannot be opened: {error}") from error
    connection.row_factory = sqlite3.Row
    return connection
