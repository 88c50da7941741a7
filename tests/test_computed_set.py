"""The derived set of computed questions: its size, kinds, split, phrasings and ceiling."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from edgar_rag.figures.calculator import Calculation
from edgar_rag.figures.formula import render
from edgar_rag.figures.library import load_library
from edgar_rag.figures.stated import StatedFormula, read_stated_formula
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag_dev.eval.computed import (
    ComputedQuestion,
    answer_directly,
    ceiling,
    computed_questions,
    describe_formula,
    hand_ceiling,
    read_hand_questions,
    write_computed,
)
from edgar_rag_dev.eval.computed import corpus_figures as corpus_figures_of
from figures_facts import corpus_figures

ROOT = Path(__file__).parents[1]
COMMITTED = ROOT / "data" / "computed" / "questions.jsonl"
HANDWRITTEN = ROOT / "data" / "computed" / "handwritten.jsonl"
CORPUS_DB = ROOT / "build" / "corpus.db"
LIBRARY = load_library()


def _committed() -> list[ComputedQuestion]:
    lines = COMMITTED.read_text(encoding="utf-8").splitlines()
    return [ComputedQuestion.model_validate_json(line) for line in lines]


def test_the_committed_set_is_large_varied_and_split_by_company_like_the_golden_set() -> None:
    questions = _committed()
    assert len(questions) >= 150
    kinds = Counter(q.metric for q in questions)
    assert len(kinds) >= 12
    assert len({q.id for q in questions}) == len(questions)
    split = json.loads((ROOT / "data" / "golden" / "split.json").read_text(encoding="utf-8"))
    for q in questions:
        assert q.ticker in split[q.split]
    for metric in kinds:
        phrasings = {q.question.split("?")[0] for q in questions if q.metric == metric}
        assert len(phrasings) >= 2, metric


def test_each_question_is_answered_by_resolver_and_calculator_read_from_its_text() -> None:
    figures = list(corpus_figures().values())
    questions = computed_questions(figures, LIBRARY)
    assert len(questions) == 48  # ten a filing for its own year, two for the year before
    summary = ceiling(questions, figures, LIBRARY)
    assert summary["failures"] == []
    hd = next(q for q in questions if q.ticker == "HD")
    answered = answer_directly(hd.question, corpus_figures()["HD-2024"], LIBRARY)
    assert isinstance(answered, Calculation)
    assert answered.text() == hd.text


@pytest.mark.parametrize("metric", sorted(LIBRARY.metrics))
def test_every_metric_stated_in_words_reads_back_to_its_formula(metric: str) -> None:
    formula = LIBRARY.metrics[metric].formula
    words = describe_formula(formula, LIBRARY, 2024)
    stated = read_stated_formula(f"What is it for FY2024? X is defined as: {words}.", LIBRARY)
    assert isinstance(stated, StatedFormula), (words, stated)
    assert render(stated.formula) == render(formula)


@pytest.mark.skipif(not CORPUS_DB.exists(), reason="no build/corpus.db")
def test_the_command_writes_the_committed_set(tmp_path: Path) -> None:
    write_computed(CORPUS_DB, tmp_path, tmp_path / "no-hand-written.jsonl")
    assert (tmp_path / "questions.jsonl").read_text(encoding="utf-8") == COMMITTED.read_text(
        encoding="utf-8"
    )


def test_the_hand_written_questions_are_thirty_and_more_with_their_evidence() -> None:
    questions = read_hand_questions(HANDWRITTEN)
    assert len(questions) >= 30
    assert len({q.id for q in questions}) == len(questions)
    for q in questions:
        assert (q.value is None) == (q.expect == "missing_figure")
        assert q.evidence


@pytest.mark.skipif(not CORPUS_DB.exists(), reason="no build/corpus.db")
def test_every_hand_written_question_is_answered_as_computed_by_hand() -> None:
    index = SqliteIndex(CORPUS_DB)
    try:
        filings = corpus_figures_of(index)
    finally:
        index.close()
    summary = hand_ceiling(read_hand_questions(HANDWRITTEN), filings, LIBRARY)
    assert summary["failures"] == []
