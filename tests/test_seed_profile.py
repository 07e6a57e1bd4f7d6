"""lab/knowledge_base/seed_profile.py: a seed on stopwatches measures the same day, and its parts add up to its time."""

import itertools
import unittest

from osfoundry_tools.stores import kb_store
import sim
from lab.knowledge_base import day as kb_day
from lab.knowledge_base import law as kb_law
from lab.knowledge_base import report as kb_report
from lab.knowledge_base import rerun as kb_rerun
from lab.knowledge_base import seed_profile
from tests.test_sim import SMALL


class FakeClock:
    """A clock that moves one second each time it is read."""

    def __init__(self):
        self.reads = itertools.count()

    def __call__(self):
        return float(next(self.reads))


class TimedSeedTest(unittest.TestCase):
    def setUp(self):
        self.scenario = sim.models_from(sim.parser().parse_args(SMALL))["popular"]

    def test_a_timed_seed_measures_the_same_day_as_an_untimed_one(self):
        result, _ = seed_profile.timed_seed(3, self.scenario)
        self.assertEqual(result, kb_day.run_seed(3, self.scenario))

    def test_the_parts_add_up_to_the_seeds_time_and_each_is_counted(self):
        clock = FakeClock()
        _, parts = seed_profile.timed_seed(3, self.scenario, clock=clock)
        self.assertEqual(set(parts), set(seed_profile.PARTS))
        self.assertTrue(all(seconds > 0 for seconds in parts.values()), parts)
        # the first read starts the seed and the last ends it: everything between is some part's
        self.assertEqual(sum(parts.values()), next(clock.reads) - 1)

    def test_a_store_call_inside_another_is_not_counted_twice(self):
        watch = seed_profile.Stopwatch(FakeClock())
        inner = watch.timed(lambda: None)
        watch.timed(inner)()
        self.assertEqual(watch.seconds, 2.0)  # read at 0 and 2 by the outer call; the inner read once (1), adding none

    def test_the_timed_store_keeps_its_answers_and_counts_its_statements(self):
        clock = FakeClock()
        stores, statements = seed_profile.Stopwatch(clock), seed_profile.Stopwatch(clock)
        store = seed_profile.timed_connect(stores, statements)()
        store.create_knowledge_base("kb")
        cited = store.create_article("kb", "Reset a password", "Open Settings, then Security.")
        found = store.call_tool("search_knowledge_base", {"knowledge_base_id": "kb", "query": "password"})
        self.assertEqual(found["results"][0]["citation"], cited)
        self.assertGreater(statements.seconds, 0)
        self.assertGreater(stores.seconds, statements.seconds)
        self.assertIsInstance(store, kb_store.KnowledgeBaseStore)


class SqliteAloneTest(unittest.TestCase):
    """The seed as sim.py runs it, and its statements alone on a stopwatch whose own readings are counted."""

    def setUp(self):
        self.scenario = sim.models_from(sim.parser().parse_args(SMALL))["popular"]

    def test_every_statement_and_fetch_is_one_reading_and_only_they_are_timed(self):
        seconds, readings = seed_profile.sqlite_alone(3, self.scenario, clock=FakeClock())
        self.assertGreater(readings, 100)
        self.assertEqual(seconds, readings)  # the fake clock moves one second a read: one second within each reading

    def test_the_seed_as_sim_py_runs_it_reads_the_clock_only_at_its_start_and_end(self):
        self.assertEqual(seed_profile.plain_seed(3, self.scenario, clock=FakeClock()), 1.0)

    def test_a_readings_cost_is_one_interval_around_an_idle_call(self):
        self.assertEqual(seed_profile.reading_seconds(clock=FakeClock(), calls=10, batches=2), 1.0)
        self.assertEqual(seed_profile.SqliteShare(0.6, 0.42, 1000).net_sqlite(20e-6), 0.42 - 0.02)


class PopularityLawTest(unittest.TestCase):
    def test_the_kept_share_of_saves_within_a_window_is_the_formula_itself(self):
        scenario = sim.models_from(sim.parser().parse_args([]))["popular"]
        shares, rate = kb_day.popularity(scenario), scenario.saves / (scenario.hours * kb_day.HOUR)
        for window in (20, 900.5, 4 * kb_day.HOUR):
            self.assertEqual(kb_law.share_saved_within(scenario, window),
                             sum(p * (1 - kb_law.math.exp(-rate * p * window)) for p in shares))

    def test_another_scenario_is_not_answered_from_the_first_ones_expectations(self):
        models = sim.models_from(sim.parser().parse_args([]))
        busier = sim.models_from(sim.parser().parse_args(["--saves", "600"]))["popular"]
        self.assertLess(kb_law.expected_rejection(models["popular"], 3600, True),
                        kb_law.expected_rejection(busier, 3600, True))


class SimPageTest(unittest.TestCase):
    def test_the_run_time_section_shows_the_parts_and_the_page_the_time_it_took(self):
        report = sim.measure_report(sim.parser().parse_args(SMALL + ["--ranges", "0", "--jobs", "1"]))
        page = kb_rerun.main_files(report)[kb_report.RESULTS]
        for part in seed_profile.PARTS:
            self.assertIn(f"| {part} |", page)
        self.assertNotIn(kb_report.REPORT_SECONDS, page)
        self.assertRegex(page, r"Writing this page and its chart.* took \d+\.\d\d s\.")


if __name__ == "__main__":
    unittest.main()
