"""The index as the service reads it: one caller at a time, and an Item's text around a quote.

The service answers requests on several threads while one SQLite connection (or one psycopg
connection) serves them all, so every call into the index goes through one lock. Calls are
short (milliseconds); a generation never holds the lock, only the searches before it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from edgar_rag.domain import (
    Fact,
    FactRef,
    FigureStore,
    FilingReader,
    Passage,
    PassageIndex,
    Scope,
    ScoredIds,
    Vectors,
)
from edgar_rag.errors import NotFoundError

FALLBACK_CONTEXT_CHARS = 2000
"""Characters shown either side of a span that lies in no Item."""


class LockedPassages:
    """A ``PassageIndex`` that lets one thread at a time into the store it wraps (mypy says
    when the protocol grows a method this does not pass on)."""

    def __init__(self, index: PassageIndex, lock: threading.Lock) -> None:
        self._index = index
        self._lock = lock

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        with self._lock:
            return self._index.resolve_scope(
                ticker, cik, fiscal_year, form=form, fiscal_quarter=fiscal_quarter
            )

    def dense_search(self, vector: Vectors, filing_id: int | None, k: int) -> ScoredIds:
        with self._lock:
            return self._index.dense_search(vector, filing_id, k)

    def lexical_search(self, terms: Sequence[str], filing_id: int | None, k: int) -> ScoredIds:
        with self._lock:
            return self._index.lexical_search(terms, filing_id, k)

    def passages(self, chunk_ids: Sequence[int]) -> dict[int, Passage]:
        with self._lock:
            return self._index.passages(chunk_ids)

    def vectors(self, chunk_ids: Sequence[int]) -> Vectors:
        with self._lock:
            return self._index.vectors(chunk_ids)

    def displayed_facts(self, filing_id: int) -> list[FactRef]:
        with self._lock:
            return self._index.displayed_facts(filing_id)


class LockedFigures:
    """A ``FigureStore`` (what answers computed in code read) behind the same lock."""

    def __init__(self, store: FigureStore, lock: threading.Lock) -> None:
        self._store = store
        self._lock = lock

    def figures(self, filing_id: int) -> list[Fact]:
        with self._lock:
            return self._store.figures(filing_id)

    def passages_at(self, filing_id: int, ordinals: Sequence[int]) -> dict[int, Passage]:
        with self._lock:
            return self._store.passages_at(filing_id, ordinals)

    def table_passages(self, filing_id: int) -> dict[int, Passage]:
        with self._lock:
            return self._store.table_passages(filing_id)

    def resolve_scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        with self._lock:
            return self._store.resolve_scope(
                ticker, cik, fiscal_year, form=form, fiscal_quarter=fiscal_quarter
            )


@dataclass(frozen=True, slots=True)
class ItemSpan:
    """The text of the Item holding a span of a filing, and the span's place inside it."""

    filing_id: int
    item: str
    title: str
    start: int
    end: int
    text: str
    quote_start: int
    quote_end: int


def item_span(index: FilingReader, filing_id: int, start: int, end: int) -> ItemSpan:
    """The Item of ``filing_id`` that holds ``[start, end)`` of its clean text (the narrowest
    one), or the text around the span when no Item holds it. The caller holds the lock."""
    text = index.filing_text(filing_id)
    if not 0 <= start < end <= len(text):
        raise NotFoundError(
            f"filing {filing_id} has no text at characters {start}-{end} "
            f"(its text has {len(text):,} characters)"
        )
    section = index.narrowest_section(filing_id, start, end)
    if section is None:
        item, title = "", ""
        first = max(0, start - FALLBACK_CONTEXT_CHARS)
        last = min(len(text), end + FALLBACK_CONTEXT_CHARS)
    else:
        item, title, first, last = section.item, section.title, section.start, section.end
    return ItemSpan(
        filing_id=filing_id,
        item=item,
        title=title,
        start=first,
        end=last,
        text=text[first:last],
        quote_start=start - first,
        quote_end=end - first,
    )
