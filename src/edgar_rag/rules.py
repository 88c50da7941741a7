"""Rules every layer shares: the fiscal year a date falls in or ends nearest (and which of the
two a date in a sentence needs), English number words, and the key a company's name is known by.

Each lived in two or three modules before (ingest, the period guard, the figure reader, the
company guard), and copies drift. Pure tables and functions; the one read is of the list of
public companies edgartools ships, done once per process.
"""

from __future__ import annotations

import calendar
import importlib.util
import math
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import cache
from itertools import takewhile
from pathlib import Path

# Fiscal years ---------------------------------------------------------------------------------

DAYS_PER_YEAR = 365.25


def fiscal_year_at(day: date, period_end: date, fiscal_year: int) -> int:
    """The fiscal year whose end lies nearest ``day``, in the calendar of a filing for
    ``fiscal_year`` that ended on ``period_end``: Home Depot's year ended 2025-02-02 is its
    fiscal 2024, and a comparative column dated 2024-01-28 its fiscal 2023."""
    return fiscal_year - round((period_end - day).days / DAYS_PER_YEAR)


def fiscal_year_containing(day: date, period_end: date, fiscal_year: int) -> int:
    """The fiscal year ``day`` falls in, in the calendar of a filing for ``fiscal_year`` that
    ended on ``period_end``: the year whose end is the first on or after ``day``, each year end
    taken as ``period_end``'s day and month in another year. For the day something happened: Meta
    announced its first dividend on 2024-02-01, after its fiscal 2023 ended on 2023-12-31, so in
    fiscal 2024, though 2023's end is nearer. A day a balance stood ("as of January 31, 2024", a
    cover date, a column header) belongs to the nearest year end instead (``fiscal_year_at``).
    A 52-53 week year's end moves a few days from year to year, so a day within those few days
    of an earlier year's end may read as the year beside it."""
    nearest = fiscal_year_at(day, period_end, fiscal_year)
    return nearest + 1 if day > _year_end(nearest, period_end, fiscal_year) else nearest


FILING_LAG_DAYS = 120
"""How long after a fiscal year ends a 10-K still dates its balances by it: its cover's "as of
January 31, 2024" and its subsequent events' "as of February 14" stand for the year just ended
(large filers file within 60 days, the smallest within 90)."""


def fiscal_year_as_of(day: date, period_end: date, fiscal_year: int) -> int:
    """The fiscal year of a day a balance stood ("as of", "at", a column header), in the
    calendar of a filing for ``fiscal_year`` that ended on ``period_end``: the year that ended
    at most ``FILING_LAG_DAYS`` before ``day`` (a cover date, or a 52-53 week year's end a few
    days off the one taken for it), else the year containing it. A mid-year day is inside its
    year: Progressive's "aggregate market value ... at June 30, 2023" is of fiscal 2023, though
    the end of fiscal 2022 lies 3 days nearer than that of 2023 (``fiscal_year_at``)."""
    containing = fiscal_year_containing(day, period_end, fiscal_year)
    ended = _year_end(containing - 1, period_end, fiscal_year)
    return containing - 1 if (day - ended).days <= FILING_LAG_DAYS else containing


def fiscal_year_of_day(day: date, period_end: date, fiscal_year: int, *, event: bool) -> int:
    """The fiscal year of ``day`` as a sentence uses it: the year containing the day something
    happened (``event``, ``fiscal_year_containing``), else the year of a balance that stood
    that day (``fiscal_year_as_of``)."""
    if event:
        return fiscal_year_containing(day, period_end, fiscal_year)
    return fiscal_year_as_of(day, period_end, fiscal_year)


def quarter_year_end(period_end: date, fiscal_quarter: int) -> date:
    """About when the fiscal year of a quarter's report ends: the quarters after its quarter's
    end (Best Buy's second quarter ended 2023-07-29, so fiscal 2024 ends near 2024-01-27; a
    52-53 week year's end may fall a week from it)."""
    return period_end + timedelta(days=round((4 - fiscal_quarter) * DAYS_PER_YEAR / 4))


QUARTER_DATE_SLACK_DAYS = 21
"""How far past a fiscal year's estimated end a date of a quarter's report may fall and still
be that year's end (a 52-53 week year's end moves; the estimate is a quarter's share of a
year)."""


def fiscal_year_in_quarter(
    day: date, period_end: date, fiscal_quarter: int, fiscal_year: int
) -> int:
    """The fiscal year a date a quarter's report prints falls in, its year ends estimated
    (``quarter_year_end``): the quarter's own end and the same quarter a year before are of
    their years, and the prior year's end beside them (2023-01-28 in Best Buy's report for its
    second quarter of fiscal 2024) is fiscal 2023's, where the nearest year end would be
    either for a quarter halfway through its year."""
    end = quarter_year_end(period_end, fiscal_quarter)
    return fiscal_year - math.floor(((end - day).days + QUARTER_DATE_SLACK_DAYS) / DAYS_PER_YEAR)


ANNUAL_FORMS = frozenset({"10-K", "10-KT", "10-K405", "10-KSB"})
QUARTERLY_FORM = "10-Q"
CURRENT_FORM = "8-K"
EARNINGS_RELEASE = "EX-99.1"
"""An earnings release: the press release a company files as exhibit 99.1 to an 8-K (Item
2.02); FinanceBench holds them as documents of their own."""
FORMS = (*sorted(ANNUAL_FORMS), QUARTERLY_FORM, CURRENT_FORM, EARNINGS_RELEASE)
"""Every form the index holds."""


def canonical_form(written: str) -> str | None:
    """The form a user or a file name writes (``10q``, ``8-K``, ``earnings``), as the index
    keeps it; None when it is none of ``FORMS``."""
    key = " ".join(written.upper().replace("_", " ").split())
    form = {"10K": "10-K", "10Q": QUARTERLY_FORM, "8K": CURRENT_FORM}.get(key, key)
    if form in {"EARNINGS", "EARNINGS RELEASE", "RELEASE"}:
        form = EARNINGS_RELEASE
    return form if form in FORMS else None


def form_name(form: str) -> str:
    """How a page or a message names a form: ``10-K``, ``10-Q``, ``8-K``, ``earnings release``."""
    return "earnings release" if form == EARNINGS_RELEASE else form


def filing_period(
    form: str, fiscal_year: int, fiscal_quarter: int | None, period_end: date | None
) -> str:
    """A filing's period as a line names it: ``FY2025``, ``10-Q Q2 FY2023``, ``8-K 2022-07-01``,
    ``earnings release Q4 FY2023``."""
    if form in ANNUAL_FORMS:
        return f"FY{fiscal_year}"
    if form == CURRENT_FORM and period_end is not None:
        return f"8-K {period_end.isoformat()}"
    quarter = f"Q{fiscal_quarter} " if fiscal_quarter else ""
    return f"{form_name(form)} {quarter}FY{fiscal_year}"


def same_day(day: date, year: int) -> date:
    """``day`` in another year (28 February for a 29th)."""
    return (
        day.replace(year=year, day=min(day.day, 28)) if day.month == 2 else day.replace(year=year)
    )


def months_before(day: date, months: int) -> date:
    """The day ``months`` earlier, a month's last day staying its month's last: three months
    before 2023-06-30 is 2023-03-31, before 2023-07-29 it is 2023-04-29 (a 52-53 week quarter
    spans about as long), and the day after is the first of the months that end on ``day``."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    month_end = day.day == calendar.monthrange(day.year, day.month)[1]
    return date(year, month + 1, last if month_end else min(day.day, last))


def parse_day(month: str, day: int, year: int) -> date | None:
    """The date of a month name or its abbreviation ("February", "Feb"), a day and a year;
    None when they make no date."""
    for pattern in ("%B %d %Y", "%b %d %Y"):
        try:
            return datetime.strptime(f"{month} {day} {year}", pattern).date()
        except ValueError:
            continue
    return None


def _year_end(year: int, period_end: date, fiscal_year: int) -> date:
    """Fiscal ``year``'s end, taken as ``period_end``'s day and month in its calendar year."""
    shifted = period_end.year + year - fiscal_year
    try:
        return period_end.replace(year=shifted)
    except ValueError:  # February 29 in a year without one
        return period_end.replace(year=shifted, day=28)


_AT_A_MOMENT = re.compile(r"(?<!business )\b(?:[Oo]n|[Ii]n)\s+$")
"""The preposition of the day or month something happened ("On February 1, 2024, we ...", "in
March 2023 we ..."); "as of", "at", "ended" and "at the close of business on" name the day a
balance stood or a period ended."""
_ACTION = re.compile(
    r"\b(?:announce[ds]?|declare[ds]?|pa(?:y|ys|id)|approve[ds]?|authori[sz]e[ds]?|"
    r"adopt(?:ed|s)?|complete[ds]?|acquire[ds]?|issue[ds]?|repurchase[ds]?|redeem(?:ed|s)?|"
    r"enter(?:ed|s)?|sign(?:ed|s)?|close[ds]?|s(?:ell|ells|old)|launch(?:ed|es)?|agree[ds]?|"
    r"file[ds]?|commence[ds]?|beg(?:an|in|ins|un)|receive[ds]?|terminate[ds]?|amend(?:ed|s)?|"
    r"settle[ds]?|borrow(?:ed|s)?|repa(?:y|ys|id)|divest(?:ed|s)?|initiate[ds]?|raise[ds]?)\b",
    re.IGNORECASE,
)
"""Verbs of something that happens on a day, as against a state ("there were", "we had")."""
MID_MONTH = 15
"""The day an event's month stands for: its middle, in the fiscal year holding most of it."""


def dates_an_event(text: str, start: int) -> bool:
    """Whether the date (a day, or a month and year) at ``start`` of ``text``, one sentence, is
    when something happened ("On February 1, 2024, we announced", "In August 2023, our Board
    approved"), which ``fiscal_year_containing`` places, rather than a day a balance stood ("As
    of January 26, 2024, there were 3,098 stockholders of record"), which ``fiscal_year_at``
    does."""
    return bool(_AT_A_MOMENT.search(text, 0, start) and _ACTION.search(text))


# Number words ---------------------------------------------------------------------------------

SMALL_NUMBERS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"
).split()
"""The number words below twenty, each at its index."""
TENS = {
    w: 10 * i
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), 2)
}
MULTIPLIERS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
FRACTIONS = {"a half": (0.5, 1), "a quarter": (0.25, 2), "three quarters": (0.75, 2)}
"""Fraction words, each with the decimals it stands for."""

_DIGITS = {w: i for i, w in enumerate(SMALL_NUMBERS[:10])}
_BELOW_TWENTY = {w: i for i, w in enumerate(SMALL_NUMBERS) if i > 0}
_SPELLED_ONLY = re.compile(r"[A-Za-z][A-Za-z\s,\-]*")


@dataclass(frozen=True, slots=True)
class Spelled:
    """A number read from words: ``two and a half billion`` is raw 2.5 at scale 1e9, 1 decimal."""

    raw: float
    scale: float
    decimals: int


def parse_number_words(text: str) -> float | None:
    """English number words (``two and a half billion``) as a value; None if they don't compose."""
    if not _SPELLED_ONLY.fullmatch(text.strip()):
        return None
    spelled = read_number_words(re.split(r"[\s,\-]+", text.strip().lower()))
    return None if spelled is None else spelled.raw * spelled.scale


def read_number_words(words: list[str]) -> Spelled | None:
    """The number that lower-case ``words`` spell, all of them; None if they don't compose."""
    groups: list[tuple[int, int]] = []
    lone = FRACTIONS.get(" ".join(words[:2]))
    if lone is not None and words[0] == "a":
        integer, pos = 0, 2
        fraction, decimals = lone
    else:
        read = _read_integer(words)
        if read is None:
            return None
        integer, groups, pos = read
        fraction, decimals, pos = _read_fraction(words, pos)
    scale = 1
    if pos < len(words) and words[pos] in MULTIPLIERS and decimals and not groups:
        scale, pos = MULTIPLIERS[words[pos]], pos + 1
    if pos != len(words):
        return None
    if scale == 1 and len(groups) == 1 and groups[0][0] == integer and not decimals:
        return Spelled(float(groups[0][0] // groups[0][1]), float(groups[0][1]), 0)
    return Spelled(integer + fraction, float(scale), decimals)


def _read_integer(words: list[str]) -> tuple[int, list[tuple[int, int]], int] | None:
    """The whole number at the start of ``words``, its (value, multiplier) groups and its end."""
    if words[:1] == ["zero"]:
        return 0, [], 1
    if words[:1] == ["point"]:
        return 0, [], 0
    groups: list[tuple[int, int]] = []
    total, pos, last = 0, 0, math.inf
    while True:
        group = _read_group(words, pos)
        if group is None:
            break
        value, pos = group
        multiplier = MULTIPLIERS.get(words[pos]) if pos < len(words) else None
        if multiplier is None:
            if value >= last:
                return None
            return total + value, groups, pos
        if multiplier >= last:
            return None
        total, last, pos = total + value * multiplier, multiplier, pos + 1
        groups.append((value * multiplier, multiplier))
        if words[pos : pos + 1] == ["and"] and _read_group(words, pos + 1) is not None:
            pos += 1
    return (total, groups, pos) if groups else None


def _read_group(words: list[str], pos: int) -> tuple[int, int] | None:
    """A number under a thousand (``twelve hundred`` too), or the ``a`` of ``a million``."""
    if words[pos : pos + 1] in (["a"], ["an"]):
        following = words[pos + 1 : pos + 2]
        if not following or (following[0] != "hundred" and following[0] not in MULTIPLIERS):
            return None
        value, pos = 1, pos + 1
    else:
        below = _read_below_hundred(words, pos)
        if below is None:
            return None
        value, pos = below
    if words[pos : pos + 1] == ["hundred"]:
        value, pos = value * 100, pos + 1
        if words[pos : pos + 1] == ["and"] and _read_below_hundred(words, pos + 1):
            pos += 1
        rest = _read_below_hundred(words, pos)
        if rest is not None:
            value, pos = value + rest[0], rest[1]
    return value, pos


def _read_below_hundred(words: list[str], pos: int) -> tuple[int, int] | None:
    word, unit = [*words[pos : pos + 2], "", ""][:2]
    if word in TENS and _DIGITS.get(unit, 0) > 0:
        return TENS[word] + _DIGITS[unit], pos + 2
    value = TENS.get(word) or _BELOW_TWENTY.get(word)
    return None if value is None else (value, pos + 1)


def _read_fraction(words: list[str], pos: int) -> tuple[float, int, int]:
    """``point five``, ``and a half``: the fraction, its decimals and where it ends."""
    if words[pos : pos + 1] == ["point"]:
        digits = "".join(str(_DIGITS[w]) for w in takewhile(_DIGITS.__contains__, words[pos + 1 :]))
        if digits:
            return float("0." + digits), len(digits), pos + 1 + len(digits)
    known = FRACTIONS.get(" ".join(words[pos + 1 : pos + 3]))
    if words[pos : pos + 1] == ["and"] and known is not None:
        return known[0], known[1], pos + 3
    return 0.0, 0, pos


# Company names --------------------------------------------------------------------------------

LEGAL_FORMS = frozenset(
    "inc incorporated corp corporation co company companies ltd limited plc llc lp nv sa ag se "
    "com &".split()
)
"""Words that end a name as its legal form: ``Best Buy Co., Inc.`` is ``best buy``."""
_SPLIT_FORMS = frozenset({("l", "p"), ("n", "v"), ("s", "a")})
"""Legal forms written with dots, which the words split: ``L.P.``, ``N.V.``, ``S.A.``."""
_STATE_TAG = re.compile(r"/[A-Za-z]{1,3}\b/?")
_NAME_WORD = re.compile(r"[a-z0-9]+|&")

ListedCompany = tuple[str, str | None, int | None]
"""``(name, ticker, cik)``, as a filing's metadata or the SEC's list gives them."""


def name_words(name: str) -> tuple[str, ...]:
    """A company name's words in lower case, without apostrophes, EDGAR's state tags
    (``/NEW``, ``/NY/``) or a leading ``The``; ``&`` is a word of its own."""
    text = _STATE_TAG.sub(" ", name).replace("’", "").replace("'", "").replace("&", " & ")
    words = _NAME_WORD.findall(text.lower())
    return tuple(words[1:] if words[:1] == ["the"] and len(words) > 1 else words)


def strip_forms(words: tuple[str, ...], forms: frozenset[str] = LEGAL_FORMS) -> tuple[str, ...]:
    """``words`` without the trailing ``forms`` (at least one word is kept)."""
    while len(words) > 1 and (words[-1] in forms or words[-2:] in _SPLIT_FORMS):
        words = words[:-2] if words[-2:] in _SPLIT_FORMS else words[:-1]
    return words


def display_name(name: str) -> str:
    """A name as a sentence writes it: one that EDGAR spells in capitals (``HOME DEPOT, INC.``,
    ``McDONALD’S``, ``AMAZON.COM``) in title case (``Home Depot, Inc.``, ``McDonald’s``,
    ``Amazon.com``), any other as it is."""
    letters = [c for c in name if c.isalpha()]
    if not letters or sum(c.isupper() for c in letters) < 0.8 * len(letters):
        return name.strip()
    titled = re.sub(r"[A-Za-z]+", _title_word, name.strip())
    titled = re.sub(r"(?<=['’])S\b", "s", titled)  # McDonald’s
    return re.sub(r"(?<=[a-z]\.)[A-Z][a-z]*\b", lambda part: part.group().lower(), titled)


def _title_word(word: re.Match[str]) -> str:
    text = word.group()
    if re.match(r"Ma?c[A-Z]", text):
        head = 3 if text.startswith("Mac") else 2
        return text[:head] + text[head:].capitalize()
    return text.capitalize()


def company_key(name: str) -> tuple[str, ...]:
    """The words that tell a company's name from another's: the cover's ``Best Buy Co., Inc.``
    and the SEC list's ``BEST BUY CO INC`` are both ``("best", "buy")``."""
    return strip_forms(name_words(name))


def listing_path() -> Path:
    """Where edgartools keeps its list of public companies, found without importing it (which
    takes seconds and builds an HTTP client at import)."""
    spec = importlib.util.find_spec("edgar")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("edgartools is not installed: no list of public companies")
    package = Path(next(iter(spec.submodule_search_locations)))
    return package / "reference/data/company_tickers.parquet"


@cache
def listed_companies() -> tuple[ListedCompany, ...]:
    """The ~10,000 public companies edgartools ships, in the SEC's order (largest first), read
    once per process."""
    return read_listing(listing_path())


def read_listing(path: Path) -> tuple[ListedCompany, ...]:
    """A parquet file with text columns ``name``, ``ticker`` and ``cik``, as edgartools' list."""
    # pyarrow comes with edgartools: imported only when a list is read.
    import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415  # no py.typed

    # ParquetFile.read, not read_table: read_table first imports pyarrow.dataset (1.5 s here).
    table = pq.ParquetFile(path).read(columns=["name", "ticker", "cik"], use_threads=False)
    names, tickers, ciks = (table.column(column).to_pylist() for column in table.column_names)
    return tuple(
        (str(name), str(ticker) if ticker else None, int(str(cik)) if cik else None)
        for name, ticker, cik in zip(names, tickers, ciks, strict=True)
        if name
    )
