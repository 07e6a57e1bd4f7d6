"""What a knowledge-base run measured, as its pages read it: each model's run, the reports, and what follows from them.

Layer: above day.py, approval.py, law.py and scenario.py, on evidence.py (the strength of each match);
below report.py, reasons.py, chart.py and sensitivity.py, which write what is here, and rerun.py, which
fills it. Besides the two reports (the main page's and the sensitivity page's), it holds what the pages
say that is not a figure's own row: sums over the delays and the hours, shares of the main seeds' counts,
the popularity law's expectations, the published figures' derived shares (each said to be derived where
a page shows it), and the verdict logic behind the pages' words. The pages only choose the words.

Glossary (sim.py has the others; evidence.py has independent, check, firm, loose):
  run        ModelRun: one model over the main seeds and the range groups
  derived    a number worked out from published figures, never published itself
"""

import dataclasses
import statistics
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from lab import evidence
from lab.experiments import Provenance
from lab.knowledge_base import law
from lab.knowledge_base.approval import OUTCOMES, WAYS, Approval
from lab.knowledge_base.day import Scenario
from lab.knowledge_base.scenario import CHOSEN_WITH, MODELS, K4Reading

POPULAR, STATED = MODELS
TITLES = {POPULAR: "popular search", STATED: "as stated"}  # each model's name on the pages
LEADING = "distinct"  # the reading the pages lead with: the one under which the published table is consistent
Row = Dict[str, Any]  # experiments.measure's row of one figure


@dataclasses.dataclass
class ModelRun:
    """One model over the main seeds and the range groups: the summed counts and every figure's row."""

    scenario: Scenario
    main: Dict[str, Any]
    groups: List[Dict[str, Any]]
    rows: Dict[str, Dict[str, Row]]  # reading -> figure key -> ours, low, high, published, verdict
    approvals: Optional[List[List[Dict[str, Any]]]] = None  # per main seed, approval.py's counts per approval delay
    draws: Optional[List[Dict[str, Dict[str, Row]]]] = None  # rows per draw of the range seeds, rows' own first

    def draw_rows(self, reading: str) -> List[Dict[str, Row]]:
        """Every draw's rows of a reading, the committed draw's (self.rows) first."""
        return [draw[reading] for draw in self.draws] if self.draws else [self.rows[reading]]


@dataclasses.dataclass
class Report:
    """Everything rerun.py measured for the main page."""

    models: Dict[str, ModelRun]  # the default model first
    seeds: Sequence[int]
    groups: Sequence[Sequence[int]]  # the committed draw's range groups
    k1: Dict[str, Tuple[str, str, str]]
    published_k1: Dict[str, Tuple[str, str, str]]
    published: Dict[str, float]
    published_hours: Sequence[int]  # the hours of the published K2 table within the day
    calibrated: FrozenSet[str]
    basis: evidence.Basis  # which published figures restate others, which the run fixes
    provenance: Provenance
    timing: Tuple[float, float, int]  # seconds for the main seeds, for the whole run, processes
    seed_parts: Optional[Dict[str, float]] = None  # seconds per part of the first main seed (seed_profile.py)
    approval: Optional[Approval] = None  # the approval delays the main seeds were replayed with
    draws: Sequence[Sequence[Sequence[int]]] = ()  # every draw's range groups, the committed draw first

    @property
    def default(self) -> str:
        """The model whose figures the page argues are closest to the original's."""
        return next(iter(self.models))

    def title(self, model: str) -> str:
        """A model's name on the page."""
        return TITLES.get(model, model)

    def ours(self, model: str, key: str, reading: str = LEADING) -> float:
        """Our value of a figure over the main seeds."""
        return row(self, model, reading, key)["ours"]

    def assessed(self, model: str, reading: str = LEADING) -> Dict[str, evidence.Assessment]:
        """Every independent, tallied figure of a model under a reading, with its strength over every draw of the
        range seeds (its weakest in any); a figure a sweep reaches rests on an unstated parameter."""
        return assessed(self.models[model], self.basis, self.published, reading)

    def tally(self, model: str, reading: str = LEADING) -> Dict[str, int]:
        """How many pieces of evidence have each strength, over every draw (evidence.tally)."""
        return evidence.tally(self.assessed(model, reading), self.basis.read_as(reading))

    def draw_tallies(self, model: str, reading: str = LEADING) -> List[Dict[str, int]]:
        """The tally of each draw of the range seeds alone, the committed draw's first."""
        return draw_tallies(self.models[model], self.basis, self.published, reading)

    def sweeps(self) -> List[List[evidence.Sweep]]:
        """Per parameter the article never states, its sweep in each model, in the models' order."""
        return [[sweep(run, self.published) for run in self.models.values()] for sweep in SWEEPS]

    def favoured(self, reading: str = LEADING) -> Dict[str, str]:
        """The figures that tell the models apart under a reading, each with the model it favours."""
        return evidence.favoured({model: self.assessed(model, reading) for model in self.models})

    def favoured_by(self, reading: str = LEADING) -> Dict[str, int]:
        """Per model, in the models' order, how many of the figures that tell them apart favour it."""
        favoured = list(self.favoured(reading).values())
        return {model: favoured.count(model) for model in self.models}

    def firm_at(self) -> Dict[float, int]:
        """The default model's firm matches under the leading reading, the rule's line drawn elsewhere."""
        run = self.models[self.default]
        return evidence.firm_at(run.draw_rows(LEADING), self.basis, reached=reached(run, self.published))


# ---------------------------------------------------------------------------
# What the article never states, swept: the event's shape behind the poll KiB.


def event_shape(run: ModelRun, published: Mapping[str, float]) -> evidence.Sweep:
    """What an event holds and how it is written, over the main seeds: ours as run, and the poll strategy's bytes
    in the shapes day.poll_shapes weighs each page in. The published figure is reached when a shape tried gives it,
    rounded as published (evidence.value_giving, the rule of every sweep of listed values)."""
    end = run.main["zipf"]["hours"][-1]
    kib = {shape: size / 1024 for shape, size in end["poll_shapes"].items()}
    values = (("{sequence, type, article_id, updated_at}, spaces after `,` and `:` (ours, as run)",
               end["costs"]["poll"][1] / 1024),
              ("no spaces", kib["compact"]),
              ("without the change's time (updated_at)", kib["untimed"]),
              ("without the change's time, no spaces", kib["untimed_compact"]))
    target = published["K3.poll.kib"]
    hit = evidence.value_giving(values, target, 0)
    nearest = min(values[1:], key=lambda pair: abs(pair[1] - target))
    return evidence.Sweep(
        "what an event holds, and how it is written", ("K3.poll.kib",), "KiB polled", values, hit,
        f"the article never shows an event, so the shape '{hit}' is as plausible as ours" if hit else
        f"no shape tried gives the published figure (the nearest, '{nearest[0]}', gives {nearest[1]:,.1f} KiB)")


SWEEPS = (event_shape,)  # the sweeps of the parameters the article never states, in the order the page lists them


def reached(run: ModelRun, published: Mapping[str, float]) -> List[str]:
    """The figures some sweep reaches in a model's run: they rest on a parameter the article never states. A run
    that weighed no poll in other shapes (one made by hand, without the day's replicas) has nothing swept."""
    hours = run.main.get("zipf", {}).get("hours") or [{}]
    if "poll_shapes" not in hours[-1]:
        return []
    return evidence.reached_by(sweep(run, published) for sweep in SWEEPS)


def assessed(run: ModelRun, basis: evidence.Basis, published: Mapping[str, float],
             reading: str = LEADING) -> Dict[str, evidence.Assessment]:
    """Every independent, tallied figure of a run under a reading, with its strength over every draw of the range
    seeds (its weakest in any); a figure a sweep reaches rests on an unstated parameter. `basis` is read as the
    reading asks (Basis.read_as: some figures the inputs fix under one reading only)."""
    found, basis = reached(run, published), basis.read_as(reading)
    return evidence.across([evidence.assess(rows, basis, reached=found) for rows in run.draw_rows(reading)])


def draw_tallies(run: ModelRun, basis: evidence.Basis, published: Mapping[str, float],
                 reading: str = LEADING) -> List[Dict[str, int]]:
    """The tally of each draw of a run's range seeds alone, the committed draw's first (`basis` read as the
    reading asks)."""
    found, basis = reached(run, published), basis.read_as(reading)
    return [evidence.tally(evidence.assess(rows, basis, reached=found), basis) for rows in run.draw_rows(reading)]


def literal_contradiction(report: Report) -> Tuple[int, float, float]:
    """The last published hour, the answers with a stale citation the published share makes of that hour's
    answers (derived), and the stale citations published for it: the first outnumbers the second, which no
    per-citation count allows."""
    p, hour = report.published, report.published_hours[-1]
    answers = p[f"K2.h{hour}.answers_pct"] / 100 * p[f"K2.h{hour}.citations"] / 2
    return hour, answers, p[f"K2.h{hour}.stale"]


def chosen_with(report: Report, reading: str = LEADING) -> List[str]:
    """The figures that tell the models apart under a reading and were in view when the popular model was chosen
    (scenario.CHOSEN_WITH)."""
    return [key for key in report.favoured(reading) if key.startswith(CHOSEN_WITH)]


def row(report: Report, model: str, reading: str, key: str) -> Row:
    """One figure's row: ours, low, high, decimals, published, verdict."""
    return report.models[model].rows[reading][key]


def differs(report: Report, key: str, reading: str) -> bool:
    """Whether any model measures a figure otherwise under `reading` than under the leading reading."""
    fields = ("ours", "low", "high")
    return any(any(run.rows[reading][key][f] != run.rows[LEADING][key][f] for f in fields)
               for run in report.models.values())


# ---------------------------------------------------------------------------
# K1 and the popularity law's top-10 share, which are set beside the published ones apart from the tallies.


def k1_cells(report: Report) -> List[Tuple[str, int, str, str, bool]]:
    """Each K1 cell: its form, its column's place, the published cell, ours, and whether the two are the same."""
    return [(form, column, want, cell, cell == want) for form, cells in report.k1.items()
            for column, (cell, want) in enumerate(zip(cells, report.published_k1[form]))]


def analytic_top10(report: Report) -> Tuple[float, bool]:
    """The popularity law's top-10 share of the default model's day, in percent, and whether it is the published
    share at the published precision."""
    s = report.models[report.default].scenario
    analytic = 100 * law.top_share(s.articles, s.zipf_s)
    return analytic, round(analytic, 1) == report.published["top10.analytic"]


def apart_exact(report: Report) -> Tuple[int, int]:
    """How many of the figures set apart from the tallies (K1's cells and the analytic top-10 share) are exact,
    and how many there are."""
    cells = [same for *_, same in k1_cells(report)] + [analytic_top10(report)[1]]
    return sum(cells), len(cells)


# ---------------------------------------------------------------------------
# K2, the control run and the title-only check.


def ratios_by_hour(report: Report) -> List[Tuple[int, float, Dict[str, Tuple[float, float]]]]:
    """Per published hour: answers with a stale citation per stale citation, published (derived), and ours per
    model, counted per citation and per distinct version."""
    rows, p = [], report.published
    for hour in range(1, report.models[report.default].scenario.hours + 1):
        key = f"K2.h{hour}"
        if f"{key}.stale" not in p:
            continue
        answers = p[f"{key}.answers_pct"] / 100 * p[f"{key}.citations"] / 2
        ours = {}
        for model, run in report.models.items():
            counts = run.main["zipf"]["hours"][hour - 1]
            ours[model] = (counts["answers_stale"] / max(1, counts["stale"]),
                           counts["answers_stale"] / max(1, counts["stale_distinct"]))
        rows.append((hour, answers / p[f"{key}.stale"], ours))
    return rows


def outnumbering_hours(report: Report) -> Tuple[List[int], bool, bool]:
    """Where the published answers with a stale citation outnumber the stale citations (derived): the hours, whether
    the control run's do, and whether that is every hour of the table and the control run too."""
    ratios = ratios_by_hour(report)
    hours = [hour for hour, ratio, _ in ratios if ratio > 1]
    control = report.published["control.answers"] > report.published["control.stale"]
    return hours, control, len(hours) == len(ratios) and control


def concentration(report: Report) -> Tuple[Dict[str, List[float]], List[str], Dict[str, float]]:
    """Each model's answers per stale version by hour, the models in which every hour has more than one, and each
    model's mean over the hours."""
    per_model = {model: [hour[2][model][1] for hour in ratios_by_hour(report)] for model in report.models}
    above = [model for model, r in per_model.items() if min(r) > 1]
    return per_model, above, {model: statistics.fmean(r) for model, r in per_model.items()}


def end_of_day(report: Report, model: str, replica: str = "zipf") -> Dict[str, Any]:
    """A model's counts at the last check of one replica, over the main seeds."""
    return report.models[model].main[replica]["hours"][-1]


def staler_with_popular_saves(report: Report) -> Dict[str, bool]:
    """Per model, whether popular saves left more stale citations at the day's end than uniform ones."""
    return {model: end_of_day(report, model)["stale"] > end_of_day(report, model, "uniform")["stale"]
            for model in report.models}


def title_check_record(report: Report) -> Tuple[int, int]:
    """Over every check of the default model's main seeds: how often the title-only check's finds differed from the
    renamed or unpublished, and how many fresh citations it called stale."""
    hours = report.models[report.default].main["zipf"]["hours"]
    return sum(h["title_mismatch"] for h in hours), sum(h["title_outside_stale"] for h in hours)


# ---------------------------------------------------------------------------
# K3: what one call weighs.


def size_per_call(report: Report, model: str, strategy: str) -> float:
    """KiB per call of one re-checking strategy, over the main seeds."""
    return report.ours(model, f"K3.{strategy}.kib") / report.ours(model, f"K3.{strategy}.calls")


def published_size(report: Report, strategy: str) -> float:
    """KiB per call of one re-checking strategy, from the published figures (derived)."""
    return report.published[f"K3.{strategy}.kib"] / report.published[f"K3.{strategy}.calls"]


def lighter_shares(report: Report) -> List[float]:
    """How much lighter than the published ones (derived) our reads and title searches are, in percent, per model
    and strategy: below zero where ours are heavier."""
    return [100 * (1 - size_per_call(report, model, strategy) / published_size(report, strategy))
            for model in report.models for strategy in ("reread", "title")]


def checks_of(report: Report) -> int:
    """The hourly checks over the main seeds."""
    m = report.models[report.default].main
    return len(m["zipf"]["hours"]) * m["seeds"]


# ---------------------------------------------------------------------------
# K4, and the popularity law beside it.


def k4_totals(report: Report, model: str) -> Dict[str, int]:
    """A model's K4 counts summed over every delay, over the main seeds."""
    delays = report.models[model].main["edits"]["delays"]
    return {name: sum(d[name] for d in delays) for name in delays[0]}


def published_rejected(published: Mapping[str, float], d: int, delays: int) -> Optional[float]:
    """The published share of delay d's edits rejected for a newer version or an unpublish, in percent (derived
    from K4's rows: `delays` delays share the published edits); None where the article has no such row."""
    if f"K4.d{d}.conflicts" not in published:
        return None
    return 100 * (published[f"K4.d{d}.conflicts"] + published[f"K4.d{d}.gone"]) / (published["K4.edits"] / delays)


def law_rejection(scenario: Scenario, seconds: int) -> Tuple[float, float]:
    """The share of edits `seconds` after their answer the popularity law expects saved or unpublished meanwhile,
    in percent: in a day that ends, and with saves that go on after it."""
    cut, uncut = (100 * law.expected_rejection(scenario, seconds, ends) for ends in (True, False))
    return cut, uncut


# ---------------------------------------------------------------------------
# What approval costs (ours: no published figure).


def approval_counts(run: ModelRun, d: int, way: str, outcome: str) -> List[int]:
    """One outcome of one way at approval delay d, per main seed."""
    return [seed[d][way][outcome] for seed in run.approvals or ()]


def seed_spread(values: Sequence[int]) -> Tuple[float, int, int]:
    """A count's mean per seed, and the fewest and the most in one seed."""
    return statistics.mean(values), min(values), max(values)


def longest_approval(report: Report) -> Tuple[int, Dict[str, Dict[str, int]], int, int]:
    """The default model at the longest approval delay, summed over the main seeds: that delay, each way's outcomes,
    the edits, and the answered edits that, asked anyway, were approved and then rejected."""
    approval, run = report.approval, report.models[report.default]
    assert approval is not None and run.approvals is not None
    longest = max(range(len(approval.delays)), key=lambda d: approval.delays[d])
    seeds = [seed[longest] for seed in run.approvals]
    ways = {way: {outcome: sum(c[way][outcome] for c in seeds) for outcome in OUTCOMES} for way in WAYS}
    return (approval.delays[longest], ways, sum(c["edits"] for c in seeds),
            sum(c["answered_then_wasted"] for c in seeds))


def wasted_per_hundred(outcomes: Mapping[str, int]) -> int:
    """Approvals wasted in every 100 asked."""
    return round(100 * outcomes["wasted"] / max(1, outcomes["asked"]))


# ---------------------------------------------------------------------------
# Run time.


def seed_days(report: Report) -> int:
    """The seed days the run simulated: every model over the main seeds and every draw's range groups' seeds."""
    draws = report.draws or [report.groups]
    return len(report.models) * (len(report.seeds) + sum(len(group) for draw in draws for group in draw))


def calls_per_seed(report: Report) -> Tuple[float, List[Tuple[str, float]], int]:
    """What one seed of the default model does on average over the main seeds: its agent tool calls in all, by
    tool (most first), and its people's saves and creations over the three replicas."""
    m = report.models[report.default].main
    s, seeds = report.models[report.default].scenario, m["seeds"]
    calls: Dict[str, int] = {}
    for replica in ("zipf", "uniform", "edits"):
        for name, count in m[replica]["calls"].items():
            calls[name] = calls.get(name, 0) + count
    by_tool = [(name, count / seeds) for name, count in sorted(calls.items(), key=lambda c: -c[1])]
    return sum(calls.values()) / seeds, by_tool, 3 * s.saves + s.articles


def seed_parts(report: Report) -> Tuple[float, List[Tuple[str, float, float]]]:
    """The first main seed's seconds, and its parts, longest first, each with its seconds and share in percent."""
    parts = report.seed_parts or {}
    seconds = sum(parts.values())
    return seconds, [(part, took, 100 * took / seconds) for part, took in sorted(parts.items(), key=lambda p: -p[1])]


# ---------------------------------------------------------------------------
# The sensitivity page.


@dataclasses.dataclass
class Sensitivity:
    """Everything rerun.py measured for the sensitivity page."""

    variants: Dict[str, ModelRun]  # variant name -> its run over the main seeds and the ranges
    seeds: Sequence[int]
    groups: Sequence[Sequence[int]]
    basis: evidence.Basis
    provenance: Provenance
    readings: Sequence[K4Reading]
    k4: Dict[Tuple[str, str], List[Row]]  # (reading, model) -> per delay, the row it sets beside the published
    published: Mapping[str, float]
    models: Dict[str, Scenario]  # the main page's two models, the default first
    timing: Tuple[float, int]  # seconds, processes
    draws: Sequence[Sequence[Sequence[int]]] = ()  # every draw's range groups, the first (groups) setting the ranges

    @property
    def delays(self) -> Tuple[int, ...]:
        """K4's delays, the same in every model."""
        return next(iter(self.models.values())).delays

    def tally(self, name: str, reading: str = LEADING) -> Dict[str, int]:
        """A variant's pieces of evidence by strength under a reading, over every draw of the range seeds (each at
        its weakest in any), counted as the main page counts them (its basis, its sweeps)."""
        return evidence.tally(assessed(self.variants[name], self.basis, self.published, reading),
                              self.basis.read_as(reading))

    def draw_tallies(self, name: str, reading: str = LEADING) -> List[Dict[str, int]]:
        """A variant's tally in each draw of the range seeds alone, the committed draw's first."""
        return draw_tallies(self.variants[name], self.basis, self.published, reading)

    def k4_fixed(self, reading: K4Reading, d: int) -> bool:
        """Whether the inputs fix every count a K4 reading's share at delay `d` is made of (the version rejections,
        and the unpublished ones where the reading counts them too): then no match of it is evidence."""
        kinds = ("conflicts", "gone") if reading.unpublished_as_changed else ("conflicts",)
        return all(f"K4.d{d}.{kind}" in self.basis.fixed for kind in kinds)

    def k4_strength(self, reading: K4Reading, model: str, d: int) -> str:
        """The strength of the match a K4 reading's share at delay `d` makes with the published one, in a model."""
        return reading_strength(self.k4[(reading.name, model)][d], self.k4_fixed(reading, d))

    def reaching(self) -> Dict[K4Reading, List[str]]:
        """Per K4 reading, the models in which it reaches the published share at the longest delay."""
        last = len(self.delays) - 1
        return {reading: [m for m in self.models if self.k4_strength(reading, m, last) in evidence.HOLDS]
                for reading in self.readings}

    def most_held(self) -> Tuple[str, str]:
        """The variants with the most matches (firm or loose), and with the most firm ones, under the leading
        reading (the last in name order of those tied)."""
        counts = {name: self.tally(name) for name in self.variants}
        most = max(counts, key=lambda name: (evidence.held(counts[name]), name))
        firmest = max(counts, key=lambda name: (counts[name][evidence.FIRM], name))
        return most, firmest

    def second_popular_shares(self) -> Dict[bool, List[float]]:
        """Per whether a variant keeps views, each variant's share of second citations to a top-10 article."""
        shares: Dict[bool, List[float]] = {False: [], True: []}
        for run in self.variants.values():
            shares[run.scenario.views].append(second_popular_share(run))
        return shares

    def above_the_law(self) -> Tuple[float, List[str]]:
        """The published share of edits rejected at the longest delay (derived), and the models in which it lies
        above the popularity law with saves that go on after the day."""
        n = len(self.delays) - 1
        p = self.published
        share = 100 * (p[f"K4.d{n}.conflicts"] + p[f"K4.d{n}.gone"]) / p[f"K4.d{n}.edits"]
        return share, [m for m, s in self.models.items()
                       if share > 100 * law.expected_rejection(s, s.delays[n], False)]


def second_popular_share(run: ModelRun) -> float:
    """The share of a run's second citations that went to one of a seed's ten most popular articles, in percent."""
    ranking = run.main["zipf"]["ranking"]
    return 100 * ranking["second_popular"] / ranking["seconds"]


def reading_strength(r: Row, fixed: bool = False) -> str:
    """The strength of the match a K4 reading's row makes with the published share (no check; `fixed` when the
    inputs fix the counts it is made of)."""
    return evidence.strength(r, check=False, fixed=fixed)
