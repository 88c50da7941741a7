"""The taped question sets (golden, narrative) answered again by the current code: retrieval runs
for real over the index their tapes were recorded on (``build/corpus.db``, whose BM25 statistics
span the corpus), every generation comes from the tape, so a case that changed did so because the
code did. A prompt the tape does not hold fails the replay, naming its question (``tapes``)."""

from __future__ import annotations

from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from edgar_rag.config import Settings
from edgar_rag.errors import ConfigError
from edgar_rag_dev.eval.answering import GOLDEN, answer_split
from edgar_rag_dev.eval.golden import read_golden


@dataclass(frozen=True, slots=True)
class QuestionSet:
    """A taped question set: its questions, and where each split's tape lies beside them."""

    name: Literal["golden", "narrative"]
    questions: Path

    def tape(self, split: str) -> Path:
        return self.questions.parent / f"tape-{split}.jsonl"

    def answer(self, answerer: Any, index: Any, split: str) -> dict[str, Any]:
        if self.name == "golden":
            return answer_split(answerer, index, read_golden(self.questions), split)
        from edgar_rag_dev.eval.narrative import answer_narrative, read_narrative  # noqa: PLC0415

        return answer_narrative(answerer, index, read_narrative(self.questions), split)


SETS = {
    "golden": QuestionSet("golden", GOLDEN),
    "narrative": QuestionSet("narrative", Path("data/narrative/questions.jsonl")),
}


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
