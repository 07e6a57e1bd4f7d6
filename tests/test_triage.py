"""triage.py: R3 exactly, the R1 identities, the published rejection, R4's 45, the committed results, the CLI."""

import contextlib
import datetime
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import unittest

from osfoundry_tools.stores import record_store
import triage
from lab import evidence
from lab.record_channels import formulas as record_formulas
from lab.record_channels import reasons as record_reasons
from lab.record_channels import report as record_report
from lab.record_channels import rerun as record_rerun
from lab.record_channels import runs as record_runs
from lab.record_channels import scenario as record_scenario
from tests.helpers import ROOT, fresh_default_run, headline_count, listed_strength, recounted, without_timing

SCENARIO = triage.scenario_from(triage.parser().parse_args([]))


def run(*argv):
    """triage.main quietly (neither its progress nor the page's answer it prints); returns its exit status."""
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        return triage.main(list(argv))


class DeterminismTest(unittest.TestCase):
    def test_the_same_seeds_give_the_same_page_on_one_process_or_three_except_timing_lines(self):
        small = ["--seeds", "1-2", "--ranges", "2", "--items", "30", "--timed-runs", "0"]
        with tempfile.TemporaryDirectory() as one, tempfile.TemporaryDirectory() as three:
            self.assertEqual(run(*small, "--jobs", "1", "--out", one), 0)
            self.assertEqual(run(*small, "--jobs", "3", "--out", three), 0)
            page = without_timing(os.path.join(one, "record_channels.md"))
            self.assertEqual(page, without_timing(os.path.join(three, "record_channels.md")))
            self.assertTrue(any("| R1" in line or "R1" in line for line in page))


class R3Test(unittest.TestCase):
    """Pagination while the channel changes: pure counting, so every figure must match exactly."""

    @classmethod
    def setUpClass(cls):
        template = record_runs.bug_store(random.Random(1), SCENARIO, SCENARIO.offset_items)
        cls.passes = {(change, pagination): record_runs.r3_pass(template, random.Random(2), SCENARIO, pagination,
                                                                change)
                      for change in ("create", "delete") for pagination in ("offset", "before_id")}

    def test_each_run_is_one_fifth_of_the_published_five_runs(self):
        for (change, pagination), counts in self.passes.items():
            for name in ("pages", "reads", "twice", "never"):
                with self.subTest(change=change, pagination=pagination, figure=name):
                    self.assertEqual(5 * counts[name], record_scenario.PUBLISHED[f"R3.{change}.{pagination}.{name}"])

    def test_the_offset_store_pages_by_offset_and_lists_the_same_tools_otherwise(self):
        store = record_runs.copy_of(record_runs.bug_store(random.Random(1), SCENARIO, 5), SCENARIO,
                                    record_runs.OffsetPagedStore)
        page = store.call_tool("list_record_items", {"record_channel_id": "bugs", "offset": 3, "limit": 50})
        self.assertEqual([item["item_id"] for item in page["items"]], store.item_ids("bugs")[3:])
        names = [tool["name"] for tool in store.list_tools()]
        self.assertEqual(names, [tool["name"] for tool in record_store.connect().list_tools()])
        self.assertEqual(store.call_tool("list_record_items", {"record_channel_id": "bugs", "before_id": "x"})
                         ["rule"], "additionalProperties")


class R1Test(unittest.TestCase):
    """One seed of R1: the identities the article's table rests on, whatever the draw."""

    @classmethod
    def setUpClass(cls):
        cls.seed = record_runs.run_seed(3, SCENARIO, with_r3=False)
        cls.r1 = cls.seed["R1"]
        cls.items = SCENARIO.items
        cls.twenty = cls.r1["yes.values"]["twenty"]

    def test_without_the_schema_a_terse_rejection_costs_seven_calls_and_which_field_two_less_nothing_left(self):
        self.assertEqual(self.r1["no.terse"]["edit_calls"], 7 * self.items)
        field = self.r1["no.field"]
        self.assertEqual(field["edit_calls"], 2 * self.items - field["nothing_left"])
        for row in ("no.values", "no.labels"):
            self.assertEqual(self.r1[row]["edit_calls"], 2 * self.items, row)

    def test_with_the_schema_calls_are_one_plus_six_p_terse_and_one_plus_p_otherwise(self):
        self.assertGreater(self.twenty, 0)
        self.assertEqual(self.r1["yes.terse"]["edit_calls"], self.items + 6 * self.twenty)
        for row in ("yes.field", "yes.values", "yes.labels"):
            self.assertEqual(self.r1[row]["edit_calls"], self.items + self.twenty, row)
            self.assertEqual(self.r1[row]["first_failed"], self.twenty, row)

    def test_the_ceiling_is_every_field_but_the_twenty_point_ones_and_labels_or_the_schema_reach_it(self):
        ceiling = 6 * self.items - self.twenty
        for row in ("no.labels", "yes.terse", "yes.field", "yes.values", "yes.labels"):
            self.assertEqual(self.r1[row]["saved"], ceiling, row)
        self.assertLess(self.r1["no.values"]["saved"], ceiling)
        self.assertEqual(self.r1["no.terse"]["saved"], self.r1["no.field"]["saved"])

    def test_every_field_is_saved_or_left_to_a_person_and_nothing_wrong_is_ever_stored(self):
        for row, counts in self.r1.items():
            with self.subTest(row=row):
                self.assertEqual(counts["saved"] + counts["flagged"], 6 * self.items)
                self.assertEqual(counts["wrong"], 0)
                self.assertEqual(counts["flagged_by_field"]["points"], self.twenty, "never clamped")

    def test_values_alone_cannot_match_wont_fix_or_a_bare_severity(self):
        flagged = self.r1["no.values"]["flagged_by_field"]
        self.assertEqual((flagged["owner"], flagged["area"], flagged["due"]), (0, 0, 0))
        self.assertGreater(flagged["status"], 0)
        self.assertGreater(flagged["severity"], 0)

    def test_r4_both_strategies_find_exactly_the_changes_and_polling_costs_one_call(self):
        r4 = self.seed["R4"]
        self.assertEqual((r4["relist"]["found"], r4["poll"]["found"], r4["changes"]), (45, 45, 45))
        self.assertEqual((r4["relist"]["calls"], r4["poll"]["calls"]), (9, 1))

    def test_r5_reading_the_version_early_turns_every_move_into_a_conflict_and_overwrites_nothing(self):
        r5 = self.seed["R5"]
        self.assertGreater(r5["moved"], 0)
        self.assertEqual(r5["from_read"], {"conflicts": r5["moved"], "overwritten": 0})
        self.assertEqual(r5["reread"], {"conflicts": 0, "overwritten": r5["moved"]})


class ValuesRejectionTest(unittest.TestCase):
    def test_a_real_edit_with_the_published_inputs_returns_the_published_object_exactly(self):
        ours = json.dumps(record_rerun.the_values_rejection(SCENARIO))
        self.assertEqual(ours, record_scenario.PUBLISHED_VALUES_REJECTION.replace('"fields": [ {', '"fields": [{', 1))


class StubTest(unittest.TestCase):
    def test_the_r6_stub_really_skips_validation_and_the_real_store_does_not(self):
        template = record_runs.bug_store(random.Random(1), SCENARIO, 1)
        arguments = {"record_channel_id": "bugs", "item_id": template.item_ids("bugs")[0],
                     "values": {"points": 20}, "expected_version": 1, "idempotency_key": "k"}
        self.assertEqual(template.call_tool("edit_record_item", arguments)["error"], "validation_failed")
        stub = record_runs.copy_of(template, SCENARIO, record_runs.UnvalidatedStore)
        self.assertEqual(stub.call_tool("edit_record_item", arguments)["version"], 2)

    def test_timed_edits_are_all_valid_and_give_a_positive_median(self):
        scenario = triage.scenario_from(triage.parser().parse_args(["--timed-edits", "20", "--timed-runs", "1",
                                                                    "--items", "5"]))
        timing = record_runs.r6_timing(scenario)
        self.assertEqual([len(timing[v]) for v in ("validated", "stubbed", "unread")], [1, 1, 1])
        self.assertGreater(min(timing["validated"] + timing["stubbed"] + timing["unread"]), 0)

    def test_the_schema_stub_reads_the_channel_once_and_still_answers_an_ungranted_channel_as_missing(self):
        template = record_runs.bug_store(random.Random(1), SCENARIO, 1)
        store = record_runs.copy_of(template, SCENARIO, record_runs.UnreadSchemaStore)
        reads = []
        store.database.connection.set_trace_callback(lambda sql: reads.append(sql) if "FROM channels" in sql else None)
        item = store.item_ids("bugs")[0]
        for version, points in ((1, 3), (2, 5)):
            self.assertEqual(store.call_tool("edit_record_item", {
                "record_channel_id": "bugs", "item_id": item, "values": {"points": points},
                "expected_version": version, "idempotency_key": f"k{version}"})["version"], version + 1)
        self.assertEqual(len(reads), 1)
        missing = store.call_tool("read_record_item", {"record_channel_id": "nope", "item_id": item})
        self.assertEqual(missing["error"], "not_found")


@fresh_default_run
class CommittedResultsTest(unittest.TestCase):
    """results/record_channels.md holds what a fresh default run writes, timing lines excepted."""

    def test_the_committed_markdown_equals_a_fresh_default_run(self):
        with tempfile.TemporaryDirectory() as fresh:
            self.assertEqual(run("--out", fresh), 0)
            self.assertEqual(without_timing(os.path.join(ROOT, "results", record_report.RESULTS)),
                             without_timing(os.path.join(fresh, record_report.RESULTS)))


class CommittedPageTest(unittest.TestCase):
    """What the committed page says: a verdict for every published figure, a reason for every miss."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "results", record_report.RESULTS), encoding="utf-8") as file:
            cls.text = file.read()

    def test_every_published_figure_has_a_row_with_a_verdict_and_every_outside_range_a_reason(self):
        judged = set()
        for line in figure_rows(self.text):
            cells = line.strip("| ").split(" | ")
            judged.add(cells[0])
            with self.subTest(line=line):
                self.assertRegex(cells[-1], r"^(exact|inside range|outside range: \w.+|—)$")
        self.assertGreaterEqual(len(judged), len(record_scenario.PUBLISHED))
        for phrase in (record_reasons.UNEXPLAINED, "no range (--ranges 0)"):
            self.assertFalse(phrase in self.text, phrase)
        self.assertLessEqual(set(record_scenario.PUBLISHED), set(record_formulas.all_figures()),
                             "a published figure is never measured")

    def test_the_prose_figures_of_the_schema_gap_have_rows_with_verdicts(self):
        rows = [line.strip("| ").split(" | ") for line in self.text.splitlines()
                if line.startswith("| reading the schema, with labels in the rejection, saves per item: ")]
        self.assertEqual(len(rows), 2)
        for cells in rows:
            with self.subTest(row=cells[0]):
                self.assertRegex(cells[1], r"^= \d+(, \d+)*$")  # each restates the figures it is computed from
                self.assertEqual(cells[2], "1")
                self.assertRegex(cells[3], r"^0\.\d\d$")
                self.assertRegex(cells[5], r"^(exact|inside range|outside range: \w.+)$")

    def test_r6_sets_the_published_ratio_beside_validation_and_the_schema_read_stubbed(self):
        (pv_low, pv_high), (ps_low, ps_high) = (record_scenario.PUBLISHED_R6[name] for name in ("validated", "stubbed"))
        published = f"{pv_low / ps_high:.2f}–{pv_high / ps_low:.2f} (derived)"
        self.assertIn(f"| with / validation and schema read stubbed | {published} |", self.text)
        self.assertIn(f"| µs per edit, validation and the schema read stubbed (the published stub) | "
                      f"{ps_low}–{ps_high} |", self.text)
        self.assertEqual(self.text.count(published), 1)

    def test_every_r3_figure_is_exact_and_the_published_rejection_is_reproduced(self):
        for line in self.text.splitlines():
            if "deterministic" in line:
                self.assertTrue(line.endswith("| exact |"), line)
        self.assertIn("Verdict: exact:", self.text)

    def test_published_figures_appear_only_in_table_cells_never_in_the_prose(self):
        prose = "\n".join(line for line in self.text.splitlines()
                          if not line.startswith("|") and not line.startswith("{"))
        checked = 0
        for key, value in record_scenario.PUBLISHED.items():
            if value < 100 or key.startswith("R3.") and key.endswith(".reads") or value in (
                    SCENARIO.preview_characters, 5 * SCENARIO.items):
                continue  # small counts, pass sizes (600 x 5), the preview length, the bugs: ours as much as theirs
            text = f"{value:,.{record_scenario.decimals_of(key)}f}"
            checked += 1
            with self.subTest(figure=key):
                found = re.search(r"(?<![\d.,])" + re.escape(text) + r"(?![\d,]|\.\d)", prose)
                self.assertIsNone(found, found and prose[max(0, found.start() - 80):found.end() + 20])
        self.assertGreater(checked, 20)


class CommittedTallyTest(unittest.TestCase):
    """The committed page opens with a tally a reader can recount from the page itself."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(ROOT, "results", record_report.RESULTS), encoding="utf-8") as file:
            cls.text = file.read()

    def headline(self):
        header = next(line for line in self.text.splitlines() if line.startswith("| independent figures |"))
        cells = table_after(self.text, "## How strong the evidence is")[0]
        return {name: headline_count(cell) for name, cell in zip(header.strip("| ").split(" | "), cells)}

    def test_the_tally_is_the_strengths_of_the_listed_figures_each_once(self):
        listed = table_after(self.text, "## Each published figure once")
        counted = recounted([row[0] for row in listed], [row[-1] for row in listed])
        shown = self.headline()
        for name in ("independent figures", "measured figures", *evidence.STRENGTHS):
            with self.subTest(strength=name):
                column = f"{name}s" if name in evidence.CHECKS else name
                self.assertEqual(shown.get(column, 0), counted[name])
        self.assertEqual(shown["pieces of evidence"], sum(counted[s] for s in evidence.MEASURED))
        numbers = [int(row[0]) for row in listed]
        self.assertEqual(numbers, list(range(1, len(numbers) + 1)))

    def test_figures_fixed_by_the_inputs_are_listed_so_and_never_tallied_as_measured(self):
        listed = table_after(self.text, "## Each published figure once")
        fixed = [row[1] for row in listed if listed_strength(row[-1]) == evidence.FIXED]
        labels = {row[1] for row in listed}
        self.assertEqual(len(fixed), len(record_scenario.BASIS.fixed))
        self.assertLessEqual(set(fixed), labels)
        shown = self.headline()
        self.assertEqual(shown["fixed by the inputs"], len(record_scenario.BASIS.fixed))
        self.assertEqual(shown["measured figures"], shown["independent figures"] - shown["checks"]
                         - shown.get("failed checks", 0) - shown["fixed by the inputs"])
        self.assertLessEqual(shown["measured figures"], 7)

    def test_the_opening_sentence_quotes_the_tally(self):
        counts = self.headline()
        sentence = self.text.splitlines()[2]
        self.assertTrue(sentence.startswith("**In one sentence.** "), sentence)
        self.assertIn(f"Of the {counts['independent figures']} figures", sentence)
        self.assertIn(f"and {counts['fixed by the inputs']} are fixed by the inputs", sentence)
        self.assertIn(f"the other {counts['measured figures']} are measured", sentence)
        wide = counts.get("too wide", 0)
        clause = re.escape(f", meets {wide} only with a range too wide to count,")
        self.assertRegex(sentence, re.escape(f"ours matches {counts['firm']} firmly and {counts['loose']} loosely")
                         + (clause if wide else f"(?:{clause})?") + re.escape(f" and misses {counts['outside']}"))

    def test_every_row_restating_a_figure_names_one_the_page_numbers(self):
        numbers = {row[0] for row in table_after(self.text, "## Each published figure once")}
        restating = [line.strip("| ").split(" | ") for line in figure_rows(self.text)]
        restating = [cells for cells in restating if cells[1].startswith("= ")]
        for cells in restating:
            with self.subTest(row=cells[0]):
                self.assertLessEqual(set(cells[1][2:].split(", ")), numbers)
        self.assertGreater(len(restating), 20)


def figure_rows(text):
    """The body rows of every table headed "| figure | # | published |", each figure beside the published one."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("| figure | # | published |"):
            inside = True
        elif inside and line.startswith("|"):
            if not line.startswith("|---"):
                rows.append(line)
        else:
            inside = False
    return rows


def table_after(text, heading):
    """The body rows of the first table after `heading`, as lists of cells."""
    lines = text.splitlines()
    start = lines.index(heading)
    rows, seen = [], False
    for line in lines[start + 1:]:
        if line.startswith("|"):
            seen = True
            if not line.startswith("|---"):
                rows.append(line.strip("| ").split(" | "))
        elif seen:
            break
    return rows[1:]


class CommandLineTest(unittest.TestCase):
    def test_a_small_run_writes_every_table(self):
        with tempfile.TemporaryDirectory() as out:
            done = subprocess.run([sys.executable, "triage.py", "--seeds", "1", "--ranges", "2", "--items", "30",
                                   "--timed-runs", "1", "--timed-edits", "20", "--out", out],
                                  cwd=ROOT, capture_output=True, text=True, timeout=120)
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(os.path.join(out, record_report.RESULTS), encoding="utf-8") as file:
                text = file.read()
        for heading in ("## R1", "## R2", "## R3", "## R4", "## R5", "## R6", "## Where we differ"):
            self.assertIn(heading, text)
        self.assertRegex(text, r"\| already-read items deleted, offset: never seen \| \d+, check \| 110 \| 22 \|")
        self.assertIn("with other settings (--seeds, --ranges, --items, --timed-edits, --timed-runs): not the "
                      "committed page", text.splitlines()[0])
        self.assertIn("triage.py: 41/41 seed runs in ", done.stderr)  # 1 main seed, 4 draws of 2 groups of five
        sentence = text.splitlines()[2][len("**In one sentence.** "):]
        self.assertTrue(done.stdout.splitlines()[-1].endswith(f"/{record_report.RESULTS}: {sentence}"), done.stdout)

    def test_bad_options_exit_2_with_a_one_line_reason(self):
        for argv in (["--seeds", "x"], ["--statuses", "open"], ["--points", "a,b"], ["--description", "10-9"],
                     ["--changes", "300/100/101"], ["--weekday", "Someday"], ["--page-limit", "51"],
                     ["--today", "tomorrow"], ["--bare-severity-share", "2"], ["--bogus"]):
            with self.subTest(argv=argv):
                done = subprocess.run([sys.executable, "triage.py", *argv, "--out", "/nonexistent/never"],
                                      cwd=ROOT, capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 2)
                self.assertRegex(done.stderr, r"^triage.py: error: \S[^\n]*\n$")

    def test_without_options_the_command_runs_the_scenarios_triage(self):
        self.assertEqual(SCENARIO, record_scenario.AS_RUN)

    def test_help_explains_every_option(self):
        for action in triage.parser()._actions:
            with self.subTest(option=action.option_strings):
                self.assertTrue(action.help, action.option_strings)

    def test_the_scenario_constants_reach_the_run(self):
        scenario = triage.scenario_from(triage.parser().parse_args(
            ["--weekday", "monday", "--today", "2026-11-11", "--points", "21", "--items", "4"]))
        self.assertEqual((scenario.weekday, scenario.today, scenario.points), ("Monday", datetime.date(2026, 11, 11),
                                                                              (21,)))
        wish = record_runs.intent(random.Random(1), scenario)
        self.assertEqual(wish.words["points"], 21)
        self.assertIsNone(wish.meant["points"])


if __name__ == "__main__":
    unittest.main()
