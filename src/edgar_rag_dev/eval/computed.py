"""The derived golden set of computed questions, and its ceiling without model or retrieval.

For each indexed filing with a ticker, the library's metrics that its own XBRL facts can compute
(for its fiscal year, with prior years from its comparative columns) become questions, worded
from several templates and each metric's synonyms; about one in four states its formula in
words, as FinanceBench does. The gold is the calculator's, rounded as the question asks.
Companies split into dev and eval as the golden set's do (``split_companies``).

The ceiling reads each question back the way the answer path will (its stated formula, else the
library metric it names; its fiscal year from ``question.periods``), resolves the operands in the
filing and computes: the share it gets right is what the answer path can reach at best.

    edgar-rag dev eval computed --index build/corpus.db --out data/computed
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing
from decimal import Decimal
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.figures.calculator import Calculation, CalculationDecline
from edgar_rag.figures.formula import Expr, Ref, render
from edgar_rag.figures.library import Metric, MetricLibrary, ResultUnit, load_library
from edgar_rag.figures.plan import ComputationPlan, compute_plan, plan_computation
from edgar_rag.figures.resolve import FilingFigures, MissingFigure, compute_metric
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.question.periods import asked_fiscal_years
from edgar_rag_dev.eval.golden import short_name, split_companies, write_jsonl

HANDWRITTEN = "data/computed/handwritten.jsonl"
"""The hand-written questions, their gold computed by hand from the statements."""
METRICS_PER_FILING = 10
"""Metrics asked of each filing for its own fiscal year, the least asked kinds first."""
PRIOR_YEAR_PER_FILING = 2
"""Metrics asked of each filing for the year before its own, from its comparative columns."""
STATED_SHARE = 4
"""One question in this many states its formula in words."""

_TEMPLATES = (
    "What was {company}'s {metric} in fiscal {year}?",
    "What is the FY{year} {metric} for {company}?",
    "{company} {metric} FY{yy}",
    "Compute {company}'s {metric} for fiscal year {year}.",
    "In fiscal {year}, what was the {metric} of {company}?",
)
_UNIT_ASKS = {
    ResultUnit.PERCENT: " Answer in percent, rounded to one decimal place.",
    ResultUnit.RATIO: " Round your answer to two decimal places.",
    ResultUnit.DAYS: " Round your answer to one decimal place.",
    ResultUnit.USD: " Answer in USD millions.",
    ResultUnit.USD_PER_SHARE: " Round your answer to two decimal places.",
}
_UNIT_DECIMALS = {ResultUnit.PERCENT: 1, ResultUnit.RATIO: 2, ResultUnit.DAYS: 1}


class ComputedOperand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    item: str
    fiscal_year: int
    concept: str | None
    displayed: str
    value: str


class ScopedQuestion(BaseModel):
    """A question asked of one filing (``--ticker`` and ``--year``), about one fiscal year."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    split: str
    ticker: str
    filing_fiscal_year: int
    """The filing in scope."""
    fiscal_year: int
    """The fiscal year asked: the filing's own, or the one before from its comparative column."""
    question: str


class ComputedQuestion(ScopedQuestion):
    """A question whose gold is computed by code from the filing's tagged figures."""

    metric: str
    stated_formula: bool
    """Whether the question writes its formula out (FinanceBench style)."""
    unit: str
    decimals: int
    scale: int
    value: str
    """The gold result, rounded, in ``unit`` and ``scale``."""
    text: str
    formula: str
    operands: tuple[ComputedOperand, ...]


def _pick(seed: str, options: Sequence[str]) -> str:
    return options[int(hashlib.sha256(seed.encode()).hexdigest(), 16) % len(options)]


def _rank(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


def computed_questions(
    filings: Sequence[FilingFigures],
    library: MetricLibrary,
    defined_otherwise: OwnDefinition | None = None,
) -> list[ComputedQuestion]:
    """Questions over each filing's computable metrics: ``METRICS_PER_FILING`` for its fiscal
    year and ``PRIOR_YEAR_PER_FILING`` for the year before; a metric the filing defines
    otherwise (``defined_otherwise``) is asked only with the library's formula stated, since
    asked by name its answer is the filer's own figure, not the calculator's."""
    # Filings in a fixed order (ticker, year), so the rotation does not depend on the store.
    filings = sorted(filings, key=lambda f: (f.meta.ticker or "", f.meta.fiscal_year))
    split = split_companies(f.meta.ticker for f in filings if f.meta.ticker)
    asked: Counter[str] = Counter()
    questions: list[ComputedQuestion] = []
    for figures in filings:
        meta = figures.meta
        if meta.ticker is None:
            continue
        for year, count in (
            (meta.fiscal_year, METRICS_PER_FILING),
            (meta.fiscal_year - 1, PRIOR_YEAR_PER_FILING),
        ):
            # The least asked kinds first, so each is asked about as often as the filings
            # allow; a hash of the filing and year orders the ties.
            seed = f"{meta.ticker}-{meta.fiscal_year}-{year}"
            metrics = sorted(
                library.metrics.values(), key=lambda m: (asked[m.key], _rank(seed + m.key))
            )
            chosen = 0
            for metric in metrics:
                if chosen == count:
                    break
                question = _question(
                    metric, figures, library, split[meta.ticker], year, defined_otherwise
                )
                if question is not None:
                    questions.append(question)
                    asked[metric.key] += 1
                    chosen += 1
    return questions


OwnDefinition = Callable[[str, int, Calculation], bool]
"""Whether a filing (by id) defines a library metric (by key) otherwise than the figure
computed."""


def _question(
    metric: Metric,
    figures: FilingFigures,
    library: MetricLibrary,
    split: str,
    year: int,
    defined_otherwise: OwnDefinition | None = None,
) -> ComputedQuestion | None:
    meta = figures.meta
    decimals = _UNIT_DECIMALS.get(metric.unit)
    result = compute_metric(metric, year, library, [figures], decimals=decimals)
    if not isinstance(result, Calculation):
        return None
    qid = f"{meta.ticker}-{meta.fiscal_year}-{metric.key}"
    if year != meta.fiscal_year:
        qid += f"-fy{year}"
    phrase = _pick(qid + "phrase", metric.synonyms)
    company = short_name(meta.company)
    text = _pick(qid + "template", _TEMPLATES).format(
        company=company, metric=phrase, year=year, yy=f"{year % 100:02d}"
    )
    if not text.endswith(("?", ".")):
        text += "?"
    stated = int(_rank(qid + "stated"), 16) % STATED_SHARE == 0
    filing_id = figures.filing_id
    if (
        not stated
        and defined_otherwise is not None
        and filing_id is not None
        and defined_otherwise(metric.key, filing_id, result)
    ):
        return None  # asked by name, the filer's own figure answers it
    if stated:
        words = describe_formula(metric.formula, library, year)
        text = f"{text} {phrase[0].upper()}{phrase[1:]} is defined as: {words}."
    text += _UNIT_ASKS[metric.unit]
    return ComputedQuestion(
        id=qid,
        split=split,
        ticker=meta.ticker or "",
        filing_fiscal_year=meta.fiscal_year,
        fiscal_year=year,
        metric=metric.key,
        question=text,
        stated_formula=stated,
        unit=str(metric.unit),
        decimals=result.decimals,
        scale=result.scale,
        value=str(result.rounded),
        text=result.text(),
        formula=result.formula,
        operands=tuple(
            ComputedOperand(
                item=o.item,
                fiscal_year=o.fiscal_year,
                concept=o.citation.concept,
                displayed=o.printed,
                value=str(o.value),
            )
            for o in result.operands
        ),
    )


def describe_formula(expr: Expr, library: MetricLibrary, year: int) -> str:
    """The formula in an analyst's words, as FinanceBench states one: "FY2024 revenue /
    (average total assets between FY2023 and FY2024)"."""

    def words(ref: Ref) -> str:
        label = library.items[ref.item].label
        at = year + ref.offset
        if ref.average:
            return f"(average {label} between FY{at - 1} and FY{at})"
        return f"FY{at} {label}"

    return render(expr, words)


# -- the ceiling: resolver and calculator straight over the questions ------------------------


def answer_directly(
    text: str, figures: FilingFigures, library: MetricLibrary
) -> Calculation | MissingFigure | str:
    """The question planned and computed in its filing as the answer path will (its fiscal
    year read by ``question.periods``); a missing operand, or a string saying why it was not
    computed (no plan, a formula or calculation decline)."""
    plan = plan_computation(text, library, complete=False)
    if plan is None:
        return "no metric, formula or line item named"
    if not isinstance(plan, ComputationPlan):
        return plan.detail
    years = asked_fiscal_years(text, figures.meta)
    result = compute_plan(
        plan, library, [figures], fiscal_year=max(years, default=figures.meta.fiscal_year)
    )
    if isinstance(result, CalculationDecline):
        return result.detail
    return result


class HandQuestion(ScopedQuestion):
    """A question written by hand, its gold computed by hand from the statements' figures."""

    expect: str
    """``answer``, or ``missing_figure`` when the filing does not report an operand."""
    value: str | None
    unit: str
    scale: int
    evidence: str
    """The figures as the statements print them, and how they combine."""


def read_hand_questions(path: Path) -> list[HandQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [HandQuestion.model_validate_json(line) for line in lines if line.strip()]


def hand_ceiling(
    questions: Sequence[HandQuestion], filings: Sequence[FilingFigures], library: MetricLibrary
) -> dict[str, object]:
    """The hand-written questions through the same path: correct (the gold, or the expected
    missing_figure), wrong (another figure, or a figure where none is reported), declined."""
    by_filing = {(f.meta.ticker, f.meta.fiscal_year): f for f in filings}
    outcomes: Counter[tuple[str, str]] = Counter()
    failures: list[dict[str, str]] = []
    for question in questions:
        figures = by_filing[(question.ticker, question.filing_fiscal_year)]
        result = answer_directly(question.question, figures, library)
        if isinstance(result, Calculation):
            right = question.value is not None and (
                result.rounded,
                result.scale,
                result.fiscal_year,
                str(result.unit),
            ) == (Decimal(question.value), question.scale, question.fiscal_year, question.unit)
            outcome = "correct" if right else "wrong"
            why = f"computed {result.text()} for fiscal {result.fiscal_year} ({result.formula})"
        elif isinstance(result, MissingFigure):
            outcome = "correct" if question.expect == "missing_figure" else "declined"
            why = result.detail
        else:
            outcome, why = "declined", result
        outcomes[(question.split, outcome)] += 1
        if outcome != "correct":
            failures.append({"id": question.id, "outcome": outcome, "why": why})
    return {
        "questions": len(questions),
        "by_split": {
            split: {k: outcomes[(split, k)] for k in ("correct", "wrong", "declined")}
            for split in ("dev", "eval")
        },
        "failures": failures,
    }


def ceiling(
    questions: Sequence[ComputedQuestion], filings: Sequence[FilingFigures], library: MetricLibrary
) -> dict[str, object]:
    """How many questions the resolver and calculator answer right, per split and metric."""
    by_filing = {(f.meta.ticker, f.meta.fiscal_year): f for f in filings}
    outcomes: Counter[tuple[str, str]] = Counter()
    per_metric: dict[str, Counter[str]] = {}
    failures: list[dict[str, str]] = []
    for question in questions:
        figures = by_filing[(question.ticker, question.filing_fiscal_year)]
        result = answer_directly(question.question, figures, library)
        if isinstance(result, str | MissingFigure):
            outcome = "unresolved"
            failures.append({"id": question.id, "why": str(result)})
        elif (result.rounded, result.scale, result.fiscal_year) == (
            Decimal(question.value),
            question.scale,
            question.fiscal_year,
        ):
            outcome = "correct"
        else:
            outcome = "wrong"
            failures.append({"id": question.id, "why": f"computed {result.text()}"})
        outcomes[(question.split, outcome)] += 1
        per_metric.setdefault(question.metric, Counter())[outcome] += 1
    return {
        "questions": len(questions),
        "by_split": {
            split: {k: outcomes[(split, k)] for k in ("correct", "wrong", "unresolved")}
            for split in ("dev", "eval")
        },
        "by_metric": {key: dict(counts) for key, counts in sorted(per_metric.items())},
        "failures": failures,
    }


def corpus_figures(index: SqliteIndex) -> list[FilingFigures]:
    """Every indexed filing's facts, oldest filing id first."""
    figures = []
    for summary in index.filings():
        parsed, _ = index.export_filing(summary.filing_id)
        figures.append(FilingFigures(summary.filing_id, parsed.meta, parsed.facts))
    return figures


def write_computed(index_path: Path, out: Path, handwritten: Path) -> None:
    """Write the derived set (``questions.jsonl``) and its ceiling without model or retrieval
    (``ceiling.json``, the hand-written questions of ``handwritten`` run too) into ``out``."""
    library = load_library()
    with closing(SqliteIndex(index_path)) as index:
        filings = corpus_figures(index)
        own = ComputedAnswers(index, library).defines_otherwise
        questions = computed_questions(filings, library, own)
    write_jsonl(out / "questions.jsonl", questions)
    summary = ceiling(questions, filings, library)
    if handwritten.exists():
        summary["handwritten"] = hand_ceiling(read_hand_questions(handwritten), filings, library)
    (out / "ceiling.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    kinds = len({q.metric for q in questions})
    sys.stderr.write(f"{len(questions)} questions, {kinds} metric kinds -> {out}\n")
    sys.stderr.write(json.dumps(summary["by_split"]) + "\n")
