"""The notes and prose of both result pages: every direction word (above, below, more, fewer, lighter, heavier,
faster, between) is the one the sign of what it describes calls for, on a run and on the same run turned round."""

import contextlib
import copy
import io
import unittest

import sim
import triage
from lab import figures
from lab.knowledge_base import measured as kb_measured
from lab.knowledge_base import reasons as kb_reasons
from lab.knowledge_base import report as kb_report
from lab.record_channels import reasons as record_reasons
from lab.record_channels import report as record_report
from lab.record_channels import runs as record_runs
from tests.test_triage_report import report_of

SMALL = ["--articles", "60", "--questions", "16", "--saves", "40", "--seeds", "1", "--ranges", "2", "--jobs", "1"]


def small_report():
    """A knowledge-base report of a small day, quickly."""
    with contextlib.redirect_stderr(io.StringIO()):
        return sim.measure_report(sim.parser().parse_args(SMALL))


class KnowledgeBaseNotesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = small_report()
        cls.model = cls.report.default

    def with_published(self, **figures):
        """A copy of the report whose published figures differ as given (keys with dots spelled with __)."""
        copied = copy.deepcopy(self.report)
        copied.published = dict(copied.published, **{k.replace("__", "."): v for k, v in figures.items()})
        for run in copied.models.values():
            for rows in run.rows.values():
                for key, value in figures.items():
                    if key.replace("__", ".") in rows:
                        rows[key.replace("__", ".")]["published"] = value
        return copied

    def test_a_figure_without_a_cause_is_said_to_lie_on_the_side_its_range_lies(self):
        for published, side in ((0.0, "above"), (1e9, "below")):
            report = self.with_published(top10__questions=published)
            with self.subTest(side=side):
                note = kb_reasons.not_known(report, self.model, "top10.questions", "distinct")[1]
                self.assertIn(f"our range lies {side} the published figure", note)
                self.assertNotIn("though ours", note)

    def test_chance_alone_is_reckoned_over_the_measured_figures_only(self):
        count = kb_reasons.independent_ranged(self.report, self.model, "distinct")
        basis = self.report.basis.read_as("distinct")
        ranged = [a for a in self.report.assessed(self.model, "distinct").values() if a.width]
        self.assertEqual(count, len([a for a in ranged if basis.kind(a.key) == "measured"]))
        self.assertLess(count, len([a for a in ranged if a.key not in basis.checks]))  # the fixed ones are left out

    def test_ours_on_the_other_side_of_the_published_figure_from_its_range_is_said_apart(self):
        row = {"ours": 28.7, "low": 20.0, "high": 26.1, "published": 28.4, "decimals": 1}
        self.assertEqual(figures.where_range_lies(row), "our range lies below the published figure (20.0 to 26.1), "
                         "though ours over the main seeds lies above it")
        self.assertEqual(figures.where_range_lies(dict(row, ours=19.0)),
                         "our range lies below the published figure (20.0 to 26.1)")

    def test_the_poll_note_puts_ours_on_the_side_of_the_published_figure_it_lies(self):
        ours = kb_measured.row(self.report, self.model, "distinct", "K3.poll.kib_per_check")["ours"]
        for published in (ours / 4, ours * 1.001, ours * 4):
            report = self.with_published(K3__poll__kib_per_check=published)
            found = kb_reasons._poll_size(report, self.model, "K3.poll.kib_per_check", "distinct")
            with self.subTest(published=published):
                if found is not None:
                    self.assertIn("ours lies below" if ours < published else "ours lies above", found[1])

    def test_where_the_published_rereads_lie_against_the_floor_and_independent_draws(self):
        targets, both = kb_reasons.spread_bounds(self.report, self.model)
        for published, words in ((targets / 2, "lies below both"), ((targets + both) / 2, "lies between"),
                                 (both * 2, "lies above both")):
            report = self.with_published(K3__reread__calls_per_check=published)
            with self.subTest(words=words):
                self.assertTrue(kb_reasons.spread_bounds_words(report, self.model).startswith(words))

    def test_our_results_are_called_lighter_or_heavier_as_their_sizes_are(self):
        size = kb_measured.size_per_call(self.report, self.model, "reread")
        for scale, word in ((4.0, "lighter"), (0.25, "heavier")):
            report = self.with_published(
                K3__reread__kib=self.report.published["K3.reread.calls"] * size * scale,
                K3__title__kib=self.report.published["K3.title.calls"] * kb_measured.size_per_call(
                    self.report, self.model, "title") * scale)
            with self.subTest(word=word):
                self.assertTrue(kb_report._lighter_words(report).endswith(word))

    def test_popular_saves_are_said_to_stale_citations_faster_only_where_they_do(self):
        self.assertTrue(kb_report._control_words(self.report).startswith("In every model"))
        turned = copy.deepcopy(self.report)
        for run in turned.models.values():
            end = run.main["uniform"]["hours"][-1]
            end["stale"] = run.main["zipf"]["hours"][-1]["stale"] + 1
        self.assertTrue(kb_report._control_words(turned).startswith("In no model"))

    def test_the_replays_note_says_more_or_fewer_as_the_rejections_are(self):
        delays = self.report.models[self.model].main["edits"]["delays"]
        rejected = sum(d["conflicts"] + d["gone"] for d in delays)
        for published, word in ((rejected + 10, "more"), (rejected - 10, "fewer")):
            zero = {f"K4__d{d}__{name}": 0 for d in range(len(delays)) for name in ("conflicts", "gone")}
            report = self.with_published(**dict(zero, K4__d0__conflicts=published))  # the published total
            found = kb_reasons._replays(report, self.model, "K4.replays", "distinct")
            with self.subTest(word=word):
                self.assertIsNotNone(found)
                self.assertIn(f"the published K4 rows {word}", found[1])


class RecordNotesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.main = record_runs.run_seed(2, triage.scenario_from(triage.parser().parse_args(["--items", "40"])))
        cls.report = report_of(cls.main)

    def test_the_event_size_note_says_more_or_fewer_bytes_as_the_sizes_are(self):
        ours = self.main["R4"]["poll"]["bytes"] / self.main["R4"]["poll"]["found"]
        for published_bytes, word in ((ours * 3, "more"), (ours / 3, "fewer")):
            report = copy.copy(self.report)
            report.published = dict(self.report.published, **{
                "R4.poll.kib": published_bytes * self.report.published["R4.poll.found"] / 1024})
            with self.subTest(word=word):
                self.assertIn(f" {word}, and nothing published", record_reasons._event_cause(report, "R4.poll.kib"))

    def test_the_schema_gap_is_more_calls_or_fewer_as_its_sign_is(self):
        report = copy.deepcopy(self.report)
        for gap, word in ((0.5, "more"), (-0.5, "fewer")):
            report.rows["R1.gap.calls_per_item"]["ours"] = gap
            with self.subTest(word=word):
                self.assertTrue(record_report._gap_words(report).startswith(f"0.50 {word} than with the schema"))

    def test_polling_is_said_to_return_less_data_only_where_it_does(self):
        r4 = self.report.main["R4"]
        self.assertIn("times less data than re-listing", "\n".join(record_report.r4(self.report)))
        turned = copy.deepcopy(self.report)
        turned.main["R4"]["poll"]["bytes"] = 3 * r4["relist"]["bytes"]
        self.assertIn("3.0 times more data than re-listing", "\n".join(record_report.r4(turned)))

    def test_r5_claims_each_move_caught_and_each_overwrite_only_where_the_counts_say_so(self):
        self.assertIn("each move becomes a conflict", record_report.r5_prose(self.report)[0])
        turned = copy.deepcopy(self.report)
        turned.main["R5"]["from_read"]["conflicts"] -= 1
        turned.main["R5"]["reread"]["overwritten"] -= 1
        prose = record_report.r5_prose(turned)[0]
        self.assertNotIn("each move becomes a conflict", prose)
        self.assertNotIn("silently writes over", prose)


if __name__ == "__main__":
    unittest.main()
