"""FinanceBench scoring: the evidence overlap rule, gold figures, correctness and the page."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from edgar_rag.answer.numbers import Figure, find_figures
from edgar_rag.domain import Reason, Response
from edgar_rag_dev.eval.financebench import (
    PAPER,
    EvidenceText,
    evidence_ranks,
    normalise,
    overlaps,
    recall,
    summary,
)
from edgar_rag_dev.eval.financebench_labels import (
    Judgment,
    answer_sha256,
    gold_figure,
    label_problems,
    matches,
    question_scale,
)
from edgar_rag_dev.eval.financebench_page import render

EVIDENCE = (
    "Consolidated Statement of Cash Flow s\nYears ended December 31\n \n(Millions)\n \n2018\n"
    " \n2017\n \nPurchases of property, plant and equipment (PP&E)\n \n \n(1,577) \n \n(1,373) "
    "\n \n(1,420) \nProceeds from sale of PP&E and other assets\n \n \n262 \n \n49 \n \n58 \n"
    "Acquisitions, net of cash acquired\n \n \n13 \n \n(2,023) \n \n(16) \nPurchases of "
    "marketable securities and investments\n \n \n(1,828) \n \n(2,152) \n \n(1,410) \n"
    "Cash Flows from Financing Activities\n \nChange in short-term debt net\n \n \n(284) \n"
    " \n578 \n \n(797) \nRepayment of debt (maturities greater than 90 days)\n \n \n(1,034) "
    "\n \n(962) \n \n(992) \nProceeds from debt (maturities greater than 90 days)\n \n \n"
    "2,251 \n \n1,987 \n \n2,832 \nPurchases of treasury stock\n \n \n(4,870) \n \n(2,068)"
)
PASSAGE = (
    "Cash Flows from Investing Activities\nPurchases of property, plant and equipment (PP&E) "
    "(1,577) (1,373) (1,420)\nProceeds from sale of PP&E and other assets 262 49 58\n"
    "Acquisitions, net of cash acquired 13 (2,023) (16)"
)


def _figure(text: str) -> Figure:
    (figure,) = find_figures(text)
    return figure


def _response(text: str | None, reason: Reason | None = None) -> Response:
    return Response(
        question="q", text=text, citations=(), reason=reason, detail=None, gate="none",
        retrieval_score=None, gate_score=None, source=None, generator="scripted",
        timings_ms={}, prompt_tokens=0, completion_tokens=0, replayed=False,
    )  # fmt: skip


def test_normalising_keeps_letters_and_digits_only() -> None:
    assert normalise("Cash Flow s\n \n(1,577) ﬁnal") == "cashflows1577final"


def test_a_passage_overlaps_evidence_whose_spacing_pdf_extraction_broke() -> None:
    assert overlaps(PASSAGE, EVIDENCE)
    assert EvidenceText.of(EVIDENCE).mostly_overlaps(PASSAGE)


def test_an_unrelated_passage_does_not_overlap() -> None:
    unrelated = (
        "The Company's effective tax rate was 20.1% in 2018, compared with 35.5% in 2017, "
        "reflecting the Tax Cuts and Jobs Act."
    )
    assert not overlaps(unrelated, EVIDENCE)
    assert not EvidenceText.of(EVIDENCE).mostly_overlaps(unrelated)


def test_a_short_shared_phrase_is_not_an_overlap() -> None:
    assert not overlaps("We make purchases of property, plant and equipment each year.", EVIDENCE)


def test_an_evidence_shorter_than_the_run_must_appear_whole() -> None:
    assert overlaps("Total revenue was $5,200 million this year.", "Total revenue was $5,200")
    assert not overlaps("Total revenue was $5,300 million.", "Total revenue was $5,200")


def test_a_passage_repeating_one_row_is_loose_but_not_strict() -> None:
    prose = "The Company invests for growth. " * 12
    repeated = prose + (
        "Purchases of property, plant and equipment (PP&E) $ (1,577) $ (1,373) $ (1,420)\n"
        "Proceeds from sale of PP&E and other assets"
    )
    evidence = EvidenceText.of(EVIDENCE)
    assert evidence.overlaps(repeated)
    assert not evidence.mostly_overlaps(repeated)


@pytest.mark.parametrize(
    ("answer", "value", "percent"),
    [
        ("$1577.00", 1577.0, False),
        ("1.9%", 1.9, True),
        ("-3.7", -3.7, False),
        ("0.68", 0.68, False),
    ],
)
def test_a_bare_figure_is_a_numeric_gold(answer: str, value: float, percent: bool) -> None:
    gold = gold_figure(answer)
    assert gold is not None
    assert (gold.value, gold.is_percent) == (value, percent)


@pytest.mark.parametrize(
    "answer",
    [
        "Customer deposits",
        "JnJ sold its inventory 2.7 times in FY2022.",
        "Effective tax rate in FY2022 was 0.62%, compared to -14.76% in FY2021.",
    ],
)
def test_prose_is_not_a_numeric_gold(answer: str) -> None:
    assert gold_figure(answer) is None


def test_the_question_names_the_unit() -> None:
    assert question_scale("What is the FY2018 capex (in USD millions) for 3M?") == 1e6
    assert question_scale("What is the FY2019 DPO for Corning?") is None


@pytest.mark.parametrize(
    "stated", ["$1,577 million", "1,577", "$1.577 billion", "$1.58 billion", "1,590"]
)
def test_the_gold_in_millions_matches_either_scale(stated: str) -> None:
    assert matches(_figure("$1577.00"), 1e6, _figure(stated))


@pytest.mark.parametrize(
    "stated", ["$2 billion", "$1.6 billion", "$1,600 million", "1,577 thousand", "$1.7 billion"]
)
def test_a_figure_off_by_more_than_the_tolerance_or_rounded_past_it_does_not_match(
    stated: str,
) -> None:
    assert not matches(_figure("$1577.00"), 1e6, _figure(stated))


def test_one_percent_relative_and_the_gold_rounding_are_tolerated() -> None:
    assert matches(_figure("24.26"), None, _figure("24.5"))
    assert not matches(_figure("24.26"), None, _figure("24.6"))
    assert matches(_figure("1.9%"), None, _figure("1.87%"))
    assert not matches(_figure("1.9%"), None, _figure("1.9 million"))
    assert not matches(_figure("30.8%"), None, _figure("$30.8"))


def test_a_figure_is_read_in_no_scale_the_question_does_not_name() -> None:
    assert not matches(_figure("$831 million"), None, _figure("831"))
    assert matches(_figure("$831 million"), None, _figure("$831 million"))
    assert not matches(_figure("$1577.00"), None, _figure("$1,577 million"))
    assert not matches(_figure("0.68"), None, _figure("$0.68 million"))
    assert matches(_figure("0.68"), None, _figure("$0.68"))


def test_a_bare_gold_keeps_its_sign_and_is_no_percentage() -> None:
    assert not matches(_figure("-3.7"), None, _figure("3.7%"))
    assert not matches(_figure("-3.7"), None, _figure("3.7"))
    assert matches(_figure("-3.7"), None, _figure("-3.7"))
    assert matches(_figure("-3.7"), None, _figure("3.7"), "margin decreased by 3.7 points")
    assert not matches(_figure("0.68"), None, _figure("(0.68)"))


def test_recall_counts_ranks_within_k() -> None:
    assert recall([1, 3, None, 10]) == {
        "n": 4,
        "recall@1": 0.25,
        "recall@5": 0.5,
        "recall@10": 0.75,
    }


def test_no_hits_give_no_ranks() -> None:
    assert evidence_ranks([], [EVIDENCE]) == {"any": None, "strict": None, "every": None}


def _row(row_id: str, gold: str, text: str | None, **fields: Any) -> dict[str, Any]:
    ranks = {"any": 1, "strict": 2, "every": None}
    return {
        "id": row_id, "doc": "3M_2018_10K", "kind": "10-K", "document": "indexed",
        "type": "metrics-generated", "reasoning": None, "question": "q", "evidence_pieces": 1,
        "other_documents": [], "ranks": ranks, "gold": gold,
        "answer": {"text": text, "reason": None, "detail": None, "seconds": 12.25,
                   "completion_tokens": 0},
        **fields,
    }  # fmt: skip


JUDGED = "Customer deposits were the largest liability [1]."


def _tiny_report() -> dict[str, Any]:
    rows = [
        _row(
            "financebench_id_03029", "$1577.00", "3M spent $1,577 million | on PP&E [1].",
            question="What is the FY2018 capital expenditure amount (in USD millions) for 3M?",
        ),
        _row(
            "financebench_id_00005", "1.9%", None,
            answer={"text": None, "reason": "unsupported_claim", "detail": None,
                    "seconds": 20.5, "completion_tokens": 40},
        ),
        _row("financebench_id_01964", "Customer deposits", JUDGED, type="novel-generated"),
        _row("financebench_id_01981", "Yes", "No, it lost card members [2].",
             type="domain-relevant", kind="10-Q"),
        _row("financebench_id_00070", "No, working capital of -$1561M.", "Yes, it was positive.",
             document="missing", ranks=None),
        _row("financebench_id_01028", "United States, EMEA, APAC, and LACC", "The US [1]."),
    ]  # fmt: skip
    judgment = Judgment(
        id="financebench_id_01964", answer_sha256=answer_sha256(JUDGED), answer=JUDGED,
        gold="Customer deposits", verdict="correct", why="names customer deposits",
    )  # fmt: skip
    return {
        "command": "edgar-rag eval financebench",
        "questions": 150,
        "pdfs": 2,
        "pdfs_by_kind": {"10-K": 1, "10-Q": 1},
        "covered": 5,
        "covered_by_type": {"metrics-generated": 2},
        "unscoped": [],
        "refused_pdfs": {},
        "filers": {
            "BESTBUY_2019_10K.pdf": {"company": "Best Buy Co., Inc.", "ticker": "BBY",
                                     "cik": 764478},
            "ACTIVISIONBLIZZARD_2019_10K.pdf": {"company": "Activision Blizzard, Inc.",
                                                "ticker": None, "cik": None},
        },
        "chunks": 900,
        "settings": {
            "embedder": "all-MiniLM-L6-v2@onnx-fp32",
            "generator": "local:qwen2.5-coder-1.5b-instruct",
            "gate": "none",
            "search_k": 5,
            "passages_in_prompt": 3,
        },
        "rules": {"run_chars": 60, "cover_chars": 20, "cover_share": 0.5,
                  "relative_tolerance": 0.01, "ks": [1, 5, 10]},
        "replayed": False,
        "resumed_rows": 0,
        "machine": {"cpus": 2, "load_average": [3.0, 2.5, 2.0]},
        "paper": [
            {"model": m, "setup": s, "correct": c, "incorrect": i, "declined": d}
            for m, s, c, i, d in PAPER
        ],
        **summary(rows, {judgment.id: judgment}),
    }  # fmt: skip


def test_the_page_sets_our_labels_beside_the_papers_rows() -> None:
    page = render(_tiny_report())
    assert (
        "| GPT-4-Turbo, per-document vector store | all questions | 150 | 75 (50%) | 17 (11%) "
        "| 58 (39%) | |" in page
    )
    assert "| GPT-4-Turbo, oracle (the gold evidence page given) | all questions | 150 | 134" in (
        page
    )
    assert (
        "| edgar-rag, local model | all questions | 6 | 2 (33%) | 2 (33%) | 1 (17%) | 1 (17%) |"
        in page
    )
    assert "| edgar-rag, local model | questions whose document is in pdfs/ | 5 | 2 (40%) |" in page
    assert "Correct out of all questions, Wilson 95%: 2 of 6: 33.3%" in page
    assert "| 10-Q | 1 | 0 (0%) | 1 (100%) | 0 (0%) | 0 (0%) | 1 | 0 (0%) | 1 (100%) |" in page
    assert "Declines by reason: `unsupported_claim` 1" in page


def test_the_page_lists_every_incorrect_answer_by_what_went_wrong() -> None:
    page = render(_tiny_report())
    assert "## Every incorrect answer (2), by what went wrong" in page
    assert "### answered without its document (1)" in page
    assert "### yes/no contradicted (1)" in page
    assert "| 01981 | 10-Q | q | Yes | No, it lost card members [2]. | the gold says yes |" in page


def test_the_page_shows_each_judged_answer_beside_its_gold_and_says_what_is_unjudged() -> None:
    page = render(_tiny_report())
    assert "## Every answer judged correct by a judgment (1), beside its gold" in page
    assert f"| 01964 | q | Customer deposits | {JUDGED} | names customer deposits |" in page
    assert "**1 answers are unjudged** (counted neither correct nor incorrect): 01028." in page
    assert "| 03029 | metrics-generated | 10-K | indexed | correct | strict |" in page


def test_evidence_recall_counts_only_the_questions_asked_of_their_document() -> None:
    report = _tiny_report()
    assert report["retrieval"]["any"]["all"]["n"] == 5
    assert "Over the 5 questions asked scoped to their document's filing." in render(report)
    assert "| all | 5 | 1.000 | 1.000 | 1.000 |" in render(report)


def test_rendering_is_a_pure_function_of_the_report() -> None:
    report = _tiny_report()
    snapshot = copy.deepcopy(report)
    assert render(report) == render(report)
    assert report == snapshot


def test_a_resumed_report_says_where_its_rows_were_timed() -> None:
    report = _tiny_report()
    report["resumed_rows"] = 1
    assert "1 rows were kept from an interrupted earlier process" in render(report)
    assert "in code (5) P50 12.2, P95 12.2; by the model (1) P50 20.5" in render(report)


def test_a_replayed_report_says_its_timings_are_not_the_models() -> None:
    report = _tiny_report()
    report["replayed"] = True
    assert "time the replay, not the model" in render(report)


def test_a_report_says_each_filer_is_named_by_its_cover() -> None:
    page = render(_tiny_report())
    assert "Each filer is named as its PDF's cover prints it" in page
    assert "1 of the 2 filers also have their CIK and ticker" in page


def test_a_labelled_statement_row_overlaps_the_page_as_printed() -> None:
    """The row form repeats each column's header in every cell; the page prints the figures
    alone, so the overlap reads the row as printed."""
    page = (
        "CONSOLIDATED STATEMENTS OF EARNINGS Net sales 32,765 31,657 30,123 "
        "Cost of sales 24,102 23,100 22,000 Gross profit 8,663 8,557 8,123"
    )
    passage = (
        "Net sales | 2019: 32,765 | 2018: 31,657 | 2017: 30,123 | (in millions)\n"
        "Cost of sales | 2019: 24,102 | 2018: 23,100 | 2017: 22,000 | (in millions)\n"
        "Gross profit | 2019: 8,663 | 2018: 8,557 | 2017: 8,123 | (in millions)"
    )
    assert overlaps(passage, page)
    assert not overlaps(passage.replace("24,102", "24,109"), page.replace("8,663", "8,667"))


def test_a_heading_the_row_form_repeats_is_read_once_as_the_page_prints_it() -> None:
    page = (
        "Consolidated Balance Sheets Current assets Cash and cash equivalents $ 1,980 $ 1,101 "
        "Short-term investments — 2,032 Receivables, net 1,015 1,049"
    )
    rows = (
        "Current assets: Cash and cash equivalents | 2019: 1,980 | 2018: 1,101 | (in millions)\n"
        "Current assets: Short-term investments | 2019: — | 2018: 2,032 | (in millions)\n"
        "Current assets: Receivables, net | 2019: 1,015 | 2018: 1,049 | (in millions)"
    )
    assert overlaps(f"Consolidated Balance Sheets\nCurrent assets\n{rows}", page)
    assert overlaps(rows, page)
    # Only a heading is dropped: a row whose own label differs still breaks the run.
    assert not overlaps(rows.replace("Short-term", "Long-term"), page.replace("1,049", "1,048"))


def test_the_command_writes_the_report_and_prints_it_with_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner  # noqa: PLC0415

    from edgar_rag.cli import main  # noqa: PLC0415
    from edgar_rag_dev.eval import financebench  # noqa: PLC0415

    report = _tiny_report()
    monkeypatch.setattr(financebench, "run", lambda *args, **options: report)
    out = tmp_path / "financebench.json"
    runner = CliRunner()
    args = ["eval", "financebench", "--db", str(tmp_path / "fb.db"), "--out", str(out)]
    printed = runner.invoke(main, [*args, "--json"], catch_exceptions=False)
    assert printed.exit_code == 0
    assert json.loads(printed.stdout) == report == json.loads(out.read_text())
    assert out.with_suffix(".md").exists()
    plain = runner.invoke(main, args, catch_exceptions=False)
    assert (plain.stdout, plain.stderr) == ("", f"wrote {out} and {out.with_suffix('.md')}\n")


def test_the_check_names_unjudged_answers_and_labels_the_judgments_no_longer_give() -> None:
    report = _tiny_report()
    judged = {
        "financebench_id_01964": Judgment(
            id="financebench_id_01964", answer_sha256=answer_sha256(JUDGED), answer=JUDGED,
            gold="Customer deposits", verdict="correct", why="names customer deposits",
        )
    }  # fmt: skip
    assert label_problems(report, judged) == [
        "docs/financebench.json has 1 unjudged answers (financebench_id_01028): judge each in "
        "data/financebench/judgments.jsonl, then rerun `edgar-rag eval financebench --replay`"
    ]
    [changed, _] = label_problems(report, {})
    assert changed.startswith(
        "docs/financebench.json labels 1 answers otherwise than data/financebench/judgments.jsonl"
        " does (financebench_id_01964)"
    )
