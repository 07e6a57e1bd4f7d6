"""The knowledge-base figures' formulas: how each figure is computed from the summed counts of a group of seeds.

Layer: above day.py (whose counts the formulas read: one seed's dict, summed over a group by
experiments.total_of, with the group's seeds, questions and saves added by rerun.py) and scenario.py
(the published hours); below rerun.py, which measures every formula over the main seeds and the range
groups. A formula is a function of the summed counts `t`; "distinct" and "citation" are the two
readings of the published stale column (sim.py's glossary).
"""

from typing import Dict, List, Tuple

from lab.experiments import Figures, percent
from lab.knowledge_base.day import STRATEGIES, Scenario
from lab.knowledge_base.scenario import PUBLISHED_HOURS


def _stale_keys(reading: str) -> Tuple[str, str]:
    """The counts of stale citations and of title-only finds under one reading."""
    return ("stale", "title_found") if reading == "citation" else ("stale_distinct", "title_found_distinct")


def k2_figures(hour: int, reading: str) -> Figures:
    """K2 at one hour under one reading: 'citation' counts stale citations, 'distinct' distinct ones."""
    stale, title = _stale_keys(reading)
    at = lambda t: t["zipf"]["hours"][hour - 1]  # noqa: E731
    return {
        f"K2.h{hour}.citations": lambda t: at(t)["citations"],
        f"K2.h{hour}.stale": lambda t: at(t)[stale],
        f"K2.h{hour}.stale_pct": lambda t: percent(at(t)[stale], at(t)["citations"]),
        f"K2.h{hour}.answers_pct": lambda t: percent(at(t)["answers_stale"], at(t)["answers"]),
        f"K2.h{hour}.title": lambda t: at(t)[title],
    }


def end_of_day_figures(reading: str) -> Figures:
    """The article's prose on the end of the day, in its own units: stale citations in thirds, answers in fifths."""
    stale = _stale_keys(reading)[0]
    end = lambda t: t["zipf"]["hours"][-1]  # noqa: E731
    return {
        "K2.end.stale_thirds": lambda t: 3 * end(t)[stale] / max(1, end(t)["citations"]),
        "K2.end.answers_fifths": lambda t: 5 * end(t)["answers_stale"] / max(1, end(t)["answers"]),
    }


def control_figures(reading: str) -> Figures:
    """The control run at the end of the day, and what the title-only check found, under one reading."""
    stale, title = _stale_keys(reading)
    end = lambda t, run: t[run]["hours"][-1]  # noqa: E731
    return {
        "control.stale": lambda t: end(t, "uniform")[stale],
        "control.stale_pct": lambda t: percent(end(t, "uniform")[stale], end(t, "uniform")["citations"]),
        "control.answers": lambda t: end(t, "uniform")["answers_stale"],
        "control.answers_pct": lambda t: percent(end(t, "uniform")["answers_stale"], end(t, "uniform")["answers"]),
        "title.share_pct": lambda t: percent(end(t, "zipf")[title], end(t, "zipf")[stale]),
        "title.renamed_or_gone_pct": lambda t: percent(end(t, "zipf")["title_renamed_or_gone"],
                                                       end(t, "zipf")["title_found"]),
    }


def k3_figures(strategy: str, reading: str) -> Figures:
    """Calls and KiB of one checking strategy over the day, in all and per check, and what it found."""
    calls = lambda t: t["zipf"]["hours"][-1]["costs"][strategy][0]  # noqa: E731
    kib = lambda t: t["zipf"]["hours"][-1]["costs"][strategy][1] / 1024  # noqa: E731
    checks = lambda t: len(t["zipf"]["hours"]) * t["seeds"]  # noqa: E731
    figures = {
        f"K3.{strategy}.calls": calls,
        f"K3.{strategy}.kib": kib,
        f"K3.{strategy}.calls_per_check": lambda t: calls(t) / checks(t),
        f"K3.{strategy}.kib_per_check": lambda t: kib(t) / checks(t),
    }
    if strategy != "title":  # the run stops unless both ID-based checks find exactly the ground truth
        stale = _stale_keys(reading)[0]
        figures[f"K3.{strategy}.found"] = lambda t: t["zipf"]["hours"][-1][stale]
    return figures


def k4_figures(delay: int) -> Figures:
    """The edits of one delay: rejections by cause and the retries after a re-read."""
    d = lambda t: t["edits"]["delays"][delay]  # noqa: E731
    return {
        f"K4.d{delay}.edits": lambda t: d(t)["edits"],
        f"K4.d{delay}.conflicts": lambda t: d(t)["conflicts"],
        f"K4.d{delay}.conflicts_pct": lambda t: percent(d(t)["conflicts"], d(t)["edits"]),
        f"K4.d{delay}.gone": lambda t: d(t)["gone"],
        f"K4.d{delay}.rejected_pct": lambda t: percent(d(t)["conflicts"] + d(t)["gone"], d(t)["edits"]),
        f"K4.d{delay}.rejected_in_ten": lambda t: 10 * (d(t)["conflicts"] + d(t)["gone"]) / max(1, d(t)["edits"]),
        f"K4.d{delay}.person_rejected_pct": lambda t: percent(
            d(t)["conflicts"] - d(t)["conflicts_agent_only"] + d(t)["gone"], d(t)["edits"]),
        f"K4.d{delay}.retries_saved": lambda t: d(t)["retries_saved"],
        f"K4.d{delay}.conflicts_agent_only": lambda t: d(t)["conflicts_agent_only"],
    }


def k4_totals() -> Figures:
    """K4 over every delay: edits, saves, replays and what the replays wrote."""
    total = lambda t, name: sum(d[name] for d in t["edits"]["delays"])  # noqa: E731
    return {
        "K4.edits": lambda t: total(t, "edits"),
        "K4.saved": lambda t: total(t, "saved"),
        "K4.gone": lambda t: total(t, "gone"),
        "K4.replays": lambda t: total(t, "replays"),
        "K4.replays_as_first_pct": lambda t: percent(total(t, "replays"), total(t, "saved")),
        "K4.retries_saved_pct": lambda t: percent(total(t, "retries_saved"), total(t, "conflicts")),
        "K4.replay_new_events": lambda t: total(t, "replay_new_events"),
    }


def published_hours(scenario: Scenario) -> List[int]:
    """The hours of the published K2 table that the day lasts into."""
    return [h for h in PUBLISHED_HOURS if h <= scenario.hours]


def all_figures(scenario: Scenario) -> Dict[str, Figures]:
    """Every figure the scenario's replicas measure, per reading ('citation' and 'distinct' differ only in K2, the
    control and the title-only check)."""
    hours = published_hours(scenario)
    figures = {}
    for reading in ("distinct", "citation"):
        table: Figures = {
            "top10.questions": lambda t: percent(t["questions_top10"], t["questions"]),
            "top10.saves": lambda t: percent(t["saves_top10"], t["saves"]),
        }
        if {"zipf", "uniform"} <= set(scenario.replicas):
            for hour in hours:
                table.update(k2_figures(hour, reading))
            table.update(end_of_day_figures(reading))
            table.update(control_figures(reading))
            for strategy in STRATEGIES:
                table.update(k3_figures(strategy, reading))
        if "edits" in scenario.replicas:
            for delay in range(len(scenario.delays)):
                table.update(k4_figures(delay))
            table.update(k4_totals())
        figures[reading] = table
    return figures
