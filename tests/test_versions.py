"""Versions that are times: RFC 3339 UTC with microseconds, parsed leniently, strictly increasing."""

import datetime
import unittest

from tests import helpers
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

    def test_parse_takes_a_nanosecond_fraction_whose_digits_past_the_microsecond_are_zeros(self):
        for text in ["2026-11-09T09:15:02.123456000Z", "2026-11-09T10:15:02.1234560+01:00",
                     "2026-11-09T09:15:02.12345600Z"]:
            self.assertEqual(parse_time(text), MOMENT, text)
        self.assertEqual(parse_time("2026-11-09T09:15:02.500000000Z"), MOMENT.replace(microsecond=500000))

    def test_parse_rejects_a_finer_instant_a_longer_fraction_and_offsets_past_the_clock(self):
        for text in ["2026-11-09T09:15:02.1234561Z", "2026-11-09T09:15:02.123456001Z",
                     "2026-11-09T09:15:02.1234560000Z", "2026-11-09T09:15:02.1" + "0" * 1_000_000 + "x",
                     "2026-11-09T09:15:02.123456+01:60", "2026-11-09T09:15:02.123456+05:99",
                     "2026-11-09T09:15:02.123456-24:00", "2026-11-09T09:15:02.123456+23:60"]:
            self.assertIsNone(parse_time(text), text)
        self.assertEqual(parse_time("2026-11-09T09:15:02.123456+23:59"),
                         MOMENT - datetime.timedelta(hours=23, minutes=59))

    def test_next_version_is_the_clock_when_it_moved_on(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:01.000000Z", MOMENT), "2026-11-09T09:15:02.123456Z")

    def test_next_version_steps_one_microsecond_when_the_clock_did_not_move(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:02.123456Z", MOMENT), "2026-11-09T09:15:02.123457Z")

    def test_next_version_steps_past_a_clock_that_went_backwards(self):
        self.assertEqual(next_time_version("2026-11-09T09:15:03.999999Z", MOMENT), "2026-11-09T09:15:04.000000Z")


class ExpectedVersionTest(unittest.TestCase):
    """An article's version sent back as any spelling of the same instant is that version; a finer instant is
    refused by its argument, saying what it takes, and writes nothing."""

    def setUp(self):
        self.store, self.clock, self.ids = helpers.support_store()
        self.version = helpers.read(self.store, self.ids[0])["updated_at"]

    def test_the_version_written_to_the_nanosecond_in_another_offset_is_the_version(self):
        moment = parse_time(self.version)
        tokyo = moment.astimezone(datetime.timezone(datetime.timedelta(hours=9)))
        spelled = tokyo.isoformat(timespec="microseconds").replace("+09:00", "000+09:00")
        self.assertNotEqual(spelled, self.version)
        saved = helpers.edit(self.store, self.ids[0], spelled, "k1")
        self.assertEqual(saved["replay"], False, saved)
        self.assertEqual(helpers.edit(self.store, self.ids[0], self.version, "k1"), dict(saved, replay=True))

    def test_a_finer_instant_is_refused_naming_the_precision_and_writes_nothing(self):
        before = helpers.dump(self.store)
        result = helpers.edit(self.store, self.ids[0], self.version[:-1] + "001Z", "k1")
        self.assertEqual((result["error"], result["argument"], result["rule"]),
                         ("invalid_arguments", "expected_version", "format"))
        self.assertIn("to the microsecond", result["message"])
        self.assertEqual(helpers.dump(self.store), before)


if __name__ == "__main__":
    unittest.main()
