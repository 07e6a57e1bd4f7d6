"""Seed days per second on one core, two, and every core this process may use: what --jobs buys a user.

Layer: a benchmark helper below bench.py's job section; it runs sim.py's own job function (lab/knowledge_base/
rerun.run_one) through sim.py's own worker processes (lab/seed_pool.py), so a figure here is what a run of the
main job feels, the starting of its processes included.

Within a repetition every count of processes runs the same seed days back to back, so a ratio between two counts
is taken at one moment of a shared machine; each figure is the median over repetitions, with the smallest and
largest beside it (benchmark/timing.py's Summary).

Glossary:
  seed day     one seed of the knowledge-base day in the default model, as sim.py runs it
  processes    the --jobs of a run: 1 runs the days in this process, more in that many worker processes
"""

import time
from typing import Any, Callable, Dict, List, Sequence

from lab import seed_pool
from lab.experiments import seed_of
from lab.knowledge_base import rerun
from lab.knowledge_base.models import models_of
from lab.knowledge_base.scenario import DAY_AS_STATED, MODELS

def process_counts(cores: int) -> List[int]:
    """1, 2 and every core, each once and in order (a machine of one core measures 1 alone).

    >>> process_counts(1), process_counts(2), process_counts(8)
    ([1], [1, 2], [1, 2, 8])
    """
    return sorted({count for count in (1, 2, cores) if count <= cores})


def seed_days_per_second(repetitions: int, days_per_process: int, log: Callable[[str], None],
                         cores: int = 0) -> Dict[str, Any]:
    """Each count of processes' seed days per second, `repetitions` times over: {"cores", "days", "runs": {count:
    [per second, ...]}}. The same seeds each time, `days_per_process` for each process of the largest count (a few,
    so that no process waits long for the last)."""
    cores = cores or seed_pool.usable_cores()
    counts = process_counts(cores)
    scenario = models_of(DAY_AS_STATED)[MODELS[0]]
    jobs = [(seed, scenario, False) for seed in range(1, days_per_process * max(counts) + 1)]
    runs: Dict[str, List[float]] = {str(count): [] for count in counts}
    for repetition in range(repetitions):
        log(f"job: {len(jobs)} seed days on {', '.join(map(str, counts))} processes, repetition {repetition + 1}")
        for count in counts:
            runs[str(count)].append(len(jobs) / timed_days(jobs, count))
    return {"cores": cores, "days": len(jobs), "runs": runs}


def timed_days(jobs: Sequence[Any], processes: int) -> float:
    """Seconds to run `jobs` on `processes`, from starting the workers to the last result in."""
    started = time.perf_counter()
    seed_pool.run_jobs(rerun.run_one, jobs, processes, lambda index, result: None, seed_of)
    return time.perf_counter() - started
