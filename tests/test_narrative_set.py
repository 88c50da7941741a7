"""The hand-written narrative question set: well formed, spread out, phrases verbatim."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

from edgar_rag_dev.eval.narrative import ITEM_PATTERN, Topic
from narrative_corpus import CORPUS, CORPUS_TICKERS, MANIFEST, filing_paths, item_texts, manifest

NARRATIVE = Path(__file__).resolve().parents[1] / "data" / "retrieval" / "narrative.jsonl"


class NarrativeQuestion(BaseModel):
    """One line of ``narrative.jsonl``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^n\d{2,}$")
    ticker: str
    fiscal_year: int
    question: str = Field(min_length=10)
    item: str = Field(pattern=ITEM_PATTERN)
    phrase: str
    topic: Topic


@cache
def _questions() -> tuple[NarrativeQuestion, ...]:
    lines = NARRATIVE.read_text(encoding="utf-8").splitlines()
    return tuple(NarrativeQuestion.model_validate_json(line) for line in lines if line.strip())


def test_every_line_is_a_valid_question() -> None:
    questions = _questions()
    assert questions
    for question in questions:
        assert 4 <= len(question.phrase.split()) <= 12, question.id
        assert question.phrase.strip() == question.phrase, question.id


def test_ids_are_unique() -> None:
    ids = [question.id for question in _questions()]
    assert len(ids) == len(set(ids))


def test_there_are_at_least_forty_questions() -> None:
    assert len(_questions()) >= 40


def test_every_company_of_the_corpus_appears() -> None:
    companies = {row["ticker"] for row in manifest()} if MANIFEST.exists() else CORPUS_TICKERS
    asked = {question.ticker for question in _questions()}
    assert companies - asked == set()


def test_the_main_items_are_all_asked_about() -> None:
    items = {question.item for question in _questions()}
    wanted = {"Item 1", "Item 1A", "Item 1C", "Item 2", "Item 3", "Item 5", "Item 7", "Item 7A"}
    assert wanted | {"Item 8", "Item 9A"} <= items


@pytest.mark.skipif(
    not MANIFEST.exists(),
    reason=f"the shared corpus is not at {CORPUS}; the phrases cannot be checked against it",
)
def test_every_phrase_occurs_verbatim_in_its_item() -> None:
    paths = filing_paths()
    by_filing: dict[tuple[str, int], list[NarrativeQuestion]] = defaultdict(list)
    for question in _questions():
        by_filing[question.ticker, question.fiscal_year].append(question)
    problems: list[str] = []
    for key, questions in sorted(by_filing.items()):
        if key not in paths:
            problems.append(f"{key}: not in the corpus manifest")
            continue
        items = item_texts(*key)
        for question in questions:
            if not any(question.phrase in text for text in items.get(question.item, ())):
                problems.append(f"{question.id} {key} {question.item}: {question.phrase!r}")
    assert problems == []
