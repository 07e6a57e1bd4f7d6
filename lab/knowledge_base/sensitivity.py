"""lab/sim_sensitivity.py: write results/knowledge_base_sensitivity.md, how the evidence moves with the model.

Layer: below sim.py, beside sim_report.py (whose model runs, tallies and titles it reuses); it measures
nothing itself. Two questions: how do the tallies of the main page (evidence.py: independent figures,
checks, firm, loose, outside) move when the popular model loses a part or its product areas change size;
and which readings of the article's K4 words reach its 4 h row, which lies above the popularity law in
both of our models. Every line that reports a wall time ends with TIMING_MARK, the line on what made the
page with PROVENANCE_MARK.

Glossary (sim.py has the others):
  variant     one model of the day the page runs: the two of the main page, each part of the popular
              model alone, and views with areas of several sizes
  K4 reading  how the article's K4 may have counted (sim.K4_READINGS): whether saves go on after the day,
              whether its 'version changed' counts the unpublished edits too
  reaches     a reading reaches a published share when the match is firm or loose there
"""

import dataclasses
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from lab import evidence, figures
from lab.experiments import TIMING_MARK, Provenance, number, seeds_text, table
from lab.knowledge_base import law
from lab.knowledge_base.day import Scenario
from lab.knowledge_base.reasons import delay_words
from lab.knowledge_base.report import LEADING, READINGS, TITLES, ModelRun

FIGURES = (  # (label, key, reading, unit): the figures that show how concentrated the citations are
    ("re-read calls per check", "K3.reread.calls_per_check", "distinct", ""),
    ("hour 8: stale (distinct)", "K2.h8.stale", "distinct", ""),
    ("hour 8: answers with a stale citation", "K2.h8.answers_pct", "distinct", "%"),
    ("control, stale (distinct)", "control.stale", "distinct", ""),
)
LAST = -1  # the longest delay, whose published row lies above the law


@dataclasses.dataclass
class Page:
    """Everything sim.py hands over for the sensitivity page."""

    variants: Dict[str, ModelRun]  # variant name -> its run over the main seeds and the ranges
    seeds: Sequence[int]
    groups: Sequence[Sequence[int]]
    basis: evidence.Basis
    provenance: Provenance
    readings: Sequence[Any]  # sim.K4Reading: name, words, saves_after_day, unpublished_as_changed
    k4: Dict[Tuple[str, str], List[Dict[str, Any]]]  # (reading, model) -> per delay, the row it sets beside
    published: Mapping[str, float]
    models: Dict[str, Scenario]  # the main page's two models, the default first
    timing: Tuple[float, int]  # seconds, processes


def markdown(page: Page) -> str:
    """The whole of results/knowledge_base_sensitivity.md."""
    sections = [header(page), variants(page), k4_readings(page),
                [f"This run took {page.timing[0]:.1f} s on {page.timing[1]} processes. {TIMING_MARK}"]]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def tally(page: Page, name: str, reading: str = LEADING) -> Dict[str, int]:
    """A variant's strengths under a reading, each independent figure once."""
    return evidence.tally(evidence.assess(page.variants[name].rows[reading], page.basis))


def held(counts: Mapping[str, int]) -> int:
    """Figures whose match is firm or loose."""
    return counts[evidence.FIRM] + counts[evidence.LOOSE]


def header(page: Page) -> List[str]:
    """The title, the page's answer in one sentence, and what made the page."""
    return [
        "# " + page.provenance.title("Knowledge-base experiments: how the evidence moves with the model"),
        "",
        f"**In one sentence.** {answer(page)}",
        "",
        "Written by `python3 sim.py --sensitivity`; do not edit by hand.",
        "",
        page.provenance.line(),
    ]


def answer(page: Page) -> str:
    """How far the headline depends on the model, and which K4 readings reach the published 4 h row."""
    counts = {name: tally(page, name) for name in page.variants}
    matches = [held(c) for c in counts.values()]
    total = sum(next(iter(counts.values())).values())
    reached = [f"{reading.name} ({_models_words(page, models)})" for reading, models in reaching(page).items()
               if models]
    verb = "reaches" if len(reached) == 1 else "reach"
    return (f"Of the main page's {total} independent figures, the variants of the model here match between "
            f"{min(matches)} and {max(matches)} (firm or loose) under the consistent reading; of the readings of "
            f"K4's words, {_listed(reached) if reached else 'none'} {verb} the published share of edits rejected "
            f"for a changed version at {delay_words([next(iter(page.models.values())).delays[LAST]])}.")


def reaching(page: Page) -> Dict[Any, List[str]]:
    """Per K4 reading, the models in which it reaches the published share at the longest delay."""
    return {reading: [m for m in page.models if _reaches(page.k4[(reading.name, m)][LAST])]
            for reading in page.readings}


def _models_words(page: Page, models: Sequence[str]) -> str:
    """'popular search', or 'both models' / 'every model' when it is all of them."""
    if len(models) == len(page.models) > 1:
        return "both models" if len(models) == 2 else "every model"
    return _listed([TITLES.get(m, m) for m in models])


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _reaches(r: Dict[str, Any]) -> bool:
    return evidence.strength(r, check=False) in evidence.HOLDS


def variants(page: Page) -> List[str]:
    """The tallies of every variant, the figures that show its concentration, and the published ones beside."""
    header = (["model"] + [f"{READINGS[r]}" for r in READINGS] + [f[0] for f in FIGURES]
              + ["second citations to a top-10 article"])
    first = next(iter(page.variants.values())).rows
    published = [[label, figures.published_cell(first[r][k], u)] for label, k, r, u in FIGURES]
    rows: List[List[str]] = []
    to_popular: Dict[bool, List[float]] = {False: [], True: []}  # by whether the variant adds views
    for name, run in page.variants.items():
        ranking = run.main["zipf"]["ranking"]
        to_popular[run.scenario.views].append(100 * ranking["second_popular"] / ranking["seconds"])
        rows.append([name] + [evidence.tally_text(tally(page, name, r)) for r in READINGS] +
                    [figures.ours_cell(run.rows[r][k], u) for _, k, r, u in FIGURES] +
                    [f"{100 * ranking['second_popular'] / ranking['seconds']:.1f}%"])
    return [
        "## The model",
        "",
        f"Each row runs the knowledge-base day over seeds {seeds_text(page.seeds)} and {len(page.groups)} further "
        "groups of five for the ranges, as `python3 sim.py` does for its two models, and tallies the published "
        "figures as results/knowledge_base.md does: each independent figure once, checks of how the run is built "
        "apart, a match firm or loose by the width of our range (the calibrated KiB figures aside). The popular "
        "model has two parts: views (the knowledge base keeps them and the search lists the matches after the "
        "best one most viewed first) and its product areas of √articles. A row without views and with the "
        "popular model's areas takes views away; the row with views and the day as stated's areas takes the areas "
        "away; the day as stated takes both away. The other rows keep views and vary how many articles an area "
        "holds (a question names its article's area, so this sets how many articles a question's area word "
        "matches).",
        "",
        *table(header, rows),
        "",
        "The published figures, for the columns on the right:",
        "",
        *table(("figure", "published"), published),
        "",
        *best_words(page, to_popular),
    ]


def best_words(page: Page, to_popular: Dict[bool, List[float]]) -> List[str]:
    """What the table shows: the mechanism at work, and which variants match the most, and the most firmly."""
    counts = {name: tally(page, name) for name in page.variants}
    most = max(counts, key=lambda name: (held(counts[name]), name))
    firmest = max(counts, key=lambda name: (counts[name][evidence.FIRM], name))
    return [
        "The figures on the right are ours over the main seeds. The last column shows the mechanism at work: "
        f"{_spread_words(to_popular[False])} of the second citations went to one of a seed's ten most popular "
        f"articles where the knowledge base kept no views, {_spread_words(to_popular[True])} where it did. Under "
        f"the consistent reading, the most matches: {most}, {held(counts[most])}; the most firm matches: "
        f"{firmest}, {counts[firmest][evidence.FIRM]}. The popular model's areas are set by the principle stated "
        "in results/knowledge_base.md (√articles), not moved to the best row of this table."
    ]


def _spread_words(shares: Sequence[float]) -> str:
    """'1.5%–1.8%' for several shares, '1.5%' for one, 'none measured' for none."""
    if not shares:
        return "none measured"
    low, high = min(shares), max(shares)
    return f"{low:.1f}%" if low == high else f"{low:.1f}%–{high:.1f}%"


def k4_readings(page: Page) -> List[str]:
    """Each reading of K4's words, in both models: the share it sets beside the published 'version changed' share
    at each delay, with the popularity law at the longest delay, and which readings reach the published row."""
    delays = next(iter(page.models.values())).delays
    header = (["reading", "model"] + [delay_words([d]) for d in delays]
              + [f"popularity law, {delay_words([delays[LAST]])}", f"reaches {delay_words([delays[LAST]])}"])
    rows = []
    for reading in page.readings:
        for model, scenario in page.models.items():
            found = page.k4[(reading.name, model)]
            expected = 100 * law.expected_rejection(scenario, delays[LAST], not reading.saves_after_day)
            rows.append([reading.name, TITLES.get(model, model)] + [_cell(r) for r in found]
                        + [f"{expected:.1f}%", "yes" if _reaches(found[LAST]) else "no"])
    published = [[f"rejected, version changed, share: {delay_words([d])}",
                  number(page.published[f"K4.d{n}.conflicts_pct"], 1, "%")]
                 for n, d in enumerate(delays) if f"K4.d{n}.conflicts_pct" in page.published]
    return [
        "## K4: readings of the article's words",
        "",
        f"The published {delay_words([delays[LAST]])} row, edits rejected for a changed version and for an "
        f"unpublished article, {law_words(page)} (results/knowledge_base.md, 'K4 against the popularity law'). "
        "These are the readings of the article's words that could change how the two compare; each runs over the "
        "same seeds and range groups, the "
        "readings whose saves go on in a replica of the day whose people keep saving, drawn after everything "
        "else so that the day itself is unchanged:",
        "",
        *[f"- **{reading.name}**: {reading.words}." for reading in page.readings],
        "",
        "Each cell is ours over the main seeds, our range and the match's strength, against the published share "
        "of edits rejected for a changed version at that delay (under 'unpublished among the changed', ours counts "
        "both causes):",
        "",
        *table(header, rows),
        "",
        "The published figures, for the delays' columns:",
        "",
        *table(("figure", "published"), published),
        "",
        reaches_words(page),
    ]


def law_words(page: Page) -> str:
    """Where the published share of edits rejected at the longest delay (derived) lies against the popularity law
    with saves that go on, in each model."""
    n = len(next(iter(page.models.values())).delays) - 1
    p = page.published
    share = 100 * (p[f"K4.d{n}.conflicts"] + p[f"K4.d{n}.gone"]) / p[f"K4.d{n}.edits"]
    above = [TITLES.get(m, m) for m, s in page.models.items()
             if share > 100 * law.expected_rejection(s, s.delays[n], False)]
    if len(above) == len(page.models):
        return "lies above the popularity law in every model, even with saves that go on after the day"
    if not above:
        return "lies within the popularity law with saves that go on after the day, in every model"
    return f"lies above the popularity law with saves that go on after the day with {_listed(above)} only"


def _cell(r: Dict[str, Any]) -> str:
    """'46.0% (38.7%–52.0%), outside'."""
    spread = "" if r["low"] is None else f" ({r['low']:.1f}%–{r['high']:.1f}%)"
    return f"{r['ours']:.1f}%{spread}, {evidence.strength(r, check=False)}"


def reaches_words(page: Page) -> str:
    """Which readings reach the published row at the longest delay, in which models; and why the main page keeps
    its own."""
    delays = next(iter(page.models.values())).delays
    lines = [f"{reading.name}: {_models_words(page, models) if models else 'no model'}"
             for reading, models in reaching(page).items()]
    return (f"Which readings reach the published share at {delay_words([delays[LAST]])}, and in which model: "
            + "; ".join(lines) + f". The main page keeps '{page.readings[0].name}', the reading the article's words "
            "support best: its K4 ran on 'the same day', and it reports an edit of an unpublished article as gone, "
            "not changed.")
