"""Which fiscal years a question names, and the period guard built on it.

Pure text rules, no I/O. A year counts as a period only when the question uses it as one: a
year inside a proper noun (``the 2021 Stock Plan``, ``Notes due 2031``, ``the Tax Cuts and Jobs
Act of 2017``) or a quantity (``2,000 employees``) is not a period, and the guard declines only
a year that the filing does not report.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from edgar_rag.domain import FilingMeta
from edgar_rag.rules import (
    ANNUAL_FORMS,
    CURRENT_FORM,
    MID_MONTH,
    SMALL_NUMBERS,
    dates_an_event,
    fiscal_year_of_day,
    form_name,
)

_MONTH_NAMES = {
    name.lower(): number
    for number in range(1, 13)
    for name in (calendar.month_name[number], calendar.month_abbr[number])
} | {"sept": 9}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_YEAR4 = r"(?P<year>(?:19|20)\d{2})"
_DATES = (
    re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+{_YEAR4}\b", re.I),
    re.compile(rf"\b(?P<day>\d{{1,2}})\s+{_MONTH},?\s+{_YEAR4}\b", re.I),
    re.compile(rf"\b{_YEAR4}-(?P<month>\d{{1,2}})-(?P<day>\d{{1,2}})\b"),
    re.compile(rf"\b(?P<month>\d{{1,2}})/(?P<day>\d{{1,2}})/{_YEAR4}\b"),
    re.compile(rf"\b{_MONTH},?\s+{_YEAR4}\b", re.I),
)
_FISCAL = re.compile(
    r"\bFY\s?'?(?P<fy>\d{4}|\d{2})(?!\d)"
    r"|\bfiscal(?:\s+years?)?\s+(?:'(?P<short>\d{2})|(?P<long>(?:19|20)\d{2}))(?!\d)",
    re.I,
)
_PLAIN = re.compile(r"(?<![\w$#.,/])(?:19|20)\d{2}(?![\w%]|[.,]\d)")
_SHORT_END = re.compile(r"\s*[-–—/]\s*(?:FY\s?)?'?(\d{2})(?![\w%])", re.I)
_RANGE_GAP = re.compile(
    r"^\s*(?:-|–|—|to|through|thru|until)\s*(?:fiscal\s+(?:years?\s+)?)?$", re.I
)
_AND_GAP = re.compile(r"^\s*and\s*(?:fiscal\s+(?:years?\s+)?)?$", re.I)
_BETWEEN = re.compile(r"\bbetween\s+(?:fiscal\s+(?:years?\s+)?)?$", re.I)
_MAX_RANGE_YEARS = 30

_COUNT = {"a": 1} | {word: count for count, word in enumerate(SMALL_NUMBERS[:11]) if count}
_RELATIVE = (
    (re.compile(r"\bthe\s+year\s+before\s+last\b", re.I), -2),
    (re.compile(r"\b(?:last|prior|previous|preceding)(?:[\s-]+fiscal)?[\s-]+year\b", re.I), -1),
    (
        re.compile(
            r"\b(?:this|current|present|latest|most\s+recent)(?:\s+fiscal)?[\s-]+year\b", re.I
        ),
        0,
    ),
)
_YEARS_AGO = re.compile(
    r"\b(?P<count>\d{1,2}|" + "|".join(_COUNT) + r")\s+(?:fiscal\s+)?years?\s+ago\b", re.I
)

# Words that make a plain year part of a name or a quantity rather than a period.
_NAME_HEADS = frozenset(
    "plan plans notes note act meeting proxy bonds bond debentures debenture agreement "
    "agreements program programme facility loan loans indenture warrants warrant securities "
    "goal goals target targets tranche series".split()
)
_NAME_MODIFIERS = frozenset(
    "stock incentive omnibus equity employee employees senior subordinated convertible term "
    "revolving credit annual share repurchase purchase performance long-term restricted unit "
    "units award awards compensation director directors exchangeable green".split()
)
_QUANTITIES = frozenset(
    "million billion thousand trillion percent employees people shares stores units restaurants "
    "locations square feet miles vehicles customers members aircraft jobs workers tons barrels "
    "hours patents products cars basis bps".split()
)
_NAME_BEFORE = re.compile(
    r"\b(?:due|by|matur\w*|expir\w*|act\s+of|asu|asc|no\.?|rule|release|section|series)"
    r"(?:\s+in)?\s*$",
    re.I,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_CLAUSE_END = re.compile(r"[,.;:?!()]")


_QUARTERS = (
    # Q2, Q2'23, Q22023, FY2023Q1
    re.compile(r"(?<![A-Za-z])Q(?P<q>[1-4])(?=\b|['’]|(?:19|20)\d{2}\b)", re.I),
    re.compile(r"\b(?P<q>[1-4])Q(?:\s?'?\d{2}|\s?20\d{2})?\b"),
    re.compile(
        r"\b(?P<q>first|second|third|fourth|final|last|1st|2nd|3rd|4th)[\s-]+(?:fiscal[\s-]+)?"
        r"quarter\b(?!\s+(?:of\s+)?(?:the\s+)?(?:last|prior|previous)\s+(?:fiscal\s+)?year)",
        re.I,
    ),
    re.compile(r"\bquarter\s+(?P<q>[1-4])\b", re.I),
)
_QUARTER_WORDS = {
    "first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
    "fourth": 4, "4th": 4, "final": 4, "last": 4,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    year: int


def asked_fiscal_years(
    question: str, filing: FilingMeta, today_fiscal_year: int | None = None
) -> frozenset[int]:
    """The fiscal years the question names, in the filing's fiscal calendar.

    A date maps to the fiscal year of a balance that stood that day (``rules.fiscal_year_as_of``:
    the year just ended within a 10-K's filing lag, else the year containing it), and the date
    of an event ("announced on February 1, 2024", ``rules.dates_an_event``) to the fiscal year
    containing it, as the verifier reads passages (``rules.fiscal_year_of_day``).
    Relative words (``last year``, ``three years ago``) count from ``today_fiscal_year`` when
    given, else from the filing's own fiscal year, as the filing itself speaks. ``next year``
    is left out: a 10-K discusses its outlook, so a forward year is not a period it fails to
    report.
    """
    text = question
    mentions: list[_Mention] = []
    for pattern in _DATES:
        text = _take(pattern, text, mentions, lambda m: _date_year(m, filing))
    text = _take(_FISCAL, text, mentions, _fiscal_year_of)
    text = _take(_PLAIN, text, mentions, _plain_year)
    years = set(_combine(question, sorted(mentions, key=lambda m: m.start)))
    anchor = filing.fiscal_year if today_fiscal_year is None else today_fiscal_year
    for pattern, offset in _RELATIVE:
        if pattern.search(text):
            years.add(anchor + offset)
    for match in _YEARS_AGO.finditer(text):
        count = match["count"].lower()
        years.add(anchor - (int(count) if count.isdigit() else _COUNT[count]))
    return frozenset(years)


def period_guard(asked: frozenset[int], filing: FilingMeta) -> str | None:
    """None when the filing reports every fiscal year ``asked`` (those a question names, read
    by ``asked_fiscal_years``), else why not."""
    reported = filing.years_reported or (filing.fiscal_year,)
    missing = sorted(asked - set(reported))
    if not missing:
        return None
    return (
        f"the question names fiscal {describe_years(missing)}; "
        f"this filing reports fiscal {describe_years(reported)}"
    )


_OUTLOOK = re.compile(
    r"\b(?:expect(?:s|ed|ing|ations?)?|forecast\w*|guidance|outlook|anticipat\w*|"
    r"project(?:s|ed|ing|ions?)|estimated\s+(?:future\s+)?(?:payments?|benefits?)|"
    r"plan(?:s|ned)?\s+to|intend\w*|will)\b",
    re.I,
)


def outlook_years(question: str, asked: frozenset[int], filing: FilingMeta) -> frozenset[int]:
    """The years of ``asked`` after every year the filing reports, where the question asks what
    the company expects of them ("As of FY2021, how much did Verizon expect to pay its retirees
    in 2024?", "what production rates is Boeing forecasting for FY2023?"): a 10-K's outlook
    speaks of such years, so they are no period it fails to report. Empty otherwise."""
    if not _OUTLOOK.search(question):
        return frozenset()
    latest = max(filing.years_reported or (filing.fiscal_year,))
    return frozenset(year for year in asked if year > latest)


def asked_quarters(question: str) -> frozenset[int]:
    """The fiscal quarters a question names: ``Q2``, ``2Q23``, ``the second quarter``,
    ``fourth-quarter``, ``quarter 3``."""
    found = set()
    for pattern in _QUARTERS:
        for match in pattern.finditer(question):
            written = match["q"].lower()
            found.add(int(written) if written.isdigit() else _QUARTER_WORDS[written])
    return frozenset(found)


def quarter_guard(asked: frozenset[int], filing: FilingMeta) -> str | None:
    """None when the filing reports every fiscal quarter ``asked`` on its own, else why not: a
    10-K reports its year and, of its quarters, only the last (Item 5's repurchases, the fourth
    quarter's results some discuss); a 10-Q or an earnings release its one quarter. An 8-K
    reports events, not periods, so nothing is declined here."""
    if not asked or filing.form == CURRENT_FORM:
        return None
    named = " and ".join(f"Q{quarter}" for quarter in sorted(asked))
    if filing.form in ANNUAL_FORMS:
        if asked <= {4}:
            return None
        return (
            f"the question asks for {named}; this filing is a {filing.form} for fiscal "
            f"{filing.fiscal_year}, which reports years, not quarters"
        )
    if filing.fiscal_quarter is None or asked - {filing.fiscal_quarter}:
        held = f"Q{filing.fiscal_quarter} of " if filing.fiscal_quarter else ""
        return (
            f"the question asks for {named}; this filing is the {form_name(filing.form)} "
            f"for {held}fiscal {filing.fiscal_year}"
        )
    return None


def years_of_companies(question: str, spans: Sequence[tuple[int, int]]) -> tuple[int | None, ...]:
    """The one fiscal year the question writes after each company's name and before the next
    name ("the gross margins of P&G in fiscal 2025 and J&J in fiscal 2024": 2025, 2024), in
    the order of ``spans``; None for a name followed by no year or by several."""
    ends = [start for start, _ in spans[1:]] + [len(question)] if spans else []
    found: list[int | None] = []
    for (_, start), end in zip(spans, ends, strict=True):
        clause = question[start:end]
        written = {_fiscal_year_of(m) for m in _FISCAL.finditer(clause)}
        written |= {int(m.group()) for m in _PLAIN.finditer(clause)}
        found.append(written.pop() if len(written) == 1 else None)
    return tuple(found)


def describe_years(years: Iterable[int]) -> str:
    """``2019``, ``2019 and 2021``, ``2023 to 2025`` (runs of three or more joined by 'to')."""
    runs: list[list[int]] = []
    for year in sorted(set(years)):
        if runs and year == runs[-1][-1] + 1:
            runs[-1].append(year)
        else:
            runs.append([year])
    parts: list[str] = []
    for run in runs:
        if len(run) >= 3:
            parts.append(f"{run[0]} to {run[-1]}")
        else:
            parts.extend(str(year) for year in run)
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _take(
    pattern: re.Pattern[str],
    text: str,
    mentions: list[_Mention],
    read: Callable[[re.Match[str]], int | None],
) -> str:
    """Record each match that reads as a year and blank it out, so later patterns skip it."""
    for match in pattern.finditer(text):
        year = read(match)
        if year is None:
            continue
        start, end = match.span()
        mentions.append(_Mention(start, end, year))
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _date_year(match: re.Match[str], filing: FilingMeta) -> int | None:
    month_text = match["month"]
    if month_text.isdigit():
        month = int(month_text)
    else:
        if month_text.lower() == "may" and not month_text.startswith("M"):
            return None
        month = _MONTH_NAMES[month_text.lower()]
    year = int(match["year"])
    groups = match.groupdict()
    event = dates_an_event(match.string, match.start())
    try:
        if groups.get("day"):
            day = int(groups["day"])
        else:
            day = MID_MONTH if event else calendar.monthrange(year, month)[1]
        when = date(year, month, day)
    except ValueError:
        return None
    if _NAME_BEFORE.search(match.string[: match.start()]):
        return None
    if filing.period_end is None:
        return when.year
    return fiscal_year_of_day(when, filing.period_end, filing.fiscal_year, event=event)


def _fiscal_year_of(match: re.Match[str]) -> int:
    return _expand(match["fy"] or match["short"] or match["long"])


def _plain_year(match: re.Match[str]) -> int | None:
    before, after = match.string[: match.start()], match.string[match.end() :]
    if _NAME_BEFORE.search(before) or _names_after(after):
        return None
    return int(match.group())


def _names_after(after: str) -> bool:
    """True when the words after a year make it a name (``2021 Stock Plan``) or a quantity."""
    clause = _CLAUSE_END.split(after, maxsplit=1)[0]
    for index, word in enumerate(_WORD.findall(clause)[:5]):
        lowered = word.lower()
        if lowered in _NAME_HEADS:
            return True
        if index == 0 and lowered in _QUANTITIES:
            return True
        if not (word[0].isupper() or lowered in _NAME_MODIFIERS):
            return False
    return False


def _expand(written: str) -> int:
    """A four-digit year as is; a two-digit one in 1970-2069 (SEC filings start in 1993)."""
    number = int(written)
    if len(written) == 4:
        return number
    return 2000 + number if number < 70 else 1900 + number


def _combine(question: str, mentions: list[_Mention]) -> list[int]:
    """Each mentioned year, with ranges (``2022-2024``, ``2022 through 2024``) filled in."""
    years = [mention.year for mention in mentions]
    for first, second in pairwise(mentions):
        gap = question[first.end : second.start]
        between = _AND_GAP.match(gap) and _BETWEEN.search(question[: first.start])
        if _RANGE_GAP.match(gap) or between:
            years.extend(_span(first.year, second.year))
    for mention in mentions:
        short = _SHORT_END.match(question, mention.end)
        if short is not None:
            end = mention.year // 100 * 100 + int(short.group(1))
            years.extend(_span(mention.year, end))
    return years


def _span(first: int, last: int) -> range:
    if first < last <= first + _MAX_RANGE_YEARS:
        return range(first, last + 1)
    return range(0)
