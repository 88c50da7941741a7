"""A third ranker for figure questions: the question's metric words against the names of the
figures the filing displays, each pointing at the chunk that prints it.

Figures live in tables, where the words around a number are few and the same words recur in every
table; the concept behind a displayed XBRL figure (``NetCashProvidedByUsedInOperatingActivities``)
says what the number is, and so does a PDF statement row's label (``Net cash provided by operating
activities``). A name is split into words and matched against the question's words, with a small
table of how analysts say things the taxonomy says otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Protocol

from edgar_rag.domain import FactRef, ScoredIds

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+")
_LABEL_WORD = re.compile(r"[a-z0-9]+")
_TRAILING_NOTE = re.compile(r"\s*\([^)]*\)\s*$")
_STEM = 5
_IGNORED = frozenset({"and", "or", "the", "of", "in", "to", "by", "for", "from", "with", "net"})
SYNONYMS: dict[str, tuple[str, ...]] = {
    "sales": ("revenue",),
    "revenues": ("revenue",),
    "turnover": ("revenue",),
    "capex": ("payments", "acquire", "property", "plant", "equipment"),
    "capital": ("payments", "acquire", "property", "plant", "equipment"),
    "expenditures": ("payments", "acquire", "property", "plant", "equipment"),
    "eps": ("earnings", "per", "share"),
    "r&d": ("research", "development"),
    "buybacks": ("payments", "repurchase", "common", "stock"),
    "repurchases": ("payments", "repurchase", "common", "stock"),
    "dividends": ("payments", "dividends"),
    "inventories": ("inventory",),
    "purchases": ("payments", "acquire"),
    "purchase": ("payments", "acquire"),
    "equipment": ("plant", "equipment"),
    "earnings": ("income",),
    "profit": ("income", "profit"),
    "shareholders": ("stockholders",),
    "tax": ("income", "tax", "expense"),
    "taxes": ("income", "tax", "expense"),
    "operating": ("operating", "activities"),
}


def _stems(words: Sequence[str]) -> frozenset[str]:
    return frozenset(w[:_STEM] for w in words if w not in _IGNORED)


@lru_cache(maxsize=4096)
def concept_words(concept: str) -> frozenset[str]:
    """``us-gaap:NetCashProvidedByUsedInOperatingActivities`` -> stems of its words."""
    local = concept.rsplit(":", maxsplit=1)[-1]
    return _stems([w.lower() for w in _CAMEL.findall(local)])


@lru_cache(maxsize=16384)
def label_words(label: str) -> frozenset[str]:
    """``Operating expenses: Cost of sales`` -> stems of the row's own words (``cost``,
    ``sales``): the part before a colon is the heading the row sits under."""
    return _stems(_LABEL_WORD.findall(label.rsplit(":", maxsplit=1)[-1].lower()))


def fact_words(fact: FactRef) -> frozenset[str]:
    """The stems of what names a displayed figure: its concept, else its row's label."""
    if fact.concept:
        return concept_words(fact.concept)
    return label_words(fact.label) if fact.label else frozenset()


def question_words(terms: Sequence[str]) -> frozenset[str]:
    """The stems of the question's terms and their synonyms; a hyphenated term counts as its
    parts, as a concept's name spells them (``long-term`` is ``LongTerm``)."""
    words: list[str] = []
    for term in terms:
        for word in (term, *term.split("-")) if "-" in term else (term,):
            words.append(word)
            words.extend(SYNONYMS.get(word, ()))
    return _stems([word for word in words if word])


def rank_fact_chunks(
    terms: Sequence[str],
    facts: Sequence[FactRef],
    period_end: date | None,
    k: int,
    min_share: float = 0.6,
) -> ScoredIds:
    """Chunks ranked by the best-matching displayed fact: the share of its name's words the
    question says, then the filing's own period and undimensioned facts first. A concept the
    question names less than ``min_share`` of is no match, so a question about prose (whose words
    brush against many concept names) gets no fact ranking at all."""
    wanted = question_words(terms)
    if not wanted:
        return []
    best: dict[int, float] = {}
    for fact in facts:
        words = fact_words(fact)
        if not words:
            continue
        shared = len(wanted & words)
        if shared == 0 or shared / len(words) < min_share:
            continue
        score = shared / len(words) + 0.1 * shared
        score += 0.2 if not fact.dimensional else 0.0
        score += 0.1 if period_end is not None and fact.period_end == period_end else 0.0
        if score > best.get(fact.chunk_id, 0.0):
            best[fact.chunk_id] = score
    ranked = sorted(best.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[:k]


def named_fact_chunk(
    terms: Sequence[str], facts: Sequence[FactRef], period_end: date | None
) -> int | None:
    """The chunk that displays the fact the question names outright: an undimensioned fact of
    the filing's own period whose concept's every word the question says (with its synonyms),
    the longest such concept first; None when no concept is named whole."""
    wanted = question_words(terms)
    best: tuple[int, int] | None = None
    for fact in facts:
        words = fact_words(fact)
        if fact.dimensional or fact.period_end != period_end or not words or words - wanted:
            continue
        if best is None or len(words) > best[0]:
            best = (len(words), fact.chunk_id)
    return None if best is None else best[1]


@dataclass(frozen=True, slots=True)
class Operand:
    """A figure a question's metric needs, as a statement without XBRL prints it: the row
    labels it stands under (lower case). An XBRL filing's figures are the facts ranker's, by
    their concepts (``rank_fact_chunks``)."""

    rows: frozenset[str]

    def names(self, fact: FactRef) -> bool:
        """The displayed figure is a statement row whose own label, a trailing "(Note 4)"
        aside, is one of the row labels."""
        if fact.concept or not fact.label:
            return False
        own = fact.label.rsplit(": ", 1)[-1].strip().lower()
        return own in self.rows or _TRAILING_NOTE.sub("", own) in self.rows


class OperandReader(Protocol):
    """The figures a question's metric is computed from, and with ``named_items`` the line
    items it names outright; empty when it names none. The metric library implements it
    (``figures.operands``)."""

    def __call__(self, question: str, named_items: bool) -> Sequence[Operand]: ...


def rank_operand_chunks(
    operands: Sequence[Operand], facts: Sequence[FactRef], period_end: date | None, k: int
) -> ScoredIds:
    """Chunks ranked by how many of the operands they display, counting those of the filing's
    own period first (a statement printing current assets and current liabilities for a quick
    ratio before a note printing one of them); ties keep the filing's order."""
    shown: dict[int, set[int]] = {}
    own: dict[int, set[int]] = {}
    for fact in facts:
        for number, operand in enumerate(operands):
            if operand.names(fact):
                shown.setdefault(fact.chunk_id, set()).add(number)
                if fact.period_end == period_end and not fact.dimensional:
                    own.setdefault(fact.chunk_id, set()).add(number)
    scores = {
        chunk: len(own.get(chunk, ())) + 0.5 * len(numbers) for chunk, numbers in shown.items()
    }
    ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    return ranked[:k]
