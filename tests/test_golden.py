"""The golden set and the answering report: generated from XBRL facts, scored as masks."""

from __future__ import annotations

import pytest

from edgar_rag.domain import ParsedFiling
from edgar_rag_dev.eval.answering import gold_matches
from edgar_rag_dev.eval.golden import (
    METRICS,
    GoldenQuestion,
    golden_questions,
    short_name,
    split_companies,
)
from edgar_rag_dev.eval.report import arm_outcome, render_answering, render_retrieval


def test_companies_alternate_between_splits_in_ticker_order() -> None:
    assert split_companies(["WFC", "AAPL", "HD", "BA", "AAPL"]) == {
        "AAPL": "dev", "BA": "eval", "HD": "dev", "WFC": "eval",
    }  # fmt: skip


def test_short_names_read_like_an_analyst_writes_them() -> None:
    assert short_name("HOME DEPOT, INC.") == "Home Depot"
    assert short_name("Apple Inc.") == "Apple"
    assert short_name("WELLS FARGO & COMPANY/MN") == "Wells Fargo"


def test_the_golden_set_has_every_kind_with_gold_from_the_filing(
    sample_filings: dict[str, ParsedFiling],
) -> None:
    filings = [f for f in sample_filings.values() if f.meta.ticker]
    questions = golden_questions(filings)
    kinds = {q.kind for q in questions}
    assert kinds == {"answerable", "other_company", "other_period", "not_disclosed"}
    apple = sample_filings["AAPL-2025"]
    for q in questions:
        if q.ticker == "AAPL" and q.fiscal_year == 2025 and q.kind == "answerable":
            assert q.displayed is not None
            assert q.displayed in apple.text
            assert q.displayed not in q.other_periods
        if q.kind == "other_period":
            years = next(
                f.meta.years_reported
                for f in filings
                if f.meta.ticker == q.ticker and f.meta.fiscal_year == q.fiscal_year
            )
            assert not any(str(year) in q.question for year in years)
        if q.kind == "not_disclosed":
            filing = next(
                f
                for f in filings
                if (f.meta.ticker, f.meta.fiscal_year) == (q.ticker, q.fiscal_year)
            )
            metric = next(m for m in METRICS if m.key == q.metric)
            assert not {fact.concept for fact in filing.facts} & set(metric.concepts)
    assert len({q.id for q in questions}) == len(questions)


def question(**changes: object) -> GoldenQuestion:
    fields: dict[str, object] = {
        "id": "AAPL-2025-revenue", "split": "dev", "kind": "answerable", "ticker": "AAPL",
        "fiscal_year": 2025, "metric": "revenue", "question": "Apple revenue FY25",
        "value": 416_161e6, "displayed": "416,161", "decimals": -6,
        "other_periods": ("391,035", "383,285"),
    }  # fmt: skip
    return GoldenQuestion.model_validate(fields | changes)


def test_an_answer_is_correct_when_it_states_the_gold_figure_as_written() -> None:
    gold = question()
    assert gold_matches("Net sales were $416,161 million [1].", gold)
    assert gold_matches("Net sales were $416.2 billion [1].", gold)
    assert gold_matches("Net sales were $416 billion [1].", gold)
    assert gold_matches("Total net sales were $416,161 (in millions) [1].", gold)
    assert not gold_matches("Net sales were $391,035 million [1].", gold)
    assert not gold_matches("Net sales were $417 billion [1].", gold)


@pytest.mark.parametrize(
    "answer",
    [
        "Total net sales | 2025: 416,161",  # no unit, no scale
        "Net sales were $416,161. [1]",  # no scale: $416,161
        "Net sales were $0.4 trillion [1].",  # rounded past what a reader accepts
        "Net sales were -416,161 million dollars [1].",  # not the gold's sign
        "Apple sold 416,161 million shares [1].",  # shares, not dollars
        "Net sales grew 416,161% [1].",
    ],
)
def test_a_figure_without_the_unit_scale_precision_or_sign_asked_is_not_correct(
    answer: str,
) -> None:
    assert not gold_matches(answer, question())


def test_a_buyback_in_shares_is_not_the_dollars_asked() -> None:
    buyback = question(metric="buybacks", value=7_951e6, displayed="7,951")
    assert not gold_matches("Home Depot repurchased 7,951 million shares [1].", buyback)
    assert gold_matches("Home Depot repurchased $7,951 million of its shares [1].", buyback)
    assert gold_matches("Repurchases of common stock | 2023: $(7,951) million", buyback)


def test_a_loss_is_stated_negative_or_named_as_a_loss() -> None:
    loss = question(metric="net_income", value=-11_817e6, displayed="(11,817)")
    assert gold_matches("Boeing's net loss was $11,817 million [1].", loss)
    assert gold_matches("Net income was $(11,817) million [1].", loss)
    assert not gold_matches("Boeing earned $11,817 million [1].", loss)


def test_earnings_per_share_is_in_dollars_or_per_share() -> None:
    eps = question(metric="diluted_eps", value=6.08, displayed="6.08", decimals=2)
    assert gold_matches("Diluted EPS was $6.08 [1].", eps)
    assert gold_matches("Apple earned 6.08 per diluted share [1].", eps)
    assert not gold_matches("Diluted EPS was 6.08% [1].", eps)
    assert not gold_matches("Diluted EPS was $6 [1].", eps)


RECORD = {
    "id": "x", "kind": "other_period", "ticker": "AAPL", "fiscal_year": 2025, "metric": "revenue",
    "best_cosine": 0.4, "company_declined": False, "period_declined": True,
    "outcome": "answered", "outcome_without_period_check": "answered", "correct": False,
    "wrong_period": False, "wrong_period_without_check": False, "metric_named": True,
    "text": "x", "generate_s": 2.0, "prompt_tokens": 400,
}  # fmt: skip


def test_an_arm_is_a_mask_over_the_shared_generation() -> None:
    assert arm_outcome(RECORD, "none", 0.5) == "answered"
    assert arm_outcome(RECORD, "period", 0.5) == "out_of_period"
    assert arm_outcome(RECORD, "cosine", 0.5) == "gate_rejected"
    assert arm_outcome(RECORD, "cosine", 0.3) == "answered"
    assert arm_outcome(RECORD | {"company_declined": True}, "none", None) == "out_of_scope"


def test_the_answering_report_renders_from_the_run_alone() -> None:
    answerable = RECORD | {
        "id": "y", "kind": "answerable", "period_declined": False, "correct": True,
    }  # fmt: skip
    run = {
        "split": "dev", "generator": "scripted", "thresholds": {"AAPL": 0.3},
        "records": [RECORD, answerable],
    }  # fmt: skip
    page = render_answering(run)
    assert "| none | 1/1 = 100.0%" in page
    assert "| period | 1/1 = 100.0%" in page
    assert page == render_answering(run)


def test_the_answering_report_counts_gold_figures_the_windows_cut_away() -> None:
    answerable = RECORD | {"id": "y", "kind": "answerable", "period_declined": False}
    run = {
        "split": "dev", "generator": "scripted", "thresholds": {"AAPL": 0.3},
        "records": [
            answerable | {"gold_in_prompt": True, "gold_in_top": True},
            answerable | {"id": "z", "gold_in_prompt": False, "gold_in_top": True},
            answerable | {"id": "w", "gold_in_prompt": False, "gold_in_top": False},
        ],
    }  # fmt: skip
    page = render_answering(run)
    assert "given to the model for 1/3 = 33.3%" in page
    assert "the same passages print it for 2/3 = 66.7%" in page
    assert "cutting them to the context budget lost 1 of those" in page


def test_the_retrieval_report_renders_from_its_json() -> None:
    scores = {"n": 2.0, "recall@1": 0.5, "recall@5": 1.0, "recall@10": 1.0, "mrr": 0.75}
    groups = {"all": scores, "figure": scores, "narrative-item": scores, "narrative-phrase": scores}
    report = {
        "questions": {"figure": 1, "narrative": 1},
        "arms": dict.fromkeys(
            ("dense", "bm25", "hybrid", "hybrid+dedup", "hybrid+dedup+facts"), groups
        ),
        "default_arm": "hybrid+dedup+facts",
        "corpus_wide_narrative": {"narrative-item": scores},
        "corpus_chunks": 10,
    }
    page = render_retrieval(report)
    assert "| figure | 1.000 | 0.9 | yes |" in page
