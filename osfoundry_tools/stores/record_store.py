"""Record-channel store: osFoundry's record tools for agents (list, read, edit, poll), on sqlite (or PostgreSQL).

Layer: a store. Agents reach it only through `call_tool` (list_record_items,
read_record_item, edit_record_item, poll_resource_events with resource_type
"record"); people reach it through plain methods (create_channel, create_item,
edit_item, delete_item). Names, required arguments, limits, annotations and the
edit tool's securitySchemes are the published ones (docs/record-store.md lists them);
result shapes, previews and validation rules are this reconstruction's own. Field
types and rejections live in record_fields.py; what every store shares, in core/.

Glossary:
  record channel  a table people define: a schema of typed fields and its items
  schema          the channel's fields, returned with every listing page
  item            one row: an ID, a version and its values
  version         an integer, 1 at creation, +1 on every save (people's and agents') and on deletion
  preview         an item in a listing: ID, version and values, text cut at 120 characters (by default)
  cursor          before_id: the ID of the last item of the previous page; a stable position,
                  even if that item was deleted since, so inserts and deletes never shift a page
  rejection       validation_failed: every field that failed (the first 20, then how many more),
                  at the store's rejection detail
  hidden relation a relation field whose related channel this caller was not granted: the schema
                  names no channel and says granted: false, its values read as null, and an edit
                  of it is refused whatever it holds, so nothing about that channel leaks

Events: `created` when people add an item, `updated` on every save, `deleted` when
people delete one; each carries the item's version after it.

    >>> store = connect()
    >>> store.create_channel("bugs", "Bugs", [
    ...     {"key": "ticket", "label": "Ticket", "type": "text", "is_required": True, "is_unique": True},
    ...     {"key": "title", "label": "Title", "type": "text", "is_required": True},
    ...     {"key": "status", "label": "Status", "type": "select", "options": [{"value": "new", "label": "New"}]}])
    >>> store.create_item("bugs", {"ticket": "BUG-1", "title": "Login fails", "status": "new"})
    {'item_id': 'itm-00001', 'version': 1}
"""

import datetime
import functools
import json
import sqlite3
from json.encoder import encode_basestring as _json_text  # a string as JSON, not limited to ASCII
from json.encoder import encode_basestring_ascii as _json_ascii  # a string as JSON in ASCII
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple

from osfoundry_tools.core.agent_tools import AgentTools
from osfoundry_tools.core.checks import (
    ID_CHARACTERS, NAME_CHARACTERS, SQLITE_INTEGER_MAX, checked_id, checked_text, screen,
)
from osfoundry_tools.core.clock import checked_time, format_time
from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.core.events import EventLog
from osfoundry_tools.core.idempotency import (
    IDEMPOTENCY_KEY, canonical_json, digest_of, fingerprint, result_text, upgrade_idempotency_keys,
)
from osfoundry_tools.core.lookalikes import told_apart
from osfoundry_tools.core.numbering import next_id
from osfoundry_tools.core.rejections import Edited, IdTaken, InvalidArguments, NotFound, Rejection, quote, show
from osfoundry_tools.core.tools import (
    DEFAULT_CALLER, READ_ONLY, SHARED_WRITE, WRITE_SCOPE, Tool, integer, object_schema, string,
)
from osfoundry_tools.engines.database import BUSY_TIMEOUT_SECONDS, DURABILITY_DEFAULT, Database, Layout, add_column
from osfoundry_tools.engines.opening import open_store
from osfoundry_tools.stores.record_fields import (
    DETAILS, FIELD_TYPES, LISTED_FAILURES, RELATIONS_MAX, Failure, Field, as_people_read, check_value, formula_days,
    formula_parts, formula_value, missing_relations, not_unique, parse_schema, rejection, ungranted_relation,
    stored_text, unique_key, unknown_field,
)
from osfoundry_tools.stores.item_values import (
    CUT_MARK, KEPT, PREVIEW_CHARACTERS, ItemValues, PreviewSlots, as_text, cut, preview_slots,
)
from osfoundry_tools.stores.resource_events import POLL_RESOURCE_EVENTS

PAGE_LIMIT_DEFAULT = 50
ITEM_MAX_CHARACTERS = 200_000  # an item's stored values, as JSON: what one read of it can weigh
HIDDEN_RELATION_CHARACTERS = 20 + RELATIONS_MAX * (ID_CHARACTERS + 4)  # a relation at its largest, as JSON

# ---------------------------------------------------------------------------
# The tools, as data: listed as is and enforced on every call.

_CHANNEL_ID = string(1, ID_CHARACTERS, "A record channel ID you were granted.")
_ITEM_ID = string(1, ID_CHARACTERS, "An item ID, as list_record_items gives it.")
_VERSION = {"type": "integer", "minimum": 1, "description": "An item's version: 1 when created, +1 on every save."}
_VALUES = {"type": "object", "description": "Field key -> value, one entry per field of the channel's schema."}
_OPTION = object_schema({"value": {"type": "string"}, "label": {"type": "string"}, "color": {"type": "string"}},
                        ["value", "label"])
_FIELD = object_schema({
    "key": {"type": "string"}, "label": {"type": "string"}, "type": {"type": "string", "enum": list(FIELD_TYPES)},
    "is_required": {"type": "boolean"}, "is_unique": {"type": "boolean"},
    "max_length": {"type": "integer"}, "min": {"type": "number"}, "max": {"type": "number"},
    "max_stars": {"type": "integer"}, "options": {"type": "array", "items": _OPTION},
    "related_channel_id": {"type": "string"}, "expression": {"type": "string"},
    "granted": {"type": "boolean", "description": "false on a relation to a channel you were not granted"},
}, ["key", "label", "type", "is_required", "is_unique"])
CHANNEL_SCHEMA = object_schema({
    "record_channel_id": {"type": "string"}, "name": {"type": "string"},
    "fields": {"type": "array", "items": _FIELD},
}, ["record_channel_id", "name", "fields"])
ITEM_SCHEMA = object_schema({"item_id": {"type": "string"}, "version": _VERSION, "values": _VALUES},
                            ["item_id", "version", "values"])

LIST_RECORD_ITEMS = Tool(
    name="list_record_items",
    title="List record items",
    description=(
        "List the schema and a bounded page of item previews from one granted record channel. Use "
        "read_record_item for the complete values. Items come newest first. The schema on every page gives "
        "each field's key, type and rules, and for select fields the allowed option values with their labels: "
        "edits must send option values, never labels. A relation field marked granted: false points to a channel "
        "you were not granted: it reads as null and cannot be written. Previews cut long text, ending it with …. "
        "For the next page pass next_before_id as before_id; null means there is no older item."
    ),
    input_schema=object_schema({
        "record_channel_id": _CHANNEL_ID,
        "before_id": string(1, ID_CHARACTERS,
                            "The next_before_id of the previous page; leave out to start at the newest."),
        "limit": integer(1, 50, "At most this many previews.", default=PAGE_LIMIT_DEFAULT),
    }, ["record_channel_id"]),
    output_schema=object_schema({
        "schema": CHANNEL_SCHEMA,
        "items": {"type": "array", "items": ITEM_SCHEMA},
        "next_before_id": {"anyOf": [{"type": "string"}, {"type": "null"}]},  # anyOf, not a list of types: some
        #                                                                    clients read "type" as one string
    }, ["schema", "items", "next_before_id"]),
    annotations=READ_ONLY,
)

READ_RECORD_ITEM = Tool(
    name="read_record_item",
    title="Read a record item",
    description=(
        "Read one item by ID from a granted record channel and return its current version. Values are complete "
        "(formula fields computed now). Pass the version as expected_version to edit_record_item right after "
        "this read."
    ),
    input_schema=object_schema({"record_channel_id": _CHANNEL_ID, "item_id": _ITEM_ID},
                               ["record_channel_id", "item_id"]),
    output_schema=ITEM_SCHEMA,
    annotations=READ_ONLY,
)

EDIT_RECORD_ITEM = Tool(
    name="edit_record_item",
    title="Edit a record item",
    description=(
        "Update validated fields in one record item. Supply the version from read_record_item; concurrent "
        "changes are rejected. values holds only the fields to change (null clears an optional field); write "
        "option values from the schema that list_record_items returns, never labels. If one field fails, "
        "nothing is saved and the rejection lists every failed field: fix those you can from what it allows, "
        "and ask a person about the rest rather than guessing. On version_conflict, read the item again and "
        "re-apply only what is still needed. Give each intended change its own idempotency_key; resending the "
        "same call with the same key returns the first result (replay: true) and saves nothing twice."
    ),
    input_schema=object_schema({
        "record_channel_id": _CHANNEL_ID,
        "item_id": _ITEM_ID,
        "values": {"type": "object"},
        "expected_version": dict(_VERSION, description="The version from your read_record_item just before."),
        "idempotency_key": IDEMPOTENCY_KEY,
    }, ["record_channel_id", "item_id", "values", "expected_version", "idempotency_key"]),
    output_schema=object_schema({"item_id": {"type": "string"}, "version": _VERSION, "replay": {"type": "boolean"}},
                                ["item_id", "version", "replay"]),
    annotations=SHARED_WRITE,
    security_schemes=({"type": "oauth2", "scopes": [WRITE_SCOPE]},),
)

# ---------------------------------------------------------------------------
# Storage.

SCHEMA = """
CREATE TABLE IF NOT EXISTS channels (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    fields        TEXT NOT NULL,             -- the schema: a JSON list of field definitions
    created_items INTEGER NOT NULL DEFAULT 0 -- numbers its items' IDs: itm-00001, itm-00002 ...
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS items (
    number     INTEGER PRIMARY KEY,   -- creation order: newest first is number descending
    channel_id TEXT    NOT NULL REFERENCES channels (id),
    id         TEXT    NOT NULL,
    version    INTEGER NOT NULL CHECK (version >= 1),
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL,
    deleted_at TEXT,                  -- kept as a tombstone, so a cursor naming it still has a place
    preview    TEXT    NOT NULL,      -- what a listing shows of it, as JSON: see preview_text()
    fields     TEXT    NOT NULL,      -- a JSON object of the set values (formulas are never stored); last, so that
                                      -- no other column is read past a long item's overflow pages
    UNIQUE (channel_id, id)
);
CREATE INDEX IF NOT EXISTS items_by_page ON items (channel_id, number);
CREATE TABLE IF NOT EXISTS unique_values (
    channel_id  TEXT    NOT NULL,
    field_key   TEXT    NOT NULL,
    value       TEXT    NOT NULL,     -- its key, as JSON: record_fields.unique_key
    item_number INTEGER NOT NULL REFERENCES items (number),
    PRIMARY KEY (channel_id, field_key, value)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS unique_values_by_item ON unique_values (item_number);
"""

EDITED = Edited("item", "item_id", "version", READ_RECORD_ITEM.name,
                "check which of your changes are still needed")  # how a version_conflict names what changed
POSTGRES_SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS items_number;
CREATE TABLE IF NOT EXISTS channels (
    id            TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    fields        TEXT NOT NULL,
    created_items BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS items (
    number     BIGINT  PRIMARY KEY,
    channel_id TEXT    NOT NULL REFERENCES channels (id),
    id         TEXT    NOT NULL,
    version    BIGINT  NOT NULL CHECK (version >= 1),
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL,
    deleted_at TEXT,
    preview    TEXT    NOT NULL,
    fields     TEXT    NOT NULL,
    UNIQUE (channel_id, id)
);
CREATE INDEX IF NOT EXISTS items_by_page ON items (channel_id, number);
CREATE TABLE IF NOT EXISTS unique_values (
    channel_id  TEXT   NOT NULL,
    field_key   TEXT   NOT NULL,
    value       TEXT   NOT NULL,
    item_number BIGINT NOT NULL REFERENCES items (number),
    PRIMARY KEY (channel_id, field_key, value)
);
CREATE INDEX IF NOT EXISTS unique_values_by_item ON unique_values (item_number);
"""  # the same tables on PostgreSQL: a sequence numbers the items
ITEMS_COUNTED = ("channels", "created_items")  # where each channel counts the IDs it numbered
SELECT_ITEM = "SELECT * FROM items WHERE channel_id = ? AND id = ?"
SAVED_ITEM = "SELECT number, id, version, deleted_at, fields FROM items WHERE channel_id = ? AND id = ?"
# what a save reads of the row it swaps: no more columns than it uses (a Row of all nine takes longer to make)
UPDATE_ITEM = ("UPDATE items SET fields = ?, preview = ?, version = ?, updated_at = ? "
               "WHERE number = ? AND version = ?")
UNINDEX_ITEM = "DELETE FROM unique_values WHERE item_number = ?"  # a seek by unique_values_by_item, never a scan
_PAGE = "FROM items WHERE channel_id = ? AND number < ? AND deleted_at IS NULL ORDER BY number DESC LIMIT ?"
PAGE = "SELECT id, version, created_at, updated_at, preview " + _PAGE  # a page as its stored previews show it
PAGE_TIMES = {"created_at": 2, "updated_at": 3}  # where PAGE's rows hold an item's times
PAGE_OF_ROWS = "SELECT * " + _PAGE  # a page cut anew, for a store whose previews keep other than PREVIEW_CHARACTERS


class Channel(NamedTuple):
    """A record channel as the store works with it."""

    id: str
    name: str
    fields: Tuple[Field, ...]
    by_key: Mapping[str, Field]
    relations: Tuple[Field, ...] = ()  # the relation fields: the only ones a grant can hide
    unique: Tuple[Field, ...] = ()  # the unique fields: a save that changes one re-indexes the item
    formulas: Tuple[Field, ...] = ()  # the formula fields: computed when an item is shown
    preview_slots: PreviewSlots = PreviewSlots((), ())  # its items' previews, field by field (item_values.py)
    unique_keys: FrozenSet[str] = frozenset()  # the keys of the unique fields
    # the quick tests of the fields a value alone can pass (not a unique one: the stored values judge it too):
    selects: Mapping[str, FrozenSet[str]] = {}  # a select's key -> its option values
    passes: Mapping[str, Callable[[Any], bool]] = {}  # any other field's key -> its Field.passes

    @classmethod
    def of(cls, row: sqlite3.Row) -> "Channel":
        """The channel a row of the channels table holds (its schema parsed once per distinct text)."""
        fields = _fields(row["fields"])
        unique = tuple(f for f in fields if f.is_unique)
        return cls(row["id"], row["name"], fields, _fields_by_key(row["fields"]),
                   tuple(f for f in fields if f.type == "relation"), unique,
                   tuple(f for f in fields if f.type == "formula"), preview_slots(fields),
                   frozenset(f.key for f in unique),
                   {f.key: f.option_values for f in fields if f.type == "select" and not f.is_unique},
                   {f.key: f.passes for f in fields if f.type != "select" and not f.is_unique})

    def field(self, key: str) -> Optional[Field]:
        return self.by_key.get(key)

    def schema(self) -> Dict[str, Any]:
        """The schema as every listing page returns it."""
        return {"record_channel_id": self.id, "name": self.name, "fields": [f.definition() for f in self.fields]}


@functools.lru_cache(maxsize=64)
def _fields(definitions: str) -> Tuple[Field, ...]:
    return parse_schema(json.loads(definitions))


@functools.lru_cache(maxsize=64)
def _fields_by_key(definitions: str) -> Mapping[str, Field]:
    return {field.key: field for field in _fields(definitions)}


class ValidationFailed(Rejection):
    """An edit with at least one field that fails; the result is the rejection at the store's detail."""

    code = "validation_failed"

    def __init__(self, failures: Sequence[Failure], detail: str) -> None:
        super().__init__("; ".join(f.message for f in failures[:LISTED_FAILURES]))
        self.failures = list(failures)
        self.detail = detail

    def as_result(self) -> Dict[str, Any]:
        return rejection(self.failures, self.detail)


class InvalidValues(ValueError):
    """A person's create or edit with values that fail; `failures` lists them (the people's side raises)."""

    def __init__(self, failures: Sequence[Failure]) -> None:
        super().__init__("; ".join(f.message for f in failures))
        self.failures = list(failures)


def _upgrade_from_1(connection: sqlite3.Connection) -> None:
    """Schema 1 (files from before the marks) to 2: idempotency keys gain a caller and a channel."""
    def channel_of(result: Dict[str, Any]) -> Optional[str]:
        rows = connection.execute("SELECT channel_id FROM items WHERE id = ?", (result.get("item_id"),)).fetchall()
        return rows[0]["channel_id"] if len(rows) == 1 else None
    upgrade_idempotency_keys(connection, channel_of)


def _upgrade_from_2(connection: sqlite3.Connection) -> None:
    """Schema 2 to 3: each channel numbers its own items. The counters start past every item number so far,
    which numbered the IDs of the whole file, so no new ID meets an old one."""
    add_column(connection, "channels", "created_items", "INTEGER NOT NULL DEFAULT 0")
    connection.execute("UPDATE channels SET created_items = (SELECT COALESCE(MAX(number), 0) FROM items)")


def stored_channels(connection: sqlite3.Connection) -> Dict[str, "Channel"]:
    """Every channel of the file, by ID, as its row reads (for an upgrade)."""
    return {row["id"]: Channel.of(row) for row in connection.execute("SELECT * FROM channels")}


def _upgrade_from_3(connection: sqlite3.Connection) -> None:
    """Schema 3 to 4: each item keeps its preview, so that a listing page decodes a few hundred characters per item
    instead of its whole values, and cuts nothing."""
    if not add_column(connection, "items", "preview", "TEXT NOT NULL DEFAULT ''"):
        return
    channels = stored_channels(connection)
    for number, channel_id, fields in connection.execute("SELECT number, channel_id, fields FROM items").fetchall():
        connection.execute("UPDATE items SET preview = ? WHERE number = ?",
                           (preview_text(channels[channel_id], json.loads(fields)), number))


def _upgrade_from_4(connection: sqlite3.Connection) -> None:
    """Schema 4 to 5: every unique value held again under its key (record_fields.unique_key), which is now the
    same for every spelling of one value ("é" composed or not, an email address in any case). Where two live items
    held two spellings of one value, the older keeps the claim; the newer keeps its value, and a save that sends
    it that value again is refused as not unique, naming the older."""
    channels = stored_channels(connection)
    connection.execute("DELETE FROM unique_values")
    for number, channel_id, fields in connection.execute(
            "SELECT number, channel_id, fields FROM items WHERE deleted_at IS NULL ORDER BY number").fetchall():
        if channels[channel_id].unique:
            connection.executemany(INDEX_UNIQUE, unique_rows(channels[channel_id], number, json.loads(fields)))


LAYOUT = Layout(name="record-channel", application_id=0x4F53_5243, version=5, schema=SCHEMA,  # "OSRC"
                tables=frozenset({"channels", "items", "unique_values"}),
                upgrades={1: _upgrade_from_1, 2: _upgrade_from_2, 3: _upgrade_from_3, 4: _upgrade_from_4},
                data_upgrades={4: _upgrade_from_4}, postgres_schema=POSTGRES_SCHEMA, postgres_upgrades={4: ""})


def connect(path: str = ":memory:", *, granted: Optional[Iterable[str]] = None,
            scopes: Iterable[str] = (WRITE_SCOPE,), rejection_detail: str = "labels",
            clock: Optional[Callable[[], Any]] = None, caller: str = DEFAULT_CALLER,
            durability: str = DURABILITY_DEFAULT, read_only: Optional[bool] = None,
            busy_timeout: float = BUSY_TIMEOUT_SECONDS,
            preview_characters: int = PREVIEW_CHARACTERS) -> "RecordStore":
    """Open a record store on `path`: ":memory:", a file several processes may share, or a postgresql:// URL
    several machines may share (README, "Beyond one machine").

    granted: the record-channel IDs this caller may use (None: all); scopes: the OAuth scopes it holds;
    caller: whose idempotency keys these are; rejection_detail: how much a validation rejection says, one of
    terse, field, values, labels; durability: "full" or "normal" (see database.py); preview_characters:
    where a listing cuts long text; read_only as for kb_store.connect. A file another store or a newer version
    wrote is refused with database.UnusableFile.
    """
    return open_store(RecordStore, path, LAYOUT, busy_timeout=busy_timeout, durability=durability,
                      read_only=read_only, clock=clock, granted=granted, scopes=scopes,
                      rejection_detail=rejection_detail, caller=caller, preview_characters=preview_characters)


class RecordStore(AgentTools):
    """Record channels and their items: agent tools through call_tool, people's actions as methods."""

    TOOLS: Tuple[Tool, ...] = (LIST_RECORD_ITEMS, READ_RECORD_ITEM, EDIT_RECORD_ITEM, POLL_RESOURCE_EVENTS)
    RESOURCE_TYPE = "record"
    GRANT_KEY = "channels"  # a token file lists the channels a grant allows under this key
    EVENTS = EventLog(subject_key="item_id", version_key="version")

    def __init__(self, database: Database, *, granted: Optional[Iterable[str]], scopes: Iterable[str],
                 rejection_detail: str, clock: Callable[[], Any], caller: str = DEFAULT_CALLER,
                 preview_characters: int = PREVIEW_CHARACTERS) -> None:
        super().__init__(database, granted=granted, clock=clock, caller=caller, scopes=scopes)
        if rejection_detail not in DETAILS:
            raise ValueError(f"rejection_detail must be one of {', '.join(DETAILS)}, not {rejection_detail!r}")
        self.rejection_detail = rejection_detail
        if preview_characters <= len(CUT_MARK):
            raise ValueError(f"preview_characters must exceed {len(CUT_MARK)}, not {preview_characters!r}")
        self.preview_characters = preview_characters

    # -- the agent side ------------------------------------------------------

    def _tool_list_record_items(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        limit = arguments.get("limit", PAGE_LIMIT_DEFAULT)
        kept = self.preview_characters == PREVIEW_CHARACTERS  # whether the stored previews are this store's
        with self.database.read() as connection:
            channel = self._granted_channel(connection, arguments["record_channel_id"])
            start = self._cursor(connection, channel, arguments.get("before_id"))
            rows = (_tuples(connection) if kept else connection).execute(
                PAGE if kept else PAGE_OF_ROWS, (channel.id, start, limit + 1)).fetchall()
            now = self.clock()
        if kept:
            items = self._previews(channel, rows[:limit], now)
        else:
            items = [self._shown(channel, row, now, preview=True) for row in rows[:limit]]
        more = len(rows) > limit
        return {"schema": self._schema_seen(channel), "items": items,
                "next_before_id": items[-1]["item_id"] if more else None}

    def _tool_read_record_item(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        with self.database.read() as connection:
            channel = self._granted_channel(connection, arguments["record_channel_id"])
            row = self._live_item(connection, channel, arguments["item_id"])
            now = self.clock()
        return self._shown(channel, row, now, preview=False)

    def _tool_edit_record_item(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        return self.keyed_edit(EDIT_RECORD_ITEM, arguments["record_channel_id"], arguments, self._editable_channel,
                               self._compare_and_swap, _fingerprint_with_values(arguments), _result_text)

    def _editable_channel(self, arguments: Dict[str, Any], connection: sqlite3.Connection) -> Channel:
        """The channel an edit names, if granted, and no value sent for a relation this caller may not see: refused
        before the key is looked up, so that a replay cannot tell which hidden value was sent before."""
        channel = self._granted_channel(connection, arguments["record_channel_id"])
        if channel.relations and self.granted is not None:  # else no relation can be hidden
            hidden = [field for field in self._hidden_fields(channel) if field.key in arguments["values"]]
            if hidden:
                raise ValidationFailed([ungranted_relation(field) for field in hidden], self.rejection_detail)
        return channel

    def _compare_and_swap(self, arguments: Dict[str, Any], connection: sqlite3.Connection, channel: Channel,
                          now: datetime.datetime, stamp: str) -> Dict[str, Any]:
        row = self._live_item(connection, channel, arguments["item_id"], SAVED_ITEM)
        number, item_id, version = row[0], row[1], row[2]  # SAVED_ITEM's columns, by place: quicker than by name
        if version != arguments["expected_version"]:
            raise EDITED.conflict(item_id, arguments["expected_version"])
        values = arguments["values"]
        failures = self._validate(connection, channel, values, number, agent=True)
        if failures:
            raise ValidationFailed(failures, self.rejection_detail)
        saved = KEPT.values_of(row[4], (id(self.database), number)).changed(values)
        return {"item_id": item_id,
                "version": self._save(connection, channel, row, saved, self._agent_text(channel, saved), stamp, values)}

    def _as_people_see(self, name: str, arguments: Any) -> Optional[Dict[str, Any]]:
        """An edit's item as a person reads it (agent_tools.Preview's subject): each field this caller may see, by
        label (followed by its key while that name reads like another field's, lookalikes.told_apart: unique in
        the end, as keys are), options by their labels; formulas left out (they change with the clock, not with
        an edit)."""
        if name != EDIT_RECORD_ITEM.name or not isinstance(arguments, dict):
            return None
        channel_id, item_id = arguments.get("record_channel_id"), arguments.get("item_id")
        if not isinstance(channel_id, str) or not isinstance(item_id, str):
            return None
        try:
            with self.database.read() as connection:
                channel = self._granted_channel(connection, channel_id)
                stored = json.loads(self._live_item(connection, channel, item_id)["fields"])
        except Rejection:
            return None
        shown = [field for field in channel.fields if field.type != "formula" and not self._hidden(field)]
        texts = sorted((field for field in shown if field.type == "text" and stored.get(field.key)),
                       key=lambda field: field.key not in ("title", "name"))  # a field named so first
        titles = [stored[field.key] for field in texts]
        named = told_apart([field.label for field in shown], [field.key for field in shown])
        return {"kind": "item", "id": item_id, "where": channel.id, "title": titles[0] if titles else item_id,
                "fields": [[name, as_people_read(field, stored.get(field.key)), stored_text(stored.get(field.key))]
                           for name, field in zip(named, shown)]}

    def _granted_log(self, connection: sqlite3.Connection, channel_id: str) -> str:
        """A record channel's event log is kept under its ID (once it exists and is granted)."""
        return self._granted_channel(connection, channel_id).id

    def _granted_channel(self, connection: sqlite3.Connection, channel_id: str) -> Channel:
        """The channel if it exists and is granted; NotFound, worded alike, for both failures."""
        granted = self.granted  # as is_granted reads it, without its call
        channel = self._stored_channel(connection, channel_id) if granted is None or channel_id in granted else None
        if channel is None:
            raise NotFound(f"record channel {quote(channel_id)} was not found among the record channels "
                           "granted to you. Check the record_channel_id; IDs are case-sensitive.")
        return channel

    def _stored_channel(self, connection: sqlite3.Connection, channel_id: str) -> Optional[Channel]:
        """The channel of this ID, or None. A channel's row is never changed once written (its item counter aside,
        which Channel leaves out), so it is read once and kept in the database's derived() dict, which forgets it
        whenever the file may have changed under it."""
        kept = self.database.derived()
        channel = kept.get(("channel", channel_id))
        if channel is None:
            row = connection.execute("SELECT * FROM channels WHERE id = ?", (channel_id,)).fetchone()
            if row is None:
                return None
            channel = kept[("channel", channel_id)] = Channel.of(row)
        return channel

    @staticmethod
    def _live_item(connection: sqlite3.Connection, channel: Channel, item_id: str, select: str = SELECT_ITEM,
                   lock: bool = False) -> sqlite3.Row:
        """The item unless deleted (`select`: SAVED_ITEM for a save, which needs no more of the row; `lock`: held
        until COMMIT, for a person's save); NotFound otherwise."""
        statement = select + dialect_of(connection).row_lock if lock else select
        row = connection.execute(statement, (channel.id, item_id)).fetchone()
        if row is None or row["deleted_at"] is not None:
            raise NotFound(f"item {quote(item_id)} was not found in record channel "
                           f"{json.dumps(channel.id)}. Use list_record_items to find current items.")
        return row

    @staticmethod
    def _cursor(connection: sqlite3.Connection, channel: Channel, before_id: Optional[str]) -> int:
        """The position before_id names (deleted items keep theirs); past every item for the first page."""
        if before_id is None:
            return SQLITE_INTEGER_MAX
        row = connection.execute(SELECT_ITEM, (channel.id, before_id)).fetchone()
        if row is None:
            raise InvalidArguments(
                f"before_id {quote(before_id)} is not an item of record channel {json.dumps(channel.id)}; "
                "pass the next_before_id of the previous page unchanged, or leave before_id out to start at the "
                "newest item.", argument="before_id", rule="cursor", got=show(before_id))
        return row["number"]

    def _shown(self, channel: Channel, row: sqlite3.Row, now: Any, *, preview: bool) -> Dict[str, Any]:
        """An item as agents see it: every field in schema order, formulas computed, unset and hidden ones null."""
        stored = json.loads(row["fields"])
        times = _times(row)
        values = {}
        for field in channel.fields:
            if self._hidden(field):
                value = None
            elif field.type == "formula":
                value = formula_value(field, stored, times, now)
            else:
                value = stored.get(field.key)
            values[field.key] = cut(value, self.preview_characters) if preview else value
        return {"item_id": row["id"], "version": row["version"], "values": values}

    def _previews(self, channel: Channel, rows: Sequence[Tuple[Any, ...]], now: Any) -> List[Dict[str, Any]]:
        """A page's items as _shown previews them, from PAGE's rows (tuples): the stored previews decoded for the
        whole page at once, then what a stored preview cannot hold, the formulas computed now and the relations
        this caller may not see made null."""
        previews = json.loads("[" + ",".join(row[4] for row in rows) + "]")
        hidden = [field.key for field in self._hidden_fields(channel)]
        formulas = [(field, *formula_parts(field)) for field in channel.formulas]
        for row, values in zip(rows, previews):
            for key in hidden:
                values[key] = None
            for field, function, argument in formulas:
                column = PAGE_TIMES.get(argument)  # an item's own time: the row holds it, no mapping needed
                values[field.key] = (formula_days(function, _stored_time(row[column]), now) if column is not None
                                     else formula_value(field, values, {}, now))
        return [{"item_id": row[0], "version": row[1], "values": values} for row, values in zip(rows, previews)]

    def _hidden(self, field: Field) -> bool:
        """A relation to a channel this caller was not granted: its channel is never named, its values never shown."""
        return field.type == "relation" and not self.is_granted(field.config["related_channel_id"])

    def _hidden_fields(self, channel: Channel) -> List[Field]:
        """The channel's relations this caller may not see, in schema order."""
        if self.granted is None:
            return []
        return [field for field in channel.relations if not self.is_granted(field.config["related_channel_id"])]

    def _agent_text(self, channel: Channel, saved: ItemValues) -> str:
        """An item's values as stored for an agent's save, within ITEM_MAX_CHARACTERS counted as this caller may:
        a hidden relation at its largest, whatever it holds. Encoded once, for the bound and the row."""
        text = saved.text()
        hidden = [field.key for field in self._hidden_fields(channel)] if channel.relations else ()
        visible = text
        if hidden:
            visible = as_text({key: value for key, value in saved.values.items() if key not in hidden})
        if len(visible) + len(hidden) * HIDDEN_RELATION_CHARACTERS > ITEM_MAX_CHARACTERS:
            raise InvalidArguments(
                f'argument "values" would make the item hold more than {ITEM_MAX_CHARACTERS:,} characters of values '
                "(counting each relation you cannot see at its largest); nothing was saved. Shorten the longest "
                "text and call again.", argument="values", rule="maxLength", got="more than the bound")
        return text

    def _schema_seen(self, channel: Channel) -> Dict[str, Any]:
        """The schema as this caller's pages carry it: hidden relations name no channel and say granted: false."""
        schema = channel.schema()
        for definition, field in zip(schema["fields"], channel.fields):
            if self._hidden(field):
                del definition["related_channel_id"]
                definition["granted"] = False
        return schema

    def _validate(self, connection: sqlite3.Connection, channel: Channel, values: Mapping[str, Any],
                  number: Optional[int], *, agent: bool = False) -> List[Failure]:
        """Every field of `values` that may not be saved, in schema order, then unknown keys as sent.

        An agent may not write a hidden relation, whatever it sends. The whole of validation, in one method,
        so lab/record_channels/runs.py (table R6) can stub it out to weigh it.
        """
        failed: Dict[str, Failure] = {}
        unknown: List[Failure] = []
        writable: List[Field] = []  # the channel's writable fields, once an unknown key needs them
        by_key, selects, passes = channel.by_key, channel.selects, channel.passes
        for key, value in values.items():  # first the quick tests: True for a value saved as sent
            options = selects.get(key)
            if options is not None:
                if type(value) is str and value in options:  # as Field.passes tests a select, without its call
                    continue
            else:
                test = passes.get(key)
                if test is not None and test(value):
                    continue
            field = by_key.get(key)
            if field is None:  # the writable keys go with the first unknown key only
                writable = writable or [f for f in channel.fields if f.writable]
                unknown.append(unknown_field(key, writable, len(unknown)))
                continue
            relation = field.type == "relation"
            if agent and relation and self._hidden(field):
                failed[key] = ungranted_relation(field)
                continue
            failure = check_value(field, value)
            if failure is None and (field.is_unique or relation):
                failure = self._stored_rule(connection, channel, field, value, number)
            if failure is not None:
                failed[key] = failure
        if not failed:
            return unknown
        return [failed[f.key] for f in channel.fields if f.key in failed] + unknown

    @staticmethod
    def _stored_rule(connection: sqlite3.Connection, channel: Channel, field: Field, value: Any,
                     number: Optional[int]) -> Optional[Failure]:
        """The rules only the database can judge: unique values and related items that exist."""
        if value is None or value == "" or value == []:
            return None
        if field.is_unique:
            holder = connection.execute(
                "SELECT i.id FROM unique_values AS u JOIN items AS i ON i.number = u.item_number "
                "WHERE u.channel_id = ? AND u.field_key = ? AND u.value = ? AND u.item_number <> ?",
                (channel.id, field.key, unique_key(field, value), number or 0)).fetchone()  # numbers start at 1
            if holder is not None:
                return not_unique(field, value, holder["id"])
        if field.type == "relation":
            related = field.config["related_channel_id"]
            marks = ", ".join("?" * len(value))
            live = {r["id"] for r in connection.execute(  # held until COMMIT: a person cannot delete one meanwhile
                f"SELECT id FROM items WHERE channel_id = ? AND deleted_at IS NULL AND id IN ({marks})"
                + dialect_of(connection).share_lock, (related, *value))}
            missing = [item_id for item_id in value if item_id not in live]
            if missing:
                return missing_relations(field, missing)
        return None

    # -- the people side -----------------------------------------------------

    def create_channel(self, channel_id: str, name: str, fields: Sequence[Mapping[str, Any]]) -> None:
        """Add a record channel with its schema; ValueError if the ID is taken or the schema unsound."""
        checked_id(channel_id, "a record channel ID")
        checked_text(name, "a record channel's name", NAME_CHARACTERS)
        definitions = json.dumps([field.definition() for field in parse_schema(fields)])
        parsed = _fields(definitions)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            if connection.execute("SELECT 1 FROM channels WHERE id = ?", (channel_id,)).fetchone() is not None:
                raise IdTaken(f"record channel {channel_id!r} already exists")
            for field in parsed:
                related = field.config.get("related_channel_id")
                if field.type == "relation" and related != channel_id and connection.execute(
                        "SELECT 1 FROM channels WHERE id = ?", (related,)).fetchone() is None:
                    raise ValueError(f"field {field.key!r} relates to record channel {related!r}, which does not exist")
            connection.execute("INSERT INTO channels (id, name, fields) VALUES (?, ?, ?)",
                               (channel_id, name, definitions))

    def create_item(self, channel_id: str, values: Mapping[str, Any], *,
                    item_id: Optional[str] = None) -> Dict[str, Any]:
        """A person adds an item; InvalidValues if a value fails or a required field is missing, ValueError if
        the ID is taken."""
        if item_id is not None:
            checked_id(item_id, "an item ID")
        _people_values(values, empty=True)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            channel = self._channel(connection, channel_id)
            if item_id is not None and connection.execute(SELECT_ITEM, (channel.id, item_id)).fetchone():
                raise IdTaken(f"record channel {channel_id!r} already has an item {item_id!r}")
            missing = [f for f in channel.fields if f.is_required and f.key not in values]
            failures = self._validate(connection, channel, values, None) + [
                Failure(f.key, f"values.{f.key} is required") for f in missing]
            if failures:
                raise InvalidValues(failures)
            number = dialect_of(connection).next_number(connection, "items")
            item_id = item_id or next_id(connection, ITEMS_COUNTED, channel.id, "itm", SELECT_ITEM)
            now = format_time(self.clock())
            saved = ItemValues.of(values)
            connection.execute("INSERT INTO items (number, channel_id, id, version, preview, fields, created_at, "
                               "updated_at) VALUES (?, ?, ?, 1, ?, ?, ?, ?)",
                               (number, channel_id, item_id, saved.preview(channel.preview_slots), _people_text(saved),
                                now, now))
            self._index_unique(connection, channel, number, saved.values)
            self.EVENTS.append(connection, channel_id, "created", item_id, 1)
        return {"item_id": item_id, "version": 1}

    def edit_item(self, channel_id: str, item_id: str, values: Mapping[str, Any]) -> int:
        """A person saves some fields (last writer wins, validated like an agent's edit); returns the new version."""
        _people_values(values, empty=False)
        with self.database.write() as connection:
            channel = self._channel(connection, channel_id)
            row = self._live_item(connection, channel, checked_id(item_id, "an item ID"), lock=True, select=SAVED_ITEM)
            failures = self._validate(connection, channel, values, row["number"])
            if failures:
                raise InvalidValues(failures)
            saved = KEPT.values_of(row["fields"], (id(self.database), row["number"])).changed(values)
            return self._save(connection, channel, row, saved, _people_text(saved), format_time(self.clock()),
                              values)

    def delete_item(self, channel_id: str, item_id: str) -> int:
        """A person deletes an item: agents no longer see it, its event is `deleted`; returns its last version."""
        with self.database.write() as connection:
            channel = self._channel(connection, channel_id)
            row = self._live_item(connection, channel, checked_id(item_id, "an item ID"), lock=True, select=SAVED_ITEM)
            now = format_time(self.clock())
            version = row["version"] + 1
            connection.execute("UPDATE items SET version = ?, updated_at = ?, deleted_at = ? WHERE number = ?",
                               (version, now, now, row["number"]))
            connection.execute(UNINDEX_ITEM, (row["number"],))
            self.EVENTS.append(connection, channel_id, "deleted", item_id, version)
        return version

    def item(self, channel_id: str, item_id: str) -> Dict[str, Any]:
        """The stored item whatever its state: the ground truth simulations check against."""
        with self.database.read() as connection:
            row = connection.execute(SELECT_ITEM, (checked_id(channel_id, "a record channel ID"),
                                                   checked_id(item_id, "an item ID"))).fetchone()
        if row is None:
            raise NotFound(f"no item {item_id!r} in record channel {channel_id!r}")
        return {"item_id": row["id"], "version": row["version"], "values": json.loads(row["fields"]),
                "deleted": row["deleted_at"] is not None}

    def has_channel(self, channel_id: str) -> bool:
        """Whether a channel of this ID exists, granted or not (people see every channel); reads only."""
        with self.database.read() as connection:
            return connection.execute("SELECT 1 FROM channels WHERE id = ?", (channel_id,)).fetchone() is not None

    def item_ids(self, channel_id: str) -> List[str]:
        """The IDs of the channel's live items, newest first: ground truth for the simulations."""
        with self.database.read() as connection:
            return [r["id"] for r in connection.execute(
                "SELECT id FROM items WHERE channel_id = ? AND deleted_at IS NULL ORDER BY number DESC",
                (channel_id,))]

    def schema(self, channel_id: str) -> Dict[str, Any]:
        """The channel's schema exactly as a listing page carries it."""
        with self.database.read() as connection:
            return self._channel(connection, channel_id).schema()

    def _channel(self, connection: sqlite3.Connection, channel_id: str) -> Channel:
        channel = self._stored_channel(connection, checked_id(channel_id, "a record channel ID"))
        if channel is None:
            raise NotFound(f"no record channel {channel_id!r}")
        return channel

    # -- one save, whoever makes it --------------------------------------------

    def _save(self, connection: sqlite3.Connection, channel: Channel, row: sqlite3.Row,
              saved: ItemValues, text: str, now: str, changed: Mapping[str, Any]) -> int:
        """Inside a write: compare-and-swap the row (as SAVED_ITEM reads it) to version + 1 at time `now` (its values
        `saved`, encoded as `text`, and their preview), re-index its unique values if `changed` names one, log
        `updated`; the values kept at its place with their text for the item's next save."""
        number, item_id, stored = row[0], row[1], row[2]  # SAVED_ITEM's columns, by place
        version = stored + 1
        swapped = connection.execute(UPDATE_ITEM, (text, saved.preview(channel.preview_slots), version, now,
                                                   number, stored)).rowcount
        if swapped != 1:
            raise EDITED.conflict(item_id, stored)
        if channel.unique and not channel.unique_keys.isdisjoint(changed):
            self._index_unique(connection, channel, number, saved.values)
        self.EVENTS.append(connection, channel.id, "updated", item_id, version)
        KEPT.keep((id(self.database), number), text, saved)  # the place: this database's row
        return version

    @staticmethod
    def _index_unique(connection: sqlite3.Connection, channel: Channel, number: int,
                      stored: Mapping[str, Any]) -> None:
        connection.execute(UNINDEX_ITEM, (number,))
        connection.executemany(INDEX_UNIQUE, unique_rows(channel, number, stored))


INDEX_UNIQUE = ("INSERT INTO unique_values (channel_id, field_key, value, item_number) SELECT ?, ?, ?, ? "
                "WHERE NOT EXISTS (SELECT 1 FROM unique_values WHERE channel_id = ? AND field_key = ? AND value = ?)")
# A value held already is left to its holder: only one the upgrade to schema 5 found two items holding
# (_upgrade_from_4) can be; every other value was judged free under the same write lock


def unique_rows(channel: Channel, number: int, stored: Mapping[str, Any]) -> List[Tuple[Any, ...]]:
    """The values of INDEX_UNIQUE that hold item `number`'s unique values (`stored`) in its channel."""
    rows = []
    for f in channel.fields:
        if f.is_unique and stored.get(f.key) not in (None, ""):
            key = unique_key(f, stored[f.key])
            rows.append((channel.id, f.key, key, number, channel.id, f.key, key))
    return rows


def _fingerprint_with_values(arguments: Mapping[str, Any]) -> str:
    """The edit's idempotency fingerprint, once values is known to name a field and to be plain JSON.

    (NaN passes here and is judged later, by its field.) The arguments the tool's inputSchema admits have its five
    keys and no other; with the types it asks for, their canonical JSON is written here in their sorted order, the
    values alone by canonical_json: the same text, with no sort of the keys nor encoding of the whole on each call.
    """
    values = arguments["values"]
    if not values:
        raise InvalidArguments('argument "values" must hold at least one field to change; got {}. Add the fields '
                               "to change, as keys of the channel's schema, and call again.",
                               argument="values", rule="minProperties", got={})
    try:
        version, key, item_id, channel_id = (arguments["expected_version"], arguments["idempotency_key"],
                                             arguments["item_id"], arguments["record_channel_id"])
        if type(arguments) is dict and len(arguments) == 5 and type(version) is int and type(key) is str and \
                type(item_id) is str and type(channel_id) is str:  # canonical_json's text, its keys sorted already
            return digest_of(f'{{"expected_version":{version},"idempotency_key":{_json_text(key)},"item_id":'
                             f'{_json_text(item_id)},"record_channel_id":{_json_text(channel_id)},"values":'
                             f'{canonical_json(values)}}}')  # one f-string: the text made once, not piece by piece
        return fingerprint(arguments)
    except (TypeError, ValueError):
        raise InvalidArguments('argument "values" must be a JSON object of field values. Fix it and call again.',
                               argument="values", rule="type", got=show(values)) from None


def _result_text(result: Dict[str, Any]) -> str:
    """idempotency.result_text(result) of an edit's first result, {"item_id": ..., "version": ..., "replay": false}
    as _compare_and_swap and idempotent make it, written out: the same text in a fraction of the encoder's time."""
    item_id, version = result["item_id"], result["version"]
    if type(item_id) is not str or type(version) is not int or len(result) != 3 or result["replay"] is not False:
        return result_text(result)
    return f'{{"item_id": {_json_ascii(item_id)}, "version": {version}, "replay": false}}'


def _people_values(values: Any, *, empty: bool) -> None:
    """A person's values: an object (not empty for an edit) that screen() passes, or InvalidValues saying why."""
    if not isinstance(values, Mapping) or not (values or empty):
        raise InvalidValues([Failure("values", "values must be an object holding the fields to set")])
    try:
        screen({"values": dict(values)})
    except InvalidArguments as refused:
        raise InvalidValues([Failure("values", refused.message)]) from None


def _people_text(saved: ItemValues) -> str:
    """An item's values as stored for a person's save; InvalidValues past ITEM_MAX_CHARACTERS."""
    text = saved.text()
    if len(text) > ITEM_MAX_CHARACTERS:
        raise InvalidValues([Failure("values", f"the item would hold {len(text):,} characters of values, more than "
                                               f"{ITEM_MAX_CHARACTERS:,}")])
    return text


def preview_text(channel: Channel, stored: Mapping[str, Any]) -> str:
    """What a listing shows of an item, kept with it as JSON: every field in schema order, unset ones null, text (or
    the JSON of a list or object) cut at PREVIEW_CHARACTERS, formulas null (a listing computes them when asked, and
    nulls the relations its caller may not see). Changing PREVIEW_CHARACTERS therefore needs an upgrade.

    >>> channel = Channel.of({"id": "c", "name": "C", "fields": json.dumps(
    ...     [{"key": "title", "label": "Title", "type": "text"}, {"key": "note", "label": "Note", "type": "text"}])})
    >>> text = preview_text(channel, {"title": "Café " + "x" * 200})
    >>> shown = json.loads(text)
    >>> text.isascii(), len(shown["title"]), shown["title"][:6], shown["title"][-2:], shown["note"]
    (True, 120, 'Café x', 'x…', None)
    """
    return ItemValues.of(stored).preview(channel.preview_slots)  # in ASCII: a page of them is decoded faster so


@functools.lru_cache(maxsize=4096)
def _stored_time(text: str) -> datetime.datetime:
    """A time this store wrote, as aware UTC; kept, since every listing of a page reads its items' times again."""
    return checked_time(text)


def _tuples(connection: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor whose rows are plain tuples: a page of them is fetched in two thirds of the time sqlite3.Row takes."""
    cursor = connection.cursor()
    cursor.row_factory = None
    return cursor


def _times(row: sqlite3.Row) -> Dict[str, datetime.datetime]:
    """An item's times, as its formulas read them."""
    return {"created_at": _stored_time(row["created_at"]), "updated_at": _stored_time(row["updated_at"])}
