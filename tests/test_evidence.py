"""lab/evidence.py: each published figure counted once, checks apart, firm and loose matches, and the bases both
experiments declare, held to the article's own numbers."""

import dataclasses
import unittest

from lab import evidence, experiments, figures, pages
from lab.knowledge_base import scenario as kb_scenario
from lab.record_channels import scenario as record_scenario

BASIS = evidence.Basis(
    restated={"count.share": evidence.restates("count", "whole", by=lambda p: 100 * p["count"] / p["whole"]),
              "count.again": evidence.restates("count"),
              "count.share.thirds": evidence.restates("count.share", by=lambda p: 3 * p["count.share"] / 100)},
    checks={"whole": "the run is built with this many"},
)


def row(published, ours, groups, decimals=0):
    """A figure's row as experiments.measure makes it, its range the smallest and largest of `groups`."""
    low, high = (min(groups), max(groups)) if groups else (None, None)
    return {"published": published, "ours": ours, "low": low, "high": high, "decimals": decimals,
            "groups": list(groups), "verdict": experiments.verdict(published, ours, low, high, decimals)}


def rows_with(**extra):
    """A count, the whole it is a share of, restatements of the count, and `extra` figures."""
    made = {"count": row(30, 31, [24, 33, 36]), "whole": row(100, 100, [100, 100, 100]),
            "count.share": row(30.0, 31.0, [24.0, 33.0, 36.0], 1), "count.again": row(30, 31, [24, 33, 36]),
            "count.share.thirds": row(1, 0.93, [0.72, 0.99, 1.08])}
    return dict(made, **extra)


class CountedOnceTest(unittest.TestCase):
    def test_a_restating_row_is_counted_once_as_the_figure_it_restates(self):
        assessed = evidence.assess(rows_with(), BASIS)
        self.assertEqual(list(assessed), ["count", "whole"])
        self.assertEqual(sum(evidence.tally(assessed).values()), 2)

    def test_restatements_of_restatements_rest_on_the_first_independent_figure(self):
        self.assertEqual(BASIS.roots("count.share.thirds"), ("count", "whole"))
        self.assertEqual(BASIS.covered(["count", "whole", "count.share", "count.again", "count.share.thirds"]),
                         {"count": ["count", "count.share", "count.again", "count.share.thirds"], "whole": ["whole"]})

    def test_a_figure_counted_twice_moves_in_lockstep_with_its_twin_and_is_found(self):
        rows = rows_with(**{"twice": row(60, 62, [48, 66, 72]), "other": row(60, 62, [50, 66, 72])})
        self.assertEqual(evidence.lockstep_pairs(rows, ["count", "twice", "other"]), [("count", "twice")])
        self.assertEqual(evidence.lockstep_pairs(rows, ["count", "other"]), [])

    def test_figures_fixed_over_every_group_are_never_called_twins(self):
        rows = {"a": row(5, 5, [5, 5, 5]), "b": row(10, 10, [10, 10, 10])}
        self.assertEqual(evidence.lockstep_pairs(rows, ["a", "b"]), [])


class StrengthTest(unittest.TestCase):
    def test_a_check_holds_only_when_ours_is_exact(self):
        self.assertEqual(evidence.strength(row(100, 100, [100, 100]), check=True), evidence.CHECK)
        self.assertEqual(evidence.strength(row(100, 20, [20, 20]), check=True), evidence.FAILED)

    def test_a_match_is_firm_up_to_a_range_a_third_as_wide_as_the_figure_and_loose_beyond(self):
        self.assertEqual(evidence.strength(row(30, 31, [25, 35]), check=False), evidence.FIRM)  # 10 of 30
        self.assertEqual(evidence.strength(row(30, 31, [25, 35.5]), check=False), evidence.LOOSE)
        self.assertEqual(evidence.strength(row(30, 31, [25, 35.5]), check=False, firm_width=1 / 2), evidence.FIRM)
        self.assertEqual(evidence.strength(row(30, 40, [36, 45]), check=False), evidence.OUTSIDE)

    def test_a_published_zero_is_firm_only_against_a_range_of_no_width_and_too_wide_against_any_other(self):
        self.assertEqual(evidence.strength(row(0, 0, [0, 0]), check=False), evidence.FIRM)
        self.assertEqual(evidence.strength(row(0, 0, [0, 2]), check=False), evidence.WIDE)
        self.assertEqual(evidence.relative_width(row(0, 0, [0, 2])), float("inf"))

    def test_ours_exact_is_no_match_where_our_range_misses_the_figure(self):
        edge = row(30, 30.2, [31, 33, 36])  # the main seeds round to 30, every group of range seeds lies above
        self.assertEqual(edge["verdict"], experiments.OUTSIDE)  # the verdict the tables show says so too
        self.assertEqual(evidence.strength(edge, check=False), evidence.OUTSIDE)
        self.assertEqual(evidence.strength(row(30, 30.2, [30.4, 33, 36]), check=False), evidence.FIRM)  # rounds in

    def test_without_a_range_an_exact_figure_is_unranged_not_a_match(self):
        self.assertEqual(evidence.strength(row(30, 30, []), check=False), evidence.UNRANGED)

    def test_the_percentile_counts_the_groups_below_and_half_of_those_within_the_rounding(self):
        self.assertEqual(evidence.percentile(row(30, 30, [20, 25, 29.4, 30.2, 40])), 70.0)  # 3 below, 1 within
        self.assertEqual(evidence.percentile(row(30, 30, [31, 32])), 0.0)
        self.assertIsNone(evidence.percentile(row(30, 30, [])))

    def test_a_figure_tells_the_models_apart_when_only_one_range_holds_it_and_a_check_never_does(self):
        held, missed = row(30, 31, [25, 35]), row(30, 40, [36, 45])
        by_model = {"a": evidence.assess({"count": held, "whole": row(100, 100, [100, 100])}, BASIS),
                    "b": evidence.assess({"count": missed, "whole": row(100, 20, [20, 20])}, BASIS)}
        self.assertEqual(evidence.favoured(by_model), {"count": "a"})

    def test_the_tally_names_failed_checks_and_unranged_figures_only_when_some_are(self):
        counts = dict.fromkeys(evidence.STRENGTHS, 0)
        counts.update({evidence.CHECK: 1, evidence.FIRM: 2, evidence.LOOSE: 3, evidence.OUTSIDE: 4})
        self.assertEqual(evidence.tally_text(counts), "10 independent: 1 check, 2 firm, 3 loose, 4 outside")
        counts[evidence.FAILED] = 2
        self.assertIn("2 failed checks", evidence.tally_text(counts))
        self.assertEqual(evidence.checks_words(counts), "3 check how the run is built, and 1 of them hold")


class TooWideTest(unittest.TestCase):
    """A range at least as wide as the published figure holds about a value and its double: meeting the figure with it
    could not have failed, so it is neither a match nor a miss, by a rule computed from the range, not a list."""

    def test_a_range_as_wide_as_the_figure_that_meets_it_is_too_wide_and_a_narrower_one_loose(self):
        self.assertEqual(evidence.strength(row(10, 10, [6, 15]), check=False), evidence.LOOSE)  # 9 of 10 wide
        self.assertEqual(evidence.strength(row(10, 10, [5, 15]), check=False), evidence.WIDE)  # 10 of 10
        self.assertEqual(evidence.strength(row(10, 10, [0, 40]), check=False), evidence.WIDE)
        self.assertEqual(evidence.strength(row(10, 30, [16, 40]), check=False), evidence.OUTSIDE)  # wide, but missed

    def test_every_range_the_rule_calls_too_wide_holds_a_value_and_its_double_and_no_narrower_one_is_called_so(self):
        checked = 0
        for published in (3, 10, 57, 369):
            for tenths in range(1, 31):  # widths from a tenth of the figure to three times it
                width = published * tenths / 10
                for low in (published - width * share / 4 for share in range(5)):  # the figure anywhere inside
                    found = evidence.strength(row(published, published, [max(0.0, low), low + width]), check=False)
                    with self.subTest(published=published, width=width, low=low):
                        self.assertEqual(found == evidence.WIDE, tenths >= 10 * evidence.TOO_WIDE)
                        if found == evidence.WIDE:
                            self.assertGreaterEqual(low + width, 2 * max(0.0, low))
                    checked += 1
        self.assertGreater(checked, 500)

    def test_a_bottom_above_the_figure_within_its_rounding_holds_about_a_value_and_its_double(self):
        found = evidence.strength(row(3, 4, [3.4, 6.4]), check=False)  # 3.4 rounds to the published 3
        self.assertEqual(found, evidence.WIDE)
        self.assertLess(6.4, 2 * 3.4)  # not quite its double: the words say "about", give or take the rounding
        self.assertGreaterEqual(6.4, 2 * (3.4 - 0.5))  # twice the bottom less half the figure's rounding
        self.assertIn("give or take the figure's rounding", pages.counting_rules("", "", ""))

    def test_a_match_too_wide_is_not_held_tells_no_model_apart_and_is_counted_apart_in_the_words(self):
        wide, missed = row(10, 10, [5, 20]), row(10, 30, [25, 35])
        whole = row(100, 100, [100, 100])
        by_model = {"a": evidence.assess({"count": wide, "whole": whole}, BASIS),
                    "b": evidence.assess({"count": missed, "whole": whole}, BASIS)}
        self.assertEqual(by_model["a"]["count"].strength, evidence.WIDE)
        self.assertEqual(evidence.favoured(by_model), {})  # neither range holds it as a match
        loose = evidence.assess({"count": row(10, 10, [8, 12]), "whole": whole}, BASIS)
        self.assertEqual(evidence.favoured({"a": by_model["a"], "b": loose}), {})  # too wide misses nothing either
        self.assertEqual(evidence.favoured({"a": by_model["b"], "b": loose}), {"count": "b"})
        counts = evidence.tally(by_model["a"], BASIS)
        self.assertEqual((evidence.held(counts), counts[evidence.WIDE], evidence.measured(counts)), (0, 1, 1))
        self.assertEqual(evidence.measured_words(counts),
                         "matches 0 firmly and 0 loosely, meets 1 only with a range too wide to count, and misses 0")
        self.assertIn("1 too wide", evidence.tally_text(counts))
        self.assertEqual(evidence.pieces_text(counts), "0 firm, 0 loose, 1 too wide, 0 outside")

    def test_over_draws_a_match_too_wide_in_any_draw_is_too_wide_and_a_miss_in_any_is_a_miss(self):
        loose, wide, missed = row(10, 10, [6, 12]), row(10, 10, [4, 16]), row(10, 10, [12, 16])
        draws = lambda *rows: evidence.across([evidence.assess({"count": r}, BASIS) for r in rows])  # noqa: E731
        self.assertEqual(draws(loose, wide)["count"].strength, evidence.WIDE)
        self.assertEqual(draws(wide, missed)["count"].strength, evidence.OUTSIDE)
        tallies = [evidence.tally(evidence.assess({"count": r}, BASIS)) for r in (loose, wide)]
        counts = evidence.tally(draws(loose, wide))
        self.assertEqual(evidence.measured_words(counts, tallies),
                         "matches 0 firmly and 0 loosely, meets 1 only with a range too wide to count, and misses 0 "
                         "(one draw at a time: 0 firmly, 0–1 loosely, 0–1 too wide, 0 missed)")
        self.assertIn(evidence.WIDE, pages.shown_strengths([counts, *tallies]))
        self.assertIn("at least as wide as the figure itself", pages.counting_rules("a share", "", ""))


KINDS = evidence.Basis(
    restated={}, checks={"whole": "the run is built with this many"},
    fixed={"sampled": "a sample of a stated share"},
    causes={"one shape": ("page", "schema")},
)


def kinds_rows(page=(30, 31, [25, 35])):
    """A check, a figure fixed by the inputs that matches firmly, two figures of one cause and one of its own."""
    return {"whole": row(100, 100, [100, 100]), "sampled": row(30, 30, [29, 31]), "page": row(*page),
            "schema": row(60, 80, [75, 85]), "own": row(10, 10, [9, 12])}


class KindsTest(unittest.TestCase):
    """Checks, figures fixed by the inputs and measured figures apart; one cause's figures as one piece."""

    def test_a_figure_fixed_by_the_inputs_is_never_tallied_as_measured_however_well_it_matches(self):
        assessed = evidence.assess(kinds_rows(), KINDS)
        self.assertEqual(assessed["sampled"].strength, evidence.FIXED)
        counts = evidence.tally(assessed, KINDS)
        self.assertEqual((counts[evidence.CHECK], counts[evidence.FIXED]), (1, 1))
        self.assertEqual(evidence.measured_figures(counts), 3)  # page, schema, own: never the sampled one
        self.assertEqual(counts[evidence.FIRM], 1)  # own; the fixed figure's firm range counts for nothing
        self.assertEqual(KINDS.kind("sampled"), evidence.FIXED)
        self.assertEqual([KINDS.kind(k) for k in ("whole", "own")], ["check", "measured"])

    def test_the_figures_of_one_cause_are_one_piece_at_the_weakest_of_their_strengths(self):
        counts = evidence.tally(evidence.assess(kinds_rows(), KINDS), KINDS)
        self.assertEqual((evidence.measured(counts), counts[evidence.SHARED]), (2, 1))
        self.assertEqual((counts[evidence.FIRM], counts[evidence.OUTSIDE]), (1, 1))  # page firm, schema outside
        self.assertEqual(evidence.total(counts), 5)

    def test_a_figure_fixed_by_the_inputs_that_misses_in_any_draw_says_so(self):
        draws = [evidence.assess(kinds_rows(), KINDS),
                 evidence.assess(dict(kinds_rows(), sampled=row(30, 30, [33, 36])), KINDS)]
        self.assertFalse(draws[0]["sampled"].missed)
        across = evidence.across(draws)
        self.assertEqual((across["sampled"].strength, across["sampled"].missed), (evidence.FIXED, True))
        self.assertIn("yet our range misses the published figure", figures.strength_cells(KINDS, across["sampled"])[2])
        self.assertNotIn("misses", figures.strength_cells(KINDS, draws[0]["sampled"])[2])

    def test_a_figure_fixed_under_one_reading_is_measured_under_every_other(self):
        basis = dataclasses.replace(KINDS, fixed_under={"per citation": {"own": "a sample of a stated share"}})
        self.assertEqual(basis.read_as("per citation").kind("own"), evidence.FIXED)
        self.assertEqual(basis.read_as("distinct").kind("own"), "measured")
        self.assertEqual(basis.kind("own"), "measured")
        counts = evidence.tally(evidence.assess(kinds_rows(), basis.read_as("per citation")),
                                basis.read_as("per citation"))
        self.assertEqual((counts[evidence.FIXED], counts[evidence.FIRM]), (2, 0))

    def test_the_pieces_missed_are_counted_as_the_tallies_count_them_one_cause_once(self):
        rows = dict(kinds_rows(page=(30, 50, [45, 55])), own=row(10, 20, [18, 22]))  # page and schema both outside
        assessed = evidence.assess(rows, KINDS)
        missed = evidence.missed_pieces(assessed, KINDS)
        self.assertEqual(missed, ["page", "own"])
        self.assertEqual(len(missed), evidence.tally(assessed, KINDS)[evidence.OUTSIDE])
        self.assertEqual(evidence.missed_pieces(assessed), ["page", "schema", "own"])  # no causes: each alone
        loose_page = evidence.assess(kinds_rows(page=(30, 31, [25, 40])), KINDS)
        self.assertEqual(evidence.missed_pieces(loose_page, KINDS), ["schema"])  # the piece, by its figure outside
        self.assertEqual(evidence.piece_figures(loose_page, KINDS)["page"], ["page", "schema"])

    def test_over_draws_a_figure_is_firm_only_when_firm_in_every_draw(self):
        draws = [evidence.assess(kinds_rows(), KINDS), evidence.assess(kinds_rows(), KINDS),
                 evidence.assess(dict(kinds_rows(), own=row(10, 10, [9, 16])), KINDS)]
        across = evidence.across(draws)
        self.assertEqual(across["own"].strength, evidence.LOOSE)
        self.assertEqual(across["own"].draws, (evidence.FIRM, evidence.FIRM, evidence.LOOSE))
        self.assertEqual(across["sampled"].strength, evidence.FIXED)
        self.assertEqual(evidence.tally(across, KINDS)[evidence.FIRM], 0)
        rows = [kinds_rows(), dict(kinds_rows(), own=row(10, 10, [9, 16]))]
        self.assertEqual(evidence.firm_at(rows, KINDS, (1 / 3, 1)), {1 / 3: 0, 1: 1})


class BasesTest(unittest.TestCase):
    """What each experiment declares of its published figures, held to the article's own numbers."""

    EXPERIMENTS = {"sim": (kb_scenario.BASIS, kb_scenario.PUBLISHED, kb_scenario.decimals_of),
                   "triage": (record_scenario.BASIS, record_scenario.PUBLISHED, record_scenario.decimals_of)}

    def test_every_declared_restatement_follows_from_the_published_figures_it_names(self):
        for name, (basis, published, decimals_of) in self.EXPERIMENTS.items():
            with self.subTest(experiment=name):
                self.assertEqual(evidence.restatement_errors(basis, published, decimals_of), [])
                self.assertGreater(len(basis.restated), 20)

    def test_a_restatement_the_published_figures_do_not_bear_out_is_found(self):
        basis, published, decimals_of = self.EXPERIMENTS["sim"]
        wrong = dataclasses.replace(basis, restated=dict(basis.restated, **{
            "K2.h8.answers_pct": evidence.restates("K2.h8.stale", by=lambda p: 100 * p["K2.h8.stale"] / 600)}))
        self.assertEqual(len(evidence.restatement_errors(wrong, published, decimals_of)), 1)

    def test_every_restated_or_checked_figure_is_published_and_rests_on_published_figures(self):
        for name, (basis, published, _) in self.EXPERIMENTS.items():
            with self.subTest(experiment=name):
                self.assertLessEqual(set(basis.restated) | set(basis.checks), set(published))
                for key in basis.restated:
                    self.assertLessEqual(set(basis.roots(key)), set(published) - set(basis.restated), key)
                self.assertFalse(set(basis.checks) & set(basis.restated))

    def test_the_knowledge_base_article_publishes_41_independent_figures_the_tallies_count(self):
        measured = [key for key in kb_scenario.PUBLISHED if key not in ("top10.analytic", "wall.seconds")]
        counted = [key for key in kb_scenario.BASIS.independent(measured) if kb_scenario.BASIS.tallied(key)]
        self.assertEqual((len(counted), len([k for k in counted if k in kb_scenario.BASIS.checks])), (41, 7))
        self.assertEqual(set(kb_scenario.BASIS.independent(measured)) - set(counted), {"K3.title.kib", "K3.reread.kib"})

    def test_a_rejection_count_the_stated_law_makes_certain_is_fixed_by_the_inputs_and_no_other(self):
        fixed = [key for key in kb_scenario.BASIS.fixed if key.startswith("K4.")]
        self.assertEqual(fixed, ["K4.d0.conflicts", "K4.d0.gone", "K4.d1.gone"])  # 20 s both, 15 min unpublished
        self.assertIn("99.5% of the time", kb_scenario.BASIS.fixed["K4.d0.conflicts"])
        busier = dataclasses.replace(kb_scenario.DAY_AS_STATED, saves=30 * kb_scenario.SAVES)
        self.assertEqual([k for k in kb_scenario.basis_for(busier).fixed if k.startswith("K4.")], [])
        self.assertEqual([k for k in kb_scenario.basis_for(kb_scenario.DAY_AS_STATED, groups=0).fixed
                          if k.startswith("K4.")], [])

    def test_a_published_count_far_from_the_law_could_have_failed(self):
        self.assertGreater(experiments.count_range_chance(150, 0.005, 0, 10, 4), 0.99)
        self.assertLess(experiments.count_range_chance(150, 0.005, 5, 10, 4), 0.01)
        self.assertLess(experiments.count_range_chance(150, 0.1, 30, 10, 4), 0.01)
        self.assertAlmostEqual(experiments.inside_every_chance(10, 1), experiments.inside_chance(10), places=6)
        self.assertLess(experiments.inside_every_chance(10, 4), experiments.inside_every_chance(10, 1))

    def test_the_control_share_per_citation_is_fixed_by_the_inputs_and_measured_per_distinct_version(self):
        self.assertEqual(kb_scenario.BASIS.read_as("citation").kind("control.stale"), evidence.FIXED)
        self.assertIn("29.6%", kb_scenario.BASIS.read_as("citation").fixed["control.stale"])
        self.assertEqual(kb_scenario.BASIS.read_as("distinct").kind("control.stale"), "measured")

    def test_what_fixes_a_record_figure_is_said_in_the_run_s_own_inputs_never_typed(self):
        fixed = record_scenario.BASIS.fixed
        self.assertIn("one bug in 7 asks for more than 13", fixed["R1.twenty"])
        self.assertIn("(6 bugs in 7)", fixed["R1.no.terse.saved"])
        self.assertIn("one bug in 8", fixed["R5.from_read.conflicts"])
        other = dataclasses.replace(record_scenario.AS_RUN, move_share=0.3, description=(500, 1000),
                                    points=(1, 2, 20, 40), weekday_share=0.25)
        fixed = record_scenario.basis_for(other).fixed
        self.assertIn("30.0% of the bugs", fixed["R5.from_read.conflicts"])
        self.assertIn("500–1,000 characters", fixed["R2.full_kib"])
        self.assertIn("2 bugs in 4 ask for more than 13", fixed["R1.twenty"])
        self.assertIn("as ISO dates (75% of them)", fixed["R1.no.terse.saved"])
        self.assertEqual(set(fixed), set(record_scenario.BASIS.fixed))

    def test_the_record_article_publishes_29_independent_figures_19_of_them_checks(self):
        counted = record_scenario.BASIS.independent(record_scenario.PUBLISHED)
        self.assertEqual((len(counted), len([k for k in counted if k in record_scenario.BASIS.checks])), (29, 19))


if __name__ == "__main__":
    unittest.main()


def sweep(reached, key="own", values=((("as run"), 10.0), ("other", 12.0))):
    """A sweep of one parameter over `key`, reaching the published figure or not."""
    return evidence.Sweep("a parameter", (key,), "things", tuple(values), "other" if reached else None,
                          "as plausible as ours" if reached else "no value tried gives it")


class SweepTest(unittest.TestCase):
    """A figure a sweep of an unstated parameter reaches is neither a match nor a miss."""

    def test_a_figure_fixed_by_the_inputs_whose_match_a_parameter_decides_is_measured_one_cause_with_its_figures(self):
        rows = kinds_rows()  # sampled: 30 against a range 29 – 31
        shape = dataclasses.replace(sweep(False, "page"), moves={"sampled": (0.0, -0.5)})
        self.assertFalse(evidence.decides(shape, "sampled", [rows]))
        self.assertIs(evidence.settled(KINDS, [shape], [rows]), KINDS)  # its range still holds 30: still fixed
        shape = dataclasses.replace(shape, moves={"sampled": (0.0, -0.5, -2.0)})
        self.assertTrue(evidence.decides(shape, "sampled", [rows]))  # 27 – 29 misses 30
        basis = evidence.settled(KINDS, [shape], [rows])
        self.assertEqual((basis.kind("sampled"), basis.cause_of("sampled")), ("measured", "one shape"))
        self.assertEqual(basis.causes["one shape"], ("page", "schema", "sampled"))
        counts = evidence.tally(evidence.assess(rows, basis), basis)
        self.assertEqual((counts[evidence.FIXED], counts[evidence.SHARED]), (0, 2))  # one piece with page and schema
        later = dict(rows, sampled=row(30, 30, [29, 31.5]))
        self.assertTrue(evidence.decides(shape, "sampled", [later, rows]))  # decided in any draw is decided
        own = dataclasses.replace(sweep(False, "own"), moves={"sampled": (0.0, -2.0)})
        self.assertEqual(evidence.settled(KINDS, [own], [rows]).causes["a parameter"], ("own", "sampled"))

    def test_a_figure_fixed_by_the_inputs_that_misses_at_every_value_tried_stays_fixed(self):
        rows = dict(kinds_rows(), sampled=row(30, 40, [38, 42]))
        shape = dataclasses.replace(sweep(False, "page"), moves={"sampled": (0.0, -2.0, 1.0)})
        self.assertFalse(evidence.decides(shape, "sampled", [rows]))
        self.assertEqual(evidence.settled(KINDS, [shape], [rows]).kind("sampled"), evidence.FIXED)

    def test_only_the_figures_of_a_sweep_that_reaches_the_published_figure_rest_on_its_parameter(self):
        self.assertEqual(evidence.reached_by([sweep(True, "own"), sweep(False, "page")]), ["own"])
        assessed = evidence.assess(kinds_rows(), KINDS, reached=["own", "sampled", "whole"])
        self.assertEqual(assessed["own"].strength, evidence.UNSTATED)
        self.assertEqual(assessed["sampled"].strength, evidence.FIXED)  # only a measured figure can rest on one
        self.assertEqual(assessed["whole"].strength, evidence.CHECK)
        counts = evidence.tally(assessed, KINDS)
        self.assertEqual((counts[evidence.FIRM], counts[evidence.UNSTATED]), (0, 1))
        self.assertEqual(evidence.held(counts), 0)
        self.assertIn("1 unstated parameter", evidence.tally_text(counts))

    def test_a_value_tried_gives_the_figure_only_when_it_rounds_to_it_and_ours_as_run_is_never_one(self):
        values = (("ours, as run", 153.2), ("no spaces", 152.4), ("wider", 160.0))
        self.assertIsNone(evidence.value_giving(values, 153, 0))  # 153 lies between two shapes: given by neither
        self.assertEqual(evidence.value_giving(values, 152, 0), "no spaces")
        self.assertEqual(evidence.value_giving(values + (("narrower", 152.6),), 153, 0), "narrower")  # halves up
        self.assertIsNone(evidence.value_giving((("ours, as run", 2.0), ("other", 1.5)), 2.0, 2))

    def test_the_pieces_text_counts_each_strength_and_spreads_it_over_the_draws(self):
        counts = dict.fromkeys(evidence.STRENGTHS, 0)
        counts.update({evidence.FIRM: 2, evidence.LOOSE: 3, evidence.OUTSIDE: 4, evidence.UNSTATED: 1})
        other = dict(counts, **{evidence.FIRM: 4})
        self.assertEqual(evidence.pieces_text(counts), "2 firm, 3 loose, 4 outside, 1 unstated parameter")
        self.assertEqual(evidence.pieces_text(counts, [counts, other]),
                         "2 firm, 3 loose, 4 outside, 1 unstated parameter (one draw at a time: 2–4, 3, 4, 1)")

    def test_the_measured_words_name_each_counts_spread_over_the_draws_beside_it(self):
        counts = dict.fromkeys(evidence.STRENGTHS, 0)
        counts.update({evidence.FIRM: 2, evidence.LOOSE: 3, evidence.OUTSIDE: 4, evidence.UNSTATED: 1})
        other = dict(counts, **{evidence.FIRM: 4, evidence.OUTSIDE: 6})
        self.assertEqual(evidence.measured_words(counts), "matches 2 firmly and 3 loosely and misses 4, and 1 rests "
                                                          "on a parameter the article never states, which a sweep of "
                                                          "it can reach")
        self.assertEqual(evidence.measured_words(counts, [counts, other]),
                         "matches 2 firmly and 3 loosely and misses 4 (one draw at a time: 2–4 firmly, 3 loosely, 4–6 "
                         "missed), and 1 rests on a parameter the article never states, which a sweep of it can reach")

    def test_a_sweep_section_says_once_what_every_model_agrees_on_and_per_model_otherwise(self):
        rows = {"own": row(12, 10, [9, 11])}
        assessed = evidence.assess(rows, evidence.Basis(restated={}, checks={}), reached=["own"])
        lines = pages.sweeps_section("Intro.", ["one", "two"], [[sweep(True), sweep(True)]], rows, {"own": 5},
                                     [assessed, assessed], {})
        self.assertEqual(lines[0], pages.SWEPT)
        self.assertIn("| value | one: things | two: things | published |", lines)
        self.assertIn("| other | 12 | 12 | 12 |", lines)
        self.assertEqual(lines[-1], "The value that gives the published figure: other. As plausible as ours, so the "
                                    "figure rests on this parameter.")
        missed = evidence.assess(rows, evidence.Basis(restated={}, checks={}))
        lines = pages.sweeps_section("Intro.", ["one", "two"], [[sweep(True), sweep(False)]], rows, {"own": 5},
                                     [assessed, missed], {})
        self.assertTrue(lines[-1].startswith("One: The value"), lines[-1])
        self.assertIn(" Two: No value tried gives it, so the figure stays measured: outside.", lines[-1])
