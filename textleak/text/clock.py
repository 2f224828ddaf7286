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
