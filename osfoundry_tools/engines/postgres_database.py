"""A store's database on PostgreSQL: the same transactions, marks and promises as database.py's sqlite file, and
every statement that PostgreSQL needs written differently for what every store shares, in this one module.

Layer: engines, beside database.py (whose Database it extends), below opening.py and the stores. It is imported
only when a store is opened on a postgresql:// URL, and it imports the driver, psycopg 3 (the ecosystem's
standard), only then. The stores' own SQL is written once, in sqlite's words ('?' and ':name' parameters); a
PostgresConnection runs it with psycopg's. Each store declares its PostgreSQL tables itself (its Layout's
postgres_schema and postgres_upgrades; the knowledge-base store's search is kb_search.py's). What differs is here:

  tables        each store keeps its tables in a schema of its own (osfoundry_knowledge_base,
                osfoundry_record_channel), so both stores may share one database; the schema's store_marks row
                plays PRAGMA application_id and user_version
  isolation     a write is READ COMMITTED, and every rule is a row lock or a unique index that holds at that level
                (below); a read is REPEATABLE READ, READ ONLY: one snapshot, as a sqlite read, taken at its
                first statement, so it sees every transaction committed before it, on whichever connection
                (a server's reads run on readers of their own: Database.reader)
  compare-and-swap  UPDATE ... WHERE number = ? AND version = ?: the row count decides. A writer that finds the
                row locked waits; when the other commits, PostgreSQL reads the row again and the version no longer
                matches, so the count is 0 and the agent gets version_conflict
  event log     a counter row per resource (event_heads), taken with a row lock until COMMIT: the next writer of
                the same resource waits, so sequences are gap-free and in commit order. A SEQUENCE would not do:
                it hands out numbers at once, so a later number can commit first and a poller that saw it skips
                the earlier one for ever, and a rolled-back number is a gap
  idempotency   the key is claimed first, with INSERT ... ON CONFLICT DO NOTHING on the table's primary key: a
                second client with the same key waits on the first's claim and then reads its committed result
                (replay), or claims the key itself if the first rolled back. One execution either way
  numbering     new rows take their numbers from a SEQUENCE per table (gaps there harm nothing); people's
                creates take one advisory lock per store, so an ID checked free stays free
  durability    "full": synchronous_commit on; "normal": off (a crash of the server may lose the last commits,
                never corrupts)
  failures      a lock held past the busy timeout, a deadlock or a race the statement could not see is Busy; a
                lost connection is StorageError (at COMMIT: the edit may have been saved, so the same key)

Writers on different resources no longer wait for each other: only two writes of one resource meet, at its event
counter, and only for the moments between their event and their COMMIT.
"""

import functools
import json
import re
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from osfoundry_tools.core.dialect import KEY_LOOKUP, Dialect
from osfoundry_tools.core.idempotency import KeyScope
from osfoundry_tools.core.rejections import Busy, Rejection, StorageError
from osfoundry_tools.engines.database import (
    BUSY_TIMEOUT_SECONDS, DURABILITY, DURABILITY_DEFAULT, Database, Layout, UnusableFile, shown_location,
)

DRIVER = "psycopg"
INSTALL = "pip install 'psycopg[binary]'"
SYNCHRONOUS_COMMIT = {"full": "on", "normal": "off"}


def driver() -> Any:
    """psycopg, imported now; UnusableFile in one line, saying what to install, where it is missing."""
    try:
        import psycopg
    except ImportError:
        raise UnusableFile(f"a postgresql:// database needs the {DRIVER} driver (psycopg 3), which is not installed: "
                           f"{INSTALL}") from None
    return psycopg


# ---------------------------------------------------------------------------
# The stores' tables on PostgreSQL: the same columns as their sqlite schemas, in PostgreSQL's types.

SHARED_SCHEMA = """
CREATE TABLE IF NOT EXISTS store_marks (
    application_id BIGINT  NOT NULL,  -- which store's schema this is, as PRAGMA application_id marks a sqlite file
    version        INTEGER NOT NULL   -- the schema version, as PRAGMA user_version
);
CREATE TABLE IF NOT EXISTS events (
    resource_id TEXT   NOT NULL,
    sequence    BIGINT NOT NULL,
    type        TEXT   NOT NULL,
    subject_id  TEXT   NOT NULL,
    version     JSONB  NOT NULL,  -- text or integer, as the store keeps it
    PRIMARY KEY (resource_id, sequence)
);
CREATE TABLE IF NOT EXISTS event_heads (
    resource_id   TEXT   PRIMARY KEY,
    last_sequence BIGINT NOT NULL     -- the resource's last event: its row lock orders the resource's writers
);
CREATE TABLE IF NOT EXISTS idempotency_keys (
    caller      TEXT NOT NULL,
    tool        TEXT NOT NULL,
    resource_id TEXT NOT NULL,
    key         TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    result      TEXT NOT NULL,   -- '' while the claiming transaction runs: no other transaction ever sees it so
    created_at  TEXT NOT NULL,
    PRIMARY KEY (caller, tool, resource_id, key)
);
"""

def schema_of(layout: Layout) -> str:
    """The PostgreSQL schema (namespace) a store keeps its tables in."""
    return "osfoundry_" + layout.name.replace("-", "_")


# ---------------------------------------------------------------------------
# The statements that differ, as the stores and the core ask for them (dialect.Dialect).

EVENT_APPEND = (
    "WITH head AS (INSERT INTO event_heads (resource_id, last_sequence) VALUES (?, 1) ON CONFLICT (resource_id) "
    "DO UPDATE SET last_sequence = event_heads.last_sequence + 1 RETURNING last_sequence) "
    "INSERT INTO events (resource_id, sequence, type, subject_id, version) "
    "SELECT ?, last_sequence, ?, ?, CAST(? AS JSONB) FROM head")
KEY_CLAIM = ("INSERT INTO idempotency_keys (caller, tool, resource_id, key, fingerprint, result, created_at) "
             "VALUES (?, ?, ?, ?, ?, '', ?) ON CONFLICT DO NOTHING")
KEY_KEEP = "UPDATE idempotency_keys SET result = ? WHERE caller = ? AND tool = ? AND resource_id = ? AND key = ?"


class PostgresDialect(Dialect):
    """PostgreSQL's ways, for writers that run at once (see the module's docstring)."""

    name = "postgresql"
    row_lock = " FOR UPDATE"
    share_lock = " FOR SHARE"

    def next_number(self, connection: Any, table: str) -> int:
        return connection.execute(f"SELECT nextval('{table}_number')").fetchone()[0]

    def serialize_creation(self, connection: Any) -> None:
        connection.execute("SELECT pg_advisory_xact_lock(?)", (connection.creation_lock,))

    def claim_key(self, connection: Any, scope: KeyScope, key: str, digest: str, created_at: str) -> Any:
        claimed = connection.execute(KEY_CLAIM, (scope.caller, scope.tool, scope.resource_id, key, digest,
                                                 created_at)).rowcount
        if claimed == 1:
            return None
        return connection.execute(KEY_LOOKUP, (scope.caller, scope.tool, scope.resource_id, key)).fetchone()

    def keep_key(self, connection: Any, scope: KeyScope, key: str, digest: str, result: str, created_at: str) -> None:
        connection.execute(KEY_KEEP, (result, scope.caller, scope.tool, scope.resource_id, key))

    def append_event(self, connection: Any, resource_id: str, event_type: str, subject_id: str,
                     version: Any) -> None:
        connection.execute(EVENT_APPEND, (resource_id, resource_id, event_type, subject_id, json.dumps(version)))


POSTGRES = PostgresDialect()


# ---------------------------------------------------------------------------
# The connection: the stores' statements, run with psycopg.

_PLACEHOLDER = re.compile(r"%|\?|(?<![:\w]):([A-Za-z_]\w*)")


@functools.lru_cache(maxsize=1024)
def translated(statement: str) -> str:
    """A statement in sqlite's parameters ('?', ':name') in psycopg's ('%s', '%(name)s'), '%' kept as itself.

    >>> translated("SELECT * FROM t WHERE a = ? AND b LIKE 'x%' AND c = :c AND d = CAST(? AS JSONB)")
    "SELECT * FROM t WHERE a = %s AND b LIKE 'x%%' AND c = %(c)s AND d = CAST(%s AS JSONB)"
    """
    def replace(found: "re.Match[str]") -> str:
        if found.group(0) == "%":
            return "%%"
        return "%s" if found.group(0) == "?" else f"%({found.group(1)})s"
    return _PLACEHOLDER.sub(replace, statement)


class Row(tuple):
    """A result row read by position or by column name, as sqlite3.Row is."""

    __slots__ = ()
    names: Dict[str, int] = {}

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self.names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> List[str]:
        return list(self.names)


@functools.lru_cache(maxsize=256)
def _row_class(names: Tuple[str, ...]) -> type:
    return type("Row", (Row,), {"__slots__": (), "names": {name: at for at, name in enumerate(names)}})


def _rows(cursor: Any) -> Callable[[Sequence[Any]], Any]:
    """psycopg's row factory: Rows for a statement's columns."""
    description = cursor.description
    if description is None:
        return tuple
    return _row_class(tuple(column.name for column in description))


_IDLE: List[Any] = []  # psycopg's TransactionStatus.IDLE, once the driver is imported


class PostgresConnection:
    """A psycopg connection in autocommit mode (transactions are opened by BEGIN, as on sqlite) that runs the
    stores' statements: execute, executemany and rowcount as sqlite3's."""

    dialect = POSTGRES

    def __init__(self, raw: Any, creation_lock: int) -> None:
        self.raw, self.creation_lock = raw, creation_lock
        _IDLE[:] = [driver().pq.TransactionStatus.IDLE]

    def execute(self, statement: str, parameters: Any = ()) -> Any:
        cursor = self.raw.cursor()
        cursor.execute(translated(statement), parameters)
        return cursor

    def executemany(self, statement: str, rows: Iterable[Sequence[Any]]) -> Any:
        cursor = self.raw.cursor()
        cursor.executemany(translated(statement), list(rows))
        return cursor

    def cursor(self) -> "PostgresConnection":
        """What record_store's plain-tuple cursor gets: Rows are tuples already."""
        return self

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != _IDLE[0]

    def close(self) -> None:
        self.raw.close()


# ---------------------------------------------------------------------------
# The database: marks, transactions, failures.


class PostgresDatabase(Database):
    """A store's schema in a PostgreSQL database, served like a sqlite file (database.Database)."""

    connection: Any  # a PostgresConnection
    BEGIN = {True: "BEGIN ISOLATION LEVEL READ COMMITTED", False: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"}
    READERS = 4  # a read here is mostly waiting for the server (four or more round trips), which readers overlap:
    # with one, a store's reads would take turns at its round trips. On this machine's own loopback cluster, 1, 2,
    # 4 and 8 served 16 clients alike (the driver's Python is the bound there); a server across a network waits
    # longer per read. Each server process holds 2 + 2 x READERS connections

    def __init__(self, url: str, layout: Layout, *, busy_timeout: float = BUSY_TIMEOUT_SECONDS,
                 durability: str = DURABILITY_DEFAULT, read_only: Optional[bool] = None) -> None:
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {', '.join(DURABILITY)}, not {durability!r}")
        if not layout.postgres_schema:
            raise UnusableFile(f"the {layout.name} store has no PostgreSQL tables; serve it from a sqlite file")
        psycopg = driver()
        self.ENGINE_ERROR = psycopg.Error
        self.path, self.layout, self.durability = url, layout, durability
        self.read_only = bool(read_only)
        self.busy_timeout, self.schema = busy_timeout, schema_of(layout)
        self._start_afresh()
        self.connection = self._connect()
        try:
            self._make()
            self.identity = self._identity()
        except (psycopg.Error, Rejection) as error:  # no right to create the schema, a server going away ...
            self.connection.close()
            raise UnusableFile(f"{shown_location(url)} cannot be opened as a {layout.name} store: "
                               f"{_first_line(error)}") from error
        except BaseException:
            self.connection.close()
            raise

    def _start_afresh(self) -> None:
        super()._start_afresh()
        self._derived_undone: Optional[int] = None  # _undone when _derived was last valid

    def _identity(self) -> str:
        """What tells this store's data from a copy of it, from what any user may read: the cluster's system
        identifier where this user may read it (pg_control_system), the server's port, and the OIDs of the
        database and of the store's schema, which a copy made by pg_dump or CREATE DATABASE ... TEMPLATE does not
        keep."""
        with self.read() as connection:
            row = connection.execute(
                "SELECT coalesce(inet_server_port(), 0), d.oid, n.oid FROM pg_database d, pg_namespace n "
                "WHERE d.datname = current_database() AND n.nspname = ?", (self.schema,)).fetchone()
        try:
            with self.read() as connection:
                cluster = connection.execute("SELECT system_identifier FROM pg_control_system()").fetchone()[0]
        except (Rejection, self.ENGINE_ERROR):  # not granted to this user (superusers and pg_monitor are): the rest do
            cluster = "?"
        return f"postgresql:{cluster}:{row[0]}:{row[1]}:{row[2]}"

    def _reader_connection(self) -> PostgresConnection:
        """A reader's connection: its reads begin REPEATABLE READ, READ ONLY, as every read here does."""
        return self._connect()

    def _connect(self) -> PostgresConnection:
        psycopg = driver()
        try:
            raw = psycopg.connect(self.path, autocommit=True, row_factory=_rows, application_name="osfoundry")
        except psycopg.Error as error:
            raise UnusableFile(f"{shown_location(self.path)} cannot be opened: {_first_line(error)}") from error
        raw.execute(f"SET search_path TO {self.schema}")
        raw.execute(f"SET lock_timeout = {int(self.busy_timeout * 1000)}")
        raw.execute(f"SET synchronous_commit = {SYNCHRONOUS_COMMIT[self.durability]}")
        return PostgresConnection(raw, self.layout.application_id)

    def _make(self) -> None:
        """Refuse a newer or another store's schema; else, in one write and one store opening at a time, create
        what is missing and mark it (a read-only store only reads the marks)."""
        layout, schema = self.layout, self.schema
        if self.read_only:
            with self.read() as connection:
                marks = self._marks(connection)
            if not marks:
                raise UnusableFile(f"{shown_location(self.path)} holds no {layout.name} store yet, and it was opened "
                                   "read-only; open it once to write, or give another database")
            self._decide_marks(marks)
            return
        with self.write() as connection:
            connection.execute("SELECT pg_advisory_xact_lock(?)", (layout.application_id,))
            marks = self._marks(connection)
            if marks:
                self._decide_marks(marks, connection)
                return
            connection.execute(f"CREATE SCHEMA IF NOT EXISTS {schema}")
            for statement in _statements(SHARED_SCHEMA + layout.postgres_schema):
                connection.execute(statement)
            connection.execute("INSERT INTO store_marks (application_id, version) VALUES (?, ?)",
                               (layout.application_id, layout.version))

    def _marks(self, connection: Any) -> List[Any]:
        """The schema's store_marks rows; none where the schema is missing or empty; UnusableFile for a schema that
        holds tables but no marks (someone else's, which this store will not write into)."""
        found = connection.execute("SELECT to_regclass(?) IS NOT NULL", (f"{self.schema}.store_marks",)).fetchone()
        if found[0]:
            return connection.execute("SELECT application_id, version FROM store_marks").fetchall()
        (tables,) = connection.execute("SELECT count(*) FROM information_schema.tables WHERE table_schema = ?",
                                       (self.schema,)).fetchone()
        if tables:
            raise UnusableFile(f"{shown_location(self.path)}: schema {self.schema} holds tables this store did not "
                               f"make; give the {self.layout.name} store a database without that schema")
        return []

    def _decide_marks(self, marks: List[Any], writing: Optional[Any] = None) -> None:
        """Refuse another store's or a newer schema; upgrade an older one in `writing` (the opening write, holding
        the store's advisory lock), or refuse it when opened read-only."""
        (owner, version), layout, where = marks[0], self.layout, shown_location(self.path)
        if owner != layout.application_id:
            raise UnusableFile(f"{where}: schema {self.schema} is not a {layout.name} store's; give the store a "
                               "database or schema of its own")
        if version > layout.version:
            raise UnusableFile(f"{where} was written by a newer version of this {layout.name} store (schema "
                               f"{version}, this one knows {layout.version}); use the newer version")
        if version < layout.version:
            self._upgrade(version, writing)

    def _upgrade(self, version: int, writing: Optional[Any]) -> None:
        """The schema brought from `version` to the layout's, step by step (the layout's postgres_upgrades), and
        marked so."""
        layout, where = self.layout, shown_location(self.path)
        steps = range(version, layout.version)
        if any(step not in layout.postgres_upgrades for step in steps):
            raise UnusableFile(f"{where}: no upgrade of the {layout.name} schema from version {version} on "
                               "PostgreSQL")
        if writing is None:
            raise UnusableFile(f"{where} holds the {layout.name} schema {version}, which opening it to write "
                               f"upgrades to {layout.version}; open it once without read-only")
        for step in steps:
            for statement in _statements(layout.postgres_upgrades[step]):
                writing.execute(statement)
            if step in layout.data_upgrades:
                layout.data_upgrades[step](writing)
        writing.execute("UPDATE store_marks SET version = ?", (layout.version,))

    def _roll_back(self) -> None:
        if not self.connection.raw.broken:  # a lost connection has rolled back on the server already
            super()._roll_back()

    def _begin(self, writes: bool) -> None:
        if self.connection.raw.broken or self.connection.raw.closed:  # the server restarted, a network blip
            try:
                self.connection = self._connect()
            except UnusableFile as error:
                raise StorageError(f"the database cannot be reached ({error}); nothing was saved. Send the same call "
                                   "again, with the same idempotency_key, once it is back.") from error
        super()._begin(writes)

    def derived(self) -> Dict[Any, Any]:
        """What Database.derived keeps: rows only ever added, here forgotten only when a write of this connection
        rolls back (other servers add rows, never change the ones kept)."""
        if self._derived_undone != self._undone:
            self._derived.clear()
            self._derived_undone = self._undone
        return self._derived

    def copy_to(self, other: Database) -> None:
        raise UnusableFile("a PostgreSQL store is copied with pg_dump, not by the store")

    def failure(self, error: Exception, committing: bool = False) -> Optional[Rejection]:
        errors = driver().errors
        if isinstance(error, UnusableFile):
            return None
        if isinstance(error, (errors.LockNotAvailable, errors.QueryCanceled)):
            return Busy("other writers held what this call needs past the busy timeout; nothing was saved. Wait a "
                        "moment and send the same call again, with the same idempotency_key.")
        if isinstance(error, (errors.SerializationFailure, errors.DeadlockDetected, errors.UniqueViolation)):
            return Busy("another writer changed what this call needed at the same moment; nothing was saved. Send "
                        "the same call again, with the same idempotency_key.")
        if isinstance(error, driver().OperationalError):
            outcome = ("the change may or may not have been saved" if committing else "nothing was saved")
            return StorageError(f"the connection to the database was lost ({_first_line(error)[:120]}); {outcome}. "
                                "Send the same call again, with the same idempotency_key: it saves at most once.")
        return None


def _statements(script: str) -> List[str]:
    return [statement.strip() for statement in script.split(";") if statement.strip()]


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
