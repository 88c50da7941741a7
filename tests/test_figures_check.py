"""The verifier's checks of a computed answer, on passages as the index stores Home Depot's
fiscal 2024 statements."""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal

from edgar_rag.figures.calculator import Calculation
from edgar_rag.figures.check import calculation_is_supported, operand_is_printed
from edgar_rag.figures.library import load_library
from edgar_rag.figures.resolve import compute_metric
from edgar_rag.rules import fiscal_year_at
from figures_facts import corpus_figures

LIBRARY = load_library()
# Lines of build/corpus.db's chunks of HD's fiscal 2024 10-K, as stored.
EARNINGS = (
    "THE HOME DEPOT, INC.\nCONSOLIDATED STATEMENTS OF EARNINGS\n"
    "Net sales | Fiscal 2024: 159,514 | Fiscal 2023: 152,669 | Fiscal 2022: 157,403 | "
    "(in millions)\n"
    "Cost of sales | Fiscal 2024: 106,206 | Fiscal 2023: 101,709 | Fiscal 2022: 104,625 | "
    "(in millions)\n"
    "Gross profit | Fiscal 2024: 53,308 | Fiscal 2023: 50,960 | Fiscal 2022: 52,778 | (in millions)"
)
BALANCE = (
    "Merchandise inventories | February 2, 2025: 23,451 | January 28, 2024: 20,976 | (in millions)"
)


def _hd_year(header: str) -> int | None:
    """HD's headers: "Fiscal 2024", or a period-end date in its 52/53-week calendar."""
    words = header.split()
    if words[:1] == ["Fiscal"]:
        return int(words[1])
    match = re.search(r"[A-Z][a-z]+ \d{1,2}, \d{4}", header)
    if match is None:
        return None
    day = datetime.strptime(match.group(), "%B %d, %Y").date()
    return fiscal_year_at(day, date(2025, 2, 2), 2024)


def _calculation(metric: str) -> Calculation:
    result = compute_metric(LIBRARY.metrics[metric], 2024, LIBRARY, [corpus_figures()["HD-2024"]])
    assert isinstance(result, Calculation)
    return result


def test_an_operand_counts_only_in_its_own_years_column() -> None:
    growth = compute_metric(
        LIBRARY.metrics["revenue_growth"], 2024, LIBRARY, [corpus_figures()["HD-2024"]]
    )
    assert isinstance(growth, Calculation)
    this_year, last_year = growth.operands
    assert operand_is_printed(this_year, EARNINGS, _hd_year)
    assert operand_is_printed(last_year, EARNINGS, _hd_year)
    moved = EARNINGS.replace("Fiscal 2023: 152,669", "Fiscal 2022: 152,669")
    assert not operand_is_printed(last_year, moved, _hd_year)


def test_balances_are_found_under_their_dated_headers() -> None:
    turnover = _calculation("inventory_turnover")
    inventories = [o for o in turnover.operands if o.item == "inventory"]
    assert [o.fiscal_year for o in inventories] == [2024, 2023]
    assert all(operand_is_printed(o, BALANCE, _hd_year) for o in inventories)


def test_a_computed_answer_is_supported_only_by_its_cited_rows_and_its_arithmetic() -> None:
    margin = _calculation("gross_margin")
    passages = {1: EARNINGS, 2: BALANCE}
    assert (
        calculation_is_supported(margin, Decimal("33.4"), passages, {0: 1, 1: 1}, _hd_year) is None
    )
    wrong_passage = calculation_is_supported(
        margin, Decimal("33.4"), passages, {0: 1, 1: 2}, _hd_year
    )
    assert wrong_passage == "passage [2] does not print revenue in its fiscal 2024 column"
    wrong_result = calculation_is_supported(
        margin, Decimal("35.0"), passages, {0: 1, 1: 1}, _hd_year
    )
    assert wrong_result == "the stated gross_margin is not what its operands give"


def test_a_balance_row_names_its_date_when_its_column_names_no_year() -> None:
    """A statement of equity prints a balance by date in its row and by component in its
    columns ("Balance, January 28, 2024 | Total: 1,044")."""
    roe = _calculation("return_on_equity")
    opening = next(o for o in roe.operands if o.fiscal_year == 2023)
    shown = opening.citation.displayed
    assert operand_is_printed(opening, f"Balance, January 28, 2024 | Total: {shown}", _hd_year)
    # The row's date must be of the operand's year, and a column's own year comes first.
    assert not operand_is_printed(opening, f"Balance, January 29, 2023 | Total: {shown}", _hd_year)
    assert not operand_is_printed(
        opening, f"Balance, January 28, 2024 | Fiscal 2022: {shown}", _hd_year
    )
    # A bare year in a label (a maturity schedule's "2024") dates nothing.
    assert not operand_is_printed(opening, f"2023 | Principal: {shown}", _hd_year)
