"""Recorded narrative answers the verifier once declined although they cite the phrase asked,
replayed through ``edgar-rag ask --json`` on the corpus index with the model's tape: each kind
of false decline, on a real filing and the model's own words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from edgar_rag.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DB = ROOT / "build" / "corpus.db"
QUESTIONS = ROOT / "data" / "narrative" / "questions.jsonl"

CASES = {
    "n120": "a count since a year is held to no year: 'Since May 2013, more than 50 cases'",
    "n102": "how concentrated the sales were is no word of the metric",
    "n182": "the marker moves to the passage naming the metric; a reduction 'by' is no total",
    "n16": "a prose question asks no figure, so a figure on the way needs no metric",
    "n150": "a target's year ('by 2027') is no period the figure reports",
}


@pytest.fixture(scope="module")
def corpus_db() -> Path:
    if not CORPUS_DB.exists():
        pytest.fail("build/corpus.db is missing: run `make build/corpus.db` (about 8 minutes)")
    return CORPUS_DB


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_recorded_answer_citing_the_phrase_is_shown(
    case: str, corpus_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = next(
        q for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
        if (q := json.loads(line))["id"] == case
    )  # fmt: skip
    monkeypatch.setenv("EDGAR_RAG_DB", str(corpus_db))
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(ROOT / "build" / "cache"))
    monkeypatch.setenv("EDGAR_RAG_TAPE", str(QUESTIONS.parent / f"tape-{question['split']}.jsonl"))
    monkeypatch.setenv("EDGAR_RAG_TAPE_MODE", "replay")
    args = ["ask", question["question"], "--json"]
    if question["scope"] == "filing":
        args += ["--ticker", question["ticker"], "--year", str(question["fiscal_year"])]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    response = json.loads(result.stdout)
    assert response["reason"] is None, f"{CASES[case]}: {response['detail']}"
    quotes = " ".join(" ".join(c["quote"].split()) for c in response["citations"])
    assert question["phrase"] in quotes, CASES[case]
