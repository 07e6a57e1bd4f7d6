"""Why a record-channel figure lies outside our range: the cause where we know it, computed from this run.

Layer: below report.py, which writes each reason beside its verdict and under 'Where we differ'; on
measured.py (the report and what follows from its counts) and figures.py (which tries the causes in order
and says what a marginal miss is, for both experiments). A cause is a function of the report and the
figure; it names itself only when its check holds on this run (our agent had nothing left to send, our
previews spell out their nulls, our events hold these keys), and declines (None) otherwise. A figure no
cause claims is called marginal when it misses by little, and otherwise its reason says that none is
written yet. No published figure is typed here: each is read from the report, and a number worked out
from one says "derived".

Glossary (triage.py has row and run):
  cause   (pattern, check): the check explains a figure whose key matches the pattern, or declines
"""

from typing import Callable, List, Optional, Sequence, Tuple

from lab import figures
from lab.experiments import number
from lab.record_channels import measured
from lab.record_channels.measured import Report, median, r6_differences, steady
from lab.record_channels.scenario import PUBLISHED_R3

UNEXPLAINED = "no reason written for this figure yet"
PUBLISHED_RUNS = PUBLISHED_R3[2]  # R3's published counts sum five runs


def reason(report: Report, key: str) -> str:
    """Why a figure lies outside our range: the cause where we know it, computed from this run."""
    return figures.reason(CAUSES, key, (report, key), lambda: marginal(report, key) or UNEXPLAINED)


def marginal(report: Report, key: str) -> Optional[str]:
    """A miss by at most figures.MARGINAL of the range's width: chance, most likely."""
    draw, missed = figures.missing_draw(report.draw_rows(), key)
    near = figures.marginal(missed)
    return near and f"{figures.draw_words(draw)}{near}, within what another draw of seeds could give"


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
    implied = measured.implied_bare_share(report)
    return (f"how often people write \"Won't fix\" or a bare severity word is our choice, and neither can be matched "
            f"from values alone: ours flagged {status} statuses (Won't fix is one of {len(report.scenario.statuses)} "
            f"triage statuses) and {severity} bare severities ({report.scenario.bare_severity_share:.0%} of "
            f"severity intents). With our status mix the published row implies bare severity words in about "
            f"{implied:.0%} of intents; we kept ours, since nothing published gives the share")


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


def _full_cause(report: Report, key: str) -> str:
    """Why one published page read in full lies outside our single pages: what its descriptions would average."""
    r2 = report.main["R2"]
    count, mean, deviation = measured.description_lengths(report)
    per_page = count / r2["pages"]
    other = r2["full_bytes"] / count - mean
    implied = report.published["R2.full_kib"] * 1024 / per_page - other
    away = (implied - mean) / (deviation / per_page ** 0.5) if deviation else float("inf")
    return (f"a full read is mostly its description. Our {count:,} reads carried descriptions of {mean:,.0f} "
            f"characters on average (standard deviation {deviation:,.0f}) and {other:,.0f} bytes of everything "
            f"else; with that rest, the published figure implies a page of {per_page:,.0f} reads whose "
            f"descriptions average about {implied:,.0f} characters (derived), {away:.1f} standard deviations of a "
            f"{per_page:,.0f}-read average from ours. The article gives only the bounds of the lengths, not how they "
            "were drawn")


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


def _main_seeds_alone(report: Report, key: str) -> Optional[str]:
    """Ours exact over the main seeds, while the range of some draw misses: no match (figures.main_seeds_alone)."""
    return figures.main_seeds_alone(*figures.missing_draw(report.draw_rows(), key))


CAUSES: List[Tuple[str, Callable[[Report, str], Optional[str]]]] = [
    (r"", _main_seeds_alone),
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
# R6, which is timed: its verdict is no row's, and its reason is said apart.


def r6_cause(report: Report) -> str:
    """What validation and the schema read cost us per edit, as far as the runs agree, against the published cost
    (derived); a difference whose per-run values do not share a sign is said to be below the noise, not given."""
    total = r6_differences(report, "validated", "unread")
    return _r6_cost(report, total) if steady(total) else _r6_noise(report, total)


def _r6_noise(report: Report, total: Sequence[float]) -> str:
    """R6's reason when the runs disagree on whether validation and the schema read cost anything at all."""
    f = measured.r6_figures(report)
    theirs = ("more than any of our runs saw: their checks cost more than ours, or checked more, and the "
              "article does not say which, so the cause is not known" if f["published_cost"] > max(total) else
              "within the spread of our runs, so this run cannot tell whether theirs cost more")
    return (f"validation and the schema read cost us less than the run-to-run noise: per run they added "
            f"{min(total):,.1f} to {max(total):,.1f} µs to a {f['validated']:,.1f} µs edit, a median ratio of "
            f"{median(f['ratios']):.2f}. The published stub saved about {number(f['published_cost'], 1)} µs "
            f"(derived) of an edit whose rest took about {number(f['published_rest'], 1)} µs (derived), on another "
            f"machine, {theirs}")


def _r6_cost(report: Report, total: Sequence[float]) -> str:
    """R6's reason when every run agrees validation and the schema read cost something: how much, and how it
    splits between the two where the runs agree on that too."""
    f = measured.r6_figures(report)
    split = {"the checks": r6_differences(report, "validated", "stubbed"),
             "the schema read": r6_differences(report, "stubbed", "unread")}
    parts = (f" ({', '.join(f'{median(v):,.1f} µs {name}' for name, v in split.items())}; medians of "
             "per-run differences)" if all(steady(v) for v in split.values()) else
             "; how that splits between the checks and the schema read is below the run-to-run noise (the per-run "
             "differences of one part or the other are not all above zero)")
    times = f["published_cost"] / f["cost"]
    theirs = ("their checks cost more than ours, or checked more, and the article does not say which, so the cause "
              "is not known" if times > 1 else
              "ours cost as much or more, and the article does not say what its checks did, so the cause is not known")
    return (f"validation and the schema read cost us {f['cost']:,.1f} µs of a {f['validated']:,.1f} µs edit{parts}, "
            f"a ratio of {median(f['ratios']):.2f}. The published stub saved about {number(f['published_cost'], 1)} "
            f"µs (derived), {times:,.1f} times ours, of an edit whose rest took about "
            f"{number(f['published_rest'], 1)} µs (derived) against our {f['unread']:,.1f}, on another machine: "
            f"{theirs}")
