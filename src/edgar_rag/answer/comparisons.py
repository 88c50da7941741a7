"""A comparison an answer states between two of its own figures, checked by code; and the
period a figure is said to be of, against the period asked.

"The total shareholders' equity was $71,315 million, which is higher than the total liabilities
and shareholders' equity of $228,275 million" says one figure is higher than another that is
larger: each figure may be printed in its passage, and the sentence still false. Where a
sentence sets a figure against another with a comparative ("higher than", "less than"), code
decides whether it holds; the answer that says otherwise is declined. Figures of different
kinds (a percentage against an amount) are not compared, nor is a difference ("2.1 points
higher than 36.8%") compared with a level.
"""

from __future__ import annotations

import re

from edgar_rag.answer.numbers import find_figures
from edgar_rag.answer.verify import split_sentences, strip_markers

_COMPARATIVE = re.compile(
    r"\b(?P<word>higher|greater|larger|bigger|more|lower|less|smaller|fewer)\s+than\b",
    re.IGNORECASE,
)
_BY_AMOUNT = re.compile(
    r"\s*(?:percentage\s+points?|points?|basis\s+points?|bps|times|x|%)?\s*", re.IGNORECASE
)
_HIGHER = frozenset({"higher", "greater", "larger", "bigger", "more"})


def comparison_contradicted(text: str) -> str | None:
    """Why a sentence of ``text`` compares two of its figures the wrong way round (the figure
    before "higher than" is not higher than the one after it), masked as a decline's detail
    is; None when every such comparison holds or none is stated."""
    for sentence in split_sentences(strip_markers(text)):
        figures = find_figures(sentence)
        for found in _COMPARATIVE.finditer(sentence):
            before = [f for f in figures if f.end <= found.start()]
            after = [f for f in figures if f.start >= found.end()]
            if not before or not after:
                continue
            first, second = before[-1], after[0]
            if _BY_AMOUNT.fullmatch(sentence[first.end : found.start()]):
                continue  # "2.1 percentage points higher than": the difference, not a level
            if first.is_percent != second.is_percent or first.value == second.value:
                continue
            higher = found["word"].lower() in _HIGHER
            if (first.value > second.value) != higher:
                masked = sentence
                for figure in sorted((first, second), key=lambda f: f.start, reverse=True):
                    masked = masked[: figure.start] + "…" + masked[figure.end :]
                return (
                    f'the sentence "{" ".join(masked.split())}" says a figure is '
                    f"{found['word'].lower()} than one it is not"
                )
    return None


_QUARTER = re.compile(
    r"\b(?:first|second|third|fourth|1st|2nd|3rd|4th)\s+(?:fiscal\s+)?quarter\b|"
    r"\bQ[1-4]\b|\b(?:three|six|nine)\s+months\b",
    re.IGNORECASE,
)
_QUARTER_ASKED = re.compile(
    r"\bquarter|(?<![A-Za-z])Q[1-4]\b|\bmonths\b|(?<![A-Za-z])H[12]\b|\bhalf\b", re.IGNORECASE
)
_FISCAL_YEAR_ASKED = re.compile(r"\bFY\s?'?\d{2,4}\b|\bfiscal\s+(?:year\s+)?\d{4}\b", re.I)


def quarter_for_year(question: str, text: str) -> str | None:
    """Why an answer to a question of a fiscal year (it writes one, "FY2023" or "fiscal 2023",
    and names no quarter, half or months) is declined when a sentence stating a figure says it
    is a quarter's ("SG&A decreased to 23.6% compared to 23.8% in the fourth quarter of fiscal
    2021": an earnings release prints the quarter beside the year); None otherwise."""
    if _QUARTER_ASKED.search(question) or not _FISCAL_YEAR_ASKED.search(question):
        return None
    for sentence in split_sentences(strip_markers(text)):
        figures = find_figures(sentence)
        if figures and _QUARTER.search(sentence):
            masked = sentence
            for figure in sorted(figures, key=lambda f: f.start, reverse=True):
                masked = masked[: figure.start] + "…" + masked[figure.end :]
            return (
                f'the sentence "{" ".join(masked.split())}" states figures of a quarter; the '
                "question asks about a fiscal year"
            )
    return None
