"""Operands resolved against real corpus facts: the asked fiscal year, consolidated, never a
substitute."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from edgar_rag.domain import Fact, FigureSource, FilingMeta
from edgar_rag.figures.calculator import Calculation
from edgar_rag.figures.formula import parse_formula
from edgar_rag.figures.library import Part, ResultUnit, load_library
from edgar_rag.figures.resolve import (
    FilingFigures,
    MissingFigure,
    compute_formula,
    compute_metric,
    fiscal_year_of,
    load_figures,
    resolve_operand,
)
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pipeline import ingest_filing
from figures_facts import corpus_figures

LIBRARY = load_library()

# Each figure read from the filing's statements by hand (10-K text in build/corpus.db).
HAND_COMPUTED = [
    # HD fiscal 2024: gross profit 53,308 / net sales 159,514.
    ("HD-2024", "gross_margin", "33.4%"),
    # HD: (159,514 / 152,669) - 1; fiscal 2023's net sales from the comparative column.
    ("HD-2024", "revenue_growth", "4.5%"),
    # HD: operating income 21,526 + "Depreciation and amortization, excluding amortization of
    # intangible assets" 3,336 (the cash flow statement).
    ("HD-2024", "ebitda", "$24,862 million"),
    # HD: net cash provided by operating activities 19,810 - capital expenditures (3,485).
    ("HD-2024", "free_cash_flow", "$16,325 million"),
    # HD: 365 * average merchandise inventories (23,451; 20,976) / cost of sales 106,206.
    ("HD-2024", "days_inventory_outstanding", "76.3 days"),
    # AAPL fiscal 2025: total net sales 416,161; research and development 34,550.
    ("AAPL-2025", "rd_to_revenue", "8.3%"),
    # AAPL: total current assets 147,957 / total current liabilities 165,631.
    ("AAPL-2025", "current_ratio", "0.89x"),
]


@pytest.mark.parametrize(("filing", "metric", "text"), HAND_COMPUTED)
def test_metrics_of_real_filings_match_the_statements(filing: str, metric: str, text: str) -> None:
    result = compute_metric(
        LIBRARY.metrics[metric], int(filing[-4:]), LIBRARY, [corpus_figures()[filing]]
    )
    assert isinstance(result, Calculation), result
    assert result.text() == text


def test_each_operand_cites_the_fact_that_prints_it() -> None:
    hd = corpus_figures()["HD-2024"]
    operand = resolve_operand(LIBRARY.items["revenue"], 2023, [hd])
    assert not isinstance(operand, MissingFigure)
    assert operand.value == Decimal("152669000000.0")
    assert operand.citation.displayed == "152,669"
    assert operand.citation.filing_id == 8
    assert operand.citation.filing_fiscal_year == 2024
    assert operand.citation.offset is not None
    assert operand.scale == 6


def test_a_year_the_filing_does_not_report_is_a_missing_figure_never_another_year() -> None:
    hd = corpus_figures()["HD-2024"]
    result = compute_metric(LIBRARY.metrics["return_on_assets"], 2022, LIBRARY, [hd])
    # Its balance sheet has fiscal 2024 and 2023 only; the income statement has 2022 too.
    assert result == MissingFigure(
        "total_assets", 2022, "total assets for fiscal 2022 is not reported in HD's 10-K for "
        "fiscal 2024",
    )  # fmt: skip
    assert result.reason == "missing_figure"


def test_a_line_item_the_filing_does_not_tag_is_missing_not_substituted() -> None:
    hd = corpus_figures()["HD-2024"]
    result = compute_metric(LIBRARY.metrics["rd_to_revenue"], 2024, LIBRARY, [hd])
    assert isinstance(result, MissingFigure)
    assert result.item == "research_and_development"


def test_dimensional_facts_are_never_taken_for_the_consolidated_figure() -> None:
    hd = corpus_figures()["HD-2024"]
    segments_only = tuple(
        replace(f, dimensions=(("us-gaap:StatementBusinessSegmentsAxis", "hd:SegmentMember"),))
        if f.concept == "us-gaap:GrossProfit" else f
        for f in hd.facts
    )  # fmt: skip
    result = resolve_operand(
        LIBRARY.items["gross_profit"], 2024, [FilingFigures(8, hd.meta, segments_only)]
    )
    assert isinstance(result, MissingFigure)


def test_figures_that_disagree_are_missing_and_rounded_copies_agree() -> None:
    mcd = corpus_figures()["MCD-2023"]
    # MCD prints its total debt as 39,345.3 million in a table and 39.3 billion in prose.
    debt = resolve_operand(LIBRARY.items["total_debt"], 2023, [mcd])
    assert not isinstance(debt, MissingFigure)
    assert debt.citation.displayed == "39,345.3"
    clash = next(f for f in mcd.facts if f.concept == "us-gaap:LongTermDebt")
    doubled = (*mcd.facts, replace(clash, value=clash.value * 2, decimals=-6))
    assert isinstance(
        resolve_operand(LIBRARY.items["total_debt"], 2023, [replace(mcd, facts=doubled)]),
        MissingFigure,
    )


def test_a_prior_year_comes_from_the_prior_filing_when_passed_and_says_so() -> None:
    hd = corpus_figures()["HD-2024"]
    # The asked filing without its comparative columns; then a stand-in for another filing of
    # the company (this one, numbered a year on: its fiscal 2024 figures are "2025").
    current_only = replace(hd, facts=tuple(f for f in hd.facts if f.period_end > date(2024, 6, 1)))
    other = replace(hd, filing_id=7, meta=replace(hd.meta, fiscal_year=2025))
    operand = resolve_operand(LIBRARY.items["revenue"], 2024, [current_only, other])
    assert not isinstance(operand, MissingFigure)
    assert operand.citation.filing_id == 8
    operand = resolve_operand(LIBRARY.items["revenue"], 2023, [current_only, other])
    assert not isinstance(operand, MissingFigure)
    assert operand.citation.filing_id == 7
    assert operand.citation.filing_fiscal_year == 2025


def test_fiscal_years_follow_the_filings_own_calendar() -> None:
    hd = corpus_figures()["HD-2024"].meta  # fiscal 2024 ended 2025-02-02
    assert fiscal_year_of(date(2025, 2, 2), hd) == 2024
    assert fiscal_year_of(date(2024, 1, 28), hd) == 2023
    assert fiscal_year_of(date(2024, 5, 5), hd) is None  # a quarter's end


def test_a_questions_own_formula_resolves_like_a_library_metric() -> None:
    hd = corpus_figures()["HD-2024"]
    # FinanceBench's DPO: 365 * average payables / (COGS + change in inventory).
    formula = parse_formula(
        "365 * avg(accounts_payable) / (cost_of_revenue + (inventory - inventory[-1]))"
    )
    result = compute_formula(formula, 2024, LIBRARY, [hd], unit=ResultUnit.DAYS, decimals=2)
    assert isinstance(result, Calculation)
    assert len(result.operands) == 5


class _Store:
    def __init__(self, facts: list[Fact]) -> None:
        self.facts = facts
        self.asked: list[int] = []

    def figures(self, filing_id: int) -> list[Fact]:
        self.asked.append(filing_id)
        return self.facts


def test_a_store_fits_the_lookup_port() -> None:
    hd = corpus_figures()["HD-2024"]
    store = _Store(list(hd.facts))
    figures = load_figures(store, 8, hd.meta)
    assert store.asked == [8]
    assert tuple(figures.facts) == hd.facts


def _row(label: str, value: float, displayed: str, end: date, statement: str) -> Fact:
    """A statement-row figure as the figures table holds it: no concept; its label and
    statement."""
    start = None if statement == "balance_sheet" else date(end.year, 1, 1)
    return Fact(
        concept="", value=value, displayed=displayed, unit="USD", decimals=None,
        period_start=start, period_end=end, dimensions=(), offset=None,
        source=FigureSource.ROW, label=label, statement=statement,
    )  # fmt: skip


def _pdf_filing(ticker: str, company: str, fiscal_year: int) -> tuple[FilingMeta, date]:
    """A FinanceBench PDF filer's record (no XBRL, a calendar fiscal year) and its year end."""
    end = date(fiscal_year, 12, 31)
    meta = replace(
        corpus_figures()["HD-2024"].meta, ticker=ticker, company=company,
        fiscal_year=fiscal_year, period_end=end, accession=None,
    )  # fmt: skip
    return meta, end


def test_a_filing_without_xbrl_resolves_from_its_statement_rows() -> None:
    # 3M's 2018 10-K (FinanceBench's PDF): cash flow statement, in millions.
    meta, end = _pdf_filing("MMM", "3M", 2018)
    rows = (
        _row("Cash Flows from Investing Activities: Purchases of property, plant and equipment "
             "(PP&E)", -1577e6, "(1,577)", end, "cash_flow"),
        _row("Net cash provided by operating activities", 6439e6, "6,439", end, "cash_flow"),
        _row("Purchases of property, plant and equipment", -999e6, "(999)", end, "balance_sheet"),
    )  # fmt: skip
    figures = FilingFigures(None, meta, rows)
    found = resolve_operand(LIBRARY.items["operating_cash_flow"], 2018, [figures])
    assert not isinstance(found, MissingFigure)
    assert found.citation.row_label == "Net cash provided by operating activities"
    assert found.citation.concept is None
    assert found.scale == 6
    # "(PP&E)" aside, the row names capex; the balance-sheet row of the same words is not the
    # cash flow statement's. A payment printed "(1,577)" takes the XBRL sign: positive.
    capex = resolve_operand(LIBRARY.items["capex"], 2018, [figures])
    assert not isinstance(capex, MissingFigure)
    assert capex.value == Decimal("1577000000.0")
    assert capex.printed == "(1,577)"
    assert (found.value - capex.value).scaleb(-6) == Decimal(4862)  # 6,439 - 1,577


def test_a_year_the_filing_lacks_comes_from_the_prior_years_filing_and_says_which() -> None:
    # Return on assets for HD's fiscal 2023 needs total assets at the end of fiscal 2022: the
    # fiscal 2024 filing's balance sheet stops at 2023, the fiscal 2023 filing prints it.
    hd_2024, hd_2023 = corpus_figures()["HD-2024"], corpus_figures()["HD-2023"]
    alone = compute_metric(LIBRARY.metrics["return_on_assets"], 2023, LIBRARY, [hd_2024])
    assert isinstance(alone, MissingFigure)
    both = compute_metric(LIBRARY.metrics["return_on_assets"], 2023, LIBRARY, [hd_2024, hd_2023])
    assert isinstance(both, Calculation)
    sources = {(o.item, o.fiscal_year): o.citation.filing_fiscal_year for o in both.operands}
    assert sources == {
        ("net_income", 2023): 2024, ("total_assets", 2023): 2024, ("total_assets", 2022): 2023
    }  # fmt: skip
    # 15,143 / ((76,530 + 76,445) / 2), HD's statements in millions.
    assert both.text() == "19.8%"


def test_every_display_of_the_figure_is_kept_for_citing() -> None:
    """A figure tagged first outside its statement (Visa tags the net income of its EPS table
    ``NetIncomeLoss`` and that of its income statement ``ProfitLoss``) keeps the statement's
    display beside it; another period, a segment or another figure is no display of it."""
    hd = corpus_figures()["HD-2024"]
    income = next(
        f for f in hd.facts if f.concept == "us-gaap:NetIncomeLoss" and not f.dimensions
        and f.period_start is not None and f.period_end == date(2025, 2, 2)
    )  # fmt: skip
    statement = replace(income, concept="us-gaap:ProfitLoss", offset=(income.offset or 0) + 9)
    others = [
        replace(statement, offset=1, period_end=date(2024, 1, 28)),
        replace(statement, offset=2, dimensions=(("us-gaap:StatementBusinessSegmentsAxis", "x"),)),
        replace(statement, offset=3, displayed="15,144", value=15_144e6),
        replace(statement, offset=4, concept="us-gaap:OperatingIncomeLoss"),
    ]
    figures = replace(hd, facts=(income, *others, statement))
    operand = resolve_operand(LIBRARY.items["net_income"], 2024, [figures])
    assert not isinstance(operand, MissingFigure)
    assert operand.citation.offset == income.offset
    assert [d.offset for d in operand.displays] == [statement.offset]


def test_statement_rows_are_read_by_the_items_labels_in_order_of_preference() -> None:
    """FinanceBench's PDFs: Walmart prints net sales and total revenues, General Mills its
    net earnings with and without its noncontrolling interests, 3M its PP&E with a dash."""
    meta, end = _pdf_filing("GIS", "General Mills", 2022)
    rows = (
        _row("Revenues: Net sales", 519_926e6, "519,926", end, "income_statement"),
        _row("Revenues: Total revenues", 523_964e6, "523,964", end, "income_statement"),
        _row("Net earnings, including earnings attributable to redeemable and noncontrolling "
             "interests", 2_735e6, "2,735", end, "income_statement"),
        _row("Net earnings attributable to redeemable and noncontrolling interests", 28e6, "28",
             end, "income_statement"),
        _row("Net earnings attributable to General Mills", 2_707e6, "2,707", end,
             "income_statement"),
        _row("Property, plant and equipment — net", 8_738e6, "8,738", end, "balance_sheet"),
    )  # fmt: skip
    figures = FilingFigures(None, meta, rows)
    chosen = {
        key: resolve_operand(LIBRARY.items[key], 2022, [figures])
        for key in ("revenue", "net_income", "ppe_net")
    }
    shown = {k: v.citation.row_label for k, v in chosen.items() if not isinstance(v, MissingFigure)}
    assert shown == {
        "revenue": "Revenues: Total revenues",
        "net_income": "Net earnings attributable to General Mills",
        "ppe_net": "Property, plant and equipment — net",
    }


def test_a_line_the_filing_does_not_print_is_derived_from_the_lines_that_give_it() -> None:
    figures = corpus_figures()["HD-2024"]
    unprinted = replace(
        figures, facts=[f for f in figures.facts if f.concept != "us-gaap:GrossProfit"]
    )
    result = compute_metric(LIBRARY.metrics["gross_margin"], 2024, LIBRARY, [unprinted])
    assert isinstance(result, Calculation), result
    assert result.formula == "(revenue - cost_of_revenue) / revenue"
    assert result.text() == "33.4%"  # as from the printed gross profit (53,308 / 159,514)
    part = LIBRARY.items["gross_profit"].of_part(replace_part())
    assert part.derived == ()  # a segment's line is never derived from the company's


def replace_part() -> Part:
    return Part("us-gaap:StatementBusinessSegmentsAxis", "hd:ExampleMember", "Example")


PROGRESSIVE = Path("../shared/corpus/filings/PGR/2023")


@pytest.mark.skipif(not PROGRESSIVE.exists(), reason="no ../shared/corpus")
def test_a_10k_with_schedule_ii_alone_gives_net_income_and_equity_from_it() -> None:
    """Progressive's 10-K incorporates its consolidated statements from an exhibit and tags only
    Schedule II (the registrant's own statements): its net income and equity are the
    consolidated figures attributable to it; its revenue is never read there."""
    (local,) = find_local_filings([PROGRESSIVE])
    parsed = ingest_filing(local.load())
    figures = FilingFigures(1, parsed.meta, parsed.facts)
    income = resolve_operand(LIBRARY.items["net_income"], 2023, [figures])
    assert not isinstance(income, MissingFigure), income
    assert income.value == Decimal("3902400000")
    assert income.label == "net income (the registrant's own statements)"
    equity = resolve_operand(LIBRARY.items["equity"], 2023, [figures])
    assert not isinstance(equity, MissingFigure), equity
    assert equity.value == Decimal("20277100000")
    assert isinstance(resolve_operand(LIBRARY.items["revenue"], 2023, [figures]), MissingFigure)


def test_a_total_printed_only_as_its_parts_is_their_sum_even_asked_alone() -> None:
    """Verizon's 2022 balance sheet (FinanceBench's PDF) prints "Debt maturing within one year"
    and "Long-term debt" and no total: total debt is their sum, by the first derivation whose
    lines it prints, asked alone or inside a change. Gross profit asked alone is not derived."""
    meta, end = _pdf_filing("VZ", "Verizon", 2022)
    before = date(2021, 12, 31)
    rows = (
        _row("Current liabilities: Debt maturing within one year", 9_963e6, "9,963", end,
             "balance_sheet"),
        _row("Current liabilities: Debt maturing within one year", 7_443e6, "7,443", before,
             "balance_sheet"),
        _row("Long-term debt", 140_676e6, "140,676", end, "balance_sheet"),
        _row("Long-term debt", 143_425e6, "143,425", before, "balance_sheet"),
        _row("Total operating revenues", 136_835e6, "136,835", end, "income_statement"),
    )  # fmt: skip
    figures = FilingFigures(None, meta, rows)
    usd = ResultUnit.USD
    total = compute_formula(parse_formula("total_debt"), 2022, LIBRARY, [figures], unit=usd)
    assert isinstance(total, Calculation), total
    assert total.formula == "current_debt + long_term_debt"
    assert total.value == Decimal("150639e6")
    change = compute_formula(
        parse_formula("total_debt - total_debt[-1]"), 2022, LIBRARY, [figures], unit=usd
    )
    assert isinstance(change, Calculation), change
    assert change.value == Decimal("-229e6")
    alone = compute_formula(parse_formula("gross_profit"), 2022, LIBRARY, [figures], unit=usd)
    assert isinstance(alone, MissingFigure)
    assert alone.item == "gross_profit"
