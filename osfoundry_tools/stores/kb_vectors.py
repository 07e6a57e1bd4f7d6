"""Where the re-ranker's section vectors live: in the store, beside each published article, one row per article at
its current version, computed just after the article is saved, outside the save's transaction (or, for pages
saved without --rerank, when a store is opened with it), so that a search embeds only the question.

Layer: stores, between kb_store.py / kb_search.py and kb_rerank.py (the model). Only a server started with --rerank
reaches this module: `attach` makes the table and wraps its kb_rerank.Reranker in a KeptVectors, which kb_store's
save (`keep`) and kb_search's re-ordering (`vectors`) call. Without --rerank no statement here ever runs and the
table is never made. The statements are the same on sqlite and PostgreSQL but for the table's column types.

Glossary:
  kept vectors   an article's section vectors (kb_rerank.section_texts of its title and the text a search reads),
                 float16 little-endian bytes, rows of kb_rerank.HIDDEN values, in the row of its number with the
                 version (updated_at) they were computed from, in the table KEPT, whose name changes with what is
                 embedded (a store with vectors of an earlier form has them dropped and embedded again)
  current        kept vectors whose version is the article's updated_at: the only ones a search uses. A save with
                 --rerank replaces them at once; a save by a process without --rerank leaves them stale, and then
                 a search computes that article's vectors itself and keeps them in the process (kb_rerank.Reranker)
                 until a store opened with --rerank fills them in (`attach`)
"""

import logging
from typing import Any, Dict, List, Tuple

from osfoundry_tools.core.dialect import dialect_of
from osfoundry_tools.stores.kb_rerank import HIDDEN
from osfoundry_tools.stores.kb_search import in_chunks
from osfoundry_tools.stores.kb_sections import SECTION_READ, indexed_text

KEPT = "section_vectors_titled"  # the table's name says what was embedded: each section with its page's title
FORMER = ("section_vectors",)  # tables of an earlier form (sections without the title), dropped where one is made
TABLE = {  # the article's number, the version its vectors were computed from, the vectors
    "sqlite": f"CREATE TABLE IF NOT EXISTS {KEPT} (number INTEGER PRIMARY KEY REFERENCES articles (number), "
              "updated_at TEXT NOT NULL, vectors BLOB NOT NULL)",
    "postgresql": f"CREATE TABLE IF NOT EXISTS {KEPT} (number BIGINT PRIMARY KEY REFERENCES articles (number), "
                  "updated_at TEXT NOT NULL, vectors BYTEA NOT NULL)",
}
_KEEP = (f"INSERT INTO {KEPT} (number, updated_at, vectors) SELECT number, updated_at, ? FROM articles "
         "WHERE number = ? AND updated_at = ? ON CONFLICT (number) DO UPDATE SET updated_at = excluded.updated_at, "
         "vectors = excluded.vectors")  # only at the version embedded: a save since then keeps its own
_DROP = f"DELETE FROM {KEPT} WHERE number = ?"
_CURRENT = (f"SELECT v.number, v.vectors FROM {KEPT} AS v JOIN articles AS a ON a.number = v.number AND "
            "a.updated_at = v.updated_at WHERE v.number IN ({numbers})")
_WITHOUT = (f"SELECT a.number, a.updated_at, a.title, substr(a.content, 1, {SECTION_READ}) FROM articles AS a "
            f"LEFT JOIN {KEPT} AS v ON v.number = a.number AND v.updated_at = a.updated_at "
            "WHERE a.status = 'published' AND v.number IS NULL")  # published, without current vectors
_MISSING = _WITHOUT + " ORDER BY a.number"  # every one: a fill at start-up
_MISSING_ONE = _WITHOUT + " AND a.number = ?"  # the one just saved: its primary key, whatever the store's size
_PROBE = f"SELECT number FROM {KEPT} LIMIT 1"
log = logging.getLogger("osfoundry")
FILLED_PER_WRITE = 16  # pages embedded and kept per transaction when a store is filled in (attach)


class KeptVectors:
    """A re-ranker (kb_rerank.Reranker) attached to one store: it keeps each published article's section vectors in
    the store (`in_store`), or, where the store is read-only and has no table of them, in the process only."""

    def __init__(self, reranker: Any, in_store: bool, database: Any = None) -> None:
        self.reranker, self.in_store, self.database = reranker, in_store, database

    def keep(self, connection: Any, number: int, status: str) -> None:
        """Inside the write that saved an article (kb_store's save): a page no longer published loses its vectors;
        a published one's are computed after the outermost write commits (`embed_saved`), never inside it: the
        model takes a second or more a page, and no other save should wait on it. A save inside a larger
        transaction (a load of many pages) is embedded once that one commits, and never if it rolls back, as a
        preview a person approves does."""
        if not self.in_store:
            return
        if status != "published":
            connection.execute(_DROP, (number,))
            return
        self.database.after_commit(("kb_vectors.embed", id(self), number), lambda: self.embed_saved(number))

    def embed_saved(self, number: int) -> None:
        """After a save's write: that article's vectors embedded and kept, unless it has current ones already. Only
        that one: a page another process saved without --rerank is embedded by the search that meets it, and kept
        by the next start with --rerank (`attach`), so a save's work does not grow with the store."""
        try:
            with self.database.read() as connection:
                missing = [tuple(row) for row in connection.execute(_MISSING_ONE, (number,)).fetchall()]
            keep_embedded(self.database, self, missing)
        except Exception:  # the save is in already: its caller must not hear it failed (a search embeds the page)
            log.exception("--rerank: section vectors could not be kept after a save; searches compute the missing")

    def vectors(self, connection: Any, titles: Dict[int, str], texts: Dict[int, Any]) -> Dict[int, Any]:
        """The section vectors (float16 rows) of these articles (number -> title, number -> kb_sections.ArticleText)
        as a search re-ranks them: read from the store where current, computed now (and kept in the process)
        where not."""
        np = self.reranker.encoder.np
        found: Dict[int, Any] = {}
        if self.in_store:
            for number, kept in in_chunks(connection, _CURRENT, list(titles)):
                found[number] = np.frombuffer(kept, dtype="<f2").reshape(-1, HIDDEN)
        for number in titles:
            if number not in found:
                found[number] = self.reranker.section_vectors((number, titles[number], texts[number].read),
                                                              titles[number], texts[number].read)
        return found

    def blended(self, question: str, lexical: Dict[int, float], vectors: Dict[int, Any]) -> Dict[int, float]:
        return self.reranker.blended(question, lexical, vectors)

    def embedded(self, title: str, read: str) -> bytes:
        """An article's section vectors as kept: float16, little-endian."""
        return bytes(self.reranker.embedded_sections(title, read).astype("<f2").tobytes())


def attach(store: Any, reranker: Any, fill: bool = True) -> KeptVectors:
    """The re-ranker attached to a knowledge-base store (kb_store.KnowledgeBaseStore), its table made (the tables
    of an earlier form, FORMER, dropped) where the store may write and, with `fill`, every published article
    without current vectors embedded now (a store whose pages were saved without --rerank, or edited since by a
    process without it, or kept in an earlier form): FILLED_PER_WRITE pages per transaction. A read-only store
    whose table was never made re-ranks with vectors computed at search time."""
    database = store.database
    if database.read_only:
        try:
            with database.read() as connection:
                connection.execute(_PROBE).fetchall()
        except Exception:  # no table: no process with --rerank ever wrote this store
            return KeptVectors(reranker, in_store=False)
        return KeptVectors(reranker, in_store=True, database=database)
    kept = KeptVectors(reranker, in_store=True, database=database)
    with database.write() as connection:
        connection.execute(TABLE[dialect_of(connection).name])
        for former in FORMER:  # vectors of an earlier form are no use to this one's search: embedded again below
            connection.execute(f"DROP TABLE IF EXISTS {former}")
    if fill:
        with database.read() as connection:
            (missing,) = connection.execute(f"SELECT count(*) FROM ({_MISSING}) AS missing").fetchone()
        if missing:
            log.info("--rerank: embedding the sections of %d published page(s) saved without it (or kept in an "
                     "earlier form), once (about a second a page on one core); the store keeps them", missing)
        while fill_some(database, kept):
            pass
    return kept


def fill_some(database: Any, kept: KeptVectors) -> bool:
    """Up to FILLED_PER_WRITE published articles without current vectors embedded and kept, in one write; whether
    there were any."""
    with database.read() as connection:
        missing: List[Tuple[Any, ...]] = [tuple(row) for row in connection.execute(_MISSING).fetchmany(
            FILLED_PER_WRITE)]
    if not missing:
        return False
    keep_embedded(database, kept, missing)
    return True


def keep_embedded(database: Any, kept: KeptVectors, missing: List[Tuple[Any, ...]]) -> None:
    """These articles' (rows of _WITHOUT) section vectors embedded, then kept in one write, each at the version it
    was embedded from: an article saved again meanwhile is left out (its own save embeds it)."""
    if missing:
        embedded = [(kept.embedded(title, indexed_text(text)), number, version)
                    for number, version, title, text in missing]
        with database.write() as connection:
            connection.executemany(_KEEP, embedded)

