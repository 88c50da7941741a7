"""The context budget: from each retrieved chunk, the contiguous lines that best match the
question, within a character budget.

A local model reads about 60 prompt tokens a second on two cores, so five whole 800-character
chunks cost some 20 seconds before the first word. A table row already carries its label, column
headers and scale, and a prose sentence its own words, so a window of whole rows or sentences
around the question's words keeps what the answer needs at a fraction of the tokens. The
question's words count with their synonyms (answer.metric), so "revenues" finds "Total net sales".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_rag.answer.metric import question_stems, text_stems

_PIECE = re.compile(r"[^\n]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"“])")


@dataclass(frozen=True, slots=True)
class Window:
    """A span of a chunk's text: ``text == chunk_text[start:end]``."""

    start: int
    end: int
    text: str


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


def best_window(text: str, question: str, budget_chars: int) -> Window:
    """The contiguous run of lines/sentences within ``budget_chars`` sharing most words with the
    question (ties go to the earliest). A piece longer than the budget is cut at a space."""
    if len(text) <= budget_chars:
        return Window(0, len(text), text)
    wanted = question_stems(question)
    pieces = _pieces(text)
    scores = [len(wanted & text_stems(text[a:b])) for a, b in pieces]
    best: tuple[int, int, int] = (-1, 0, 0)
    for first in range(len(pieces)):
        total = 0
        for last in range(first, len(pieces)):
            if pieces[last][1] - pieces[first][0] > budget_chars and last > first:
                break
            total += scores[last]
            if total > best[0]:
                best = (total, first, last)
    _, first, last = best
    start, end = pieces[first][0], pieces[last][1]
    if end - start > budget_chars:
        cut = text.rfind(" ", start, start + budget_chars)
        end = cut if cut > start else start + budget_chars
    return Window(start, end, text[start:end])
