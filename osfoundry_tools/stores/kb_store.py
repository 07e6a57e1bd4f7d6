"""Knowledge-base store: osFoundry's four knowledge-base agent tools, reconstructed on sqlite (or PostgreSQL).

Layer: a store. Agents reach it only through `call_tool` (search_knowledge_base,
read_knowledge_article, edit_knowledge_article, poll_resource_events); people
reach it through plain methods (create_article, save_article, unpublish_article,
publish_article, add_views). Names, required arguments, limits and annotations are
the published ones (docs/knowledge-base-store.md lists them); result shapes and the
ranking are this reconstruction's own. The search is kb_search.py's; what every store
shares, in core/.

Glossary:
  knowledge base   a collection of articles with one event log; IDs are strings
  article          title + content + status (draft, published or unpublished)
  version          an article's updated_at: RFC 3339 UTC with microseconds, strictly
                   increasing per article, changed by every save (publish and unpublish too)
  citation         {knowledge_base_id, article_id, updated_at}: where an answer came from and
                   which version it saw; its updated_at is also the edit's expected_version
  visible          published: the only articles search and read see
  views            how often people opened an article in the help centre, recorded by the
                   people's side; search lists the matches after the best one most viewed first
  grant            the knowledge-base IDs this caller may use; others look absent
  common word      a query word held by at least half of a large knowledge base's first articles: bm25
                   weighs it nothing, so a search leaves it out when the query has rarer ones (WORD_SAMPLE)
  function word    the grammar of a question (how, do, I, the): left out of a query that holds any other
                   word, its subject words (FUNCTION_WORDS)
  outline          an article's Markdown headings, kept beside it: a knowledge base where some article has one is
                   searched by sections too (weighed_scores, kb_sections)

Events: every save of a published article writes `updated` (or `renamed` when the
title changed); publishing writes `published` (`created` for an article created
published); unpublishing writes `unpublished`. A save of an article already
unpublished writes `unpublished` again, with the new version: the article stays
gone to agents, and the event shows its ID and version only, never its title or
content, while a read of it answers not_found as for a missing one. Saves of
drafts write none: no agent has seen a draft, and its ID in the log would show
an article no tool can return.

    >>> store = connect()
    >>> store.create_knowledge_base("kb-support")
    >>> store.create_article("kb-support", "Reset a password", "Open Settings, then Security.")["article_id"]
    'art-00001'
"""

import json
import sqlite3
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from osfoundry_tools.core.agent_tools import AgentTools
from osfoundry_tools.core.checks import ID_CHARACTERS, NAME_CHARACTERS, SQLITE_INTEGER_MAX, checked_id, checked_text
from osfoundry_tools.core.clock import checked_time, format_time, next_time_version
from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.core.events import EventLog
from osfoundry_tools.core.idempotency import IDEMPOTENCY_KEY, upgrade_idempotency_keys
from osfoundry_tools.core.numbering import next_id
from osfoundry_tools.core.rejections import Edited, IdTaken, NotFound, quote, show
from osfoundry_tools.core.tools import (
    DEFAULT_CALLER, READ_ONLY, SHARED_WRITE, WRITE_SCOPE, Tool, integer, object_schema, string,
)
from osfoundry_tools.engines.database import BUSY_TIMEOUT_SECONDS, DURABILITY_DEFAULT, Layout, add_column
from osfoundry_tools.engines.opening import open_store
from osfoundry_tools.stores.kb_search import (
    INDEX, SEARCH_COLUMN, SEARCH_CONFIG_SCHEMA, WORDS_COLUMN, in_chunks, index_table, merge_by_budget, outline_of,
    Rerank, exact_tokens, query_words, search_rows, search_sql, subject_words,
)
from osfoundry_tools.stores.kb_sections import (
    ANCHOR_CHARACTERS, OPENING_READ, Answering, content_parts, indexed_text,
)
from osfoundry_tools.stores.kb_snippets import OPENING, opening_of, snippet_of
from osfoundry_tools.stores.resource_events import POLL_RESOURCE_EVENTS

STATUSES = ("draft", "published", "unpublished")
SEARCH_LIMIT_DEFAULT = 10
TITLE_MAX_CHARACTERS = 200
CONTENT_MAX_CHARACTERS = 100_000


# ---------------------------------------------------------------------------
# The tools, as data: listed as is and enforced on every call.

_KB_ID = string(1, ID_CHARACTERS, "A knowledge base ID you were granted.")
_ARTICLE_ID = string(1, ID_CHARACTERS, "An article ID, as a search result or citation gives it.")
_VERSION = {"type": "string", "format": "date-time",
            "description": "An article's updated_at, RFC 3339 UTC with microseconds."}
CITATION_SCHEMA = object_schema(
    {"knowledge_base_id": {"type": "string"}, "article_id": {"type": "string"}, "updated_at": _VERSION},
    ["knowledge_base_id", "article_id", "updated_at"])
_SECTION_ANCHOR = {"type": "string", "description": "The anchor of the section that answers (search) or was read "
                   "(read): pass it as read_knowledge_article's section to read that part alone."}
SEARCH_KNOWLEDGE_BASE = Tool(
    name="search_knowledge_base",
    title="Search a knowledge base",
    description=(
        "Search current published articles in one granted knowledge base. Results cite the article ID and "
        "updated time; this is a live database read. Ask in plain words or in keywords alike: a question is "
        "matched by its subject, its function words (how, do, I, the, what, can) left out unless it holds nothing "
        "else, and a word also finds its other forms (proxy, proxies). The best text match comes first: articles "
        "holding more of the words, and rarer ones, match better, a word in the title counts more than one in the "
        "text, and where articles have headings, the one section (a heading and the text under it) that holds "
        "the question's words best counts nearly as much as the whole article, and the question's words standing "
        "a few words apart count more than the same words scattered; such a result names that section "
        "('section') and its snippet quotes it: pass it to read_knowledge_article to read that part alone. "
        "The other matching articles follow most "
        "viewed first, as a help centre lists its popular articles, and by text match among equally viewed "
        "ones. In a knowledge base of more than 1,000 articles, a search also ignores words that at least half "
        "of its articles hold when the query has rarer ones, and "
        "ranks at most the 1,000 oldest matching articles; a query of only such common words lists the articles "
        "holding them most viewed first, then oldest first. Keep each result's citation with your answer; its "
        "updated_at later shows whether the article changed since you read it."
    ),
    input_schema=object_schema({
        "knowledge_base_id": _KB_ID,
        "query": string(2, 200, "Words to look for, as a person would type them."),
        "limit": integer(1, 20, "At most this many results.", default=SEARCH_LIMIT_DEFAULT),
    }, ["knowledge_base_id", "query"]),
    output_schema=object_schema({"results": {"type": "array", "items": object_schema({
        "article_id": {"type": "string"},
        "title": {"type": "string"},
        "updated_at": _VERSION,
        "snippet": {"type": "string"},
        "section": _SECTION_ANCHOR,
        "citation": CITATION_SCHEMA,
    }, ["article_id", "title", "updated_at", "snippet", "citation"])}}, ["results"]),
    annotations=READ_ONLY,
)
READ_KNOWLEDGE_ARTICLE = Tool(
    name="read_knowledge_article",
    title="Read a knowledge article",
    description=(
        "Read one current published article by ID from a granted knowledge base and return a stable citation. "
        "The citation's updated_at is the article's version: compare it later to tell whether the article "
        "changed, and pass it as expected_version to edit_knowledge_article right after this read. Drafts and "
        "unpublished articles answer not_found, like missing ones. With section (an anchor a search result "
        "named), only that part of the article is returned, with the same citation."
    ),
    input_schema=object_schema({"knowledge_base_id": _KB_ID, "article_id": _ARTICLE_ID, "section": string(
        1, ANCHOR_CHARACTERS, "Optional: the anchor of one section, as a search result's 'section' names it; the read "
                              "then returns that heading and what stands under it, to the next heading of the same or "
                              "a higher level, instead of the whole article.")}, ["knowledge_base_id", "article_id"]),
    output_schema=object_schema({
        "article_id": {"type": "string"},
        "title": {"type": "string"},
        "content": {"type": "string"},
        "section": _SECTION_ANCHOR,
        "updated_at": _VERSION,
        "citation": CITATION_SCHEMA,
    }, ["article_id", "title", "content", "updated_at", "citation"]),
    annotations=READ_ONLY,
)
EDIT_KNOWLEDGE_ARTICLE = Tool(
    name="edit_knowledge_article",
    title="Edit a knowledge article",
    description=(
        "Replace article content and optionally its title. Supply the version from read_knowledge_article; "
        "concurrent changes are rejected. Call read_knowledge_article right before editing and pass its "
        "updated_at (the version in its citation) as expected_version: a version taken from an older citation "
        "is often stale and is rejected with version_conflict, in which case read again, re-apply your change "
        "to the current content and edit with the new version. The edit is saved for every assistant and "
        "search in the workspace. Give each intended change its own idempotency_key; resending the same call "
        "with the same key returns the first result (replay: true) and saves nothing twice."
    ),
    input_schema=object_schema({
        "knowledge_base_id": _KB_ID,
        "article_id": _ARTICLE_ID,
        "content": string(1, CONTENT_MAX_CHARACTERS, "The article's whole new content; it replaces the old."),
        "title": string(1, TITLE_MAX_CHARACTERS, "A new title; leave out to keep the current one."),
        "expected_version": dict(_VERSION, description=(
            "The updated_at from your read_knowledge_article just before this edit.")),
        "idempotency_key": IDEMPOTENCY_KEY,
    }, ["knowledge_base_id", "article_id", "content", "expected_version", "idempotency_key"]),
    output_schema=object_schema({"citation": CITATION_SCHEMA, "replay": {"type": "boolean"}},
                                ["citation", "replay"]),
    annotations=SHARED_WRITE,
)


# ---------------------------------------------------------------------------
# Storage.

SCHEMA = """
CREATE TABLE IF NOT EXISTS knowledge_bases (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    number           INTEGER,                   -- names its search index: search_index_<number>
    created_articles INTEGER NOT NULL DEFAULT 0 -- numbers its articles' IDs: art-00001, art-00002 ...
) WITHOUT ROWID;
CREATE UNIQUE INDEX IF NOT EXISTS knowledge_bases_by_number ON knowledge_bases (number);
CREATE TABLE IF NOT EXISTS articles (
    number            INTEGER PRIMARY KEY,  -- the article's row in its knowledge base's search index too
    knowledge_base_id TEXT NOT NULL REFERENCES knowledge_bases (id),
    id                TEXT NOT NULL,
    title             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('draft', 'published', 'unpublished')),
    updated_at        TEXT NOT NULL,        -- the version
    views             INTEGER NOT NULL DEFAULT 0 CHECK (views >= 0),  -- people's views, not part of the version
    opening           TEXT,                 -- a long content's first OPENING characters: what a snippet reads
    outline           TEXT NOT NULL DEFAULT '', -- the content's headings, one a line (outline_of): what a search weighs
    content           TEXT NOT NULL,        -- last: no other column is read past a long content's pages
    UNIQUE (knowledge_base_id, id)
);
CREATE INDEX IF NOT EXISTS articles_by_views ON articles (knowledge_base_id, views);
CREATE INDEX IF NOT EXISTS articles_outlined ON articles (knowledge_base_id) WHERE outline <> '';
"""
POSTGRES_SCHEMA = SEARCH_CONFIG_SCHEMA + f"""
CREATE SEQUENCE IF NOT EXISTS knowledge_bases_number;
CREATE SEQUENCE IF NOT EXISTS articles_number;
CREATE TABLE IF NOT EXISTS knowledge_bases (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    number           BIGINT UNIQUE,
    created_articles BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS articles (
    number            BIGINT PRIMARY KEY,
    knowledge_base_id TEXT NOT NULL REFERENCES knowledge_bases (id),
    id                TEXT NOT NULL,
    title             TEXT NOT NULL,
    status            TEXT NOT NULL CHECK (status IN ('draft', 'published', 'unpublished')),
    updated_at        TEXT NOT NULL,
    views             BIGINT NOT NULL DEFAULT 0 CHECK (views >= 0),
    opening           TEXT,
    outline           TEXT NOT NULL DEFAULT '',
    content           TEXT NOT NULL,
    search            {SEARCH_COLUMN},
    words             {WORDS_COLUMN},
    UNIQUE (knowledge_base_id, id)
);
CREATE INDEX IF NOT EXISTS articles_by_views ON articles (knowledge_base_id, views);
CREATE INDEX IF NOT EXISTS articles_by_number ON articles (knowledge_base_id, number);
CREATE INDEX IF NOT EXISTS articles_search ON articles USING GIN (search);
CREATE INDEX IF NOT EXISTS articles_outlined ON articles (knowledge_base_id) WHERE outline <> '';
"""  # the same tables on PostgreSQL: a sequence numbers
# rows, and each article's words are a generated tsvector column with a GIN index (kb_search's SEARCH_COLUMN)
POSTGRES_UPGRADES = {4: SEARCH_CONFIG_SCHEMA + f"""
ALTER TABLE articles DROP COLUMN search;
ALTER TABLE articles ADD COLUMN search {SEARCH_COLUMN};
CREATE INDEX articles_search ON articles USING GIN (search);
ALTER TABLE articles ADD COLUMN outline TEXT NOT NULL DEFAULT '';
ALTER TABLE articles ADD COLUMN words {WORDS_COLUMN};
CREATE INDEX articles_outlined ON articles (knowledge_base_id) WHERE outline <> '';
"""}  # schema 4 indexed with 'english', which drops its stop words: the search column
# rebuilt over every word; the outlines are then filled by the layout's data upgrade (fill_outlines)
EDITED = Edited("article", "article_id", "updated_at", READ_KNOWLEDGE_ARTICLE.name,
                "re-apply your change to the content it returns")  # how a version_conflict names what changed
ARTICLES_COUNTED = ("knowledge_bases", "created_articles")  # where each knowledge base counts the IDs it numbered
SELECT_ARTICLE = "SELECT * FROM articles WHERE knowledge_base_id = ? AND id = ?"
READ_ARTICLE = ("SELECT id, title, content, updated_at FROM articles WHERE knowledge_base_id = ? AND id = ? "
                "AND status = 'published'")  # what a read returns, in this order, of an article agents may see
UPDATE_ARTICLE = ("UPDATE articles SET title = ?, content = ?, opening = ?, outline = ?, status = ?, updated_at = ? "
                  "WHERE number = ? AND updated_at = ?")


def citation(knowledge_base_id: str, article_id: str, updated_at: str) -> Dict[str, str]:
    """The citation of one version of one article."""
    return {"knowledge_base_id": knowledge_base_id, "article_id": article_id, "updated_at": updated_at}


def event_for(before: Optional[str], after: str, renamed: bool) -> Optional[str]:
    """The event a save writes, from the status before (None: new) and after it: a save of an article already
    unpublished writes `unpublished` again (still gone, at a new version); None for a draft's saves."""
    if after == "published":
        if before is None:
            return "created"
        if before != "published":
            return "published"
        return "renamed" if renamed else "updated"
    return "unpublished" if before in ("published", "unpublished") else None


def _upgrade_from_1(connection: sqlite3.Connection) -> None:
    """Schema 1 (files from before the marks) to 2: articles gain views and an opening, idempotency keys a caller
    and a knowledge base."""
    add_column(connection, "articles", "views", "INTEGER NOT NULL DEFAULT 0 CHECK (views >= 0)")
    if add_column(connection, "articles", "opening", "TEXT"):
        connection.execute("UPDATE articles SET opening = substr(content, 1, ?) WHERE length(content) > ?",
                           (OPENING, OPENING))
    upgrade_idempotency_keys(connection, lambda result: (result.get("citation") or {}).get("knowledge_base_id"))


def _upgrade_from_2(connection: sqlite3.Connection) -> None:
    """Schema 2 to 3: each knowledge base gets a number, an article counter (past every article number so far,
    which numbered the IDs of the whole file) and a search index of its own, in place of the one all shared."""
    add_column(connection, "knowledge_bases", "number", "INTEGER")
    add_column(connection, "knowledge_bases", "created_articles", "INTEGER NOT NULL DEFAULT 0")
    for number, (kb,) in enumerate(connection.execute("SELECT id FROM knowledge_bases ORDER BY id").fetchall(), 1):
        table = index_table(number)
        connection.execute("UPDATE knowledge_bases SET number = ?, created_articles = (SELECT COALESCE(MAX(number), "
                           "0) FROM articles) WHERE id = ?", (number, kb))
        connection.execute(INDEX.format(table=table))
        connection.execute(f"INSERT INTO {table} (rowid, title, content) SELECT number, title, content FROM articles "
                           "WHERE knowledge_base_id = ? AND status = 'published'", (kb,))
    connection.execute("DROP TABLE IF EXISTS article_index")


def _upgrade_from_3(connection: sqlite3.Connection) -> None:
    """Schema 3 to 4: search indexes are merged by budget (MERGE_PAGES), no longer by FTS5's automerge."""
    for (number,) in connection.execute("SELECT number FROM knowledge_bases").fetchall():
        merge_by_budget(connection, index_table(number))


def _upgrade_from_4(connection: sqlite3.Connection) -> None:
    """Schema 4 to 5: articles gain their outline (fill_outlines), and the search index drops web addresses
    (indexed_text). On PostgreSQL the search column, which left out the 'english' stop words, is rebuilt over every
    word instead (POSTGRES_UPGRADES): FTS5 held every word, and PostgreSQL's parser keeps addresses apart."""
    add_column(connection, "articles", "outline", "TEXT NOT NULL DEFAULT ''")
    fill_outlines(connection)
    for kb_number, number, content in connection.execute(
            "SELECT k.number, a.number, a.content FROM articles AS a JOIN knowledge_bases AS k ON "
            "k.id = a.knowledge_base_id WHERE a.status = 'published' AND (instr(a.content, '://') > 0 OR "
            "instr(a.content, '](') > 0)").fetchall():
        table = index_table(kb_number)
        connection.execute(f"UPDATE {table} SET content = ? WHERE rowid = ?", (indexed_text(content), number))


def fill_outlines(connection: Any) -> None:
    """Every article's outline, from its content (the data part of the upgrade from schema 4, on both engines)."""
    rows = connection.execute("SELECT number, content FROM articles").fetchall()
    connection.executemany("UPDATE articles SET outline = ? WHERE number = ?",
                           [(outline_of(content), number) for number, content in rows])


LAYOUT = Layout(
    name="knowledge-base", application_id=0x4F53_4B42, version=5, schema=SCHEMA,  # "OSKB"
    tables=frozenset({"knowledge_bases", "articles", "article_index"} |  # as the version before the marks left them
                     {f"article_index_{shadow}" for shadow in ("data", "idx", "content", "docsize", "config")}),
    upgrades={1: _upgrade_from_1, 2: _upgrade_from_2, 3: _upgrade_from_3, 4: _upgrade_from_4},
    data_upgrades={4: fill_outlines}, postgres_schema=POSTGRES_SCHEMA, postgres_upgrades=POSTGRES_UPGRADES)


def connect(path: str = ":memory:", *, granted: Optional[Iterable[str]] = None,
            clock: Optional[Callable[[], Any]] = None, caller: str = DEFAULT_CALLER,
            durability: str = DURABILITY_DEFAULT, read_only: Optional[bool] = None,
            busy_timeout: float = BUSY_TIMEOUT_SECONDS, scopes: Iterable[str] = (WRITE_SCOPE,)) -> "KnowledgeBaseStore":
    """Open a knowledge-base store on `path`: ":memory:", a file several processes may share, or a postgresql://
    URL several machines may share (README, "Beyond one machine").

    granted: the knowledge-base IDs this caller may use (None: all); caller: whose idempotency keys these are;
    scopes: the OAuth scopes it holds (an edit needs osfoundry:write);
    durability: "full" (every acknowledged edit survives a power cut) or "normal" (it survives a killed
    process); read_only: True serves the file for reading only, and None does so when the process may not
    write it (edits then answer read_only); a file another store or a newer version wrote is refused with
    database.UnusableFile.
    """
    return open_store(KnowledgeBaseStore, path, LAYOUT, busy_timeout=busy_timeout, durability=durability,
                      read_only=read_only, clock=clock, granted=granted, caller=caller, scopes=scopes)


_SECTION_TEXTS = "SELECT number, substr(content, 1, {read}) FROM articles WHERE number IN ({{numbers}})"
SECTIONS_NAMED = 20  # the anchors a rejection of an unknown section lists, the first


def answering_parts(connection: sqlite3.Connection, answering: Dict[int, Answering]) -> Dict[int, Tuple[str, str]]:
    """Each article's answering section (article number -> its anchor and place), as (anchor, the section's
    text)."""
    if not answering:
        return {}
    statement = _SECTION_TEXTS.format(read=OPENING_READ)
    return {number: (answering[number].anchor, answering[number].text(opening))
            for number, opening in in_chunks(connection, statement, list(answering))}


def section_of(content: str, name: str, kb: str, article_id: str) -> str:
    """The part of `content` under the heading a search named `name`, to the next heading of the same or a higher
    level; NotFound, naming the article's sections, where it has no such heading."""
    parts = content_parts(content)
    for part in parts:
        if part.anchor == name:
            return content[part.start:part.end]
    named = ", ".join(json.dumps(part.anchor, ensure_ascii=False) for part in parts[:SECTIONS_NAMED])  # as sent back
    more = f" and {len(parts) - SECTIONS_NAMED} more" if len(parts) > SECTIONS_NAMED else ""
    raise NotFound(f"article {quote(article_id, ascii_only=True)} of knowledge base {json.dumps(kb)} has no section "
                   f"{json.dumps(name)}. Pass the section a search_knowledge_base result named for this article, or "
                   "leave section out to read the whole article. "
                   + (f"Its sections: {named}{more}." if parts else "It has no headings."))


SNIPPETS = "snippets"  # the key of a database's derived dict under which searches keep the snippets they quoted
SNIPPETS_KEPT = 4096  # snippets kept, the latest quoted: a day's questions asked again over its articles fit
_NO_PART: Tuple[Optional[str], str] = (None, "")  # a result's anchor and section where the search named none


def results_of(kb: str, rows: Iterable[Sequence[Any]], parts: Dict[int, Tuple[str, str]], looked_for: str,
               kept: Dict[Any, Any]) -> List[Dict[str, Any]]:
    """A search's results, from its rows (kb_search's _RESULT) in order: each snippet quoted from the article's
    answering section where the search named one (`parts`: article number -> its anchor and text), else from its
    opening; `looked_for`, the words that found them. A snippet is quoted once per article version, section and
    words, and kept in `kept`, the database's derived dict (so inside the transaction): an article's (number,
    updated_at) names one content."""
    snippets = kept.get(SNIPPETS)
    if snippets is None:
        snippets = kept[SNIPPETS] = {}
    results = []
    for number, article_id, title, version, cut, opening in rows:
        anchor, section = parts.get(number, _NO_PART) if parts else _NO_PART
        if not section:
            anchor = None  # no text under its heading: the opening is quoted
        key = (number, version, anchor, looked_for)
        quoted = snippets.get(key)
        if quoted is None:
            quoted = snippets[key] = (snippet_of(section[:OPENING], len(section), looked_for) if anchor is not None
                                      else snippet_of(opening, len(opening) + cut, looked_for))
            if len(snippets) > SNIPPETS_KEPT:
                del snippets[next(iter(snippets))]  # the one kept longest
        found = {"article_id": article_id, "title": title, "updated_at": version, "snippet": quoted,
                 "citation": citation(kb, article_id, version)}
        if anchor is not None:
            found["section"] = anchor
        results.append(found)
    return results


class KnowledgeBaseStore(AgentTools):
    """Knowledge bases and their articles: agent tools through call_tool, people's actions as methods."""

    TOOLS: Tuple[Tool, ...] = (SEARCH_KNOWLEDGE_BASE, READ_KNOWLEDGE_ARTICLE, EDIT_KNOWLEDGE_ARTICLE,
                               POLL_RESOURCE_EVENTS)
    RESOURCE_TYPE = "knowledge_base"
    GRANT_KEY = "knowledge_bases"  # a token file lists the knowledge bases a grant allows under this key
    EVENTS = EventLog(subject_key="article_id", version_key="updated_at")
    reranker: Any = None  # with --rerank: the kb_vectors.KeptVectors that re-orders each search's weighed matches

    # -- the agent side ------------------------------------------------------

    def _tool_search_knowledge_base(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        kb, query = arguments["knowledge_base_id"], arguments["query"]
        words = subject_words(query_words(query))
        with self.database.read() as connection:
            kept = self.database.derived()  # asked once (a file's costs a statement), used inside the transaction
            number = self._require_granted(connection, kb, kept)
            if not words:
                return {"results": []}
            rows, used, answering = search_rows(
                connection, kb, number, words, arguments.get("limit", SEARCH_LIMIT_DEFAULT), kept, exact_tokens(query),
                Rerank(self.reranker, query) if self.reranker else None)
            parts = answering_parts(connection, {row[0]: answering[row[0]] for row in rows if row[0] in answering}
                                    ) if answering else {}
            return {"results": results_of(kb, rows, parts, " ".join(used), kept)}

    def _tool_read_knowledge_article(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        kb, article_id = arguments["knowledge_base_id"], arguments["article_id"]
        with self.database.read() as connection:
            self._require_granted(connection, kb)
            row = connection.execute(READ_ARTICLE, (kb, article_id)).fetchone()
            if row is None:
                raise _not_visible(kb, article_id)
        article_id, title, content, version = row
        read = {"article_id": article_id, "title": title, "content": content, "updated_at": version,
                "citation": citation(kb, article_id, version)}
        if "section" in arguments:
            read["content"], read["section"] = section_of(content, arguments["section"], kb, article_id), \
                arguments["section"]
        return read

    def _tool_edit_knowledge_article(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        expected = format_time(checked_time(arguments["expected_version"]))  # one spelling of each instant
        arguments = dict(arguments, expected_version=expected)
        kb = arguments["knowledge_base_id"]
        return self.keyed_edit(EDIT_KNOWLEDGE_ARTICLE, kb, arguments,
                               lambda arguments, connection: self._require_granted(connection, kb),
                               lambda arguments, connection, kb_number, now, stamp: self._compare_and_swap(
                                   connection, arguments, now, kb_number))

    def _compare_and_swap(self, connection: sqlite3.Connection, arguments: Dict[str, Any],
                          now: Any, kb_number: int) -> Dict[str, Any]:
        kb, article_id = arguments["knowledge_base_id"], arguments["article_id"]
        row = self._visible(connection, kb, article_id)
        if row["updated_at"] != arguments["expected_version"]:
            raise EDITED.conflict(article_id, arguments["expected_version"])
        version = self._save(connection, row, now, title=arguments.get("title"), content=arguments["content"],
                             kb_number=kb_number)
        return {"citation": citation(kb, article_id, version)}

    def _as_people_see(self, name: str, arguments: Any) -> Optional[Dict[str, Any]]:
        """An edit's article as a person reads it (agent_tools.Preview's subject), if this caller may see it."""
        if name != EDIT_KNOWLEDGE_ARTICLE.name or not isinstance(arguments, dict):
            return None
        kb, article_id = arguments.get("knowledge_base_id"), arguments.get("article_id")
        if not isinstance(kb, str) or not isinstance(article_id, str) or not self.is_granted(kb):
            return None
        with self.database.read() as connection:
            row = connection.execute(SELECT_ARTICLE, (kb, article_id)).fetchone()
        if row is None or row["status"] != "published":
            return None
        return {"kind": "article", "id": article_id, "where": kb, "title": row["title"], "content": row["content"]}

    def _granted_log(self, connection: sqlite3.Connection, kb: str) -> str:
        """A knowledge base's event log is kept under its ID (once it exists and is granted)."""
        self._require_granted(connection, kb)
        return kb

    def _require_granted(self, connection: sqlite3.Connection, kb: str, kept: Optional[Dict[Any, Any]] = None) -> int:
        """The knowledge base's number; NotFound unless it exists and is granted, both failures read the same
        (`kept`: the database's derived dict, where the caller has it already)."""
        number = self._known_number(connection, kb, kept) if self.is_granted(kb) else None
        if number is None:
            raise NotFound(f"knowledge base {quote(kb, ascii_only=True)} was not found among the knowledge bases "
                           "granted to you. Check the knowledge_base_id; IDs are case-sensitive.")
        return number

    def _known_number(self, connection: sqlite3.Connection, kb: str,
                      kept: Optional[Dict[Any, Any]] = None) -> Optional[int]:
        """The number of a knowledge base (its search index's), or None if there is none by this ID. A knowledge
        base's row never changes once written, so its number is read once and kept in the database's derived()
        dict, which forgets it whenever the file may have changed under it; a knowledge base not found is read
        again each time, since another connection may create it (`kept`: that dict, where the caller has it)."""
        if kept is None:
            kept = self.database.derived()
        number = kept.get(("knowledge base", kb))
        if number is None:
            number = _number_of(connection, kb)
            if number is not None:
                kept[("knowledge base", kb)] = number
        return number

    @staticmethod
    def _visible(connection: sqlite3.Connection, kb: str, article_id: str) -> sqlite3.Row:
        """The article if agents may see it (published); NotFound, worded alike, for every other case."""
        row = connection.execute(SELECT_ARTICLE, (kb, article_id)).fetchone()
        if row is None or row["status"] != "published":
            raise _not_visible(kb, article_id)
        return row

    # -- the people side -----------------------------------------------------

    def create_knowledge_base(self, knowledge_base_id: str, name: Optional[str] = None) -> None:
        """Add an empty knowledge base, with its own search index; ValueError if the ID is taken or unsound."""
        checked_id(knowledge_base_id, "a knowledge base ID")
        name = checked_text(knowledge_base_id if name is None else name, "a knowledge base's name", NAME_CHARACTERS)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            if self._known_number(connection, knowledge_base_id) is not None:
                raise IdTaken(f"knowledge base {knowledge_base_id!r} already exists")
            number = dialect_of(connection).next_number(connection, "knowledge_bases")
            connection.execute("INSERT INTO knowledge_bases (id, name, number) VALUES (?, ?, ?)",
                               (knowledge_base_id, name, number))
            search_sql(connection).create_index(connection, number)

    def create_article(self, knowledge_base_id: str, title: str, content: str, *, published: bool = True,
                       article_id: Optional[str] = None) -> Dict[str, str]:
        """Add an article, published or as a draft; returns its citation. ValueError for a bad argument or a taken
        ID, NotFound for a knowledge base that does not exist."""
        if not isinstance(published, bool):
            raise ValueError(f"published must be True or False, not {show(published)!r}")
        status = "published" if published else "draft"
        if article_id is not None:
            checked_id(article_id, "an article ID")
        _check_text(title, content)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            kb_number = self._known_number(connection, checked_id(knowledge_base_id, "a knowledge base ID"))
            if kb_number is None:
                raise NotFound(f"knowledge base {knowledge_base_id!r} does not exist")
            taken = article_id is not None and connection.execute(SELECT_ARTICLE, (knowledge_base_id, article_id))
            if taken and taken.fetchone():
                raise IdTaken(f"knowledge base {knowledge_base_id!r} already has an article {article_id!r}")
            number = dialect_of(connection).next_number(connection, "articles")
            article_id = article_id or next_id(connection, ARTICLES_COUNTED, knowledge_base_id, "art", SELECT_ARTICLE)
            version = format_time(self.clock())
            connection.execute("INSERT INTO articles (number, knowledge_base_id, id, title, content, opening, "
                               "outline, status, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                               (number, knowledge_base_id, article_id, title, content, opening_of(content),
                                outline_of(content), status, version))
            self._index(connection, kb_number, number, title, content, status)
            self._log(connection, knowledge_base_id, article_id, event_for(None, status, False), version)
        return citation(knowledge_base_id, article_id, version)

    def save_article(self, knowledge_base_id: str, article_id: str, *, content: Optional[str] = None,
                     title: Optional[str] = None) -> Dict[str, str]:
        """A person saves new content and/or a new title (last writer wins); returns the new citation."""
        if content is None and title is None:
            raise ValueError("save_article needs new content, a new title, or both")
        _check_text(title, content)
        return self._change(knowledge_base_id, article_id, title=title, content=content)

    def unpublish_article(self, knowledge_base_id: str, article_id: str) -> Dict[str, str]:
        """Take a published article away from agents; returns the new citation."""
        return self._change(knowledge_base_id, article_id, status="unpublished", needs=("published",))

    def publish_article(self, knowledge_base_id: str, article_id: str) -> Dict[str, str]:
        """Make a draft or unpublished article visible to agents; returns the new citation."""
        return self._change(knowledge_base_id, article_id, status="published", needs=("draft", "unpublished"))

    def add_views(self, knowledge_base_id: str, article_id: str, views: int) -> None:
        """Count `views` more people's views of an article (help-centre traffic): no new version, no event."""
        if not isinstance(views, int) or isinstance(views, bool) or views < 0:
            raise ValueError(f"views must be a whole number of at least 0, got {show(views)!r}")
        with self.database.write() as connection:
            row = self._stored(connection, knowledge_base_id, article_id, lock=True)
            if views > SQLITE_INTEGER_MAX - row["views"]:
                raise ValueError(f"article {article_id!r} cannot count {views} more views: the count would pass "
                                 f"{SQLITE_INTEGER_MAX}")
            connection.execute("UPDATE articles SET views = views + ? WHERE number = ?", (views, row["number"]))

    def optimize_search_index(self) -> None:
        """Merge each knowledge base's search index into one segment, as after a bulk import: searches read
        less, and rank the same."""
        with self.database.write() as connection:
            search_sql(connection).optimize(connection)

    def has_knowledge_base(self, knowledge_base_id: str) -> bool:
        """Whether a knowledge base of this ID exists, granted or not (people see every one); reads only."""
        with self.database.read() as connection:
            return self._known_number(connection, knowledge_base_id) is not None

    def article(self, knowledge_base_id: str, article_id: str) -> Dict[str, Any]:
        """The stored article whatever its status: the ground truth simulations check against."""
        with self.database.read() as connection:
            row = self._stored(connection, knowledge_base_id, article_id)
        return {"knowledge_base_id": knowledge_base_id, "article_id": article_id, "title": row["title"],
                "content": row["content"], "status": row["status"], "updated_at": row["updated_at"],
                "views": row["views"]}

    def _change(self, kb: str, article_id: str, *, needs: Tuple[str, ...] = STATUSES, title: Optional[str] = None,
                content: Optional[str] = None, status: Optional[str] = None) -> Dict[str, str]:
        """One person's save, allowed only from the statuses in `needs`."""
        with self.database.write() as connection:
            row = self._stored(connection, kb, article_id, lock=True)
            if row["status"] not in needs:
                raise ValueError(f"article {article_id!r} is {row['status']}, not {' or '.join(needs)}")
            version = self._save(connection, row, self.clock(), title=title, content=content, status=status)
        return citation(kb, article_id, version)

    @staticmethod
    def _stored(connection: sqlite3.Connection, kb: Any, article_id: Any, lock: bool = False) -> sqlite3.Row:
        """An article whatever its status, for the people's side (`lock`: held until COMMIT, for a save);
        ValueError for IDs that are no text."""
        statement = SELECT_ARTICLE + dialect_of(connection).row_lock if lock else SELECT_ARTICLE
        row = connection.execute(statement, (checked_id(kb, "a knowledge base ID"),
                                             checked_id(article_id, "an article ID"))).fetchone()
        if row is None:
            raise NotFound(f"no article {article_id!r} in knowledge base {kb!r}")
        return row

    # -- one save, whoever makes it --------------------------------------------

    def _save(self, connection: sqlite3.Connection, row: sqlite3.Row, now: Any, *, title: Optional[str] = None,
              content: Optional[str] = None, status: Optional[str] = None, kb_number: Optional[int] = None) -> str:
        """Inside a write: compare-and-swap the row to a new version, re-index it, log its event (kb_number: its
        knowledge base's, when the caller has it already)."""
        number, kb, before = row["number"], row["knowledge_base_id"], row["updated_at"]  # each read once
        old_title, old_status = row["title"], row["status"]
        title = old_title if title is None else title
        content = row["content"] if content is None else content
        status = old_status if status is None else status
        version = next_time_version(before, now)
        swapped = connection.execute(UPDATE_ARTICLE, (title, content, opening_of(content), outline_of(content), status,
                                                      version, number, before)).rowcount
        if swapped != 1:
            raise EDITED.conflict(row["id"], before)
        if kb_number is None:
            kb_number = self._known_number(connection, kb) or _existing_number(connection, kb)  # numbers start at 1
        self._index(connection, kb_number, number, title, content, status)
        self._log(connection, kb, row["id"], event_for(old_status, status, title != old_title), version)
        return version

    def _index(self, connection: sqlite3.Connection, kb_number: int, number: int, title: str, content: str,
               status: str) -> None:
        """Keep an article searchable exactly while it is published (Fts5Search.index_article)."""
        search_sql(connection).index_article(self.database, connection, kb_number, number, title, content, status)
        if self.reranker:  # --rerank: an unpublished article's vectors dropped, a published one's embedded after
            self.reranker.keep(connection, number, status)

    def _log(self, connection: sqlite3.Connection, kb: str, article_id: str, event: Optional[str],
             version: str) -> None:
        if event is not None:
            self.EVENTS.append(connection, kb, event, article_id, version)


def _not_visible(kb: str, article_id: str) -> NotFound:
    """What a read or an edit of an article agents may not see answers: the same for a missing one."""
    return NotFound(f"article {quote(article_id, ascii_only=True)} was not found among the published articles of "
                    f"knowledge base {json.dumps(kb)}. Use search_knowledge_base to find current articles.")


def _check_text(title: Optional[str], content: Optional[str]) -> None:
    """People's titles and contents keep the limits agents' edits keep; ValueError naming the one that does not
    (the title first). Each name is written out, not built per call: every save of a person checks its text."""
    if title is not None:
        checked_text(title, "an article's title", TITLE_MAX_CHARACTERS)
    if content is not None:
        checked_text(content, "an article's content", CONTENT_MAX_CHARACTERS)


def _number_of(connection: sqlite3.Connection, kb: str) -> Optional[int]:
    """The number of a knowledge base (its search index's), or None if there is none by this ID."""
    row = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (kb,)).fetchone()
    return None if row is None else row["number"]


def _existing_number(connection: sqlite3.Connection, kb: str) -> int:
    """The number of a knowledge base that must exist (an article's own); LookupError if it does not."""
    number = _number_of(connection, kb)
    if number is None:
        raise LookupError(f"knowledge base {kb!r} does not exist")
    return number
