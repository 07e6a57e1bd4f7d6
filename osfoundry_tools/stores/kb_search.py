"""How a knowledge base is searched, on both engines: the query's subject words, the plan, the ranking inside the
engine (sqlite's FTS5 and PostgreSQL's tsvector side by side), the weighing of the best matches, and the snippets.

Layer: stores, below the knowledge-base store (kb_store.py), which calls `search_rows` and keeps each article's
search index up to date through `search_sql`.
"""

import functools
import math
import operator
import re
import sqlite3
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.stores import kb_sections
from osfoundry_tools.stores.kb_sections import OPENING_READ, indexed_text, markdown_headings

TITLE_WEIGHT = 4  # bm25 weight of a title match against 1 for a content match (PostgreSQL: weight A against B)
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
_RESULT = ("SELECT a.number, a.id, a.title, a.updated_at, a.opening IS NOT NULL AS cut, "
           "COALESCE(a.opening, a.content) AS opening")  # what a snippet may quote; a long content is never read.
# kb_store.results_of reads the columns in this order


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


@functools.lru_cache(maxsize=256)
def index_statements(number: int) -> Tuple[str, str, str]:
    """The search index of the knowledge base of this number, and its statements that take an article out (by its
    rowid) and put one in (rowid, title, content)."""
    table = index_table(number)
    return (table, f"DELETE FROM {table} WHERE rowid = ?",
            f"INSERT INTO {table} (rowid, title, content) VALUES (?, ?, ?)")


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
        values = {"sample": WORD_SAMPLE, "kb": kb}
        for n, word in enumerate(words):
            values[f"word{n}"] = sql.phrase(word)
        large, has_views, outlined, sampled, *counts = connection.execute(
            sql.plan_statement(number, len(words)), values).fetchone()
        return cls(bool(large), bool(has_views), bool(outlined), sampled,
                   {word: count or 0 for word, count in zip(words, counts)})

    def is_common(self, word: str) -> bool:
        """Held by at least half of the sample, where bm25 weighs it nothing (a smaller knowledge base has none)."""
        return self.large and 2 * self.counts[word] >= WORD_SAMPLE

    def rarer(self) -> List[str]:
        """The words that rank: those not common, in query order (every word, in a smaller knowledge base)."""
        if not self.large:
            return list(self.counts)
        return [word for word in self.counts if not self.is_common(word)]

    def common(self) -> List[str]:
        """The words only a query of common words lists by (none, in a smaller knowledge base)."""
        if not self.large:
            return []
        return [word for word in self.counts if self.is_common(word)]


def search_rows(connection: sqlite3.Connection, kb: str, number: int, words: List[str], limit: int,
                kept: Dict[Any, Any], exact: Sequence[str] = (), rerank: Optional["Rerank"] = None
                ) -> Tuple[List[sqlite3.Row], List[str], Dict[int, "kb_sections.Answering"]]:
    """The rows a search of knowledge base `kb` (of this number) answers with, `limit` at most, the words that
    found them, and each weighed row's answering section (article number -> its anchor and place, where that
    section has a heading): the rarer words ranked, else the common words listed (see WORD_SAMPLE). `kept`: the
    database's derived dict, where the weighing keeps the texts it read; `exact`: the query's code-like tokens as
    typed; `rerank`: the re-ranker and the question, where the server runs with --rerank (kb_rerank.py)."""
    plan = SearchPlan.read(connection, kb, number, words)
    rarer, common = plan.rarer(), plan.common()
    answering: Dict[int, kb_sections.Answering] = {}
    if rarer:
        rows = ranked_rows(connection, plan, number, rarer, limit, kb, kept, exact, answering, rerank)
        if rows or not common:
            return rows, rarer, answering
    return listed_rows(connection, plan.has_views, number, common, limit, kb), common, {}


def ranked_rows(connection: sqlite3.Connection, plan: SearchPlan, number: int, words: List[str], limit: int,
                kb: str, kept: Dict[Any, Any], exact: Sequence[str] = (),
                answering: Optional[Dict[int, "kb_sections.Answering"]] = None, rerank: Optional["Rerank"] = None
                ) -> List[sqlite3.Row]:
    """The rows of the first RANKED_MATCHES articles of knowledge base `kb` (of this number) that hold any of `words`
    in ranking order, `limit` at most: scored in the index, the best WEIGHED_MATCHES weighed by their whole text, best
    section, nearness and title (weighed_scores, which keeps the articles' texts as it read them in `kept`, the
    database's derived dict), then the chosen rows read (each match is joined to its views and ID only where people
    recorded views). `answering`, where given, receives each weighed article's answering section."""
    sql = search_sql(connection)
    statements = sql.statements(number, len(words))
    values = dict(sql.ranking_values(plan, words), words=sql.any_of(words), ranked=RANKED_MATCHES, kb=kb,
                  sample=WORD_SAMPLE)
    weights = word_weights(plan, words) if plan.outlined else None
    if plan.has_views:
        scored = connection.execute(statements.scored_with_views, values).fetchall()
        weighed = (weighed_scores(connection, {row[0]: row[1] for row in scored}, weights, kept, exact, answering,
                                  rerank)
                   if weights else None)
        return rows_in_order(connection, [row[0] for row in best_then_most_viewed(scored, limit, weighed)])
    score = {number: score for number, score in connection.execute(statements.scored, values)}
    if weights:
        score = weighed_scores(connection, score, weights, kept, exact, answering, rerank)
    rows = article_rows(connection, within_best_scores(score, limit))
    return sorted(rows, key=lambda row: (score[row[0]], row[1]))[:limit]  # number, ID (_RESULT)


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
# where a word's weight is taken SECTION_RARITY parts from how rare it is among these matches' sections
# (kb_sections.section_weights) and the rest from how rare it is among the articles (word_weights: a word every
# article holds still counts a little, where FTS5's bm25 counts it nothing): among the pages a question's words
# found, a telling word sits in few sections while a word the matches' every section holds says little however rare
# it is among all the articles (the same weights on both engines). A text, section or title holds a word when one of its
# words has the same stem (word_stems: Porter's, as FTS5 stems). The engine's own score chooses the matches
# weighed, and orders the others.
# Only a knowledge base whose articles have headings (an outline) is weighed so. Its documents are built around
# their titles and headings; the simulated day's articles are plain text, and there weighing their titles put the
# question's own article first less often (sim.py's "the target came first": 523 of 600 answers against 553 with
# bm25 alone), so a knowledge base of plain text keeps bm25's order, as the committed results were measured.
WEIGHED_MATCHES = 64
TEXT_SHARE, SECTION_SHARE, NEAR_SHARE, TITLE_SHARE = 1.5, 3.0, 1.0, 0.5
EXACT_SHARE = 0.0  # x the code-like tokens of the query a match holds as typed (kb_sections.exact_scores), as a
# share of the most any match holds
RARE_POWER = 1.0  # each word's weight raised to this power: above 1, the rarest words outweigh many common ones
TITLE_NORMALISED = False  # the title's held weights as a share of all the query words' weights
# These three mend, in one form each, misses of the weighing seen on real sets (a rare telling word outweighed by
# common ones, a title outranking an exact error name or option). Chosen on held-out halves of the committed sets
# (benchmark/search_tuning.py), none of them gained out of sample in the forms and values tried, so each is off
# here: its code stays so that a new form can be measured the same way.
SECTION_RARITY = 0.75  # the share of a word's weight taken from how rare it is among the weighed matches' sections
# (kb_sections.section_weights), the rest from how rare it is among the articles: with the shares above, the one
# form of the rare-word mend that gained out of sample (benchmark/search_tuning.py), on both held-out halves


def exact_tokens(query: str) -> List[str]:
    """The query's code-like tokens as typed (kb_sections.code_tokens) where the weighing counts them (EXACT_SHARE),
    else none: a search then reads no token.

    >>> exact_tokens("Why does --fix skip HATCH_ENV_DIR?")
    []
    """
    return kb_sections.code_tokens(query) if EXACT_SHARE else []


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
                   kept: Dict[Any, Any], exact: Sequence[str] = (),
                   answering: Optional[Dict[int, "kb_sections.Answering"]] = None, rerank: Optional["Rerank"] = None
                   ) -> Dict[int, float]:
    """The WEIGHED_MATCHES best of `score` (article number -> engine score, the least best), and any tied with
    the last, each weighed by its whole text, its best section, the nearness of the query words in it, its
    title and the code-like tokens of the query (`exact`) it holds as typed: negative, the least best. `answering`,
    where given, receives each one's best section (its anchor and place) where that section has a heading."""
    chosen = within_best_scores(score, WEIGHED_MATCHES)
    titles, texts = weighing_rows(connection, chosen, kept.setdefault(ARTICLE_TEXTS, kb_sections.ArticleTexts()))
    weights = {word: weight ** RARE_POWER for word, weight in weights.items()}
    found = kb_sections.held_forms(texts, weights)
    if SECTION_RARITY:
        weights = kb_sections.section_weights(texts, weights, found, SECTION_RARITY)
    scored = kb_sections.text_scores(texts, weights, found)
    best = kb_sections.best_scores(scored.values())
    held = {number: kb_sections.held_weight(title, weights) for number, title in titles.items()}
    if TITLE_NORMALISED:
        total = sum(weights.values()) or 1.0
        held = {number: weight / total for number, weight in held.items()}
    exactly = (kb_sections.exact_scores({number: f"{title}\n{texts[number].read}" for number, title in titles.items()},
                                        exact) if exact and EXACT_SHARE else {})
    most_exact = max(exactly.values(), default=0.0) or 1.0
    if answering is not None:
        answering.update((number, kb_sections.Answering.of(texts[number], scored[number].anchor))
                       for number in titles if scored[number].anchor)
    weighed = {number: -(TEXT_SHARE * scored[number].whole / best.whole
                         + SECTION_SHARE * scored[number].section / best.section
                         + NEAR_SHARE * scored[number].nearness / best.nearness
                         + TITLE_SHARE * held[number]
                         + EXACT_SHARE * exactly.get(number, 0.0) / most_exact)
               for number in titles}
    return reranked(connection, weighed, titles, texts, rerank) if rerank else weighed


class Rerank(NamedTuple):
    """A search re-ranked by a sentence-embedding model (kb_vectors.KeptVectors), and the question as asked."""

    reranker: Any
    question: str


def reranked(connection: sqlite3.Connection, weighed: Dict[int, float], titles: Dict[int, str],
             texts: Dict[int, "kb_sections.ArticleText"], rerank: Rerank) -> Dict[int, float]:
    """The weighed matches put in the re-ranker's order (kb_rerank: the question's nearness to each one's nearest
    section blended with its weighed score), each taking the weighed score of the place it comes to, so that the
    matches not weighed keep their places behind them. The matches' section vectors are the store's (kb_vectors)."""
    vectors = rerank.reranker.vectors(connection, titles, texts)
    blended = rerank.reranker.blended(rerank.question, {number: -score for number, score in weighed.items()}, vectors)
    order = sorted(weighed, key=lambda number: (-blended[number], number))
    return dict(zip(order, sorted(weighed.values())))


ARTICLE_TEXTS = "article texts"  # the key of a database's derived dict under which weighed_scores keeps what it read
_WEIGHED_VERSIONS = "SELECT number, title, updated_at FROM articles WHERE number IN ({numbers})"
_WEIGHED_TEXTS = f"SELECT number, substr(content, 1, {OPENING_READ}) FROM articles WHERE number IN ({{numbers}})"


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
    then by ID; `limit` rows in all. Without views, that is the order of the scores, then of the IDs. The others
    are sorted by score and ID, then again by views alone: a sort keeps the order of equals, and each key is read
    in C.

    >>> best_then_most_viewed([(1, -2.0, 0, "a"), (2, -1.0, 9, "b"), (3, -3.0, 1, "c")], 2)
    [(3, -3.0, 1, 'c'), (2, -1.0, 9, 'b')]
    """
    if not scored:
        return []
    if weighed:
        best = min((row for row in scored if row[0] in weighed), key=lambda row: (weighed[row[0]], row[3]))
        others = [row for row in scored if row is not best]
        others.sort(key=_SCORE_THEN_ID)
    else:
        others = sorted(scored, key=_SCORE_THEN_ID)
        best = others.pop(0)
    others.sort(key=_VIEWS, reverse=True)  # reversed, a sort still keeps the order of equals
    return [best] + others[:limit - 1]


_SCORE_THEN_ID, _VIEWS = operator.itemgetter(1, 3), operator.itemgetter(2)  # of a row (number, score, views, ID)


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
    found = {row[0]: row for row in article_rows(connection, numbers)}  # a row starts with its number (_RESULT)
    return [found[number] for number in numbers if number in found]


def article_rows(connection: sqlite3.Connection, numbers: List[int]) -> List[sqlite3.Row]:
    """The rows of these article numbers, in no order: one statement per RESULTS_READ of them (more only when
    many ranked articles tie)."""
    if len(numbers) <= RESULTS_READ:  # a search's answer: one statement, or none for no number
        return connection.execute(results_statement(len(numbers)), numbers).fetchall() if numbers else []
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
    words = [word.lower() for word in _WORD.findall(query)]
    if SPLIT_CODE:
        words += [part for token in kb_sections.code_tokens(query) for part in kb_sections.code_parts(token)]
    return list(dict.fromkeys(words))


SPLIT_CODE = False  # add the parts of CamelCase and '_' names (kb_sections.code_parts): measured on the committed
# sets, 530 first against 535 without, so off (the whole name is still a word of the query, and FTS5 reads a name
# joined by '_' as the phrase of its parts)


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
    return " OR ".join(map(phrase, words))


class Fts5Search:
    """The search statements of a knowledge base on sqlite: an FTS5 index of its own, ranked by bm25, merged by
    budget. On PostgreSQL, TsvectorSearch answers the same calls (search_sql)."""

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
        table, remove, insert = index_statements(kb_number)
        connection.execute(remove, (number,))
        if status == "published":
            connection.execute(insert, (number, title, indexed_text(content)))
        database.at_commit(("merge", table), lambda: IndexMerge(connection, table)).pages += MERGE_PAGES

    @staticmethod
    def optimize(connection: sqlite3.Connection) -> None:
        """Each knowledge base's index merged into one segment."""
        for (number,) in connection.execute("SELECT number FROM knowledge_bases").fetchall():
            table = index_table(number)
            connection.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")


FTS5 = Fts5Search()


# ---------------------------------------------------------------------------
# The same search on PostgreSQL: a generated tsvector column over every word, scored by bm25 as FTS5 does.

SEARCH_CONFIG = "every_word"  # the knowledge-base schema's text search configuration (SEARCH_CONFIG_SCHEMA)
SEARCH_CONFIG_SCHEMA = f"""
CREATE TEXT SEARCH DICTIONARY {SEARCH_CONFIG}_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION {SEARCH_CONFIG} (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION {SEARCH_CONFIG} ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword,
    hword_part WITH {SEARCH_CONFIG}_stem;
"""  # PostgreSQL's 'english' with its Snowball stemmer but without its stop words: the index holds every word, as


# FTS5's does, and kb_store.FUNCTION_WORDS alone decides which words of a query are looked for, on both engines
BM25 = (1.2, 0.75)  # k1 and b, FTS5's own


# The words of an article as both engines index them: kb_store.indexed_text's web addresses and Markdown link
# targets left out, then every character that is no letter or digit made a space, so that PostgreSQL's parser, which
# would keep an address, a file name (mkdocs.yml) or a dotted key (navigation.tabs) as one token no query word
# matches, reads the same runs of letters and digits as FTS5's unicode61 tokenizer does
_WORDS_OF = ("regexp_replace(regexp_replace(regexp_replace({column}, "
             "'\\]\\([^()\\s]*(\\s+\"[^\"]*\"){{0,1}}\\)', ']', 'g'), "
             "'[A-Za-z][A-Za-z0-9+.-]*://[^\\s()<>\\[\\]{{}}\"''`]+', ' ', 'g'), '[^\\w\\s]|_', ' ', 'g')")
WORDS_COLUMN = (f"INTEGER GENERATED ALWAYS AS (COALESCE(array_length(regexp_split_to_array(btrim("
                f"{_WORDS_OF.format(column='title')} || ' ' || {_WORDS_OF.format(column='content')}), '\\s+'), 1), 0)) "
                "STORED")  # the article's length in words, as FTS5 counts its tokens
SEARCH_COLUMN = (f"TSVECTOR GENERATED ALWAYS AS (setweight(to_tsvector('{SEARCH_CONFIG}', "
                 f"{_WORDS_OF.format(column='title')}), 'A') || setweight(to_tsvector('{SEARCH_CONFIG}', "
                 f"{_WORDS_OF.format(column='content')}), 'B')) STORED")
_TS_MATCHES = ("FROM articles, to_tsquery('{config}', :words) AS query WHERE knowledge_base_id = :kb "
            "AND status = 'published' AND search @@ query ORDER BY number LIMIT :ranked")
_TS_RANKED = ("SELECT m.number, -({score}) AS score{outer} FROM {lexemes}"
           "(SELECT CAST(avg(words) AS DOUBLE PRECISION) AS words FROM (SELECT words FROM articles WHERE "
           "knowledge_base_id = :kb AND status = 'published' ORDER BY number LIMIT :sample) AS sample) AS average, "
           "(SELECT number, search, words{inner} {matches}) AS m, "
           "LATERAL (SELECT ts_filter(setweight(ts_filter(m.search, '{{a}}'), 'd', {every}), '{{d}}') AS title, "
           "ts_filter(setweight(ts_filter(m.search, '{{b}}'), 'd', {every}), '{{d}}') AS content) AS held, "
           "LATERAL (SELECT {title_counts} FROM unnest(held.title) AS u) AS in_title, "
           "LATERAL (SELECT {content_counts} FROM unnest(held.content) AS u) AS in_content")
_TS_LEXEMES = "(SELECT tsvector_to_array(to_tsvector('{config}', :word{n})) AS lexemes) AS word{n}, "
_TS_COUNT = "COALESCE(sum(array_length(u.positions, 1)) FILTER (WHERE u.lexeme = ANY (word{n}.lexemes)), 0) AS n{n}"
_TS_WORD_SCORE = ("CAST(:weight{n} AS DOUBLE PRECISION) * (({tf}) * {k1_plus_1}) / (({tf}) + {k1} * "
               "({one_minus_b} + {b} * m.words / GREATEST(average.words, 1)))")
_TS_TF = "{title_weight} * in_title.n{n} + in_content.n{n}"
_TS_WORD_SHARE = ", (SELECT count(*) FROM sample WHERE search @@ to_tsquery('{config}', :word{n}))"
_TS_PLAN = ("WITH first AS (SELECT number, search FROM articles WHERE knowledge_base_id = :kb AND status = 'published' "
         "ORDER BY number LIMIT :sample + 1), sample AS (SELECT search FROM first ORDER BY number LIMIT :sample) "
         "SELECT large, has_views, outlined, sampled{counts} FROM (SELECT (SELECT count(*) FROM first) > :sample "
         "AS large, EXISTS (SELECT 1 FROM articles WHERE knowledge_base_id = :kb AND views > 0) AS has_views, "
         "EXISTS (SELECT 1 FROM articles WHERE knowledge_base_id = :kb AND outline <> '') AS outlined, "
         "(SELECT count(*) FROM sample) AS sampled) AS plan")
IDF_FLOOR = 1e-6  # the weight of a word at least half the articles hold, as in FTS5's bm25


def inverse_document_frequency(holding: int, articles: int) -> float:
    """bm25's weight of a word `holding` of `articles` articles hold (FTS5's formula, and its floor).

    >>> round(inverse_document_frequency(1, 23), 3), inverse_document_frequency(20, 23)
    (2.708, 1e-06)
    """
    weight = math.log((articles - holding + 0.5) / (holding + 0.5))
    return weight if weight > 0 else IDF_FLOOR


class TsvectorSearch:
    """kb_store's search on PostgreSQL: the statements its ranking runs (kb_store.Fts5Search is sqlite's). The
    tsvector column is generated from the title and content, so an article needs no index of its own.

    A match scores the sum, over the query's words, of the word's bm25 weight (inverse_document_frequency, from
    the plan's counts over the first WORD_SAMPLE articles) times ts_rank of that word alone: how often the article
    holds it, the title counting 4 times, divided by 1 + log of the article's length. ts_rank_cd over all the
    words together, as before, weighed every word alike: in a small knowledge base a word every page holds (the
    product's name, "use") counted as much as the subject."""

    @staticmethod
    def phrase(word: str) -> str:
        """One query word as a tsquery term: a word of letters, digits and '_' holds no tsquery operator."""
        return word

    def any_of(self, words: Iterable[str]) -> str:
        return " | ".join(self.phrase(word) for word in words)

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def plan_statement(number: int, words: int) -> str:
        """The plan of kb_store.SearchPlan, with each word counted in every knowledge base: its weight needs it."""
        counts = "".join(_TS_WORD_SHARE.format(config=SEARCH_CONFIG, n=n) for n in range(words))
        return _TS_PLAN.format(counts=counts)

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def statements(number: int = 0, words: int = 0) -> SearchStatements:
        """As kb_store.search_statements, for any knowledge base (:kb names it), ranking `words` words (:word0,
        :weight0 ...; ranking_values gives them)."""
        matches = _TS_MATCHES.format(config=SEARCH_CONFIG)
        listed = f"SELECT number, views {matches}"
        if not words:
            return SearchStatements(listed, listed, listed)  # a listing ranks nothing
        k1, b = BM25
        score = " + ".join(_TS_WORD_SCORE.format(n=n, tf=_TS_TF.format(title_weight=TITLE_WEIGHT, n=n), k1=k1,
                                              k1_plus_1=k1 + 1, b=b, one_minus_b=1 - b) for n in range(words))
        ranked = functools.partial(
            _TS_RANKED.format, score=score, matches=matches,
            lexemes="".join(_TS_LEXEMES.format(config=SEARCH_CONFIG, n=n) for n in range(words)),
            every=" || ".join(f"word{n}.lexemes" for n in range(words)),
            title_counts=", ".join(_TS_COUNT.format(n=n) for n in range(words)),
            content_counts=", ".join(_TS_COUNT.format(n=n) for n in range(words)))
        return SearchStatements(ranked(outer="", inner=""), ranked(outer=", m.views, m.id", inner=", views, id"),
                                listed)

    @staticmethod
    def ranking_values(plan: Any, words: Sequence[str]) -> Dict[str, Any]:
        """The values of statements()'s :word and :weight parameters for these words of this plan."""
        values: Dict[str, Any] = {}
        for n, word in enumerate(words):
            values[f"word{n}"] = word
            values[f"weight{n}"] = inverse_document_frequency(plan.counts[word], plan.sampled)
        return values

    def create_index(self, connection: Any, number: int) -> None:
        """A new knowledge base needs no index of its own: the articles' GIN index holds every one."""

    def index_article(self, database: Any, connection: Any, kb_number: int, number: int, title: str, content: str,
                      status: str) -> None:
        """The search column follows the row by itself; searches read published rows only."""

    def optimize(self, connection: Any) -> None:
        """Nothing to merge: a GIN index keeps no segments."""


TSVECTOR = TsvectorSearch()
SEARCHES = {"sqlite": FTS5, "postgresql": TSVECTOR}  # a connection's dialect name -> its engine's search


def search_sql(connection: Any) -> Any:
    """The search statements of the engine a connection runs on: its dialect's, else sqlite's FTS5."""
    return SEARCHES[dialect_of(connection).name]


OUTLINE_CHARACTERS = 4000  # of headings an outline keeps: a long reference page's hundred headings fit


def outline_of(content: str) -> str:
    """What a search weighs of a content beside its title: its Markdown headings, one a line, at most
    OUTLINE_CHARACTERS; empty for a content without headings (plain text).

    >>> outline_of("Intro.\\n## Install\\n\\nRun it.\\n### Upgrade uv")
    'Install\\nUpgrade uv'
    """
    if "#" not in content:  # no heading opens without one
        return ""
    outline = "\n".join(text for _, _, text in markdown_headings(content.split("\n")))
    return outline[:OUTLINE_CHARACTERS]


class IndexMerge:
    """The merging a transaction owes one search index: `pages` pages at most, done just before it commits."""

    def __init__(self, connection: sqlite3.Connection, table: str) -> None:
        self.connection, self.table, self.pages = connection, table, 0

    def __call__(self) -> None:
        self.connection.execute(merge_statement(self.table), (self.pages,))


@functools.lru_cache(maxsize=256)
def merge_statement(table: str) -> str:
    """The statement that merges at most ? pages of a search index (IndexMerge), written once per index."""
    return f"INSERT INTO {table} ({table}, rank) VALUES ('merge', ?)"


def merge_by_budget(connection: sqlite3.Connection, table: str) -> None:
    """Turn FTS5's own merging (automerge) off in a search index: its writes are merged by budget (MERGE_PAGES)."""
    connection.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('automerge', 0)")
