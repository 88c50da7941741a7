"""Two embedders on the same texts in one process: speed, vector agreement, top-k agreement.

Answers the question behind the fast embedder: is it faster than plain ``encode`` and does
retrieval still return the same passages? Both run on the same machine state, alternately,
after a warm-up that keeps model loading out of the timings; each speed is the median round.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from edgar_rag.config import load_settings
from edgar_rag.domain import Embedder, Vectors
from edgar_rag.index.embedders import MiniLMEmbedder, OnnxMiniLMEmbedder

WARM_UP_TEXTS = 8


@dataclass(frozen=True, slots=True)
class EmbeddingComparison:
    baseline: str
    candidate: str
    texts: int
    queries: int
    k: int
    rounds: int
    slice_texts: int
    baseline_s: float
    candidate_s: float
    baseline_texts_per_s: float
    candidate_texts_per_s: float
    speedup: float
    """Candidate throughput over baseline throughput."""
    cosine_mean: float
    cosine_min: float
    """Between the two embedders' vectors of the same text."""
    same_top_k_share: float
    """Share of queries whose top-k text sets are identical under both embedders."""
    top_k_overlap_mean: float
    """Mean of |A ∩ B| / k over queries."""

    def describe(self) -> str:
        return "\n".join(
            [
                f"{self.texts} texts, {self.queries} queries, median of {self.rounds} rounds, "
                f"turns every {self.slice_texts} texts",
                f"baseline  {self.baseline}: {self.baseline_s:.1f} s, "
                f"{self.baseline_texts_per_s:.1f} texts/s",
                f"candidate {self.candidate}: {self.candidate_s:.1f} s, "
                f"{self.candidate_texts_per_s:.1f} texts/s",
                f"speedup {self.speedup:.2f}x",
                f"cosine between vectors: mean {self.cosine_mean:.4f}, min {self.cosine_min:.4f}",
                f"top-{self.k}: identical sets {self.same_top_k_share:.1%} of queries, "
                f"mean overlap {self.top_k_overlap_mean:.3f}",
            ]
        )


def compare_embedders(
    texts: Sequence[str],
    queries: Sequence[str],
    baseline: Embedder,
    candidate: Embedder,
    k: int = 5,
    *,
    rounds: int = 3,
    slice_texts: int = 100,
) -> EmbeddingComparison:
    """Time both embedders over ``texts``, then compare their vectors and rankings.

    The embedders take turns every ``slice_texts`` texts, so that load from other processes on a
    shared machine falls on both alike; each one's time is the median of its per-round totals.
    """
    if baseline.identity.dimensions != candidate.identity.dimensions:
        raise ValueError("the embedders' vectors have different dimensions")
    if not texts or rounds < 1 or slice_texts < 1:
        raise ValueError("need at least one text, one round and one text per turn")
    for embedder in (baseline, candidate):
        embedder.embed(texts[:WARM_UP_TEXTS])
    seconds, vectors = _time_alternately((baseline, candidate), texts, rounds, slice_texts)
    baseline_s, candidate_s = (statistics.median(per_round) for per_round in seconds)
    cosines = np.einsum("ij,ij->i", vectors[0], vectors[1])
    baseline_top = top_k(baseline.embed(queries), vectors[0], k)
    candidate_top = top_k(candidate.embed(queries), vectors[1], k)
    overlaps = [
        len(set(first) & set(second))
        for first, second in zip(baseline_top, candidate_top, strict=True)
    ]
    return EmbeddingComparison(
        baseline=baseline.identity.model,
        candidate=candidate.identity.model,
        texts=len(texts),
        queries=len(queries),
        k=k,
        rounds=rounds,
        slice_texts=slice_texts,
        baseline_s=baseline_s,
        candidate_s=candidate_s,
        baseline_texts_per_s=len(texts) / baseline_s,
        candidate_texts_per_s=len(texts) / candidate_s,
        speedup=baseline_s / candidate_s,
        cosine_mean=float(cosines.mean()),
        cosine_min=float(cosines.min()),
        same_top_k_share=float(np.mean([overlap == k for overlap in overlaps])) if queries else 1.0,
        top_k_overlap_mean=float(np.mean(overlaps)) / k if queries else 1.0,
    )


def _time_alternately(
    embedders: tuple[Embedder, Embedder], texts: Sequence[str], rounds: int, slice_texts: int
) -> tuple[list[list[float]], list[Vectors]]:
    """Seconds per embedder per round, and each embedder's vectors from the last round."""
    slices = [texts[start : start + slice_texts] for start in range(0, len(texts), slice_texts)]
    seconds = [[0.0] * rounds for _ in embedders]
    parts: list[list[Vectors]] = [[] for _ in embedders]
    for round_number in range(rounds):
        parts = [[] for _ in embedders]
        for slice_number, part in enumerate(slices):
            # Alternate who goes first, so neither always runs on the caches the other warmed.
            order = (0, 1) if (round_number + slice_number) % 2 == 0 else (1, 0)
            for which in order:
                started = time.perf_counter()
                parts[which].append(embedders[which].embed(part))
                seconds[which][round_number] += time.perf_counter() - started
    return seconds, [np.vstack(vectors) for vectors in parts]


def top_k(queries: Vectors, texts: Vectors, k: int) -> npt.NDArray[np.intp]:
    """For each query row, the indices of the k most similar text rows, best first."""
    scores = queries @ texts.T
    return np.argsort(-scores, axis=1, kind="stable")[:, :k]


def compare_files(
    texts_path: Path,
    queries_path: Path,
    *,
    k: int,
    rounds: int,
    slice_texts: int,
    limit: int | None,
    batch_size: int,
    int8: bool,
    cache_dir: Path | None,
) -> EmbeddingComparison:
    """The ONNX candidate (``batch_size`` texts a batch, ``int8`` quantized, its model under
    ``cache_dir`` or the settings' model directory) against plain ``encode`` on the texts and
    queries of two JSON lists, only the first ``limit`` texts when given."""
    texts = _read_strings(texts_path)[:limit]
    queries = _read_strings(queries_path)
    cache_dir = cache_dir or load_settings().model_dir / "embedders"
    candidate = OnnxMiniLMEmbedder(
        cache_dir, batch_size=batch_size, precision="int8" if int8 else "fp32"
    )
    return compare_embedders(
        texts, queries, MiniLMEmbedder(), candidate, k, rounds=rounds, slice_texts=slice_texts
    )


def _read_strings(path: Path) -> list[str]:
    loaded = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(loaded, list) or not all(isinstance(item, str) for item in loaded):
        raise SystemExit(f"{path}: expected a JSON list of strings")
    return loaded
