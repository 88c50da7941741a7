"""Each evaluation page says what its set measures and what of it was looked at while tuning,
and the README's figures block ends with every set's row (issue 42)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from edgar_rag_dev.eval.sets import (
    ASKS_SET,
    DERIVED_SET,
    FINANCEBENCH_SET,
    GOLDEN_SET,
    HANDWRITTEN_SET,
    MOVED_TO_DEV,
    NARRATIVE_SET,
    SETS,
    EvalSet,
)

ROOT = Path(__file__).resolve().parents[1]
PAGES: dict[str, tuple[EvalSet, ...]] = {
    "docs/eval/report.md": (GOLDEN_SET,),
    "docs/computed.md": (DERIVED_SET, HANDWRITTEN_SET),
    "docs/asks.md": (ASKS_SET,),
    "docs/asks-model.md": (ASKS_SET,),
    "docs/narrative.md": (NARRATIVE_SET,),
    "docs/financebench.md": (FINANCEBENCH_SET,),
}


@pytest.mark.parametrize("page", sorted(PAGES))
def test_each_page_states_its_sets(page: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    for evaluation in PAGES[page]:
        assert evaluation.disclosure() in text, (page, evaluation.name)


def test_the_readme_names_every_set_and_what_was_tuned_on() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for evaluation in SETS:
        assert f"| {evaluation.name} | {evaluation.questions} |" in readme, evaluation.name
        assert evaluation.tuned in readme, evaluation.name


def test_the_moved_questions_are_dev_and_their_generations_went_with_them() -> None:
    narrative = ROOT / "data" / "narrative"
    rows = [json.loads(line) for line in (narrative / "questions.jsonl").open(encoding="utf-8")]
    moved = {row["question"] for row in rows if row["id"] in MOVED_TO_DEV}
    assert {row["split"] for row in rows if row["id"] in MOVED_TO_DEV} == {"dev"}
    assert len(moved) == len(MOVED_TO_DEV)
    for line in (narrative / "tape-eval.jsonl").open(encoding="utf-8"):
        content = " ".join(message["content"] for message in json.loads(line)["messages"])
        assert not any(question in content for question in moved)
