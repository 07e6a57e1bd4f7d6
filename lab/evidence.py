"""How strong the evidence of a reproduction is, each published figure counted once.

Layer: below the pages (pages.py, and each experiment's measured.py and report.py), beside figures.py, on
experiments.py (whose rows it judges); it measures nothing and quotes no published figure. Each experiment
declares its Basis in its scenario.py, beside its published figures (which rows restate others, which the
run's construction fixes); this module turns the measured rows into one assessment per independent figure
and the tallies every page opens with.

Glossary (experiments.py has figure, ours, range, verdict):
  restatement    a published figure the article's own numbers derive from others it publishes: a share beside
                 its count, a per-check figure beside its total, the same count in a second table. Its row keeps
                 its verdict; the tallies count it once, as the figures it restates
  independent    a published figure that restates none: what the tallies count
  check          an independent figure the way the run is built fixes (1,200 citations, 150 edits per delay):
                 it must come out exact, and it is tallied apart, since it is no measurement of the claims
  fixed          an independent figure fixed by the inputs: an analytic share of a stated setting, or a sample of
                 a stated count (the top-10 share of a stated Zipf law, the bugs asking for 20 points), or a
                 count the stated inputs' own law makes our range hold nearly always (experiments.
                 count_range_chance: a rare rejection against a published 0). Whatever the model, ours measures
                 the sampling, not a claim, so a match says nothing of the model: it is shown and tallied apart
  measured       an independent figure a mechanism of the model decides: the only kind firm, loose and outside
                 count
  cause          one cause several measured figures follow from (one unstated JSON shape behind three sizes):
                 they count as one piece of evidence, the weakest of their strengths, listed with the cause named
  strength       of an independent figure: check (it holds), failed check (this run is not built as the
                 article's); fixed by the inputs; firm (our range meets the published figure and is at most
                 FIRM_WIDTH of it wide); loose (it meets it and is wider, but narrower than TOO_WIDE); too wide
                 (it meets it, but is at least TOO_WIDE of it wide: it holds about a value and its double, so meeting
                 the figure could not have failed; neither a match nor a miss); outside; unstated parameter (a
                 sweep of a parameter the article never states reaches it: neither a match nor a miss); or
                 unranged (no range was run)
  sweep          a parameter the article never states, tried at its plausible values beside the published figure
                 (Sweep; each page computes its own and pages.sweeps_section writes them): a figure one reaches
                 rests on that parameter; a figure fixed by the inputs whose match one decides (its range
                 meets the published figure at one value and misses it at another) is measured after all
                 (settled)
  percentile     where the published figure falls among the range groups' values: the share below it, a group
                 within its rounding counted half
  discriminates  of two models, one holds the published figure (firm or loose) and the other misses it
"""

import dataclasses
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from lab.experiments import EXACT, INSIDE, published_interval, range_meets

FIRM_WIDTH = 1 / 3  # a match is firm when our range is at most this share of the published figure wide
OTHER_WIDTHS = (1 / 4, 1 / 2)  # where the pages say the line might have been drawn instead
TOO_WIDE = 1.0  # a range at least this share of the published figure wide that meets it is no match: its bottom
#                 lies at or below the figure (give or take the figure's rounding, as range_meets allows) and its
#                 top a figure's width above that, so it holds about a value and its double (3.4 to 6.4 meets a
#                 published 3), and meeting the figure could not have failed
CHECK, FAILED, FIXED = "check", "failed check", "fixed by the inputs"
FIRM, LOOSE, OUTSIDE, UNRANGED = "firm", "loose", "outside", "unranged"
WIDE = "too wide"  # a range that meets the published figure, at least TOO_WIDE of it wide: neither match nor miss
UNSTATED = "unstated parameter"  # a measured figure a sweep of a parameter the article never states can reach
STRENGTHS = (CHECK, FAILED, FIXED, FIRM, LOOSE, WIDE, OUTSIDE, UNSTATED, UNRANGED)  # the order the tallies list them
SHARED = "shared"  # a tally's count of measured figures folded into another's piece of evidence (one cause)
CHECKS = (CHECK, FAILED)  # the strengths of a check: it holds, or this run is not built as the article's
MEASURED = (FIRM, LOOSE, WIDE, OUTSIDE, UNSTATED, UNRANGED)  # the strengths of a figure the run measures
WEAKEST_FIRST = (UNSTATED, OUTSIDE, UNRANGED, WIDE, LOOSE, FIRM)  # how a cause's figures combine into one piece
KINDS = ("check", FIXED, "measured")  # the three kinds of an independent figure
HOLDS = (FIRM, LOOSE)  # the strengths of a model whose range holds the published figure

Figures = Mapping[str, float]
Rows = Mapping[str, Dict[str, Any]]  # figure key -> experiments.measure's row


@dataclasses.dataclass(frozen=True)
class Restatement:
    """A published figure as the article derives it from others it publishes."""

    of: Tuple[str, ...]  # the figures it restates, the one it is listed under first
    formula: Callable[[Figures], float]  # its value from the published figures those keys name


def restates(*keys: str, by: Optional[Callable[[Figures], float]] = None) -> Restatement:
    """A restatement of `keys` computed `by` a formula of the published figures (the first key's value by
    default: the same count shown again)."""
    return Restatement(tuple(keys), by or (lambda p: p[keys[0]]))


def scaled(key: str, times: float = 1.0, plus: float = 0.0) -> Restatement:
    """A restatement of one figure as `times` it, `plus` a constant: a share of a fixed whole, a per-check figure
    of a total, what a fixed total leaves."""
    return Restatement((key,), lambda p: times * p[key] + plus)


@dataclasses.dataclass(frozen=True)
class Basis:
    """What an experiment says of its published figures: which restate others, which the run fixes, which the
    inputs fix, which follow from one cause, and which are set apart from the tallies (calibrated ones)."""

    restated: Mapping[str, Restatement]
    checks: Mapping[str, str]  # an independent figure the run's construction fixes -> what fixes it
    apart: Iterable[str] = ()  # independent figures shown but never tallied
    fixed: Mapping[str, str] = dataclasses.field(default_factory=dict)  # figure fixed by the inputs -> how
    causes: Mapping[str, Tuple[str, ...]] = dataclasses.field(default_factory=dict)  # one cause -> its figures
    fixed_under: Mapping[str, Mapping[str, str]] = dataclasses.field(default_factory=dict)
    # reading -> the figures the inputs fix under that reading of the article's words alone -> how

    def read_as(self, reading: Optional[str]) -> "Basis":
        """The basis under one reading: its figures fixed by the inputs added to those fixed under every one."""
        extra = self.fixed_under.get(reading or "", {})
        return dataclasses.replace(self, fixed={**self.fixed, **extra}) if extra else self

    def kind(self, key: str) -> str:
        """check, fixed by the inputs, or measured: what decides an independent figure."""
        return KINDS[0] if key in self.checks else FIXED if key in self.fixed else KINDS[2]

    def cause_of(self, key: str) -> Optional[str]:
        """The cause a measured figure shares with others, or None for a figure that is evidence on its own."""
        return next((cause for cause, keys in self.causes.items() if key in keys), None)

    def roots(self, key: str) -> Tuple[str, ...]:
        """The independent figures a figure rests on: itself when it restates none."""
        if key not in self.restated:
            return (key,)
        found: List[str] = []
        for base in self.restated[key].of:
            found += [root for root in self.roots(base) if root not in found]
        return tuple(found)

    def tallied(self, key: str) -> bool:
        """Whether an independent figure counts in the tallies: not calibrated or otherwise set apart."""
        return key not in set(self.apart)

    def independent(self, keys: Iterable[str]) -> List[str]:
        """The independent figures among `keys` and the figures they restate, in order of first appearance."""
        found: List[str] = []
        for key in keys:
            found += [root for root in self.roots(key) if root not in found]
        return found

    def covered(self, keys: Iterable[str]) -> Dict[str, List[str]]:
        """Per independent figure, the keys among `keys` listed under it: itself, and each restatement whose first
        root it is (a share under its count, not under the whole it divides by)."""
        rows: Dict[str, List[str]] = {}
        for key in keys:
            rows.setdefault(self.roots(key)[0], []).append(key)
        return rows


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A parameter the article never states, tried at its plausible values: ours at each beside the published
    figure, and the value that would hit it. A figure a sweep reaches rests on the parameter (UNSTATED)."""

    parameter: str
    keys: Tuple[str, ...]  # the figures it moves, the one its table shows first
    unit: str
    values: Tuple[Tuple[str, float], ...]  # (the parameter's value in words, ours at it), ours as run first
    hit: Optional[str]  # the value that would give the published figure, in words; None when none does
    plausible: str  # a sentence on whether that value is plausible, or why none is
    moves: Mapping[str, Tuple[float, ...]] = dataclasses.field(default_factory=dict)
    # other figures the parameter moves: figure -> how far each value tried moves ours and every range group alike
    # (0 at ours as run, the first), in the figure's unit; what settled() holds the figures fixed by the inputs to

    @property
    def reached(self) -> bool:
        """Whether some plausible value of the parameter gives the published figure."""
        return self.hit is not None


def value_giving(values: Sequence[Tuple[str, float]], published: float, decimals: int) -> Optional[str]:
    """The first value tried, past ours as run (the first of `values`), whose figure rounds to the published one
    (published_interval), in words; None when none does. The rule for a parameter tried only at its listed values (a
    shape, a policy): a figure between two of them is given by neither, so it does not rest on the parameter."""
    lower, upper = published_interval(published, decimals)
    return next((words for words, value in values[1:] if lower <= value < upper), None)


def reached_by(sweeps: Iterable[Sweep]) -> List[str]:
    """The figures some sweep reaches: they rest on a parameter the article never states."""
    return [key for sweep in sweeps if sweep.reached for key in sweep.keys]


def decides(sweep: Sweep, key: str, draws: Sequence[Rows]) -> bool:
    """Whether the parameter a sweep tries decides a figure's match: in some draw of the range seeds, the range
    moved as far as ours at each value tried (Sweep.moves) meets the published figure at one value and misses it
    at another."""
    shifts = sweep.moves.get(key, ())
    return any(len({range_meets(row["published"], row["low"] + shift, row["high"] + shift, row["decimals"])
                    for shift in shifts}) > 1
               for rows in draws for row in [rows[key]] if row.get("low") is not None)


def settled(basis: Basis, sweeps: Iterable[Sweep], draws: Sequence[Rows]) -> Basis:
    """The basis with the rule every figure fixed by the inputs is held to: no parameter the article never states
    that moves it (Sweep.moves) decides whether its range meets the published figure (decides), or that
    parameter, not the inputs, decides the match. Such a figure is measured after all, and counts as one cause
    with the figures of the sweep that moved it (the cause they share already, or the parameter itself)."""
    fixed, causes = dict(basis.fixed), dict(basis.causes)
    for sweep in sweeps:
        moved = [key for key in sweep.moves if key in fixed and decides(sweep, key, draws)]
        if not moved:
            continue
        cause = next((found for found in map(basis.cause_of, sweep.keys) if found), sweep.parameter)
        shared = tuple(causes.get(cause, sweep.keys))
        causes[cause] = shared + tuple(key for key in moved if key not in shared)
        for key in moved:
            del fixed[key]
    return basis if fixed == dict(basis.fixed) else dataclasses.replace(basis, fixed=fixed, causes=causes)


@dataclasses.dataclass(frozen=True)
class Assessment:
    """One independent figure in one model and reading: how strong the match is."""

    key: str
    strength: str  # over several draws of the range seeds, a measured figure's weakest in any of them
    percentile: Optional[float]  # 0-100; None without range groups
    width: Optional[float]  # our range's width over the published figure; None without a range
    draws: Tuple[str, ...] = ()  # its strength in each draw of the range seeds, where there are several
    missed: bool = False  # a figure fixed by the inputs whose range misses the published one, in some draw: the
    #                       published figure is not what those inputs give


def percentile(row: Dict[str, Any]) -> Optional[float]:
    """Where the published figure falls among the range groups' values: the share below it, in percent, a
    group within the figure's rounding interval counted half."""
    values = row.get("groups") or []
    if not values:
        return None
    lower, upper = published_interval(row["published"], row["decimals"])
    below = sum(v < lower for v in values) + 0.5 * sum(lower <= v < upper for v in values)
    return 100.0 * below / len(values)


def relative_width(row: Dict[str, Any]) -> Optional[float]:
    """Our range's width over the published figure (infinite for a published 0 and a range of some width)."""
    if row.get("low") is None:
        return None
    width = row["high"] - row["low"]
    if row["published"] == 0:
        return 0.0 if width == 0 else float("inf")
    return width / abs(row["published"])


def strength(row: Dict[str, Any], check: bool, firm_width: float = FIRM_WIDTH, fixed: bool = False) -> str:
    """A figure's strength: a check holds when ours is exact; one fixed by the inputs is that, whatever its
    verdict; a measured one is firm, loose, too wide, outside or unranged (no range was run, so nothing says how
    firm an exact one is). A measured figure matches only where our range meets it, as its verdict says
    (experiments.verdict: outside wherever the range misses, ours exact or not), and only where that range is
    narrower than TOO_WIDE of the figure: a wider one holds about a value and its double, and no match could fail
    it."""
    if check:
        return CHECK if row.get("verdict") == EXACT else FAILED
    if fixed:
        return FIXED
    width = relative_width(row)
    if width is None:
        return UNRANGED
    if row.get("verdict") not in (EXACT, INSIDE):
        return OUTSIDE
    return FIRM if width <= firm_width else LOOSE if width < TOO_WIDE else WIDE


def meets(row: Dict[str, Any]) -> bool:
    """Whether a figure's row has a range, and that range meets the published figure (range_meets)."""
    return row.get("low") is not None and range_meets(row["published"], row["low"], row["high"], row["decimals"])


def assess(rows: Rows, basis: Basis, firm_width: float = FIRM_WIDTH,
           reached: Iterable[str] = ()) -> Dict[str, Assessment]:
    """Every independent, tallied figure of `rows` that carries a verdict, assessed, in the rows' order; a
    measured figure among `reached` (a sweep of a parameter the article never states reaches it) rests on that
    parameter, and is neither a match nor a miss."""
    published, reached = [key for key, row in rows.items() if "verdict" in row], set(reached)

    def judged(key: str) -> str:
        found = strength(rows[key], key in basis.checks, firm_width, key in basis.fixed)
        return UNSTATED if key in reached and found in MEASURED else found

    return {key: Assessment(key, judged(key), percentile(rows[key]), relative_width(rows[key]),
                            missed=key in basis.fixed and rows[key].get("low") is not None and not meets(rows[key]))
            for key in basis.independent(published) if basis.tallied(key) and "verdict" in rows.get(key, {})}


def across(per_draw: Sequence[Mapping[str, Assessment]]) -> Dict[str, Assessment]:
    """The assessments of the first draw of the range seeds (percentile and width), each measured figure's
    strength the weakest it has in any draw: firm only when firm in every draw, held only when held in every
    one. Checks and figures fixed by the inputs do not depend on the draw."""
    first = per_draw[0]
    if len(per_draw) == 1:
        return dict(first)
    found = {}
    for key, assessment in first.items():
        strengths = tuple(draw[key].strength for draw in per_draw)
        weakest = (min(strengths, key=WEAKEST_FIRST.index) if assessment.strength in MEASURED
                   else assessment.strength)
        found[key] = dataclasses.replace(assessment, strength=weakest, draws=strengths,
                                         missed=any(draw[key].missed for draw in per_draw))
    return found


def piece_figures(assessed: Mapping[str, Assessment], basis: Optional[Basis] = None) -> Dict[str, List[str]]:
    """The figures of each piece of evidence, keyed by its first figure: every figure on its own, but the measured
    figures of one cause (basis.causes) together."""
    found: Dict[str, List[str]] = {}
    first_of: Dict[str, str] = {}  # cause -> the key its piece is listed under
    for key, assessment in assessed.items():
        cause = basis.cause_of(key) if basis is not None and assessment.strength in MEASURED else None
        found.setdefault(key if cause is None else first_of.setdefault(cause, key), []).append(key)
    return found


def pieces(assessed: Mapping[str, Assessment], basis: Optional[Basis] = None) -> Dict[str, str]:
    """The strength of each piece of evidence, keyed by its first figure (piece_figures): the weakest of its
    figures' strengths."""
    return {piece: min((assessed[key].strength for key in keys), key=_weakness)
            for piece, keys in piece_figures(assessed, basis).items()}


def _weakness(strength_of_figure: str) -> int:
    """Where a strength stands in WEAKEST_FIRST; a figure alone in its piece keeps its own, whatever it is."""
    return WEAKEST_FIRST.index(strength_of_figure) if strength_of_figure in WEAKEST_FIRST else -1


def missed_pieces(assessed: Mapping[str, Assessment], basis: Optional[Basis] = None) -> List[str]:
    """The pieces of evidence the tallies count as missed (outside, or a failed check), each by the first of its
    figures that misses: what a page that names the causes of its misses counts, so that its counts are the
    tallies'."""
    strengths = pieces(assessed, basis)
    return [next(key for key in keys if assessed[key].strength in (OUTSIDE, FAILED))
            for piece, keys in piece_figures(assessed, basis).items() if strengths[piece] in (OUTSIDE, FAILED)]


def tally(assessed: Mapping[str, Assessment], basis: Optional[Basis] = None) -> Dict[str, int]:
    """How many pieces of evidence have each strength (each figure on its own, the figures of one cause in
    `basis` as one), and under SHARED how many measured figures were folded into another's piece."""
    counts = dict.fromkeys(STRENGTHS, 0)
    found = pieces(assessed, basis)
    for strength_of_piece in found.values():
        counts[strength_of_piece] += 1
    counts[SHARED] = len(assessed) - len(found)
    return counts


def total(counts: Mapping[str, int]) -> int:
    """How many independent figures a tally counts."""
    return sum(counts.get(s, 0) for s in STRENGTHS) + counts.get(SHARED, 0)


def measured(counts: Mapping[str, int]) -> int:
    """How many pieces of evidence the run measures: the figures a mechanism decides, one cause's as one."""
    return sum(counts.get(s, 0) for s in MEASURED)


def measured_figures(counts: Mapping[str, int]) -> int:
    """How many independent figures a mechanism decides: neither checks nor fixed by the inputs."""
    return measured(counts) + counts.get(SHARED, 0)


def held(counts: Mapping[str, int]) -> int:
    """How many of them our ranges hold: firm or loose matches."""
    return sum(counts[s] for s in HOLDS)


def firm_at(draws: Sequence[Rows], basis: Basis, widths: Sequence[float] = OTHER_WIDTHS,
            reached: Iterable[str] = ()) -> Dict[float, int]:
    """How many firm matches the rows of each draw of the range seeds (the committed draw's first) would have
    together, firm in every draw, with the line drawn at each of `widths` instead of FIRM_WIDTH."""
    reached = tuple(reached)
    return {width: tally(across([assess(rows, basis, width, reached) for rows in draws]), basis)[FIRM]
            for width in widths}


def spread_of_tallies(tallies: Sequence[Mapping[str, int]], strength_name: str) -> Tuple[int, int]:
    """The least and most pieces of evidence of one strength in any one draw's tally."""
    counts = [counts[strength_name] for counts in tallies]
    return min(counts), max(counts)


def tally_text(counts: Mapping[str, int]) -> str:
    """'41 independent: 7 checks, 11 firm, 18 loose, 5 outside' (failed checks, matches too wide and unranged
    figures only when some are)."""
    parts = [f"{counts[CHECK]} check{'' if counts[CHECK] == 1 else 's'}"]
    parts += [f"{counts[FAILED]} failed check{'' if counts[FAILED] == 1 else 's'}"] if counts[FAILED] else []
    parts += [f"{counts[FIXED]} fixed by the inputs"] if counts.get(FIXED) else []
    parts += [f"{counts[FIRM]} firm", f"{counts[LOOSE]} loose"]
    parts += [f"{counts[WIDE]} {WIDE}"] if counts.get(WIDE) else []
    parts += [f"{counts[OUTSIDE]} outside"]
    parts += [f"{counts[UNSTATED]} {UNSTATED}"] if counts.get(UNSTATED) else []
    parts += [f"{counts[UNRANGED]} unranged"] if counts[UNRANGED] else []
    return f"{total(counts)} independent: " + ", ".join(parts)


def pieces_text(counts: Mapping[str, int], per_draw: Sequence[Mapping[str, int]] = ()) -> str:
    """'5 firm, 13 loose, 9 outside, 1 unstated parameter (one draw at a time: 5–8, 13–14, 6–8, 1)': the pieces of
    evidence a run measures by strength, over every draw, and each strength's least–most in one draw at a time
    (the matches too wide, the unstated and the unranged ones only when some are, over every draw or in one)."""
    some = lambda s: counts.get(s) or any(draw.get(s) for draw in per_draw)  # noqa: E731
    shown = [FIRM, LOOSE] + [WIDE] * bool(some(WIDE)) + [OUTSIDE] + [s for s in (UNSTATED, UNRANGED) if some(s)]
    words = ", ".join(f"{counts[s]} {s}" for s in shown)
    if len(per_draw) < 2:
        return words
    spans = [spread_of_tallies(per_draw, s) for s in shown]
    return words + " (one draw at a time: " + ", ".join(
        f"{low}–{high}" if low != high else f"{low}" for low, high in spans) + ")"


def checks_words(counts: Mapping[str, int]) -> str:
    """'7 check how the run is built, and all hold' (or how many hold)."""
    checks = counts[CHECK] + counts[FAILED]
    held = "all hold" if not counts[FAILED] else f"{counts[CHECK]} of them hold"
    return f"{checks} check{'s' if checks == 1 else ''} how the run is built, and {held}"


def measured_words(counts: Mapping[str, int], per_draw: Sequence[Mapping[str, int]] = ()) -> str:
    """'matches 11 firmly and 18 loosely and misses 5': the pieces of evidence the run measures, and those whose
    range meets the figure but is too wide to count ('and meets 2 only with a range too wide to count'); with the
    tallies of several draws of the range seeds (`per_draw`), each piece at its weakest in any draw, followed by
    how each count spreads over one draw at a time, named by what it counts ('(one draw at a time: 9–12 firmly,
    17–19 loosely, 0–2 too wide, 4–7 missed)'), before the pieces that rest on an unstated parameter."""
    wide = counts.get(WIDE) or any(draw.get(WIDE) for draw in per_draw)
    words = f"matches {counts[FIRM]} firmly and {counts[LOOSE]} loosely"
    words += f", meets {counts[WIDE]} only with a range too wide to count," if wide else ""
    words += f" and misses {counts[OUTSIDE]}"
    if len(per_draw) > 1:
        named = [(FIRM, "firmly"), (LOOSE, "loosely")] + [(WIDE, WIDE)] * bool(wide) + [(OUTSIDE, "missed")]
        words += " (one draw at a time: " + ", ".join(
            (f"{low}–{high}" if low != high else f"{low}") + " " + what
            for (low, high), what in ((spread_of_tallies(per_draw, s), what) for s, what in named)) + ")"
    words += (f", and {counts[UNSTATED]} rest{'s' if counts[UNSTATED] == 1 else ''} on a parameter the article "
              "never states, which a sweep of it can reach" if counts.get(UNSTATED) else "")
    words += f", {counts[UNRANGED]} unjudged for want of a range" if counts[UNRANGED] else ""
    return words


def favoured(by_model: Mapping[str, Mapping[str, Assessment]]) -> Dict[str, str]:
    """The figures that tell two models apart: figure -> the model whose range holds the published figure
    while the other's misses it (checks never do; nor does a range too wide to count, or a figure resting on an
    unstated parameter, in either model: neither a match nor a miss)."""
    first, second = list(by_model)[:2]
    found = {}
    for key, one in by_model[first].items():
        other = by_model[second].get(key)
        if other is None or one.strength in CHECKS or one.strength == FIXED:
            continue
        if one.strength in HOLDS and other.strength == OUTSIDE:
            found[key] = first
        elif other.strength in HOLDS and one.strength == OUTSIDE:
            found[key] = second
    return found


def restatement_errors(basis: Basis, published: Figures, decimals_of: Callable[[str], int]) -> List[str]:
    """Every declared restatement whose formula, on the published figures, misses the figure the article prints
    by more than its rounding; [] when the article's own numbers bear each one out."""
    errors = []
    for key, restatement in basis.restated.items():
        value = restatement.formula(published)
        if abs(value - published[key]) > 0.5 * 10 ** -decimals_of(key) + 1e-9:
            errors.append(f"{key}: {value:g} from {', '.join(restatement.of)}, published {published[key]:g}")
    return errors


def lockstep_pairs(rows: Rows, keys: Sequence[str]) -> List[Tuple[str, str]]:
    """Pairs of figures whose values over the range groups are proportional: one restates the other, whatever
    the basis says (figures fixed over every group are left out: every such pair is proportional)."""
    profiles: Dict[Tuple[float, ...], str] = {}
    pairs = []
    for key in keys:
        values = rows[key].get("groups") or []
        if len(set(values)) < 2:
            continue
        scale = next(v for v in values if v)
        profile = tuple(round(v / scale, 9) for v in values)
        if profile in profiles:
            pairs.append((profiles[profile], key))
        profiles.setdefault(profile, key)
    return pairs
