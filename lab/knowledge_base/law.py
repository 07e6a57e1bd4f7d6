"""What the popularity law alone predicts of the knowledge-base day: the yardsticks the report measures against.

Layer: above day.py (whose scenario, popularity and clock units it reads), below
measured.py and reasons.py. Nothing here runs a day or touches a store: each
function is the expectation, under Zipf popularity and uniform times, of something a
day counts, so that "Where and why we differ" can say whether ours follow the law.

Glossary (day.py has the others):
  law      the assumption that every question, citation and save is an independent popularity draw,
           at a uniform time of the day
"""

import functools
import math
from typing import Tuple

from lab.knowledge_base.day import HOUR, MINUTE, TOP, Scenario, popularity
from osfoundry_tools.content.workload import zipf_weights

LAW_STEPS = 8 * HOUR // MINUTE  # answer times the popularity law averages over: one a minute of an 8-hour day


def top_share(n: int, s: float, top: int = TOP) -> float:
    """The analytic share of the `top` most popular of n articles under Zipf(s)."""
    weights = zipf_weights(n, s)
    return sum(weights[:top]) / sum(weights)


def expected_cited_per_check(scenario: Scenario, citations_per_answer: int) -> float:
    """Distinct articles cited by the end of an hour, averaged over the hourly checks, if each answer's
    citations were independent popularity draws (1: the targets alone; day.CITED: every citation)."""
    shares = popularity(scenario)
    per_check = []
    for hour in range(1, scenario.hours + 1):
        draws = citations_per_answer * scenario.questions * hour / scenario.hours
        per_check.append(sum(1 - (1 - p) ** draws for p in shares))
    return sum(per_check) / len(per_check)


def expected_uniform_stale(scenario: Scenario) -> float:
    """Share of citations stale at the day's end when saves fall uniformly on the articles: a citation made at
    a uniform time sees the rest of the day's saves, Poisson with mean saves/articles per day."""
    mean = scenario.saves / scenario.articles
    return 1 - (1 - math.exp(-mean)) / mean if mean else 0.0


def expected_rejection(scenario: Scenario, delay: int, day_ends: bool, kinds: float = 1.0) -> float:
    """Share of delayed edits whose article a person saved (or unpublished) within the delay, when the article
    and every save are popularity draws and answers come at uniform times; with `day_ends`, no save comes
    after the last hour, as in our day. The answer times are LAW_STEPS midpoints of the day. `kinds`: the share
    of the saves that count (the unpublishes alone: the save mix's last share)."""
    day = scenario.hours * HOUR
    total = 0.0
    for step in range(LAW_STEPS):
        asked = (step + 0.5) * day / LAW_STEPS
        total += share_saved_within(scenario, min(delay, day - asked) if day_ends else delay, kinds)
    return total / LAW_STEPS


def rejection_kinds(scenario: Scenario, delay: int, day_ends: bool) -> Tuple[float, float]:
    """The chances that a delayed edit is rejected as "version changed" and as "unpublished" under the law: an
    unpublish within the delay makes it unpublished; a save that changes it, with no unpublish, version changed
    (each the share of saves of its kind, independent Poisson draws)."""
    unpublished = expected_rejection(scenario, delay, day_ends, scenario.save_mix[-1])
    return expected_rejection(scenario, delay, day_ends) - unpublished, unpublished


@functools.lru_cache(maxsize=4096)
def share_saved_within(scenario: Scenario, window: float, kinds: float = 1.0) -> float:
    """Share of edits whose article a person saved within `window` seconds, saves being popularity draws at a
    uniform rate (`kinds` of them counted). Kept per scenario and window: the report asks for the same windows
    from every delay (the times left in the day are the same answer times), and its notes ask again."""
    shares, rate = popularity(scenario), kinds * scenario.saves / (scenario.hours * HOUR)  # rate: saves per second
    return sum(p * (1 - math.exp(-rate * p * window)) for p in shares)
