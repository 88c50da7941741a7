"""A metric the question hedges, said in code not to fit a lender (American Express's 10-K, a
FinanceBench PDF), and left alone where the filer is no lender (Boeing's, which prints no gross
profit row either)."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED
from edgar_rag.compose import build_company_list
from edgar_rag.domain import Response
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.verdicts import read_hedged_metric
from fakes import ScriptedGenerator, scripted_answerer

PDFS = Path("../shared/corpus/financebench/pdfs")
needs_pdfs = pytest.mark.skipif(not PDFS.exists(), reason=f"FinanceBench PDFs not at {PDFS}")


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        (
            "What drove gross margin change as of FY2022? If gross margin is not a useful "
            "metric for a company like this, then please state that and explain why.",
            "gross margin",
        ),
        (
            "Has its quick ratio improved or declined? If the quick ratio is not something "
            "that a financial analyst would ask about a company like this, then state that.",
            "quick ratio",
        ),
        (
            "Are its gross margins consistent? If gross margins are not a relevant metric ...",
            "gross margin",
        ),
        ("If restructuring costs are not explicitly outlined then state 0.", None),
        ("What was its operating margin in 2022?", None),
    ],
)
def test_the_hedge_names_its_metric(question: str, measure: str | None) -> None:
    hedged = read_hedged_metric(question)
    assert (hedged.measure if hedged is not None else None) == measure


def _ask(pdf: str, question: str, tmp_path: Path) -> tuple[Response, ScriptedGenerator]:
    index = SqliteIndex(tmp_path / "index.db")
    sources = find_local_filings([PDFS / pdf], build_company_list())
    list(index_filings(sources, index, HashingEmbedder()))
    filing = next(iter(index.filings()))
    model = ScriptedGenerator(["It does."] * 2)
    answerer = scripted_answerer(index, model, computed=True)
    return answerer.answer(question, index.resolve_scope(cik=filing.cik)), model


@needs_pdfs
def test_a_margin_a_lender_does_not_report_is_said_not_to_fit_with_its_provision_cited(
    tmp_path: Path,
) -> None:
    response, model = _ask(
        "AMERICANEXPRESS_2022_10K.pdf",
        "Does AMEX have an improving operating margin profile as of 2022? If operating margin "
        "is not a useful metric for a company like this, then state that and explain why.",
        tmp_path,
    )
    assert response.generator == COMPUTED, (response.reason, response.detail)
    assert (response.text or "").startswith(
        "Operating margin is not a useful metric for American Express: operating income for "
        "fiscal 2022 is not reported"
    )
    assert "provision for credit losses was $2,182 million in fiscal 2022 [1]" in (
        response.text or ""
    )  # "Total provisions for credit losses", its income statement's row
    assert len(response.citations) == 1
    assert model.prompts == []


@needs_pdfs
def test_a_margin_a_filer_that_is_no_lender_lacks_goes_on_to_the_model(tmp_path: Path) -> None:
    response, model = _ask(
        "BOEING_2022_10K.pdf",
        "Does Boeing have an improving gross margin profile as of FY2022? If gross margin is "
        "not a useful metric for a company like this, then state that and explain why.",
        tmp_path,
    )
    assert response.generator != COMPUTED
    assert "not a useful metric" not in (response.text or "")
    assert model.prompts  # the passages were read by the model
