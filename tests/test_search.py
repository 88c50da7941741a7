"""Hybrid search over a real index of the sample filings (hashing embedder: the embedding is not
what these tests are about)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from edgar_rag.domain import SourceFormat
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.reading import Kind, read_question
from edgar_rag.question.words import query_terms
from edgar_rag.retrieve.fuse import fuse_rankings
from edgar_rag.retrieve.search import Searcher, SearchSettings, without_filer_name


@pytest.fixture(scope="module")
def searcher(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Searcher:
    index = SqliteIndex(tmp_path_factory.mktemp("search") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return Searcher(index, HashingEmbedder())


def test_reciprocal_rank_fusion_rewards_agreement() -> None:
    fused = fuse_rankings([[1, 2, 3], [3, 1, 4]], k=60)
    assert [item for item, _ in fused] == [1, 3, 2, 4]
    assert fuse_rankings([[7, 8]]) == [(7, 1 / 61), (8, 1 / 62)]


def test_query_terms_drop_stopwords_and_repeats() -> None:
    assert query_terms("What was Apple's total net sales in fiscal 2025? Net sales!") == [
        "apple's", "total", "net", "sales", "2025",
    ]  # fmt: skip


def test_a_figure_question_finds_the_row_that_prints_it(searcher: Searcher) -> None:
    scope = searcher.index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    hits = searcher.search(read_question("Total net sales"), scope, 5)
    assert any("Total net sales | 2025: 416,161" in h.passage.chunk.text for h in hits)
    for hit in hits:
        assert hit.passage.chunk.text
        assert hit.passage.chunk.item.startswith(("Item", "Cover"))
        assert hit.score > 0


def test_hits_are_distinct_passages(searcher: Searcher) -> None:
    scope = searcher.index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    hits = searcher.search(read_question("risk factors competition"), scope, 5)
    vectors = searcher.index.vectors([h.passage.chunk_id for h in hits])
    similarity = vectors @ vectors.T
    off_diagonal = similarity[~np.eye(len(hits), dtype=bool)]
    assert (off_diagonal < SearchSettings().duplicate_cosine).all()


def test_dense_only_and_lexical_only_rank_differently(searcher: Searcher) -> None:
    scope = searcher.index.resolve_scope(ticker="HD")
    dense = Searcher(searcher.index, searcher.embedder, SearchSettings(lexical=False))
    lexical = Searcher(searcher.index, searcher.embedder, SearchSettings(dense=False))
    question = "number of stores in Mexico"
    assert all(h.lexical_rank is None for h in dense.search(read_question(question), scope, 5))
    assert all(h.dense_rank is None for h in lexical.search(read_question(question), scope, 5))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ticker=st.sampled_from(["AAPL", "HD", "WFC"]),
    year=st.sampled_from([None, 2024, 2025]),
    question=st.text(
        alphabet="abcdefghijklmnopqrstuvwxyz0123456789 $%.,?", min_size=1, max_size=60
    ),
)
def test_a_scoped_search_never_leaves_its_filing(
    searcher: Searcher, ticker: str, year: int | None, question: str
) -> None:
    from edgar_rag.errors import NotFoundError  # noqa: PLC0415

    try:
        scope = searcher.index.resolve_scope(ticker=ticker, fiscal_year=year)
    except NotFoundError:
        return
    for hit in searcher.search(read_question(question), scope, 10):
        assert hit.passage.filing_id == scope.filing_id


def test_a_corpus_wide_search_can_return_several_filings(searcher: Searcher) -> None:
    hits = searcher.search(
        read_question("net sales stores revenue"), searcher.index.resolve_scope(), 10
    )
    assert len({h.passage.filing_id for h in hits}) > 1


def test_the_facts_ranker_serves_figure_questions_not_narrative_ones(searcher: Searcher) -> None:
    """docs/retrieval.md: fact chunks crowd prose out of a narrative question's top five."""
    scope = searcher.index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    plain = Searcher(searcher.index, searcher.embedder, SearchSettings(facts=False))

    def ids(engine: Searcher, text: str) -> list[int]:
        return [hit.passage.chunk_id for hit in engine.search(read_question(text), scope, 10)]

    narrative = "Why do Apple's net sales depend on its iPhone and Services revenue?"
    assert read_question(narrative).kind is Kind.NARRATIVE
    assert ids(searcher, narrative) == ids(plain, narrative)
    lookup = "What were Apple's net sales and net income in fiscal 2025?"
    assert read_question(lookup).kind is Kind.LOOKUP
    assert ids(searcher, lookup) != ids(plain, lookup)


def test_a_search_in_a_pdf_report_does_not_match_the_filer_s_own_name(searcher: Searcher) -> None:
    scope = searcher.index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    assert scope.filing is not None
    pdf = replace(scope.filing, source_format=SourceFormat.PDF)
    terms = tuple(query_terms("What acquisitions has Apple Inc. (AAPL) made? Apple's list"))

    assert without_filer_name(terms, pdf) == ("acquisitions", "made", "list")
    # A question of nothing but the name keeps it; a corpus-wide search and an HTML filing
    # keep every term.
    assert without_filer_name(("apple",), pdf) == ("apple",)
    assert without_filer_name(terms, None) == terms
    assert without_filer_name(terms, scope.filing) == terms


def test_a_narrative_question_is_searched_deeper_than_a_lookup(searcher: Searcher) -> None:
    """docs/narrative.md: its answer is often first in one ranking and absent from the other's
    40, which fusion ranks below passages both list half-way down."""
    asked: list[tuple[str, int]] = []

    class Listing:
        def __init__(self, index: SqliteIndex) -> None:
            self.index = index

        def __getattr__(self, name: str) -> object:
            return getattr(self.index, name)

        def dense_search(self, vector: np.ndarray, filing_id: int | None, k: int) -> object:
            asked.append(("dense", k))
            return self.index.dense_search(vector, filing_id, k)

        def lexical_search(self, terms: tuple[str, ...], filing_id: int | None, k: int) -> object:
            asked.append(("lexical", k))
            return self.index.lexical_search(terms, filing_id, k)

    assert isinstance(searcher.index, SqliteIndex)
    chosen = SearchSettings(candidates=30, narrative_candidates=70, counts=False)
    listing = Searcher(Listing(searcher.index), searcher.embedder, chosen)  # type: ignore[arg-type]
    scope = searcher.index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    listing.search(read_question("How does Apple describe its competition?"), scope, 5)
    assert asked == [("dense", 70), ("lexical", 70)]
    asked.clear()
    listing.search(read_question("What were Apple's total net sales in fiscal 2025?"), scope, 5)
    assert asked == [("dense", 30), ("lexical", 30)]
