from __future__ import annotations

from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from edgar_rag.domain import Embedder
from edgar_rag.index.embedders import HashingEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag_dev.bench.embedders import (
    VARIANTS,
    holds_recall,
    reembedded,
    sample_texts,
    time_embedders,
    token_lengths,
)
from edgar_rag_dev.bench.report import render_embedders


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx")


def test_variants_are_timed_in_turns_on_real_chunks(apple_index: Path, onnx_cache: Path) -> None:
    with closing(SqliteIndex(apple_index)) as index:
        texts = sample_texts(index, ["AAPL-2025"], 30)
        assert sample_texts(index, ["NVDA-2025"], 1) == []
    fp32 = OnnxMiniLMEmbedder(onnx_cache, batch_size=4)
    mixed = OnnxMiniLMEmbedder(onnx_cache, precision="int8-mixed")
    embedders: list[Embedder] = [HashingEmbedder(), fp32, mixed]
    seconds, vectors = time_embedders(embedders, texts, rounds=2, slice_texts=5)
    assert len(texts) >= 10
    assert all(took > 0 for took in seconds)
    assert all(found.shape == (len(texts), 384) for found in vectors)
    cosines = np.einsum("ij,ij->i", vectors[1], vectors[2])
    assert cosines.min() > 0.98, "int8 with fp32 feed-forward outputs strays from fp32"
    assert cosines.min() < 1.0, "the mixed model must be quantized, not the fp32 one again"
    assert mixed.identity != fp32.identity
    assert "int8-mixed" in mixed.model_path.name


def test_truncating_sooner_is_another_embedder(onnx_cache: Path) -> None:
    short = OnnxMiniLMEmbedder(onnx_cache, max_tokens=128)
    assert short.identity != OnnxMiniLMEmbedder(onnx_cache).identity
    opening = " ".join(["net sales increased in every segment"] * 30)
    texts = [f"{opening} because of services", f"{opening} despite lower iPhone volume"]
    cut = short.embed(texts)
    np.testing.assert_allclose(cut[0], cut[1], atol=1e-6)  # the endings lie past token 128
    whole = OnnxMiniLMEmbedder(onnx_cache).embed(texts)
    assert float(whole[0] @ whole[1]) < 0.99999
    lengths = token_lengths([texts[0] * 2, "net sales"])
    assert lengths["max"] > 256
    assert (lengths["share_over_256"], lengths["share_over_128"]) == (0.5, 0.5)


def test_an_index_is_reembedded_whole_and_reused_when_current(
    apple_index: Path, tmp_path: Path
) -> None:
    embedder = HashingEmbedder(dimensions=64)
    target = tmp_path / "copy.db"
    with closing(SqliteIndex(apple_index)) as source:
        built = reembedded(source, target, embedder)
        modified = built.stat().st_mtime_ns
        assert reembedded(source, target, embedder).stat().st_mtime_ns == modified
        chunks = source.counts()["chunks"]
    with closing(SqliteIndex(built)) as copy:
        assert copy.embedder_identity() == embedder.identity
        assert copy.counts()["chunks"] == chunks
    assert not list(tmp_path.glob("*.partial*"))


def _scores(hits: int, mrr_hits: float, n: int = 62) -> dict[str, dict[str, float]]:
    return {"narrative-item": {"recall@5": hits / n, "mrr": mrr_hits / n, "n": n}}


def test_recall_is_held_within_one_question_and_not_past_it() -> None:
    reference = _scores(60, 50.0)
    assert holds_recall(_scores(59, 49.2), reference)
    assert holds_recall(_scores(61, 51.0), reference)
    assert not holds_recall(_scores(58, 50.0), reference)
    assert not holds_recall(_scores(60, 48.5), reference)


def test_one_question_of_324_is_held_though_the_scores_are_rounded() -> None:
    def figure(hits: int) -> dict[str, dict[str, float]]:
        return {"figure": {"recall@5": round(hits / 324, 4), "mrr": 0.85, "n": 324}}

    assert holds_recall(figure(307), figure(308))  # 0.9475 against 0.9506
    assert not holds_recall(figure(306), figure(308))


def test_the_section_names_the_fastest_variant_that_held() -> None:
    sets = ("figure", "narrative-item", "narrative-phrase", "narrative-item, corpus-wide")
    scores = {name: {"recall@5": 0.9, "mrr": 0.8, "n": 62} for name in sets}
    variants = {
        v.name: {"chunks_per_s": 1.0, "speedup": 2.0 + i, "cosine_mean": 1, "cosine_min": 1}
        for i, v in enumerate(VARIANTS)
    }
    data = {
        "filings": ["AAPL-2025"],
        "stride": 3,
        "chunks": 10,
        "rounds": 1,
        "load_average": [1.0, 2.0],
        "plain_chunks_per_s": 10.0,
        "token_lengths": token_lengths(["net sales"]),
        "variants": variants,
        "retrieval": {
            "onnx-fp32": {"scores": scores, "holds_recall": True},
            "onnx-int8": {"scores": scores, "holds_recall": False},
            "onnx-int8-mixed": {"scores": scores, "holds_recall": True},
        },
    }
    page = "\n".join(render_embedders(data))
    mixed = variants["onnx-int8-mixed"]["speedup"]
    assert f"`onnx-int8-mixed`, {mixed:.2f}x plain encode, which reaches 3x" in page
    assert f"and {mixed / 2:.2f}x the default `onnx-fp32` (2.00x plain" in page
    assert "Every other variant differs from a scored one only in batch size" in page
    variants["onnx-int8, 128 tokens"]["cosine_mean"] = 0.95
    page = "\n".join(render_embedders(data))
    assert "cosine to plain is under 0.999 (mean): `onnx-int8, 128 tokens`;" in page
