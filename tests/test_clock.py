"""The stores read time only through their clock: the default is the wall clock, and nothing else reads it."""

import ast
import datetime
import os
import re
import unittest

from tests import helpers, record_helpers
from tests.helpers import KB, ROOT, ManualClock, edit, read, support_store
from osfoundry_tools.stores import kb_store
from osfoundry_tools.core.clock import format_time

WALL_TIME_CALLS = {"now", "utcnow", "today", "time", "time_ns", "monotonic", "perf_counter", "localtime", "gmtime"}


class ClockTest(unittest.TestCase):
    def test_every_stored_time_comes_from_the_injected_clock(self):
        clock = ManualClock(datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc))
        store, clock, ids = support_store(clock=clock)
        edit(store, ids[0], read(store, ids[0])["updated_at"], "k1")
        dump = repr(helpers.snapshot(store))
        times = re.findall(r"\d{4}-\d{2}-\d{2}T[\d:.]+Z", dump)
        self.assertGreater(len(times), 10)
        self.assertEqual({t[:10] for t in times}, {"2001-02-03"})

    def test_the_default_clock_is_the_wall_clock_in_utc(self):
        store = kb_store.connect()
        store.create_knowledge_base(KB)
        before = datetime.datetime.now(datetime.timezone.utc)
        version = store.create_article(KB, "T", "C")["updated_at"]
        after = datetime.datetime.now(datetime.timezone.utc)
        self.assertLessEqual(format_time(before), version)
        self.assertLessEqual(version, format_time(after))

    def test_a_time_is_written_as_isoformat_writes_it_whatever_minute_came_before(self):  # the minute's text is kept
        utc = datetime.timezone.utc
        start = datetime.datetime(2026, 12, 31, 23, 58, 59, 999_999, tzinfo=utc)
        steps = [datetime.timedelta(microseconds=n) for n in (1, 59_000_001, 1, 86_400_000_000, 31 * 86_400_000_000)]
        moments = [start + step * k for step in steps for k in range(3)] + [start, start.replace(year=999),
                                                                            start.replace(microsecond=0), start]
        moments += [moment.replace(tzinfo=datetime.timezone(datetime.timedelta(hours=9))) for moment in moments[:4]]
        for moment in moments:
            with self.subTest(moment=moment):
                self.assertEqual(format_time(moment), moment.astimezone(utc).isoformat(timespec="microseconds")[:-6]
                                 + "Z")

    def test_a_naive_clock_is_refused_before_anything_is_written(self):
        store = kb_store.connect(clock=lambda: datetime.datetime(2026, 1, 1))
        store.create_knowledge_base(KB)
        with self.assertRaisesRegex(ValueError, "aware"):
            store.create_article(KB, "T", "C")
        self.assertEqual(helpers.snapshot(store)["articles"], [])

    def test_record_times_and_formulas_come_from_the_injected_clock(self):
        clock = ManualClock(datetime.datetime(2001, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc))
        store, clock, ids = record_helpers.bug_store(clock=clock)
        clock.advance(2 * 86400)
        store.edit_item(record_helpers.BUGS, ids[0], {"points": 2})
        times = re.findall(r"\d{4}-\d{2}-\d{2}T[\d:.]+Z", repr(helpers.snapshot(store)))
        self.assertGreater(len(times), 8)
        self.assertEqual({t[:8] for t in times}, {"2001-02-"})
        self.assertEqual(record_helpers.read(store, ids[0])["values"]["age_days"], 2)

    def test_only_the_default_clock_calls_wall_time(self):
        stores = [os.path.join(folder, name) for folder in ("core", "stores")
                  for name in os.listdir(os.path.join(ROOT, "osfoundry_tools", folder)) if name.endswith(".py")]
        self.assertGreater(len(stores), 10)
        for module in stores:
            with open(os.path.join(ROOT, "osfoundry_tools", module), encoding="utf-8") as source:
                tree = ast.parse(source.read())
            callers = set()
            for function in ast.walk(tree):
                if isinstance(function, ast.FunctionDef):
                    for node in ast.walk(function):
                        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                                and node.func.attr in WALL_TIME_CALLS:
                            callers.add(function.name)
            self.assertLessEqual(callers, {"wall_clock"}, module)


if __name__ == "__main__":
    unittest.main()
