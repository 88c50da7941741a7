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
        (
            "us-gaap:StockholdersEquity",
            "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest",
        ),
        instant=True,
    ),
    Metric(
        "cash",
        ("cash and cash equivalents",),
        (
            "us-gaap:CashAndCashEquivalentsAtCarryingValue",
            "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents",
        ),
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
        (
            "us-gaap:PaymentsOfDividends",
            "us-gaap:PaymentsOfDividendsCommonStock",
            "us-gaap:PaymentsOfOrdinaryDividends",
        ),
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


class GoldenQuestion(BaseModel):
    """A golden question: answerable (gold from XBRL) or unanswerable by construction."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    split: str
    """``dev`` or ``eval``, fixed by company before any run (``split_companies``)."""
    kind: str
    """``answerable``, ``other_company``, ``other_period`` or ``not_disclosed``."""
    ticker: str
    fiscal_year: int
    metric: str
    question: str
    value: float | None = None
    displayed: str | None = None
    decimals: int | None = None
    other_periods: tuple[str, ...] = ()
    """The concept's figures for other periods, as displayed (to count wrong-period answers)."""


OTHER_COMPANIES = ("Microsoft", "Costco", "Lowe's", "Oracle", "Pfizer", "Intel")
UNANSWERABLE_PER_KIND = 2
ANSWERABLE_PER_FILING = 8


def split_companies(tickers: Iterable[str]) -> dict[str, str]:
    """Companies alternate between ``dev`` and ``eval`` in ticker order: a fixed, recorded rule."""
    return {t: ("dev" if i % 2 == 0 else "eval") for i, t in enumerate(sorted(set(tickers)))}


def golden_questions(filings: Sequence[ParsedFiling]) -> list[GoldenQuestion]:
    """Answerable and unanswerable questions for each filing with a ticker."""
    tickers = [f.meta.ticker for f in filings if f.meta.ticker]
    split = split_companies(t for t in tickers if t)
    names = {f.meta.ticker: short_name(f.meta.company) for f in filings if f.meta.ticker}
    questions: list[GoldenQuestion] = []
    for filing in filings:
        meta = filing.meta
        if meta.ticker is None:
            continue
        base = {"split": split[meta.ticker], "ticker": meta.ticker, "fiscal_year": meta.fiscal_year}
        figures = figure_questions(filing)
        chosen = sorted(figures, key=lambda q: hashlib.sha256(q.id.encode()).hexdigest())
        for q in chosen[:ANSWERABLE_PER_FILING]:
            questions.append(
                GoldenQuestion(
                    id=q.id, kind="answerable", metric=q.metric, question=q.question,
                    value=q.value, displayed=q.displayed, decimals=q.decimals,
                    other_periods=_other_periods(filing, q.concept), **base,
                )
            )  # fmt: skip
        reported = {q.metric for q in figures}
        metrics = [m for m in METRICS if m.key in reported] or list(METRICS)
        others = [n for t, n in sorted(names.items()) if t != meta.ticker] + list(OTHER_COMPANIES)
        for i in range(UNANSWERABLE_PER_KIND):
            seed = f"{meta.ticker}-{meta.fiscal_year}-{i}"
            metric = metrics[int(hashlib.sha256(seed.encode()).hexdigest(), 16) % len(metrics)]
            other = _pick(seed + "company", others)
            name = _pick(seed + "name", metric.names)
            questions.append(
                GoldenQuestion(
                    id=f"{seed}-other_company", kind="other_company", metric=metric.key,
                    question=f"What was {other}'s {name} in fiscal {meta.fiscal_year}?", **base,
                )
            )  # fmt: skip
            year = min(meta.years_reported or (meta.fiscal_year,)) - 3 - i
            own = short_name(meta.company)
            questions.append(
                GoldenQuestion(
                    id=f"{seed}-other_period", kind="other_period", metric=metric.key,
                    question=_pick(seed + "period", _TEMPLATES).format(
                        company=own, metric=name, year=year, yy=f"{year % 100:02d}"
                    ),
                    **base,
                )
            )  # fmt: skip
        # Not disclosed: no figure question and no fact of the metric's concepts anywhere in the
        # filing (a metric that only missed a clean figure question is reported).
        concepts = {fact.concept for fact in filing.facts}
        missing = [m for m in METRICS if m.key not in reported and not concepts & set(m.concepts)]
        for i, metric in enumerate(missing[:UNANSWERABLE_PER_KIND]):
            seed = f"{meta.ticker}-{meta.fiscal_year}-{metric.key}"
            questions.append(
                GoldenQuestion(
                    id=f"{seed}-not_disclosed", kind="not_disclosed", metric=metric.key,
                    question=_pick(seed, _TEMPLATES).format(
                        company=short_name(meta.company),
                        metric=metric.names[i % len(metric.names)],
                        year=meta.fiscal_year, yy=f"{meta.fiscal_year % 100:02d}",
                    ),
                    **base,
                )
            )  # fmt: skip
    return questions


def _other_periods(filing: ParsedFiling, concept: str) -> tuple[str, ...]:
    shown = {
        fact.displayed
        for fact in filing.facts
        if fact.concept == concept
        and not fact.dimensions
        and fact.period_end != filing.meta.period_end
    }
    return tuple(sorted(shown))


def read_golden(path: Path) -> list[GoldenQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [GoldenQuestion.model_validate_json(line) for line in lines if line.strip()]
