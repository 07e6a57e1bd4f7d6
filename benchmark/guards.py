"""guards.py: what the stores' guards cost: each durability mode, and searches over planted adversarial articles.

Layer: a benchmark client; every measured call goes through call_tool. Two measures:

  durability   edit_record_item and edit_knowledge_article on WAL files opened with
               durability "full" and "normal", beside the floor on the same file (the
               floor inherits the file's synchronous setting)
  adversaries  a knowledge base of ordinary articles with PLANTED articles written to cost a
               search the most (a 100,000-character word, the query word everywhere but where
               a word begins, a heading on every line, eight query words side by side throughout, many
               distinct query words found only inside other words), searched with the query that matches
               them, beside an ordinary question, and FTS5's own bm25 over the same words timed alone (the
               engine's part of each search);
               the headings make every search of that knowledge base weigh its best matches by their
               sections (kb_sections), the ordinary question's too
"""

import os
from typing import Any, Callable, Dict, List

from osfoundry_tools.stores import kb_search
from osfoundry_tools.stores import kb_store
from benchmark.fixtures import KB, bug_channel, knowledge_base
from benchmark.timing import FloorTransaction, latency, timed
from benchmark.tools import EDITED, Workload, mid_query
from osfoundry_tools.engines.database import DURABILITY

EDITS = ("edit_record_item", "edit_knowledge_article")
PLANTED = 20  # as many as the largest page of search results
STEMS = [f"qz{a}{b}" for a in "abcd" for b in "abcdefgh"]  # 32 distinct four-letter query words
SIDE_BY_SIDE = "".join(f"n{letter} " for letter in "abcdefgh")  # as many query words as nearness reads
# (kb_sections.NEAR_WORDS)


def _adversaries() -> Dict[str, Dict[str, str]]:
    """query name -> {title, content, query}: articles a caller could save, and the query that reaches them."""
    inside = " ".join(f"x{stem}" for stem in STEMS)  # every query word, but never where a word begins
    return {
        "one word as long as content may be": {
            "title": "aa", "content": "a" * kb_store.CONTENT_MAX_CHARACTERS, "query": ("aa " * 66).strip()},
        "the query word everywhere but where a word begins": {
            "title": "aa here", "content": "ba" * (kb_store.CONTENT_MAX_CHARACTERS // 2), "query": "aa " * 20},
        "a heading on every line, each holding the query word": {
            "title": "aa headings", "content": "## aa\n" * (kb_store.CONTENT_MAX_CHARACTERS // 6), "query": "aa"},
        "eight query words side by side throughout": {  # every place nearness reads is near another word's
            "title": "ab near", "content": SIDE_BY_SIDE * (kb_store.CONTENT_MAX_CHARACTERS // len(SIDE_BY_SIDE)),
            "query": SIDE_BY_SIDE.strip()},
        "32 distinct words found only inside other words": {
            "title": " ".join(STEMS),
            "content": (inside + " ") * (kb_store.CONTENT_MAX_CHARACTERS // (len(inside) + 1)),
            "query": " ".join(STEMS)},
    }


def measure_durability(directory: str, articles: int, items: int, calls: int, repetitions: int,
                       log: Callable[[str], None]) -> Dict[str, Any]:
    """Per durability mode and repetition: the floor and both edit tools, on WAL files of that mode."""
    workloads, floors = {}, {}
    for mode in DURABILITY:
        kb, article_ids, written = knowledge_base(os.path.join(directory, f"durable-{mode}-kb.db"), articles,
                                                  keep=EDITED, durability=mode)
        records, item_ids = bug_channel(os.path.join(directory, f"durable-{mode}-bugs.db"), items, durability=mode)
        workloads[mode] = Workload(kb, article_ids, written, records, item_ids)
        floors[mode] = FloorTransaction(records.database.connection, item_ids[:EDITED])
    runs: Dict[str, Dict[str, List[Dict[str, float]]]] = {mode: {} for mode in DURABILITY}
    for repetition in range(repetitions):
        log(f"guards: durability, repetition {repetition + 1} of {repetitions}")
        for mode, work in workloads.items():
            runs[mode].setdefault("floor", []).append(latency(timed(floors[mode], calls)))
            for tool in EDITS:
                runs[mode].setdefault(tool, []).append(latency(timed(work.call(tool), calls)))
    for work in workloads.values():
        work.kb.close()
        work.records.close()
    return {"runs": runs}


def measure_adversaries(directory: str, articles: int, calls: int, repetitions: int,
                        log: Callable[[str], None]) -> Dict[str, Any]:
    """Per repetition: an ordinary question, then each adversarial query, on one knowledge base that holds both."""
    store, _, written = knowledge_base(os.path.join(directory, "adversaries.db"), articles, keep=EDITED)
    adversaries = _adversaries()
    for planted in adversaries.values():
        for number in range(PLANTED):
            store.create_article(KB, f"{planted['title']} {number}", planted["content"])
    queries = {"an ordinary question": [mid_query(article) for article in written]}
    queries.update({name: [planted["query"]] for name, planted in adversaries.items()})
    matched = {name: len(_search(store, texts[0])["results"]) for name, texts in queries.items()}
    runs: Dict[str, List[Dict[str, float]]] = {name: [] for name in queries}
    bare: Dict[str, List[Dict[str, float]]] = {name: [] for name in queries}
    for repetition in range(repetitions):
        log(f"guards: adversarial searches, repetition {repetition + 1} of {repetitions}")
        for name, texts in queries.items():
            runs[name].append(latency(timed(_searching(store, texts), calls)))
            bare[name].append(latency(timed(_bare_ranking(store, texts), calls)))
    sizes = {name: len(str(_search(store, texts[0]))) for name, texts in queries.items()}
    store.close()
    return {"runs": runs, "bare_runs": bare, "results": matched, "characters": sizes, "planted": PLANTED,
            "articles": articles}


_BARE_RANKING = "SELECT rowid, bm25({table}, {title}, 1.0) FROM {table} WHERE {table} MATCH ?"


def _bare_ranking(store: kb_store.KnowledgeBaseStore, texts: List[str]) -> Callable[[int], List[Any]]:
    """Call n of a timing: FTS5's own bm25 over every article holding a subject word of texts[n] (the engine's
    part of a search, every match ranked, nothing read or weighed), on the store's connection."""
    connection = store.database.connection
    number = connection.execute("SELECT number FROM knowledge_bases WHERE id = ?", (KB,)).fetchone()[0]
    statement = _BARE_RANKING.format(table=kb_search.index_table(number), title=kb_search.TITLE_WEIGHT)
    expressions = [kb_search.any_of(kb_search.subject_words(kb_search.query_words(text))) for text in texts]
    return lambda n: connection.execute(statement, (expressions[n % len(expressions)],)).fetchall()


def _searching(store: kb_store.KnowledgeBaseStore, texts: List[str]) -> Callable[[int], Dict[str, Any]]:
    """Call n of a timing: a search for texts[n], cycling through the texts."""
    return lambda n: _search(store, texts[n % len(texts)])


def _search(store: kb_store.KnowledgeBaseStore, query: str) -> Dict[str, Any]:
    result = store.call_tool("search_knowledge_base", {"knowledge_base_id": KB, "query": query, "limit": 20})
    if "error" in result:
        raise RuntimeError(f"a benchmark search was refused: {result}")
    return result
