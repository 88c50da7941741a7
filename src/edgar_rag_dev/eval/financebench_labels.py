"""Each FinanceBench answer labelled as the paper labels it: correct, incorrect or declined
(issue 39), with how the label was decided.

- A decline (a typed reason) is declined.
- An answer to a question whose document is not indexed is incorrect: nothing it could cite
  is the document asked about.
- A gold that is a bare figure is decided by the strict rule (``eval.strict``).
- A prose gold is decided by a rule where code can: a gold opening with yes or no is
  contradicted by an answer opening with the other (incorrect); a gold's yes or no matched,
  with every figure the gold states stated too within its rounding and in its unit, is correct
  (a gold that is only ``Yes`` or ``No`` needs the yes or no alone). Otherwise a judgment decides:
  a person's verdict on the exact answer text, committed in ``data/financebench/judgments.jsonl``
  with the answer's SHA-256. A judgment of another text no longer applies: the question is
  ``unjudged``, never counted correct.

Pure but for ``read_judgments``.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from edgar_rag.answer.numbers import Figure, find_figures
from edgar_rag_dev.eval.strict import Gold, Unit, half_step_of, is_gold, stated_unit, states_gold

Verdict = Literal["correct", "incorrect", "declined", "unjudged"]
VERDICTS: tuple[Verdict, ...] = ("correct", "incorrect", "declined", "unjudged")
DEFAULT_JUDGMENTS = Path("data/financebench/judgments.jsonl")
RELATIVE_TOLERANCE = 0.01
"""FinanceBench's 1% on a figure, on top of the rounding an answer writes."""
_LETTER_OR_DIGIT = re.compile(r"[A-Za-z0-9]")
_YES_OR_NO = re.compile(r"^[\W_]*(yes|no)\b", re.IGNORECASE)
_QUESTION_SCALE = re.compile(r"\b(thousands|millions|billions)\b", re.IGNORECASE)
_SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_UNITS: dict[str, Unit] = {"percent": "percent", "usd": "usd", "usd_per_share": "usd_per_share"}


class Judgment(BaseModel):
    """One line of ``judgments.jsonl``: a person's verdict on one answer text."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    answer_sha256: str
    answer: str
    gold: str
    verdict: Literal["correct", "incorrect", "declined"]
    failure: str | None = None
    """What went wrong, for an incorrect answer (``wrong figure``, ``wrong period``, ...)."""
    why: str

    @model_validator(mode="after")
    def _an_incorrect_answer_says_what_went_wrong(self) -> Judgment:
        if (self.verdict == "incorrect") != bool(self.failure):
            raise ValueError(f"{self.id}: a failure is given exactly for an incorrect verdict")
        if answer_sha256(self.answer) != self.answer_sha256:
            raise ValueError(f"{self.id}: answer_sha256 is not the hash of the answer given")
        return self


@dataclass(frozen=True, slots=True)
class Label:
    verdict: Verdict
    how: str
    """``decline``, ``no document``, ``strict``, ``rule``, ``judgment``, ``stale judgment`` or
    ``no judgment``."""
    failure: str | None = None
    why: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "how": self.how, "failure": self.failure, "why": self.why}


def answer_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read_judgments(path: Path) -> dict[str, Judgment]:
    """The judgments by question id (none when the file is absent); one line a question."""
    if not path.is_file():
        return {}
    judgments: dict[str, Judgment] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            judgment = Judgment.model_validate_json(line)
            if judgment.id in judgments:
                raise ValueError(f"{path}: {judgment.id} is judged twice")
            judgments[judgment.id] = judgment
    return judgments


def question_scale(question: str) -> float | None:
    """The scale a question asks the answer in (``in USD millions`` is 1e6), if it names one."""
    match = _QUESTION_SCALE.search(question)
    return _SCALES[match.group(1).lower()] if match else None


def yes_or_no(text: str) -> str | None:
    """``yes`` or ``no`` when the text opens with one (``No, the company ...``)."""
    match = _YES_OR_NO.match(text)
    return match.group(1).lower() if match else None


def gold_figure(answer: str) -> Figure | None:
    """The figure a gold answer is, when it is nothing else (``$1577.00``, ``-3.7``, ``1.9%``)."""
    figures = find_figures(answer)
    if len(figures) != 1:
        return None
    rest = answer.replace(figures[0].text, "")
    return None if _LETTER_OR_DIGIT.search(rest) else figures[0]


def gold_of(gold: Figure, scale: float | None, text: str | None = None) -> Gold:
    """The strict rule's gold for a figure of a gold answer (``text``, the figure alone by
    default): in the unit its words give it (``$1577.00`` dollars, ``1.9%`` a percentage,
    ``$0.55 dividend per share`` dollars a share, ``0.96`` a plain number), read in the
    question's scale where it writes none and the question names one (``in USD millions``:
    ``$1577.00`` is 1,577 million), within 1% or its own rounding."""
    unit = _UNITS.get(stated_unit(gold, gold.text if text is None else text), "number")
    in_scale = scale if scale is not None and gold.scale == 1 and unit != "percent" else 1.0
    return Gold(
        gold.value * in_scale,
        unit,
        asked_scale=scale,
        half_step=half_step_of(gold, gold.scale * in_scale),
        relative_tolerance=RELATIVE_TOLERANCE,
    )


def matches(gold: Figure, scale: float | None, stated: Figure, text: str | None = None) -> bool:
    """``stated`` (a figure of ``text``) is ``gold`` under the strict rule
    (``edgar_rag_dev.eval.strict``), within 1% or the rounding it wrote, whichever is wider.

    A figure written without a scale is read in the question's (``1,577`` for a question asking
    in USD millions), never as a scale the question does not name (``1,577`` is not ``$1,577
    million``); a percentage matches only a percentage; the sign is the gold's (``-3.7`` is not
    ``3.7``, unless the sentence names the decrease)."""
    return is_gold(stated, stated.text if text is None else text, gold_of(gold, scale))


def prose_rule(gold: str, question: str, answer: str) -> Label | None:
    """The label code can decide for an answer to a prose gold, else None."""
    wanted, said = yes_or_no(gold), yes_or_no(answer)
    if wanted and said and wanted != said:
        return Label("incorrect", "rule", "yes/no contradicted", f"the gold says {wanted}")
    if wanted and said != wanted:
        return None
    figures = find_figures(gold)
    if wanted and not figures and re.fullmatch(r"\W*(yes|no)\W*", gold, re.IGNORECASE):
        return Label("correct", "rule", why=f"its {wanted} is the gold's")
    if not figures:
        return None
    scale = question_scale(question)
    missing = [f.text for f in figures if not states_gold(answer, gold_of(f, scale, gold))]
    if missing:
        return None
    stated = ", ".join(f.text for f in figures)
    opening = f"its {wanted} and " if wanted else ""
    return Label("correct", "rule", why=f"{opening}every figure of the gold stated ({stated})")


def label(row: Mapping[str, Any], judgments: Mapping[str, Judgment]) -> Label:
    """How ``row`` (a run's row: its answer, gold and document) is labelled."""
    answer = row["answer"]
    if answer["reason"] is not None:
        return Label("declined", "decline", why=answer["reason"])
    text: str = answer["text"] or ""
    if row["document"] != "indexed":
        why = "no filing of its document is indexed, so what the answer cites is another's"
        return Label("incorrect", "no document", "answered without its document", why)
    bare = gold_figure(row["gold"])
    if bare is not None:
        if states_gold(text, gold_of(bare, question_scale(row["question"]))):
            return Label("correct", "strict")
        failure = "figure not the gold" if find_figures(text) else "no figure stated"
        return Label("incorrect", "strict", failure)
    judgment = judgments.get(row["id"])
    if judgment is not None and judgment.answer_sha256 == answer_sha256(text):
        return Label(judgment.verdict, "judgment", judgment.failure, judgment.why)
    ruled = prose_rule(row["gold"], row["question"], text)
    if ruled is not None:
        return ruled
    how = "stale judgment" if judgment is not None else "no judgment"
    return Label("unjudged", how)


def tally(labels: Iterable[Label]) -> dict[str, int]:
    """Correct, incorrect, declined and unjudged counts, and ``n``."""
    counts = Counter(item.verdict for item in labels)
    return {"n": sum(counts.values()), **{verdict: counts[verdict] for verdict in VERDICTS}}


def tallies(
    rows: Sequence[Mapping[str, Any]], key: str, names: Sequence[str]
) -> dict[str, dict[str, int]]:
    """``tally`` per value of ``row[key]``, in the order of ``names`` (those present)."""
    return {
        name: tally(Label(**row["label"]) for row in rows if row[key] == name)
        for name in names
        if any(row[key] == name for row in rows)
    }


def labelled(
    rows: Sequence[Mapping[str, Any]], judgments: Mapping[str, Judgment]
) -> list[dict[str, Any]]:
    """The rows, each with its ``label``."""
    return [{**row, "label": label(row, judgments).as_json()} for row in rows]


def scores(
    rows: Sequence[Mapping[str, Any]], types: Sequence[str], kinds: Sequence[str]
) -> dict[str, Any]:
    """The counts the page reports, from labelled rows: over every question asked, over those
    whose document is in ``pdfs/`` (``covered``) and over those whose filing is indexed, per
    question type and document kind, declines by reason, and how each label was decided."""
    covered = [row for row in rows if row["document"] != "missing"]
    labels = [Label(**row["label"]) for row in rows]
    declines = Counter(
        row["answer"]["reason"] or "judged a decline"
        for row in rows
        if row["label"]["verdict"] == "declined"
    )
    return {
        "asked": tally(labels),
        "covered": tally(Label(**row["label"]) for row in covered),
        "indexed": tally(Label(**row["label"]) for row in rows if row["document"] == "indexed"),
        "by_type": tallies(rows, "type", types),
        "by_type_covered": tallies(covered, "type", types),
        "by_kind": tallies(rows, "kind", kinds),
        "by_kind_covered": tallies(covered, "kind", kinds),
        "by_document": tallies(rows, "document", ("indexed", "not_indexed", "missing")),
        "declined_by_reason": dict(sorted(declines.items())),
        "decided_by": {
            verdict: dict(sorted(Counter(x.how for x in labels if x.verdict == verdict).items()))
            for verdict in VERDICTS
        },
        "unjudged": sorted(row["id"] for row in rows if row["label"]["verdict"] == "unjudged"),
        "stale_judgments": sorted(
            row["id"] for row in rows if row["label"]["how"] == "stale judgment"
        ),
    }


def label_problems(report: Mapping[str, Any], judgments: Mapping[str, Judgment]) -> list[str]:
    """What ``make check`` says of a written report's labels: a row labelled otherwise than
    today's judgments label it (the judgments changed after the run), and every answer still
    unjudged, which counts as neither correct nor incorrect until a person judges it."""
    problems = []
    changed = [
        row["id"] for row in report["rows"] if label(row, judgments).as_json() != row["label"]
    ]
    if changed:
        problems.append(
            f"docs/financebench.json labels {len(changed)} answers otherwise than "
            f"{DEFAULT_JUDGMENTS} does ({', '.join(changed)}); rerun "
            "`edgar-rag eval financebench --replay`"
        )
    unjudged = report["scores"]["unjudged"]
    if unjudged:
        problems.append(
            f"docs/financebench.json has {len(unjudged)} unjudged answers ({', '.join(unjudged)}):"
            f" judge each in {DEFAULT_JUDGMENTS}, then rerun `edgar-rag eval financebench --replay`"
        )
    return problems


def write_judgment(path: Path, judgment: Judgment) -> None:
    """Put ``judgment`` in the judgments file, replacing any earlier one of its question; the
    lines stay sorted by id, so a changed verdict is a one-line diff."""
    judgments = {**read_judgments(path), judgment.id: judgment}
    lines = [judgments[key].model_dump_json() for key in sorted(judgments)]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
