"""The computed questions asked through the whole answer path, as ``edgar-rag ask`` asks them:
retrieval, the company guard, the figures planned, resolved and computed in code, the check of
the cited operands. The model is never consulted: a question that reaches it is declined by a
stand-in that refuses, and counts as declined.

A derived question is correct when the response's calculation is its gold (the same result,
unit and fiscal year); a hand-written one when it is its hand-computed gold, or, where the filing
does not report an operand, when it declines ``missing_figure``. Written to
``docs/computed.json`` and rendered as ``docs/computed.md`` (``make computed``).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from edgar_rag.domain import Generation, Prompt, Reason, Response
from edgar_rag.markdown import share, table
from edgar_rag_dev.eval.computed import HANDWRITTEN, ComputedQuestion, HandQuestion, ScopedQuestion
from edgar_rag_dev.eval.sets import DERIVED_SET, HANDWRITTEN_SET
from edgar_rag_dev.eval.stats import wilson

QUESTIONS = Path("data/computed/questions.jsonl")
OUTCOMES = ("correct", "wrong", "declined")
PROCESS_QUESTIONS = 12
"""Derived questions also asked as a user asks them, each ``edgar-rag ask`` a new process."""
BELOW = 0.7
"""A metric kind answered correctly less often than this is named with its failures."""


class Refuser:
    """Stands in for the model: answers every prompt with its refusal token."""

    name = "refuser"

    def generate(self, prompt: Prompt) -> Generation:
        return Generation(text=prompt.refusal_token, model=self.name)


@contextmanager
def answering(settings: Any, *, model: bool = False) -> Iterator[tuple[Any, Any]]:
    """The answer path over the settings' index, as ``edgar-rag ask`` builds it, and the index;
    unless ``model``, a stand-in that refuses takes the model's place, so only what code
    answers is answered."""
    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415

    with closing(open_index(settings)) as index:
        answerer = build_answerer(settings, index)
        if not model:
            answerer.generator = Refuser()
        yield answerer, index


def read_computed(path: Path) -> list[ComputedQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [ComputedQuestion.model_validate_json(line) for line in lines if line.strip()]


def outcome_of(question: ComputedQuestion | HandQuestion, response: Response) -> str:
    """``correct``, ``wrong`` (a figure other than the gold, or one where none is reported) or
    ``declined``."""
    if response.reason is not None:
        expected = isinstance(question, HandQuestion) and question.expect == "missing_figure"
        return "correct" if expected and response.reason is Reason.MISSING_FIGURE else "declined"
    if isinstance(question, HandQuestion) and question.expect == "missing_figure":
        return "wrong"
    calculation = response.calculation or {}
    result = str(calculation.get("result", ""))
    try:
        same = Decimal(result) == Decimal(str(question.value))
    except InvalidOperation:
        return "wrong"
    right = (
        same
        and calculation.get("unit") == question.unit
        and calculation.get("scale") == question.scale
        and calculation.get("fiscal_year") == question.fiscal_year
    )
    return "correct" if right else "wrong"


def ask_all(
    answerer: Any, index: Any, questions: Sequence[ScopedQuestion]
) -> list[tuple[ScopedQuestion, Response, float]]:
    """Each question asked of its filing, with the milliseconds the answer took."""
    asked = []
    for question in questions:
        scope = index.resolve_scope(ticker=question.ticker, fiscal_year=question.filing_fiscal_year)
        started = time.perf_counter()
        response = answerer.answer(question.question, scope)
        asked.append((question, response, (time.perf_counter() - started) * 1000))
    return asked


def summarise(asked: Sequence[tuple[ScopedQuestion, Response, float]]) -> dict[str, Any]:
    """Outcomes per split and per metric kind, the failures, and the latency."""
    by_split: dict[str, Counter[str]] = {}
    by_metric: dict[str, Counter[str]] = {}
    failures = []
    for question, response, _ in asked:
        assert isinstance(question, ComputedQuestion | HandQuestion)
        outcome = outcome_of(question, response)
        by_split.setdefault(question.split, Counter())[outcome] += 1
        metric = question.metric if isinstance(question, ComputedQuestion) else "handwritten"
        by_metric.setdefault(metric, Counter())[outcome] += 1
        if outcome != "correct":
            failures.append(
                {
                    "id": question.id,
                    "metric": metric,
                    "outcome": outcome,
                    "why": response.detail if response.reason else response.text,
                }
            )
    millis = sorted(ms for _, _, ms in asked)
    return {
        "questions": len(asked),
        "by_split": {s: {o: c[o] for o in OUTCOMES} for s, c in sorted(by_split.items())},
        "by_metric": {m: {o: c[o] for o in OUTCOMES} for m, c in sorted(by_metric.items())},
        "latency_ms": {
            "p50": round(statistics.median(millis), 1) if millis else 0.0,
            "p95": round(millis[int(0.95 * (len(millis) - 1))], 1) if millis else 0.0,
        },
        "failures": failures,
    }


def process_latency(
    index_path: Path, model_dir: Path, questions: Sequence[ComputedQuestion]
) -> dict[str, float]:
    """``edgar-rag ask`` run from the shell for the first eval-split questions: each a new
    process (imports, the index opened, the embedder loaded), as a user meets it. The echo
    generator stands in, so no question can start the local model."""
    command = [str(Path(sys.executable).parent / "edgar-rag"), "ask"]
    environment = {k: v for k, v in os.environ.items() if not k.startswith("EDGAR_RAG_")}
    environment |= {
        "EDGAR_RAG_DB": str(index_path),
        "EDGAR_RAG_MODEL_DIR": str(model_dir),
        "EDGAR_RAG_GENERATOR": "echo",
    }
    millis = []
    for question in [q for q in questions if q.split == "eval"][:PROCESS_QUESTIONS]:
        asked = [question.question, "--ticker", question.ticker]
        asked += ["--year", str(question.filing_fiscal_year), "--json"]
        started = time.perf_counter()
        subprocess.run([*command, *asked], env=environment, capture_output=True, check=True)
        millis.append((time.perf_counter() - started) * 1000)
    millis.sort()
    return {
        "questions": len(millis),
        "p50": round(statistics.median(millis), 1) if millis else 0.0,
        "max": round(millis[-1], 1) if millis else 0.0,
    }


def measure(index_path: Path, out: Path, settings: Any) -> dict[str, Any]:
    """Both sets through the answer path, into ``out`` (and its page beside it)."""
    from edgar_rag_dev.eval.computed import read_hand_questions  # noqa: PLC0415

    chosen = settings.model_copy(update={"db": index_path, "tape_mode": "off"})
    questions = read_computed(QUESTIONS)
    with answering(chosen) as (answerer, index):
        derived = summarise(ask_all(answerer, index, questions))
        hand = summarise(ask_all(answerer, index, read_hand_questions(Path(HANDWRITTEN))))
    derived["process_ms"] = process_latency(index_path, settings.model_dir, questions)
    report = {
        "command": "edgar-rag dev eval computed",
        "index": str(index_path),
        "derived": derived,
        "handwritten": hand,
    }
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(report), encoding="utf-8")
    return report


def outcome_share(counts: dict[str, int], outcome: str) -> str:
    """``85/90 = 94.4% [87.6%, 97.6%]``: the count, its share and its 95% Wilson interval."""
    total = sum(counts.values())
    bounds = wilson(counts[outcome], total)
    rate = counts[outcome] / total if total else None
    return share(counts[outcome], total, rate, (bounds.low, bounds.high))


def render(report: dict[str, Any]) -> str:
    derived, hand = report["derived"], report["handwritten"]
    lines = [
        "# Computed answers",
        "",
        f"Written by `{report['command']}` (`make computed`) from `docs/computed.json`: each "
        "question asked through the whole answer path (retrieval, the company guard, the figures "
        "planned, resolved and computed in code, the check of the cited operands), with no model.",
        "",
        DERIVED_SET.disclosure(),
        "",
        HANDWRITTEN_SET.disclosure(),
        "",
        f"- {derived['questions']} derived questions (`data/computed/questions.jsonl`), generated "
        "by `edgar-rag dev eval computed --generate` from the corpus's XBRL facts; their gold is "
        "the calculator's, so they test reading the question and finding the figures, not the "
        "arithmetic's definitions.",
        f"- {hand['questions']} hand-written questions (`data/computed/handwritten.jsonl`), their "
        "gold computed by hand from the statements.",
        "",
        "## Outcomes",
        "",
        *table(
            ["set", "split", "correct", "wrong", "declined"],
            [
                [
                    name,
                    split,
                    outcome_share(c, "correct"),
                    outcome_share(c, "wrong"),
                    outcome_share(c, "declined"),
                ]
                for name, data in (("derived", derived), ("hand-written", hand))
                for split, c in data["by_split"].items()
            ],
            align="llrrr",
        ),
        "",
        f"Answer latency, derived questions, the whole answer path inside one running process: "
        f"P50 {derived['latency_ms']['p50']} ms, P95 {derived['latency_ms']['p95']} ms. As a "
        f"user meets it, `edgar-rag ask` as a new process from the shell (imports, index and "
        f"embedder loaded each time), {derived['process_ms']['questions']} eval-split questions: "
        f"P50 {derived['process_ms']['p50'] / 1000:.2f} s, slowest "
        f"{derived['process_ms']['max'] / 1000:.2f} s.",
        "",
        "## Per metric kind (derived, both splits)",
        "",
        *table(
            ["metric", "correct", "wrong", "declined"],
            [
                [m, outcome_share(c, "correct"), str(c["wrong"]), str(c["declined"])]
                for m, c in derived["by_metric"].items()
            ],
            align="lrrr",
        ),
        "",
    ]
    weak = [
        m
        for m, c in derived["by_metric"].items()
        if sum(c.values()) and c["correct"] / sum(c.values()) < BELOW
    ]
    lines += [f"## Kinds below {BELOW:.0%}", ""]
    if not weak:
        lines += ["None.", ""]
    for metric in weak:
        lines.append(f"- {metric}:")
        lines += [
            f"  - {f['id']} ({f['outcome']}): {f['why']}"
            for f in derived["failures"]
            if f["metric"] == metric
        ]
    if weak:
        lines.append("")
    lines += ["## Failures of the hand-written set", ""]
    lines += [f"- {f['id']} ({f['outcome']}): {f['why']}" for f in hand["failures"]] or ["None."]
    return "\n".join([*lines, ""])
