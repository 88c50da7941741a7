"""The evaluation report (``make eval``): its figures from the runs, its page from the figures,
with the dev run alone and with an eval run beside it."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from edgar_rag_dev.eval import render
from edgar_rag_dev.eval import report_figures as figures_module
from edgar_rag_dev.eval.golden import GoldenQuestion
from edgar_rag_dev.eval.report_figures import paired_mde, report_figures
from edgar_rag_dev.eval.report_page import render_report
from edgar_rag_dev.eval.stats import minimum_detectable_effect


@pytest.fixture(autouse=True)
def few_resamples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The intervals' arithmetic is stats.py's (tested there); 100 resamples keep these fast."""
    monkeypatch.setattr(figures_module, "RESAMPLES", 100)


def _record(ticker: str, kind: str, number: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"{ticker}-{kind}-{number}", "kind": kind, "ticker": ticker, "fiscal_year": 2024,
        "metric": "revenue", "best_cosine": 0.6, "company_declined": False,
        "period_declined": False, "outcome": "model_declined",
        "outcome_without_period_check": "model_declined", "correct": False,
        "wrong_period": False, "wrong_period_without_check": False, "metric_named": False,
        "text": None, "generate_s": 2.0, "prompt_tokens": 500, "replayed": False,
        "gold_in_prompt": True,
    } | fields  # fmt: skip


def _run(split: str, tickers: tuple[str, ...]) -> dict[str, Any]:
    records = []
    for ticker in tickers:
        records += [
            _record(ticker, "answerable", 0, outcome="answered", correct=True, best_cosine=0.7),
            _record(ticker, "answerable", 1, outcome="answered", correct=True, best_cosine=0.4),
            _record(ticker, "answerable", 2, best_cosine=0.55),
            _record(ticker, "other_company", 0, company_declined=True, best_cosine=0.3),
            _record(ticker, "other_period", 0, period_declined=True, outcome="answered"),
            _record(ticker, "not_disclosed", 0, outcome="answered", best_cosine=0.2),
        ]
    thresholds = dict.fromkeys(tickers, 0.5)
    return {"split": split, "questions_in_split": len(records), "generator": "scripted",
            "thresholds": thresholds, "records": records}  # fmt: skip


DEV = _run("dev", ("AAPL", "BA", "HD"))
EVAL = _run("eval", ("AMZN", "GOOGL"))
GOLDEN = [
    GoldenQuestion(id=r["id"], split=split, kind=r["kind"], ticker=r["ticker"], fiscal_year=2024,
                   metric="revenue", question=f"What was {r['id']}?")
    for split, run in (("dev", DEV), ("eval", EVAL))
    for r in run["records"]
]  # fmt: skip


def test_each_arm_masks_the_one_generation() -> None:
    figures = report_figures({"dev": ("run-dev.json", DEV)}, GOLDEN)["runs"]["dev"]
    arms = figures["arms"]
    assert arms["none"]["correct"]["count"] == 6
    assert arms["cosine"]["correct"]["count"] == 3  # the cosine 0.4 answers fall under 0.5
    assert arms["none"]["false_answers"]["count"] == 6  # other_period and not_disclosed
    assert arms["period"]["false_by_kind"]["other_period"]["count"] == 0
    assert arms["cosine"]["false_by_kind"]["not_disclosed"]["count"] == 0
    assert arms["none"]["reached_model"] == 15  # all but the company guard's 3
    assert arms["period+cosine"]["generator_s_per_question"] == pytest.approx(2.0 * 6 / 18)


def test_paired_comparisons_count_discordant_cases_with_an_mde() -> None:
    figures = report_figures({"dev": ("run-dev.json", DEV)}, GOLDEN)["runs"]["dev"]
    first = figures["comparisons"][0]
    assert (first["arms"], first["measure"], first["n"]) == (["cosine", "none"], "correct", 9)
    assert (first["only_first"], first["only_second"]) == (0, 3)
    assert first["difference"][0] == pytest.approx(-1 / 3)
    assert first["mde"] > 0


def test_the_gate_scores_separate_answerable_questions_as_far_as_they_can() -> None:
    figures = report_figures({"dev": ("run-dev.json", DEV)}, GOLDEN)["runs"]["dev"]
    assert figures["auroc"]["period"]["other_period"]["estimate"] == 1.0
    assert figures["auroc"]["period"]["other_company"]["estimate"] == 0.5
    assert figures["auroc"]["cosine"]["not_disclosed"]["estimate"] == 1.0
    curves = figures["risk_coverage"]["scores"]
    assert curves["best possible"]["aurc"] < curves["cosine"]["aurc"]


def test_the_mde_assumes_discordance_at_least_the_difference() -> None:
    mde, one_way = paired_mde(72, 0.0)
    assert one_way
    assert mde == pytest.approx(minimum_detectable_effect(72, 0.5, paired_discordance=mde))
    wide, one_way = paired_mde(72, 0.3)
    assert not one_way
    assert wide == minimum_detectable_effect(72, 0.5, paired_discordance=0.3)
    assert math.isnan(minimum_detectable_effect(72, 0.5, paired_discordance=0.05))
    narrow, one_way = paired_mde(72, 0.05)
    assert one_way
    assert narrow == pytest.approx(mde)


def test_the_report_renders_with_the_dev_run_alone() -> None:
    report = report_figures({"dev": ("data/golden/run-dev.json", DEV)}, GOLDEN)
    page = render_report(report)
    assert "## The dev split" in page
    assert "## The eval split" not in page
    assert "No evaluation-split run is committed yet" in page
    assert "| arm | correct on answerable, dev |" in page
    assert "| none | 6/9 = 66.7% [" in page
    assert page == render_report(json.loads(json.dumps(report)))


def test_an_eval_run_is_shown_beside_dev() -> None:
    runs = {"dev": ("run-dev.json", DEV), "eval": ("run-eval.json", EVAL)}
    page = render_report(report_figures(runs, GOLDEN))
    assert "## The dev split" in page
    assert "## The eval split" in page
    assert "No evaluation-split run" not in page
    header = next(line for line in page.splitlines() if line.startswith("| arm | correct"))
    assert header.count("correct on answerable") == 2
    assert header.endswith("generator s / question, eval |")
    assert "| none | 6/9 = 66.7% [" in page
    assert " | 4/6 = 66.7% [" in page


@pytest.mark.parametrize("splits", [("dev",), ("dev", "eval")])
def test_make_eval_writes_the_report_and_its_json_byte_for_byte(
    splits: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data" / "golden").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    render.GOLDEN.write_text("".join(q.model_dump_json() + "\n" for q in GOLDEN), encoding="utf-8")
    for split in splits:
        run = DEV if split == "dev" else EVAL
        Path(f"data/golden/run-{split}.json").write_text(json.dumps(run), encoding="utf-8")
    render.write_pages()
    report = json.loads(render.REPORT_JSON.read_text(encoding="utf-8"))
    assert list(report["runs"]) == list(splits)
    assert render.REPORT_PAGE.read_text(encoding="utf-8") == render_report(report)
    assert render.rendered()[render.REPORT_JSON] == render.REPORT_JSON.read_text(encoding="utf-8")
    assert Path("docs/answering.md").exists()
