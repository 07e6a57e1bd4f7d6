"""Knowledge-base store: osFoundry's four knowledge-base agent tools, reconstructed on sqlite (or PostgreSQL).

Layer: a store. Agents reach it only through `call_tool` (search_knowledge_base,
read_knowledge_article, edit_knowledge_article, poll_resource_events); people
reach it through plain methods (create_article, save_article, unpublish_article,
publish_article, add_views). Names, required arguments, limits and annotations are
the published ones (SPEC §1.1); result shapes and the ranking are this
reconstruction's own.

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
published); unpublishing writes `unpublished`. Saves of drafts and of unpublished
articles write none: agents cannot see those articles, so the log, which agents
read, does not show them either.

    >>> store = connect()
    >>> store.create_knowledge_base("kb-support")
    >>> store.create_article("kb-support", "Reset a password", "Open Settings, then Security.")["article_id"]
    'art-00001'
"""

import functools
import json
import math
import re
import sqlite3
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from database import DURABILITY_DEFAULT, Layout, add_column
from engines import open_store
import kb_sections
from kb_sections import SECTION_READ, indexed_text, markdown_headings
from plumbing import (
    BUSY_TIMEOUT_SECONDS, DEFAULT_CALLER, ID_CHARACTERS, IDEMPOTENCY_KEY, NAME_CHARACTERS, POLL_RESOURCE_EVENTS,
    READ_ONLY, SHARED_WRITE, SQLITE_INTEGER_MAX, WRITE_SCOPE, AgentTools, EventLog, IdTaken, KeyScope, NotFound, Tool,
    VersionConflict, checked_id, checked_text, checked_time, dialect_of, format_time, idempotent, integer,
    next_time_version, object_schema, quote, show, string, upgrade_idempotency_keys,
)

STATUSES = ("draft", "published", "unpublished")
SEARCH_LIMIT_DEFAULT = 10
TITLE_MAX_CHARACTERS = 200
CONTENT_MAX_CHARACTERS = 100_000
TITLE_WEIGHT = 4.0  # bm25 weight of a title match against 1.0 for a content match
SNIPPET_WORDS = 16  # words of content a search result quotes
SNIPPET_LEAD = 3    # of which this many come before the first query word found
SNIPPET_CHARACTERS = 300  # and at most this many characters, however long the words
SNIPPET_SCAN = 4000  # characters of content searched for the first query word (else the snippet is the start)
SNIPPET_STEMS = 8  # distinct query words a snippet looks for (a question seldom holds more)
SNIPPET_REACH = (200, 800)  # characters before and after the hit where the snippet's words are cut
OPENING = SNIPPET_SCAN + SNIPPET_REACH[1]  # a content longer than this keeps its opening apart, for searches
STEM_KEEP = 4       # a query word also finds words that start with its first max(4, length - 4) letters

# ---------------------------------------------------------------------------
# The tools, as data: listed as is and enforced on every call.

_KB_ID = string(1, ID_CHARACTERS, "A knowledge base ID you were granted.")
_ARTICLE_ID = string(1, ID_CHARACTERS, "An article ID, as a search result or citation gives it.")
_VERSION = {"type": "string", "format": "date-time",
            "description": "An article's updated_at, RFC 3339 UTC with microseconds."}
CITATION_SCHEMA = object_schema(
    {"knowledge_base_id": {"type": "string"}, "article_id": {"type": "string"}, "updated_at": _VERSION},
    ["knowledge_base_id", "article_id", "updated_at"])

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
        "a few words apart count more than the same words scattered. The other matching articles follow most "
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
        "unpublished articles answer not_found, like missing ones."
    ),
    input_schema=object_schema({"knowledge_base_id": _KB_ID, "article_id": _ARTICLE_ID},
                               ["knowledge_base_id", "article_id"]),
    output_schema=object_schema({
        "article_id": {"type": "string"},
        "title": {"type": "string"},
        "content": {"type": "string"},
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
INDEX = ("CREATE VIRTUAL TABLE IF NOT EXISTS {table} USING fts5("
         "title, content, tokenize = 'porter unicode61 remove_diacritics 2')")
MERGE_PAGES = 16
# How a search index stays small without a slow write. Every transaction that writes an index adds a segment to
# it, and a search reads every segment, so segments must be merged as they come. FTS5 does it by itself
# ('automerge') after every 64 leaf pages written, as much as is due then, all in the write that crossed the
# mark: with 400 articles, one edit in 64 rewrote up to the whole index, several times an edit's work. Here
# automerge is off (merge_by_budget) and each transaction that writes an index pays for it before it commits:
# at most MERGE_PAGES pages of merging per article it wrote ('merge', a positive budget: only levels holding
# 'usermerge', 4, segments, or a merge already begun). That is more than an edit adds at any level, so the
# segments stay as few as automerge keeps them, and the index and the file as small; a bulk import pays in one
# go at its end. 'crisismerge' (16 segments on one level merged at once) still backs it up.
# Each knowledge base has a search index of its own, holding exactly its published articles: bm25's counts
# (how rare a word is, how long an article is) then come from what this caller may search and nothing else,
# so no ranking can tell whether a word occurs in a knowledge base outside the grant. Snippets are cut in
# Python from the few rows returned: FTS5's snippet() would tokenise every matching article before the LIMIT.

SELECT_ARTICLE = "SELECT * FROM articles WHERE knowledge_base_id = ? AND id = ?"
UPDATE_ARTICLE = ("UPDATE articles SET title = ?, content = ?, opening = ?, outline = ?, status = ?, updated_at = ? "
                  "WHERE number = ? AND updated_at = ?")
_RESULT = ("SELECT a.number, a.id, a.title, a.updated_at, a.opening IS NOT NULL AS cut, "
           "COALESCE(a.opening, a.content) AS opening")  # what a snippet may quote; a long content is never read


def index_table(number: int) -> str:
    """The search index of the knowledge base of this number."""
    return f"search_index_{int(number)}"


# How a search stays bounded (the rule SEARCH_KNOWLEDGE_BASE's description and the README state). A knowledge
# base of at most WORD_SAMPLE articles ranks every match by bm25 over every query word. A larger one:
#   common word  one held by at least half of its first WORD_SAMPLE articles. bm25 weighs such a word nothing
#                (FTS5 floors the IDF, log((N - n + 0.5) / (n + 0.5)), at 1e-6 once n >= N / 2) yet reads its
#                whole document list to count n. When the query holds a rarer word, the common words are left
#                out: they neither rank an article nor make it a match.
#   ranked       at most RANKED_MATCHES matching articles are ranked, the first created; the best text match
#                comes first, the other matches most viewed first, then by bm25, then by article ID.
#   listed       a query of common words only (or whose rarer words match nothing) has no text ranking: of the
#                first RANKED_MATCHES articles holding any of its words, the most viewed first, then the oldest.
# What still grows with the knowledge base is bm25's count of each ranked word's articles: one pass over its
# document list (held by fewer than half of them), as the bare FTS5 query makes too.
RANKED_MATCHES = 1000  # matching articles a search ranks at most: bm25 costs microseconds per article, these ms
WORD_SAMPLE = RANKED_MATCHES  # a larger knowledge base counts a word's share over its first this many articles
# (to within a few points), and one no larger never meets the cap on ranked matches


class SearchStatements(NamedTuple):
    """The statements of one knowledge base's searches: bm25 inside FTS5 first, the articles' rows after."""

    scored: str  # the first :ranked matches of :words, each with its bm25 score
    scored_with_views: str  # the same with each article's views and ID
    listed: str  # the first :ranked matches of :words, each with its views


_LENGTHS = "{table}_docsize"  # FTS5's own row of column lengths per indexed article, by rowid: its articles in order
_PLAN = ("WITH sample (last, large) AS (SELECT min(id), count(*) > 1 FROM "  # the :sample-th article, and one more?
         "(SELECT id FROM {lengths} ORDER BY id LIMIT 2 OFFSET :sample - 1)), "
         "shape (outlined) AS (SELECT EXISTS (SELECT 1 FROM articles WHERE knowledge_base_id = :kb AND outline <> '')) "
         "SELECT large, EXISTS (SELECT 1 FROM articles WHERE knowledge_base_id = :kb AND views > 0), outlined, "
         "CASE WHEN outlined AND NOT large THEN (SELECT count(*) FROM (SELECT 1 FROM {lengths} LIMIT :sample)) "
         "ELSE :sample END{counts} "
         "FROM sample, shape")
_WORD_COUNT = (", CASE WHEN large THEN (SELECT count(*) FROM {table} WHERE {table} MATCH :word{n} AND rowid <= last) "
               "WHEN outlined THEN (SELECT count(*) FROM {table} WHERE {table} MATCH :word{n}) END")
_SCORED = ("SELECT rowid AS number, bm25({table}, {title}, 1.0) AS score FROM {table} WHERE {table} MATCH :words "
           "ORDER BY rowid LIMIT :ranked")  # FTS5's own order: the first created first, bm25 for these only
_WITH_VIEWS = ("SELECT c.number, c.score, a.views, a.id FROM ({scored}) AS c JOIN articles AS a ON a.number = c.number "
               "WHERE a.status = 'published'")
_LISTED = ("SELECT c.number, a.views FROM (SELECT rowid AS number FROM {table} WHERE {table} MATCH :words "
           "ORDER BY rowid LIMIT :ranked) AS c JOIN articles AS a ON a.number = c.number WHERE a.status = 'published'")


@functools.lru_cache(maxsize=256)
def search_statements(number: int) -> SearchStatements:
    """The ranking statements of the knowledge base of this number."""
    table = index_table(number)
    scored = _SCORED.format(table=table, title=TITLE_WEIGHT)
    return SearchStatements(scored, _WITH_VIEWS.format(scored=scored), _LISTED.format(table=table))


RESULTS_READ = 500  # article numbers per statement: sqlite before 3.32 takes at most 999 values


@functools.lru_cache(maxsize=64)
def results_statement(articles: int) -> str:
    """The rows a search answers with, of `articles` article numbers (in no order)."""
    return f"{_RESULT} FROM articles AS a WHERE a.number IN ({', '.join('?' * articles)})"


@functools.lru_cache(maxsize=256)
def plan_statement(number: int, words: int) -> str:
    """Whether the knowledge base of this number holds more than :sample articles, whether people recorded views
    (:kb), whether some article has headings, and, in a larger one or one with headings, how many of its first
    :sample articles there are and how many of them hold each of `words` query words (:word0, :word1 ...): a count
    reads at most :sample entries of the word's document list."""
    table = index_table(number)
    counts = "".join(_WORD_COUNT.format(table=table, n=n) for n in range(words))
    return _PLAN.format(lengths=_LENGTHS.format(table=table), counts=counts)


class SearchPlan(NamedTuple):
    """What a search learns before it ranks: whether the knowledge base is larger than WORD_SAMPLE articles,
    whether people recorded views, whether articles have headings, and (in a larger one, or one with headings) how
    many of its first WORD_SAMPLE articles hold each query word."""

    large: bool
    has_views: bool
    outlined: bool  # some article has headings: its title and headings are weighed (weighed_scores)
    sampled: int  # the articles the words were counted over: the first WORD_SAMPLE, or all in a smaller one
    counts: Dict[str, int]

    @classmethod
    def read(cls, connection: sqlite3.Connection, kb: str, number: int, words: List[str]) -> "SearchPlan":
        """One statement; the words are counted in a larger knowledge base, or one with headings, only."""
        sql = search_sql(connection)
        values = {f"word{n}": sql.phrase(word) for n, word in enumerate(words)}
        large, has_views, outlined, sampled, *counts = connection.execute(
            sql.plan_statement(number, len(words)), dict(values, sample=WORD_SAMPLE, kb=kb)).fetchone()
        return cls(bool(large), bool(has_views), bool(outlined), sampled,
                   {word: count or 0 for word, count in zip(words, counts)})

    def is_common(self, word: str) -> bool:
        """Held by at least half of the sample, where bm25 weighs it nothing (a smaller knowledge base has none)."""
        return self.large and 2 * self.counts[word] >= WORD_SAMPLE

    def rarer(self) -> List[str]:
        """The words that rank: those not common, in query order."""
        return [word for word in self.counts if not self.is_common(word)]

    def common(self) -> List[str]:
        """The words only a query of common words lists by."""
        return [word for word in self.counts if self.is_common(word)]


def ranked_rows(connection: sqlite3.Connection, plan: SearchPlan, number: int, words: List[str], limit: int,
                kb: str, kept: Dict[Any, Any]) -> List[sqlite3.Row]:
    """The rows of the first RANKED_MATCHES articles of knowledge base `kb` (of this number) that hold any of `words`
    in ranking order, `limit` at most: scored in the index, the best WEIGHED_MATCHES weighed by their whole text, best
    section, nearness and title (weighed_scores, which keeps the articles' texts as it read them in `kept`, the
    database's derived dict), then the chosen rows read (each match is joined to its views and ID only where people
    recorded views)."""
    sql = search_sql(connection)
    statements = sql.statements(number, len(words))
    values = dict(sql.ranking_values(plan, words), words=sql.any_of(words), ranked=RANKED_MATCHES, kb=kb,
                  sample=WORD_SAMPLE)
    weights = word_weights(plan, words) if plan.outlined else None
    if plan.has_views:
        scored = connection.execute(statements.scored_with_views, values).fetchall()
        weighed = weighed_scores(connection, {row[0]: row[1] for row in scored}, weights, kept) if weights else None
        return rows_in_order(connection, [row[0] for row in best_then_most_viewed(scored, limit, weighed)])
    score = {number: score for number, score in connection.execute(statements.scored, values)}
    if weights:
        score = weighed_scores(connection, score, weights, kept)
    rows = article_rows(connection, within_best_scores(score, limit))
    return sorted(rows, key=lambda row: (score[row["number"]], row["id"]))[:limit]


# How the best text matches are weighed (the title and the best section counting apart from the whole text). bm25
# lets a word that fills a long text outweigh the same word in a title, and weighs nothing a word held by half the
# articles or more: in a small knowledge base of documentation, "github" or "install" is such a word, even in the
# one title that names the subject. And documentation answers under one heading of a page whose title is broader,
# while a long page may hold a question's words scattered over ten sections. So each of the WEIGHED_MATCHES best
# text matches scores, highest first:
#   TEXT_SHARE      x its whole text's score as a share of the best among them (kb_sections: bm25 over the first
#                     SECTION_READ characters of each, the same on both engines)
#   + SECTION_SHARE x its best section's score as a share of the best one among them (kb_sections: a heading and
#                     the text under it, scored by bm25 over the sections of these matches)
#   + NEAR_SHARE    x the nearness of the query words in its text as a share of the best among them (kb_sections:
#                     different query words a few words apart, the nearer the more)
#   + TITLE_SHARE   x the weights of the query words its title holds
# where a word's weight is how rare it is among the articles (word_weights: a word every article holds still
# counts a little, where FTS5's bm25 counts it nothing) and a text, section or title holds a word when one of its
# words has the same stem (word_stems: Porter's, as FTS5 stems). The engine's own score chooses the matches
# weighed, and orders the others.
# Only a knowledge base whose articles have headings (an outline) is weighed so. Its documents are built around
# their titles and headings; the simulated day's articles are plain text, and there weighing their titles put the
# question's own article first less often (sim.py's "the target came first": 523 of 600 answers against 553 with
# bm25 alone), so a knowledge base of plain text keeps bm25's order, as the committed results were measured.
WEIGHED_MATCHES = 64
TEXT_SHARE, SECTION_SHARE, NEAR_SHARE, TITLE_SHARE = 2.0, 1.5, 1.0, 1.0


def word_weights(plan: SearchPlan, words: Sequence[str]) -> Dict[str, float]:
    """Each word's weight: bm25's inverse document frequency over the articles the plan counted, in the form
    that stays above 0 for a word every article holds (so it still ranks, if barely).

    >>> plan = SearchPlan(False, False, True, 20, {"proxy": 1, "use": 20})
    >>> {word: round(weight, 2) for word, weight in word_weights(plan, ["proxy", "use"]).items()}
    {'proxy': 2.64, 'use': 0.02}
    """
    articles = plan.sampled or 1
    return {word: math.log(1 + (articles - min(plan.counts[word], articles) + 0.5) / (plan.counts[word] + 0.5))
            for word in words}


def weighed_scores(connection: sqlite3.Connection, score: Dict[int, float], weights: Dict[str, float],
                   kept: Dict[Any, Any]) -> Dict[int, float]:
    """The WEIGHED_MATCHES best of `score` (article number -> engine score, the least best), and any tied with
    the last, each weighed by its whole text, its best section, the nearness of the query words in it and its
    title: negative, the least best."""
    chosen = within_best_scores(score, WEIGHED_MATCHES)
    titles, texts = weighing_rows(connection, chosen, kept.setdefault(ARTICLE_TEXTS, kb_sections.ArticleTexts()))
    scored = kb_sections.text_scores(texts, weights)
    best = kb_sections.best_scores(scored.values())
    return {number: -(TEXT_SHARE * scored[number].whole / best.whole
                      + SECTION_SHARE * scored[number].section / best.section
                      + NEAR_SHARE * scored[number].nearness / best.nearness
                      + TITLE_SHARE * kb_sections.held_weight(title, weights))
            for number, title in titles.items()}


ARTICLE_TEXTS = "article texts"  # the key of a database's derived dict under which weighed_scores keeps what it read
_WEIGHED_VERSIONS = "SELECT number, title, updated_at FROM articles WHERE number IN ({numbers})"
_WEIGHED_TEXTS = f"SELECT number, substr(content, 1, {SECTION_READ}) FROM articles WHERE number IN ({{numbers}})"


def weighing_rows(connection: sqlite3.Connection, numbers: List[int], texts: "kb_sections.ArticleTexts"
                  ) -> Tuple[Dict[int, str], Dict[int, "kb_sections.ArticleText"]]:
    """The titles and the texts (kb_sections.article_text) of these article numbers. A text is read from its row
    only when `texts` does not hold it at its version: an article's (number, updated_at) names one content."""
    titles, versions = {}, {}
    for number, title, version in in_chunks(connection, _WEIGHED_VERSIONS, numbers):
        titles[number], versions[number] = title, (number, version)
    read: Dict[int, kb_sections.ArticleText] = {}
    for number, version in versions.items():
        text = texts.get(version)
        if text is not None:
            read[number] = text
    for number, opening in in_chunks(connection, _WEIGHED_TEXTS, [number for number in versions if number not in read]):
        read[number] = kb_sections.article_text(opening)
        texts.put(versions[number], read[number])
    return titles, read


def in_chunks(connection: sqlite3.Connection, statement: str, numbers: List[int]) -> List[Tuple[Any, ...]]:
    """The rows of `statement` (whose {numbers} takes the placeholders) for these article numbers, RESULTS_READ
    numbers per statement."""
    rows: List[Tuple[Any, ...]] = []
    for start in range(0, len(numbers), RESULTS_READ):
        chunk = numbers[start:start + RESULTS_READ]
        rows += [tuple(row) for row in connection.execute(statement.format(numbers=", ".join("?" * len(chunk))),
                                                           chunk).fetchall()]
    return rows


def listed_rows(connection: sqlite3.Connection, has_views: bool, number: int, words: List[str], limit: int,
                kb: str) -> List[sqlite3.Row]:
    """The rows of the first RANKED_MATCHES articles of knowledge base `kb` (of this number) that hold any of
    `words`, most viewed first, then oldest first."""
    sql = search_sql(connection)
    looked_at = RANKED_MATCHES if has_views else limit  # without views, the first matches are the answer
    listed = connection.execute(sql.statements(number, 0).listed,
                                {"words": sql.any_of(words), "ranked": looked_at, "kb": kb}).fetchall()
    return rows_in_order(connection, [number for number, _ in sorted(listed, key=_most_viewed)[:limit]])


def best_then_most_viewed(scored: Sequence[Any], limit: int, weighed: Optional[Dict[int, float]] = None) -> List[Any]:
    """Of rows that start (number, engine score, views, ID): the best first (by `weighed`, number -> weighed score,
    where given, else by score; the smaller ID among equals), then the others most viewed first, then by score,
    then by ID; `limit` rows in all. Without views, that is the order of the scores, then of the IDs.

    >>> best_then_most_viewed([(1, -2.0, 0, "a"), (2, -1.0, 9, "b"), (3, -3.0, 1, "c")], 2)
    [(3, -3.0, 1, 'c'), (2, -1.0, 9, 'b')]
    """
    if not scored:
        return []
    if weighed:
        best = min((row for row in scored if row[0] in weighed), key=lambda row: (weighed[row[0]], row[3]))
    else:
        best = min(scored, key=lambda row: (row[1], row[3]))
    others = sorted((row for row in scored if row is not best), key=lambda row: (-row[2], row[1], row[3]))
    return [best] + others[:limit - 1]


def within_best_scores(score: Dict[int, float], limit: int) -> List[int]:
    """The article numbers whose score is among the `limit` best, every tie of the last included (the article
    ID then orders them)."""
    if len(score) <= limit:
        return list(score)
    last = sorted(score.values())[limit - 1]
    return [number for number, value in score.items() if value <= last]


def _most_viewed(row: Sequence[int]) -> Tuple[int, int]:
    """The order of a listing's row (number, views): most viewed first, then oldest first."""
    return -row[1], row[0]


def rows_in_order(connection: sqlite3.Connection, numbers: List[int]) -> List[sqlite3.Row]:
    """The rows a search answers with, of these article numbers, in their order."""
    found = {row["number"]: row for row in article_rows(connection, numbers)}
    return [found[number] for number in numbers if number in found]


def article_rows(connection: sqlite3.Connection, numbers: List[int]) -> List[sqlite3.Row]:
    """The rows of these article numbers, in no order: one statement per RESULTS_READ of them (more only when
    many ranked articles tie)."""
    rows: List[sqlite3.Row] = []
    for start in range(0, len(numbers), RESULTS_READ):
        chunk = numbers[start:start + RESULTS_READ]
        rows += connection.execute(results_statement(len(chunk)), chunk).fetchall()
    return rows


_WORD = re.compile(r"\w+")

# How a question is matched: by its subject. A query's function words (the grammar of a question: how, do, I,
# the, what, can ...) are left out when it holds any other word, and kept when it holds nothing else, at every
# size of knowledge base and on both engines. In a small knowledge base bm25 would weigh them: "how" and "do" are
# rarer there than the topic word, so a page full of them (a contributing guide, an index) came first. The list
# is grammar only: pronouns, question words, determiners, auxiliary and modal verbs, conjunctions, the commonest
# prepositions, negation, and the pieces contractions leave (don't is "don" and "t"). The particles of phrasal
# verbs (set up, sign out, turn off, is it down) are not on it: there they are the subject. Both engines index
# every word (PostgreSQL's configuration keeps its own stop words too): the query alone decides.
FUNCTION_WORDS = frozenset("""
    i me my myself we us our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves
    what which who whom whose when where why how
    a an the this that these those some any each every all both either neither other such same own
    am is are was were be been being have has had having do does did doing get gets got
    can could will would shall should may might must cannot
    and or nor but if so because as than then while until though although whether
    of to for with at by from about into in on onto via between through during before after against
    not no only just also too very more most much many few there here now again once
    s t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn mustn
""".split())


def subject_words(words: List[str]) -> List[str]:
    """The words a search looks for: the query's words less its function words, or all of them if it holds
    nothing else (FUNCTION_WORDS).

    >>> subject_words(["how", "do", "i", "use", "a", "proxy"]), subject_words(["how", "to"])
    (['use', 'proxy'], ['how', 'to'])
    """
    subject = [word for word in words if word not in FUNCTION_WORDS]
    return subject or words


def query_words(query: str) -> List[str]:
    """The query's words, each once, in order: a repeated word adds nothing but work.

    >>> query_words("reset RESET my reset password")
    ['reset', 'my', 'password']
    """
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(query)))


def match_expression(query: str) -> Optional[str]:
    """The query as an FTS5 expression of quoted words joined by OR; None when it holds no word.

    Quoting every word makes operators, quotes, '*', ':', '-' and parentheses plain text,
    so no query can raise an FTS5 syntax error.

    >>> match_expression('reset -"my" password* OR')
    '"reset" OR "my" OR "password" OR "or"'
    >>> match_expression("?!") is None
    True
    """
    words = query_words(query)
    return any_of(words) if words else None


def phrase(word: str) -> str:
    """One query word as an FTS5 phrase: quoted, so it is plain text (words hold no quote)."""
    return f'"{word}"'


def any_of(words: Iterable[str]) -> str:
    """The FTS5 expression that matches an article holding any of `words`."""
    return " OR ".join(phrase(word) for word in words)


class Fts5Search:
    """The search statements of a knowledge base on sqlite: an FTS5 index of its own, ranked by bm25, merged by
    budget. On PostgreSQL, postgres_database.TsvectorSearch answers the same calls (search_sql)."""

    phrase = staticmethod(phrase)
    any_of = staticmethod(any_of)
    plan_statement = staticmethod(plan_statement)

    @staticmethod
    def statements(number: int, words: int) -> SearchStatements:
        """The ranking statements of the knowledge base of this number: the same for any number of words."""
        return search_statements(number)

    @staticmethod
    def ranking_values(plan: SearchPlan, words: Sequence[str]) -> Dict[str, Any]:
        """No values beyond the words: FTS5's bm25 weighs each word itself."""
        return {}

    @staticmethod
    def create_index(connection: sqlite3.Connection, number: int) -> None:
        """A new knowledge base's own index, merged by budget."""
        connection.execute(INDEX.format(table=index_table(number)))
        merge_by_budget(connection, index_table(number))

    @staticmethod
    def index_article(database: Any, connection: sqlite3.Connection, kb_number: int, number: int, title: str,
                      content: str, status: str) -> None:
        """Keep an article in its knowledge base's search index exactly while it is published; the transaction
        then owes the index MERGE_PAGES more pages of merging, paid before it commits."""
        table = index_table(kb_number)
        connection.execute(f"DELETE FROM {table} WHERE rowid = ?", (number,))
        if status == "published":
            connection.execute(f"INSERT INTO {table} (rowid, title, content) VALUES (?, ?, ?)",
                               (number, title, indexed_text(content)))
        database.at_commit(("merge", table), lambda: IndexMerge(connection, table)).pages += MERGE_PAGES

    @staticmethod
    def optimize(connection: sqlite3.Connection) -> None:
        """Each knowledge base's index merged into one segment."""
        for (number,) in connection.execute("SELECT number FROM knowledge_bases").fetchall():
            table = index_table(number)
            connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


FTS5 = Fts5Search()


def search_sql(connection: Any) -> Any:
    """The search statements of the engine a connection runs on: its dialect's, else sqlite's FTS5."""
    return dialect_of(connection).search or FTS5


def snippet(content: str, query: str) -> str:
    """SNIPPET_WORDS words of `content` from just before the first query word it holds (its start if none).

    A word counts where it starts a word of the text; a word also matches words that begin like it
    (its first max(4, length - 4) letters), a rough stand-in for the index's stemming. The work is
    bounded whatever was stored: SNIPPET_STEMS words looked for in the first SNIPPET_SCAN characters,
    and a snippet of at most SNIPPET_CHARACTERS characters.

    >>> snippet("Open Settings, then Security, and choose Reset password. A link arrives by email.", "resetting")
    '…Security, and choose Reset password. A link arrives by email.'
    """
    return snippet_of(content[:OPENING], len(content), query)


def snippet_of(opening: str, length: int, query: str) -> str:
    """The snippet of a content of `length` characters whose first ones are `opening` (at least SNIPPET_SCAN
    and SNIPPET_REACH's second more, where the content has them): what a search reads of each result."""
    text = opening[:SNIPPET_SCAN].lower()
    starts = [_word_start(text, stem) for stem in _snippet_stems(query)]
    hit = min((start for start in starts if start >= 0), default=0)
    return _quote_around(opening, length, hit)


@functools.lru_cache(maxsize=256)
def _snippet_stems(query: str) -> Tuple[str, ...]:
    """The first SNIPPET_STEMS distinct stems a snippet looks for, worked out once per query, not per result."""
    stems = dict.fromkeys(word[:max(STEM_KEEP, len(word) - 4)] for word in query_words(query))
    return tuple(stems)[:SNIPPET_STEMS]


def _quote_around(content: str, length: int, hit: int) -> str:
    """The words of the snippet: SNIPPET_LEAD before `hit`, the rest from it, cut from a bounded stretch of
    `content`, the opening of a content of `length` characters."""
    reach_before, reach_after = SNIPPET_REACH
    start = max(0, hit - reach_before)
    before = content[start:hit].rsplit(None, SNIPPET_LEAD)
    lead = before[1:] if len(before) > SNIPPET_LEAD else [w for w in before if w]
    after = content[hit:hit + reach_after].split(None, SNIPPET_WORDS - len(lead))
    tail = after[:SNIPPET_WORDS - len(lead)]
    opening = "…" if len(before) > SNIPPET_LEAD or start > 0 else ""
    closing = "…" if len(after) > len(tail) or hit + reach_after < length else ""
    quoted = opening + " ".join(lead + tail) + closing
    return quoted if len(quoted) <= SNIPPET_CHARACTERS else quoted[:SNIPPET_CHARACTERS - 1] + "…"


def opening_of(content: str) -> Optional[str]:
    """What a long content keeps apart for searches: its first OPENING characters; None for one no longer."""
    return content[:OPENING] if len(content) > OPENING else None


OUTLINE_CHARACTERS = 4000  # of headings an outline keeps: a long reference page's hundred headings fit
def outline_of(content: str) -> str:
    """What a search weighs of a content beside its title: its Markdown headings, one a line, at most
    OUTLINE_CHARACTERS; empty for a content without headings (plain text).

    >>> outline_of("Intro.\\n## Install\\n\\nRun it.\\n### Upgrade uv")
    'Install\\nUpgrade uv'
    """
    outline = "\n".join(text for _, _, text in markdown_headings(content.split("\n")))
    return outline[:OUTLINE_CHARACTERS]


def _word_start(text: str, word: str) -> int:
    """Where `word` first begins a word of `text`, or -1; one pass in C whatever the text repeats."""
    start = text.find(word)
    if start <= 0 or not text[start - 1].isalnum():
        return start
    found = _word_pattern(word).search(text, start + 1)
    return found.start() if found else -1


@functools.lru_cache(maxsize=256)
def _word_pattern(word: str) -> "re.Pattern[str]":
    """`word` where no letter or digit comes just before it (the literal first, so the search runs in C)."""
    escaped = re.escape(word)
    return re.compile(f"{escaped}(?<![^\\W_]{escaped})")


def citation(knowledge_base_id: str, article_id: str, updated_at: str) -> Dict[str, str]:
    """The citation of one version of one article."""
    return {"knowledge_base_id": knowledge_base_id, "article_id": article_id, "updated_at": updated_at}


def event_for(before: Optional[str], after: str, renamed: bool) -> Optional[str]:
    """The event a save writes, from the status before (None: new) and after it; None for invisible saves."""
    if after == "published":
        if before is None:
            return "created"
        if before != "published":
            return "published"
        return "renamed" if renamed else "updated"
    return "unpublished" if before == "published" else None


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
    word instead (postgres_database.UPGRADES): FTS5 held every word, and PostgreSQL's parser keeps addresses apart."""
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
    data_upgrades={4: fill_outlines})


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


class KnowledgeBaseStore(AgentTools):
    """Knowledge bases and their articles: agent tools through call_tool, people's actions as methods."""

    TOOLS: Tuple[Tool, ...] = (SEARCH_KNOWLEDGE_BASE, READ_KNOWLEDGE_ARTICLE, EDIT_KNOWLEDGE_ARTICLE,
                               POLL_RESOURCE_EVENTS)
    RESOURCE_TYPE = "knowledge_base"
    EVENTS = EventLog(subject_key="article_id", version_key="updated_at")

    # -- the agent side ------------------------------------------------------

    def _tool_search_knowledge_base(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        kb, words = arguments["knowledge_base_id"], subject_words(query_words(arguments["query"]))
        with self.database.read() as connection:
            number = self._require_granted(connection, kb)
            rows, used = self._ranked(connection, kb, number, words, arguments.get("limit", SEARCH_LIMIT_DEFAULT),
                                      self.database.derived()) if words else ([], [])
        looked_for = " ".join(used)  # a snippet quotes from the first of the words that found the article
        return {"results": [{"article_id": r["id"], "title": r["title"], "updated_at": r["updated_at"],
                             "snippet": snippet_of(r["opening"], len(r["opening"]) + r["cut"], looked_for),
                             "citation": citation(kb, r["id"], r["updated_at"])} for r in rows]}

    @staticmethod
    def _ranked(connection: sqlite3.Connection, kb: str, number: int, words: List[str], limit: int,
                kept: Dict[Any, Any]) -> Tuple[List[sqlite3.Row], List[str]]:
        """The rows a search answers with, `limit` at most, and the words that found them: the rarer words
        ranked, else the common words listed (see WORD_SAMPLE)."""
        plan = SearchPlan.read(connection, kb, number, words)
        rarer, common = plan.rarer(), plan.common()
        if rarer:
            rows = ranked_rows(connection, plan, number, rarer, limit, kb, kept)
            if rows or not common:
                return rows, rarer
        return listed_rows(connection, plan.has_views, number, common, limit, kb), common

    def _tool_read_knowledge_article(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        kb, article_id = arguments["knowledge_base_id"], arguments["article_id"]
        with self.database.read() as connection:
            self._require_granted(connection, kb)
            row = self._visible(connection, kb, article_id)
        return {"article_id": row["id"], "title": row["title"], "content": row["content"],
                "updated_at": row["updated_at"], "citation": citation(kb, row["id"], row["updated_at"])}

    def _tool_edit_knowledge_article(self, arguments: Dict[str, Any]) -> Dict[str, Any]:
        self.require_scope(EDIT_KNOWLEDGE_ARTICLE.name)
        expected = format_time(checked_time(arguments["expected_version"]))  # one spelling of each instant
        arguments = dict(arguments, expected_version=expected)
        with self.database.write() as connection:
            kb_number = self._require_granted(connection, arguments["knowledge_base_id"])
            now = self.clock()
            scope = KeyScope(self.caller, EDIT_KNOWLEDGE_ARTICLE.name, arguments["knowledge_base_id"])
            return idempotent(connection, scope, arguments, format_time(now),
                              lambda: self._compare_and_swap(connection, arguments, now, kb_number))

    def _compare_and_swap(self, connection: sqlite3.Connection, arguments: Dict[str, Any],
                          now: Any, kb_number: int) -> Dict[str, Any]:
        kb, article_id = arguments["knowledge_base_id"], arguments["article_id"]
        row = self._visible(connection, kb, article_id)
        if row["updated_at"] != arguments["expected_version"]:
            raise _conflict(article_id, arguments["expected_version"])
        version = self._save(connection, row, now, title=arguments.get("title"), content=arguments["content"],
                             kb_number=kb_number)
        return {"citation": citation(kb, article_id, version)}

    def _as_people_see(self, name: str, arguments: Any) -> Optional[Dict[str, Any]]:
        """An edit's article as a person reads it (plumbing.Preview's subject), if this caller may see it."""
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

    def _require_granted(self, connection: sqlite3.Connection, kb: str) -> int:
        """The knowledge base's number; NotFound unless it exists and is granted, both failures read the same."""
        number = _number_of(connection, kb) if self.is_granted(kb) else None
        if number is None:
            raise NotFound(f"knowledge base {quote(kb, ascii_only=True)} was not found among the knowledge bases "
                           "granted to you. Check the knowledge_base_id; IDs are case-sensitive.")
        return number

    @staticmethod
    def _visible(connection: sqlite3.Connection, kb: str, article_id: str) -> sqlite3.Row:
        """The article if agents may see it (published); NotFound, worded alike, for every other case."""
        row = connection.execute(SELECT_ARTICLE, (kb, article_id)).fetchone()
        if row is None or row["status"] != "published":
            raise NotFound(f"article {quote(article_id, ascii_only=True)} was not found among the published "
                           f"articles of knowledge base {json.dumps(kb)}. Use search_knowledge_base to find current "
                           "articles.")
        return row

    # -- the people side -----------------------------------------------------

    def create_knowledge_base(self, knowledge_base_id: str, name: Optional[str] = None) -> None:
        """Add an empty knowledge base, with its own search index; ValueError if the ID is taken or unsound."""
        checked_id(knowledge_base_id, "a knowledge base ID")
        name = checked_text(knowledge_base_id if name is None else name, "a knowledge base's name", NAME_CHARACTERS)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            if _number_of(connection, knowledge_base_id) is not None:
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
        _check_text(title=title, content=content)
        with self.database.write() as connection:
            dialect_of(connection).serialize_creation(connection)
            kb_number = _number_of(connection, checked_id(knowledge_base_id, "a knowledge base ID"))
            if kb_number is None:
                raise NotFound(f"knowledge base {knowledge_base_id!r} does not exist")
            taken = article_id is not None and connection.execute(SELECT_ARTICLE, (knowledge_base_id, article_id))
            if taken and taken.fetchone():
                raise IdTaken(f"knowledge base {knowledge_base_id!r} already has an article {article_id!r}")
            number = dialect_of(connection).next_number(connection, "articles")
            article_id = article_id or _next_article_id(connection, knowledge_base_id)
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
        _check_text(title=title, content=content)
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
            return _number_of(connection, knowledge_base_id) is not None

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
        title = row["title"] if title is None else title
        content = row["content"] if content is None else content
        status = row["status"] if status is None else status
        version = next_time_version(row["updated_at"], now)
        swapped = connection.execute(UPDATE_ARTICLE, (title, content, opening_of(content), outline_of(content), status,
                                                      version, row["number"], row["updated_at"])).rowcount
        if swapped != 1:
            raise _conflict(row["id"], row["updated_at"])
        if kb_number is None:
            kb_number = _existing_number(connection, row["knowledge_base_id"])
        self._index(connection, kb_number, row["number"], title, content, status)
        self._log(connection, row["knowledge_base_id"], row["id"],
                  event_for(row["status"], status, title != row["title"]), version)
        return version

    def _index(self, connection: sqlite3.Connection, kb_number: int, number: int, title: str, content: str,
               status: str) -> None:
        """Keep an article searchable exactly while it is published (Fts5Search.index_article)."""
        search_sql(connection).index_article(self.database, connection, kb_number, number, title, content, status)

    def _log(self, connection: sqlite3.Connection, kb: str, article_id: str, event: Optional[str],
             version: str) -> None:
        if event is not None:
            self.EVENTS.append(connection, kb, event, article_id, version)


class IndexMerge:
    """The merging a transaction owes one search index: `pages` pages at most, done just before it commits."""

    def __init__(self, connection: sqlite3.Connection, table: str) -> None:
        self.connection, self.table, self.pages = connection, table, 0

    def __call__(self) -> None:
        self.connection.execute(f"INSERT INTO {self.table} ({self.table}, rank) VALUES ('merge', ?)", (self.pages,))


def merge_by_budget(connection: sqlite3.Connection, table: str) -> None:
    """Turn FTS5's own merging (automerge) off in a search index: its writes are merged by budget (MERGE_PAGES)."""
    connection.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0)")


def _check_text(**texts: Optional[str]) -> None:
    """People's titles and contents keep the limits agents' edits keep; ValueError naming the one that does not."""
    limits = {"title": TITLE_MAX_CHARACTERS, "content": CONTENT_MAX_CHARACTERS}
    for name, text in texts.items():
        if text is not None:
            checked_text(text, f"an article's {name}", limits[name])


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


def _next_article_id(connection: sqlite3.Connection, kb: str) -> str:
    """art-00001, art-00002 ... counted per knowledge base, so an ID says nothing of any other knowledge base."""
    while True:
        connection.execute("UPDATE knowledge_bases SET created_articles = created_articles + 1 WHERE id = ?", (kb,))
        (made,) = connection.execute("SELECT created_articles FROM knowledge_bases WHERE id = ?", (kb,)).fetchone()
        article_id = f"art-{made:05d}"
        if connection.execute(SELECT_ARTICLE, (kb, article_id)).fetchone() is None:  # not taken by a person's ID
            return article_id


def _conflict(article_id: str, expected: str) -> VersionConflict:
    return VersionConflict(
        f"article {json.dumps(article_id)} has changed since version {expected}; nothing was saved. Call "
        "read_knowledge_article again, re-apply your change to the content it returns, and edit with its "
        "updated_at as expected_version (you may keep the same idempotency_key).",
        article_id=article_id, expected_version=expected)
