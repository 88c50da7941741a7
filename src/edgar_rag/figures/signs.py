"""The sign of a statement row, as XBRL signs the line item it prints.

A statement row (a PDF or HTML statement without XBRL) is read signed as printed: ``(411)`` is
-411. XBRL signs a line by its own balance, whichever way a statement prints it: a payment is
positive (``printed = "outflow"``, always printed in parentheses), and so is an expense
(``IncomeTaxExpenseBenefit``, ``CostOfRevenue``: positive for a cost, negative for a benefit).
Statements print expenses both ways: Corning prints its cost of sales ``9,683`` and its provision
for income taxes ``(411)`` in one income statement, Boeing every cost in parentheses. So the sign
of an expense row is read, in order, from what the row itself says:

1. its label's parenthesised word names what parentheses mean: ``Income tax (expense)/benefit``
   prints an expense in parentheses, ``Provision for (benefit from) income taxes`` a benefit;
2. else the statement's own arithmetic: the rows printed just before and after it in its
   column (``Income before income taxes 1,797``, ``(411)``, ``Net income 1,386``): when the one
   before plus the row is the one after, the row is printed as a deduction; minus, as a cost;
3. else an expense printed in parentheses is a deduction (a cost), one printed plain a cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from edgar_rag.domain import Fact

_EXPENSE_IN_PARENTHESES = re.compile(r"\((?:expenses?|provision|costs?|charge)\b", re.IGNORECASE)
"""``Income tax (expense)/benefit``, ``(Provision) benefit for income taxes``."""
_BENEFIT_IN_PARENTHESES = re.compile(r"\((?:benefit|credit|recovery)\b|\(\s*benefit from\b",
                                     re.IGNORECASE)  # fmt: skip
"""``Provision for (benefit from) income taxes``, ``Income tax expense (benefit)``."""
INCOME_STATEMENT = "income_statement"


def expense_row_value(fact: Fact, value: Decimal, facts: Sequence[Fact]) -> Decimal:
    """The XBRL value of an expense line printed as ``value`` in the income-statement row
    ``fact``: positive for a cost, negative for a benefit (the module's rules, in order)."""
    label = fact.label or ""
    if _EXPENSE_IN_PARENTHESES.search(label):
        return -value
    if _BENEFIT_IN_PARENTHESES.search(label):
        return value
    deducted = _deducted(fact, facts)
    if deducted is not None:
        return -value if deducted else value
    return -value if value < 0 else value


def _deducted(fact: Fact, facts: Sequence[Fact]) -> bool | None:
    """True when the rows around ``fact`` in its column add it (a cost printed negative),
    False when they subtract it, None when they show neither."""
    if fact.offset is None:
        return None
    column = sorted(
        (
            other
            for other in facts
            if not other.concept
            and other.offset is not None
            and other.statement == fact.statement
            and (other.period_start, other.period_end) == (fact.period_start, fact.period_end)
        ),
        key=lambda other: other.offset or 0,
    )
    at = next((i for i, other in enumerate(column) if other.offset == fact.offset), None)
    if at is None or at == 0 or at == len(column) - 1:
        return None
    before, after = (Decimal(repr(column[i].value)) for i in (at - 1, at + 1))
    printed = Decimal(repr(fact.value))
    if printed == 0 or before == 0:
        return None
    if before + printed == after:
        return True
    if before - printed == after:
        return False
    return None
