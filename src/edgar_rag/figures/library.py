"""The metric library: line items and the metrics computed from them, read from ``metrics.toml``.

The library is data, so a new metric is a new table in the file, not a code path. Loading checks
every formula against the grammar and the units of its line items, so a library that loads is
one whose metrics can all be computed.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from importlib import resources
from typing import Any

from edgar_rag.errors import ConfigError
from edgar_rag.figures.formula import (
    Dimension,
    Expr,
    FormulaError,
    dimension,
    parse_formula,
    refs,
)


class PeriodKind(StrEnum):
    DURATION = "duration"
    """A flow over the fiscal year (revenue, cash from operations)."""
    INSTANT = "instant"
    """A balance at the fiscal year's end (total assets, inventories)."""


class ResultUnit(StrEnum):
    """The unit a metric's value is shown in."""

    PERCENT = "percent"
    POINTS = "points"
    """A change of a percentage, in percentage points (shown times 100, as a percent is)."""
    RATIO = "ratio"
    DAYS = "days"
    USD = "usd"
    USD_PER_SHARE = "usd_per_share"

    @property
    def dimension(self) -> Dimension:
        """What the formula must measure for a result in this unit."""
        if self is ResultUnit.USD:
            return Dimension.USD
        if self is ResultUnit.USD_PER_SHARE:
            return Dimension.USD_PER_SHARE
        return Dimension.PURE


@dataclass(frozen=True, slots=True)
class Part:
    """A part of the company its filing reports figures of, tagged in XBRL as one member of one
    axis (``us-gaap:StatementBusinessSegmentsAxis`` = ``aapl:GreaterChinaSegmentMember``)."""

    axis: str
    member: str
    name: str
    """How a sentence names it: ``Greater China``."""


_EXPENSE_CONCEPT = re.compile(r":(?:CostOf\w*|\w*Expense\w*)$")


@dataclass(frozen=True, slots=True)
class LineItem:
    """One figure a statement reports, and how filers tag and label it."""

    key: str
    label: str
    statement: str
    """``income``, ``balance`` or ``cash_flow``."""
    period: PeriodKind
    unit: Dimension
    concepts: tuple[str, ...]
    """XBRL concepts in order of preference, each seen in the corpus's filings."""
    alternates: tuple[str, ...]
    """Concepts other filers use for the same line, tried after ``concepts``."""
    synonyms: tuple[str, ...]
    """How analysts name it, lower case ("cogs", "pp&e", "cash from operations")."""
    rows: tuple[str, ...]
    """Row labels that print it in a statement without XBRL, in order of preference; ``*`` is
    any words (``Net earnings attributable to *``) and a leading ``!`` excludes the labels it
    matches (``!*noncontrolling*``)."""
    outflow: bool = False
    """Printed in parentheses (a payment) while its XBRL value is positive."""
    largest: bool = False
    """Take the largest figure of all the concepts, not the first concept's: the item is a
    total that some filers tag with the concept others use for a component."""
    part: Part | None = None
    """The part of the company whose figure this is, read from its XBRL facts alone (None: the
    company's own)."""
    continuing: bool = False
    """A line of continuing operations alone: "from continuing operations" asks no other."""
    variant_of: str | None = None
    """The item this one stands in for inside a library metric when the question names it
    there (consolidated net income for net income)."""
    registrant_same: bool = False
    """The registrant's own (parent-company-only) statements report the consolidated figure
    attributable to it (under the equity method: net income, shareholders' equity), so a 10-K
    whose consolidated statements are an exhibit not filed with it (Schedule II alone) gives
    it there."""
    derived: tuple[Expr, ...] = ()
    """How other line items of the same year give it when a filing prints no line of it (gross
    profit: ``revenue - cost_of_revenue``, for a filer whose income statement has no gross
    profit row), the first whose items the filing prints; the answer then shows those items,
    each cited."""
    derived_when_asked: bool = False
    """A derivation answers a question asking this line itself, not only a formula over it: a
    total the balance sheet prints only as its parts (total debt as the debt due within a year
    and the debt due after it)."""

    def of_part(self, part: Part) -> LineItem:
        """This line of ``part`` (``Greater China revenue``), keyed apart from the company's
        (``revenue__aapl_greaterchinasegmentmember``)."""
        member = re.sub(r"\W+", "_", part.member).lower()  # a name the formula grammar reads
        return replace(self, key=f"{self.key}__{member}", label=f"{part.name} {self.label}",
                       part=part, derived=())  # fmt: skip  # never from the company's items

    @property
    def all_concepts(self) -> tuple[str, ...]:
        return self.concepts + self.alternates

    @property
    def expense(self) -> bool:
        """A cost on the income statement: its preferred concept is one of the taxonomy's
        debit-balance expenses (``CostOfRevenue``, ``IncomeTaxExpenseBenefit``), positive for a
        cost however a statement prints it (``figures.signs``)."""
        return self.statement == "income" and any(
            _EXPENSE_CONCEPT.search(concept) for concept in self.concepts[:1]
        )

    @property
    def row_names(self) -> tuple[str, ...]:
        """The row labels written out in full (no wildcard, no exclusion): names a question
        or an answer may say."""
        return tuple(row for row in self.rows if "*" not in row and not row.startswith("!"))


@dataclass(frozen=True, slots=True)
class Metric:
    key: str
    name: str
    synonyms: tuple[str, ...]
    """How analysts phrase it, lower case."""
    formula: Expr
    formula_text: str
    unit: ResultUnit


@dataclass(frozen=True, slots=True)
class Assessment:
    """A judgement analysts make from a few line items without one formula to state ("is it
    capital-intensive?"): search looks for the statements printing its items, the answerer
    computes nothing."""

    key: str
    phrases: tuple[str, ...]
    """How a question says it, lower case."""
    items: tuple[str, ...]
    """The keys of the line items it is judged from."""


@dataclass(frozen=True, slots=True)
class MetricLibrary:
    items: Mapping[str, LineItem]
    metrics: Mapping[str, Metric]
    assessments: Mapping[str, Assessment] = field(default_factory=dict)

    @property
    def dimensions(self) -> dict[str, Dimension]:
        """Each line item's unit, as ``formula.dimension`` takes them."""
        return {key: item.unit for key, item in self.items.items()}

    def find_metric(self, text: str) -> Metric | None:
        """The metric whose longest synonym the text says as whole words (case ignored), so
        "EBITDA margin" is the margin and not EBITDA; None when it names none."""
        named = self.metric_span(text)
        return named[0] if named else None

    def metric_span(self, text: str) -> tuple[Metric, tuple[int, int]] | None:
        """``find_metric``'s metric with the span of ``text`` naming it (``text`` read as
        written: spans are its own)."""
        lowered = text.lower()
        best: tuple[int, Metric, tuple[int, int]] | None = None
        for metric in self.metrics.values():
            for phrase in metric.synonyms:
                said = next(_whole_words(phrase, lowered), None)
                if said and (best is None or len(phrase) > best[0]):
                    best = (len(phrase), metric, said.span())
        return (best[1], best[2]) if best else None

    def find_items(self, text: str) -> list[LineItem]:
        """The line items the text names (synonym, label, row label, as whole words), longest
        name first; a name inside a longer one names nothing ("total current assets" is not
        also "assets"), and an item named twice is listed once."""
        found: list[LineItem] = []
        for _, item in self.item_spans(" ".join(text.split())):
            if item not in found:
                found.append(item)
        return found

    def item_spans(self, text: str) -> list[tuple[tuple[int, int], LineItem]]:
        """Each span of ``text`` that names a line item, longest first, none inside another."""
        lowered = text.lower()
        spans: list[tuple[int, int, LineItem]] = []
        for item in self.items.values():
            for name in {n.lower() for n in (*item.synonyms, item.label, *item.row_names)}:
                spans.extend((m.start(), m.end(), item) for m in _whole_words(name, lowered))
        taken: list[tuple[tuple[int, int], LineItem]] = []
        for start, end, item in sorted(spans, key=lambda s: s[0] - s[1]):
            if any(start < e and s < end for (s, e), _ in taken):
                continue
            taken.append(((start, end), item))
        return taken

    def find_assessed_items(self, text: str) -> list[LineItem]:
        """The line items of the assessments the text names (as whole words), in the library's
        order; each item once."""
        lowered = " ".join(text.lower().split())
        keys = [
            key
            for assessment in self.assessments.values()
            if any(next(_whole_words(phrase, lowered), None) for phrase in assessment.phrases)
            for key in assessment.items
        ]
        return [self.items[key] for key in dict.fromkeys(keys)]

    def item_named(self, phrase: str) -> LineItem | None:
        """The line item an analyst's phrase names ("COGS", "PP&E", "total current assets"):
        its key, label, a synonym or a row label, case and spacing ignored; None otherwise."""

        def key(name: str) -> str:  # "long-term debt excluding current installments" as printed
            return " ".join(name.lower().replace(",", " ").split())

        wanted = key(phrase)
        for item in self.items.values():
            names = (item.key, item.key.replace("_", " "), item.label, *item.synonyms)
            if wanted in {key(name) for name in (*names, *item.row_names)}:
                return item
        return None

    def concepts(self) -> tuple[str, ...]:
        """Every concept the library names, each once: what a fact lookup needs to fetch."""
        return tuple(dict.fromkeys(c for item in self.items.values() for c in item.all_concepts))


def _whole_words(phrase: str, text: str) -> Iterator[re.Match[str]]:
    """Where ``text`` says ``phrase`` as whole words, any run of spaces between its words."""
    pattern = r"\s+".join(re.escape(word) for word in phrase.split())
    return re.finditer(rf"(?<![\w&]){pattern}(?![\w&])", text)


def load_library(text: str | None = None) -> MetricLibrary:
    """The library in ``text`` (TOML), or the packaged ``metrics.toml``; raise ConfigError naming
    the entry when a formula does not parse, names an unknown line item or mixes units."""
    if text is None:
        text = resources.files("edgar_rag.figures").joinpath("metrics.toml").read_text("utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"the metric library is not valid TOML: {error}") from error
    items = {key: _line_item(key, entry) for key, entry in raw.get("items", {}).items()}
    dimensions = {key: item.unit for key, item in items.items()}
    for item in items.values():
        for derivation in item.derived:
            _check_derived(item, derivation, dimensions)
        if item.variant_of is not None and item.variant_of not in items:
            raise ConfigError(f"line item {item.key!r}: a variant of no item {item.variant_of!r}")
    metrics = {
        key: _metric(key, entry, dimensions) for key, entry in raw.get("metrics", {}).items()
    }
    assessments = {
        key: _assessment(key, entry, items) for key, entry in raw.get("assessments", {}).items()
    }
    return MetricLibrary(items, metrics, assessments)


def _check_derived(item: LineItem, derived: Expr, dimensions: Mapping[str, Dimension]) -> None:
    """A derivation of the same year's other items, measuring what the item measures."""
    try:
        measured = dimension(derived, dimensions)
    except FormulaError as error:
        raise ConfigError(f"line item {item.key!r}: its derivation: {error}") from error
    leaves = list(refs(derived))
    if measured != item.unit or any(r.offset or r.average or r.item == item.key for r in leaves):
        raise ConfigError(
            f"line item {item.key!r}: its derivation must measure {item.unit} from other items "
            "of the same year"
        )


def _assessment(key: str, entry: Mapping[str, Any], items: Mapping[str, LineItem]) -> Assessment:
    try:
        phrases = tuple(str(p).lower() for p in entry["phrases"])
        keys = tuple(str(k) for k in entry["items"])
    except (KeyError, TypeError) as error:
        raise ConfigError(f"assessment {key!r} of the metric library: {error}") from error
    unknown = [k for k in keys if k not in items]
    if unknown or not phrases:
        raise ConfigError(f"assessment {key!r}: no phrases, or unknown line items {unknown}")
    return Assessment(key, phrases, keys)


def _line_item(key: str, entry: Mapping[str, Any]) -> LineItem:
    try:
        return LineItem(
            key=key,
            label=str(entry["label"]),
            statement=str(entry["statement"]),
            period=PeriodKind(entry["period"]),
            unit=Dimension(entry["unit"]),
            concepts=tuple(entry["concepts"]),
            alternates=tuple(entry.get("alternates", ())),
            synonyms=tuple(str(s).lower() for s in entry.get("synonyms", ())),
            rows=tuple(entry.get("rows", ())),
            outflow=entry.get("printed") == "outflow",
            largest=entry.get("choose") == "largest",
            derived=tuple(parse_formula(str(d)) for d in _one_or_many(entry.get("derived", ()))),
            derived_when_asked=entry.get("derived_when_asked") is True,
            registrant_same=entry.get("registrant") == "same",
            variant_of=str(entry["variant_of"]) if "variant_of" in entry else None,
            continuing=entry.get("continuing") is True,
        )
    except (KeyError, ValueError, FormulaError) as error:
        raise ConfigError(f"line item {key!r} of the metric library: {error}") from error


def _one_or_many(value: Any) -> tuple[Any, ...]:
    """A TOML value that is one entry or a list of them, as a tuple."""
    return tuple(value) if isinstance(value, list | tuple) else (value,)


def _metric(key: str, entry: Mapping[str, Any], dimensions: Mapping[str, Dimension]) -> Metric:
    try:
        formula_text = str(entry["formula"])
        formula = parse_formula(formula_text)
        unit = ResultUnit(entry["unit"])
        measured = dimension(formula, dimensions)
    except (KeyError, ValueError, FormulaError) as error:
        raise ConfigError(f"metric {key!r} of the metric library: {error}") from error
    if measured != unit.dimension:
        raise ConfigError(f"metric {key!r}: its formula measures {measured}, not {unit}")
    synonyms = tuple(str(s).lower() for s in entry.get("synonyms", ()))
    return Metric(key, str(entry["name"]), synonyms, formula, formula_text, unit)
