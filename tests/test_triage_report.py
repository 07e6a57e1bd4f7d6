"""lab/record_channels/report.py: every sentence from the run, published figures only in their columns, like set
beside like."""

import random
import re
import statistics
import unittest

import triage
from lab import experiments
from lab.experiments import Provenance, normal_spread, number
from lab.record_channels import measured as record_measured
from lab.record_channels import reasons as record_reasons
from lab.record_channels import report as record_report
from lab.record_channels import rerun as record_rerun
from lab.record_channels import runs as record_runs
from lab.record_channels import scenario as record_scenario
from tests.helpers import ROOT

SCENARIO = triage.scenario_from(triage.parser().parse_args([]))
MADE_BY = Provenance("python3 triage.py", "abc", "3.9.6", "3.40.1", ())


def report_of(main, rows=None, r6=None):
    """A Report of one run's summed counts; the fields no test here reads are left empty."""
    return record_measured.Report(
        scenario=SCENARIO, seeds=[1], groups=[], rows=rows if rows is not None else record_rerun.measure_all(main, []),
        main=main, published=record_scenario.PUBLISHED, published_r6=record_scenario.PUBLISHED_R6, r6=r6, rejection={},
        published_rejection="", timing=(0.0, 0.0, 1), basis=record_scenario.BASIS, provenance=MADE_BY)


def r6_row(lines, label):
    """The cells of the R6 table row whose figure is `label`."""
    return next(line.split(" | ") for line in lines if line.startswith(f"| {label} |"))


class CausesTest(unittest.TestCase):
    """The reasons under the tables: computed from the run, never a typed published figure, no unmeasured claim."""

    @classmethod
    def setUpClass(cls):
        cls.main = record_runs.run_seed(3, SCENARIO)
        cls.report = report_of(cls.main)

    def test_no_published_figure_is_typed_in_the_report_code(self):
        source = ""
        # the page, its reasons, what it reads of the run, and figures.py and pages.py, which write every table
        for path in ("record_channels/report.py", "record_channels/reasons.py", "record_channels/measured.py",
                     "figures.py", "pages.py"):
            with open(f"{ROOT}/lab/{path}", encoding="utf-8") as file:
                source += file.read()
        texts = {f"{value:,.{record_scenario.decimals_of(key)}f}" for key, value in record_scenario.PUBLISHED.items()}
        texts |= {str(value) for pair in record_scenario.PUBLISHED_R6.values() for value in pair}
        checked = [text for text in texts if len(text) >= 3]  # "0", "1", "45" are everywhere in code
        for text in checked:
            with self.subTest(figure=text):
                self.assertNotRegex(source, r"(?<![\w.,])" + re.escape(text) + r"(?![\d,]|\.\d)")
        self.assertIn("2.00", checked)
        self.assertGreater(len(checked), 20)

    def test_the_nothing_left_cause_refers_to_the_published_figure_without_typing_it(self):
        text = record_reasons.reason(self.report, "R1.no.field.calls_per_item")
        self.assertIn(f"{self.main['R1']['no.field']['nothing_left']} of our", text)
        self.assertIn("The published figure means", text)
        self.assertNotIn(number(record_scenario.PUBLISHED["R1.no.field.calls_per_item"], 2), text)

    def test_the_relist_cause_is_measured_on_the_relist_and_claims_nothing_unmeasured(self):
        relist = self.main["R4"]["relist"]
        text = record_reasons.reason(self.report, "R4.relist.kib")
        nulls = (relist["bytes"] - relist["bytes_no_nulls"]) / 1024
        self.assertIn(f"null: {nulls:,.1f} KiB of its {relist['bytes'] / 1024:,.1f}", text)
        self.assertIn(f"our {relist['previews']:,} previews", text)
        for unmeasured in ("title", "e-mail", "age_days"):
            self.assertNotIn(unmeasured, text)
            self.assertNotIn(unmeasured, record_reasons.reason(self.report, "R2.page_kib"))

    def test_the_event_cause_names_the_keys_the_events_held(self):
        poll = self.main["R4"]["poll"]
        self.assertEqual(poll["event_keys"], {key: poll["events"] for key in ("sequence", "type", "item_id",
                                                                              "version")})
        text = record_reasons.reason(self.report, "R4.poll.kib")
        self.assertIn(f"every one of our {poll['events']} events (1 runs) held sequence, type, item_id, version", text)
        self.assertNotIn("carried more", text)

    def test_the_full_read_cause_uses_the_lengths_read_not_the_uniform_bounds(self):
        r2 = self.main["R2"]
        count, mean, deviation = record_measured.description_lengths(self.report)
        self.assertEqual(count, SCENARIO.page_limit)
        self.assertAlmostEqual(mean, r2["description_characters"] / count)
        text = record_reasons.reason(self.report, "R2.full_kib")
        self.assertIn(f"Our {count} reads carried descriptions of {mean:,.0f} characters on average (standard "
                      f"deviation {deviation:,.0f})", text)
        self.assertIn(f"a page of {count} reads", text)
        self.assertNotIn("uniformly", text)


class R2RangeTest(unittest.TestCase):
    """R2's figures are published for one page each: their range is that of one page, over single seeds."""

    def test_r2_ranges_are_taken_over_single_pages_and_marked_so(self):
        seeds = [record_runs.run_seed(seed, SCENARIO) for seed in (4, 5, 6)]
        group = experiments.total_of(seeds)
        rows = record_rerun.measure_all(group, [group, group], seeds)
        pages = [seed["R2"]["full_bytes"] / 1024 for seed in seeds]
        self.assertEqual((rows["R2.full_kib"]["low"], rows["R2.full_kib"]["high"]), normal_spread(pages))
        self.assertTrue(all(rows[key]["single"] for key in rows if key.startswith("R2.")))
        self.assertFalse(rows["R1.twenty"]["single"])
        self.assertEqual((rows["R1.twenty"]["low"], rows["R1.twenty"]["high"]), (rows["R1.twenty"]["ours"],) * 2)
        cells = record_report.figure_row(report_of(group, rows), "full", "R2.full_kib", " KiB")
        self.assertTrue(cells[4].endswith(" KiB (one page)"), cells[4])

    def test_the_description_squares_are_those_of_the_descriptions_read(self):
        template = record_runs.bug_store(random.Random(1), SCENARIO, 60)
        r2 = record_runs.r2_page(template, SCENARIO)
        lengths = [len(template.item("bugs", item_id)["values"]["description"])
                   for item_id in template.item_ids("bugs")[:SCENARIO.page_limit]]
        self.assertEqual((r2["description_characters"], r2["description_squares"]),
                         (sum(lengths), sum(n * n for n in lengths)))


class FullReadShapeTest(unittest.TestCase):
    """A page read in full is fixed by the inputs only while the JSON shape the article never shows, which a read
    shares with a preview, cannot decide its match (evidence.settled)."""

    @classmethod
    def setUpClass(cls):
        cls.seeds = [record_runs.run_seed(seed, SCENARIO) for seed in (4, 5, 6)]
        cls.main = experiments.total_of(cls.seeds)

    def report(self, low=None, high=None):
        rows = record_rerun.measure_all(self.main, [self.main, self.main], self.seeds)
        if low is not None:
            rows["R2.full_kib"] = dict(rows["R2.full_kib"], low=low, high=high)
        return report_of(self.main, rows)

    def test_each_shape_takes_the_same_bytes_off_every_read_so_ours_and_every_range_group_move_alike(self):
        template = record_runs.bug_store(random.Random(1), SCENARIO, 60)
        reads = [template.call_tool("read_record_item", {"record_channel_id": "bugs", "item_id": item_id})
                 for item_id in template.item_ids("bugs")[:SCENARIO.page_limit]]
        lean = [record_runs.without_nulls({"items": [read]})["items"][0] for read in reads]
        self.assertEqual(len({experiments.bytes_of(r) - experiments.bytes_of(x) for r, x in zip(reads, lean)}), 1)
        self.assertEqual(len({experiments.bytes_of(r) - experiments.compact_bytes(x) for r, x in zip(reads, lean)}), 1)
        r2 = record_runs.r2_page(template, SCENARIO)
        self.assertEqual(r2["full_bytes_no_nulls"], sum(experiments.bytes_of(x) for x in lean))
        self.assertEqual(r2["full_bytes_lean_compact"], sum(experiments.compact_bytes(x) for x in lean))
        self.assertLess(r2["full_bytes_lean_compact"], r2["full_bytes_no_nulls"])
        self.assertLess(r2["full_bytes_no_nulls"], r2["full_bytes"])

    def test_a_shape_that_cannot_decide_the_match_leaves_the_full_read_fixed_and_the_page_says_so(self):
        published = record_scenario.PUBLISHED["R2.full_kib"]
        report = record_rerun.settled(self.report(published - 20, published + 20))
        self.assertIn("R2.full_kib", report.basis.fixed)
        (shape,) = [sweep for sweep in record_measured.sweeps(report) if sweep.moves]
        self.assertEqual(shape.moves["R2.full_kib"][0], 0.0)
        self.assertLess(min(shape.moves["R2.full_kib"]), 0)
        words = record_report.moved_words(report, shape)
        self.assertIn("the figure stays fixed by the inputs, and this cause explains #9, #11 and #23 alone", words)

    def test_a_shape_that_moves_the_range_off_the_published_figure_makes_the_full_read_measured_one_cause(self):
        published = record_scenario.PUBLISHED["R2.full_kib"]
        report = record_rerun.settled(self.report(published - 8, published + 0.5))  # leaner shapes miss it
        self.assertNotIn("R2.full_kib", report.basis.fixed)
        cause = report.basis.cause_of("R2.page_kib")
        self.assertEqual(report.basis.cause_of("R2.full_kib"), cause)
        self.assertEqual(record_scenario.BASIS.cause_of("R2.full_kib"), None)  # the declared basis is left as it was
        (shape,) = [sweep for sweep in record_measured.sweeps(report) if sweep.moves]
        words = record_report.moved_words(report, shape)
        self.assertIn("the parameter decides that match, so the figure is measured, one cause with #9, #11 and #23",
                      words)
        cells = record_report.each_figure_once(report)
        row = next(line for line in cells if line.startswith("| 10 | "))
        self.assertNotIn("fixed by the inputs", row)
        self.assertIn("one cause with 9, 11, 23", row)


class R1GapTest(unittest.TestCase):
    """The article's prose figures of the schema's gap: one rejected edit and one extra call per item."""

    def test_the_gap_figures_are_published_measured_and_judged(self):
        main = record_runs.run_seed(3, SCENARIO)
        rows = record_rerun.measure_all(main, [main, main])
        r1, items = main["R1"], SCENARIO.items
        expected = {"first_failed_per_item": (r1["no.labels"]["first_failed"] - r1["yes.labels"]["first_failed"]),
                    "calls_per_item": r1["no.labels"]["edit_calls"] - r1["yes.labels"]["edit_calls"]}
        for name, difference in expected.items():
            with self.subTest(figure=name):
                row = rows[f"R1.gap.{name}"]
                self.assertEqual(record_scenario.PUBLISHED[f"R1.gap.{name}"], 1)
                self.assertAlmostEqual(row["ours"], difference / items)
                self.assertEqual((row["decimals"], row["shown_decimals"]), (0, 2))
                self.assertIn(row["verdict"], ("exact", "inside range", "outside range"))
        cells = record_report.figure_row(report_of(main, rows), "gap", "R1.gap.calls_per_item")
        self.assertEqual(cells[2:4], ["1", f"{rows['R1.gap.calls_per_item']['ours']:.2f}"])


class R6Test(unittest.TestCase):
    """The published stub skipped the checks and the schema query: ours beside it is the `unread` variant."""

    def test_the_published_ratio_sits_beside_validation_and_schema_read_stubbed(self):
        timed = {"validated": [100.0, 80.0, 120.0], "stubbed": [95.0, 76.0, 114.0], "unread": [57.0, 46.0, 68.0]}
        lines = record_report.r6(report_of({}, rows={}, r6=timed))
        row = r6_row(lines, "with / validation and schema read stubbed")
        self.assertTrue(row[1].startswith("1.72–1.79"), row)
        self.assertTrue(row[2].startswith("1.75 "), row)
        self.assertTrue(row[3].startswith("inside range"), row)
        stub = r6_row(lines, "µs per edit, validation and the schema read stubbed (the published stub)")
        self.assertEqual((stub[1], stub[2].split()[0]), ("41.9–42.4", "46.0–68.0"))
        self.assertEqual(r6_row(lines, "with / validation stubbed, the schema still read (ours only)")[1], "—")

    def test_ratios_are_medians_of_per_run_ratios_in_the_row_and_in_the_prose(self):
        timed = {"validated": [100.0, 80.0, 120.0], "stubbed": [90.0, 70.0, 110.0], "unread": [50.0, 60.0, 100.0]}
        report = report_of({}, rows={}, r6=timed)
        row = r6_row(record_report.r6(report), "with / validation and schema read stubbed")
        self.assertTrue(row[2].startswith("1.33 (runs 1.20–2.00)"), row)  # not 100 / 60 = 1.67
        cause = record_reasons.r6_cause(report)
        self.assertIn("a ratio of 1.33", cause)
        self.assertNotIn("1.67", cause)
        self.assertIn("cost us 20.0 µs of a 100.0 µs edit", cause)  # median of 50, 20, 20; not 100 - 60
        (pv_low, pv_high), (ps_low, ps_high) = (record_scenario.PUBLISHED_R6[name] for name in ("validated", "stubbed"))
        published_cost = statistics.fmean((pv_low, pv_high)) - statistics.fmean((ps_low, ps_high))
        self.assertIn(f"saved about {number(published_cost, 1)} µs (derived), {published_cost / 20:,.1f} times ours",
                      cause)
        self.assertTrue(row[3].startswith("outside range: " + cause), row)

    def test_a_split_whose_runs_disagree_in_sign_is_said_to_be_below_the_noise_never_given_as_a_negative_cost(self):
        timed = {"validated": [100.0, 80.0, 120.0], "stubbed": [104.0, 70.0, 121.0], "unread": [50.0, 60.0, 100.0]}
        cause = record_reasons.r6_cause(report_of({}, rows={}, r6=timed))
        self.assertIn("cost us 20.0 µs of a 100.0 µs edit; how that splits between the checks and the schema read "
                      "is below the run-to-run noise", cause)
        self.assertNotRegex(cause, r"-\d")

    def test_a_total_whose_runs_disagree_in_sign_is_said_to_be_below_the_noise(self):
        timed = {"validated": [100.0, 80.0, 120.0], "stubbed": [95.0, 76.0, 114.0], "unread": [104.0, 60.0, 100.0]}
        cause = record_reasons.r6_cause(report_of({}, rows={}, r6=timed))
        self.assertIn("cost us less than the run-to-run noise: per run they added -4.0 to 20.0 µs", cause)
        self.assertNotIn("times ours", cause)


if __name__ == "__main__":
    unittest.main()
