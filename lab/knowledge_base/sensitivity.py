"""Write results/knowledge_base_sensitivity.md: how the evidence of the knowledge-base page moves with the model.

Layer: below rerun.py, which hands it measured.Sensitivity; beside report.py (whose names of the readings
it reuses), on pages.py (the skeleton every result page shares) and measured.py (the tallies, the
strengths of K4's readings, the shares and the popularity law's expectations). It computes nothing
itself. Two questions: how do the tallies of the main page (evidence.py: checks, figures fixed by the
inputs, and the measured figures' pieces of evidence, firm, loose, outside or resting on an unstated
parameter, over the same draws of the range seeds) move when the popular model loses a part or its product
areas change size; and
which readings of the article's K4 words reach its 4 h row, which lies above the popularity law in both
of our models. Every line that reports a wall time ends with TIMING_MARK, the line on what made the page
with PROVENANCE_MARK.

Glossary (sim.py has the others):
  variant     one model of the day the page runs: the two of the main page, each part of the popular
              model alone, and views with areas of several sizes (models.py)
  K4 reading  how the article's K4 may have counted (scenario.K4_READINGS): whether saves go on after the day,
              whether its 'version changed' counts the unpublished edits too
  reaches     a reading reaches a published share when the match is firm or loose there
"""

from typing import List, Sequence

from lab import evidence, figures, pages
from lab.experiments import number, seeds_text, table
from lab.knowledge_base.measured import TITLES, Row, Sensitivity, law_rejection, second_popular_share
from lab.knowledge_base.reasons import delay_words
from lab.knowledge_base.report import READINGS

FIGURES = (  # (label, key, reading, unit): the figures that show how concentrated the citations are
    ("re-read calls per check", "K3.reread.calls_per_check", "distinct", ""),
    ("hour 8: stale (distinct)", "K2.h8.stale", "distinct", ""),
    ("hour 8: answers with a stale citation", "K2.h8.answers_pct", "distinct", "%"),
    ("control, stale (distinct)", "control.stale", "distinct", ""),
)
LAST = -1  # the longest delay, whose published row lies above the law


def markdown(page: Sensitivity) -> str:
    """The whole of results/knowledge_base_sensitivity.md."""
    return pages.page([header(page), variants(page), k4_readings(page),
                       [pages.timed(f"{pages.took(*page.timing)}.")]])


def header(page: Sensitivity) -> List[str]:
    """The title, the page's answer in one sentence, and what made the page."""
    return pages.header(page.provenance, "Knowledge-base experiments: how the evidence moves with the model",
                        answer(page), "Written by `python3 sim.py --sensitivity`; do not edit by hand.")


def answer(page: Sensitivity) -> str:
    """The tally of measured figures as the main page counts it, how far it depends on the model, and which K4
    readings reach the published 4 h row."""
    counts = {name: page.tally(name) for name in page.variants}
    matches = [evidence.held(c) for c in counts.values()]
    firm = [c[evidence.FIRM] for c in counts.values()]
    reached = [f"{reading.name} ({_models_words(page, models)})" for reading, models in page.reaching().items()
               if models]
    verb = "reaches" if len(reached) == 1 else "reach"
    return (pages.answer_opening("knowledge-base", next(iter(counts.values()))) + pages.draws_words(page.draws)
            + f"counting each stale version once, the variants of the model here match between {min(matches)} and "
            f"{max(matches)} of those pieces (firm or loose), between {min(firm)} and {max(firm)} of them firmly; "
            f"of the readings of K4's words, {_listed(reached) if reached else 'none'} {verb} the published share "
            f"of edits rejected for a changed version at {delay_words([page.delays[LAST]])}.")


def _models_words(page: Sensitivity, models: Sequence[str]) -> str:
    """'popular search', or 'both models' / 'every model' when it is all of them."""
    if len(models) == len(page.models) > 1:
        return "both models" if len(models) == 2 else "every model"
    return _listed([TITLES.get(m, m) for m in models])


def _listed(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def variants(page: Sensitivity) -> List[str]:
    """The tallies of every variant, the figures that show its concentration, and the published ones beside."""
    header = (["model"] + [f"{READINGS[r]}" for r in READINGS] + [f[0] for f in FIGURES]
              + ["second citations to a top-10 article"])
    first = next(iter(page.variants.values())).rows
    published = [[label, figures.published_cell(first[r][k], u)] for label, k, r, u in FIGURES]
    rows = [[name] + [evidence.pieces_text(page.tally(name, r), page.draw_tallies(name, r)) for r in READINGS] +
            [figures.ours_cell(run.rows[r][k], u) for _, k, r, u in FIGURES] + [f"{second_popular_share(run):.1f}%"]
            for name, run in page.variants.items()]
    return [
        "## The model",
        "",
        f"Each row runs the knowledge-base day over seeds {seeds_text(page.seeds)} and, for the ranges, "
        f"{_draws_text(page)}, and "
        "tallies the published figures as results/knowledge_base.md does: each independent figure once, the "
        f"{_kinds_text(page)} apart, the figures of one cause as one piece of evidence, a match firm, loose or too "
        "wide to count by the width of our range and counted at its weakest in any draw, a figure the page's sweep "
        "of the event's shape reaches resting on that parameter, and the calibrated KiB figures aside. Each cell "
        "gives the pieces of evidence by strength over all draws, then each strength's least–most in one draw at a "
        "time. The popular model has two parts: views (the knowledge base keeps them and the search lists the "
        "matches after the best one most viewed first) and its product areas of √articles. A row without views "
        "and with the popular model's areas takes views away; the row with views and the day as stated's areas "
        "takes the areas "
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
        *best_words(page),
    ]


def _draws_text(page: Sensitivity) -> str:
    """'4 disjoint draws of 10 further groups of five (seeds 6–55, ...), the first setting them'."""
    if len(page.draws) < 2:
        return f"{len(page.groups)} further groups of five, in one draw"
    spans = ", ".join(f"{draw[0][0]}–{draw[-1][-1]}" for draw in page.draws)
    return (f"{len(page.draws)} disjoint draws of {len(page.groups)} further groups of five (seeds {spans}), the "
            "first setting them")


def _kinds_text(page: Sensitivity) -> str:
    """'7 checks of how the run is built and the 6 figures fixed by the inputs'."""
    counts = page.tally(next(iter(page.variants)))
    checks = counts[evidence.CHECK] + counts[evidence.FAILED]
    return f"{checks} checks of how the run is built and the {counts[evidence.FIXED]} figures fixed by the inputs"


def best_words(page: Sensitivity) -> List[str]:
    """What the table shows: the mechanism at work, and which variants match the most, and the most firmly."""
    to_popular = page.second_popular_shares()  # by whether the variant keeps views
    most, firmest = page.most_held()
    return [
        "The figures on the right are ours over the main seeds. The last column shows the mechanism at work: "
        f"{_spread_words(to_popular[False])} of the second citations went to one of a seed's ten most popular "
        f"articles where the knowledge base kept no views, {_spread_words(to_popular[True])} where it did. Under "
        f"the consistent reading, over all draws, the most matches: {most}, {evidence.held(page.tally(most))}; "
        "the most firm "
        f"matches: {firmest}, {page.tally(firmest)[evidence.FIRM]}. The popular model's areas are set by the "
        "principle stated in results/knowledge_base.md (√articles), not moved to the best row of this table."
    ]


def _spread_words(shares: Sequence[float]) -> str:
    """'1.5%–1.8%' for several shares, '1.5%' for one, 'none measured' for none."""
    if not shares:
        return "none measured"
    low, high = min(shares), max(shares)
    return f"{low:.1f}%" if low == high else f"{low:.1f}%–{high:.1f}%"


def k4_readings(page: Sensitivity) -> List[str]:
    """Each reading of K4's words, in both models: the share it sets beside the published 'version changed' share
    at each delay, with the popularity law at the longest delay, and which readings reach the published row."""
    delays = page.delays
    header = (["reading", "model"] + [delay_words([d]) for d in delays]
              + [f"popularity law, {delay_words([delays[LAST]])}", f"reaches {delay_words([delays[LAST]])}"])
    rows = []
    for reading in page.readings:
        for model, scenario in page.models.items():
            found = page.k4[(reading.name, model)]
            cut, uncut = law_rejection(scenario, delays[LAST])
            law = uncut if reading.saves_after_day else cut
            strengths = [page.k4_strength(reading, model, d) for d in range(len(found))]
            rows.append([reading.name, TITLES.get(model, model)] + [_cell(r, st) for r, st in zip(found, strengths)]
                        + [f"{law:.1f}%", "yes" if strengths[LAST] in evidence.HOLDS else "no"])
    published = [[f"rejected, version changed, share: {delay_words([d])}",
                  number(page.published[f"K4.d{n}.conflicts_pct"], 1, "%")]
                 for n, d in enumerate(delays) if f"K4.d{n}.conflicts_pct" in page.published]
    return [
        "## K4: readings of the article's words",
        "",
        f"The published {delay_words([delays[LAST]])} row, edits rejected for a changed version and for an "
        f"unpublished article, {law_words(page)} (results/knowledge_base.md, 'K4 against the popularity law'). "
        "These are the readings of the article's words that could change how the two compare; each runs over the "
        "same seeds and the first draw's range groups, the "
        "readings whose saves go on in a replica of the day whose people keep saving, drawn after everything "
        "else so that the day itself is unchanged:",
        "",
        *[f"- **{reading.name}**: {reading.words}." for reading in page.readings],
        "",
        "Each cell is ours over the main seeds, our range and the match's strength, against the published share "
        "of edits rejected for a changed version at that delay (under 'unpublished among the changed', ours counts "
        "both causes), counted as the main page counts it: a share whose counts the inputs fix is that, whatever "
        "its range:",
        "",
        *table(header, rows),
        "",
        "The published figures, for the delays' columns:",
        "",
        *table(("figure", "published"), published),
        "",
        reaches_words(page),
    ]


def law_words(page: Sensitivity) -> str:
    """Where the published share of edits rejected at the longest delay (derived) lies against the popularity law
    with saves that go on, in each model."""
    above = [TITLES.get(m, m) for m in page.above_the_law()[1]]
    if len(above) == len(page.models):
        return "lies above the popularity law in every model, even with saves that go on after the day"
    if not above:
        return "lies within the popularity law with saves that go on after the day, in every model"
    return f"lies above the popularity law with saves that go on after the day with {_listed(above)} only"


def _cell(r: Row, strength: str) -> str:
    """'46.0% (38.7%–52.0%), outside'."""
    spread = "" if r["low"] is None else f" ({r['low']:.1f}%–{r['high']:.1f}%)"
    return f"{r['ours']:.1f}%{spread}, {strength}"


def reaches_words(page: Sensitivity) -> str:
    """Which readings reach the published row at the longest delay, in which models; and why the main page keeps
    its own."""
    delays = page.delays
    lines = [f"{reading.name}: {_models_words(page, models) if models else 'no model'}"
             for reading, models in page.reaching().items()]
    return (f"Which readings reach the published share at {delay_words([delays[LAST]])}, and in which model: "
            + "; ".join(lines) + f". The main page keeps '{page.readings[0].name}', the reading the article's words "
            "support best: its K4 ran on 'the same day', and it reports an edit of an unpublished article as gone, "
            "not changed.")
