"""A yes-or-no question a figure decides, read into the figure question that decides it; and a
question that names the figure to compute in a sentence of its own ("Calculate inventory
turnover ratio for FY2022"), read into that figure's question; and a question which of the cash
flow statement's three activities brought in the most cash, read into its fiscal year.

"Does Adobe have an improving operating margin profile as of FY2022?" is decided by the change
of Adobe's operating margin from fiscal 2021 to fiscal 2022; "Does Corning have positive working
capital based on FY2022 data?" by the sign of its working capital; "Did Pfizer grow its PPNE
between FY20 and FY21?" by the change of its PP&E. This module reads the question's shape and
writes that figure question in the words the figure planner reads ("How much did Adobe's
operating margin change from FY2021 to FY2022?"), with the sign of the figure that means yes;
code computes the figure and says yes or no from it (``answer.computed``).

Only shapes whose yes is a sign are read: "improving" only of a measure that is better higher
(a margin, a liquidity ratio, a return, a conversion), never of a cost; a question that hedges
("if operating margin is not a useful metric, say why") keeps its hedge, which the figure
answers when it can be computed and the model answers when it cannot.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum


class Decides(StrEnum):
    """Which figure's sign answers yes."""

    RISE = "rise"
    """The change from the earlier year to the later is positive."""
    FALL = "fall"
    POSITIVE = "positive"
    """The level of the asked year is positive."""
    NEGATIVE = "negative"
    STEADY = "steady"
    """No change from one year to the next exceeds the limit the question states."""


@dataclass(frozen=True, slots=True)
class YesNoFigure:
    """A yes-or-no question, as the figure question whose sign decides it."""

    figure_question: str
    decides: Decides
    measure: str
    """The measure as the question names it ("operating margin")."""
    either: tuple[str, str] | None = None
    """The two words an either-or question offers ("improved", "declined"): the answer is one
    of them, not a yes or no."""
    limit: Decimal | None = None
    """The most a steady measure may move in a year, as the question states it, in percentage
    points of a margin (``Decides.STEADY`` only)."""
    subject: str = ""
    """The measure with its company ("Best Buy's gross margin"), as the answer names it."""


_YEAR = r"(?:FY\s?|fiscal\s+(?:year\s+)?)?'?(?P<{name}>(?:19|20)?\d\d)\b"
_BETTER_HIGHER = re.compile(
    r"\b(?:margins?|quick\s+ratio|current\s+ratio|cash\s+ratio|return\s+on\s+\w+|"
    r"(?:free\s+)?cash\s*flow\s+conversion|interest\s+coverage)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\s*\bIf\b[^?]*\b(?:not|isn't)\b.*$", re.IGNORECASE | re.DOTALL)
"""The hedge an analyst adds ("If operating margin is not a useful metric for a company like
this, then state that and explain why.")."""

_TREND = re.compile(
    r"^(?:does|do|did|has)\s+(?P<company>.+?)\s+(?:have|has|had|show|shows)\s+an?\s+"
    r"(?P<word>improving|increasing|growing|declining|decreasing|deteriorating)\s+"
    r"(?P<measure>[\w&\- ]+?)(?:\s+profile|\s+trend)?\s+"
    r"(?:as\s+of|in|for|based\s+on)\s+" + _YEAR.format(name="year") + r"(?:\s+data)?\s*\??$",
    re.IGNORECASE,
)
_SIGN = re.compile(
    r"^(?:does|do|did|has)\s+(?P<company>.+?)\s+(?:have|has|had|report)\s+(?:an?\s+)?"
    r"(?P<word>positive|negative)\s+(?P<measure>[\w&\- ]+?)\s+"
    r"(?:as\s+of|in|for|based\s+on)\s+" + _YEAR.format(name="year") + r"(?:\s+data)?\s*\??$",
    re.IGNORECASE,
)
_BETWEEN = (
    r"\s+between\s+(?:the\s+)?" + _YEAR.format(name="first") + r"(?:\s+period)?\s+and\s+"
    r"(?:the\s+)?" + _YEAR.format(name="second") + r"(?:\s+(?:fiscal\s+)?period)?\s*\??$"
)
_EITHER = re.compile(
    r"^(?:has|have|did)\s+(?P<company>[\w&.\- ]+?)(?:'s|’s)\s+(?P<measure>[\w&\- ]+?)\s+"
    r"(?P<word>improved?|increased?|grown|grow)\s+or\s+(?P<other>declined?|decreased?|"
    r"deteriorated?|fallen|fall)" + _BETWEEN,
    re.IGNORECASE,
)
_ACT = re.compile(
    r"^(?:has|have|did)\s+(?P<company>[\w&.\- ]+?)\s+(?P<word>grow|grown|increased?|raised?|"
    r"decreased?|reduced?|cut)\s+its\s+(?P<measure>[\w&\- ]+?)(?:\s+on\s+(?:its\s+|the\s+)?"
    r"balance\s+sheet)?" + _BETWEEN,
    re.IGNORECASE,
)
_STEADY = re.compile(
    r"^(?:are|is|were|was|have|has)\s+(?P<company>.+?)(?:'s|’s)\s+(?P<measure>[\w&\- ]+?)\s+"
    r"(?:historically\s+)?(?:consistent|stable|steady)\s*\(\s*(?:i\.e\.,?\s+)?not\s+"
    r"(?:fluctuating|varying|moving|changing)\s+(?:by\s+)?more\s+than\s+"
    r"(?:roughly\s+|about\s+|approximately\s+|around\s+)?(?P<limit>\d+(?:\.\d+)?)\s*"
    r"(?:%|percent(?:age\s+points?)?|pp|points?)\s*(?:in\s+)?(?:each|a|per|every|any)\s+"
    r"(?:single\s+)?year\s*\)\s*\??$",
    re.IGNORECASE,
)
"""A steadiness the question measures by its own limit: "Are Best Buy's gross margins
historically consistent (not fluctuating more than roughly 2% each year)?"."""
_RISING = ("improv", "increas", "grow", "grown", "rais")


def _period(name: str) -> str:
    """A fiscal year, or a quarter of one ("Q2 of FY2024"), as the group ``name``."""
    return (
        rf"(?P<{name}>(?:(?:Q[1-4]|(?:first|second|third|fourth)\s+quarter)\s+(?:of\s+)?)?"
        r"(?:FY\s?|fiscal\s+(?:year\s+)?)?'?(?:19|20)?\d\d)\b"
    )


_ANY = re.compile(
    r"^(?:was|were|is|has)\s+there\s+(?:been\s+)?(?:any|a)\s+(?P<word>drop|decline|decrease|"
    r"fall|reduction|increase|rise|growth)\s+in\s+(?:(?P<company>[\w&.\- ]+?)(?:'s|’s)\s+)?"
    r"(?P<measure>[\w&\- ]+?)\s+between\s+(?:the\s+)?" + _period("first") + r"\s+and\s+"
    r"(?:the\s+)?" + _period("second") + r"\s*\??$",
    re.IGNORECASE,
)
"""A change asked as whether there was one: "Was there any drop in Cash & Cash equivalents
between FY 2023 and Q2 of FY2024?" (each end a year, or a quarter of one)."""
_HEDGED = re.compile(
    r"\bIf\s+(?:the\s+|a\s+)?(?P<measure>[\w&\- ]+?)\s+(?:is|are)\s+not\s+(?:a\s+|an\s+)?"
    r"(?:useful|relevant|meaningful|something\s+that\s+a\s+financial\s+analyst)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class HedgedMetric:
    """The metric a question's hedge names ("If gross margin is not a useful metric for a
    company like this, then state that and explain why": ``gross margin``)."""

    measure: str


def read_hedged_metric(text: str) -> HedgedMetric | None:
    """The metric ``text`` allows may not fit the company, else None."""
    found = _HEDGED.search(text)
    if found is None:
        return None
    measure = re.sub(r"(?<=margin)s$", "", found["measure"].strip().lower())
    return HedgedMetric(measure)


def read_yes_no_figure(text: str, years: Sequence[int] = ()) -> YesNoFigure | None:
    """The figure question deciding ``text`` when it is a yes-or-no question of one of the
    shapes this module reads, else None. ``years`` are the fiscal years the filing in scope
    reports, over which "historically" is judged (none: such a question is not read)."""
    asked = _HEDGE.sub("", text.strip())
    if (found := _ANY.match(asked)) is not None:
        whose = _possessive(found["company"]) if found["company"] else "the"
        question = (
            f"How much did {whose} {found['measure'].strip()} change from {found['first']} to "
            f"{found['second']}?"
        )
        rising = found["word"].lower().startswith(("increas", "rise", "grow"))
        return YesNoFigure(question, Decides.RISE if rising else Decides.FALL, found["measure"])
    if (found := _STEADY.match(asked)) is not None:
        if len(years) < 2 or not _BETTER_HIGHER.search(found["measure"]):
            return None  # steadiness of an amount needs a percent change per year: not read
        measure = re.sub(r"s$", "", found["measure"].strip())  # "gross margins": each year's
        written = ", ".join(f"FY{year}" for year in sorted(years))
        question = f"What was {_possessive(found['company'])} {measure} in {written}?"
        subject = f"{_possessive(found['company'])} {measure}"
        return YesNoFigure(question, Decides.STEADY, measure, limit=Decimal(found["limit"]),
                           subject=subject)  # fmt: skip
    if (found := _TREND.match(asked)) is not None:
        if not _BETTER_HIGHER.search(found["measure"]) and found["word"].lower().startswith(
            ("improv", "deterior")
        ):
            return None  # "improving" of a measure that may be better lower
        year = _full_year(found["year"])
        return _change(found, year - 1, year, rising=found["word"].lower().startswith(_RISING))
    if (found := _SIGN.match(asked)) is not None:
        decides = Decides.POSITIVE if found["word"].lower() == "positive" else Decides.NEGATIVE
        question = (
            f"What was {_possessive(found['company'])} {found['measure']} in "
            f"FY{_full_year(found['year'])}?"
        )
        return YesNoFigure(question, decides, found["measure"])
    for shape in (_EITHER, _ACT):
        if (found := shape.match(asked)) is None:
            continue
        if shape is _EITHER and not _BETTER_HIGHER.search(found["measure"]):
            return None
        first, second = sorted((_full_year(found["first"]), _full_year(found["second"])))
        rising = found["word"].lower().startswith(_RISING)
        change = _change(found, first, second, rising=rising)
        if shape is _EITHER:
            either = (found["word"].lower(), found["other"].lower())
            return YesNoFigure(change.figure_question, change.decides, change.measure, either)
        return change
    return None


def _change(found: re.Match[str], first: int, second: int, *, rising: bool) -> YesNoFigure:
    question = (
        f"How much did {_possessive(found['company'])} {found['measure']} change from "
        f"FY{first} to FY{second}?"
    )
    return YesNoFigure(question, Decides.RISE if rising else Decides.FALL, found["measure"])


def _full_year(written: str) -> int:
    year = int(written)
    return year + 2000 if year < 100 else year


def _possessive(company: str) -> str:
    company = company.strip()
    return f"{company}'" if company.endswith("s") else f"{company}'s"


_CALCULATE = re.compile(
    r"(?:^|[.?;]\s+)(?:please\s+)?(?:calculate|compute)\s+(?:the\s+|its\s+)?"
    r"(?P<measure>[\w&\- ]+?)\s+(?:for|in|of)\s+" + _YEAR.format(name="year") + r"\s*(?=[.;?]|$)",
    re.IGNORECASE,
)


def read_named_calculation(text: str) -> str | None:
    """The figure question of a sentence that names what to compute and for which year
    ("Roughly how many times has JnJ sold its inventory in FY2022? Calculate inventory turnover
    ratio for FY2022; if ...": "What was the inventory turnover ratio for FY2022?"), else None.
    The question is asked of the filing in scope, so it names no company."""
    found = _CALCULATE.search(text)
    if found is None:
        return None
    return f"What was the {found['measure']} for FY{_full_year(found['year'])}?"


_ACTIVITIES = re.compile(
    r"\bamong\s+(?:its\s+|the\s+)?operat\w*,\s*investing,?\s+and\s+financing\s+activities,?\s+"
    r"which\b[^?]*\bmost\b[^?]*\bcash\b[^?]*?\b(?:in|for|during)\s+" + _YEAR.format(name="year"),
    re.IGNORECASE,
)


def read_most_cash_activity(text: str) -> int | None:
    """The fiscal year of "Among operations, investing, and financing activities, which brought
    in the most (or lost the least) cash flow for Acme in FY2023?", else None: the three net
    cash flows of that year decide it."""
    found = _ACTIVITIES.search(text)
    return None if found is None else _full_year(found["year"])
