"""The knowledge-base store, as `import kb_store` finds it: connect(), the store, its tools and limits, the rejections
it raises and the file it refuses. It lives in the package (osfoundry_tools/stores/kb_store.py); this re-exports it.

    >>> store = connect()
    >>> store.create_knowledge_base("kb-support")
    >>> store.create_article("kb-support", "Reset a password", "Open Settings, then Security.")["article_id"]
    'art-00001'
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)

from osfoundry_tools.stores.resource_events import POLL_RESOURCE_EVENTS
from osfoundry_tools.core.rejections import IdTaken, NotFound, Rejection
from osfoundry_tools.engines.database import UnusableFile
from osfoundry_tools.stores.kb_store import (
    CONTENT_MAX_CHARACTERS, EDIT_KNOWLEDGE_ARTICLE, READ_KNOWLEDGE_ARTICLE, SEARCH_KNOWLEDGE_BASE, SEARCH_LIMIT_DEFAULT,
    STATUSES, TITLE_MAX_CHARACTERS, KnowledgeBaseStore, citation, connect,
)

__all__ = ["CONTENT_MAX_CHARACTERS", "EDIT_KNOWLEDGE_ARTICLE", "IdTaken", "KnowledgeBaseStore", "NotFound",
           "POLL_RESOURCE_EVENTS", "READ_KNOWLEDGE_ARTICLE", "Rejection", "SEARCH_KNOWLEDGE_BASE",
           "SEARCH_LIMIT_DEFAULT", "STATUSES", "TITLE_MAX_CHARACTERS", "UnusableFile", "citation", "connect"]
