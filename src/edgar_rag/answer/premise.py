"""What a question takes for granted that the filing never says.

"How does Johnson & Johnson account for its cryptocurrency holdings?" asks about a topic the
filing never mentions. Shown passages about securities, a small model answers anyway, saying
"cryptocurrency" of them. Every other check passes such an answer: it states no figure, and its
other words are the passages'. Code can tell: the word is the question's topic, and no word of the
filing (nor of the words that name the same thing) is it.

A question also says things that are not its topic ("what is the rationale", "how does it arrive
at", "its latest plan"), which a filing need not say either, and an answer may echo them. Those
words mean little on their own: their embedding is far from the question's. A topic word's is
near (measured on the narrative set: "rationale", "arrive", "keep", "track", "latest", "nearly"
0.07-0.15 to their questions; "pension", "nuclear", "cryptocurrency", "passenger", "telematics",
"royalties" 0.28-0.62).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from edgar_rag.domain import Vectors
from edgar_rag.question.reading import Question
from edgar_rag.question.words import (
    COUNTED_AS,
    GENERIC,
    STOPWORDS,
    SYNONYMS_OF,
    counting_stems,
    lower_words,
    prose_stems,
    stem,
    text_stems,
)

TOPIC_COSINE = 0.27
"""A question word whose embedding is at least this near the question's names its topic."""
_SUFFIX = re.compile(r"(?:i[sz]ation|i[sz]ed|ed|ing|es|s|ly)$")
"""Endings that leave the word's root: "unionized" is said by "union", "funded" by "fund"."""
_COUNTING = frozenset({"count", "counts", "number", "numbers"})
"""Words that ask for a count of what follows, not a topic ("employee count")."""

_FILINGS_KEPT = 32
"""How many filings' words are kept read (a filing's take tens of milliseconds to read)."""
_SYNONYMS_BY_STEM = {stem(word): group for word, group in SYNONYMS_OF.items()}
_PLACES = frozenset(COUNTED_AS["stores"])
"""Places a business counts alike ("stores", "restaurants", "clubs"), which are not one another:
a filing counting stores says nothing of restaurants."""


def _said(word: str, filing_stems: frozenset[str]) -> bool:
    """The filing says ``word``: it, a word of its root ("union" for "unionized"), one of its
    synonyms, or a word that counts the same thing ("employees" for "headcount")."""
    own = stem(word)
    said_as = {own, *(stem(w) for w in _SYNONYMS_BY_STEM.get(own, ()))}
    if word not in _PLACES:
        said_as |= counting_stems(word)
    if said_as & filing_stems:
        return True
    root = _SUFFIX.sub("", word)
    return len(root) >= 4 and any(s.startswith(root[:6]) for s in filing_stems)


class FilingWords:
    """The stems of each filing's words, read once per filing and kept for the latest few."""

    def __init__(self, text_of: Callable[[int], str]) -> None:
        self._text_of = text_of
        self._read = lru_cache(maxsize=_FILINGS_KEPT)(self._stems)

    def __call__(self, filing_id: int) -> frozenset[str]:
        return self._read(filing_id)

    def _stems(self, filing_id: int) -> frozenset[str]:
        return prose_stems(self._text_of(filing_id))


def topic_words(question: Question, company: str | None = None) -> tuple[str, ...]:
    """The words of ``question`` that may name its topic, in its order: not the names of the
    companies it is about, common and framing words, figures, or words asking for a count."""
    named = " ".join([company or "", *(mention.text for mention in question.companies)])
    names = {stem(w) for w in lower_words(named)}
    ignored = {stem(w) for w in [*STOPWORDS, *GENERIC]} | names
    return tuple(
        word
        for word in dict.fromkeys(w for w in lower_words(question.text) if len(w) > 2)
        if not any(char.isdigit() for char in word)
        and word not in _COUNTING
        and stem(word) not in ignored
    )


def unsaid_topic(
    question: Question,
    filing_stems: frozenset[str],
    embed: Callable[[Sequence[str]], Vectors],
    company: str | None = None,
) -> tuple[str, ...]:
    """The words of ``question`` naming its topic that the filing never says, in the question's
    order: none when it says them all (the usual case, decided without embedding anything)."""
    candidates = [w for w in topic_words(question, company) if not _said(w, filing_stems)]
    if not candidates:
        return ()
    vectors = np.asarray(embed([question.text, *candidates]), dtype=np.float32)
    near = vectors[1:] @ vectors[0]
    return tuple(w for w, cosine in zip(candidates, near, strict=True) if cosine >= TOPIC_COSINE)


def says_nothing_of(text: str, topic: Sequence[str]) -> bool:
    """``text`` says none of the ``topic`` words, in any form ``_said`` allows: an answer to
    another question ("How is NVIDIA's defined benefit pension plan funded?" answered with
    how share repurchases were booked). Every answer a model gave on the golden, narrative and
    FinanceBench sets that was not such says at least one."""
    said = prose_stems(text)
    return bool(topic) and not any(_said(word, said) for word in topic)


def spoken(text: str, unsaid: Sequence[str]) -> list[str]:
    """The words of ``unsaid`` that ``text`` says."""
    said = text_stems(text)
    return [word for word in unsaid if stem(word) in said]
