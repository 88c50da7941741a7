"""The CI gate held to gold (issue 42, ``make eval-ci``): every gated set is answered again (from
its tape, or in code where it needs no model) and scored against its gold, never against a run.

Each set scores every question of a split as an ``Outcome``: the group it counts in, whether its
gold is an answer or a decline, and what it got (``correct``, ``wrong`` or ``declined``). The
committed ``data/gates/<set>-<split>.json`` holds, per group, an absolute floor (the fewest right
and the most wrong answers accepted), the questions that must stay right (answered correctly)
and must stay declined, and every accepted outcome. ``check`` fails on any one of those flipping,
whatever else improved; so does a question whose prompt is no longer on its tape (the other
sets are still scored). Only ``accept``, a person's command, writes the file, and it prints
every question that moved; a changed tape changes nothing here: it is scored against gold
like any run.

A set is registered by one ``GatedSet`` in ``gated_sets()``: a name, its splits and a function
``(split, settings) -> {question id: Outcome}``. The hand-written asks set (``data/asks/``, its
runner ``eval/asks.py``) registers as ``GatedSet("asks", ("dev", "eval"), asks.score)``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from edgar_rag.config import Settings
from edgar_rag.model.tapes import NotRecorded
from edgar_rag_dev.eval.financebench_labels import gold_figure

GATES = Path("data/gates")
CORPUS = Path("../shared/corpus")
"""The shared corpus: FinanceBench's PDFs and questions lie under ``financebench/``."""
Verdict = Literal["correct", "wrong", "declined"]
_VERDICTS: dict[str, Verdict] = {"correct": "correct", "wrong": "wrong", "declined": "declined"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One question scored against its gold."""

    group: str
    expect: Literal["answer", "decline"]
    verdict: Verdict

    @property
    def right(self) -> bool:
        return self.verdict == ("correct" if self.expect == "answer" else "declined")

    @property
    def wrong(self) -> bool:
        """A wrong answer, or a false answer to a question that must be declined."""
        return self.verdict != "declined" and not self.right


Scorer = Callable[[str, Settings], dict[str, Outcome]]


@dataclass(frozen=True, slots=True)
class GatedSet:
    name: str
    splits: tuple[str, ...]
    score: Scorer


class Floor(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    questions: int
    right_at_least: int
    wrong_at_most: int


class Gate(BaseModel):
    """``data/gates/<set>-<split>.json``: what ``accept`` accepted, held by ``check``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    set: str
    split: str
    floors: dict[str, Floor]
    must_stay_right: list[str]
    must_stay_declined: list[str]
    outcomes: dict[str, str]
    """Question id -> ``group expect verdict``, to list what moved when accepted again."""


def gate_path(name: str, split: str) -> Path:
    return GATES / f"{name}-{split}.json"


def make_gate(name: str, split: str, scored: Mapping[str, Outcome]) -> Gate:
    floors = {}
    for group in sorted({o.group for o in scored.values()}):
        members = [o for o in scored.values() if o.group == group]
        floors[group] = Floor(
            questions=len(members),
            right_at_least=sum(o.right for o in members),
            wrong_at_most=sum(o.wrong for o in members),
        )
    right = sorted(i for i, o in scored.items() if o.right)
    return Gate(
        set=name,
        split=split,
        floors=floors,
        must_stay_right=[i for i in right if scored[i].expect == "answer"],
        must_stay_declined=[i for i in right if scored[i].expect == "decline"],
        outcomes={i: _describe(o) for i, o in sorted(scored.items())},
    )


def _describe(outcome: Outcome) -> str:
    return f"{outcome.group} {outcome.expect} {outcome.verdict}"


def failures(gate: Gate, scored: Mapping[str, Outcome]) -> list[str]:
    """One line per broken promise: a question flipped, a floor crossed, a question gone."""
    lines = [
        f"{i}: gated but not scored (the set changed?)" for i in gate.outcomes if i not in scored
    ]
    for i in gate.must_stay_right:
        if i in scored and not scored[i].right:
            lines.append(f"{i}: must stay right, now {scored[i].verdict}")
    for i in gate.must_stay_declined:
        if i in scored and not scored[i].right:
            lines.append(f"{i}: must stay declined, now answered")
    for group, floor in gate.floors.items():
        members = [o for o in scored.values() if o.group == group]
        right, wrong = sum(o.right for o in members), sum(o.wrong for o in members)
        if right < floor.right_at_least:
            lines.append(f"{group}: {right} right, the floor is {floor.right_at_least}")
        if wrong > floor.wrong_at_most:
            lines.append(f"{group}: {wrong} wrong, at most {floor.wrong_at_most} accepted")
    return lines


def moves(gate: Gate | None, scored: Mapping[str, Outcome]) -> list[str]:
    """Every question whose outcome differs from the accepted one (all of them when new)."""
    accepted = gate.outcomes if gate else {}
    now = {i: _describe(o) for i, o in scored.items()}
    return [
        f"{i}: {accepted.get(i, '(new)')} -> {now.get(i, '(gone)')}"
        for i in sorted(accepted.keys() | now.keys())
        if accepted.get(i) != now.get(i)
    ]


def run_gate(
    command: Literal["check", "accept"],
    sets: Mapping[str, GatedSet],
    settings: Settings,
    *,
    only: tuple[str, ...] = (),
    write: Callable[[str], object] = sys.stdout.write,
) -> int:
    """``check``: 1 when any gated set breaks its gate; ``accept``: write each gate, listing
    every question that moved. ``only`` names the sets (all by default)."""
    broken = 0
    for name, gated in sets.items():
        if only and name not in only:
            continue
        for split in gated.splits:
            path = gate_path(name, split)
            try:
                scored = gated.score(split, settings)
            except NotRecorded as exc:
                if command == "accept":
                    raise
                write(f"FAIL {name} {split}: {exc}; re-record its tape, then score it again\n")
                broken += 1
                continue
            gate = Gate.model_validate_json(path.read_text()) if path.exists() else None
            if command == "accept":
                for line in moves(gate, scored):
                    write(f"moved {name} {split} {line}\n")
                path.parent.mkdir(parents=True, exist_ok=True)
                written = make_gate(name, split, scored)
                path.write_text(written.model_dump_json(indent=1) + "\n", encoding="utf-8")
                write(f"gate: wrote {path} ({_summary(written)})\n")
                continue
            if gate is None:
                write(f"FAIL {name} {split}: no gate at {path}; accept one\n")
                broken += 1
                continue
            found = failures(gate, scored)
            for line in found:
                write(f"FAIL {name} {split} {line}\n")
            broken += bool(found)
            verdict = "FAIL" if found else "ok  "
            write(f"{verdict} {name} {split}: {_summary(make_gate(name, split, scored))}\n")
    return 1 if broken else 0


def _summary(gate: Gate) -> str:
    groups = ", ".join(
        f"{g} {f.right_at_least}/{f.questions} right {f.wrong_at_most} wrong"
        for g, f in gate.floors.items()
    )
    return (
        f"{len(gate.must_stay_right)} must stay right, {len(gate.must_stay_declined)} must stay "
        f"declined; {groups}"
    )


# -- the gated sets ------------------------------------------------------------------------------


def _verdict(answered: bool, correct: bool) -> Verdict:
    return "declined" if not answered else "correct" if correct else "wrong"


def _replayed(settings: Settings, name: str, split: str) -> dict[str, Any]:
    from edgar_rag_dev.eval.replay import SETS, replay  # noqa: PLC0415

    questions = SETS[name]
    return replay(settings.model_copy(update={"tape": questions.tape(split)}), split, questions)


def run_outcomes(run: Mapping[str, Any], gate: str) -> dict[str, Outcome]:
    """A golden or narrative run's records as the gate scores them, under the answer gate
    ``gate`` (the period gate declines before the model what it would)."""
    from edgar_rag_dev.eval.report import arm_outcome  # noqa: PLC0415

    thresholds = run["thresholds"]
    scored = {}
    for record in run["records"]:
        shown = arm_outcome(record, gate, thresholds.get(record["ticker"]))
        decline = record["kind"] not in ("answerable", "prose", "figure")
        scored[record["id"]] = Outcome(
            record["kind"],
            "decline" if decline else "answer",
            _verdict(shown == "answered", bool(record["correct"])),
        )
    return scored


def score_replayed(name: str) -> Scorer:
    """The golden or narrative set's split replayed from its tape, under the serving gate."""

    def score(split: str, settings: Settings) -> dict[str, Outcome]:
        return run_outcomes(_replayed(settings, name, split), settings.gate)

    return score


def score_computed(split: str, settings: Settings) -> dict[str, Outcome]:
    """The computed sets (derived and hand-written) through the answer path, no model."""
    from edgar_rag_dev.eval.computed import (  # noqa: PLC0415
        HANDWRITTEN,
        ComputedQuestion,
        HandQuestion,
        read_hand_questions,
    )
    from edgar_rag_dev.eval.computed_answers import (  # noqa: PLC0415
        QUESTIONS,
        answering,
        ask_all,
        outcome_of,
        read_computed,
    )

    chosen = settings.model_copy(update={"tape_mode": "off", "database_url": None})
    sets: dict[str, list[ComputedQuestion] | list[HandQuestion]] = {
        "derived": read_computed(QUESTIONS),
        "handwritten": read_hand_questions(Path(HANDWRITTEN)),
    }
    scored: dict[str, Outcome] = {}
    with answering(chosen) as (answerer, index):
        for group, questions in sets.items():
            asked = ask_all(answerer, index, [q for q in questions if q.split == split])
            for question, response, _ in asked:
                assert isinstance(question, ComputedQuestion | HandQuestion)
                verdict = _VERDICTS[outcome_of(question, response)]
                scored[question.id] = Outcome(group, "answer", verdict)
    return scored


def score_financebench(split: str, settings: Settings) -> dict[str, Outcome]:
    """FinanceBench's bare-figure questions whose filing is indexed, over its PDFs' own index,
    answered in code as the committed report's were: a question that reaches the model is
    declined by a stand-in that refuses, and counts as declined. Each is labelled by the
    report's strict rule (``eval.financebench_labels``); the prose questions, which the model
    answers, are not gated here. The first run indexes the PDFs into build/financebench.db
    (about 20 minutes on 2 cores); later runs find them there."""
    from edgar_rag_dev.eval.computed_answers import Refuser  # noqa: PLC0415
    from edgar_rag_dev.eval.financebench import DEFAULT_TAPE, run  # noqa: PLC0415

    db = Path("build/financebench.db")
    report = run(CORPUS, db, DEFAULT_TAPE, replay=True, settings=settings, generator=Refuser())
    return financebench_outcomes(report["rows"])


def financebench_outcomes(rows: Sequence[Mapping[str, Any]]) -> dict[str, Outcome]:
    """The gated FinanceBench rows (a bare-figure gold, its filing indexed) by their labels."""
    verdicts: dict[str, Verdict] = {
        "correct": "correct",
        "incorrect": "wrong",
        "declined": "declined",
    }
    return {
        row["id"]: Outcome(row["type"], "answer", verdicts[row["label"]["verdict"]])
        for row in rows
        if row["document"] == "indexed" and gold_figure(row["gold"]) is not None
    }


ASKS_TAPE = Path("data/asks/tape.jsonl")


def score_asks(split: str, settings: Settings) -> dict[str, Outcome]:
    """The analysts' hand-written questions (data/asks/) through the answer path, no model (a
    question code leaves to the model counts as declined), scored strictly by ``eval.asks``:
    each group a kind, a question to decline right only when declined."""
    return _asks_scored(split, settings.model_copy(update={"tape_mode": "off"}), model=False)


def score_asks_model(split: str, settings: Settings) -> dict[str, Outcome]:
    """The same questions with the model's generations replayed from their tape (``make
    asks-model`` records it): what a user of the default model gets."""
    update = {"tape": ASKS_TAPE, "tape_mode": "replay"}
    return _asks_scored(split, settings.model_copy(update=update), model=True)


def _asks_scored(split: str, settings: Settings, *, model: bool) -> dict[str, Outcome]:
    from edgar_rag_dev.eval.asks import ask_all, read_asks  # noqa: PLC0415
    from edgar_rag_dev.eval.computed_answers import answering  # noqa: PLC0415

    chosen = settings.model_copy(update={"database_url": None})
    questions = [q for q in read_asks() if q.split == split]
    with answering(chosen, model=model) as (answerer, index):
        results = ask_all(answerer, index, questions)
    scored: dict[str, Outcome] = {}
    for result in results:
        group = f"{result['expect']}:{result['kind']}"
        if result["expect"] == "decline":
            verdict: Verdict = "declined" if result["outcome"] == "correct" else "correct"
            scored[result["id"]] = Outcome(group, "decline", verdict)
        else:
            scored[result["id"]] = Outcome(group, "answer", _VERDICTS[result["outcome"]])
    return scored


def gated_sets() -> dict[str, GatedSet]:
    """Every set ``make eval-ci`` holds to its gate; register another here."""
    return {
        "golden": GatedSet("golden", ("dev", "eval"), score_replayed("golden")),
        "narrative": GatedSet("narrative", ("dev", "eval"), score_replayed("narrative")),
        "computed": GatedSet("computed", ("dev", "eval"), score_computed),
        "financebench": GatedSet("financebench", ("all",), score_financebench),
        "asks": GatedSet("asks", ("dev", "eval"), score_asks),
        "asks-model": GatedSet("asks-model", ("dev", "eval"), score_asks_model),
    }
