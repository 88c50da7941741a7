"""What a question's figures are computed from, as search looks for them: the line items of the
metric it names (or the items it names outright), each by the row labels a statement prints.

Search ranks the chunks displaying these (``retrieve.facts.rank_operand_chunks``), so a question
on a quick ratio finds the balance sheet that prints current assets and current liabilities,
though it names neither.
"""

from __future__ import annotations

from dataclasses import dataclass

from edgar_rag.figures.formula import refs
from edgar_rag.figures.library import LineItem, MetricLibrary
from edgar_rag.retrieve.facts import Operand


@dataclass(frozen=True, slots=True)
class LibraryOperands:
    """``retrieve.facts.OperandReader`` over the metric library."""

    library: MetricLibrary

    def __call__(self, question: str, named_items: bool) -> tuple[Operand, ...]:
        """The operands of the metric the question names, then (``named_items``) the line items
        it names; each item once."""
        metric = self.library.find_metric(question)
        keys = [ref.item for ref in refs(metric.formula)] if metric is not None else []
        items = [self.library.items[key] for key in keys if key in self.library.items]
        if named_items:
            items += self.library.find_items(question)
        return tuple(_operand(item) for item in dict.fromkeys(items))


def _operand(item: LineItem) -> Operand:
    return Operand(frozenset(row.lower() for row in item.rows))
