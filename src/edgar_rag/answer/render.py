"""The response object as JSON (``POST /ask`` and ``edgar-rag ask --json``) and as text."""

from __future__ import annotations

from typing import Any

from edgar_rag.domain import Citation, FilingMeta, Response

REASON_WORDS = {
    "out_of_scope": "The question is about another company than the filing in scope.",
    "out_of_period": "The question names a fiscal year this filing does not report.",
    "gate_rejected": "No passage of the filing is close enough to the question.",
    "model_declined": "The model found no answer in the passages it was given.",
    "no_valid_citation": "The answer stated something without citing a passage it was given.",
    "unsupported_claim": "The answer stated a figure its cited passage does not print.",
    "missing_figure": "A figure the answer needs is not reported for the period asked.",
}


def filing_json(filing: FilingMeta) -> dict[str, Any]:
    return {
        "company": filing.company,
        "ticker": filing.ticker,
        "cik": filing.cik,
        "fiscal_year": filing.fiscal_year,
        "accession": filing.accession,
        "form": filing.form,
        "filing_date": filing.filing_date.isoformat() if filing.filing_date else None,
        "url": filing.url,
    }


def citation_json(citation: Citation) -> dict[str, Any]:
    filing = citation.filing
    return {
        "marker": citation.marker,
        "ticker": filing.ticker,
        "cik": filing.cik,
        "fiscal_year": filing.fiscal_year,
        "accession": filing.accession,
        "item": citation.item,
        "title": citation.title,
        "quote": citation.quote,
        "start": citation.start,
        "end": citation.end,
        "score": citation.score,
    }


def response_json(response: Response) -> dict[str, Any]:
    """Exactly the shape of DESIGN.md's response object (fields may be added, never removed)."""
    return {
        "question": response.question,
        "text": response.text,
        "citations": [citation_json(c) for c in response.citations],
        "abstained": response.abstained,
        "reason": response.reason.value if response.reason else None,
        "detail": response.detail,
        "gate": response.gate,
        "retrieval_score": _round(response.retrieval_score),
        "gate_score": _round(response.gate_score),
        "source": filing_json(response.source) if response.source else None,
        "generator": response.generator,
        "timings_ms": response.timings_ms,
        "tokens": {"prompt": response.prompt_tokens, "completion": response.completion_tokens},
        "replayed": response.replayed,
        **({"calculation": dict(response.calculation)} if response.calculation else {}),
    }


def response_text(response: Response) -> str:
    """A readable answer with its quoted citations, or the decline and why."""
    if response.reason is not None:
        words = REASON_WORDS[response.reason.value]
        detail = f"\n{response.detail}" if response.detail else ""
        return f"Declined ({response.reason.value}): {words}{detail}"
    lines = [response.text or ""]
    for citation in response.citations:
        filing = citation.filing
        lines.append(
            f"\n[{citation.marker}] {filing.ticker or filing.company} FY{filing.fiscal_year}, "
            f"{citation.item} {citation.title} (characters {citation.start}-{citation.end})"
        )
        lines.extend(f"    {line}" for line in citation.quote.splitlines())
    return "\n".join(lines)


def _round(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None
