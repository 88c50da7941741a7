"""The largest line of a balance sheet's liabilities or assets, picked in code from its rows
(American Express's 2022 10-K, a FinanceBench PDF), totals aside."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED
from edgar_rag.answer.largest import LargestLine, read_largest_line
from edgar_rag.compose import build_company_list
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from fakes import ScriptedGenerator, scripted_answerer

PDF = Path("../shared/corpus/financebench/pdfs/AMERICANEXPRESS_2022_10K.pdf")


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What was the largest liability in Acme's Balance Sheet in 2022?",
         LargestLine("liabilities", largest=True)),
        ("Which is the smallest asset on Acme's balance sheet?",
         LargestLine("assets", largest=False)),
        ("What is Acme's largest customer?", None),
        ("What was the largest asset class of Acme's pension plan?", None),
    ],
)  # fmt: skip
def test_the_superlative_and_its_side_are_read(question: str, asked: LargestLine | None) -> None:
    assert read_largest_line(question) == asked


@pytest.mark.skipif(not PDF.exists(), reason=f"no {PDF}")
def test_the_largest_liability_is_picked_from_the_rows_and_cited(tmp_path: Path) -> None:
    index = SqliteIndex(tmp_path / "index.db")
    list(index_filings(find_local_filings([PDF], build_company_list()), index, HashingEmbedder()))
    filing = next(iter(index.filings()))
    model = ScriptedGenerator([])
    answerer = scripted_answerer(index, model, computed=True)
    scope = index.resolve_scope(cik=filing.cik)
    response = answerer.answer(
        "What was the largest liability in American Express's Balance Sheet in 2022?", scope
    )
    assert response.generator == COMPUTED, (response.reason, response.detail)
    assert (response.text or "").startswith(
        "The largest liability line on American Express' balance sheet at the end of fiscal "
        "2022 was customer deposits, ahead of long-term debt: American Express' customer "
        "deposits were $110,239 million in fiscal 2022 [1]"
    )  # "Total liabilities", 203,643, is no line of its own
    assert len(response.citations) == 2
    earlier = answerer.answer(
        "What was the largest asset on American Express's balance sheet in 2021?", scope
    )
    assert "was Card Member loans, less reserves for credit losses" in (earlier.text or "")
    assert "$85,257 million in fiscal 2021" in (earlier.text or "")
    assert model.prompts == []
