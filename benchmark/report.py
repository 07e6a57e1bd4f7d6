"""Writes results/performance.md from what bench.py measured: every figure beside its goal and the floor.

Layer: a client's report writer; it computes ratios, verdicts and the text around
them from the measured facts, and never measures anything itself. Every figure is
a median over repetitions, shown as "median (min–max)".
"""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from benchmark.fixtures import VOCABULARY_PER_ARTICLE
from benchmark.growth import DEEP, POLL_PAGE
from benchmark.round_trips import OURS, WARM_UP
from benchmark.timing import Summary, ratios, summarise
from benchmark.tools import EDITED, MEMORY, POLL_BACK, SIX_FIELDS, STUBBED, TIMED, WAL
from record_store import PAGE_LIMIT_DEFAULT
from lab.experiments import number, table
from sim import RANGE_GROUPS
from lab.triage_runs import PUBLISHED_R6
from workload import DESCRIPTION_CHARACTERS as DESCRIPTION

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
        ("tools", tools_section), ("guards", guards_section), ("growth", growth_section), ("day", day_section),
        ("writers", writers_section), ("mcp", mcp_section), ("memory", memory_section))
    for key, write in writers:
        if key in facts:
            lines += [""] + write(facts[key], facts)
    return "\n".join(lines) + "\n"


def header(facts: Dict[str, Any]) -> List[str]:
    m = facts["machine"]
    sizes = facts["sizes"]
    lines = [
        "# Performance and scale",
        "",
        "Written by `bench.py` (`make bench`); every figure below was measured by that run. Nothing here is a "
        "test: the machine is shared, so figures move from run to run, and what matters is the ratios, "
        "which are taken between figures measured back to back.",
        "",
        f"- Measured on {m['date']}: {m['system']}, {m['machine']}, {m['cpus']} CPUs (processor: "
        f"{m['processor']}); {m['python']}; sqlite {m['sqlite']}.",
        f"- Command: `{m['command']}`; the whole run took {facts['seconds']:.0f} s ("
        + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in facts["section_seconds"].items()) + ").",
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
             "`full`; the next section sets `normal` beside it).", ""]
    lines += table(["", "floor, memory", "floor, WAL file"],
                   [["median", spread(summarise(runs[MEMORY]["floor"], "median")),
                     spread(summarise(runs[WAL]["floor"], "median"))],
                    ["p99", spread(summarise(runs[MEMORY]["floor"], "p99")),
                     spread(summarise(runs[WAL]["floor"], "p99"))]])
    lines += ["", f"Each tool, {facts['sizes']['calls']} calls per repetition, on the default day's knowledge base "
              f"({facts['sizes']['articles']} articles) and a bug channel of {facts['sizes']['items']} items. The "
              "search asks the simulated agent's kind of question; the reads cycle over every article or item; "
              f"the edits cycle over {EDITED} of them, each with the version its previous edit returned (a record "
              f"edit sets {len(SIX_FIELDS)} fields, as table R6 does); a poll asks for the events after the head "
              f"minus {POLL_BACK}; a listing is the first page of {PAGE_LIMIT_DEFAULT}. Bytes are the result as an "
              "MCP client receives it (UTF-8 JSON).", ""]
    rows = []
    for tool in TIMED + (STUBBED,):
        cells = [f"`{tool}`"]
        for kind in (MEMORY, WAL):
            cells += [spread(summarise(runs[kind][tool], "median")), spread(summarise(runs[kind][tool], "p99"), 0),
                      spread(ratios(runs[kind][tool], runs[kind]["floor"]), 1, "×")]
        cells.append(number(tools["bytes"][tool], 0) if tool in tools["bytes"] else "")
        rows.append(cells)
    lines += table(["tool", "memory median", "memory p99", "memory × floor", "WAL median", "WAL p99", "WAL × floor",
                    "result bytes"], rows)
    return lines + [""] + validation_section(tools, facts)


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
    return ["## What the guards cost", "", "### Durability", "",
            f"The floor and both edit tools, {facts['sizes']['calls']} calls per repetition each, on WAL files "
            "opened with each durability (the floor runs on the record file, so it syncs as that file does). "
            "`full` syncs the log at every commit, so an acknowledged edit survives a power cut; `normal` syncs "
            "it at checkpoints only, so a power cut may lose the last edits, while a killed process loses "
            "none.", "", *table(header, rows)]


def adversaries_part(adversaries: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs, goal = adversaries["runs"], facts["goals"]["adversarial_over_ordinary"]
    ordinary = next(iter(runs))
    rows, worst = [], 0.0
    for name, reps in runs.items():
        ratio = ratios(reps, runs[ordinary])
        worst = max(worst, ratio.median) if name != ordinary else worst
        rows.append([name, adversaries["results"][name], number(adversaries["characters"][name], 0),
                     spread(summarise(reps, "median"), 0), spread(summarise(reps, "p99"), 0),
                     "" if name == ordinary else spread(ratio, 1, "×")])
    return ["### Searches over planted adversarial articles", "",
            f"A knowledge base of {adversaries['articles']} ordinary articles and {adversaries['planted']} of each "
            "kind below, written to cost a search the most: a content that is one word of 100,000 characters, a "
            "content that holds the query word everywhere except where a word begins, and one that holds 32 "
            "distinct query words only inside other words. Each is searched with the query that matches it "
            "(`limit` 20), beside the agent's ordinary kind of question. A search reads only a long content's "
            "opening, looks for each distinct query word once, and quotes at most 300 characters.", "",
            *table(["query", "results", "result characters", "median µs", "p99 µs", "× ordinary"], rows), "",
            f"Goal: the costliest within {goal:g}× the ordinary question: {worst:.1f}×, {meets(worst <= goal)}."]


def validation_share(runs: Dict[str, List[Dict[str, float]]]) -> Summary:
    """Per repetition, the share of the full edit that validation takes: 1 - stubbed / full, in percent."""
    return Summary.of([100 * (1 - s["median"] / f["median"])
                       for f, s in zip(runs["edit_record_item"], runs[STUBBED])])


def validation_section(tools: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    runs, goals = tools["runs"], facts["goals"]
    lines = ["## Validation, and the edit against the floor", "",
             "As the article weighed it: `edit_record_item` with full validation against the same store with "
             "its `_validate` stubbed out (`lab/triage_runs.py`'s `UnvalidatedStore`), on the same database, "
             "alternately. "
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
    rows.append(["published (the article, Python 3.9.6 on an Apple M1)", f"{low}–{high}", f"{stub_low}–{stub_high}",
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
    """The in-memory edit taken apart, each part timed alone, against the gap between the edit and the floor."""
    runs, parts = tools["runs"][MEMORY], tools["parts"]
    timed = {name: summarise(reps, "median") for name, reps in parts.items()}
    total = Summary.of([sum(reps[i]["median"] for reps in parts.values()) for i in range(len(runs["floor"]))])
    gap = Summary.of([e["median"] - f["median"] for e, f in zip(runs["edit_record_item"], runs["floor"])])
    rows = [[name, spread(summary, 1)] for name, summary in sorted(timed.items(), key=lambda p: -p[1].median)]
    rows += [["**the parts together**", spread(total, 1)], ["**the edit minus the floor, measured**", spread(gap, 1)]]
    largest = sorted(timed.items(), key=lambda p: -p[1].median)[:3]
    named = "; ".join(f"{name}, {summary.median:.1f} µs" for name, summary in largest)
    over = ratios(runs["edit_record_item"], runs["floor"]).median
    rest = gap.median - total.median
    lines = ["What an in-memory edit adds to the floor, part by part: each part is the store's own code, timed "
             f"alone {facts['sizes']['calls']} times per repetition on the same item.", ""]
    lines += table(["part of edit_record_item", "µs"], rows)
    if over > facts["goals"]["edit_over_floor"]:
        lines += ["", f"**Why the edit stays at {over:.1f}× the floor.** The three largest parts: {named}. Each is a "
                  "promise of the design rather than waste: every call is checked against the inputSchema the "
                  "client was shown; the idempotency key is bound to a fingerprint of the whole call, so a reused "
                  "key with other arguments is refused; an item's values live in one JSON column (a channel's "
                  "fields are defined by people, not by the table), so a save decodes and re-encodes the item, "
                  f"long description included. The floor pays none of these. The other {rest:.0f} µs of the gap "
                  "are the glue between the parts (dispatch, the transaction helper, rows and dictionaries) and "
                  "sqlite's own work on statements the floor does not run (the channel's row). On a WAL file, "
                  "where the floor includes writing the log, the same Python weighs less (see the table above)."]
    return lines


# ---------------------------------------------------------------------------
# Growth.


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


def search_growth(growth: Dict[str, Any], goals: Dict[str, float]) -> List[str]:
    built, runs, floor = _growth(growth, "articles")
    lines = ["### Searching a knowledge base of growing size", "",
             "Articles written as sim.py writes them, with a vocabulary grown in proportion "
             f"({VOCABULARY_PER_ARTICLE:g} subject words "
             "per article). *narrow*: an article's area word, held by a handful of articles; *mid*: the simulated "
             "agent's question (an opener and three topic words); *broad*: `the and`, held by nearly every "
             "article. A search ranks every matching article by bm25 before it keeps the best 10, so its cost "
             "follows the matches, shown in brackets as the median over the queries. Goal: a mid query under "
             f"{goals['search_mid_ms']:g} ms at the largest size.", ""]
    rows = []
    for f, r in zip(built, runs):
        cells = [number(f["size"], 0)]
        for label in ("narrow", "mid", "broad"):
            matched = sorted(f["matched"][label])[len(f["matched"][label]) // 2]
            cells.append(f"{timed_cell(r[label], floor, 2, in_ms=True)} [{number(matched, 0)}]")
        cells += [f"{f['seconds']:.1f}", f"{f['bytes'] / 2 ** 20:,.0f}"]
        rows.append(cells)
    lines += table(["articles", "narrow ms [matches]", "mid ms [matches]", "broad ms [matches]", "build s",
                    "file MiB"], rows)
    mid = _ms(summarise(runs[-1]["mid"], "median"))
    return lines + ["", f"A mid query at {number(built[-1]['size'], 0)} articles takes {spread(mid, 2, ' ms')}: "
                        f"{meets(mid.median < goals['search_mid_ms'])}."]


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


def day_section(rows: List[Dict[str, Any]], facts: Dict[str, Any]) -> List[str]:
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


def mcp_section(mcp: Dict[str, Any], facts: Dict[str, Any]) -> List[str]:
    lines = ["## The MCP server over stdio", "",
             f"`tools/call read_knowledge_article` of the demo's first article, {facts['sizes']['round_trips']} "
             f"round trips per repetition after {WARM_UP} untimed ones, each timed from writing the request line to "
             "reading its answer (`benchmark/round_trips.py`). The SDK server serves the same store read through the "
             "official `mcp` package (`benchmark/sdk_server.py`).", ""]
    rows = [[name, spread(_ms(summarise(reps, "median")), 3), spread(_ms(summarise(reps, "p99")), 3)]
            for name, reps in mcp["runs"].items()]
    lines += table(["server", "median ms", "p99 ms"], rows)
    tools = facts.get("tools")
    if tools:
        inside = summarise(tools["runs"][MEMORY]["read_knowledge_article"], "median")
        ours = summarise(mcp["runs"][OURS], "median")
        lines += ["", f"The same read through `call_tool` in process takes {inside.median:.1f} µs (the tools table), "
                  f"so a round trip over stdio is about {ours.median / inside.median:.0f}× the store's own work: "
                  "JSON-RPC framing, two pipes and two process switches."]
    if not mcp["sdk"]:
        lines += ["", "The SDK server was not measured: no Python here can import `mcp`. `make conformance` "
                  "installs it in `.venv`; `make bench` then finds it there."]
    return lines


def memory_section(memory: Optional[Dict[str, Any]], facts: Dict[str, Any]) -> List[str]:
    lines = ["## Peak memory", ""]
    if memory is None:
        return lines + ["Not measured: Python's `resource` module is missing on this system."]
    run = (f"`sim.py {' '.join(memory['arguments'])}`" if memory["arguments"] else
           f"`sim.py` (seeds 1–5 and {5 * RANGE_GROUPS} more, both models)")
    rows = [[f"{run}, its own process", f"{memory['self']:,.0f}"],
            [f"{run}, its largest child process", f"{memory['children']:,.0f}"]]
    growth = facts.get("growth")
    if growth:
        largest = growth["built"]["articles"][-1]
        rows.append([f"the {number(largest['size'], 0)}-article build (its own process)",
                     f"{largest['peak_rss_mib']:,.0f}"])
    lines += table(["run", "peak RSS MiB"], rows)
    return lines + ["", f"The sim.py run took {memory['seconds']:.0f} s here. Its children are the worker processes "
                        "of its process pool (one per CPU by default); each holds one seed's stores at a time. "
                        "Peaks are read by `benchmark/memory.py` (VmHWM on Linux, ru_maxrss elsewhere)."]
