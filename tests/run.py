"""Run the whole unittest suite and end with one line: N passed, N failed, N skipped.

The test modules are dealt to one worker process per usable core (TEST_JOBS=N sets how many; 1 runs them all in
this process, as `python3 -m unittest` would): each worker takes the next module as it finishes one, so the
suite takes about its time over the cores. A module's tests run in one process, in order, as they always did;
its status characters are printed as the module ends, failures and errors in full after the last module.

Just before the last line, one line per distinct reason a test was skipped, with how many tests it skipped
("skipped 12: needs PostgreSQL (make postgres runs them)"), most first. Exits 1 on any failure or error (errors
count as failed), 0 otherwise.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import osfoundry_tools.minimum_python  # noqa: E402, F401  (before any import that would fail on an older Python)
import dataclasses  # noqa: E402
import io  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402
from typing import AbstractSet, Any, Dict, List, Optional, Sequence, Set, Tuple  # noqa: E402
from unittest.suite import _ErrorHolder  # type: ignore[attr-defined]  # noqa: E402  (private; typeshed omits it)

from lab import seed_pool  # noqa: E402


MODULE_SECONDS = 900  # a module still running this long is taken for hung: counted failed, the run ended


def test_id(test: Any) -> str:
    """A test's ID (a subtest's is its test's); a string is an ID already."""
    return test if isinstance(test, str) else getattr(test, "test_case", test).id()


def test_ids(pairs: list) -> set:
    """The IDs of the tests in (test, reason) pairs; a test with several failing subtests counts once."""
    return {test_id(test) for test, _ in pairs}


def skip_reasons(pairs: list, failed: AbstractSet[str] = frozenset()) -> List[str]:
    """The lines naming why tests were skipped, from (test, reason) pairs: one per distinct reason (its whitespace
    made one line), with how many tests it skipped (a test skipped in several subtests for one reason counts
    once; a test that also failed counts as failed, not here), the most frequent first, then by reason."""
    tests: Dict[str, Set[str]] = {}
    for test, reason in pairs:
        if test_id(test) not in failed:
            tests.setdefault(" ".join(str(reason).split()) or "no reason given", set()).add(test_id(test))
    counted = sorted(tests.items(), key=lambda entry: (-len(entry[1]), entry[0]))
    return [f"skipped {len(ids)}: {reason}" for reason, ids in counted]


@dataclasses.dataclass
class Outcome:
    """What a run of some tests came to, in plain data a worker process can send back."""

    run: int = 0
    problems: List[Tuple[str, str, str]] = dataclasses.field(default_factory=list)  # (kind, test ID, traceback)
    not_run: Set[str] = dataclasses.field(default_factory=set)  # IDs of errors outside a test (setUpClass...)
    skipped: List[Tuple[str, str]] = dataclasses.field(default_factory=list)  # (test ID, reason)
    expected_failures: int = 0
    printed: str = ""  # the status characters, or with VERBOSE=2 a line per test

    @classmethod
    def of(cls, result: unittest.TestResult, printed: str = "") -> "Outcome":
        problems = ([("FAIL", test_id(test), text) for test, text in result.failures]
                    + [("ERROR", test_id(test), text) for test, text in result.errors]
                    + [("UNEXPECTED SUCCESS", test_id(test), "") for test in result.unexpectedSuccesses])
        not_run = {test.id() for test, _ in result.errors if isinstance(test, _ErrorHolder)}
        skipped = [(test_id(test), str(reason)) for test, reason in result.skipped]
        return cls(result.testsRun, problems, not_run, skipped, len(result.expectedFailures), printed)

    def add(self, other: "Outcome") -> None:
        self.run += other.run
        self.problems += other.problems
        self.not_run |= other.not_run
        self.skipped += other.skipped
        self.expected_failures += other.expected_failures


def run_module(name: str) -> Outcome:
    """One test module's tests, run here (in a worker process), their status characters kept to print."""
    suite = unittest.defaultTestLoader.loadTestsFromName(name)
    printed = io.StringIO()
    result = unittest.TextTestRunner(stream=printed, verbosity=verbosity()).run(suite)
    status = printed.getvalue().split("\n" + "=" * 70, 1)[0].split("\n" + "-" * 70, 1)[0].rstrip("\n")
    return Outcome.of(result, status)


def verbosity() -> int:
    return int(os.environ.get("VERBOSE", "1"))


def module_names(suite: unittest.TestSuite) -> Optional[List[str]]:
    """The names of the test modules discovery found, in its order; None if the suite is not one of modules."""
    names = []
    for part in suite:
        tests = list(iterate(part))
        if not tests:
            continue
        module = type(tests[0]).__module__
        if not module.startswith("tests.") or not isinstance(part, unittest.TestSuite):
            return None
        names.append(module)
    return names


def iterate(suite: Any) -> Any:
    """The tests of a suite, however nested."""
    if isinstance(suite, unittest.TestSuite):
        for part in suite:
            yield from iterate(part)
    else:
        yield suite


def run_here(suite: unittest.TestSuite) -> Outcome:
    """Every test in this process, printing as unittest does."""
    result = unittest.TextTestRunner(verbosity=verbosity()).run(suite)
    return Outcome.of(result)


def run_dealt(names: Sequence[str], jobs: int) -> Outcome:
    """Each module in a worker process (lab/seed_pool.py's, not deaf to Ctrl-C), the next one to whichever worker
    is free; status printed as each ends, then every failure and error in full. A worker that dies (a test that
    crashed the interpreter) or a module still running after MODULE_SECONDS (TEST_MODULE_SECONDS; a test that hung)
    counts its module as one failure, and the modules not yet run are not counted."""
    total, started = Outcome(), time.perf_counter()

    def finished(index: int, outcome: Outcome) -> None:
        print(outcome.printed, end="\n" if verbosity() > 1 else "", file=sys.stderr, flush=True)
        total.add(outcome)

    try:
        seed_pool.run_jobs(run_module, names, jobs, finished, name_of=lambda name: name, deaf=False,
                           limit=float(os.environ.get("TEST_MODULE_SECONDS", MODULE_SECONDS)))
    except seed_pool.WorkerDied as died:
        total.problems.append(("ERROR", str(died).split(":")[0], str(died)))
    print(file=sys.stderr)
    for kind, name, text in total.problems:
        print("=" * 70 + f"\n{kind}: {name}\n" + "-" * 70 + f"\n{text}", file=sys.stderr)
    print("-" * 70 + f"\nRan {total.run} tests in {time.perf_counter() - started:.3f}s on {jobs} processes\n",
          file=sys.stderr)
    return total


def main(jobs: Optional[int] = None) -> int:
    """Discover tests/test_*.py, run them, print the closing line, return the exit status."""
    jobs = jobs or int(os.environ.get("TEST_JOBS", "0")) or seed_pool.usable_cores()
    suite = unittest.defaultTestLoader.discover(os.path.join(ROOT, "tests"), top_level_dir=ROOT)
    names = module_names(suite) if jobs > 1 else None
    outcome = run_dealt(names, min(jobs, len(names))) if names else run_here(suite)
    failed = {name for _, name, _ in outcome.problems}
    skipped = {name for name, _ in outcome.skipped} - failed
    passed = outcome.run - len(failed - outcome.not_run) - len(skipped) - outcome.expected_failures
    for line in skip_reasons(outcome.skipped, failed):
        print(line)
    print(f"{passed} passed, {len(failed)} failed, {len(skipped)} skipped")
    return 0 if not failed and outcome.run > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
