"""The CI gate held to gold (issue 42): a question that must stay right or declined flipping
fails, whatever else improved; only accept writes a gate, listing what moved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgar_rag.config import Settings
from edgar_rag.model.tapes import NotRecorded
from edgar_rag_dev.eval import gate as gate_module
from edgar_rag_dev.eval.financebench import summary
from edgar_rag_dev.eval.gate import (
    Gate,
    GatedSet,
    Outcome,
    failures,
    financebench_outcomes,
    make_gate,
    moves,
    run_gate,
)

ACCEPTED = {
    "a1": Outcome("answerable", "answer", "correct"),
    "a2": Outcome("answerable", "answer", "declined"),
    "d1": Outcome("other_period", "decline", "declined"),
}


def test_one_right_answer_flipping_fails_though_another_improved() -> None:
    gate = make_gate("golden", "dev", ACCEPTED)
    assert (gate.must_stay_right, gate.must_stay_declined) == (["a1"], ["d1"])
    now = ACCEPTED | {
        "a1": Outcome("answerable", "answer", "wrong"),
        "a2": Outcome("answerable", "answer", "correct"),
    }
    assert failures(gate, now) == [
        "a1: must stay right, now wrong",
        "answerable: 1 wrong, at most 0 accepted",
    ]


def test_a_false_answer_fails_and_a_new_wrong_answer_crosses_the_floor() -> None:
    gate = make_gate("golden", "dev", ACCEPTED)
    now = ACCEPTED | {
        "d1": Outcome("other_period", "decline", "wrong"),
        "a2": Outcome("answerable", "answer", "wrong"),
    }
    assert failures(gate, now) == [
        "d1: must stay declined, now answered",
        "answerable: 1 wrong, at most 0 accepted",
        "other_period: 0 right, the floor is 1",
        "other_period: 1 wrong, at most 0 accepted",
    ]
    assert failures(gate, ACCEPTED) == []


def test_accept_lists_every_question_that_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gate_module, "GATES", tmp_path)
    scores = [ACCEPTED, ACCEPTED | {"a2": Outcome("answerable", "answer", "correct")}]
    sets = {"s": GatedSet("s", ("dev",), lambda split, settings: scores[0])}
    lines: list[str] = []
    assert run_gate("check", sets, Settings(), write=lines.append) == 1  # no gate yet
    assert run_gate("accept", sets, Settings(), write=lines.append) == 0
    assert run_gate("check", sets, Settings(), write=lines.append) == 0
    scores.pop(0)
    lines.clear()
    assert run_gate("accept", sets, Settings(), write=lines.append) == 0
    assert lines[0] == "moved s dev a2: answerable answer declined -> answerable answer correct\n"
    assert moves(None, ACCEPTED)[0] == "a1: (new) -> answerable answer correct"


def test_a_question_off_its_tape_fails_its_set_and_the_others_are_still_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gate_module, "GATES", tmp_path)

    def unrecorded(split: str, settings: Settings) -> dict[str, Outcome]:
        raise NotRecorded("narrative question n1 was not recorded")

    sets = {
        "taped": GatedSet("taped", ("dev",), unrecorded),
        "coded": GatedSet("coded", ("dev",), lambda split, settings: ACCEPTED),
    }
    run_gate("accept", {"coded": sets["coded"]}, Settings(), write=lambda line: None)
    lines: list[str] = []
    assert run_gate("check", sets, Settings(), write=lines.append) == 1
    assert lines[0].startswith("FAIL taped dev: narrative question n1 was not recorded")
    assert lines[-1].startswith("ok   coded dev:")
    with pytest.raises(NotRecorded):
        run_gate("accept", sets, Settings(), write=lines.append)


def test_the_financebench_gate_fails_when_a_gated_answer_gets_worse() -> None:
    """The committed report's rows hold the committed gate; one of its must-stay-right figures
    answered wrong, relabelled by the report's own rule, fails it."""
    root = Path(__file__).resolve().parents[1]
    rows = json.loads((root / "docs/financebench.json").read_text(encoding="utf-8"))["rows"]
    gate = Gate.model_validate_json(
        (root / "data/gates/financebench-all.json").read_text(encoding="utf-8")
    )
    assert failures(gate, financebench_outcomes(rows)) == []
    [capex] = [row for row in rows if row["id"] == "financebench_id_03029"]
    capex["answer"]["text"] = "3M's capital expenditures were $1,373 million in fiscal 2018 [1]."
    worse = financebench_outcomes(summary(rows, {})["rows"])
    assert worse["financebench_id_03029"].verdict == "wrong"
    assert any("financebench_id_03029" in failure for failure in failures(gate, worse))
