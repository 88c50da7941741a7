"""A question prepared for the model: searched, its passages chosen and its prompt built, with
what code decided about it before the model runs (``Answerer.prepare``)."""

from __future__ import annotations

from dataclasses import dataclass

from edgar_rag.answer.computed import Computed, Uncomputable
from edgar_rag.answer.context import Window
from edgar_rag.domain import Hit, Prompt, Scope
from edgar_rag.question.reading import Question


@dataclass(frozen=True, slots=True)
class Prepared:
    """A question searched and its prompt built: everything the model and verifier need."""

    question: Question
    scope: Scope
    hits: list[Hit]
    given: list[Hit]
    """The hits whose windows went into the prompt, in marker order."""
    windows: list[Window]
    prompt: Prompt
    best: float | None
    """The best cosine among the hits (what the cosine gate holds to its threshold)."""
    timings: dict[str, float]
    computed: Computed | Uncomputable | None = None
    """The answer computed in code (or why it could not be), decided before the prompt: a
    figure question code cannot plan is prompted as prose, since its answer is a figure stated
    in a sentence ("accounted for approximately 13.1% of ... total revenues"), not a table
    row; None when code does not plan the question (the model answers it)."""
    topic: tuple[str, ...] = ()
    """The words of the question that may name its topic (``premise.topic_words``): an answer
    saying none of them answers another question."""
    unsaid: tuple[str, ...] = ()
    """The words naming the question's topic that its filing never says ("cryptocurrency"): an
    answer saying one says what the filing does not (``premise``). A question asked of the
    whole corpus is read against the filings of the passages it was given."""
    second_look: Prompt | None = None
    """The prompt without its refusal clause, asked when the model finds no answer to a
    narrative question (``Answerer.reply``); None for a figure lookup or computation, whose
    refusal stands."""
    left_open: tuple[str, ...] = ()
    """The words of a figure question code left to the model because no plan accounts for
    them ("graphics", "segment"): a passage the answer cites for a figure must say them all."""
