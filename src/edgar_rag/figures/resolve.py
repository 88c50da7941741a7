"""Operands resolved against a filing's reported facts, never guessed.

An operand is the one consolidated fact (no dimensions) of its line item's concepts for the
asked fiscal year, in the filing's own fiscal calendar: a year-long duration for a flow, the
year-end instant for a balance. A prior year comes from the asked filing's comparative column,
or from another indexed filing of the company when the caller passes one (the operand's
reference names the filing it came from). A figure not reported, or reported twice with values
that disagree, is a ``MissingFigure`` naming the line item and year: no other period or concept
is ever taken in its place.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal
from fnmatch import fnmatchcase
from itertools import pairwise
from typing import Protocol

from edgar_rag.domain import Fact, FigureSource, FilingMeta
from edgar_rag.figures.calculator import (
    Calculation,
    CalculationDecline,
    FigureRef,
    Operand,
    calculate,
    needed_operands,
)
from edgar_rag.figures.formula import Expr, Ref, map_refs, refs
from edgar_rag.figures.library import (
    LineItem,
    Metric,
    MetricLibrary,
    Part,
    PeriodKind,
    ResultUnit,
)
from edgar_rag.figures.signs import INCOME_STATEMENT, expense_row_value
from edgar_rag.rules import DAYS_PER_YEAR, fiscal_year_at, quarter_year_end

MISSING_FIGURE = "missing_figure"
"""The decline reason a missing operand maps to (DESIGN.md's table of reasons)."""

YEAR_END_TOLERANCE_DAYS = 21
"""How far a fact's end may sit from a fiscal year end and still be that year's: 52/53-week
years move the end by up to a week a year. A quarter's end is never within it."""
FULL_YEAR_DAYS = range(350, 381)
"""A duration this many days long is a fiscal year (52 or 53 weeks, or twelve months)."""


class FactLookup(Protocol):
    """A filing's reported figures (XBRL facts and statement rows); the stores implement it."""

    def figures(self, filing_id: int) -> list[Fact]: ...


@dataclass(frozen=True, slots=True)
class FilingFigures:
    """One filing's facts, as the resolver reads them."""

    filing_id: int | None
    meta: FilingMeta
    facts: Sequence[Fact]


def load_figures(lookup: FactLookup, filing_id: int, meta: FilingMeta) -> FilingFigures:
    """The reported figures of one stored filing."""
    return FilingFigures(filing_id, meta, lookup.figures(filing_id))


@dataclass(frozen=True, slots=True)
class MissingFigure:
    """An operand the filings do not report for the period asked: a ``missing_figure``
    decline whose detail names it."""

    item: str
    fiscal_year: int
    detail: str
    reason: str = MISSING_FIGURE


def fiscal_year_of(end: date, meta: FilingMeta) -> int | None:
    """The fiscal year, in the filing's own calendar (``rules.fiscal_year_at``), that ends on
    ``end``; None when ``end`` is not near any fiscal year's end of the filing (a quarter's)."""
    year_end = _year_end(meta)
    if year_end is None:
        return None
    year = fiscal_year_at(end, year_end, meta.fiscal_year)
    year_end_days = (meta.fiscal_year - year) * DAYS_PER_YEAR
    if abs((year_end - end).days - year_end_days) > YEAR_END_TOLERANCE_DAYS:
        return None
    return year


def _year_end(meta: FilingMeta) -> date | None:
    """When the filing's fiscal year ends, about: its period end, or a quarter's report's
    estimated year end (``rules.quarter_year_end``), so that a quarter's balance is never its
    year's and the prior year end's column beside it is that year's."""
    if meta.period_end is None or meta.fiscal_quarter is None:
        return meta.period_end
    return quarter_year_end(meta.period_end, meta.fiscal_quarter)


def resolve_operand(
    item: LineItem, fiscal_year: int, filings: Sequence[FilingFigures]
) -> Operand | MissingFigure:
    """The one reported figure of ``item`` for ``fiscal_year``: from the first of ``filings``
    (the asked filing first) that reports it, by the item's concepts in order of preference."""
    if item.part is not None:
        filings = [part_view(figures, item.part) for figures in filings]
    for figures in filings:
        try:
            found = _from_filing(item, fiscal_year, figures)
        except _DisagreeError:
            return MissingFigure(
                item.key, fiscal_year,
                f"{item.label} for fiscal {fiscal_year} is reported with values that disagree "
                f"in {_describe(figures.meta)}",
            )  # fmt: skip
        if found is not None:
            return found
    where = _describe(filings[0].meta) if filings else "no filing"
    return MissingFigure(
        item.key, fiscal_year, f"{item.label} for fiscal {fiscal_year} is not reported in {where}"
    )


def resolve_operands(
    formula: Expr, fiscal_year: int, library: MetricLibrary, filings: Sequence[FilingFigures]
) -> list[Operand] | MissingFigure:
    """Every operand the formula needs for ``fiscal_year``, or the first one missing."""
    operands: list[Operand] = []
    for key, year in needed_operands(formula, fiscal_year):
        found = resolve_operand(library.items[key], year, filings)
        if isinstance(found, MissingFigure):
            return found
        operands.append(found)
    return operands


def compute_metric(
    metric: Metric,
    fiscal_year: int,
    library: MetricLibrary,
    filings: Sequence[FilingFigures],
    *,
    decimals: int | None = None,
) -> Calculation | CalculationDecline | MissingFigure:
    """A library metric for one fiscal year: operands resolved, then calculated."""
    return compute_formula(
        metric.formula, fiscal_year, library, filings,
        unit=metric.unit, decimals=decimals, metric=metric.key,
    )  # fmt: skip


def compute_formula(
    formula: Expr,
    fiscal_year: int,
    library: MetricLibrary,
    filings: Sequence[FilingFigures],
    *,
    unit: ResultUnit,
    decimals: int | None = None,
    scale: int | None = None,
    metric: str | None = None,
) -> Calculation | CalculationDecline | MissingFigure:
    """Any formula over the library's line items (a question's own) for one fiscal year; an
    operand no filing prints is derived from the others when the library says how (gross
    profit as revenue less cost of revenue, inside a gross margin), each derivation once, the
    first of an item's derivations whose items the filing prints. A line asked for itself is
    derived only when the library marks its derivation a total of its parts (total debt): the
    filing does not report gross profit of a bank."""
    operands = resolve_operands(formula, fiscal_year, library, filings)
    if isinstance(operands, MissingFigure):
        found = _derived(formula, operands, fiscal_year, library, filings)
        if found is None:
            return operands  # the first line missing is what is missing
        formula, operands = found
    return calculate(
        formula, fiscal_year, operands, unit, decimals=decimals, scale=scale, metric=metric
    )


def _derived(
    formula: Expr,
    missing: MissingFigure,
    fiscal_year: int,
    library: MetricLibrary,
    filings: Sequence[FilingFigures],
) -> tuple[Expr, list[Operand]] | None:
    """``formula`` with each line the filings do not print replaced by its first derivation
    whose own lines they print, each derivation once, and its operands; None when a missing
    line has none (or is asked alone and its derivation is no total of its parts)."""
    derived: set[str] = set()
    while True:
        item = library.items.get(missing.item)
        if item is None or not item.derived or item.key in derived:
            return None
        if isinstance(formula, Ref) and not item.derived_when_asked:
            return None
        derived.add(item.key)
        found = _first_printed(formula, item, fiscal_year, library, filings)
        if found is None:
            return None
        formula, operands = found
        if not isinstance(operands, MissingFigure):
            return formula, operands
        missing = operands


def _first_printed(
    formula: Expr,
    item: LineItem,
    fiscal_year: int,
    library: MetricLibrary,
    filings: Sequence[FilingFigures],
) -> tuple[Expr, list[Operand] | MissingFigure] | None:
    """``formula`` with ``item`` replaced by the first of its derivations whose own items the
    filings print, with its operands resolved (or the next line missing elsewhere in it); None
    when every derivation misses one of its own items."""
    for derivation in item.derived:
        tried = _derive(formula, item, derivation)
        operands = resolve_operands(tried, fiscal_year, library, filings)
        own = {r.item for r in refs(derivation)}
        if not isinstance(operands, MissingFigure) or operands.item not in own:
            return tried, operands
    return None


def _derive(formula: Expr, item: LineItem, derivation: Expr) -> Expr:
    """``formula`` with each use of ``item`` at a year replaced by its derivation at that year
    (an average balance of it: by the average of each of the derivation's items)."""
    return map_refs(
        formula,
        lambda r: (
            map_refs(derivation, lambda d: Ref(d.item, r.offset, r.average))
            if r.item == item.key
            else r
        ),
    )


PART_AXES = frozenset(
    {
        "us-gaap:StatementBusinessSegmentsAxis",
        "srt:ProductOrServiceAxis",
        "srt:StatementGeographicalAxis",
        "us-gaap:StatementClassOfStockAxis",
    }
)
"""The axes whose members are parts a question names: segments, products and services,
regions, classes of stock (a per-share figure of Class C)."""
_OF_SEGMENTS = ("srt:ConsolidationItemsAxis", "us-gaap:OperatingSegmentsMember")
"""The pair filings since ASU 2023-07 add to each segment's facts, which names no part."""


_SEGMENT_AXIS = "us-gaap:StatementBusinessSegmentsAxis"
_PRODUCT_AXIS = "srt:ProductOrServiceAxis"


def _all_segments(pair: tuple[str, str]) -> bool:
    axis, member = pair
    return axis == "us-gaap:StatementBusinessSegmentsAxis" and "ReportableSegment" in member


def part_of(fact: Fact) -> tuple[str, str] | None:
    """The one (axis, member) of a part a fact is tagged with, else None. A product line's
    figure tagged also with the member of all the reportable segments together (Union
    Pacific's ``unp:ReportableSegmentMember`` beside ``unp:BulkMember``), or with the one
    segment it is reported in (Alphabet's Google Network in Google Services), is that line's."""
    pairs = [pair for pair in fact.dimensions if pair != _OF_SEGMENTS]
    if len(pairs) == 2:
        pairs = [pair for pair in pairs if not _all_segments(pair)] or pairs
    if len(pairs) == 2 and {axis for axis, _ in pairs} == {_SEGMENT_AXIS, _PRODUCT_AXIS}:
        pairs = [pair for pair in pairs if pair[0] == _PRODUCT_AXIS]  # a line within a segment
    if len(pairs) != 1 or pairs[0][0] not in PART_AXES:
        return None
    return pairs[0]


def part_view(figures: FilingFigures, part: Part) -> FilingFigures:
    """The filing's XBRL facts of ``part`` alone, as if they were the company's own: an item
    resolved in it reads the part's figure and can take no other."""
    tagged = (part.axis, part.member)
    facts = tuple(
        replace(fact, dimensions=())
        for fact in figures.facts
        if fact.source is FigureSource.XBRL and part_of(fact) == tagged
    )
    return FilingFigures(figures.filing_id, figures.meta, facts)


class _DisagreeError(Exception):
    """Facts that report one figure with values that disagree beyond their rounding."""


def _from_filing(item: LineItem, fiscal_year: int, figures: FilingFigures) -> Operand | None:
    """The item's figure in one filing: a tagged fact, else a statement row that prints it,
    else, for a line the registrant's own statements report as the consolidated figure, their
    fact (a 10-K that carries only Schedule II); raise _DisagreeError when what reports it
    disagrees."""
    chosen = _tagged(item, fiscal_year, figures) or _printed_row(item, fiscal_year, figures)
    if chosen is not None:
        return _operand(item, fiscal_year, chosen, figures)
    if not item.registrant_same or _tags_any(item, figures):
        return None
    registrant = _registrant_view(figures)
    chosen = _tagged(item, fiscal_year, registrant)
    if chosen is None:
        return None
    named = replace(item, label=f"{item.label} (the registrant's own statements)")
    return _operand(named, fiscal_year, chosen, registrant)


_PARENT_ONLY = (("srt:ConsolidatedEntitiesAxis", "srt:ParentCompanyMember"),)
"""The dimension of a fact of the registrant's own (parent-company-only) statements."""


def _tags_any(item: LineItem, figures: FilingFigures) -> bool:
    """The filing tags the item's consolidated figure for some year (then a year it lacks is
    missing, never read from the registrant's own statements)."""
    concepts = set(item.all_concepts)
    return any(not f.dimensions and f.concept in concepts for f in figures.facts)


def _registrant_view(figures: FilingFigures) -> FilingFigures:
    """The filing's facts of the registrant's own statements, undimensioned."""
    facts = tuple(
        replace(fact, dimensions=())
        for fact in figures.facts
        if fact.source is FigureSource.XBRL and fact.dimensions == _PARENT_ONLY
    )
    return FilingFigures(figures.filing_id, figures.meta, facts)


def _tagged(item: LineItem, fiscal_year: int, figures: FilingFigures) -> Fact | None:
    found: list[Fact] = []
    for concept in item.all_concepts:
        chosen = _the_one(f for f in _of_period(figures, item, fiscal_year) if f.concept == concept)
        if chosen is None:
            continue
        if not item.largest:
            return chosen
        found.append(chosen)
    return max(found, key=lambda f: f.value, default=None)


def _of_period(figures: FilingFigures, item: LineItem, fiscal_year: int) -> Iterator[Fact]:
    for fact in figures.facts:
        if (
            not fact.dimensions
            and _is_period(fact, item.period)
            and fiscal_year_of(fact.period_end, figures.meta) == fiscal_year
        ):
            yield fact


def _the_one(facts: Iterable[Fact]) -> Fact | None:
    listed = list(facts)
    return _agreed(listed) if listed else None


_STATEMENTS = {"income": "income_statement", "balance": "balance_sheet", "cash_flow": "cash_flow"}
TRAILING_NOTE = re.compile(r"\s*\([^)]*\)\s*$")
"""A note closing a row's label ("Operating ratio (%)", "Debt due after one year (Note 14)")."""


def _printed_row(item: LineItem, fiscal_year: int, figures: FilingFigures) -> Fact | None:
    """The item's figure from a statement row (no XBRL concept) in the item's statement, by the
    first of the item's row labels in order of preference that some row's own label matches
    (``Revenues: Total revenues`` before ``Revenues: Net sales``); a label an exclusion
    (``!*noncontrolling*``) matches never counts."""
    excluded = [_label_key(row[1:]) for row in item.rows if row.startswith("!")]
    ends = _first_statement_ends(figures.facts)
    printed = [
        (key, fact)
        for fact in _of_period(figures, item, fiscal_year)
        if not fact.concept
        and fact.label is not None
        and _in_statement(fact, item)
        and (fact.offset is None or fact.offset <= ends.get(fact.statement, fact.offset))
        for key in [row_key(fact)]
        if not any(fnmatchcase(key, pattern) for pattern in excluded)
    ]
    gross = _before_depreciation(figures.facts)
    printed = [(key, fact) for key, fact in printed if fact.offset not in gross]
    for row in item.rows:
        if not row.startswith("!"):
            pattern = _label_key(row)
            matched = [fact for key, fact in printed if fnmatchcase(key, pattern)]
            if matched:
                return _the_one(matched)
    return None


_DEPRECIATION = re.compile(r"(?:less:?\s+)?accumulated\s+depreciation\b", re.IGNORECASE)
"""A row's own label that deducts depreciation ("Less: Accumulated depreciation"), not one that
names it in passing ("Property, plant and equipment, net of accumulated depreciation")."""


def _before_depreciation(facts: Sequence[Fact]) -> set[int]:
    """The offsets of rows printed just above a row of accumulated depreciation in their
    column: a gross amount the next row is deducted from (3M's "Property, plant and equipment
    24,873" above "Less: Accumulated depreciation (16,135)"), never the net one a balance sheet
    shows under the same bare label when it prints no deduction (Pfizer's 14,882)."""
    columns: dict[tuple[object, ...], list[Fact]] = {}
    for fact in facts:
        if not fact.concept and fact.offset is not None and fact.label:
            key = (fact.statement, fact.period_start, fact.period_end)
            columns.setdefault(key, []).append(fact)
    gross: set[int] = set()
    for column in columns.values():
        column.sort(key=lambda fact: fact.offset or 0)
        for above, below in pairwise(column):
            own = (below.label or "").rsplit(": ", 1)[-1]
            if above.offset is not None and _DEPRECIATION.match(own):
                gross.add(above.offset)
    return gross


STATEMENT_GAP_CHARS = 20_000
"""Text between two rows of one kind of statement that parts two statements: a statement's
rows, over a page break too, lie within a few thousand characters of each other (at most 2,000
in the 74 FinanceBench documents), a later statement of the same kind 58,000 or more on."""


def _first_statement_ends(facts: Sequence[Fact]) -> dict[str | None, int]:
    """Where the first statement of each kind ends, by the offset of its last row. A 10-K prints
    the registrant's statements first; one of the same kind later on is another entity's (MGM's
    2018 10-K prints a subsidiary's "CONSOLIDATED BALANCE SHEETS" 117 pages after its own,
    Amcor's 2023 10-K its guarantors'), so a row is read from the first alone."""
    by_kind: dict[str | None, list[int]] = {}
    for fact in facts:
        if not fact.concept and fact.offset is not None:
            by_kind.setdefault(fact.statement, []).append(fact.offset)
    ends: dict[str | None, int] = {}
    for kind, offsets in by_kind.items():
        ordered = sorted(offsets)
        ends[kind] = next(
            (a for a, b in pairwise(ordered) if b - a > STATEMENT_GAP_CHARS),
            ordered[-1],
        )
    return ends


def _in_statement(fact: Fact, item: LineItem) -> bool:
    return fact.statement is None or fact.statement == _STATEMENTS.get(item.statement)


def row_key(fact: Fact) -> str:
    """A row's own label as row patterns are matched against it: after its heading, without a
    trailing note, as words (``_label_key``)."""
    return _label_key(TRAILING_NOTE.sub("", (fact.label or "").rsplit(": ", 1)[-1]))


def _label_key(label: str) -> str:
    """A row label compared as words: case, punctuation and dashes aside (``Property, plant and
    equipment — net`` is ``property plant and equipment net``); ``*`` stays a wildcard."""
    return " ".join(re.sub(r"[^\w&*]+", " ", label.lower()).split())


def _row_label(fact: Fact) -> str | None:
    return fact.label if not fact.concept else None


def _is_period(fact: Fact, kind: PeriodKind) -> bool:
    if kind is PeriodKind.INSTANT:
        return fact.period_start is None
    return fact.period_start is not None and (
        (fact.period_end - fact.period_start).days in FULL_YEAR_DAYS
    )


def _agreed(facts: Sequence[Fact]) -> Fact:
    """The most precise of facts reporting one figure, the first displayed one first; raise
    _DisagreeError when they disagree beyond their own rounding (``39.3`` billion and
    ``39,345.3`` million agree)."""
    ordered = sorted(
        facts,
        key=lambda f: (
            -(f.decimals if f.decimals is not None else 99),
            f.offset is None,
            f.offset or 0,
        ),
    )
    best = ordered[0]
    exact = _decimal(best.value)
    for other in ordered[1:]:
        value = _decimal(other.value)
        if other.decimals is None:
            agree = value == exact
        else:
            places = Decimal(1).scaleb(-other.decimals)
            agree = _round(exact, places) == _round(value, places)
        if not agree:
            raise _DisagreeError(best.concept)
    return best


def _round(value: Decimal, places: Decimal) -> Decimal:
    return value.quantize(places, rounding=decimal.ROUND_HALF_UP)


def _operand(item: LineItem, fiscal_year: int, fact: Fact, figures: FilingFigures) -> Operand:
    meta = figures.meta
    scale, places = print_scale(fact)
    row_label = _row_label(fact)
    value = _decimal(fact.value)
    if row_label is not None and item.outflow:
        value = -value  # a row is signed as printed, "(1,577)"; a payment's XBRL value is positive
    elif row_label is not None and item.expense and fact.statement == INCOME_STATEMENT:
        value = expense_row_value(fact, value, figures.facts)
    negated = row_label is not None and value != 0 and (value > 0) != (fact.value > 0)

    def where(shown: Fact) -> FigureRef:
        return FigureRef(
            filing_id=figures.filing_id,
            accession=meta.accession,
            filing_fiscal_year=meta.fiscal_year,
            concept=shown.concept or None,
            row_label=row_label,
            chunk_ordinal=shown.chunk_ordinal,
            offset=shown.offset,
            displayed=shown.displayed,
        )

    return Operand(
        item=item.key,
        label=item.label,
        fiscal_year=fiscal_year,
        value=value,
        unit=item.unit,
        scale=scale,
        places=places,
        period_start=fact.period_start,
        period_end=fact.period_end,
        citation=where(fact),
        outflow=item.outflow or negated,
        displays=tuple(where(other) for other in _same_printing(item, fact, figures.facts)),
    )


def _same_printing(item: LineItem, fact: Fact, facts: Iterable[Fact]) -> Iterator[Fact]:
    """The other displays of ``fact`` in the filing: the same line item (by any of its concepts,
    or the same row) for the same period, printed the same way, elsewhere in the text. Visa
    tags the net income of its EPS table ``NetIncomeLoss`` and that of its income statement
    ``ProfitLoss``: one figure, shown twice."""
    same_item = {fact.concept} | set(item.all_concepts) if fact.concept else {""}
    for other in facts:
        if (
            other.offset is not None
            and other.offset != fact.offset
            and not other.dimensions
            and other.concept in same_item
            and (other.label, other.displayed, other.decimals)
            == (fact.label, fact.displayed, fact.decimals)
            and (other.period_start, other.period_end) == (fact.period_start, fact.period_end)
        ):
            yield other


def print_scale(fact: Fact) -> tuple[int, int]:
    """The power of ten a fact is printed in and the decimals printed: ``11,646.7`` for
    11,646,700,000 is (6, 1), ``39.3`` for 39,300,000,000 is (9, 1) (read from the value and the
    figure as displayed; from XBRL decimals when the display is not a plain number)."""
    shown = fact.displayed.strip("()$ ").replace(",", "")
    try:
        number = Decimal(shown)
    except decimal.InvalidOperation:
        number = Decimal(0)
    if number != 0 and fact.value != 0:
        scale = round(math.log10(abs(fact.value) / float(abs(number))))
        exponent = number.as_tuple().exponent
        return scale, max(0, -exponent) if isinstance(exponent, int) else 0
    if fact.decimals is None or fact.decimals >= 0:
        return 0, max(fact.decimals or 0, 0)
    scale = 3 * math.ceil(-fact.decimals / 3)
    return scale, scale + fact.decimals


def _decimal(value: float) -> Decimal:
    """A fact's value as the decimal it was written as (``repr`` is the shortest round trip)."""
    return Decimal(repr(value))


def _describe(meta: FilingMeta) -> str:
    who = meta.ticker or meta.company
    return f"{who}'s {meta.form} for fiscal {meta.fiscal_year}"
