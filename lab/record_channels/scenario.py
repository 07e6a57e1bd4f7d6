"""The record-channel scenario: the triage's named constants, and the published figures ours are set beside (listed,
with where each comes from, in docs/source-figures.md).

Layer: above runs.py (whose Scenario the constants fill, and whose target fields R1's figures count), on
evidence.py (whose Basis says which published figures restate others); below triage.py, whose options take
their defaults from here, and below the runs, the page and the benchmark, which read the same constants and
figures. Nothing here runs a seed: it is the setup and the published record, in one place, so that no
command has to be imported to read them.

Glossary (triage.py has row and run; lab/experiments.py has figure, ours, range, verdict):
  published inputs   what the article's `values` rejection answers: a label, a name, 20 points, a weekday
                     and a formula field, sent by triage.py in one real edit
"""

import datetime
import math
from typing import Dict

from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from lab.evidence import Basis, Restatement, restates, scaled
from lab.record_channels.runs import TARGET_FIELDS, Scenario, points_max

# ---------------------------------------------------------------------------
# The scenario (docs/source-figures.md), every constant overridable from the command line.

ITEMS = 200  # New bugs per seed: 1,000 over seeds 1-5
STATUSES = ("triaged", "in_progress", "fixed", "wont_fix")  # what a triage asks for; New is where bugs start
BARE_SEVERITY_SHARE = 0.5  # our choice: the article says "S2 Major" or just "major", not how often each
POINTS = (1, 2, 3, 5, 8, 13, 20)
WEEKDAY_SHARE = 0.5  # "Friday" or an ISO date, about half each
WEEKDAY = "Friday"
DESCRIPTION = workload.DESCRIPTION_CHARACTERS  # (300, 4000) characters, as workload.py files bugs
PREVIEW_CHARACTERS = record_store.PREVIEW_CHARACTERS  # 120
PAGE_LIMIT = 50
OFFSET_ITEMS, OFFSET_CHANGES = 600, 2  # R3
CHANGES_ITEMS, CHANGES = 400, (30, 12, 3)  # R4: modified, created, deleted
MOVE_SHARE = 1 / 8  # R5
TIMED_EDITS, TIMED_RUNS = 2000, 3  # R6
TODAY = datetime.date(2026, 11, 9)  # the day the record tools were read (docs/source-figures.md); our choice of date

MAIN_SEEDS = "1-5"
RANGE_GROUPS = 12  # groups of five seeds after the main seeds, for mean ± 1.96 sd (experiments.normal_spread)

# ---------------------------------------------------------------------------
# The published figures (docs/source-figures.md, the record-channel article), keyed by figure.

PUBLISHED_INPUTS = {"status": "In progress", "owner": "Aiko", "points": 20, "due": "Friday", "age_days": 4}
PUBLISHED_VALUES_REJECTION = (  # verbatim, one line, with the stray space after "fields": [
    '{"error": "validation_failed", "fields": [ {"key": "status", "message": "values.status must be one of the '
    'option values, got \\"In progress\\"", "allowed": ["new", "triaged", "in_progress", "fixed", "wont_fix"]}, '
    '{"key": "owner", "message": "values.owner must be one of the option values, got \\"Aiko\\"", "allowed": '
    '["aiko", "mika", "ren"]}, {"key": "points", "message": "values.points must be between 0 and 13, got 20", '
    '"min": 0, "max": 13}, {"key": "due", "message": "values.due must be a date as YYYY-MM-DD, got \\"Friday\\""}, '
    '{"key": "age_days", "message": "values.age_days is a formula field and is computed, not written"}]}'
)

R1_ROWS = ("no.terse", "no.field", "no.values", "no.labels", "yes.terse", "yes.field", "yes.values", "yes.labels")
_R1 = {  # row -> fields saved (of 6,000), saved %, left to a person, edit calls per item
    "no.terse": (1363, 22.7, 4637, 7.00), "no.field": (1363, 22.7, 4637, 2.00),
    "no.values": (5361, 89.3, 639, 2.00), "no.labels": (5857, 97.6, 143, 2.00),
    "yes.terse": (5857, 97.6, 143, 1.86), "yes.field": (5857, 97.6, 143, 1.14),
    "yes.values": (5857, 97.6, 143, 1.14), "yes.labels": (5857, 97.6, 143, 1.14),  # one published row for both
}
_R3 = {  # change.pagination -> pages, item reads, read twice, never seen (5 runs)
    "create.offset": (65, 3120, 120, 0), "create.before_id": (60, 3000, 0, 0),
    "delete.offset": (60, 2890, 0, 110), "delete.before_id": (60, 3000, 0, 0),
}
R3_RUNS = tuple(_R3)  # the R3 passes, each a change and a pagination, in the table's order
PUBLISHED: Dict[str, float] = {
    **{f"R1.{row}.{name}": value for row, values in _R1.items()
       for name, value in zip(("saved", "saved_pct", "left", "calls_per_item"), values)},
    "R1.twenty": 143,
    # prose: without the schema every first edit failed; with it, only for the 143 twenty-point items
    **{f"R1.{row}.first_failed": (1000 if row.startswith("no.") else 143) for row in R1_ROWS},
    # prose, per item, the schema's gap with labels in the rejection: "one rejected edit per item" (the article's
    # first recommendation) and "one extra call per item" (under its table R1)
    "R1.gap.first_failed_per_item": 1, "R1.gap.calls_per_item": 1,
    "R2.page_kib": 16.7, "R2.full_kib": 124.6, "R2.schema_bytes": 1705, "R2.schema_share_pct": 10,
    **{f"R3.{run}.{name}": value for run, values in _R3.items()
       for name, value in zip(("pages", "reads", "twice", "never"), values)},
    "R4.relist.calls": 9.0, "R4.relist.kib": 135.8, "R4.relist.found": 45,
    "R4.poll.calls": 1.0, "R4.poll.kib": 4.6, "R4.poll.found": 45,
    "R5.from_read.conflicts": 131, "R5.from_read.overwritten": 0,
    "R5.reread.conflicts": 0, "R5.reread.overwritten": 131,
}
PUBLISHED_R6 = {"validated": (72.8, 75.1), "stubbed": (41.9, 42.4)}  # µs per edit, three runs, Python 3.9.6, M1
PUBLISHED_FIELDS = 6000  # R1's heading: 1,000 bugs, six target fields each
PUBLISHED_R3 = (600, 50, 5)  # R3's heading: items paged through, items a page, runs

# ---------------------------------------------------------------------------
# How the published figures hang together (lab/evidence.py): which restate others, as the article's own numbers
# show (tests hold each formula to the published figures), and which the way the run is built fixes.

R3_FIXED = "the channel, its pages and the changes between them are fixed, so the seeds cannot move it"
CEILING_ROWS = ("no.labels", "yes.terse", "yes.field", "yes.values", "yes.labels")  # every field but 20 points saved


def _restated_r1() -> Dict[str, Restatement]:
    fields = PUBLISHED_FIELDS
    restated: Dict[str, Restatement] = {}
    for row in R1_ROWS:
        saved = f"R1.{row}.saved"
        restated[f"R1.{row}.saved_pct"] = scaled(saved, 100 / fields)
        restated[f"R1.{row}.left"] = scaled(saved, -1, fields)
    restated["R1.no.field.saved"] = restates("R1.no.terse.saved")  # both save only numbers and ISO dates
    for row in CEILING_ROWS:
        restated[f"R1.{row}.saved"] = restates("R1.twenty", by=lambda p: fields - p["R1.twenty"])
    for row in ("no.field", "no.values", "no.labels"):
        restated[f"R1.{row}.first_failed"] = restates("R1.no.terse.first_failed")
    for row in R1_ROWS[4:]:
        restated[f"R1.{row}.first_failed"] = restates("R1.twenty")
    items = fields / len(TARGET_FIELDS)
    restated["R1.yes.terse.calls_per_item"] = restates(  # the agent splits a refused edit into one per field
        "R1.twenty", by=lambda p: 1 + len(TARGET_FIELDS) * p["R1.twenty"] / items)
    for row in ("yes.field", "yes.values", "yes.labels"):
        restated[f"R1.{row}.calls_per_item"] = restates("R1.twenty", by=lambda p: 1 + p["R1.twenty"] / items)
    restated["R1.gap.first_failed_per_item"] = restates(
        "R1.no.labels.first_failed", "R1.yes.labels.first_failed",
        by=lambda p: (p["R1.no.labels.first_failed"] - p["R1.yes.labels.first_failed"]) / items)
    restated["R1.gap.calls_per_item"] = restates(
        "R1.no.labels.calls_per_item", "R1.yes.labels.calls_per_item",
        by=lambda p: p["R1.no.labels.calls_per_item"] - p["R1.yes.labels.calls_per_item"])
    return restated


def _restated_r2_to_r5() -> Dict[str, Restatement]:
    items, per_page, runs = PUBLISHED_R3
    pages = lambda seen: runs * math.ceil(seen / per_page)  # noqa: E731  (each run pages through what it sees)
    return {
        "R2.schema_share_pct": restates("R2.schema_bytes", "R2.page_kib",
                                        by=lambda p: 100 * p["R2.schema_bytes"] / (1024 * p["R2.page_kib"])),
        "R3.create.offset.reads": restates("R3.create.offset.twice", by=lambda p: items * runs
                                           + p["R3.create.offset.twice"]),
        "R3.create.offset.pages": restates("R3.create.offset.twice", by=lambda p: pages(
            items + p["R3.create.offset.twice"] / runs)),
        "R3.delete.offset.reads": restates("R3.delete.offset.never", by=lambda p: items * runs
                                           - p["R3.delete.offset.never"]),
        "R3.delete.offset.pages": restates("R3.delete.offset.never", by=lambda p: pages(
            items - p["R3.delete.offset.never"] / runs)),
        **{f"R3.{change}.before_id.pages": scaled(f"R3.{change}.before_id.reads", 1 / per_page)
           for change in ("create", "delete")},
        "R4.poll.found": restates("R4.relist.found"),
        "R5.reread.overwritten": restates("R5.from_read.conflicts"),  # the same moves, met the other way
    }


def basis_for(scenario: Scenario) -> Basis:
    """What the record-channel figures are, for a run of this scenario: which restate others, which the run's
    construction fixes, which the stated inputs fix (said in this scenario's own numbers), and which follow from
    one cause."""
    return Basis(
        restated={**_restated_r1(), **_restated_r2_to_r5()},
        checks={
            "R1.no.terse.first_failed": "without the schema the agent sends labels, which no option value matches",
            "R1.no.terse.calls_per_item": "a rejection that names nothing leaves the agent one edit per field to send",
            "R1.no.values.calls_per_item": "the rejection names every refused field, so one second edit sends all it "
                                           "can fix",
            "R1.no.labels.calls_per_item": "the rejection names every refused field, so one second edit sends all it "
                                           "can fix",
            **{f"R3.{run}.{name}": R3_FIXED for run in ("create.offset", "delete.offset")
               for name in ("twice", "never")},
            **{f"R3.{change}.before_id.{name}": R3_FIXED for change in ("create", "delete")
               for name in ("reads", "twice", "never")},
            "R4.relist.calls": "the channel's pages after the changes, one call each",
            "R4.relist.found": "the run stops unless both strategies find exactly the changes people made",
            "R4.poll.calls": "one page of events holds every change",
            "R5.from_read.overwritten": "a version check refuses any edit whose version moved",
            "R5.reread.conflicts": "nothing happens between the re-read and the edit",
        },
        fixed=_fixed(scenario),
        causes={
            "the JSON shape of a preview and of the schema, which the article never shows": (
                "R2.page_kib", "R2.schema_bytes", "R4.relist.kib"),
        },
    )


def _fixed(scenario: Scenario) -> Dict[str, str]:
    """The figures the stated inputs fix, each with how, in the scenario's own numbers (the published ones by
    default): none of it typed, so that a run with other inputs says what its inputs give."""
    points, cap = scenario.points, points_max()
    over = sum(1 for n in points if n > cap)
    low, high = scenario.description
    return {
        "R1.twenty": f"a sample of the stated points: {_in_every(over, len(points))} "
                     f"ask{'s' if over == 1 else ''} for more than {cap:g}",
        "R1.no.terse.saved": f"a sample of the stated intents: what is saved without the schema is the points of "
                             f"at most {cap:g} ({_in_every(len(points) - over, len(points))}) and the due dates "
                             f"written as ISO dates ({1 - scenario.weekday_share:.0%} of them)",
        "R2.full_kib": f"a sample of the stated description lengths, {low:,}–{high:,} characters, over one page, "
                       "whatever the JSON shape of a read ('What the article never states, swept')",
        "R5.from_read.conflicts": f"a sample of the stated moves: {_share_words(scenario.move_share)}",
    }


def _in_every(count: int, whole: int) -> str:
    """'one bug in 7', '6 bugs in 7'."""
    return f"one bug in {whole}" if count == 1 else f"{count} bugs in {whole}"


def _share_words(share: float) -> str:
    """'one bug in 8' for a share one over a whole number, else '12.5% of the bugs'."""
    whole = 1 / share if share else 0
    return f"one bug in {round(whole)}" if share and abs(whole - round(whole)) < 1e-9 else f"{share:.1%} of the bugs"


DETERMINISTIC = ("R3.",)  # figures the seeds cannot move: they must match exactly, and get no range
SINGLE_PAGE = ("R2.",)  # published for one page: their range is that of one seed's page, not of five pages' mean
SHOWN_DECIMALS = {"R1.gap.": 2}  # ours printed more finely than the published figure, which stands for a rounding


def decimals_of(key: str) -> int:
    """Published precision: two decimals for calls per item, one for shares, KiB and R4's calls."""
    if key.startswith("R1.gap."):
        return 0  # "one rejected edit", "one extra call"
    if key.endswith("calls_per_item"):
        return 2
    if key == "R2.schema_share_pct":
        return 0  # "about 10%"
    return 1 if key.endswith(("_pct", "kib", "R4.relist.calls", "R4.poll.calls")) else 0


AS_RUN = Scenario(  # what triage.py runs without options
    items=ITEMS, statuses=STATUSES, bare_severity_share=BARE_SEVERITY_SHARE, points=POINTS,
    weekday_share=WEEKDAY_SHARE, weekday=WEEKDAY, description=DESCRIPTION, preview_characters=PREVIEW_CHARACTERS,
    page_limit=PAGE_LIMIT, offset_items=OFFSET_ITEMS, offset_changes=OFFSET_CHANGES, changes_items=CHANGES_ITEMS,
    changes=CHANGES, move_share=MOVE_SHARE, timed_edits=TIMED_EDITS, timed_runs=TIMED_RUNS, today=TODAY)
BASIS = basis_for(AS_RUN)  # the committed run's basis
