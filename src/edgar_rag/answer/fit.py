"""A metric that does not fit the filer, said so in code: the question hedges ("If gross margin
is not a useful metric for a company like this, then state that and explain why"), the filing
reports no line the metric is computed from, and its income statement is a lender's.

A bank or a card issuer sells no goods at a cost and draws no line between current and
long-term balances: its statements print no cost of sales, no gross or operating profit and no
current assets, and what they do print is a provision for credit losses against the loans it
makes. That line, looked up and cited, is the evidence that the filer is a lender; the missing
operand is named as the resolver reported it. A filing that prints the line but can compute
the metric, or lacks the metric's lines without being a lender (Boeing prints no gross profit
row), is not said to be unfit: the question goes on as it would have.
"""

from __future__ import annotations

from edgar_rag.answer.computed import (
    Computed,
    ComputedAnswers,
    HeaderYears,
    Uncomputable,
    display_company,
)
from edgar_rag.domain import Reason, Scope
from edgar_rag.figures.formula import Dimension
from edgar_rag.figures.library import LineItem, PeriodKind
from edgar_rag.question.reading import read_question
from edgar_rag.question.verdicts import HedgedMetric

LENDER_LINES = (
    LineItem(
        key="credit_loss_provision", label="provision for credit losses", statement="income",
        period=PeriodKind.DURATION, unit=Dimension.USD, synonyms=(),
        concepts=("us-gaap:ProvisionForLoanLeaseAndOtherLosses",
                  "us-gaap:ProvisionForLoanLossesExpensed",
                  "us-gaap:ProvisionForCreditLossesNetOfRecoveries"),
        alternates=(),
        rows=("Provision for credit losses", "Provisions for credit losses",
              "Total provisions for credit losses", "Provision for loan losses",
              "Provision for loan and lease losses", "Total provision for credit losses"),
    ),
)  # fmt: skip
"""The line only a lender's income statement prints."""


def unfit_metric(
    hedged: HedgedMetric, scope: Scope, computed: ComputedAnswers, header_years: HeaderYears
) -> Computed | None:
    """That ``hedged.measure`` is not a useful metric for the scoped filer, with the lender's
    line that shows why, cited; None when the metric is computed, or the filer is no lender."""
    filing = scope.filing
    if filing is None:
        return None
    year = filing.fiscal_year
    figure = read_question(f"What was the {hedged.measure} in FY{year}?", filing)
    found = computed.answer(figure, scope, header_years)
    if not isinstance(found, Uncomputable) or found.reason is not Reason.MISSING_FIGURE:
        return None
    lender = computed.look_up(LENDER_LINES, year, scope, header_years, each=False)
    if lender is None or isinstance(lender, Uncomputable):
        return None
    (printed, citations, _), _ = lender
    company = display_company(filing.company)
    text = (
        f"{hedged.measure[:1].upper()}{hedged.measure[1:]} is not a useful metric for "
        f"{company}: {found.detail}, and its income statement is a lender's, which earns "
        f"interest and provides for credit losses rather than selling goods at a cost. {printed}"
    )
    detail = (
        "the metric's lines are not reported and the filing's income statement prints a "
        "provision for credit losses, looked up in code; no model wrote this"
    )
    return Computed(text, citations, None, detail)
