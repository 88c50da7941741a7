"""The answering evaluation: retrieve once, generate once per question, score every arm.

Each golden question is searched once and generated once (with the company guard off, so that
its effect can be measured too); every gate and check is a mask over that one generation, so every
difference between arms is the gate's or the check's. The run (one record per question) is
written to ``data/golden/run-<split>.json``; the report is a pure function of it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

from edgar_rag.answer.answerer import RECITED_NOTE, TRIMMED_NOTE, Answerer
from edgar_rag.answer.gates import apply_gate, cross_fit_thresholds
from edgar_rag.answer.numbers import PrintedFigure, find_figures, supports
from edgar_rag.answer.prepared import Prepared
from edgar_rag.domain import FilingMeta, Generation, Reason, Response
from edgar_rag.model.tapes import NotRecorded
from edgar_rag.question.companies import company_guard
from edgar_rag_dev.eval.golden import (
    GoldenQuestion,
    golden_questions,
    prints_figure,
    read_golden,
    write_jsonl,
)
from edgar_rag_dev.eval.strict import Gold, Unit, states_gold

GOLDEN = Path("data/golden/questions.jsonl")


@dataclass(frozen=True, slots=True)
class CaseRecord:
    """What happened to one golden question, enough to score every arm without a model."""

    id: str
    kind: str
    ticker: str
    fiscal_year: int
    metric: str
    best_cosine: float | None
    company_declined: bool
    period_declined: bool
    outcome: str
    """``answered`` or the decline reason of the shared generation (company guard off)."""
    outcome_without_period_check: str
    correct: bool
    wrong_period: bool
    wrong_period_without_check: bool
    text: str | None
    generate_s: float
    prompt_tokens: int
    replayed: bool = False
    """The generation came from a tape that kept no time for it: its seconds are not the
    model's (a replay of a tape that kept them reports the recorded seconds)."""
    gold_in_prompt: bool = False
    """The gold figure, as displayed, is printed in the passages the model was given."""
    gold_in_top: bool = False
    """The gold figure is printed in one of the passages given, read whole rather than windowed:
    what the context budget is measured against."""
    outcome_without_metric_check: str = ""
    """The outcome with the metric check off (every other check on)."""
    outcome_bare: str = ""
    """The outcome with neither the period-aware figures nor the metric check: the model and
    the figure-in-passage verifier alone."""
    correct_without_metric_check: bool = False
    recited: bool = False
    """The answer is shown with a citation marker corrected by the verifier."""
    trimmed: bool = False
    """The answer copied a whole table row, shown with the columns of the year asked only."""
    computed: bool = False
    """Answered or declined in code from the filing's reported figures; no model ran."""


OUTFLOWS = frozenset({"capex", "dividends", "buybacks"})
"""Golden metrics that are payments: the cash flow statement prints them in parentheses."""


def gold_of(question: GoldenQuestion, value: float | None = None) -> Gold | None:
    """The strict rule's gold of an answerable question (``value``: another period's figure)."""
    value = question.value if value is None else value
    if value is None:
        return None
    unit: Unit = "usd_per_share" if question.metric == "diluted_eps" else "usd"
    half_step = 0.5 * 10.0 ** -(question.decimals or 0)  # XBRL's decimals: -6 is to the million
    return Gold(value, unit, half_step=half_step, outflow=question.metric in OUTFLOWS)


def gold_matches(text: str, question: GoldenQuestion) -> bool:
    """The answer states the gold figure as a reader takes it: in dollars (per share for EPS),
    with its scale written, the gold's sign, to at most 1% rounding
    (``edgar_rag_dev.eval.strict``)."""
    gold = gold_of(question)
    return gold is not None and states_gold(text, gold)


def _states(text: str, displayed: str) -> bool:
    """The answer states a figure the filing displays (another period's), to its rounding."""
    gold = find_figures(displayed)
    if not gold:
        return False
    printed = PrintedFigure(gold[0], (), header=None, label=None)
    return any(supports(printed, claim) for claim in find_figures(text))


def _states_other_period(text: str, question: GoldenQuestion) -> bool:
    if question.kind != "answerable" or gold_matches(text, question):
        return False
    return any(_states(text, shown) for shown in question.other_periods)


def _prints_gold(question: GoldenQuestion, texts: Iterable[str]) -> bool:
    displayed = question.displayed
    return displayed is not None and any(prints_figure(text, displayed) for text in texts)


def run_split(
    answerer: Answerer,
    index: Any,
    golden: Sequence[GoldenQuestion],
    split: str,
    partial: Path | None = None,
) -> list[CaseRecord]:
    """One record per question of the split; each is appended to ``partial`` as it is made, and
    questions already there are not asked again (an interrupted run resumes)."""
    done = read_partial(partial, CaseRecord)
    records = []
    for question in (q for q in golden if q.split == split):
        scope = index.resolve_scope(ticker=question.ticker, fiscal_year=question.fiscal_year)
        filing = scope.filing
        prepared = answerer.prepare(question.question, scope)
        shown = _prints_gold(question, (window.text for window in prepared.windows))
        whole = _prints_gold(question, (hit.passage.chunk.text for hit in prepared.given))
        if question.id in done:
            records.append(replace(done[question.id], gold_in_prompt=shown, gold_in_top=whole))
            continue
        company, period = guards_declining(answerer, prepared, filing)
        started = time.perf_counter()
        computed = answerer.compute(prepared, "none")
        if computed is not None:  # answered (or declined) in code: every check's arm agrees
            generation = Generation(text=computed.text or "", model=computed.generator)
            response = loose = unmetered = bare = computed
            seconds = time.perf_counter() - started
        else:
            generation = _generate(answerer, prepared, question)
            seconds = generation.recorded_s or time.perf_counter() - started
            response = answerer.conclude(prepared, generation, "none")
            loose = answerer.conclude(prepared, generation, "none", check_periods=False)
            unmetered = answerer.conclude(prepared, generation, "none", check_metric=False)
            bare = answerer.conclude(
                prepared, generation, "none", check_periods=False, check_metric=False
            )
        answered = response.reason is None and response.text is not None
        text = response.text or ""
        correct = answered and question.kind == "answerable" and gold_matches(text, question)
        wrong_period = answered and _states_other_period(text, question)
        loose_text = loose.text or ""
        loose_wrong = loose.reason is None and _states_other_period(loose_text, question)
        records.append(
            CaseRecord(
                id=question.id, kind=question.kind, ticker=question.ticker,
                fiscal_year=question.fiscal_year, metric=question.metric,
                best_cosine=prepared.best, company_declined=company, period_declined=period,
                outcome=_outcome(response),
                outcome_without_period_check=_outcome(loose),
                correct=correct, wrong_period=wrong_period,
                wrong_period_without_check=loose_wrong,
                text=response.text if answered else generation.text,
                generate_s=round(seconds, 3), prompt_tokens=generation.prompt_tokens,
                replayed=generation.replayed and not generation.recorded_s,
                gold_in_prompt=shown,
                gold_in_top=whole,
                outcome_without_metric_check=_outcome(unmetered),
                outcome_bare=_outcome(bare),
                correct_without_metric_check=(
                    _outcome(unmetered) == "answered" and question.kind == "answerable"
                    and gold_matches(unmetered.text or "", question)
                ),
                recited=answered and RECITED_NOTE in (response.detail or ""),
                trimmed=answered and TRIMMED_NOTE in (response.detail or ""),
                computed=computed is not None,
            )
        )  # fmt: skip
        if partial is not None:
            with partial.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(records[-1])) + "\n")
    return records


def _generate(answerer: Answerer, prepared: Prepared, question: GoldenQuestion) -> Generation:
    try:
        return answerer.reply(prepared)
    except NotRecorded as exc:
        raise NotRecorded(
            f"question {question.id} ({question.question!r}) was not recorded: its prompt "
            f"differs from every prompt on the tape, so the prompt or the retrieval changed since "
            f"the recording ({exc})"
        ) from exc


def _outcome(response: Response) -> str:
    return (
        "answered" if response.reason is None and response.text is not None else _reason(response)
    )


def guards_declining(
    answerer: Answerer, prepared: Prepared, filing: FilingMeta | None
) -> tuple[bool, bool]:
    """Whether the company guard, and the period gate, would decline the prepared question
    (the period gate through the production gate, so a replay exercises the serving code)."""
    read = prepared.question
    company = (
        answerer.directory is not None
        and filing is not None
        and company_guard(read.text, read.companies, filing) is not None
    )
    period = not apply_gate("period", read, filing, prepared.hits, 0.0).passed
    return company, period


Record = TypeVar("Record")


def read_partial(partial: Path | None, record: Callable[..., Record]) -> dict[str, Record]:
    """The records an interrupted run appended to ``partial``, by question id."""
    if partial is None or not partial.exists():
        return {}
    rows = [json.loads(line) for line in partial.read_text(encoding="utf-8").splitlines() if line]
    return {row["id"]: record(**row) for row in rows}


def _reason(response: Response) -> str:
    return (response.reason or Reason.UNSUPPORTED_CLAIM).value


def cosine_scores(
    answerer: Answerer, index: Any, golden: Sequence[GoldenQuestion]
) -> dict[str, list[float]]:
    """Best-hit cosine of every answerable question, by company (for cross-fitted thresholds)."""
    scores: dict[str, list[float]] = {}
    for question in golden:
        if question.kind != "answerable":
            continue
        scope = index.resolve_scope(ticker=question.ticker, fiscal_year=question.fiscal_year)
        best = answerer.prepare(question.question, scope).best
        if best is not None:
            scores.setdefault(question.ticker, []).append(best)
    return scores


def write_golden_questions(corpus: Path) -> None:
    """Write the golden questions (``GOLDEN``) from the corpus's filings."""
    from edgar_rag_dev.eval.retrieval import parse_corpus  # noqa: PLC0415

    write_jsonl(GOLDEN, golden_questions(parse_corpus(corpus)))


def record_split(split: str, *, finish_partial: bool = False) -> None:
    """Answer the split with the settings' generator into ``data/golden/run-<split>.json``;
    ``finish_partial`` writes the run from the questions done so far, asking the model no more."""
    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415
    from edgar_rag.config import load_settings  # noqa: PLC0415

    settings = load_settings()
    out = Path(f"data/golden/run-{split}.json")
    partial = out.with_suffix(".partial.jsonl")
    with closing(open_index(settings)) as index:
        answerer = build_answerer(settings, index)
        golden = read_golden(GOLDEN)
        asked = golden
        if finish_partial:
            done = read_partial(partial, CaseRecord)
            asked = [q for q in golden if q.split == split and q.id in done]
        run = answer_split(answerer, index, golden, split, asked=asked, partial=partial)
    out.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    partial.unlink(missing_ok=True)  # else the next run would resume from these records


def answer_split(
    answerer: Answerer,
    index: Any,
    golden: Sequence[GoldenQuestion],
    split: str,
    *,
    asked: Sequence[GoldenQuestion] | None = None,
    partial: Path | None = None,
) -> dict[str, Any]:
    """The run of one split, as ``data/golden/run-<split>.json`` holds it: thresholds cross-fitted
    on every answerable golden question's best cosine, then one record per question of ``asked``
    (the whole golden set by default) that is in the split."""
    thresholds = cross_fit_thresholds(cosine_scores(answerer, index, golden))
    records = run_split(answerer, index, golden if asked is None else asked, split, partial)
    return {
        "split": split,
        "questions_in_split": sum(1 for q in golden if q.split == split),
        "generator": answerer.generator.name,
        "thresholds": thresholds,
        "records": [asdict(r) for r in records],
    }


@dataclass(frozen=True, slots=True)
class ThresholdFit:
    threshold: float
    admitted: int
    questions: int
    companies: int


def fit_cosine_threshold(
    answerer: Answerer, index: Any, golden: Sequence[GoldenQuestion], split: str = "dev"
) -> ThresholdFit:
    """The cosine gate threshold that admits 90% of the split's answerable questions."""
    from edgar_rag.answer.gates import fit_threshold  # noqa: PLC0415

    scores = cosine_scores(answerer, index, [q for q in golden if q.split == split])
    flat = [score for values in scores.values() for score in values]
    threshold = fit_threshold(flat, admit=0.9)
    return ThresholdFit(threshold, sum(s >= threshold for s in flat), len(flat), len(scores))
