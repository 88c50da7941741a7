"""Search's statement ranking: in a PDF, a prose question naming a statement-level figure (capital
intensity, debt, a margin) finds the primary statement that prints it, by the statement its rows
were read from, whatever the rows are labelled."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from edgar_rag.domain import FactRef, FilingHints, RawFiling, Scope
from edgar_rag.figures.library import load_library
from edgar_rag.figures.operands import LibraryStatements
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.pipeline import ingest_filing
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from edgar_rag.retrieve.statements import primary_statement, rank_statement_chunks

END = date(2018, 12, 31)
READER = LibraryStatements(load_library())
PDFS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "financebench" / "pdfs"
needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")


def _rows(kind: str, *chunks: int) -> list[FactRef]:
    return [FactRef("", chunk, END, False, "Total assets", kind) for chunk in chunks]


def test_the_primary_statement_is_the_run_printing_the_most_of_its_rows() -> None:
    summary = _rows("balance_sheet", 3)  # a condensed balance sheet in the MD&A
    consolidated = _rows("balance_sheet", 40, 40, 41, 41, 43)
    assert primary_statement(summary + consolidated, "balance_sheet") == [40, 41, 43]
    assert primary_statement(consolidated, "cash_flow") == []


def test_statements_are_ranked_first_chunks_first_in_the_order_asked() -> None:
    facts = _rows("income_statement", 30, 31) + _rows("balance_sheet", 40, 41, 42)
    ranked = rank_statement_chunks(["balance_sheet", "income_statement"], facts, 4, depth=2)
    assert [chunk for chunk, _ in ranked] == [40, 30, 41, 31]
    assert [c for c, _ in rank_statement_chunks(["income_statement"], facts, 4)] == [30]
    assert rank_statement_chunks([], facts, 4) == []


def test_a_question_names_the_statements_of_its_metric_items_and_assessments() -> None:
    assert READER("Is 3M a capital-intensive business based on FY2022 data?") == (
        "cash_flow", "balance_sheet", "income_statement",
    )  # fmt: skip
    assert READER("Has it increased its debt on balance sheet since FY2022?") == ("balance_sheet",)
    assert READER("Does it have an improving free cashflow conversion?") == (
        "cash_flow", "income_statement",
    )  # fmt: skip
    assert READER("Who are the primary customers of Boeing as of FY2022?") == ()


@needs_pdfs
def test_a_prose_question_on_a_pdf_finds_its_statements_only_with_the_ranking() -> None:
    content = (PDFS / "3M_2018_10K.pdf").read_bytes()
    parsed = ingest_filing(RawFiling(content, "3M_2018_10K.pdf", FilingHints(company="3M Company")))
    index = SqliteIndex(":memory:")
    embedder = HashingEmbedder()
    index.ensure_embedder(embedder.identity)
    filing_id = index.write_filing(parsed, embedder.embed([c.text for c in parsed.chunks]))
    scope = Scope(filing_id, index.filing_meta(filing_id))
    question = read_question("Is 3M a capital-intensive business based on FY2018 data?")

    def statements_in_top_5(searcher: Searcher) -> set[str | None]:
        chunks = {hit.passage.chunk_id for hit in searcher.search(question, scope, 5)}
        return {f.statement for f in index.displayed_facts(filing_id) if f.chunk_id in chunks}

    plain = statements_in_top_5(Searcher(index, embedder))
    lifted = statements_in_top_5(Searcher(index, embedder, statement_reader=READER))
    assert not plain & {"balance_sheet", "income_statement"}
    assert {"balance_sheet", "income_statement"} <= lifted
