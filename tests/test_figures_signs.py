"""Rows of FinanceBench PDFs (statements without XBRL) read as XBRL would give their figures: an
expense positive for a cost however the statement prints it, a payment positive, and each from
the registrant's own statement, not a later one of its kind."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest

from edgar_rag.domain import Fact, FigureSource, FilingHints, RawFiling
from edgar_rag.figures.calculator import Calculation
from edgar_rag.figures.library import load_library
from edgar_rag.figures.printed import printed_lines
from edgar_rag.figures.resolve import FilingFigures, MissingFigure, compute_metric, resolve_operand
from edgar_rag.ingest.pipeline import ingest_filing
from figures_facts import corpus_figures

LIBRARY = load_library()
PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench" / "pdfs"
needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")


@cache
def _pdf_figures(name: str, company: str) -> FilingFigures:
    raw = RawFiling((PDFS / name).read_bytes(), name, FilingHints(company=company))
    parsed = ingest_filing(raw)
    return FilingFigures(None, parsed.meta, parsed.facts)


def _rate(figures: FilingFigures, year: int) -> str:
    rate = compute_metric(LIBRARY.metrics["effective_tax_rate"], year, LIBRARY, [figures])
    assert isinstance(rate, Calculation), rate
    return rate.text()


@needs_pdfs
def test_a_provision_printed_in_parentheses_between_its_subtotals_is_a_cost() -> None:
    # Corning's 2022 income statement prints cost of sales plain and its tax "(411)", between
    # "Income before income taxes 1,797" and "Net income 1,386": a deduction, an expense of 411.
    corning = _pdf_figures("CORNING_2022_10K.pdf", "Corning Incorporated")
    tax = resolve_operand(LIBRARY.items["income_tax"], 2022, [corning])
    assert not isinstance(tax, MissingFigure)
    assert (tax.value, tax.printed) == (Decimal(411_000_000), "(411)")
    cost = resolve_operand(LIBRARY.items["cost_of_revenue"], 2022, [corning])
    assert not isinstance(cost, MissingFigure)
    assert (cost.value, cost.printed) == (Decimal(9_683_000_000), "9,683")
    # 411 / 1,797 and 491 / 2,426: the rate rose, as Corning's own note says (20.2% to 22.9%).
    assert (_rate(corning, 2021), _rate(corning, 2022)) == ("20.2%", "22.9%")


@needs_pdfs
def test_a_label_that_says_expense_in_parentheses_signs_a_benefit_printed_plain() -> None:
    # Boeing's "Income tax (expense)/benefit": (31) in 2022 an expense on a loss before taxes of
    # (5,022), 743 in 2021 a benefit on (5,033): the rates Boeing prints, (0.6)% and 14.8%.
    boeing = _pdf_figures("BOEING_2022_10K.pdf", "The Boeing Company")
    benefit = resolve_operand(LIBRARY.items["income_tax"], 2021, [boeing])
    assert not isinstance(benefit, MissingFigure)
    assert (benefit.value, benefit.printed) == (Decimal(-743_000_000), "743")
    assert (_rate(boeing, 2021), _rate(boeing, 2022)) == ("14.8%", "-0.6%")


@needs_pdfs
def test_an_expense_printed_plain_keeps_its_sign() -> None:
    # American Express prints its "Income tax provision" and "Pretax income" plain.
    amex = _pdf_figures("AMERICANEXPRESS_2022_10K.pdf", "American Express Company")
    assert (_rate(amex, 2021), _rate(amex, 2022)) == ("24.6%", "21.6%")


def _row(label: str, value: float, offset: int) -> Fact:
    printed = f"{abs(value) / 1e6:,.0f}"
    return Fact(
        concept="", value=value, displayed=f"({printed})" if value < 0 else printed,
        unit="USD", decimals=None, period_start=date(2022, 1, 1),
        period_end=date(2022, 12, 31), dimensions=(), offset=offset,
        source=FigureSource.ROW, label=label, statement="income_statement",
    )  # fmt: skip


def test_a_benefit_is_negative_whether_its_label_or_its_subtotals_say_so() -> None:
    meta = replace(
        corpus_figures()["HD-2024"].meta, ticker="ACME", company="Acme", fiscal_year=2022,
        period_end=date(2022, 12, 31), accession=None,
    )  # fmt: skip
    labelled = (_row("Provision for (benefit from) income taxes", -50e6, 10),)
    by_sums = (
        _row("Income before income taxes", 1_000e6, 1),
        _row("Provision for income taxes", -50e6, 2),
        _row("Net income", 1_050e6, 3),
    )
    for rows in (labelled, by_sums):
        figures = FilingFigures(None, meta, rows)
        tax = resolve_operand(LIBRARY.items["income_tax"], 2022, [figures])
        assert not isinstance(tax, MissingFigure)
        assert (tax.value, tax.printed) == (Decimal(-50_000_000), "(50)")


@needs_pdfs
def test_a_payment_the_library_does_not_name_is_stated_as_paid() -> None:
    # MGM's cash flow statement prints "Dividends paid to common shareholders (4,048)" (in
    # thousands); no library item names it, so its own line answers, paid as 4,048, not -4,048.
    mgm = _pdf_figures("MGMRESORTS_2022_10K.pdf", "MGM Resorts International")
    (line,) = [
        line
        for line in printed_lines(mgm.facts, {})
        if line.label.endswith("Dividends paid to common shareholders")
        and line.fact.fiscal_year == 2022
    ]
    paid = resolve_operand(line.item("dividends paid to common shareholders"), 2022, [mgm])
    assert not isinstance(paid, MissingFigure)
    assert (paid.value, paid.printed) == (Decimal(4_048_000), "(4,048)")


@needs_pdfs
def test_a_row_is_read_from_the_registrants_statement_not_a_later_one_of_its_kind() -> None:
    # MGM's 2018 10-K: its cover sets the name in small capitals ("MGM R ESORTS I NTERNATIONAL"
    # as read); its balance sheet prints accounts payable 302,578 (thousands), and a
    # subsidiary's "CONSOLIDATED BALANCE SHEETS" 117 pages on prints 25,758.
    mgm = _pdf_figures("MGMRESORTS_2018_10K.pdf", "")
    assert mgm.meta.company == "MGM Resorts International"
    payable = resolve_operand(LIBRARY.items["accounts_payable"], 2018, [mgm])
    assert not isinstance(payable, MissingFigure)
    assert payable.value == Decimal(302_578_000)


@needs_pdfs
def test_a_bare_pp_and_e_row_is_net_unless_depreciation_is_deducted_below_it() -> None:
    # Pfizer's 2021 balance sheet prints "Property, plant and equipment 14,882" with no
    # deduction: its net figure. 3M's 2022 prints "Property, plant and equipment 25,998" above
    # "Less: Accumulated depreciation (16,820)": a gross amount, never the net 9,178.
    pfizer = _pdf_figures("PFIZER_2021_10K.pdf", "Pfizer Inc.")
    net = resolve_operand(LIBRARY.items["ppe_net"], 2021, [pfizer])
    assert not isinstance(net, MissingFigure)
    assert net.value == Decimal(14_882_000_000)
    mmm = _pdf_figures("3M_2022_10K.pdf", "3M Company")
    net = resolve_operand(LIBRARY.items["ppe_net"], 2022, [mmm])
    assert not isinstance(net, MissingFigure)
    assert net.value == Decimal(9_178_000_000)


def test_a_gross_pp_and_e_row_is_no_net_figure_when_no_net_row_is_printed() -> None:
    meta = replace(
        corpus_figures()["HD-2024"].meta, ticker="ACME", company="Acme", fiscal_year=2022,
        period_end=date(2022, 12, 31), accession=None,
    )  # fmt: skip
    rows = tuple(
        replace(_row(label, value, offset), period_start=None, statement="balance_sheet")
        for label, value, offset in (
            ("Property, plant and equipment", 25_998e6, 1),
            ("Less: Accumulated depreciation", -16_820e6, 2),
        )
    )
    found = resolve_operand(LIBRARY.items["ppe_net"], 2022, [FilingFigures(None, meta, rows)])
    assert isinstance(found, MissingFigure)
