"""What both report writers share about one figure: its cells in a table, its verdict cell, why it misses.

Layer: below the pages (knowledge_base/report.py with its reasons.py, record_channels/report.py
with its reasons.py), beside pages.py (the skeleton of a whole page), above experiments.py,
whose rows it shows; it measures nothing and quotes no published figure. Each report keeps
its own causes and its own way of pointing to a reason (a numbered note, or the reason
itself), and passes them in.

Glossary (experiments.py has figure, ours, range, verdict):
  row       what experiments.measure keeps of one figure: ours, low, high, decimals, and where published,
            published and verdict; triage.py adds deterministic (no range: the seeds cannot move it), single
            (the range is over single seeds, for a figure published for one page) and shown_decimals
            (ours printed more finely than the published figure)
  cause     (pattern, check): a check of the run that explains why a figure whose key matches the pattern
            lies outside our range, or declines (None) when it does not hold
  marginal  a miss by at most MARGINAL of the range's width
"""

import re
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from lab import evidence
from lab.experiments import OUTSIDE, number, published_interval

MARGINAL = 0.25  # a miss by at most this share of the range's width is called marginal

Row = Dict[str, Any]
Reason = TypeVar("Reason")
Causes = Sequence[Tuple[str, Callable[..., Optional[Reason]]]]


# ---------------------------------------------------------------------------
# Cells.


def published_cell(row: Row, unit: str = "") -> str:
    """The published figure at its published precision, or "—" for a figure of ours only."""
    return number(row["published"], row["decimals"], unit) if "published" in row else "—"


def shown_decimals(row: Row) -> int:
    """The decimals ours is printed to: shown_decimals where the row sets it, else the published precision."""
    return row["shown_decimals"] if "shown_decimals" in row else row["decimals"]


def ours_cell(row: Row, unit: str = "") -> str:
    """Ours, at the precision it is shown to."""
    return number(row["ours"], shown_decimals(row), unit)


def range_cell(row: Row, unit: str = "") -> str:
    """Our range as "low – high" (marked "one page" when over single seeds), "deterministic", or "—" for none."""
    if row.get("deterministic"):
        return "deterministic"
    if row["low"] is None:
        return "—"
    decimals = shown_decimals(row)
    spread = f"{number(row['low'], decimals, unit)} – {number(row['high'], decimals, unit)}"
    return spread + (" (one page)" if row.get("single") else "")


def verdict_cell(verdict: Optional[str], explain: Callable[[], str]) -> str:
    """A verdict as the tables print it: "—" where none was given; an outside one followed by explain(), what
    points to its reason (" [n]" for a numbered note, ": the reason" for the reason itself)."""
    if verdict != OUTSIDE:
        return verdict or "—"
    return OUTSIDE + explain()


def numbered(basis: evidence.Basis, keys: Iterable[str]) -> Dict[str, int]:
    """Each independent, tallied figure among `keys` (and those they restate) numbered in that order, from 1."""
    ordered = [key for key in basis.independent(keys) if basis.tallied(key)]
    return {key: n for n, key in enumerate(ordered, 1)}


def number_cell(basis: evidence.Basis, numbers: Dict[str, int], key: str) -> str:
    """The "#" of a row: its figure's number ("7", "3, check"), the numbers it restates ("= 7, 2"), or "apart"
    for a figure outside the tallies."""
    if key in basis.restated:
        shown = [str(numbers[root]) if root in numbers else "apart" for root in basis.roots(key)]
        return "= " + ", ".join(dict.fromkeys(shown))
    if key not in numbers:
        return "apart"
    return f"{numbers[key]}, check" if key in basis.checks else str(numbers[key])


def strength_cells(basis: evidence.Basis, assessment: evidence.Assessment,
                   numbers: Optional[Dict[str, int]] = None) -> List[str]:
    """percentile | width | strength of one independent figure; a check, or a figure fixed by the inputs, says
    what fixes it; a measured figure that shares its cause with others names them ("outside; one cause with 27:
    the cause"), by their `numbers` on the page."""
    if assessment.key in basis.checks:
        what = basis.checks[assessment.key]
        return ["—", "—", f"check: {what}" if assessment.strength == evidence.CHECK else
                f"failed check: in the article's run, {what}; not in this one"]
    percentile = "—" if assessment.percentile is None else f"{assessment.percentile:.0f}%"
    width = "—" if assessment.width is None else ("∞" if assessment.width == float("inf") else
                                                  f"{100 * assessment.width:.0f}%")
    if assessment.strength == evidence.FIXED:
        missed = ("; yet our range misses the published figure, so the article's run did not have these inputs, "
                  "or not under this reading" if assessment.missed else "")
        return [percentile, width, f"{evidence.FIXED}: {basis.fixed[assessment.key]}{missed}"]
    shown = assessment.strength
    if len(set(assessment.draws)) > 1:
        shown += f" (per draw: {', '.join(assessment.draws)})"
    cause = basis.cause_of(assessment.key)
    if cause is None:
        return [percentile, width, shown]
    others = [str((numbers or {}).get(key, key)) for key in basis.causes[cause] if key != assessment.key]
    return [percentile, width, f"{shown}; one cause with {', '.join(others)}: {cause}"]


def figure_cells(row: Row, unit: str, verdict: str) -> List[str]:
    """ours | our range | verdict: the cells of one figure in one model, after its label and published figure."""
    return [ours_cell(row, unit), range_cell(row, unit), verdict]


# ---------------------------------------------------------------------------
# Reasons.


def reason(causes: "Causes[Reason]", key: str, arguments: Sequence[Any],
           otherwise: Callable[[], Reason]) -> Reason:
    """Why a figure lies outside our range: the first cause whose pattern matches its key and whose check,
    called with `arguments`, holds on this run; otherwise() when none does."""
    for pattern, cause in causes:
        if re.search(pattern, key):
            found = cause(*arguments)
            if found:
                return found
    return otherwise()


def marginal(row: Row) -> Optional[str]:
    """For a near miss, "marginal: <miss> outside a range <width> wide"; None for a wider miss, no miss (a range
    that meets the published figure), no range or a range of no width (a deterministic figure's, its own value).
    The published figure stands for the interval that rounds to it, so the miss is measured from that interval's
    nearer end."""
    if row["low"] is None or evidence.meets(row):
        return None
    width = row["high"] - row["low"]
    half = 0.5 * 10 ** -row["decimals"]
    miss = max(row["low"] - (row["published"] + half), (row["published"] - half) - row["high"])
    if width <= 0 or miss > MARGINAL * width:
        return None
    wide = f"a range {number(width, row['decimals'])} wide"
    if miss <= 0:  # the range misses the interval at its very edge: it ends where the next rounding begins
        return f"marginal: {wide} that ends where the published figure's rounding begins"
    return f"marginal: {number(miss, row['decimals'])} outside {wide}"


def missing_draw(draw_rows: Sequence[Dict[str, Row]], key: str) -> Tuple[int, Row]:
    """The first draw of the range seeds (0: the committed one) whose range misses a figure, and its row: a figure
    is outside when it misses in any draw, so why it misses is worked out on a draw where it does (the committed
    draw where none does)."""
    return next(((index, rows[key]) for index, rows in enumerate(draw_rows)
                 if rows[key].get("low") is not None and not evidence.meets(rows[key])), (0, draw_rows[0][key]))


def main_seeds_alone(draw: int, row: Row) -> Optional[str]:
    """Why a figure ours gets exact is still outside: in that draw our range misses it (the cause of such a miss,
    on either page); None for any other miss."""
    lower, upper = published_interval(row["published"], row["decimals"])
    if row["low"] is None or evidence.meets(row) or not lower <= row["ours"] < upper:
        return None
    return (f"{draw_words(draw)}ours over the main seeds rounds to the published figure, but our range over the "
            f"range seeds lies {range_side(row)} it ({number(row['low'], row['decimals'])} to "
            f"{number(row['high'], row['decimals'])}): the main seeds fell at the edge of what other seeds give, "
            "so the figure counts as outside")


def range_side(row: Row) -> str:
    """Which side of the published figure a range that misses it lies on: "above" or "below" (what makes the
    verdict, whichever side ours over the main seeds lies on)."""
    return "above" if row["low"] > row["published"] else "below"


def where_range_lies(row: Row) -> str:
    """Where a missing figure's range lies, for a note, and ours where it lies on the other side.

    >>> where_range_lies({"ours": 28.7, "low": 20.0, "high": 26.1, "published": 28.4, "decimals": 1})
    'our range lies below the published figure (20.0 to 26.1), though ours over the main seeds lies above it'
    """
    side = range_side(row)
    words = (f"our range lies {side} the published figure ({number(row['low'], row['decimals'])} to "
             f"{number(row['high'], row['decimals'])})")
    ours = "below" if row["ours"] < row["published"] else "above" if row["ours"] > row["published"] else side
    return words if ours == side else f"{words}, though ours over the main seeds lies {ours} it"


def draw_words(index: int) -> str:
    """Where a miss was measured, for a note: nothing for the committed draw, "in draw 3 of the range seeds, "
    for another (numbered from 1, the committed one first)."""
    return f"in draw {index + 1} of the range seeds, " if index else ""
