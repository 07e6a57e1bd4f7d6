"""triage.py: rerun the record-channel experiments (docs/source-figures.md) and write them beside the published figures.

    python3 triage.py                 # seeds 1-5, writes results/record_channels.md (about 1.5 minutes on 2 cores)

Layer: a client (see the README's "What is here, layer by layer"). This file is the command alone: its options,
their checks, and the options handed down to lab/record_channels/ as a Scenario, seeds and settings. There,
scenario.py holds the scenario's constants (the options' defaults) and the published figures, runs.py
measures one seed of tables R1-R5 on record_store.py (its scripted agent is agent.py) and times R6,
rerun.py runs the seeds and gives the verdicts, and report.py writes them; lab/experiments.run_command is
the skeleton of main().

Glossary (lab/experiments.py has the shared words: figure, ours, range, verdict):
  row       one R1 configuration, "<schema>.<detail>": did the agent read the schema
            (yes/no), and how much the rejection says (terse/field/values/labels)
  run       one seed of R3 and R4 (the article's "5 runs" are seeds 1-5)
"""

import osfoundry_tools.minimum_python  # noqa: F401  (first: refuses a Python older than 3.9 in one line)


import argparse
import datetime
import sys
from typing import Optional, Sequence, Tuple

from osfoundry_tools.cli import (
    OneLineParser, bounded, last_seed_reached, non_negative, positive, readers_may_leave, run_main, share,
    terminated_as_interrupted,
)
from lab.experiments import (
    DRAWS, GROUP_SIZE, Command, Provenance, Written, draws_of, provenance, run_command, seed_options,
)
from lab.record_channels import rerun
from lab.record_channels.agent import WEEKDAYS
from lab.record_channels.report import RESULTS
from lab.record_channels.runs import Scenario, options_of
from lab.record_channels.scenario import (
    BARE_SEVERITY_SHARE, CHANGES, CHANGES_ITEMS, DESCRIPTION, ITEMS, MAIN_SEEDS, MOVE_SHARE, OFFSET_CHANGES,
    OFFSET_ITEMS, PAGE_LIMIT, POINTS, PREVIEW_CHARACTERS, RANGE_GROUPS, STATUSES, TIMED_EDITS, TIMED_RUNS, TODAY,
    WEEKDAY, WEEKDAY_SHARE,
)

# ---------------------------------------------------------------------------
# The command line.


def status_list(text: str) -> Tuple[str, ...]:
    """'triaged,in_progress': status values of the bug tracker a triage may ask for."""
    known = [o["value"] for o in options_of("status")]
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
    p = OneLineParser(prog="triage.py", description="Rerun the record-channel experiments (their published "
                      "figures: docs/source-figures.md) through record_store.py's agent tools and write "
                      "results/record_channels.md beside the published figures. The default run takes about 1.5 "
                      "minutes on 2 cores (the page's 'Run time' section says how long it took).")
    seed_options(p, MAIN_SEEDS, RANGE_GROUPS, "the 95%% ranges (mean ± 1.96 standard deviations)", RESULTS,
                 DRAWS)
    work = p.add_argument_group("the triage (R1, R2, R5; as published: docs/source-figures.md)")
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
                       help=f"R5: share of bugs a person moves between the agent's read and write "
                       f"(default {MOVE_SHARE})")
    other.add_argument("--timed-edits", type=positive, default=TIMED_EDITS, metavar="N",
                       help=f"R6: valid six-field edits per timed run (default {TIMED_EDITS})")
    other.add_argument("--timed-runs", type=non_negative, default=TIMED_RUNS, metavar="N",
                       help=f"R6: runs with and without validation; 0 skips R6 (default {TIMED_RUNS})")
    return p


def scenario_from(options: argparse.Namespace) -> Scenario:
    """The Scenario the options describe."""
    return Scenario(
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
    last_seed_reached(p, options.seeds, GROUP_SIZE * options.ranges * options.draws)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the seeds, measure every figure, time R6, write the markdown; cli.EXIT_OK, or EXIT_USAGE for a bad
    option."""
    return run_command(COMMAND, argv)



def measure_page(options: argparse.Namespace, made_by: Optional[Provenance] = None) -> Written:
    """The markdown of the options' seeds, range groups and R6 timing, and the seconds the run took (`made_by`:
    what the page says made it; by default, this process with these options)."""
    return rerun.measure_page("triage.py", scenario_from(options), options.seeds,
                              draws_of(options.seeds, options.ranges, options.draws), options.jobs,
                              made_by or provenance(COMMAND, options, []))


COMMAND = Command(prog="triage.py", parser=parser, check_options=check_options, measure=measure_page,
                  run_name=lambda options: "triage")


if __name__ == "__main__":
    with terminated_as_interrupted(), readers_may_leave():
        sys.exit(run_main("triage.py", main))
