"""lab/knowledge_base/chart.py: round ticks, log panels that hold every value, lines that cannot hide one another, end
labels that do not touch, and an SVG that parses and keeps its title and dark colours.

The input is a fake report with the figures of the default run (seeds 1-5 summed), so no day is simulated.
Glossary: a `main` is the dict chart() reads (report.models[report.default].main); `hours` are its rows.
"""

import math
import os
import re
import types
import unittest
import xml.etree.ElementTree as ElementTree
from typing import Dict, List, Sequence, Tuple

from tests.helpers import ROOT
from lab.knowledge_base import chart as kb_chart
from lab.knowledge_base import day as kb_day
from lab.knowledge_base import report as kb_report
from lab.knowledge_base import scenario as kb_scenario

SVG = "{http://www.w3.org/2000/svg}"
LABEL_FONT = 11  # px: the small font of the end labels, the least distance between two of them
# The default run's sums by hour (seeds 1-5): (stale, each version once; citations) of each run, (calls, bytes) of
# each check.
STALE = {"zipf": [(28, 160), (64, 302), (116, 448), (165, 602), (209, 742), (263, 896), (313, 1064), (350, 1200)],
         "uniform": [(2, 160), (17, 302), (35, 448), (54, 602), (73, 742), (103, 896), (133, 1064), (162, 1200)]}
COSTS = {"title": [(111, 141637), (291, 371966), (539, 689136), (841, 1076133), (1194, 1528042),
                   (1599, 2044802), (2054, 2626444), (2543, 3250730)],
         "reread": [(110, 167561), (287, 433498), (526, 791253), (813, 1220313), (1143, 1709906),
                    (1520, 2268902), (1941, 2889945), (2391, 3548750)],
         "poll": [(5, 19209), (10, 40328), (15, 61635), (20, 79956), (25, 96855), (30, 114870), (35, 133651),
                  (40, 149682)]}
SAME = {check: COSTS["title"] for check in COSTS}  # three checks that cost exactly the same


class FakeReport:
    """What chart() reads of a measured.Report: the default model's sums, the seeds, the model's title."""
    default = "popular"

    def __init__(self, costs: Dict[str, List[Tuple[int, int]]] = COSTS, seeds: Sequence[int] = (1, 2, 3, 4, 5)):
        self.models = {self.default: types.SimpleNamespace(main=fake_main(costs))}
        self.seeds = list(seeds)
        self.published, self.published_hours = kb_scenario.PUBLISHED, kb_scenario.PUBLISHED_HOURS

    def title(self, model: str) -> str:
        return f"{model} search"


def fake_main(costs: Dict[str, List[Tuple[int, int]]]) -> Dict[str, Dict[str, list]]:
    """The summed hours of both runs, with the checks' costs in each."""
    return {run: {"hours": [{kb_chart.STALE: stale, "citations": citations,
                             "costs": {check: list(costs[check][i]) for check in costs}}
                            for i, (stale, citations) in enumerate(rows)]}
            for run, rows in STALE.items()}


def parsed(report: FakeReport) -> ElementTree.Element:
    """The chart of `report` as an XML tree."""
    return ElementTree.fromstring(kb_chart.chart(report))


def panels(root: ElementTree.Element) -> List[ElementTree.Element]:
    """The panels' groups, in drawing order."""
    return [g for g in root.iter(f"{SVG}g") if g.get("class", "").split()[0] == "panel"]


def classed(element: ElementTree.Element, name: str) -> List[ElementTree.Element]:
    """The elements under `element` that carry the class `name`, in document order."""
    return [e for e in element.iter() if name in e.get("class", "").split()]


def number(text: str) -> float:
    """A tick's value: '1,000' -> 1000.0."""
    return float(text.replace(",", ""))


def is_round(value: float, step: float) -> bool:
    """Whether `value` is a whole multiple of `step`."""
    return abs(value / step - round(value / step)) < 1e-9


def mantissa(step: float) -> float:
    """1, 2 or 5 for a step of 1, 2 or 5 × 10^k."""
    return round(step / 10 ** math.floor(math.log10(step) + 1e-12), 9)


def point_ys(polyline: ElementTree.Element) -> List[float]:
    """The y of every point of a polyline."""
    return [float(pair.split(",")[1]) for pair in polyline.attrib["points"].split()]


def label_ys(panel: ElementTree.Element) -> List[float]:
    """The baselines of a panel's end labels."""
    return [float(t.attrib["y"]) for t in classed(panel, "label")]


class TicksTest(unittest.TestCase):
    def test_a_linear_axis_steps_by_1_2_or_5_times_a_power_of_ten_from_0_to_just_above_the_largest_value(self):
        for high in (0.3, 1, 7, 10.1, 21, 50.1, 55.8, 99.9, 100, 101, 2543, 123456):
            with self.subTest(high=high):
                ticks = kb_chart.linear_axis([0, high / 2, high]).ticks
                step = ticks[1] - ticks[0]
                self.assertEqual(ticks[0], 0)
                self.assertIn(mantissa(step), (1, 2, 5))
                self.assertTrue(all(is_round(t, step) for t in ticks), ticks)
                self.assertGreaterEqual(ticks[-1], high)
                self.assertLess(ticks[-2], high)
                self.assertTrue(3 <= len(ticks) - 1 <= 5, ticks)

    def test_a_linear_axis_of_zeros_still_has_a_height(self):
        self.assertGreater(kb_chart.linear_axis([0, 0]).ticks[-1], 0)

    def test_a_log_axis_has_consecutive_powers_of_ten_just_around_the_values(self):
        for values in ([5, 40, 2543], [18.8, 3466], [1, 10], [0.3, 7], [0, 12, 999]):
            with self.subTest(values=values):
                ticks = kb_chart.log_axis(values).ticks
                positive = [v for v in values if v > 0]
                self.assertTrue(all(math.log10(t) == round(math.log10(t)) for t in ticks), ticks)
                self.assertTrue(all(math.isclose(b / a, 10) for a, b in zip(ticks, ticks[1:])), ticks)
                self.assertLessEqual(ticks[0], min(positive))
                self.assertGreaterEqual(ticks[-1], max(positive))
                self.assertGreater(ticks[1], min(positive))
                self.assertLess(ticks[-2], max(positive))
        self.assertEqual(kb_chart.log_axis([100, 100]).ticks, (100, 1000))  # one value still gets a decade

    def test_a_value_at_or_under_a_log_axis_floor_sits_on_the_floor(self):
        axis = kb_chart.log_axis([5, 40])
        self.assertEqual([axis.fraction(v) for v in (0, 1)], [0, 0])
        self.assertAlmostEqual(axis.fraction(10), 0.5)

    def test_tick_texts_separate_thousands_and_keep_the_decimals_of_the_step(self):
        self.assertEqual([kb_chart.tick_text(t, kb_chart.log_axis([1, 9999])) for t in (1, 1000, 10000)],
                         ["1", "1,000", "10,000"])
        self.assertEqual([kb_chart.tick_text(t, kb_chart.linear_axis([0.3])) for t in (0, 0.1, 0.3)],
                         ["0.0", "0.1", "0.3"])


class SpreadTest(unittest.TestCase):
    def test_labels_that_want_one_place_end_a_spacing_apart_in_order_inside_the_band(self):
        for wanted in ([50, 50, 50], [0, 1, 2], [199, 200, 200], [10, 80, 81, 82, 150], [30, 20, 25]):
            with self.subTest(wanted=wanted):
                places = kb_chart.spread(wanted, 15, 0, 200)
                order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
                gaps = [places[b] - places[a] for a, b in zip(order, order[1:])]
                self.assertTrue(all(gap >= 15 - 1e-9 for gap in gaps), places)
                self.assertTrue(all(0 <= p <= 200 for p in places), places)

    def test_labels_far_apart_stay_where_they_want(self):
        self.assertEqual(kb_chart.spread([10, 100, 190], 15, 0, 200), [10, 100, 190])


class RenderedChartTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = parsed(FakeReport())
        cls.panels = panels(cls.root)

    def test_the_chart_parses_as_svg_and_keeps_its_title_and_its_dark_colours(self):
        self.assertEqual(self.root.tag, f"{SVG}svg")
        self.assertEqual(self.root.get("role"), "img")
        title = self.root.find(f"{SVG}title").text
        self.assertIn("Seeds 1–5 summed, popular search model", title)
        self.assertIn("re-search titles, re-read articles, poll events", title)
        self.assertIn("prefers-color-scheme: dark", self.root.find(f"{SVG}style").text)

    def test_sim_report_still_hands_out_the_chart(self):
        self.assertIs(kb_report.chart, kb_chart.chart)

    def test_the_stale_panel_is_linear_and_the_two_cost_panels_are_logarithmic(self):
        self.assertEqual([p.get("class") for p in self.panels], ["panel linear", "panel log", "panel log"])

    def test_every_tick_is_round_and_every_point_lies_between_the_bottom_and_top_ticks(self):
        for panel in self.panels:
            with self.subTest(panel=panel.get("class")):
                ticks = [number(t.text) for t in classed(panel, "tick")]
                if "log" in panel.get("class"):
                    self.assertTrue(all(math.log10(t) == round(math.log10(t)) for t in ticks), ticks)
                else:
                    self.assertTrue(all(is_round(t, ticks[1] - ticks[0]) for t in ticks), ticks)
                    self.assertIn(mantissa(ticks[1] - ticks[0]), (1, 2, 5))
                grid = [float(line.get("y1")) for line in classed(panel, "grid")]
                for polyline in panel.iter(f"{SVG}polyline"):
                    self.assertTrue(all(min(grid) <= y <= max(grid) for y in point_ys(polyline)))

    def test_the_ticks_cover_the_data_and_the_small_polling_figures_rise_through_a_fifth_of_the_panel(self):
        stale, calls, kib = kb_chart.chart_panels(fake_main(COSTS), [{}, {}, {}])
        for p in (stale, calls, kib):
            values = kb_chart.all_values(p.series)
            self.assertTrue(p.axis.ticks[0] <= min(values) and max(values) <= p.axis.ticks[-1], p.title)
        self.assertEqual(stale.axis.ticks, (0, 10, 20, 30))
        self.assertEqual(calls.axis.ticks, (1, 10, 100, 1000, 10000))
        poll = [calls.axis.fraction(v) for v in calls.series["poll"]]
        self.assertGreater(poll[-1] - poll[0], 1 / 5)  # 5 to 40 calls: 45 px, where a linear axis gave 2

    def test_every_line_of_a_panel_has_its_own_dash_and_its_own_marker_shape(self):
        for panel in self.panels:
            series = [line.get("class").split()[0] for line in panel.iter(f"{SVG}polyline")]
            dashes = [line.get("stroke-dasharray") for line in panel.iter(f"{SVG}polyline")]
            shapes = {s: {m.tag for m in classed(panel, "mark") if s in m.get("class").split()} for s in series}
            with self.subTest(series=series):
                self.assertEqual(len(set(dashes)), len(series))
                self.assertTrue(all(len(tags) == 1 for tags in shapes.values()), shapes)
                self.assertEqual(len({min(tags) for tags in shapes.values()}), len(series))

    def test_no_two_lines_share_their_points(self):
        for panel in self.panels:
            points = [line.get("points") for line in panel.iter(f"{SVG}polyline")]
            self.assertEqual(len(set(points)), len(points))

    def test_equal_lines_still_both_show_a_dashed_line_over_a_wider_solid_one_and_a_dot_inside_a_square(self):
        root = parsed(FakeReport(costs=SAME))
        for panel in panels(root)[1:]:
            lines = list(panel.iter(f"{SVG}polyline"))
            self.assertEqual(len({line.get("points") for line in lines}), 1)  # the data: three equal lines
            solid = [i for i, line in enumerate(lines) if not line.get("stroke-dasharray")]
            dashed = [i for i, line in enumerate(lines) if line.get("stroke-dasharray")]
            self.assertEqual(len(solid), 1)
            self.assertLess(solid[0], min(dashed))  # drawn first: under the dashes, showing between them
            self.assertIn("solid", lines[solid[0]].get("class").split())
            marks = classed(panel, "mark")
            hollow = [i for i, m in enumerate(marks) if "hollow" in m.get("class").split()]
            self.assertTrue(hollow and max(hollow) < len(hollow))  # every hollow one before every filled one
        self.assertGreater(kb_chart.HOLLOW_RADIUS, kb_chart.MARK_RADIUS + 1)

    def test_end_labels_name_each_line_and_its_last_value(self):
        texts = [t.text for t in classed(self.panels[1], "label")]
        self.assertEqual(texts, ["re-search titles: 2,543", "re-read articles: 2,391", "poll events: 40"])
        self.assertEqual([t.text for t in classed(self.panels[0], "label")],
                         ["popular saves: 29.2%", "uniform saves: 13.5%"])

    def test_every_published_figure_is_marked_beside_ours_at_its_hour_and_value(self):
        stale, calls, kib = self.panels
        # every published hour, and the control at hour 8
        self.assertEqual(len(classed(stale, "published")), len(kb_scenario.PUBLISHED_HOURS) + 1)
        for panel, what in ((calls, "calls"), (kib, "kib")):
            marks = classed(panel, "published")
            self.assertEqual(sorted(m.get("class").split()[0] for m in marks), sorted(kb_day.STRATEGIES))
            poll = next(m for m in marks if m.get("class").startswith("poll"))
            self.assertTrue(poll.find(f"{SVG}title").text.startswith(
                f"published: {kb_scenario.PUBLISHED[f'K3.poll.{what}']:,.0f}"))
        axis = kb_chart.chart_panels(fake_main(COSTS), kb_chart.published_points(
            kb_scenario.PUBLISHED, kb_scenario.PUBLISHED_HOURS))[0].axis
        self.assertGreaterEqual(axis.ticks[-1], kb_scenario.PUBLISHED["K2.h8.stale_pct"])  # the axis holds them too

    def test_end_labels_do_not_touch_even_when_the_lines_end_on_one_point(self):
        for report in (FakeReport(), FakeReport(costs=SAME)):
            for panel in panels(parsed(report)):
                ys = sorted(label_ys(panel))
                grid = [float(line.get("y1")) for line in classed(panel, "grid")]
                with self.subTest(panel=panel.get("class"), ys=ys):
                    self.assertTrue(all(b - a >= LABEL_FONT for a, b in zip(ys, ys[1:])))
                    self.assertTrue(all(min(grid) <= y <= max(grid) + kb_chart.TEXT_MIDDLE for y in ys))


class CommittedChartTest(unittest.TestCase):
    def test_the_committed_chart_shows_the_stale_share_of_the_reading_the_page_leads_with(self):
        with open(os.path.join(ROOT, "results", "knowledge_base.svg"), encoding="utf-8") as file:
            (charted,) = re.findall(r"popular saves: ([\d.]+)%", file.read())
        with open(os.path.join(ROOT, "results", "knowledge_base.md"), encoding="utf-8") as file:
            first = next(line for line in file if line.startswith("| hour 8: stale share |"))
        self.assertEqual(f"{charted}%", first.split(" | ")[3])  # the first table: popular search, distinct versions


if __name__ == "__main__":
    unittest.main()
