"""The edgar-rag command as a user meets it: exit codes, one-line errors, data on stdout."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from edgar_rag.cli import log_file_path, main
from edgar_rag.cli.ask import AssemblyBar


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("EDGAR_RAG_DB", str(tmp_path / "index.db"))
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv("EDGAR_RAG_SEC_CONTACT", raising=False)
    monkeypatch.chdir(tmp_path)
    return CliRunner()


def invoke(runner: CliRunner, *args: str) -> Result:
    return runner.invoke(main, list(args), catch_exceptions=False)


def test_ingest_then_list_the_filings_as_json(run: CliRunner, sample_dir: Path) -> None:
    ingested = invoke(run, "ingest", "--from", str(sample_dir))
    assert ingested.exit_code == 0, ingested.output
    assert "indexed    AAPL FY2025" in ingested.stdout
    listed = invoke(run, "filings", "--json")
    rows = json.loads(listed.stdout)
    apple = next(r for r in rows if r["ticker"] == "AAPL" and r["fiscal_year"] == 2025)
    assert set(apple) >= {
        "ticker", "cik", "company", "fiscal_year", "accession", "items", "chunks", "facts",
        "years_reported",
    }  # fmt: skip
    assert apple["cik"] == 320193
    assert apple["years_reported"] == [2023, 2024, 2025]
    statements = {s["kind"]: s for s in apple["statements"]}
    assert {"income_statement", "balance_sheet", "cash_flow"} <= set(statements)
    assert statements["balance_sheet"]["years"] == [2025, 2024]
    assert statements["balance_sheet"]["page"] is None  # an HTML filing has no pages
    table = invoke(run, "filings")
    apple_line = next(line for line in table.stdout.splitlines() if "Apple Inc." in line)
    assert apple_line.endswith("income_statement,comprehensive_income,balance_sheet,cash_flow")


def test_filters_by_ticker_and_year(run: CliRunner, sample_dir: Path) -> None:
    result = invoke(
        run, "ingest", "--from", str(sample_dir), "--tickers", "aapl", "--years", "2024"
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(invoke(run, "filings", "--json").stdout)
    assert [(r["ticker"], r["fiscal_year"]) for r in rows] == [("AAPL", 2024)]


def test_a_bad_file_is_refused_and_the_good_ones_still_indexed(
    run: CliRunner, sample_copy: Path
) -> None:
    (sample_copy / "notes.txt").write_text("Quarterly notes, nothing annual here.\n")
    truncated = sample_copy / "truncated.htm"
    truncated.write_bytes(b"<html><body><p>FORM 10-K</p>" * 10)
    result = invoke(run, "ingest", "--from", str(sample_copy))
    assert result.exit_code == 1
    assert f"refused    {sample_copy / 'notes.txt'}: its form cannot be told" in result.stdout
    assert "truncated.htm: the HTML looks truncated" in result.stdout
    assert "Traceback" not in result.output
    rows = json.loads(invoke(run, "filings", "--json").stdout)
    assert len(rows) == 5


def test_a_missing_path_is_one_line_and_a_non_zero_exit(run: CliRunner, tmp_path: Path) -> None:
    result = run.invoke(main, ["ingest", "--from", str(tmp_path / "nowhere")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        f"Error: {tmp_path / 'nowhere'}: no such file or folder"
    ]


def test_a_ticker_with_no_local_filing_is_named(run: CliRunner, sample_dir: Path) -> None:
    result = run.invoke(main, ["ingest", "--from", str(sample_dir), "--tickers", "ZZZZ"])
    assert result.exit_code == 1
    assert "Error: no filing indexed for ticker ZZZZ" in result.stderr


def test_a_year_with_no_filing_is_named(run: CliRunner, sample_dir: Path) -> None:
    result = run.invoke(
        main, ["ingest", "--from", str(sample_dir), "--tickers", "AAPL", "--years", "2019"]
    )
    assert result.exit_code == 1
    assert "Error: no filing for AAPL 2019 found under" in result.stderr


def test_edgar_without_a_contact_is_a_config_error(run: CliRunner) -> None:
    result = run.invoke(main, ["ingest", "--tickers", "AAPL", "--years", "2025"])
    assert result.exit_code == 2
    assert "EDGAR_RAG_SEC_CONTACT" in result.stderr
    assert "Traceback" not in result.output


def test_an_index_of_another_embedder_is_refused_in_one_line(
    run: CliRunner, sample_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    single = tmp_path / "one"
    single.mkdir()
    shutil.copy(sample_dir / "filings" / "WFC" / "2024" / "wfc-10-k-2025-02-25.html.gz", single)
    assert invoke(run, "ingest", "--from", str(single)).exit_code == 0
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "minilm")
    result = run.invoke(main, ["search", "revenue", "--ticker", "WFC"])
    assert result.exit_code == 1
    assert "was built by hashing" in result.stderr


def test_search_returns_ranked_passages_of_one_filing(run: CliRunner, sample_dir: Path) -> None:
    invoke(run, "ingest", "--from", str(sample_dir))
    result = invoke(
        run, "search", "Total net sales", "--ticker", "AAPL", "--fiscal-year", "2024", "--json"
    )
    hits = json.loads(result.stdout)
    assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
    assert {h["fiscal_year"] for h in hits} == {2024}
    assert set(hits[0]) >= {"rank", "score", "cosine", "item", "title", "text", "accession"}
    text = invoke(run, "search", "Total net sales", "--ticker", "AAPL").stdout
    assert text.startswith("[1] AAPL FY2025")


def test_search_errors_are_one_line(run: CliRunner, sample_dir: Path) -> None:
    invoke(run, "ingest", "--from", str(sample_dir))
    unknown = run.invoke(main, ["search", "revenue", "--ticker", "ZZZZ"])
    assert (unknown.exit_code, unknown.stderr.strip()) == (1, "Error: ticker ZZZZ is not indexed")
    year = run.invoke(main, ["search", "revenue", "--ticker", "AAPL", "--year", "2001"])
    assert "indexed years: 2024, 2025" in year.stderr
    empty = run.invoke(main, ["search", "  ", "--ticker", "AAPL"])
    assert empty.exit_code == 2
    assert "the question is empty" in empty.stderr


@pytest.mark.postgres
def test_ingest_and_search_on_postgresql_through_the_same_commands(
    run: CliRunner, sample_dir: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_DATABASE_URL", postgres_url)
    single = sample_dir / "filings" / "WFC"
    ingested = invoke(run, "ingest", "--from", str(single))
    assert ingested.exit_code == 0, ingested.output
    rows = json.loads(invoke(run, "filings", "--json").stdout)
    assert [(r["ticker"], r["fiscal_year"]) for r in rows] == [("WFC", 2024)]
    hits = json.loads(invoke(run, "search", "credit risk", "--ticker", "WFC", "--json").stdout)
    assert hits
    assert {h["ticker"] for h in hits} == {"WFC"}
    assert not (Path.cwd() / "index.db").exists()


def test_ask_prints_the_response_object_or_a_readable_answer(
    run: CliRunner, sample_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_GENERATOR", "echo")
    invoke(run, "ingest", "--from", str(sample_dir))
    result = invoke(run, "ask", "Total net sales", "--ticker", "AAPL", "--year", "2025", "--json")
    body = json.loads(result.stdout)
    assert body["generator"] == "computed"  # a reported figure is looked up in code
    assert "$416,161 million" in body["text"]
    assert body["source"]["ticker"] == "AAPL"
    assert body["citations"]
    prose = "How does Apple describe its competition?"
    echoed = json.loads(invoke(run, "ask", prose, "--ticker", "AAPL", "--json").stdout)
    assert echoed["generator"] == "echo"
    assert echoed["citations"]
    declined = invoke(run, "ask", "What was Microsoft's revenue?", "--ticker", "AAPL")
    assert declined.stdout.startswith("Declined (out_of_scope)")
    unknown = run.invoke(main, ["ask", "revenue", "--ticker", "ZZZZ"])
    assert (unknown.exit_code, unknown.stderr.strip()) == (1, "Error: ticker ZZZZ is not indexed")


def test_the_dev_commands_are_hidden_from_help_but_each_parses_its_options() -> None:
    runner = CliRunner()
    assert " dev " not in invoke(runner, "--help").stdout
    listed = invoke(runner, "dev", "--help").stdout
    assert "eval" in listed
    assert "bench" in listed
    for group, commands in {
        "eval": ["answering", "asks", "computed", "gate", "narrative", "render", "retrieval"],
        "bench": ["ingest", "model", "load", "cli", "corpus", "items", "embedding"],
    }.items():
        assert all(name in invoke(runner, "dev", group, "--help").stdout for name in commands)
        for name in commands:
            assert invoke(runner, "dev", group, name, "--help").exit_code == 0


def test_dev_eval_render_prints_that_no_run_is_committed(run: CliRunner) -> None:
    printed = invoke(run, "dev", "eval", "render", "--print")
    assert printed.exit_code == 0
    assert printed.stdout == "no answering run committed\n"


def test_dev_eval_narrative_renders_nothing_before_a_run(run: CliRunner) -> None:
    printed = invoke(run, "dev", "eval", "narrative", "--render")
    assert printed.exit_code == 0
    assert (printed.stdout, printed.stderr) == ("", "no narrative run yet: nothing to render\n")


def test_loading_the_command_imports_no_evaluation_or_benchmark() -> None:
    # The runtime never imports the tooling: its commands join by entry point (cli.tools).
    code = (
        "import sys, edgar_rag.cli; print(sorted(m for m in sys.modules "
        "if m.startswith(('edgar_rag_dev', 'importlib.metadata'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


HEAVY = ("numpy", "torch", "onnxruntime", "psycopg", "httpx", "llama_cpp", "sentence_transformers")
EVAL_BENCH = ("edgar_rag_dev.eval", "edgar_rag_dev.bench")
"""--help loads the tooling's commands (``edgar-rag eval`` is listed), not what they run."""
TOOLING = ("edgar_rag_dev", "importlib.metadata")
"""--version does not even look the tooling's entry points up."""


@pytest.mark.parametrize(
    ("args", "unloaded"),
    [
        (["--version"], (*HEAVY, "pydantic", "edgar_rag.api", "edgar_rag.domain", *TOOLING)),
        (["--help"], (*HEAVY, "pydantic", "edgar_rag.api", "edgar_rag.domain", *EVAL_BENCH)),
        (["filings", "--db", "{db}"], (*HEAVY, "pydantic", "pydantic_settings")),
        (["filings", "--db", "{db}", "--json"], (*HEAVY, "pydantic_settings")),
    ],
)
def test_a_light_command_loads_no_heavy_module(
    args: list[str], unloaded: tuple[str, ...], tmp_path: Path
) -> None:
    """What a command imports, read in a new interpreter (a structural check; `make bench-cli`
    times them): `--version` and `--help` load neither numpy nor pydantic nor the library nor
    what the tooling's commands run (`--version` not even the tooling's entry points), and
    `filings` no numpy, embedder, PostgreSQL driver, HTTP client, model or pydantic-settings
    (pydantic only for its --json, the service's body)."""
    argv = [a.replace("{db}", str(tmp_path / "empty.db")) for a in args]
    script = (
        "import sys\nfrom edgar_rag.cli import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {unloaded!r} if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert run.stdout.strip().splitlines()[-1] == "[]", run.stdout


def test_ask_on_a_terminal_prints_the_draft_as_it_comes_then_the_verified_answer(
    run: CliRunner, sample_dir: Path, tmp_path: Path
) -> None:
    """The real command in a pseudo-terminal, replaying a recorded answer a word at a time;
    piped, its output is the verified answer alone, as before."""
    import os  # noqa: PLC0415
    import pty  # noqa: PLC0415
    from dataclasses import replace  # noqa: PLC0415

    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415
    from edgar_rag.config import Settings  # noqa: PLC0415
    from edgar_rag.model.tapes import TapeGenerator  # noqa: PLC0415
    from fakes import ScriptedGenerator  # noqa: PLC0415

    invoke(run, "ingest", "--from", str(sample_dir), "--tickers", "aapl", "--years", "2025")
    question, tape = "How does Apple describe its competition?", tmp_path / "tape.jsonl"
    reply = "Apple says its markets are highly competitive [1]."
    settings = Settings()
    index = open_index(settings)
    recording = build_answerer(settings, index)
    recording = replace(
        recording, generator=TapeGenerator(ScriptedGenerator([reply]), tape, "record")
    )
    recording.answer(question, index.resolve_scope("AAPL"))
    index.close()
    env = os.environ | {"EDGAR_RAG_TAPE": str(tape), "EDGAR_RAG_TAPE_MODE": "replay"}
    command = [str(Path(sys.executable).parent / "edgar-rag"), "ask", question, "--ticker", "AAPL"]
    piped = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert piped.returncode == 0, piped.stderr
    terminal, child = pty.openpty()
    asking = subprocess.Popen(command, env=env, stdout=child, stderr=subprocess.PIPE)
    os.close(child)
    printed = b""
    while True:
        try:
            chunk = os.read(terminal, 4096)
        except OSError:  # the command closed the terminal
            break
        if not chunk:
            break
        printed += chunk
    os.close(terminal)
    assert asking.wait(timeout=60) == 0
    shown = printed.decode().replace("\r\n", "\n")
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)
    assert plain == f"draft, unverified: {reply}\n\n{piped.stdout}"
    assert "\x1b[2mApple\x1b[0m" in shown  # the draft is dimmed, a word at a time
    assert "draft" not in piped.stdout


def test_an_unexpected_error_is_one_line_naming_the_log_that_holds_its_traceback(
    run: CliRunner, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from edgar_rag.api import Index  # noqa: PLC0415

    def broken(self: Index) -> list[object]:
        raise RuntimeError("a bug in listing")

    monkeypatch.setattr(Index, "filings", broken)  # stands for any bug below the command
    failed = run.invoke(main, ["filings"])
    log = tmp_path / "user-cache" / "edgar-rag" / "edgar-rag.log"
    assert log_file_path() == log
    assert failed.exit_code == 1
    assert failed.stdout == ""
    assert failed.stderr == (
        f"Error: internal error (RuntimeError: a bug in listing); the traceback is in {log}\n"
    )
    written = log.read_text()
    assert "unexpected_failure" in written
    assert "Traceback (most recent call last)" in written
    assert 'raise RuntimeError("a bug in listing")' in written


def test_an_expected_error_is_its_one_line_and_writes_no_log(
    run: CliRunner, sample_dir: Path, tmp_path: Path
) -> None:
    invoke(run, "ingest", "--from", str(sample_dir), "--tickers", "aapl", "--years", "2025")
    unknown = run.invoke(main, ["search", "revenue", "--ticker", "ZZZZ"])
    assert (unknown.exit_code, unknown.stderr) == (1, "Error: ticker ZZZZ is not indexed\n")
    assert not (tmp_path / "user-cache" / "edgar-rag" / "edgar-rag.log").exists()


def test_a_file_that_is_no_index_is_one_line_naming_it(run: CliRunner, tmp_path: Path) -> None:
    garbage = tmp_path / "notes.db"
    garbage.write_text("not a database\n" * 100)
    for command in (["filings"], ["search", "revenue"]):
        result = run.invoke(main, [*command, "--db", str(garbage)])
        assert result.exit_code == 1
        assert result.stderr == (
            f"Error: {garbage} is not an edgar-rag index: file is not a database\n"
        )
    assert garbage.read_text() == "not a database\n" * 100


def test_the_model_assembly_off_a_terminal_is_one_final_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar, total = AssemblyBar(), 3 * 2**20
    for done in (2**20, 2 * 2**20, total):
        bar(done, total)
    printed = capsys.readouterr()
    assert (printed.out, printed.err) == ("", "assembled the local model (3 MiB)\n")


def test_the_model_assembly_on_a_terminal_is_a_tqdm_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    import io  # noqa: PLC0415

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    bar, total = AssemblyBar(), 4 * 2**20
    bar(2**20, total)
    bar(total, total)
    shown = terminal.getvalue()
    assert "assembling the local model: 100%" in shown
    assert "4.00M/4.00M" in shown
    assert "assembled" not in shown


def test_ingest_json_prints_each_outcome_and_its_lines_go_to_stderr(
    run: CliRunner, sample_copy: Path
) -> None:
    (sample_copy / "notes.txt").write_text("a grocery list, not a 10-K")
    ingested = run.invoke(main, ["ingest", "--from", str(sample_copy), "--json"])
    assert ingested.exit_code == 1  # a refused file, as without --json
    rows = json.loads(ingested.stdout)
    by_outcome = {row["outcome"] for row in rows}
    assert by_outcome == {"indexed", "refused"}
    refused = next(row for row in rows if row["outcome"] == "refused")
    assert refused["source"].endswith("notes.txt")
    assert refused["reason"]
    assert refused["filing"] is None
    apple = next(row for row in rows if (row["filing"] or {}).get("ticker") == "AAPL")
    assert apple["filing"]["cik"] == 320193
    assert apple["chunks"] > 0
    assert "indexed    AAPL" in ingested.stderr
    again = json.loads(
        invoke(run, "ingest", "--from", str(sample_copy / "filings"), "--json").stdout
    )
    assert {row["outcome"] for row in again} == {"unchanged"}


def test_thresholds_json_prints_the_fit(
    run: CliRunner, sample_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from edgar_rag_dev.eval import answering, golden  # noqa: PLC0415

    fit = answering.ThresholdFit(threshold=0.41234, admitted=9, questions=10, companies=3)
    monkeypatch.setattr(answering, "fit_cosine_threshold", lambda *args: fit)
    monkeypatch.setattr(golden, "read_golden", lambda path: [])  # the fit is the fake's
    invoke(run, "ingest", "--from", str(sample_dir), "--tickers", "aapl", "--years", "2025")
    questions = str(Path(__file__).resolve().parents[1] / answering.GOLDEN)
    printed = json.loads(invoke(run, "thresholds", "--golden", questions, "--json").stdout)
    assert printed == {
        "variable": "EDGAR_RAG_COSINE_THRESHOLD", "split": "dev", "golden": questions,
        "threshold": 0.41234, "admitted": 9, "questions": 10, "companies": 3,
    }  # fmt: skip
    shown = invoke(run, "thresholds", "--golden", questions).stdout
    assert shown.startswith("EDGAR_RAG_COSINE_THRESHOLD=0.4123\n")
    missing = run.invoke(main, ["thresholds", "--golden", "nowhere.jsonl"])
    assert missing.exit_code == 2
    assert "no golden questions at nowhere.jsonl" in missing.stderr


def test_model_stop_json_says_nothing_was_running(run: CliRunner) -> None:
    stopped = invoke(run, "model", "stop", "--json")
    assert json.loads(stopped.stdout) == {"stopped": False, "pid": None}
    assert invoke(run, "model", "stop").stdout == "not running\n"


def test_a_question_longer_than_the_service_reads_is_one_line_and_exit_2(tmp_path: Path) -> None:
    long = " ".join(["revenue growth margin"] * 100)
    result = CliRunner().invoke(main, ["ask", long, "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 2
    assert "at most 1,000" in result.output
