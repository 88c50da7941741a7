"""The largest (or smallest) line of a balance sheet's assets or liabilities, picked in code
from the statement's own rows: "What was the largest liability in American Express's Balance
Sheet in 2022?".

The rows are those the statement prints for the year asked, in their printed order: the assets
above the row "Total assets", the liabilities between it and "Total liabilities" (or, where
the statement prints none, "Total liabilities and ..."). A total or subtotal row ("Total current
liabilities") is no line of its own, and a filing whose statements are read from XBRL facts
alone carries no row labels to pick from: the question goes on to the model. The line picked is
looked up and cited as any figure is, and the runner-up is named beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from edgar_rag.answer.computed import (
    Computed,
    ComputedAnswers,
    HeaderYears,
    Uncomputable,
    display_company,
    possessive,
)
from edgar_rag.domain import Fact, FilingMeta, Scope
from edgar_rag.figures.formula import Dimension
from edgar_rag.figures.library import LineItem, PeriodKind
from edgar_rag.figures.resolve import fiscal_year_of, row_key

_ASKED = re.compile(
    r"\b(?P<which>largest|biggest|highest|smallest|lowest)\s+(?:single\s+)?"
    r"(?P<side>liabilit(?:y|ies)|assets?)\b",
    re.IGNORECASE,
)
_BALANCE_SHEET = re.compile(
    r"\bbalance\s+sheets?\b|\bstatements?\s+of\s+financial\s+(?:position|condition)\b",
    re.IGNORECASE,
)
"""The statement the question points at: without it, "the largest asset" may be a pension
plan's asset class or an acquisition's, which no balance sheet line answers."""
_TOTAL = re.compile(r"^total\b", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class LargestLine:
    """What a superlative over a balance sheet's lines asks."""

    side: str
    """``assets`` or ``liabilities``."""
    largest: bool


def read_largest_line(text: str) -> LargestLine | None:
    """The superlative ``text`` asks of a balance sheet's lines, else None (it must name the
    balance sheet)."""
    found = _ASKED.search(text)
    if found is None or _BALANCE_SHEET.search(text) is None:
        return None
    side = "assets" if found["side"].lower().startswith("asset") else "liabilities"
    return LargestLine(side, found["which"].lower() in ("largest", "biggest", "highest"))


def largest_line(
    asked: LargestLine,
    scope: Scope,
    computed: ComputedAnswers,
    header_years: HeaderYears,
    year: int | None = None,
) -> Computed | None:
    """The line ``asked`` picks in the scoped filing's balance sheet of fiscal ``year`` (its
    own year when None), cited; None when its rows carry no labels or no such section."""
    filing, filing_id = scope.filing, scope.filing_id
    if filing is None or filing_id is None:
        return None
    year = year or filing.fiscal_year
    rows = _section(computed.store.figures(filing_id), asked.side, year, filing)
    if len(rows) < 2:
        return None
    ranked = sorted(rows, key=lambda fact: fact.value, reverse=asked.largest)
    items = [_line_item(fact, rank) for rank, fact in enumerate(ranked[:2])]
    found = computed.look_up(items, year, scope, header_years)
    if found is None or isinstance(found, Uncomputable):
        return None
    (text, citations, _), _ = found
    which = "largest" if asked.largest else "smallest"
    kind = "liability" if asked.side == "liabilities" else "asset"
    company = display_company(filing.company)
    said = (
        f"The {which} {kind} line on {possessive(company)} balance sheet at the end of fiscal "
        f"{year} was {items[0].label}, ahead of {items[1].label}: {text}"
    )
    detail = (
        f"the {which} of the {len(rows)} {asked.side} lines its balance sheet prints for fiscal "
        f"{year}, totals aside, picked and looked up in code; no model wrote this"
    )
    return Computed(said, citations, None, detail)


def _section(facts: list[Fact], side: str, year: int, filing: FilingMeta) -> list[Fact]:
    """The year's rows of the first balance sheet's ``side``, totals aside, in printed order."""
    printed = sorted(
        (
            fact
            for fact in facts
            if not fact.concept
            and fact.label
            and fact.statement == "balance_sheet"
            and fact.period_start is None
            and fact.offset is not None
            and fiscal_year_of(fact.period_end, filing) == year
        ),
        key=lambda fact: fact.offset or 0,
    )
    own = [_own_label(fact) for fact in printed]
    assets_end = next((i for i, label in enumerate(own) if _is_total(label, "assets")), None)
    if assets_end is None:
        return []
    if side == "assets":
        chosen = printed[:assets_end]
    else:
        after = range(assets_end + 1, len(printed))
        end = next((i for i in after if _is_total(own[i], "liabilities")), None)
        end = end or next((i for i in after if own[i].lower().startswith("total liabilities")),
                          None)  # fmt: skip
        if end is None:
            return []
        chosen = printed[assets_end + 1 : end]
    return [fact for fact in chosen if not _TOTAL.match(_own_label(fact)) and fact.value > 0]


def _own_label(fact: Fact) -> str:
    """A row's own label as a reader says it: without its notes in parentheses, a trailing note
    of figures ("less reserves for credit losses: 2022, $229; 2021, $64") or its heading
    ("Liabilities: ")."""
    label = re.sub(r"\s*\([^()]*\)", "", fact.label or "")
    label = re.sub(r":\s*\$?\d.*$", "", label)
    return label.split(": ", 1)[-1].strip(" $")


def _is_total(label: str, side: str) -> bool:
    """Whether ``label`` is the total of that side alone ("Total liabilities", not "Total
    liabilities and shareholders' equity")."""
    return re.fullmatch(rf"total\s+{side}", label.strip(" $"), re.IGNORECASE) is not None


def _line_item(fact: Fact, rank: int) -> LineItem:
    """The row as a line item of its own, read by its label as the resolver keys it."""
    label = _own_label(fact)
    words = label.split()
    if len(words) > 1 and words[0][1:].islower() and words[1][:1].islower():
        label = label[:1].lower() + label[1:]  # "customer deposits", not "card Member loans"
    return LineItem(
        key=f"balance_line_{rank}", label=label, statement="balance",
        period=PeriodKind.INSTANT, unit=Dimension.USD, concepts=(), alternates=(),
        synonyms=(), rows=(row_key(fact),),
    )  # fmt: skip
