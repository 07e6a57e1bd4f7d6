"""The record-channel experiments rerun: every seed's tables, each figure measured with its range and verdict, R6 timed.

Layer: above runs.py (one seed's tables R1-R5, and the R6 timing), formulas.py and scenario.py (what is
measured, and against which published figures); below triage.py, which hands its options down here as a
Scenario, seeds and settings. What a run measured goes to report.py, which writes it; this module writes
no sentence of the page.

Glossary (triage.py has row and run; lab/figures.py has the flags a row carries here: deterministic, single,
shown_decimals):
  job   what one worker process runs: (seed, scenario, with_r3), R3 left out of the range groups' seeds, which
        cannot move it
"""

import dataclasses
import random
import sys
import time
from typing import Any, Dict, Sequence, Tuple

from lab import evidence
from lab.experiments import Provenance, Written, measure, normal_spread, run_main_and_ranges, total_of
from lab.record_channels import report as page
from lab.record_channels.formulas import all_figures
from lab.record_channels.measured import Report, sweeps
from lab.record_channels.report import RESULTS
from lab.record_channels.runs import CHANNEL, Scenario, bug_store, r6_timing, run_seed
from lab.record_channels.scenario import (
    DETERMINISTIC, PUBLISHED, PUBLISHED_INPUTS, PUBLISHED_R6, PUBLISHED_VALUES_REJECTION, SHOWN_DECIMALS,
    SINGLE_PAGE, basis_for, decimals_of,
)


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


def run_one(job: Tuple[int, Scenario, bool]) -> Dict[str, Any]:
    """One seed's tables (a module-level function, so worker processes can import it)."""
    seed, scenario, with_r3 = job
    return run_seed(seed, scenario, with_r3=with_r3)


def the_values_rejection(scenario: Scenario) -> Dict[str, Any]:
    """The published inputs sent by a real edit_record_item call at the values level: the rejection it returns."""
    with bug_store(random.Random(0), scenario, 1, rejection_detail="values") as store:
        (item_id,) = store.item_ids(CHANNEL)
        return store.call_tool("edit_record_item", {
            "record_channel_id": CHANNEL, "item_id": item_id, "values": PUBLISHED_INPUTS,
            "expected_version": 1, "idempotency_key": "the-published-example"})


def measure_report(prog: str, scenario: Scenario, seeds: Sequence[int], draws: Sequence[Sequence[Sequence[int]]],
                   jobs: int, made_by: Provenance) -> Report:
    """The seeds' tables, every draw's range groups (experiments.draws_of; the first sets the ranges) and R6's
    timing, every figure measured: what the page is written from (`made_by`: what the page says made it)."""
    started = time.perf_counter()
    groups = draws[0] if draws else []
    main_results, group_results, _ = run_main_and_ranges(
        prog, run_one, [(seed, scenario, True) for seed in seeds],
        [(seed, scenario, False) for draw in draws for group in draw for seed in group], jobs)
    seeds_seconds = time.perf_counter() - started
    main_total = total_of(main_results)
    per_draw = len(groups)
    draw_rows = []
    for d in range(max(1, len(draws))):
        results = group_results[d * per_draw:(d + 1) * per_draw]
        draw_rows.append(measure_all(main_total, [total_of(r) for r in results], [x for r in results for x in r]))
    rows = draw_rows[0]
    if scenario.timed_runs:
        print(f"{prog}: timing R6 ...", file=sys.stderr, flush=True)
    timing = r6_timing(scenario) if scenario.timed_runs else None
    seconds = time.perf_counter() - started
    report = Report(
        scenario=scenario, seeds=seeds, groups=groups, rows=rows, main=main_total, published=PUBLISHED,
        published_r6=PUBLISHED_R6, r6=timing, rejection=the_values_rejection(scenario),
        published_rejection=PUBLISHED_VALUES_REJECTION, timing=(seeds_seconds, seconds, jobs),
        basis=basis_for(scenario), provenance=made_by, draws=draws, further_rows=draw_rows[1:])
    return settled(report)


def settled(report: Report) -> Report:
    """The report with its basis held to the rule of evidence.settled: a figure fixed by the inputs whose match a
    parameter the article never states decides, in some draw, is measured after all."""
    return dataclasses.replace(report, basis=evidence.settled(report.basis, sweeps(report), report.draw_rows()))


def measure_page(prog: str, scenario: Scenario, seeds: Sequence[int], draws: Sequence[Sequence[Sequence[int]]],
                 jobs: int, made_by: Provenance) -> Written:
    """The markdown of the seeds, every draw's range groups and R6 timing, and the seconds the run took."""
    report = measure_report(prog, scenario, seeds, draws, jobs, made_by)
    return {RESULTS: page.markdown(report)}, report.timing[1]
