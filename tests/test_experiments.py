"""cli.py and lab/experiments.py: seed lists, range groups, the 95% range, verdicts and sums both experiment
scripts use."""

import argparse
import unittest

from osfoundry_tools import cli
from lab import experiments


class SeedsAndRangesTest(unittest.TestCase):
    def test_seed_lists_and_ranges(self):
        self.assertEqual(cli.parse_seeds("1,3,8-10"), [1, 3, 8, 9, 10])
        self.assertEqual(cli.parse_seeds("1-5"), [1, 2, 3, 4, 5])
        for bad in ("x", "5-1", "0", "1,,2"):
            with self.subTest(bad=bad), self.assertRaises(argparse.ArgumentTypeError):
                cli.parse_seeds(bad)

    def test_range_groups_are_disjoint_fives_after_the_main_seeds(self):
        groups = experiments.range_groups([1, 2, 3, 4, 5], 40)
        self.assertEqual((groups[0], groups[-1][-1], len(groups)), ([6, 7, 8, 9, 10], 205, 40))

    def test_the_95_percent_range_drops_one_value_at_each_end_of_forty(self):
        self.assertEqual(experiments.spread(list(range(40))), (1, 38))
        self.assertEqual(experiments.spread([3.0, 1.0, 2.0]), (1.0, 3.0))

    def test_verdicts_compare_at_the_published_precision(self):
        self.assertEqual(experiments.verdict(15.8, 15.84, 10.0, 20.0, 1), "exact")
        self.assertEqual(experiments.verdict(15.8, 12.0, 15.76, 20.0, 1), "inside range")
        self.assertEqual(experiments.verdict(15.8, 12.0, 15.9, 20.0, 1), "outside range")
        self.assertEqual(experiments.verdict(15.8, 12.0, None, None, 1), "no range (--ranges 0)")

    def test_a_published_figure_stands_for_the_interval_that_rounds_to_it_and_our_range_is_never_rounded(self):
        self.assertEqual(experiments.verdict(85, 60.0, 61.0, 84.5, 0), "inside range")  # round(84.5) is 84
        self.assertEqual(experiments.verdict(85, 60.0, 61.0, 84.49, 0), "outside range")  # not round(84.49) = 84
        self.assertEqual(experiments.verdict(56.7, 40.0, 40.7, 56.64, 1), "outside range")
        self.assertEqual(experiments.verdict(56.7, 40.0, 40.7, 56.65, 1), "inside range")
        self.assertEqual(experiments.verdict(30, 30.49, None, None, 0), "exact")
        self.assertEqual(experiments.verdict(30, 29.5, None, None, 0), "exact")
        self.assertEqual(experiments.verdict(30, 30.5, None, None, 0), "no range (--ranges 0)")  # it rounds to 31
        self.assertEqual(experiments.verdict(22.7, 100 * 1359 / 6000, None, None, 1), "exact")
        self.assertEqual(experiments.number(100 * 1359 / 6000, 1), "22.7")
        self.assertEqual(experiments.verdict(2.00, 1.95, 1.91, 1.9949, 2), "outside range")

    def test_results_of_the_same_shape_add_up_by_key_and_position(self):
        total = experiments.total_of([{"a": 1, "b": [1, 2]}, {"a": 2, "b": [10, 20]}, {"a": 3, "b": [0, 1]}])
        self.assertEqual(total, {"a": 6, "b": [11, 23]})

    def test_measure_gives_each_published_figure_its_verdict_and_leaves_others_unjudged(self):
        groups = [{"n": n} for n in range(40)]
        rows = experiments.measure({"x": lambda t: t["n"], "y": lambda t: 2 * t["n"]}, {"n": 7}, groups,
                                   {"x": 39}, lambda key: 0)
        self.assertEqual(rows["x"], {"ours": 7, "low": 1, "high": 38, "decimals": 0, "published": 39,
                                     "verdict": "outside range", "groups": list(range(40))})
        self.assertNotIn("verdict", rows["y"])

    def test_numbers_and_seed_lists_print_as_the_articles_do(self):
        self.assertEqual(experiments.number(5361, 0), "5,361")
        self.assertEqual(experiments.number(16.71, 1, " KiB"), "16.7 KiB")
        self.assertEqual(experiments.seeds_text([1, 2, 3, 5, 8, 9]), "1–3, 5, 8–9")


if __name__ == "__main__":
    unittest.main()
