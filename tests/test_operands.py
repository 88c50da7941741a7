"""Search's operand ranking: a question naming a metric finds the chunks displaying the figures
the metric is computed from, though the question names none of them."""

from __future__ import annotations

from datetime import date

from edgar_rag.domain import FactRef
from edgar_rag.figures.library import load_library
from edgar_rag.figures.operands import LibraryOperands
from edgar_rag.retrieve.facts import rank_operand_chunks

END = date(2023, 6, 30)
BEFORE = date(2022, 6, 30)
READER = LibraryOperands(load_library())
BALANCE_SHEET = [
    FactRef("", 7, END, False, "Current assets: Total current assets"),
    FactRef("", 7, END, False, "Current assets: Inventories (Note 6)"),
    FactRef("", 7, END, False, "Current liabilities: Total current liabilities"),
    FactRef("", 7, BEFORE, False, "Current liabilities: Total current liabilities"),
]
INVENTORY_NOTE = [FactRef("", 9, END, False, "Inventories")]
OLD_TABLE = [FactRef("", 3, BEFORE, False, "Total current assets")]
XBRL = [FactRef("us-gaap:AssetsCurrent", 11, END, False)]


def test_a_metric_s_operands_are_its_formula_s_line_items() -> None:
    quick = READER("Has the quick ratio improved between FY2023 and FY2022?", named_items=False)
    rows = {row for operand in quick for row in operand.rows}

    assert len(quick) == 3
    assert {"total current assets", "inventories", "total current liabilities"} <= rows
    assert READER("Who are the primary customers of the company?", named_items=True) == ()


def test_a_line_item_named_in_passing_counts_only_when_asked_for() -> None:
    question = "Does Alphabet plan to keep paying dividends, and who decides?"

    assert READER(question, named_items=False) == ()
    assert len(READER(question, named_items=True)) == 1


def test_the_chunk_displaying_most_operands_of_the_filing_s_year_comes_first() -> None:
    facts = [*OLD_TABLE, *INVENTORY_NOTE, *BALANCE_SHEET, *XBRL]
    ranked = rank_operand_chunks(
        READER("What is the quick ratio?", named_items=True), facts, END, 10
    )

    # The XBRL fact is the facts ranker's, by its concept.
    assert [chunk for chunk, _ in ranked] == [7, 9, 3]


def test_a_row_is_named_by_its_own_label_not_its_heading() -> None:
    heading_only = [FactRef("", 5, END, False, "Total current assets: Other")]

    assert (
        rank_operand_chunks(READER("current ratio", named_items=True), heading_only, END, 10) == []
    )
