"""What approval costs (lab/knowledge_base/approval.py): the check, the approval delays, the counts, and the
page's table."""

import contextlib
import dataclasses
import io
import math
import os
import re
import statistics
import unittest

from tests.helpers import KB, ROOT, support_store
from tests.test_sim import table_with_header
import sim
from lab.knowledge_base import approval as kb_approval
from lab.knowledge_base import day as kb_day
from lab.knowledge_base import report as kb_report
from lab.knowledge_base import rerun as kb_rerun
from lab.knowledge_base import scenario as kb_scenario

SMALL = ["--articles", "60", "--questions", "16", "--saves", "40"]
BUSY = ["--articles", "40", "--questions", "40", "--saves", "300", "--hours", "2", "--delays", "20s,15m",
        "--save-mix", "94/5/1"]  # people save the few articles often, and unpublish three


def scenario(*argv):
    """The day as stated that the command line would build."""
    return sim.scenario_from(sim.parser().parse_args(list(argv)))


def approval_days(day_scenario, seed, delays, sigma=1.0):
    """One seed's approval replicas: their counts, one per approval delay."""
    return kb_approval.run_seed(seed, day_scenario, kb_approval.Approval(tuple(delays), sigma))["approvals"]


class CheckTest(unittest.TestCase):
    """The stale-before-asking check is the store's preview: it writes nothing and rejects exactly a stale edit."""

    def setUp(self):
        self.store, self.clock, self.ids = support_store(":memory:")
        page = self.store.call_tool("read_knowledge_article", {"knowledge_base_id": KB, "article_id": self.ids[0]})
        self.cited = kb_day.Citation(0, self.ids[0], page["updated_at"], page["title"], page["content"])
        self.arguments = kb_day.edit_arguments(self.cited, "New text.", self.cited.updated_at, "key-1")

    def events(self):
        return self.store.call_tool("poll_resource_events", {"resource_type": "knowledge_base", "resource_id": KB,
                                                             "after_sequence": 0})["last_sequence"]

    def test_a_current_version_passes_the_check_which_writes_nothing_and_the_edit_then_saves(self):
        before = self.events()
        self.assertFalse(kb_approval.stale_before_asking(self.store, self.arguments))
        self.assertEqual(self.events(), before)
        self.assertEqual(self.store.article(KB, self.ids[0])["updated_at"], self.cited.updated_at)
        self.assertNotIn("error", self.store.call_tool(kb_day.EDIT_TOOL, self.arguments))

    def test_a_version_a_person_replaced_is_answered_at_once_and_the_article_is_left_as_the_person_saved_it(self):
        self.clock.advance()
        self.store.save_article(KB, self.ids[0], content="A person's text.")
        before = self.events()
        self.assertTrue(kb_approval.stale_before_asking(self.store, self.arguments))
        self.assertEqual(self.events(), before)
        self.assertEqual(self.store.article(KB, self.ids[0])["content"], "A person's text.")

    def test_an_unpublished_article_is_answered_at_once(self):
        self.clock.advance()
        self.store.unpublish_article(KB, self.ids[0])
        self.assertTrue(kb_approval.stale_before_asking(self.store, self.arguments))


class ApprovalDelayTest(unittest.TestCase):
    def test_the_factors_are_lognormal_with_median_one_and_the_stated_sigma(self):
        factors = kb_approval.approval_factors(1, 20001, 1.0)
        self.assertAlmostEqual(statistics.median(factors), 1.0, delta=0.04)
        self.assertAlmostEqual(statistics.pstdev([math.log(f) for f in factors]), 1.0, delta=0.02)

    def test_the_factors_depend_on_the_seed_alone_and_leave_the_days_own_draws_as_they_were(self):
        self.assertEqual(kb_approval.approval_factors(3, 5, 1.0), kb_approval.approval_factors(3, 5, 1.0))
        self.assertNotEqual(kb_approval.approval_factors(3, 5, 1.0), kb_approval.approval_factors(4, 5, 1.0))
        day = scenario(*SMALL)
        before = kb_day.draw_plan(3, day)
        kb_approval.approval_factors(3, 16, 1.0)
        self.assertEqual(kb_day.draw_plan(3, day), before)

    def test_a_sigma_of_zero_makes_every_approval_take_exactly_the_median(self):
        self.assertEqual(set(kb_approval.approval_factors(2, 50, 0.0)), {1.0})


class CountsTest(unittest.TestCase):
    """Counts that must hold in every replica of a busy little day."""

    @classmethod
    def setUpClass(cls):
        cls.scenario = scenario(*BUSY)
        cls.delays = (0, 10, 5 * 60, 30 * 60, 2 * 3600)
        cls.days = approval_days(cls.scenario, 1, cls.delays)

    def test_each_way_saves_the_approvals_asked_less_the_approvals_wasted(self):
        for nominal, counts in zip(self.delays, self.days):
            for way in kb_approval.WAYS:
                with self.subTest(delay=nominal, way=way):
                    c = counts[way]
                    self.assertEqual(c["saved"], c["asked"] - c["wasted"])

    def test_without_the_check_every_edit_is_asked_and_with_it_every_edit_is_asked_or_answered(self):
        for counts in self.days:
            self.assertEqual(counts["edits"], self.scenario.questions)
            self.assertEqual(counts[kb_approval.WITHOUT]["asked"], counts["edits"])
            self.assertEqual(counts[kb_approval.WITHOUT]["answered"], 0)
            self.assertEqual(counts[kb_approval.WITH]["answered"] + counts[kb_approval.WITH]["asked"],
                             counts["edits"])

    def test_every_edit_the_check_answered_was_rejected_at_commit_when_asked_anyway(self):
        answered = [counts[kb_approval.WITH]["answered"] for counts in self.days]
        self.assertGreater(min(answered), 0)  # the busy day makes some edits stale before they arrive
        self.assertEqual([counts["answered_then_wasted"] for counts in self.days], answered)
        for counts in self.days:
            self.assertEqual(counts[kb_approval.WITHOUT]["saved"], counts[kb_approval.WITH]["saved"])

    def test_an_approval_that_takes_no_time_is_never_wasted_with_the_check(self):
        self.assertEqual(self.days[0][kb_approval.WITH]["wasted"], 0)

    def test_wasted_approvals_grow_with_the_approval_delay(self):
        wasted = [counts[kb_approval.WITH]["wasted"] for counts in self.days]
        self.assertLess(wasted[1], wasted[-2])
        self.assertLess(wasted[-2], wasted[-1])
        saved = [counts[kb_approval.WITH]["saved"] for counts in self.days]
        self.assertGreater(saved[0], saved[-1])


class OneEditTest(unittest.TestCase):
    """One edit, a person's save of every article half a minute after it arrives: the approval's length decides."""

    def outcome(self, approval_seconds):
        day = scenario("--articles", "10", "--questions", "1", "--saves", "0", "--hours", "1", "--delays", "20s")
        plan = kb_day.draw_plan(5, day)
        saved_at = plan.questions[0].time + (20 + 30) * kb_day.SECOND
        saves = tuple(kb_day.Save(saved_at, change, change) for change in
                      (kb_day.Change(rank, "content", f"A person's text {rank}.", None) for rank in range(10)))
        plan = dataclasses.replace(plan, saves=saves)
        counts = kb_approval.run_approval_day(plan, day, kb_day.Published(plan, day), approval_seconds, [1.0])
        return {way: {k: v for k, v in counts[way].items() if v} for way in kb_approval.WAYS}

    def test_an_approval_before_the_save_saves_the_edit(self):
        self.assertEqual(self.outcome(29)[kb_approval.WITH], {"asked": 1, "saved": 1})

    def test_an_approval_after_the_save_is_wasted(self):
        self.assertEqual(self.outcome(31), {kb_approval.WITHOUT: {"asked": 1, "wasted": 1},
                                            kb_approval.WITH: {"asked": 1, "wasted": 1}})


def small_report(approval=True):
    """The report of one small seed, no ranges; without its approval replicas when `approval` is false."""
    options = sim.parser().parse_args(["--seeds", "1-2", "--ranges", "0", "--jobs", "1", *SMALL])
    with contextlib.redirect_stderr(io.StringIO()):
        if not approval:
            return kb_rerun.run_models("test", sim.models_from(options), options.seeds, [], 1)[0]
        return sim.measure_report(options)


def approval_table(text):
    """The header and rows of the table under the heading of what approval costs."""
    return table_with_header(text, "### What approval costs (ours: no published figure)")


class PageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = small_report()
        cls.text = kb_report.markdown(cls.report)

    def test_the_table_has_no_published_column_and_no_verdict(self):
        header, rows = approval_table(self.text)
        self.assertEqual(header, ["model", "median approval delay", "stale-before-asking check",
                                  "answered at once, nobody asked", "approvals asked", "approvals wasted",
                                  "edits saved"])
        self.assertFalse([cell for cell in header if re.search(r"published|verdict|range", cell)])
        # models, delays, with and without the check
        self.assertEqual(len(rows), 2 * len(kb_scenario.APPROVAL_DELAYS) * 2)

    def test_each_cell_is_the_mean_per_seed_of_the_counts_with_the_fewest_and_most(self):
        _, rows = approval_table(self.text)
        runs = self.report.models[self.report.default].approvals
        first = [seed[0][kb_approval.WITHOUT]["asked"] for seed in runs]
        self.assertEqual(rows[0][:5], ["popular search", "10 s", "without", "—",
                                       f"{statistics.mean(first):.1f} ({min(first)} – {max(first)})"])
        self.assertRegex(rows[1][3], r"^\d+\.\d \(\d+ – \d+\)$")

    def test_the_approval_replicas_move_no_figure_of_the_other_tables(self):
        without = small_report(approval=False)
        for name, run in without.items():
            self.assertEqual(run.rows, self.report.models[name].rows, name)
            self.assertIsNone(run.approvals)


class CommittedPageTest(unittest.TestCase):
    def test_the_committed_page_shows_the_table_under_k4_with_no_published_column(self):
        with open(os.path.join(ROOT, "results", "knowledge_base.md"), encoding="utf-8") as file:
            text = file.read()
        header, rows = approval_table(text)
        self.assertNotIn("published", " ".join(header))
        self.assertEqual(len(rows), 2 * len(kb_scenario.APPROVAL_DELAYS) * 2)
        self.assertLess(text.index("## K4 — editing"), text.index("### What approval costs"))
        self.assertLess(text.index("### What approval costs"), text.index("## Run time"))


if __name__ == "__main__":
    unittest.main()
