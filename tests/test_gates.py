"""The gates before the model, and the fitting of the cosine gate's threshold."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edgar_rag.answer.gates import (
    GATES,
    apply_gate,
    best_cosine,
    cross_fit_thresholds,
    fit_threshold,
)
from edgar_rag.domain import Chunk, ChunkKind, FilingMeta, Hit, Passage, Reason, SourceFormat
from edgar_rag.errors import ConfigError
from edgar_rag.question.reading import read_question

APPLE = FilingMeta(
    company="Apple Inc.",
    cik=320193,
    ticker="AAPL",
    form="10-K",
    fiscal_year=2025,
    period_end=date(2025, 9, 27),
    accession=None,
    filing_date=None,
    url=None,
    years_reported=(2023, 2024, 2025),
    source="test",
    sha256="",
    source_format=SourceFormat.HTML,
)
IN_PERIOD = "What was Apple's revenue in fiscal 2025?"
OUT_OF_PERIOD = "What was Apple's revenue in fiscal 2019?"


def _hits(*cosines: float) -> list[Hit]:
    chunk = Chunk(0, "Item 7", "MD&A", 0, 4, "text", ChunkKind.PROSE)
    passage = Passage(1, 1, chunk, APPLE)
    return [
        Hit(rank, passage, 1 / (60 + rank), cosine, rank, None)
        for rank, cosine in enumerate(cosines, 1)
    ]


@pytest.mark.parametrize("question", [IN_PERIOD, OUT_OF_PERIOD])
def test_the_none_gate_always_passes(question: str) -> None:
    decision = apply_gate("none", read_question(question, APPLE), APPLE, [], 0.9)
    assert decision.passed
    assert (decision.reason, decision.detail, decision.gate, decision.gate_score) == (
        None, None, "none", None,
    )  # fmt: skip


def test_the_cosine_gate_holds_the_best_cosine_to_the_threshold() -> None:
    passed = apply_gate("cosine", read_question(IN_PERIOD, APPLE), APPLE, _hits(0.41, 0.55), 0.5)
    assert passed.passed
    assert passed.gate_score == 0.55
    assert apply_gate("cosine", read_question(IN_PERIOD, APPLE), APPLE, _hits(0.5), 0.5).passed
    declined = apply_gate(
        "cosine", read_question(OUT_OF_PERIOD, APPLE), APPLE, _hits(0.3, 0.2), 0.5
    )
    assert not declined.passed
    assert declined.reason is Reason.GATE_REJECTED
    assert declined.gate_score == 0.3
    assert declined.detail == "the best passage scores 0.300, under the gate's threshold of 0.500"


def test_the_cosine_gate_declines_when_nothing_was_found() -> None:
    decision = apply_gate("cosine", read_question(IN_PERIOD, None), None, [], 0.1)
    assert (decision.passed, decision.reason, decision.gate_score) == (
        False, Reason.GATE_REJECTED, None,
    )  # fmt: skip


def test_the_best_hit_is_the_closest_not_the_first() -> None:
    assert best_cosine(_hits(0.2, 0.7, 0.4)) == 0.7
    assert best_cosine([]) is None


def test_the_period_gate_declines_a_year_the_filing_does_not_report() -> None:
    decision = apply_gate("period", read_question(OUT_OF_PERIOD, APPLE), APPLE, _hits(0.9), 0.5)
    assert not decision.passed
    assert decision.reason is Reason.OUT_OF_PERIOD
    assert (
        decision.detail == "the question names fiscal 2019; this filing reports fiscal 2023 to 2025"
    )
    assert decision.gate_score is None
    assert apply_gate("period", read_question(IN_PERIOD, APPLE), APPLE, [], 0.5).passed


@pytest.mark.parametrize(
    "question",
    [
        "How did the 2017 Tax Cuts and Jobs Act affect Apple?",
        "What is the status of the European Commission State Aid Decision from 2016?",
    ],
)
def test_the_period_check_leaves_prose_questions_to_the_verifier(question: str) -> None:
    """A prose question's year is often an event's the filing tells of, no statement column."""
    read = read_question(question, APPLE)
    assert read.years
    assert min(read.years) < min(APPLE.years_reported)
    assert apply_gate("period", read, APPLE, _hits(0.9), 0.5).passed


def test_the_period_check_is_skipped_for_a_corpus_wide_question() -> None:
    assert apply_gate("period", read_question(OUT_OF_PERIOD, None), None, [], 0.5).passed
    decision = apply_gate(
        "period+cosine", read_question(OUT_OF_PERIOD, None), None, _hits(0.8), 0.5
    )
    assert decision.passed
    assert decision.gate_score == 0.8


def test_the_period_check_runs_before_the_cosine_one() -> None:
    out = apply_gate("period+cosine", read_question(OUT_OF_PERIOD, APPLE), APPLE, _hits(0.1), 0.5)
    assert (out.reason, out.gate, out.gate_score) == (Reason.OUT_OF_PERIOD, "period+cosine", None)
    low = apply_gate("period+cosine", read_question(IN_PERIOD, APPLE), APPLE, _hits(0.1), 0.5)
    assert (low.reason, low.gate_score) == (Reason.GATE_REJECTED, 0.1)
    good = apply_gate("period+cosine", read_question(IN_PERIOD, APPLE), APPLE, _hits(0.7), 0.5)
    assert (good.passed, good.reason, good.detail, good.gate_score) == (True, None, None, 0.7)


def test_an_unknown_gate_is_a_configuration_error() -> None:
    assert GATES == ("none", "cosine", "period", "period+cosine")
    with pytest.raises(ConfigError, match=r"unknown gate 'cosine\+period'"):
        apply_gate("cosine+period", read_question(IN_PERIOD, APPLE), APPLE, [], 0.5)


def test_the_threshold_is_the_lower_tenth_percentile() -> None:
    scores = [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4, 0.5, 0.55, 0.65]
    assert fit_threshold(scores) == np.quantile(scores, 0.1, method="lower") == 0.2
    assert fit_threshold(scores, admit=1.0) == 0.1
    assert fit_threshold([0.4, 0.5, 0.6, 0.7, 0.8]) == 0.4


def test_fitting_needs_scores_and_a_share_to_admit() -> None:
    with pytest.raises(ValueError, match="no scores"):
        fit_threshold([])
    with pytest.raises(ValueError, match="admit"):
        fit_threshold([0.5], admit=0.0)


@settings(deadline=None)
@given(
    scores=st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=60),
    admit=st.floats(0.5, 1.0),
)
def test_the_threshold_admits_at_least_the_share_asked(scores: list[float], admit: float) -> None:
    threshold = fit_threshold(scores, admit)
    admitted = sum(score >= threshold for score in scores)
    assert threshold in scores
    assert admitted >= admit * len(scores) - 1e-9
    assert fit_threshold(sorted(scores), admit) == threshold


SCORES = {
    "MSFT": [0.6, 0.7, 0.8],
    "AAPL": [0.5, 0.55, 0.9],
    "NVDA": [0.3, 0.65, 0.75],
    "AMZN": [0.45, 0.85, 0.95],
}


def test_companies_alternate_between_folds_by_sorted_name() -> None:
    thresholds = cross_fit_thresholds(SCORES)
    fold_a = fit_threshold(SCORES["AMZN"] + SCORES["NVDA"])  # AAPL, MSFT held out
    fold_b = fit_threshold(SCORES["AAPL"] + SCORES["MSFT"])  # AMZN, NVDA held out
    assert thresholds == {"AAPL": fold_a, "MSFT": fold_a, "AMZN": fold_b, "NVDA": fold_b}
    assert cross_fit_thresholds(dict(reversed(SCORES.items()))) == thresholds


def test_three_folds_fit_each_on_the_other_two() -> None:
    thresholds = cross_fit_thresholds(SCORES, folds=3)  # folds: AAPL+NVDA, AMZN, MSFT
    assert (
        thresholds["AAPL"] == thresholds["NVDA"] == fit_threshold(SCORES["AMZN"] + SCORES["MSFT"])
    )
    others = SCORES["AAPL"] + SCORES["NVDA"]
    assert thresholds["AMZN"] == fit_threshold(others + SCORES["MSFT"])
    assert thresholds["MSFT"] == fit_threshold(others + SCORES["AMZN"])


@settings(deadline=None)
@given(st.lists(st.floats(-1.0, 1.0), min_size=1, max_size=10))
def test_a_company_s_own_scores_never_set_its_threshold(own: list[float]) -> None:
    changed = {**SCORES, "AAPL": own}
    assert cross_fit_thresholds(changed)["AAPL"] == cross_fit_thresholds(SCORES)["AAPL"]


def test_cross_fitting_needs_two_folds_with_scores() -> None:
    with pytest.raises(ValueError, match="at least 2 folds"):
        cross_fit_thresholds(SCORES, folds=1)
    with pytest.raises(ValueError, match="no scores outside fold 0"):
        cross_fit_thresholds({"AAPL": [0.5]})
