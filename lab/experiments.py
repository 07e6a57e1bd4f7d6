"""What the experiment scripts share: their main(), seeds, runs over processes, 95% ranges, verdicts, sizes, markdown.

Layer: below sim.py and triage.py, on cli.py (whose exit codes and file writer their
main() uses), beside the stores, which it never imports. What the result pages share
is in pages.py (a page's skeleton) and figures.py (one figure's cells), above this module.

Glossary:
  figure    one published number, keyed like "K2.h8.stale" or "R1.no.values.saved"
  ours      the figure measured over the main seeds (1-5 unless --seeds says otherwise)
  range     where a further group's value of the figure should fall, from groups of five seeds: sim.py
            takes the smallest and largest of 10 groups per draw (a further group falls inside with
            probability 9/11), triage.py mean ± 1.96 standard deviations of 12
  verdict   exact | inside range | outside range (with its reason) | no range (--ranges 0)
"""

import argparse
import dataclasses
import decimal
import os
import math
import platform
import shlex
import sqlite3
import statistics
import subprocess
import sys
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from lab import seed_pool
from osfoundry_tools.cli import (
    EXIT_OK, Progress, changed_settings, non_negative, output_folder, parse_seeds,
    positive, removed_unless_written, shown, write_files,
)
from osfoundry_tools.core.json_text import encoder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "results")  # the committed pages: written by the canonical runs only
RUNS = os.path.join(ROOT, "runs")  # any other run's folder, ignored by git
GROUP_SIZE = 5  # seeds per range group, as many as the main seeds 1-5
DRAWS = 4  # disjoint draws of the range seeds, each of --ranges groups, that the pages' tallies must hold across
TIMING_MARK = "<!-- timing -->"  # ends every results line that reports a wall time
PROVENANCE_MARK = "<!-- provenance -->"  # ends the line that says what made a page (command, commit, versions)
VARYING_MARKS = (TIMING_MARK, PROVENANCE_MARK)  # the only lines two runs of the same settings may differ in

EXACT, INSIDE, OUTSIDE = "exact", "inside range", "outside range"  # the verdicts, best first
VERDICTS = (EXACT, INSIDE, OUTSIDE)
NO_RANGE = "no range (--ranges 0)"  # the verdict of a figure that is not exact when no range was run

Figures = Dict[str, Callable[[Dict[str, Any]], float]]
Written = Tuple[Dict[str, str], float]  # the files a run writes, text by file name, and the seconds it took

# ---------------------------------------------------------------------------
# The main() of an experiment script.


@dataclasses.dataclass(frozen=True)
class Command:
    """An experiment script, as run_command runs it."""

    prog: str  # "sim.py"
    parser: Callable[[], argparse.ArgumentParser]
    check_options: Callable[[argparse.ArgumentParser, argparse.Namespace], None]  # p.error() for a bad one
    measure: Callable[[argparse.Namespace, "Provenance"], Written]
    run_name: Callable[[argparse.Namespace], str]  # a non-canonical run's folder under runs/, before its time
    apart: Tuple[str, ...] = ("jobs", "out")  # options that move no figure: a run that changes only them is canonical
    results: str = RESULTS
    runs: str = RUNS


def run_command(command: Command, argv: Optional[Sequence[str]]) -> int:
    """What sim.py's and triage.py's main() do: parse and check every option, --out included, before any work (a
    bad one exits with cli.EXIT_USAGE and one line); measure; write the files into --out, results/ for the
    canonical run or a folder of its own under runs/ for any other, all at once; say where and how long it took."""
    p = command.parser()
    options = p.parse_args(argv)
    command.check_options(p, options)
    changed = changed_settings(p, options, command.apart)
    destination = output_folder(p, options.out, changed, command.results, command.runs, command.run_name(options))
    if destination.note:
        print(f"{command.prog}: {destination.note}", file=sys.stderr, flush=True)
    made_by = provenance(command, options, sys.argv[1:] if argv is None else argv)
    with removed_unless_written(destination):
        try:
            files, seconds = command.measure(options, made_by)
        except seed_pool.WorkerDied as died:  # one line (cli.run_main), and the run's folder as it was
            raise seed_pool.WorkerDied(f"{died}; nothing was written") from None
        made = write_files(destination.folder, files) or destination.reserved
    print(f"{command.prog}: wrote {shown(destination.folder)}/{' and '.join(files)} in {seconds:.1f} s"
          + (" (a new folder)" if made else ""), file=sys.stderr, flush=True)
    for name, text in files.items():
        sentence = opening_sentence(text)
        if sentence:
            print(f"{shown(destination.folder)}/{name}: {sentence}", flush=True)
    return EXIT_OK


ANSWER_MARK = "**In one sentence.** "  # how a page's opening answer starts


def opening_sentence(text: str) -> Optional[str]:
    """A page's answer in one sentence, without its mark; None for a file without one (a chart)."""
    return next((line[len(ANSWER_MARK):] for line in text.splitlines() if line.startswith(ANSWER_MARK)), None)


@dataclasses.dataclass(frozen=True)
class Provenance:
    """What made a page, as artifact reviewers ask: the command line, the commit, Python's and sqlite's versions,
    and the settings that differ from the committed page's (none for the canonical run)."""

    command: str  # "python3 sim.py --seeds 1-5"
    commit: str  # "3d2c689c1a2b", "3d2c689c1a2b with uncommitted changes", or why it is not known
    python: str
    sqlite: str
    changed: Tuple[str, ...]  # flags whose values differ from the committed page's, e.g. ("--seeds",)

    def title(self, title: str) -> str:
        """A page's title, saying so when the page was written with other settings than the committed one's, so
        that it can never pass for it."""
        if not self.changed:
            return title
        return f"{title}, with other settings ({', '.join(self.changed)}): not the committed page"

    def line(self) -> str:
        """The page's line on what made it; it ends with PROVENANCE_MARK, so a fresh run compares equal."""
        return (f"Made by `{self.command}` at commit {self.commit}, Python {self.python}, sqlite {self.sqlite}. "
                f"{PROVENANCE_MARK}")


def provenance(command: Command, options: argparse.Namespace, argv: Sequence[str]) -> Provenance:
    """The Provenance of a run of `command` with `options`, parsed from `argv`."""
    changed = changed_settings(command.parser(), options, command.apart)
    return Provenance(command=" ".join(["python3", command.prog, *(shlex.quote(a) for a in argv)]),
                      commit=commit_of(ROOT), python=platform.python_version(), sqlite=sqlite3.sqlite_version,
                      changed=tuple(changed))


def commit_of(folder: str, pages: str = "results") -> str:
    """The commit checked out in `folder`, and whether its tracked files differ from it, the `pages` the runs
    write left out (a second run after a first is still at a clean commit); why not, where git cannot say."""
    def git(*words: str) -> str:
        return subprocess.run(["git", "-C", folder, *words], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, check=True).stdout.strip()
    try:
        head = git("rev-parse", "--short=12", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", f":(exclude){pages}")
    except (OSError, subprocess.SubprocessError):
        return "unknown (not a git checkout, or no git)"
    return head + (" with uncommitted changes" if dirty else "")


def seed_options(p: argparse.ArgumentParser, main_seeds: str, range_groups: int, ranges_for: str,
                 written: str, draws: Optional[int] = None, ranges_default: Optional[str] = None) -> None:
    """The options every experiment script takes: --seeds, --ranges (groups of GROUP_SIZE seeds for
    `ranges_for`), --draws where `draws` is given (disjoint draws of those groups, which the tallies must hold
    across), --jobs and --out (where `written` goes). With `ranges_default` (the default in words, where it
    depends on another option), --ranges defaults to None and the command resolves it."""
    p.add_argument("--seeds", type=parse_seeds, default=parse_seeds(main_seeds), metavar="LIST",
                   help=f"the seeds the 'ours' column sums, e.g. 1-5 or 1,3,8-10 (default {main_seeds})")
    p.add_argument("--ranges", type=non_negative, default=None if ranges_default else range_groups, metavar="N",
                   help=f"groups of {GROUP_SIZE} further seeds, after the largest of --seeds, for {ranges_for}; "
                   f"0 skips them (default {ranges_default or range_groups})")
    if draws is not None:
        p.add_argument("--draws", type=positive, default=draws, metavar="N",
                       help="disjoint draws of --ranges groups each, one after another; the first sets the ranges "
                       "of the tables, and a match counts as firm in the tallies only when it is firm in every draw "
                       f"(default {draws})")
    p.add_argument("--jobs", type=positive, default=seed_pool.usable_cores(), metavar="N",
                   help="worker processes to run seed days in; the page does not depend on it (default: the cores "
                   f"this process may use, {seed_pool.usable_cores()} here)")
    p.add_argument("--out", metavar="DIR", help=f"where to write {written}, made if missing (default: results/ "
                   "for a run with the committed page's settings, --jobs aside, which rewrites the committed page "
                   "so that `git diff results/` shows what moved; a new folder under runs/ for any other, so that "
                   "no try with other settings overwrites the committed results)")


# ---------------------------------------------------------------------------
# What a tool result weighs (both experiments' KiB figures, and the benchmark's sizes).


_AS_SENT = encoder(ensure_ascii=False)  # json.dumps(result, ensure_ascii=False), its encoder built once
_COMPACT = encoder(ensure_ascii=False, separators=(",", ":"))


def bytes_of(result: Any) -> int:
    """A tool result's size as an MCP client receives it: UTF-8 of json.dumps(result, ensure_ascii=False)."""
    return utf8_length(_AS_SENT(result))


def compact_bytes(result: Any) -> int:
    """A result's size written without the spaces after `,` and `:` that json.dumps puts by default: a shape the
    articles never rule out, which the pages' sweeps weigh ours in."""
    return utf8_length(_COMPACT(result))


def utf8_length(text: str) -> int:
    """The bytes of `text` in UTF-8, without encoding it where it is ASCII (one byte a character)."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


# ---------------------------------------------------------------------------
# Running seeds and summing them.


def add(total: Any, part: Any) -> Any:
    """Sum two results of the same shape: numbers add, dicts by key, lists by position."""
    if isinstance(part, dict):
        return {key: add(total[key], value) for key, value in part.items()}
    if isinstance(part, list):
        return [add(a, b) for a, b in zip(total, part)]
    return total + part


def total_of(results: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """The results of a group of seeds, summed."""
    total = results[0]
    for result in results[1:]:
        total = add(total, result)
    return total


def seed_of(job: Any) -> str:
    """A job's name in an error: 'seed 17', from a job whose first part is its seed."""
    return f"seed {job[0]}"


def run_seeds(run_one: Callable[[Any], Dict[str, Any]], jobs: Sequence[Any], processes: int,
              finished: seed_pool.Finished, name_of: Callable[[Any], str] = seed_of) -> List[Dict[str, Any]]:
    """run_one(job) for each job on `processes` worker processes (seed_pool.py), in the order of `jobs` whatever
    the processes' timing; finished(index, result) as each job ends. A worker that dies raises seed_pool.WorkerDied,
    whose one line names its job by name_of(job).

    run_one must be a module-level function (the processes import it by name).
    """
    return seed_pool.run_jobs(run_one, jobs, processes, finished, name_of)


def run_main_and_ranges(prog: str, run_one: Callable[[Any], Dict[str, Any]], main_jobs: Sequence[Any],
                        range_jobs: Sequence[Any], processes: int, name_of: Callable[[Any], str] = seed_of,
                        ) -> Tuple[List[Dict[str, Any]], List[List[Dict[str, Any]]], float]:
    """Run the main seeds' jobs, then the range groups', on one set of worker processes, with progress on stderr
    counting every worker's seed days as they end.

    Returns the main results, the range results in groups of GROUP_SIZE, and the seconds until the
    main seeds' results were all in (they are dealt first, so that is their own run time, give or take).
    """
    started = time.perf_counter()
    main_left, main_seconds = [len(main_jobs)], [0.0]
    ended = [0]
    shown_progress = Progress(prog, len(main_jobs) + len(range_jobs), "seed runs")
    shown_progress.update(0)

    def finished(index: int, result: Any) -> None:
        ended[0] += 1
        shown_progress.update(ended[0])
        if index < len(main_jobs):
            main_left[0] -= 1
            if not main_left[0]:
                main_seconds[0] = time.perf_counter() - started

    results = run_seeds(run_one, list(main_jobs) + list(range_jobs), processes, finished, name_of)
    extra = results[len(main_jobs):]
    groups = [extra[i:i + GROUP_SIZE] for i in range(0, len(extra), GROUP_SIZE)]
    return results[:len(main_jobs)], groups, main_seconds[0]


def range_groups(main: Sequence[int], groups: int) -> List[List[int]]:
    """`groups` disjoint groups of five consecutive seeds, starting after the largest main seed."""
    first = max(main) + 1
    return [list(range(first + GROUP_SIZE * g, first + GROUP_SIZE * (g + 1))) for g in range(groups)]


def draws_of(main: Sequence[int], groups: int, draws: int) -> List[List[List[int]]]:
    """`draws` disjoint draws of `groups` range groups each, one after another after the largest main seed: the
    first is range_groups(main, groups), the committed ranges. No draw at all without groups (--ranges 0)."""
    if not groups:
        return []
    every = range_groups(main, groups * draws)
    return [every[d * groups:(d + 1) * groups] for d in range(draws)]


def spread(values: Sequence[float]) -> Tuple[float, float]:
    """The central 95% of values: drop floor(2.5%) of them at each end (1 of 40, none of fewer than 40), keep
    the smallest and largest of the rest."""
    ordered = sorted(values)
    cut = int(len(ordered) * 0.025)
    return ordered[cut], ordered[len(ordered) - 1 - cut]


def spread_cut(groups: int) -> int:
    """How many values spread() drops at each end of `groups` values: floor(2.5%) of them."""
    return int(groups * 0.025)


def inside_chance(groups: int) -> float:
    """The chance that a further group's value falls inside spread() of `groups` values (of one distribution):
    between the (cut + 1)-th smallest and the (cut + 1)-th largest, (groups - 2 cut - 1) / (groups + 1)."""
    return (groups - 2 * spread_cut(groups) - 1) / (groups + 1)


def inside_every_chance(groups: int, draws: int, steps: int = 4000) -> float:
    """The chance that one further group's value falls inside spread() of `groups` values in each of `draws`
    disjoint draws (all of one distribution): the same value is judged against every draw, so the draws are not
    independent of it. At the value's quantile u, one draw holds it when at least cut + 1 of its groups lie below
    u and cut + 1 above; the chance is that probability to the power `draws`, averaged over u (the midpoint rule
    over `steps` quantiles). One draw gives inside_chance.

    >>> round(inside_every_chance(10, 1), 4) == round(inside_chance(10), 4), round(inside_every_chance(10, 4), 3)
    (True, 0.635)
    """
    cut = spread_cut(groups)

    def held(u: float) -> float:
        return sum(math.comb(groups, k) * u ** k * (1 - u) ** (groups - k) for k in range(cut + 1, groups - cut))
    return sum(held((step + 0.5) / steps) ** draws for step in range(steps)) / steps


def count_range_chance(trials: int, chance: float, count: int, groups: int, draws: int) -> float:
    """The chance that spread() of `groups` groups, each counting the successes of `trials` independent tries
    of this `chance`, holds `count`, in each of `draws` disjoint draws: how often a published count would meet
    our range if that law alone made ours (near 1, a match says nothing of the model).

    >>> round(count_range_chance(150, 0.005, 0, 10, 4), 3), round(count_range_chance(150, 0.2, 10, 10, 4), 3)
    (0.993, 0.0)
    """
    cut = spread_cut(groups)
    pmf = [math.comb(trials, k) * chance ** k * (1 - chance) ** (trials - k) for k in range(trials + 1)]
    below, equal = sum(pmf[:count]), pmf[count] if 0 <= count <= trials else 0.0
    above = max(0.0, 1.0 - below - equal)
    held = 0.0
    for lower in range(groups + 1):  # groups below the count, then equal to it, the rest above
        for level in range(groups - lower + 1):
            higher = groups - lower - level
            if lower + level >= cut + 1 and higher + level >= cut + 1:
                held += (math.comb(groups, lower) * math.comb(groups - lower, level)
                         * below ** lower * equal ** level * above ** higher)
    return held ** draws


def normal_spread(values: Sequence[float]) -> Tuple[float, float]:
    """mean ± 1.96 sample standard deviations: a 95% range from a few groups, for sums of many small draws.

    A figure summed over a thousand bugs is close to normal, so a dozen groups place its 95% range about
    as well as forty groups' order statistics, at a third of the run time.
    """
    if len(values) < 2:
        return values[0], values[0]
    mean, deviation = statistics.fmean(values), statistics.stdev(values)
    return mean - 1.96 * deviation, mean + 1.96 * deviation


def verdict(published: float, ours: float, low: Optional[float], high: Optional[float], decimals: int) -> str:
    """exact, inside range or outside range, with nothing rounded but the published figure itself.

    A figure published to `decimals` decimals stands for every number that rounds to it, halves rounding
    up: 15.8 for [15.75, 15.85), 30 for [29.5, 30.5). Ours is exact when it lies in that interval, and
    inside range when our unrounded range [low, high] meets it. A range that misses the interval makes the
    figure outside, ours exact or not: ours is the main seeds' alone, and the range says what other seeds give.
    """
    lower, upper = published_interval(published, decimals)
    if low is not None and high is not None and not range_meets(published, low, high, decimals):
        return OUTSIDE
    if lower <= ours < upper:
        return EXACT
    if low is None or high is None:
        return NO_RANGE
    return INSIDE


def range_meets(published: float, low: float, high: float, decimals: int) -> bool:
    """Whether our unrounded range [low, high] meets the numbers the published figure stands for
    (published_interval): what a match rests on, whether or not ours, over the main seeds, is exact."""
    lower, upper = published_interval(published, decimals)
    return low < upper and high >= lower


def published_interval(published: float, decimals: int) -> Tuple[float, float]:
    """[lower, upper): the numbers a figure published to `decimals` decimals stands for."""
    half = 0.5 * 10.0 ** -decimals
    slack = 1e-9 * max(1.0, abs(published))  # so that 100 * 1359 / 6000 counts as the 22.65 it is
    return published - half - slack, published + half - slack


VERDICT_RULE = ("A figure published to d decimals stands for the numbers that round to it, halves rounding up "
                "(12.3 for 12.25 up to 12.35, 7 for 6.5 up to 7.5): `outside range` when our range, unrounded, "
                "misses it, whatever ours is; otherwise `exact` when ours lies in that interval, `inside range` "
                "when it does not.")


def measure(figures: Figures, main: Dict[str, Any], groups: Sequence[Dict[str, Any]],
            published: Mapping[str, float], decimals_of: Callable[[str], int],
            spread_of: Callable[[Sequence[float]], Tuple[float, float]] = spread) -> Dict[str, Dict[str, Any]]:
    """Per figure: ours, the range over the groups (None without groups) and the values it spans, and the verdict
    where published."""
    rows: Dict[str, Dict[str, Any]] = {}
    for key, compute in figures.items():
        ours, values = compute(main), [compute(g) for g in groups]
        low, high = spread_of(values) if groups else (None, None)
        decimals = decimals_of(key)
        row: Dict[str, Any] = {"ours": ours, "low": low, "high": high, "decimals": decimals, "groups": values}
        if key in published:
            row["published"] = published[key]
            row["verdict"] = verdict(published[key], ours, low, high, decimals)
        rows[key] = row
    return rows


def percent(part: float, whole: float) -> float:
    """part of whole in percent; 0 for an empty whole."""
    return 100.0 * part / whole if whole else 0.0


# ---------------------------------------------------------------------------
# Markdown.


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> List[str]:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]


def number(value: float, decimals: int, unit: str = "") -> str:
    """A figure as the articles print it: halves rounded up, thousands with commas, then the unit.

    >>> number(100 * 1359 / 6000, 1, "%"), number(2426, 0), number(0.5, 0)
    ('22.7%', '2,426', '1')
    """
    rounded = decimal.Decimal(repr(value)).quantize(decimal.Decimal(1).scaleb(-decimals), decimal.ROUND_HALF_UP)
    return f"{rounded:,.{decimals}f}{unit}"


def seeds_text(seeds: Sequence[int]) -> str:
    """1-5, or 1, 3, 8-10."""
    parts, start = [], None
    for i, seed in enumerate(seeds):
        start = seed if start is None else start
        if i + 1 == len(seeds) or seeds[i + 1] != seed + 1:
            parts.append(f"{start}" if start == seed else f"{start}–{seed}")
            start = None
    return ", ".join(parts)
