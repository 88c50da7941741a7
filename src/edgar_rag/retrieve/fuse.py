"""Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009)."""

from __future__ import annotations

from collections.abc import Sequence


def fuse_rankings(
    rankings: Sequence[Sequence[int]], k: int = 60, weights: Sequence[float] | None = None
) -> list[tuple[int, float]]:
    """Merge ranked id lists: each id scores the sum of ``weight / (k + rank)`` over the lists.

    Ties keep the order in which ids were first seen, so a single ranking passes through as is.
    """
    scores: dict[int, float] = {}
    for index, ranking in enumerate(rankings):
        weight = weights[index] if weights is not None else 1.0
        for rank, item in enumerate(ranking, 1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda pair: -pair[1])
