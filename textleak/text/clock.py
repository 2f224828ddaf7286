"""Clock times as people and logs write them ("19:40", "7:40 pm", "07:12:45"), read as one 24-hour "HH:MM":
what the judges' written-values rule and reader's view compare, and the hour a coarser "about 3am" names."""

from __future__ import annotations

import re

CLOCK = re.compile(r"(?<![\w:.])(\d{1,2}):(\d{2})(?::\d{2})?\s*([ap]\.?m\.?)?(?![\w:])", re.IGNORECASE)


def hour24(hour: int, half: str) -> int:
    """``hour`` on a 24-hour clock; ``half`` is "a", "p" (or "am", "p.m." ...) or "" when not written."""
    half = half.lower()[:1]
    if half == "p" and hour < 12:
        return hour + 12
    if half == "a" and hour == 12:
        return 0
    return hour


def clock(m: re.Match) -> str:
    """A :data:`CLOCK` match as "HH:MM" on a 24-hour clock."""
    return f"{hour24(int(m.group(1)), m.group(3) or ''):02d}:{m.group(2)}"


# a time zone's offset from UTC as people and logs write it: "UTC+05:30", "GMT-8", and a bare "+0530" or "-08:00"
# right after a clock time ("14:03:07 +0530", "03:15:02.114+05:30"), the year git writes after it ("14:03:07 2026
# +0530") or a masked one ("<DATE_TIME> +0530")
UTC_OFFSET = re.compile(r"(?:\b(?i:UTC|GMT)\s?([+\-\u2212])\s?(\d{1,2})(?::?([0-5]\d))?(?::00)?"
                        r"|(?:(?<=\d:\d\d)|(?<=\d:\d\d\s)|(?<=\.\d\d\d)|(?<=\.\d{6})|(?<=\.\d{9})|(?<=\b[12]\d\d\d\s)|(?<=>)|(?<=>\s))"
                        r"([+\-\u2212])([01]\d):?([0-5]\d))(?![\d:])")


def utc_offset(m: re.Match) -> int | None:
    """A :data:`UTC_OFFSET` match in signed minutes; None past UTC+-14:00 (not an offset)."""
    sign, hours, minutes = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(4), m.group(5), m.group(6))
    total = int(hours) * 60 + int(minutes or 0)
    if total > 14 * 60:
        return None
    return -total if sign in "-\u2212" else total


def utc_offsets(text: str) -> frozenset[int]:
    """Every UTC offset written in ``text``, in signed minutes."""
    return frozenset(o for m in UTC_OFFSET.finditer(text) if (o := utc_offset(m)) is not None)
