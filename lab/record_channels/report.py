"""Write the record-channel experiments' measurements as results/record_channels.md.

Layer: below rerun.py, which hands it measured.Report; on pages.py (the page's skeleton, shared with the
knowledge-base pages), figures.py (a figure's cells, as on the knowledge-base page), measured.py (what the
run measured and what follows from it: sums, ratios, the R6 statistics, the verdicts) and reasons.py
(why a figure lies outside our range). It computes nothing itself: it lays each published figure beside
ours, with a range and a verdict, says how strong each match is (evidence.py: each published figure
counted once, checks apart, firm and loose matches), and gives every figure outside our range its reason.
Every number in the prose comes from the run (or is derived from published figures and says so);
published figures appear only in columns headed "published". Every line that reports a wall time ends
with TIMING_MARK, the line on what made the page with PROVENANCE_MARK; every other line depends only on
the seeds and the options.
"""

import json
from typing import Dict, List, Sequence, Tuple

from lab import evidence, figures, pages
from lab.experiments import INSIDE, OUTSIDE, TIMING_MARK, number, seeds_text, table
from lab.record_channels import measured
from lab.record_channels.measured import Report
from lab.record_channels.reasons import r6_cause, reason
from lab.record_channels.runs import TARGET_FIELDS, listing_limit_max, points_max

RESULTS = "record_channels.md"
FIGURE_HEADER = tuple(pages.figure_columns())  # figure | # | published | ours | our range | verdict


# ---------------------------------------------------------------------------
# Rows.


def figure_row(report: Report, label: str, key: str, unit: str = "") -> List[str]:
    """label | published | ours | range | verdict, for one figure; an outside verdict gives its reason."""
    row = report.rows[key]
    verdict = figures.verdict_cell(row.get("verdict"), lambda: f": {reason(report, key)}")
    number_cell = figures.number_cell(report.basis, report.numbers(), key) if "verdict" in row else "—"
    return [label, number_cell, figures.published_cell(row, unit), *figures.figure_cells(row, unit, verdict)]


# ---------------------------------------------------------------------------
# The markdown.


def markdown(report: Report) -> str:
    """The whole of results/record_channels.md."""
    return pages.page([header(report), strength_of_evidence(report), setup(report), values_example(report),
                       r1(report), r2(report), r3(report), r4(report), r5(report), r6(report), run_time(report),
                       differences(report), sweeps(report), each_figure_once(report)])


def sweeps(report: Report) -> List[str]:
    """What the article never states, swept: per parameter, ours at each plausible value beside the published
    figure, the value that would hit it, and whether the figure therefore rests on the parameter."""
    found = measured.sweeps(report)
    return pages.sweeps_section(
        f"{pages.COUNT_WORDS[len(found)]} parameters set figures of this page and are stated nowhere in the "
        "article. Each keeps the value the run uses (the most natural one, or ours); each table sets ours at the "
        "parameter's plausible values beside the published figure, worked out from this run's counts (derived, "
        "apart from the row as run). A figure a sweep can reach rests on that parameter: it is tallied as neither "
        "a match nor a miss, and 'Each published figure once' lists it so.",
        ["ours"], [[sweep] for sweep in found], report.rows, report.numbers(), [report.assessed()],
        {"KiB a page": " KiB", "KiB a poll": " KiB"}, lambda sweep: moved_words(report, sweep))


def moved_words(report: Report, sweep: evidence.Sweep) -> str:
    """What a parameter does to the other figures it moves (Sweep.moves): how far at the value that moves each most,
    where our range moved as far lies, and so whether the parameter decides the match (evidence.settled: then the
    figure is measured, one cause with the sweep's) or the figure stays fixed by the inputs, the cause the sweep's
    figures' alone."""
    labels, numbers, sentences = figure_labels(report), report.numbers(), []
    units = {key: unit for _, key, unit in all_specs(report)}
    for key, shifts in sweep.moves.items():
        row, unit = report.rows[key], units.get(key, "")
        far = max(range(len(shifts)), key=lambda n: abs(shifts[n]))
        shift = shifts[far]
        if row.get("low") is None or not shift:
            continue
        decimals = figures.shown_decimals(row)
        moved_range = f"{number(row['low'] + shift, decimals, unit)} – {number(row['high'] + shift, decimals, unit)}"
        cause = report.basis.cause_of(key) or next((report.basis.cause_of(k) for k in sweep.keys), None)
        shared = [f"#{numbers[k]}" for k in (report.basis.causes.get(cause, ()) if cause else sweep.keys)
                  if k in numbers and k != key]
        said = (f"The parameter moves #{numbers[key]} ('{labels[key]}') too, ours and every group of the range "
                f"alike: at the row '{sweep.values[far][0]}' ours is {number(abs(shift), decimals, unit)} "
                f"{'less' if shift < 0 else 'more'}, and our range, moved as far, is {moved_range}.")
        if evidence.decides(sweep, key, report.draw_rows()):
            said += (" In some draw it meets the published figure at one value tried and misses it at another: the "
                     "parameter decides that match, so the figure is measured, one cause with "
                     f"{_and(shared)}.")
        else:
            held = all(evidence.meets(rows[key]) for rows in report.draw_rows())
            said += (" In every draw it meets the published figure at every value tried" if held else
                     " In each draw it meets the published figure at every value tried or at none")
            said += (": the parameter does not decide that match, so the figure stays fixed by the inputs, and this "
                     f"cause explains {_and(shared)} alone.")
        sentences.append(said)
    return " ".join(sentences)


def _and(items: Sequence[str]) -> str:
    """'#9, #11 and #23'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def header(report: Report) -> List[str]:
    """The title, the page's answer in one sentence, and what made the page."""
    return pages.header(
        report.provenance, "Record channels: the published figures beside ours", answer(report),
        "Written by `python3 triage.py`; the published figures are listed in `docs/source-figures.md`. A scripted "
        "agent triages a bug tracker through `record_store.py`'s agent tools only (`list_record_items`, "
        "`read_record_item`, `edit_record_item`, `poll_resource_events`, by `call_tool`); people act through the "
        "store's plain methods. Every count comes from what the tools returned, or from the store's rows afterwards.")


def answer(report: Report) -> str:
    """The sentence a reader can quote: how many of the article's independent figures were reproduced, and how
    firmly; and whether the published rejection came back."""
    counts = report.tally()
    rejection = ("comes back as the same object, a copy rather than evidence, since its messages were written "
                 "after the article's" if measured.rejection_matches(report) else "comes back different (see below)")
    return (pages.answer_opening("record-channel", counts) + pages.draws_words(report.draws)
            + f"ours {evidence.measured_words(counts, report.draw_tallies())}; the published `values` rejection "
            f"{rejection}.")


def strength_of_evidence(report: Report) -> List[str]:
    """The tally of independent figures and the rules it counts by."""
    counts = report.tally()
    shown = pages.shown_strengths([counts, *report.draw_tallies()])
    rules = pages.counting_rules(
        "a share beside its count, fields left beside fields saved, the same count in a second row",
        pages.rule_words(report.firm_at(), counts[evidence.FIRM]),
        f"{pages.draws_rule(report.draws)} R6's timings are apart: they are reported, not tallied.")
    return pages.strength_section(pages.tally_columns(shown),
                                  [pages.tally_cells(counts, shown, report.draw_tallies())], rules)


def each_figure_once(report: Report) -> List[str]:
    """Every independent figure with the rows that rest on it, where the published figure falls among our groups,
    our range's width and the match's strength."""
    labels = figure_labels(report)
    units = {key: unit for _, key, unit in all_specs(report)}
    covered = report.basis.covered(key for key, row in report.rows.items() if "verdict" in row)
    assessed = report.assessed()
    rows = [pages.evidence_cells(n, labels.get(key, f"`{key}`"),
                                 [labels.get(k, f"`{k}`") for k in covered.get(key, []) if k != key],
                                 figures.published_cell(report.rows[key], units.get(key, "")))
            + figures.strength_cells(report.basis, assessed[key], report.numbers())
            for key, n in report.numbers().items()]
    return pages.each_figure_once(
        "The independent figures the tally counts, numbered as in the `#` column of the tables, with the rows "
        "that restate them. **percentile**: where the published figure falls among our groups of five seeds "
        "(single pages for R2), the share below it (a group within its rounding counted half): 0% or 100% lie "
        "outside every group. **width**: our range's width as a share of the published figure.",
        pages.evidence_columns(), rows)


def setup(report: Report) -> List[str]:
    """What ours, the range, the verdict and the # mean, and the scenario."""
    s = report.scenario
    groups = len(report.groups)
    lines = [
        "## How to read the tables",
        "",
        f"- **ours**: seeds {seeds_text(report.seeds)} summed ({len(report.seeds)} seed"
        f"{'' if len(report.seeds) == 1 else 's'}, "
        f"{report.items:,} bugs for R1 and R5; one R3 and R4 run per seed).",
    ]
    if groups:
        estimate = (f"so it is close to normal, and {groups} groups estimate its mean and spread (`--ranges N` "
                    "takes N)" if groups > 1 else
                    "but one group has no spread: its value is the whole range (`--ranges 2` or more estimates one)")
        lines.append(f"- **our range**: where 95% of such figures fall, estimated as the mean ± 1.96 standard "
                     f"deviations of the same figure over {groups} further groups of five seeds (seeds "
                     f"{report.groups[0][0]}–{report.groups[-1][-1]}). Each figure sums hundreds of independent "
                     f"bugs, {estimate}. R2's figures are published for one page each, so theirs is the range of one "
                     "page, over the same seeds one by one.")
    else:
        lines.append("- **our range**: not computed (`--ranges 0`).")
    lines += [
        pages.verdict_bullet("An outside verdict gives its reason, computed from this run. R3's counts cannot "
                             "depend on the seed, so they have no range: they must be exact."),
        pages.number_bullet(),
        "",
        "The scenario (change any of it on the command line; `python3 triage.py --help`):",
        "",
    ]
    lines += table(("constant", "value", "source"), [
        ("New bugs per seed", f"{s.items:,}", "published"),
        ("status a triage asks for", ", ".join(s.statuses), "ours: the labels of every status but New"),
        ("severity written as a bare word (\"major\")", f"{s.bare_severity_share:.0%}", "ours: not published"),
        ("points drawn from", ", ".join(map(str, s.points)), "published"),
        (f"due written as \"{s.weekday}\" (else an ISO date)", f"{s.weekday_share:.0%}", "published: about half"),
        ("description characters", f"{s.description[0]:,}–{s.description[1]:,}, uniform", "published"),
        ("preview characters, previews per page", f"{s.preview_characters}, {s.page_limit}", "published"),
        ("the agent's today", f"{s.today.isoformat()} ({s.today:%A})", "ours"),
    ])
    return lines


def values_example(report: Report) -> List[str]:
    """The published `values` rejection beside what our store returned for the same inputs."""
    ours = json.dumps(report.rejection)
    published = report.published_rejection
    verdict = ("exact: the same object, keys in the same order, the same messages; the texts differ only by the "
               "published space after `\"fields\": [`" if measured.rejection_matches(report) else
               "different: see the two texts above")
    return [
        "## The published `values` rejection",
        "",
        "A real `edit_record_item` call, at the `values` detail level, with the inputs the article's message "
        "names (`status` \"In progress\", `owner` \"Aiko\", `points` 20, `due` \"Friday\", and a value for the "
        "formula `age_days`).",
        "",
        "Published:",
        "",
        "```json",
        published,
        "```",
        "",
        "Ours (`json.dumps` of the result):",
        "",
        "```json",
        ours,
        "```",
        "",
        f"Verdict: {verdict}.",
    ]


R1_LABELS = {
    "no.terse": ("no", "nothing"), "no.field": ("no", "which field"),
    "no.values": ("no", "field, reason, allowed values"), "no.labels": ("no", "field, reason, values and labels"),
    "yes.terse": ("yes", "nothing"), "yes.field": ("yes", "which field"),
    "yes.values": ("yes", "values"), "yes.labels": ("yes", "values and labels"),
}


def r1(report: Report) -> List[str]:
    """R1: our rows in the article's shape, then each figure beside the published one."""
    rows = []
    for row, (schema, says) in R1_LABELS.items():
        r = report.main["R1"][row]
        rows.append((schema, says, f"{r['saved']:,} ({number(report.ours(f'R1.{row}.saved_pct'), 1)}%)",
                     f"{r['flagged']:,}", f"{report.ours(f'R1.{row}.calls_per_item'):.2f}",
                     f"{r['first_failed']:,}"))
    lines = [
        f"## R1: does the schema in the page matter? ({report.items:,} bugs, six target fields each)",
        "",
        "Ours, in the article's shape (the published row \"values, or values and labels\" is split in two):",
        "",
    ]
    lines += table(("agent read the schema", "the rejection says", f"fields saved (of {report.fields:,})",
                    "left to a person", "edit calls per item", "first edit refused"), rows)
    lines += ["", "Each figure beside the published one:", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r1_specs()])
    lines += ["", *r1_prose(report)]
    return lines


# ---------------------------------------------------------------------------
# The figure tables' rows: (label, figure key, unit), in page order.

Spec = Tuple[str, str, str]


def all_specs(report: Report) -> List[Spec]:
    """Every row of every figure table, in page order."""
    return r1_specs() + r2_specs(report) + r3_specs() + r4_specs() + r5_specs()


def figure_labels(report: Report) -> Dict[str, str]:
    """Each figure's label in its table."""
    return {key: label for label, key, _ in all_specs(report)}


def r1_specs() -> List[Spec]:
    specs = [("bugs asking for 20 points", "R1.twenty", "")]
    for row, (schema, says) in R1_LABELS.items():
        name = f"schema {schema}, rejection says {says}"
        specs += [(f"{name}: fields saved", f"R1.{row}.saved", ""), (f"{name}: saved", f"R1.{row}.saved_pct", "%"),
                  (f"{name}: left to a person", f"R1.{row}.left", ""),
                  (f"{name}: edit calls per item", f"R1.{row}.calls_per_item", ""),
                  (f"{name}: first edits refused", f"R1.{row}.first_failed", "")]
    gap = "reading the schema, with labels in the rejection, saves per item"
    return specs + [(f"{gap}: first edits refused (schema no minus yes)", "R1.gap.first_failed_per_item", ""),
                    (f"{gap}: edit calls (schema no minus yes)", "R1.gap.calls_per_item", "")]


def r2_specs(report: Report) -> List[Spec]:
    return [(f"a page of {report.scenario.page_limit} previews", "R2.page_kib", " KiB"),
            ("reading those items in full", "R2.full_kib", " KiB"),
            ("the schema in the page", "R2.schema_bytes", " bytes"),
            ("the schema's share of the page", "R2.schema_share_pct", "%")]


def r3_specs() -> List[Spec]:
    specs = []
    for run, (change, pagination) in R3_LABELS.items():
        for name, label in (("pages", "pages"), ("reads", "item reads"), ("twice", "read twice"),
                            ("never", "never seen")):
            specs.append((f"{change}, {pagination}: {label}", f"R3.{run}.{name}", ""))
    return specs


def r4_specs() -> List[Spec]:
    return [("re-list every page, compare versions: calls", "R4.relist.calls", ""),
            ("re-list: data returned", "R4.relist.kib", " KiB"),
            ("re-list: changes found", "R4.relist.found", ""),
            ("one poll_resource_events from the stored sequence: calls", "R4.poll.calls", ""),
            ("poll: data returned", "R4.poll.kib", " KiB"),
            ("poll: changes found", "R4.poll.found", "")]


def r5_specs() -> List[Spec]:
    return [("version from the read: conflicts", "R5.from_read.conflicts", ""),
            ("version from the read: people's changes overwritten", "R5.from_read.overwritten", ""),
            ("version re-read just before writing: conflicts", "R5.reread.conflicts", ""),
            ("re-read just before writing: people's changes overwritten", "R5.reread.overwritten", ""),
            ("bugs a person moved (ours)", "R5.moved", "")]


def r1_prose(report: Report) -> List[str]:
    """What the R1 run shows, every number from it."""
    main, facts = report.main["R1"], measured.r1_facts(report)
    twenty, p, ceiling, wrong = facts.twenty, facts.share, facts.ceiling, facts.wrong
    fields = len(TARGET_FIELDS)
    flagged = main["no.values"]["flagged_by_field"]
    calls = lambda row: report.ours(f"R1.{row}.calls_per_item")  # noqa: E731
    too_many = " or ".join(str(n) for n in facts.too_many)
    labelled = ("reaches the ceiling" if "no.labels" in facts.rows_at_ceiling else
                f"saves {main['no.labels']['saved']:,} fields")
    return [
        "What the run shows:",
        "",
        f"- The ceiling is {ceiling:,} fields: all but the {twenty} bugs whose person asked for {too_many} points, "
        f"which the field stops at {points_max():g}. The agent never clamps, so those are refused and left "
        f"to a person in every row; {len(facts.rows_at_ceiling)} of the {len(main)} rows reach the ceiling. Across all "
        f"rows the store holds {wrong} value{'' if wrong == 1 else 's'} nobody asked for (a clamped number, a label "
        f"stored as a value, a wrong option).",
        f"- With the schema, the first edit is refused only for those {twenty} bugs (share p = {p:.3f}). "
        f"Calls per item are then 1 + {fields}p = {facts.split_calls:.2f} with a terse rejection (the agent "
        f"splits the edit into {fields}) and 1 + p = {facts.one_more:.2f} otherwise: measured "
        f"{calls('yes.terse'):.2f} and {calls('yes.field'):.2f}.",
        f"- Without it every first edit is refused (statuses, owners, severities and areas arrive as labels). A "
        f"terse rejection costs 1 + {fields} = {1 + fields} calls per item (measured {calls('no.terse'):.2f}); "
        f"\"which field\" lets the agent drop the named fields and send the rest once, but not fix anything, so "
        f"both save only numbers and ISO dates. {main['no.field']['nothing_left']} bugs had nothing left to send "
        f"after the first refusal.",
        f"- Allowed values without labels fix \"In progress\", \"Aiko\", \"S2 Major\" and \"API\" (by spelling) "
        f"and \"Friday\" (the message names the date format), but not \"Won't fix\" ({flagged['status']} here) "
        f"or a bare \"major\" ({flagged['severity']}). With labels in the rejection the agent without the schema "
        f"{labelled} at {calls('no.labels'):.2f} edit calls per item, {_gap_words(report)}.",
    ]


def _gap_words(report: Report) -> str:
    """How many more edit calls per item the agent without the schema makes, and the first edits the schema spares,
    as the signs of the run's figures have them."""
    calls, spared = report.ours("R1.gap.calls_per_item"), report.ours("R1.gap.first_failed_per_item")
    more = f"{abs(calls):.2f} {'more' if calls >= 0 else 'fewer'} than with the schema"
    if spared > 0:
        return f"{more}: the {spared:.2f} first edits per item that reading the schema spares"
    return f"{more}, and reading the schema spares no first edit ({spared:.2f} per item)"


def r2(report: Report) -> List[str]:
    """R2: a page of previews, the same items read in full, and the schema, each figure for one page."""
    count, mean, deviation = measured.description_lengths(report)
    lines = ["## R2: what a page of previews weighs, against reading the items in full", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r2_specs(report)])
    lines += ["", f"Each published figure is one page, so ours averages the first page of each main seed and "
              f"{single_page_range(report)} A preview weighs {measured.preview_bytes(report):,.0f} bytes; reading the "
              f"same items in full weighs {measured.full_over_page(report):.1f} times the page, since a preview keeps "
              f"{report.scenario.preview_characters} characters of a description and a read keeps all of it: the "
              f"{count:,} descriptions read averaged {mean:,.0f} characters (standard deviation {deviation:,.0f}). "
              f"The page is bounded (`limit` at most {listing_limit_max()}), so a big channel costs "
              "more calls, never a bigger one."]
    return lines


def single_page_range(report: Report) -> str:
    """Where R2's ranges come from: one page per seed, over the range seeds."""
    seeds = [seed for group in report.groups for seed in group]
    if not seeds:
        return "has no range (`--ranges 0`)."
    return (f"its range, marked \"one page\", is that of a single page: mean ± 1.96 standard deviations over the "
            f"first page of each of seeds {seeds[0]}–{seeds[-1]}, one page per seed ({len(seeds)} pages).")


R3_LABELS = {"create.offset": ("created", "offset"), "create.before_id": ("created", "before_id"),
             "delete.offset": ("already-read items deleted", "offset"),
             "delete.before_id": ("already-read items deleted", "before_id")}


def r3(report: Report) -> List[str]:
    """R3: offset against before_id while the channel changes."""
    s = report.scenario
    runs = report.main["R3"]["create.offset"]["runs"]
    lines = [f"## R3: offset against before_id ({s.offset_items:,} items by {s.page_limit}, newest first, "
             f"{runs} runs; {s.offset_changes} items change after each page)", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r3_specs()])
    lines += ["", "The offset pass is our counterfactual store (`OffsetPagedStore` of `lab/record_channels/runs.py`: "
              "the same tools, `offset` in place of `before_id`). New bugs at the top push every item down, so each "
              f"offset page starts on {s.offset_changes} items already read; deleting read items pulls everything up, "
              f"so each page starts past {s.offset_changes} unread ones, which nobody lists although they existed from "
              "start to finish. A `before_id` names the last item read, which stays put even when it is itself "
              "deleted (the store keeps a tombstone). Bugs created during the pass appear on no page: the event "
              "log is what finds them (R4)."]
    return lines


def r4(report: Report) -> List[str]:
    """R4: re-listing against one poll of the event log."""
    s = report.scenario
    lines = [f"## R4: finding what changed since the last pass ({s.changes_items} items; then people modify "
             f"{s.changes[0]}, create {s.changes[1]} and delete {s.changes[2]}; per run)", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r4_specs()])
    ratio = measured.relist_over_poll(report)
    less = (f"{ratio:,.0f} times less data than re-listing" if ratio >= 1 else
            f"{1 / ratio:,.1f} times more data than re-listing")
    lines += ["", "The run stops with an error unless both strategies find exactly the "
              f"{measured.changes_per_run(report)} changed items, and nothing else, in every run. Polling returned "
              f"{less}: it costs what changed, re-listing costs the channel's size every time. Between runs the "
              "agent keeps one integer, the last sequence."]
    return lines


def r5(report: Report) -> List[str]:
    """R5: the version from the read against one re-read just before writing."""
    r = report.main["R5"]
    lines = [f"## R5: the version check ({r['edits']:,} edits; a person moves a bug between the agent's read and "
             f"write with probability {report.scenario.move_share:.3f})", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r5_specs()])
    lines += ["", *r5_prose(report)]
    return lines


def r5_prose(report: Report) -> List[str]:
    """What R5 shows, each claim only where the run's counts bear it out."""
    r = report.main["R5"]
    moved, from_read, reread = r["moved"], r["from_read"], r["reread"]
    each_caught, each_missed = measured.r5_checks(report)
    if each_caught:
        caught = ("With the version from the read, each move becomes a conflict; the agent re-reads, sees the bug "
                  "already in progress with an owner, and adds only the severity.")
    else:
        caught = (f"With the version from the read, {from_read['conflicts']} of the {moved} moves became a conflict "
                  f"and {from_read['overwritten']} people's changes were written over.")
    if each_missed:
        missed = ("Re-reading the version just before writing passes every check and silently writes over the "
                  "person's status and owner: the check only protects what the agent actually read.")
    else:
        missed = (f"Re-reading the version just before writing met {reread['conflicts']} conflicts and wrote over "
                  f"{reread['overwritten']} people's changes.")
    return [f"Both strategies meet the same {moved} moves. {caught} {missed}"]


def r6_verdict(report: Report) -> str:
    """Our median per-run ratio against the published ratio's span (derived): inside, or outside with the cause."""
    return figures.verdict_cell(INSIDE if measured.r6_inside(report) else OUTSIDE, lambda: f": {r6_cause(report)}")


def span(values: Sequence[float]) -> str:
    """Timed values as their smallest–largest, with the timing marker."""
    return f"{min(values):,.1f}–{max(values):,.1f} {TIMING_MARK}"


def ratio(values: Sequence[float]) -> str:
    """Per-run ratios as their median, and the runs' span, with the timing marker."""
    return f"{measured.median(values):.2f} (runs {min(values):.2f}–{max(values):.2f}) {TIMING_MARK}"


def r6(report: Report) -> List[str]:
    """R6: microseconds per edit with validation, with the published kind of stub, and with validation alone
    stubbed; the ratio set beside the published one is the like-for-like one."""
    s = report.scenario
    runs = f"{s.timed_runs} run{'' if s.timed_runs == 1 else 's'}"
    lines = [f"## R6: what validation costs ({s.timed_edits:,} valid six-field edits per run, {runs}, median per "
             "edit)", ""]
    if not report.r6:
        return lines + ["Not timed in this run (`--timed-runs 0`)."]
    pv, ps = report.published_r6["validated"], report.published_r6["stubbed"]
    f = measured.r6_figures(report)
    low, high = f["published_ratio"]
    lines += table(("figure", "published (Python 3.9.6, Apple M1)", "ours (this machine)", "verdict"), [
        ("µs per edit, with validation", f"{pv[0]}–{pv[1]}", span(report.r6["validated"]), "— (another machine)"),
        ("µs per edit, validation and the schema read stubbed (the published stub)", f"{ps[0]}–{ps[1]}",
         span(report.r6["unread"]), "— (another machine)"),
        ("µs per edit, validation stubbed, the schema still read (ours only)", "—", span(report.r6["stubbed"]),
         "—"),
        ("with / validation and schema read stubbed", f"{low:.2f}–{high:.2f} (derived)", ratio(f["ratios"]),
         f"{r6_verdict(report)} {TIMING_MARK}"),
        ("with / validation stubbed, the schema still read (ours only)", "—", ratio(f["checks_ratios"]), "—"),
    ])
    lines += ["", "The published stub replaced `validate()`, which held the schema query and the per-field checks "
              "(`docs/source-figures.md`, R6), so its figures sit beside `UnreadSchemaStore` "
              "(`lab/record_channels/runs.py`), which stubs the store's `_validate` (the per-field checks and the "
              "unique-value and relation queries) and reads the channel's schema once and keeps it. "
              "`UnvalidatedStore` stubs `_validate` alone, to split our cost in two. Ratios are the median of the "
              "per-run ratios, here and in the prose. Every edit in every variant succeeds, so all do the same "
              "writes. Timing lines end with a marker; the "
              "determinism test skips them."]
    return lines


def run_time(report: Report) -> List[str]:
    """How long the run took (a timing line)."""
    seeds_seconds, seconds, jobs = report.timing
    seeds = measured.seed_count(report)
    return pages.run_time([pages.timed(
        f"{pages.took(seconds, jobs)}: {seeds_seconds:.1f} s for {seeds} seed{'' if seeds == 1 else 's'}, the rest "
        "for R6's timed edits and the report.")])


def differences(report: Report) -> List[str]:
    """Every figure outside our range with its reason, one line per reason, and R6's when outside."""
    lines = ["## Where we differ, and why", ""]
    outside, unjudged = measured.outside_and_unjudged(report)
    if unjudged:
        lines.append(f"- {len(unjudged)} figures have no range to be judged against (`--ranges 0`).")
    if not outside and not unjudged:
        lines.append("- Every published count is exact or inside our range.")
    seen = set()
    for key in outside:
        text = reason(report, key)
        if text in seen:
            continue
        seen.add(text)
        names = [k for k in outside if reason(report, k) == text]
        lines.append(f"- {', '.join(f'`{k}`' for k in names)}: {text}.")
    if report.r6 and not measured.r6_inside(report):
        lines.append(f"- R6, the cost of validation (timed on this machine, so it moves from run to run): "
                     f"{r6_cause(report)}. {TIMING_MARK}")
    return lines
