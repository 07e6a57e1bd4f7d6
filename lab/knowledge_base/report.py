"""Write the knowledge-base experiments' measurements as results/knowledge_base.md.

Layer: below rerun.py, which hands it measured.Report; on pages.py (the page's skeleton, shared with
sensitivity.py and the record-channel page), figures.py (a figure's cells) and measured.py (what the run
measured and what follows from it: sums, shares, the popularity law's expectations, the verdicts). It
computes nothing itself: it chooses the words for what measured.py gives, sets both models of the day
beside the published figures, and says how strong each match is. The notes under each table (why a
figure lies outside our range) come from reasons.py, the chart from chart.py. The table of what approval
costs, from approval.py's counts, is ours alone: it sets nothing beside a published figure. Every line that
reports a wall time ends with TIMING_MARK, the line on what made the page with PROVENANCE_MARK; every
other line depends only on the seeds and the options.

Glossary (sim.py has the others; evidence.py has independent, check, firm, loose):
  note    one numbered reason under a table; an outside verdict points to it as "outside range [n]"
  spec    one row of a figure table: (label, figure key, reading, unit)
  number  an independent figure's place on the page (its "#"); a row restating others shows "= n"
"""

from typing import Dict, List, Sequence, Tuple

from osfoundry_tools.server import approval as server_approval
from osfoundry_tools.content import workload
from lab import evidence, figures, pages
from lab.experiments import TIMING_MARK, inside_chance, seeds_text, spread_cut, table
from lab.knowledge_base import day, measured
from lab.knowledge_base.approval import WAYS, WITH
from lab.knowledge_base.chart import chart  # noqa: F401  (rerun.py writes the chart through this module)
from lab.knowledge_base.measured import LEADING, POPULAR, STATED, Report, row
from lab.knowledge_base.reasons import causes_by_name, delay_words, reason, spread_bounds, spread_bounds_words

RESULTS, CHART, SENSITIVITY = "knowledge_base.md", "knowledge_base.svg", "knowledge_base_sensitivity.md"
READINGS = {"distinct": "per distinct version (consistent)", "citation": "per citation (inconsistent)"}

Spec = Tuple[str, str, str, str]  # label, figure key, reading, unit


# ---------------------------------------------------------------------------
# Verdict cells, figure numbers and notes.


class Notes:
    """The reasons for one table's outside verdicts, numbered in the order they are first cited."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self.reasons: List[str] = []

    def verdict(self, model: str, key: str, reading: str) -> str:
        """A verdict cell: outside range points to its note; a calibrated figure says so."""
        r = row(self.report, model, reading, key)
        cell = figures.verdict_cell(r.get("verdict"), lambda: f" [{self.note_number(model, key, reading)}]")
        return cell + (" (calibrated size)" if key in self.report.calibrated and "verdict" in r else "")

    def note_number(self, model: str, key: str, reading: str) -> int:
        """The number of the note giving a figure's reason, the next one when the reason is new."""
        text = reason(self.report, model, key, reading)[1]
        if text not in self.reasons:
            self.reasons.append(text)
        return self.reasons.index(text) + 1

    def lines(self) -> List[str]:
        """The notes, one line each, after a blank line; nothing when no verdict was outside."""
        if not self.reasons:
            return []
        return ["", *[f"[{n}] {self.report_title(text)}" for n, text in enumerate(self.reasons, 1)]]

    @staticmethod
    def report_title(text: str) -> str:
        return text[0].upper() + text[1:] + "."


def numbers(report: Report) -> Dict[str, int]:
    """Each independent, tallied figure's number on the page, in the order the tables first show it."""
    rows = report.models[report.default].rows[LEADING]
    return figures.numbered(report.basis, [key for _, key, _, _ in all_specs(report) if "verdict" in rows.get(key, {})])


def number_cell(report: Report, key: str) -> str:
    """The "#" of a row (figures.number_cell)."""
    return figures.number_cell(report.basis, numbers(report), key)


def figure_header(report: Report) -> List[str]:
    """figure | # | published | then ours, range and verdict of each model."""
    return pages.figure_columns([report.title(model) for model in report.models])


def figure_row(report: Report, notes: Notes, label: str, key: str, reading: str = "distinct",
               unit: str = "") -> List[str]:
    """One figure in every model."""
    cells = [label, number_cell(report, key), figures.published_cell(row(report, report.default, reading, key), unit)]
    for model in report.models:
        cells += figures.figure_cells(row(report, model, reading, key), unit, notes.verdict(model, key, reading))
    return cells


def figure_table(report: Report, rows: Sequence[Spec]) -> List[str]:
    """A table of specs with its notes under it."""
    notes = Notes(report)
    lines = table(figure_header(report), [figure_row(report, notes, *r) for r in rows])
    return lines + notes.lines()


# ---------------------------------------------------------------------------
# The markdown.


def markdown(report: Report) -> str:
    """The whole of results/knowledge_base.md."""
    return pages.page([header(report), strength_of_evidence(report), lead(report), models(report), k1(report),
                       popularity(report), k2(report), reading(report), control(report), k3(report), k4(report),
                       run_time(report), differences(report), sweeps(report), each_figure_once(report)])


def header(report: Report) -> List[str]:
    """The title, the page's answer in one sentence, and what made the page."""
    return pages.header(
        report.provenance, "Knowledge-base experiments, rerun", answer(report),
        "Written by `python3 sim.py`; do not edit by hand. Each row sets a figure published in the articles "
        "(listed in `docs/source-figures.md`) beside the same figure measured on our reconstruction, in two models "
        "of the day.")


def answer(report: Report) -> str:
    """The sentence a reader can quote: how many of the article's independent figures are checks, fixed by the
    inputs and measured; how firmly the measured ones were reproduced, under which model and reading; why the
    literal reading cannot hold; and which model the figures that tell them apart favour."""
    lead, other = report.default, [m for m in report.models if m != report.default]

    def tallies(reading: str) -> str:
        words = ""
        for model in report.models:
            said = evidence.measured_words(report.tally(model, reading), report.draw_tallies(model, reading))
            words += (f"{report.title(lead)}, our default model, {said}" if model == lead else
                      f", and the model {report.title(model)} {said}")
        return words

    favour = f"; under that reading {favour_words(report, LEADING)}" if other else ""  # its own reading's counts
    return (pages.answer_opening("knowledge-base", report.tally(lead)) + f"{pages.draws_words(report.draws)}"
            "counting each stale version once, the "
            f"reading under which the published table is consistent, {tallies(LEADING)}{favour}. The article's "
            f"literal reading, per citation, is impossible: {_impossible_words(report)}; under it "
            f"{_more_fixed_words(report, 'citation')}{tallies('citation')}.")


def _more_fixed_words(report: Report, reading: str) -> str:
    """'the inputs fix 1 more figure, so 26 pieces of evidence remain, and ': what a reading fixes beyond the
    leading one (Basis.read_as), before its tallies; '' when nothing."""
    more = len(report.basis.read_as(reading).fixed) - len(report.basis.read_as(LEADING).fixed)
    if more <= 0:
        return ""
    left = evidence.measured(report.tally(report.default, reading))
    return (f"the inputs fix {more} more figure{'' if more == 1 else 's'}, so {left} pieces of evidence remain, "
            "and ")


def _impossible_words(report: Report) -> str:
    """'at hour 8 the published share of answers with a stale citation makes 481 answers holding one, 112 more
    than the stale citations published for that hour (derived)': no published figure typed in the prose."""
    hour, answers, stale = measured.literal_contradiction(report)
    return (f"at hour {hour} the published share of answers with a stale citation makes {answers:,.0f} answers "
            f"holding one, {answers - stale:,.0f} more than the stale citations published for that hour (derived), "
            "and each such answer needs a stale citation of its own")


def favour_words(report: Report, reading: str) -> str:
    """'13 of them tell the two models apart, 12 in favour of popular search and 1 of as stated; 10 of the 13
    were in view when the popular model was chosen'."""
    favoured = report.favoured_by(reading)
    apart = sum(favoured.values())
    if not apart:
        return "none of them tells the two models apart"
    words = f"{apart} of them tell the two models apart"
    if list(favoured.values()).count(0) == len(favoured) - 1:
        words = f"{words}, all in favour of {report.title(next(m for m, n in favoured.items() if n))}"
    else:
        words += ", " + " and ".join(f"{count} {'in favour of' if n == 0 else 'of'} {report.title(model)}"
                                     for n, (model, count) in enumerate(favoured.items()))
    chosen = measured.chosen_with(report, reading)
    return (f"{words}, but {len(chosen)} of the {apart} are figures the popular model was chosen with in view "
            f"(the staleness and the cost of the checks), which leaves {apart - len(chosen)} that played no part "
            "in the choice")


def strength_of_evidence(report: Report) -> List[str]:
    """The tallies of independent figures, per model and reading, and the rules they count by."""
    tallies = {(m, r): report.tally(m, r) for m in report.models for r in READINGS}
    shown = pages.shown_strengths([*tallies.values(), *(draw for m, r in tallies
                                                         for draw in report.draw_tallies(m, r))])
    header = ["model", "reading", *pages.tally_columns(shown), "tell the models apart, in its favour"]
    rows = [[report.title(model), READINGS[reading_name],
             *pages.tally_cells(counts, shown, report.draw_tallies(model, reading_name)),
             str(report.favoured_by(reading_name)[model])]
            for (model, reading_name), counts in tallies.items()]
    rules = pages.counting_rules(
        "a share beside its count, a per-check figure beside its total, the same count in a second table",
        pages.rule_words(report.firm_at(), report.tally(report.default)[evidence.FIRM],
                         whose=f"{report.title(report.default)} ", where=" under the consistent reading"),
        f"{pages.draws_rule(report.draws)} A figure tells the two models apart when one model's range holds it "
        "(firm or loose) and the other's misses it: a range too wide to count tells nothing.")
    return pages.strength_section(header, rows, rules, (
        f"Apart from the tallies: K1's cells and the analytic top-10 share ({_apart_words(report)}), and the "
        f"{len(report.calibrated)} KiB figures of re-searching and re-reading. The words of an article and the "
        "agent's search limit, which set what a result weighs, were chosen with the published KiB per call in "
        "view, so the agreement of those figures would be no evidence; they are shown, and their notes say how "
        "far ours lie from them."))


def lead(report: Report) -> List[str]:
    """Which model and reading lead, what each column means, the day, the bytes, the chart."""
    s = report.models[report.default].scenario
    groups, cut = len(report.groups), spread_cut(len(report.groups))
    kept = (f"the smallest and largest value of the same figure over {groups} further groups of five seeds"
            if not cut else f"the smallest and largest value of the same figure over {groups} further groups of five "
            f"seeds once the {cut} smallest and the {cut} largest are dropped (the central 95%)")
    ranges = (f"{kept} (seeds {report.groups[0][0]}–{report.groups[-1][-1]}); a further group of five falls inside "
              f"with probability {groups - 2 * cut - 1}/{groups + 1}, about {100 * inside_chance(groups):.0f}%"
              if groups else "none (--ranges 0)")
    mix = "/".join(f"{100 * m:g}" for m in s.save_mix)
    return [
        "## How to read the tables",
        "",
        f"**Which model and reading lead.** Our default is the {report.title(report.default)} model: the "
        "knowledge base keeps people's views and its search lists the matches after the best one most viewed "
        "first, which this page argues is the closer of the two to the original ('Why two models'). The "
        "tallies lead with the distinct-version reading, the only one under which the published table is "
        "consistent ('The reading'); the per-citation reading follows.",
        "",
        f"- **ours**: the sum over seeds {seeds_text(report.seeds)}, as the articles summed seeds 1–5.",
        f"- **our range**: {ranges}.",
        pages.verdict_bullet("An `outside range [n]` points to note n under its table: the cause, checked on this "
                             "run, or 'cause not known'."),
        pages.number_bullet(apart=True),
        "",
        "The day, per seed: "
        f"{s.articles} articles, {s.questions} questions and {s.saves} people's saves over {s.hours} hours; "
        f"popularity Zipf s = {s.zipf_s:g} for questions and saves alike; saves {mix} "
        f"(content / content and title / unpublish); K4 delays {delay_words(s.delays)}. How articles are written "
        f"is ours: {s.vocabulary} made-up subject words, {s.topic_words} per article topic, titles of "
        f"{s.title_words}, about {s.article_words} words of content of which {100 * s.topic_share:g}% from the "
        f"topic; the agent searches with limit {s.search_limit}. The last two are calibrated so that a read and "
        "a title search weigh about what the article measured (K3).",
        "",
        "Bytes are the UTF-8 length of `json.dumps(result, ensure_ascii=False)` (default separators `, ` and "
        "`: `) of each tool result, the text an MCP client receives; 1 KiB = 1,024 bytes.",
        "",
        f"![Stale share by hour, ours and the published figures, and cost of the hourly checks over the day]"
        f"({CHART})",
    ]


def models(report: Report) -> List[str]:
    """Why two models, what the popular one adds and how each part is set."""
    popular, stated = report.models[POPULAR], report.models[STATED]
    s = popular.scenario
    targets, both = spread_bounds(report, POPULAR)
    areas = s.articles // s.area_articles
    return [
        "## Why two models",
        "",
        f"**As stated** simulates the day with what the articles state and our choices where they are silent: "
        f"a question names its article's product area, an area holds {stated.scenario.area_articles} articles "
        "(so the search always finds a second article), and the search ranks by text alone.",
        "",
        "**Popular search** adds one mechanism, in three parts, each set by a principle rather than fitted to "
        "a figure:",
        "",
        "- the knowledge base keeps people's views of each article, as help centres count page views; before "
        f"the day each article holds its popularity share of {day.VIEWS_BEFORE_THE_DAY:,} views, the limit "
        "of a long history, so views order the articles as the popularity law does;",
        "- `search_knowledge_base` puts the best text match first and lists the other matches most viewed first, "
        "as its tool description tells the agent;",
        f"- a question names one of {areas} product areas of {s.area_articles} articles: with nothing published "
        f"about how the original grouped its articles, the balanced grouping of {s.articles}, as many areas as "
        "articles in each.",
        "",
        "All three are our assumptions, not the articles': they say nothing of views, of areas, or of how the "
        "search orders its matches. The published description of `search_knowledge_base` says only that it "
        "searches current published articles and cites their ID and updated time; ours goes on to say how it "
        "ranks, and the ranking it describes is ours. That the views before the day are exactly each article's "
        "popularity share (no noise, no history of other popularities) is the simplest choice, and the most "
        "favourable to concentration.",
        "",
        "Why: the articles say that popularity explains most of the staleness, and that the more a knowledge "
        "base is used, the more the articles an agent cites are the ones people are editing. K3 says how "
        "concentrated the citations were. A check re-reads each distinct cited article once; if both citations "
        f"of every answer were independent popularity draws, a check would re-read {both:.1f} articles on "
        f"average, and the questions' own articles alone give {targets:.1f}, a floor no second citation can "
        f"lower. The published figure {_between_words(report)}. As stated, ours re-read "
        f"{_reread(report, STATED):.1f} per check: "
        f"{_second_words(report, STATED)}. With popular search, {_reread(report, POPULAR):.1f}: "
        f"{_second_words(report, POPULAR)}.",
        "",
        f"How the tallies move with the size of the areas, and with each part alone: [{SENSITIVITY}]"
        f"({SENSITIVITY}), written by `python3 sim.py --sensitivity`.",
    ]


def _between_words(report: Report) -> str:
    """Where the published re-reads per check lie between the floor and independent draws, and what follows."""
    words = spread_bounds_words(report, POPULAR)
    if words.startswith("lies between"):
        return words + ", so the original's second citations went mostly to articles that were cited anyway"
    return words


def _reread(report: Report, model: str) -> float:
    return report.ours(model, "K3.reread.calls_per_check")


def _second_words(report: Report, model: str) -> str:
    """Where a model's second citations went, over the main seeds."""
    ranking = report.models[model].main["zipf"]["ranking"]
    return (f"the second citations went to {ranking['second_distinct']} distinct articles over the main seeds, "
            f"{ranking['second_popular']} of {ranking['seconds']} to one of a seed's ten most popular")


K1_COLUMNS = ("survives a title change", "shows the content changed", "usable as edit version")


def k1(report: Report) -> List[str]:
    """K1: each cell of the published table beside ours, measured on a two-article store."""
    rows = [[f"{form}: {K1_COLUMNS[column]}", want, cell, "exact" if same else "differs"]
            for form, column, want, cell, same in measured.k1_cells(report)]
    return [
        "## K1 — what a citation should contain",
        "",
        "Measured on a two-article store, the same in both models: the agent reads an article and keeps its "
        "citation in one of three forms; then a person renames the article (does the form still find it, by ID "
        "or by searching the exact title?), or a person edits its content (does anything the form holds now "
        "differ from what the tools return?), or the agent edits it passing what the form holds as "
        "`expected_version`, once right after the read and once after a person's save (`yes, if recent` when "
        "only the first is saved).",
        "",
        *table(("figure", "published", "ours", "verdict"), rows),
        "",
        "A title is not a version: the store refuses it as `expected_version` (not a date-time), and the ID "
        "alone is refused the same way. Only the updated time both reveals a content change and works as a "
        "compare-and-swap token — until someone else saves.",
    ]


def popularity(report: Report) -> List[str]:
    """The analytic top-10 share, the measured ones, and where the real search put each question's target."""
    s = report.models[report.default].scenario
    analytic, same = measured.analytic_top10(report)
    exact = "exact" if same else "differs"
    lines = [
        "## Popularity and what the search returns",
        "",
        f"The analytic top-10 share of Zipf(s = {s.zipf_s:g}) over {s.articles} articles, the weight 1/k^"
        f"{s.zipf_s:g} of ranks 1–10, is {analytic:.5f}%: {exact} at the published precision. Questions and "
        "saves draw from the same ranking, shuffled per seed so that article IDs (which break search ties) say "
        "nothing of popularity.",
        "",
        *figure_table(report, popularity_specs()),
        "",
        "Each question is an opener such as \"how do i\" (words no article holds) and three words of its target "
        "article: one of its title, the topic word most other articles share (its area's, most often), and one "
        "more of its topic. The real search decided the rest:",
        "",
    ]
    for model, run in report.models.items():
        ranking = run.main["zipf"]["ranking"]
        answers = ranking["seconds"]
        lines.append(
            f"- {report.title(model)}: the target came first in {ranking['first']} of {answers} answers "
            f"({100 * ranking['first'] / answers:.1f}%) and second in {ranking['second']}; the second citations "
            f"went to {ranking['second_distinct']} distinct articles (counted per seed and summed), the ten most "
            f"cited second in each seed took {ranking['second_top10']} ({100 * ranking['second_top10'] / answers:.1f}%)"
            f", and {ranking['second_popular']} went to one of the ten most popular articles.")
    return lines


# ---------------------------------------------------------------------------
# The figure tables' rows, in page order: the sections show them, and the figures are numbered from them.


def all_specs(report: Report) -> List[Spec]:
    """Every row of every figure table, in the order the page shows them."""
    return (popularity_specs() + k2_specs(report, "distinct") + k2_specs(report, "citation") + control_specs()
            + k3_specs() + k4_specs(report))


def popularity_specs() -> List[Spec]:
    return [("top-10 share of questions, measured", "top10.questions", "distinct", "%"),
            ("top-10 share of saves, measured", "top10.saves", "distinct", "%")]


def k2_specs(report: Report, reading: str) -> List[Spec]:
    """K2 under one reading: each published hour, then the end of the day in the article's own units."""
    rows: List[Spec] = []
    for h in report.published_hours:
        rows += [
            (f"hour {h}: citations so far", f"K2.h{h}.citations", reading, ""),
            (f"hour {h}: stale", f"K2.h{h}.stale", reading, ""),
            (f"hour {h}: stale share", f"K2.h{h}.stale_pct", reading, "%"),
            (f"hour {h}: answers with a stale citation", f"K2.h{h}.answers_pct", reading, "%"),
            (f"hour {h}: found by title-only check", f"K2.h{h}.title", reading, ""),
        ]
    return rows + [
        ("end of the day: stale, in thirds of the citations (\"nearly a third\")", "K2.end.stale_thirds", reading, ""),
        ("end of the day: answers with a stale citation, in fifths (\"four in five\")", "K2.end.answers_fifths",
         reading, "")]


def control_specs() -> List[Spec]:
    rows: List[Spec] = []
    for reading_name, name in (("distinct", "distinct"), ("citation", "per citation")):
        rows += [
            (f"control, stale ({name})", "control.stale", reading_name, ""),
            (f"control, stale share ({name})", "control.stale_pct", reading_name, "%"),
            (f"title-only share of the stale ({name})", "title.share_pct", reading_name, "%"),
        ]
    return rows + [
        ("control, answers with a stale citation", "control.answers", "distinct", ""),
        ("control, answers with a stale citation, share", "control.answers_pct", "distinct", "%"),
        ("title-only finds that were renames or unpublishes, share", "title.renamed_or_gone_pct", "distinct", "%"),
    ]


K3_NAMES = {"title": "re-search each cited title", "reread": "re-read each cited article",
            "poll": "`poll_resource_events` from a cursor"}


def k3_specs() -> List[Spec]:
    rows: List[Spec] = []
    for strategy, name in K3_NAMES.items():
        rows += [
            (f"{name}: calls", f"K3.{strategy}.calls", "distinct", ""),
            (f"{name}: KiB", f"K3.{strategy}.kib", "distinct", " KiB"),
            (f"{name}: calls per check", f"K3.{strategy}.calls_per_check", "distinct", ""),
            (f"{name}: KiB per check", f"K3.{strategy}.kib_per_check", "distinct", " KiB"),
        ]
    for strategy, name in (("reread", "re-reading"), ("poll", "polling")):
        rows += [(f"stale found by {name} at the last check (distinct)", f"K3.{strategy}.found", "distinct", ""),
                 (f"stale found by {name} at the last check (per citation)", f"K3.{strategy}.found", "citation", "")]
    return rows


def k4_specs(report: Report) -> List[Spec]:
    rows: List[Spec] = []
    for d, seconds in enumerate(report.models[report.default].scenario.delays):
        name = delay_words([seconds])
        rows += [
            (f"{name}: delayed edits", f"K4.d{d}.edits", "distinct", ""),
            (f"{name}: rejected, version changed", f"K4.d{d}.conflicts", "distinct", ""),
            (f"{name}: rejected, version changed, share", f"K4.d{d}.conflicts_pct", "distinct", "%"),
            (f"{name}: rejected, unpublished", f"K4.d{d}.gone", "distinct", ""),
            (f"{name}: retries after a re-read that saved", f"K4.d{d}.retries_saved", "distinct", ""),
        ]
        if f"K4.d{d}.rejected_in_ten" in report.published:
            rows.append((f"{name}: rejected in ten edits (version or unpublished)", f"K4.d{d}.rejected_in_ten",
                         "distinct", ""))
    return rows + [
        ("delayed edits", "K4.edits", "distinct", ""),
        ("replays of successful first edits answered as replays", "K4.replays", "distinct", ""),
        ("replays answered with the first result, share", "K4.replays_as_first_pct", "distinct", "%"),
        ("new events written by the replays", "K4.replay_new_events", "distinct", ""),
        ("retries after a re-read that saved, share (\"every retry succeeded\")", "K4.retries_saved_pct", "distinct",
         "%"),
        ("delayed edits that hit an unpublished article", "K4.gone", "distinct", ""),
    ]


# ---------------------------------------------------------------------------
# The sections.


def k2(report: Report) -> List[str]:
    lines = ["## K2 — how fast citations go stale", ""]
    for reading_name, title in (("distinct", "Counted per distinct (article_id, updated_at) citation: the "
                                             "consistent reading"),
                                ("citation", "Counted per citation: the inconsistent reading")):
        lines += [f"### {title}", "", *figure_table(report, k2_specs(report, reading_name)), ""]
    end = measured.end_of_day(report, report.default)
    return lines + [
        "A citation is stale when its article's current version (ground truth, `store.article`) differs from the "
        "cited `updated_at`; an unpublished article counts, its version changed too. Answers are counted one by "
        f"one in both readings. With {report.title(report.default)}, at the end of the day {end['stale']} of "
        f"{end['citations']} citations were stale ({100 * end['stale'] / end['citations']:.1f}%), "
        f"{end['stale_distinct']} of them distinct, {end['stale_second']} of them second citations, and "
        f"{end['answers_stale']} of {end['answers']} answers held one.",
    ]


def reading(report: Report) -> List[str]:
    """The reading: why the published stale column counts each version once, and the ratios that show it."""
    published = [hour[1] for hour in measured.ratios_by_hour(report)]
    header = ["hour", "answers with a stale citation per stale citation: published (derived)"]
    for model in report.models:
        header += [f"{report.title(model)}: per citation", f"{report.title(model)}: per distinct version"]
    return [
        "## The reading",
        "",
        "Counted per citation, an answer with a stale citation holds at least one stale citation, so such "
        f"answers can never outnumber the stale citations. {_outnumber_words(report)} So the stale column cannot "
        "be a per-citation count if the answers column is a per-answer one. The reading that makes the two "
        "consistent is this one: the stale column counts each `(article_id, updated_at)` version "
        "once, however many answers cited it, and answers are counted one by one. Under it, a stale version "
        "was cited by more than one answer on average, which needs citations that keep landing on the same "
        f"few versions. The published table gives {_ratio_span(published)} answers per "
        f"stale version over the hours (derived); counted per distinct version, {_concentration_words(report)}.",
        "",
        *table(header, answer_ratios(report)),
    ]


def _outnumber_words(report: Report) -> str:
    """Where the published answers with a stale citation outnumber the stale citations (derived): every hour of
    the table and the control run, or which of them."""
    hours, control, everywhere = measured.outnumbering_hours(report)
    if everywhere:
        return ("In the published table they do, at every hour and in the control run: the derived column below "
                "is above 1 throughout.")
    where = [f"hour {hour}" for hour in hours] + (["the control run"] if control else [])
    return f"In the published table they do at {', '.join(where) or 'no hour'} (the derived column below)."


def _ratio_span(ratios: Sequence[float]) -> str:
    return f"{min(ratios):.2f}–{max(ratios):.2f}"


def _concentration_words(report: Report) -> str:
    """Each model's span of answers per stale version, whether each exceeds one, and which is the more
    concentrated."""
    per_model, above, means = measured.concentration(report)
    words = "; ".join(f"{report.title(model)} gives {_ratio_span(r)}" for model, r in per_model.items())
    if len(per_model) < 2:
        return words
    more, less = sorted(per_model, key=lambda model: -means[model])[:2]
    where = ("in both, more than one answer per stale version" if len(above) == len(per_model) else
             f"more than one answer per stale version in {', '.join(report.title(m) for m in above) or 'neither'}")
    return (f"{words}: {where}, and {report.title(less)} concentrates its citations less than "
            f"{report.title(more)} ({means[less]:.2f} on average against {means[more]:.2f})")


def answer_ratios(report: Report) -> List[List[str]]:
    """The table of measured.ratios_by_hour."""
    return [[str(hour), f"{published:.2f}"] + [f"{x:.2f}" for model in report.models for x in ours[model]]
            for hour, published, ours in measured.ratios_by_hour(report)]


def control(report: Report) -> List[str]:
    """The control run and the title-only check: their figures, and what the run shows of each."""
    mismatches, outside = measured.title_check_record(report)
    ends = "; ".join(f"{report.title(model)} {measured.end_of_day(report, model)['stale']} with popular saves, "
                     f"{measured.end_of_day(report, model, 'uniform')['stale']} with uniform ones"
                     for model in report.models)
    return [
        "## The control run and the title-only check",
        "",
        *figure_table(report, control_specs()),
        "",
        "The control run replays each seed's day with the same questions and the same saves at the same times, "
        f"but each save falls on an article drawn uniformly from all of them. Stale citations at the end of the "
        f"day: {ends}. {_control_words(report)}",
        "",
        "The title-only check keeps only the title of each citation. Every hour it searches each distinct cited "
        "title and calls a citation stale when no result carries exactly that title (titles are never reused, "
        f"so a missing title means a rename or an unpublish). With {report.title(report.default)}, over every "
        "check of the main seeds, the citations it found differed from those whose article had been renamed or "
        f"unpublished in {mismatches} cases, and it called {outside} fresh citation{'' if outside == 1 else 's'} "
        f"stale: {_title_words(mismatches, outside)}.",
    ]


def _control_words(report: Report) -> str:
    """Whether popular saves made the citations stale faster than uniform ones, in each model."""
    faster = measured.staler_with_popular_saves(report)
    if all(faster.values()):
        return ("In every model, when people fix the articles people ask about, the agent's citations go stale "
                "faster.")
    if not any(faster.values()):
        return ("In no model do popular saves make the agent's citations go stale faster than uniform ones on "
                "this run.")
    return ("Popular saves make the agent's citations go stale faster than uniform ones with "
            + ", ".join(report.title(m) for m, yes in faster.items() if yes) + ", not with "
            + ", ".join(report.title(m) for m, yes in faster.items() if not yes) + ".")


def _title_words(mismatches: int, outside: int) -> str:
    """What the title-only check's record shows, as the counts allow."""
    if mismatches == 0 and outside == 0:
        return "it finds exactly the renames and unpublishes, and never a content edit"
    return "it does not find exactly the renames and unpublishes"


def k3(report: Report) -> List[str]:
    """K3: what the three hourly checks cost, and what one call weighs."""
    m = report.models[report.default].main
    setup_calls, setup_bytes = m["zipf"]["setup"]
    checks = measured.checks_of(report)
    s = report.models[report.default].scenario
    polls = report.ours(report.default, "K3.poll.calls_per_check")
    return [
        f"## K3 — cost of the hourly checks ({checks} checks)",
        "",
        *figure_table(report, k3_specs()),
        "",
        "Re-reading calls `read_knowledge_article` once per distinct cited article; a citation is stale when the "
        "article is not found or its `updated_at` differs. Polling resumes the event log from the cursor until "
        "`has_more` is false; a citation is stale when an event newer than it names its article. At every check "
        "the script asserts that both find exactly the stale citations of the ground truth; the run would stop "
        "otherwise. The poll strategy's calls are the polls alone, as the article counts them; re-reading the "
        "moved articles it names is not included. The cursor starts where the log stood when the day began: at "
        f"its first answer the agent caught up from 0 ({setup_calls} calls, {setup_bytes / 1024:,.0f} KiB over "
        f"the main seeds with {report.title(report.default)}, outside these counts), as the article's 'the last "
        "sequence it stored'.",
        "",
        "Re-searching costs one call per distinct cited title and re-reading one per distinct cited article, "
        "paid again every hour; polling costs the changes since the last check, which took "
        f"{'one page' if polls == 1 else f'{polls:.2f} pages'} a check on average with "
        f"{report.title(report.default)}.",
        "",
        f"What one call weighs: {calibration_words(report)}. The published sizes work out to "
        f"{measured.published_size(report, 'reread'):.2f} KiB per read and "
        f"{measured.published_size(report, 'title'):.2f} KiB per "
        f"title search (derived), so ours are {_lighter_words(report)}. Two constants set a result's size: "
        f"{s.article_words} words of content, which an article holds in whole sentences "
        f"({workload.sentences_of(s.article_words)} of them, about {workload.MEAN_SENTENCE_WORDS:g} words each), and "
        f"a search limit of {s.search_limit}. They were chosen with the published sizes in view and are not "
        "tuned further, which is why the KiB figures they set are left out of the tallies.",
    ]


def _lighter_words(report: Report) -> str:
    """How much lighter (or heavier) our reads and title searches are than the published ones, over both models:
    '3%–9% lighter'."""
    shares = measured.lighter_shares(report)
    if min(shares) < 0 < max(shares):
        return f"between {-min(shares):.0f}% heavier and {max(shares):.0f}% lighter"
    low, high = sorted(abs(share) for share in (min(shares), max(shares)))
    amount = f"{low:.0f}%" if round(low) == round(high) else f"{low:.0f}%–{high:.0f}%"
    return f"{amount} {'lighter' if max(shares) > 0 else 'heavier'}"


def _apart_words(report: Report) -> str:
    """Whether K1's cells and the analytic top-10 share are exact: 'all exact', or how many are."""
    exact, count = measured.apart_exact(report)
    return "all exact" if exact == count else f"{exact} of {count} exact"


def calibration_words(report: Report) -> str:
    """KiB per read and per title search in each model."""
    return "; ".join(f"{report.title(model)}, {measured.size_per_call(report, model, 'reread'):.2f} KiB per read "
                     f"and {measured.size_per_call(report, model, 'title'):.2f} KiB per title search"
                     for model in report.models)


def k4(report: Report) -> List[str]:
    """K4: editing with the citation's version, beside the popularity law, and what approval would cost."""
    s = report.models[report.default].scenario
    total = measured.k4_totals(report, report.default)
    return [
        "## K4 — editing with the citation's version",
        "",
        *figure_table(report, k4_specs(report)),
        "",
        f"Answers take the delays in turn (answer n gets delay n mod {len(s.delays)}), so each delay has "
        f"{s.questions // len(s.delays)} answers per seed spread over the whole day. The edits run in a replica of "
        "the day (same seed, same people's saves), not in the day K2 and K3 measure, so the agent's own "
        "edits never make its K2 citations stale; within that replica an edit can be rejected because of "
        f"another of the agent's edits ({total['conflicts_agent_only']} of the {total['conflicts']} version "
        f"rejections with {report.title(report.default)} had no person's save after the read). Each edit appends "
        "a sentence to the content the agent read and passes the citation's `updated_at` as `expected_version`; "
        "a version rejection is followed at once by a re-read, the same sentence appended to the content found, "
        f"and an edit with the new version and the same key. Of {total['edits']} delayed edits, {total['saved']} "
        f"saved at the first try, {total['conflicts']} met a newer version and {total['retries_saved']} of those "
        f"retries saved. Each successful first edit was sent again with the same key: {total['replays']} of "
        f"{total['saved']} came back as the first result marked `replay: true`, and {total['replay_new_events']} "
        "new events were written by them.",
        "",
        "### K4 against the popularity law",
        "",
        "If the edited article and every person's save were independent popularity draws, and answers came at "
        "uniform times, the share of delayed edits whose article was saved or unpublished within the delay "
        "would be Σ p·(1 − e^(−r·p·w)) averaged over the answer times, with p an article's popularity, r the "
        "saves per second and w the delay (cut at the day's end in our day). The law counts people's saves, so "
        "ours are set beside it counting only the rejections that followed a person's save or unpublish (the "
        "others met one of the agent's own edits, in the replica of the day); the published rows do not say "
        "which of theirs did.",
        "",
        *table(rejection_header(report), rejection_rows(report)),
        "",
        "The readings of the article's words that would change how the published 4 h row compares with ours and "
        "with the law (saves that go on after the day's end; the unpublished counted among the changed versions) "
        f"are run as variants on the sensitivity page ({SENSITIVITY}), which says which of them reach it.",
        *approval_cost(report),
    ]


# ---------------------------------------------------------------------------
# What approval costs: ours alone (approval.py), no published figure and so no verdict.


def approval_cost(report: Report) -> List[str]:
    """The section on the server's --approve-writes replayed on K4's edits, when the run measured it."""
    approval = report.approval
    if approval is None or any(run.approvals is None for run in report.models.values()):
        return []
    return [
        "",
        "### What approval costs (ours: no published figure)",
        "",
        "This extends K4 to the server's `--approve-writes`, under which every agent edit is put to a person "
        "before it is written. The articles publish nothing on it, so the table has no published column and no "
        "verdict. Each main seed's day is replayed once per approval delay, with the same questions, saves and "
        "K4 times: each delayed edit arrives when K4's does, with its citation's `updated_at` as "
        "`expected_version`. Without the check, the server asks the person at once. With it (stale before "
        "asking), the server first previews the call, which writes nothing, and when the version is already "
        "stale or the article unpublished it answers `version_conflict` or `not_found` at once and asks nobody. "
        "The person is assumed to approve every change. The approval comes after a lognormal delay whose median "
        f"is the row's and whose logarithm has σ = {approval.sigma:g} (with σ = 1, a sixth of the approvals take "
        "more than e ≈ 2.7 times the median): each edit draws one factor, the same for every median, from a "
        "generator of its own seeded from the seed, apart from the day's draws, which stay K4's. The approved "
        "edit is then a real `edit_knowledge_article` call at that time, in time order with the people's saves, "
        "and its compare-and-swap decides: a save or an unpublish while the person looked wastes the approval. "
        "A rejected edit is not retried, since a retry would need another approval. The server's bound on a "
        f"person's answer (`--approval-timeout`, {server_approval.APPROVAL_SECONDS:g} s by default) is left out: "
        "the table is of a server that waits as long as the person takes. At the default, an approval slower "
        "than the bound would come back `declined` (no answer) and save nothing, whatever the article did meanwhile.",
        "",
        *table(("model", "median approval delay", "stale-before-asking check", "answered at once, nobody asked",
                "approvals asked", "approvals wasted", "edits saved"), approval_rows(report)),
        "",
        f"Each cell is the mean per seed over seeds {seeds_text(report.seeds)} and, in brackets, the fewest and "
        "the most in one of those seeds. These replicas run on the main seeds only, to keep the run short, so "
        "the brackets span single seeds, where the ranges above span groups of five. " + approval_words(report),
    ]


def approval_rows(report: Report) -> List[List[str]]:
    """Per model, approval delay and way (without the check, then with it): each outcome per seed."""
    rows = []
    for model, run in report.models.items():
        for d, nominal in enumerate(report.approval.delays if report.approval else ()):
            for way in WAYS:
                counts = {outcome: measured.approval_counts(run, d, way, outcome)
                          for outcome in ("answered", "asked", "wasted", "saved")}
                answered = per_seed(counts["answered"]) if way == WITH else "—"
                rows.append([report.title(model), delay_words([nominal]), way, answered,
                             *(per_seed(counts[outcome]) for outcome in ("asked", "wasted", "saved"))])
    return rows


def per_seed(values: Sequence[int]) -> str:
    """A count's mean per seed, and the fewest and most in one seed."""
    mean, fewest, most = measured.seed_spread(values)
    return f"{mean:.1f} ({fewest} – {most})"


def approval_words(report: Report) -> str:
    """What the table says, in the default model at the longest approval delay, with the check's tally."""
    longest, ways, edits, answered_then_wasted = measured.longest_approval(report)
    without, with_ = (ways[way] for way in WAYS)
    return (f"With {report.title(report.default)} and a median of {delay_words([longest])}, "
            f"{measured.wasted_per_hundred(without)} in every 100 approvals were wasted without the check and "
            f"{measured.wasted_per_hundred(with_)} with it, which answered {with_['answered']} of the {edits} "
            f"edits at once. Asked anyway, those were approved and then rejected at commit "
            f"({answered_then_wasted} of {with_['answered']}): a version once replaced "
            "never comes back, so the check spares the person those approvals and never loses an edit, and both "
            "ways save the same edits. That is why one replica serves both rows: the commit of an edit the check "
            "answered is made for the row without it alone, and, rejected, it writes nothing.")


def rejection_header(report: Report) -> List[str]:
    columns = ["delay", "rejected, version or unpublished: published (derived)"]
    for model in report.models:
        columns += [f"{report.title(model)}: ours", "after a person's save", "its range"]
    return columns + ["popularity law, day ends", "popularity law, saves go on"]


def rejection_rows(report: Report) -> List[List[str]]:
    """Per delay: the rejected share, published, ours in each model, and what the popularity law predicts."""
    rows, s = [], report.models[report.default].scenario
    for d, seconds in enumerate(s.delays):
        share = measured.published_rejected(report.published, d, len(s.delays))
        cells = [delay_words([seconds]), "—" if share is None else f"{share:.1f}%"]
        for model in report.models:
            r = row(report, model, "distinct", f"K4.d{d}.rejected_pct")
            people = row(report, model, "distinct", f"K4.d{d}.person_rejected_pct")
            spread = f"{people['low']:.1f}% – {people['high']:.1f}%" if people["low"] is not None else "—"
            cells += [f"{r['ours']:.1f}%", f"{people['ours']:.1f}%", spread]
        cut, uncut = measured.law_rejection(s, seconds)
        rows.append(cells + [f"{cut:.1f}%", f"{uncut:.1f}%"])
    return rows


def run_time(report: Report) -> List[str]:
    """How long the run took, beside the published wall time (reported, never judged), and what a seed does."""
    main_seconds, seconds, jobs = report.timing
    return pages.run_time([
        *table(("run", "published", "ours", "verdict"), [
            [f"seeds {seeds_text(report.seeds)}, both models", f"{report.published['wall.seconds']:.1f} s (one "
             "model, Python 3.9.6, Apple M1)", f"{main_seconds:.1f} s", f"no verdict {TIMING_MARK}"],
            [f"with {len(report.groups)} groups for the ranges, in {max(1, len(report.draws))} "
             f"draw{'s' if len(report.draws) > 1 else ''} ({measured.seed_days(report)} seed days)", "—",
             f"{seconds:.1f} s on {pages.processes(jobs)}", f"no verdict {TIMING_MARK}"],
        ]),
        "",
        "Wall time depends on the machine and on what the run does, so it is reported, not judged. What a seed "
        f"does, in its three replicas of the day, with {report.title(report.default)}: {work_words(report)}.",
        *seed_time(report),
    ])


REPORT_SECONDS = "{report seconds}"  # rerun.py puts the time it took to write the page and the chart here


def seed_time(report: Report) -> List[str]:
    """Where one seed's time goes, part by part (seed_profile.py), and what writing the page took."""
    if report.seed_parts is None:
        return []
    seconds, parts = measured.seed_parts(report)
    return [
        "",
        f"Where the time of a seed goes: seed {report.seeds[0]} of {report.title(report.default)} ran with a "
        f"stopwatch on each kind of work (`lab/knowledge_base/seed_profile.py`) and took {seconds:.2f} s; the "
        f"stopwatches slow what they time, so the seed takes less without them. {TIMING_MARK}",
        "",
        *table(("part of the seed", "seconds", "share"), [
            [part, f"{took:.3f}", f"{share:.0f}% {TIMING_MARK}"] for part, took, share in parts]),
        "",
        f"Writing this page and its chart, the popularity law's expectations included, took {REPORT_SECONDS}. "
        f"{TIMING_MARK}",
    ]


def work_words(report: Report) -> str:
    """The tool calls and people's saves of one seed of the default model, on average over the main seeds."""
    calls, by_tool, saves = measured.calls_per_seed(report)
    listed = ", ".join(f"{count:,.0f} `{name}`" for name, count in by_tool)
    return f"{calls:,.0f} agent tool calls ({listed}) and {saves:,} people's saves and creations"


CAUSE_WORDS = {  # what each cause named in the notes is, for the summary under 'Where and why we differ'
    "concentration": "the day as stated lands outside, and popular search, which concentrates the second "
                     "citations on popular articles, lands nearer the published figure ('Why two models').",
    "reading": "counted per citation, outside, and the same figure counted per distinct version lands nearer "
               "('The reading').",
    "uniform control": "counted per citation, the control run's stale share is fixed by the uniform saves whatever "
                       "is cited; only counting versions once can lower it.",
    "residual spread": "popular search lands outside too, above, and still re-reads more distinct articles per "
                       "check than the original did.",
    "K4 rejections": "every successful first edit was replayed, so the replays are the edits less the rejections "
                     "and move with them.",
    "event size": "polling's KiB is events times their size; the note says which of the two puts ours on its side.",
    "hour 6": "the published share falls from hour 4 to hour 6; the note says how often ours does.",
    "marginal": "a near miss of the size chance gives a few of our independent figures.",
    "main seeds alone": "ours over the main seeds rounds to the published figure, but the range over the range "
                        "seeds misses it: the main seeds fell at the edge of what other seeds give.",
    "construction": "a check of how the run is built that does not hold: this run's settings differ from the "
                    "article's.",
}


def differences(report: Report) -> List[str]:
    """The independent figures outside our range in each model and reading, counted by cause, and what each
    cause is."""
    grouped = {(model, reading_name): causes_by_name(report, model, reading_name)
               for model in report.models for reading_name in READINGS}
    names = sorted({name for g in grouped.values() for name in g},
                   key=lambda n: (-sum(len(g.get(n, [])) for g in grouped.values()), n))
    header = ["cause"] + [f"{report.title(m)}, {r.split(' (')[0]}" for m in report.models for r in READINGS]
    rows = [[name] + [str(len(grouped[(m, r)].get(name, []))) for m in report.models for r in READINGS]
            for name in names]
    unknown = {model: grouped[(model, LEADING)].get("not known", []) for model in report.models}
    return [
        "## Where and why we differ",
        "",
        "The pieces of evidence outside our range, counted as the tallies count them: each independent figure "
        "once (a row that restates one shares its note), and the figures of one cause as one piece, under the "
        "note of its first figure outside; the calibrated KiB figures aside, and those a sweep of a parameter "
        "the article never states reaches ('What the article never states, swept'). Each column adds up to the "
        "misses of its tally. Each cause is checked on this run before a note names it:",
        "",
        *table(header, rows),
        "",
        *[f"- **{name}**: {CAUSE_WORDS[name]}" for name in names if name in CAUSE_WORDS],
        "- **not known**: no checked cause. K4's rejections count here even where ours follow the popularity "
        "law: the law explains ours, not the published rows' distance from it ('K4 against the popularity law'). "
        "With " + "; with ".join(
            f"{report.title(model)}, under the consistent reading: "
            f"{', '.join(f'`{k}`' for k in keys) if keys else 'none'}" for model, keys in unknown.items()) + ".",
        "",
        "We did not tune the model to these figures: the popularity, the day and the save mix are the "
        "published ones; the two calibrated constants set only the size of a result, and the KiB figures they "
        "set are left out of the tallies; popular search's parts are each set by the principle stated under "
        "'Why two models' (our assumptions, as that section says), and the sensitivity page shows how the "
        "tallies move when they change.",
    ]


def sweeps(report: Report) -> List[str]:
    """What the article never states, swept: per parameter, ours at each value in both models beside the
    published figure, the value that would hit it, and whether the figure therefore rests on the parameter."""
    found = report.sweeps()
    return pages.sweeps_section(
        f"{pages.COUNT_WORDS[len(found)]} parameter{'s' if len(found) != 1 else ''} that the article never states "
        f"set{'s' if len(found) == 1 else ''} a measured figure of this page. The run keeps the most natural value "
        "(json.dumps's own separators, an event that says which version it announces); each table sets ours at "
        "the parameter's other plausible values beside the published figure, every shape weighed on the same "
        "polls of the main seeds. A figure a sweep can reach rests on that parameter: it is tallied as neither a "
        "match nor a miss, and 'Each published figure once' lists it so. The words of an article and the agent's "
        "search limit, which set what a read and a search weigh, are never stated either, but they were chosen "
        "with the published KiB per call in view: a sweep of them reaches those KiB figures by construction, so "
        "the figures stay apart from the tallies ('How strong the evidence is').",
        [report.title(model) for model in report.models], found, row_of_default(report), numbers(report),
        [report.assessed(model) for model in report.models], {"KiB polled": " KiB"})


def row_of_default(report: Report) -> Dict[str, measured.Row]:
    """The default model's rows under the leading reading: what a table's published cell is read from."""
    return report.models[report.default].rows[LEADING]


def each_figure_once(report: Report) -> List[str]:
    """Every independent figure with the rows that rest on it and its strength in each model, under the leading
    reading; then the figures the per-citation reading measures otherwise."""
    lines = pages.each_figure_once(
        "The independent figures the tallies count, numbered as in the `#` column of the tables, with the rows "
        "that restate them. **percentile**: where the published figure falls among our "
        f"{len(report.groups)} groups of five seeds, the share of groups below it (a group within its rounding "
        "counted half): 0% or 100% lie outside every group. **width**: our range's width as a share of the "
        "published figure. Counted per distinct version:",
        evidence_header(report), evidence_rows(report, LEADING))
    differing = evidence_rows(report, "citation", only_differing=True)
    if differing:
        lines += ["", "Counted per citation, for the figures that reading measures otherwise:", "",
                  *table(evidence_header(report), differing)]
    return lines


def evidence_header(report: Report) -> List[str]:
    """# | figure | rows that restate it | published | each model's percentile, width and strength | which model
    the figure favours, where there are two."""
    columns = pages.evidence_columns([report.title(model) for model in report.models])
    return columns + (["tells the models apart"] if len(report.models) > 1 else [])


def evidence_rows(report: Report, reading_name: str, only_differing: bool = False) -> List[List[str]]:
    """One row per independent figure: its number, label, restating rows, published figure, and per model where
    the published figure falls among our groups, our range's width and the match's strength."""
    specs = all_specs(report)
    labels: Dict[str, str] = {}
    for wanted in (reading_name, LEADING):  # a row's label under this reading, else under the leading one
        for label, key, spec_reading, _ in specs:
            if spec_reading == wanted:
                labels.setdefault(key, label)
    units = {key: unit for _, key, _, unit in specs}
    covered = report.basis.covered(key for _, key, _, _ in specs)
    assessed = {model: report.assessed(model, reading_name) for model in report.models}
    favoured = report.favoured(reading_name)
    rows = []
    for key, number in numbers(report).items():
        if only_differing and not measured.differs(report, key, reading_name):
            continue
        restating = [labels[k] for k in dict.fromkeys(covered.get(key, [])) if k != key]
        cells = pages.evidence_cells(number, labels[key], restating,
                                     figures.published_cell(row(report, report.default, reading_name, key),
                                                            units[key]))
        for model in report.models:
            cells += figures.strength_cells(report.basis.read_as(reading_name), assessed[model][key], numbers(report))
        rows.append(cells + ([report.title(favoured[key]) if key in favoured else "—"] if len(report.models) > 1
                             else []))
    return rows
