"""Writes results/performance.md from what bench.py measured: every figure beside its goal and the floor.

Layer: a client's report writer; it computes ratios, verdicts and the text around
them from the measured facts, and never measures anything itself. Every figure is
a median over repetitions, shown as "median (min–max)".
"""

import statistics
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark.fixtures import VOCABULARY_PER_ARTICLE
from benchmark.engines import HOT, POSTGRESQL, SEPARATE, SERVER, SHAPES, SQLITE
from benchmark.growth import DEEP, POLL_PAGE
from benchmark.growth import FLOOR
from benchmark.tools import BROAD_QUERY
from osfoundry_tools.content.help_center import QUESTIONS
from osfoundry_tools.stores.kb_sections import NEAR_READ, NEAR_WORDS, SECTION_READ, SECTIONS_KEPT, TEXTS_KEPT
from osfoundry_tools.stores.kb_search import RANKED_MATCHES, WEIGHED_MATCHES, WORD_SAMPLE
from benchmark import search_quality
from benchmark.round_trips import HTTP_SERVER, OURS, STATELESS, THE_SDKS, WARM_UP
from benchmark.push import SPACING_SECONDS
from benchmark.http_load import BURST_SECONDS, OUR_PAIR, OUR_WORKERS, WORKLOADS
from benchmark.load_clients import MIX, READS
from benchmark.timing import Summary, ratios, summarise
from benchmark.tools import EDITED, KB_FLOOR, MEMORY, POLL_BACK, SIX_FIELDS, STUBBED, TIMED, WAL
from osfoundry_tools.engines.database import CHECKPOINT_PAGES
from osfoundry_tools.stores.kb_search import MERGE_PAGES
from osfoundry_tools.stores.record_store import PAGE_LIMIT_DEFAULT
from lab.experiments import number, table
from lab.knowledge_base.scenario import MAIN_SEEDS
from lab.record_channels.scenario import PUBLISHED_R6
from osfoundry_tools.content.workload import DESCRIPTION_CHARACTERS as DESCRIPTION

# What sim.py's default run drew for its ranges before it drew four draws (issue 45): 20 groups of five, one draw.
# Facts written since record their own (memory["range_seeds"]); older facts are of a run with these.
EARLIER_RANGE_SEEDS = 100

STRATEGIES = (("title", "search each cited title"), ("reread", "re-read each cited article"),
              ("poll", "poll the event log"))


def spread(summary: Summary, decimals: int = 1, unit: str = "") -> str:
    """A summary as "median (min–max)"."""
    return (f"{number(summary.median, decimals)}{unit} "
            f"({number(summary.low, decimals)}–{number(summary.high, decimals)})")


def meets(ok: bool) -> str:
    return "meets the goal" if ok else "**misses the goal**"


def markdown(facts: Dict[str, Any]) -> str:
    """The whole page."""
    lines = header(facts)
    writers: Sequence[Tuple[str, Callable[[Any, Dict[str, Any]], List[str]]]] = (
        ("tools", tools_section), ("guards", guards_section), ("growth", growth_section),
        ("quality", quality_section), ("day", day_section),
        ("writers", writers_section), ("engines", engines_section), ("mcp", mcp_section), ("http", http_section),
        ("push", push_section), ("memory", memory_section), ("job", job_section))
    for key, write in writers:
        if key in facts:
            section = write(facts[key], facts)
            if measured_apart(facts, key) and key not in OWN_STAMP:
                section[1:1] = ["", apart_line(facts[key]["measured"])]
            lines += [""] + section
    return "\n".join(lines) + "\n"


def apart_line(measured: Dict[str, Any]) -> str:
    """What a section merged in from a run of its own (bench.py --into) says of that run."""
    return (f"*Measured apart from the rest of this page: on {measured['date']}, by `{measured['command']}` with "
            f"`{measured['python']}`, in {measured['seconds']:.0f} s.*")


def measured_apart(facts: Dict[str, Any], section: str) -> bool:
    """Whether a section's facts come from another run than the page's (merged in; they say when and how)."""
    section_facts, machine = facts.get(section), facts["machine"]
    measured = section_facts.get("measured") if isinstance(section_facts, dict) else None
    return measured is not None and (measured["date"], measured["command"]) != (machine["date"], machine["command"])


# Sections a run of their own may measure (bench.py --into merges any section), by the title the header gives them.
SECTION_TITLES = {"engines": '"sqlite and PostgreSQL, side by side"',
                  "mcp": '"The MCP server over stdio and Streamable HTTP"',
                  "http": '"The MCP server over HTTP under load"',
                  "tools": '"The floor and the seven tools" (with the edits and validation)',
                  "guards": '"What the guards cost"', "growth": '"Growth"', "day": '"The knowledge-base day, scaled"',
                  "quality": '"Search quality on real content"', "writers": '"Writers on one WAL file"',
                  "memory": '"Peak memory"', "job": '"The main job"', "push": '"Changes pushed instead of polled"'}
OWN_STAMP = ("engines", "mcp", "http")  # sections that say when they were measured in their own words


def _apart_note(facts: Dict[str, Any]) -> str:
    """The header's word for sections merged in from a run of their own, if any."""
    apart = [SECTION_TITLES.get(name, name) for name in facts["section_seconds"] if measured_apart(facts, name)]
    if not apart:
        return ""
    which = "which says" if len(apart) == 1 else "each of which says"
    named = apart[0] if len(apart) == 1 else f"{', '.join(apart[:-1])} and {apart[-1]}"
    return f", except {named}, {which} when it was measured"


def header(facts: Dict[str, Any]) -> List[str]:
    m = facts["machine"]
    sizes = facts["sizes"]
    lines = [
        "# Performance and scale",
        "",
        f"Written by `bench.py` (`make bench`); every figure below was measured by that run{_apart_note(facts)}. "
        "Nothing here is a "
        "test: the machine is shared, so figures move from run to run, and what matters is the ratios, "
        "which are taken between figures measured back to back.",
        "",
        f"- Measured on {m['date']}{at_commit(m)}: {m['system']}, {m['machine']}, {m['cpus']} CPUs (processor: "
        f"{m['processor']}); {m['python']}; sqlite {m['sqlite']}.",
        f"- Command: `{m['command']}`; the whole run took {facts['seconds']:.0f} s ("
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in facts["section_seconds"].items()
                    if not measured_apart(facts, name)) + ").",
        f"- Each latency is the median over {sizes['repetitions']} repetitions of that repetition's own median "
        "(or 99th percentile), in microseconds unless marked, with the fastest and slowest repetition in "
        "brackets. A ratio is computed within each repetition, then summarised the same way. A repetition "
        "that the shared machine disturbed shows only as an extreme in brackets (a share can even come out "
        "negative there); the median is the figure.",
    ]
    if facts["quick"]:
        lines += ["", "**A `--quick` smoke run: tiny sizes and few calls. Its figures show that every section "
                  "runs, not how fast anything is.**"]
    return lines


# ---------------------------------------------------------------------------
# The seven tools, the floor, validation.


def tools_section(tools: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs = tools["runs"]
    lines = ["## The floor and the seven tools", "",
             "The floor is the bare compare-and-swap an edit must at least pay, written in plain Python sqlite3 "
             "on the record store's own tables and run on the same database as the tools: `BEGIN IMMEDIATE`, "
             "look up the idempotency key (a miss), select the item, update it where its version is unchanged, "
             "append the event, store the key, `COMMIT`. Memory is a private `:memory:` database; the WAL file "
             "is what the stores open on disk by default (`journal_mode=WAL`, `synchronous=FULL`: durability "
             "`full`; the next section sets `normal` beside it)."]
    floors = ["floor"] + ([KB_FLOOR] if KB_FLOOR in runs[MEMORY] else [])  # facts of older runs have one floor
    if len(floors) > 1:
        lines += ["", "The knowledge-base floor is `edit_knowledge_article`'s own: the same bare transaction on the "
                  "knowledge-base store's tables, with the article's row of its search index deleted and inserted "
                  f"again and the index's merge budget for one article ({MERGE_PAGES} pages, `kb_store.MERGE_PAGES`)."]
    lines += [""] + table([""] + [f"{floor}, {kind}" for floor in floors for kind in ("memory", "WAL file")],
                          [[figure] + [spread(summarise(runs[kind][floor], figure)) for floor in floors
                                       for kind in (MEMORY, WAL)] for figure in ("median", "p99")])
    lines += ["", f"Each tool, {facts['sizes']['calls']} calls per repetition, on the default day's knowledge base "
              f"({facts['sizes']['articles']} articles) and a bug channel of {facts['sizes']['items']} items. The "
              "search asks the simulated agent's kind of question; the reads cycle over every article or item; "
              f"the edits cycle over {EDITED} of them, each with the version its previous edit returned (a record "
              f"edit sets {len(SIX_FIELDS)} fields, as table R6 does); a poll asks for the events after the head "
              f"minus {POLL_BACK}; a listing is the first page of {PAGE_LIMIT_DEFAULT}. Bytes are the result as an "
              "MCP client receives it (UTF-8 JSON).", ""]
    rows = []
    for tool in TIMED + (STUBBED,) + tuple(floors[1:]):
        cells = [f"`{tool}`"]
        for kind in (MEMORY, WAL):
            cells += [spread(summarise(runs[kind][tool], "median")), spread(summarise(runs[kind][tool], "p99"), 0),
                      spread(ratios(runs[kind][tool], runs[kind]["floor"]), 1, "×")]
        cells.append(number(tools["bytes"][tool], 0) if tool in tools["bytes"] else "")
        rows.append(cells)
    lines += table(["tool", "memory median", "memory p99", "memory × floor", "WAL median", "WAL p99", "WAL × floor",
                    "result bytes"], rows)
    lines += [""] + validation_section(tools, facts)
    return lines + ([""] + near_the_floor_section(tools, facts) if KB_FLOOR in runs[MEMORY] else [])


def near_the_floor_section(tools: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Issue 17's goals: each edit within 3x its own floor, an article edit's tail, a listing page; with the cause of
    each miss."""
    goals, memory, wal = facts["goals"], tools["runs"][MEMORY], tools["runs"][WAL]
    record = ratios(memory["edit_record_item"], memory["floor"])
    article = ratios(memory["edit_knowledge_article"], memory[KB_FLOOR])
    article_wal = ratios(wal["edit_knowledge_article"], wal[KB_FLOOR])
    tail = _tail(wal["edit_knowledge_article"])
    listing = ratios(memory["list_record_items"], memory["floor"])
    checks = [
        (f"`edit_record_item` within {goals['record_edit_over_floor']:g}× the floor, in memory", record,
         goals["record_edit_over_floor"], _record_edit_miss(tools)),
        (f"`edit_knowledge_article` within {goals['kb_edit_over_own_floor']:g}× its own floor, in memory "
         f"(on a WAL file: {spread(article_wal, 1, '×')})", article, goals["kb_edit_over_own_floor"],
         _article_edit_miss(memory)),
        (f"`edit_knowledge_article`'s p99 within {goals['kb_edit_p99_over_median']:g}× its median, WAL file", tail,
         goals["kb_edit_p99_over_median"], _tail_miss(wal)),
        (f"a page of `list_record_items` ({PAGE_LIMIT_DEFAULT} previews) within {goals['listing_over_floor']:g}× "
         "the floor, in memory", listing, goals["listing_over_floor"], _listing_miss(memory)),
    ]
    lines = ["## The edits against their own floors, the tail of an article edit, a listing page", "",
             "Each ratio is taken within a repetition, from the tools table above. An article edit's p99 on a WAL file "
             "comes from its slowest writes: those that checkpoint the log into the database file (every "
             f"{CHECKPOINT_PAGES} pages of log, `database.CHECKPOINT_PAGES`) and those that merge the search index "
             f"(at most {MERGE_PAGES} pages per article written, `kb_store.MERGE_PAGES`); the README says why each "
             "is bounded so.", ""]
    lines += table(["goal", "measured", "verdict"],
                   [[what, spread(figure, 1, "×"), meets(figure.median <= goal)] for what, figure, goal, _ in checks])
    misses = [cause for _, figure, goal, cause in checks if figure.median > goal]
    return lines + ([""] + [f"**Why.** {' '.join(misses)}"] if misses else [])


def _unlike_the_floor(runs: Dict[str, Any]) -> str:
    """What sqlite does for an edit that the floor leaves out (a run from before the knowledge-base floor read the
    channel's row on every edit)."""
    if KB_FLOOR not in runs:
        return "statements the floor does not run (the channel's row)"
    return ("what the floor does not write or ask (the item's preview, kept for listings; on a file, whether the "
            "channel read before is still current)")


def _tail(reps: List[Dict[str, float]]) -> Summary:
    """Per repetition, the p99 over the median."""
    return Summary.of([figures["p99"] / figures["median"] for figures in reps])


def _record_edit_miss(tools: Dict[str, Any]) -> str:
    parts = sorted(((name, summarise(reps, "median").median) for name, reps in tools["parts"].items()),
                   key=lambda part: -part[1])[:3]
    return ("`edit_record_item` keeps every promise the floor does not pay for; its largest parts (the table of "
            "parts above) are " + "; ".join(f"{name}, {micro:.1f} µs" for name, micro in parts) + ".")


def _article_edit_miss(memory: Dict[str, List[Dict[str, float]]]) -> str:
    over = Summary.of([e["median"] - f["median"] for e, f in zip(memory["edit_knowledge_article"], memory[KB_FLOOR])])
    return (f"`edit_knowledge_article` adds {over.median:.0f} µs to its floor: the argument check, the fingerprint of "
            "the whole call (its content included), the version read and written as a time, and the result.")


def _tail_miss(wal: Dict[str, List[Dict[str, float]]]) -> str:
    floor = _tail(wal[KB_FLOOR])
    return (f"The article edit's slowest writes are its checkpoints and merges, and the disk's own syncs: the bare "
            f"knowledge-base floor's p99 is {floor.median:.1f}× its median on the same file.")


def _listing_miss(memory: Dict[str, List[Dict[str, float]]]) -> str:
    page = summarise(memory["list_record_items"], "median").median
    return (f"A page takes {page / PAGE_LIMIT_DEFAULT:.1f} µs per item: its row read, its stored preview decoded and "
            "its formulas computed at the time of the call.")


def guards_section(guards: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """The durability modes side by side, and searches built to cost the most beside an ordinary one."""
    return durability_part(guards["durability"], facts) + [""] + adversaries_part(guards["adversaries"], facts)


def durability_part(durability: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs = durability["runs"]
    modes = list(runs)
    rows = []
    for what in ["floor", *[name for name in runs[modes[0]] if name != "floor"]]:
        cells = [what]
        for mode in modes:
            cells.append(spread(summarise(runs[mode][what], "median"), 0))
        if len(modes) == 2:
            cells.append(spread(ratios(runs[modes[0]][what], runs[modes[1]][what]), 1, "×"))
        rows.append(cells)
    header = ["on a WAL file"] + [f"durability {mode}, median µs" for mode in modes]
    header += [f"{modes[0]} ÷ {modes[1]}"] if len(modes) == 2 else []
    lines = ["## What the guards cost", "", "### Durability", "",
             f"The floor and both edit tools, {facts['sizes']['calls']} calls per repetition each, on WAL files "
             "opened with each durability (the floor runs on the record file, so it syncs as that file does). "
             "`full` syncs the log at every commit, so an acknowledged edit survives a power cut; `normal` syncs "
             "it at checkpoints only, so a power cut may lose the last edits, while a killed process loses "
             "none.", "", *table(header, rows)]
    if "kb_edit_p99_over_median" in facts["goals"]:  # a run that times the tail (older facts do not say)
        tails = [f"{mode}, {spread(_tail(runs[mode]['edit_knowledge_article']), 1, '×')}" for mode in modes]
        lines += ["", "`edit_knowledge_article`'s p99 over its median at each durability: " + "; ".join(tails) +
                  ". At `normal` a checkpoint syncs the log as well as the file, so it weighs more against an edit "
                  "that syncs nothing."]
    return lines


def adversaries_part(adversaries: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs, goal = adversaries["runs"], facts["goals"]["adversarial_over_ordinary"]
    bare = adversaries.get("bare_runs")  # the engine's part, timed alone (older facts do not hold it)
    ordinary = next(iter(runs))
    rows, worst, costliest = [], 0.0, ordinary
    for name, reps in runs.items():
        ratio = ratios(reps, runs[ordinary])
        if name != ordinary and ratio.median > worst:
            worst, costliest = ratio.median, name
        rows.append([name, adversaries["results"][name], number(adversaries["characters"][name], 0),
                     spread(summarise(reps, "median"), 0), spread(summarise(reps, "p99"), 0),
                     "" if name == ordinary else spread(ratio, 1, "×")]
                    + ([spread(summarise(bare[name], "median"), 0)] if bare else []))
    return ["### Searches over planted adversarial articles", "",
            f"A knowledge base of {adversaries['articles']} ordinary articles and {adversaries['planted']} of each "
            "kind below, written to cost a search the most: a content that is one word of 100,000 characters, a "
            "content that holds the query word everywhere except where a word begins, one with a heading on every "
            "line, one that holds eight query words side by side throughout (every place the search's nearness "
            "reads is near another query word's, and the engine's bm25 counts each of them), and one that holds 32 "
            "distinct query words only inside other words. Each is searched with the "
            "query that matches it (`limit` 20), beside the agent's ordinary kind of question. A search reads only "
            "a long content's opening, looks for each distinct query word once, and quotes at most 300 "
            "characters. The headings make this a knowledge base whose best matches are weighed by their sections, "
            f"for every query, the ordinary one too: each of the best {WEIGHED_MATCHES} is read up to "
            f"{SECTION_READ:,} characters and split at {SECTIONS_KEPT} headings at most, once per version of the "
            f"article (the texts of {TEXTS_KEPT} are kept); its nearness reads at most {NEAR_READ} places where "
            f"the {NEAR_WORDS} weightiest query words stand.", "",
            *table(["query", "results", "result characters", "median µs", "p99 µs", "× ordinary"]
                   + (["FTS5's bm25 alone, median µs"] if bare else []), rows), "",
            f"Goal: the costliest within {goal:g}× the ordinary question: {worst:.1f}×, {meets(worst <= goal)}."
            + (engine_part(costliest, runs, bare) if bare and worst > goal else "")]


def engine_part(costliest: str, runs: Dict[str, Any], bare: Dict[str, Any]) -> str:
    """Why the costliest search misses its goal, where the engine's own ranking takes most of it."""
    ordinary = next(iter(runs))
    alone = ratios(bare[costliest], runs[ordinary])
    share = ratios(bare[costliest], runs[costliest])
    return (f" Of the costliest, \"{costliest}\", FTS5's bm25 over its words alone, every match ranked and "
            f"nothing read or weighed, takes {spread(alone, 1, '×')} the ordinary question, "
            f"{100 * share.median:.0f}% of the search: the engine counts every place where a query word stands "
            "in each matching article, and the whole content is indexed, so words that fill articles of 100,000 "
            "characters cost the engine itself that much.")


def validation_share(runs: Dict[str, List[Dict[str, float]]]) -> Summary:
    """Per repetition, the share of the full edit that validation takes: 1 - stubbed / full, in percent."""
    return Summary.of([100 * (1 - s["median"] / f["median"])
                       for f, s in zip(runs["edit_record_item"], runs[STUBBED])])


def validation_section(tools: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs, goals = tools["runs"], facts["goals"]
    lines = ["## Validation, and the edit against the floor", "",
             "Validation alone: `edit_record_item` with full validation against the same store with its "
             "`_validate` stubbed out (`lab/record_channels/runs.py`'s `UnvalidatedStore`), on the same database, "
             "alternately. The article's stub also left out its query of the channel's schema (table R6 of the "
             "record page sets its figures beside `UnreadSchemaStore`, which stubs that too); our store reads a "
             "channel's schema once and keeps it while the file is unchanged, so here the schema costs next to "
             "nothing and `_validate` is what validation costs. "
             f"Goals: a full edit within {goals['edit_over_floor']:g}× the floor, and validation under "
             f"{goals['validation_share']:g}% of the edit.", ""]
    rows = []
    for kind in (MEMORY, WAL):
        over = ratios(runs[kind]["edit_record_item"], runs[kind]["floor"])
        share = validation_share(runs[kind])
        rows.append([kind, spread(summarise(runs[kind]["edit_record_item"], "median")),
                     spread(summarise(runs[kind][STUBBED], "median")), spread(share, 1, "%"),
                     spread(over, 2, "×"), meets(over.median <= goals["edit_over_floor"]),
                     meets(share.median < goals["validation_share"])])
    low, high = PUBLISHED_R6["validated"]
    stub_low, stub_high = PUBLISHED_R6["stubbed"]
    rows.append(["published (the article: its stub left out the schema query too; Python 3.9.6 on an Apple M1)",
                 f"{low}–{high}", f"{stub_low}–{stub_high}",
                 f"{100 * (1 - stub_high / low):.0f}–{100 * (1 - stub_low / high):.0f}%", "", "", ""])
    lines += table(["database", "full edit µs", "stubbed µs", "validation share", "full edit × floor",
                    f"edit goal (≤ {goals['edit_over_floor']:g}×)",
                    f"share goal (< {goals['validation_share']:g}%)"],
                   rows)
    lines += [""] + edit_parts_section(tools, facts)
    lines += ["", "The same in-memory edit under `cProfile`: each function's own time as a share of the whole, over "
              f"{facts['sizes']['profiled_edits']:,} edits. The profiler charges every Python call extra, so it "
              "overstates Python against sqlite; the shares rank the parts, they do not time them.", ""]
    lines += table(["function", "share of the edit"], [[f"`{name}`", f"{share:.1f}%"]
                                                       for name, share in tools["profile"]])
    return lines


def edit_parts_section(tools: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """The in-memory edit taken apart, each part timed alone, against the gap between the edit and the floor; beside
    each, the same part before issue 44's speed-up (facts["before"], where the run kept them)."""
    runs, parts = tools["runs"][MEMORY], tools["parts"]
    before = facts.get("before")
    timed = {name: summarise(reps, "median") for name, reps in parts.items()}
    total = Summary.of([sum(reps[i]["median"] for reps in parts.values()) for i in range(len(runs["floor"]))])
    gap = Summary.of([e["median"] - f["median"] for e, f in zip(runs["edit_record_item"], runs["floor"])])
    over = ratios(runs["edit_record_item"], runs["floor"])
    rows = [[name, spread(summary, 1)] for name, summary in sorted(timed.items(), key=lambda p: -p[1].median)]
    rows += [["**the parts together**", spread(total, 1)], ["**the edit minus the floor, measured**", spread(gap, 1)],
             ["**the edit × the floor**", spread(over, 1, "×")]]
    header = ["part of edit_record_item", "µs"]
    if before is not None:
        rows, header = _with_before(rows, _edit_before(before)), ["part of edit_record_item", "before, µs", "now, µs"]
    largest = sorted(timed.items(), key=lambda p: -p[1].median)[:3]
    named = "; ".join(f"{name}, {summary.median:.1f} µs" for name, summary in largest)
    rest = gap.median - total.median
    lines = ["What an in-memory edit adds to the floor, part by part: each part is the store's own code as the edit "
             f"calls it, timed alone {facts['sizes']['calls']} times per repetition on the same item."
             + (" " + _before_words(before) if before is not None else ""), ""]
    lines += table(header, rows)
    if over.median > facts["goals"]["edit_over_floor"]:
        lines += ["", f"**Why the edit stays at {over.median:.1f}× the floor.** The three largest parts: {named}. "
                  "Each is a promise of the design rather than waste: every call is checked against the inputSchema "
                  "the client was shown; the idempotency key is bound to a fingerprint of the whole call, so a "
                  "reused key with other arguments is refused; an item's values live in one JSON column (a "
                  "channel's fields are defined by people, not by the table), so a save writes the whole item "
                  "again, long description included (only the values it changes are encoded anew). The floor pays "
                  f"none of these. The other {rest:.0f} µs of the gap are the glue between the parts (dispatch, the "
                  "transaction helper, rows and dictionaries) and sqlite's own work on "
                  f"{_unlike_the_floor(runs)}. On a WAL file, where the floor includes writing the log, the same "
                  "Python weighs less (see the table above)."]
    return lines


def _edit_before(before: Dict[str, Any]) -> Dict[str, str]:
    """The cells of the edit's parts as the run before the speed-up measured them, by the row they belong to."""
    parts = before["edit_parts"]
    cells = {name: spread(summarise(reps, "median"), 1) for name, reps in parts.items()}
    runs = len(before["floor"])
    cells["**the parts together**"] = spread(Summary.of([sum(reps[i]["median"] for reps in parts.values())
                                                         for i in range(runs)]), 1)
    cells["**the edit minus the floor, measured**"] = spread(Summary.of(
        [e["median"] - f["median"] for e, f in zip(before["edit_record_item"], before["floor"])]), 1)
    cells["**the edit × the floor**"] = spread(ratios(before["edit_record_item"], before["floor"]), 1, "×")
    return cells


def _with_before(rows: List[List[str]], before: Dict[str, str]) -> List[List[str]]:
    """Rows of (name, now) as (name, before, now): a part timed only before gets a row of its own, above the
    totals, and a part new since then "—" before."""
    named = {row[0] for row in rows}
    parts = [row for row in rows if not row[0].startswith("**")]
    gone = [[name, cell, "—"] for name, cell in before.items() if name not in named]
    return ([[name, before.get(name, "—"), now] for name, now in parts] + gone
            + [[name, before.get(name, "—"), now] for name, now in rows if name.startswith("**")])


def _before_words(before: Dict[str, Any]) -> str:
    """Where the 'before' figures come from, and how to read them beside this run's."""
    return (f"Before: the same figures from bench.py's run of {before['date']} at commit {before['commit'][:7]}, the "
            "last before issue 44's speed-up (`benchmark/before_issue_44.json`, taken unchanged from that commit's "
            "`results/performance.json`). They were measured on another day of a shared machine, so compare the "
            "ratios. A part with no figure now was timed under that name then: the edit now does its work "
            "otherwise (the stored values found kept rather than decoded, encoded value by value rather than "
            "whole), or it timed the full check, which the edit runs only when the quicker test refuses.")


# ---------------------------------------------------------------------------
# Growth.


def quality_section(quality: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Search quality on real content (benchmark/search_quality.py writes it), and why PostgreSQL is missing."""
    lines = search_quality.section(quality)
    if quality.get("postgres"):
        lines += ["", f"PostgreSQL was not measured in this run: {quality['postgres']}."]
    return lines


def growth_section(growth: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    goals = facts["goals"]
    lines = ["## Growth", "",
             "Each file was built by its own process (through the stores' people side), then all sizes of a kind "
             "were opened together and timed in turn within each repetition: at most "
             f"{facts['sizes']['growth_calls']} calls or {facts['sizes']['growth_seconds']:g} s per figure per "
             "repetition. All are WAL files. Each repetition first times the floor on a small WAL file beside "
             "them; after each figure, *n×* is its median ratio to that floor."]
    lines += [""] + poll_growth(growth, goals) + [""] + search_growth(growth, goals)
    lines += [""] + list_growth(growth, goals)
    return lines


def timed_cell(reps: List[Dict[str, float]], floor: List[Dict[str, float]], decimals: int = 1,
               in_ms: bool = False) -> str:
    """A growth figure: its median (min–max), in µs or ms, then its median ratio to the floor."""
    figure = summarise(reps, "median")
    return f"{spread(_ms(figure) if in_ms else figure, decimals)} · {ratios(reps, floor).median:,.1f}×"


def _flatness(runs: List[Dict[str, List[Dict[str, float]]]], label: str) -> Summary:
    """Per repetition, the largest size's median over the smallest's."""
    return ratios(runs[-1][label], runs[0][label])


def _growth(growth: Dict[str, Any], kind: str) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]], List[Any]]:
    """The built files of a kind, their timings per size, and the floor of each repetition."""
    timings = growth["timings"][kind]
    return growth["built"][kind], timings["sizes"], timings["floor"]


def poll_growth(growth: Dict[str, Any], goals: Dict[str, float]) -> List[str]:
    built, runs, floor = _growth(growth, "events")
    lines = ["### Polling an event log of growing length", "",
             f"One record channel's log, filled through `EventLog.append`. *head*: an agent {POLL_BACK} events "
             f"behind (`after_sequence` = head − {POLL_BACK}); *middle*: an agent resuming from the middle of the "
             f"log, a full page of {POLL_PAGE}. Goal: flat within {round(100 * (goals['poll_flat'] - 1))}% from the "
             "shortest log to the longest, since a poll reads one range of the primary key.", ""]
    rows = [[number(f["size"], 0), timed_cell(r["head"], floor), timed_cell(r["middle"], floor),
             f"{f['bytes'] / 2 ** 20:,.0f}"] for f, r in zip(built, runs)]
    lines += table(["events", "head µs", "middle µs", "file MiB"], rows)
    verdicts = []
    for label in ("head", "middle"):
        flat = _flatness(runs, label)
        verdicts.append(f"*{label}* at {number(built[-1]['size'], 0)} events is {spread(flat, 2, '×')} its time at "
                        f"{number(built[0]['size'], 0)}: {meets(flat.median <= goals['poll_flat'])}.")
    return lines + [""] + [" ".join(verdicts)]


SEARCHED = (  # the knowledge bases a search is timed on: kind, what it holds, its query classes
    ("articles", "made-up words, as sim.py writes them", ("narrow", "mid", "broad")),
    ("help_articles", "natural English, the demo's help centre", ("question", "broad")))


def search_growth(growth: Dict[str, Any], goals: Dict[str, float]) -> List[str]:
    """The search beside its floor on both kinds of text, then each search goal with its verdict and cause."""
    lines = ["### Searching a knowledge base of growing size", "",
             "Two kinds of knowledge base. *Made-up words* are written as sim.py writes them, with a vocabulary "
             f"grown in proportion ({VOCABULARY_PER_ARTICLE:g} subject words per article): *narrow* is an article's "
             "area word, held by a handful of articles; *mid* the simulated agent's question (an opener and three "
             f"topic words); *broad* `{BROAD_QUERY}`, held by every article. *Natural English* is the demo's help "
             "centre (its subjects, then their variants by device, plan, role and region: "
             "`help_center.write_articles`): *question* cycles through the "
             f"{len(QUESTIONS)} questions people type (`help_center.QUESTIONS`), and *broad* is `{BROAD_QUERY}` again.",
             "",
             "Beside each figure is the **search floor**, timed alongside on the same index and connection: the "
             "bare FTS5 query `SELECT rowid FROM search_index_N WHERE search_index_N MATCH ? ORDER BY rank LIMIT "
             "10` with every word of the query joined by OR, as the search sent it before it was bounded. It "
             "ranks every article that holds any of the words, so it grows with the matches. The search ranks what "
             f"its bounds allow: in a knowledge base of more than {number(WORD_SAMPLE, 0)} articles it leaves out "
             f"the words held by at least half of its first {number(WORD_SAMPLE, 0)} articles when the query has "
             "rarer ones (bm25 weighs such a word nothing), scores at most the first "
             f"{number(RANKED_MATCHES, 0)} matching articles, and lists a query of common words only without "
             "scoring any. *n×* is the search's time over its floor's; in brackets, the median over the class's "
             "queries of the articles the search scored with bm25, of those the floor ranked.", ""]
    for kind, text, labels in SEARCHED:
        if kind in growth["built"]:
            lines += search_table(growth, kind, text, labels) + [""]
    return lines + search_verdicts(growth, goals)


def search_table(growth: Dict[str, Any], kind: str, text: str, labels: Sequence[str]) -> List[str]:
    """One kind of knowledge base: per size and query class, the search and its floor."""
    built, runs, _ = _growth(growth, kind)
    rows = []
    for facts, timed in zip(built, runs):
        cells = [number(facts["size"], 0)]
        for label in labels:
            scored, matched = (_median(facts[key][label]) for key in ("scored", "matched"))
            cells += [f"{spread(_ms(summarise(timed[label], 'median')), 2)} · "
                      f"{_times(ratios(timed[label], timed[label + FLOOR]).median)} [{number(scored, 0)} of "
                      f"{number(matched, 0)}]", spread(_ms(summarise(timed[label + FLOOR], "median")), 2)]
        rows.append(cells + [f"{facts['seconds']:.1f}", f"{facts['bytes'] / 2 ** 20:,.0f}"])
    header = ["articles"]
    for label in labels:
        header += [f"{label} ms · n× [scored of matches]", f"{label} floor ms"]
    return [f"**{text[0].upper()}{text[1:]}.**", "", *table(header + ["build s", "file MiB"], rows)]


def search_verdicts(growth: Dict[str, Any], goals: Dict[str, float]) -> List[str]:
    """The search goals at the largest knowledge base, each met or missed, with the cause of each miss."""
    verdicts = []
    if "help_articles" in growth["built"]:
        built, runs, _ = _growth(growth, "help_articles")
        question = _ms(summarise(runs[-1]["question"], "median"))
        ok = question.median <= goals["search_question_ms"]
        verdicts.append(f"A natural question at {number(built[-1]['size'], 0)} articles takes "
                        f"{spread(question, 2, ' ms')} (the median over the {len(QUESTIONS)} questions; the goal: "
                        f"at most {goals['search_question_ms']:g} ms): {meets(ok)}."
                        + ("" if ok else " " + _scoring_cause(built[-1], runs[-1], "question")))
    for kind, text, _ in SEARCHED:
        if kind in growth["built"]:
            built, runs, _ = _growth(growth, kind)
            broad = _ms(summarise(runs[-1]["broad"], "median"))
            ok = broad.median <= goals["search_broad_ms"]
            verdicts.append(f"The broadest query, `{BROAD_QUERY}`, on {text.split(',')[0]} at "
                            f"{number(built[-1]['size'], 0)} articles takes {spread(broad, 2, ' ms')} (the goal: at "
                            f"most {goals['search_broad_ms']:g} ms): {meets(ok)}."
                            + ("" if ok else " " + _scoring_cause(built[-1], runs[-1], "broad")))
    if "articles" in growth["built"]:
        built, runs, _ = _growth(growth, "articles")
        for label in ("narrow", "mid"):
            over = ratios(runs[-1][label], runs[-1][label + FLOOR])
            ok = over.median <= goals["search_over_floor"]
            verdicts.append(f"A {label} query at {number(built[-1]['size'], 0)} articles takes {spread(over, 2, '×')} "
                            f"its search floor (the goal: within {goals['search_over_floor']:g}×): {meets(ok)}."
                            + ("" if ok else " " + _floor_cause(runs[-1], label)))
    return [" ".join(verdicts)]


def _scoring_cause(facts: Dict[str, Any], timed: Dict[str, List[Dict[str, float]]], label: str) -> str:
    """Why a search took longer than its goal: what it scored, beside what its floor took."""
    floor = _ms(summarise(timed[label + FLOOR], "median")).median
    return (f"Why: its median query holds words of {number(_median(facts['matched'][label]), 0)} articles, of which "
            f"the search scored {number(_median(facts['scored'][label]), 0)} with bm25 (at most "
            f"{number(RANKED_MATCHES, 0)}) after counting each word over {number(WORD_SAMPLE, 0)} articles; FTS5 "
            f"takes microseconds for each article it scores, and the floor, which scores them all, took "
            f"{floor:,.2f} ms.")


def _floor_cause(timed: Dict[str, List[Dict[str, float]]], label: str) -> str:
    """Why a search took more than its goal's multiple of the floor: what it does that the floor does not."""
    extra = _ms(Summary.of([ours["median"] - floor["median"]
                            for ours, floor in zip(timed[label], timed[label + FLOOR])])).median
    return (f"Why: the floor is one FTS5 statement that returns rowids. The search also checks the arguments and "
            f"the grant, counts each query word over the first {number(WORD_SAMPLE, 0)} articles (FTS5 opens the "
            "word's document lists once more for that), reads the rows of its results and cuts their snippets: "
            f"{extra:,.3f} ms more here, a cost that does not shrink with the floor.")


def _times(ratio: float) -> str:
    """A ratio to the floor: one decimal from 1× up, two significant digits below (the floor grows, we do not)."""
    return f"{ratio:,.1f}×" if ratio >= 0.95 else f"{ratio:.2g}×"


def _median(values: Sequence[float]) -> float:
    """The middle value (the upper one of an even count), as the table's brackets show it."""
    return sorted(values)[len(values) // 2]


def _ms(summary: Summary) -> Summary:
    return Summary(summary.median / 1000, summary.low / 1000, summary.high / 1000)


def list_growth(growth: Dict[str, Any], goals: Dict[str, float]) -> List[str]:
    built, runs, floor = _growth(growth, "items")
    lines = ["### Listing a record channel of growing size", "",
             f"Bugs as triage.py files them (descriptions of {DESCRIPTION[0]:,} to {DESCRIPTION[1]:,} characters). "
             f"*first*: the newest page of {PAGE_LIMIT_DEFAULT}; *deep*: the page after the item {DEEP:.0%} of the "
             "way down, by `before_id`. Goal: flat, since the "
             "cursor is one index seek (we allow 20%).", ""]
    rows = [[number(f["size"], 0), timed_cell(r["first"], floor, 0), timed_cell(r["deep"], floor, 0),
             f"{f['seconds']:.1f}", f"{f['bytes'] / 2 ** 20:,.0f}"] for f, r in zip(built, runs)]
    lines += table(["items", "first page µs", "deep page µs", "build s", "file MiB"], rows)
    verdicts = []
    for label in ("first", "deep"):
        flat = _flatness(runs, label)
        verdicts.append(f"*{label}* at {number(built[-1]['size'], 0)} items is {spread(flat, 2, '×')} its time at "
                        f"{number(built[0]['size'], 0)}: {meets(flat.median <= goals['list_flat'])}.")
    return lines + [""] + [" ".join(verdicts)]


# ---------------------------------------------------------------------------
# The day scaled, writers, MCP, memory.


def day_section(day: Any, facts: Dict[str, Any]) -> List[str]:
    """The day at each scale, then the first seed's parts (facts of a run before the parts were measured here hold
    the scales' rows alone)."""
    rows = day["scales"] if isinstance(day, dict) else day
    lines = ["## The knowledge-base day, scaled", "",
             "sim.py's day for seed 1 with articles, questions, saves and vocabulary multiplied by the scale. "
             "The agent checks all its citations at the end of each hour by the three strategies of table K3; "
             "these are the totals over the day's checks, counted, not timed. Re-reading and searching by title "
             "cost one call per distinct cited article per check, so they grow with the citations; polling "
             "costs one call per 100 events (plus one per check), so it grows with the saves.", ""]
    body = []
    for row in rows:
        cells = [f"×{row['scale']}", number(row["articles"], 0), number(row["questions"], 0),
                 number(row["saves"], 0), number(row["citations"], 0), number(row["events"], 0)]
        for strategy, _ in STRATEGIES:
            calls, size = row["costs"][strategy]
            cells.append(f"{number(calls, 0)} / {number(size / 1024, 0)}")
        cells.append(f"{row['seconds']:.1f}")
        body.append(cells)
    header = ["scale", "articles", "questions", "saves", "citations", "events polled"] + [
        f"{name}: calls / KiB" for _, name in STRATEGIES] + ["run s"]
    lines += table(header, body)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        growth = {s: last["costs"][s][0] / first["costs"][s][0] for s, _ in STRATEGIES}
        citations, events = last["citations"] / first["citations"], last["events"] / max(1, first["events"])
        lines += ["", f"From ×{first['scale']} to ×{last['scale']}: citations grew {citations:.0f}×, "
                  f"re-reading's calls {growth['reread']:.0f}×, searching by title {growth['title']:.0f}×, "
                  f"polling's {growth['poll']:.0f}×, and the events polled {events:.0f}×."]
    return lines + ([""] + seed_parts_part(day, facts) if isinstance(day, dict) else [])


def seed_parts_part(day: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Where the time of sim.py's first seed goes, each part on its own stopwatch, once per repetition; the seed as
    sim.py runs it over its sqlite statements timed alone, against the goal (facts of a run before those were
    measured judge the seed on the stopwatches); beside them, the same seed before issue 44's speed-up."""
    seeds = day["seeds"]
    parts = {part: Summary.of([seed[part] for seed in seeds]) for part in seeds[0]}
    sqlite = next(part for part in parts if part.startswith("sqlite"))
    on_watches = Summary.of([sum(seed.values()) / seed[sqlite] for seed in seeds])
    whole = Summary.of([sum(seed.values()) for seed in seeds])
    goal = facts["goals"]["seed_over_sqlite"]
    before = facts.get("before")
    header = ["part of the seed", "seconds", "share"]
    rows = [[part, spread(took, 3), f"{100 * took.median / whole.median:.0f}%"]
            for part, took in sorted(parts.items(), key=lambda part: -part[1].median)]
    rows += [[WHOLE_ON_WATCHES, spread(whole, 3), ""], [OVER_ON_WATCHES, spread(on_watches, 2, "×"), ""]]
    alone, over = day.get("alone"), on_watches
    if alone:
        reading = day["reading"]
        net = [share["sqlite"] - share["readings"] * reading for share in alone]
        over = Summary.of([share["seed"] / sqlite_alone for share, sqlite_alone in zip(alone, net)])
        rows += [["**the seed as sim.py runs it, on no stopwatch**", spread(Summary.of([s["seed"] for s in alone]), 3),
                  ""],
                 ["**its sqlite statements, alone on a stopwatch**", spread(Summary.of(net), 3), ""],
                 ["**the seed × its sqlite statements**", spread(over, 2, "×"), ""]]
    if before is not None:
        kept = before["seed_parts"]
        seconds = sum(kept.values())
        then = {part: [f"{took:.3f}", f"{100 * took / seconds:.0f}%"] for part, took in kept.items()}
        then[WHOLE_ON_WATCHES] = [f"{seconds:.3f}", ""]
        then[OVER_ON_WATCHES] = [f"{seconds / kept[sqlite]:.2f}×", ""]
        rows = [[row[0], *then.get(row[0], ["—", ""]), *row[1:]] for row in rows]
        header = ["part of the seed", "before, seconds", "before, share", "now, seconds", "now, share"]
    lines = ["Where the time of sim.py's first seed goes (seed 1 of the default model), each kind of work on its "
             f"own stopwatch (`lab/knowledge_base/seed_profile.py`), {len(seeds)} times in this process. Goal: the "
             f"whole seed within {goal:g}× its sqlite part."
             + (f" Before: the same seed in bench.py's run of {before['date']} at commit {before['commit'][:7]}, "
                "once, the last before issue 44's speed-up (`benchmark/before_issue_44.json`)." if before else ""), ""]
    lines += table(header, rows)
    if alone:
        lines += ["", "The stopwatches slow what they time: every store call and every statement passes through a "
                  "stand-in and reads the clock twice, so the seed on them takes longer than it does in sim.py. The "
                  "goal is therefore judged on two further kinds of run of the same seed in each repetition"
                  + (f", the least of {day['runs']} of each kind kept" if day.get("runs", 1) > 1 else "") + ": "
                  "the seed as sim.py runs it, on no stopwatch, and the seed with only its statements on a "
                  f"stopwatch, less what that stopwatch's own {alone[0]['readings']:,} readings cost "
                  f"({1e9 * day['reading']:.0f} ns each, timed around a call that does nothing)."]
    lines += [""] + table(["goal", "measured", "verdict"], [[f"a seed day within {goal:g}× its own sqlite part",
                                                              spread(over, 2, "×"), meets(over.median <= goal)]])
    if alone and over.median > goal:
        lines += ["", seed_miss_cause(over.median, statistics.median(s["seed"] for s in alone),
                                      statistics.median(net), goal)]
    return lines


def seed_miss_cause(over: float, seed: float, sqlite: float, goal: float) -> str:
    """How much of a seed's time the goal would take away, at `over` times its statements (above the goal): as a
    share of the seed's `seed` seconds and of those it spends outside sqlite's `sqlite`."""
    share = 1 - goal / over
    outside = seed - sqlite
    return (f"**Why.** At {over:.2f}× its statements, the seed would have to lose {100 * share:.0f}% of its time to "
            f"come within {goal:g}×: about {share * seed:.3f} s of its {seed:.3f} s"
            + (f", {100 * share * seed / outside:.0f}% of the {outside:.3f} s it spends outside sqlite, which the "
               "parts above spread over the stores' code around the statements, the plan's text and the agent's day"
               if outside > 0 else "") + ".")


WHOLE_ON_WATCHES = "**the whole seed, on the stopwatches**"
OVER_ON_WATCHES = "**the seed × its sqlite part, both on the stopwatches**"


def push_section(push: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Our extension: listen streams beside the articles' polling (not a figure of the articles)."""
    day, runs = push["day"], push["runs"]
    poll_calls, poll_bytes = day["poll"]
    push_calls, push_bytes = day["push"]
    lines = ["## Changes pushed instead of polled (our extension, not the articles')", "",
             f"sim.py's day (seed {day['seed']}, as stated: {day['saves']} people's saves) for one agent that keeps "
             f"its citations in view. Polled: `poll_resource_events` from its cursor at each of the {day['hours']} "
             "hourly checks, as in the day section. Pushed: one `subscriptions/listen` stream on the knowledge base "
             "all day, one `notifications/resources/updated` per event of its log (the whole JSON-RPC message, "
             "with the event's sequence, type and version in `_meta`), plus the request, the ack and the closing "
             "result. Counted, not timed.", ""]
    lines += table(["agent's day", "calls", "KiB", "events", "a change waits for the agent"], [
        ["polled hourly", number(poll_calls, 0), number(poll_bytes / 1024, 1), number(day["events_polled"], 0),
         "until the next hourly check"],
        ["pushed", number(push_calls, 0), number(push_bytes / 1024, 1), number(day["events_pushed"], 0),
         "the delay below"]])
    more = push_bytes / poll_bytes if poll_bytes else 0.0
    per_push = (push_bytes - day["push_framing"]) / max(1, day["events_pushed"])
    per_poll = poll_bytes / max(1, day["events_polled"])
    lines += ["", f"Pushing takes {number(poll_calls / push_calls, 0)}× fewer calls but {number(more, 1)}× the "
              f"bytes: each notification is a message of its own with its URI and _meta, {number(per_push, 0)} "
              f"bytes an event, where a poll returns a batch of compact events, {number(per_poll, 0)} bytes an "
              "event with the poll's own share.", ""]
    rows = []
    for run in runs:
        rows.append({"median": run["delays_ms"]["median"] or 0.0, "p99": run["delays_ms"]["p99"] or 0.0,
                     "max": run["delays_ms"]["max"] or 0.0, "idle": 100 * (run["idle_cpu_share"] or 0.0)})
    first = runs[0]
    complete = all(run["distinct"] == run["expected"] == run["notifications"] for run in runs)
    lines += [f"The delay from a save to its notification, with {first['listeners']} listen streams (one agent "
              f"each, bearer tokens) on one server over Streamable HTTP, the saves made by another process on the "
              f"same sqlite file, {first['saves']} saves a repetition at random spacings (0 to "
              f"{2 * SPACING_SECONDS:.1f} s). The server reads each watched log every "
              f"{first['watch_seconds'] * 1000:.0f} ms (sqlite has no LISTEN/NOTIFY; a save made through the server "
              "itself wakes it at once), so the delay is about half that interval plus the fan-out. In ms:", ""]
    lines += table(["median", "99th percentile", "largest", f"server CPU while idle, {first['listeners']} listeners"],
                   [[spread(summarise(rows, "median")), spread(summarise(rows, "p99")),
                     spread(summarise(rows, "max")), spread(summarise(rows, "idle"), 1, " %")]])
    lines += ["", "Every listener received every save exactly once in every repetition." if complete else
              "**Some listener missed a save or received one twice**: " + ", ".join(
                  f"{run['distinct']} of {run['expected']} ({run['notifications']} received)" for run in runs)]
    return lines


def writers_section(writers: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    sizes, runs = facts["sizes"], writers["runs"]
    lines = ["## Writers on one WAL file", "",
             f"Separate processes, each making {sizes['writer_edits']} successful `edit_record_item` calls "
             f"(read, then edit with that version) on {sizes['writer_items']} hot items of one channel; a "
             "conflict is re-read and retried. The single-chain check then reads the file: every item's versions "
             "form one gap-free chain, the log's sequences are 1..N, there is one event per successful edit and "
             "no idempotency key twice.", ""]
    rows = []
    for processes, reps in sorted(runs.items(), key=lambda pair: int(pair[0])):
        rate = Summary.of([r["edits_per_second"] for r in reps])
        conflicts = Summary.of([r["conflicts"] for r in reps])
        busy = sum(r["busy"] for r in reps)
        chains = [r["chain"]["ok"] for r in reps]
        rows.append([processes, spread(rate, 0), spread(conflicts, 0), busy,
                     "passed" if all(chains) else f"**failed in {chains.count(False)} of {len(chains)} runs**"])
    floor_rate = Summary.of([1e6 / floor["median"] for floor in writers["floor"]])
    rows.append(["the floor alone, 1 process", spread(floor_rate, 0), "", "", ""])
    lines += table(["processes", "edits per second", "conflicts per run", "busy rejections", "single chain"], rows)
    return lines + ["", "Each writer's edit is a read and a compare-and-swap; the last row is the bare transaction "
                        "alone, one after another in one process, for scale. sqlite lets one writer commit at a "
                        "time, so more processes cannot multiply the rate of edits; they can only keep the file "
                        "busier."]


def engines_section(engines: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """sqlite and PostgreSQL side by side: the runs of each shape, where PostgreSQL overtakes, one edit's cost."""
    plan, server = engines["plan"], engines["postgres"]
    lines = ["## sqlite and PostgreSQL, side by side", "", _engines_measured(engines, facts), "",
             f"Each run starts a new database, files {plan['items']} bugs in each channel it needs, then starts "
             f"writer processes together ({_writers_text(plan['writers'])}), each saving {plan['edits']} edits "
             "through `call_tool` as the writers above do (`read_record_item`, then `edit_record_item` with that "
             "version and a fresh idempotency key; a `version_conflict` is counted, re-read and retried). Edits per "
             "second are the saved edits over the wall seconds from the common start to the last writer's counts. "
             "sqlite: a WAL file in a temporary folder, durability `full` (the stores' default). "
             + _server_text(server),
             "", f"The shapes: *{HOT}*, every writer edits the first bug of one channel; *{SHAPES[1]}*, every writer "
             f"draws bugs at random (its own seeded `random.Random`) from one channel; *{SEPARATE}*, each writer "
             "draws from a channel of its own. The runs of the two engines alternate, so each pair is measured back "
             f"to back; each figure is the median (min–max) over {plan['repetitions']} "
             f"repetition{'s' if plan['repetitions'] > 1 else ''}, and the single-chain check reads every finished "
             "database as in the writers' section, each channel's log and chain apart.",
             "", f"This machine has {engines['cpus']} CPUs, so more than {engines['cpus']} writers contend for them "
             "on both engines" + (", and the PostgreSQL server runs on the same machine: its backends take their "
                                  "share of the same CPUs." if server else ".")]
    if not server:
        lines += ["", f"**PostgreSQL was not measured** ({engines['not_measured']}): `make bench` runs bench.py "
                  "inside a throwaway cluster (`tests/postgres_cluster.py -- .venv/bin/python bench.py`)."]
    for shape in SHAPES:
        lines += ["", f"### {shape[0].upper()}{shape[1:]}", ""] + _shape_table(engines, shape)
    lines += [""] + _busy_line(engines)
    if server:
        lines += ["", "Where PostgreSQL overtakes sqlite: the fewest writers at which its median edits per second "
                  "exceed sqlite's.", ""]
        lines += table(["shape", "PostgreSQL overtakes sqlite"],
                       [[shape, overtaking_text(engines, shape)] for shape in SHAPES])
        lines += ["", _scaling_line(engines)]
    return lines + [""] + _edit_cost(engines)


def at_commit(measured: Dict[str, Any]) -> str:
    """" at commit 3d2c689c1a2b" where the facts name the commit they were measured at (older facts do not)."""
    return f" at commit {measured['commit']}" if measured.get("commit") else ""


def _engines_measured(engines: Dict[str, Any], facts: Dict[str, Any]) -> str:
    measured = engines["measured"]
    command = measured["command"].replace("python3", measured["python"], 1)
    apart = ", separately from the rest of this page" if measured_apart(facts, "engines") else ""
    return f"Measured on {measured['date']}{at_commit(measured)} by `{command}`{apart}, in {measured['seconds']:.0f} s."


def _writers_text(writers: Sequence[int]) -> str:
    return ", ".join(map(str, writers[:-1])) + (" or " if len(writers) > 1 else "") + str(writers[-1])


def _server_text(server: Optional[Dict[str, str]]) -> str:
    if not server:
        return ""
    text = (f"PostgreSQL {server['version']}, reached over {server['reached']}, in a database of the run's own on "
            f"the server named by `{SERVER}`, the store's tables in its schema `osfoundry_record_channel`, "
            "durability `full` (`synchronous_commit` on).")
    if server["fsync"] == "off":
        text += (" **That server runs with `fsync` off** (`tests/postgres_cluster.py` starts its throwaway "
                 "cluster so without `--durable`, which `make bench` gives): its commits never wait for the disk, "
                 "while sqlite's do, so each PostgreSQL commit here costs less than on a server that syncs.")
    else:
        text += " The server syncs its log to the disk at each commit (`fsync` on), as sqlite does at `full`."
    return text


def _rates(engines: Dict[str, Any], engine: str, shape: str) -> Dict[int, List[Dict[str, Any]]]:
    """A shape's runs on one engine, by number of writers."""
    return {int(writers): reps for writers, reps in engines["runs"][engine][shape].items()}


def _rate(reps: List[Dict[str, Any]]) -> Summary:
    return Summary.of([r["edits_per_second"] for r in reps])


def overtaking(engines: Dict[str, Any], shape: str) -> Optional[int]:
    """The fewest writers at which PostgreSQL's median edits per second exceed sqlite's; None if at no count run."""
    ours, theirs = _rates(engines, POSTGRESQL, shape), _rates(engines, SQLITE, shape)
    return next((writers for writers in sorted(ours) if _rate(ours[writers]).median > _rate(theirs[writers]).median),
                None)


def overtaking_text(engines: Dict[str, Any], shape: str) -> str:
    """The overtaking point in words, and whether PostgreSQL stays ahead after it."""
    writers, measured = overtaking(engines, shape), sorted(_rates(engines, POSTGRESQL, shape))
    if writers is None:
        return f"not within {measured[-1]} writers"
    ours, theirs = _rates(engines, POSTGRESQL, shape), _rates(engines, SQLITE, shape)
    behind = [w for w in measured if w > writers and _rate(ours[w]).median <= _rate(theirs[w]).median]
    where = f"already at {writers} writer{'s' if writers > 1 else ''}" if writers == measured[0] else \
        f"at {writers} writers"
    return where + (f" (behind again at {_writers_text(behind)})" if behind else "")


def _shape_table(engines: Dict[str, Any], shape: str) -> List[str]:
    measured = [engine for engine in (SQLITE, POSTGRESQL) if engine in engines["runs"]]
    header = ["writers"] + [f"{engine} {what}" for engine in measured for what in ("edits/s", "conflicts")]
    header += ["PostgreSQL ÷ sqlite"] if len(measured) == 2 else []
    rows = []
    for writers in engines["plan"]["writers"]:
        runs = {engine: _rates(engines, engine, shape)[writers] for engine in measured}
        cells: List[Any] = [writers]
        for engine in measured:
            cells += [spread(_rate(runs[engine]), 0), spread(Summary.of([r["conflicts"] for r in runs[engine]]), 0)]
        if len(measured) == 2:
            cells.append(spread(Summary.of([p["edits_per_second"] / s["edits_per_second"]
                                            for p, s in zip(runs[POSTGRESQL], runs[SQLITE])]), 2, "×"))
        rows.append(cells + [_chains(runs)])
    return table(header + ["single chain"], rows)


def _chains(runs: Dict[str, List[Dict[str, Any]]]) -> str:
    broken = [f"{engine} failed in {sum(not r['chain']['ok'] for r in reps)} of {len(reps)} runs"
              for engine, reps in runs.items() if not all(r["chain"]["ok"] for r in reps)]
    return "passed" if not broken else "**" + "; ".join(broken) + "**"


def _busy_line(engines: Dict[str, Any]) -> List[str]:
    busy = {engine: sum(r["busy"] for reps in shapes.values() for per in reps.values() for r in per)
            for engine, shapes in engines["runs"].items()}
    if not any(busy.values()):
        return ["No edit was refused as `busy` on either engine: every retry counted above is a `version_conflict`."]
    return ["Edits refused as `busy` (retried like a conflict), over all runs: "
            + ", ".join(f"{engine} {count}" for engine, count in busy.items()) + "."]


def _scaling_line(engines: Dict[str, Any]) -> str:
    """How each engine's rate grows from the fewest writers to the most when every writer has its own channel."""
    low, high = engines["plan"]["writers"][0], engines["plan"]["writers"][-1]
    grown = {engine: _rate(_rates(engines, engine, SEPARATE)[high]).median
             / _rate(_rates(engines, engine, SEPARATE)[low]).median for engine in (SQLITE, POSTGRESQL)}
    return (f"With {SEPARATE}, PostgreSQL's edits per second at {high} writers are {grown[POSTGRESQL]:.2f}× its rate "
            f"at {low}, sqlite's {grown[SQLITE]:.2f}×. sqlite commits one writer at a time for the whole file, "
            "whatever the channel; on PostgreSQL two edits meet only on one channel, at its event counter (and on "
            "one item, at its row: the later writer waits for the other's COMMIT, then finds the version changed, "
            "a `version_conflict`), so writers of different channels never wait for each other and only the CPUs "
            "bound them.")


def _edit_cost(engines: Dict[str, Any]) -> List[str]:
    costs, server = engines["edit_cost"], engines["postgres"]
    lines = ["### The cost of one edit", "",
             f"One process, {engines['plan']['calls']} `edit_record_item` calls per engine and repetition, one engine "
             "after the other, each edit with the version its previous edit returned (six fields, as the tools "
             "section sets them) on a new database: sqlite on a WAL file, durability `full`"
             + (f"; PostgreSQL over {server['reached']}." if server else "."), ""]
    rows = [[engine, spread(summarise(reps, "median"), 0), spread(summarise(reps, "p99"), 0)]
            for engine, reps in costs.items()]
    if POSTGRESQL in costs:
        rows.append(["PostgreSQL ÷ sqlite", spread(ratios(costs[POSTGRESQL], costs[SQLITE]), 2, "×"),
                     spread(ratios(costs[POSTGRESQL], costs[SQLITE], "p99"), 2, "×")])
    return lines + table(["engine", "median µs", "p99 µs"], rows)


def mcp_section(mcp: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Round trips over stdio and Streamable HTTP, ours beside the SDK's; then our HTTP server under several clients."""
    http = mcp.get("http")  # facts of older runs timed stdio alone
    lines = ["## The MCP server over stdio" + (" and Streamable HTTP" if http else ""), ""]
    if "measured" in mcp:
        lines += [_measured_line(mcp, facts, "mcp"), ""]
    lines += [_mcp_method(mcp, facts), ""]
    rows = [[name, transport, spread(_ms(summarise(reps, "median")), 3), spread(_ms(summarise(reps, "p99")), 3)]
            for transport, runs in (("stdio", mcp["runs"]), ("Streamable HTTP", http or {}))
            for name, reps in runs.items()]
    lines += table(["server", "transport", "median ms", "p99 ms"], rows) if http else \
        table(["server", "median ms", "p99 ms"], [[row[0], *row[2:]] for row in rows])
    if http:
        lines += ["", _transport_reading(mcp)]
    tools = facts.get("tools")
    if tools:
        inside = summarise(tools["runs"][MEMORY]["read_knowledge_article"], "median")
        ours = summarise(mcp["runs"][OURS], "median")
        table_of = "the tools table, measured by the page's run" if measured_apart(facts, "mcp") else "the tools table"
        lines += ["", f"The same read through `call_tool` in process takes {inside.median:.1f} µs ({table_of}), "
                  f"so a round trip over stdio is about {ours.median / inside.median:.0f}× the store's own work: "
                  "JSON-RPC framing, two pipes and two process switches."]
    if not mcp["sdk"]:
        lines += ["", "The SDK server was not measured: no Python here can import `mcp`. `make conformance` "
                  "installs it in `.venv`; `make bench` then finds it there."]
    return lines + (["", *concurrency_part(mcp, facts)] if "concurrency" in mcp else [])


def _measured_line(section_facts: Dict[str, Any], facts: Dict[str, Any], section: str) -> str:
    """When and by which command a section that may be merged from a run of its own was measured."""
    measured = section_facts["measured"]
    command = measured["command"].replace("python3", measured["python"], 1)
    apart = ", separately from the rest of this page" if measured_apart(facts, section) else ""
    return f"Measured on {measured['date']}{at_commit(measured)} by `{command}`{apart}, in {measured['seconds']:.0f} s."


def _mcp_method(mcp: Dict[str, Any], facts: Dict[str, Any]) -> str:
    """How the round trips were timed, and what each server is (facts of older runs timed stdio alone)."""
    plan = mcp["plan"] if "plan" in mcp else {"round_trips": facts["sizes"]["round_trips"], "warm_up": WARM_UP}
    http = "http" in mcp
    text = (f"`tools/call read_knowledge_article` of the demo's first article, {plan['round_trips']} round trips per "
            f"{'server, transport and ' if http else ''}repetition after {plan['warm_up']} untimed ones, each timed "
            f"from {'sending the request' if http else 'writing the request line'} to reading its answer "
            "(`benchmark/round_trips.py`). The SDK server serves the same store read through the official `mcp` "
            "package (`benchmark/sdk_server.py`).")
    if not http:
        return text
    return text + (
        " Over stdio the client does the handshake first and writes one line per request. Over Streamable HTTP it "
        f"sends requests of the stateless era ({STATELESS}: no handshake, the protocol version in each request's "
        "`_meta` and headers), one POST at a time on one kept-alive connection (Python's `http.client`); each "
        "HTTP server starts once and serves every repetition, each on a new connection. Ours is "
        f"`{' '.join(['mcp_server.py', *HTTP_SERVER[2:]])}`, the standard library's threaded HTTP server; the SDK's "
        "is its `MCPServer` as `run(\"streamable-http\")` starts it (uvicorn), stateless and answering each POST "
        "with one JSON body, as ours does. uvicorn writes an access line per request, its default; ours logs none.")


def _transport_reading(mcp: Dict[str, Any]) -> str:
    """Each server's HTTP round trip against its stdio one, and the SDK's against ours on each transport; ratios
    taken within each repetition."""
    runs, http = mcp["runs"], mcp["http"]
    text = (f"Over Streamable HTTP our round trip is {spread(ratios(http[OURS], runs[OURS]), 1, '×')} our stdio one "
            "(each ratio taken within a repetition, then summarised)")
    if THE_SDKS not in http:
        return text + "."
    sdk_ratio = ratios(http[THE_SDKS], runs[THE_SDKS])
    return text + (f", the SDK's {spread(sdk_ratio, 1, '×')} its own stdio one. The SDK's round trip is "
                   f"{spread(ratios(runs[THE_SDKS], runs[OURS]), 1, '×')} ours over stdio and "
                   f"{spread(ratios(http[THE_SDKS], http[OURS]), 1, '×')} ours over HTTP.")


def concurrency_part(mcp: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Our HTTP server with several clients at once: latency and calls per second per number of clients."""
    plan, runs = mcp["plan"], {int(clients): reps for clients, reps in mcp["concurrency"].items()}
    fewest = min(runs)
    lines = ["### Several clients at once", "",
             f"Our HTTP server with {_writers_text(sorted(runs))} clients at once, each a thread of the benchmark's "
             f"process with a kept-alive connection of its own: {plan['client_warm_up']} untimed reads each, then all "
             f"start together and each times {plan['client_calls']} more. The latency is over every client's calls "
             "of a run; the calls per second are all their timed calls over the wall seconds from the common start "
             f"to the last one's end. Clients and server share this machine's {facts['machine']['cpus']} CPUs.", ""]
    rows = [[clients, spread(_ms(summarise(reps, "median")), 3), spread(_ms(summarise(reps, "p99")), 3),
             spread(Summary.of([r["calls_per_second"] for r in reps]), 0),
             spread(_rate_ratios(reps, runs[fewest]), 2, "×")] for clients, reps in sorted(runs.items())]
    lines += table(["clients", "median ms", "p99 ms", "calls per second", f"calls per second ÷ {fewest} "
                    f"client{'s' if fewest > 1 else ''}"], rows)
    return lines + ["", _concurrency_reading(runs)] if len(runs) > 1 else lines


def _rate_ratios(reps: List[Dict[str, float]], base: List[Dict[str, float]]) -> Summary:
    return Summary.of([r["calls_per_second"] / b["calls_per_second"] for r, b in zip(reps, base)])


def _concurrency_reading(runs: Dict[int, List[Dict[str, float]]]) -> str:
    """How the rate and the latency move from the fewest clients to the most, and what that says."""
    fewest, most = min(runs), max(runs)
    rate = _rate_ratios(runs[most], runs[fewest]).median
    waited = ratios(runs[most], runs[fewest]).median
    text = (f"From {fewest} client{'s' if fewest > 1 else ''} to {most}, the server answers {rate:.2f}× as many calls "
            f"per second while the median round trip grows {waited:.1f}×")
    if rate < most / fewest / 2:
        return text + (": the calls of several clients take turns. Our server answers each connection in a thread of "
                       "its own, but in one Python process, where one thread at a time runs Python, and every call "
                       "takes the workspace lock; so more clients add waiting rather than calls per second.")
    return text + ": the calls of several clients run side by side."


# ---------------------------------------------------------------------------
# The HTTP server under load.

SERVER_LABELS = {OURS: "ours", OUR_PAIR: "ours, two processes", OUR_WORKERS: "ours, --workers 2",
                 THE_SDKS: "the SDK's"}
WORKLOAD_TITLES = {READS: "Reads", MIX: "One edit in ten"}


def http_section(http: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """Our HTTP server and the SDK's under load from client processes, bursts of connects, floods of header lines
    and the server's memory through them; the issue's goals judged on ours, with the cause of each miss."""
    lines = ["## The MCP server over HTTP under load", ""]
    if "measured" in http:
        lines += [_measured_line(http, facts, "http"), ""]
    lines += [_load_method(http), ""]
    if not http["sdk"]:
        lines += ["The SDK's server was not measured: no Python here can import `mcp`. `make conformance` installs "
                  "it in `.venv`; `make bench` then finds it there.", ""]
    for workload in WORKLOADS:
        lines += _load_table(http, workload) + [""]
    lines += [_loaders_line(http), ""]
    lines += _bursts_part(http) + [""] + _floods_part(http) + [""]
    return lines + _http_goals(http, facts)


def _load_method(http: Dict[str, Any]) -> str:
    plan, commands = http["plan"], http["commands"]
    sdk = (f"; the SDK's as `{commands[THE_SDKS][0]}` (its `MCPServer` as `run(\"streamable-http\")` starts it: "
           "uvicorn, stateless, one JSON body per answer), whose tools hand each call to the same store"
           if THE_SDKS in commands else "")
    return (
        "Every server serves the demo's knowledge base from database files of its own (WAL, durability `full`) and "
        f"starts once for all runs: ours as `{commands[OURS][0]}`, with its default limits, as two such "
        "processes on one pair of files (*ours, two processes*), each client process's connections on one of them "
        f"as a TCP load balancer deals them{_workers_text(commands)}{sdk}. The clients are processes apart "
        "from the benchmark's "
        f"(`benchmark/load_clients.py`): a run's clients are dealt among {http['loaders']} of them, each driving "
        "its connections through one selector with raw sockets and requests made once, so that no client waits for "
        "another's Python. Each client is one kept-alive connection in a closed loop: a request, its answer, the "
        f"next request. After {http['warm_up']} untimed calls each, all start together and call for "
        f"{plan['seconds']:g} s; the latency is over every call answered within that window, the calls per second "
        "their number over the window. *Reads* cycle through ten calls: `read_knowledge_article` and "
        "`search_knowledge_base` (the help centre's questions) in turn, each client from its own article and "
        f"question, then one of the {http['edited']} articles the edits go to, read twice. *One edit in ten* is the "
        "same cycle with the second of those reads an `edit_knowledge_article` of the article just read: its "
        "`expected_version` the read's `updated_at`, its content the read's, a fresh idempotency key; an edit "
        "that another client's save overtook answers `version_conflict`, an answer like any other, counted. "
        "*Server CPU* is the user and system seconds of the server's processes over the run's seconds "
        f"(`/proc/PID/stat`): 1.00 is one core's worth, of this machine's {http['cpus']}, which the client processes "
        f"share. Each figure is the median (min–max) over {_times_text(plan['repetitions'])}; within one, each "
        "number of clients runs on each server in turn, back to back.")


def _workers_text(commands: Dict[str, List[str]]) -> str:
    """How the page names the server of one command with two workers, where it was measured."""
    if OUR_WORKERS not in commands:
        return ""
    return (f", and as one command with two workers on one port (*ours, --workers 2*: `{commands[OUR_WORKERS][0]}`, "
            "its processes' CPU added up)")


def _times_text(repetitions: int) -> str:
    return f"{repetitions} repetition{'s' if repetitions > 1 else ''}"


def _load_table(http: Dict[str, Any], workload: str) -> List[str]:
    """One workload: per number of clients and server, the calls per second, latency and CPU (and the edits)."""
    runs, mix = http["runs"][workload], workload == MIX
    rows = []
    for clients in http["plan"]["clients"]:
        for name, per_clients in runs.items():
            reps = per_clients[str(clients)]
            cells = [clients, SERVER_LABELS.get(name, name), spread(_rates_of(reps), 0),
                     spread(_ms(summarise(reps, "median")), 2), spread(_ms(summarise(reps, "p99")), 2),
                     _cpu_cell(reps)]
            if mix:
                cells += [spread(Summary.of([r["saved"] for r in reps]), 0),
                          spread(Summary.of([r["conflicts"] for r in reps]), 0)]
            rows.append(cells)
    header = ["clients", "server", "calls per second", "median ms", "p99 ms", "server CPU"]
    lines = [f"### {WORKLOAD_TITLES[workload]}", ""]
    lines += table(header + (["edits saved", "conflicts"] if mix else []), rows)
    return lines + ["", _load_reading(http, workload)]


def _rates_of(reps: List[Dict[str, Any]]) -> Summary:
    return Summary.of([r["calls_per_second"] for r in reps])


def _cpu_cell(reps: List[Dict[str, Any]]) -> str:
    spent = [r["server_cpu"] for r in reps]
    return "–" if None in spent else spread(Summary.of(spent), 2)


def _scaling_clients(clients: Sequence[int]) -> Tuple[int, int]:
    """The numbers of clients the scaling goal compares: the fewest, and 16 (else the most)."""
    return min(clients), 16 if 16 in clients else max(clients)


def _load_reading(http: Dict[str, Any], workload: str) -> str:
    """How each server's calls per second grow with the clients, and ours against the SDK's at the most."""
    runs = http["runs"][workload]
    fewest, more = _scaling_clients(http["plan"]["clients"])
    grown = [f"{SERVER_LABELS.get(name, name)} {_rate_ratios(per[str(more)], per[str(fewest)]).median:.2f}×"
             for name, per in runs.items()]
    text = (f"From {fewest} client{'s' if fewest > 1 else ''} to {more}, the calls per second grow: "
            + "; ".join(grown) + " (each ratio taken within a repetition).")
    most = max(http["plan"]["clients"])
    if THE_SDKS in runs:
        against = _rate_ratios(runs[OURS][str(most)], runs[THE_SDKS][str(most)])
        text += f" At {most} clients ours answers {spread(against, 2, '×')} the SDK's calls per second."
    return text


def _loaders_line(http: Dict[str, Any]) -> str:
    """How much CPU the client processes took (whether they, rather than the servers, could have bounded a run),
    and the slowest connect of any run's clients, all connecting at once."""
    reps = [r for per_workload in http["runs"].values() for per in per_workload.values() for runs in per.values()
            for r in runs]
    spent = max(r["loaders_cpu"] for r in reps)
    text = f"The client processes together used at most {spent:.2f} CPU-seconds per second in any run"
    text += ", less than one core: they did not bound the calls." if spent < 1 else "."
    return text + (f" Each run's clients connect at once; the slowest connect of any run took "
                   f"{1000 * max(r['connect_max'] for r in reps):.1f} ms.")


def _bursts_part(http: Dict[str, Any]) -> List[str]:
    retry = http["plan"]["retry_seconds"]
    issued = max(r["issued_seconds"] for per in http["bursts"].values() for reps in per.values() for r in reps)
    lines = ["### Bursts of connects", "",
             "Each burst opens its connections at once from one client process (every non-blocking connect begun "
             f"before any is waited for; beginning them all took at most {1000 * issued:.0f} ms) and sends one "
             "`read_knowledge_article` on each as soon as it is connected. A connect's time runs from its start to "
             "the connection's being established, an answer's from the burst's start. A SYN that the kernel drops "
             "(its queue of connections not yet accepted being full) is sent again about a second later: a connect "
             f"of {retry:g} s or more waited for that. A connection gets no answer if it is refused, reset or still "
             f"waiting after {BURST_SECONDS:g} s.", ""]
    rows = []
    for count in http["plan"]["bursts"]:
        for name, per in http["bursts"].items():
            reps = per[str(count)]
            answered = [r["answered"] for r in reps]
            rows.append([f"{count:,}", SERVER_LABELS.get(name, name),
                         f"{sum(r['waited'] for r in reps)} of {count * len(reps):,}",
                         _seconds_cell(reps, "connect_max"),
                         f"{min(answered):,}" + (f"–{max(answered):,}" if max(answered) != min(answered) else "")
                         + f" of {count:,}", _seconds_cell(reps, "answer_median"), _seconds_cell(reps, "answer_max"),
                         _no_answer(reps)])
    return lines + table(["connections at once", "server", f"connects of {retry:g} s or more", "slowest connect ms",
                          "answered", "median answer ms", "last answer ms", "no answer"], rows)


def _seconds_cell(reps: List[Dict[str, Any]], key: str) -> str:
    values = [r[key] for r in reps]
    return "–" if None in values else spread(Summary.of([1000 * v for v in values]), 1)


def _no_answer(reps: List[Dict[str, Any]]) -> str:
    """The connections of a burst that got no answer of 200, over all repetitions, by what happened to them."""
    counts: Dict[str, int] = {}
    for r in reps:
        for status, count in r["statuses"].items():
            if status != "200":
                counts[f"HTTP {status}"] = counts.get(f"HTTP {status}", 0) + count
        for kind, count in r["failed"].items():
            counts[kind] = counts.get(kind, 0) + count
        if r["unanswered"]:
            counts["still waiting"] = counts.get("still waiting", 0) + r["unanswered"]
    return ", ".join(f"{count:,} {what}" for what, count in counts.items() if count) or "none"


def _floods_part(http: Dict[str, Any]) -> List[str]:
    floods, plan = http["floods"], http["plan"]
    first = next(iter(floods.values()))["runs"]
    heads = first[-1]
    lines = ["### Floods of header lines, and the server's memory", "",
             "Each server is started again for these and answers one call; its resident memory then (VmRSS) is "
             "*idle*. Then, in turn: " + f"{plan['flood_connections']} connections each sending a request line, "
             f"`Host` and {plan['flood_lines']} header lines of {http['flood_line_bytes']:,} bytes, then the head's "
             "end, as fast as the server reads them, each closed once all is sent or the server has closed it "
             f"(*long lines*); the same without the head's end, held open {plan['hold_seconds']:g} s after the last "
             f"send (*held open*); and {heads['connections']:,} connections each sending a request line, `Host` and "
             f"{heads['lines']} header lines of {heads['line_bytes']} bytes, as many fields and bytes as our default "
             f"bounds allow ({http['limits']['max_headers']} fields in "
             f"{http['limits']['max_header_bytes'] // 1024} KiB), held open {plan['hold_seconds']:g} s without the "
             "head's end. *During* is the server's peak resident memory in the flood (VmHWM, reset to the memory of "
             "the moment just before through `/proc/PID/clear_refs`, and the largest of readings every 10 ms), "
             "*after* its resident memory once its threads are back to their idle count, and half a second more; "
             "in brackets, each against idle. One run each.", ""]
    if any(server["idle"] is None for server in floods.values()):
        lines += ["The servers' memory was not read: this system has no `/proc` (Linux's). The floods ran, and "
                  "what the servers answered is below.", ""]
    rows = []
    for run_index in range(len(first)):
        for name, server in floods.items():
            run = server["runs"][run_index]
            rows.append([run["name"], SERVER_LABELS.get(name, name), _mib_cell(server["idle"]),
                         _over_idle(run["during"], server["idle"]), _over_idle(run["after"], server["idle"]),
                         _flood_answers(run)])
    return lines + table(["flood", "server", "idle MiB", "during MiB", "after MiB", "what the server did"], rows)


def _mib_cell(mib: Optional[float]) -> str:
    return "–" if mib is None else f"{mib:.1f}"


def _over_idle(mib: Optional[float], idle: Optional[float]) -> str:
    return "–" if mib is None or idle is None else f"{mib:.1f} ({mib - idle:+.1f})"


def _flood_answers(run: Dict[str, Any]) -> str:
    """What the server answered a flood's connections, and how many it closed itself."""
    answers = run["answers"]
    said = [f"answered {count:,} with HTTP {status}" for status, count in answers["statuses"].items()
            if status != "None"]
    unanswered = answers["statuses"].get("None", 0)
    if unanswered:
        said.append(f"{unanswered:,} " + ("closed by their clients before an answer came" if not run["hold_seconds"]
                                          else "held without an answer"))
    return "; ".join(said + [f"closed {answers['closed_by_server']:,} of {run['connections']:,} itself"])


def _http_goals(http: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """The issue's goals judged on our server, the SDK's figure beside each; a cause for each miss."""
    checks = [_connect_goal(http), _answered_goal(http), *_memory_goals(http, facts["goals"]),
              _scaling_goal(http, facts["goals"])]
    workers = OUR_WORKERS in http["runs"][READS]
    rows = [[goal, figures[OURS], *([figures.get(OUR_WORKERS, "–")] if workers else []),
             figures.get(THE_SDKS, "") if http["sdk"] else "not measured",
             "not measured" if met is None else meets(met)] for goal, figures, met, _ in checks]
    judged = ("Judged on our server, one process; the last, read scaling, on `--workers 2`, the one command that "
              "uses more than one core (one process's figure beside it). " if workers else "Judged on our server; ")
    lines = ["### Goals", "", judged + "The SDK's figure is there for comparison.", ""]
    lines += table(["goal", "ours", *(["ours, --workers 2"] if workers else []), "the SDK's", "verdict"], rows)
    misses = [cause for _, _, met, cause in checks if met is False]
    lines += [""] + [f"**Why.** {' '.join(misses)}"] if misses else []
    if workers and checks[-1][2]:
        lines += ["", f"**One process.** {checks[-1][3]}"]
    return lines


Check = Tuple[str, Dict[str, str], Optional[bool], str]  # goal, figure per server, met (None: not measured), cause


def _connect_goal(http: Dict[str, Any]) -> Check:
    retry, count = http["plan"]["retry_seconds"], min(http["plan"]["bursts"])
    figures, waited = {}, {}
    for name, per in http["bursts"].items():
        reps = per[str(count)]
        waited[name] = sum(r["waited"] for r in reps)
        figures[name] = (f"{waited[name]} of {count * len(reps):,}; the slowest "
                         f"{1000 * max(r['connect_max'] for r in reps):.1f} ms")
    cause = (f"{waited[OURS]} connects of a burst of {count} took {retry:g} s or more, the time the kernel takes to "
             "send a dropped SYN again.")
    return (f"No connect of a burst of {count} waits for a kernel retry (none takes {retry:g} s or more)", figures,
            waited[OURS] == 0, cause)


def _answered_goal(http: Dict[str, Any]) -> Check:
    count = max(http["plan"]["bursts"])
    figures, fewest = {}, {}
    for name, per in http["bursts"].items():
        reps = per[str(count)]
        fewest[name] = min(r["answered"] for r in reps)
        last = [r["answer_max"] for r in reps if r["answer_max"] is not None]
        figures[name] = (f"{fewest[name]:,} of {count:,} in the worst repetition"
                         + (f"; the last after {Summary.of(last).median:.2f} s" if last else ""))
    cause = (f"In the worst repetition {count - fewest[OURS]:,} of {count:,} got no answer of 200 within "
             f"{BURST_SECONDS:g} s ({_no_answer(http['bursts'][OURS][str(count)])}, over all repetitions).")
    return f"All of a burst of {count:,} answered", figures, fewest[OURS] == count, cause


def _memory_goals(http: Dict[str, Any], goals: Dict[str, float]) -> List[Check]:
    """Memory during any flood within the bound above idle, and back within the tolerance of it after."""
    bound, tolerance = goals["flood_over_idle_mib"], goals["flood_after_mib"]
    during = (f"Resident memory during any flood within {bound:g} MiB above idle", "during", bound)
    after = (f"Resident memory within {tolerance:g} MiB of idle after each flood", "after", tolerance)
    checks: List[Check] = []
    for goal, key, limit in (during, after):
        figures, worst = {}, {}
        for name, server in http["floods"].items():
            if server["idle"] is None:
                figures[name] = "not measured (no /proc)"
                continue
            worst[name] = max(server["runs"], key=lambda run: run[key])
            figures[name] = f"{worst[name][key] - server['idle']:+.1f} MiB at most ({worst[name]['name']})"
        if OURS not in worst:
            checks.append((goal, figures, None, ""))
            continue
        over = worst[OURS][key] - http["floods"][OURS]["idle"]
        checks.append((goal, figures, over <= limit, _memory_cause(http["floods"][OURS], worst[OURS], key)))
    return checks


def _memory_cause(server: Dict[str, Any], run: Dict[str, Any], key: str) -> str:
    """Why our server's memory went past a goal in a flood: per connection during it; what stayed after it."""
    over = run[key] - server["idle"]
    if key == "during":
        return (f"During the flood of *{run['name']}*, the server's resident memory rose {over:.1f} MiB above idle "
                f"with {run['connections']:,} connections open: {1024 * over / run['connections']:.0f} KiB each.")
    anonymous = run["after_anonymous"] - server["idle_anonymous"]
    threads = f"{run['threads_after']} thread{'s' if run['threads_after'] != 1 else ''}"
    return (f"After the flood of *{run['name']}*, the server was back to {threads} (idle: {server['threads']}), so "
            f"no connection was left, yet its resident memory stayed {over:.1f} MiB above "
            f"idle, {anonymous:.1f} MiB of it anonymous (RssAnon: allocated, not mapped from files). That is what "
            f"the allocators keep once the objects of {run['connections']:,} connections are freed: Python returns "
            "a block of its objects' memory only when all of it is free, and the C library keeps the arenas it "
            "gave the connections' threads.")


def _scaling_goal(http: Dict[str, Any], goals: Dict[str, float]) -> Check:
    """Reads per second at 16 clients against those at 1, on ours (and on the pair and the SDK's, beside it)."""
    fewest, more = _scaling_clients(http["plan"]["clients"])
    reads = http["runs"][READS]
    grown = {name: _rate_ratios(per[str(more)], per[str(fewest)]) for name, per in reads.items()}
    figures = {name: spread(ratio, 2, "×") for name, ratio in grown.items()}
    met = grown[OUR_WORKERS if OUR_WORKERS in grown else OURS].median >= goals["read_scaling"]
    return (f"Reads per second at {more} clients at least {goals['read_scaling']:g}× those at {fewest}", figures, met,
            _scaling_cause(reads, fewest, more, grown, http["cpus"]))


def _cpu_reading(used: float, machine: List[Optional[float]], cpus: int) -> str:
    """What bounded a server process that did not answer more calls with more clients, from the CPU it used and
    the CPU the whole machine was busy with meanwhile."""
    if used >= 0.9:
        return ("about one core's worth, the most one Python process runs at a time (its threads take turns at the "
                "interpreter), so more clients add waiting, not calls.")
    if None in machine:
        return "less than one core."
    busy = Summary.of([m for m in machine if m is not None]).median
    return (f"less than one core, while the machine's processors were busy {busy:.2f} CPU-seconds per second "
            "in all (the clients, the other servers' idle processes and whatever else ran): "
            + ("the server waited for a processor." if busy >= 0.9 * cpus else
               "it waited on something other than a processor."))


def _scaling_cause(reads: Dict[str, Any], fewest: int, more: int, grown: Dict[str, Summary], cpus: int) -> str:
    """What the server's CPU says of one process's scaling, and what two processes on the same files do (as two
    servers, and as one with two workers)."""
    cpu = {clients: [r["server_cpu"] for r in reads[OURS][str(clients)]] for clients in (fewest, more)}
    if None in cpu[fewest] + cpu[more]:
        return "The server's CPU could not be read here (no /proc)."
    used, alone = Summary.of(cpu[more]).median, Summary.of(cpu[fewest]).median
    text = (f"At {more} clients our server process used {used:.2f} CPU-seconds per second, and {alone:.2f} at "
            f"{fewest}: ")
    text += _cpu_reading(used, [r["machine_cpu"] for r in reads[OURS][str(more)]], cpus)
    pair = reads.get(OUR_PAIR)
    if pair is not None:
        pair_cpu = [r["server_cpu"] for r in pair[str(more)]]
        text += (f" Two processes on the same files answer {more} clients {grown[OUR_PAIR].median:.2f}× the calls "
                 f"per second one process answers {fewest}, using {Summary.of(pair_cpu).median:.2f} CPU-seconds "
                 "per second together.")
    workers = reads.get(OUR_WORKERS)
    if workers is not None:
        workers_cpu = [r["server_cpu"] for r in workers[str(more)]]
        used_cpu = "" if None in workers_cpu else f", its workers using {Summary.of(workers_cpu).median:.2f} " \
            "CPU-seconds per second together"
        text += (f" One command with `--workers 2` answers {more} clients {grown[OUR_WORKERS].median:.2f}× the calls "
                 f"per second it answers {fewest}{used_cpu}.")
    return text


def memory_section(memory: Optional[Dict[str, Any]], facts: Dict[str, Any]) -> List[str]:
    lines = ["## Peak memory", ""]
    if memory is None:
        return lines + ["Not measured: Python's `resource` module is missing on this system."]
    run = (f"`sim.py {' '.join(memory['arguments'])}`" if memory["arguments"] else
           f"`sim.py` (seeds 1–5 and {memory.get('range_seeds', EARLIER_RANGE_SEEDS)} more, both models)")
    rows = [[f"{run}, its own process", f"{memory['self']:,.0f}"],
            [f"{run}, its largest child process", f"{memory['children']:,.0f}"]]
    growth = facts.get("growth")
    if growth:
        largest = growth["built"]["articles"][-1]
        rows.append([f"the {number(largest['size'], 0)}-article build (its own process)",
                     f"{largest['peak_rss_mib']:,.0f}"])
    lines += table(["run", "peak RSS MiB"], rows)
    return lines + ["", f"The sim.py run took {memory['seconds']:.0f} s here. Its children are the worker processes "
                        "(one per usable core by default); each holds one seed's stores at a time. "
                        "Peaks are read by `benchmark/memory.py` (VmHWM on Linux, ru_maxrss elsewhere)."]


def job_section(job: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    """The README's main job whole, with every core and with one; seed days per second on 1, 2 and every core; the
    main seeds alone; each against its goal (where a seed's time goes is the day section's)."""
    goals = facts["goals"]
    processes = job["processes"]
    lines = ["## The main job", "", "Each command timed whole, from starting Python to its last line, on this "
             f"machine's {processes} usable cores (sim.py runs one worker process per usable core unless `--jobs` "
             "says otherwise).", ""]
    lines += table(["run", "seconds", "goal", "verdict"], job_rows(job, facts))
    if "cores" in job:
        lines += [""] + cores_lines(job["cores"], goals["two_processes_speedup"])
    rate = seed_rate(job, facts)
    if rate is not None and any("misses" in row[3] for row in job_rows(job, facts)):
        range_seeds = (facts.get("memory") or {}).get("range_seeds", EARLIER_RANGE_SEEDS)
        lines += ["", job_miss_cause(*rate, processes, range_seeds)]
    return lines


def seed_rate(job: Dict[str, Any], facts: Dict[str, Any]) -> Optional[Tuple[float, str]]:
    """Seed days per second on the job's processes, and where the figure comes from: the seed days per second
    measured on that many processes, else (facts of an older run) one seed's time shared among them."""
    processes, runs = job["processes"], job.get("cores", {}).get("runs", {})
    if str(processes) in runs:
        return statistics.median(runs[str(processes)]), "the seed days per second above"
    day = facts.get("day")
    if isinstance(day, dict) and day.get("seeds"):
        seconds = statistics.median(sum(seed.values()) for seed in day["seeds"])
        return processes / seconds, f"the day section's seed on stopwatches, {seconds:.2f} s, on each process"
    if "seed_parts" in job:
        seconds = sum(job["seed_parts"].values())
        return processes / seconds, f"the job's first seed on stopwatches, {seconds:.2f} s, on each process"
    return None


def job_rows(job: Dict[str, Any], facts: Dict[str, Any]) -> List[List[str]]:
    """The commands timed whole: the main job on every core (the memory section's run) and on one, and the main
    seeds alone."""
    goals, main_seeds = facts["goals"], job["main_seeds"]
    rows = []
    memory = facts.get("memory")
    if memory:
        whole = memory["seconds"]
        command = " ".join(["sim.py", *(memory["arguments"] or ["--seeds", MAIN_SEEDS])])
        rows.append([f"`{command}` (the main job, {job['processes']} processes)", f"{whole:.1f}",
                     f"≤ {goals['main_job_seconds']:g}", meets(whole <= goals["main_job_seconds"])])
    if "one_process" in job:
        one = job["one_process"]
        rows.append([f"`sim.py {' '.join(one['arguments'])}` (the main job on one process)", f"{one['seconds']:.1f}",
                     "–", "–"])
    rows.append([f"`sim.py {' '.join(main_seeds['arguments'])}` (the main seeds alone)", f"{main_seeds['seconds']:.1f}",
                 f"≤ {goals['main_seeds_seconds']:g}", meets(main_seeds["seconds"] <= goals["main_seeds_seconds"])])
    return rows


def cores_lines(cores: Dict[str, Any], goal: float) -> List[str]:
    """Seed days per second on each count of processes, each over one process's in the same repetition."""
    runs = cores["runs"]
    one = runs["1"]
    lines = [f"Seed days per second: the same {cores['days']} seed days of the default model (sim.py's own job "
             "function and worker processes, `benchmark/cores.py`) run on each count of processes in turn, back "
             "to back within each repetition; *× one process* is taken within a repetition.", ""]
    rows = []
    for count, rates in runs.items():
        name = f"{count} (every usable core)" if int(count) == cores["cores"] and count != "1" else count
        speedup = Summary.of([rate / alone for rate, alone in zip(rates, one)])
        rows.append([name, spread(Summary.of(rates), 2), spread(speedup, 2, "×")])
    lines += table(["processes", "seed days per second", "× one process"], rows)
    if "2" in runs:
        two = Summary.of([rate / alone for rate, alone in zip(runs["2"], one)])
        lines += ["", f"Two processes run {spread(two, 2, '×')} the seed days per second of one (the goal: at least "
                  f"{goal:g}×): {meets(two.median >= goal)}."]
    return lines


def job_miss_cause(rate: float, measured: str, processes: int, range_seeds: int) -> str:
    """Why a run of sim.py misses its time: its seed days, shared among the processes at `rate` seed days a second."""
    days = 2 * (5 + range_seeds)  # both models, the main seeds and the range seeds
    return (f"**Why a goal is missed.** A run is its seed days shared among the processes: the main job runs {days} "
            f"and the main seeds alone 10, and {processes} processes run about {rate:.2f} seed days a second here "
            f"({measured}), so the job's seed days need about {days / rate:.0f} s and the main seeds' "
            f"{10 / rate:.1f} s before Python and its processes start. The job then runs the main seeds' 10 approval "
            f"runs, which its progress counts with the seed days ({days + 10} runs) and this estimate leaves out; the "
            "day section shows where a seed day's time goes.")
