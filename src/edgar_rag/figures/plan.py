"""What a figure question asks computed, read by code: the answer path's one call before the
figures are resolved.

A question is planned from its request (``question.request``: the transform, the years, an
average or a year-end balance, and the words no reading accounted for), in order: from the
formula it defines (``stated.py``), from the arithmetic it writes inline ("year-end receivables
divided by revenue times 365"), from the library metric it names, or as one line item it names
(its share of another), each wrapped in the request's transform. A plan answers in code only
when it accounts for every open word of the question; a part it cannot account for is an
``Unplanned`` naming it, declined or left to the model. A question that names nothing the
library knows is not a figure question for this package (None); the caller decides what that
means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from edgar_rag.figures.calculator import Calculation, CalculationDecline
from edgar_rag.figures.formula import (
    Binary,
    Const,
    Dimension,
    Expr,
    FormulaError,
    Ref,
    average_over_years,
    compound_growth,
    dimension,
    map_refs,
    refs,
    render,
    shift,
)
from edgar_rag.figures.library import LineItem, MetricLibrary, Part, PeriodKind, ResultUnit
from edgar_rag.figures.resolve import FilingFigures, MissingFigure, compute_formula
from edgar_rag.figures.stated import (
    FormulaDecline,
    StatedFormula,
    WrittenFormula,
    asked_decimals,
    definition_spans,
    read_stated_formula,
    read_written_formula,
)
from edgar_rag.question.request import Request, Transform, blank, open_words, read_request
from edgar_rag.question.words import SHARE_NOUNS


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
    transform: Transform = Transform.LEVEL
    """What the question does to its measure (a stated formula's is its own: ``LEVEL``)."""
    part: Part | None = None
    """The segment, product or region the answer is of, as its sentence names it (None: the
    company)."""
    items: tuple[LineItem, ...] = ()
    """Line items of a part the formula names beside the library's (``revenue@...``)."""

    @property
    def formula_text(self) -> str:
        return render(self.formula)


_YEAR = re.compile(r"\b(?:fy\s?|fiscal\s+(?:year\s+)?)(\d{4})\b", re.IGNORECASE)
_MILLIONS = re.compile(r"\b(?:usd|\$)?\s*(millions|billions|thousands)\b", re.IGNORECASE)
_SCALES = {"thousands": 3, "millions": 6, "billions": 9}


@dataclass(frozen=True, slots=True)
class Unplanned:
    """A figure question a part of which no plan accounts for: code does not answer it."""

    part: str
    """The part, in words ("'per square foot'", "a compound growth rate with no first year")."""
    decline: bool
    """Declined as it stands (``unsupported_question``); else the model reads the passages for
    it, its answer held to the verifier."""
    words: tuple[str, ...] = ()
    """The question's words no plan accounts for ("square", "foot"): a passage an answer to
    it cites must say them."""

    @property
    def detail(self) -> str:
        return f"code cannot answer {self.part}, which the question asks"


Plan = ComputationPlan | FormulaDecline | Unplanned


def plan_computation(
    question: str,
    library: MetricLibrary,
    request: Request | None = None,
    *,
    complete: bool = True,
) -> Plan | None:
    """The computation the question asks, a decline when its own formula cannot be used, an
    Unplanned naming the part of it no plan accounts for, or None when it names no metric,
    formula or line item of the library. ``request`` is the question as ``question.request``
    read it (read here from the text when not given); ``complete`` False plans what the text
    names and lets other words be (a sentence of an answer is checked so, not a question)."""
    request = request if request is not None else read_request(question)
    stated = read_stated_formula(question, library)
    if isinstance(stated, FormulaDecline):
        return stated
    if isinstance(stated, StatedFormula):
        return _stated_plan(question, request, stated, library)
    anchor = max((int(y) for y in _YEAR.findall(question)), default=None)
    written = read_written_formula(question, library)
    if written is not None:
        return _written_plan(question, request, written, library, anchor, complete)
    request = _transform_named(request, library)
    measured = _measure(request, library)
    if measured is None:
        return None
    if isinstance(measured, Unplanned):
        return measured if complete else None
    formula, unit, source, key, rest = measured
    decimals, scale = asked_decimals(question), _asked_scale(question)
    shaped = _transformed(request, formula, unit, source, library)
    if isinstance(shaped, Unplanned):
        return shaped if complete else None
    formula, unit, source = shaped
    if complete:
        open_part = _unaccounted(rest, unit, _name_words(formula, library))
        if open_part is not None:
            return open_part
    if request.years and request.transform is not Transform.LEVEL:
        anchor = max(request.years)
    return ComputationPlan(key, formula, unit, decimals, scale, anchor, source, request.transform)


_CHANGES = frozenset(
    {Transform.AMOUNT_CHANGE, Transform.PERCENT_CHANGE, Transform.POINT_CHANGE, Transform.CAGR}
)


def _stated_plan(
    question: str, asked: Request, stated: StatedFormula, library: MetricLibrary
) -> ComputationPlan | Unplanned:
    """The question's own formula, changed as the rest of the question asks ("define the
    operating ratio as ... By how many percentage points did it change?"), or an Unplanned
    naming a part of the rest it leaves unanswered: the transform is read with the definition
    and the defined name blanked, so that a name that is itself a change ("define growth as
    ...") is not changed again."""
    outside = blank(question, definition_spans(question))
    outside = re.sub(re.escape(stated.name), lambda m: " " * len(m[0]), outside, flags=re.I)
    named = library.metric_span(outside)
    if named is not None and named[0].name == stated.name:
        outside = blank(outside, [named[1]])  # the library metric its definition goes into
    request = read_request(outside)
    name, formula, unit = stated.name, stated.formula, stated.unit
    rest = _blank_in_either(request.measure_text, asked.measure_text)
    whole = _whole_asked(rest, library.item_spans(rest))
    if whole is not None:  # "taking debt as ..., what share of its total assets did debt make"
        spans, item = whole
        rest = blank(rest, spans)
        if (
            isinstance(formula, Binary)
            and formula.op == "/"
            and item.key in {ref.item for ref in refs(formula.right)}
        ):
            unit = ResultUnit.PERCENT  # its own formula divides by the whole it names
            if isinstance(formula.left, Ref) and formula.left.item in library.items:
                name = f"{library.items[formula.left.item].label} as a share of {item.label}"
        elif Dimension.USD is item.unit and dimension(formula, library.dimensions) is (
            Dimension.USD
        ):
            formula, unit = Binary("/", formula, Ref(item.key)), ResultUnit.PERCENT
            name = f"{name} as a share of {item.label}"
        else:
            return Unplanned(f"{stated.name} as a share of {item.label}", decline=True)
    elif _ASKS_SHARE.search(rest):
        return Unplanned(f"what share of a whole {stated.name} is", decline=True)
    used = {ref.item for ref in refs(formula)}
    other = [item.label for _, item in library.item_spans(rest) if item.key not in used]
    if other:  # "taking debt as ..., what was debt per dollar of revenue": not the debt
        return Unplanned(f"{stated.name} against {' and '.join(other)}", decline=True)
    if request.transform not in _CHANGES:
        return ComputationPlan(
            name, formula, unit, stated.decimals, stated.scale, stated.fiscal_year, "stated"
        )  # a mean over years the definition's own ask already wrapped
    if request.transform is Transform.POINT_CHANGE and unit is ResultUnit.RATIO:
        unit = ResultUnit.PERCENT  # its change in points: the ratio of two amounts in percent
    shaped = _transformed(request, formula, unit, "stated", library)
    if isinstance(shaped, Unplanned):
        return shaped
    formula, unit, _ = shaped
    anchor = stated.fiscal_year
    if request.transform is not Transform.LEVEL and request.years:
        anchor = max(request.years)
    return ComputationPlan(
        name, formula, unit, stated.decimals, stated.scale, anchor, "stated", request.transform
    )


def _blank_in_either(first: str, second: str) -> str:
    """``first`` with every character blanked that either reading of the same text blanked
    (the definition by one, the company names by the other)."""
    if len(first) != len(second):
        return first
    return "".join(" " if " " in (a, b) else a for a, b in zip(first, second, strict=True))


def _metric_of(formula: Expr, library: MetricLibrary) -> str:
    """The library metric whose formula the question writes out ("how many times did operating
    income cover interest expense" is the interest coverage ratio), else "stated formula"."""
    same = (metric.key for metric in library.metrics.values() if metric.formula == formula)
    return next(same, "stated formula")


def _written_plan(
    question: str,
    request: Request,
    written: WrittenFormula,
    library: MetricLibrary,
    anchor: int | None,
    complete: bool,
) -> ComputationPlan | Unplanned | None:
    """The arithmetic the question writes, as a plan in the unit the metric it names gives
    (else its words: percent, days, a ratio); Unplanned when no unit is said or other words
    are left that the formula does not account for."""
    text = blank(request.measure_text, [written.span])
    named = library.metric_span(text)
    try:
        measured = dimension(written.formula, library.dimensions)
    except FormulaError as error:
        return Unplanned(f"the arithmetic it writes ({error})", decline=True) if complete else None
    unit: ResultUnit | None
    if measured is not Dimension.PURE:
        unit = ResultUnit.USD if measured is Dimension.USD else ResultUnit.USD_PER_SHARE
    elif named is not None:
        unit = named[0].unit
    else:
        unit = _unit_said(question, written.formula)
    if unit is None:
        return Unplanned("the unit of the arithmetic it writes", decline=True) if complete else None
    if complete:
        rest = blank(text, [named[1]]) if named is not None else text
        left = _unaccounted(rest, unit, _name_words(written.formula, library) | _BALANCE_WORDS)
        if left is not None:
            return left
    shaped = _transformed(request, written.formula, unit, "stated", library)
    if isinstance(shaped, Unplanned):
        return shaped if complete else None
    formula, unit, _ = shaped
    if request.years and request.transform is not Transform.LEVEL:
        anchor = max(request.years)
    key = named[0].key if named is not None else _metric_of(written.formula, library)
    decimals, scale = asked_decimals(question), _asked_scale(question)
    return ComputationPlan(key, formula, unit, decimals, scale, anchor, "stated", request.transform)


_BALANCE_WORDS = frozenset({"average", "opening", "closing", "beginning", "ending", "year-end"})


def _unit_said(question: str, formula: Expr) -> ResultUnit | None:
    """The unit a question's own arithmetic is asked in, by its words: days for a formula
    times 365, percent, a ratio; None when it says none."""
    lowered = question.lower()
    if re.search(r"\b36[05]\b", render(formula)) or re.search(r"\bdays?\b", lowered):
        return ResultUnit.DAYS
    if re.search(r"\bpercent|%|\bmargin\b|\breturn\b|\brate\b|\bshare\s+of\b", lowered):
        return ResultUnit.PERCENT
    if re.search(r"\bratio\b|\bmultiple\b|\bturnover\b|\bcoverage\b|\btimes\b(?!\s+\d)", lowered):
        return ResultUnit.RATIO
    return None


_Measured = tuple[Expr, ResultUnit, str, str, str]
"""A measure's formula, unit, source and key, and the question's measure text left once its
names are blanked."""


def _transform_named(request: Request, library: MetricLibrary) -> Request:
    """The request as a level of the library metric whose own name says its transform
    ("earnings growth", "revenue CAGR", "change in total debt"): the metric is then the whole
    of it; else the request as read."""
    if request.transform is Transform.LEVEL:
        return request
    text = _SINGULAR.sub(lambda m: m.group(1), request.named_text)
    named = library.metric_span(text)
    if named is None:
        return request
    start, end = named[1]
    if request.measure_text[start:end] == text[start:end]:
        return request  # the transform is said outside the metric's name
    measure = request.measure_text[:start] + text[start:end] + request.measure_text[end:]
    return replace(request, transform=Transform.LEVEL, measure_text=measure)


def _measure(request: Request, library: MetricLibrary) -> _Measured | Unplanned | None:
    """The metric or the one line item the request's words name, as a formula: a metric by its
    longest name, else a line item (its share of revenue when that is asked); None when no name
    of the library is said, an Unplanned when two line items are named with nothing to join them
    or a part is asked of a line item that it never answers."""
    text = _SINGULAR.sub(lambda m: m.group(1), request.measure_text)
    named = library.metric_span(text) or library.metric_span(_TOTAL.sub(_spaces, text))
    if named is not None and request.in_dollars and named[0].unit is not ResultUnit.USD:
        named = None  # "by how many dollars did its gross margin rise": the row, not the ratio
    if named is not None:
        metric, span = named
        formula = metric.formula
        if request.year_end:
            formula = map_refs(formula, lambda r: Ref(r.item, r.offset))
        rest = blank(text, [span])
        for variant_span, item in library.item_spans(rest):  # "based on consolidated net income"
            if item.variant_of in {ref.item for ref in refs(formula)}:
                formula = _put_in(formula, item.variant_of, item.key)
                rest = blank(rest, [variant_span])
        return formula, metric.unit, "metric", metric.key, rest
    spans = library.item_spans(text)
    named_whole = _whole_asked(text, spans)
    whole = named_whole[1] if named_whole is not None else None
    if named_whole is not None:
        spans = [(span, item) for span, item in spans if item is not whole]
        text = blank(text, named_whole[0])
    elif _ASKS_SHARE.search(text):
        return Unplanned("what share of a whole the question asks", decline=False)
    if _ASKS_EFFECT.search(text):
        return None  # what a segment took off operating profit: not operating profit
    items = list(dict.fromkeys(item for _, item in spans))
    if not items:
        return None
    if len(items) != 1:
        return Unplanned(f"how {' and '.join(i.label for i in items)} are to be joined", False)
    item = items[0]
    if item.unit not in _ITEM_UNITS:
        return None
    rest = blank(text, [span for span, _ in spans])
    ref = Ref(item.key, 0, request.average_balance and item.period is PeriodKind.INSTANT)
    margin = next(
        (m for (_, end), _ in spans if (m := _MARGIN_AFTER.match(text, end)) is not None), None
    )
    if whole is None and margin is not None and item.unit is Dimension.USD:
        whole = library.items["revenue"]  # "the D&A % margin": the line over revenue
        rest = blank(rest, [margin.span()])
    if whole is not None:
        if item.unit is not Dimension.USD or whole.unit is not Dimension.USD:
            return Unplanned(f"{item.label} as a share of {whole.label}", decline=True)
        return Binary("/", ref, Ref(whole.key)), ResultUnit.PERCENT, "metric", item.key, rest
    source = "metric" if ref.average else "lookup"
    return ref, _ITEM_UNITS[item.unit], source, item.key, rest


def _put_in(formula: Expr, key: str, into: str) -> Expr:
    """``formula`` with line item ``into`` wherever it uses ``key``."""
    return map_refs(formula, lambda ref: replace(ref, item=into) if ref.item == key else ref)


def _whole_asked(
    text: str, spans: Sequence[tuple[tuple[int, int], LineItem]]
) -> tuple[list[tuple[int, int]], LineItem] | None:
    """The line item a share is asked of ("what share of its total assets", "as a percentage of
    revenue"), with the spans that ask it; None when the text asks no share of a named item."""
    share = _SHARE_OF.search(text)
    if share is None:
        return None
    for span, item in spans:
        if span[0] >= share.end() and not open_words(text[share.end() : span[0]]):
            return [share.span(), span], item  # "share of J&J's 2024 sales"
    return None


def _transformed(
    request: Request, formula: Expr, unit: ResultUnit, source: str, library: MetricLibrary
) -> tuple[Expr, ResultUnit, str] | Unplanned:
    """The measure's formula wrapped in the request's transform: a change, a percent change, a
    change in points, a compound growth rate or a mean over years, each over the years the
    question spans (one year back when it names one)."""
    transform = request.transform
    span = _span(request)
    if transform is Transform.LEVEL:
        return formula, unit, source
    percent = unit is ResultUnit.PERCENT
    if transform is Transform.AVERAGE:
        years = request.years_spanned or (len(request.years) if len(request.years) > 1 else None)
        if years is None or years < 2:
            return Unplanned("a mean over years it does not count", decline=True)
        return average_over_years(formula, years), unit, "metric"
    if transform is Transform.CAGR:
        years = request.years_spanned or span or _library_span(request.text, library)
        if years is None:
            return Unplanned("a compound growth rate with no first and last year", decline=True)
        if unit not in (ResultUnit.USD, ResultUnit.USD_PER_SHARE):
            return Unplanned(f"a compound growth rate of a {unit} figure", decline=True)
        return compound_growth(_growth_base(formula), years), ResultUnit.PERCENT, "metric"
    gap = span or 1
    earlier = shift(formula, -gap)
    if transform is Transform.POINT_CHANGE:
        if not percent:
            return Unplanned(
                "a change in percentage points of a figure that is no percentage", True
            )
        return Binary("-", formula, earlier), ResultUnit.POINTS, "metric"
    if transform is Transform.PERCENT_CHANGE:
        if percent:
            return Unplanned(
                "a percent change of a percentage (its change in percentage points, or relative "
                "to itself)",
                decline=True,
            )
        growth = Binary("-", Binary("/", formula, earlier), Const(Decimal(1)))
        return growth, ResultUnit.PERCENT, "metric"
    if unit is ResultUnit.POINTS:
        return Unplanned(f"a change of a {unit} figure", decline=True)
    return Binary("-", formula, earlier), ResultUnit.POINTS if percent else unit, "metric"


def _library_span(text: str, library: MetricLibrary) -> int | None:
    """The years of the library's own compound growth metric the text names ("revenue CAGR"
    is the library's two-year rate), else None."""
    named = library.metric_span(text)
    if named is None or not any(op == "^" for op in _operators(named[0].formula)):
        return None
    return -min((ref.offset for ref in refs(named[0].formula)), default=0) or None


def _operators(formula: Expr) -> list[str]:
    match formula:
        case Binary(op, left, right):
            return [op, *_operators(left), *_operators(right)]
    return []


def _span(request: Request) -> int | None:
    """How many years the question's named years span (None: one year named, or none)."""
    if len(request.years) < 2:
        return None
    return max(request.years) - min(request.years)


def _growth_base(formula: Expr) -> Expr:
    """The figure a growth formula (``x / x[-1] - 1``) grows, else the formula itself."""
    grown = _growth_items(formula)
    return Ref(grown[0]) if grown else formula


_UNIT_WORDS = {
    ResultUnit.PERCENT: frozenset({"percent", "percents", "percentage", "percentages", "pct"}),
    ResultUnit.POINTS: frozenset({"percent", "percentage", "points", "point"}),
    ResultUnit.RATIO: frozenset({"ratio", "times", "multiple", "x"}),
    ResultUnit.DAYS: frozenset({"days", "day"}),
}
_ARITHMETIC = re.compile(
    r"\b(?:divided\s+by|multiplied\s+by|(?<!many\s)times|plus|minus)\b|\s[/×÷*+]\s"
    r"|\b\d+\s*[*x×]",
    re.I,
)
"""Arithmetic a question writes; "how many times" asks a ratio's unit, not a product."""


def _unaccounted(rest: str, unit: ResultUnit, named: frozenset[str]) -> Unplanned | None:
    """The part of the question the plan leaves unanswered: arithmetic it writes, or words no
    reading accounts for (a qualifier, another measure), once the plan's unit words and the
    words naming its own line items (``named``: a question restating the formula) are set
    aside; None when the plan answers all of it."""
    if _ARITHMETIC.search(rest):
        return Unplanned("the arithmetic the question writes in words", decline=True)
    unit_words = _UNIT_WORDS.get(unit, frozenset())
    left = [w for w in open_words(rest) if w not in unit_words and w not in named]
    if not left:
        return None
    words = tuple(dict.fromkeys(left))
    return Unplanned(" ".join(f"'{w}'" for w in words), decline=False, words=words)


def _name_words(formula: Expr, library: MetricLibrary) -> frozenset[str]:
    """The words of every name of the line items the formula uses ("cash", "dividends",
    "paid" for dividends paid; "merchandise", "inventories" for inventory), and of the library
    metrics made of those items alone."""
    used = {ref.item for ref in refs(formula)}
    names: list[str] = []
    for key in used:
        item = library.items.get(key)
        if item is not None:
            names += [item.label, *item.synonyms, *item.row_names]
            if item.statement == "cash_flow":
                names.append("cash")  # "how much cash did it put into buybacks": its statement
    if all(key in library.items and library.items[key].continuing for key in used):
        names.append(_CONTINUING)  # "sales on the continuing-operations basis": these lines
    if any(key in library.items and _owners(library.items[key]) for key in used):
        names.append(_ATTRIBUTABLE)  # "diluted net income per share attributable to common ..."
    for metric in library.metrics.values():
        if {ref.item for ref in refs(metric.formula)} <= used:
            names += [metric.name, *metric.synonyms]  # "EBITDA" inside an EBITDA margin
    return frozenset(word for name in names for word in open_words(name.lower()))


_CONTINUING = "continuing operations continuing-operations basis"
"""The words that say a figure is of continuing operations, which its lines are."""
_ATTRIBUTABLE = "attributable to common stockholders shareholders"
"""The words that say a figure is the common shareholders' share, which these lines are."""


def _owners(item: LineItem) -> bool:
    """A line that is the common shareholders' figure: per share, or the parent's own."""
    return item.unit is Dimension.USD_PER_SHARE or item.registrant_same


_TOTAL = re.compile(r"\btotal\b", re.I)
"""Said inside a metric's name ("return on average total assets"), it names the same metric."""


def _spaces(match: re.Match[str]) -> str:
    return " " * len(match.group(0))


_SINGULAR = re.compile(r"\b(margin|ratio|turnover|rate|return)s\b", re.I)
"""Plurals of metric nouns ("compare their net margins"), read as the metric's name."""


_ITEM_UNITS = {
    Dimension.USD: ResultUnit.USD,
    Dimension.USD_PER_SHARE: ResultUnit.USD_PER_SHARE,
    Dimension.PURE: ResultUnit.PERCENT,  # a percentage a filing prints ("Operating ratio (%)")
}
_SHARE_OF = re.compile(
    rf"\b(?:(?:as\s+an?\s+|what\s+)?(?:{SHARE_NOUNS}|%)\s+of|relative\s+to)\s+"
    r"(?:its\s+|the\s+|their\s+)?(?:\S+\s+){0,2}?(?=\S)",
    re.IGNORECASE,
)
"""A part of a whole asked ("what share of its net income", "as a percentage of revenue"):
the line item named right after it is the whole (its possessive and fiscal year aside)."""
_MARGIN_AFTER = re.compile(r"\s*(?:\([^()]*\)\s*)?%\s*margin\b", re.IGNORECASE)
"""A line item's "% margin" ("the D&A % margin"): that line as a share of revenue. A bare
"margin" after a line's words is a metric of its own ("net interest margin"), never this."""
_ASKS_SHARE = re.compile(rf"\b{SHARE_NOUNS}\s+of\b|%\s+of\b", re.IGNORECASE)
"""A part of a whole asked for: what a line item alone never answers ("per share of Class C
stock" asks none)."""
_ASKS_EFFECT = re.compile(
    r"\bhow\s+much\s+(?:did|does|do|will|would|could)\s+.+?\s+(?:reduce|lower|cut|raise|"
    r"increase|boost|hurt|affect|impact|add\s+to|contribute\s+to|weigh\s+on|drag\s+on)\b",
    re.IGNORECASE,
)
"""An effect of something on a line item asked for ("how much did Reality Labs reduce its
operating profit"): what the line item's own figure never answers."""


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
    if plan.items:
        library = replace(library, items={**library.items, **{i.key: i for i in plan.items}})
    return compute_formula(
        plan.formula, plan.fiscal_year or fiscal_year, library, filings,
        unit=plan.unit, decimals=plan.decimals, scale=plan.scale, metric=plan.name,
    )  # fmt: skip


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


def _asked_scale(question: str) -> int | None:
    match = _MILLIONS.search(question)
    return _SCALES[match.group(1).lower()] if match else None
