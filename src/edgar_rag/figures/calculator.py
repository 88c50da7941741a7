"""The calculator: a formula evaluated in decimal arithmetic over resolved operands.

An operand is one reported figure of one fiscal year, with the reference of the passage that
prints it; the calculator never looks anything up, so what it computes is exactly what its
operands say. Values keep the sign XBRL gives them (a payment such as capital expenditures is
positive; the statement prints it in parentheses), and formulas are written in that sign. A
result is rounded half up to the decimals asked, or to its unit's default; a dollar result is
shown in the scale its operands are printed in (millions when they are). Division by zero, units
that do not go together and a power with no real value are typed declines, not errors.
"""

from __future__ import annotations

import decimal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from enum import StrEnum
from typing import Any

from edgar_rag.figures.formula import (
    Binary,
    Const,
    Dimension,
    Expr,
    FormulaError,
    Neg,
    Ref,
    dimension,
    parse_formula,
    refs,
    render,
)
from edgar_rag.figures.library import ResultUnit

DEFAULT_DECIMALS = {
    ResultUnit.PERCENT: 1,
    ResultUnit.POINTS: 1,
    ResultUnit.RATIO: 2,
    ResultUnit.DAYS: 1,
    ResultUnit.USD: 0,
    ResultUnit.USD_PER_SHARE: 2,
}
"""Decimals a result is rounded to when the question asks for none (a dollar result's are in
its display scale: 0 decimals of millions)."""

SCALE_WORDS = {0: "", 3: " thousand", 6: " million", 9: " billion"}
"""How an amount of each power of ten is said after its figure."""
_PRECISION = 34


@dataclass(frozen=True, slots=True)
class FigureRef:
    """Where an operand is printed: opaque to the calculator, resolved to a citation marker by
    the answer path (the chunk that displays the figure, or a statement row of a PDF)."""

    filing_id: int | None
    accession: str | None
    filing_fiscal_year: int | None
    """The fiscal year of the filing that prints it: a prior year's figure may come from the
    asked filing's comparative column or from the prior year's own filing."""
    concept: str | None
    """The XBRL concept, or None for a statement row without XBRL."""
    row_label: str | None
    chunk_ordinal: int | None
    offset: int | None
    """Where the displayed figure sits in the filing's clean text, when known."""
    displayed: str


@dataclass(frozen=True, slots=True)
class Operand:
    """One figure a calculation uses: a line item of one fiscal year, as the filing reports it."""

    item: str
    label: str
    fiscal_year: int
    value: Decimal
    """In units (dollars, not millions), signed as XBRL signs it."""
    unit: Dimension
    scale: int
    """The power of ten the filing prints it in: 6 for millions, 0 for EPS."""
    period_start: date | None
    period_end: date
    citation: FigureRef
    outflow: bool = False
    places: int = 0
    """Decimals printed in that scale: 1 for McDonald's ``11,646.7`` million."""
    displays: tuple[FigureRef, ...] = ()
    """Other places the filing prints the same figure, as written there (an amount tagged in
    a maturity schedule before its statement row): the answer cites the one that prints it in
    its fiscal year's column."""

    @property
    def printed(self) -> str:
        """The figure as the statement prints it: a loss, or a payment (an outflow whose value
        is positive), in parentheses; a receipt on an outflow line without."""
        shown = self.citation.displayed.strip("()")
        negative = self.value > 0 if self.outflow else self.value < 0
        return f"({shown})" if negative else shown

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.label,
            "item": self.item,
            "fiscal_year": self.fiscal_year,
            "value": str(self.value),
            "printed": self.printed,
            "unit": str(self.unit),
            "scale": self.scale,
            "places": self.places,
            "period_start": self.period_start.isoformat() if self.period_start else None,
            "period_end": self.period_end.isoformat(),
            "accession": self.citation.accession,
            "concept": self.citation.concept,
            "row_label": self.citation.row_label,
            "offset": self.citation.offset,
        }


OperandKey = tuple[str, int]
"""A line item and the absolute fiscal year it is taken for."""


def needed_operands(formula: Expr, fiscal_year: int) -> list[OperandKey]:
    """The line items and fiscal years a formula needs when asked for ``fiscal_year``, each once,
    in the order the formula names them."""
    keys = ((ref.item, fiscal_year + offset) for ref in refs(formula) for offset in ref.offsets())
    return list(dict.fromkeys(keys))


class CalculationProblem(StrEnum):
    DOES_NOT_PARSE = "does_not_parse"
    DIVIDES_BY_ZERO = "divides_by_zero"
    MIXES_UNITS = "mixes_units"
    MISSING_OPERAND = "missing_operand"
    NO_REAL_VALUE = "no_real_value"


@dataclass(frozen=True, slots=True)
class CalculationDecline:
    problem: CalculationProblem
    detail: str


@dataclass(frozen=True, slots=True)
class Calculation:
    """A computed figure with what it was computed from, as a JSON response carries it."""

    metric: str | None
    formula: str
    """The formula in the grammar of ``formula.py``, relative to ``fiscal_year``."""
    fiscal_year: int
    operands: tuple[Operand, ...]
    value: Decimal
    """Unrounded, in the unit: 33.42 for a 33.42% margin, dollars for a dollar result."""
    unit: ResultUnit
    scale: int
    """For a dollar result, the power of ten it is shown in (6: millions); else 0."""
    decimals: int
    rounded: Decimal
    """``value`` in ``scale``, rounded half up to ``decimals``."""

    def text(self) -> str:
        """The result as an answer states it: ``33.4%``, ``1.23x``, ``45.2 days``,
        ``$53,308 million``."""
        number = f"{self.rounded:,.{self.decimals}f}"
        if self.unit is ResultUnit.PERCENT:
            return f"{number}%"
        if self.unit is ResultUnit.POINTS:
            return f"{number} percentage points"
        if self.unit is ResultUnit.RATIO:
            return f"{number}x"
        if self.unit is ResultUnit.DAYS:
            return f"{number} days"
        sign, digits = ("-", number[1:]) if number.startswith("-") else ("", number)
        return f"{sign}${digits}{SCALE_WORDS.get(self.scale, f'e{self.scale}')}"

    def as_json(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "formula": self.formula,
            "fiscal_year": self.fiscal_year,
            "operands": [operand.as_json() for operand in self.operands],
            "result": str(self.rounded),
            "text": self.text(),
            "unit": str(self.unit),
            "scale": self.scale,
            "rounding": {"decimals": self.decimals, "mode": "half_up"},
        }


def calculate(
    formula: Expr,
    fiscal_year: int,
    operands: Iterable[Operand],
    unit: ResultUnit,
    *,
    decimals: int | None = None,
    scale: int | None = None,
    metric: str | None = None,
) -> Calculation | CalculationDecline:
    """Evaluate ``formula`` for ``fiscal_year`` over ``operands`` (each line item and year the
    formula needs, ``needed_operands``), rounded to ``decimals`` (default per unit) and, for a
    dollar result, shown in ``scale`` (default: the operands' print scale)."""
    by_key = {(o.item, o.fiscal_year): o for o in operands}
    missing = [key for key in needed_operands(formula, fiscal_year) if key not in by_key]
    if missing:
        item, year = missing[0]
        return CalculationDecline(
            CalculationProblem.MISSING_OPERAND, f"no {item} for fiscal {year} to compute with"
        )
    try:
        measured = dimension(formula, {o.item: o.unit for o in by_key.values()})
    except FormulaError as error:
        return CalculationDecline(CalculationProblem.MIXES_UNITS, str(error))
    if measured != unit.dimension:
        return CalculationDecline(
            CalculationProblem.MIXES_UNITS, f"{render(formula)} measures {measured}, not {unit}"
        )
    try:
        with decimal.localcontext(prec=_PRECISION, rounding=decimal.ROUND_HALF_EVEN):
            value = _evaluate(formula, fiscal_year, by_key)
    except _UndefinedError as why:
        return why.decline
    used = tuple(by_key[key] for key in needed_operands(formula, fiscal_year))
    if unit in (ResultUnit.PERCENT, ResultUnit.POINTS):
        value *= 100
    if unit is ResultUnit.USD:
        shown_scale = scale if scale is not None else _print_scale(used)
    else:
        shown_scale = 0
    places = _default_places(unit, used, shown_scale) if decimals is None else decimals
    rounded = (value.scaleb(-shown_scale)).quantize(
        Decimal(1).scaleb(-places), rounding=decimal.ROUND_HALF_UP
    )
    return Calculation(
        metric=metric,
        formula=render(formula),
        fiscal_year=fiscal_year,
        operands=used,
        value=value,
        unit=unit,
        scale=shown_scale,
        decimals=places,
        rounded=rounded,
    )


def recompute(calculation: Calculation) -> Calculation | CalculationDecline:
    """The calculation done again from its own formula text and cited operands, as the verifier
    checks a stated result; a formula text that no longer parses is a decline."""
    try:
        formula = parse_formula(calculation.formula)
    except FormulaError as error:
        return CalculationDecline(CalculationProblem.DOES_NOT_PARSE, str(error))
    return calculate(
        formula,
        calculation.fiscal_year,
        calculation.operands,
        calculation.unit,
        decimals=calculation.decimals,
        scale=calculation.scale,
        metric=calculation.metric,
    )


def result_supported(calculation: Calculation, stated: Decimal) -> bool:
    """True when ``stated`` (in the calculation's unit and scale) is what recomputing from the
    cited operands gives, rounded as the calculation was."""
    again = recompute(calculation)
    if isinstance(again, CalculationDecline):
        return False
    places = Decimal(1).scaleb(-again.decimals)
    return stated.quantize(places, rounding=decimal.ROUND_HALF_UP) == again.rounded


def _default_places(unit: ResultUnit, operands: Iterable[Operand], scale: int) -> int:
    """A unit's default decimals; a dollar result keeps the decimals its operands print in the
    same scale (McDonald's prints millions to one decimal), and one shown in a larger scale than
    its operands print keeps their digits up to two decimals (8,738 million is 8.74 billion)."""
    if unit is not ResultUnit.USD:
        return DEFAULT_DECIMALS[unit]
    dollars = [o for o in operands if o.unit is Dimension.USD]
    printed = [o.places for o in dollars if o.scale == scale]
    coarser = [
        min(scale - o.scale + o.places, _MAX_RESCALED_PLACES) for o in dollars if o.scale < scale
    ]
    return max(printed + coarser, default=DEFAULT_DECIMALS[unit])


_MAX_RESCALED_PLACES = 2


def _print_scale(operands: Iterable[Operand]) -> int:
    scales = [o.scale for o in operands if o.unit is Dimension.USD]
    return min(scales, default=0)


class _UndefinedError(Exception):
    def __init__(self, decline: CalculationDecline) -> None:
        super().__init__(decline.detail)
        self.decline = decline


def _evaluate(expr: Expr, year: int, operands: Mapping[OperandKey, Operand]) -> Decimal:
    match expr:
        case Ref(item, offset, average):
            current = operands[(item, year + offset)].value
            if not average:
                return current
            return (current + operands[(item, year + offset - 1)].value) / 2
        case Const(value):
            return value
        case Neg(operand):
            return -_evaluate(operand, year, operands)
        case Binary(op, left, right):
            a = _evaluate(left, year, operands)
            b = _evaluate(right, year, operands)
            return _apply(op, a, b, expr)
    raise AssertionError(expr)  # pragma: no cover


def _apply(op: str, a: Decimal, b: Decimal, expr: Binary) -> Decimal:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "/":
        if b == 0:
            raise _UndefinedError(
                CalculationDecline(
                    CalculationProblem.DIVIDES_BY_ZERO, f"{render(expr.right)} is zero"
                )
            )
        return a / b
    try:
        return a**b
    except decimal.InvalidOperation as error:
        raise _UndefinedError(
            CalculationDecline(
                CalculationProblem.NO_REAL_VALUE, f"{render(expr)} has no real value"
            )
        ) from error
