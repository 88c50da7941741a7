"""The response as a person reads it: the CLI's answer text and the words for each decline.

Its JSON (``POST /ask``, ``edgar-rag ask --json``) is ``service.models.AskResponse``; the page
shows the same decline words, which the service fills in from ``REASON_WORDS``.
"""

from __future__ import annotations

from edgar_rag.domain import Response

REASON_WORDS = {
    "out_of_scope": "The question is about another company than the filing in scope.",
    "out_of_period": "The question names a fiscal year this filing does not report.",
    "gate_rejected": "No passage of the filing is close enough to the question.",
    "model_declined": "The model found no answer in the passages it was given.",
    "no_valid_citation": "The answer stated something without citing a passage it was given.",
    "unsupported_claim": "The answer stated a figure its cited passage does not print.",
    "missing_figure": "A figure the answer needs is not reported for the period asked.",
    "unsupported_question": "A part of the question is not one code can answer from the figures.",
    "false_premise": "The filing's figures contradict what the question takes for granted.",
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
