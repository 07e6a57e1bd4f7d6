"""sim_reasons.py: why a knowledge-base figure lies outside our range, each cause checked on the run itself.

Layer: below sim_report.py, beside sim_day.py. A cause is a function of the report, the
model, the figure and the reading; it names itself only when its check holds on this
run (the other model or reading does better, the popularity law lies in our range, the
arithmetic of the event log accounts for the gap), and declines otherwise. A figure that
no cause claims is called marginal when it misses by little, and otherwise its note says
plainly that the cause is not known. No published figure is quoted here: the tables
carry them.

Glossary (sim.py has the others):
  cause        (name, text): what a note under a table says, and the name the summary counts it under
  counterpart  the same figure under the other model (or the other reading) of the same run
"""

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import sim_day
from experiments import number

MARGINAL = 0.25  # a miss by at most this share of the range's width is called marginal
UNKNOWN = "not known"
STATED, POPULAR = "stated", "popular"
FALLING_HOURS = (4, 6)  # the published stale share falls between these hours (K2); checked below

Cause = Tuple[str, str]


def row(report: Any, model: str, reading: str, key: str) -> Dict[str, Any]:
    """One figure's row: ours, low, high, decimals, published, verdict."""
    return report.models[model].rows[reading][key]


def shown(report: Any, model: str, reading: str, key: str) -> str:
    """Our value of a figure, at its published precision."""
    r = row(report, model, reading, key)
    return number(r["ours"], r["decimals"])


def closer(report: Any, key: str, reading: str, model: str, other: str, other_reading: str) -> bool:
    """Whether the counterpart (other model or reading) lands nearer the published figure than ours does."""
    mine, theirs = row(report, model, reading, key), row(report, other, other_reading, key)
    return abs(theirs["ours"] - mine["published"]) < abs(mine["ours"] - mine["published"])


# ---------------------------------------------------------------------------
# The causes, in the order they are tried.


def _poll_size(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Polling's KiB: how many events we polled, how large each was, and the saves that wrote none."""
    m, s = report.models[model].main, report.models[model].scenario
    end, checks = m["zipf"]["hours"][-1], len(m["zipf"]["hours"]) * m["seeds"]
    events, eventless = end["events_polled"] / checks, m["zipf"]["eventless_saves"] / checks
    size = end["costs"]["poll"][1] / max(1, end["events_polled"])
    every_save = (events + eventless) * size / 1024
    published = report.published["K3.poll.kib_per_check"]
    implied = published * 1024 / (s.saves / s.hours)
    side = "above" if every_save > published else "below"
    larger = "larger" if size > implied else "smaller"
    return ("event size", f"polling pays per event: ours brought {events:.1f} events per check of about {size:.0f} "
            f"bytes each. {eventless:.1f} of the {s.saves / s.hours:.1f} saves an hour fell on an article already "
            f"unpublished, which writes no event; had each written one, ours would be {every_save:.1f} KiB per "
            f"check, {side} the published figure. That figure works out to about {implied:.0f} bytes per event "
            f"if every save wrote one (derived), so ours are {larger}: an event of ours is "
            "{sequence, type, article_id, updated_at}, in a page with last_sequence and has_more")


def _replays(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Replays: every successful first edit is replayed, so they are 'edits minus rejections'."""
    m = report.models[model].main
    delays = m["edits"]["delays"]
    saved, rejected = sum(d["saved"] for d in delays), sum(d["conflicts"] + d["gone"] for d in delays)
    p = report.published
    published_rejected = sum(p.get(f"K4.d{d}.conflicts", 0) + p.get(f"K4.d{d}.gone", 0) for d in range(len(delays)))
    more = "more" if published_rejected > rejected else "fewer"
    return ("K4 rejections", f"every successful first edit was replayed ({saved} of {saved} here, as in the "
            f"published arithmetic), so the replays are the edits less the rejections; ours had {rejected} "
            f"rejections, the published K4 rows {more} (see the K4 rows above)")


def _popularity_law(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """K4's rejections beside the popularity law for the same delay."""
    match = re.match(r"K4\.d(\d)\.(conflicts|conflicts_pct|retries_saved|rejected_in_ten)$", key)
    if not match:
        return None
    d = int(match.group(1))
    s, m = report.models[model].scenario, report.models[model].main
    seconds = s.delays[d]
    cut, uncut = (100 * sim_day.expected_rejection(s, seconds, ends) for ends in (True, False))
    share = row(report, model, reading, f"K4.d{d}.rejected_pct")
    holds = share["low"] <= cut <= share["high"]
    published = report.published
    published_share = 100 * (published[f"K4.d{d}.conflicts"] + published[f"K4.d{d}.gone"]) / (
        published["K4.edits"] / len(s.delays))
    above = "above even the law without a day's end" if published_share > uncut else "below the law"
    ranking = m["zipf"]["ranking"]
    first = 100 * ranking["first"] / max(1, ranking["seconds"])
    law = (f"our range of rejected edits at {_delay(seconds)} ({share['low']:.1f}%–{share['high']:.1f}%) holds"
           if holds else f"our range at {_delay(seconds)} misses")
    return ("popularity law", f"an edit goes to the first citation, the question's own article in {first:.0f}% of "
            f"answers, so its rejections follow the popularity law: {cut:.1f}% of such edits meet a save within "
            f"the delay in a day that ends at hour {s.hours} ({uncut:.1f}% if saves went on), and {law} it. The "
            f"published share lies {above}: what made the original's edits meet more saves than popularity "
            "brings is not known")


def _uniform_saves(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """The control run per citation: uniform saves make every citation stale with the same probability."""
    if reading != "citation" or key not in ("control.stale", "control.stale_pct"):
        return None
    s = report.models[model].scenario
    model_share = 100 * sim_day.expected_uniform_stale(s)
    end = report.models[model].main["uniform"]["hours"][-1]
    ours = 100 * end["stale"] / max(1, end["citations"])
    return ("uniform control", f"with saves spread uniformly, every article is saved {s.saves / s.articles:g} "
            f"times a day whatever its popularity, so a citation made at a uniform time is stale at the day's end "
            f"with probability {model_share:.1f}% whichever article it cites (ours {ours:.1f}%). Counted per "
            "citation, no way of choosing citations moves that share; counted per distinct version it can fall "
            "(see 'The reading')")


def _reading(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """A per-citation figure whose distinct-version counterpart lands nearer the published one."""
    if reading != "citation" or not closer(report, key, reading, model, model, "distinct"):
        return None
    return ("reading", "counted per distinct version (the table above), ours lands nearer the published figure: "
            "counted per citation, every answer citing a stale version counts it again, a reading under which "
            "the published table contradicts itself (see 'The reading')")


def _concentration(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """The day as stated, where popular search (concentrated citations) lands nearer the published figure."""
    if model != STATED or POPULAR not in report.models or not closer(report, key, reading, model, POPULAR, reading):
        return None
    per_check = row(report, model, reading, "K3.reread.calls_per_check")
    if per_check["ours"] <= per_check["published"]:
        return None
    return ("concentration", f"our citations spread wider than the original's: a check re-reads "
            f"{per_check['ours']:.1f} distinct articles, more than the published figure, which lies between the "
            "questions' own articles alone and independent draws (see 'Why two models'); popular search, which "
            "concentrates the second citations on popular articles, lands nearer the published figure (its "
            "columns)")


def _hour_six(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Hour 6: the published stale share falls from hour 4; how often does ours?"""
    if not re.match(r"K2\.h6\.(stale|stale_pct|answers_pct|title)$", key) or \
            report.published["K2.h6.stale_pct"] >= report.published["K2.h4.stale_pct"]:
        return None
    stale = "stale" if reading == "citation" else "stale_distinct"
    early, late = FALLING_HOURS
    share = lambda t, h: t["zipf"]["hours"][h - 1][stale] / max(1, t["zipf"]["hours"][h - 1]["citations"])  # noqa
    groups = report.models[model].groups
    fell = sum(share(g, late) < share(g, early) for g in groups)
    if not fell:
        return None
    main = report.models[model].main
    return ("hour 6", f"the published stale share falls from hour {early} to hour {late}; ours goes from "
            f"{100 * share(main, early):.1f}% to {100 * share(main, late):.1f}%, but fell too in {fell} of our "
            f"{len(groups)} groups of five seeds: a low hour {late} happens in our model, and the original's may "
            "be one")


def _calibrated(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """A KiB figure whose size per call is calibrated: it repeats its calls' verdict."""
    if key not in report.calibrated:
        return None
    calls = key.replace("kib", "calls")
    r = row(report, model, reading, calls)
    why = reason(report, model, calls, reading)[1] if r.get("verdict") == "outside range" else r.get("verdict")
    return ("calibrated", f"a result's size is calibrated to the published KiB per call, so this follows the "
            f"calls ({why})")


CAUSES: List[Tuple[str, Callable[[Any, str, str, str], Optional[Cause]]]] = [
    (r"^K3\.poll\.kib", _poll_size),
    (r"^K4\.replays$", _replays),
    (r"^K4\.", _popularity_law),
    (r"^control\.stale", _uniform_saves),
    (r"kib", _calibrated),
    (r"", _reading),
    (r"", _concentration),
    (r"^K2\.h6\.", _hour_six),
]


def reason(report: Any, model: str, key: str, reading: str) -> Cause:
    """Why a figure lies outside our range: the first cause whose check holds, else marginal, else not known."""
    for pattern, cause in CAUSES:
        if re.search(pattern, key):
            found = cause(report, model, key, reading)
            if found:
                return found
    return marginal(report, model, key, reading) or not_known(report, model, key, reading)


def marginal(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """For a near miss: how near, and how many of our ranged figures chance alone would put outside."""
    r = row(report, model, reading, key)
    width = r["high"] - r["low"]
    half = 0.5 * 10 ** -r["decimals"]
    miss = (r["low"] - (r["published"] + half)) if r["published"] < r["low"] else (r["published"] - half - r["high"])
    if width <= 0 or miss > MARGINAL * width:
        return None
    ranged = sum(1 for x in report.models[model].rows[reading].values() if "verdict" in x and x["low"] is not None)
    groups = len(report.models[model].groups)
    chance = 2 / (groups + 1)  # a further group's chance of falling outside the smallest and largest of `groups`
    return ("marginal", f"marginal: {number(miss, r['decimals'])} outside a range {number(width, r['decimals'])} "
            f"wide; a further group of our own seeds falls outside such a range {100 * chance:.0f}% of the time, "
            f"so chance alone puts about {ranged * chance:.0f} of our {ranged} ranged figures outside")


def not_known(report: Any, model: str, key: str, reading: str) -> Cause:
    """No checked cause: say so, with where ours lies."""
    r = row(report, model, reading, key)
    side = "below" if r["ours"] < r["published"] else "above"
    return (UNKNOWN, f"cause not known: ours lies {side} the published figure and no cause this page checks "
            "applies")


def causes_by_name(report: Any, model: str, reading: str) -> Dict[str, List[str]]:
    """The figures outside range under one model and reading, grouped by the name of their cause."""
    grouped: Dict[str, List[str]] = {}
    for key, r in report.models[model].rows[reading].items():
        if r.get("verdict") == "outside range" and key not in report.calibrated:
            grouped.setdefault(reason(report, model, key, reading)[0], []).append(key)
    return grouped


def _delay(seconds: int) -> str:
    """20 s, 15 min, 1 h."""
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"


def delay_words(delays: Sequence[int]) -> str:
    """The K4 delays in words."""
    return ", ".join(_delay(d) for d in delays)
