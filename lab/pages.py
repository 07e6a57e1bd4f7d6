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

from typing import Iterable, List, Mapping, Sequence

from lab import evidence
from lab.experiments import TIMING_MARK, VERDICT_RULE, Provenance, table

EACH_FIGURE_ONCE = "## Each published figure once"
FRACTIONS = {1 / 2: "half", 1 / 3: "a third", 1 / 4: "a quarter"}  # the shares a rule's line is drawn at, in words


def page(sections: Iterable[Sequence[str]]) -> str:
    """The whole page: its sections in order, a blank line between two, and a last newline."""
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def header(provenance: Provenance, title: str, answer: str, written: str) -> List[str]:
    """The title, the page's answer in one sentence, what wrote the page (`written`), and what made it."""
    return ["# " + provenance.title(title), "", f"**In one sentence.** {answer}", "", written, "",
            provenance.line()]


def answer_opening(article: str, counts: Mapping[str, int]) -> str:
    """How an answer starts: 'Of the 48 figures the <article> article publishes, each counted once ..., 7 check how
    the run is built, and all hold; of the other 41, ' (what the measured ones did follows)."""
    return (f"Of the {evidence.total(counts)} figures the {article} article publishes, each counted once however "
            f"many rows restate it, {evidence.checks_words(counts)}; of the other {evidence.measured(counts)}, ")


def fraction(share: float) -> str:
    """A share as the pages say it: 'a third'."""
    return FRACTIONS.get(share, f"{share:.2f}")


# ---------------------------------------------------------------------------
# How strong the evidence is.


def shown_strengths(tallies: Iterable[Mapping[str, int]]) -> List[str]:
    """The strengths a tally table has a column for: checks, firm, loose and outside always; failed checks and
    unranged figures where a tally has some."""
    counted = list(tallies)
    return [s for s in evidence.STRENGTHS if s in (evidence.CHECK, *evidence.HOLDS, evidence.OUTSIDE)
            or any(counts[s] for counts in counted)]


def strength_columns(shown: Sequence[str]) -> List[str]:
    """The column names of those strengths: 'checks', 'failed checks', then 'firm', 'loose', ..."""
    return [f"{s}s" if s in evidence.CHECKS else s for s in shown]


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
        "with the rows that rest on it. A *check* is a figure the way the run is built fixes (each is listed with "
        "what fixes it): it must come out exact, and it measures none of the article's claims. A measured figure "
        f"is a *firm* match when our range meets it and is at most {fraction(evidence.FIRM_WIDTH)} of it wide, so "
        "that it leaves out values a reader would call different; a *loose* match when our range meets it but is "
        f"wider; *outside* otherwise. {rule_words} {after}")


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
