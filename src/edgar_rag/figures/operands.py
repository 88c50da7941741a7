"""What a question's figures are computed from, as search looks for them: the line items of the
metric it names (or the items it names outright), each by the row labels a statement prints, and
the primary statements that print them.

Search ranks the chunks displaying these (``retrieve.facts.rank_operand_chunks``), so a question
on a quick ratio finds the balance sheet that prints current assets and current liabilities,
though it names neither; and in a PDF it lifts the statements themselves
(``retrieve.statements.rank_statement_chunks``), whatever their rows are labelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgar_rag.figures.formula import refs
from edgar_rag.figures.library import LineItem, MetricLibrary
from edgar_rag.retrieve.facts import Operand

_STATEMENT_KINDS = {
    "income": "income_statement",
    "balance": "balance_sheet",
    "cash_flow": "cash_flow",
}
"""A line item's ``statement`` as ingest names the statements it locates (``StatementKind``)."""


def _named_items(library: MetricLibrary, question: str, named_items: bool) -> list[LineItem]:
    """The line items of the metric the question names, then (``named_items``) the items it
    names; each item once."""
    metric = library.find_metric(question)
    keys = [ref.item for ref in refs(metric.formula)] if metric is not None else []
    items = [library.items[key] for key in keys if key in library.items]
    if named_items:
        items += library.find_items(question)
    return list(dict.fromkeys(items))


@dataclass(frozen=True, slots=True)
class LibraryOperands:
    """``retrieve.facts.OperandReader`` over the metric library."""

    library: MetricLibrary

    def __call__(self, question: str, named_items: bool) -> tuple[Operand, ...]:
        """The operands of the metric the question names, then (``named_items``) the line items
        it names; each item once."""
        return tuple(_operand(item) for item in _named_items(self.library, question, named_items))


@dataclass(frozen=True, slots=True)
class LibraryStatements:
    """``retrieve.statements.StatementReader`` over the metric library: the statements printing
    the line items of the metric the question names, then those of the items it names, then
    those of the assessments it names ("capital-intensive")."""

    library: MetricLibrary

    def __call__(self, question: str) -> tuple[str, ...]:
        items = _named_items(self.library, question, named_items=True)
        items += self.library.find_assessed_items(question)
        return tuple(dict.fromkeys(_STATEMENT_KINDS[item.statement] for item in items))


def _operand(item: LineItem) -> Operand:
    return Operand(frozenset(row.lower() for row in item.rows))
