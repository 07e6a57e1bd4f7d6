"""Versions that are times: RFC 3339 UTC with microseconds, parsed leniently, strictly increasing."""

import datetime
import unittest

from tests import helpers  # noqa: F401
from osfoundry_tools.core.clock import format_time, next_time_version, parse_time

UTC = datetime.timezone.utc
MOMENT = datetime.datetime(2026, 11, 9, 9, 15, 2, 123456, tzinfo=UTC)


class TimeVersionTest(unittest.TestCase):
    def test_format_is_rfc3339_utc_with_microseconds(self):
        self.assertEqual(format_time(MOMENT), "2026-11-09T09:15:02.123456Z")

    def test_format_writes_six_digits_of_a_whole_second(self):
        for moment in (MOMENT.replace(microsecond=0), MOMENT.replace(microsecond=7),
                       datetime.datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC)):
            self.assertEqual(format_time(moment), moment.isoformat(timespec="microseconds")[:-6] + "Z")
        self.assertEqual(format_time(MOMENT.replace(microsecond=0)), "2026-11-09T09:15:02.000000Z")

    def test_format_converts_other_offsets_to_utc(self):
        paris = datetime.timezone(datetime.timedelta(hours=1))
        self.assertEqual(format_time(MOMENT.astimezone(paris)), "2026-11-09T09:15:02.123456Z")

    def test_format_refuses_a_naive_datetime(self):
        with self.assertRaisesRegex(ValueError, "aware"):
            format_time(MOMENT.replace(tzinfo=None))

    def test_parse_accepts_z_offsets_and_short_fractions(self):
        for text in ["2026-11-09T09:15:02.123456Z", "2026-11-09T10:15:02.123456+01:00",
                     "2026-11-09t09:15:02.123456z"]:
            self.assertEqual(parse_time(text), MOMENT, text)
        self.assertEqual(parse_time("2026-11-09T09:15:02Z"), MOMENT.replace(microsecond=0))
        self.assertEqual(parse_time("2026-11-09T09:15:02.5Z"), MOMENT.replace(microsecond=500000))

    def test_parse_rejects_what_is_not_an_rfc3339_date_time(self):
        for text in ["yesterday", "2026-11-09", "2026-11-09T09:15:02", "2026-13-09T09:15:02Z",
                     "2026-11-09T09:15:02.1234567Z", "2026-02-30T00:00:00Z", " 2026-11-09T09:15:02Z",
                     "2026-11-09T09:15:02Z\n", "٢٠٢٦-11-09T09:15:02Z"]:
            self.assertIsNone(parse_time(text), text)

    def test_next_version_is_the_clock_when_it_moved_on(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:01.000000Z", MOMENT), "2026-11-09T09:15:02.123456Z")

    def test_next_version_steps_one_microsecond_when_the_clock_did_not_move(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:02.123456Z", MOMENT), "2026-11-09T09:15:02.123457Z")

    def test_next_version_steps_past_a_clock_that_went_backwards(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:03.999999Z", MOMENT), "2026-11-09T09:15:04.000000Z")


if __name__ == "__main__":
    unittest.main()
