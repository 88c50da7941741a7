"""Rankers that keep the question's own candidates of one kind: for a question that counts
something, the chunks whose prose prints a number beside a word for what is counted; for one
that points where to read, the chunks of that Item.

"How many employees did Meta have?" is answered by one sentence of the human capital section
("We had a global workforce of 67,317 employees"), while the dense and lexical rankings fill the
top with expense tables and restructuring notes that say "employees" as often. The count is
what tells the answering sentence apart, so this ranking lists, among the chunks that say a word
for the thing counted, those printing a count next to it: no amount of money, no percentage, no
year, no change "by" so much.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from edgar_rag.domain import Passage, PassageIndex, ScoredIds
from edgar_rag.question.words import NOT_SAID, counting_stems, ends_in_change_by, lower_words, stem

_COUNT = re.compile(
    r"(?<![\w$€£.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s+(?:thousand|million|billion))?"
    r"(?![\w%,.]*\s*(?:%|percent))(?![\d,])"
)
_YEAR = re.compile(r"(?:19|20)\d{2}")
_NEAR = 4
"""How many words, small ones aside, may stand between a count and its noun: "67,317
employees", "employees totaled over 150,000", "approximately 31,600 employees"."""


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
            if not _YEAR.fullmatch(match.group()) and not ends_in_change_by(line[: match.start()])
        ]
        for first, match in enumerate(counts):
            before = _said(line[: match.start()])
            after = _said(line[match.end() :])
            beside = [*before[-_NEAR:], *after[:_NEAR]]
            if first == 0:
                # "The number of shareholders of record ... was estimated to be 4,500,000"
                beside += before[:_NEAR]
            if nouns & {stem(w) for w in beside}:
                return True
    return False


def _said(text: str) -> list[str]:
    """The words of ``text`` that may say what a count counts: no small words, numbers or dates
    ("Common Shares, $1.00 par value, outstanding as of January 31, 2024: 585,677,464")."""
    return [w for w in lower_words(text) if w not in NOT_SAID and not w.isdigit()]


def rank_count_chunks(
    index: PassageIndex, counted: str, rankings: Sequence[ScoredIds]
) -> ScoredIds:
    """The chunks of ``rankings`` (the question's own dense and lexical ones) that print a count
    beside a word for what is ``counted``, in the order of their best rank in either."""
    nouns = counting_stems(counted)
    return rank_kept(index, rankings, lambda passage: prints_count(passage.chunk.text, nouns))


def rank_section_chunks(
    index: PassageIndex, sections: frozenset[str], rankings: Sequence[ScoredIds]
) -> ScoredIds:
    """The chunks of ``rankings`` in the Items the question points to read ("according to the
    cover"), in the order of their best rank: nothing else routes a question to an Item."""
    return rank_kept(index, rankings, lambda passage: passage.chunk.item in sections)


def rank_kept(
    index: PassageIndex, rankings: Sequence[ScoredIds], keep: Callable[[Passage], bool]
) -> ScoredIds:
    """The chunks of ``rankings`` whose passage ``keep`` accepts, best rank in any first."""
    best: dict[int, int] = {}
    for ranking in rankings:
        for rank, (chunk_id, _) in enumerate(ranking):
            best[chunk_id] = min(rank, best.get(chunk_id, rank))
    ordered = sorted(best, key=lambda chunk_id: best[chunk_id])
    passages = index.passages(ordered)
    return [
        (chunk_id, 1.0 / (1 + best[chunk_id]))
        for chunk_id in ordered
        if chunk_id in passages and keep(passages[chunk_id])
    ]
