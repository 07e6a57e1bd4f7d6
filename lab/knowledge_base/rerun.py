"""The knowledge-base experiments rerun: every model over the main seeds and the range groups, every figure measured.

Layer: above day.py, approval.py and seed_profile.py (what one seed runs), formulas.py and scenario.py (what
is measured, and against which published figures); below sim.py, which hands its options down here as
models, seeds and settings. What a run measured goes to report.py and chart.py (the main page) or to
sensitivity.py (the sensitivity page), which write it; this module writes no sentence of either.

Glossary (sim.py has the others):
  job        what one worker process runs: (seed, model, how), `how` being False, True (on seed_profile.py's
             stopwatches) or an approval.Approval (the seed's approval replicas instead of its day)
  readings   of the sensitivity page: scenario.K4_READINGS, each measured in each model
"""

import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from lab.experiments import GROUP_SIZE, Provenance, Written, measure, run_main_and_ranges, total_of
from lab.knowledge_base import approval, day, report as main_page, seed_profile, sensitivity as sensitivity_page
from lab.knowledge_base.citation_forms import citation_forms
from lab.knowledge_base.day import Scenario
from lab.knowledge_base.formulas import all_figures, k4_figures, published_hours
from lab.knowledge_base.models import late_models, models_of, sensitivity_models
from lab.knowledge_base.measured import ModelRun, Report, Sensitivity
from lab.knowledge_base.report import CHART, RESULTS, SENSITIVITY
from lab.knowledge_base.scenario import (
    CALIBRATED, K4_READINGS, MODELS, PUBLISHED, PUBLISHED_K1, K4Reading, basis_for, decimals_of,
)

SEED_PARTS = "seed_parts"  # the key under which a timed job's result carries its parts (seed_profile.py)


def group_totals(results: Sequence[Dict[str, Any]], scenario: Scenario) -> Dict[str, Any]:
    """The counts of a group of seeds, summed, with what the figures divide by."""
    return dict(total_of(results), seeds=len(results), questions=scenario.questions * len(results),
                saves=scenario.saves * len(results))


def run_one(job: Tuple[int, Scenario, Any]) -> Dict[str, Any]:
    """One seed's day (a module-level function, so worker processes can import it); a job marked `timed` runs on
    seed_profile.py's stopwatches and carries the seconds of each part under SEED_PARTS. A job whose third
    part is an approval.Approval runs the seed's approval replicas instead."""
    seed, scenario, timed = job
    if isinstance(timed, approval.Approval):
        return approval.run_seed(seed, scenario, timed)
    if not timed:
        return day.run_seed(seed, scenario)
    result, parts = seed_profile.timed_seed(seed, scenario)
    return dict(result, **{SEED_PARTS: parts})


def run_models(prog: str, scenarios: Dict[str, Scenario], seeds: Sequence[int],
               groups: Sequence[Sequence[int]], jobs: int, timed: bool = False,
               approvals: Optional[approval.Approval] = None, draws: int = 1,
               ) -> Tuple[Dict[str, ModelRun], float, Optional[Dict[str, float]]]:
    """Every model over the main seeds, then over the range groups, in one pool (with `approvals`, the main seeds'
    approval replicas last, so the main seeds' time stays that of their days); the main seeds' seconds; with
    `timed`, the parts of the first job's time (the first main seed of the first model). `groups` holds `draws`
    draws of the range seeds one after another: the first sets each figure's range, and every draw's rows are
    kept (ModelRun.draws), for tallies that must hold across them."""
    range_seeds = [seed for group in groups for seed in group]
    main_jobs = [(seed, s, False) for s in scenarios.values() for seed in seeds]
    main_jobs[0] = main_jobs[0][:2] + (timed,)
    range_jobs = [(seed, s, False) for s in scenarios.values() for seed in range_seeds]
    approval_jobs = ([(seed, s, approvals) for s in scenarios.values() for seed in seeds]
                     if approvals is not None else [])
    main_results, later, main_seconds = run_main_and_ranges(prog, run_one, main_jobs, range_jobs + approval_jobs,
                                                            jobs, job_namer(scenarios))
    group_results, approval_results = regrouped(later, len(range_jobs))
    parts = main_results[0].pop(SEED_PARTS, None)
    measured = {}
    for n, (name, scenario) in enumerate(scenarios.items()):
        main = group_totals(main_results[n * len(seeds):(n + 1) * len(seeds)], scenario)
        every = [group_totals(g, scenario) for g in group_results[n * len(groups):(n + 1) * len(groups)]]
        per_draw = len(groups) // draws
        draw_rows = [{reading: measure(figures, main, every[d * per_draw:(d + 1) * per_draw], PUBLISHED, decimals_of)
                      for reading, figures in all_figures(scenario).items()} for d in range(draws)]
        replicas = [r["approvals"] for r in approval_results[n * len(seeds):(n + 1) * len(seeds)]]
        measured[name] = ModelRun(scenario, main, every[:per_draw], draw_rows[0],
                                  replicas if approvals is not None else None, draw_rows)
    return measured, main_seconds, parts


def job_namer(scenarios: Dict[str, Scenario]) -> Callable[[Tuple[int, Scenario, Any]], str]:
    """A job's name in an error: "seed 17 of the model 'popular search'", and whether it ran approval replicas."""
    def name_of(job: Tuple[int, Scenario, Any]) -> str:
        seed, scenario, kind = job
        model = next((name for name, s in scenarios.items() if s is scenario), "?")
        replicas = " (its approval replicas)" if isinstance(kind, approval.Approval) else ""
        return f"seed {seed} of the model '{model}'{replicas}"
    return name_of


def regrouped(later: Sequence[Sequence[Dict[str, Any]]], ranged: int) -> Tuple[List[List[Dict[str, Any]]],
                                                                                List[Dict[str, Any]]]:
    """The results after the main seeds' days, in the groups run_main_and_ranges made of them: the first `ranged`
    in groups of GROUP_SIZE (the range groups), and the rest as they came (the approval replicas)."""
    flat = [result for group in later for result in group]
    return [flat[i:i + GROUP_SIZE] for i in range(0, ranged, GROUP_SIZE)], flat[ranged:]


# ---------------------------------------------------------------------------
# The main page.


def measure_report(prog: str, models: Dict[str, Scenario], seeds: Sequence[int],
                   draws: Sequence[Sequence[Sequence[int]]], jobs: int, approvals: approval.Approval,
                   made_by: Provenance) -> Report:
    """Both models over the seeds and every draw of range groups (experiments.draws_of; the first sets the
    ranges), every figure measured, K1 apart and the approval replicas on the main seeds: what the main page is
    written from (`made_by`: what the page says made it)."""
    started = time.perf_counter()
    groups = draws[0] if draws else []
    every = [group for draw in draws for group in draw]
    measured, main_seconds, parts = run_models(prog, models, seeds, every, jobs, timed=True, approvals=approvals,
                                               draws=max(1, len(draws)))
    k1 = citation_forms()
    seconds = time.perf_counter() - started
    return Report(models=measured, seeds=seeds, groups=groups, draws=draws, k1=k1, published_k1=PUBLISHED_K1,
                  published=PUBLISHED, published_hours=published_hours(models[MODELS[0]]),
                  calibrated=CALIBRATED, basis=basis_for(models[MODELS[0]], len(groups), max(1, len(draws))),
                  provenance=made_by,
                  timing=(main_seconds, seconds, jobs), seed_parts=parts, approval=approvals)


def main_files(report: Report) -> Dict[str, str]:
    """The markdown and the chart of a report, by file name; the page says how long writing both took."""
    started = time.perf_counter()
    page, chart = main_page.markdown(report), main_page.chart(report)
    took = f"{time.perf_counter() - started:.2f} s"
    return {RESULTS: page.replace(main_page.REPORT_SECONDS, took), CHART: chart}


# ---------------------------------------------------------------------------
# The sensitivity page.


def k4_reading_rows(reading: K4Reading, run: ModelRun) -> List[Dict[str, Any]]:
    """Per delay, the rejected share a K4 reading sets beside the published 'version changed' share, with its
    range and verdict, from a model's run (one that made late saves where the reading asks for them)."""
    rows = []
    for d in range(len(run.scenario.delays)):
        key = f"K4.d{d}.{'rejected_pct' if reading.unpublished_as_changed else 'conflicts_pct'}"
        published = {key: PUBLISHED[f"K4.d{d}.conflicts_pct"]} if f"K4.d{d}.conflicts_pct" in PUBLISHED else {}
        rows.append(measure({key: k4_figures(d)[key]}, run.main, run.groups, published, decimals_of)[key])
    return rows


def k4_readings(by_model: Dict[str, Dict[str, ModelRun]]) -> Dict[Tuple[str, str], List[Dict[str, Any]]]:
    """Each K4 reading in each model, from the model's runs whose day ends and whose saves go on."""
    return {(reading.name, model): k4_reading_rows(reading, runs["saves go on" if reading.saves_after_day
                                                                 else "day ends"])
            for reading in K4_READINGS for model, runs in by_model.items()}


def measure_sensitivity(prog: str, stated: Scenario, area_articles: Optional[int], seeds: Sequence[int],
                        draws: Sequence[Sequence[Sequence[int]]], jobs: int, made_by: Provenance) -> Written:
    """The tallies of each variant of the day as stated over every draw of range groups (counted as the main page
    counts them), and K4's readings over the first draw, as the page SENSITIVITY, and the seconds taken."""
    started = time.perf_counter()
    models = models_of(stated, area_articles)
    variants, late = sensitivity_models(stated, area_articles), late_models(models)
    groups = draws[0] if draws else []
    every = [group for draw in draws for group in draw]
    measured, _, _ = run_models(prog, variants, seeds, every, jobs, draws=max(1, len(draws)))
    late_runs, _, _ = run_models(prog, {f"late {m}": s for m, s in late.items()}, seeds, groups, jobs)
    measured.update(late_runs)
    by_model = {model: {"day ends": next(measured[name] for name, v in variants.items() if v == scenario),
                        "saves go on": measured[f"late {model}"]}
                for model, scenario in models.items()}
    readings = k4_readings(by_model)
    seconds = time.perf_counter() - started
    page = Sensitivity(
        variants={name: measured[name] for name in variants}, seeds=seeds, groups=groups, draws=draws,
        basis=basis_for(stated, len(groups), max(1, len(draws))),
        provenance=made_by, readings=K4_READINGS, k4=readings, published=PUBLISHED,
        models={model: runs["day ends"].scenario for model, runs in by_model.items()}, timing=(seconds, jobs))
    return {SENSITIVITY: sensitivity_page.markdown(page)}, seconds
