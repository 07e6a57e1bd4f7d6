"""The core: what every store shares, naming no store's subject (an article, an item) in its code.

A store hands in its tools, its SQL and its handlers; the core gives back one `call_tool` that checks every call
against the inputSchema it lists, the one keyed edit, idempotency, the event log and its poll.

Glossary (the words mean exactly this in every store):
  tool             a definition an agent can list and call: name, title, description, inputSchema, outputSchema,
                   annotations (and securitySchemes where published): tools.py
  rejection        a tool error {"error": code, "message": text, ...}; it writes nothing: rejections.py
  version          what a compare-and-swap compares; an agent sends it back as expected_version: clock.py for
                   versions that are times
  idempotency key  an agent's name for one intended write; the same key with the same arguments replays the
                   first result instead of writing twice: idempotency.py
  event, sequence  one row of a resource's log, and its position there: 1, 2, 3 ... with no gaps: events.py
  cursor           the last sequence an agent has seen; it polls with after_sequence=cursor
  grant            the resource IDs a caller may use; anything else looks absent: agent_tools.py
  caller           who is calling, named when a store is opened ("agent" unless said); an idempotency key belongs
                   to (caller, tool, resource)
  dialect          what a store does differently on an engine (numbering, holding a key, appending an event):
                   dialect.py, sqlite's; PostgreSQL's subclasses it
"""
