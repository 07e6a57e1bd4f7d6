"""triage.py: rerun the record-channel experiments of SPEC §3 and write them beside the published figures.

    python3 triage.py                 # seeds 1-5, writes results/record_channels.md

Layer: a client (see the README's "What is here, layer by layer"). lab/triage_runs.py measures one seed of tables
R1-R5 on record_store.py (its scripted agent is lab/triage_agent.py) and times R6;
this file holds the scenario, the published figures, the command line, the runs
over seeds and the verdicts; lab/triage_report.py writes them, and
lab/experiments.run_command is the skeleton of main().

Glossary (lab/experiments.py has the shared words: figure, ours, range, verdict):
  row       one R1 configuration, "<schema>.<detail>": did the agent read the schema
            (yes/no), and how much the rejection says (terse/field/values/labels)
  run       one seed of R3 and R4 (the article's "5 runs" are seeds 1-5)
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)


import argparse
import datetime
import math
import random
import sys
import time
from typing import Any, Dict, Optional, Sequence, Tuple

from osfoundry_tools.stores import record_store
from osfoundry_tools.content import workload
from osfoundry_tools.cli import OneLineParser, bounded, non_negative, positive, run_main, share
from lab.record_channels import report as triage_report, runs as triage_runs
from lab.evidence import Basis, Restatement, restates, scaled
from lab.experiments import (
    Command, Figures, Provenance, Written, measure, normal_spread, percent, provenance, range_groups, run_command,
    run_main_and_ranges, seed_options, total_of,
)
from lab.record_channels.agent import WEEKDAYS

# ---------------------------------------------------------------------------
# The scenario (SPEC §3), every constant overridable from the command line.

ITEMS = 200  # New bugs per seed: 1,000 over seeds 1-5
STATUSES = ("triaged", "in_progress", "fixed", "wont_fix")  # what a triage asks for; New is where bugs start
BARE_SEVERITY_SHARE = 0.5  # our choice: SPEC says "S2 Major" or just "major", not how often each
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
TODAY = datetime.date(2026, 11, 9)  # the day the record tools were read (SPEC §1); our choice of date

MAIN_SEEDS = "1-5"
RANGE_GROUPS = 12  # groups of five seeds after the main seeds, for mean ± 1.96 sd (experiments.normal_spread)
RESULTS = "record_channels.md"

# ---------------------------------------------------------------------------
# The published figures (SPEC §3, from the article 001), keyed by figure.

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
PUBLISHED: Dict[str, float] = {
    **{f"R1.{row}.{name}": value for row, values in _R1.items()
       for name, value in zip(("saved", "saved_pct", "left", "calls_per_item"), values)},
    "R1.twenty": 143,
    # prose: without the schema every first edit failed; with it, only for the 143 twenty-point items
    **{f"R1.{row}.first_failed": (1000 if row.startswith("no.") else 143) for row in R1_ROWS},
    # prose, per item, the schema's gap with labels in the rejection: "one rejected edit per item" (SPEC.md §1.2,
    # the first recommendation) and "one extra call per item" (SPEC.md §3, under table R1)
    "R1.gap.first_failed_per_item": 1, "R1.gap.calls_per_item": 1,
    "R2.page_kib": 16.7, "R2.full_kib": 124.6, "R2.schema_bytes": 1705, "R2.schema_share_pct": 10,
    **{f"R3.{run}.{name}": value for run, values in _R3.items()
       for name, value in zip(("pages", "reads", "twice", "never"), values)},
    "R4.relist.calls": 9.0, "R4.relist.kib": 135.8, "R4.relist.found": 45,
    "R4.poll.calls": 1.0, "R4.poll.kib": 4.6, "R4.poll.found": 45,
    "R5.from_read.conflicts": 131, "R5.from_read.overwritten": 0,
    "R5.reread.conflicts": 0, "R5.reread.overwritten": 131,
}
PUBLISHED_R6 = triage_runs.PUBLISHED_R6  # beside the R6 timing, where the benchmark reads it too
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
    items = fields / len(triage_runs.TARGET_FIELDS)
    restated["R1.yes.terse.calls_per_item"] = restates(  # the agent splits a refused edit into one per field
        "R1.twenty", by=lambda p: 1 + len(triage_runs.TARGET_FIELDS) * p["R1.twenty"] / items)
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


BASIS = Basis(
    restated={**_restated_r1(), **_restated_r2_to_r5()},
    checks={
        "R1.no.terse.first_failed": "without the schema the agent sends labels, which no option value matches",
        "R1.no.terse.calls_per_item": "a rejection that names nothing leaves the agent one edit per field to send",
        "R1.no.values.calls_per_item": "the rejection names every refused field, so one second edit sends all it "
                                       "can fix",
        "R1.no.labels.calls_per_item": "the rejection names every refused field, so one second edit sends all it "
                                       "can fix",
        **{f"R3.{run}.{name}": R3_FIXED for run in ("create.offset", "delete.offset") for name in ("twice", "never")},
        **{f"R3.{change}.before_id.{name}": R3_FIXED for change in ("create", "delete")
           for name in ("reads", "twice", "never")},
        "R4.relist.calls": "the channel's pages after the changes, one call each",
        "R4.relist.found": "the run stops unless both strategies find exactly the changes people made",
        "R4.poll.calls": "one page of events holds every change",
        "R5.from_read.overwritten": "a version check refuses any edit whose version moved",
        "R5.reread.conflicts": "nothing happens between the re-read and the edit",
    },
)
DETERMINISTIC = ("R3.",)  # figures the seeds cannot move: they must match exactly, and get no range
SINGLE_PAGE = ("R2.",)  # published for one page: their range is that of one seed's page, not of five pages' mean
SHOWN_DECIMALS = {"R1.gap.": 2}  # ours printed more finely than the published figure, which stands for a rounding


# ---------------------------------------------------------------------------
# Figures: how each is computed from the summed counts of a group of seeds.


def r1_figures(row: str) -> Figures:
    """One R1 row: fields saved (count and share), left to a person, edit calls per item, and why."""
    r = lambda t: t["R1"][row]  # noqa: E731
    return {
        f"R1.{row}.saved": lambda t: r(t)["saved"],
        f"R1.{row}.saved_pct": lambda t: percent(r(t)["saved"], len(triage_runs.TARGET_FIELDS) * r(t)["items"]),
        f"R1.{row}.left": lambda t: r(t)["flagged"],
        f"R1.{row}.calls_per_item": lambda t: r(t)["edit_calls"] / r(t)["items"],
        f"R1.{row}.first_failed": lambda t: r(t)["first_failed"],
        f"R1.{row}.nothing_left": lambda t: r(t)["nothing_left"],
        f"R1.{row}.wrong": lambda t: r(t)["wrong"],
    }


def r1_gap_figures() -> Figures:
    """What reading the schema saves per item, with labels in the rejection: first edits refused, and edit calls."""
    per_item = lambda t, row, name: t["R1"][row][name] / t["R1"][row]["items"]  # noqa: E731
    return {
        "R1.gap.first_failed_per_item": lambda t: (per_item(t, "no.labels", "first_failed")
                                                   - per_item(t, "yes.labels", "first_failed")),
        "R1.gap.calls_per_item": lambda t: (per_item(t, "no.labels", "edit_calls")
                                            - per_item(t, "yes.labels", "edit_calls")),
    }


def all_figures() -> Figures:
    """Every figure of R1-R5 (R6 is timed apart: it is no count)."""
    figures: Figures = {"R1.twenty": lambda t: t["R1"]["yes.values"]["twenty"]}
    for row in R1_ROWS:
        figures.update(r1_figures(row))
    figures.update(r1_gap_figures())
    per_page = lambda t, name: t["R2"][name] / t["R2"]["pages"]  # noqa: E731
    figures.update({
        "R2.page_kib": lambda t: per_page(t, "page_bytes") / 1024,
        "R2.full_kib": lambda t: per_page(t, "full_bytes") / 1024,
        "R2.schema_bytes": lambda t: per_page(t, "schema_bytes"),
        "R2.schema_share_pct": lambda t: percent(t["R2"]["schema_bytes"], t["R2"]["page_bytes"]),
    })
    for run in _R3:
        figures.update(r3_figures(run))
    for strategy in ("relist", "poll"):
        figures.update(r4_figures(strategy))
    for strategy in ("from_read", "reread"):
        figures.update(r5_figures(strategy))
    figures["R5.moved"] = lambda t: t["R5"]["moved"]
    return figures


def r3_figures(run: str) -> Figures:
    """One R3 pass (a change and a pagination): pages, reads, items read twice, items never read."""
    return {
        f"R3.{run}.pages": lambda t: t["R3"][run]["pages"],
        f"R3.{run}.reads": lambda t: t["R3"][run]["reads"],
        f"R3.{run}.twice": lambda t: t["R3"][run]["twice"],
        f"R3.{run}.never": lambda t: t["R3"][run]["never"],
    }


def r4_figures(strategy: str) -> Figures:
    """One way to find R4's changes (re-listing or polling), per run: calls, KiB, changes found."""
    return {
        f"R4.{strategy}.calls": lambda t: t["R4"][strategy]["calls"] / t["R4"]["runs"],
        f"R4.{strategy}.kib": lambda t: t["R4"][strategy]["bytes"] / t["R4"]["runs"] / 1024,
        f"R4.{strategy}.found": lambda t: t["R4"][strategy]["found"] / t["R4"]["runs"],
    }


def r5_figures(strategy: str) -> Figures:
    """One way to get R5's version (from the read, or re-read before the edit): conflicts, people's changes lost."""
    return {
        f"R5.{strategy}.conflicts": lambda t: t["R5"][strategy]["conflicts"],
        f"R5.{strategy}.overwritten": lambda t: t["R5"][strategy]["overwritten"],
    }


def decimals_of(key: str) -> int:
    """Published precision: two decimals for calls per item, one for shares, KiB and R4's calls."""
    if key.startswith("R1.gap."):
        return 0  # "one rejected edit", "one extra call"
    if key.endswith("calls_per_item"):
        return 2
    if key == "R2.schema_share_pct":
        return 0  # "about 10%"
    return 1 if key.endswith(("_pct", "kib", "R4.relist.calls", "R4.poll.calls")) else 0


def measure_all(main: Dict[str, Any], groups: Sequence[Dict[str, Any]],
                singles: Sequence[Dict[str, Any]] = ()) -> Dict[str, Dict[str, Any]]:
    """Every figure with its range and verdict: over groups of five seeds, over single seeds (`singles`) for a
    figure published for one page, and none for a deterministic figure, whose range is itself."""
    figures = all_figures()
    kinds = {"fixed": DETERMINISTIC, "single": SINGLE_PAGE}
    chosen = {kind: {k: f for k, f in figures.items() if k.startswith(prefixes)} for kind, prefixes in kinds.items()}
    grouped = {k: f for k, f in figures.items() if not any(k in c for c in chosen.values())}
    rows = measure(grouped, main, groups, PUBLISHED, decimals_of, normal_spread)
    rows.update(measure(chosen["single"], main, singles, PUBLISHED, decimals_of, normal_spread))
    rows.update(measure(chosen["fixed"], main, [main], PUBLISHED, decimals_of))
    for key, row in rows.items():
        row["deterministic"] = key in chosen["fixed"]
        row["single"] = key in chosen["single"]
        row["shown_decimals"] = next((d for p, d in SHOWN_DECIMALS.items() if key.startswith(p)), row["decimals"])
    return {key: rows[key] for key in figures}


# ---------------------------------------------------------------------------
# Runs.


def run_one(job: Tuple[int, triage_runs.Scenario, bool]) -> Dict[str, Any]:
    """One seed's tables (a module-level function, so worker processes can import it)."""
    seed, scenario, with_r3 = job
    return triage_runs.run_seed(seed, scenario, with_r3=with_r3)


def the_values_rejection(scenario: triage_runs.Scenario) -> Dict[str, Any]:
    """The published inputs sent by a real edit_record_item call at the values level: the rejection it returns."""
    with triage_runs.bug_store(random.Random(0), scenario, 1, rejection_detail="values") as store:
        (item_id,) = store.item_ids(triage_runs.CHANNEL)
        return store.call_tool("edit_record_item", {
            "record_channel_id": triage_runs.CHANNEL, "item_id": item_id, "values": PUBLISHED_INPUTS,
            "expected_version": 1, "idempotency_key": "the-published-example"})


# ---------------------------------------------------------------------------
# The command line.


def status_list(text: str) -> Tuple[str, ...]:
    """'triaged,in_progress': status values of the bug tracker a triage may ask for."""
    known = [o["value"] for o in triage_runs.options_of("status")]
    values = tuple(part.strip() for part in text.split(","))
    if not values or any(v not in known for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of status values from {', '.join(known)}")
    return values


def number_list(text: str) -> Tuple[int, ...]:
    """'1,2,3,5,8,13,20': whole numbers of at least 0."""
    try:
        values = tuple(int(part) for part in text.split(","))
    except ValueError:
        values = ()
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of whole numbers such as 1,2,3,5,8,13,20")
    return values


def length_range(text: str) -> Tuple[int, int]:
    """'300-4000': a range of description lengths within the field's 8,000 characters."""
    parts = text.split("-")
    try:
        low, high = (int(p) for p in parts)
    except ValueError:
        low = high = -1
    if len(parts) != 2 or not 1 <= low <= high <= 8000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a range of lengths such as 300-4000, at most 8000")
    return low, high


def change_counts(text: str) -> Tuple[int, int, int]:
    """'30/12/3': items people modify, create and delete after the first pass."""
    try:
        values = tuple(int(p) for p in text.split("/"))
    except ValueError:
        values = ()
    if len(values) != 3 or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"{text!r} is not three counts such as 30/12/3")
    return values


def weekday(text: str) -> str:
    """A weekday's English name, as a person writes it."""
    if text.strip().lower() not in WEEKDAYS:
        raise argparse.ArgumentTypeError(f"{text!r} is not a weekday such as Friday")
    return text.strip().capitalize()


def iso_date(text: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date as YYYY-MM-DD") from None


def parser() -> argparse.ArgumentParser:
    """The command line; every scenario constant above has its option."""
    p = OneLineParser(prog="triage.py", description="Rerun the record-channel experiments (SPEC §3) through "
                      "record_store.py's agent tools and write results/record_channels.md beside the published "
                      "figures.")
    seed_options(p, MAIN_SEEDS, RANGE_GROUPS, "the 95%% ranges (mean ± 1.96 standard deviations)", RESULTS)
    work = p.add_argument_group("the triage (SPEC §3; R1, R2, R5)")
    work.add_argument("--items", type=positive, default=ITEMS, help=f"New bugs per seed (default {ITEMS})")
    work.add_argument("--statuses", type=status_list, default=STATUSES, metavar="LIST",
                      help=f"status values triage intents ask for (default {','.join(STATUSES)})")
    work.add_argument("--bare-severity-share", type=share, default=BARE_SEVERITY_SHARE, metavar="P",
                      help=f"share of severity intents written as a bare word like 'major' instead of the label "
                      f"'S2 Major' (default {BARE_SEVERITY_SHARE}; not published)")
    work.add_argument("--points", type=number_list, default=POINTS, metavar="LIST",
                      help=f"points intents draw from, uniformly (default {','.join(map(str, POINTS))})")
    work.add_argument("--weekday-share", type=share, default=WEEKDAY_SHARE, metavar="P",
                      help=f"share of due intents written as a weekday instead of an ISO date "
                      f"(default {WEEKDAY_SHARE})")
    work.add_argument("--weekday", type=weekday, default=WEEKDAY, help=f"that weekday (default {WEEKDAY})")
    work.add_argument("--description", type=length_range, default=DESCRIPTION, metavar="LOW-HIGH",
                      help=f"characters of a bug's description, uniform (default {DESCRIPTION[0]}-{DESCRIPTION[1]})")
    work.add_argument("--preview", type=lambda t: bounded(int, t, 2, None), default=PREVIEW_CHARACTERS,
                      metavar="N", help=f"characters a preview keeps of a long text (default {PREVIEW_CHARACTERS})")
    work.add_argument("--page-limit", type=lambda t: bounded(int, t, 1, 50), default=PAGE_LIMIT, metavar="N",
                      help=f"previews per page the agent asks for, 1-50 (default {PAGE_LIMIT})")
    work.add_argument("--today", type=iso_date, default=TODAY, metavar="DATE",
                      help=f"the agent's today, from which a weekday becomes a date (default {TODAY})")
    other = p.add_argument_group("the other tables")
    other.add_argument("--offset-items", type=positive, default=OFFSET_ITEMS, metavar="N",
                       help=f"R3: items of the channel paged through (default {OFFSET_ITEMS})")
    other.add_argument("--offset-changes", type=non_negative, default=OFFSET_CHANGES, metavar="N",
                       help=f"R3: items created, or deleted, after each page (default {OFFSET_CHANGES})")
    other.add_argument("--changes-items", type=positive, default=CHANGES_ITEMS, metavar="N",
                       help=f"R4: items of the first pass (default {CHANGES_ITEMS})")
    other.add_argument("--changes", type=change_counts, default=CHANGES, metavar="M/C/D",
                       help="R4: items people then modify, create and delete (default 30/12/3)")
    other.add_argument("--move-share", type=share, default=MOVE_SHARE, metavar="P",
                       help="R5: share of bugs a person moves between the agent's read and write (default 1/8)")
    other.add_argument("--timed-edits", type=positive, default=TIMED_EDITS, metavar="N",
                       help=f"R6: valid six-field edits per timed run (default {TIMED_EDITS})")
    other.add_argument("--timed-runs", type=non_negative, default=TIMED_RUNS, metavar="N",
                       help=f"R6: runs with and without validation; 0 skips R6 (default {TIMED_RUNS})")
    return p


def scenario_from(options: argparse.Namespace) -> triage_runs.Scenario:
    """The Scenario the options describe."""
    return triage_runs.Scenario(
        items=options.items, statuses=options.statuses, bare_severity_share=options.bare_severity_share,
        points=options.points, weekday_share=options.weekday_share, weekday=options.weekday,
        description=options.description, preview_characters=options.preview, page_limit=options.page_limit,
        offset_items=options.offset_items, offset_changes=options.offset_changes,
        changes_items=options.changes_items, changes=options.changes, move_share=options.move_share,
        timed_edits=options.timed_edits, timed_runs=options.timed_runs, today=options.today)


def check_options(p: argparse.ArgumentParser, options: argparse.Namespace) -> None:
    """What argparse cannot check alone; exits with cli.EXIT_USAGE and one line, like argparse."""
    modified, _, deleted = options.changes
    if modified + deleted > options.changes_items:
        p.error("--changes: the items modified and deleted must not outnumber --changes-items")
    if options.offset_items < options.page_limit:
        p.error("--offset-items must fill at least one page of --page-limit")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the seeds, measure every figure, time R6, write the markdown; cli.EXIT_OK, or EXIT_USAGE for a bad
    option."""
    return run_command(COMMAND, argv)


def measure_page(options: argparse.Namespace, made_by: Optional[Provenance] = None) -> Written:
    """The markdown of the options' seeds, range groups and R6 timing, and the seconds the run took (`made_by`:
    what the page says made it; by default, this process with these options)."""
    made_by = made_by or provenance(COMMAND, options, [])
    scenario = scenario_from(options)
    started = time.perf_counter()
    seeds, groups = options.seeds, range_groups(options.seeds, options.ranges)
    main_results, group_results, _ = run_main_and_ranges(
        "triage.py", run_one, [(seed, scenario, True) for seed in seeds],
        [(seed, scenario, False) for group in groups for seed in group], options.jobs)
    seeds_seconds = time.perf_counter() - started
    main_total = total_of(main_results)
    group_totals = [total_of(results) for results in group_results]
    rows = measure_all(main_total, group_totals, [result for results in group_results for result in results])
    if options.timed_runs:
        print("triage.py: timing R6 ...", file=sys.stderr, flush=True)
    timing = triage_runs.r6_timing(scenario) if options.timed_runs else None
    seconds = time.perf_counter() - started
    report = triage_report.Report(
        scenario=scenario, seeds=seeds, groups=groups, rows=rows, main=main_total, published=PUBLISHED,
        published_r6=PUBLISHED_R6, r6=timing, rejection=the_values_rejection(scenario),
        published_rejection=PUBLISHED_VALUES_REJECTION, timing=(seeds_seconds, seconds, options.jobs), basis=BASIS,
        provenance=made_by)
    return {RESULTS: triage_report.markdown(report)}, seconds


COMMAND = Command(prog="triage.py", parser=parser, check_options=check_options, measure=measure_page,
                  run_name=lambda options: "triage")


if __name__ == "__main__":
    sys.exit(run_main("triage.py", main))
