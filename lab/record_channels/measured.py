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
from lab.evidence import Sweep
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
    draws: Sequence[Sequence[Sequence[int]]] = ()  # every draw's range groups, the committed draw (groups) first
    further_rows: Sequence[Dict[str, Row]] = ()  # the rows of every draw but the committed one

    def draw_rows(self) -> List[Dict[str, Row]]:
        """Every draw's rows, the committed draw's (self.rows) first."""
        return [self.rows, *self.further_rows]

    def ours(self, key: str) -> float:
        """Our value of one figure, unrounded."""
        return self.rows[key]["ours"]

    def assessed(self) -> Dict[str, evidence.Assessment]:
        """Every independent figure with its strength over every draw of the range seeds (its weakest in any)."""
        return evidence.across([evidence.assess(rows, self.basis, reached=reached(self))
                                for rows in self.draw_rows()])

    def tally(self) -> Dict[str, int]:
        """How many pieces of evidence have each strength, over every draw (evidence.tally)."""
        return evidence.tally(self.assessed(), self.basis)

    def draw_tallies(self) -> List[Dict[str, int]]:
        """The tally of each draw of the range seeds alone, the committed draw's first."""
        return [evidence.tally(evidence.assess(rows, self.basis, reached=reached(self)), self.basis)
                for rows in self.draw_rows()]

    def firm_at(self) -> Dict[float, int]:
        """The firm matches with the rule's line drawn elsewhere."""
        return evidence.firm_at(self.draw_rows(), self.basis, reached=reached(self))

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


def sweeps(report: Report) -> List[Sweep]:
    """The sweeps of the parameters the article never states: what people write as a bare severity, what the
    agent does when a rejection names only the field, a preview's JSON shape, an event's shape. Each is
    computed from this run's counts (the page says derived where it is)."""
    return [_bare_share(report), _field_policy(report), _preview_shape(report), _event_shape(report)]


def _bare_share(report: Report) -> Sweep:
    r1 = report.main["R1"]["no.values"]
    saved, bare, items = r1["saved"], r1["flagged_by_field"]["severity"], report.items
    published = report.published["R1.no.values.saved"]
    shares = tuple(quarter / 4 for quarter in range(5))  # 0% to 100% by quarters
    ours = report.scenario.bare_severity_share
    values = [(f"{ours:.0%} (ours, as run)", float(saved))]
    values += [(f"{p:.0%}", saved + bare - p * items) for p in shares if abs(p - ours) > 1e-9]
    hit = implied_bare_share(report)
    reachable = 0 < hit <= 1 or saved + bare == published
    return Sweep("share of severity intents written as a bare word (\"major\")", ("R1.no.values.saved",),
                 "fields saved", tuple(values), f"{hit:.1%}" if reachable else None,
                 f"a bare word in {hit:.1%} of severity intents is as plausible as our {ours:.0%}: people write "
                 "both, and nothing published says how often each" if reachable else
                 "no share from 0% to 100% gives the published figure")


def _field_policy(report: Report) -> Sweep:
    row = report.main["R1"]["no.field"]
    items, nothing = row["items"], row["nothing_left"]
    ours = row["edit_calls"] / items
    values = (("stop when nothing is left to send (ours, as run)", ours),
              ("send an empty edit when nothing is left", (row["edit_calls"] + nothing) / items),
              ("send the refused edit again", (row["edit_calls"] + nothing) / items))
    published = report.published["R1.no.field.calls_per_item"]
    hit = evidence.value_giving(values, published, 2)
    return Sweep("what the agent sends when the rejection names only the field", ("R1.no.field.calls_per_item",),
                 "edit calls per item", values, hit,
                 "a scripted agent that sends its next edit whatever is left is as plausible as ours, which stops"
                 if hit else "no policy tried gives the published figure")


def _preview_shape(report: Report) -> Sweep:
    """The JSON shape of a preview and of the schema. A read is an item in the same shape, its description in full,
    so each shape moves the page read in full as well: every read of every page by the same bytes (each R2 item
    holds the same keys and the same unset fields), so ours and every range group alike."""
    r2 = report.main["R2"]
    kib = lambda name: r2[name] / r2["pages"] / 1024  # noqa: E731
    values = (("nulls spelled out, spaces after `,` and `:`, the full schema (ours, as run)", kib("page_bytes")),
              ("unset fields left out", kib("page_bytes_no_nulls")),
              ("and the schema without colours or false flags", kib("page_bytes_lean")),
              ("and no spaces after `,` and `:`", kib("page_bytes_lean_compact")))
    # a read carries no schema, so the schema's leanness leaves it as it is: each value's read is its item's shape
    full = ("full_bytes", "full_bytes_no_nulls", "full_bytes_no_nulls", "full_bytes_lean_compact")
    moves = {"R2.full_kib": tuple(kib(name) - kib(full[0]) for name in full)}
    published = report.published["R2.page_kib"]
    hit = evidence.value_giving(values, published, 1)
    low, high = min(v for _, v in values), max(v for _, v in values)
    per_preview = r2["page_bytes_lean_compact"] / r2["previews"]
    where = (f"the leanest shape tried weighs {low:,.1f} KiB a page ({per_preview:,.0f} bytes a preview with its "
             f"share of the schema), still above the published figure" if low > published else
             f"the fullest shape tried weighs {high:,.1f} KiB a page, still below the published figure"
             if high < published else "the published figure lies between the shapes tried, and none gives it")
    return Sweep("the JSON shape of a preview and of the schema", ("R2.page_kib", "R2.schema_bytes", "R4.relist.kib"),
                 "KiB a page", values, hit,
                 f"the shape '{hit}' is as plausible as ours: the article shows no preview" if hit else
                 f"{where}: no shape tried reaches it", moves)


def _event_shape(report: Report) -> Sweep:
    poll, runs = report.main["R4"]["poll"], report.main["R4"]["runs"]
    kib = lambda name: poll[name] / runs / 1024  # noqa: E731
    values = (("sequence, type, item_id, version, spaces after `,` and `:` (ours, as run)", kib("bytes")),
              ("no spaces", kib("bytes_compact")),
              ("the change's time as well (updated_at)", kib("bytes_timed")),
              ("the change's time, no spaces", kib("bytes_timed_compact")))
    published = report.published["R4.poll.kib"]
    hit = evidence.value_giving(values, published, 1)
    return Sweep("what an event holds, and how it is written", ("R4.poll.kib",), "KiB a poll", values, hit,
                 "an event that also says when its change happened is as plausible as ours; the knowledge-base "
                 "events the article describes carry such a time" if hit else
                 "no shape tried gives the published figure")


def reached(report: Report) -> List[str]:
    """The figures some sweep reaches: they rest on a parameter the article never states."""
    return evidence.reached_by(sweeps(report))


def seed_count(report: Report) -> int:
    """The seeds the run measured: the main seeds and every draw's range groups'."""
    draws = report.draws or [report.groups]
    return len(report.seeds) + sum(len(group) for draw in draws for group in draw)


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
    """The share of bare severity words the published values row implies, with our status mix and our
    twenty-point bugs (derived): the share at which our expected fields saved equal the published ones."""
    r1 = report.main["R1"]["no.values"]
    saved, bare = r1["saved"], r1["flagged_by_field"]["severity"]
    return max(0.0, (saved + bare - report.published["R1.no.values.saved"]) / report.items)


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
