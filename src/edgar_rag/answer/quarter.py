"""A quarter's report (a 10-Q, an earnings release) read as a year of two columns, so that the
planner, the resolver and the calculator answer its figures as they answer a 10-K's.

The view keeps the figures of the quarter the report covers and of the same quarter a year
before: each three-month flow, and each balance on the quarter's last day. Those of the asked
quarter stand for the report's fiscal year, those a year before for the year before, so that
"net margin in Q2 of FY2023 against Q2 of FY2022" is the margin's change from one year to the
next. A question that sets the quarter's end against the last fiscal year's end ("any drop in
cash between FY2023 and Q2 of FY2024") is read in a second view: balances alone, the quarter's
last day and the year end the report prints beside it. Nothing else is in either view: no six-
or nine-month figure, and no other filing of the company (whose annual figures would pass for a
quarter's). A question of a longer span ("the first half", "year to date") is left to the
model, and every sentence names the quarter ("in the second quarter of fiscal 2024") or the
year end, never the year alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from edgar_rag.domain import Fact, FigureStore, FilingMeta, Passage, Scope
from edgar_rag.errors import NotFoundError
from edgar_rag.question.reading import Question
from edgar_rag.rules import DAYS_PER_YEAR, QUARTER_DATE_SLACK_DAYS, quarter_year_end

QUARTER_DAYS = range(80, 101)
"""A flow this many days long is one quarter's (13 weeks, or three months)."""
SAME_DAY_DAYS = 10
"""How far a figure's end may sit from the quarter's end, or from its end a year before (a
52/53-week calendar moves it by a week), and still be that quarter's."""
_LONGER_SPAN = re.compile(
    r"\b(?:six|nine|twelve|6|9|12)[\s-]+months?\b|\b(?:first|second)\s+half\b|\bH[12]\b|"
    r"\bhalf[\s-]+year\b|\byear[\s-]+to[\s-]+date\b|\bYTD\b|\bfull[\s-]+year\b|\bannual\b",
    re.IGNORECASE,
)
_QUARTER_WORDS = re.compile(
    r"(?<![A-Za-z])Q[1-4](?:\s?'?(?:19|20)?\d{2})?\b|\b[1-4]Q(?:\s?'?(?:19|20)?\d{2})?\b|"
    r"\b(?:the\s+)?(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal[\s-]+)?"
    r"quarter\b|\b(?:three|3)[\s-]+months?(?:\s+ended)?\b|\bquarter(?:ly)?\b",
    re.IGNORECASE,
)
"""The words that name the quarter ("Q2", "the second quarter", "three months ended"): the
view's year, which a plan need not account for as a measure's word."""
_ORDINALS = {1: "first", 2: "second", 3: "third", 4: "fourth"}
_FISCAL_YEAR = re.compile(r"\bfiscal (?P<year>(?:19|20)\d{2})\b")


_YEAR_MENTION = re.compile(r"\b(?:FY\s?'?|fiscal\s+(?:year\s+)?)(?P<year>(?:19|20)?\d{2})\b", re.I)
_QUARTER_BEFORE = re.compile(
    r"(?:Q[1-4]|\b(?:first|second|third|fourth)\s+(?:fiscal\s+)?quarter)\s*(?:of\s+)?$", re.I
)


def asks_one_quarter(question: Question, filing: FilingMeta) -> bool:
    """Whether the quarter's figures answer ``question``: the report names its quarter, the
    question names that quarter (a fiscal year alone asks the year's figure, which a quarter's
    is not) and no longer span, and compares no other company."""
    if filing.fiscal_quarter is None or filing.period_end is None:
        return False
    if question.quarters != {filing.fiscal_quarter} and not (
        not question.quarters and _QUARTER_WORDS.search(question.text)
    ):
        return False
    if len({m.companies[0].cik or m.text for m in question.companies}) > 1:
        return False
    return _LONGER_SPAN.search(question.text) is None


def without_quarter_words(question: Question) -> Question:
    """``question`` with the words naming its quarter blanked where the planner looks for the
    measure: in the view they name its year, as "fiscal 2024" does in a 10-K's."""
    request = question.asked
    blanked = _QUARTER_WORDS.sub(lambda m: " " * len(m.group()), request.measure_text)
    return replace(question, request=replace(request, measure_text=blanked))


def with_quarter_end(filing: FilingMeta, facts: Callable[[], Sequence[Fact]]) -> FilingMeta:
    """``filing`` with its quarter's last day: as its cover gives it, else (an earnings release
    has no cover) the latest end of a three-month flow among its ``facts`` (read only then)."""
    if filing.period_end is not None:
        return filing
    ends = [
        fact.period_end
        for fact in facts()
        if fact.period_start is not None
        and (fact.period_end - fact.period_start).days in QUARTER_DAYS
    ]
    return replace(filing, period_end=max(ends)) if ends else filing


def quarter_meta(filing: FilingMeta) -> FilingMeta:
    """The report as the view's filing: its year ends on the quarter's last day, and it reports
    that year and the one before (the same quarter a year before)."""
    return replace(
        filing,
        fiscal_quarter=None,
        years_reported=(filing.fiscal_year - 1, filing.fiscal_year),
    )


def since_year_end(question: Question, filing: FilingMeta) -> bool:
    """Whether ``question`` sets the quarter against the last fiscal year's end: it names the
    report's quarter, and the year before the report's without a quarter ("between FY 2023 and
    Q2 of FY2024")."""
    if question.quarters != {filing.fiscal_quarter}:
        return False
    before = filing.fiscal_year - 1
    for found in _YEAR_MENTION.finditer(question.text):
        year = int(found["year"])
        if (year + 2000 if year < 100 else year) != before:
            continue
        if _QUARTER_BEFORE.search(question.text[: found.start()]) is None:
            return True
    return False


def quarter_facts(
    facts: Sequence[Fact], filing: FilingMeta, *, year_end: bool = False
) -> list[Fact]:
    """The facts of the view: three-month flows and balances that end on the quarter's last
    day or a year before it, each flow dated as a year ending that day; with ``year_end``,
    the balances of the quarter's last day and of the last year end alone, the year end's
    dated a year before the quarter's end."""
    end = filing.period_end
    if end is None:
        return []
    year_ago = end - timedelta(days=364)
    if year_end:
        quarter = filing.fiscal_quarter or 4
        last = quarter_year_end(end, quarter) - timedelta(days=round(DAYS_PER_YEAR))
        return [
            fact if _near(fact.period_end, end) else replace(fact, period_end=year_ago)
            for fact in facts
            if fact.period_start is None
            and (
                _near(fact.period_end, end)
                or abs((fact.period_end - last).days) <= QUARTER_DATE_SLACK_DAYS
            )
        ]
    kept = []
    for fact in facts:
        if not (_near(fact.period_end, end) or _near(fact.period_end, year_ago)):
            continue
        if fact.period_start is None:
            kept.append(fact)
        elif (fact.period_end - fact.period_start).days in QUARTER_DAYS:
            kept.append(replace(fact, period_start=fact.period_end - timedelta(days=364)))
    return kept


def _near(day: date, target: date) -> bool:
    return abs((day - target).days) <= SAME_DAY_DAYS


def in_quarter(text: str, quarter: int, fiscal_year: int, *, year_end: bool = False) -> str:
    """``text`` with "fiscal 2024" said as "the second quarter of fiscal 2024" (and, with
    ``year_end``, the year before as "the end of fiscal 2023")."""

    def said(found: re.Match[str]) -> str:
        year = int(found["year"])
        if year_end and year == fiscal_year - 1:
            return f"the end of fiscal {year}"
        return f"the {_ORDINALS[quarter]} quarter of fiscal {year}"

    return _FISCAL_YEAR.sub(said, text)


@dataclass(frozen=True, slots=True)
class QuarterStore:
    """The figure store as the view reads it: one report's quarter figures, no other filing."""

    store: FigureStore
    filing: FilingMeta
    year_end: bool = False

    def figures(self, filing_id: int) -> list[Fact]:
        return quarter_facts(self.store.figures(filing_id), self.filing, year_end=self.year_end)

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]:
        return self.store.passages_at(filing_id, ordinals)

    def table_passages(self, filing_id: int) -> dict[int, Passage]:
        return self.store.table_passages(filing_id)

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        raise NotFoundError("a quarter's figures are read from its own report alone")
