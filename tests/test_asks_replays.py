"""Recorded model answers to the analysts' dev questions that read as answers but are not,
replayed through ``edgar-rag ask --json`` on the corpus index with the model's tape: prose beside
the figure asked, and a move the question takes for granted that its passages deny."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from edgar_rag.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DB = ROOT / "build" / "corpus.db"
ASKS = ROOT / "data" / "asks"

CASES = {
    "AAPL-a03": ("missing_figure", "a growth rate asked, the model's reasons given instead"),
    "AAPL-a17": ("missing_figure", "a comparison of a figure answered with no figure"),
    "HD-d05": ("false_premise", "'positive comparable sales' where they decreased"),
}


@pytest.fixture(scope="module")
def corpus_db() -> Path:
    if not CORPUS_DB.exists():
        pytest.fail("build/corpus.db is missing: run `make build/corpus.db` (about 8 minutes)")
    return CORPUS_DB


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_recorded_answer_that_does_not_answer_is_declined(
    case: str, corpus_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    question = next(
        q for line in (ASKS / "dev-aapl-ba-hd-mcd.jsonl").read_text(encoding="utf-8").splitlines()
        if (q := json.loads(line))["id"] == case
    )  # fmt: skip
    monkeypatch.setenv("EDGAR_RAG_DB", str(corpus_db))
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(ROOT / "build" / "cache"))
    monkeypatch.setenv("EDGAR_RAG_TAPE", str(ASKS / "tape.jsonl"))
    monkeypatch.setenv("EDGAR_RAG_TAPE_MODE", "replay")
    args = ["ask", question["question"], "--json", "--ticker", question["ticker"]]
    args += ["--year", str(question["filing_fiscal_year"])]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    response = json.loads(result.stdout)
    reason, why = CASES[case]
    assert response["reason"] == reason, f"{why}: {response['text']}"
