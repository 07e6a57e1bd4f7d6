"""bench.py: a --quick run writes every section; the floor, the summaries, the verdicts and the inputs it refuses."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

import bench
from benchmark import engines, fixtures, http_load, report, round_trips, timing, tools
from osfoundry_tools.stores import record_store
from benchmark.timing import CHANNEL, Summary
from tests.helpers import ROOT


def repetitions(*medians):
    return [{"median": m, "p99": 2 * m} for m in medians]


class QuickRunTest(unittest.TestCase):
    """One smoke run of every section, shared by the tests of what it wrote."""

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.TemporaryDirectory()
        cls.results, runs = os.path.join(cls.scratch.name, "results"), os.path.join(cls.scratch.name, "runs")
        os.makedirs(cls.results)
        with contextlib.redirect_stderr(io.StringIO()), mock.patch.object(bench, "RESULTS", cls.results), \
                mock.patch.object(bench, "RUNS", runs):
            cls.status = bench.main(["--quick", "--quiet"])  # not the canonical run: a folder of its own in runs/
        cls.runs = os.listdir(runs)
        cls.folder = types.SimpleNamespace(name=os.path.join(runs, cls.runs[0]))
        with open(os.path.join(cls.folder.name, "performance.md"), encoding="utf-8") as page:
            cls.page = page.read()

    @classmethod
    def tearDownClass(cls):
        cls.scratch.cleanup()

    def test_a_quick_run_writes_a_folder_of_its_own_and_leaves_the_results_alone(self):
        self.assertEqual(len(self.runs), 1)
        self.assertRegex(self.runs[0], r"^bench-\d{8}-\d{6}$")
        self.assertEqual(sorted(os.listdir(self.folder.name)), ["performance.json", "performance.md"])
        self.assertEqual(os.listdir(self.results), [])

    def test_the_run_succeeds_and_says_it_was_a_smoke_run(self):
        self.assertEqual(self.status, 0)
        self.assertIn("A `--quick` smoke run", self.page)
        self.assertIn("--quick", self.page.split("## ")[0])

    def test_the_push_section_is_labelled_ours_and_every_listener_got_every_save_once(self):
        section = self.page.split("## Changes pushed instead of polled (our extension, not the articles')")[1]
        section = section.split("\n## ")[0]
        self.assertIn("| pushed | 1 |", section)
        self.assertIn("Every listener received every save exactly once in every repetition.", section)

    def test_the_header_names_machine_python_and_sqlite(self):
        head = self.page.split("## ")[0]
        self.assertIn(f"sqlite {bench.sqlite3.sqlite_version}", head)
        self.assertIn(bench.platform.python_version(), head)

    def test_every_section_is_written(self):
        for heading in ("## The floor and the seven tools", "## Validation, and the edit against the floor",
                        "### Polling an event log", "### Searching a knowledge base", "### Listing a record channel",
                        "## The knowledge-base day, scaled", "## Writers on one WAL file",
                        "## sqlite and PostgreSQL, side by side",
                        "## The MCP server over stdio", "## The MCP server over HTTP under load",
                        "### Bursts of connects", "### Floods of header lines", "## Peak memory",
                        "## Search quality on real content"):
            self.assertIn(heading, self.page)

    def test_every_tool_has_a_row_with_its_ratio_to_the_floor(self):
        for tool in bench.TIMED + (bench.STUBBED,):
            (row,) = [line for line in self.page.splitlines() if line.startswith(f"| `{tool}` |")]
            self.assertEqual(row.count("×"), 2, row)

    def test_every_goal_gets_a_verdict(self):
        verdicts = self.page.count("meets the goal") + self.page.count("misses the goal")
        self.assertEqual(verdicts, 2 * 2 + 2 + 5 + 2 + 1 + 4 + 1 + 3 + 5 + 2)  # edit and share per database, poll,
        # search, list, guards, the four goals of the edits and the listing, the seed day's, the main job's three
        # (its time, the main seeds', two processes against one), the HTTP server's five, search quality's two
        # (questions first, the help centre; the same first page needs PostgreSQL)

    def test_the_writers_pass_the_single_chain_check(self):
        section = self.page.split("## Writers")[1].split("\n## ")[0]
        rows = [line for line in section.splitlines() if line.startswith("| 1 |") or line.startswith("| 2 |")]
        self.assertEqual(len(rows), 2)
        self.assertTrue(all(row.rstrip(" |").endswith("passed") for row in rows), rows)

    def test_the_page_is_written_again_from_its_facts_word_for_word(self):
        with tempfile.TemporaryDirectory() as again:
            self.assertEqual(bench.main(["--render", os.path.join(self.folder.name, "performance.json"),
                                         "--out", again, "--quiet"]), 0)
            with open(os.path.join(again, "performance.md"), encoding="utf-8") as page:
                self.assertEqual(page.read(), self.page)
            self.assertEqual(os.listdir(again), ["performance.md"])  # rendering writes no facts

    def test_every_growth_size_has_a_row(self):
        for size in bench.QUICK.poll_events + bench.QUICK.search_articles + bench.QUICK.list_items:
            self.assertRegex(self.page, rf"\n\| {size:,} \|")


class FloorTest(unittest.TestCase):
    def test_each_call_swaps_one_version_logs_one_event_stores_one_key_and_keeps_the_values(self):
        store, ids = fixtures.bug_channel(":memory:", 3)
        before = {item_id: store.item(CHANNEL, item_id) for item_id in ids}
        events = len(store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL})[
            "events"])
        floor = timing.FloorTransaction(store.database.connection, ids[:2])
        for number in range(5):
            floor(number)
        after = {item_id: store.item(CHANNEL, item_id) for item_id in ids}
        self.assertEqual([after[i]["version"] - before[i]["version"] for i in ids], [3, 2, 0])
        self.assertEqual([after[i]["values"] for i in ids], [before[i]["values"] for i in ids])
        log = store.call_tool("poll_resource_events", {"resource_type": "record", "resource_id": CHANNEL})["events"]
        self.assertEqual(len(log) - events, 5)
        (keys,) = store.database.connection.execute("SELECT count(*) FROM idempotency_keys").fetchone()
        self.assertEqual(keys, 5)


class KnowledgeBaseFloorTest(unittest.TestCase):
    def test_each_call_swaps_reindexes_logs_and_keys_one_article_and_keeps_it_whole(self):
        store, ids, written = fixtures.knowledge_base(":memory:", 6, keep=6)
        query = {"knowledge_base_id": fixtures.KB, "query": tools.mid_query(written[0]), "limit": 20}
        found = store.call_tool("search_knowledge_base", query)
        before = {article_id: store.article(fixtures.KB, article_id) for article_id in ids}
        head = store.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                        "resource_id": fixtures.KB})["last_sequence"]
        floor = timing.KnowledgeBaseFloor(store.database.connection, ids[:2])
        for number in range(5):
            floor(number)
        self.assertEqual({article_id: store.article(fixtures.KB, article_id) for article_id in ids}, before)
        self.assertEqual(store.call_tool("search_knowledge_base", query), found)
        events = store.call_tool("poll_resource_events", {"resource_type": "knowledge_base",
                                                          "resource_id": fixtures.KB, "after_sequence": head})
        self.assertEqual([event["article_id"] for event in events["events"]], [ids[0], ids[1]] * 2 + [ids[0]])
        connection = store.database.connection
        self.assertEqual(connection.execute("SELECT count(*) FROM idempotency_keys").fetchone()[0], 5)
        connection.execute("INSERT INTO search_index_1 (search_index_1) VALUES ('integrity-check')")


class SummaryTest(unittest.TestCase):
    def test_the_nearest_rank_percentile(self):
        self.assertEqual(timing.percentile(list(range(1, 101)), 0.99), 99)
        self.assertEqual(timing.percentile([3.0], 0.99), 3.0)

    def test_latency_is_in_microseconds(self):
        self.assertEqual(timing.latency([0.000001, 0.000003, 0.000002]), {"median": 2.0, "p99": 3.0})

    def test_a_summary_is_the_median_and_the_extremes(self):
        self.assertEqual(Summary.of([3, 1, 2, 10, 4]), Summary(3, 1, 10))

    def test_ratios_pair_repetitions(self):
        self.assertEqual(timing.ratios(repetitions(10, 40), repetitions(5, 10)), Summary(3.0, 2.0, 4.0))

    def test_timed_for_stops_at_the_count_or_the_time(self):
        self.assertEqual(len(bench.timed_for(lambda n: None, 12, 100.0)), 12)
        self.assertEqual(len(bench.timed_for(lambda n: None, 12, 0.0)), bench.GROWTH_MIN)


class VerdictTest(unittest.TestCase):
    def tools_facts(self, edit, stubbed, floor=10.0):
        runs = {kind: {"floor": repetitions(floor, floor), "edit_record_item": repetitions(edit, edit),
                       report.STUBBED: repetitions(stubbed, stubbed)} for kind in (report.MEMORY,
                                                                                         report.WAL)}
        parts = {"the six values validated": repetitions(1.0, 1.0)}
        return {"runs": runs, "parts": parts, "profile": []}

    def facts(self):
        return {"goals": bench.GOALS, "sizes": {"calls": 10, "profiled_edits": 10}}

    def test_an_edit_within_twice_the_floor_meets_the_goal_and_needs_no_reason(self):
        text = "\n".join(report.validation_section(self.tools_facts(19.0, 17.0), self.facts()))
        self.assertEqual(text.count("meets the goal"), 4)
        self.assertNotIn("Why the edit stays", text)

    def test_a_slow_edit_misses_and_says_why(self):
        text = "\n".join(report.validation_section(self.tools_facts(40.0, 30.0), self.facts()))
        self.assertEqual(text.count("misses the goal"), 4)  # 4.0x the floor, validation 25% of the edit
        self.assertIn("Why the edit stays at 4.0× the floor", text)

    def near_facts(self, record, article, tail, listing):
        """Tools facts whose four ratios (record edit, article edit over its floor, WAL tail, listing) are these."""
        runs = {}
        for kind in (report.MEMORY, report.WAL):
            runs[kind] = {"floor": repetitions(10.0, 10.0), tools.KB_FLOOR: repetitions(40.0, 40.0),
                          "edit_record_item": repetitions(10.0 * record, 10.0 * record),
                          "list_record_items": repetitions(10.0 * listing, 10.0 * listing),
                          "edit_knowledge_article": [{"median": 40.0 * article, "p99": 40.0 * article * tail}] * 2}
        return {"runs": runs, "parts": {"the six values validated": repetitions(1.0, 1.0)}, "profile": []}

    def test_the_edits_near_their_floors_and_a_page_get_a_verdict_each_and_a_cause_for_each_miss(self):
        met = "\n".join(report.near_the_floor_section(self.near_facts(2.9, 2.5, 4.0, 9.0), self.facts()))
        self.assertEqual((met.count("meets the goal"), met.count("misses the goal")), (4, 0))
        self.assertNotIn("**Why.**", met)
        missed = "\n".join(report.near_the_floor_section(self.near_facts(3.5, 3.2, 6.0, 12.0), self.facts()))
        self.assertEqual((missed.count("meets the goal"), missed.count("misses the goal")), (0, 4))
        self.assertIn("| `edit_record_item` within 3× the floor, in memory | 3.5× (3.5–3.5) |", missed)
        why = missed.split("**Why.**")[1]
        for cause in ("the six values validated", "adds 88 µs to its floor", "floor's p99 is 2.0×",
                      "2.4 µs per item"):
            self.assertIn(cause, why)

    def test_validation_share_is_one_minus_stubbed_over_full(self):
        runs = {"edit_record_item": repetitions(100, 80), report.STUBBED: repetitions(90, 60)}
        share = report.validation_share(runs)
        for got, expected in zip((share.median, share.low, share.high), (17.5, 10.0, 25.0)):
            self.assertAlmostEqual(got, expected)

    def test_poll_flatness_compares_the_longest_log_with_the_shortest(self):
        def page(longest):
            growth = {"built": {"events": [{"size": 10, "bytes": 0}, {"size": 100, "bytes": 0}]},
                      "timings": {"events": {"floor": repetitions(20), "sizes": [
                          {"head": repetitions(100), "middle": repetitions(100)},
                          {"head": repetitions(longest), "middle": repetitions(100)}]}}}
            return "\n".join(report.poll_growth(growth, bench.GOALS))
        self.assertEqual(page(110).count("meets the goal"), 2)
        self.assertIn("*head* at 100 events is 1.30×", page(130))
        self.assertEqual(page(130).count("misses the goal"), 1)
        self.assertIn("| 100 | 130.0 (130.0–130.0) · 6.5× |", page(130))  # the figure, then its ratio to the floor


class SeedPartsTest(unittest.TestCase):
    """The day section's seed: judged as sim.py runs it over its statements timed alone, where those were measured."""

    PARTS = {"the plan": 0.05, "sqlite: statements": 0.40, "the stores": 0.30, "the agent": 0.05}  # 2.0x on watches

    def day(self, alone=True):
        day = {"seeds": [dict(self.PARTS)] * 3}
        if alone:  # 0.60 s as sim.py runs it; 0.42 s of statements, less 1,000 readings of 20 µs: 0.40 s, so 1.5x
            day.update(alone=[{"seed": 0.60, "sqlite": 0.42, "readings": 1000}] * 3, reading=20e-6, runs=2)
        return day

    def test_the_goal_is_judged_on_the_seed_as_sim_py_runs_it_less_the_stopwatchs_readings(self):
        text = "\n".join(report.seed_parts_part(self.day(), {"goals": bench.GOALS}))
        self.assertIn("| **the seed × its sqlite statements** | 1.50× (1.50–1.50) |", text)
        self.assertIn("| **the seed × its sqlite part, both on the stopwatches** | 2.00× (2.00–2.00) |", text)
        self.assertIn("1,000 readings cost (20000 ns each", text)
        self.assertIn("in each repetition, the least of 2 of each kind kept:", text)
        self.assertIn("| 1.50× (1.50–1.50) | meets the goal |", text)

    def test_a_seed_over_the_goal_says_how_much_of_its_time_the_goal_would_take_away(self):
        day = self.day()
        day["alone"] = [{"seed": 0.70, "sqlite": 0.42, "readings": 1000}] * 3  # 1.75x: 0.60 s allowed
        text = "\n".join(report.seed_parts_part(day, {"goals": bench.GOALS}))
        self.assertIn("| 1.75× (1.75–1.75) | **misses the goal** |", text)
        self.assertIn("At 1.75× its statements, the seed would have to lose 14% of its time to come within 1.5×: "
                      "about 0.100 s of its 0.700 s, 33% of the 0.300 s it spends outside sqlite", text)
        self.assertNotIn("**Why.**", "\n".join(report.seed_parts_part(self.day(), {"goals": bench.GOALS})))

    def test_the_cut_follows_the_ratio_printed_and_needs_no_time_outside_sqlite(self):
        self.assertIn("lose 25% of its time to come within 1.5×: about 0.200 s of its 0.800 s.",
                      report.seed_miss_cause(2.0, 0.80, 0.80, 1.5))

    def test_facts_without_those_runs_are_judged_on_the_stopwatches(self):
        text = "\n".join(report.seed_parts_part(self.day(alone=False), {"goals": bench.GOALS}))
        self.assertNotIn("its sqlite statements", text)
        self.assertIn("| 2.00× (2.00–2.00) | **misses the goal** |", text)

    def test_the_main_jobs_miss_reasons_from_the_seed_days_per_second_measured_on_its_processes(self):
        job = {"processes": 2, "cores": {"runs": {"1": [2.0, 1.9], "2": [4.0, 3.8, 4.1]}}}
        rate, measured = report.seed_rate(job, {"day": self.day()})
        self.assertEqual(rate, 4.0)
        said = report.job_miss_cause(rate, measured, 2, 200)
        self.assertIn("2 processes run about 4.00 seed days a second here (the seed days per second above), so the "
                      "job's seed days need about 102 s and the main seeds' 2.5 s", said)
        self.assertIn("10 approval runs, which its progress counts with the seed days (420 runs)", said)
        older = report.seed_rate({"processes": 2}, {"day": self.day()})  # facts from before the cores were measured
        self.assertEqual(older, (2 / 0.80, "the day section's seed on stopwatches, 0.80 s, on each process"))


class EnginesSectionTest(unittest.TestCase):
    """The engines section, rendered from made-up facts: the overtaking points come from the rates given."""

    WRITERS = (1, 2, 4, 8)
    SQLITE_RATES = (1000, 900, 800, 700)
    POSTGRES_RATES = {engines.HOT: (500, 400, 300, 200), engines.SHARED: (500, 950, 850, 650),
                      engines.SEPARATE: (1200, 1500, 1700, 1800)}

    def runs(self, rates, broken=()):
        """One repetition per number of writers, at these edits per second; the chain broken at `broken` writers."""
        return {str(writers): [{"writers": writers, "edits": 150 * writers, "conflicts": 3, "busy": 0,
                                "seconds": 150 * writers / rate, "edits_per_second": rate,
                                "chain": {"ok": writers not in broken, "problems": [], "problem_count": 0}}]
                for writers, rate in zip(self.WRITERS, rates)}

    def facts(self, postgres=True, broken=()):
        plan = {"writers": list(self.WRITERS), "edits": 150, "items": 200, "repetitions": 1, "calls": 500}
        runs = {engines.SQLITE: {shape: self.runs(self.SQLITE_RATES) for shape in engines.SHAPES}}
        costs = {engines.SQLITE: repetitions(400.0)}
        if postgres:
            runs[engines.POSTGRESQL] = {shape: self.runs(rates, broken) for shape, rates in self.POSTGRES_RATES.items()}
            costs[engines.POSTGRESQL] = repetitions(1000.0)
        section = {"plan": plan, "cpus": 2, "runs": runs, "edit_cost": costs,
                   "postgres": {"version": "15.18", "reached": "its Unix socket", "fsync": "off"} if postgres else None,
                   "not_measured": "" if postgres else "`OSFOUNDRY_TEST_POSTGRES` is not set",
                   "measured": {"date": "2026-12-02", "command": "python3 bench.py --only engines",
                                "python": ".venv/bin/python", "seconds": 150.0}}
        machine = {"date": "2026-11-30", "command": "python3 bench.py", "system": "Linux", "machine": "x86_64",
                   "processor": "unknown", "cpus": "2", "python": "CPython 3.11", "sqlite": "3.40.1"}
        return {"machine": machine, "engines": section, "seconds": 600.0, "quick": False,
                "sizes": {"repetitions": 5}, "section_seconds": {"writers": 60.0, "engines": 150.0}}

    def page(self, **options):
        facts = self.facts(**options)
        return "\n".join(report.engines_section(facts["engines"], facts))

    def test_the_overtaking_points_are_the_fewest_writers_at_which_postgres_is_faster(self):
        page = self.page()
        self.assertIn("| one hot item | not within 8 writers |", page)
        self.assertIn("| many items, one channel | at 2 writers (behind again at 8) |", page)
        self.assertIn("| one channel each | already at 1 writer |", page)
        self.assertIn("| 4 | 800 (800–800) | 3 (3–3) | 850 (850–850) | 3 (3–3) | 1.06× (1.06–1.06) | passed |", page)
        self.assertIn("| PostgreSQL ÷ sqlite | 2.50× (2.50–2.50) | 2.50× (2.50–2.50) |", page)

    def test_the_section_says_when_and_how_it_was_measured_and_on_what(self):
        page = self.page()
        self.assertIn("Measured on 2026-12-02 by `.venv/bin/python bench.py --only engines`, separately from the "
                      "rest of this page, in 150 s.", page)
        self.assertIn("This machine has 2 CPUs, so more than 2 writers contend for them on both engines, and the "
                      "PostgreSQL server runs on the same machine", page)
        self.assertIn("runs with `fsync` off", page)
        self.assertIn("PostgreSQL's edits per second at 8 writers are 1.50× its rate at 1, sqlite's 0.70×", page)

    def test_a_broken_chain_is_named_in_its_row(self):
        shared = self.page(broken=(2,)).split("### Many items")[1].split("###")[0]
        (row,) = [line for line in shared.splitlines() if line.startswith("| 2 |")]
        self.assertTrue(row.endswith("| **PostgreSQL failed in 1 of 1 runs** |"), row)

    def test_without_postgres_sqlite_is_measured_and_one_line_says_how_to_measure_postgres(self):
        page = self.page(postgres=False)
        (line,) = [line for line in page.splitlines() if "PostgreSQL was not measured" in line]
        self.assertIn("`OSFOUNDRY_TEST_POSTGRES` is not set", line)
        self.assertIn("`make bench` runs bench.py inside a throwaway cluster", line)
        self.assertNotIn("overtakes", page)
        self.assertNotIn("PostgreSQL ÷ sqlite", page)
        self.assertIn("| 8 | 700 (700–700) | 3 (3–3) | passed |", page)

    def test_a_section_measured_apart_is_left_out_of_the_page_runs_times(self):
        facts = self.facts()
        self.assertIn("the whole run took 600 s (writers 60 s).", "\n".join(report.header(facts)))
        self.assertIn('measured by that run, except "sqlite and PostgreSQL, side by side", which says when it was '
                      "measured.", "\n".join(report.header(facts)))
        facts["engines"]["measured"].update(date=facts["machine"]["date"], command=facts["machine"]["command"])
        self.assertIn("(writers 60 s, engines 150 s).", "\n".join(report.header(facts)))
        self.assertIn("every figure below was measured by that run. Nothing", "\n".join(report.header(facts)))
        self.assertNotIn("separately", "\n".join(report.engines_section(facts["engines"], facts)))


class McpSectionTest(unittest.TestCase):
    """The MCP section, rendered from made-up facts: stdio and HTTP rows, the ratios between them, the clients."""

    def facts(self, sdk=True, rates=(3000, 3000, 3000)):
        runs = {report.OURS: repetitions(100.0, 120.0)}
        http = {report.OURS: repetitions(300.0, 360.0)}
        if sdk:
            runs[report.THE_SDKS], http[report.THE_SDKS] = repetitions(500.0, 600.0), repetitions(1000.0, 1200.0)
        concurrency = {str(clients): [{"median": 300.0 * clients, "p99": 600.0 * clients, "calls_per_second": rate}]
                       for clients, rate in zip((1, 4, 16), rates)}
        plan = {"round_trips": 2000, "warm_up": 50, "clients": [1, 4, 16], "client_calls": 500, "client_warm_up": 10}
        mcp = {"runs": runs, "http": http, "concurrency": concurrency, "plan": plan, "sdk": sdk,
               "measured": {"date": "2026-12-02", "command": "python3 bench.py --only mcp",
                            "python": ".venv/bin/python", "seconds": 45.0}}
        machine = {"date": "2026-11-30", "command": "python3 bench.py", "system": "Linux", "machine": "x86_64",
                   "processor": "unknown", "cpus": "2", "python": "CPython 3.11", "sqlite": "3.40.1"}
        return {"machine": machine, "mcp": mcp, "seconds": 600.0, "quick": False, "sizes": {"repetitions": 2},
                "section_seconds": {"writers": 60.0, "mcp": 45.0}}

    def page(self, **options):
        facts = self.facts(**options)
        return "\n".join(report.mcp_section(facts["mcp"], facts))

    def test_each_server_has_a_row_per_transport_in_milliseconds_and_the_ratios_are_taken_per_repetition(self):
        page = self.page()
        self.assertIn("## The MCP server over stdio and Streamable HTTP", page)
        rows = [line for line in page.splitlines() if line.startswith("| mcp_server.py") or
                line.startswith("| benchmark/sdk_server.py")]
        self.assertEqual(rows, [
            f"| {report.OURS} | stdio | 0.110 (0.100–0.120) | 0.220 (0.200–0.240) |",
            f"| {report.THE_SDKS} | stdio | 0.550 (0.500–0.600) | 1.100 (1.000–1.200) |",
            f"| {report.OURS} | Streamable HTTP | 0.330 (0.300–0.360) | 0.660 (0.600–0.720) |",
            f"| {report.THE_SDKS} | Streamable HTTP | 1.100 (1.000–1.200) | 2.200 (2.000–2.400) |"])
        self.assertIn("Over Streamable HTTP our round trip is 3.0× (3.0–3.0) our stdio one", page)
        self.assertIn("the SDK's 2.0× (2.0–2.0) its own stdio one. The SDK's round trip is 5.0× (5.0–5.0) ours "
                      "over stdio and 3.3× (3.3–3.3) ours over HTTP.", page)
        self.assertIn("Measured on 2026-12-02 by `.venv/bin/python bench.py --only mcp`, separately from the rest "
                      "of this page, in 45 s.", page)

    def test_the_store_read_in_process_is_compared_and_said_to_come_from_the_pages_run(self):
        facts = self.facts()
        facts["tools"] = {"runs": {report.MEMORY: {"read_knowledge_article": repetitions(20.0, 24.0)}}}
        page = "\n".join(report.mcp_section(facts["mcp"], facts))
        self.assertIn("takes 22.0 µs (the tools table, measured by the page's run), so a round trip over stdio is "
                      "about 5× the store's own work", page)

    def test_without_the_sdk_only_ours_is_compared_and_one_line_says_how_to_measure_the_sdk(self):
        page = self.page(sdk=False)
        self.assertNotIn(report.THE_SDKS, page)
        self.assertIn("our stdio one (each ratio taken within a repetition, then summarised).", page)
        self.assertNotIn("The SDK's round trip", page)
        self.assertIn("The SDK server was not measured", page)

    def test_the_clients_table_gives_latency_and_calls_per_second_against_one_client(self):
        page = self.page(sdk=False)
        self.assertIn("| 16 | 4.800 (4.800–4.800) | 9.600 (9.600–9.600) | 3,000 (3,000–3,000) | 1.00× (1.00–1.00) |",
                      page)
        self.assertIn("From 1 client to 16, the server answers 1.00× as many calls per second while the median "
                      "round trip grows 16.0×: the calls of several clients take turns.", page)
        scaling = self.page(rates=(3000, 11000, 40000))
        self.assertIn("| 4 | 1.200 (1.200–1.200) | 2.400 (2.400–2.400) | 11,000 (11,000–11,000) | 3.67× (3.67–3.67) |",
                      scaling)
        self.assertIn("answers 13.33× as many calls per second while the median round trip grows 16.0×: the calls "
                      "of several clients run side by side.", scaling)

    def test_a_section_measured_apart_is_named_in_the_header_and_left_out_of_the_runs_times(self):
        facts = self.facts()
        head = "\n".join(report.header(facts))
        self.assertIn('measured by that run, except "The MCP server over stdio and Streamable HTTP", which says when '
                      "it was measured.", head)
        self.assertIn("the whole run took 600 s (writers 60 s).", head)
        facts["engines"] = {"measured": {"date": "2026-12-01", "command": "python3 bench.py --only engines"}}
        facts["section_seconds"]["engines"] = 150.0
        self.assertIn('except "The MCP server over stdio and Streamable HTTP" and "sqlite and PostgreSQL, side by '
                      'side", each of which says when it was measured.', "\n".join(report.header(facts)))


class HttpSectionTest(unittest.TestCase):
    """The section of the HTTP server under load, rendered from made-up facts: its tables, each goal's verdict on
    ours, and the cause of each miss, computed from the figures given."""

    CLIENTS = (1, 4, 16, 64)

    def figures(self, rate, cpu=0.8, machine=1.0, saved=0, conflicts=0):
        return {"median": 2000.0, "p99": 6000.0, "calls_per_second": rate, "saved": saved, "conflicts": conflicts,
                "server_cpu": cpu, "loaders_cpu": 0.25, "connect_max": 0.002, "machine_cpu": machine}

    def burst(self, clients, waited=0, answered=None, slowest=0.003, statuses=None):
        answered = clients if answered is None else answered
        return {"clients": clients, "connected": clients, "waited": waited, "connect_max": slowest,
                "answered": answered, "statuses": statuses or {"200": answered}, "answer_median": 0.5,
                "answer_max": 0.9, "failed": {}, "unanswered": 0, "issued_seconds": 0.03}

    def flood(self, name, connections, during, after, idle):
        return {"name": name, "connections": connections, "lines": 99, "line_bytes": 165, "finish": False,
                "hold_seconds": 2.0, "during": None if idle is None else during,
                "after": None if idle is None else after, "after_anonymous": None if idle is None else after - 20,
                "threads_after": 3, "peak_from": "VmHWM", "settle_seconds": 0.6,
                "answers": {"sent_bytes": 1, "statuses": {"431": connections}, "sent_seconds": 0.1,
                            "closed_by_server": connections, "finished": 0}}

    def facts(self, sdk=True, rss=True, ours=(1000, 1100, 1150, 1100), cpu=1.0, machine=1.2, waited=0,
              answered=1000, during=60.0, after=40.0, workers=(1000, 1700, 1800, 1750)):
        names = [report.OURS, http_load.OUR_PAIR, http_load.OUR_WORKERS] + ([report.THE_SDKS] if sdk else [])
        rates = {report.OURS: ours, http_load.OUR_PAIR: (1000, 1800, 1900, 1850), http_load.OUR_WORKERS: workers,
                 report.THE_SDKS: (500, 600, 700, 650)}
        runs = {workload: {name: {str(clients): [self.figures(rate, cpu if name == report.OURS else 1.5, machine,
                                                              saved=9, conflicts=2)]
                                  for clients, rate in zip(self.CLIENTS, rates[name])} for name in names}
                for workload in http_load.WORKLOADS}
        single = [name for name in names if name in http_load.ALONE]
        idle = 30.0 if rss else None
        refused = {"200": answered, "503": 1000 - answered}
        bursts = {name: {"64": [self.burst(64, waited if name == report.OURS else 0)],
                         "1000": [self.burst(1000, answered=answered, statuses=refused) if name == report.OURS
                                  else self.burst(1000)]}
                  for name in single}
        floods = {name: {"idle": idle, "idle_anonymous": None if idle is None else 10.0, "threads": 3, "runs": [
            self.flood("long lines", 24, 31.0, 30.5, idle),
            self.flood("heads within the bounds, held open", 1000, during, after, idle)]} for name in single}
        http = {"runs": runs, "bursts": bursts, "floods": floods, "sdk": sdk, "loaders": 2, "warm_up": 10,
                "edited": 8, "cpus": 2, "flood_line_bytes": 65000, "limits": http_load.http_front.Limits()._asdict(),
                "plan": {"clients": list(self.CLIENTS), "seconds": 2.0, "repetitions": 1, "bursts": [64, 1000],
                         "flood_connections": 24, "flood_lines": 100, "held": 1000, "hold_seconds": 2.0,
                         "retry_seconds": 0.5},
                "commands": {name: [f"{name.split()[0]} --http"] for name in names},
                "measured": {"date": "2026-12-03", "command": "python3 bench.py --only http",
                             "python": ".venv/bin/python", "seconds": 200.0}}
        machine_facts = {"date": "2026-12-03", "command": "python3 bench.py --only http", "system": "Linux",
                         "machine": "x86_64", "processor": "unknown", "cpus": "2", "python": "CPython 3.11",
                         "sqlite": "3.40.1"}
        return {"machine": machine_facts, "http": http, "goals": bench.GOALS, "seconds": 200.0, "quick": False,
                "sizes": {"repetitions": 1}, "section_seconds": {"http": 200.0}}

    def page(self, **options):
        facts = self.facts(**options)
        return "\n".join(report.http_section(facts["http"], facts))

    def goal_rows(self, page):
        goals = page.split("### Goals")[1]
        return [line for line in goals.splitlines() if line.startswith("| ") and "verdict" not in line]

    def test_each_number_of_clients_has_a_row_per_server_and_the_mix_counts_its_edits_and_conflicts(self):
        page = self.page()
        reads = page.split("### Reads")[1].split("###")[0]
        self.assertIn("| 16 | ours | 1,150 (1,150–1,150) | 2.00 (2.00–2.00) | 6.00 (6.00–6.00) | 1.00 (1.00–1.00) |",
                      reads)
        self.assertIn("| 64 | the SDK's | 650 (650–650) |", reads)
        self.assertEqual(len([line for line in reads.splitlines() if line.startswith("| ") and "clients" not in line
                              and "---" not in line]), 4 * 4)
        self.assertIn("the calls per second grow: ours 1.15×; ours, two processes 1.90×; ours, --workers 2 1.80×; "
                      "the SDK's 1.40×", reads)
        self.assertIn("as one command with two workers on one port (*ours, --workers 2*: `mcp_server.py --http`, its "
                      "processes' CPU added up)", page)
        self.assertIn("At 64 clients ours answers 1.69× (1.69–1.69) the SDK's calls per second.", reads)
        mix = page.split("### One edit in ten")[1].split("###")[0]
        self.assertIn("| 1 | ours, two processes | 1,000 (1,000–1,000) | 2.00 (2.00–2.00) | 6.00 (6.00–6.00) | "
                      "1.50 (1.50–1.50) | 9 (9–9) | 2 (2–2) |", mix)
        self.assertIn("Measured on 2026-12-03 by `.venv/bin/python bench.py --only http`, in 200 s.", page)
        self.assertIn("at most 0.25 CPU-seconds per second in any run, less than one core", page)
        self.assertIn("the slowest connect of any run took 2.0 ms.", page)

    def test_goals_met_get_a_verdict_each_and_no_cause(self):
        rows = self.goal_rows(self.page(ours=(1000, 1400, 1600, 1500)))
        self.assertEqual(len(rows), 5)
        self.assertTrue(all(row.endswith("| meets the goal |") for row in rows), rows)
        self.assertIn("| 0 of 64; the slowest 3.0 ms |", rows[0])
        self.assertIn("| 1,000 of 1,000 in the worst repetition; the last after 0.90 s |", rows[1])
        self.assertIn("| +30.0 MiB at most (heads within the bounds, held open) |", rows[2])
        self.assertIn("| Reads per second at 16 clients at least 1.5× those at 1 | 1.60× (1.60–1.60) | "
                      "1.80× (1.80–1.80) | 1.40× (1.40–1.40) |", rows[4])
        self.assertIn("| 0 of 64; the slowest 3.0 ms | – |", rows[0])  # bursts and floods: one process alone
        self.assertNotIn("**Why.**", self.page(ours=(1000, 1400, 1600, 1500)))

    def test_read_scaling_is_judged_on_the_workers_with_one_process_explained_beside_it(self):
        page = self.page()  # one process 1.15×, two workers 1.80×
        self.assertTrue(self.goal_rows(page)[4].endswith("| 1.15× (1.15–1.15) | 1.80× (1.80–1.80) | "
                                                         "1.40× (1.40–1.40) | meets the goal |"), page)
        one = page.split("**One process.**")[1]
        self.assertIn("At 16 clients our server process used 1.00 CPU-seconds per second", one)
        self.assertIn("One command with `--workers 2` answers 16 clients 1.80× the calls per second it answers 1, "
                      "its workers using 1.50 CPU-seconds per second together.", one)
        self.assertNotIn("**One process.**", self.page(workers=(1000, 1100, 1200, 1150)))

    def test_each_goal_missed_says_why_from_the_figures(self):
        page = self.page(waited=3, answered=990, during=140.0, after=60.0, workers=(1000, 1100, 1200, 1150))
        rows = self.goal_rows(page)
        self.assertEqual([row.endswith("| **misses the goal** |") for row in rows], [True] * 5)
        why = page.split("**Why.**")[1]
        self.assertIn("3 connects of a burst of 64 took 0.5 s or more", why)
        self.assertIn("10 of 1,000 got no answer of 200 within 60 s (10 HTTP 503, over all repetitions)", why)
        self.assertIn("rose 110.0 MiB above idle with 1,000 connections open: 113 KiB each", why)
        self.assertIn("back to 3 threads (idle: 3), so no connection was left, yet its resident memory stayed 30.0 "
                      "MiB above idle, 30.0 MiB of it anonymous", why)
        self.assertIn("At 16 clients our server process used 1.00 CPU-seconds per second, and 1.00 at 1: about one "
                      "core's worth", why)
        self.assertIn("Two processes on the same files answer 16 clients 1.90× the calls per second one process "
                      "answers 1, using 1.50 CPU-seconds per second together.", why)

    def test_a_server_under_one_core_is_said_to_wait_for_a_busy_machine_or_for_something_else(self):
        busy = self.page(cpu=0.6, machine=1.9).split("**One process.**")[1]
        self.assertIn("used 0.60 CPU-seconds per second, and 0.60 at 1: less than one core, while the machine's "
                      "processors were busy 1.90 CPU-seconds per second in all", busy)
        self.assertIn("the server waited for a processor.", busy)
        self.assertIn("it waited on something other than a processor.", self.page(cpu=0.6, machine=1.0))

    def test_without_the_sdk_or_proc_what_was_not_measured_is_said_and_given_no_verdict(self):
        page = self.page(sdk=False, rss=False, workers=(1000, 1100, 1200, 1150))
        self.assertIn("The SDK's server was not measured: no Python here can import `mcp`.", page)
        self.assertNotIn("the SDK's as", page)
        self.assertNotRegex(page, r"\| [0-9,]+ \| the SDK's \|")
        self.assertIn("The servers' memory was not read: this system has no `/proc`", page)
        self.assertIn("| long lines | ours | – | – | – | answered 24 with HTTP 431; closed 24 of 24 itself |", page)
        rows = self.goal_rows(page)
        self.assertEqual([row.rsplit("|", 2)[1].strip() for row in rows],
                         ["meets the goal", "meets the goal", "not measured", "not measured", "**misses the goal**"])
        self.assertTrue(all("| not measured |" in row for row in rows), rows)  # the SDK's column

    def test_the_section_measured_apart_is_named_in_the_pages_header(self):
        facts = self.facts()
        facts["machine"].update(date="2026-11-30", command="python3 bench.py")
        self.assertIn('except "The MCP server over HTTP under load", which says when it was measured',
                      "\n".join(report.header(facts)))


class HttpRoundTripTest(unittest.TestCase):
    """The HTTP round-trip timer on a real mcp_server.py --demo --http: a handful of calls, no time asserted."""

    @classmethod
    def setUpClass(cls):
        cls.server = round_trips.HttpServer(round_trips.HTTP_SERVER)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def test_one_client_returns_one_positive_sample_per_timed_call(self):
        samples = round_trips.http_round_trips(self.server.port, round_trips.TOOL, round_trips.demo_article(), 5,
                                               warm_up=1)
        self.assertEqual(len(samples), 5)
        self.assertTrue(all(sample > 0 for sample in samples), samples)

    def test_several_clients_return_every_clients_samples_and_the_seconds_they_took_together(self):
        samples, seconds = round_trips.concurrent_round_trips(self.server.port, round_trips.TOOL,
                                                              round_trips.demo_article(), 3, 2, warm_up=1)
        self.assertEqual(len(samples), 6)
        self.assertTrue(all(sample > 0 for sample in samples), samples)
        self.assertGreater(seconds, 0)

    def test_a_tool_the_server_lacks_and_a_failed_call_are_refused(self):
        with self.assertRaisesRegex(round_trips.UnknownTool, "lists no tool 'delete_everything'"):
            round_trips.http_round_trips(self.server.port, "delete_everything", {}, 1, warm_up=0)
        with self.assertRaisesRegex(RuntimeError, "a client failed: read_knowledge_article failed"):
            round_trips.concurrent_round_trips(self.server.port, round_trips.TOOL, {"article_id": "none"}, 2, 1,
                                               warm_up=0)

    def test_a_server_that_exits_without_saying_where_it_listens_is_one_error(self):
        with self.assertRaisesRegex(RuntimeError, r"did not say where it listens \(status 3\); its last line: gone"):
            round_trips.HttpServer([sys.executable, "-c", "import sys; print('gone', file=sys.stderr); sys.exit(3)"])


class WorkloadTest(unittest.TestCase):
    def setUp(self):
        kb, article_ids, written = fixtures.knowledge_base(":memory:", 12, keep=4)
        records, item_ids = fixtures.bug_channel(":memory:", 6)
        self.work = tools.Workload(kb, article_ids, written, records, item_ids)

    def test_edits_keep_succeeding_batch_after_batch_with_the_versions_they_returned(self):
        for _ in range(2):  # two batches
            call = self.work.call("edit_record_item")
            for number in range(13):
                call(number)
        versions = [self.work.records.item(CHANNEL, i)["version"] for i in self.work.item_ids]
        self.assertEqual(sorted(versions), [5, 5, 5, 5, 5, 7])  # 2 x 13 edits over 6 items
        kb_call = self.work.call("edit_knowledge_article")
        for number in range(25):
            kb_call(number)

    def test_a_refused_call_stops_the_benchmark(self):
        self.work.item_ids[0] = "missing"
        with self.assertRaisesRegex(RuntimeError, "not_found"):
            self.work.call("read_record_item")(0)

    def test_every_part_of_the_edit_runs_on_the_store_and_the_values_pass_validation(self):
        parts = tools.edit_parts(self.work)
        self.assertEqual(parts["the six values validated"](0), [])
        self.assertTrue(parts["the arguments screened and tested against the inputSchema"](0))  # the quick test
        # passes, so the edit never runs the full check: the part times what the edit runs
        for name, part in parts.items():
            with self.subTest(part=name):
                part(0)
        self.assertEqual(self.work.records.item(CHANNEL, self.work.item_ids[0])["version"], 1)  # nothing saved


class PeakMemoryTest(unittest.TestCase):
    def run_measured(self, source):
        with tempfile.TemporaryDirectory() as folder:
            script, facts = os.path.join(folder, "script.py"), os.path.join(folder, "facts.json")
            with open(script, "w") as file:
                file.write(source)
            run = subprocess.run([sys.executable, os.path.join(ROOT, "benchmark", "memory.py"), facts, script, "x"],
                                 capture_output=True, text=True, timeout=60)
            peaks = None
            if os.path.exists(facts):
                with open(facts) as file:
                    peaks = json.load(file)
            return run, peaks

    @unittest.skipIf(bench.memory.peak_rss_mib() is None, "no way to read peak memory here")
    def test_the_peak_includes_what_the_script_held_and_the_script_saw_its_arguments(self):
        run, peaks = self.run_measured("import sys\nassert sys.argv[1:] == ['x']\nheld = b'x' * (80 << 20)\n")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertGreaterEqual(peaks["self"], 80)

    def test_a_failing_script_fails_the_measurement_and_reports_no_peak(self):
        run, peaks = self.run_measured("raise SystemExit(3)\n")
        self.assertNotEqual(run.returncode, 0)
        self.assertIsNone(peaks)


class IntoTest(unittest.TestCase):
    """bench.py --into: sections measured now merged into an earlier full run's facts, each saying when."""

    def committed_facts(self):
        with open(os.path.join(ROOT, "results", "performance.json"), encoding="utf-8") as facts:
            return json.load(facts)

    def test_a_merged_section_replaces_the_earlier_one_and_says_when_and_how_it_was_measured(self):
        earlier = self.committed_facts()
        memory = {key: value for key, value in earlier["memory"].items() if key != "measured"}  # as a run makes it
        fresh = {"goals": dict(earlier["goals"], new_goal=1.0), "section_seconds": {"memory": 12.5},
                 "machine": dict(earlier["machine"], date="2030-01-02", command="python3 bench.py --only memory"),
                 "memory": dict(memory, seconds=99.0)}
        merged = bench.merged_into(earlier, fresh)
        self.assertEqual(merged["memory"]["seconds"], 99.0)
        self.assertEqual(merged["memory"]["measured"]["date"], "2030-01-02")
        self.assertEqual(merged["section_seconds"]["memory"], 12.5)
        self.assertEqual(merged["goals"]["new_goal"], 1.0)
        self.assertEqual(merged["tools"], earlier["tools"])
        self.assertEqual(earlier, self.committed_facts(), "the earlier facts were changed in place")
        page = report.markdown(merged)
        self.assertIn('"Peak memory"', page.splitlines()[2])
        self.assertIn("*Measured apart from the rest of this page: on 2030-01-02, by `python3 bench.py --only memory`",
                      page)

    def test_the_figures_before_the_speed_up_come_with_the_merged_sections(self):
        earlier = {key: value for key, value in self.committed_facts().items() if key != "before"}
        fresh = {"goals": earlier["goals"], "section_seconds": {}, "machine": earlier["machine"],
                 "before": bench.before_speed_up()}
        merged = bench.merged_into(earlier, fresh)
        self.assertEqual(merged["before"], bench.before_speed_up())
        self.assertIn("before issue 44's speed-up", report.markdown(merged))
        self.assertNotIn("before", bench.merged_into(earlier, {k: v for k, v in fresh.items() if k != "before"}))

    def test_into_is_refused_without_only_or_with_quick_or_render_and_nothing_is_written(self):
        committed = os.path.join(ROOT, "results", "performance.json")
        for argv in (["--into", committed], ["--into", committed, "--only", "job", "--quick"],
                     ["--render", committed, "--into", committed]):
            with self.subTest(argv=argv), tempfile.TemporaryDirectory() as out:
                stderr = io.StringIO()
                with contextlib.redirect_stderr(stderr), self.assertRaises(SystemExit) as exit:
                    bench.main([*argv, "--out", out])
                self.assertEqual(exit.exception.code, 2)
                self.assertEqual(len(stderr.getvalue().strip().splitlines()), 1, stderr.getvalue())
                self.assertEqual(os.listdir(out), [])


class CommandLineTest(unittest.TestCase):
    def run_growth(self, *argv):
        return subprocess.run([sys.executable, "-m", "benchmark.growth", *argv], cwd=ROOT, capture_output=True,
                              text=True, timeout=60)

    def test_a_build_refuses_an_existing_file_and_leaves_it_alone(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "taken.db")
            with open(path, "w") as taken:
                taken.write("mine")
            run = self.run_growth("build", "events", "100", path)
            self.assertEqual(run.returncode, 2)
            self.assertIn("exists", run.stderr)
            with open(path) as taken:
                self.assertEqual(taken.read(), "mine")

    def test_a_build_refuses_a_size_too_small_for_a_full_page_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            run = self.run_growth("build", "items", "10", os.path.join(folder, "small.db"))
            self.assertEqual(run.returncode, 2)
            self.assertEqual(len(run.stderr.strip().splitlines()), 1)
            self.assertEqual(os.listdir(folder), [])

    def test_a_build_prints_what_the_benchmark_needs(self):
        with tempfile.TemporaryDirectory() as folder:
            run = self.run_growth("build", "items", "60", os.path.join(folder, "items.db"))
            self.assertEqual(run.returncode, 0, run.stderr)
            facts = json.loads(run.stdout)
            with record_store.connect(facts["path"]) as store:
                ids = store.item_ids(CHANNEL)
            self.assertEqual(len(ids), 60)
            self.assertGreaterEqual(len(ids) - ids.index(facts["deep_before_id"]) - 1, 50)

    def test_the_committed_page_is_what_its_committed_facts_render(self):
        with tempfile.TemporaryDirectory() as folder:
            bench.main(["--render", os.path.join(ROOT, "results", "performance.json"), "--out", folder, "--quiet"])
            with open(os.path.join(folder, "performance.md"), encoding="utf-8") as rendered, \
                    open(os.path.join(ROOT, "results", "performance.md"), encoding="utf-8") as committed:
                self.assertEqual(rendered.read(), committed.read())

    def test_render_refuses_to_measure_too_and_unreadable_facts_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            facts = os.path.join(folder, "facts.json")
            with open(facts, "w") as file:
                file.write("{not json")
            out = os.path.join(folder, "out")
            for argv in (["--render", facts], ["--render", os.path.join(folder, "missing.json")],
                         ["--render", os.path.join(ROOT, "results", "performance.json"), "--quick"]):
                with self.subTest(argv=argv[1:]):
                    with contextlib.redirect_stderr(io.StringIO()) as error, self.assertRaises(SystemExit) as stop:
                        bench.main(argv + ["--out", out])
                    self.assertEqual(stop.exception.code, 2)
                    self.assertEqual(len(error.getvalue().strip().splitlines()), 1, error.getvalue())
                    self.assertFalse(os.path.exists(out))

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_render_refuses_a_fifo_in_one_line_at_once_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as folder:
            fifo, out = os.path.join(folder, "facts.json"), os.path.join(folder, "out")
            os.mkfifo(fifo)
            run = subprocess.run([sys.executable, os.path.join(ROOT, "bench.py"), "--render", fifo, "--out", out],
                                 cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
            self.assertEqual(run.returncode, 2, run.stderr)
            (line,) = run.stderr.strip().splitlines()
            self.assertTrue(line.startswith(f"bench.py: error: cannot read the facts in {fifo}: it is a FIFO (named "
                                            "pipe), not a regular file"), line)
            self.assertFalse(os.path.exists(out))

    def test_an_unknown_section_is_refused(self):
        with contextlib.redirect_stderr(io.StringIO()) as error, self.assertRaises(SystemExit) as stop:
            bench.main(["--only", "everything"])
        self.assertEqual(stop.exception.code, 2)
        self.assertIn("--only", error.getvalue())


if __name__ == "__main__":
    unittest.main()


class DistinctQueriesTest(unittest.TestCase):
    def test_the_timed_searches_ask_no_question_twice_and_begin_with_each_articles_mid_query(self):
        _, _, written = fixtures.knowledge_base(":memory:", 50, keep=50)
        queries = tools.distinct_mid_queries(written)
        self.assertEqual(len(set(queries)), len(queries))
        self.assertGreaterEqual(len(queries), 500)  # bench.py's calls per tool in a repetition
        self.assertEqual(queries[:50], [tools.mid_query(article) for article in written])
        self.assertTrue(all(len(query.split()) == 6 for query in queries))
