"""Why a knowledge-base figure lies outside our range, each cause checked on the run itself.

Layer: below report.py, on measured.py (the report, and what follows from its counts), law.py
and figures.py (which tries the causes in order and says what a marginal miss is, for both
experiments). A cause is a function of the
report, the model, the figure and the reading; it names itself only when its check holds
on this run (the other model or reading does better, the popularity law lies in our range,
the arithmetic of the event log accounts for the gap), and declines otherwise. A figure
that no cause claims is called marginal when it misses by little, and otherwise its note
says plainly that the cause is not known. No published figure is quoted here: the tables
carry them.

Glossary (sim.py has the others):
  cause        (name, text): what a note under a table says, and the name the summary counts it under
  counterpart  the same figure under the other model (or the other reading) of the same run
"""

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from lab import evidence, figures
from lab.experiments import inside_every_chance, number
from lab.knowledge_base import day, law, measured
from lab.knowledge_base.measured import POPULAR, STATED, row

UNKNOWN = "not known"
FALLING_HOURS = (4, 6)  # the published stale share falls between these hours (K2); checked below

Cause = Tuple[str, str]


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
    """Polling's KiB is events times their size: which of the two puts ours on its side of the published figure."""
    m, s = report.models[model].main, report.models[model].scenario
    end, checks = m["zipf"]["hours"][-1], len(m["zipf"]["hours"]) * m["seeds"]
    events, unpublished = end["events_polled"] / checks, m["zipf"]["saves_of_unpublished"] / checks
    size = end["costs"]["poll"][1] / max(1, end["events_polled"])
    ours, without = events * size / 1024, (events - unpublished) * size / 1024
    published = report.published["K3.poll.kib_per_check"]
    implied = published * 1024 / (s.saves / s.hours)
    facts = (f"ours brought {events:.1f} events per check of about {size:.0f} bytes each, {unpublished:.1f} of them "
             "from saves of articles already unpublished, which write an event as the article says every save "
             f"does; before our store wrote those, ours was {without:.1f} KiB per check, "
             f"{'below' if without < published else 'above'} the figure, and now it is {ours:.1f}")
    if ours > published and size > implied:
        return ("event size", f"polling pays per event, and ours lies above the published figure because an event "
                f"of ours is larger than the about {implied:.0f} bytes the published figure works out to if every "
                f"save wrote one (derived): {facts}. An event of ours is {{sequence, type, article_id, updated_at}} "
                "in a page with last_sequence and has_more, and the article never shows how it wrote one")
    if ours < published:
        return ("event size", f"polling pays per event, and ours lies below the published figure: {facts}")
    return None


def _replays(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Replays are the edits less the rejections when every successful first edit is replayed: then they move
    with the rejections, and the cause is theirs."""
    total = measured.k4_totals(report, model)
    saved, replays, rejected = total["saved"], total["replays"], total["conflicts"] + total["gone"]
    p = report.published
    delays = len(report.models[model].scenario.delays)
    published_rejected = sum(p.get(f"K4.d{d}.conflicts", 0) + p.get(f"K4.d{d}.gone", 0) for d in range(delays))
    if replays != saved or published_rejected == rejected:
        return None
    more = "more" if published_rejected > rejected else "fewer"
    return ("K4 rejections", f"every successful first edit was replayed ({replays} of {saved} here, as in the "
            f"published arithmetic), so the replays are the edits less the rejections; ours had {rejected} "
            f"rejections, the published K4 rows {more} (see the K4 rows above)")


def _popularity_law(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """K4's rejections beside the popularity law, counting our edits that met a person's save: where their range
    holds the law, ours are explained and the published figure's distance from the law is what is not known; where
    it does not, the note says on which side of the law ours fall and that nothing checked accounts for it."""
    match = re.match(r"K4\.d(\d)\.(conflicts|conflicts_pct|retries_saved|rejected_in_ten)$", key)
    if not match:
        return None
    d = int(match.group(1))
    s, m = report.models[model].scenario, report.models[model].main
    seconds = s.delays[d]
    cut, uncut = measured.law_rejection(s, seconds)
    people = row(report, model, reading, f"K4.d{d}.person_rejected_pct")
    if people["low"] is None:
        return None
    if not people["low"] <= cut <= people["high"]:
        side = "short of" if people["high"] < cut else "above"
        return (UNKNOWN, f"cause not known: our range of edits at {_delay(seconds)} that met a person's save or "
                f"unpublish ({people['low']:.1f}%–{people['high']:.1f}%) falls {side} the popularity law's "
                f"{cut:.1f}% for a day that ends at hour {s.hours}, so neither the law nor anything else this page "
                "checks accounts for ours here (see the table 'K4 against the popularity law')")
    published_share = measured.published_rejected(report.published, d, len(s.delays))
    if published_share is None:  # a delay the article has no row for: no verdict, so never outside
        return None
    where = "above even the law without a day's end" if published_share > uncut else (
        "above the law" if published_share > cut else "below the law")
    ranking = m["zipf"]["ranking"]
    first = 100 * ranking["first"] / max(1, ranking["seconds"])
    return (UNKNOWN, f"cause not known, though ours follow the popularity law: an edit goes to the first citation, "
            f"the question's own article in {first:.0f}% of answers, and our range of edits at {_delay(seconds)} "
            f"that met a person's save or unpublish ({people['low']:.1f}%–{people['high']:.1f}%) holds the law's "
            f"{cut:.1f}% for a day that ends at hour {s.hours} ({uncut:.1f}% if saves went on). The published "
            f"share of rejected edits (derived in the table 'K4 against the popularity law') lies {where}: what "
            f"made the original's edits meet {'more' if published_share > cut else 'fewer'} saves than popularity "
            "brings is not known" + ("; the readings of the article's words that might are run on the sensitivity "
                                     "page" if published_share > uncut else ""))


def _uniform_saves(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """The control run per citation: uniform saves make every citation stale with the same probability."""
    if reading != "citation" or key not in ("control.stale", "control.stale_pct"):
        return None
    s = report.models[model].scenario
    model_share = 100 * law.expected_uniform_stale(s)
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
            f"{per_check['ours']:.1f} distinct articles, more than the published figure, which "
            f"{spread_bounds_words(report, model)} (see 'Why two models'); popular search, which concentrates the "
            "second citations on popular articles, lands nearer the published figure (its columns)")


def spread_bounds(report: Any, model: str) -> Tuple[float, float]:
    """Distinct articles a check would re-read if only the questions' own articles were cited, and if both
    citations of every answer were independent popularity draws (law.py)."""
    s = report.models[model].scenario
    return law.expected_cited_per_check(s, 1), law.expected_cited_per_check(s, day.CITED)


def spread_bounds_words(report: Any, model: str) -> str:
    """Where the published re-reads per check lie against the two bounds of spread_bounds."""
    targets, both = spread_bounds(report, model)
    published = report.published["K3.reread.calls_per_check"]
    if targets <= published <= both:
        return "lies between the questions' own articles alone and independent draws"
    return (f"lies {'below' if published < targets else 'above'} both the questions' own articles alone and "
            "independent draws")


HOUR_SHARES = {  # the K2 figures that are shares, as a function of one hour's counts under a reading's stale key
    "stale_pct": lambda hour, stale: hour[stale] / max(1, hour["citations"]),
    "answers_pct": lambda hour, stale: hour["answers_stale"] / max(1, hour["answers"]),
}


def _hour_six(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """A share the published table has falling from hour 4 to hour 6: how often does the same share of ours?"""
    match = re.match(r"K2\.h6\.(stale_pct|answers_pct)$", key)
    early, late = FALLING_HOURS
    figure = match and match.group(1)
    if not figure or report.published[f"K2.h{late}.{figure}"] >= report.published[f"K2.h{early}.{figure}"]:
        return None
    stale = "stale" if reading == "citation" else "stale_distinct"
    share = lambda totals, h: HOUR_SHARES[figure](totals["zipf"]["hours"][h - 1], stale)  # noqa: E731
    groups = report.models[model].groups
    fell = sum(share(g, late) < share(g, early) for g in groups)
    if not fell:
        return None
    main = report.models[model].main
    return ("hour 6", f"this share falls from hour {early} to hour {late} in the published table; ours goes from "
            f"{100 * share(main, early):.1f}% to {100 * share(main, late):.1f}%, and fell in {fell} of our "
            f"{len(groups)} groups of five seeds: a low hour {late} happens in our model, and the original's may "
            "be one")


def _calibrated(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """A KiB figure whose size per call was chosen with the published one in view: ours against the published,
    as the product of the calls and the size per call, each set against the published."""
    if key not in report.calibrated:
        return None
    calls_key = key.replace("kib", "calls")
    kib, calls = row(report, model, reading, key), row(report, model, reading, calls_key)
    size, published_size = kib["ours"] / calls["ours"], kib["published"] / calls["published"]
    times_calls = _times(calls["ours"], calls["published"])
    return ("calibrated", f"calibrated size, left out of the tallies: ours are {times_calls} "
            f"the published calls ({calls.get('verdict', 'no verdict')}) times {_times(size, published_size)} the "
            f"published KiB per call ({size:.2f} KiB against {published_size:.2f}, derived); what sets the size per "
            "call is under the table ('What one call weighs')")


def _times(ours: float, published: float) -> str:
    """'1.05×' or '0.93×': ours as a multiple of the published figure."""
    return f"{ours / published:.2f}×"


def _residual_spread(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Popular search still re-reading more articles per check than the original: what re-checking costs follows."""
    if model != POPULAR or not re.match(r"K3\.(reread|title)\.(calls|kib)", key):
        return None
    per_check = row(report, model, reading, "K3.reread.calls_per_check")
    r = row(report, model, reading, key)
    if per_check["ours"] <= per_check["published"] or r["ours"] <= r["published"]:
        return None
    return ("residual spread", f"popular search still spreads our citations wider than the original's: a check "
            f"re-reads {per_check['ours']:.1f} distinct articles, more than the published figure, and re-searching "
            "costs one call per distinct cited title, re-reading one per distinct cited article")


def _construction(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """A check of how the run is built that does not hold: this run is not built as the article's."""
    if key not in report.basis.checks:
        return None
    return ("construction", f"a check of how the run is built ({report.basis.checks[key]}) that does not hold: "
            "this run's settings differ from the article's")


def _main_seeds_alone(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """Ours exact over the main seeds, while the range of some draw misses: no match (figures.main_seeds_alone)."""
    text = figures.main_seeds_alone(*figures.missing_draw(report.models[model].draw_rows(reading), key))
    return ("main seeds alone", text) if text else None


CAUSES: List[Tuple[str, Callable[[Any, str, str, str], Optional[Cause]]]] = [
    (r"", _construction),
    (r"", _main_seeds_alone),
    (r"^K3\.poll\.kib", _poll_size),
    (r"^K4\.replays$", _replays),
    (r"^K4\.", _popularity_law),
    (r"^control\.stale", _uniform_saves),
    (r"kib", _calibrated),
    (r"^K3\.", _residual_spread),
    (r"", _reading),
    (r"^(K2|K3|control|title)\.", _concentration),  # what the second citations' spread can move; not K4's edits
    (r"^K2\.h6\.", _hour_six),
]


def reason(report: Any, model: str, key: str, reading: str) -> Cause:
    """Why a figure lies outside our range: the first cause whose check holds, else marginal, else not known."""
    return figures.reason(CAUSES, key, (report, model, key, reading),
                          lambda: marginal(report, model, key, reading) or not_known(report, model, key, reading))


def marginal(report: Any, model: str, key: str, reading: str) -> Optional[Cause]:
    """For a near miss: how near, and how many of our measured ranged figures chance alone would put outside, by
    the rule the tallies count with (outside when the range of any draw misses)."""
    draw_rows = report.models[model].draw_rows(reading)
    draw, missed = figures.missing_draw(draw_rows, key)
    near = figures.marginal(missed)
    if not near:
        return None
    ranged = independent_ranged(report, model, reading)
    groups, draws = len(report.models[model].groups), len(draw_rows)
    chance = 1 - inside_every_chance(groups, draws)  # one further group outside the range of any draw
    where = "such a range" if draws == 1 else f"the range of at least one of our {draws} draws"
    return ("marginal", f"{figures.draw_words(draw)}{near}; a further group of our own seeds falls outside {where} "
            f"{100 * chance:.0f}% of the time, so chance alone puts about {ranged * chance:.0f} of our {ranged} "
            "measured ranged figures outside")


def independent_ranged(report: Any, model: str, reading: str) -> int:
    """Measured, tallied figures (neither checks nor fixed by the inputs) whose range has some width: each counted
    once, however many rows restate it (evidence.py)."""
    basis = report.basis.read_as(reading)
    return sum(1 for a in report.assessed(model, reading).values()
               if basis.kind(a.key) == evidence.KINDS[2] and a.width is not None and a.width > 0)


def not_known(report: Any, model: str, key: str, reading: str) -> Cause:
    """No checked cause: say so, with where our range lies (the verdict's side), and ours where it differs."""
    draw, r = figures.missing_draw(report.models[model].draw_rows(reading), key)
    return (UNKNOWN, f"cause not known: {figures.draw_words(draw)}{figures.where_range_lies(r)}, and no cause this "
            "page checks applies")


def causes_by_name(report: Any, model: str, reading: str) -> Dict[str, List[str]]:
    """The pieces of evidence outside our range under one model and reading, as the tallies count them (each
    independent figure once, the figures of one cause as one piece, the calibrated ones aside), grouped by the
    name of their cause: a piece under the note of its first figure outside (evidence.missed_pieces)."""
    grouped: Dict[str, List[str]] = {}
    for key in evidence.missed_pieces(report.assessed(model, reading), report.basis.read_as(reading)):
        grouped.setdefault(reason(report, model, key, reading)[0], []).append(key)
    return grouped


_delay = day.duration_words  # 20 s, 15 min, 1 h


def delay_words(delays: Sequence[int]) -> str:
    """The K4 delays in words."""
    return ", ".join(_delay(d) for d in delays)
