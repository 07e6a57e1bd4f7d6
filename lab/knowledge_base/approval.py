"""What approval costs: the day's K4 edits put to a person before they are written (ours; nothing is published).

Layer: beside day.py, whose day and agent it replays on kb_store.py; rerun.py runs it on the main seeds and
report.py writes its table under K4. It reconstructs no published figure. It asks what the server's
--approve-writes would cost on the day whose delayed edits K4 measures.

With --approve-writes, every agent edit is put to a person before it is written. Here an edit arrives when K4's
does (its answer's time plus the answer's K4 delay), with its citation's updated_at as expected_version. With the
check, the server first previews the call (AgentTools.preview, which writes nothing) and, when the version is
already stale or the article unpublished, answers that rejection at once and asks nobody. Otherwise the person
is asked, approves (every change: the person here never refuses one) after the edit's approval delay, and the
edit runs then, its compare-and-swap checked at commit, so a save in between wastes the approval. A rejected
edit is not retried: a retry would be a new approval.

Both ways run in one replica of the day per approval delay. A rejected call writes nothing, and a version once
replaced never comes back (nobody publishes an article again in the day), so the edits the check answers at once
are the ones that, asked anyway, are approved and then rejected at commit: the store goes through the same writes
either way. The replica makes the commit call of such an edit for the way without the check alone, and counts
how many of them were rejected (all, if the reasoning holds).

Glossary (day.py has plan, replica, citation):
  arrival         an agent edit reaching the server, at its K4 time
  approval delay  from an arrival to the person's approval: a nominal delay times the edit's factor, a lognormal
                  draw of median 1, the same factor for every nominal delay (a slow approval stays slow)
  check           "stale before asking": the server's preview of the call at its arrival
  way             with the check or without it
  answered        rejected by the check at the arrival; nobody was asked
  asked           put to the person
  wasted          approved, then rejected at commit: the version changed, or the article was unpublished
  saved           written at commit
"""

import dataclasses
import functools
import random
from typing import Any, Dict, List, Sequence, Tuple

from osfoundry_tools.stores import kb_store
from lab.knowledge_base.day import (
    EDIT, EDIT_TOOL, QUESTION, SECOND, Day, Plan, Published, Question, Scenario, draw_plan, edit_arguments,
)

WITHOUT, WITH = WAYS = ("without", "with")  # the stale-before-asking check
OUTCOMES = ("answered", "asked", "wasted", "saved")
REJECTIONS = ("version_conflict", "not_found")  # a stale version, an unpublished article: all an edit here meets


@dataclasses.dataclass(frozen=True)
class Approval:
    """How long a person takes to approve: the nominal delays (one replica each) and the spread around them."""

    delays: Tuple[int, ...]  # seconds: the median approval delay of each replica
    sigma: float  # the standard deviation of the natural logarithm of an approval delay


def approval_factors(seed: int, edits: int, sigma: float) -> List[float]:
    """Each edit's approval delay over the nominal one (median 1), from a generator of their own seeded from the
    seed, so that nothing the day draws changes."""
    rng = random.Random(f"approvals of seed {seed}")
    return [rng.lognormvariate(0.0, sigma) for _ in range(edits)]


def no_counts() -> Dict[str, Any]:
    """The counts of one replica before it runs: edits, each way's outcomes, and the answered edits that the way
    without the check had approved and then saw rejected."""
    return {"edits": 0, "answered_then_wasted": 0, **{way: dict.fromkeys(OUTCOMES, 0) for way in WAYS}}


def stale_before_asking(store: kb_store.KnowledgeBaseStore, arguments: Dict[str, Any]) -> bool:
    """The check at an edit's arrival: whether the store's preview of the call (nothing written) is a rejection."""
    answer = store.preview(EDIT_TOOL, arguments).answer
    assert answer.get("error", REJECTIONS[0]) in REJECTIONS, answer
    return "error" in answer


def run_approval_day(plan: Plan, scenario: Scenario, published: Published, nominal: int,
                     factors: Sequence[float]) -> Dict[str, Any]:
    """The edits replica with approval: each K4 edit checked at its arrival and, approved `nominal` seconds times
    its factor later, sent to the store then."""
    day = Day(plan, scenario, "zipf", published, late=True)
    counts = no_counts()

    def ask(number: int, question: Question) -> None:
        cited = day.ask(question)[0]
        arguments = edit_arguments(cited, f"{cited.content} {question.addition}", cited.updated_at,
                                           f"approval-{number}")
        arrival = question.time + scenario.delays[number % len(scenario.delays)] * SECOND
        day.loop.at(arrival, EDIT, functools.partial(arrive, number, arguments))

    def arrive(number: int, arguments: Dict[str, Any]) -> None:
        answered = stale_before_asking(day.store, arguments)
        counts["edits"] += 1
        counts[WITHOUT]["asked"] += 1
        counts[WITH]["answered" if answered else "asked"] += 1
        approved = day.clock.time + round(nominal * factors[number] * SECOND)
        day.loop.at(approved, EDIT, functools.partial(commit, arguments, answered))

    def commit(arguments: Dict[str, Any], answered: bool) -> None:
        answer = day.agent.call(EDIT_TOOL, arguments)
        assert answer.get("error", REJECTIONS[0]) in REJECTIONS, answer
        outcome = "wasted" if "error" in answer else "saved"
        for way in (WITHOUT,) if answered else WAYS:
            counts[way][outcome] += 1
        counts["answered_then_wasted"] += answered and outcome == "wasted"

    for number, question in enumerate(plan.questions):
        day.loop.at(question.time, QUESTION, functools.partial(ask, number, question))
    day.loop.run()
    return counts


def run_seed(seed: int, scenario: Scenario, approval: Approval) -> Dict[str, Any]:
    """One seed's day replayed once per nominal approval delay, on the plan and the store K4's replica starts from."""
    plan = draw_plan(seed, scenario)
    factors = approval_factors(seed, len(plan.questions), approval.sigma)
    published = Published(plan, scenario)
    return {"approvals": [run_approval_day(plan, scenario, published, nominal, factors)
                          for nominal in approval.delays]}
