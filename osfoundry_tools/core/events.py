"""The event log: per resource, sequence 1, 2, 3 ... in commit order with no gap, and the poll that resumes from it.

Layer: core. One integer, the last sequence an agent saw, replaces re-reading everything it cited. The poll tool
every store lists (its published definition) is stores/resource_events.py's; AgentTools answers its calls from
the store's own log, through EventLog.poll.

Glossary:
  event      one row of a resource's log: {sequence, type, <subject>, <version>}, the subject and version under
             the keys its store names (EventLog)
  sequence   an event's position in its resource's log: 1, 2, 3 ... with no gaps, in commit order
  cursor     the last sequence an agent has seen; it polls with after_sequence=cursor
"""

import dataclasses
import json
import sqlite3
from typing import Any, Dict, Sequence

from osfoundry_tools.core.checks import SQLITE_INTEGER_MAX
from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.core.rejections import UnsupportedResourceType, quote

EVENT_LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    resource_id TEXT    NOT NULL,
    sequence    INTEGER NOT NULL,
    type        TEXT    NOT NULL,
    subject_id  TEXT    NOT NULL,  -- what in the resource the event is about, by its ID
    version             NOT NULL,  -- its version after the event (text or integer, as the store keeps it)
    PRIMARY KEY (resource_id, sequence)
) WITHOUT ROWID;
"""
POLL_TOOL = "poll_resource_events"  # the tool whose calls a store answers from its log (AgentTools)
POLL_LIMIT_DEFAULT = 100


@dataclasses.dataclass(frozen=True)
class EventLog:
    """How a store names an event's subject and version in what agents receive."""

    subject_key: str  # the key of the subject's ID in each event, as the store's tools name it
    version_key: str  # the key of the subject's version

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


def unsupported_resource_type(resource_type: str, served: Sequence[str],
                              holder: str = "this store") -> UnsupportedResourceType:
    """The rejection for a poll of a resource type that `holder` keeps no event log for."""
    kinds = [json.dumps(kind) for kind in served]
    return UnsupportedResourceType(
        f"{holder} keeps event logs for resource_type {' and '.join(kinds)} only, not {quote(resource_type)}; "
        f"poll with resource_type {' or '.join(kinds)} and its ID, or ask the server that holds the {resource_type}.",
        served=list(served))
