"""sim.py: the exact identities of the experiments, determinism, the committed results, the command line."""

import contextlib
import copy
import dataclasses
import datetime
import functools
import io
import os
import re
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

from tests.helpers import ROOT, fresh_default_run, headline_count, listed_strength, recounted, without_timing
from osfoundry_tools.cli import write_files
import sim
from lab import evidence, pages
from lab.knowledge_base import citation_forms
from lab.knowledge_base import day as kb_day
from lab.knowledge_base import formulas as kb_formulas
from lab.knowledge_base import law as kb_law
from lab.knowledge_base import measured as kb_measured
from lab.knowledge_base import models as kb_models
from lab.knowledge_base import reasons as kb_reasons
from lab.knowledge_base import report as kb_report
from lab.knowledge_base import rerun as kb_rerun
from lab.knowledge_base import scenario as kb_scenario

SMALL = ["--articles", "60", "--questions", "16", "--saves", "40"]  # a day small enough to run many times


def scenario(*argv):
    """The Scenario the command line would build."""
    return sim.scenario_from(sim.parser().parse_args(list(argv)))


def run(*argv):
    """sim.main quietly (its progress and its page's opening sentence kept off the test output); returns its exit
    status."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        return sim.main(list(argv))


class IdentitiesTest(unittest.TestCase):
    """Facts that hold exactly in every seed of the default day (seed 1)."""

    @classmethod
    def setUpClass(cls):
        cls.scenario = scenario()
        cls.result = kb_day.run_seed(1, cls.scenario)

    def test_the_top_ten_share_of_zipf_0_9_over_400_articles_is_the_published_36_7_percent(self):
        share = kb_law.top_share(400, 0.9)
        self.assertEqual(round(100 * share, 1), 36.7)
        self.assertAlmostEqual(share, 0.36697, delta=1e-5)

    def test_citations_so_far_are_twice_the_answers_at_every_check(self):
        for run_name in ("zipf", "uniform"):
            for hour in self.result[run_name]["hours"]:
                self.assertEqual(hour["citations"], 2 * hour["answers"])
        self.assertEqual(self.result["zipf"]["hours"][-1]["answers"], self.scenario.questions)

    def test_replays_equal_the_successful_first_edits_and_write_no_event(self):
        for delay in self.result["edits"]["delays"]:
            self.assertEqual(delay["replays"], delay["saved"])
            self.assertEqual(delay["replay_new_events"], 0)
            self.assertEqual(delay["saved"] + delay["conflicts"] + delay["gone"], delay["edits"])

    def test_every_delay_gets_a_quarter_of_the_answers(self):
        self.assertEqual([d["edits"] for d in self.result["edits"]["delays"]], [30, 30, 30, 30])

    def test_title_only_finds_exactly_the_renamed_and_unpublished_and_nothing_fresh(self):
        hours = self.result["zipf"]["hours"]
        self.assertEqual([h["title_mismatch"] for h in hours], [0] * 8)
        self.assertEqual([h["title_outside_stale"] for h in hours], [0] * 8)
        self.assertGreater(hours[-1]["title_found"], 0)
        self.assertLess(hours[-1]["title_found"], hours[-1]["stale"])  # content edits stay unseen

    def test_polling_costs_one_call_per_check(self):
        self.assertEqual([h["costs"]["poll"][0] for h in self.result["zipf"]["hours"]], list(range(1, 9)))

    def test_k1_cells_measured_on_the_store_equal_the_published_table(self):
        self.assertEqual(citation_forms.citation_forms(), kb_scenario.PUBLISHED_K1)


class PopularModelTest(unittest.TestCase):
    """The popular model: views in popularity order, √articles per area, and second citations that follow views."""

    @classmethod
    def setUpClass(cls):
        cls.models = sim.models_from(sim.parser().parse_args([]))

    def test_the_default_model_is_popular_search_and_differs_from_the_day_as_stated_only_in_its_mechanism(self):
        popular, stated = self.models["popular"], self.models["stated"]
        self.assertEqual(list(self.models), ["popular", "stated"])
        self.assertEqual((popular.views, popular.area_articles), (True, 20))
        self.assertEqual((stated.views, stated.area_articles), (False, kb_day.AREA_ARTICLES))
        self.assertEqual(dataclasses.replace(popular, views=False, area_articles=stated.area_articles), stated)

    def test_areas_hold_the_square_root_of_the_articles_unless_the_option_says_otherwise(self):
        self.assertEqual(kb_models.popular_areas(400), 20)
        self.assertEqual(kb_models.popular_areas(60), 8)
        self.assertEqual(sim.models_from(sim.parser().parse_args(["--area-articles", "40"]))["popular"].area_articles,
                         40)

    def test_the_knowledge_base_holds_views_in_popularity_order_and_the_day_as_stated_holds_none(self):
        small = sim.models_from(sim.parser().parse_args(SMALL))
        plan = kb_day.draw_plan(1, small["popular"])
        popular = kb_day.Published(plan, small["popular"])
        views = [popular.store.article(kb_day.KB, article_id)["views"] for article_id in popular.ids]
        self.assertEqual(views, sorted(views, reverse=True))
        self.assertEqual(len(set(views)), len(views))
        stated = kb_day.Published(kb_day.draw_plan(1, small["stated"]), small["stated"])
        self.assertEqual({stated.store.article(kb_day.KB, a)["views"] for a in stated.ids}, {0})

    def test_second_citations_go_to_popular_articles_far_more_often_with_views(self):
        seconds = {name: kb_day.run_seed(1, scenario)["zipf"]["ranking"] for name, scenario in self.models.items()}
        self.assertGreater(seconds["popular"]["second_popular"], 5 * seconds["stated"]["second_popular"])
        self.assertLess(seconds["popular"]["second_distinct"], seconds["stated"]["second_distinct"])


class PollShapesTest(unittest.TestCase):
    """The event shapes the page's sweep weighs a poll in: each one a real rewrite of the same page."""

    def test_each_shape_drops_the_spaces_or_the_change_time_of_every_event_and_nothing_else(self):
        event = {"sequence": 7, "type": "updated", "article_id": "art-00001", "updated_at": "2026-11-09T09:00:00Z"}
        page = {"events": [event, dict(event, sequence=8)], "last_sequence": 8, "has_more": False}
        shapes = kb_day.poll_shapes(page)
        spaces = 2 * 7 + 1 + 5  # per event 4 after `:` and 3 after `,`; one between the events; the page's own five
        time = len(', "updated_at": "2026-11-09T09:00:00Z"')
        self.assertEqual(shapes["compact"], kb_day.bytes_of(page) - spaces)
        self.assertEqual(shapes["untimed"], kb_day.bytes_of(page) - 2 * time)
        self.assertEqual(shapes["untimed_compact"], kb_day.bytes_of(page) - spaces - 2 * (time - 2))
        self.assertEqual(page["events"][0], event)  # the page itself is left as it was


class SimClockTest(unittest.TestCase):
    def test_the_clock_reads_the_day_start_plus_its_microseconds(self):
        clock = kb_day.SimClock()
        for time in (0, 1, -1, kb_day.PUBLISHED_THE_DAY_BEFORE, 8 * 3600 * kb_day.SECOND - 1, 10 ** 13, -10 ** 13):
            clock.time = time
            with self.subTest(time=time):
                self.assertEqual(clock(), kb_day.DAY_START + datetime.timedelta(microseconds=time))
                self.assertEqual(clock().isoformat(), (kb_day.DAY_START + datetime.timedelta(0, 0, time)).isoformat())


class ResultBytesTest(unittest.TestCase):
    """The agent weighs each distinct result once: every size it gives is bytes_of's, however often it is asked."""

    def test_every_size_is_bytes_ofs_and_a_result_met_again_is_not_written_again(self):
        read = {"article_id": "art-00001", "title": "Été", "content": 'Say "hi"\n\ttwice\u2026',
                "citation": {"updated_at": "2026-11-09T09:00:00.000000Z"}}
        alike = [{"n": 1}, {"n": True}, {"n": 1.0}, {"n": [1]}, {"n": (1,)}, {1: "a"}, {True: "a"}, {"n": "1"},
                 {"n": None}, {"n": float("nan")}, {"n": -0.0}, {"n": 0}, {"s": "😀"}]
        weigh = kb_day.ResultBytes()
        with mock.patch.object(kb_day, "bytes_of", wraps=kb_day.bytes_of) as weighed:
            for result in [read, dict(read, content="Other.")] + alike:
                with self.subTest(result=result):
                    self.assertEqual(weigh(result), kb_day.bytes_of(result))
                    written = weighed.call_count
                    self.assertEqual(weigh(result), kb_day.bytes_of(result))
                    self.assertEqual(weighed.call_count, written + 1)  # bytes_of's own call only

    def test_a_result_marshal_cannot_write_is_weighed_every_time(self):
        class Page(dict):
            pass
        weigh = kb_day.ResultBytes()
        with mock.patch.object(kb_day, "bytes_of", wraps=kb_day.bytes_of) as weighed:
            for _ in range(2):
                self.assertEqual(weigh(Page(events=[])), len('{"events": []}'))
        self.assertEqual((weighed.call_count, weigh.sizes), (2, {}))
        with self.assertRaises(TypeError):  # what JSON cannot write, bytes_of refuses as before
            weigh({"s": {1, 2}})

    def test_a_day_costs_what_it_costs_with_every_result_weighed_anew(self):
        with mock.patch.object(kb_day, "ResultBytes", lambda: kb_day.bytes_of):
            anew = kb_day.run_seed(2, scenario(*SMALL))
        self.assertEqual(kb_day.run_seed(2, scenario(*SMALL)), anew)
        self.assertGreater(anew["zipf"]["hours"][-1]["costs"]["reread"][1], 0)


class StrategiesAgainstGroundTruthTest(unittest.TestCase):
    """The run stops when an ID-based check disagrees with the ground truth."""

    def test_a_poll_check_that_misses_one_stale_citation_stops_the_run(self):
        original = kb_day.Agent.check_by_poll

        def misses_one(agent):
            found = original(agent)
            return found - {min(found)} if found else found
        kb_day.Agent.check_by_poll = misses_one
        try:
            with self.assertRaisesRegex(AssertionError, "polling"):
                kb_day.run_seed(1, scenario(*SMALL))
        finally:
            kb_day.Agent.check_by_poll = original

    def test_a_reread_check_that_sees_a_stale_citation_too_many_stops_the_run(self):
        original = kb_day.Agent.check_by_reread
        kb_day.Agent.check_by_reread = lambda agent: original(agent) | {0}
        try:
            with self.assertRaisesRegex(AssertionError, "re-reading"):
                kb_day.run_seed(1, scenario(*SMALL))
        finally:
            kb_day.Agent.check_by_reread = original


class DeterminismTest(unittest.TestCase):
    def test_the_same_seeds_give_the_same_page_on_one_process_or_three_except_timing_lines(self):
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
            self.assertEqual(run("--seeds", "1-2", "--ranges", "2", "--jobs", "1", "--out", one, *SMALL), 0)
            self.assertEqual(run("--seeds", "1-2", "--ranges", "2", "--jobs", "3", "--out", two, *SMALL), 0)
            for name in ("knowledge_base.md", "knowledge_base.svg"):
                first = without_timing(os.path.join(one, name))
                self.assertEqual(first, without_timing(os.path.join(two, name)))

    def test_other_seeds_give_other_results(self):
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as two:
            run("--seeds", "1", "--ranges", "0", "--out", one, *SMALL)
            run("--seeds", "2", "--ranges", "0", "--out", two, *SMALL)
            self.assertNotEqual(without_timing(os.path.join(one, "knowledge_base.md")),
                                without_timing(os.path.join(two, "knowledge_base.md")))


def figure_tables(text):
    """Each table whose first column is "figure": its rows, and the notes written under it by number."""
    tables, rows, notes, state = [], None, None, "prose"
    for line in text.splitlines():
        if line.startswith("| figure |"):
            rows, notes, state = [], {}, "table"
            tables.append((rows, notes))
        elif state == "table" and line.startswith("|"):
            if not line.startswith("|---") and line.count(" | ") >= 8:  # K1's table has one column of ours
                rows.append(line)
        elif state in ("table", "notes") and re.match(r"\[\d+\] ", line):
            number, note = line.split("] ", 1)
            notes[int(number[1:])] = note
            state = "notes"
        elif line.strip() or state == "notes":
            state = "prose"
    return tables


def figure_value(cell):
    """The number a table cell shows: '1,200' -> 1200.0, '30.8%' -> 30.8, '3.8 KiB' -> 3.8."""
    return float(re.match(r"-?[\d,]+(?:\.\d+)?", cell).group().replace(",", ""))


def matches_pattern(shown):
    """What an opening sentence says of a tally's pieces: 'matches 5 firmly and 8 loosely and misses 9', with
    ', meets 2 only with a range too wide to count,' before the misses where the tally has such pieces (and
    perhaps ', meets 0 ...' where only another tally of the page or a draw has some)."""
    wide = shown.get("too wide", 0)
    clause = re.escape(f", meets {wide} only with a range too wide to count,")
    return (re.escape(f"matches {shown['firm']} firmly and {shown['loose']} loosely")
            + (clause if wide else f"(?:{clause})?") + re.escape(f" and misses {shown['outside']}"))


def counts_of(header, row):
    """A tally row's counts by column, its model and reading left out: '5 (8; 5–8)' -> 5."""
    return {name: headline_count(cell) for name, cell in zip(header, row) if cell[:1].isdigit()}


def table_with_header(text, heading):
    """The header and body rows of the first table after `heading`, as lists of cells."""
    lines = text.splitlines()
    rows = []
    for line in lines[lines.index(heading) + 1:]:
        if line.startswith("|"):
            if not line.startswith("|---"):
                rows.append(line.strip("| ").split(" | "))
        elif rows:
            break
    return rows[0], rows[1:]


@functools.lru_cache(maxsize=1)
def default_report():
    """The report a default `python3 sim.py` writes (measured once for every test that reads it: it is the
    suite's longest run)."""
    with contextlib.redirect_stderr(io.StringIO()):
        return sim.measure_report(sim.parser().parse_args([]))


@fresh_default_run
class CommittedResultsTest(unittest.TestCase):
    """results/ holds what a fresh default run writes, timing lines excepted."""

    @classmethod
    def setUpClass(cls):
        cls.fresh = tempfile.TemporaryDirectory()
        write_files(cls.fresh.name, kb_rerun.main_files(default_report()))

    @classmethod
    def tearDownClass(cls):
        cls.fresh.cleanup()

    def test_the_committed_markdown_equals_a_fresh_default_run(self):
        self.assertEqual(without_timing(os.path.join(ROOT, "results", "knowledge_base.md")),
                         without_timing(os.path.join(self.fresh.name, "knowledge_base.md")))

    def test_the_committed_chart_equals_a_fresh_default_run(self):
        self.assertEqual(without_timing(os.path.join(ROOT, "results", "knowledge_base.svg")),
                         without_timing(os.path.join(self.fresh.name, "knowledge_base.svg")))


class CommittedPageTest(unittest.TestCase):
    """What the committed page says: every verdict known, every miss explained, published figures in tables."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "results", "knowledge_base.md"), encoding="utf-8") as file:
            cls.text = file.read()

    def test_every_verdict_is_known_and_every_outside_range_points_to_a_note_under_its_table(self):
        tables = figure_tables(self.text)
        rows = [row for table_rows, _ in tables for row in table_rows]
        self.assertGreaterEqual(len(rows), len(kb_scenario.PUBLISHED) - 2)  # the analytic share and the wall time apart
        verdict = r"(exact|inside range|outside range \[(\d+)\]|—)( \(calibrated size\))?"
        for table_rows, notes in tables:
            for line in table_rows:
                cells = line.strip("| ").split(" | ")
                verdicts = cells[5::3]  # ours, range, verdict per model after the label, # and published figure
                with self.subTest(line=line):
                    self.assertEqual(len(verdicts), 2)
                    for cell in verdicts:
                        match = re.fullmatch(verdict, cell)
                        self.assertTrue(match, cell)
                        if match.group(2):
                            self.assertRegex(notes.get(int(match.group(2)), ""), r"^[A-Z].{40,}\.$")
        self.assertIn("](knowledge_base.svg)", self.text)

    def test_a_note_that_puts_our_range_above_or_below_the_published_figure_agrees_with_every_row_pointing_to_it(self):
        checked = 0
        for rows, notes in figure_tables(self.text):
            for line in rows:
                cells = line.strip("| ").split(" | ")
                for ours, spread, verdict in zip(cells[3::3], cells[4::3], cells[5::3]):
                    pointed = re.search(r"\[(\d+)\]", verdict)
                    said = pointed and re.search(  # the committed draw's range only: the table shows that one
                        r"^cause not known: our range lies (above|below) the published figure \([^)]*\)"
                        r"(?:, though ours over the main seeds lies (above|below) it)?", notes[int(pointed.group(1))],
                        re.IGNORECASE)
                    if said:
                        checked += 1
                        published = figure_value(cells[2])
                        low, high = (figure_value(end) for end in spread.split(" – "))
                        self.assertEqual(said.group(1), "below" if high < published else "above", line)
                        self.assertTrue(high < published or low > published, line)
                        ours_side = "below" if figure_value(ours) < published else "above"
                        self.assertEqual(said.group(2) or said.group(1), ours_side, line)
        self.assertGreater(checked, 0)

    def test_the_misses_by_cause_add_up_to_the_misses_of_each_tally_one_cause_counted_once(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        causes_header, causes = table_with_header(self.text, "## Where and why we differ")
        for row in rows:
            column = f"{row[0]}, {'distinct' if row[1].startswith('per distinct') else 'citation'}"
            shown = counts_of(header, row)
            with self.subTest(column=column):
                n = causes_header.index(column)
                self.assertEqual(sum(int(cause[n]) for cause in causes),
                                 shown["outside"] + shown.get("failed checks", 0))

    def test_the_committed_page_is_titled_as_the_canonical_run_and_says_what_made_it(self):
        self.assertEqual(self.text.splitlines()[0], "# Knowledge-base experiments, rerun")
        self.assertRegex(self.text, r"\nMade by `python3 sim.py[^`]*` at commit \S.*\. <!-- provenance -->\n")

    def test_every_published_figure_is_measured_under_both_readings_in_both_models(self):
        measured = kb_formulas.all_figures(sim.scenario_from(sim.parser().parse_args([])))
        for reading, figures in measured.items():
            missing = set(kb_scenario.PUBLISHED) - set(figures) - {"top10.analytic", "wall.seconds"}
            self.assertEqual(missing, set(), reading)

    def test_the_tallies_lead_with_the_consistent_reading_and_the_popular_model_holds_more_than_as_stated(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        self.assertEqual([(row[0], row[1].split(" (")[0]) for row in rows],
                         [("popular search", "per distinct version"), ("popular search", "per citation"),
                          ("as stated", "per distinct version"), ("as stated", "per citation")])
        popular, stated = (counts_of(header, row) for row in (rows[0], rows[2]))
        self.assertGreater(popular["firm"] + popular["loose"], stated["firm"] + stated["loose"])

    def test_the_tally_is_the_strengths_of_the_listed_figures_each_once(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        listed_header, listed = table_with_header(self.text, "## Each published figure once")
        self.assertEqual([int(row[0]) for row in listed], list(range(1, len(listed) + 1)))
        for model in ("popular search", "as stated"):
            column = listed_header.index(f"{model}: percentile") + 2  # percentile, width, strength
            counted = recounted([row[0] for row in listed], [row[column] for row in listed])
            shown = counts_of(header, next(r for r in rows if r[0] == model and r[1].startswith("per distinct")))
            with self.subTest(model=model):
                for name in ("independent figures", "measured figures", *evidence.STRENGTHS):
                    column_name = f"{name}s" if name in evidence.CHECKS else name
                    self.assertEqual(shown.get(column_name, 0), counted[name], name)
                self.assertEqual(shown["pieces of evidence"], sum(counted[s] for s in evidence.MEASURED))

    def test_figures_fixed_by_the_inputs_are_listed_so_and_never_tallied_as_measured(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        listed_header, listed = table_with_header(self.text, "## Each published figure once")
        for model in ("popular search", "as stated"):
            column = listed_header.index(f"{model}: percentile") + 2
            fixed = [row[1] for row in listed if listed_strength(row[column]) == evidence.FIXED]
            with self.subTest(model=model):
                self.assertEqual(len(fixed), len(kb_scenario.BASIS.fixed))
                self.assertIn("top-10 share of questions, measured", fixed)
        for row in rows:
            shown = counts_of(header, row)
            reading = "citation" if "per citation" in row[1] else "distinct"
            with self.subTest(row=row[:2]):
                self.assertEqual(shown["fixed by the inputs"], len(kb_scenario.BASIS.read_as(reading).fixed))
                self.assertEqual(shown["measured figures"], shown["independent figures"] - shown["checks"]
                                 - shown.get("failed checks", 0) - shown["fixed by the inputs"])
                self.assertLessEqual(shown["measured figures"], 30)

    def test_a_figure_a_sweep_reaches_is_listed_as_resting_on_an_unstated_parameter_never_as_a_match(self):
        lines = self.text.splitlines()
        swept = lines[lines.index(pages.SWEPT):lines.index(pages.EACH_FIGURE_ONCE)]
        listed_header, listed = table_with_header(self.text, "## Each published figure once")
        checked = 0
        for n, line in enumerate(swept):
            if not line.startswith("**"):
                continue
            numbers = re.findall(r"#(\d+)", line)
            verdict = next(later for later in swept[n + 1:] if later and not later.startswith("|"))
            for model in ("popular search", "as stated"):
                column = listed_header.index(f"{model}: percentile") + 2
                for number in numbers:
                    strength = listed_strength(next(r for r in listed if r[0] == number)[column])
                    with self.subTest(figure=number, model=model):
                        self.assertEqual(strength == evidence.UNSTATED, "rests on this parameter" in verdict)
                        checked += 1
        self.assertGreater(checked, 0)

    def test_the_opening_sentence_quotes_the_tally_of_both_models(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        sentence = self.text.splitlines()[2]
        self.assertTrue(sentence.startswith("**In one sentence.** "), sentence)
        for row in rows[::2]:  # the consistent reading of each model
            shown = counts_of(header, row)
            with self.subTest(model=row[0]):
                self.assertIn(f"{row[0]}, our default model, " if row[0] == "popular search" else
                              f"the model {row[0]} ", sentence)
                self.assertRegex(sentence, matches_pattern(shown))

    def test_the_opening_sentence_counts_the_figures_telling_the_models_apart_under_the_reading_it_names(self):
        header, rows = table_with_header(self.text, "## How strong the evidence is")
        sentence = self.text.splitlines()[2]
        column = next(n for n, name in enumerate(header) if name.startswith("tell the models apart"))
        consistent = [row for row in rows if "(consistent)" in row[1]]
        apart = sum(int(row[column]) for row in consistent)
        said = re.search(r"under that reading (\d+) of them tell the two models apart", sentence)
        self.assertIsNotNone(said, sentence)
        self.assertEqual(int(said.group(1)), apart)
        self.assertLess(said.start(), sentence.index("per citation, is impossible"))

    def test_every_row_restating_a_figure_names_one_the_page_numbers(self):
        numbers = {row[0] for row in table_with_header(self.text, "## Each published figure once")[1]}
        restating = 0
        for rows, _ in figure_tables(self.text):
            for line in rows:
                cell = line.strip("| ").split(" | ")[1]
                if cell.startswith("= "):
                    restating += 1
                    self.assertLessEqual(set(cell[2:].split(", ")) - {"apart"}, numbers, line)
        self.assertGreater(restating, 20)

    def test_published_figures_appear_only_in_table_cells_never_in_the_prose(self):
        prose = "\n".join(line for line in self.text.splitlines() if not line.startswith("|"))
        ours = set()  # every number of ours any table shows (all but its column headed "published"): ours too
        published_at = None
        for line in self.text.splitlines():
            cells = line.strip("| ").split(" | ")
            if not line.startswith("|"):
                published_at = None
            elif published_at is None:  # a table's header
                published_at = next((i for i, cell in enumerate(cells) if cell.startswith("published")), -1)
            elif not line.startswith("|---"):
                kept = [cell for i, cell in enumerate(cells) if i != published_at]
                ours.update(re.findall(r"\d[\d,]*(?:\.\d+)?", " ".join(kept)))
        checked = 0
        for key, value in kb_scenario.PUBLISHED.items():
            decimals = 1 if key == "wall.seconds" else kb_scenario.decimals_of(key)
            text = f"{value:,.{decimals}f}"
            if decimals == 0 and value < 100 or key in ("K4.edits", "K2.h8.citations") or value == 100 or text in ours:
                continue  # small counts, the day's own sizes, and numbers we measured too are ours as much as theirs
            checked += 1
            with self.subTest(figure=key):
                self.assertNotRegex(prose, r"(?<![\d.,])" + re.escape(text) + r"(?![\d,]|\.\d)")
        self.assertGreaterEqual(checked, 30)  # 152 KiB in the sweep of the event shape is ours too


@fresh_default_run
class ReasonsTest(unittest.TestCase):
    """Each cause a note names holds on the run, and says what the run measured."""

    @classmethod
    def setUpClass(cls):
        cls.report = default_report()

    def outside(self, model=None, reading="distinct"):
        """(model, key, cause name, note) for every figure outside its range."""
        for name in ([model] if model else self.report.models):
            for key, r in self.report.models[name].rows[reading].items():
                if r.get("verdict") == "outside range":
                    yield (name, key) + kb_reasons.reason(self.report, name, key, reading)

    def test_a_calibrated_figure_is_the_product_of_its_calls_and_its_size_per_call_each_set_beside_the_published(self):
        seen = 0
        for model, key, name, note in self.outside():
            if key not in self.report.calibrated:
                continue
            seen += 1
            kib, calls = (kb_measured.row(self.report, model, "distinct", k)
                          for k in (key, key.replace("kib", "calls")))
            with self.subTest(model=model, key=key):
                self.assertEqual(name, "calibrated")
                self.assertIn(f"{calls['ours'] / calls['published']:.2f}× the published calls", note)
                size = (kib["ours"] / calls["ours"]) / (kib["published"] / calls["published"])
                self.assertIn(f"{size:.2f}× the published KiB per call", note)
                self.assertNotIn("repeat", note)
        self.assertGreater(seen, 0)

    def test_the_hour_six_note_quotes_the_share_of_its_own_figure(self):
        for model in self.report.models:
            for figure, share in kb_reasons.HOUR_SHARES.items():
                key = f"K2.h6.{figure}"
                name, note = kb_reasons.reason(self.report, model, key, "distinct")
                if name != "hour 6":
                    continue
                hours = self.report.models[model].main["zipf"]["hours"]
                with self.subTest(model=model, key=key):
                    for hour in kb_reasons.FALLING_HOURS:
                        self.assertIn(f"{100 * share(hours[hour - 1], 'stale_distinct'):.1f}%", note)

    def test_the_popularity_law_is_said_to_hold_only_where_our_edits_after_a_persons_save_hold_it(self):
        seen = 0
        for model, key, name, note in self.outside():
            if not key.startswith("K4.d") or "popularity law" not in note:
                continue
            seen += 1
            d = int(key[4])
            people = kb_measured.row(self.report, model, "distinct", f"K4.d{d}.person_rejected_pct")
            scenario = self.report.models[model].scenario
            law = 100 * kb_law.expected_rejection(scenario, scenario.delays[d], True)
            held = people["low"] <= law <= people["high"]
            with self.subTest(model=model, key=key):
                self.assertEqual(name, kb_reasons.UNKNOWN)
                self.assertIn(f"({people['low']:.1f}%–{people['high']:.1f}%)", note)
                self.assertIn(f"{law:.1f}%", note)
                self.assertEqual("ours follow the popularity law" in note, held)
                self.assertEqual("falls short of" in note, people["high"] < law)
        self.assertGreater(seen, 0)

    def test_the_replays_cause_declines_once_a_successful_edit_goes_unreplayed(self):
        model = self.report.default
        self.assertEqual(kb_reasons.reason(self.report, model, "K4.replays", "distinct")[0], "K4 rejections")
        broken = copy.deepcopy(self.report)
        broken.models[model].main["edits"]["delays"][2]["replays"] -= 1
        self.assertNotEqual(kb_reasons.reason(broken, model, "K4.replays", "distinct")[0], "K4 rejections")

    def test_the_poll_note_puts_ours_on_the_side_it_lies(self):
        for model, key, name, note in self.outside():
            if name != "event size":
                continue
            r = kb_measured.row(self.report, model, "distinct", key)
            with self.subTest(model=model, key=key):
                self.assertIn("ours lies below" if r["ours"] < r["published"] else "ours lies above", note)

    def test_residual_spread_is_popular_searchs_alone_and_only_above_the_published_figure(self):
        for model, key, name, _ in self.outside():
            if name == "residual spread":
                r = kb_measured.row(self.report, model, "distinct", key)
                self.assertEqual(model, kb_measured.POPULAR)
                self.assertGreater(r["ours"], r["published"])

    def test_a_restating_row_adds_no_figure_to_those_chance_is_reckoned_on_and_an_independent_one_does(self):
        model = self.report.default
        before = kb_reasons.independent_ranged(self.report, model, "distinct")
        copied = copy.deepcopy(self.report)
        every_draw = copied.models[model].draw_rows("distinct")  # the committed draw's rows first
        for rows in every_draw:
            rows["doubled"] = dict(rows["K2.h8.stale"], groups=[2 * v for v in rows["K2.h8.stale"]["groups"]])
        copied.basis = dataclasses.replace(copied.basis, restated=dict(
            copied.basis.restated, doubled=evidence.restates("K2.h8.stale", by=lambda p: 2 * p["K2.h8.stale"])))
        self.assertEqual(kb_reasons.independent_ranged(copied, model, "distinct"), before)
        for rows in every_draw:
            rows["other"] = dict(rows["K2.h8.stale"], groups=[v + 1 for v in rows["K2.h8.stale"]["groups"]])
        self.assertEqual(kb_reasons.independent_ranged(copied, model, "distinct"), before + 1)

    def test_no_two_figures_the_tallies_count_apart_move_in_lockstep_over_the_range_groups(self):
        for model, run in self.report.models.items():
            for reading, rows in run.rows.items():
                counted = [key for key, a in evidence.assess(rows, self.report.basis).items()
                           if a.strength not in evidence.CHECKS]
                with self.subTest(model=model, reading=reading):
                    self.assertEqual(evidence.lockstep_pairs(rows, counted), [])

    def test_the_misses_named_by_cause_are_the_misses_the_tallies_count_each_piece_once(self):
        for model in self.report.models:
            for reading in kb_report.READINGS:
                counts = self.report.tally(model, reading)
                named = kb_reasons.causes_by_name(self.report, model, reading)
                with self.subTest(model=model, reading=reading):
                    self.assertEqual(sum(len(keys) for keys in named.values()),
                                     counts[evidence.OUTSIDE] + counts[evidence.FAILED])
        cause = self.report.basis.cause_of("K3.reread.calls")
        self.assertEqual(cause, self.report.basis.cause_of("K3.title.calls"))
        named = [key for keys in kb_reasons.causes_by_name(self.report, kb_measured.STATED, "distinct").values()
                 for key in keys]
        self.assertLessEqual(len({"K3.title.calls", "K3.reread.calls"} & set(named)), 1)

    def test_the_reading_says_which_model_concentrates_less_from_the_measured_ratios(self):
        words = kb_report._concentration_words(self.report)
        means = {model: sum(ours[model][1] for _, _, ours in kb_measured.ratios_by_hour(self.report))
                 for model in self.report.models}
        less = min(means, key=means.get)
        self.assertIn(f"{self.report.title(less)} concentrates its citations less", words)

    def test_the_prose_figures_of_the_articles_have_rows_with_verdicts(self):
        for key in ("K2.end.stale_thirds", "K2.end.answers_fifths", "K4.retries_saved_pct"):
            for model in self.report.models:
                with self.subTest(key=key, model=model):
                    self.assertIn(kb_measured.row(self.report, model, "distinct", key)["verdict"],
                                  ("exact", "inside range", "outside range"))


class CommittedSensitivityPageTest(unittest.TestCase):
    """The sensitivity page counts as the main page does: its two models of the main page tally as they do there."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "results", kb_report.SENSITIVITY), encoding="utf-8") as file:
            cls.text = file.read()
        with open(os.path.join(ROOT, "results", kb_report.RESULTS), encoding="utf-8") as file:
            cls.main = file.read()

    def variant_counts(self):
        """Per variant and reading, the pieces of evidence by strength over all draws, read from its cell."""
        header, rows = table_with_header(self.text, "## The model")
        found = {}
        for row in rows:
            for column, name in ((1, "distinct"), (2, "citation")):
                words = row[column].split(" (one draw")[0]
                found[(row[0], name)] = {strength: int(count) for count, strength in re.findall(
                    r"(\d+) (firm|loose|too wide|outside|unstated parameter|unranged)", words)}
        return found

    def test_the_main_pages_two_models_tally_here_as_on_the_main_page(self):
        header, rows = table_with_header(self.main, "## How strong the evidence is")
        variants = self.variant_counts()
        names = {"popular search": "views, areas of 20 (the popular model)",
                 "as stated": "as stated: areas of 5, no views"}
        for row in rows:
            shown = counts_of(header, row)
            reading = "distinct" if row[1].startswith("per distinct") else "citation"
            with self.subTest(model=row[0], reading=reading):
                here = variants[(names[row[0]], reading)]
                for strength in evidence.MEASURED:
                    self.assertEqual(here.get(strength, 0), shown.get(strength, 0), strength)

    def test_the_opening_sentence_states_the_tally_of_measured_figures_and_the_matches_of_every_variant(self):
        header, rows = table_with_header(self.main, "## How strong the evidence is")
        shown = counts_of(header, rows[0])
        sentence = self.text.splitlines()[2]
        self.assertIn(f"and {shown['fixed by the inputs']} are fixed by the inputs", sentence)
        self.assertIn(f"the other {shown['measured figures']} are measured", sentence)
        self.assertIn(f"so {shown['pieces of evidence']} pieces of evidence", sentence)
        held = [c.get("firm", 0) + c.get("loose", 0) for (_, r), c in self.variant_counts().items() if r == "distinct"]
        self.assertIn(f"match between {min(held)} and {max(held)} of those pieces", sentence)

    def test_a_k4_share_whose_counts_the_inputs_fix_is_said_to_be_fixed_never_a_match(self):
        page = types.SimpleNamespace(basis=kb_scenario.BASIS)
        as_run, _, among, _ = kb_scenario.K4_READINGS
        self.assertTrue(kb_measured.Sensitivity.k4_fixed(page, as_run, 0))  # 20 s: both kinds fixed
        self.assertTrue(kb_measured.Sensitivity.k4_fixed(page, among, 0))
        self.assertFalse(kb_measured.Sensitivity.k4_fixed(page, among, 1))  # 15 min: the version rejections measured
        self.assertFalse(kb_measured.Sensitivity.k4_fixed(page, as_run, 3))
        header, rows = table_with_header(self.text, "## K4: readings of the article's words")
        twenty = header.index(kb_reasons.delay_words([kb_scenario.DELAYS[0]]))
        for row in rows:
            with self.subTest(reading=row[0], model=row[1]):
                self.assertTrue(row[twenty].endswith(f", {evidence.FIXED}"), row[twenty])

    def test_published_figures_stand_in_a_table_of_their_own(self):
        text = self.text
        rows = [line for line in text.splitlines() if line.startswith("| ")]
        self.assertFalse([line for line in rows if line.startswith("| published |")], "a published row among ours")
        self.assertIn("| figure | published |", rows)
        published = rows[rows.index("| figure | published |") + 2:]
        self.assertGreater(len(published), 0)


@unittest.skipUnless(os.environ.get("SIM_SENSITIVITY"), "the sensitivity run takes minutes: make sensitivity-check")
class CommittedSensitivityTest(unittest.TestCase):
    def test_the_committed_sensitivity_page_equals_a_fresh_run(self):
        with tempfile.TemporaryDirectory() as fresh:
            self.assertEqual(run("--sensitivity", "--out", fresh), 0)
            self.assertEqual(without_timing(os.path.join(ROOT, "results", kb_report.SENSITIVITY)),
                             without_timing(os.path.join(fresh, kb_report.SENSITIVITY)))


class SmokeTest(unittest.TestCase):
    def test_one_seed_without_ranges_runs_from_the_command_line_and_writes_both_files(self):
        with tempfile.TemporaryDirectory() as out:
            done = subprocess.run([sys.executable, "sim.py", "--seeds", "1", "--ranges", "0", "--out", out],
                                  cwd=ROOT, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(os.path.join(out, "knowledge_base.md"), encoding="utf-8") as file:
                text = file.read()
            self.assertIn("| hour 8: citations so far | 19, check | 1,200 | 240 | — | no range (--ranges 0) | 240 |",
                          text)
            self.assertEqual(text.splitlines()[0], "# Knowledge-base experiments, rerun, with other settings "
                             "(--seeds, --ranges): not the committed page")
            self.assertRegex(text, r"\nMade by `python3 sim.py --seeds 1 --ranges 0 --out \S+` at commit \S.*, "
                             r"Python 3\.\d+\.\d+, sqlite 3\.\d+\.\d+\. <!-- provenance -->\n")
            sentence = text.splitlines()[2][len("**In one sentence.** "):]
            self.assertTrue(done.stdout.splitlines()[-1].endswith(f"/knowledge_base.md: {sentence}"), done.stdout)
            with open(os.path.join(out, "knowledge_base.svg"), encoding="utf-8") as file:
                svg = file.read()
            self.assertTrue(svg.startswith("<svg ") and svg.rstrip().endswith("</svg>"))
            self.assertIn("prefers-color-scheme: dark", svg)


class CommandLineTest(unittest.TestCase):
    def test_bad_options_exit_2_with_a_one_line_reason(self):
        for argv in (["--seeds", "x"], ["--seeds", "5-1"], ["--ranges", "-1"], ["--save-mix", "80/10/5"],
                     ["--delays", "5x"], ["--jobs", "0"], ["--title-words", "9"], ["--bogus"],
                     ["--area-articles", "0"], ["--vocabulary", "85"], ["--save-mix", "120/-10/-10"]):
            with self.subTest(argv=argv):
                done = subprocess.run([sys.executable, "sim.py", *argv, "--out", "/nonexistent/never"], cwd=ROOT,
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 2)
                self.assertRegex(done.stderr, r"^sim.py: error: \S[^\n]*\n$")

    def test_the_sensitivity_run_writes_its_own_page_with_every_variant_and_leaves_the_main_page_alone(self):
        with tempfile.TemporaryDirectory() as out:
            self.assertEqual(run("--sensitivity", "--seeds", "1", "--ranges", "1", "--out", out, *SMALL), 0)
            self.assertEqual(sorted(os.listdir(out)), [kb_report.SENSITIVITY])
            with open(os.path.join(out, kb_report.SENSITIVITY), encoding="utf-8") as file:
                text = file.read()
            variants = kb_models.sensitivity_models(scenario(*SMALL))
            self.assertEqual(len(variants), 2 + len(set(kb_scenario.SENSITIVITY_AREAS) | {kb_models.popular_areas(60)}))
            for name in variants:
                self.assertRegex(text, rf"\| {re.escape(name)} \| \d+ firm, \d+ loose, \d+ outside")
            for reading in kb_scenario.K4_READINGS:
                for model in ("popular search", "as stated"):
                    self.assertRegex(text, rf"\| {re.escape(reading.name)} \| {model} \| ")

    def test_without_options_the_command_runs_the_scenarios_day_as_stated_and_its_two_models(self):
        self.assertEqual(scenario(), kb_scenario.DAY_AS_STATED)
        self.assertEqual(sim.models_from(sim.parser().parse_args([])), kb_models.models_of(kb_scenario.DAY_AS_STATED))

    def test_help_explains_every_option(self):
        text = sim.parser().format_help()
        for action in sim.parser()._actions:
            with self.subTest(option=action.option_strings):
                self.assertTrue(action.help, action.option_strings)
        self.assertIn("--zipf-s", text)


if __name__ == "__main__":
    unittest.main()
