"""lab/triage_report.py: write triage.py's measurements as results/record_channels.md.

Layer: below triage.py, beside triage_runs.py, on figures.py (a figure's cells and the
marginal miss, as in sim_report.py) and evidence.py (each published figure counted once,
checks apart, firm and loose matches); it measures nothing itself. It lays each published
figure beside ours, with a range and a verdict, says how strong each match is, and gives
every figure outside our range a reason computed from this run. Every number in the
prose comes from the run (or is derived from published figures and says so);
published figures appear only in columns headed "published". Every line that
reports a wall time ends with TIMING_MARK, the line on what made the page with
PROVENANCE_MARK; every other line depends only on the seeds and the options.
"""

import dataclasses
import json
import statistics
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from lab import evidence, figures
from lab.experiments import (
    INSIDE, NO_RANGE, OUTSIDE, TIMING_MARK, VERDICT_RULE, Provenance, number, seeds_text, table,
)
from lab.record_channels.runs import TARGET_FIELDS, Scenario, listing_limit_max, points_max

RESULTS = "record_channels.md"
UNEXPLAINED = "no reason written for this figure yet"
FIGURE_HEADER = ("figure", "#", "published", "ours", "our range", "verdict")
PUBLISHED_RUNS = 5  # R3's published counts sum five runs


@dataclasses.dataclass
class Report:
    """Everything triage.py hands over to be written."""

    scenario: Scenario
    seeds: Sequence[int]
    groups: Sequence[Sequence[int]]
    rows: Dict[str, Dict[str, Any]]  # figure key -> ours, low, high, decimals, published, verdict
    main: Dict[str, Any]  # the summed counts of the main seeds
    published: Dict[str, float]
    published_r6: Dict[str, Tuple[float, float]]
    r6: Optional[Dict[str, List[float]]]  # median µs per edit per run: validated, stubbed, unread; None if skipped
    rejection: Dict[str, Any]  # what our edit_record_item returned for the published inputs
    published_rejection: str
    timing: Tuple[float, float, int]  # seconds for the seeds, for the whole run, processes
    basis: evidence.Basis  # which published figures restate others, which the run fixes
    provenance: Provenance

    def ours(self, key: str) -> float:
        """Our value of one figure, unrounded."""
        return self.rows[key]["ours"]

    def assessed(self) -> Dict[str, evidence.Assessment]:
        """Every independent figure with its strength."""
        return evidence.assess(self.rows, self.basis)

    def numbers(self) -> Dict[str, int]:
        """Each independent figure's number on the page, in the order of the rows, which is the tables' order."""
        return figures.numbered(self.basis, [key for key, row in self.rows.items() if "verdict" in row])

    @property
    def items(self) -> int:
        """Bugs triaged in R1, over the main seeds."""
        return self.main["R1"]["no.terse"]["items"]

    @property
    def fields(self) -> int:
        """Target fields in R1: those of TARGET_FIELDS, per bug."""
        return self.items * len(TARGET_FIELDS)


# ---------------------------------------------------------------------------
# Rows and reasons.


def figure_row(report: Report, label: str, key: str, unit: str = "") -> List[str]:
    """label | published | ours | range | verdict, for one figure; an outside verdict gives its reason."""
    row = report.rows[key]
    verdict = figures.verdict_cell(row.get("verdict"), lambda: f": {reason(report, key)}")
    number_cell = figures.number_cell(report.basis, report.numbers(), key) if "verdict" in row else "—"
    return [label, number_cell, figures.published_cell(row, unit), *figures.figure_cells(row, unit, verdict)]


def reason(report: Report, key: str) -> str:
    """Why a figure lies outside our range: the cause where we know it, computed from this run."""
    return figures.reason(CAUSES, key, (report, key), lambda: marginal(report, key) or UNEXPLAINED)


def marginal(report: Report, key: str) -> Optional[str]:
    """A miss by at most figures.MARGINAL of the range's width: chance, most likely."""
    near = figures.marginal(report.rows[key])
    return near and f"{near}, within what another draw of seeds could give"


def _nothing_left_cause(report: Report, key: str) -> Optional[str]:
    """Why ours makes fewer calls without the schema when the rejection names only the field."""
    row = report.main["R1"]["no.field"]
    if not row["nothing_left"]:
        return None
    return (f"{row['nothing_left']} of our {row['items']:,} items had every field refused by the first edit "
            f"(twenty points and a weekday due), so our agent had nothing left to send and stopped at one call. "
            f"The published figure means the original made a second call for those items too, and three ways fit it "
            f"equally, nothing published telling them apart: it sent an empty edit, which its store took as a "
            f"no-op (ours refuses one as invalid_arguments); it sent the refused edit again; or it sent the "
            f"refused fields once more without changing them")


def _values_cause(report: Report, key: str) -> Optional[str]:
    """Why values without labels save fewer fields: the unmatched statuses and severities, ours a choice."""
    flagged = report.main["R1"]["no.values"]["flagged_by_field"]
    status, severity = flagged["status"], flagged["severity"]
    implied = implied_bare_share(report)
    return (f"how often people write \"Won't fix\" or a bare severity word is our choice, and neither can be matched "
            f"from values alone: ours flagged {status} statuses (Won't fix is one of {len(report.scenario.statuses)} "
            f"triage statuses) and {severity} bare severities ({report.scenario.bare_severity_share:.0%} of "
            f"severity intents). With our status mix the published row implies bare severity words in about "
            f"{implied:.0%} of intents; we kept ours, since nothing published gives the share")


def implied_bare_share(report: Report) -> float:
    """The share of bare severity words the published values row implies, with our status mix (derived)."""
    left = report.published["R1.no.values.left"] - report.published["R1.twenty"]
    wont_fix = report.main["R1"]["no.values"]["flagged_by_field"]["status"] / report.items
    return max(0.0, left / (report.fields / len(TARGET_FIELDS)) - wont_fix)


def _preview_cause(report: Report, key: str) -> str:
    """Why our page of previews weighs more: its nulls and its schema, measured; what is left, unexplained."""
    r2 = report.main["R2"]
    nulls = (r2["page_bytes"] - r2["page_bytes_no_nulls"]) / r2["previews"]
    preview = (r2["page_bytes"] - r2["schema_bytes"]) / r2["previews"]
    trimmed = (r2["page_bytes_no_nulls"] - r2["schema_bytes"]) / r2["pages"] + report.published["R2.schema_bytes"]
    schema = "larger" if r2["schema_bytes"] / r2["pages"] > report.published["R2.schema_bytes"] else "no larger"
    return (f"our previews spell out every unset field as null, {nulls:,.0f} of each preview's {preview:,.0f} "
            f"bytes, and our schema is {schema} (R2's schema row). Without the nulls, and with a schema of the "
            f"published size, a page would weigh {trimmed / 1024:,.1f} KiB, "
            + _unexplained(trimmed / 1024, report.published["R2.page_kib"]))


def _relist_cause(report: Report, key: str) -> str:
    """Why our re-list returns more: the nulls and the schema on each of its pages, measured on R4's pages."""
    r4 = report.main["R4"]
    relist, runs = r4["relist"], r4["runs"]
    kib = lambda size: size / runs / 1024  # noqa: E731
    trimmed = kib(relist["bytes_no_nulls"] - relist["schema_bytes"]
                  + relist["calls"] * report.published["R2.schema_bytes"])
    return (f"every page of our re-list carries our schema, {relist['schema_bytes'] / relist['calls']:,.0f} bytes "
            f"(R2's schema row), and our {relist['previews'] / runs:,.0f} previews spell out every unset field as "
            f"null: {kib(relist['bytes'] - relist['bytes_no_nulls']):,.1f} KiB of its {kib(relist['bytes']):,.1f}. "
            f"Without the nulls, and with schemas of the published size, a re-list would return {trimmed:,.1f} KiB, "
            + _unexplained(trimmed, report.published["R4.relist.kib"]))


def _unexplained(ours_kib: float, published_kib: float) -> str:
    """What is left between a trimmed size of ours and the published one, which nothing published breaks down."""
    if ours_kib <= published_kib:
        return "no more than the published figure"
    return (f"still {ours_kib - published_kib:,.1f} KiB above the published figure (derived): nothing published "
            "shows what a preview held, so the rest is not accounted for")


def _schema_cause(report: Report, key: str) -> str:
    """Why our schema weighs more: its colours and false flags, measured."""
    r2 = report.main["R2"]
    per = lambda name: r2[name] / r2["pages"]  # noqa: E731
    return (f"our schema names every option's colour and both flags of every field: without the colours it weighs "
            f"{per('schema_bytes_no_colour'):,.0f} bytes, and {per('schema_bytes_plain'):,.0f} without false flags "
            f"as well")


def description_lengths(report: Report) -> Tuple[int, float, float]:
    """The descriptions R2 read in full: how many, their mean length and its standard deviation, in characters."""
    r2 = report.main["R2"]
    count, total, squares = r2["previews"], r2["description_characters"], r2["description_squares"]
    mean = total / count
    return count, mean, (max(0.0, squares - count * mean * mean) / max(1, count - 1)) ** 0.5


def _full_cause(report: Report, key: str) -> str:
    """Why one published page read in full lies outside our single pages: what its descriptions would average."""
    r2 = report.main["R2"]
    count, mean, deviation = description_lengths(report)
    per_page = count / r2["pages"]
    other = r2["full_bytes"] / count - mean
    implied = report.published["R2.full_kib"] * 1024 / per_page - other
    away = (implied - mean) / (deviation / per_page ** 0.5) if deviation else float("inf")
    return (f"a full read is mostly its description. Our {count:,} reads carried descriptions of {mean:,.0f} "
            f"characters on average (standard deviation {deviation:,.0f}) and {other:,.0f} bytes of everything "
            f"else; with that rest, the published figure implies a page of {per_page:,.0f} reads whose "
            f"descriptions average about {implied:,.0f} characters (derived), {away:.1f} standard deviations of a "
            f"{per_page:,.0f}-read average from ours. SPEC gives only the bounds of the lengths, not how they were "
            "drawn")


def _event_cause(report: Report, key: str) -> str:
    """Why our poll returns less: what our events held, measured, against the published size per change."""
    r4 = report.main["R4"]
    poll = r4["poll"]
    keys = poll["event_keys"]
    every = "every one" if all(n == poll["events"] for n in keys.values()) else "some or all"
    ours = poll["bytes"] / max(1, poll["found"])
    theirs = report.published["R4.poll.kib"] * 1024 / report.published["R4.poll.found"]
    return (f"{every} of our {poll['events']:,} events ({r4['runs']} runs) held {', '.join(keys)}, "
            f"no other key; that is {ours:,.0f} bytes per change found, with the envelope. The published size "
            f"works out to about {theirs:,.0f} bytes per change found (derived), {abs(theirs - ours):,.0f} "
            f"{'more' if theirs > ours else 'fewer'}, and nothing published shows what an event held")


def _runs_cause(report: Report, key: str) -> str:
    """Why a deterministic R3 count differs: another number of runs, or a bug."""
    runs = report.main["R3"]["create.offset"]["runs"]
    if runs != PUBLISHED_RUNS:
        return (f"the published counts add up {PUBLISHED_RUNS} runs and this run made {runs}; per run ours is "
                f"{report.ours(key) / runs:,.1f}")
    return "a deterministic count that differs: the pagination or the counting has a bug"


CAUSES: List[Tuple[str, Callable[[Report, str], Optional[str]]]] = [
    (r"^R3\.", _runs_cause),
    (r"^R1\.no\.field\.calls_per_item$", _nothing_left_cause),
    (r"^R1\.no\.values\.(saved|saved_pct|left)$", _values_cause),
    (r"^R2\.page_kib$", _preview_cause),
    (r"^R4\.relist\.kib$", _relist_cause),
    (r"^R2\.schema_", _schema_cause),
    (r"^R2\.full_kib$", _full_cause),
    (r"^R4\.poll\.kib$", _event_cause),
]


# ---------------------------------------------------------------------------
# The markdown.


def markdown(report: Report) -> str:
    """The whole of results/record_channels.md."""
    sections = [header(report), strength_of_evidence(report), setup(report), values_example(report), r1(report),
                r2(report), r3(report), r4(report), r5(report), r6(report), run_time(report), differences(report),
                each_figure_once(report)]
    return "\n\n".join("\n".join(section) for section in sections) + "\n"


def header(report: Report) -> List[str]:
    """The title, the page's answer in one sentence, and what made the page."""
    return [
        "# " + report.provenance.title("Record channels: the published figures beside ours"),
        "",
        f"**In one sentence.** {answer(report)}",
        "",
        "Written by `python3 triage.py` (SPEC §3). A scripted agent triages a bug tracker through "
        "`record_store.py`'s agent tools only (`list_record_items`, `read_record_item`, `edit_record_item`, "
        "`poll_resource_events`, by `call_tool`); people act through the store's plain methods. Every count "
        "comes from what the tools returned, or from the store's rows afterwards.",
        "",
        report.provenance.line(),
    ]


def answer(report: Report) -> str:
    """The sentence a reader can quote: how many of the article's independent figures were reproduced, and how
    firmly; and whether the published rejection came back."""
    counts = evidence.tally(report.assessed())
    measured = sum(counts[s] for s in evidence.MEASURED)
    rejection = ("comes back as the same object" if rejection_matches(report) else
                 "comes back different (see below)")
    return (f"Of the {sum(counts.values())} figures the record-channel article publishes, each counted once however "
            f"many rows restate it, {evidence.checks_words(counts)}; of the other {measured}, ours "
            f"{evidence.measured_words(counts)}; the published `values` rejection {rejection}.")


def strength_of_evidence(report: Report) -> List[str]:
    """The tally of independent figures and the rules it counts by."""
    counts = evidence.tally(report.assessed())
    strengths = [s for s in evidence.STRENGTHS if s in (evidence.CHECK, *evidence.HOLDS, evidence.OUTSIDE) or counts[s]]
    return [
        "## How strong the evidence is",
        "",
        *table(["independent figures", *[f"{s}s" if s in evidence.CHECKS else s for s in strengths]],
               [[str(sum(counts.values())), *[str(counts[s]) for s in strengths]]]),
        "",
        "Each published figure counts once. A row that restates others (a share beside its count, fields left "
        "beside fields saved, the same count in a second row: the article's own numbers derive it from theirs) "
        "keeps its verdict, but counts as the figures it restates: the `#` column of every table names them "
        "(`= 7`), and 'Each published figure once', at the end, lists every independent figure with the rows that "
        "rest on it. A *check* is a figure the way the run is built fixes (each is listed with what fixes it): it "
        "must come out exact, and it measures none of the article's claims. A measured figure is a *firm* match "
        f"when our range meets it and is at most {_fraction(evidence.FIRM_WIDTH)} of it wide, so that it leaves "
        "out values a reader would call different; a *loose* match when our range meets it but is wider; "
        f"*outside* otherwise. {_rule_words(report)} R6's timings are apart: they are reported, not tallied.",
    ]


def _fraction(share: float) -> str:
    return {1 / 2: "half", 1 / 3: "a third", 1 / 4: "a quarter"}.get(share, f"{share:.2f}")


def _rule_words(report: Report) -> str:
    """How the firm matches move with the rule's line: a quarter and a half."""
    firm = {line: evidence.tally(evidence.assess(report.rows, report.basis, line))[evidence.FIRM]
            for line in (1 / 4, 1 / 2)}
    return (f"Drawn at a quarter or at half of the figure instead, the line would give {firm[1 / 4]} or "
            f"{firm[1 / 2]} firm matches, against {evidence.tally(report.assessed())[evidence.FIRM]}.")


def each_figure_once(report: Report) -> List[str]:
    """Every independent figure with the rows that rest on it, where the published figure falls among our groups,
    our range's width and the match's strength."""
    labels = figure_labels(report)
    units = {key: unit for _, key, unit in all_specs(report)}
    covered = report.basis.covered(key for key, row in report.rows.items() if "verdict" in row)
    assessed = report.assessed()
    rows = []
    for key, n in report.numbers().items():
        restating = [labels.get(k, f"`{k}`") for k in covered.get(key, []) if k != key]
        rows.append([str(n), labels.get(key, f"`{key}`"), "; ".join(restating) or "—",
                     figures.published_cell(report.rows[key], units.get(key, "")),
                     *figures.strength_cells(report.basis, assessed[key])])
    return [
        "## Each published figure once",
        "",
        "The independent figures the tally counts, numbered as in the `#` column of the tables, with the rows "
        "that restate them. **percentile**: where the published figure falls among our groups of five seeds "
        "(single pages for R2), the share below it (a group within its rounding counted half): 0% or 100% lie "
        "outside every group. **width**: our range's width as a share of the published figure.",
        "",
        *table(("#", "figure", "rows that restate it", "published", "percentile", "width", "strength"), rows),
    ]


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
        lines.append(f"- **our range**: where 95% of such figures fall, estimated as the mean ± 1.96 standard "
                     f"deviations of the same figure over {groups} further groups of five seeds (seeds "
                     f"{report.groups[0][0]}–{report.groups[-1][-1]}). Each figure sums hundreds of independent "
                     "bugs, so it is close to normal, and a dozen groups place the range well; `--ranges N` takes "
                     "more. R2's figures are published for one page each, so theirs is the range of one page, over "
                     "the same seeds one by one.")
    else:
        lines.append("- **our range**: not computed (`--ranges 0`).")
    lines += [
        f"- **verdict**: {VERDICT_RULE} An outside verdict gives its reason, computed from this run. R3's counts "
        "cannot depend on the seed, so they have no range: they must be exact.",
        "- **#**: the number of the independent figure a row measures, `= n` for a row that restates figure n.",
        "",
        "The scenario (change any of it on the command line; `python3 triage.py --help`):",
        "",
    ]
    lines += table(("constant", "value", "source"), [
        ("New bugs per seed", f"{s.items:,}", "SPEC §3"),
        ("status a triage asks for", ", ".join(s.statuses), "ours: the labels of every status but New"),
        ("severity written as a bare word (\"major\")", f"{s.bare_severity_share:.0%}", "ours: not published"),
        ("points drawn from", ", ".join(map(str, s.points)), "SPEC §3"),
        (f"due written as \"{s.weekday}\" (else an ISO date)", f"{s.weekday_share:.0%}", "SPEC §3: about half"),
        ("description characters", f"{s.description[0]:,}–{s.description[1]:,}, uniform", "SPEC §3"),
        ("preview characters, previews per page", f"{s.preview_characters}, {s.page_limit}", "SPEC §1.2, §3"),
        ("the agent's today", f"{s.today.isoformat()} ({s.today:%A})", "ours"),
    ])
    return lines


def rejection_matches(report: Report) -> bool:
    """Whether our rejection is the published one, text for text but for the published space after
    `"fields": [`."""
    return json.dumps(report.rejection) == report.published_rejection.replace('"fields": [ {', '"fields": [{', 1)


def values_example(report: Report) -> List[str]:
    """The published `values` rejection beside what our store returned for the same inputs."""
    ours = json.dumps(report.rejection)
    published = report.published_rejection
    verdict = ("exact: the same object, keys in the same order, the same messages; the texts differ only by the "
               "published space after `\"fields\": [`" if rejection_matches(report) else
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
        rows.append((schema, says, f"{r['saved']:,} ({report.ours(f'R1.{row}.saved_pct'):.1f}%)",
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
    main = report.main["R1"]
    twenty = main["yes.values"]["twenty"]
    p = twenty / report.items
    fields = len(TARGET_FIELDS)
    wrong = sum(main[row]["wrong"] for row in main)
    ceiling = report.fields - twenty
    flagged = main["no.values"]["flagged_by_field"]
    rows_at_ceiling = [row for row in main if main[row]["saved"] == ceiling]
    calls = lambda row: report.ours(f"R1.{row}.calls_per_item")  # noqa: E731
    too_many = " or ".join(str(n) for n in report.scenario.points if n > points_max())
    labelled = ("reaches the ceiling" if "no.labels" in rows_at_ceiling else
                f"saves {main['no.labels']['saved']:,} fields")
    return [
        "What the run shows:",
        "",
        f"- The ceiling is {ceiling:,} fields: all but the {twenty} bugs whose person asked for {too_many} points, "
        f"which the field stops at {points_max():g}. The agent never clamps, so those are refused and left "
        f"to a person in every row; {len(rows_at_ceiling)} of the {len(main)} rows reach the ceiling. Across all "
        f"rows the store holds {wrong} value{'' if wrong == 1 else 's'} nobody asked for (a clamped number, a label "
        f"stored as a value, a wrong option).",
        f"- With the schema, the first edit is refused only for those {twenty} bugs (share p = {p:.3f}). "
        f"Calls per item are then 1 + {fields}p = {1 + fields * p:.2f} with a terse rejection (the agent splits "
        f"the edit into {fields}) and 1 + p = {1 + p:.2f} otherwise: measured {calls('yes.terse'):.2f} and "
        f"{calls('yes.field'):.2f}.",
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
    r = report.main["R2"]
    per_preview = (r["page_bytes"] - r["schema_bytes"]) / r["previews"]
    count, mean, deviation = description_lengths(report)
    lines = ["## R2: what a page of previews weighs, against reading the items in full", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r2_specs(report)])
    lines += ["", f"Each published figure is one page, so ours averages the first page of each main seed and "
              f"{single_page_range(report)} A preview weighs {per_preview:,.0f} bytes; reading the same items in "
              f"full weighs {r['full_bytes'] / r['page_bytes']:.1f} times the page, since a preview keeps "
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
    lines += ["", f"The offset pass is our counterfactual store (`triage_runs.OffsetPagedStore`: the same tools, "
              f"`offset` in place of `before_id`). New bugs at the top push every item down, so each offset page "
              f"starts on {s.offset_changes} items already read; deleting read items pulls everything up, so each "
              f"page starts past {s.offset_changes} unread ones, which nobody lists although they existed from "
              "start to finish. A `before_id` names the last item read, which stays put even when it is itself "
              "deleted (the store keeps a tombstone). Bugs created during the pass appear on no page: the event "
              "log is what finds them (R4)."]
    return lines


def r4(report: Report) -> List[str]:
    """R4: re-listing against one poll of the event log."""
    s = report.scenario
    r = report.main["R4"]
    lines = [f"## R4: finding what changed since the last pass ({s.changes_items} items; then people modify "
             f"{s.changes[0]}, create {s.changes[1]} and delete {s.changes[2]}; per run)", ""]
    lines += table(FIGURE_HEADER, [figure_row(report, *spec) for spec in r4_specs()])
    ratio = r["relist"]["bytes"] / r["poll"]["bytes"]
    less = (f"{ratio:,.0f} times less data than re-listing" if ratio >= 1 else
            f"{1 / ratio:,.1f} times more data than re-listing")
    lines += ["", f"The run stops with an error unless both strategies find exactly the {r['changes'] // r['runs']} "
              f"changed items, and nothing else, in every run. Polling returned {less}: it costs what changed, "
              "re-listing costs the channel's size every time. Between runs the agent keeps one integer, the last "
              "sequence."]
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
    if from_read["conflicts"] == moved and from_read["overwritten"] == 0:
        caught = ("With the version from the read, each move becomes a conflict; the agent re-reads, sees the bug "
                  "already in progress with an owner, and adds only the severity.")
    else:
        caught = (f"With the version from the read, {from_read['conflicts']} of the {moved} moves became a conflict "
                  f"and {from_read['overwritten']} people's changes were written over.")
    if reread["conflicts"] == 0 and reread["overwritten"] == moved:
        missed = ("Re-reading the version just before writing passes every check and silently writes over the "
                  "person's status and owner: the check only protects what the agent actually read.")
    else:
        missed = (f"Re-reading the version just before writing met {reread['conflicts']} conflicts and wrote over "
                  f"{reread['overwritten']} people's changes.")
    return [f"Both strategies meet the same {moved} moves. {caught} {missed}"]


def r6_figures(report: Report) -> Dict[str, Any]:
    """R6's statistics, one per figure: medians of the per-run medians, of per-run differences and of per-run
    ratios. The published stub skipped the per-field checks and the schema query, so ours to set beside it is
    `unread` (validation and the schema read stubbed), never `stubbed` (validation alone)."""
    timed = report.r6 or {}
    per_run = lambda f, a, b: [f(x, y) for x, y in zip(timed[a], timed[b])]  # noqa: E731
    pv, ps = report.published_r6["validated"], report.published_r6["stubbed"]
    return {
        **{name: statistics.median(values) for name, values in timed.items()},
        "ratios": per_run(lambda v, u: v / u, "validated", "unread"),
        "checks_ratios": per_run(lambda v, s_: v / s_, "validated", "stubbed"),
        "cost": statistics.median(per_run(lambda v, u: v - u, "validated", "unread")),
        "checks": statistics.median(per_run(lambda v, s_: v - s_, "validated", "stubbed")),
        "schema_read": statistics.median(per_run(lambda s_, u: s_ - u, "stubbed", "unread")),
        "published_ratio": (pv[0] / ps[1], pv[1] / ps[0]),
        "published_cost": (pv[0] + pv[1]) / 2 - (ps[0] + ps[1]) / 2,
        "published_rest": (ps[0] + ps[1]) / 2,
    }


def r6_verdict(report: Report) -> str:
    """Our median per-run ratio against the published ratio's span (derived): inside, or outside with the cause."""
    f = r6_figures(report)
    low, high = f["published_ratio"]
    inside = low <= statistics.median(f["ratios"]) <= high
    return figures.verdict_cell(INSIDE if inside else OUTSIDE, lambda: f": {_r6_cause(report)}")


def span(values: Sequence[float]) -> str:
    """Timed values as their smallest–largest, with the timing marker."""
    return f"{min(values):,.1f}–{max(values):,.1f} {TIMING_MARK}"


def ratio(values: Sequence[float]) -> str:
    """Per-run ratios as their median, and the runs' span, with the timing marker."""
    return f"{statistics.median(values):.2f} (runs {min(values):.2f}–{max(values):.2f}) {TIMING_MARK}"


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
    f = r6_figures(report)
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
              "(SPEC §3), so its figures sit beside `triage_runs.UnreadSchemaStore`, which stubs the store's "
              "`_validate` (the per-field checks and the unique-value and relation queries) and reads the "
              "channel's schema once and keeps it. `triage_runs.UnvalidatedStore` stubs `_validate` alone, to "
              "split our cost in two. Ratios are the median of the per-run ratios, here and in the prose. Every "
              "edit in every variant succeeds, so all do the same writes. Timing lines end with a marker; the "
              "determinism test skips them."]
    return lines


def _r6_cause(report: Report) -> str:
    """What validation and the schema read cost us per edit, as far as the runs agree, against the published cost
    (derived); a difference whose per-run values do not share a sign is said to be below the noise, not given."""
    f, timed = r6_figures(report), report.r6 or {}
    differences = lambda a, b: [x - y for x, y in zip(timed[a], timed[b])]  # noqa: E731
    total = differences("validated", "unread")
    split = {"the checks": differences("validated", "stubbed"), "the schema read": differences("stubbed", "unread")}
    ratio = statistics.median(f["ratios"])
    if not _steady(total):
        theirs = ("more than any of our runs saw: their checks cost more than ours, or checked more, and the "
                  "article does not say which, so the cause is not known" if f["published_cost"] > max(total) else
                  "within the spread of our runs, so this run cannot tell whether theirs cost more")
        return (f"validation and the schema read cost us less than the run-to-run noise: per run they added "
                f"{min(total):,.1f} to {max(total):,.1f} µs to a {f['validated']:,.1f} µs edit, a median ratio of "
                f"{ratio:.2f}. The published stub saved about {number(f['published_cost'], 1)} µs (derived) of an "
                f"edit whose rest took about {number(f['published_rest'], 1)} µs (derived), on another machine, "
                f"{theirs}")
    parts = (f" ({', '.join(f'{statistics.median(v):,.1f} µs {name}' for name, v in split.items())}; medians of "
             "per-run differences)" if all(_steady(v) for v in split.values()) else
             "; how that splits between the checks and the schema read is below the run-to-run noise (the per-run "
             "differences of one part or the other are not all above zero)")
    times = f["published_cost"] / f["cost"]
    theirs = ("their checks cost more than ours, or checked more, and the article does not say which, so the cause "
              "is not known" if times > 1 else
              "ours cost as much or more, and the article does not say what its checks did, so the cause is not known")
    return (f"validation and the schema read cost us {f['cost']:,.1f} µs of a {f['validated']:,.1f} µs edit{parts}, "
            f"a ratio of {ratio:.2f}. The published stub saved about {number(f['published_cost'], 1)} µs (derived), "
            f"{times:,.1f} times ours, of an edit whose rest took about {number(f['published_rest'], 1)} µs (derived) "
            f"against our {f['unread']:,.1f}, on another machine: {theirs}")


def _steady(differences: Sequence[float]) -> bool:
    """Whether every run's difference has the same sign, above zero: a cost the runs agree on."""
    return bool(differences) and min(differences) > 0


def run_time(report: Report) -> List[str]:
    """How long the run took (a timing line)."""
    seeds_seconds, seconds, jobs = report.timing
    seeds = len(report.seeds) + sum(len(g) for g in report.groups)
    return ["## Run time", "",
            f"This run took {seconds:.1f} s on {jobs} process{'es' if jobs != 1 else ''}: {seeds_seconds:.1f} s for "
            f"{seeds} seed{'' if seeds == 1 else 's'}, the rest for R6's timed edits and the report. {TIMING_MARK}"]


def differences(report: Report) -> List[str]:
    """Every figure outside our range with its reason, one line per reason, and R6's when outside."""
    lines = ["## Where we differ, and why", ""]
    outside = [key for key, row in report.rows.items() if row.get("verdict") == OUTSIDE]
    unjudged = [key for key, row in report.rows.items() if row.get("verdict") == NO_RANGE]
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
    if report.r6 and r6_verdict(report) != INSIDE:
        lines.append(f"- R6, the cost of validation (timed on this machine, so it moves from run to run): "
                     f"{_r6_cause(report)}. {TIMING_MARK}")
    return lines
