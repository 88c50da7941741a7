"""What a figure question asks computed, read by code: the answer path's one call before the
figures are resolved.

A question is planned, in order, from the formula it states (``stated.py``), from the library
metric it names, with the forms analysts wrap a metric in ("3 year average net profit margin",
"change in operating margin", "2 year revenue CAGR"), or as a lookup of one line item it names
("capital expenditure amount", "total current assets"). A question that names none is not a
figure question for this package (None); the caller decides what that means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from edgar_rag.figures.calculator import Calculation, CalculationDecline
from edgar_rag.figures.formula import (
    Binary,
    Const,
    Dimension,
    Expr,
    Ref,
    average_over_years,
    compound_growth,
    render,
    shift,
)
from edgar_rag.figures.library import MetricLibrary, ResultUnit
from edgar_rag.figures.resolve import FilingFigures, MissingFigure, compute_formula
from edgar_rag.figures.stated import (
    FormulaDecline,
    StatedFormula,
    asked_decimals,
    read_stated_formula,
)


@dataclass(frozen=True, slots=True)
class ComputationPlan:
    """A formula to resolve and compute, with how the answer is to be shown."""

    name: str
    """The library metric's key, the line item's key, or the stated definition's name."""
    formula: Expr
    unit: ResultUnit
    decimals: int | None
    scale: int | None
    fiscal_year: int | None
    """The fiscal year the question's own years point at, when it writes them (``FY2019``)."""
    source: str
    """``stated``, ``metric`` or ``lookup``: how the plan was read."""

    @property
    def formula_text(self) -> str:
        return render(self.formula)


_YEAR = re.compile(r"\b(?:fy\s?|fiscal\s+(?:year\s+)?)(\d{4})\b", re.IGNORECASE)
_SPAN_AVERAGE = re.compile(r"\b(\d|two|three|four|five)[ -]year\s+average\b", re.IGNORECASE)
_CAGR = re.compile(r"\b(\d|two|three|four|five)[ -]year\b[^?.]*\bcagr\b", re.IGNORECASE)
_CHANGE = re.compile(r"\bchange\s+in\b", re.IGNORECASE)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5}
_MILLIONS = re.compile(r"\b(?:usd|\$)?\s*(millions|billions|thousands)\b", re.IGNORECASE)
_SCALES = {"thousands": 3, "millions": 6, "billions": 9}


def plan_computation(
    question: str, library: MetricLibrary
) -> ComputationPlan | FormulaDecline | None:
    """The computation the question asks, a decline when its own formula cannot be used, or
    None when it names no metric, formula or line item of the library."""
    stated = read_stated_formula(question, library)
    if isinstance(stated, FormulaDecline):
        return stated
    if isinstance(stated, StatedFormula):
        return ComputationPlan(
            stated.name, stated.formula, stated.unit, stated.decimals, stated.scale,
            stated.fiscal_year, "stated",
        )  # fmt: skip
    anchor = max((int(y) for y in _YEAR.findall(question)), default=None)
    decimals = asked_decimals(question)
    scale = _asked_scale(question)
    metric = library.find_metric(question)
    if metric is not None:
        formula, unit = _wrapped(question, metric.formula, metric.unit, library)
        return ComputationPlan(metric.key, formula, unit, decimals, scale, anchor, "metric")
    plan = _item_plan(question, library)
    if plan is None:
        return None
    formula, unit, source, key = plan
    return ComputationPlan(key, formula, unit, decimals, scale, anchor, source)


def _item_plan(question: str, library: MetricLibrary) -> tuple[Expr, ResultUnit, str, str] | None:
    """One line item as the question asks it (its share of revenue, its growth over the year
    before, its change, or the figure itself); None unless exactly one item is meant, since two
    named with no metric to join them leave what is asked unsaid."""
    items = library.find_items(question)
    share = _SHARE_OF_REVENUE.search(question) is not None
    if not share and _ASKS_SHARE.search(question):
        return None  # "what share of its revenue comes from its largest customer": no line item
    if _ASKS_EFFECT.search(question):
        return None  # what a segment took off operating profit: not operating profit
    if share:
        items = [i for i in items if i.key != "revenue"]
    if len(items) != 1 or items[0].unit not in _ITEM_UNITS:
        return None
    item = items[0]
    ref = Ref(item.key)
    unit = _ITEM_UNITS[item.unit]
    if share and unit is ResultUnit.USD:
        return Binary("/", ref, Ref("revenue")), ResultUnit.PERCENT, "metric", item.key
    if _GROWTH.search(question):
        growth = Binary("-", Binary("/", ref, shift(ref, -1)), Const(Decimal(1)))
        return growth, ResultUnit.PERCENT, "metric", item.key
    if _DIFFERENCE.search(question):
        return Binary("-", ref, shift(ref, -1)), unit, "metric", item.key
    return ref, unit, "lookup", item.key


_ITEM_UNITS = {Dimension.USD: ResultUnit.USD, Dimension.USD_PER_SHARE: ResultUnit.USD_PER_SHARE}
_SHARE_OF_REVENUE = re.compile(
    r"\b(?:share|percent(?:age)?|%|portion|proportion)\s+of\s+(?:its\s+|the\s+)?(?:total\s+)?"
    r"(?:net\s+)?(?:revenues?|sales)\b",
    re.IGNORECASE,
)
_ASKS_SHARE = re.compile(
    r"\b(?:share|percent(?:age)?|portion|proportion|fraction)\s+of\b|%\s+of\b", re.IGNORECASE
)
"""A part of a whole asked for: what a line item alone never answers."""
_ASKS_EFFECT = re.compile(
    r"\bhow\s+much\s+(?:did|does|do|will|would|could)\s+.+?\s+(?:reduce|lower|cut|raise|"
    r"increase|boost|hurt|affect|impact|add\s+to|contribute\s+to|weigh\s+on|drag\s+on)\b",
    re.IGNORECASE,
)
"""An effect of something on a line item asked for ("how much did Reality Labs reduce its
operating profit"): what the line item's own figure never answers."""
_GROWTH = re.compile(
    r"\b(?:grow|grew|grown|growth|percent(?:age)?\s+change|%\s*change|year-over-year\s+change)\b",
    re.IGNORECASE,
)
_DIFFERENCE = re.compile(
    r"\b(?:change|increase|decrease|rise|decline|fall)\b|\b(?:increased|decreased|rose|fell)\b",
    re.IGNORECASE,
)


def compute_plan(
    plan: ComputationPlan,
    library: MetricLibrary,
    filings: Sequence[FilingFigures],
    *,
    fiscal_year: int,
) -> Calculation | CalculationDecline | MissingFigure:
    """The plan resolved in ``filings`` (the asked filing first) and computed. ``fiscal_year``
    is the year the answer path read from the question; a plan whose question writes its own
    years (``FY2019``) counts from those, as its offsets do."""
    return compute_formula(
        plan.formula, plan.fiscal_year or fiscal_year, library, filings,
        unit=plan.unit, decimals=plan.decimals, scale=plan.scale, metric=plan.name,
    )  # fmt: skip


def _wrapped(
    question: str, formula: Expr, unit: ResultUnit, library: MetricLibrary
) -> tuple[Expr, ResultUnit]:
    """The metric's formula as the question wraps it: an average over years, a change from the
    year before, a compound growth rate."""
    cagr = _CAGR.search(question)
    if cagr and isinstance(formula, Binary):
        base = next((r for r in _growth_items(formula)), None)
        if base is not None:
            return compound_growth(Ref(base), _count(cagr.group(1))), ResultUnit.PERCENT
    span = _SPAN_AVERAGE.search(question)
    if span:
        return average_over_years(formula, _count(span.group(1))), unit
    if _CHANGE.search(question) and unit is ResultUnit.PERCENT and "margin" in question.lower():
        return Binary("-", formula, shift(formula, -1)), unit
    return formula, unit


def _growth_items(formula: Expr) -> list[str]:
    """The line item a growth formula (``x / x[-1] - 1`` or its CAGR) grows."""
    match formula:
        case Binary("-", Binary("/", Ref(item, 0, False), Ref(prior, -1, False)), _) if (
            item == prior
        ):
            return [item]
        case Binary("-", Binary("^", Binary("/", Ref(item, 0, False), Ref(prior)), _), _) if (
            item == prior
        ):
            return [item]
    return []


def _count(word: str) -> int:
    return int(word) if word.isdigit() else _COUNTS[word.lower()]


def _asked_scale(question: str) -> int | None:
    match = _MILLIONS.search(question)
    return _SCALES[match.group(1).lower()] if match else None
