"""The hand-checked sample of FinanceBench statement rows (data/financebench/statement_rows.json):
the PDF reader gets at least 97% of them exactly right (label, column year, scaled value)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgar_rag.ingest.statements import RowFigure
from edgar_rag_dev.bench.pdf_readers import render, sample_figures, sample_row_matches

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "financebench" / "statement_rows.json"
PDFS = ROOT.parent / "shared" / "corpus" / "financebench" / "pdfs"


def test_the_sample_covers_at_least_100_verified_rows_from_10_pdfs() -> None:
    rows = json.loads(SAMPLE.read_text(encoding="utf-8"))["rows"]
    verified = [row for row in rows if row["verified"]]
    assert len(verified) >= 100
    assert len({row["pdf"] for row in verified}) >= 10


@pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")
def test_the_reader_gets_97_percent_of_the_hand_checked_rows_exactly_right() -> None:
    rows = [r for r in json.loads(SAMPLE.read_text(encoding="utf-8"))["rows"] if r["verified"]]
    pages: dict[tuple[str, int], list[RowFigure]] = {}
    wrong = []
    for row in rows:
        key = (row["pdf"], row["page"])
        if key not in pages:
            pages[key] = sample_figures(PDFS / row["pdf"], row["page"])
        if not sample_row_matches(row, pages[key]):
            wrong.append(f"{row['pdf']} p{row['page']} {row['label']} {row['year']}")
    assert len(wrong) <= 0.03 * len(rows), wrong


def test_the_reader_page_says_when_pdfplumber_was_not_measured() -> None:
    filing = {
        "pdf": "X.pdf", "pages": 10, "before_s": 0.1, "after_s": 0.12, "statement_pages": 3,
        "primary_with_years": ["balance_sheet"], "figures_agreeing": 0,
        "readers": {"pdfium": {"statements": 3, "with_years": 2, "rows": 40, "figures": 90,
                               "seconds": 0.03}},
    }  # fmt: skip
    page = render(
        {"versions": {"pdfplumber": "not installed", "pypdfium2": "5"}, "filings": [filing]}
    )
    assert "| pdfplumber | not measured (not installed) |" in page
    assert "| pdfium | 3 of 3 | 2 | 40 | 90 | 0.0100 | not scored |" in page
    assert "balance_sheet 1 of 1, cash_flow 0 of 1; all three in 0 of 1 PDFs" in page
