"""The analysts' questions (data/asks/): the set's files and the strict scorer (issue 38; the
set through the answer path is held to its gate by ``make eval-ci``)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from edgar_rag.domain import Response
from edgar_rag_dev.eval.asks import AskedQuestion, Gold, outcome_of, read_asks, states


def _gold(value: str, unit: str, scale: int = 0, decimals: int = 1) -> Gold:
    return Gold.model_validate(
        {"value": Decimal(value), "unit": unit, "scale": scale, "decimals": decimals}
    )


@pytest.mark.parametrize(
    ("text", "gold", "stated"),
    [
        ("Net sales fell 11.0% from fiscal 2022 to fiscal 2023.", _gold("-11.04", "percent"), True),
        ("Net sales changed by 11.0%.", _gold("-11.04", "percent"), False),
        ("Revenue grew -11.0%.", _gold("-11.04", "percent"), True),
        ("The change was $10,712 million.", _gold("-11.04", "percent"), False),
        ("It rose 0.7 percentage points.", _gold("0.71", "points"), True),
        ("Margin was 0.7%.", _gold("0.71", "points"), True),
        ("Revenue was $416,161 million.", _gold("416161", "usd", 6, 0), True),
        ("Revenue was $416.2 billion.", _gold("416161", "usd", 6, 0), True),
        ("Revenue was $0.4 trillion.", _gold("416161", "usd", 6, 0), False),
        ("Revenue was 416,161.", _gold("416161", "usd", 6, 0), False),
        ("It bought back 7,951 million shares.", _gold("7951", "usd", 6, 0), False),
        ("It bought back $7,951 million of shares.", _gold("7951", "usd", 6, 0), True),
        ("Sales per square foot were $599.92.", _gold("599.92", "usd", 0, 2), True),
        ("Sales per square foot were $599.92 million.", _gold("599.92", "usd", 0, 2), False),
        ("Diluted EPS was $6.08.", _gold("6.08", "usd_per_share", 0, 2), True),
        ("Diluted EPS was $6.1.", _gold("6.08", "usd_per_share", 0, 2), False),
        ("The ratio was 0.68 million.", _gold("0.68", "ratio", 0, 2), False),
        ("The margin was 3.7%.", _gold("-3.7", "percent"), False),
    ],
)
def test_a_figure_counts_only_in_the_golds_unit_scale_precision_and_sign(
    text: str, gold: Gold, stated: bool
) -> None:
    assert states(text, gold) is stated


def test_every_line_of_the_set_reads_and_each_split_holds_its_companies() -> None:
    questions = read_asks()
    assert len({q.id for q in questions}) == len(questions)
    split = json.loads(Path("data/golden/split.json").read_text(encoding="utf-8"))
    for question in questions:
        if question.ticker in split["dev"] + split["eval"]:
            assert question.ticker in split[question.split], question.id
        assert (question.expect == "answer") == bool(question.answers), question.id
    answers = [q for q in questions if q.expect == "answer"]
    declines = [q for q in questions if q.expect == "decline"]
    assert len(answers) >= 300
    assert len(declines) >= 120


def test_a_decline_is_right_for_a_question_to_decline_and_never_for_one_to_answer() -> None:
    base = {"split": "dev", "ticker": "AAPL", "filing_fiscal_year": 2025, "scope": "filing"}
    decline = AskedQuestion.model_validate(
        base | {"id": "x-d", "kind": "premise_text", "question": "q", "expect": "decline"}
    )
    answer = AskedQuestion.model_validate(
        base
        | {
            "id": "x-a",
            "kind": "lookup",
            "question": "q",
            "expect": "answer",
            "answers": [{"value": "1", "unit": "usd", "scale": 6, "decimals": 0}],
        }
    )
    assert outcome_of(decline, None) == "correct"
    assert outcome_of(answer, None) == "declined"


def test_a_comparison_answered_for_one_company_and_declined_for_the_other_is_declined() -> None:
    """Neither right nor a wrong figure: the answered part is right and the rest is declined
    by name, so it counts as declined; a wrong figure for the answered part stays wrong."""
    question = AskedQuestion.model_validate(
        {
            "id": "x-c", "split": "dev", "ticker": "MCD", "filing_fiscal_year": 2023,
            "scope": "corpus", "kind": "comparison", "question": "q", "expect": "answer",
            "answers": [
                {"value": "8468.8", "unit": "usd", "scale": 6, "decimals": 1},
                {"value": "3902.4", "unit": "usd", "scale": 6, "decimals": 1},
            ],
        }
    )  # fmt: skip

    def response(text: str, detail: str) -> Response:
        return Response(
            question="q", text=text, citations=(), reason=None, detail=detail, gate="period",
            retrieval_score=None, gate_score=None, source=None, generator="computed",
            timings_ms={}, prompt_tokens=0, completion_tokens=0, replayed=False,
        )  # fmt: skip

    told = "each company's figure computed in code. Not answered for Progressive: not reported"
    assert outcome_of(question, response("Net income was $8,468.8 million.", told)) == "declined"
    assert outcome_of(question, response("Net income was $8,000.0 million.", told)) == "wrong"
    assert outcome_of(question, response("Net income was $8,468.8 million.", "")) == "wrong"
