"""A plain-HTML 10-K (no inline XBRL) read as a PDF is: statement tables as row figures.

The filing is the sample's Apple 2025 10-K with its ix tags taken out (their text kept, the
hidden ``ix:header`` dropped), as an older 10-K without XBRL prints it.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import lxml.html
import pytest
from click.testing import CliRunner

from edgar_rag.cli import main
from edgar_rag.domain import FigureSource, ParsedFiling
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.ingest.table_statements import column_named, read_table_statement
from edgar_rag.ingest.tables import Cell, read_table


def _without_xbrl(content: bytes) -> bytes:
    root = lxml.html.document_fromstring(content, parser=lxml.html.HTMLParser(huge_tree=True))
    for header in list(root.iter("ix:header")):
        header.drop_tree()
    for element in [e for e in root.iter() if isinstance(e.tag, str) and e.tag.startswith("ix:")]:
        element.drop_tag()
    return bytes(lxml.html.tostring(root, doctype="<!DOCTYPE html>"))


@pytest.fixture(scope="module")
def plain_apple(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Path:
    """The sample's Apple 2025 10-K without XBRL, laid out as ``AAPL/2025/filing.htm``."""
    local = next(f for f in find_local_filings([sample_dir]) if "AAPL/2025" in str(f.path))
    folder = tmp_path_factory.mktemp("plain") / "AAPL" / "2025"
    folder.mkdir(parents=True)
    (folder / "filing.htm").write_bytes(_without_xbrl(local.load().content))
    return folder.parent.parent


@pytest.fixture(scope="module")
def parsed(plain_apple: Path) -> ParsedFiling:
    local = next(iter(find_local_filings([plain_apple])))
    return ingest_filing(local.load())


def test_the_primary_statements_of_a_filing_without_xbrl_are_found_with_their_years(
    parsed: ParsedFiling,
) -> None:
    assert not any(f.source is FigureSource.XBRL for f in parsed.facts)
    found = {s.kind: s.years for s in parsed.meta.statements}
    assert found["income_statement"] == (2025, 2024, 2023)
    assert found["balance_sheet"] == (2025, 2024)
    assert found["cash_flow"] == (2025, 2024, 2023)
    assert parsed.meta.years_reported == (2023, 2024, 2025)


def test_its_statement_rows_are_figures_with_period_scale_and_the_chunk_printing_them(
    parsed: ParsedFiling,
) -> None:
    figures = {
        (f.statement, f.label, f.fiscal_year): f
        for f in parsed.facts
        if f.source is FigureSource.ROW
    }
    net_income = figures[("income_statement", "Net income", 2025)]
    assert (net_income.value, net_income.unit, net_income.scale) == (112_010e6, "USD", 6)
    assert net_income.period_end == date(2025, 9, 27)
    assert figures[("income_statement", "Net income", 2024)].value == 93_736e6
    eps = figures[("income_statement", "Earnings per share: Diluted", 2025)]
    assert (eps.value, eps.unit, eps.scale) == (7.46, "USD/shares", 0)
    shares = figures[
        ("income_statement", "Shares used in computing earnings per share: Diluted", 2025)
    ]
    assert (shares.value, shares.unit, shares.scale) == (
        15_004_697e3,
        "shares",
        3,
    )  # "in thousands"
    assets = figures[("balance_sheet", "Total assets", 2025)]
    assert (assets.value, assets.period_start, assets.period_end) == (
        359_241e6, None, date(2025, 9, 27)
    )  # fmt: skip
    assert figures[("balance_sheet", "Total assets", 2024)].value == 364_980e6
    chunk = parsed.chunks[assets.chunk_ordinal or 0]
    assert "Total assets | September 27, 2025: 359,241" in chunk.text
    assert parsed.text[assets.offset or 0 :].startswith("359,241")


def test_a_titled_table_reads_negatives_dashes_and_leaves_percentages_and_two_years_out() -> None:
    rows = [
        [Cell("", 0, 0), Cell("2024", 1, 1), Cell("% of sales", 2, 2), Cell("2023", 3, 3),
         Cell("% Change 2024 vs. 2023", 4, 4)],
        *(
            [Cell(label, 0, 0), Cell(value, 1, 1), Cell("40.0%", 2, 2), Cell("90", 3, 3),
             Cell("11", 4, 4)]
            for label, value in (("Net sales", "100"), ("Cost of sales", "(60)"),
                                 ("Restructuring", "—"), ("Net income", "40"))
        ),
    ]  # fmt: skip
    table = read_table(rows, ["(in millions)"])
    statement = read_table_statement(table, ["Consolidated Statements of Income"], "t")
    assert statement is not None
    figures = [(f.label, f.column.year, f.value) for f in statement.figures]
    assert figures == [
        ("Net sales", 2024, 100e6), ("Net sales", 2023, 90e6),
        ("Cost of sales", 2024, -60e6), ("Cost of sales", 2023, 90e6),
        ("Restructuring", 2024, 0.0), ("Restructuring", 2023, 90e6),
        ("Net income", 2024, 40e6), ("Net income", 2023, 90e6),
    ]  # fmt: skip
    assert read_table_statement(table, ["Results of operations"], "t") is None
    assert column_named("Fiscal 2024 % of Net Sales") is None
    assert column_named("Years ended September 27, 2025") is not None


def test_ask_answers_a_figure_of_a_filing_without_xbrl_in_code(
    plain_apple: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_DB", str(tmp_path / "index.db"))
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_GENERATOR", "echo")
    monkeypatch.chdir(tmp_path)
    run = CliRunner()
    assert run.invoke(main, ["ingest", "--from", str(plain_apple)]).exit_code == 0
    asked = run.invoke(
        main, ["ask", "What was Apple's net income in fiscal 2025?", "--ticker", "AAPL", "--json"]
    )
    body = json.loads(asked.stdout)
    assert body["generator"] == "computed"
    assert "$112,010 million" in body["text"]
    assert "Net income | September 27, 2025: 112,010" in body["citations"][0]["quote"]
