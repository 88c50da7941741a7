"""How a prose sentence dates a figure, written as the header a table column would give it.

A year stays a year (``2024``: the fiscal year as the filing labels it). A day stays a day
(``February 2, 2025``), which the filing's calendar maps to the fiscal year whose end is nearest,
as it maps a column header or a balance date ("as of January 31, 2024, there were 9,300 holders"
on a fiscal 2023 cover). The day or month something happened is a point inside a year, not the
end of one, so its header says so (``on February 1, 2024``, ``in February 2024``) and
``event_day`` reads it back for ``rules.fiscal_year_containing`` (issue 20: "On February 1,
2024, we announced ... a cash dividend" was read as fiscal 2023, the nearer year end).
Pure: no I/O.
"""

from __future__ import annotations

import calendar
import re
from datetime import date

from edgar_rag.rules import MID_MONTH, dates_an_event, parse_day

_MONTH_NAMES = "|".join(calendar.month_name[1:] + calendar.month_abbr[1:] + ["Sept"])
_MONTH_DAY = re.compile(r"\b[A-Z][a-z]{2,8}\.?\s+\d{1,2},\s*$")
_MONTH_ALONE = re.compile(rf"\b(?:{_MONTH_NAMES})\.?\s+$")
_EVENT_DAY = re.compile(r"on (?P<month>[A-Z][a-z]{2,8})\.?\s+(?P<day>\d{1,2}),\s*(?P<year>\d{4})")
_EVENT_MONTH = re.compile(r"in (?P<month>[A-Z][a-z]{2,8})\.?\s+(?P<year>\d{4})")


def dated_header(year: re.Match[str], sentence: str) -> str:
    """The header of a figure that ``sentence`` dates by ``year`` (a match in it): the whole
    date when a month and day stand before the year, marked ``on`` when something happened
    that day; the month, marked ``in``, when something happened that month; else the year."""
    day = _MONTH_DAY.search(sentence, 0, year.start())
    if day is not None:
        written = f"{day.group()}{year.group()}"
        return f"on {written}" if dates_an_event(sentence, day.start()) else written
    month = _MONTH_ALONE.search(sentence, 0, year.start())
    if month is not None and dates_an_event(sentence, month.start()):
        return f"in {month.group()}{year.group()}"
    return year.group()


def event_day(header: str) -> date | None:
    """The day a header from ``dated_header`` says something happened (a month: its
    ``MID_MONTH``); None for any other header."""
    if match := _EVENT_DAY.fullmatch(header):
        day = int(match["day"])
    elif match := _EVENT_MONTH.fullmatch(header):
        day = MID_MONTH
    else:
        return None
    return parse_day(match["month"], day, int(match["year"]))
