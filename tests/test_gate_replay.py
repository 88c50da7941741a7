"""The CI gate on answer quality (``make eval-ci``) holds a replayed set to its gold: a one-line
regression the unit tests pass breaks answers that must stay right, and a prompt the tape does not
hold fails the replay, naming its question."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest

import edgar_rag.answer.answerer as answerer_module
from edgar_rag.answer.prose_dates import event_day
from edgar_rag.compose import build_answerer, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import FilingMeta, Generation, Prompt
from edgar_rag.errors import EdgarRagError
from edgar_rag.model.tapes import TapeGenerator
from edgar_rag.rules import fiscal_year_containing
from edgar_rag_dev.eval.answering import GOLDEN, answer_split
from edgar_rag_dev.eval.gate import failures, make_gate, run_outcomes
from edgar_rag_dev.eval.golden import GoldenQuestion, prints_figure, read_golden
from edgar_rag_dev.eval.replay import SETS, replay

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DB = ROOT / "build" / "corpus.db"
SHARED_FILINGS = ROOT.parent / "shared" / "corpus" / "filings"


# A regression the unit tests pass: fiscal_year_of_header (the column -> fiscal year map of the
# verifier's period check; a prose event's header keeps its own rule) with its one mapping line
# changed to the retail calendar, where a year ending in January or February is named by the
# calendar year before it. That is right for Home Depot and for every header the unit tests use,
# and wrong for Nvidia, whose fiscal 2025 ended on January 26, 2025: the verifier then finds no
# column of the year asked and withholds the answer.
_DATE = re.compile(r"([A-Z][a-z]{2,8})\.?\s+(\d{1,2}),\s*((?:19|20)\d{2})")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")


def retail_calendar_fiscal_year_of_header(header: str, filing: FilingMeta) -> int | None:
    event = event_day(header)
    if event is not None and filing.period_end is not None:
        return fiscal_year_containing(event, filing.period_end, filing.fiscal_year)
    match = _DATE.search(header)
    if match and filing.period_end is not None:
        for pattern in ("%B %d %Y", "%b %d %Y"):
            try:
                day = datetime.strptime(" ".join(match.groups()), pattern).date()
            except ValueError:
                continue
            return day.year - 1 if day.month < 3 else day.year  # the one changed line
    years = _YEAR.findall(header)
    return int(years[-1]) if years else None


def apply_the_regression() -> None:
    """For a separate process: the unit tests then import the regressed function."""
    answerer_module.fiscal_year_of_header = retail_calendar_fiscal_year_of_header


@pytest.mark.slow
def test_the_unit_tests_of_the_period_check_pass_the_regression(tmp_path: Path) -> None:
    # The inner run keeps its temporary files under this test's own folder: with pytest's
    # default numbered folders it would prune the outer session's, PostgreSQL's data with them.
    code = (
        "import sys; sys.path.insert(0, 'tests'); import test_gate_replay; "
        "test_gate_replay.apply_the_regression(); import pytest; sys.exit(pytest.main(["
        f"'-q', '-p', 'no:cacheprovider', '--basetemp={tmp_path / 'inner'}', "
        "'tests/test_answerer.py', 'tests/test_periods.py', 'tests/test_verify.py']))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, (
        "the unit tests now catch the retail-calendar regression; give the eval-ci test another "
        "one they miss\n" + result.stdout[-3000:]
    )


_QUESTION = re.compile(r"^Question: (.*)$", re.M)
_PASSAGE = re.compile(r"^\[(\d+)\] [^\n]*\n(.*?)(?=^\[\d+\] |</passages>)", re.M | re.S)


@dataclass
class GoldOracle:
    """A stand-in model that knows the gold: it states an answerable question's gold figure,
    citing the first passage that prints it, and declines everything else with the request's
    refusal token. Deterministic, so its tape replays as a real model's does; unlike the
    committed recording it answers many questions, so the groups have cases to lose."""

    golden: Mapping[str, GoldenQuestion]
    name: str = "oracle:gold"

    def generate(self, prompt: Prompt) -> Generation:
        user = prompt.messages[-1].content
        asked = _QUESTION.search(user)
        question = self.golden.get(asked.group(1)) if asked else None
        if question is not None and question.kind == "answerable" and question.displayed:
            for marker, text in _PASSAGE.findall(user):
                if prints_figure(text, question.displayed):
                    answer = f"It was {question.displayed} [{marker}]."
                    return Generation(text=answer, model=self.name)
        return Generation(text=prompt.refusal_token, model=self.name)


@pytest.fixture(scope="module")
def corpus_db() -> Path:
    """build/corpus.db: the 24 filings of ../shared/corpus/filings, indexed by
    ``make build/corpus.db`` (about 8 minutes on 2 cores; `make check` builds it first)."""
    if CORPUS_DB.exists():
        return CORPUS_DB
    if not SHARED_FILINGS.exists():
        pytest.skip("no build/corpus.db, and no shared corpus to build it from")
    pytest.fail("build/corpus.db is missing: run `make build/corpus.db` (about 8 minutes)")


MODEL_DIR = ROOT / "build" / "cache"


@pytest.fixture
def in_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from the repository's root, with its embedder cache, as `make eval-ci` does."""
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(MODEL_DIR))


@pytest.mark.slow
@pytest.mark.usefixtures("in_root")
def test_the_gate_catches_a_one_line_regression_that_the_unit_tests_pass(
    corpus_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model_dir = MODEL_DIR
    tape = tmp_path / "tape-dev.jsonl"
    settings = Settings(_env_file=None, db=corpus_db, model_dir=model_dir, generator="echo")
    index = open_index(settings)
    answerer = build_answerer(settings, index)
    golden = read_golden(GOLDEN)
    answerer.generator = TapeGenerator(GoldOracle({q.question: q for q in golden}), tape, "record")
    run = answer_split(answerer, index, golden, "dev")
    index.close()
    nvidia = [r["id"] for r in run["records"] if r["ticker"] == "NVDA" and r["correct"]]
    assert len(nvidia) > 3, "the stand-in answers too few Nvidia questions; did the prompt change?"
    # A window is cut from its passage, so a gold figure it prints is in the whole passage too.
    given = [r for r in run["records"] if r["gold_in_prompt"]]
    assert given
    assert all(r["gold_in_top"] for r in given)
    replaying = settings.model_copy(update={"tape": tape})
    gate = make_gate("golden", "dev", run_outcomes(replay(replaying, "dev"), settings.gate))
    assert failures(gate, run_outcomes(replay(replaying, "dev"), settings.gate)) == []

    monkeypatch.setattr(
        answerer_module, "fiscal_year_of_header", retail_calendar_fiscal_year_of_header
    )
    broken = failures(gate, run_outcomes(replay(replaying, "dev"), settings.gate))
    flipped = [line for line in broken if "must stay right, now" in line]
    assert flipped
    assert all(line.startswith("NVDA-") for line in flipped), flipped
    assert any(line.startswith("answerable:") and "the floor is" in line for line in broken)


@pytest.mark.slow
@pytest.mark.usefixtures("in_root")
def test_a_prompt_the_tape_does_not_hold_fails_naming_its_question(
    corpus_db: Path, tmp_path: Path
) -> None:
    model_dir = MODEL_DIR
    tape = tmp_path / "tape-dev.jsonl"
    tape.write_text(
        '{"key": "0", "generator": "oracle:gold", "model": "oracle:gold", "temperature": 0.0, '
        '"max_tokens": 120, "messages": [], "text": "x"}\n',
        encoding="utf-8",
    )
    dev = {q.id: q for q in read_golden(GOLDEN) if q.split == "dev"}
    settings = Settings(_env_file=None, db=corpus_db, model_dir=model_dir, tape=tape)
    with pytest.raises(EdgarRagError) as refused:
        replay(settings, "dev", SETS["golden"])
    # The first dev question that goes to the model (a figure answered in code asks none).
    named = re.match(r"question (\S+) \((.*)\) was not recorded", str(refused.value))
    assert named is not None, str(refused.value)
    assert named[2] == repr(dev[named[1]].question)
