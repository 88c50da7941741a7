"""A fifth ranker for questions that name a statement-level figure in prose: the filing's own
primary statements, located by their titles at ingest, lifted into the candidates.

"Is 3M a capital-intensive business?", "Has Microsoft increased its debt on its balance sheet?",
"Did Pfizer grow its PP&E?": the answer is read off the income statement, the balance sheet or
the cash-flow statement, but a statement is rows of figures under a short title, far from the
question's words in embedding space (dense ranks 60 to 600 on FinanceBench) and in BM25's, and
its row labels can be ones the metric library cannot safely list (a bare "Property, plant and
equipment" is gross PP&E in one filing and net in another). The statement itself is known: each
of its rows' figures records which statement it was read from (``Fact.statement``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol

from edgar_rag.domain import FactRef, ScoredIds

_GAP = 2
"""Chunks of one statement are consecutive; a run of a statement's chunks ends where more than
this many chunk ids pass without one of its rows (a condensed statement in a note, a parent-only
schedule, is another run)."""


class StatementReader(Protocol):
    """The primary statements (``StatementFound.kind`` values, ``balance_sheet``, ...) that
    print the figures a question names, its metric's operands or a line item named outright;
    empty when it names none. The metric library implements it (``figures.operands``)."""

    def __call__(self, question: str) -> Sequence[str]: ...


def statement_runs(facts: Sequence[FactRef], kind: str) -> list[list[int]]:
    """The chunk ids printing rows of ``kind``, in runs of consecutive chunks, in filing order."""
    chunks = sorted({fact.chunk_id for fact in facts if fact.statement == kind})
    runs: list[list[int]] = []
    for chunk in chunks:
        if runs and chunk - runs[-1][-1] <= _GAP:
            runs[-1].append(chunk)
        else:
            runs.append([chunk])
    return runs


def primary_statement(facts: Sequence[FactRef], kind: str) -> list[int]:
    """The chunks of the filing's primary statement of ``kind``: the run printing the most of
    its figures (the consolidated statement, not a summary of it in the MD&A or a schedule)."""
    runs = statement_runs(facts, kind)
    if not runs:
        return []
    shown = Counter(fact.chunk_id for fact in facts if fact.statement == kind)
    return max(runs, key=lambda run: sum(shown[chunk] for chunk in run))


def rank_statement_chunks(
    kinds: Sequence[str], facts: Sequence[FactRef], k: int, depth: int = 1
) -> ScoredIds:
    """The chunks of the primary statements of ``kinds``: each statement's first chunk (its
    title, column headers and first rows), in the order of ``kinds``, then their next chunks,
    at most ``depth`` of each statement."""
    statements = [primary_statement(facts, kind)[:depth] for kind in dict.fromkeys(kinds)]
    ranked: list[int] = []
    for level in range(max((len(chunks) for chunks in statements), default=0)):
        ranked.extend(chunks[level] for chunks in statements if level < len(chunks))
    return [(chunk, 1.0 / rank) for rank, chunk in enumerate(ranked[:k], 1)]
