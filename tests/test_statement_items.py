"""A PDF's primary statements are placed in Item 8 when its Item headings put them elsewhere:
after an Item 8 that only points to them, or before an Item 8 heading found late."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar_rag.domain import FilingHints, RawFiling, Section
from edgar_rag.ingest.blocks import Anchor, Block
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.ingest.statement_items import place_statements_in_item_8, statements_start
from edgar_rag.ingest.statements import StatementKind, StatementPage

PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench" / "pdfs"
needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")
POINTER = Section("Item 8", "Part II", "Financial Statements", 200, 399, cross_reference=True)


def _items(sections: list[Section]) -> list[tuple[str, int, int]]:
    return [(s.item, s.start, s.end) for s in sections]


def test_statements_after_item_16_go_to_item_8_when_item_8_only_points_to_them() -> None:
    sections = [
        Section("Item 7", "Part II", "MD&A", 0, 199),
        POINTER,
        Section("Item 16", "Part IV", "Form 10-K Summary", 400, 2000),
    ]
    placed = place_statements_in_item_8(sections, 900)
    assert _items(placed) == [
        ("Item 7", 0, 199), ("Item 8", 200, 399), ("Item 16", 400, 899), ("Item 8", 900, 2000),
    ]  # fmt: skip
    assert placed[3].title == POINTER.title
    assert not placed[3].cross_reference


def test_a_late_item_8_heading_starts_at_the_statements_instead() -> None:
    sections = [
        Section("Item 7A", "Part II", "Market Risk", 0, 999),
        Section("Item 8", "Part II", "Revenue Recognition", 1000, 5000),
    ]
    assert _items(place_statements_in_item_8(sections, 600)) == [
        ("Item 7A", 0, 599), ("Item 8", 600, 5000),
    ]  # fmt: skip


def test_statements_stay_where_item_8_holds_them_or_a_real_item_8_is_elsewhere() -> None:
    in_item_8 = [Section("Item 7", None, "", 0, 99), Section("Item 8", None, "", 100, 9000)]
    assert place_statements_in_item_8(in_item_8, 500) == in_item_8
    real = Section("Item 8", "Part II", "Financial Statements", 200, 90_000)
    exhibits = Section("Item 15", None, "", 90_001, 99_000)
    elsewhere = [Section("Item 7", None, "", 0, 199), real, exhibits]
    assert place_statements_in_item_8(elsewhere, 95_000) == elsewhere
    whole = [Section("Document", None, "Whole document", 0, 9000)]
    assert place_statements_in_item_8(whole, 500) == whole


def test_the_statements_start_at_the_title_of_the_first_primary_one() -> None:
    blocks = [
        Block("Report of Independent Registered Public Accounting Firm"),
        Block("Consolidated Statements of Income"),
        Block("(in millions) 2022 2021"),
        Block("Net sales | 2022: 9 | 2021: 8", anchors=(Anchor("row:57.0.0", 18),)),
        Block("Net sales | 2022: 9 | 2021: 8", anchors=(Anchor("row:90.0.0", 18),)),
    ]
    starts = [0, 60, 100, 130, 170]
    found = [
        StatementPage(StatementKind.INCOME, "Consolidated Statements of Income", 57, (2022,), 20),
        StatementPage(StatementKind.INCOME, "Condensed Statements of Income", 90, (2022,), 5),
    ]
    assert statements_start(found, blocks, starts) == 60
    assert statements_start([], blocks, starts) is None


@needs_pdfs
def test_corning_s_statements_printed_after_item_16_are_cited_as_item_8() -> None:
    content = (PDFS / "CORNING_2022_10K.pdf").read_bytes()
    parsed = ingest_filing(
        RawFiling(content, "CORNING_2022_10K.pdf", FilingHints(company="Corning"))
    )
    items = {parsed.chunks[f.chunk_ordinal or 0].item for f in parsed.facts if f.statement}
    assert items == {"Item 8"}
    assert [s.item for s in parsed.sections].count("Item 16") == 1
