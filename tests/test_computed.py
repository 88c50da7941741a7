"""Figure questions answered in code from the sample filings' reported figures: a lookup, a
library metric, a formula the question states, and the declines; the model is never asked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED, Answerer
from edgar_rag.answer.computed import ComputedAnswers, display_company
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Prompt, Reason, Response
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.models import AskResponse
from fakes import ScriptedGenerator


class NoModel:
    """A generator that fails the test when asked: a computed answer needs no model."""

    name = "no-model"

    def generate(self, prompt: Prompt) -> object:
        raise AssertionError(f"the model was asked: {prompt.messages[-1].content[:80]}")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("computed") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def ask(
    index: SqliteIndex, question: str, ticker: str, year: int, model: object = None
) -> Response:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=model or NoModel(),  # type: ignore[arg-type]
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
    )
    return answerer.answer(question, index.resolve_scope(ticker=ticker, fiscal_year=year))


def _figures(text: str) -> list[str]:
    return re.findall(r"\d[\d,]*(?:\.\d+)?", text)


def test_a_reported_figure_is_looked_up_and_cited_to_its_column(index: SqliteIndex) -> None:
    response = ask(index, "What was Apple's diluted EPS in fiscal 2024?", "AAPL", 2025)
    assert response.reason is None, response.detail
    assert response.generator == COMPUTED
    assert response.text == "Apple's diluted earnings per share was $6.08 in fiscal 2024 [1]."
    (citation,) = response.citations
    assert "September 28, 2024: 6.08" in citation.quote
    assert citation.quote.startswith("Earnings per share: Diluted")
    assert response.calculation is None


def test_a_margin_is_computed_from_cited_operands(index: SqliteIndex) -> None:
    response = ask(index, "What was Home Depot's gross margin in fiscal 2024?", "HD", 2024)
    assert response.reason is None, response.detail
    assert response.text is not None
    assert response.text.startswith("Home Depot's gross margin was 33.4% in fiscal 2024: ")
    calculation = AskResponse.of(response).model_dump(mode="json")["calculation"]
    assert calculation["formula"] == "gross_profit / revenue"
    assert calculation["result"] == "33.4"
    assert calculation["rounding"] == {"decimals": 1, "mode": "half_up"}
    quotes = {c.marker: c.quote for c in response.citations}
    for operand in calculation["operands"]:
        # Each operand is printed in the passage its marker cites, in its year's column.
        assert f"Fiscal 2024: {operand['printed']}" in quotes[operand["marker"]]
        assert f"[{operand['marker']}]" in response.text
    values = {o["item"]: float(o["value"]) for o in calculation["operands"]}
    assert round(100 * values["gross_profit"] / values["revenue"], 1) == 33.4


def test_a_formula_the_question_states_is_computed_over_two_year_ends(index: SqliteIndex) -> None:
    question = (
        "What is Apple's FY2025 fixed asset turnover ratio? Fixed asset turnover ratio is "
        "defined as: FY2025 revenue / (average PP&E between FY2024 and FY2025). Round your "
        "answer to two decimal places."
    )
    response = ask(index, question, "AAPL", 2025)
    assert response.reason is None, response.detail
    assert response.calculation is not None
    operands = response.calculation["operands"]
    assert isinstance(operands, list)
    assert sorted((o["item"], o["fiscal_year"]) for o in operands) == [
        ("ppe_net", 2024), ("ppe_net", 2025), ("revenue", 2025),
    ]  # fmt: skip
    revenue, ppe = 416_161, (49_834 + 45_680) / 2
    assert response.calculation["result"] == f"{revenue / ppe:.2f}"
    assert response.text is not None
    assert f"{revenue / ppe:.2f}x" in response.text


def test_a_figure_the_filing_does_not_report_is_a_missing_figure(index: SqliteIndex) -> None:
    response = ask(index, "What was Apple's net income in fiscal 2019?", "AAPL", 2025)
    assert response.reason is Reason.MISSING_FIGURE
    assert response.detail is not None
    assert "net income" in response.detail
    assert "2019" in response.detail
    assert response.text is None
    assert response.citations == ()


def test_a_formula_that_divides_by_zero_declines_naming_why(index: SqliteIndex) -> None:
    question = (
        "What is Apple's FY2025 asset gap ratio? Asset gap ratio is defined as: "
        "FY2025 revenue / (FY2025 total assets - FY2025 total assets)."
    )
    response = ask(index, question, "AAPL", 2025)
    assert response.reason is Reason.MISSING_FIGURE
    assert "zero" in (response.detail or "")
    assert not _figures(response.detail or "")  # names no withheld figure


def test_a_narrative_question_goes_to_the_model(index: SqliteIndex) -> None:
    model = ScriptedGenerator(["NONE"])
    response = ask(index, "Why does Apple depend on outsourcing partners?", "AAPL", 2025, model)
    assert response.generator == model.name
    assert model.prompts


@pytest.mark.parametrize(
    ("filer", "shown"),
    [("Apple Inc.", "Apple"), ("HOME DEPOT, INC.", "Home Depot"), ("NVIDIA CORP", "Nvidia")],
)
def test_a_filer_is_named_as_a_sentence_would(filer: str, shown: str) -> None:
    assert display_company(filer) == shown
