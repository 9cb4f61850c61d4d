"""The course's time zone: the clock that times without an offset are read on.

A zip entry's time and a deadline written without an offset are wall-clock times
of the course. Lateness is real elapsed time, so they are placed in the course's
IANA zone (`[late] timezone`), which knows its daylight-saving changes, never in
a fixed offset; an empty name is this machine's own zone.
"""

import os
from datetime import datetime, timezone, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

_LOCALTIME = "/etc/localtime"


class UnknownZone(ValueError):
    """Not a time zone this machine knows; str() names it."""


def course_zone(name: str) -> tzinfo:
    """The zone called `name` (Europe/Berlin); "" is this machine's."""
    if not name:
        return local_zone()
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):  # ValueError: a path, not a name
        if not available_timezones():  # a slim image: no name would do
            raise UnknownZone(
                f"{name!r}: this machine has no time zone database "
                "(apt-get install tzdata, or pip install tzdata)"
            ) from None
        raise UnknownZone(f"not a time zone: {name!r}") from None


def zone_name(zone: tzinfo) -> str:
    """What reports show: the IANA name where there is one."""
    return getattr(zone, "key", None) or str(zone)


def local_zone() -> tzinfo:
    """This machine's zone as the C library finds it (TZ, else /etc/localtime, else UTC),
    with its daylight-saving rules: datetime's own astimezone() gives only today's offset."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass  # a POSIX rule ("EST5EDT,M3.2.0,M11.1.0") or a path: the file below
    try:
        target = os.readlink(_LOCALTIME)
        _, found, key = target.partition("zoneinfo/")
        if found:
            return ZoneInfo(key)
    except (OSError, ZoneInfoNotFoundError, ValueError):
        pass
    try:
        with open(_LOCALTIME, "rb") as handle:
            return ZoneInfo.from_file(handle, key="localtime")
    except (OSError, ValueError):
        return timezone.utc  # what the C library assumes without either


def instant(when: datetime, zone: tzinfo) -> datetime:
    """`when` in UTC; without an offset it is a wall-clock time in `zone` (the earlier
    one in the hour repeated when the clocks go back). Compared in UTC because
    Python subtracts two times of one tzinfo by their wall clocks."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=zone)
    return when.astimezone(timezone.utc)
