"""A quarter's report answered in code as a year of two columns (Best Buy's 10-Q for the second
quarter of fiscal 2024, a FinanceBench PDF): the quarter's three-month figures and quarter-end
balances, the same quarter a year before, each said of its quarter."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED
from edgar_rag.answer.quarter import in_quarter, quarter_facts
from edgar_rag.compose import build_company_list
from edgar_rag.domain import Fact, FilingMeta, Reason, Response, SourceFormat
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from fakes import ScriptedGenerator, scripted_answerer

PDF = Path("../shared/corpus/financebench/pdfs/BESTBUY_2024Q2_10Q.pdf")
needs_pdf = pytest.mark.skipif(not PDF.exists(), reason=f"no {PDF}")


def _fact(start: date | None, end: date, value: float) -> Fact:
    return Fact("us-gaap:Revenues", value, str(value), "USD", -6, start, end, (), None)


def test_the_view_keeps_three_month_flows_and_quarter_end_balances_dated_as_years() -> None:
    filing = FilingMeta(
        company="Acme", cik=1, ticker="ACME", form="10-Q", fiscal_year=2024,
        period_end=date(2023, 7, 29), accession=None, filing_date=None, url=None,
        years_reported=(2023, 2024), source="t", sha256="", source_format=SourceFormat.PDF,
        fiscal_quarter=2,
    )  # fmt: skip
    facts = [
        _fact(date(2023, 4, 30), date(2023, 7, 29), 1.0),  # the quarter
        _fact(date(2022, 5, 1), date(2022, 7, 30), 2.0),  # the same quarter a year before
        _fact(date(2023, 1, 29), date(2023, 7, 29), 3.0),  # six months: not a quarter's
        _fact(None, date(2023, 7, 29), 4.0),  # the quarter-end balance
        _fact(None, date(2023, 1, 28), 5.0),  # the last year end's balance: another period
    ]
    kept = quarter_facts(facts, filing)
    assert [fact.value for fact in kept] == [1.0, 2.0, 4.0]
    assert kept[0].period_start == date(2022, 7, 30)  # a year long, ending on the quarter's day
    assert in_quarter("revenue in fiscal 2024 and fiscal 2023", 2, 2024) == (
        "revenue in the second quarter of fiscal 2024 and the second quarter of fiscal 2023"
    )
    assert in_quarter("cash in fiscal 2024 and fiscal 2023", 2, 2024, year_end=True) == (
        "cash in the second quarter of fiscal 2024 and the end of fiscal 2023"
    )


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("quarter") / "index.db")
    list(index_filings(find_local_filings([PDF], build_company_list()), index, HashingEmbedder()))
    return index


def _ask(index: SqliteIndex, question: str) -> tuple[Response, ScriptedGenerator]:
    filing = next(iter(index.filings()))
    model = ScriptedGenerator(["It does."] * 2)
    answerer = scripted_answerer(index, model, computed=True)
    scope = index.resolve_scope(cik=filing.cik, form="10-Q", fiscal_quarter=2)
    return answerer.answer(question, scope), model


@needs_pdf
def test_a_quarters_figure_is_looked_up_and_computed_and_said_of_its_quarter(
    index: SqliteIndex,
) -> None:
    revenue, model = _ask(index, "What was Best Buy's revenue in Q2 of FY2024?")
    assert revenue.generator == COMPUTED, (revenue.reason, revenue.detail)
    assert revenue.text == (
        "Best Buy's revenue was $9,583 million in the second quarter of fiscal 2024 [1]."
    )
    assert "Three months ended July 29, 2023: 9,583" in revenue.citations[0].quote
    change, _ = _ask(index, "How much did Best Buy's revenue change in Q2 FY2024 compared to "
                     "Q2 FY2023?")  # fmt: skip
    assert (change.text or "").startswith(
        "Best Buy's revenue fell by $746 million from the second quarter of fiscal 2023 to the "
        "second quarter of fiscal 2024:"
    )  # 10,329 to 9,583, the three months ended July 30, 2022 and July 29, 2023
    margin, _ = _ask(index, "What was Best Buy's gross margin in the second quarter of fiscal "
                     "2024?")  # fmt: skip
    assert (margin.text or "").startswith(
        "Best Buy's gross margin was 23.2% in the second quarter of fiscal 2024"
    )
    assert model.prompts == []


@needs_pdf
def test_another_quarter_is_declined_and_a_longer_span_is_left_to_the_model(
    index: SqliteIndex,
) -> None:
    other, _ = _ask(index, "What was Best Buy's revenue in Q1 of FY2024?")
    assert other.reason is Reason.OUT_OF_PERIOD
    half, model = _ask(index, "What was Best Buy's revenue in the first half of fiscal 2024?")
    assert half.generator != COMPUTED
    assert model.prompts  # six months' figures are not the view's: the passages are read
    year, model = _ask(index, "What was Best Buy's revenue in fiscal 2023?")
    assert year.generator != COMPUTED  # a year's figure, which no quarter's column is
    assert model.prompts


@needs_pdf
def test_the_quarters_end_is_set_against_the_last_year_end_the_report_prints(
    index: SqliteIndex,
) -> None:
    drop, model = _ask(index, "Was there any drop in Cash & Cash equivalents between FY 2023 "
                       "and Q2 of FY2024?")  # fmt: skip
    assert drop.generator == COMPUTED, (drop.reason, drop.detail)
    assert (drop.text or "").startswith(
        "Yes. Best Buy's cash and cash equivalents fell by $781 million from the end of fiscal "
        "2023 to the second quarter of fiscal 2024:"
    )  # 1,874 on January 28, 2023; 1,093 on July 29, 2023
    assert "the end of fiscal 2023: $1,874 million" in (drop.text or "")
    # a quarter's flow has no year-end column to be set against
    flow, _ = _ask(index, "How much did Best Buy's revenue change from FY 2023 to Q2 of FY2024?")
    assert flow.generator != COMPUTED or flow.reason is not None
    assert model.prompts == []
