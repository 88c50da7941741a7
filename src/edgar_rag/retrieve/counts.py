"""A ranker for questions that count something: the chunks whose prose prints a number beside a
word for what is counted.

"How many employees did Meta have?" is answered by one sentence of the human capital section
("We had a global workforce of 67,317 employees"), while the dense and lexical rankings fill the
top with expense tables and restructuring notes that say "employees" as often. The count is
what tells the answering sentence apart, so this ranking lists, among the chunks that say a word
for the thing counted, those printing a count next to it: no amount of money, no percentage, no
year, no change "by" so much.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from edgar_rag.domain import PassageIndex, ScoredIds
from edgar_rag.question.words import MONTHS, STOPWORDS, counting_stems, lower_words, stem

_COUNT = re.compile(
    r"(?<![\w$€£.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s+(?:thousand|million|billion))?"
    r"(?![\w%,.]*\s*(?:%|percent))(?![\d,])"
)
_YEAR = re.compile(r"(?:19|20)\d{2}")
_NEAR = 4
"""How many words, small ones aside, may stand between a count and its noun: "67,317
employees", "employees totaled over 150,000", "approximately 31,600 employees"."""
_BY = re.compile(r"\bby(?:\s+(?:approximately|about|around|nearly|over|more|than|almost))*\s*$")


def prints_count(text: str, nouns: frozenset[str]) -> bool:
    """Some prose line of ``text`` prints a count within a few words of one of ``nouns`` (word
    stems), or a table row whose label says one of them prints a figure."""
    for line in text.splitlines():
        if " | " in line:
            label = line.split(" | ", maxsplit=1)[0]
            if nouns & {stem(w) for w in lower_words(label)} and _COUNT.search(line):
                return True
            continue
        counts = [
            match
            for match in _COUNT.finditer(line)
            if not _YEAR.fullmatch(match.group()) and not _BY.search(line, 0, match.start())
        ]
        for first, match in enumerate(counts):
            before = _said(line[: match.start()])
            after = _said(line[match.end() :])
            beside = [*before[-_NEAR:], *after[:_NEAR]]
            if (
                first == 0
            ):  # "The number of shareholders of record ... was estimated to be 4,500,000"
                beside += before[:_NEAR]
            if nouns & {stem(w) for w in beside}:
                return True
    return False


def _said(text: str) -> list[str]:
    """The words of ``text`` that may say what a count counts: no small words, numbers or dates
    ("Common Shares, $1.00 par value, outstanding as of January 31, 2024: 585,677,464")."""
    return [w for w in lower_words(text) if w not in _NOT_SAID and not w.isdigit()]


_NOT_SAID = STOPWORDS | set(MONTHS)


def rank_count_chunks(
    index: PassageIndex, counted: str, rankings: Sequence[ScoredIds]
) -> ScoredIds:
    """The chunks of ``rankings`` (the question's own dense and lexical ones) that print a count
    beside a word for what is ``counted``, in the order of their best rank in either."""
    best: dict[int, int] = {}
    for ranking in rankings:
        for rank, (chunk_id, _) in enumerate(ranking):
            best[chunk_id] = min(rank, best.get(chunk_id, rank))
    ordered = sorted(best, key=lambda chunk_id: best[chunk_id])
    passages = index.passages(ordered)
    nouns = counting_stems(counted)
    return [
        (chunk_id, 1.0 / (1 + best[chunk_id]))
        for chunk_id in ordered
        if chunk_id in passages and prints_count(passages[chunk_id].chunk.text, nouns)
    ]
