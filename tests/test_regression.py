"""The CI gate on answer quality (``make eval-ci``): groups compared case by case with a baseline,
and a replay of the dev split that catches a one-line regression the unit tests pass."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import edgar_rag.answer.answerer as answerer_module
from edgar_rag.answer.prose_dates import event_day
from edgar_rag.answer.tapes import TapeGenerator
from edgar_rag.cli import main
from edgar_rag.compose import build_answerer, open_index
from edgar_rag.config import Settings
from edgar_rag.domain import FilingMeta, Generation, Prompt
from edgar_rag.errors import ConfigError
from edgar_rag.eval.answering import GOLDEN, answer_split
from edgar_rag.eval.golden import GoldenQuestion, prints_figure, read_golden
from edgar_rag.eval.regression import (
    FAIL_AT,
    Baseline,
    CaseOutcome,
    case_outcomes,
    compare,
    ensure_comparable,
    group_counts,
    make_baseline,
)
from edgar_rag.eval.report import ARMS
from edgar_rag.rules import fiscal_year_containing

ROOT = Path(__file__).resolve().parents[1]
CORPUS_DB = ROOT / "build" / "corpus.db"
SHARED_FILINGS = ROOT.parent / "shared" / "corpus" / "filings"


def eval_ci(*args: str) -> Result:
    """``edgar-rag dev eval regression ARGS``, as ``make eval-ci`` runs it, in this process."""
    return CliRunner().invoke(main, ["dev", "eval", "regression", *args], catch_exceptions=False)


def _case(kind: str, correct: bool, outcome: str, **by_arm: str) -> CaseOutcome:
    outcomes = dict.fromkeys(ARMS, outcome)
    outcomes.update({arm.replace("_", "+"): shown for arm, shown in by_arm.items()})
    return CaseOutcome(kind=kind, correct=correct, outcomes=outcomes)


def _answered(n: int, kind: str = "answerable") -> dict[str, CaseOutcome]:
    return {f"{kind}-{i}": _case(kind, kind == "answerable", "answered") for i in range(n)}


def test_a_group_fails_on_a_net_worsening_of_three_cases() -> None:
    baseline = _answered(5)
    replayed = baseline | {
        f"answerable-{i}": _case("answerable", False, "model_declined") for i in range(FAIL_AT)
    }
    changes = {(c.arm, c.group): c for c in compare(baseline, replayed)}
    worse = changes["period", "answerable correct"]
    assert (worse.before, worse.after, worse.net_worsening, worse.failed) == (5, 2, 3, True)
    assert worse.line().startswith("FAIL period")
    assert "answerable correct" in worse.line()
    assert "worse answerable-0, answerable-1, answerable-2" in worse.line()
    assert not changes["period", "answerable wrong answers"].failed


def test_cases_that_got_better_offset_those_that_got_worse() -> None:
    baseline = _answered(3) | {"late": _case("answerable", True, "model_declined")}
    replayed = {
        **{k: _case("answerable", True, "unsupported_claim") for k in _answered(3)},
        "late": _case("answerable", True, "answered"),
    }
    change = next(c for c in compare(baseline, replayed) if c.group == "answerable correct")
    assert (len(change.worse), len(change.better), change.net_worsening) == (3, 1, 2)
    assert not change.failed
    assert change.line().startswith("ok ")


def test_the_narrative_set_is_gated_by_its_own_kinds() -> None:
    """Prose and figure questions count correct and wrong answers, decline questions false
    answers; no group of the golden set's kinds is reported for them."""
    baseline = {
        **{f"p{i}": _case("prose", True, "answered") for i in range(3)},
        **{f"f{i}": _case("figure", True, "answered") for i in range(3)},
        "d": _case("decline", False, "model_declined"),
    }
    replayed = baseline | {f"f{i}": _case("figure", False, "answered") for i in range(3)}
    changes = {(c.arm, c.group): c for c in compare(baseline, replayed)}
    assert {group for _, group in changes} == {
        "prose correct", "prose wrong answers", "figure correct", "figure wrong answers",
        "decline false answers",
    }  # fmt: skip
    assert changes["none", "figure correct"].failed
    assert changes["none", "figure wrong answers"].failed
    assert not changes["none", "prose correct"].failed


def test_false_answers_are_counted_by_kind_and_arm() -> None:
    declined = {
        f"p{i}": _case("other_period", False, "model_declined", period="out_of_period")
        for i in range(4)
    }
    answered_unguarded = {
        key: _case("other_period", False, "answered", period="out_of_period") for key in declined
    }
    failed = [c for c in compare(declined, answered_unguarded) if c.failed]
    assert [(c.arm, c.group) for c in failed] == [
        ("none", "other_period false answers"),
        ("cosine", "other_period false answers"),
        ("period+cosine", "other_period false answers"),
    ]


def test_a_baseline_of_other_questions_is_not_compared() -> None:
    with pytest.raises(ConfigError, match=r"different questions.*make eval-baseline"):
        compare(_answered(3), _answered(2))


RECORD: dict[str, Any] = {
    "id": "a", "kind": "answerable", "ticker": "AAPL", "best_cosine": 0.4,
    "company_declined": False, "period_declined": False, "outcome": "answered", "correct": True,
}  # fmt: skip


def test_each_arm_masks_the_one_generation() -> None:
    run = {
        "split": "dev",
        "thresholds": {"AAPL": 0.5},
        "records": [RECORD, RECORD | {"id": "b", "kind": "other_period", "period_declined": True}],
    }
    cases = case_outcomes(run)
    assert cases["a"].outcomes == {
        "none": "answered", "cosine": "gate_rejected",
        "period": "answered", "period+cosine": "gate_rejected",
    }  # fmt: skip
    assert cases["b"].outcomes["period"] == "out_of_period"
    counts = group_counts(cases)
    assert counts["none: answerable correct"] == 1
    assert counts["cosine: answerable correct"] == 0
    assert counts["none: other_period false answers"] == 1
    assert counts["period: other_period false answers"] == 0


def test_a_baseline_from_another_tape_is_refused(tmp_path: Path) -> None:
    tape = tmp_path / "tape.jsonl"
    tape.write_text("{}\n", encoding="utf-8")
    run = {"split": "dev", "thresholds": {}, "records": [RECORD]}
    baseline = make_baseline(run, tape)
    assert Baseline.model_validate_json(baseline.model_dump_json()) == baseline
    ensure_comparable(baseline, tape)
    tape.write_text("{}\n{}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"tape .*changed since the baseline"):
        ensure_comparable(baseline, tape)


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
        "import sys; sys.path.insert(0, 'tests'); import test_regression; "
        "test_regression.apply_the_regression(); import pytest; sys.exit(pytest.main(["
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


@pytest.mark.slow
def test_eval_ci_catches_a_one_line_regression_that_the_unit_tests_pass(
    corpus_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    model_dir = ROOT / "build" / "cache"
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(model_dir))
    tape, baseline = tmp_path / "tape-dev.jsonl", tmp_path / "baseline-dev.json"
    settings = Settings(_env_file=None, db=corpus_db, model_dir=model_dir, generator="echo")
    index = open_index(settings)
    answerer = build_answerer(settings, index)
    golden = read_golden(GOLDEN)
    answerer.generator = TapeGenerator(GoldOracle({q.question: q for q in golden}), tape, "record")
    run = answer_split(answerer, index, golden, "dev")
    nvidia = [r["id"] for r in run["records"] if r["ticker"] == "NVDA" and r["correct"]]
    assert len(nvidia) > FAIL_AT, (
        "the stand-in model answers too few Nvidia questions; did the prompt's format change?"
    )
    # A window is cut from its passage, so a gold figure it prints is in the whole passage too.
    given = [r for r in run["records"] if r["gold_in_prompt"]]
    assert given
    assert all(r["gold_in_top"] for r in given)
    baseline.write_text(make_baseline(run, tape).model_dump_json(), encoding="utf-8")
    check = ["check", "--index", str(corpus_db), "--tape", str(tape), "--baseline", str(baseline)]
    check += ["--out", str(tmp_path / "run-dev.json")]

    passed = eval_ci(*check)
    assert passed.exit_code == 0
    assert "no group worse by 3 or more cases net" in passed.stdout

    monkeypatch.setattr(
        answerer_module, "fiscal_year_of_header", retail_calendar_fiscal_year_of_header
    )
    regressed = eval_ci(*check)
    assert regressed.exit_code == 1
    lines = regressed.stdout.splitlines()
    failed = [line for line in lines if line.startswith("FAIL")]
    assert [line.split()[1] for line in failed] == list(ARMS)
    assert all("answerable correct" in line and "worse NVDA-" in line for line in failed)
    assert lines[-1].endswith(f"{len(ARMS)} groups worse by 3 or more cases net")


@pytest.mark.slow
def test_a_prompt_the_tape_does_not_hold_fails_naming_its_question(
    corpus_db: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(ROOT / "build" / "cache"))
    tape = tmp_path / "tape-dev.jsonl"
    tape.write_text(
        '{"key": "0", "generator": "oracle:gold", "model": "oracle:gold", "temperature": 0.0, '
        '"max_tokens": 120, "messages": [], "text": "x"}\n',
        encoding="utf-8",
    )
    dev = {q.id: q for q in read_golden(GOLDEN) if q.split == "dev"}
    written = ["baseline", "--index", str(corpus_db), "--tape", str(tape)]
    written += ["--baseline", str(tmp_path / "b.json"), "--out", str(tmp_path / "r.json")]
    refused = eval_ci(*written)
    assert refused.exit_code == 2
    error = refused.stderr
    # The first dev question that goes to the model (a figure answered in code asks none).
    named = re.match(r"eval-ci: question (\S+) \((.*)\) was not recorded", error)
    assert named is not None, error
    assert named[2] == repr(dev[named[1]].question)
    assert not (tmp_path / "b.json").exists()
