"""Lines a filing prints that the library does not name, read from the table line holding each
figure, and matched to a question's own words only when every word on both sides is said."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal

from edgar_rag.domain import Fact, FigureSource, FilingMeta, SourceFormat
from edgar_rag.figures.printed import (
    Ambiguous,
    PrintedLine,
    line_figures,
    lines_labelled,
    match_line,
    printed_lines,
    untagged_facts,
)
from edgar_rag.question.words import lower_words

TABLE = "\n".join(
    [
        "CONSOLIDATED STATEMENTS OF INCOME",
        "Freight revenues | 2024: 22,811 | 2023: 22,571",
        "Operating expenses: Fuel | 2024: 2,474 | 2023: 2,891",
        "Operating expenses: Other | 2024: 1,326 | 2023: 1,447",
        "Net income from continuing operations | 2024: 6,700 | 2023: 6,300",
        "Bulk | 2024: 7,207 | 2023: 7,358",
        "Premium | 2024: 7,164 | 2023: 6,975",
        "Total freight revenues | 2024: 22,811 | 2023: 22,571",
        "Total | Premium revenue: 58,664.4 | Net premiums written: 61,550.2",
    ]
)
SEGMENTS = "us-gaap:StatementBusinessSegmentsAxis"


def _fact(concept: str, displayed: str, *dimensions: tuple[str, str], nth: int = 0) -> Fact:
    offset = TABLE.index(displayed)
    for _ in range(nth):
        offset = TABLE.index(displayed, offset + 1)
    return Fact(
        concept=concept, value=float(displayed.replace(",", "")) * 1e6, displayed=displayed,
        unit="usd", decimals=-6, period_start=date(2024, 1, 1), period_end=date(2024, 12, 31),
        dimensions=dimensions, offset=1000 + offset, chunk_ordinal=7,
    )  # fmt: skip


FACTS = [
    _fact("us-gaap:FreightRevenue", "22,811"),
    _fact("us-gaap:FuelCosts", "2,474"),
    _fact("us-gaap:OtherCostAndExpenseOperating", "1,326"),
    _fact("us-gaap:IncomeLossFromContinuingOperations", "6,700"),
    _fact("us-gaap:Revenues", "7,207", (SEGMENTS, "acme:ReportableSegmentMember"),
          ("srt:ProductOrServiceAxis", "acme:BulkMember")),
    _fact("us-gaap:Revenues", "7,164", ("srt:ProductOrServiceAxis", "acme:PremiumMember")),
    _fact("us-gaap:PremiumsWritten", "61,550.2"),
    _fact("us-gaap:Revenues", "2,474", ("us-gaap:FairValueByFairValueHierarchyLevelAxis",
                                        "us-gaap:FairValueInputsLevel1Member")),
]  # fmt: skip
LINES = printed_lines(FACTS, {7: (1000, TABLE)})


def _match(asked: str, question: str) -> PrintedLine | Ambiguous | None:
    return match_line(tuple(asked.split()), lower_words(question), LINES)


def test_each_figure_is_read_with_its_rows_label_section_header_and_total() -> None:
    by_label = {line.label: line for line in LINES}
    assert set(by_label) == {
        "Freight revenues", "Fuel", "Other", "Net income from continuing operations", "Bulk",
        "Premium", "Net premiums written",
    }  # fmt: skip
    assert by_label["Fuel"].own == {"fuel"}
    assert {"operat", "expens"} <= by_label["Fuel"].context
    assert {"freigh", "revenu"} <= by_label["Bulk"].context  # the total row below it
    assert by_label["Net premiums written"].fact.concept == "us-gaap:PremiumsWritten"


def test_a_line_answers_when_its_label_and_section_say_every_asked_word() -> None:
    fuel = _match("fuel expense", "By what percentage did fuel expense fall in 2024?")
    assert isinstance(fuel, PrintedLine)
    assert fuel.fact.concept == "us-gaap:FuelCosts"
    written = _match("net premiums written", "What were net premiums written in 2023?")
    assert isinstance(written, PrintedLine)
    assert written.label == "Net premiums written"


def test_a_part_of_the_company_is_read_from_its_line_with_the_total_below() -> None:
    bulk = _match("bulk freight revenue", "What was Bulk freight revenue in 2024?")
    assert isinstance(bulk, PrintedLine)
    part = bulk.item("Bulk freight revenue").part
    assert part is not None
    assert part.member == "acme:BulkMember"  # its all-segments member names no part
    segment = _match("premium segment", "What did the Premium segment earn?")
    assert isinstance(segment, PrintedLine)
    assert segment.label == "Premium"


def test_a_label_that_says_more_than_the_question_never_answers_it() -> None:
    """ "Net income from continuing operations" is no answer to "net income", nor "Other" to
    "other income": a sibling of the figure asked is a neighbour's answer."""
    assert _match("net income", "What was net income in 2024?") is None
    assert _match("other income", "What was other income in 2024?") is None
    assert _match("square foot", "sales per square foot?") is None


def test_two_lines_of_different_figures_that_fit_as_well_are_ambiguous() -> None:
    lines = [*LINES, *printed_lines([_fact("acme:FuelAgain", "2,474")], {7: (1000, TABLE)})]
    both = match_line(("fuel",), ["fuel"], lines)
    assert isinstance(both, Ambiguous)


def test_a_measure_the_filer_prints_is_found_with_its_figures() -> None:
    tables = [
        "Net cash provided by operating activities | 2023: 71,113 | (in millions)\n"
        "Free cash flow | 2022: 19,044 | 2023: 43,010 | (in millions)",
        "Non-GAAP: Effective tax rate1 | 2023: (50)% | 2022: 8.3%",
    ]
    (line,) = lines_labelled(["free cash flow", "fcf"], tables)
    assert line_figures(line) == [(Decimal(19044), 0, False), (Decimal(43010), 0, False)]
    (rate,) = lines_labelled(["effective tax rate"], tables)
    assert line_figures(rate) == [(Decimal(50), 0, True), (Decimal("8.3"), 1, True)]


UNTAGGED = "\n".join(
    [
        "Total Backlog | 2024: $521,336 | 2023: $520,195 | (in millions)",
        "Operating ratio (%) | 2024: 59.9 | 2023: 62.3 | 2022: 60.1",
        "Sales per retail square foot (2) | Fiscal 2024: $599.92 | % Change: (0.8)%",
        "Revenue | 2024: 1,234 | 2023: 1,111",
        "Fuel | 2024: 2,474 | 2023: 2,891 | (in millions)",
    ]
)
META = FilingMeta(
    company="Acme", cik=1, ticker="ACME", form="10-K", fiscal_year=2024,
    period_end=date(2024, 12, 31), accession=None, filing_date=None, url=None,
    years_reported=(2022, 2023, 2024), source="test", sha256="", source_format=SourceFormat.HTML,
)  # fmt: skip


def test_an_untagged_line_is_read_only_with_its_unit_scale_and_year_columns() -> None:
    tagged = replace(FACTS[1], offset=2000 + UNTAGGED.index("2,474"), chunk_ordinal=9)
    read = untagged_facts([tagged], {9: (2000, UNTAGGED)}, META)
    by_label = {(f.label, f.fiscal_year): f for f in read}
    backlog = by_label[("Total Backlog", 2024)]
    assert (backlog.value, backlog.unit, backlog.displayed) == (521336e6, "usd", "521,336")
    assert backlog.source is FigureSource.ROW
    assert backlog.period_end == date(2024, 12, 31)
    assert by_label[("Total Backlog", 2023)].period_end == date(2023, 12, 31)
    ratio = by_label[("Operating ratio (%)", 2024)]
    assert (round(ratio.value, 6), ratio.unit) == (0.599, "pure")  # a percentage, as a fraction
    per_foot = by_label[("Sales per retail square foot (2)", 2024)]
    assert (per_foot.value, per_foot.unit) == (599.92, "usd/shares")  # per something: unscaled
    assert ("Revenue", 2024) not in by_label  # no scale said: never read
    assert ("Fuel", 2024) not in by_label  # its XBRL tag reads it


def test_an_untagged_line_answers_only_where_no_tagged_line_fits() -> None:
    texts = {7: (1000, TABLE), 9: (2000, UNTAGGED)}
    lines = printed_lines(FACTS, texts, META)
    backlog = match_line(("backlog",), ["backlog"], lines)
    assert isinstance(backlog, PrintedLine)
    assert backlog.fact.source is FigureSource.ROW
    fuel = match_line(("fuel",), ["fuel"], lines)  # tagged in TABLE, and again untagged
    assert isinstance(fuel, PrintedLine)
    assert fuel.fact.concept == "us-gaap:FuelCosts"
