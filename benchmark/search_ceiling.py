"""How far any weighing of the search's own parts could go on the committed sets: a ceiling for the default ranking.

Layer: benchmark (a client of the MCP server and the stores). The default search orders its best matches by a
weighted sum of parts it measures in their texts (kb_search.weighed_scores). This records, for every question of
every committed set, each weighed match's parts as the search itself computes them (the product's functions, called
with the same texts and words), with more parts beside them that a lexical search could weigh: the same parts with
each word weighed by its rarity among articles alone, the engine's own bm25, the code-like tokens held as typed, the
share of the question's weight the best section and the whole text hold, the page's length, and the question's
likelihood under each text and each best section (Dirichlet-smoothed, a ranking family apart from bm25). It then
looks for the weights of those parts that put the most questions first, by coordinate ascent: from the committed
weighing on all the sets (in sample: the most it finds these parts can give), and from the weighing before the
section rarity on each half of the sets, reported on the other (held out, as benchmark/search_tuning.py chooses).

Measured on the 16 committed sets (785 questions; `python3 -m benchmark.search_ceiling`, about half a minute):
the committed weighing puts 637 first and 760 in five. The best weights found for all the parts together put 647
first and 761 in five in sample; held out, 629 first and 758 in five, as search_tuning's grid of four weights
(629 and 759). An ascent finds a local best, not the best there is, but from the weighing before the section
rarity it stops lower still (643 in sample). So the default ranking's goal of about 657 first out of sample lies
beyond what any weighing of these parts reached even in sample. A question's answering page is among the weighed
matches for 784 of them: the misses lack not a page found but a word shared. Of the 148 questions the committed
weighing does not put first, no library of the quality section (benchmark/search_libraries.py) puts 76 first;
read, they name their subject in other words than the page does ("upload" for publish, "a note box" for
admonitions, "several teams" for many-to-many): the re-ranker's case (kb_rerank), not a weight's.

Glossary:
  part      one number the weighing could weigh for one weighed match of one question: a share of the best
            among the matches, or (a title's) the summed weights of the query words it holds
  weights   one weight per part; a match's score is their sum of products, the highest first (the lower ID
            among equals, as the search orders)
  first     questions whose first result answers them; in five: whose first five hold an answering page
"""

import contextlib
import heapq
import math
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from benchmark.search_quality import QuestionSet, question_sets, served
from benchmark.search_tuning import TODAY, deep_asker, halves
from lab.experiments import RESULTS
from osfoundry_tools.server import methods
from osfoundry_tools.stores import kb_search, kb_sections
from osfoundry_tools.stores.word_stems import stem

DEPTH = 5  # results read per question: in the first five
TRIED = (-2.0, -1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)  # each part's weights the ascent tries
PASSES = 4  # rounds of the ascent over every part at most (it stops at the first that gains nothing)
LIKELIHOOD_MU = 2000.0  # Dirichlet smoothing of a whole text's likelihood (a best section's: a tenth of it)


def committed() -> Dict[str, float]:
    """The weights of the committed weighing, over the parts it uses."""
    return {"text": kb_search.TEXT_SHARE, "section": kb_search.SECTION_SHARE, "nearness": kb_search.NEAR_SHARE,
            "title": kb_search.TITLE_SHARE}


def before() -> Dict[str, float]:
    """The weights of the weighing before the section rarity (search_tuning.TODAY), over the parts it used: each
    word weighed by its rarity among articles alone."""
    return {"articles' text": TODAY[(kb_search, "TEXT_SHARE")],
            "articles' section": TODAY[(kb_search, "SECTION_SHARE")],
            "articles' nearness": kb_search.NEAR_SHARE, "articles' title": TODAY[(kb_search, "TITLE_SHARE")]}


class Asked(NamedTuple):
    """One question as recorded: its set, and for each weighed match (in article-ID order) its parts and whether
    it answers the question."""

    set_name: str
    parts: Tuple[Dict[str, float], ...]
    answers: Tuple[bool, ...]


def shares(values: Dict[int, float]) -> Dict[int, float]:
    """Each value as a share of the highest (all 0 where none is above 0)."""
    highest = max(values.values(), default=0.0) or 1.0
    return {number: value / highest for number, value in values.items()}


def spread(values: Dict[int, float]) -> Dict[int, float]:
    """Each value placed between the lowest (0) and the highest (1)."""
    low, high = min(values.values(), default=0.0), max(values.values(), default=0.0)
    return {number: (value - low) / ((high - low) or 1.0) for number, value in values.items()}


def weighing_parts(texts: Dict[int, "kb_sections.ArticleText"], titles: Dict[int, str], weights: Dict[str, float],
                   found: Dict[int, Dict[str, List[str]]], prefix: str) -> Dict[int, Dict[str, float]]:
    """The weighing's parts of each match with these word weights, named `prefix` + text, section, nearness, title,
    and the share of the words' weight the best section and the whole text hold."""
    scored = kb_sections.text_scores(texts, weights, found)
    whole = shares({number: score.whole for number, score in scored.items()})
    section = shares({number: score.section for number, score in scored.items()})
    near = shares({number: score.nearness for number, score in scored.items()})
    total = sum(weights.values()) or 1.0
    parts = {}
    for number in titles:
        held = {word: weight for word, weight in weights.items() if found[number][stem(word)]}
        parts[number] = {prefix + "text": whole[number], prefix + "section": section[number],
                         prefix + "nearness": near[number],
                         prefix + "title": kb_sections.held_weight(titles[number], weights),
                         prefix + "section coverage": best_section_held(texts[number], held, found[number]) / total,
                         prefix + "text coverage": sum(held.values()) / total}
    return parts


def best_section_held(text: "kb_sections.ArticleText", held: Dict[str, float], found: Dict[str, List[str]]) -> float:
    """The most weight of the query words any one section of `text` holds (`held`: the words the text holds)."""
    masks = {word: kb_sections.sections_holding(text, found[stem(word)]) for word in held}
    return max((sum(weight for word, weight in held.items() if masks[word] >> index & 1)
                for index in range(len(text.sections))), default=0.0)


def likelihoods(texts: Dict[int, "kb_sections.ArticleText"], words: Sequence[str],
                found: Dict[int, Dict[str, List[str]]]) -> Tuple[Dict[int, float], Dict[int, float]]:
    """The question's log-likelihood under each whole text and under each text's best section, Dirichlet-smoothed
    by the matches' texts together, against theirs (query likelihood: Zhai and Lafferty's form)."""
    stems = list(dict.fromkeys(stem(word) for word in words))

    def count(section: "kb_sections.Section", forms: List[str]) -> float:
        return sum(kb_sections.HEADING_COUNT * section.heading.get(form, 0) + section.text.get(form, 0)
                   for form in forms)
    length = sum(text.whole.words for text in texts.values()) + 1.0
    background = {word_stem: (sum(count(text.whole, found[number][word_stem]) for number, text in texts.items())
                              + 0.5) / length for word_stem in stems}

    def likelihood(section: "kb_sections.Section", held: Dict[str, List[str]], mu: float) -> float:
        return sum(math.log((count(section, held[word_stem]) + mu * background[word_stem]) / (section.words + mu)
                            / background[word_stem]) for word_stem in stems)
    whole = {number: likelihood(text.whole, found[number], LIKELIHOOD_MU) for number, text in texts.items()}
    best = {number: max((likelihood(section, found[number], LIKELIHOOD_MU / 10) for section in text.sections),
                        default=0.0) for number, text in texts.items()}
    return spread(whole), spread(best)


def match_parts(connection: Any, score: Dict[int, float], weights: Dict[str, float], kept: Dict[Any, Any],
                question: str) -> Dict[int, Dict[str, float]]:
    """Every part of each match the search weighs for this question (`score`, `weights`, `kept`: what
    kb_search.weighed_scores is given)."""
    chosen = kb_search.within_best_scores(score, kb_search.WEIGHED_MATCHES)
    titles, texts = kb_search.weighing_rows(connection, chosen,
                                            kept.setdefault(kb_search.ARTICLE_TEXTS, kb_sections.ArticleTexts()))
    found = kb_sections.held_forms(texts, weights)
    by_sections = kb_sections.section_weights(texts, weights, found, kb_search.SECTION_RARITY)
    parts = weighing_parts(texts, titles, by_sections, found, "")
    by_articles = weighing_parts(texts, titles, weights, found, "articles' ")
    engine = shares({number: -score[number] for number in titles})
    tokens = kb_sections.code_tokens(question)
    exact = shares(kb_sections.exact_scores({number: f"{titles[number]}\n{texts[number].read}"
                                             for number in titles}, tokens)) if tokens else {}
    length = shares({number: math.log1p(texts[number].whole.words) for number in titles})
    whole, section = likelihoods(texts, list(weights), found)
    for number in titles:
        parts[number].update(by_articles[number], engine=engine[number], exact=exact.get(number, 0.0),
                             length=length[number], likelihood=whole[number], **{"section likelihood": section[number]})
    return parts


@contextlib.contextmanager
def recording(into: Dict[str, Any]) -> Iterator[None]:
    """While inside, every weighing of the search also records its matches' parts into `into["parts"]` (the
    question being `into["question"]`); the search orders as before."""
    weigh = kb_search.weighed_scores

    def recorded(connection: Any, score: Dict[int, float], weights: Dict[str, float], kept: Dict[Any, Any],
                 *rest: Any) -> Dict[int, float]:
        into["parts"] = match_parts(connection, score, weights, kept, into["question"])
        into["numbers"] = dict(connection.execute(
            "SELECT number, id FROM articles WHERE number IN ({})".format(", ".join("?" * len(into["parts"]))),
            list(into["parts"])).fetchall())
        return weigh(connection, score, weights, kept, *rest)
    kb_search.weighed_scores = recorded  # type: ignore[assignment]
    try:
        yield
    finally:
        kb_search.weighed_scores = weigh


def record(question_set: QuestionSet) -> List[Asked]:
    """Each question of the set asked through the served search, with its weighed matches' parts."""
    workspace = served(question_set, ":memory:")
    asked = []
    try:
        ask = deep_asker(methods.Server(workspace.tools()))
        seen: Dict[str, Any] = {}
        with recording(seen):
            for question, answers in question_set.questions:
                seen.update(question=question, parts={}, numbers={})
                ask(question_set.knowledge_base_id, question)
                ids = sorted((seen["numbers"][number], number) for number in seen["parts"])
                asked.append(Asked(question_set.name, tuple(seen["parts"][number] for _, number in ids),
                                   tuple(article_id in answers for article_id, _ in ids)))
    finally:
        workspace.close()
    return asked


def rank(scores: Sequence[float], answers: Sequence[bool]) -> int:
    """The place (from 1) of the first answering match within DEPTH, highest score first and the earlier among
    equals; 0 beyond.

    >>> rank([0.5, 2.0, 1.0], [False, False, True]), rank([1.0, 1.0], [False, True]), rank([], [])
    (2, 2, 0)
    """
    best = heapq.nsmallest(DEPTH, range(len(scores)), key=lambda index: (-scores[index], index))
    return next((place for place, index in enumerate(best, 1) if answers[index]), 0)


def figures(ranks: Sequence[int]) -> Tuple[int, int, float]:
    """first, in five and the reciprocal sum of these ranks."""
    return sum(got == 1 for got in ranks), sum(got > 0 for got in ranks), sum(1 / got for got in ranks if got)


def scores_of(asked: Asked, weights: Dict[str, float]) -> List[float]:
    """Each weighed match's score under these weights."""
    return [sum(weight * parts.get(name, 0.0) for name, weight in weights.items()) for parts in asked.parts]


def ascend(questions: Sequence[Asked], start: Dict[str, float], names: Sequence[str],
           log: Callable[[str], None] = lambda line: None) -> Tuple[Dict[str, float], Tuple[int, int, float]]:
    """The weights found from `start` by coordinate ascent over the parts `names` (each tried at every TRIED
    weight, the others held) for the most questions first, then the higher reciprocal sum; and their figures.

    >>> asked = [Asked("s", ({"a": 1.0, "b": 0.0}, {"a": 0.5, "b": 1.0}), (False, True))]
    >>> weights, got = ascend(asked, {"a": 1.0}, ["a", "b"])
    >>> got[0], weights["b"] > weights["a"] / 2
    (1, True)
    """
    weights = {name: start.get(name, 0.0) for name in names}
    scores = [scores_of(asked, weights) for asked in questions]
    best = figures([rank(got, asked.answers) for got, asked in zip(scores, questions)])
    for _ in range(PASSES):
        gained = False
        for name in names:
            for weight in TRIED:
                change = weight - weights[name]
                tried = [[score + change * parts.get(name, 0.0) for score, parts in zip(got, asked.parts)]
                         for got, asked in zip(scores, questions)]
                got = figures([rank(these, asked.answers) for these, asked in zip(tried, questions)])
                if (got[0], got[2]) > (best[0], best[2]):
                    weights[name], scores, best, gained = weight, tried, got, True
        log(f"ceiling: a pass ends at {best[0]} first, {best[1]} in five")
        if not gained:
            break
    return weights, best


def parts_named(questions: Sequence[Asked]) -> List[str]:
    """Every part's name, in the order the first question's first match gives them."""
    return next((list(asked.parts[0]) for asked in questions if asked.parts), [])


def ceiling(sets: Sequence[QuestionSet], log: Callable[[str], None] = lambda line: None) -> Dict[str, Any]:
    """The facts: the committed weighing's figures, the best weights found from it on all the sets (in sample),
    and those found on each half from the weighing before the section rarity, reported on the other (held out:
    the committed weights were chosen on all the sets, so an ascent from them would not be)."""
    recorded = {question_set.name: record(question_set) for question_set in sets}
    every = [asked for question_set in sets for asked in recorded[question_set.name]]
    names = parts_named(every)
    ranks = {name: [rank(scores_of(asked, committed()), asked.answers) for asked in questions]
             for name, questions in recorded.items()}
    facts: Dict[str, Any] = {
        "asked": len(every), "weighed_holds_answer": sum(any(asked.answers) for asked in every),
        "committed": figures([got for question_set in sets for got in ranks[question_set.name]]),
        "committed_ranks": ranks}
    weights, facts["in_sample"] = ascend(every, committed(), names, log)
    facts["in_sample_weights"] = {name: weight for name, weight in weights.items() if weight}
    facts["held_out"] = [0, 0, 0.0]
    one, other = halves(sets)
    for tuned, reported in ((other, one), (one, other)):
        weights, _ = ascend([asked for question_set in tuned for asked in recorded[question_set.name]],
                            before(), names, log)
        got = figures([rank(scores_of(asked, weights), asked.answers)
                       for question_set in reported for asked in recorded[question_set.name]])
        facts["held_out"] = [total + part for total, part in zip(facts["held_out"], got)]
    return facts


def missed_by_every_library(committed_ranks: Dict[str, List[int]], libraries: Dict[str, Any]) -> Tuple[int, int]:
    """Of the questions the committed weighing does not put first, how many no library puts first, and how many
    were compared (`libraries`: the quality section's "libraries" facts, each set's ranks per library).

    >>> missed_by_every_library({"s": [1, 2, 0]}, {"sets": {"s": {"ours": {"ranks": [1, 2, 0]},
    ...                                                          "tantivy": {"ranks": [2, 1, 3]}}}})
    (1, 2)
    """
    missed = compared = 0
    for name, ranks in committed_ranks.items():
        ways = [way["ranks"] for label, way in libraries.get("sets", {}).get(name, {}).items() if label != "ours"]
        if not ways:
            continue
        for index, got in enumerate(ranks):
            if got != 1:
                compared += 1
                missed += all(way[index] != 1 for way in ways)
    return missed, compared


def main(argv: Optional[List[str]] = None) -> None:  # python3 -m benchmark.search_ceiling [PERFORMANCE_JSON]
    import json
    import os
    import sys
    arguments = sys.argv[1:] if argv is None else argv
    measured = arguments[0] if arguments else os.path.join(RESULTS, "performance.json")
    facts = ceiling(question_sets(), log=lambda line: print(line, file=sys.stderr))
    first, five, _ = facts["committed"]
    print(f"{facts['asked']} questions; an answering page among the weighed matches: "
          f"{facts['weighed_holds_answer']}")
    print(f"committed weighing: {first} first, {five} in five")
    first, five, _ = facts["in_sample"]
    print(f"best weights found, in sample: {first} first, {five} in five: {facts['in_sample_weights']}")
    first, five, _ = facts["held_out"]
    print(f"best weights found on each half, reported on the other: {first} first, {five} in five")
    if os.path.exists(measured):
        with open(measured, encoding="utf-8") as file:
            libraries = json.load(file).get("quality", {}).get("libraries", {})
        missed, compared = missed_by_every_library(facts["committed_ranks"], libraries)
        print(f"of {compared} questions the committed weighing misses first, no library of {measured} "
              f"puts {missed} first")


if __name__ == "__main__":
    main()
