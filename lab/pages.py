"""The skeleton every result page shares: header, opening answer, tallies and their rules, run time, each figure once.

Layer: below the three page writers (knowledge_base/report.py, knowledge_base/sensitivity.py and
record_channels/report.py), beside figures.py (which writes the cells of one figure), on experiments.py
(markdown tables, the verdict rule, the timing mark) and evidence.py (whose tallies it lays out). It knows
no experiment: each page passes in its own words (its title, what made it, the examples of its
restatements) and its own rows, and gets back lines of markdown. Nothing here computes a figure.

Glossary (evidence.py has independent, check, firm, loose, strength; figures.py has row):
  section   a page's part: a list of lines, from its "## " heading down; a page is its sections, a blank line
            between two of them
  header    the title (marked when the settings are not the committed page's), the answer in one sentence,
            what wrote the page, and the line on what made it (experiments.Provenance)
"""

from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence

from lab import evidence, figures
from lab.experiments import ANSWER_MARK, TIMING_MARK, VERDICT_RULE, Provenance, number, table

EACH_FIGURE_ONCE = "## Each published figure once"
SWEPT = "## What the article never states, swept"
COUNT_WORDS = ("No", "One", "Two", "Three", "Four", "Five", "Six")  # a count that opens a sentence
FRACTIONS = {1 / 2: "half", 1 / 3: "a third", 1 / 4: "a quarter"}  # the shares a rule's line is drawn at, in words


def page(sections: Iterable[Sequence[str]]) -> str:
    """The whole page: its sections in order, a blank line between two, and a last newline."""
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def header(provenance: Provenance, title: str, answer: str, written: str) -> List[str]:
    """The title, the page's answer in one sentence, what wrote the page (`written`), and what made it."""
    return ["# " + provenance.title(title), "", f"{ANSWER_MARK}{answer}", "", written, "",
            provenance.line()]


def answer_opening(article: str, counts: Mapping[str, int]) -> str:
    """How an answer starts: 'Of the 48 figures the <article> article publishes, each counted once ..., 7 check how
    the run is built, and all hold, and 2 are fixed by the inputs ...; the other 39 are measured...: ' (what the
    measured ones did follows)."""
    fixed, shared = counts.get(evidence.FIXED, 0), counts.get(evidence.SHARED, 0)
    pieces = (f", {shared} of them counted with another that follows from the same cause, so "
              f"{evidence.measured(counts)} pieces of evidence" if shared else "")
    return (f"Of the {evidence.total(counts)} figures the {article} article publishes, each counted once however "
            f"many rows restate it, {evidence.checks_words(counts)}, and {fixed} "
            f"{'is' if fixed == 1 else 'are'} fixed by the inputs (a sample of what the stated settings alone "
            f"give, whatever the model); the other {evidence.measured_figures(counts)} are measured, decided by "
            f"a mechanism of the model{pieces}: ")


def draws_words(draws: Sequence[Sequence[Sequence[int]]]) -> str:
    """'over 4 disjoint draws of the range seeds (seeds 6–105, 106–205, ...), each piece at its weakest in any, '
    before the tallies of an answer; '' for one draw or none."""
    if len(draws) < 2:
        return ""
    spans = ", ".join(f"{draw[0][0]}–{draw[-1][-1]}" for draw in draws)
    return f"over {len(draws)} disjoint draws of the range seeds (seeds {spans}), each piece at its weakest in any, "


def draws_rule(draws: Sequence[Sequence[Sequence[int]]]) -> str:
    """The sentence on how the tallies hold across draws of the range seeds; '' for one draw or none."""
    if len(draws) < 2:
        return ""
    seeds = sum(len(group) for group in draws[0])
    return (f"The ranges of the tables come from the first of {len(draws)} disjoint draws of {seeds} range seeds "
            f"each ({', '.join(f'seeds {d[0][0]}–{d[-1][-1]}' for d in draws)}), the committed draw; each draw "
            "judges every measured figure again, and a piece of evidence counts at its weakest in any draw: firm "
            "only when firm in every draw, a match only when it matches in every draw. A tally cell reads "
            "'9 (11; 9–12)': 9 over all draws, 11 in the committed draw, 9 to 12 in one draw at a time; where a "
            "figure's strength differs between draws, 'Each published figure once' lists it per draw.")


def fraction(share: float) -> str:
    """A share as the pages say it: 'a third'."""
    return FRACTIONS.get(share, f"{share:.2f}")


# ---------------------------------------------------------------------------
# How strong the evidence is.


def shown_strengths(tallies: Iterable[Mapping[str, int]]) -> List[str]:
    """The strengths a tally table has a column for: checks, fixed by the inputs, firm, loose and outside always;
    failed checks, matches too wide, unstated parameters and unranged figures where a tally has some (pass the
    tallies of every draw too, so that a column some draw alone has is shown)."""
    counted = list(tallies)
    always = (evidence.CHECK, evidence.FIXED, *evidence.HOLDS, evidence.OUTSIDE)
    return [s for s in evidence.STRENGTHS if s in always or any(counts.get(s, 0) for counts in counted)]


def strength_columns(shown: Sequence[str]) -> List[str]:
    """The column names of those strengths: 'checks', 'failed checks', then 'firm', 'loose', ..."""
    return [f"{s}s" if s in evidence.CHECKS else s for s in shown]


def tally_columns(shown: Sequence[str]) -> List[str]:
    """A tally's columns: the independent figures, the checks and the figures fixed by the inputs, the measured
    figures and the pieces of evidence they make, then the strengths of those pieces."""
    apart = [s for s in shown if s not in evidence.MEASURED]
    return ["independent figures", *strength_columns(apart), "measured figures", "pieces of evidence",
            *strength_columns([s for s in shown if s in evidence.MEASURED])]


def tally_cells(counts: Mapping[str, int], shown: Sequence[str], per_draw: Sequence[Mapping[str, int]] = ()
                ) -> List[str]:
    """One tally's cells, in tally_columns' order; with the tallies of several draws of the range seeds
    (`per_draw`, the committed draw first), each strength's count over all draws is followed by the committed
    draw's and the least–most of one draw at a time: '9 (11; 9–12)'."""
    apart = [str(counts[s]) for s in shown if s not in evidence.MEASURED]

    def cell(name: str) -> str:
        if len(per_draw) < 2:
            return str(counts[name])
        low, high = evidence.spread_of_tallies(per_draw, name)
        return f"{counts[name]} ({per_draw[0][name]}; {low}–{high})"

    return [str(evidence.total(counts)), *apart, str(evidence.measured_figures(counts)),
            str(evidence.measured(counts)), *[cell(s) for s in shown if s in evidence.MEASURED]]


def strength_section(header_row: Sequence[str], rows: Sequence[Sequence[str]], *paragraphs: str) -> List[str]:
    """'How strong the evidence is': the table of tallies, then the paragraphs that say how they count."""
    lines = ["## How strong the evidence is", "", *table(header_row, rows)]
    for paragraph in paragraphs:
        lines += ["", paragraph]
    return lines


def counting_rules(restating: str, rule_words: str, after: str) -> str:
    """The paragraph under the tallies: how a figure counts once, what a check is, what firm and loose mean.
    `restating` gives the page's examples of a row that restates others; `rule_words` how the firm matches move
    with the rule's line (rule_words()); `after` ends the paragraph with what the page sets apart."""
    return (
        f"Each published figure counts once. A row that restates others ({restating}: the article's own numbers "
        "derive it from theirs) keeps its verdict, but counts as the figures it restates: the `#` column of every "
        "table names them (`= 7`), and 'Each published figure once', at the end, lists every independent figure "
        "with the rows that rest on it. Each independent figure is of one of three kinds. A *check* is a figure "
        "the way the run is built fixes (each is listed with what fixes it): it must come out exact, and it "
        "measures none of the article's claims. A figure *fixed by the inputs* is an analytic share of a stated "
        "setting, a sample of a stated count, or a count so well decided by the stated settings' own law that our "
        "range would hold the published one nearly always (at least 95% of the time, in every draw): whatever "
        "the model, ours measures the sampling, not a claim, so a match says nothing of the model; it is listed "
        "with what fixes it (and, where our range misses it all the same, says so) and tallied apart. A "
        "*measured* figure is one a mechanism of the model decides, and only those count as firm, loose, too wide "
        "or outside; measured figures that follow from one cause count as one piece of evidence, the weakest of their "
        "strengths, and are listed together with the cause named. A measured figure is a *firm* match when our "
        "range meets it and is at most "
        f"{fraction(evidence.FIRM_WIDTH)} of it wide, so that it leaves out values a reader would call "
        f"different; a *loose* match when our range meets it but is wider, though {too_wide_words(False)}; "
        f"*{evidence.WIDE}* when our range meets it but is {too_wide_words(True)}: its bottom then lies at or "
        "below the figure (give or take the figure's rounding) and its top a whole figure above its bottom, so it "
        "holds about a value and its double, meeting the figure could not have failed, and it "
        f"counts as neither a match nor a miss; *outside* otherwise. {rule_words} {after}")


def too_wide_words(too_wide: bool) -> str:
    """How wide a range is too wide to count as a match (evidence.TOO_WIDE), in words: 'at least as wide as the
    figure itself'; or how wide a loose one is at most: 'narrower than the figure itself'."""
    times = "" if evidence.TOO_WIDE == 1 else f"{evidence.TOO_WIDE:g} times "
    if too_wide:
        return f"at least {times}as wide as the figure{' itself' if not times else ''}"
    return f"narrower than {times}the figure{' itself' if not times else ''}"


def rule_words(firm_at: Mapping[float, int], firm: int, whose: str = "", where: str = "") -> str:
    """'Drawn at a quarter or at half of the figure instead, the line would give 9 or 20 firm matches, against
    14.', from evidence.firm_at; `whose` names the model before the counts, `where` the reading after them."""
    low, high = evidence.OTHER_WIDTHS
    return (f"Drawn at {fraction(low)} or at {fraction(high)} of the figure instead, the line would give "
            f"{whose}{firm_at[low]} or {firm_at[high]} firm matches{where}, against {firm}.")


# ---------------------------------------------------------------------------
# How to read the tables, and the tables of figures.


def verdict_bullet(then: str) -> str:
    """The bullet on what a verdict means, with the page's own words on an outside one (`then`)."""
    return f"- **verdict**: {VERDICT_RULE} {then}"


def number_bullet(apart: bool = False) -> str:
    """The bullet on the `#` column; `apart` where some rows stand outside the tallies."""
    return ("- **#**: the number of the independent figure a row measures, `= n` for a row that restates figure n"
            + (", `apart` for one outside the tallies." if apart else "."))


def per_model(columns: Sequence[str], titles: Sequence[str]) -> List[str]:
    """`columns` once for a page of one model; else once per model, the first named after it ('popular search:
    ours')."""
    if not titles:
        return list(columns)
    return [name for title in titles for name in (f"{title}: {columns[0]}", *columns[1:])]


def figure_columns(titles: Sequence[str] = ()) -> List[str]:
    """figure | # | published | then ours, our range and verdict of each model (`titles`; of one, unnamed)."""
    return ["figure", "#", "published", *per_model(("ours", "our range", "verdict"), titles)]


def evidence_columns(titles: Sequence[str] = ()) -> List[str]:
    """# | figure | rows that restate it | published | then percentile, width and strength of each model."""
    return ["#", "figure", "rows that restate it", "published", *per_model(("percentile", "width", "strength"),
                                                                           titles)]


def evidence_cells(number: int, label: str, restating: Sequence[str], published: str) -> List[str]:
    """The first cells of a row of 'Each published figure once': its number, label, restating rows, published."""
    return [str(number), label, "; ".join(restating) or "—", published]


def each_figure_once(intro: str, header_row: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    """'Each published figure once': what its columns mean (`intro`), and the table of independent figures."""
    return [EACH_FIGURE_ONCE, "", intro, "", *table(header_row, rows)]


# ---------------------------------------------------------------------------
# Run time.


def processes(jobs: int) -> str:
    """'2 processes', '1 process'."""
    return f"{jobs} process{'es' if jobs != 1 else ''}"


def took(seconds: float, jobs: int) -> str:
    """'This run took 12.3 s on 2 processes'."""
    return f"This run took {seconds:.1f} s on {processes(jobs)}"


def run_time(lines: Sequence[str]) -> List[str]:
    """The run time section: its heading and its lines, each line that reports a wall time ending with timed()'s
    mark."""
    return ["## Run time", "", *lines]


def timed(line: str) -> str:
    """A line that reports a wall time, marked so that two runs of the same settings compare equal without it."""
    return f"{line} {TIMING_MARK}"


def sweeps_section(intro: str, titles: Sequence[str], per_parameter: Sequence[Sequence[evidence.Sweep]],
                   rows: Mapping[str, Dict[str, Any]], numbers: Mapping[str, int],
                   strengths: Sequence[Mapping[str, evidence.Assessment]], units: Mapping[str, str],
                   moved: Optional[Callable[[evidence.Sweep], str]] = None) -> List[str]:
    """What the article never states, swept: `intro`, then per parameter a table of ours at each of its values
    (a column per model, `titles`; per_parameter holds the parameter's sweep in each model, in that order) beside
    the published figure of its first key, and whether the figure rests on the parameter or stays measured (its
    strength in each model's `strengths`), followed by what `moved` says of the other figures a sweep moves
    (Sweep.moves), where it does. `units` maps a sweep's unit to the unit its cells print."""
    lines = [SWEPT, "", intro]
    for sweeps in per_parameter:
        first = sweeps[0]
        row = rows[first.keys[0]]
        unit, decimals = units.get(first.unit, ""), figures.shown_decimals(row)
        cells = [[words] + [number(sweep.values[n][1], decimals, unit) for sweep in sweeps]
                 + [figures.published_cell(row, unit)] for n, (words, _) in enumerate(first.values)]
        numbered = ", ".join(f"#{numbers[key]}" for key in first.keys if key in numbers)
        lines += ["", f"**{first.parameter}** ({numbered})", "",
                  *table(["value", *(f"{title}: {first.unit}" for title in titles), "published"], cells), ""]
        found = [sweep_verdict(sweep, strength.get(first.keys[0])) for sweep, strength in zip(sweeps, strengths)]
        lines.append(found[0] if len(set(found)) == 1 else
                     " ".join(f"{title[0].upper()}{title[1:]}: {words}" for title, words in zip(titles, found)))
        if moved is not None and first.moves:
            lines[-1] += " " + moved(first)
    return lines


def sweep_verdict(sweep: evidence.Sweep, assessed: Optional[evidence.Assessment]) -> str:
    """The sentence under a sweep's table: the value that hits the published figure and why it is plausible, so
    the figure rests on the parameter; or why none does, so the figure stays measured, at its strength."""
    plausible = f"{sweep.plausible[0].upper()}{sweep.plausible[1:]}"
    if sweep.reached:
        return (f"The value that gives the published figure: {sweep.hit}. {plausible}, so the figure rests on this "
                "parameter.")
    return (f"{plausible}, so the figure stays measured: "
            f"{assessed.strength if assessed is not None else 'not tallied'}.")
