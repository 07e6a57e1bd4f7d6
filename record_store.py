"""The record-channel store, as `import record_store` finds it: connect(), the store, its tools and limits, the
rejections it raises, the field types and the file it refuses. It lives in the package
(osfoundry_tools/stores/record_store.py); this re-exports it.

    >>> store = connect()
    >>> store.create_channel("bugs", "Bugs", [{"key": "title", "label": "Title", "type": "text"}])
    >>> store.create_item("bugs", {"title": "Login fails"})
    {'item_id': 'itm-00001', 'version': 1}
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)

from osfoundry_tools.stores.resource_events import POLL_RESOURCE_EVENTS
from osfoundry_tools.core.rejections import IdTaken, NotFound, Rejection
from osfoundry_tools.core.tools import WRITE_SCOPE
from osfoundry_tools.engines.database import UnusableFile
from osfoundry_tools.stores.record_fields import DETAILS, FIELD_TYPES
from osfoundry_tools.stores.record_store import (
    EDIT_RECORD_ITEM, LIST_RECORD_ITEMS, PAGE_LIMIT_DEFAULT, PREVIEW_CHARACTERS, READ_RECORD_ITEM, InvalidValues,
    RecordStore, ValidationFailed, connect,
)

__all__ = ["DETAILS", "EDIT_RECORD_ITEM", "FIELD_TYPES", "IdTaken", "InvalidValues", "LIST_RECORD_ITEMS", "NotFound",
           "PAGE_LIMIT_DEFAULT", "POLL_RESOURCE_EVENTS", "PREVIEW_CHARACTERS", "READ_RECORD_ITEM", "RecordStore",
           "Rejection", "UnusableFile", "ValidationFailed", "WRITE_SCOPE", "connect"]
