"""FinanceBench labels (issue 39): each answer correct, incorrect or declined, on real golds.

The golds and questions below are copied from FinanceBench's ``financebench_open_source.jsonl``
(the id is each one's ``financebench_id``); the answers are written in the shapes the answerer
gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from edgar_rag_dev.eval.financebench_labels import (
    Judgment,
    Label,
    answer_sha256,
    label,
    prose_rule,
    read_judgments,
    scores,
    write_judgment,
    yes_or_no,
)

ADOBE_MARGIN = (
    "Does Adobe have an improving operating margin profile as of FY2022? If operating margin is "
    "not a useful metric for a company like this, then state that and explain why.",
    "No the operating margins of Adobe have recently declined from 36.8% in FY 2021 to 34.6% in "
    "FY2022. A drop by 2.2% in a year.",
)
AMCOR_EBITDA = (
    "What Was AMCOR's Adjusted Non GAAP EBITDA for FY 2023",
    "AMCOR's Adj. EBITDA was $2,018mn in FY 2023",
)
AMEX_TAX = (
    "How much has the effective tax rate of American Express changed between FY2021 and FY2022?",
    "The effective tax rate for American Express has changed/dropped from 24.6% in FY 2021 to "
    "21.6% in FY 2022.",
)
AMD_QUICK = (
    "Does AMD have a reasonably healthy liquidity profile based on its quick ratio for FY22? If "
    "the quick ratio is not relevant to measure liquidity, please state that and explain why.",
    "Yes. The quick ratio is 1.57, calculated as (cash and cash equivalents+Short term "
    "investments+Accounts receivable, net+receivables from related parties)/ (current "
    "liabilities).",
)
AWK_WORKING_CAPITAL = (
    "Does American Water Works have positive working capital based on FY2022 data? If working "
    "capital is not a useful or relevant metric for this company, then please state that and "
    "explain why.",
    "No, American Water Works had negative working capital of -$1561M in FY 2022.",
)
AMEX_RETENTION = ("Was American Express able to retain card members during 2022?", "Yes")
AMEX_LIABILITY = ("What was the largest liability in American Express's Balance Sheet in 2022?",
                  "Customer deposits")  # fmt: skip
CAPEX_3M = (
    "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to "
    "the question by relying on the details shown in the cash flow statement.",
    "$1577.00",
)


def _row(
    case: tuple[str, str],
    text: str | None,
    *,
    reason: str | None = None,
    document: str = "indexed",
    kind: str = "10-K",
    question_type: str = "domain-relevant",
    row_id: str = "financebench_id_00438",
) -> dict[str, Any]:
    question, gold = case
    return {
        "id": row_id,
        "doc": "ADOBE_2022_10K",
        "kind": kind,
        "document": document,
        "type": question_type,
        "question": question,
        "gold": gold,
        "answer": {"text": text, "reason": reason, "detail": None, "seconds": 1.0},
    }


def _judgment(row_id: str, answer: str, verdict: str, failure: str | None = None) -> Judgment:
    return Judgment(
        id=row_id, answer_sha256=answer_sha256(answer), answer=answer, gold="g",
        verdict=verdict, failure=failure, why="read against the gold",
    )  # fmt: skip


def test_an_answer_opening_with_the_other_yes_or_no_is_incorrect() -> None:
    said = "Yes, Adobe's operating margin improved to 34.6% in fiscal 2022 [1]."
    assert label(_row(ADOBE_MARGIN, said), {}) == Label(
        "incorrect", "rule", "yes/no contradicted", "the gold says no"
    )


def test_the_gold_yes_or_no_with_every_figure_it_states_is_correct() -> None:
    said = (
        "No. Adobe's operating margin fell from 36.8% in fiscal 2021 to 34.6% in fiscal 2022, "
        "a drop of 2.2% [1]."
    )
    assert label(_row(ADOBE_MARGIN, said), {}) == Label(
        "correct", "rule", why="its no and every figure of the gold stated (36.8%, 34.6%, 2.2%)"
    )
    # The gold's 2.2% is a percentage: a drop written in points leaves it unstated.
    points = said.replace("2.2%", "2.2 points")
    assert label(_row(ADOBE_MARGIN, points), {}).verdict == "unjudged"


def test_a_matching_yes_or_no_alone_decides_only_a_bare_yes_or_no_gold() -> None:
    assert label(_row(AMEX_RETENTION, "Yes, card member retention stayed high [2]."), {}) == (
        Label("correct", "rule", why="its yes is the gold's")
    )
    assert label(_row(AMEX_RETENTION, "No, it lost card members [1]."), {}).verdict == ("incorrect")
    said = "No. Adobe's operating margin did not improve in fiscal 2022 [1]."
    assert label(_row(ADOBE_MARGIN, said), {}).verdict == "unjudged"


def test_a_figure_inside_a_sentence_is_read_in_its_own_unit_and_scale() -> None:
    said = "Amcor's adjusted EBITDA was $2,018 million in fiscal 2023 [1]."
    assert label(_row(AMCOR_EBITDA, said), {}).verdict == "correct"
    assert label(_row(AMCOR_EBITDA, said.replace("2,018", "2,108")), {}).verdict == "unjudged"
    assert label(_row(AMCOR_EBITDA, "Adjusted EBITDA was 2,018 [1]."), {}).verdict == "unjudged"


def test_a_gold_with_several_figures_needs_all_of_them() -> None:
    both = "The effective tax rate fell from 24.6% in 2021 to 21.6% in 2022 [1]."
    assert label(_row(AMEX_TAX, both), {}).verdict == "correct"
    only_one = "The effective tax rate was 21.6% in 2022 [1]."
    assert label(_row(AMEX_TAX, only_one), {}).verdict == "unjudged"
    in_dollars = "The effective tax went from $24.6 to $21.6 [1]."
    assert label(_row(AMEX_TAX, in_dollars), {}).verdict == "unjudged"


def test_a_figure_rounded_more_coarsely_than_the_gold_is_not_the_gold() -> None:
    assert label(_row(AMD_QUICK, "Yes, AMD's quick ratio was 1.57 [1]."), {}).verdict == ("correct")
    assert label(_row(AMD_QUICK, "Yes, AMD's quick ratio was 1.6 [1]."), {}).verdict == ("unjudged")
    assert label(_row(AMD_QUICK, "Yes, AMD's quick ratio was 1.56 [1]."), {}).verdict == ("correct")


def test_a_negative_gold_is_stated_negative_or_named_a_deficit() -> None:
    said = "No, American Water Works had negative working capital of $1,561 million [1]."
    assert label(_row(AWK_WORKING_CAPITAL, said), {}).verdict == "correct"
    positive = "No, working capital was $1,561 million in 2022 [1]."
    assert label(_row(AWK_WORKING_CAPITAL, positive), {}).verdict == "unjudged"


def test_a_prose_gold_without_a_yes_no_or_figure_needs_a_judgment() -> None:
    assert prose_rule(*AMEX_LIABILITY, "Customer deposits were the largest [1].") is None
    assert yes_or_no("**No**, it did not.") == "no"
    assert yes_or_no("Nothing is said.") is None


def test_a_bare_figure_gold_is_decided_by_the_strict_rule() -> None:
    right = _row(CAPEX_3M, "3M's capital expenditures were $1,577 million in fiscal 2018 [1].")
    assert label(right, {}) == Label("correct", "strict")
    wrong = _row(CAPEX_3M, "3M spent $1,373 million [1].")
    assert label(wrong, {}) == Label("incorrect", "strict", "figure not the gold")
    judged = {right["id"]: _judgment(right["id"], "3M spent $1,373 million [1].", "correct")}
    assert label(wrong, judged).verdict == "incorrect"


def test_a_judgment_applies_only_to_the_answer_text_it_judged() -> None:
    said = "Customer deposits were the largest liability, $110,239 million [1]."
    row = _row(AMEX_LIABILITY, said, row_id="financebench_id_01964")
    judged = {row["id"]: _judgment(row["id"], said, "correct")}
    assert label(row, judged).verdict == "correct"
    assert label(row, judged).how == "judgment"
    changed = _row(AMEX_LIABILITY, said.replace("[1]", "[2]"), row_id=row["id"])
    assert label(changed, judged) == Label("unjudged", "stale judgment")
    assert label(changed, {}) == Label("unjudged", "no judgment")


def test_a_judgment_of_an_incorrect_answer_names_what_went_wrong() -> None:
    with pytest.raises(ValidationError, match="failure"):
        _judgment("financebench_id_01964", "Long-term debt [1].", "incorrect")
    with pytest.raises(ValidationError, match="failure"):
        _judgment("financebench_id_01964", "Customer deposits [1].", "correct", "wrong claim")
    with pytest.raises(ValidationError, match="hash"):
        Judgment(
            id="financebench_id_01964", answer_sha256=answer_sha256("other"), answer="said",
            gold="g", verdict="declined", why="hedged",
        )  # fmt: skip


def test_the_judgments_file_holds_one_line_a_question(tmp_path: Path) -> None:
    line = _judgment("financebench_id_01964", "Customer deposits [1].", "correct")
    path = tmp_path / "judgments.jsonl"
    assert read_judgments(path) == {}
    path.write_text(line.model_dump_json() + "\n", encoding="utf-8")
    assert read_judgments(path) == {"financebench_id_01964": line}
    path.write_text(f"{line.model_dump_json()}\n{line.model_dump_json()}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="judged twice"):
        read_judgments(path)


def test_an_answer_without_its_document_is_incorrect_and_a_decline_declined() -> None:
    said = "Amcor's net receivables were $1,616 million [1]."
    gold = ("What is Amcor's year end FY2020 net AR (in USD millions)?", "$1616.00")
    assert label(_row(gold, said, document="missing"), {}) == Label(
        "incorrect", "no document", "answered without its document",
        "no filing of its document is indexed, so what the answer cites is another's",
    )  # fmt: skip
    declined = _row(gold, None, reason="out_of_period", document="missing")
    assert label(declined, {}) == Label("declined", "decline", why="out_of_period")
    assert label(_row(gold, said, document="not_indexed"), {}).verdict == "incorrect"


def test_scores_count_each_label_over_all_covered_and_indexed_questions() -> None:
    rows = [
        _row(CAPEX_3M, "3M spent $1,577 million [1].", question_type="metrics-generated"),
        _row(AMEX_RETENTION, "No [1].", kind="10-Q"),
        _row(AMCOR_EBITDA, None, reason="model_declined", document="not_indexed"),
        _row(AMEX_TAX, "It was 21.6% [1].", document="missing", kind="earnings release"),
    ]
    for row in rows:
        row["label"] = label(row, {}).as_json()
    counted = scores(rows, ("metrics-generated", "domain-relevant"), ("10-K", "10-Q", "8-K"))
    assert counted["asked"] == {"n": 4, "correct": 1, "incorrect": 2, "declined": 1, "unjudged": 0}
    assert counted["covered"] == {"n": 3, "correct": 1, "incorrect": 1, "declined": 1,
                                  "unjudged": 0}  # fmt: skip
    assert counted["indexed"]["n"] == 2
    assert list(counted["by_kind"]) == ["10-K", "10-Q"]
    assert counted["by_type"]["metrics-generated"]["correct"] == 1
    assert counted["declined_by_reason"] == {"model_declined": 1}
    assert counted["decided_by"]["incorrect"] == {"no document": 1, "rule": 1}


def test_a_new_judgment_of_a_question_replaces_its_old_one(tmp_path: Path) -> None:
    path = tmp_path / "data" / "judgments.jsonl"
    old = _judgment("financebench_id_01964", "Customer deposits [1].", "correct")
    other = _judgment("financebench_id_00464", "Yes, it is cyclical [1].", "correct")
    new = _judgment("financebench_id_01964", "Long-term debt [1].", "incorrect", "wrong item")
    for judgment in (old, other, new):
        write_judgment(path, judgment)
    assert read_judgments(path) == {other.id: other, new.id: new}
    assert (
        path.read_text(encoding="utf-8").splitlines()[0].startswith('{"id":"financebench_id_00464"')
    )
