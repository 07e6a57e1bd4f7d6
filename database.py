"""One store's sqlite file: the connection, the BEGIN IMMEDIATE helper, and the marks that make the file the store's.

Layer: below kb_store.py and record_store.py, beside plumbing.py (whose rejections and
shared tables it uses). A store describes what its file holds as a `Layout`; `Database`
opens a file for it and either finds it the store's own (marked with the layout's
application_id and schema version), makes a new or empty file so, upgrades a file an
older version wrote, or refuses it with one line: another store's file, a file of
tables it does not know, a newer version's file. Two stores therefore never share a
file, and their event logs never mix. `open_store` is every store's connect(): a
Database for the store's layout, served by the store's class.

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
"""

import contextlib
import dataclasses
import os
import sqlite3
import threading
import time
import urllib.parse
from typing import (
    Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional, Set, Tuple, Type, TypeVar,
)

from plumbing import (
    BUSY_TIMEOUT_SECONDS, DEFAULT_CALLER, EVENT_LOG_SCHEMA, IDEMPOTENCY_SCHEMA, AgentTools, ReadOnly, Rejection,
    storage_failure, wall_clock,
)

DURABILITY = {"full": "FULL", "normal": "NORMAL"}  # durability -> PRAGMA synchronous, on WAL
DURABILITY_DEFAULT = "full"
SHARED_TABLES = frozenset({"events", "idempotency_keys"})  # every store keeps these, from plumbing
MEMORY = (":memory:", "")  # both are private in-memory databases

Upgrade = Callable[[sqlite3.Connection], None]
Store = TypeVar("Store", bound=AgentTools)


class UnusableFile(sqlite3.DatabaseError):
    """A database file this store will not open; the message says why in one line and what to do."""


@dataclasses.dataclass(frozen=True)
class Layout:
    """What a store keeps in its file, and how it knows the file is its own."""

    name: str  # "knowledge-base", as messages name the store
    application_id: int  # PRAGMA application_id of the store's files
    version: int  # PRAGMA user_version this code writes
    schema: str  # the store's CREATE ... IF NOT EXISTS statements (plumbing adds the shared tables)
    tables: FrozenSet[str]  # the store's own tables, FTS shadow tables included
    upgrades: Mapping[int, Upgrade] = dataclasses.field(default_factory=dict)  # n -> from version n to n + 1

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
    """One sqlite connection in autocommit mode whose transactions are opened explicitly."""

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
        self.read_only = read_only
        self.connection = _connect(path, busy_timeout, self.read_only)
        self._lock = threading.RLock()
        self._mode: Optional[str] = None  # None, "read" or "write": the open transaction, if any
        self._savepoints = 0
        try:
            self.connection.execute("PRAGMA foreign_keys = ON")
            self._decide(*self._marks_read())  # before anything is written, so a refused file stays as it was
            if path not in MEMORY and not self.read_only:
                _write_ahead(self.connection, busy_timeout)
                self.connection.execute(f"PRAGMA synchronous = {DURABILITY[durability]}")
            if not self.read_only:
                self._make()
        except BaseException:
            self.connection.close()
            raise

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

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def copy_to(self, other: "Database") -> None:
        """Replace everything in `other` with a consistent copy of this database (sqlite's backup API)."""
        with self._lock:
            self.connection.backup(other.connection)

    @contextlib.contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK and re-raise; nested, a SAVEPOINT.

        sqlite's own failures (busy past the timeout, disk I/O, a full disk) leave the transaction rolled
        back and become the rejections Busy and StorageError, which say that nothing was saved.
        """
        with self._lock:
            if self._mode == "read":
                raise RuntimeError("a write cannot start inside a read transaction")
            if self._mode == "write":
                with self._savepoint() as connection:
                    yield connection
                return
            if self.read_only:
                raise ReadOnly(f"the {self.layout.name} database file is read-only, so nothing can be saved; reads "
                               "still work. Ask a person to make the file writable, then send the same call again.")
            with self._transaction("BEGIN IMMEDIATE", "write", "COMMIT") as connection:
                yield connection

    @contextlib.contextmanager
    def _transaction(self, begin: str, mode: str, end: Optional[str]) -> Iterator[sqlite3.Connection]:
        """begin, the body, `end` (None: roll back, as a read ends); sqlite's own failures become rejections."""
        try:
            self.connection.execute(begin)
        except sqlite3.DatabaseError as error:
            _raise_as_rejection(error)
        self._mode = mode
        try:
            yield self.connection
            if end is not None:
                self.connection.execute(end)
        except sqlite3.DatabaseError as error:
            self._roll_back()
            _raise_as_rejection(error)
        finally:
            self._mode = None
            self._roll_back()

    def _roll_back(self) -> None:
        """ROLLBACK if a transaction is still open (a failed COMMIT, or sqlite itself, may have ended it)."""
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    @contextlib.contextmanager
    def _savepoint(self) -> Iterator[sqlite3.Connection]:
        """A nested write: a SAVEPOINT that rolls back alone on error, if the transaction is still open."""
        self._savepoints += 1
        name = f"nested_{self._savepoints}"
        self.connection.execute(f"SAVEPOINT {name}")
        try:
            yield self.connection
            self.connection.execute(f"RELEASE {name}")
        except BaseException:
            if self.connection.in_transaction:  # a RAISE(ROLLBACK) or a full disk may have ended it already
                self.connection.execute(f"ROLLBACK TO {name}")
                self.connection.execute(f"RELEASE {name}")
            raise
        finally:
            self._savepoints -= 1

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs; inside a write, that write's view."""
        with self._lock:
            if self._mode is not None:
                yield self.connection
                return
            with self._transaction("BEGIN", "read", None) as connection:
                yield connection


def open_store(store: Type[Store], path: str, layout: Layout, *, granted: Optional[Iterable[str]] = None,
               clock: Optional[Callable[[], Any]] = None, caller: str = DEFAULT_CALLER,
               busy_timeout: float = BUSY_TIMEOUT_SECONDS, durability: str = DURABILITY_DEFAULT,
               read_only: Optional[bool] = None, **options: Any) -> Store:
    """What every store's connect() does: open `path` as a `layout` file (busy_timeout, durability and read_only
    as for Database), then serve it as `store` to `caller` with its grant and clock (None: wall_clock).

    `options`: the store's own arguments, passed on as they are. The file is closed again if the store refuses
    its arguments.
    """
    database = Database(path, layout, busy_timeout=busy_timeout, durability=durability, read_only=read_only)
    try:
        return store(database, granted=granted, clock=clock or wall_clock, caller=caller, **options)
    except BaseException:
        database.close()
        raise


def _raise_as_rejection(error: sqlite3.DatabaseError) -> None:
    """Raise sqlite's failure as the rejection it means (Busy, StorageError), or as itself if it means none."""
    failure = None if isinstance(error, UnusableFile) else storage_failure(error)
    if failure is None:
        raise error
    raise failure from error


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
                _raise_as_rejection(error)
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
