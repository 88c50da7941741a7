"""JSON written by the service besides the response object (which ``answer.render`` writes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.domain import FilingMeta, FilingSummary, Hit, Response
from edgar_rag.service.store import ItemSpan

EXCERPT_CHARS = 300


def hit_json(hit: Hit) -> dict[str, Any]:
    """A search hit, as ``edgar-rag search --json`` writes it."""
    chunk, filing = hit.passage.chunk, hit.passage.filing
    return {
        "rank": hit.rank,
        "score": round(hit.score, 6),
        "cosine": round(hit.cosine, 6),
        "item": chunk.item,
        "title": chunk.title,
        "text": chunk.text,
        "start": chunk.start,
        "end": chunk.end,
        "ticker": filing.ticker,
        "cik": filing.cik,
        "company": filing.company,
        "fiscal_year": filing.fiscal_year,
        "accession": filing.accession,
    }


def filing_entry_json(summary: FilingSummary) -> dict[str, Any]:
    """An indexed filing, as ``edgar-rag filings --json`` writes it, with its id and form."""
    return {
        "filing_id": summary.filing_id,
        "ticker": summary.ticker,
        "cik": summary.cik,
        "company": summary.company,
        "fiscal_year": summary.fiscal_year,
        "accession": summary.accession,
        "form": summary.form,
        "items": summary.items,
        "chunks": summary.chunks,
        "facts": summary.facts,
        "years_reported": list(summary.years_reported),
    }


def item_json(span: ItemSpan) -> dict[str, Any]:
    return {
        "filing_id": span.filing_id,
        "item": span.item,
        "title": span.title,
        "start": span.start,
        "end": span.end,
        "text": span.text,
        "quote_start": span.quote_start,
        "quote_end": span.quote_end,
    }


def query_json(response: Response, hits: Sequence[Hit]) -> dict[str, Any]:
    """docs-rag's ``POST /query`` answer: the text (or why it was declined) and the passages
    retrieved for it, each with its filing, chunk, score and an excerpt."""
    if response.reason is not None:
        words = REASON_WORDS[response.reason.value]
        answer = f"{words} {response.detail}" if response.detail else words
    else:
        answer = response.text or ""
    return {
        "answer": answer,
        "sources": [
            {
                "filing": filing_label(hit.passage.filing),
                "chunk": hit.passage.chunk.ordinal,
                "score": round(hit.cosine, 4),
                "excerpt": _excerpt(hit.passage.chunk.text),
            }
            for hit in hits
        ],
        "abstained": response.abstained,
        "reason": response.reason.value if response.reason is not None else None,
    }


def filing_label(filing: FilingMeta) -> str:
    """``AAPL 10-K FY2025 (0000320193-25-000079)``."""
    label = f"{filing.ticker or filing.company} {filing.form} FY{filing.fiscal_year}"
    return f"{label} ({filing.accession})" if filing.accession else label


def _excerpt(text: str) -> str:
    if len(text) <= EXCERPT_CHARS:
        return text
    return text[:EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"
