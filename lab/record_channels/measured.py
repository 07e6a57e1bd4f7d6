"""What a record-channel run measured, as its page reads it: the report, and what follows from its counts.

Layer: above runs.py (whose counts it reads, and the target fields and bounds of the bug tracker) and
scenario.py (the published R3 runs), on evidence.py (the strength of each match); below report.py and
reasons.py, which write what is here, and rerun.py, which fills it. Besides the report itself it holds what
the page says that is not a figure's own row: sums and ratios of the main seeds' counts, the statistics of
the R6 timing, the figures derived from published ones (the page says "derived" wherever it shows one),
and the verdict logic behind the page's words. The page only chooses the words.

Glossary (triage.py has row and run; lab/figures.py has the flags a row carries):
  ceiling   the fields a perfect agent could save: all but the twenty-point bugs' points, which the field's
            maximum refuses
  steady    a difference of timings every run agrees on: above zero in each
"""

import dataclasses
import json
import statistics
from typing import Any, Dict, List, Optional, Sequence, Tuple

from lab import evidence, figures
from lab.experiments import NO_RANGE, OUTSIDE, Provenance
from lab.record_channels.runs import TARGET_FIELDS, Scenario, points_max

Row = Dict[str, Any]  # experiments.measure's row of one figure, with triage.py's flags


@dataclasses.dataclass
class Report:
    """Everything rerun.py measured for the page."""

    scenario: Scenario
    seeds: Sequence[int]
    groups: Sequence[Sequence[int]]
    rows: Dict[str, Row]  # figure key -> ours, low, high, decimals, published, verdict
    main: Dict[str, Any]  # the summed counts of the main seeds
    published: Dict[str, float]
    published_r6: Dict[str, Tuple[float, float]]
    r6: Optional[Dict[str, List[float]]]  # median µs per edit per run: validated, stubbed, unread; None if skipped
    rejection: Dict[str, Any]  # what our edit_record_item returned for the published inputs
    published_rejection: str
    timing: Tuple[float, float, int]  # seconds for the seeds, for the whole run, processes
    basis: evidence.Basis  # which published figures restate others, which the run fixes
    provenance: Provenance

    def ours(self, key: str) -> float:
        """Our value of one figure, unrounded."""
        return self.rows[key]["ours"]

    def assessed(self) -> Dict[str, evidence.Assessment]:
        """Every independent figure with its strength."""
        return evidence.assess(self.rows, self.basis)

    def tally(self) -> Dict[str, int]:
        """How many independent figures have each strength."""
        return evidence.tally(self.assessed())

    def firm_at(self) -> Dict[float, int]:
        """The firm matches with the rule's line drawn elsewhere."""
        return evidence.firm_at(self.rows, self.basis)

    def numbers(self) -> Dict[str, int]:
        """Each independent figure's number on the page, in the order of the rows, which is the tables' order."""
        return figures.numbered(self.basis, [key for key, row in self.rows.items() if "verdict" in row])

    @property
    def items(self) -> int:
        """Bugs triaged in R1, over the main seeds."""
        return self.main["R1"]["no.terse"]["items"]

    @property
    def fields(self) -> int:
        """Target fields in R1: those of TARGET_FIELDS, per bug."""
        return self.items * len(TARGET_FIELDS)


def seed_count(report: Report) -> int:
    """The seeds the run measured: the main seeds and the range groups'."""
    return len(report.seeds) + sum(len(g) for g in report.groups)


def outside_and_unjudged(report: Report) -> Tuple[List[str], List[str]]:
    """The figures outside our range, and those with no range to be judged against, in the rows' order."""
    verdicts = {key: row.get("verdict") for key, row in report.rows.items()}
    return ([key for key, v in verdicts.items() if v == OUTSIDE],
            [key for key, v in verdicts.items() if v == NO_RANGE])


def rejection_matches(report: Report) -> bool:
    """Whether our rejection is the published one, text for text but for the published space after
    `"fields": [`."""
    return json.dumps(report.rejection) == report.published_rejection.replace('"fields": [ {', '"fields": [{', 1)


# ---------------------------------------------------------------------------
# R1 and R2.


@dataclasses.dataclass(frozen=True)
class R1Facts:
    """What the R1 run shows beside its table, every number from the main seeds."""

    twenty: int  # bugs whose person asked for more points than the field allows
    share: float  # their share of the bugs: p
    ceiling: int  # the fields a perfect agent could save
    rows_at_ceiling: List[str]
    wrong: int  # values stored that nobody asked for, over every row
    too_many: List[int]  # the points asked for that the field refuses
    split_calls: float  # 1 + fields × p: calls per item expected with a terse rejection and the schema
    one_more: float  # 1 + p: expected with any other rejection and the schema


def r1_facts(report: Report) -> R1Facts:
    """The ceiling of R1 and what the schema's calls per item should be, from the run's counts."""
    main = report.main["R1"]
    twenty = main["yes.values"]["twenty"]
    share = twenty / report.items
    ceiling = report.fields - twenty
    return R1Facts(twenty=twenty, share=share, ceiling=ceiling,
                   rows_at_ceiling=[row for row in main if main[row]["saved"] == ceiling],
                   wrong=sum(main[row]["wrong"] for row in main),
                   too_many=[n for n in report.scenario.points if n > points_max()],
                   split_calls=1 + len(TARGET_FIELDS) * share, one_more=1 + share)


def implied_bare_share(report: Report) -> float:
    """The share of bare severity words the published values row implies, with our status mix (derived)."""
    left = report.published["R1.no.values.left"] - report.published["R1.twenty"]
    wont_fix = report.main["R1"]["no.values"]["flagged_by_field"]["status"] / report.items
    return max(0.0, left / (report.fields / len(TARGET_FIELDS)) - wont_fix)


def description_lengths(report: Report) -> Tuple[int, float, float]:
    """The descriptions R2 read in full: how many, their mean length and its standard deviation, in characters."""
    r2 = report.main["R2"]
    count, total, squares = r2["previews"], r2["description_characters"], r2["description_squares"]
    mean = total / count
    return count, mean, (max(0.0, squares - count * mean * mean) / max(1, count - 1)) ** 0.5


def preview_bytes(report: Report) -> float:
    """What one preview of R2's pages weighs, its page's schema left out."""
    r2 = report.main["R2"]
    return (r2["page_bytes"] - r2["schema_bytes"]) / r2["previews"]


def full_over_page(report: Report) -> float:
    """How many times a page of previews reading the same items in full weighs."""
    return report.main["R2"]["full_bytes"] / report.main["R2"]["page_bytes"]


# ---------------------------------------------------------------------------
# R4 and R5.


def relist_over_poll(report: Report) -> float:
    """How many times the data of one poll re-listing returned."""
    r4 = report.main["R4"]
    return r4["relist"]["bytes"] / r4["poll"]["bytes"]


def changes_per_run(report: Report) -> int:
    """The items people changed between R4's two passes, per run."""
    return report.main["R4"]["changes"] // report.main["R4"]["runs"]


def r5_checks(report: Report) -> Tuple[bool, bool]:
    """Whether the version from the read turned every move into a conflict and wrote over none, and whether the
    re-read met no conflict and wrote over every move."""
    r = report.main["R5"]
    moved, from_read, reread = r["moved"], r["from_read"], r["reread"]
    return (from_read["conflicts"] == moved and from_read["overwritten"] == 0,
            reread["conflicts"] == 0 and reread["overwritten"] == moved)


# ---------------------------------------------------------------------------
# R6: what validation costs.


def r6_figures(report: Report) -> Dict[str, Any]:
    """R6's statistics, one per figure: medians of the per-run medians, of per-run differences and of per-run
    ratios. The published stub skipped the per-field checks and the schema query, so ours to set beside it is
    `unread` (validation and the schema read stubbed), never `stubbed` (validation alone)."""
    timed = report.r6 or {}
    per_run = lambda f, a, b: [f(x, y) for x, y in zip(timed[a], timed[b])]  # noqa: E731
    pv, ps = report.published_r6["validated"], report.published_r6["stubbed"]
    return {
        **{name: statistics.median(values) for name, values in timed.items()},
        "ratios": per_run(lambda v, u: v / u, "validated", "unread"),
        "checks_ratios": per_run(lambda v, s_: v / s_, "validated", "stubbed"),
        "cost": statistics.median(per_run(lambda v, u: v - u, "validated", "unread")),
        "checks": statistics.median(per_run(lambda v, s_: v - s_, "validated", "stubbed")),
        "schema_read": statistics.median(per_run(lambda s_, u: s_ - u, "stubbed", "unread")),
        "published_ratio": (pv[0] / ps[1], pv[1] / ps[0]),
        "published_cost": (pv[0] + pv[1]) / 2 - (ps[0] + ps[1]) / 2,
        "published_rest": (ps[0] + ps[1]) / 2,
    }


def r6_inside(report: Report) -> bool:
    """Whether our median per-run ratio lies within the published ratio's span (derived)."""
    f = r6_figures(report)
    low, high = f["published_ratio"]
    return low <= statistics.median(f["ratios"]) <= high


def r6_differences(report: Report, slower: str, faster: str) -> List[float]:
    """Per R6 run, the microseconds per edit one variant took more than another."""
    timed = report.r6 or {}
    return [x - y for x, y in zip(timed[slower], timed[faster])]


def steady(differences: Sequence[float]) -> bool:
    """Whether every run's difference has the same sign, above zero: a cost the runs agree on."""
    return bool(differences) and min(differences) > 0


def median(values: Sequence[float]) -> float:
    """The median of timed values, per run."""
    return statistics.median(values)
