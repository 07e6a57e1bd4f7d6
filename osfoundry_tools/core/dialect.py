"""What a store does differently on each engine, for what every store shares: sqlite's ways, which PostgreSQL's
dialect (engines/postgres_database.py) overrides.

Layer: core. A connection names its dialect (`dialect_of`); the statements both engines run alike stay where they
are used.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotations only: idempotency.py imports this module
    from osfoundry_tools.core.idempotency import KeyScope


# ---------------------------------------------------------------------------
# What differs between engines, for what every store shares.

KEY_LOOKUP = ("SELECT fingerprint, result FROM idempotency_keys WHERE caller = ? AND tool = ? AND resource_id = ? "
              "AND key = ?")
KEY_STORE = ("INSERT INTO idempotency_keys (caller, tool, resource_id, key, fingerprint, result, created_at) "
             "VALUES (?, ?, ?, ?, ?, ?, ?)")
EVENT_APPEND = ("INSERT INTO events (resource_id, sequence, type, subject_id, version) "
                "SELECT ?, COALESCE(MAX(sequence), 0) + 1, ?, ?, ? FROM events WHERE resource_id = ?")


class Dialect:
    """The few things a store does differently on each engine: numbering new rows, holding an idempotency key,
    appending an event, and making creations safe. This class is sqlite's, where BEGIN IMMEDIATE lets one writer
    in at a time, so a read followed by a write can never be raced; postgres_database.py holds PostgreSQL's, where
    writers on different resources run at once. A connection names its dialect (dialect_of); the statements both
    engines run alike stay in the stores.
    """

    name = "sqlite"
    row_lock = ""  # what a person's save adds to the SELECT of the row it changes, to hold it until COMMIT
    share_lock = ""  # what a write adds to the SELECT of rows it relies on, so that none is deleted before COMMIT

    def next_number(self, connection: Any, table: str) -> int:
        """A new row's number in `table` (a store's table with a `number` column): one past the largest."""
        return connection.execute(f"SELECT COALESCE(MAX(number), 0) + 1 FROM {table}").fetchone()[0]

    def serialize_creation(self, connection: Any) -> None:
        """Before a person's create checks that an ID is free: nothing to do, writers already take turns."""

    def claim_key(self, connection: Any, scope: "KeyScope", key: str, digest: str, created_at: str) -> Any:
        """The row (fingerprint, result) stored for this key, or None when the key is this transaction's to keep."""
        return connection.execute(KEY_LOOKUP, (scope.caller, scope.tool, scope.resource_id, key)).fetchone()

    def keep_key(self, connection: Any, scope: "KeyScope", key: str, digest: str, result: str, created_at: str) -> None:
        """Store the first result of a key claim_key gave this transaction."""
        connection.execute(KEY_STORE, (scope.caller, scope.tool, scope.resource_id, key, digest, result, created_at))

    def append_event(self, connection: Any, resource_id: str, event_type: str, subject_id: str,
                     version: Any) -> None:
        """The resource's next event: one past its last, gap-free and in commit order because writers take turns."""
        connection.execute(EVENT_APPEND, (resource_id, event_type, subject_id, version, resource_id))


SQLITE = Dialect()


def dialect_of(connection: Any) -> Dialect:
    """The dialect of a store's connection: its own `dialect`, or sqlite's for a sqlite3 connection."""
    return getattr(connection, "dialect", SQLITE)
