"""The answer-level narrative question set: well formed, counted, split like the golden set,
spread over companies, and every phrase, figure and absence true of the parsed filing."""

from __future__ import annotations

import json
import re
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from edgar_rag_dev.eval.narrative import NarrativeQuestion, read_narrative
from edgar_rag_dev.eval.sets import MOVED_TO_DEV
from narrative_corpus import CORPUS, CORPUS_TICKERS, MANIFEST, filing_paths, item_texts, manifest

DATA = Path(__file__).resolve().parents[1] / "data"
QUESTIONS = DATA / "narrative" / "questions.jsonl"
RETRIEVAL = DATA / "retrieval" / "narrative.jsonl"
SPLIT = DATA / "golden" / "split.json"

COMPANY_CAP = 0.12
"""No company holds more than this share of the questions."""
UNIT_REACH = 150
"""How far (characters) from its phrase a figure's unit words may stand in the Item."""
COPIED_RUN = 8
"""A question sharing this many consecutive words with its Item reads as copied."""
COMPANY_NAMES = {
    "AAPL": "Apple", "NVDA": "NVIDIA", "AMZN": "Amazon", "TSLA": "Tesla", "WMT": "Walmart",
    "HD": "Home Depot", "JNJ": "Johnson & Johnson", "META": "Meta", "WFC": "Wells Fargo",
    "V": "Visa", "PGR": "Progressive", "UNP": "Union Pacific", "BA": "Boeing",
    "PG": "Procter & Gamble", "MCD": "McDonald's", "GOOGL": "Alphabet",
}  # fmt: skip
"""How a corpus-wide question names each company (no ticker filter narrows it)."""


@cache
def _questions() -> tuple[NarrativeQuestion, ...]:
    return tuple(read_narrative(QUESTIONS))


def _kinds() -> Counter[str]:
    return Counter(question.kind for question in _questions())


def test_every_line_is_a_valid_question_with_a_unique_id() -> None:
    ids = [question.id for question in _questions()]
    assert len(ids) == len(set(ids))


def test_the_retrieval_questions_are_all_reused_unchanged() -> None:
    by_id = {question.id: question for question in _questions()}
    shared = ("ticker", "fiscal_year", "question", "item", "phrase", "topic")
    for line in RETRIEVAL.read_text(encoding="utf-8").splitlines():
        retrieval = json.loads(line)
        reused = by_id[retrieval["id"]].model_dump()
        assert {key: reused[key] for key in shared} == {key: retrieval[key] for key in shared}


def test_the_set_is_large_enough_of_each_kind() -> None:
    kinds = _kinds()
    assert len(_questions()) >= 150
    assert kinds["figure"] >= 50
    assert kinds["decline"] >= 20
    assert sum(question.scope == "corpus" for question in _questions()) >= 30


def test_the_split_is_the_golden_sets_by_company() -> None:
    """Save the eval questions tests pinned while tuning, moved to dev (issue 42)."""
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    side = {ticker: name for name in ("dev", "eval") for ticker in split[name]}
    assert {question.id: question.split for question in _questions()} == {
        question.id: "dev" if question.id in MOVED_TO_DEV else side[question.ticker]
        for question in _questions()
    }
    for name in ("dev", "eval"):
        kinds = Counter(question.kind for question in _questions() if question.split == name)
        assert set(kinds) == {"figure", "prose", "decline"}, name


def test_no_company_holds_more_than_its_share_and_every_company_appears() -> None:
    companies = {row["ticker"] for row in manifest()} if MANIFEST.exists() else CORPUS_TICKERS
    counts = Counter(question.ticker for question in _questions())
    assert set(counts) == companies
    assert max(counts.values()) <= COMPANY_CAP * len(_questions())


def test_the_corpus_wide_questions_name_their_company_and_are_answerable() -> None:
    for question in _questions():
        if question.scope == "corpus":
            assert question.expect == "answer", question.id
            assert COMPANY_NAMES[question.ticker] in question.question, question.id


def test_a_corpus_wide_question_names_its_year_when_its_company_has_two_filings() -> None:
    years = Counter(ticker for ticker, _ in filing_paths()) if MANIFEST.exists() else Counter()
    for question in _questions():
        if question.scope == "corpus" and years[question.ticker] > 1:
            assert re.search(r"\b20\d\d\b", question.question), question.id


@pytest.mark.skipif(
    not MANIFEST.exists(),
    reason=f"the shared corpus is not at {CORPUS}; the set cannot be checked against it",
)
def test_every_phrase_figure_and_absence_is_true_of_the_parsed_filing() -> None:
    paths = filing_paths()
    problems: list[str] = []
    for question in _questions():
        key = (question.ticker, question.fiscal_year)
        if key not in paths:
            problems.append(f"{question.id} {key}: not in the corpus manifest")
            continue
        items = item_texts(*key)
        if question.item is not None and question.phrase is not None:
            texts = [text for text in items.get(question.item, ()) if question.phrase in text]
            if not texts:
                problems.append(f"{question.id} {key} {question.item}: {question.phrase!r}")
            elif question.unit is not None and not _unit_near(
                question.unit, question.phrase, texts
            ):
                problems.append(f"{question.id}: {question.unit!r} not near {question.phrase!r}")
            copied = _copied_run(question.question, texts)
            if copied:
                problems.append(f"{question.id}: the question copies {copied!r}")
        whole = " ".join(text for texts in items.values() for text in texts).lower()
        problems += [
            f"{question.id}: {term!r} is in {key}"
            for term in question.absent
            if term.lower() in whole
        ]
    assert problems == []


def _unit_near(unit: str, phrase: str, texts: list[str]) -> bool:
    for text in texts:
        start = text.index(phrase)
        window = text[max(0, start - UNIT_REACH) : start + len(phrase) + UNIT_REACH]
        if unit.lower() in window.lower():
            return True
    return False


def _copied_run(question: str, texts: list[str]) -> str | None:
    words = re.findall(r"[\w'’.,%$-]+", question.lower())
    flat = [" ".join(text.lower().split()) for text in texts]
    for start in range(len(words) - COPIED_RUN + 1):
        run = " ".join(words[start : start + COPIED_RUN])
        if any(run in text for text in flat):
            return run
    return None
