"""The stores: the knowledge-base store and its search, the record-channel store and its field types.

Each is a subclass of the core's AgentTools: its tools as data, its tables (a Layout), a `_tool_<name>` handler
per tool, its grant check and its compare-and-swap; people reach it through plain methods. kb_store.py with
kb_search.py, kb_sections.py and word_stems.py; record_store.py with record_fields.py; resource_events.py holds
the poll tool every store lists, as published.
"""
