"""Fixtures the record-store tests share: the bug tracker with a few items, a channel with every field type."""

from typing import Any, Dict, List, Optional, Tuple

from tests import postgres_helpers
from tests.helpers import ManualClock, poll_events
from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload

BUGS = "bugs"
OPS = "ops"          # a second channel: the grant tests leave it out
EVERY_TYPE = "every-type"

# One field of each of the 16 types, with config where the type takes one.
EVERY_TYPE_FIELDS: List[Dict[str, Any]] = [
    {"key": "name", "label": "Name", "type": "text", "is_required": True, "is_unique": True, "max_length": 10},
    {"key": "count", "label": "Count", "type": "number", "min": -5, "max": 5},
    {"key": "due", "label": "Due", "type": "date"},
    {"key": "done", "label": "Done", "type": "boolean"},
    {"key": "contact", "label": "Contact", "type": "email", "is_unique": True},
    {"key": "phone", "label": "Phone", "type": "phone"},
    {"key": "site", "label": "Site", "type": "url"},
    {"key": "stage", "label": "Stage", "type": "select", "options": [
        {"value": "todo", "label": "To do", "color": "gray"}, {"value": "doing", "label": "Doing", "color": "blue"}]},
    {"key": "tags", "label": "Tags", "type": "multi_select", "options": [
        {"value": "ui", "label": "UI", "color": "teal"}, {"value": "db", "label": "Database", "color": "red"}]},
    {"key": "price", "label": "Price", "type": "currency", "min": 0},
    {"key": "share", "label": "Share", "type": "percentage"},
    {"key": "stars", "label": "Stars", "type": "rating", "max_stars": 3},
    {"key": "bugs", "label": "Bugs", "type": "relation", "related_channel_id": BUGS},
    {"key": "files", "label": "Files", "type": "file"},
    {"key": "extra", "label": "Extra", "type": "json"},
    {"key": "age", "label": "Age", "type": "formula", "expression": "days_since(created_at)"},
]


def bug(number: int, **values: Any) -> Dict[str, Any]:
    """A New bug as a person files it."""
    return dict({"ticket": f"BUG-{number}", "title": f"Bug number {number}", "status": "new",
                 "description": f"Steps to reproduce bug {number}. " * 12}, **values)


def bug_store(path: Optional[str] = None, items: int = 3,
              **options: Any) -> Tuple[record_store.RecordStore, ManualClock, List[str]]:
    """A store with BUGS (`items` New bugs, oldest first in the returned IDs), OPS (one item) and EVERY_TYPE, at
    `path` (None: in memory, or on the test PostgreSQL database where make postgres runs the tests)."""
    clock = options.pop("clock", None) or ManualClock()
    store = record_store.connect(path or postgres_helpers.default_location(), clock=clock, **options)
    store.create_channel(BUGS, "Bugs", workload.BUG_TRACKER_FIELDS)
    store.create_channel(OPS, "Operations", workload.BUG_TRACKER_FIELDS)
    store.create_channel(EVERY_TYPE, "Every type", EVERY_TYPE_FIELDS)
    ids = []
    for number in range(1, items + 1):
        clock.advance()
        ids.append(store.create_item(BUGS, bug(number))["item_id"])
    store.create_item(OPS, bug(900), item_id="ops-1")
    store.create_item(EVERY_TYPE, {"name": "first"}, item_id="every-1")
    clock.advance()
    return store, clock, ids


def read(store: record_store.RecordStore, item_id: str, channel: str = BUGS) -> Dict[str, Any]:
    """read_record_item as an agent calls it."""
    return store.call_tool("read_record_item", {"record_channel_id": channel, "item_id": item_id})


def edit(store: record_store.RecordStore, item_id: str, version: Any, key: str, channel: str = BUGS,
         **values: Any) -> Dict[str, Any]:
    """edit_record_item as an agent calls it."""
    return store.call_tool("edit_record_item", {"record_channel_id": channel, "item_id": item_id,
                                                "values": values, "expected_version": version,
                                                "idempotency_key": key})


def page(store: record_store.RecordStore, channel: str = BUGS, **more: Any) -> Dict[str, Any]:
    """list_record_items as an agent calls it."""
    return store.call_tool("list_record_items", dict(record_channel_id=channel, **more))


def events(store: record_store.RecordStore, channel: str = BUGS, after: int = 0) -> List[Dict[str, Any]]:
    """Every event of a channel after `after`, following has_more."""
    return poll_events(store, "record", channel, after)
