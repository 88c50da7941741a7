"""``edgar-rag dev bench embedders``: ways to run the embedder against plain ``encode``.

Speed: every variant and a plain ``SentenceTransformer.encode`` take turns over the same chunks in
one run (``time_embedders``), so each speed-up is measured on the same machine state. Quality:
each variant that changes the vectors gets the whole index re-embedded with it (chunks copied from
the reference index, so only the vectors differ) and the retrieval evaluation's figure and
narrative questions asked of it; a variant holds recall when recall@5 and MRR of every set are
within one question of the default embedder's. Written to the ``embedders`` entry of
docs/performance.json and its section of docs/performance.md.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from edgar_rag.domain import Embedder, FilingStore, Vectors
from edgar_rag.index.embedders import (
    MAX_TOKENS,
    MiniLMEmbedder,
    OnnxMiniLMEmbedder,
    OnnxPrecision,
    count_tokens,
)
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import embedding_text
from edgar_rag_dev.bench.report import record_entry

SUBSET = ("AAPL-2025", "NVDA-2025", "JNJ-2024", "TSLA-2024", "WFC-2024")
"""The filings whose chunks are timed: those ``bench ingest`` times."""
WARM_UP_TEXTS = 8


@dataclass(frozen=True, slots=True)
class Variant:
    """One way to run the embedder (ONNX at a precision, or torch in bfloat16); ``name`` is its
    row in the table."""

    name: str
    precision: OnnxPrecision | Literal["torch-bf16"] = "fp32"
    batch_size: int = 16
    threads: int = 2
    max_tokens: int = MAX_TOKENS

    def build(self, cache: Path) -> Embedder:
        if self.precision == "torch-bf16":
            return MiniLMEmbedder(self.threads, self.batch_size, bfloat16=True)
        return OnnxMiniLMEmbedder(
            cache,
            threads=self.threads,
            batch_size=self.batch_size,
            precision=self.precision,
            max_tokens=self.max_tokens,
        )


DEFAULT = Variant("onnx-fp32")
VARIANTS = (
    DEFAULT,
    Variant("onnx-fp32, 1 thread", threads=1),
    Variant("onnx-fp32, batch 1", batch_size=1),
    Variant("onnx-fp32, batch 4", batch_size=4),
    Variant("onnx-fp32, batch 32", batch_size=32),
    Variant("onnx-int8", "int8"),
    Variant("onnx-int8, batch 1", "int8", batch_size=1),
    Variant("onnx-int8, batch 4", "int8", batch_size=4),
    Variant("onnx-int8, batch 64", "int8", batch_size=64),
    Variant("onnx-int8, 1 thread", "int8", threads=1),
    Variant("onnx-int8, 128 tokens", "int8", max_tokens=128),
    Variant("onnx-int8-mixed", "int8-mixed"),
    Variant("onnx-int8-block", "int8-block"),
    Variant("onnx-int8-block, batch 1", "int8-block", batch_size=1),
    Variant("torch-bf16", "torch-bf16", batch_size=32),
    Variant("torch-bf16, batch 1", "torch-bf16", batch_size=1),
)
SCORED = ("onnx-fp32", "onnx-int8-block, batch 1", "torch-bf16")
"""The default and the variants whose retrieval is measured: those whose vectors differ but stay
close (cosine to plain at least 0.999). Batch size and threads change only the time (int8-block
is scored at batch 1, its fastest, to re-embed sooner). Each re-embeds the whole corpus (14,297
chunks, 5-15 min on 2 shared cores), so ``onnx-int8`` and ``onnx-int8-mixed``, which did not
hold recall when scored (docs/performance.md at c78e109), are timed but no longer scored."""


def time_embedders(
    embedders: Sequence[Embedder], texts: Sequence[str], rounds: int = 1, slice_texts: int = 100
) -> tuple[list[float], list[Vectors]]:
    """Median seconds per embedder over ``rounds``, and each one's vectors of ``texts``.

    The embedders take turns every ``slice_texts`` texts, starting one later each turn, so that
    load from other processes falls on all alike and none always runs first.
    """
    if not texts or rounds < 1 or slice_texts < 1:
        raise ValueError("need at least one text, one round and one text per turn")
    for embedder in embedders:
        embedder.embed(texts[:WARM_UP_TEXTS])
    slices = [texts[start : start + slice_texts] for start in range(0, len(texts), slice_texts)]
    seconds = [[0.0] * rounds for _ in embedders]
    parts: list[list[Vectors]] = []
    for round_number in range(rounds):
        parts = [[] for _ in embedders]
        for turn, part in enumerate(slices):
            first = (round_number + turn) % len(embedders)
            for which in [*range(first, len(embedders)), *range(first)]:
                started = time.perf_counter()
                parts[which].append(embedders[which].embed(part))
                seconds[which][round_number] += time.perf_counter() - started
    medians = [statistics.median(per_round) for per_round in seconds]
    return medians, [np.vstack(vectors) for vectors in parts]


def sample_texts(index: FilingStore, filings: Sequence[str] | None, stride: int) -> list[str]:
    """What the embedder reads for every ``stride``-th chunk of ``filings`` (TICKER-YEAR), or of
    every filing."""
    texts = []
    for summary in index.filings():
        if filings is None or f"{summary.ticker}-{summary.fiscal_year}" in filings:
            parsed, _ = index.export_filing(summary.filing_id)
            texts += [embedding_text(chunk) for chunk in parsed.chunks]
    return texts[::stride]


def token_lengths(texts: Sequence[str]) -> dict[str, float]:
    """The chunks' lengths in model tokens, and how many the 128- and 256-token limits cut."""
    counts = np.array(count_tokens(texts))
    return {
        "chunks": len(counts),
        "p50": float(np.percentile(counts, 50)),
        "p90": float(np.percentile(counts, 90)),
        "p99": float(np.percentile(counts, 99)),
        "max": int(counts.max()),
        "share_over_128": round(float(np.mean(counts > 128)), 4),
        "share_over_256": round(float(np.mean(counts > MAX_TOKENS)), 4),
    }


def speeds(texts: Sequence[str], cache: Path, rounds: int) -> dict[str, Any]:
    """Chunks per second of plain encode and each variant, and each one's speed-up."""
    embedders: list[Embedder] = [MiniLMEmbedder(), *(v.build(cache) for v in VARIANTS)]
    seconds, vectors = time_embedders(embedders, texts, rounds)
    rows = {}
    for variant, took, found in zip(VARIANTS, seconds[1:], vectors[1:], strict=True):
        cosines = np.einsum("ij,ij->i", found, vectors[0])
        rows[variant.name] = {
            "chunks_per_s": round(len(texts) / took, 2),
            "speedup": round(seconds[0] / took, 3),
            "cosine_mean": round(float(cosines.mean()), 5),
            "cosine_min": round(float(cosines.min()), 5),
        }
    return {"plain_chunks_per_s": round(len(texts) / seconds[0], 2), "variants": rows}


def reembedded(source: SqliteIndex, target: Path, embedder: Embedder) -> Path:
    """``target``: the chunks of ``source`` with ``embedder``'s vectors, built when missing or
    stale (another embedder, another chunk count); written beside it, then moved in whole."""
    if target.exists():
        with closing(SqliteIndex(target)) as existing:
            same = existing.embedder_identity() == embedder.identity
            if same and existing.counts()["chunks"] == source.counts()["chunks"]:
                return target
    partial = target.with_name(target.name + ".partial")
    for stale in (partial, *(partial.with_name(partial.name + s) for s in ("-wal", "-shm"))):
        stale.unlink(missing_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    with closing(SqliteIndex(partial)) as built:
        built.ensure_embedder(embedder.identity)
        for summary in source.filings():
            parsed, _ = source.export_filing(summary.filing_id)
            built.write_filing(parsed, embedder.embed([embedding_text(c) for c in parsed.chunks]))
    os.replace(partial, target)
    return target


SCORE_ROUNDING = 1e-4
"""The retrieval evaluation rounds each score to 4 decimals, so two scores may differ by up to
this much more than they did: one question of 324 (0.00309) reads as 0.0031, 1.0044 questions."""


def holds_recall(scores: Scores, reference: Scores) -> bool:
    """Recall@5 and MRR of every set within one question of the reference's (give or take the
    scores' rounding)."""
    return all(
        abs(scores[name][metric] - reference[name][metric])
        <= (1.0 + 1e-9) / reference[name]["n"] + SCORE_ROUNDING
        for name in reference
        for metric in ("recall@5", "mrr")
    )


Scores = dict[str, dict[str, float]]
Scorer = Callable[[FilingStore, Embedder], Scores]
"""The retrieval evaluation of an index searched with an embedder: recall@5 and MRR per question
set (``edgar_rag_dev.eval.retrieval.default_search_scores``, passed in by the command)."""


def quality(index_path: Path, cache: Path, indexes: Path, score: Scorer) -> dict[str, Any]:
    """Each scored variant's retrieval, on the reference index (the default's) or a re-embedded
    copy of it under ``indexes``."""
    results: dict[str, Any] = {}
    by_name = {variant.name: variant for variant in VARIANTS}
    with closing(SqliteIndex(index_path)) as source:
        for name in SCORED:
            embedder = by_name[name].build(cache)
            if name == DEFAULT.name:
                results[name] = {"scores": score(source, embedder)}
                continue
            target = reembedded(source, indexes / f"corpus-{name}.db", embedder)
            with closing(SqliteIndex(target)) as index:
                results[name] = {"scores": score(index, embedder)}
    reference = results[DEFAULT.name]["scores"]
    for row in results.values():
        row["holds_recall"] = holds_recall(row["scores"], reference)
    return results


def measure_embedders(
    index: Path, cache: Path, indexes: Path, out: Path, score: Scorer, *, stride: int, rounds: int
) -> None:
    """Measure into the ``embedders`` entry of ``out`` (keeping what else it holds), then render
    its pages."""
    with closing(SqliteIndex(index)) as source:
        texts = sample_texts(source, SUBSET, stride)
        lengths = token_lengths(sample_texts(source, None, 1))
    load_before = os.getloadavg()[0]
    measured = speeds(texts, cache, rounds)
    load_after = os.getloadavg()[0]
    results = {
        "filings": list(SUBSET),
        "stride": stride,
        "chunks": len(texts),
        "rounds": rounds,
        "load_average": [round(load_before, 2), round(load_after, 2)],
        "token_lengths": lengths,
        **measured,
        "retrieval": quality(index, cache, indexes, score),
    }
    record_entry(out, "embedders", results)
