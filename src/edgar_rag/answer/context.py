"""The context budget: from each retrieved chunk, the contiguous lines that best match the
question, within a character budget.

A local model reads about 60 prompt tokens a second on two cores, so five whole 800-character
chunks cost some 20 seconds before the first word. A table row already carries its label, column
headers and scale, and a prose sentence its own words, so a window of whole rows or sentences
around the question's words keeps what the answer needs at a fraction of the tokens. The
question's words count with their synonyms (question.words), so "revenues" finds "Total net sales".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_rag.question.reading import Question
from edgar_rag.question.words import prose_stems, text_stems, unasked_qualifiers

_PIECE = re.compile(r"[^\n]+")
_DIGIT = re.compile(r"\d")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")


@dataclass(frozen=True, slots=True)
class Window:
    """A span of a chunk's text: ``text == chunk_text[start:end]``."""

    start: int
    end: int
    text: str


def paragraph_before(text: str, window: Window) -> str:
    """What the paragraph (line) of ``text`` that ``window`` starts in says before it starts."""
    return text[text.rfind("\n", 0, window.start) + 1 : window.start]


def _pieces(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for line in _PIECE.finditer(text):
        start = line.start()
        cursor = start
        for match in _SENTENCE_END.finditer(line.group()):
            spans.append((cursor, start + match.start()))
            cursor = start + match.end()
        spans.append((cursor, line.end()))
    return [(a, b) for a, b in spans if b > a]


def _cut(text: str, start: int, end: int, budget_chars: int) -> Window:
    if end - start > budget_chars:
        cut = text.rfind(" ", start, start + budget_chars)
        end = cut if cut > start else start + budget_chars
    return Window(start, end, text[start:end])


def best_prose_window(text: str, question: Question, budget_chars: int) -> Window:
    """The run of whole sentences within the budget that holds the most of the question's
    stems (weighted as in ``best_window``, a stem counted in each sentence it is in).

    Prose answers a question over several sentences, and the sentence that names the topic
    comes before the ones that give the answer ("Our business results depend on ... our
    supply chain." then "..., including ... sole supplier ... arrangements."): growing from the
    single best sentence spends the budget on whatever neighbour ties, often the sentence
    before. Among runs of equal weight the one with more sentences goes first, then the one
    that starts later: it keeps what follows the match.
    """
    if len(text) <= budget_chars:
        return Window(0, len(text), text)
    pieces = _pieces(text)
    if not pieces:
        return Window(0, 0, "")
    weights = question.weights
    scores = [sum(weights.get(s, 0.0) for s in prose_stems(text[a:b])) for a, b in pieces]
    best = (-1.0, 0, 0)
    first = last = 0
    for start in range(len(pieces)):
        total = 0.0
        for end in range(start, len(pieces)):
            if end > start and pieces[end][1] - pieces[start][0] > budget_chars:
                break
            total += scores[end]
            key = (total, end - start, start)
            if key > best:
                best, first, last = key, start, end
    return _cut(text, pieces[first][0], pieces[last][1], budget_chars)


def best_window(text: str, question: Question, budget_chars: int) -> Window:
    """The line or sentence that best matches the question, grown by its best-matching
    neighbours while the budget allows. A piece longer than the budget is cut at a space.

    A piece scores the weights of the question's stems it holds (a synonym counts half), less one
    for each qualifier its label adds that the question does not say (``Deferred income taxes``
    for a question on income taxes). Among equals, a piece printing a figure goes before a
    heading, then the one whose row label (its group left out) has the fewest words the question
    does not say (``Total liabilities`` over ``Total assets and liabilities``), then the
    earliest.
    """
    if len(text) <= budget_chars:
        return Window(0, len(text), text)
    weights = question.weights
    asked = question.words
    pieces = _pieces(text)
    if not pieces:
        return Window(0, 0, "")
    scores = [sum(weights.get(s, 0.0) for s in text_stems(text[a:b])) for a, b in pieces]

    def rank(index: int) -> tuple[float, bool, int, int]:
        start, end = pieces[index]
        label = text[start:end].split(" | ", 1)[0]
        qualified = len(unasked_qualifiers(label, asked))
        extra = len(text_stems(label.rpartition(":")[2]) - weights.keys())
        return (
            scores[index] - qualified,
            _DIGIT.search(text, start, end) is not None,
            -extra,
            -index,
        )

    first = last = max(range(len(pieces)), key=rank)
    while True:
        grown = []
        if first > 0 and pieces[last][1] - pieces[first - 1][0] <= budget_chars:
            grown.append((scores[first - 1], 1, first - 1))
        if last + 1 < len(pieces) and pieces[last + 1][1] - pieces[first][0] <= budget_chars:
            grown.append((scores[last + 1], 0, last + 1))
        if not grown:
            break
        _, upward, index = max(grown)
        first, last = (index, last) if upward else (first, index)
    return _cut(text, pieces[first][0], pieces[last][1], budget_chars)
