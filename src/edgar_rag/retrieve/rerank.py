"""The reranker port and the pure reordering of hits by its scores.

A reranker reads the question and each passage together (a cross-encoder) and scores the pair;
search asks it about the first few fused hits only. This module does no I/O and loads no model:
adapters live in ``edgar_rag.index.rerankers`` and are picked in ``compose.py``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from edgar_rag.domain import Hit


class Reranker(Protocol):
    """Scores how well each text answers the question: one float per text, higher is better."""

    def rerank(self, question: str, texts: Sequence[str]) -> list[float]: ...


def rerank_hits(hits: Sequence[Hit], scores: Sequence[float]) -> list[Hit]:
    """The hits ordered by ``scores`` (best first, ties keep their order), ranked 1..n again.

    ``score`` stays the fused score and ``cosine`` the question's cosine: the relevance gate
    reads the cosine, and its threshold was measured on it, not on reranker scores.
    """
    if len(hits) != len(scores):
        raise ValueError(f"{len(scores)} scores for {len(hits)} hits")
    order = sorted(range(len(hits)), key=lambda i: -scores[i])
    return [replace(hits[i], rank=rank) for rank, i in enumerate(order, 1)]
