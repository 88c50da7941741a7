"""The analysts' dev questions replayed through ``edgar-rag ask --json`` on the corpus index
with the model's tape: recorded answers that read as answers but are not (prose beside the
figure asked, a move the question takes for granted that its passages deny, shares for an
amount), and questions in analysts' words for a line item that code now answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from edgar_rag.cli import main

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DB = ROOT / "build" / "corpus.db"
ASKS = ROOT / "data" / "asks"

CASES = {
    "HD-d05": ("false_premise", "'positive comparable sales' where they decreased"),
    "PGR-a01": ("unsupported_claim", "an amount asked of a measure code lacks, shares stated"),
    "NVDA-d04": ("missing_figure", "a segment the filing tags revenue of, but no income"),
}
ANSWERED = {
    "MCD-a16": "McDonald’s basic earnings per share was $11.63 in fiscal 2023",
    "UNP-a16": "Union Pacific's capital expenditures as a share of revenue was 14.2% in fiscal",
    "NVDA-a21": "net income was $72,880 million in fiscal 2025",
    # A segment, product or region's figures, from its XBRL facts: tagged with one axis (MCD's
    # 2023 10-K), or with the pair ASU 2023-07 adds and printed in columns by segment (AAPL's
    # 2025 10-K), its prior year from the comparative column (NVDA).
    "MCD-a15": "McDonald’s International Operated Markets operating income was $5,831.5 million",
    "AAPL-a20": "Apple's Americas operating income was $72,480 million in fiscal 2025",
    "AAPL-a03": "Apple's Services revenue rose 13.5% from fiscal 2024 to fiscal 2025",
    "AAPL-a17": "Apple's Greater China net sales fell by $2,575 million from fiscal 2024 to fiscal",
    "BA-a12": "Boeing's Defense, Space & Security revenue fell by $1,015 million",
    # A part's line as a share of the company's, and a segment named in the member's words
    # of a longer one ("Global Services", not the Service line).
    "NVDA-a30": "Nvidia's Data Center revenue as a share of revenue was 78.0% in fiscal 2024",
    "BA-a15": "Boeing's Global Services revenue as a share of revenue was 30.0% in fiscal 2024",
    "NVDA-a04": "Nvidia's Graphics operating income fell 13.0% from fiscal 2024 to fiscal 2025",
    # A line the library has no name for, read by the filing's own label: a balance's change,
    # an expense its section names ("Operating expenses: Fuel"), a product line's rate above
    # its total row, a segment's row.
    "UNP-a07": "Union Pacific's debt due after one year fell by $1,389 million",
    "UNP-a04": "Union Pacific's fuel expense fell 14.4% from fiscal 2023 to fiscal 2024",
    "UNP-a21": "Union Pacific's Bulk freight revenue fell at a compound annual rate of 2.2%",
    "HD-a17": "Home Depot's primary segment operating income was $21,313 million in fiscal 2024",
    # Lines no XBRL tag is on, read with their unit and scale: a backlog in millions, a
    # percentage the filer prints; a share of a whole whose part is a line the library lacks.
    "BA-a01": "Boeing's total backlog was $521,336 million in fiscal 2024",
    "UNP-a02": "Union Pacific's operating ratio was 59.9% in fiscal 2024",
    "NVDA-a02": "Nvidia's share repurchases were $33,706 million in fiscal 2025",
}


@pytest.fixture(scope="module")
def corpus_db() -> Path:
    if not CORPUS_DB.exists():
        pytest.fail("build/corpus.db is missing: run `make build/corpus.db` (about 8 minutes)")
    return CORPUS_DB


def _ask(case: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    question = next(
        q for path in sorted(ASKS.glob("dev-*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if (q := json.loads(line))["id"] == case
    )  # fmt: skip
    monkeypatch.setenv("EDGAR_RAG_DB", str(CORPUS_DB))
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(ROOT / "build" / "cache"))
    monkeypatch.setenv("EDGAR_RAG_TAPE", str(ASKS / "tape.jsonl"))
    monkeypatch.setenv("EDGAR_RAG_TAPE_MODE", "replay")
    args = ["ask", question["question"], "--json", "--ticker", question["ticker"]]
    args += ["--year", str(question["filing_fiscal_year"])]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    response: dict[str, Any] = json.loads(result.stdout)
    return response


@pytest.mark.usefixtures("corpus_db")
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_recorded_answer_that_does_not_answer_is_declined(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    response = _ask(case, monkeypatch)
    reason, why = CASES[case]
    assert response["reason"] == reason, f"{why}: {response['text']}"


@pytest.mark.usefixtures("corpus_db")
@pytest.mark.parametrize("case", sorted(ANSWERED))
def test_analysts_words_for_a_line_item_are_answered_in_code(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Basic earnings per common share", "capital investments as a percentage of operating
    revenues", "bottom line": the line item, named in the sentence as asked."""
    response = _ask(case, monkeypatch)
    assert response["reason"] is None, response["detail"]
    assert response["generator"] == "computed", response["generator"]
    assert ANSWERED[case] in response["text"]
