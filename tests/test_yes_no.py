"""Yes-or-no questions a figure decides: read into the figure question, answered in code from
the sample filings' figures with the yes or no first, and left to the model otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED, Answerer, AnswerSettings
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Reason, Response
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.verdicts import (
    Decides,
    read_most_cash_activity,
    read_named_calculation,
    read_yes_no_figure,
)
from edgar_rag.retrieve.search import Searcher
from fakes import ScriptedGenerator


@pytest.mark.parametrize(
    ("question", "figure_question", "decides"),
    [
        (
            "Does Acme have an improving operating margin profile as of FY2022? If operating "
            "margin is not a useful metric for a company like this, then state that and explain "
            "why.",
            "How much did Acme's operating margin change from FY2021 to FY2022?",
            Decides.RISE,
        ),
        (
            "Does Acme have positive working capital based on FY2022 data?",
            "What was Acme's working capital in FY2022?",
            Decides.POSITIVE,
        ),
        (
            "Did Acme grow its PPNE between FY20 and FY21?",
            "How much did Acme's PPNE change from FY2020 to FY2021?",
            Decides.RISE,
        ),
        (
            "Has Acme increased its debt on balance sheet between FY2023 and the FY2022 period?",
            "How much did Acme's debt change from FY2022 to FY2023?",
            Decides.RISE,
        ),
        (
            "Was there any drop in Cash & Cash equivalents between FY 2023 and Q2 of FY2024?",
            "How much did the Cash & Cash equivalents change from FY 2023 to Q2 of FY2024?",
            Decides.FALL,
        ),
    ],
)
def test_a_yes_or_no_question_is_read_into_the_figure_that_decides_it(
    question: str, figure_question: str, decides: Decides
) -> None:
    read = read_yes_no_figure(question)
    assert read is not None
    assert (read.figure_question, read.decides) == (figure_question, decides)


def test_an_either_or_question_answers_with_one_of_its_words() -> None:
    read = read_yes_no_figure(
        "Has Acme's quick ratio improved or declined between FY2023 and FY2022?"
    )
    assert read is not None
    assert read.either == ("improved", "declined")
    assert read.figure_question == "How much did Acme's quick ratio change from FY2022 to FY2023?"


@pytest.mark.parametrize(
    "question",
    [
        # a cost is better lower: "improving" of it has no sign to decide it
        "Does Acme have an improving SG&A expense profile as of FY2022?",
        "Is Acme a capital-intensive business based on FY2022 data?",
        "Has Acme reported any materially important ongoing legal battles from FY2022?",
    ],
)
def test_a_question_no_sign_decides_is_not_read(question: str) -> None:
    assert read_yes_no_figure(question) is None


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("yes-no") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def _ask(index: SqliteIndex, question: str, model: ScriptedGenerator) -> Response:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=model,
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
        settings=AnswerSettings(),
    )
    return answerer.answer(question, index.resolve_scope(ticker="HD", fiscal_year=2024))


def test_the_computed_figure_says_yes_or_no_first(index: SqliteIndex) -> None:
    model = ScriptedGenerator([])
    # Home Depot's operating margin: 14.2% in fiscal 2023, 13.5% in fiscal 2024.
    fell = _ask(index, "Does Home Depot have an improving operating margin profile as of FY2024?",
                model)  # fmt: skip
    assert fell.generator == COMPUTED, fell.detail
    assert (fell.text or "").startswith(
        "No. Home Depot's operating margin fell by 0.7 percentage points from 14.2% in fiscal "
        "2023 to 13.5% in fiscal 2024:"
    )
    positive = _ask(index, "Does Home Depot have positive working capital based on FY2024 data?",
                    model)  # fmt: skip
    assert (positive.text or "").startswith("Yes. Home Depot's working capital was $")
    assert model.prompts == []


def test_a_sentence_naming_the_figure_to_compute_is_read_as_its_question() -> None:
    asked = read_named_calculation(
        "Roughly how many times has Acme sold its inventory in FY2022? Calculate inventory "
        "turnover ratio for FY2022; if conventional inventory management is not meaningful for "
        "the company then state that and explain why."
    )
    assert asked == "What was the inventory turnover ratio for FY2022?"
    assert read_named_calculation("How did Acme calculate its inventory reserve?") is None


def test_a_question_code_cannot_plan_as_worded_is_answered_from_the_figure_it_names(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([])
    response = _ask(
        index,
        "Roughly how many times did Home Depot sell through its stock in FY2024? Calculate "
        "inventory turnover ratio for FY2024.",
        model,
    )
    assert response.generator == COMPUTED, response.detail
    assert (response.text or "").startswith("Home Depot's inventory turnover was ")
    assert model.prompts == []


def test_which_activity_brought_in_the_most_cash_is_read_with_its_year() -> None:
    asked = (
        "Among operations, investing, and financing activities, which brought in the most (or "
        "lost the least) cash flow for Acme in FY2023?"
    )
    assert read_most_cash_activity(asked) == 2023
    assert read_most_cash_activity("Which activity used the most cash?") is None


def test_the_activity_bringing_in_the_most_cash_is_named_from_its_three_cited_totals(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([])
    response = _ask(
        index,
        "Among operations, investing, and financing activities, which brought in the most (or "
        "lost the least) cash flow for Home Depot in FY2024?",
        model,
    )
    assert response.generator == COMPUTED, response.detail
    text = response.text or ""
    assert text.startswith("Operating activities brought in the most cash in fiscal 2024: ")
    for activity in ("operating", "investing", "financing"):
        assert f"net cash from {activity} activities was " in text
    assert len(response.citations) == 3
    assert model.prompts == []


def test_a_steadiness_with_its_own_limit_is_read_over_the_filings_years() -> None:
    question = (
        "Are Acme's gross margins historically consistent (not fluctuating more than roughly 2% "
        "each year)? If gross margins are not a relevant metric for a company like this, then "
        "please state that and explain why."
    )
    read = read_yes_no_figure(question, (2021, 2022, 2023))
    assert read is not None
    assert read.decides is Decides.STEADY
    assert read.figure_question == "What was Acme's gross margin in FY2021, FY2022, FY2023?"
    assert str(read.limit) == "2"
    assert read_yes_no_figure(question) is None  # no years to judge "historically" over


def test_a_steady_margin_is_judged_by_each_yearly_step_against_the_limit(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([])
    # Home Depot's operating margin: 15.3% (2022), 14.2% (2023), 13.5% (2024): steps 1.1, 0.7.
    wide = _ask(index, "Is Home Depot's operating margin historically stable (not fluctuating "
                "more than 2% each year)?", model)  # fmt: skip
    assert wide.generator == COMPUTED, wide.detail
    assert (wide.text or "").startswith(
        "Yes. Home Depot's operating margin moved by at most 1.1 percentage points from one "
        "year to the next, within the 2 points the question allows."
    )
    narrow = _ask(index, "Is Home Depot's operating margin historically stable (not "
                  "fluctuating more than 0.5% each year)?", model)  # fmt: skip
    assert (narrow.text or "").startswith(
        "No. Home Depot's operating margin moved by 1.1 percentage points in one year"
    )
    for year in (2022, 2023, 2024):
        assert f"in fiscal {year}, computed as operating income / revenue" in (narrow.text or "")
    assert model.prompts == []


def test_a_level_asked_in_several_years_is_answered_for_each(index: SqliteIndex) -> None:
    model = ScriptedGenerator([])
    response = _ask(index, "What was Home Depot's revenue in FY2023 and FY2024?", model)
    assert response.generator == COMPUTED, response.detail
    text = response.text or ""
    assert "$159,514 million in fiscal 2024" in text
    assert "$152,669 million in fiscal 2023" in text
    # one figure over two years is still one figure: the average's years are its own
    single = _ask(index, "What was Home Depot's return on average equity between FY2023 and "
                  "FY2024?", model)  # fmt: skip
    assert (single.text or "").count("return on equity was") == 1


def test_a_later_year_asked_of_the_outlook_reaches_the_passages_and_a_report_of_it_does_not(
    index: SqliteIndex,
) -> None:
    outlook = ScriptedGenerator(["I cannot tell."] * 2)
    asked = _ask(index, "As of FY2024, what capital expenditures did Home Depot expect for "
                 "fiscal 2026?", outlook)  # fmt: skip
    assert asked.reason is not Reason.OUT_OF_PERIOD, asked.detail
    assert outlook.prompts  # the 10-K's outlook is read for it
    report = ScriptedGenerator([])
    reported = _ask(index, "What were Home Depot's capital expenditures in fiscal 2026?", report)
    assert reported.reason is Reason.OUT_OF_PERIOD
    assert report.prompts == []
