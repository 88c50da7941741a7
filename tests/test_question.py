"""A question read once: what each stage takes from it, and the kind of question it is, measured
on the labelled question sets of the project and FinanceBench."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from edgar_rag.domain import FilingMeta, SourceFormat
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.question.reading import Kind, asks_for_prose, question_kind, read_question
from edgar_rag.question.words import asks_amount, counted_noun

HOME_DEPOT = FilingMeta(
    sha256="0" * 64,
    company="HOME DEPOT, INC.",
    cik=354950,
    ticker="HD",
    form="10-K",
    fiscal_year=2024,
    period_end=date(2025, 2, 2),
    accession=None,
    filing_date=None,
    url=None,
    years_reported=(2022, 2023, 2024),
    source="hd-2024.htm",
    source_format=SourceFormat.HTML,
)
FINANCEBENCH = Path("../shared/corpus/financebench/financebench_open_source.jsonl")


def test_a_question_is_read_against_its_filing_once_for_every_stage() -> None:
    directory = CompanyDirectory((), [("Lowe's Companies, Inc.", "LOW", 60667)])
    question = read_question("What were Home Depot's total net sales in fiscal 2024?", HOME_DEPOT)
    assert question.years == {2024}
    assert question.metric == ("net", "sales")  # no company name, no "total", no year
    assert "sales" in question.terms
    assert "what" not in question.terms
    assert question.weights["sale"] == 1.0  # stems: "sales" is "sale"
    assert question.kind is Kind.LOOKUP
    dated = read_question("Home Depot inventory at January 28, 2024", HOME_DEPOT)
    assert dated.years == {2023}  # a period end, in Home Depot's fiscal calendar
    against = read_question(
        "How did Home Depot's sales compare with Lowe's?", HOME_DEPOT, directory
    )
    assert [mention.text for mention in against.companies] == ["Lowe's"]
    assert against.kind is Kind.COMPARISON


def test_read_without_a_filing_a_question_names_no_fiscal_year_of_its_own() -> None:
    question = read_question("Apple net income FY2024")
    assert question.years == frozenset()
    assert question.companies == ()
    assert question.kind is Kind.LOOKUP


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("What was Walmart's gross margin as a % of revenue in FY2024?", Kind.COMPUTATION),
        ("What is the FY2019 - FY2021 revenue CAGR for Nike?", Kind.COMPUTATION),
        ("Compare Apple's and NVIDIA's R&D spending in fiscal 2025", Kind.COMPARISON),
        ("How much cash did Costco hold at the end of FY2021?", Kind.LOOKUP),
        ("Why does Apple depend on outsourcing partners?", Kind.NARRATIVE),
        ("Describe how Boeing's revenue is recognised", Kind.NARRATIVE),
        # A question about a figure's qualitative side (its drivers, terms, limits, judgments)
        # is prose; "change" alone is not arithmetic, "change in" is.
        ("What drove the decline in Tesla's automotive gross profit?", Kind.NARRATIVE),
        ("What are the terms of Apple's commercial paper program?", Kind.NARRATIVE),
        ("What restricts Visa's ability to pay dividends?", Kind.NARRATIVE),
        ("How did Amazon's reportable segment structure change in 2024?", Kind.NARRATIVE),
        ("What assumptions underlie Boeing's revenue estimates?", Kind.NARRATIVE),
        ("What was the change in Meta's total debt in fiscal 2024?", Kind.COMPUTATION),
        ("Base your judgments on the balance sheet: what were Nike's total assets?", Kind.LOOKUP),
        # "comparable sales" is a retailer's measure, not a comparison
        ("What were Target's comparable sales in fiscal 2024?", Kind.LOOKUP),
    ],
)
def test_kind_by_the_words_of_the_question(text: str, kind: Kind) -> None:
    assert question_kind(text) is kind


def _share(questions: list[str], kind: Kind) -> float:
    return sum(question_kind(q) is kind for q in questions) / len(questions)


def _lines(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_the_kinds_of_the_labelled_question_sets() -> None:
    """Measured at 0.98 (golden lookups; the misses are "gross margin", which some filings
    report as an amount), 0.99 (figure retrieval set), 1.0 (narrative set), 1.0 and 1.0
    (FinanceBench's computed and extracted metrics questions)."""
    golden = [row["question"] for row in _lines(Path("data/golden/questions.jsonl"))]
    figures = [row["question"] for row in _lines(Path("data/retrieval/figures.jsonl"))]
    narrative = [row["question"] for row in _lines(Path("data/retrieval/narrative.jsonl"))]
    assert _share(golden, Kind.LOOKUP) >= 0.97
    assert _share(figures, Kind.LOOKUP) >= 0.97
    assert _share(narrative, Kind.NARRATIVE) >= 0.97
    metrics = [row for row in _lines(FINANCEBENCH) if row["question_type"] == "metrics-generated"]
    computed = [row["question"] for row in metrics if row["question_reasoning"].startswith("Num")]
    extracted = [row["question"] for row in metrics if row["question_reasoning"].startswith("Info")]
    assert len(computed) == 36
    assert len(extracted) == 14
    assert _share(computed, Kind.COMPUTATION) >= 0.95
    assert _share(extracted, Kind.LOOKUP) >= 0.9


def test_a_question_that_asks_to_be_told_asks_for_prose() -> None:
    assert asks_for_prose("Why did Apple's gross margin fall in fiscal 2025?")
    assert asks_for_prose("Describe how Visa recognises revenue")
    assert not asks_for_prose("In fiscal 2023, what was the etr of Johnson & Johnson?")


@pytest.mark.parametrize(
    ("question", "counted"),
    [
        ("How many full-time equivalent employees did Apple have?", "employees"),
        ("How many common shareholders of record did Union Pacific have?", "shareholders"),
        (
            "How many individual shipper lawsuits from the antitrust litigation are pending?",
            "lawsuits",
        ),
        ("How much floor space did Boeing have at the end of 2024?", None),
        ("How much of NVIDIA's revenue came from its largest customer?", None),
        ("How much did NVIDIA pay out in cash dividends in fiscal 2025?", None),
        ("What was Apple's net income in fiscal 2025?", None),
        ("What was NVIDIA's employee count at its fiscal 2025 year end?", "employee"),
        ("What was Apple's full-time equivalent headcount?", "headcount"),
    ],
)
def test_a_count_asked_is_read_as_what_it_counts(question: str, counted: str | None) -> None:
    assert counted_noun(question) == counted


@pytest.mark.parametrize(
    ("question", "amount"),
    [
        ("How many stores did Walmart U.S. operate?", True),
        ("How much of NVIDIA's revenue came from its largest customer?", True),
        ("What share of Home Depot's fiscal 2024 net sales was generated online?", True),
        ("What percentage of Boeing's revenue came from the U.S. government?", True),
        ("What was Apple's net income in fiscal 2025?", False),
        ("How does Tesla talk about recruiting talent?", False),
    ],
)
def test_an_amount_or_a_share_asked_wants_a_figure_in_the_answer(
    question: str, amount: bool
) -> None:
    """A right answer to "what share of" states a percentage, as one to "how many" states a
    count: an answer without one is mended from its cited sentence or declined."""
    assert asks_amount(question) is amount
