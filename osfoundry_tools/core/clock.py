"""Versions that are times: an injected clock's moments as RFC 3339 UTC with microseconds, strictly increasing.

Layer: core. `wall_clock` is the only place a store reads wall time; everything else takes a clock.
"""

import datetime
import re
from typing import Optional, Tuple

# ---------------------------------------------------------------------------
# Clock helpers: versions that are times are RFC 3339 UTC with microseconds.

ONE_MICROSECOND = datetime.timedelta(microseconds=1)
_UTC = datetime.timezone.utc
_RFC3339 = re.compile(  # a fraction to the nanosecond (parse_time takes its digits past the microsecond as zeros only);
    # an offset's hours to 23, its minutes to 59
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)",
    re.ASCII,
)


_MINUTE: Tuple[Tuple[int, ...], str] = ((), "")  # the minute format_time wrote last, and its text


def wall_clock() -> datetime.datetime:
    """The default clock: the only place a store reads wall time."""
    return datetime.datetime.now(datetime.timezone.utc)


def format_time(moment: datetime.datetime) -> str:
    """An aware datetime as RFC 3339 UTC with microseconds, e.g. 2026-11-09T09:15:02.123456Z."""
    global _MINUTE
    if moment.tzinfo is _UTC and moment.microsecond:  # most moments: the text of their minute is the last one's
        minute, start = _MINUTE  # one read of both: another thread may replace them meanwhile, never one alone
        if minute != (moment.minute, moment.hour, moment.day, moment.month, moment.year):
            start = moment.isoformat()[:17]  # "2026-11-09T09:15:": isoformat takes longer than the rest together
            _MINUTE = ((moment.minute, moment.hour, moment.day, moment.month, moment.year), start)
        return "%s%02d.%06dZ" % (start, moment.second, moment.microsecond)
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError("the clock must return an aware datetime (UTC), got a naive one")
    t = moment if moment.tzinfo is _UTC else moment.astimezone(_UTC)
    return t.isoformat(timespec="microseconds")[:-6] + "Z"  # "+00:00" as "Z"; isoformat is quicker than strftime


def parse_time(text: str) -> Optional[datetime.datetime]:
    """An RFC 3339 date-time (Z or an offset, to the microsecond; written to the nanosecond, its last three digits
    zeros) as aware UTC; None if it is not one."""
    match = _RFC3339.fullmatch(text)
    if not match:
        return None
    *fields, fraction, zone = match.groups()
    if fraction and fraction[6:].strip("0"):  # finer than a microsecond: no version's instant
        return None
    try:
        year, month, day, hour, minute, second = (int(f) for f in fields)
        offset = datetime.timedelta(0)
        if zone not in ("Z", "z"):
            sign = 1 if zone[0] == "+" else -1
            offset = sign * datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6]))
        moment = datetime.datetime(
            year, month, day, hour, minute, second, int((fraction or "0")[:6].ljust(6, "0")),
            tzinfo=datetime.timezone(offset),
        )
        return moment.astimezone(datetime.timezone.utc)
    except (ValueError, OverflowError):
        return None


def checked_time(text: str) -> datetime.datetime:
    """A time already known to be RFC 3339 (one this code stored, or one the schema checked) as aware UTC."""
    moment = parse_time(text)
    if moment is None:
        raise ValueError(f"not an RFC 3339 date-time: {text!r}")
    return moment


def next_time_version(previous: Optional[str], now: datetime.datetime) -> str:
    """The clock's time as a version, moved one microsecond past `previous` if it would not exceed it.

    >>> still = datetime.datetime(2026, 11, 9, 9, 15, 2, 123456, tzinfo=datetime.timezone.utc)
    >>> next_time_version("2026-11-09T09:15:02.123456Z", still)
    '2026-11-09T09:15:02.123457Z'
    """
    candidate = format_time(now)
    if previous is not None and candidate <= previous:
        earlier = parse_time(previous)
        assert earlier is not None, f"stored version is not a time: {previous!r}"
        candidate = format_time(earlier + ONE_MICROSECOND)
    return candidate
