"""The event log: per resource, sequence 1, 2, 3 ... in commit order with no gap, and the poll that resumes from it.

Layer: core. One integer, the last sequence an agent saw, replaces re-reading everything it cited.
"""

import dataclasses
import json
import sqlite3
from typing import Any, Dict, Sequence

from osfoundry_tools.core.checks import ID_CHARACTERS, SQLITE_INTEGER_MAX
from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.core.rejections import UnsupportedResourceType, quote
from osfoundry_tools.core.tools import READ_ONLY, Tool, integer, object_schema, string


# ---------------------------------------------------------------------------
# The event log: per resource, sequence 1, 2, 3 ... in commit order, and its poll.

EVENT_LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    resource_id TEXT    NOT NULL,
    sequence    INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    subject_id  TEXT    NOT NULL,  -- the article or item the event is about
    version             NOT NULL,  -- its version after the event (text or integer, as the store keeps it)
    PRIMARY KEY (resource_id, sequence)
) WITHOUT ROWID;
"""
POLL_LIMIT_DEFAULT = 100


@dataclasses.dataclass(frozen=True)
class EventLog:
    """How a store names an event's subject and version in what agents receive."""

    subject_key: str  # "article_id" or "item_id"
    version_key: str  # "updated_at" or "version"

    def append(self, connection: sqlite3.Connection, resource_id: str, event_type: str,
               subject_id: str, version: Any) -> None:
        """Inside an open write transaction: add the resource's next event, gap-free and in commit order (how is
        the engine's: Dialect.append_event)."""
        dialect_of(connection).append_event(connection, resource_id, event_type, subject_id, version)

    def poll(self, connection: sqlite3.Connection, resource_id: str, after_sequence: int,
             limit: int) -> Dict[str, Any]:
        """Events with sequence > after_sequence, oldest first, at most `limit`, and where to resume."""
        after_sequence = min(after_sequence, SQLITE_INTEGER_MAX)  # no sequence is larger; sqlite takes no more
        rows = connection.execute(
            "SELECT sequence, type, subject_id, version FROM events "
            "WHERE resource_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            (resource_id, after_sequence, limit + 1)).fetchall()
        events = [{"sequence": r["sequence"], "type": r["type"], self.subject_key: r["subject_id"],
                   self.version_key: r["version"]} for r in rows[:limit]]
        if events:
            cursor = events[-1]["sequence"]
        else:  # nothing new: stay put, or come back to the head if the agent was past it
            (head,) = connection.execute("SELECT COALESCE(MAX(sequence), 0) FROM events WHERE resource_id = ?",
                                         (resource_id,)).fetchone()
            cursor = min(after_sequence, head)
        return {"events": events, "last_sequence": cursor, "has_more": len(rows) > limit}


RESOURCE_TYPES = ["channel", "note", "knowledge_base", "record", "session"]
_EVENT_SCHEMA = {
    "type": "object",
    "properties": {
        "sequence": {"type": "integer", "minimum": 1},
        "type": {"type": "string"},
        "article_id": {"type": "string", "description": "knowledge_base events: the article"},
        "updated_at": {"type": "string", "format": "date-time",
                       "description": "knowledge_base events: the article's version after the event"},
        "item_id": {"type": "string", "description": "record events: the item"},
        "version": {"type": "integer", "description": "record events: the item's version after the event"},
    },
    "required": ["sequence", "type"],
    "additionalProperties": False,
}
POLL_RESOURCE_EVENTS = Tool(
    name="poll_resource_events",
    title="Poll resource events",
    description=(
        "Resume from an event sequence for one granted channel, Note, knowledge base, record, or session. "
        "Pass the last_sequence of your previous poll as after_sequence (0 the first time): you get every "
        "event after it, oldest first, and a new last_sequence to keep. One integer replaces re-reading "
        "everything you cited; re-read only the articles or items the events name. An 'unpublished' event "
        "means a cited article is gone, not merely changed. If has_more is true, poll again at once."
    ),
    input_schema=object_schema({
        "resource_type": {"type": "string", "enum": RESOURCE_TYPES, "description":
                          "knowledge_base for a knowledge base's log, record for a record channel's"},
        "resource_id": string(1, ID_CHARACTERS, "The knowledge base ID or record channel ID."),
        "after_sequence": integer(0, None, "Return events after this sequence; your last last_sequence.",
                                  default=0),
        "limit": integer(1, 100, "At most this many events.", default=POLL_LIMIT_DEFAULT),
    }, ["resource_type", "resource_id"]),
    output_schema=object_schema({
        "events": {"type": "array", "items": _EVENT_SCHEMA},
        "last_sequence": {"type": "integer", "minimum": 0},
        "has_more": {"type": "boolean"},
    }, ["events", "last_sequence", "has_more"]),
    annotations=READ_ONLY,
)


def unsupported_resource_type(resource_type: str, served: Sequence[str],
                              holder: str = "this store") -> UnsupportedResourceType:
    """The rejection for a poll of a resource type that `holder` keeps no event log for."""
    kinds = [json.dumps(kind) for kind in served]
    return UnsupportedResourceType(
        f"{holder} keeps event logs for resource_type {' and '.join(kinds)} only, not {quote(resource_type)}; "
        f"poll with resource_type {' or '.join(kinds)} and its ID, or ask the server that holds the {resource_type}.",
        served=list(served))
