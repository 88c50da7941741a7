"""Questions as analysts ask them (``data/asks/``), through the whole answer path as ``edgar-rag
ask`` asks them, scored strictly against the gold computed by hand.

A question with an answer is correct only when the response states every gold figure in the
gold's unit and scale, to the precision the gold asks, with its sign (in the figure, in the
calculation, or in a word of fall: "fell 11.0%"); an answer stating other figures is wrong, a
decline is a decline. A question to decline is correct when declined (or refused as not
indexed), and a false answer when anything is answered. A prose question is wrong when code
answers it with a figure. Written to ``docs/asks.json`` and rendered as ``docs/asks.md``
(``make asks``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from edgar_rag.answer.numbers import Figure, find_figures
from edgar_rag.answer.verify import split_sentences
from edgar_rag.domain import Response, Scope
from edgar_rag.errors import NotFoundError
from edgar_rag.markdown import table
from edgar_rag_dev.eval.computed_answers import answering, outcome_share
from edgar_rag_dev.eval.sets import ASKS_SET

ASKS = Path("data/asks")
OUTCOMES = ("correct", "wrong", "declined")
"""For a question to decline, ``wrong`` is a false answer and ``declined`` cannot occur."""


class Gold(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    value: Decimal
    unit: Literal["percent", "points", "usd", "usd_per_share", "ratio", "days", "shares", "count"]
    scale: int
    decimals: int
    label: str | None = None


class AskedQuestion(BaseModel):
    """One line of ``data/asks/*.jsonl`` (its README names the fields)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    split: Literal["dev", "eval"]
    ticker: str
    filing_fiscal_year: int
    scope: Literal["filing", "corpus"]
    kind: str
    question: str
    expect: Literal["answer", "decline", "prose"]
    answers: tuple[Gold, ...] = ()
    formula: str | None = None
    evidence: str | list[str] | None = None
    why: str | None = None


def read_asks(folder: Path = ASKS) -> list[AskedQuestion]:
    """Every question of the folder's files, in file and line order (its tapes aside)."""
    questions = []
    for path in sorted(p for p in folder.glob("*.jsonl") if not p.name.startswith("tape")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    questions.append(AskedQuestion.model_validate_json(line))
                except ValueError as error:
                    raise ValueError(f"{path}:{number}: {error}") from error
    return questions


_FALL = re.compile(
    r"\b(?:fell|fall|falls|declined?|decreased?|dropped|drop|down|lower|shrank|contracted|"
    r"narrowed|deteriorated|loss|negative|reduced|reduction|less)\b",
    re.I,
)
_COUNTED = re.compile(r"^\s*(?:shares|employees|stores|units|holders|people|customers)\b", re.I)


def _is_money(sentence: str, figure: Figure) -> bool:
    """The figure is written as dollars: a ``$`` before it, or ``dollars`` / ``USD`` by it."""
    before = sentence[max(0, figure.start - 5) : figure.start]
    around = sentence[figure.start : figure.end + 20].lower()
    return "$" in before or "$" in figure.text or "dollar" in around or "usd" in around


_POINTS = re.compile(r"^\s*(?:percentage\s+)?points?\b|^\s*pp\b|^\s*bps?\b", re.I)


def states(text: str, gold: Gold) -> bool:
    """``text`` states the gold figure: in its unit (a percent for a percent, percentage points
    for points, dollars in a scale for dollars), to the gold's decimals or finer, with its
    sign written or said in a word of fall in the same sentence."""
    value = gold.value
    for sentence in split_sentences(text):
        falls = _FALL.search(sentence) is not None
        for figure in find_figures(sentence):
            if _matches(figure, sentence, value, gold, falls):
                return True
    return False


def _matches(figure: Figure, sentence: str, value: Decimal, gold: Gold, falls: bool) -> bool:
    signed = Decimal(str(figure.value))
    if signed != 0 and (signed < 0) != (value < 0) and not (value < 0 and falls):
        return False
    after = sentence[figure.end :]
    points = _POINTS.match(after) is not None
    if gold.unit == "points":
        if not (points or figure.is_percent) or figure.scale != 1:
            return False
    elif gold.unit == "percent":
        if not figure.is_percent or points:
            return False
    elif figure.is_percent:
        return False
    counted = _COUNTED.match(after)
    if gold.unit in ("usd", "usd_per_share") and (counted or not _is_money(sentence, figure)):
        return False  # "7,951 million shares" is no dollar amount
    if gold.unit == "usd":
        if figure.scale == 1 and gold.scale != 0:
            return False  # an amount with no scale word is not an amount in millions
        gold_dollars = abs(value) * Decimal(10) ** gold.scale
        place = Decimal(10) ** -figure.decimals_written * Decimal(str(figure.scale))
        return _close(abs(signed), gold_dollars, place, Decimal(10) ** gold.scale)
    if figure.decimals_written < min(gold.decimals, 1) or figure.scale != 1:
        return False
    written = Decimal(str(figure.raw))
    return abs(written - abs(value)) <= Decimal("0.5") * Decimal(10) ** -gold.decimals + Decimal(
        "1e-9"
    )


def _close(stated: Decimal, gold: Decimal, place: Decimal, gold_place: Decimal) -> bool:
    """Dollars stated within half their last written place of the gold, that place no coarser
    than the gold's own or a thousandth of the amount ("$416.2 billion" for 416,161 million,
    not "$0.4 trillion")."""
    if place > max(gold_place, gold / 1000):
        return False
    return abs(stated - gold) <= place / 2 + gold_place / 2


def outcome_of(question: AskedQuestion, response: Response | None) -> str:
    """``correct``, ``wrong`` or ``declined`` (None: the scope was refused as not indexed)."""
    declined = response is None or response.abstained
    if question.expect == "decline":
        return "correct" if declined else "wrong"
    if question.expect == "prose":
        by_code = response is not None and response.generator == "computed"
        return "wrong" if by_code and not declined else "correct"
    if declined or response is None:
        return "declined"
    text = _stated_text(response)
    if all(states(text, gold) for gold in question.answers):
        return "correct"
    if _PARTLY_DECLINED in (response.detail or "") and any(
        states(text, gold) for gold in question.answers
    ):
        return "declined"  # one company answered right, the other declined by name
    return "wrong"


_PARTLY_DECLINED = "Not answered for"
"""What a comparison's detail says of a company whose figure it could not answer."""


def _stated_text(response: Response) -> str:
    """The answer's text, and each computed result in words, as a reader reads them."""
    parts = [response.text or ""]
    for calculation in (response.calculation, *(response.comparison or ())):
        if calculation:
            parts.append(f"{calculation.get('text', '')}.")
    return " ".join(parts)


def ask_all(answerer: Any, index: Any, questions: Iterable[AskedQuestion]) -> list[dict[str, Any]]:
    """Each question asked as a user asks it (its filing's scope, or none), with its outcome."""
    results = []
    for question in questions:
        response: Response | None
        try:
            scope = (
                index.resolve_scope(ticker=question.ticker, fiscal_year=question.filing_fiscal_year)
                if question.scope == "filing"
                else Scope()
            )
        except NotFoundError:
            response = None  # the filing asked of is not indexed: the question is declined
        else:
            response = answerer.answer(question.question, scope)  # a tape's miss stops the run
        results.append(
            {
                "id": question.id,
                "split": question.split,
                "kind": question.kind,
                "expect": question.expect,
                "outcome": outcome_of(question, response),
                "reason": None if response is None else response.reason,
                "by": None if response is None else response.generator,
                "text": None if response is None else (response.text or response.detail),
            }
        )
    return results


def summarise(results: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Outcomes per split, per expectation and per kind, and every wrong or false answer."""
    groups: dict[str, dict[str, Counter[str]]] = {}
    for result in results:
        split = groups.setdefault(result["split"], {})
        for group in (result["expect"], f"{result['expect']}:{result['kind']}"):
            split.setdefault(group, Counter())[result["outcome"]] += 1
    return {
        "questions": len(results),
        "groups": {
            split: {g: {o: c[o] for o in OUTCOMES} for g, c in sorted(by.items())}
            for split, by in sorted(groups.items())
        },
        "wrong": [r for r in results if r["outcome"] == "wrong"],
        "results": list(results),
    }


def measure(index_path: Path, out: Path, settings: Any, *, model: bool) -> dict[str, Any]:
    """Every question through the answer path (with the configured model, or a stand-in that
    refuses), into ``out`` and its page beside it."""
    chosen = settings.model_copy(update={"db": index_path})
    with answering(chosen, model=model) as (answerer, index):
        report = summarise(ask_all(answerer, index, read_asks()))
    report["command"] = "edgar-rag dev eval asks" + ("" if model else " --no-model")
    report["model"] = getattr(answerer.generator, "name", "model") if model else "refuser"
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(report), encoding="utf-8")
    return report


def render(report: dict[str, Any]) -> str:
    """docs/asks.md from the report."""
    lines = [
        "# Questions as analysts ask them",
        "",
        f"Written by `{report['command']}` (model: {report['model']}) from the hand-written "
        "questions of `data/asks/` (their README says how they were written and the gold "
        "computed by hand; none is generated from the metric library). Strict scoring: a "
        "figure counts only in the gold's unit, scale, precision and sign. "
        + (
            "With the refusing stand-in every answer here was written by code; a question code "
            "leaves to the model counts as declined."
            if report["model"] == "refuser"
            else "Answers come from code or from the model, as the response's generator says."
        ),
        "",
        ASKS_SET.disclosure(),
        "",
    ]
    for split, groups in report["groups"].items():
        lines += [f"## {split}", ""]
        rows = []
        for group, counts in groups.items():
            expect = group.split(":", 1)[0]
            right = "declined" if expect == "decline" else "correct"
            bad = "answered" if expect == "decline" else "wrong"
            rows.append(
                [
                    group,
                    str(sum(counts.values())),
                    f"{right}: {outcome_share(counts, 'correct')}",
                    f"{bad}: {outcome_share(counts, 'wrong')}",
                    str(counts["declined"]) if expect == "answer" else "",
                ]
            )
        lines += table(["group", "questions", "right", "wrong or answered", "declined"], rows)
        lines += [""]
    lines += ["## Wrong figures and false answers", ""]
    wrong = report["wrong"]
    lines += [
        f"- `{r['id']}` ({r['split']}, {r['kind']}, by {r['by']}): {_short(r['text'])}"
        for r in wrong
    ] or ["None."]
    return "\n".join(lines) + "\n"


def _short(text: str | None, limit: int = 160) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
