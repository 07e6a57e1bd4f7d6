"""The field's search libraries beside ours: every committed documentation set's pages and raw questions run through
the lexical libraries a team would pick instead, where they are installed (`make search-libraries` puts them in
.venv, never in the product's path), and through our served search, each scored alike.

Layer: benchmark. Each library indexes the same pages (title and text, as own_content reads the set's folder) and
is asked the same questions as typed; where its query language would read a question's punctuation as syntax
(tantivy, lunr), it is given the question's words joined by spaces. A library that is not installed is left out
and the page says so.

Glossary:
  way        one configuration: ours (the served search), sqlite FTS5's bm25 plain or with the title weighted 10
             times, rank_bm25's Okapi and Plus, bm25s with Snowball stemming and English stop words, tantivy plain
             or with the title boosted 10 times, lunr.py plain or with the title boosted 10 times
  first      questions whose first result answers them; in five: whose first five hold an answering page
  MRR@5      the mean of 1/rank of the first answering page within five (0 beyond)
"""

import importlib
import re
import sqlite3
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark.search_quality import QuestionSet, question_sets, served
from benchmark.search_tuning import deep_asker
from osfoundry_tools.content import own_content
from osfoundry_tools.server import methods

DEPTH = 5
TITLE_BOOST = 10
Page = Tuple[str, str, str]  # article ID, title, text
Search = Callable[[str], List[str]]  # a question -> the IDs of the first DEPTH pages
_WORD = re.compile(r"\w+")


def pages_of(question_set: QuestionSet) -> List[Page]:
    """The set's published pages as own_content reads its folder."""
    return [(article.article_id, article.title, article.content)
            for article in own_content.read_knowledge_base(question_set.pages).articles if article.published]


def words_of(text: str) -> List[str]:
    return [word.lower() for word in _WORD.findall(text)]


def fts5(title_weight: float) -> Callable[[List[Page]], Search]:
    """sqlite FTS5's bm25 over every word of the question joined by OR (porter unicode61, as ours indexes)."""
    def build(pages: List[Page]) -> Search:
        connection = sqlite3.connect(":memory:")
        connection.execute("CREATE VIRTUAL TABLE pages USING fts5(id UNINDEXED, title, body, "
                           "tokenize = 'porter unicode61 remove_diacritics 2')")
        connection.executemany("INSERT INTO pages VALUES (?, ?, ?)", pages)

        def search(question: str) -> List[str]:
            words = list(dict.fromkeys(words_of(question)))
            if not words:
                return []
            expression = " OR ".join(f'"{word}"' for word in words)
            return [row[0] for row in connection.execute(
                "SELECT id FROM pages WHERE pages MATCH ? ORDER BY bm25(pages, 0, ?, 1.0) LIMIT ?",
                (expression, title_weight, DEPTH))]
        return search
    return build


def rank_bm25(kind: str) -> Callable[[List[Page]], Search]:
    """rank_bm25's BM25Okapi or BM25Plus over lower-case words of title and text."""
    def build(pages: List[Page]) -> Search:
        model = getattr(library("rank_bm25"), kind)([words_of(f"{title}\n{text}") for _, title, text in pages])

        def search(question: str) -> List[str]:
            scores = model.get_scores(words_of(question))
            order = sorted(range(len(pages)), key=lambda index: -scores[index])
            return [pages[index][0] for index in order[:DEPTH]]
        return search
    return build


def bm25s_stemmed(pages: List[Page]) -> Search:
    """bm25s with PyStemmer's English Snowball stemmer and its English stop words."""
    bm25s, stemmer = library("bm25s"), library("Stemmer").Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize([f"{title}\n{text}" for _, title, text in pages], stopwords="en",
                                   stemmer=stemmer, show_progress=False), show_progress=False)

    def search(question: str) -> List[str]:
        tokens = bm25s.tokenize([question], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        found, _ = retriever.retrieve(tokens, k=min(DEPTH, len(pages)), show_progress=False)
        return [pages[int(index)][0] for index in found[0]]
    return search


def tantivy_index(title_boost: float) -> Callable[[List[Page]], Search]:
    """tantivy with its English stemming tokenizer, the question's words as a disjunction over title and text."""
    def build(pages: List[Page]) -> Search:
        tantivy = library("tantivy")
        schema = tantivy.SchemaBuilder()
        schema.add_text_field("id", stored=True, tokenizer_name="raw")
        schema.add_text_field("title", stored=False, tokenizer_name="en_stem")
        schema.add_text_field("body", stored=False, tokenizer_name="en_stem")
        index = tantivy.Index(schema.build())
        writer = index.writer(heap_size=50_000_000, num_threads=1)
        for article_id, title, text in pages:
            writer.add_document(tantivy.Document(id=article_id, title=title, body=text))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()

        def search(question: str) -> List[str]:
            words = " ".join(words_of(question))
            query, _ = index.parse_query_lenient(words, ["title", "body"], field_boosts={"title": title_boost})
            return [searcher.doc(address)["id"][0] for _, address in searcher.search(query, DEPTH).hits]
        return search
    return build


def lunr_index(title_boost: float) -> Callable[[List[Page]], Search]:
    """lunr.py (its stemmer and stop words), the question's words as typed."""
    def build(pages: List[Page]) -> Search:
        index = library("lunr").lunr(ref="id", fields=[{"field_name": "title", "boost": title_boost}, "body"],
                     documents=[{"id": article_id, "title": title, "body": text} for article_id, title, text in pages])

        def search(question: str) -> List[str]:
            words = " ".join(words_of(question))
            return [hit["ref"] for hit in index.search(words)[:DEPTH]] if words else []
        return search
    return build


WAYS: Tuple[Tuple[str, Callable[[List[Page]], Search], Optional[str]], ...] = (
    ("sqlite FTS5 bm25", fts5(1.0), None),
    ("sqlite FTS5 bm25, title x10", fts5(TITLE_BOOST), None),
    ("rank_bm25 Okapi", rank_bm25("BM25Okapi"), "rank_bm25"),
    ("rank_bm25 Plus", rank_bm25("BM25Plus"), "rank_bm25"),
    ("bm25s, stemmed", bm25s_stemmed, "bm25s"),
    ("tantivy", tantivy_index(1.0), "tantivy"),
    ("tantivy, title x10", tantivy_index(TITLE_BOOST), "tantivy"),
    ("lunr.py", lunr_index(1.0), "lunr"),
    ("lunr.py, title x10", lunr_index(TITLE_BOOST), "lunr"),
)  # (name, how it is built from the pages, the module it needs beyond the standard library)
OURS = "ours"


def library(name: str) -> Any:
    """The module of an optional search library (make search-libraries installs them into .venv); ImportError,
    naming the make target, where it is missing."""
    try:
        return importlib.import_module(name)
    except ImportError as missing:
        raise ImportError(f"{name} is not installed: make search-libraries installs it into .venv") from missing


def installed(module: Optional[str]) -> bool:
    """Whether a configuration's library (and bm25s's stemmer) can be imported here."""
    try:
        for name in ([] if module is None else [module, "Stemmer"] if module == "bm25s" else [module]):
            library(name)
        return True
    except ImportError:
        return False


def ranks_of(search: Search, question_set: QuestionSet) -> Tuple[List[int], float]:
    """Each question's rank of its first answering page within DEPTH (0 beyond), and the seconds all took."""
    started = time.perf_counter()
    found = [search(question) for question, _ in question_set.questions]
    took = time.perf_counter() - started
    return [next((rank for rank, page in enumerate(got[:DEPTH], 1) if page in answers), 0)
            for got, (_, answers) in zip(found, question_set.questions)], took


def ours(question_set: QuestionSet) -> Tuple[List[int], float]:
    workspace = served(question_set, ":memory:")
    try:
        ask = deep_asker(methods.Server(workspace.tools()))
        return ranks_of(lambda question: ask(question_set.knowledge_base_id, question), question_set)
    finally:
        workspace.close()


def measure_libraries(log: Callable[[str], None] = lambda line: None,
                      sets: Optional[Sequence[QuestionSet]] = None) -> Dict[str, Any]:
    """Per set and way, the ranks of its questions and the seconds they took; the ways left out, and why."""
    ways = [(name, build) for name, build, module in WAYS if installed(module)]
    missing = sorted({module for _, _, module in WAYS if module and not installed(module)})
    measured: Dict[str, Dict[str, Any]] = {}
    for question_set in sets or question_sets():
        log(f"libraries: {question_set.name}")
        pages = pages_of(question_set)
        ranks, took = ours(question_set)
        measured[question_set.name] = {OURS: {"ranks": ranks, "seconds": took}}
        for name, build in ways:
            ranks, took = ranks_of(build(pages), question_set)
            measured[question_set.name][name] = {"ranks": ranks, "seconds": took}
    return {"sets": measured, "ways": [OURS] + [name for name, _ in ways], "missing": missing}


def figures(ranks: Sequence[int]) -> Dict[str, float]:
    return {"asked": len(ranks), "first": sum(rank == 1 for rank in ranks), "five": sum(rank > 0 for rank in ranks),
            "mrr": sum(1 / rank for rank in ranks if rank) / (len(ranks) or 1)}


def section(libraries: Dict[str, Any]) -> List[str]:
    """The page's subsection: first (in five) per set and way, then each way pooled with its MRR@5 and time."""
    from lab.experiments import table
    ways, sets = libraries["ways"], libraries["sets"]
    lines = ["### Beside the field's search libraries", "",
             "Every committed set's pages and raw questions through our served search and through the lexical "
             "libraries a team would pick instead (`benchmark/search_libraries.py`; `make search-libraries` installs "
             "them into .venv). Each cell: questions first (in the first five). "
             + (f"Not installed in this run, so left out: {', '.join(libraries['missing'])}." if libraries["missing"]
                else "Every library was installed."), ""]
    rows = []
    for name, by_way in sets.items():
        rows.append([name] + [f"{figures(by_way[way]['ranks'])['first']} ({figures(by_way[way]['ranks'])['five']})"
                              for way in ways])
    lines += table(["set"] + ways, rows)
    lines += ["", "Pooled over the sets:", ""]
    pooled = []
    for way in ways:
        every = [rank for by_way in sets.values() for rank in by_way[way]["ranks"]]
        seconds = sum(by_way[way]["seconds"] for by_way in sets.values())
        got = figures(every)
        best_of_library = sum(max(figures(by_way[other]["ranks"])["first"] for other in ways if other != OURS)
                              for by_way in sets.values()) if way == OURS and len(ways) > 1 else None
        pooled.append([way, f"{got['first']} of {got['asked']} ({100 * got['first'] / got['asked']:.0f}%)",
                       f"{got['five']} ({100 * got['five'] / got['asked']:.0f}%)", f"{got['mrr']:.3f}",
                       f"{1000 * seconds / got['asked']:.2f}"])
        if best_of_library is not None:
            pooled.append(["best library, picked per set", str(best_of_library), "", "", ""])
    lines += table(["way", "first", "in five", "MRR@5", "ms per question"], pooled)
    ahead = [name for name, by_way in sets.items()
             if figures(by_way[OURS]["ranks"])["first"] > max((figures(by_way[other]["ranks"])["first"]
                                                               for other in ways if other != OURS), default=-1)]
    lines += ["", f"Ours first on more questions than every library on {len(ahead)} of {len(sets)} sets."]
    return lines


def main() -> None:  # python3 -m benchmark.search_libraries (in .venv, where the libraries are installed)
    import sys
    print("\n".join(section(measure_libraries(lambda line: print(line, file=sys.stderr)))))


if __name__ == "__main__":
    main()
