"""The CI gate on answer quality (``make eval-ci``): a split replayed from its tape with the
current code, compared case by case with a committed baseline (``make eval-baseline``).

Replay is deterministic: retrieval runs for real over the same index (``build/corpus.db``, whose
BM25 statistics are corpus-wide, so it must be the index the tape was recorded on) and every
generation comes from the tape, so a case that changed did so because the code did. A prompt the
tape does not hold fails the replay, naming its question. A group (an arm and a kind of question)
fails on a net worsening of ``FAIL_AT`` or more cases: cases that got worse minus cases that got
better. The baseline records the tape and golden set it was replayed from; replaying another
tape or golden set against it fails until the baseline is written again.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from edgar_rag.config import Settings
from edgar_rag.errors import ConfigError, EdgarRagError
from edgar_rag.eval.answering import GOLDEN, answer_split
from edgar_rag.eval.golden import read_golden
from edgar_rag.eval.report import ARMS, UNANSWERABLE, arm_outcome

FAIL_AT = 3
"""A group fails when this many more cases got worse than got better."""
INDEX = Path("build/corpus.db")


class CaseOutcome(BaseModel):
    """What each arm showed for one question: enough to place it in every group."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: str
    correct: bool
    """An answer stating the gold figure, cited from a passage that prints it."""
    outcomes: dict[str, str]
    """Arm name -> ``answered`` or the reason it declined."""


class Baseline(BaseModel):
    """``data/golden/baseline-<split>.json``: the accepted outcome of every case of a split."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    split: str
    tape_sha256: str
    golden_sha256: str
    groups: dict[str, int]
    """Each group's count, for a reader; the comparison uses ``cases``."""
    cases: dict[str, CaseOutcome]


@dataclass(frozen=True, slots=True)
class GroupChange:
    """One group's count in the baseline and in the replay, with the cases that moved."""

    arm: str
    group: str
    before: int
    after: int
    worse: tuple[str, ...]
    better: tuple[str, ...]

    @property
    def net_worsening(self) -> int:
        return len(self.worse) - len(self.better)

    @property
    def failed(self) -> bool:
        return self.net_worsening >= FAIL_AT

    def line(self) -> str:
        """One line: the verdict, the group, its counts and the cases that got worse."""
        verdict = "FAIL" if self.failed else "ok"
        text = (
            f"{verdict:<4} {self.arm:<14} {self.group:<29} {self.before:>3} -> {self.after:<3} "
            f"net worsening {self.net_worsening:+d} ({len(self.worse)} worse, "
            f"{len(self.better)} better)"
        )
        if self.worse:
            text += ": worse " + ", ".join(self.worse)
        return text


def case_outcomes(run: Mapping[str, Any]) -> dict[str, CaseOutcome]:
    """Each record of a run, under every arm (the run's cross-fitted thresholds)."""
    thresholds = run["thresholds"]
    return {
        record["id"]: CaseOutcome(
            kind=record["kind"],
            correct=bool(record["correct"]),
            outcomes={
                arm: arm_outcome(record, arm, thresholds.get(record["ticker"])) for arm in ARMS
            },
        )
        for record in run["records"]
    }


def _groups_of(case: CaseOutcome, arm: str) -> dict[str, bool]:
    """Group name -> whether the case counts in it under this arm."""
    answered = case.outcomes[arm] == "answered"
    if case.kind in ("answerable", "prose", "figure"):
        return {
            f"{case.kind} correct": answered and case.correct,
            f"{case.kind} wrong answers": answered and not case.correct,
        }
    return {f"{case.kind} false answers": answered}


GROUPS = (
    "answerable correct",
    "answerable wrong answers",
    *(f"{kind} false answers" for kind in UNANSWERABLE),
    "prose correct",
    "prose wrong answers",
    "figure correct",
    "figure wrong answers",
    "decline false answers",
)
"""The golden set's groups, then the narrative set's (whose unanswerable kind is ``decline``)."""
_MORE_IS_BETTER = frozenset({"answerable correct", "prose correct", "figure correct"})


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """A question set eval-ci replays: its questions, and where its tapes and baselines lie."""

    name: Literal["golden", "narrative"]
    questions: Path

    def tape(self, split: str) -> Path:
        return self.questions.parent / f"tape-{split}.jsonl"

    def baseline(self, split: str) -> Path:
        return self.questions.parent / f"baseline-{split}.json"

    def answer(self, answerer: Any, index: Any, split: str) -> dict[str, Any]:
        if self.name == "golden":
            return answer_split(answerer, index, read_golden(self.questions), split)
        from edgar_rag.eval.narrative import answer_narrative, read_narrative  # noqa: PLC0415

        return answer_narrative(answerer, index, read_narrative(self.questions), split)


SETS = {
    "golden": QuestionSet("golden", GOLDEN),
    "narrative": QuestionSet("narrative", Path("data/narrative/questions.jsonl")),
}


def group_counts(cases: Mapping[str, CaseOutcome]) -> dict[str, int]:
    """``"<arm>: <group>"`` -> how many cases count in it."""
    counts = {f"{arm}: {group}": 0 for arm in ARMS for group in GROUPS}
    for case in cases.values():
        for arm in ARMS:
            for group, counted in _groups_of(case, arm).items():
                counts[f"{arm}: {group}"] += counted
    return counts


def compare(
    baseline: Mapping[str, CaseOutcome], replayed: Mapping[str, CaseOutcome]
) -> list[GroupChange]:
    """Every group of every arm, baseline against replay; both must hold the same questions."""
    if set(baseline) != set(replayed):
        only_base = sorted(set(baseline) - set(replayed))
        only_new = sorted(set(replayed) - set(baseline))
        raise ConfigError(
            f"the baseline and the replay hold different questions ({len(only_base)} only in the "
            f"baseline, e.g. {only_base[:3]}; {len(only_new)} only in the replay, e.g. "
            f"{only_new[:3]}); write the baseline again with `make eval-baseline`"
        )
    changes = []
    for arm in ARMS:
        for group in GROUPS:
            before, after, counted = 0, 0, False
            worse: list[str] = []
            better: list[str] = []
            for case_id in sorted(baseline):
                was = _groups_of(baseline[case_id], arm).get(group)
                now = _groups_of(replayed[case_id], arm).get(group)
                if was is None or now is None:
                    continue
                before, after, counted = before + was, after + now, True
                if was != now:
                    got_better = now if group in _MORE_IS_BETTER else was
                    (better if got_better else worse).append(case_id)
            if counted:  # a group of the other question set's kinds holds none of these
                changes.append(GroupChange(arm, group, before, after, tuple(worse), tuple(better)))
    return changes


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def replay(
    settings: Settings, split: str, questions: QuestionSet = SETS["golden"]
) -> dict[str, Any]:
    """The split answered again by the current code: retrieval over the settings' index,
    generations from their tape only (never a model)."""
    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415

    if settings.tape is None or not settings.tape.exists():
        raise ConfigError(f"no tape to replay at {settings.tape}; record one with `make answering`")
    replaying = settings.model_copy(update={"tape_mode": "replay", "database_url": None})
    with closing(open_index(replaying)) as index:
        answerer = build_answerer(replaying, index)
        return questions.answer(answerer, index, split)


def make_baseline(run: Mapping[str, Any], tape: Path, golden_path: Path = GOLDEN) -> Baseline:
    cases = case_outcomes(run)
    return Baseline(
        split=run["split"],
        tape_sha256=sha256_of(tape),
        golden_sha256=sha256_of(golden_path),
        groups=group_counts(cases),
        cases=cases,
    )


def ensure_comparable(baseline: Baseline, tape: Path, golden_path: Path = GOLDEN) -> None:
    """ConfigError when the baseline was replayed from another tape or golden set: its cases
    then say nothing about the code."""
    for what, path, recorded in (
        ("tape", tape, baseline.tape_sha256),
        ("golden set", golden_path, baseline.golden_sha256),
    ):
        if sha256_of(path) != recorded:
            raise ConfigError(
                f"the {what} {path} changed since the baseline was written; if the new one is "
                "intended, write the baseline again with `make eval-baseline` and commit it"
            )


def eval_ci(
    command: Literal["check", "baseline"],
    *,
    split: str,
    index: Path,
    tape: Path | None,
    baseline_path: Path | None,
    out: Path | None,
    questions: QuestionSet = SETS["golden"],
) -> int:
    """``check``: replay the split and compare it with its baseline, 1 when a group is worse;
    ``baseline``: replay it and write the baseline. 2, with one line on stderr, when the replay
    cannot run. ``tape``, ``baseline_path`` and ``out`` default to the split's own files of the
    question set."""
    from edgar_rag.config import load_settings  # noqa: PLC0415

    tape = tape or questions.tape(split)
    baseline_path = baseline_path or questions.baseline(split)
    out = out or Path(f"build/eval-ci/{questions.name}-run-{split}.json")
    try:
        if not index.exists():
            raise ConfigError(f"no index at {index}; build it with `make build/corpus.db`")
        baseline = None
        if command == "check":
            if not baseline_path.exists():
                raise ConfigError(f"no baseline at {baseline_path}; write it: make eval-baseline")
            baseline = Baseline.model_validate_json(baseline_path.read_text(encoding="utf-8"))
            ensure_comparable(baseline, tape, questions.questions)
        settings = load_settings().model_copy(update={"db": index, "tape": tape})
        run = replay(settings, split, questions)
    except EdgarRagError as error:
        sys.stderr.write(f"eval-ci: {error}\n")
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    if baseline is None:
        written = make_baseline(run, tape, questions.questions)
        baseline_path.write_text(written.model_dump_json(indent=1) + "\n", encoding="utf-8")
        sys.stdout.write(f"eval-ci: wrote {baseline_path} ({len(written.cases)} cases)\n")
        return 0
    changes = compare(baseline.cases, case_outcomes(run))
    for change in changes:
        sys.stdout.write(change.line() + "\n")
    failed = [c for c in changes if c.failed]
    sys.stdout.write(
        f"eval-ci: {questions.name} {split} split, {len(run['records'])} questions replayed "
        f"from {tape} against {baseline_path}: "
        + (
            f"{len(failed)} groups worse by {FAIL_AT} or more cases net\n"
            if failed
            else f"no group worse by {FAIL_AT} or more cases net\n"
        )
    )
    return 1 if failed else 0
