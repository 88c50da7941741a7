"""Questions with known answers, generated from each filing's own XBRL facts.

For key metrics of a filing, the fact for its own fiscal year (no dimensions) gives the gold
value and the figure as printed; the question is worded from several templates so that no
single phrasing is what gets measured.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from edgar_rag.domain import Fact, ParsedFiling


@dataclass(frozen=True, slots=True)
class Metric:
    key: str
    names: tuple[str, ...]
    """How an analyst says it; the first is the plainest."""
    concepts: tuple[str, ...]
    """XBRL concepts that report it, in order of preference."""
    instant: bool = False


METRICS: tuple[Metric, ...] = (
    Metric(
        "revenue",
        ("total revenue", "net sales", "revenues"),
        (
            "us-gaap:Revenues",
            "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
            "us-gaap:SalesRevenueNet",
        ),
    ),
    Metric("net_income", ("net income", "net earnings", "profit"), ("us-gaap:NetIncomeLoss",)),
    Metric(
        "diluted_eps",
        ("diluted earnings per share", "diluted EPS"),
        ("us-gaap:EarningsPerShareDiluted",),
    ),
    Metric("operating_income", ("operating income",), ("us-gaap:OperatingIncomeLoss",)),
    Metric("gross_profit", ("gross profit", "gross margin"), ("us-gaap:GrossProfit",)),
    Metric("total_assets", ("total assets",), ("us-gaap:Assets",), instant=True),
    Metric("total_liabilities", ("total liabilities",), ("us-gaap:Liabilities",), instant=True),
    Metric(
        "equity",
        ("total shareholders' equity", "stockholders' equity"),
        ("us-gaap:StockholdersEquity",),
        instant=True,
    ),
    Metric(
        "cash",
        ("cash and cash equivalents",),
        ("us-gaap:CashAndCashEquivalentsAtCarryingValue",),
        instant=True,
    ),
    Metric(
        "operating_cash_flow",
        ("net cash provided by operating activities", "operating cash flow"),
        ("us-gaap:NetCashProvidedByUsedInOperatingActivities",),
    ),
    Metric(
        "capex",
        ("capital expenditures", "purchases of property and equipment"),
        (
            "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment",
            "us-gaap:PaymentsToAcquireProductiveAssets",
        ),
    ),
    Metric(
        "rnd",
        ("research and development expense", "R&D spending"),
        (
            "us-gaap:ResearchAndDevelopmentExpense",
            "us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost",
        ),
    ),
    Metric(
        "dividends",
        ("dividends paid", "cash dividends"),
        ("us-gaap:PaymentsOfDividends", "us-gaap:PaymentsOfDividendsCommonStock"),
    ),
    Metric(
        "buybacks",
        ("share repurchases", "stock buybacks"),
        ("us-gaap:PaymentsForRepurchaseOfCommonStock",),
    ),
    Metric("inventory", ("inventories", "inventory"), ("us-gaap:InventoryNet",), instant=True),
    Metric(
        "long_term_debt",
        ("long-term debt",),
        ("us-gaap:LongTermDebtNoncurrent", "us-gaap:LongTermDebt"),
        instant=True,
    ),
    Metric(
        "income_tax",
        ("provision for income taxes", "income tax expense"),
        ("us-gaap:IncomeTaxExpenseBenefit",),
    ),
)

_TEMPLATES = (
    "What was {company}'s {metric} in fiscal {year}?",
    "How much {metric} did {company} report for fiscal year {year}?",
    "{company} {metric} FY{yy}",
    "What {metric} did {company} record for the fiscal year {year}?",
    "In fiscal {year}, what did {company} report as {metric}?",
)
_INSTANT_TEMPLATES = (
    "What were {company}'s {metric} at the end of fiscal {year}?",
    "How much {metric} did {company} have at fiscal year-end {year}?",
    "{company} {metric} as of FY{yy} year end",
)
_SUFFIX = re.compile(
    r"[,\s]+(?:inc\.?|incorporated|corp\.?|corporation|co\.?|company|ltd\.?|plc|/[a-z]+/?)$",
    re.IGNORECASE,
)


class FigureQuestion(BaseModel):
    """A generated question whose gold answer is one XBRL fact of the filing."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    ticker: str
    cik: int | None
    fiscal_year: int
    metric: str
    concept: str
    question: str
    value: float
    displayed: str
    unit: str | None
    decimals: int | None


def short_name(company: str) -> str:
    """``HOME DEPOT, INC.`` -> ``Home Depot``; ``Apple Inc.`` -> ``Apple``."""
    name = company.split("/", maxsplit=1)[0].strip()
    previous = None
    while previous != name:
        previous, name = name, _SUFFIX.sub("", name).strip(" ,&")
    if name.isupper():
        name = " ".join(word.capitalize() if len(word) > 3 else word for word in name.split())
    return name


def _pick(seed: str, options: Sequence[str]) -> str:
    digest = hashlib.sha256(seed.encode()).digest()
    return options[digest[0] % len(options)]


def _current_fact(facts: Iterable[Fact], metric: Metric, filing: ParsedFiling) -> Fact | None:
    period_end = filing.meta.period_end
    for concept in metric.concepts:
        for fact in facts:
            if fact.concept != concept or fact.dimensions or fact.chunk_ordinal is None:
                continue
            if fact.period_end != period_end:
                continue
            is_instant = fact.period_start is None
            if is_instant != metric.instant:
                continue
            if not is_instant and fact.period_start is not None:
                days = (fact.period_end - fact.period_start).days
                if not 350 <= days <= 380:
                    continue
            return fact
    return None


def figure_questions(filing: ParsedFiling) -> list[FigureQuestion]:
    """One question per key metric the filing reports for its own fiscal year."""
    meta = filing.meta
    if meta.ticker is None:
        return []
    company = short_name(meta.company)
    questions = []
    for metric in METRICS:
        fact = _current_fact(filing.facts, metric, filing)
        if fact is None:
            continue
        qid = f"{meta.ticker}-{meta.fiscal_year}-{metric.key}"
        templates = _INSTANT_TEMPLATES if metric.instant else _TEMPLATES
        wording = _pick(qid, templates).format(
            company=company,
            metric=_pick(qid + "name", metric.names),
            year=meta.fiscal_year,
            yy=f"{meta.fiscal_year % 100:02d}",
        )
        questions.append(
            FigureQuestion(
                id=qid,
                ticker=meta.ticker,
                cik=meta.cik,
                fiscal_year=meta.fiscal_year,
                metric=metric.key,
                concept=fact.concept,
                question=wording,
                value=fact.value,
                displayed=fact.displayed,
                unit=fact.unit,
                decimals=fact.decimals,
            )
        )
    return questions


def prints_figure(text: str, displayed: str) -> bool:
    """True when ``text`` prints the figure exactly as displayed (not inside a longer number)."""
    pattern = r"(?<![\d,.])" + re.escape(displayed) + r"(?![\d,]|\.\d)"
    return re.search(pattern, text) is not None


def write_jsonl(path: Path, rows: Iterable[BaseModel]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")


def read_figure_questions(path: Path) -> list[FigureQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [FigureQuestion.model_validate_json(line) for line in lines if line.strip()]
