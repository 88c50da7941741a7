"""Hybrid search: dense cosine and BM25 inside one filing (or across the corpus), fused by
reciprocal rank, with near-duplicate passages removed so that k slots carry k different passages.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np

from edgar_rag.domain import (
    Embedder,
    FilingMeta,
    Hit,
    PassageIndex,
    Scope,
    ScoredIds,
    SourceFormat,
)
from edgar_rag.question.reading import Kind, Question
from edgar_rag.question.words import counting_words
from edgar_rag.retrieve.counts import rank_count_chunks, rank_section_chunks
from edgar_rag.retrieve.facts import (
    OperandReader,
    named_fact_chunk,
    rank_fact_chunks,
    rank_operand_chunks,
)
from edgar_rag.retrieve.fuse import fuse_rankings
from edgar_rag.retrieve.rerank import Reranker, rerank_hits
from edgar_rag.retrieve.statements import StatementReader, rank_statement_chunks

_NAME_WORD = re.compile(r"[a-z0-9&]+")


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """The knobs of hybrid search; the defaults are the measured ones (docs/retrieval.md)."""

    dense: bool = True
    lexical: bool = True
    facts: bool = True
    """Rank the chunks that display XBRL facts whose names match the question (scoped only)."""
    facts_kinds: frozenset[Kind] = frozenset(set(Kind) - {Kind.NARRATIVE})
    """The kinds of question the facts ranker serves: not narrative ones, whose answer is prose
    that the chunks of figures crowd out of the top five (docs/retrieval.md)."""
    facts_weight: float = 2.0
    """The fact ranking counts this many times in the fusion (docs/retrieval.md)."""
    facts_min_share: float = 0.5
    operands: bool = True
    """Rank the chunks that display the statement rows the question's metric is computed from (a
    quick ratio's current assets, inventories and current liabilities), whatever its kind: a
    question that names a metric has its evidence in the statements printing the operands."""
    operand_items_kinds: frozenset[Kind] = frozenset(set(Kind) - {Kind.NARRATIVE})
    """The kinds of question whose line items named outright count as operands too: not
    narrative ones, which name a line item in passing ("Does it plan to keep paying
    dividends?") and are answered in prose (docs/retrieval.md)."""
    operands_weight: float = 2.0
    counts: bool = True
    """For a question that counts something ("how many employees", "its headcount"), rank the
    chunks printing a count beside a word for it (``retrieve.counts``): the one sentence that
    answers sits below tables that say the same word (docs/narrative.md). Its candidates are the
    question's own and those of a search for the words that count the same thing, since the
    question may name the count in another word ("headcount" for "... 1,556,000 employees")."""
    counts_weight: float = 2.0
    sections: bool = True
    """For a question that points where to read ("according to the cover", "in its risk
    factors"), rank its candidates from that Item (``Question.sections``)."""
    sections_weight: float = 2.0
    statements: bool = True
    """In a PDF filing, rank the chunks of the primary statements (located by their titles at
    ingest) that print the figures the question names, whatever its kind: a prose question on
    capital intensity, debt or margins is answered from them, while their rows of figures sit
    far down the dense and lexical rankings (docs/financebench.md). Not in HTML filings, whose
    evaluations were measured without it."""
    statements_weight: float = 3.0
    statements_depth: int = 1
    """How many chunks of each statement the statement ranking lists: its first (title, column
    headers, first rows) is evidence enough, and more of them crowd out a prose answer
    (FinanceBench, 75 questions: depth 1 at weight 3 moves 8 misses into the top 5 and none out;
    weight 2, or every chunk, moves 5 or 8 in and 1 or 2 out)."""
    named_fact_first: bool = True
    """Put first the chunk displaying the fact whose concept the question names outright (every
    word of ``PaymentsForRepurchaseOfCommonStock`` for "stock buybacks"), which fusion can rank
    below chunks that many rankers find half-relevant."""
    dedup: bool = True
    candidates: int = 40
    """How many passages each ranker contributes before fusion."""
    narrative_candidates: int = 80
    """As ``candidates``, for a narrative question: its answer is often first in one ranking
    and absent from the other's 40 (a sentence that says the question's words but is not near
    it in meaning), and fusion ranks it below passages that both list half-way down; deeper
    lists find it in both. On the narrative set (docs/narrative.md), against 40: the phrase in
    the prompt for 75 of 81 dev questions (72) and 76 of 82 eval ones (75); answered
    correctly 66 dev (65) and 66 eval (67, the model citing another passage once)."""
    rrf_k: int = 60
    duplicate_cosine: float = 0.95
    """Two passages at least this close in embedding space count as one."""
    rerank_candidates: int = 20
    """How many distinct fused hits a reranker, when the searcher has one, reorders."""
    narrative_lexical_weight: float = 1.5
    """The lexical ranking's weight in the fusion for a narrative question: its answer is a
    sentence saying the question's own words ("holders of record"), which one ranker alone often
    finds first (docs/narrative.md)."""


@dataclass(slots=True)
class SearchTimings:
    """What each stage of one search took, in milliseconds."""

    embed_ms: float = 0.0
    search_ms: float = 0.0
    fuse_ms: float = 0.0


@dataclass(slots=True)
class Searcher:
    """Finds passages for a question inside a scope."""

    index: PassageIndex
    embedder: Embedder
    settings: SearchSettings = field(default_factory=SearchSettings)
    reranker: Reranker | None = None
    operand_reader: OperandReader | None = None
    """What a question's metric is computed from (the metric library); None: no such ranking."""
    statement_reader: StatementReader | None = None
    """Which primary statements print what a question names (the metric library); None: no
    such ranking."""

    def search(self, question: Question, scope: Scope, k: int = 5) -> list[Hit]:
        return self.search_timed(question, scope, k)[0]

    def search_timed(
        self, question: Question, scope: Scope, k: int = 5
    ) -> tuple[list[Hit], SearchTimings]:
        """The hits and what each stage of finding them took (per call, so concurrent callers
        never read each other's timings)."""
        started = time.perf_counter()
        query = self.embedder.embed([question.text])[0]
        embedded = time.perf_counter()
        settings = self.settings
        narrative = question.kind is Kind.NARRATIVE
        listed = settings.narrative_candidates if narrative else settings.candidates
        dense = self.index.dense_search(query, scope.filing_id, listed) if settings.dense else []
        terms = without_filer_name(question.terms, scope.filing, any_format=narrative)
        lexical = (
            self.index.lexical_search(terms, scope.filing_id, listed) if settings.lexical else []
        )
        facts: ScoredIds = []
        operands: ScoredIds = []
        named = None
        period_end = scope.filing.period_end if scope.filing else None
        if settings.facts and scope.filing_id is not None and question.kind in settings.facts_kinds:
            displayed = self.index.displayed_facts(scope.filing_id)
            facts = rank_fact_chunks(
                question.terms, displayed, period_end, settings.candidates, settings.facts_min_share
            )
            if settings.named_fact_first:
                named = named_fact_chunk(question.terms, displayed, period_end)
        wanted = (
            self.operand_reader(question.text, question.kind in settings.operand_items_kinds)
            if settings.operands and self.operand_reader is not None and scope.filing_id is not None
            else ()
        )
        if wanted and scope.filing_id is not None:
            displayed = self.index.displayed_facts(scope.filing_id)
            operands = rank_operand_chunks(wanted, displayed, period_end, settings.candidates)
        counts: ScoredIds = []
        if settings.counts and question.counted is not None:
            counting = self.index.lexical_search(
                counting_words(question.counted), scope.filing_id, settings.candidates
            )
            counts = rank_count_chunks(self.index, question.counted, (dense, lexical, counting))
        sections = (
            rank_section_chunks(self.index, question.sections, (dense, lexical))
            if settings.sections and question.sections
            else []
        )
        statements = self._statement_chunks(question, scope)
        searched = time.perf_counter()
        rankings = [
            [i for i, _ in ranking]
            for ranking in (dense, lexical, facts, operands, counts, sections, statements)
        ]
        lexical_weight = settings.narrative_lexical_weight if narrative else 1.0
        weights = (
            1.0,
            lexical_weight,
            settings.facts_weight,
            settings.operands_weight,
            settings.counts_weight,
            settings.sections_weight,
            settings.statements_weight,
        )
        fused = fuse_rankings(rankings, settings.rrf_k, weights)
        if named is not None:
            fused = [(named, fused[0][1] if fused else 1.0)] + [p for p in fused if p[0] != named]
        ids = [chunk_id for chunk_id, _ in fused]
        vectors = self.index.vectors(ids)
        cosines = vectors @ query if ids else np.zeros(0, dtype=np.float32)
        depth = k if self.reranker is None else max(k, settings.rerank_candidates)
        keep = _distinct(vectors, depth, settings.duplicate_cosine if settings.dedup else 1.01)
        chosen = [ids[i] for i in keep]
        passages = self.index.passages(chosen)
        dense_rank = {chunk_id: rank for rank, (chunk_id, _) in enumerate(dense, 1)}
        lexical_rank = {chunk_id: rank for rank, (chunk_id, _) in enumerate(lexical, 1)}
        hits = [
            Hit(
                rank=rank,
                passage=passages[ids[i]],
                score=fused[i][1],
                cosine=float(cosines[i]),
                dense_rank=dense_rank.get(ids[i]),
                lexical_rank=lexical_rank.get(ids[i]),
            )
            for rank, i in enumerate(keep, 1)
        ]
        if self.reranker is not None:  # its time counts in fuse_ms
            scores = self.reranker.rerank(question.text, [hit.passage.chunk.text for hit in hits])
            hits = rerank_hits(hits, scores)[:k]
        done = time.perf_counter()
        return hits, SearchTimings(
            embed_ms=(embedded - started) * 1000,
            search_ms=(searched - embedded) * 1000,
            fuse_ms=(done - searched) * 1000,
        )

    def _statement_chunks(self, question: Question, scope: Scope) -> ScoredIds:
        """The chunks of a PDF filing's primary statements that print what the question names."""
        filing = scope.filing
        if (
            not self.settings.statements
            or self.statement_reader is None
            or scope.filing_id is None
            or filing is None
            or filing.source_format is not SourceFormat.PDF
        ):
            return []
        kinds = self.statement_reader(question.text)
        if not kinds:
            return []
        displayed = self.index.displayed_facts(scope.filing_id)
        return rank_statement_chunks(
            kinds, displayed, self.settings.candidates, self.settings.statements_depth
        )


def without_filer_name(
    terms: tuple[str, ...], filing: FilingMeta | None, *, any_format: bool = False
) -> tuple[str, ...]:
    """A scoped search's terms without the filer's own name and ticker, in a PDF annual report
    (or in any filing when ``any_format``, as for a narrative question): it carries its exhibits
    (subsidiaries, certifications, signatures), whose every line prints the filer's name, so
    matching the name would rank those lists first, while every passage of the filing is the
    filer's. The terms stay whole when nothing else is left. An HTML filing keeps them for a
    figure question (its answers are recorded on the golden tape). A narrative question keeps
    its dates: a prose figure is dated by its sentence ("As of September 27, 2025, ...")."""
    if filing is None or not (any_format or filing.source_format is SourceFormat.PDF):
        return terms
    own = set(_NAME_WORD.findall(filing.company.lower()))
    own.update(filing.ticker.lower().split() if filing.ticker else ())
    kept = tuple(term for term in terms if term.removesuffix("'s") not in own)
    return kept or terms


def _distinct(vectors: np.ndarray, k: int, threshold: float) -> list[int]:
    """Indices of the first ``k`` rows, in order, skipping rows too close to one already kept."""
    kept: list[int] = []
    for i in range(len(vectors)):
        if all(float(vectors[i] @ vectors[j]) < threshold for j in kept):
            kept.append(i)
            if len(kept) == k:
                break
    return kept
