"""The narrative answer evaluation's runner on the sample filings, with a scripted model: what
counts as correct, what as a false answer, and a tape that replays the run."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from edgar_rag.answer.answerer import Answerer, AnswerSettings
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Generator, Prompt
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.tapes import TapeGenerator
from edgar_rag.retrieve.search import Searcher
from edgar_rag_dev.eval.narrative import (
    NarrativeQuestion,
    answer_narrative,
    arm_name,
    prints_figure,
    render_narrative,
    run_narrative,
    states_figure,
    states_phrase,
)
from fakes import Reply, ScriptedGenerator, marker_of


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("narrative") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def _answerer(
    index: SqliteIndex, generator: Generator, settings: AnswerSettings | None = None
) -> Answerer:
    return Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=generator,
        draw_token=lambda request: draw_refusal_token(b"test", request),
        settings=settings or AnswerSettings(),
    )


def _question(id: str, **fields: Any) -> NarrativeQuestion:
    base: dict[str, Any] = {
        "id": id, "ticker": "AAPL", "fiscal_year": 2025, "split": "dev", "scope": "filing",
        "expect": "answer", "topic": "people", "figure": None, "unit": None, "why": None,
        "absent": (),
    }  # fmt: skip
    return NarrativeQuestion.model_validate(base | fields)


HEADCOUNT = "the Company had approximately 166,000 full-time equivalent employees"
CYBER = "led by its Head of Corporate Information Security"
QUESTIONS = (
    _question(
        "n01", question="How many full-time equivalent employees did Apple have in fiscal 2025?",
        item="Item 1", phrase=HEADCOUNT, figure="166,000", unit="full-time equivalent employees",
    ),
    _question(
        "n02", question="Who runs cybersecurity risk management at Apple?", topic="cyber",
        item="Item 1C", phrase=CYBER,
    ),
    _question(
        "n03", question="How much Bitcoin does Apple hold on its balance sheet?", topic="capital",
        expect="decline", item=None, phrase=None, why="never mentioned", absent=("bitcoin",),
    ),
    _question(
        "n04", question="What was Apple's headcount at the end of fiscal 2025?",
        item="Item 1", phrase=HEADCOUNT, figure="166,000", unit="full-time equivalent employees",
    ),
    _question(
        "n05", question="Who leads cybersecurity risk management at Apple?", topic="cyber",
        fiscal_year=2024, scope="corpus", item="Item 1C", phrase=CYBER,
    ),
)  # fmt: skip


def _replies() -> list[Reply]:
    def cite(needle: str, sentence: str) -> Reply:
        return lambda prompt: sentence.format(marker=marker_of(prompt, needle))

    def refuse(prompt: Prompt) -> str:
        return prompt.refusal_token

    return [
        cite("166,000", "Apple had about 166,000 full-time equivalent employees [{marker}]."),
        cite(CYBER, "Apple's cybersecurity program is led by its Head of Corporate Information "
             "Security [{marker}]."),
        refuse,
        refuse,  # n04, a prose question, is asked again; its passages print no headcount:
        "Apple had approximately 166,000 employees [1].",
        cite(CYBER, "Apple's Head of Corporate Information Security leads it [{marker}]."),
    ]  # fmt: skip


def _refusals(count: int) -> list[Reply]:
    return [lambda prompt: prompt.refusal_token] * count


def test_an_answer_is_correct_when_it_cites_the_phrase_and_states_the_figure(
    index: SqliteIndex,
) -> None:
    records = run_narrative(
        _answerer(index, ScriptedGenerator(_replies())), index, QUESTIONS, "dev"
    )
    by_id = {record.id: record for record in records}
    assert by_id["n01"].outcome == "answered", by_id["n01"].text
    assert (by_id["n01"].cites_phrase, by_id["n01"].states_figure, by_id["n01"].correct) == (
        True, True, True,
    )  # fmt: skip
    assert by_id["n02"].correct, by_id["n02"]
    assert (by_id["n03"].kind, by_id["n03"].outcome) == ("decline", "model_declined")
    assert (by_id["n04"].outcome, by_id["n04"].correct) == ("model_declined", False)
    assert [r.id for r in records if r.second_look] == ["n04"]  # a figure lookup's "no" stands
    assert all(record.phrase_in_prompt for record in (by_id["n01"], by_id["n02"]))
    assert (by_id["n05"].scope, by_id["n05"].correct) == ("corpus", True), by_id["n05"]


def test_a_corpus_wide_answer_citing_another_filing_is_not_correct(index: SqliteIndex) -> None:
    # Asked of the whole corpus, the passage found is the fiscal 2024 filing's: the same words,
    # but not the filing the question expects.
    expects_2025 = QUESTIONS[-1].model_copy(update={"fiscal_year": 2025})
    model = ScriptedGenerator(_replies()[-1:])
    [record] = run_narrative(_answerer(index, model), index, [expects_2025], "dev")
    assert (record.outcome, record.cites_phrase, record.correct) == ("answered", False, False)


def test_a_question_of_the_other_split_is_not_asked(index: SqliteIndex) -> None:
    model = ScriptedGenerator([])
    assert run_narrative(_answerer(index, model), index, QUESTIONS, "eval") == []
    assert model.prompts == []


def test_a_figure_is_stated_as_printed_or_as_one_it_supports() -> None:
    assert states_figure("Apple had about 166,000 employees.", "166,000")
    assert states_figure("Walmart employs about 2.1 million associates.", "2.1 million")
    assert states_figure("Customer A was 13% of revenue.", "13%")
    assert not states_figure("Apple had about 164,000 employees.", "166,000")


def test_a_figure_is_stated_with_its_unit_precision_and_kind() -> None:
    unit = "full-time equivalent employees"
    assert states_figure("Apple had about 166,000 employees [1].", "166,000", unit)
    assert not states_figure("Apple had 166,000 [1].", "166,000", unit)  # counts nothing
    assert not states_figure("Walmart employs 2 million associates.", "2.1 million")
    assert not states_figure("Customer A was 13 of revenue.", "13%")
    assert not states_figure("Revenue grew 166,000% [1].", "166,000")


def test_an_answer_states_the_phrase_in_its_own_words_or_a_listed_equivalent() -> None:
    headquarters = _question(
        "n01", item="Item 2", topic="property", question="Where is Apple's headquarters?",
        phrase="We own and lease our corporate headquarters in Cupertino, California",
    )  # fmt: skip
    assert states_phrase("Its headquarters are located in Cupertino, California [1].", headquarters)
    sourcing = _question(
        "n02", item="Item 1A", topic="supply", question="Does Apple depend on one supplier?",
        phrase="relies on a single source for certain components",
    )  # fmt: skip
    assert not states_phrase("Apple buys parts from many suppliers [1].", sourcing)
    listed = sourcing.model_copy(update={"equivalents": ("buys parts from many suppliers",)})
    assert states_phrase("Apple buys parts from many suppliers [1].", listed)


def test_a_cited_row_prints_the_figure_in_its_scale() -> None:
    row = "Dividends paid | Jan 26, 2025: (834) | Jan 28, 2024: (395) | (in millions)"
    assert prints_figure(row, "$834 million")
    assert not prints_figure(row, "$834 billion")
    assert prints_figure("We had approximately 29,600 employees.", "29,600")


def test_a_recorded_tape_replays_the_same_run_with_no_model(
    index: SqliteIndex, tmp_path: Path
) -> None:
    tape = tmp_path / "tape-dev.jsonl"
    # A stopped clock: a replayed record tells a replay by the recording's seconds, which a
    # scripted reply on a busy machine could make more than nothing.
    recording = TapeGenerator(ScriptedGenerator(_replies()), tape, "record", clock=lambda: 0.0)
    recorded = answer_narrative(_answerer(index, recording), index, QUESTIONS, "dev")
    replaying = TapeGenerator(None, tape, "replay")
    replayed = answer_narrative(_answerer(index, replaying), index, QUESTIONS, "dev")

    def scored(run: dict[str, Any]) -> list[tuple[str, str, bool]]:
        return [(r["id"], r["outcome"], r["correct"]) for r in run["records"]]

    assert scored(replayed) == scored(recorded)
    assert all(r["replayed"] for r in replayed["records"])
    page = render_narrative([recorded, replayed | {"split": "eval"}])
    assert "## dev split: 5 of 5 questions" in page
    assert "## Dev/eval gap (arm none)" in page
    assert "| cyber | 2 | 2/2 = 100.0%" in page


def test_a_narrower_window_is_an_arm_of_the_page_and_can_cut_the_phrase_out_of_view(
    index: SqliteIndex,
) -> None:
    default = answer_narrative(
        _answerer(index, ScriptedGenerator(_replies())), index, QUESTIONS, "dev"
    )
    refusing = ScriptedGenerator(_refusals(2 * len(QUESTIONS)))  # each may be asked again
    narrow = answer_narrative(
        _answerer(index, refusing, AnswerSettings(narrative_passage_chars=40)),
        index,
        QUESTIONS,
        "dev",
    )
    assert (default["passage_chars"], narrow["passage_chars"]) == (
        AnswerSettings().narrative_passage_chars,
        40,
    )
    in_view = [sum(r["phrase_in_prompt"] for r in run["records"]) for run in (default, narrow)]
    assert in_view[1] == 0 < in_view[0]  # no phrase fits in 40 characters
    refusing = ScriptedGenerator(_refusals(2 * len(QUESTIONS)))  # each may be asked again
    fewer = answer_narrative(
        _answerer(index, refusing, AnswerSettings(narrative_passages=1)), index, QUESTIONS, "dev"
    )
    assert (default["passages"], fewer["passages"]) == (AnswerSettings().narrative_passages, 1)
    page = render_narrative([default], [narrow, fewer])
    assert "## Passage window" in page
    chosen = AnswerSettings()
    assert (
        f"| dev | {chosen.narrative_passages} x {chosen.narrative_passage_chars} (default) "
        "| 3/4 = 75.0%"
    ) in page
    assert f"| dev | {chosen.narrative_passages} x 40 | 0/4 = 0.0%" in page
    assert f"| dev | 1 x {chosen.narrative_passage_chars} | 0/4 = 0.0%" in page
    other_split = {**default, "split": "eval"}
    assert (
        "| eval |"
        not in render_narrative([default, other_split], [narrow]).split("## Passage window")[1]
    )  # a split answered with no other window has no row there


def test_an_arm_is_named_by_what_it_changes() -> None:
    assert arm_name(None, None) is None
    assert arm_name(500, None) == "window-500"
    assert arm_name(None, 5) == "passages-5"
    assert arm_name(500, 5) == "passages-5-window-500"


def test_an_interrupted_run_resumes_from_its_partial_file(
    index: SqliteIndex, tmp_path: Path
) -> None:
    partial = tmp_path / "run-dev.partial.jsonl"
    first = run_narrative(
        _answerer(index, ScriptedGenerator(_replies()[:2])), index, QUESTIONS[:2], "dev", partial
    )
    model = ScriptedGenerator(_replies()[2:])
    again = run_narrative(_answerer(index, model), index, QUESTIONS, "dev", partial)
    assert [asdict(r) for r in again[:2]] == [asdict(r) for r in first]
    assert len(model.prompts) == len(QUESTIONS) - 2 + 1  # n04 is asked again
    assert len(partial.read_text(encoding="utf-8").splitlines()) == len(QUESTIONS)
    assert json.loads(partial.read_text(encoding="utf-8").splitlines()[0])["id"] == "n01"


def test_a_figure_answer_citing_another_passage_that_prints_the_figure_is_correct(
    index: SqliteIndex,
) -> None:
    """A filing states a count in more than one place: the answer is correct when a passage it
    cites prints the figure, whether or not that passage holds the set's phrase."""
    elsewhere = QUESTIONS[0].model_copy(
        update={"phrase": "Apple counted 166,000 people on its staff that year"}
    )
    model = ScriptedGenerator(_replies()[:1])
    [record] = run_narrative(_answerer(index, model), index, [elsewhere], "dev")
    assert (record.outcome, record.cites_phrase, record.correct) == ("answered", True, True)
