"""The poll tool every store lists, as published: poll_resource_events, which resumes from an event sequence.

Layer: stores. Its definition names the resource types and the subjects of both stores' events, so it lives here,
above the core, whose AgentTools answers its calls from a store's own log (core/events.py). A store that lists it
declares which of its resource types it answers to.
"""

from osfoundry_tools.core.checks import ID_CHARACTERS
from osfoundry_tools.core.events import POLL_LIMIT_DEFAULT, POLL_TOOL
from osfoundry_tools.core.tools import READ_ONLY, Tool, integer, object_schema, string

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
    name=POLL_TOOL,
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
