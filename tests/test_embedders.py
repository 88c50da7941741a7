from __future__ import annotations

from contextlib import closing
from pathlib import Path

import numpy as np
import pytest

from edgar_rag.compose import build_embedder
from edgar_rag.config import EmbedderName
from edgar_rag.domain import Embedder, Vectors
from edgar_rag.index.embedders import (
    HashingEmbedder,
    MiniLMEmbedder,
    OnnxMiniLMEmbedder,
    prepare_text,
)
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag_dev.bench.embedders import sample_texts
from edgar_rag_dev.bench.embedding import compare_embedders

PASSAGES = [
    "Total net sales increased 6% to $416,161 million in 2025 compared to 2024.",
    "The Company's fiscal year is the 52- or 53-week period that ends on the last Saturday.",
    "The Company faces substantial competition from firms with broader product lines.",
    "Our headquarters campus is located in Cupertino, California.",
]
MIXED_LENGTHS = [*PASSAGES, "Net sales.", " ".join(PASSAGES * 10)]
"""Short and long texts in one padded batch; the last is longer than the model's 256 tokens."""
QUERY_AND_PASSAGE = [
    ("How much revenue did the company report for 2025?", 0),
    ("risk factors related to competition", 2),
    ("Where is the head office?", 3),
]


def _cosines(first: Vectors, second: Vectors) -> Vectors:
    cosines: Vectors = np.einsum("ij,ij->i", first, second)
    return cosines


def test_text_is_prepared_with_nfkc_and_collapsed_whitespace() -> None:
    assert prepare_text("  net\u00a0sales\n\t\ufb01scal  2025 ") == "net sales fiscal 2025"


def test_hashing_embedder_is_deterministic_across_instances() -> None:
    first = HashingEmbedder().embed(PASSAGES)
    second = HashingEmbedder().embed(PASSAGES)
    assert first.dtype == np.float32
    assert first.shape == (len(PASSAGES), 384)
    np.testing.assert_array_equal(first, second)


def test_hashing_embedder_gives_unit_vectors_even_for_empty_text() -> None:
    vectors = HashingEmbedder(dimensions=64).embed([*PASSAGES, "", "   "])
    assert vectors.shape == (len(PASSAGES) + 2, 64)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)


def test_hashing_embedder_scores_similar_texts_above_unrelated_ones() -> None:
    query, similar, unrelated = HashingEmbedder().embed(
        [
            "total net sales in fiscal 2025",
            "Total net sales were higher in fiscal 2025 than in 2024.",
            "Our headquarters campus is located in Cupertino, California.",
        ]
    )
    assert query @ similar > query @ unrelated + 0.2


def test_hashing_embedder_ignores_case_and_spacing() -> None:
    vectors = HashingEmbedder().embed(["Net  Sales 2025", "net sales\u00a02025"])
    np.testing.assert_allclose(vectors[0], vectors[1])


def test_embedding_no_texts_gives_an_empty_matrix(tmp_path: Path) -> None:
    for embedder in (HashingEmbedder(), MiniLMEmbedder(), OnnxMiniLMEmbedder(tmp_path)):
        assert embedder.embed([]).shape == (0, 384)


def test_every_embedder_names_what_its_vectors_mean(tmp_path: Path) -> None:
    embedders: list[Embedder] = [
        HashingEmbedder(),
        MiniLMEmbedder(),
        OnnxMiniLMEmbedder(tmp_path),
        OnnxMiniLMEmbedder(tmp_path, precision="int8"),
        OnnxMiniLMEmbedder(tmp_path, precision="int8-block"),
        MiniLMEmbedder(bfloat16=True),
    ]
    identities = [embedder.identity for embedder in embedders]
    assert len(set(identities)) == len(identities)
    assert all(identity.dimensions == 384 for identity in identities)
    assert not any(tmp_path.iterdir()), "constructing an embedder must not export a model"


def test_an_embedder_compared_with_itself_agrees_completely() -> None:
    queries = [query for query, _ in QUERY_AND_PASSAGE]
    comparison = compare_embedders(
        PASSAGES, queries, HashingEmbedder(), HashingEmbedder(), k=2, rounds=2, slice_texts=3
    )
    assert (comparison.texts, comparison.queries, comparison.k) == (len(PASSAGES), 3, 2)
    assert comparison.cosine_min == pytest.approx(1.0)
    assert (comparison.same_top_k_share, comparison.top_k_overlap_mean) == (1.0, 1.0)
    assert comparison.baseline_texts_per_s > 0
    assert comparison.candidate_texts_per_s > 0


def test_embedders_of_different_dimensions_cannot_be_compared() -> None:
    with pytest.raises(ValueError, match="dimensions"):
        compare_embedders(PASSAGES, ["q"], HashingEmbedder(), HashingEmbedder(dimensions=64))


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx")


@pytest.fixture(scope="module")
def plain() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def onnx(onnx_cache: Path) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder(onnx_cache)


@pytest.fixture(scope="module")
def plain_vectors(plain: MiniLMEmbedder) -> Vectors:
    return plain.embed(MIXED_LENGTHS)


@pytest.fixture(params=["plain", "onnx"])
def real_embedder(request: pytest.FixtureRequest) -> Embedder:
    embedder: Embedder = request.getfixturevalue(request.param)
    return embedder


@pytest.mark.slow
def test_real_embedders_give_unit_vectors_of_384_dimensions(real_embedder: Embedder) -> None:
    vectors = real_embedder.embed(PASSAGES)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(PASSAGES), 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)


@pytest.mark.slow
def test_real_embedders_rank_the_relevant_passage_first(real_embedder: Embedder) -> None:
    passages = real_embedder.embed(PASSAGES)
    queries = real_embedder.embed([query for query, _ in QUERY_AND_PASSAGE])
    best = np.argmax(queries @ passages.T, axis=1)
    assert best.tolist() == [expected for _, expected in QUERY_AND_PASSAGE]


@pytest.mark.slow
def test_onnx_embedder_gives_the_plain_models_vectors(
    onnx: OnnxMiniLMEmbedder, plain_vectors: Vectors
) -> None:
    assert _cosines(onnx.embed(MIXED_LENGTHS), plain_vectors).min() > 0.9999


@pytest.mark.slow
def test_onnx_export_is_reused_by_a_second_embedder(
    onnx: OnnxMiniLMEmbedder, onnx_cache: Path
) -> None:
    first = onnx.embed(PASSAGES[:1])
    before = onnx.model_path.stat()
    second = OnnxMiniLMEmbedder(onnx_cache)
    again = second.embed(PASSAGES[:1])
    after = second.model_path.stat()
    assert second.model_path == onnx.model_path
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not list(onnx_cache.glob(".export-*")), "no half-built export is left behind"
    np.testing.assert_allclose(again, first, atol=1e-6)


@pytest.mark.slow
def test_int8_embedder_stays_close_to_the_plain_model(
    onnx_cache: Path, plain_vectors: Vectors
) -> None:
    vectors = OnnxMiniLMEmbedder(onnx_cache, precision="int8").embed(MIXED_LENGTHS)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert _cosines(vectors, plain_vectors).min() > 0.95


@pytest.fixture(scope="module")
def real_chunks(apple_index: Path) -> list[str]:
    with closing(SqliteIndex(apple_index)) as index:
        return sample_texts(index, ["AAPL-2025"], 80)


@pytest.fixture(scope="module")
def plain_chunk_vectors(plain: MiniLMEmbedder, real_chunks: list[str]) -> Vectors:
    return plain.embed(real_chunks)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["minilm-bf16", "minilm-int8-block"])
def test_faster_variants_stay_within_tolerance_of_the_plain_model(
    name: EmbedderName, real_chunks: list[str], plain_chunk_vectors: Vectors, onnx_cache: Path
) -> None:
    # Measured on the bench's 888 chunks: cosine to plain at least 0.9999 (bf16), 0.9995 (block).
    embedder = build_embedder(name, onnx_cache)
    vectors = embedder.embed(real_chunks)
    assert len(real_chunks) >= 4
    assert embedder.identity != MiniLMEmbedder().identity
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    assert _cosines(vectors, plain_chunk_vectors).min() > 0.999


@pytest.mark.slow
def test_block_int8_model_quantizes_every_weight_matrix(onnx_cache: Path) -> None:
    import onnx  # noqa: PLC0415  (heavy)

    embedder = OnnxMiniLMEmbedder(onnx_cache / "embedders", precision="int8-block")  # as composed
    embedder.embed(PASSAGES[:1])
    operators = [node.op_type for node in onnx.load(str(embedder.model_path)).graph.node]
    assert operators.count("MatMulNBits") == 6 * 6  # q, k, v, attention out, two feed-forward
    assert operators.count("MatMul") == 6 * 2  # the attention products, between activations
