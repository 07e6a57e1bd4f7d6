"""Articles and items as MCP resources: their URIs, the two templates, a page of resources/list and resources/read,
each through the caller's grant and the read tools, so that an ungranted or unpublished resource reads as a missing
one.

Layer: server, beside the methods; a client of the stores' read tools, and of their tables for the listing.

Glossary:
  resource URI   osfoundry://knowledge_base/<kb>/articles/<article> or osfoundry://record/<channel>/items/<item>,
                 each ID percent-encoded
  log URI        osfoundry://knowledge_base/<kb> or osfoundry://record/<channel>: the knowledge base or channel
                 whose event log numbers every change of its articles or items
  after_sequence a listen's or a subscription's resume point, in the URI's query (?after_sequence=N): the last
                 sequence of that log the client saw
  cursor         of resources/list: our own (kind's index, log ID, number) of the page's last row, as base64 JSON;
                 a client's is read within bounds, and anything else is the one -32602 rejection
  gone           an article unpublished, an item deleted: a read refuses it, and the event that removed it is the
                 last news of it; a later save of an article still unpublished writes its `unpublished` event
                 again (poll_resource_events lists it, as published), which no listener is told of
"""

import base64
import binascii
import dataclasses
import json
import re
import urllib.parse
from typing import Any, Dict, List, Optional, Set, Tuple

from osfoundry_tools.core import checks, rejections
from osfoundry_tools.server import tokens
from osfoundry_tools.server.protocol import INVALID_PARAMS, ProtocolError
from osfoundry_tools.server.routing import POLL, Tools

SCHEME = "osfoundry://"
RESOURCE_NOT_FOUND = -32002  # MCP's code for a resource that cannot be read
PAGE = 100  # resources per resources/list page
MIME = "application/json"
META_SEQUENCE, META_LOG, META_EVENT, META_RESYNC = ("io.osfoundry/sequence", "io.osfoundry/log", "io.osfoundry/event",
                                                    "io.osfoundry/resyncFrom")
META_VERSION, META_CITATION = "io.osfoundry/version", "io.osfoundry/citation"
AFTER = "after_sequence"
SEQUENCE_DIGITS = 18  # the longest after_sequence: 999999999999999999 fits sqlite's integers
DIGITS = re.compile(f"[0-9]{{1,{SEQUENCE_DIGITS}}}")  # ASCII digits only: str.isdigit takes ² and ٣ too
CURSOR_CHARACTERS = 4096  # the longest resources/list cursor read; ours hold a log ID of at most 128 characters
PREVIOUS_EVENT = ("SELECT type FROM events WHERE resource_id = ? AND subject_id = ? AND sequence < ? "
                  "ORDER BY sequence DESC LIMIT 1")


@dataclasses.dataclass(frozen=True)
class Kind:
    """How one store's resources read as URIs and through its tools."""

    resource_type: str  # the store's RESOURCE_TYPE, the URI's first part
    collection: str  # the URI's word for its resources: articles, items
    read_tool: str
    log_key: str  # the read tool's argument naming the knowledge base or channel
    subject_key: str  # the read tool's argument, and the events' key, naming the article or item
    version_key: str  # the events' and the read's key of the version
    title: str  # the template's
    log_column: str  # the column of the knowledge base or channel in its table
    listing: str  # the SQL of one page: (log ID, resource ID, name, number) after a (log ID, number)
    logs: str  # the SQL of every knowledge base's or channel's ID
    once_readable: str  # the SQL of a resource that was readable once (gone since, or readable now), by log and ID
    gone_again: Optional[str]  # the event a save of a resource already gone writes again (None: none is saved)

    def template(self) -> Dict[str, Any]:
        return {"uriTemplate": f"{SCHEME}{self.resource_type}/{{{self.log_key}}}/{self.collection}/"
                               f"{{{self.subject_key}}}",
                "name": f"{self.resource_type}-{self.collection}", "title": self.title, "mimeType": MIME,
                "description": f"What {self.read_tool} answers, with its version and citation in _meta."}


_PAGE_SQL = ("SELECT {log} AS log_id, id, {name} AS name, number FROM {table} WHERE {live} AND "
             "({log} > ? OR ({log} = ? AND number > ?)) {granted} ORDER BY {log}, number LIMIT ?")
KINDS = (
    Kind("knowledge_base", "articles", "read_knowledge_article", "knowledge_base_id", "article_id", "updated_at",
         "An article of a granted knowledge base", "knowledge_base_id",
         _PAGE_SQL.format(log="knowledge_base_id", name="title", table="articles", live="status = 'published'",
                          granted="{granted}"), "SELECT id FROM knowledge_bases ORDER BY id",
         "SELECT 1 FROM articles WHERE knowledge_base_id = ? AND id = ? AND status != 'draft'", "unpublished"),
    Kind("record", "items", "read_record_item", "record_channel_id", "item_id", "version",
         "An item of a granted record channel", "channel_id",
         _PAGE_SQL.format(log="channel_id", name="id", table="items", live="deleted_at IS NULL",
                          granted="{granted}"), "SELECT id FROM channels ORDER BY id",
         "SELECT 1 FROM items WHERE channel_id = ? AND id = ?", None),
)
BY_TYPE = {kind.resource_type: kind for kind in KINDS}


@dataclasses.dataclass(frozen=True)
class Target:
    """What one URI names: a log (subject None) or one resource in it, and the resume point it gives, if any."""

    uri: str  # as the client wrote it
    kind: Kind
    log_id: str
    subject: Optional[str]
    after: Optional[int]

    @property
    def log_uri(self) -> str:
        return log_uri(self.kind, self.log_id)


def quoted(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def log_uri(kind: Kind, log_id: str) -> str:
    return f"{SCHEME}{kind.resource_type}/{quoted(log_id)}"


def resource_uri(kind: Kind, log_id: str, subject: str) -> str:
    return f"{log_uri(kind, log_id)}/{kind.collection}/{quoted(subject)}"


def not_found(uri: Any) -> ProtocolError:
    """The one answer for a URI that names nothing this caller may read: missing, ungranted or unpublished alike."""
    return ProtocolError(RESOURCE_NOT_FOUND, f"Resource not found: {rejections.quote(str(uri)[:300])}; "
                         "resources/list names every article and item you may read", {"uri": str(uri)[:300]})


def parse(uri: Any, resume: bool = False) -> Target:
    """The target of a URI; ProtocolError (-32602) for one that is no URI of ours, or a bad after_sequence."""
    if not isinstance(uri, str):
        raise ProtocolError(INVALID_PARAMS, 'Invalid params: "uri" must be a string such as '
                            f'"{SCHEME}knowledge_base/<id>/articles/<id>"')
    path, _, query = uri.partition("?")
    parts = path[len(SCHEME):].split("/") if path.startswith(SCHEME) else []
    kind = BY_TYPE.get(parts[0]) if parts else None
    if kind is None or len(parts) not in (2, 4) or (len(parts) == 4 and parts[2] != kind.collection) or \
            not all(parts[1:]):
        raise not_found(uri)
    after = parse_after(uri, query) if resume else None
    if query and not resume:
        raise not_found(uri)
    ids = [urllib.parse.unquote(part) for part in parts[1:]]
    return Target(uri, kind, ids[0], ids[2] if len(ids) == 3 else None, after)


def parse_after(uri: str, query: str) -> Optional[int]:
    """The after_sequence of a URI's query (None without one); ProtocolError for anything else in it."""
    if not query:
        return None
    pairs = urllib.parse.parse_qsl(query, keep_blank_values=True)
    if len(pairs) != 1 or pairs[0][0] != AFTER or not DIGITS.fullmatch(pairs[0][1]):
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: the query of {rejections.quote(uri[:300])} may hold "
                            f"only {AFTER}=N, N the last sequence you saw in ASCII digits (0 to "
                            f"{'9' * SEQUENCE_DIGITS}); leave it out to start from now")
    return int(pairs[0][1])


def granted_ids(tools: Tools, kind: Kind, grant: Optional[tokens.Grant]) -> Optional[frozenset]:
    """The IDs of this kind the caller may use (None: every one)."""
    store = tools.stores.get(kind.resource_type)
    if store is None:
        return frozenset()
    return tools.as_caller(store, grant).granted


def templates() -> Dict[str, Any]:
    return {"resourceTemplates": [kind.template() for kind in KINDS]}


def encode_cursor(position: Tuple[int, str, int]) -> str:
    return base64.urlsafe_b64encode(json.dumps(position).encode()).decode()


def decode_cursor(cursor: Any) -> Tuple[int, str, int]:
    """A cursor of ours back to (kind's index, log ID, number); ProtocolError (-32602) for any other, whatever it
    holds: a cursor is read only up to CURSOR_CHARACTERS, and each part only within the range ours take.

    >>> decode_cursor(encode_cursor((1, "bugs", 7)))
    (1, 'bugs', 7)
    >>> decode_cursor(encode_cursor((0, "kb", 10 ** 20)))  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    osfoundry_tools.server.protocol.ProtocolError: Invalid params: unknown cursor
    """
    if cursor is None:
        return (0, "", 0)
    if isinstance(cursor, str) and len(cursor) <= CURSOR_CHARACTERS and cursor.isascii():
        try:
            position = checks.unique_json(base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8"))
        except (ValueError, binascii.Error, RecursionError):  # UnicodeDecodeError and JSONDecodeError: ValueErrors
            position = None
        if ours(position):
            return (position[0], position[1], position[2])
    raise ProtocolError(INVALID_PARAMS, "Invalid params: unknown cursor; pass the nextCursor of the previous "
                        "resources/list page, or no cursor for the first")


def ours(position: Any) -> bool:
    """Whether a decoded cursor is one encode_cursor could have made: [kind's index, log ID, number]."""
    if not isinstance(position, list) or len(position) != 3:
        return False
    kind, log_id, number = position
    return (type(kind) is int and 0 <= kind < len(KINDS) and isinstance(log_id, str)
            and len(log_id) <= checks.ID_CHARACTERS and type(number) is int
            and 0 <= number <= checks.SQLITE_INTEGER_MAX)


def listing(tools: Tools, grant: Optional[tokens.Grant], cursor: Any) -> Dict[str, Any]:
    """One page of the caller's resources: published articles, then live items, each by its log and creation."""
    index, log_id, number = decode_cursor(cursor)
    found: List[Dict[str, Any]] = []
    for at in range(index, len(KINDS)):
        kind = KINDS[at]
        granted = granted_ids(tools, kind, grant)
        room = PAGE - len(found)
        if kind.resource_type in tools.stores and (granted is None or granted):
            if room == 0:  # the page is full at the start of this kind: the next page starts it
                return {"resources": found, "nextCursor": encode_cursor((at, "", 0))}
            rows = page_rows(tools, kind, granted, log_id, number, room + 1)
            found += [{"uri": resource_uri(kind, row[0], row[1]), "name": str(row[2]), "mimeType": MIME,
                       "description": f"{kind.collection[:-1]} {row[1]} of {kind.resource_type} {row[0]}"}
                      for row in rows[:room]]
            if len(rows) > room:
                last = rows[room - 1]
                return {"resources": found, "nextCursor": encode_cursor((at, last[0], last[3]))}
        log_id, number = "", 0
    return {"resources": found}


def page_rows(tools: Tools, kind: Kind, granted: Optional[frozenset], log_id: str, number: int,
              limit: int) -> List[Tuple[Any, ...]]:
    """Up to `limit` rows of the kind's listing after (log_id, number), within the grant, under the workspace
    lock (the store's own connection: a listing is rare, and it leaves the readers to the tools)."""
    ids = sorted(granted) if granted is not None else []
    clause = f"AND {kind.log_column} IN ({', '.join('?' * len(ids))})" if granted is not None else ""
    sql = kind.listing.format(granted=clause)
    with tools.lock, tools.stores[kind.resource_type].database.read() as connection:
        return [tuple(row) for row in connection.execute(sql, (log_id, log_id, number, *ids, limit)).fetchall()]


def granted_logs(tools: Tools, grant: Optional[tokens.Grant],
                 logs: Optional[Dict[str, List[str]]] = None) -> List[Target]:
    """Every knowledge base and channel the caller may use, as a log target each (what a listen for list changes
    watches). `logs`: every_log's answer, where the caller read it already for several grants."""
    found = []
    every = every_log(tools) if logs is None else logs
    for kind in KINDS:
        if kind.resource_type not in every:
            continue
        granted = granted_ids(tools, kind, grant)
        found += [Target(log_uri(kind, log_id), kind, log_id, None, None) for log_id in every[kind.resource_type]
                  if granted is None or log_id in granted]
    return found


def every_log(tools: Tools) -> Dict[str, List[str]]:
    """The IDs of every knowledge base and channel there is now, by resource type (one read of each store)."""
    every = {}
    for kind in KINDS:
        if kind.resource_type in tools.stores:
            with tools.lock, tools.stores[kind.resource_type].database.read() as connection:
                every[kind.resource_type] = [str(row[0]) for row in connection.execute(kind.logs).fetchall()]
    return every


def read(tools: Tools, grant: Optional[tokens.Grant], uri: Any) -> Dict[str, Any]:
    """resources/read: what the read tool answers as JSON text, its version and citation in _meta; a URI that
    names no readable article or item (a log's included) answers -32002."""
    target = parse(uri)
    if target.subject is None or target.kind.resource_type not in tools.stores:
        raise not_found(uri)
    answer = tools.call(target.kind.read_tool, {target.kind.log_key: target.log_id,
                                                target.kind.subject_key: target.subject}, grant)
    if "error" in answer:
        if answer["error"] in ("storage_error", "busy"):
            raise ProtocolError(-32603, f"Internal error: {answer.get('message')}", {"error": answer["error"]})
        raise not_found(uri)
    meta = {META_VERSION: answer.get(target.kind.version_key)}
    if "citation" in answer:
        meta[META_CITATION] = answer["citation"]
    return {"contents": [{"uri": target.uri, "mimeType": MIME, "text": json.dumps(answer, ensure_ascii=False),
                          "_meta": meta}]}


def head_of(tools: Tools, grant: Optional[tokens.Grant], target: Target) -> int:
    """The last sequence of the target's log, as the caller may see it; -32002 if the caller may not watch the
    target: its log missing or ungranted, or its resource one a read refuses now, unless the URI resumes
    (after_sequence) and the resource was readable once: gone since (unpublished, deleted), its removal and what
    came after are replayed like any change. A draft or missing resource is refused alike either way."""
    if target.kind.resource_type not in tools.stores:
        raise not_found(target.uri)
    polled = tools.call(POLL, {"resource_type": target.kind.resource_type, "resource_id": target.log_id,
                               "after_sequence": 2 ** 62, "limit": 1}, grant)
    if "error" in polled:
        raise not_found(target.uri)
    if target.subject is not None and not readable(tools, grant, target):
        if target.after is None or not once_readable(tools, target):
            raise not_found(target.uri)
    return int(polled["last_sequence"])


def readable(tools: Tools, grant: Optional[tokens.Grant], target: Target) -> bool:
    """Whether the read tool answers the target's resource now; -32603 if the store could not be read."""
    answer = tools.call(target.kind.read_tool, {target.kind.log_key: target.log_id,
                                                target.kind.subject_key: target.subject}, grant)
    if answer.get("error") in ("storage_error", "busy"):
        raise ProtocolError(-32603, f"Internal error: {answer.get('message')}", {"error": answer["error"]})
    return "error" not in answer


def once_readable(tools: Tools, target: Target) -> bool:
    """Whether the target's resource, in a log the caller may read, was readable once: an article published
    since it was made (published or unpublished now), an item (live or deleted). What poll_resource_events shows of
    the log names it too, so this tells the caller nothing the log does not; a draft or missing one is not."""
    if target.subject is None or len(target.subject) > checks.ID_CHARACTERS:
        return False
    with tools.lock, tools.stores[target.kind.resource_type].database.read() as connection:
        return connection.execute(target.kind.once_readable, (target.log_id, target.subject)).fetchone() is not None


def repeated_removals(tools: Tools, kind: Kind, log_id: str, events: List[Dict[str, Any]]) -> Set[int]:
    """The sequences of those `events` (one read of a log, oldest first) that tell of a save of a resource gone
    already: a `gone_again` event whose resource's previous event in the log is one too (an article unpublished,
    then saved while unpublished). A read refused the resource before and after, and resources/list did not change:
    no listener is told. The previous event is the read's own where it holds one, else one indexed read back."""
    repeated: Set[int] = set()
    if kind.gone_again is None or not any(event["type"] == kind.gone_again for event in events):
        return repeated
    last: Dict[str, str] = {}  # subject -> the type of its latest event so far
    with tools.lock, tools.stores[kind.resource_type].database.read() as connection:
        for event in events:
            subject = str(event.get(kind.subject_key))
            if event["type"] == kind.gone_again:
                before = last.get(subject)
                if before is None:
                    row = connection.execute(PREVIOUS_EVENT, (log_id, subject, event["sequence"])).fetchone()
                    before = row[0] if row is not None else None
                if before == kind.gone_again:
                    repeated.add(event["sequence"])
            last[subject] = event["type"]
    return repeated
