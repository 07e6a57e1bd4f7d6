"""lab/pages.py: the skeleton the three result pages share, and the evidence counts it lays out."""

import unittest

from lab import evidence, pages
from lab.experiments import TIMING_MARK, Provenance

CANONICAL = Provenance("python3 x.py", "abc", "3.9.6", "3.40.1", ())
TRIED = Provenance("python3 x.py --seeds 1", "abc", "3.9.6", "3.40.1", ("--seeds",))
COUNTS = {evidence.CHECK: 7, evidence.FAILED: 0, evidence.FIXED: 0, evidence.FIRM: 12, evidence.LOOSE: 18,
          evidence.OUTSIDE: 11, evidence.UNRANGED: 0}
SHARED = dict(COUNTS, **{evidence.FIXED: 2, evidence.OUTSIDE: 8, evidence.SHARED: 1})  # 2 fixed, 2 as 1 piece


class SkeletonTest(unittest.TestCase):
    def test_a_page_is_its_sections_a_blank_line_apart_with_a_last_newline(self):
        self.assertEqual(pages.page([["# T", "", "a"], ["## S", "b"]]), "# T\n\na\n\n## S\nb\n")

    def test_the_header_says_the_answer_what_wrote_the_page_and_what_made_it(self):
        lines = pages.header(CANONICAL, "Title", "All of it.", "Written by x.")
        self.assertEqual(lines[:5], ["# Title", "", "**In one sentence.** All of it.", "", "Written by x."])
        self.assertEqual(lines[-1], CANONICAL.line())
        self.assertTrue(pages.header(TRIED, "Title", "", "")[0].endswith("(--seeds): not the committed page"))

    def test_the_answer_opens_with_the_tally_each_figure_once(self):
        self.assertEqual(pages.answer_opening("record-channel", COUNTS),
                         "Of the 48 figures the record-channel article publishes, each counted once however many "
                         "rows restate it, 7 check how the run is built, and all hold, and 0 are fixed by the inputs "
                         "(a sample of what the stated settings alone give, whatever the model); the other 41 are "
                         "measured, decided by a mechanism of the model: ")
        self.assertIn("2 are fixed by the inputs", pages.answer_opening("x", SHARED))
        self.assertIn("the other 39 are measured, decided by a mechanism of the model, 1 of them counted with "
                      "another that follows from the same cause, so 38 pieces of evidence: ",
                      pages.answer_opening("x", SHARED))

    def test_a_page_of_one_model_has_unnamed_columns_and_of_two_one_set_per_model(self):
        self.assertEqual(pages.figure_columns(), ["figure", "#", "published", "ours", "our range", "verdict"])
        self.assertEqual(pages.figure_columns(["a", "b"])[3:], ["a: ours", "our range", "verdict", "b: ours",
                                                                "our range", "verdict"])
        self.assertEqual(pages.evidence_columns(["a"])[4:], ["a: percentile", "width", "strength"])

    def test_a_tally_shows_failed_checks_and_unranged_figures_only_where_some_are(self):
        self.assertEqual(pages.shown_strengths([COUNTS]), [evidence.CHECK, evidence.FIXED, evidence.FIRM,
                                                           evidence.LOOSE, evidence.OUTSIDE])
        shown = pages.shown_strengths([COUNTS, dict(COUNTS, **{evidence.FAILED: 1})])
        self.assertEqual(pages.strength_columns(shown)[:2], ["checks", "failed checks"])

    def test_the_rule_and_the_run_time_read_as_the_pages_print_them(self):
        self.assertEqual(pages.rule_words({1 / 4: 9, 1 / 2: 20}, 14, "m ", " here"),
                         "Drawn at a quarter or at half of the figure instead, the line would give m 9 or 20 firm "
                         "matches here, against 14.")
        self.assertEqual(pages.took(12.34, 1), "This run took 12.3 s on 1 process")
        self.assertEqual(pages.timed(pages.took(2, 2)), f"This run took 2.0 s on 2 processes {TIMING_MARK}")
        self.assertEqual(pages.run_time(["x"]), ["## Run time", "", "x"])


class CountsTest(unittest.TestCase):
    def test_the_counts_of_a_tally(self):
        self.assertEqual((evidence.total(COUNTS), evidence.measured(COUNTS), evidence.held(COUNTS)), (48, 41, 30))
        self.assertEqual((evidence.total(SHARED), evidence.measured_figures(SHARED), evidence.measured(SHARED)),
                         (48, 39, 38))

    def test_a_tally_table_sets_the_checks_and_the_fixed_apart_from_the_pieces_of_evidence(self):
        shown = pages.shown_strengths([SHARED])
        self.assertEqual(dict(zip(pages.tally_columns(shown), pages.tally_cells(SHARED, shown))), {
            "independent figures": "48", "checks": "7", "fixed by the inputs": "2", "measured figures": "39",
            "pieces of evidence": "38", "firm": "12", "loose": "18", "outside": "8"})


if __name__ == "__main__":
    unittest.main()
