"""make bench-cli: the light commands timed as whole processes, beside the bare interpreter."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from edgar_rag_dev.bench.commands import ask_commands, measure_commands, summarise, time_commands
from edgar_rag_dev.bench.commands_page import BASELINE, render_cli
from edgar_rag_dev.bench.report import render_readme_figures

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_each_round_runs_every_command_once_in_order() -> None:
    ticks = iter(range(100))
    commands = {BASELINE: [sys.executable, "-c", "pass"], "again": [sys.executable, "-c", "pass"]}
    seconds = time_commands(commands, rounds=3, clock=lambda: float(next(ticks)))
    assert seconds == {BASELINE: [1.0, 1.0, 1.0], "again": [1.0, 1.0, 1.0]}


def test_a_command_is_summarised_by_its_median_and_its_ratio_to_python() -> None:
    summary = summarise({BASELINE: [0.04, 0.05, 0.06], "edgar-rag --version": [0.2, 0.1, 0.9]})
    assert summary["edgar-rag --version"] == {
        "runs": 3, "p50_s": 0.2, "max_s": 0.9, "vs_python": 4.0,
    }  # fmt: skip
    assert summary[BASELINE]["vs_python"] == 1.0


def test_the_bench_writes_its_entry_and_the_page_and_readme_show_it(
    tmp_path: Path, apple_index: Path
) -> None:
    out = tmp_path / "performance.json"
    shutil.copy(DOCS / "performance.json", out)
    entry = measure_commands(apple_index, out, rounds=1)  # filings needs a filing to list
    data = json.loads(out.read_text())
    assert data["cli"] == entry
    assert set(entry["commands"]) == {
        BASELINE, "edgar-rag --version", "edgar-rag --help", "edgar-rag filings",
    }  # fmt: skip
    assert all(row["runs"] == 1 and row["p50_s"] > 0 for row in entry["commands"].values())
    page = (tmp_path / "performance.md").read_text()
    assert "\n".join(render_cli(entry)) in page
    assert "| `edgar-rag filings` |" in page
    readme = render_readme_figures(tmp_path)
    assert "`edgar-rag --version` / `--help` / `filings` as new processes" in readme


def test_a_question_answered_in_code_is_timed_only_where_its_filing_is_indexed() -> None:
    index = Path("corpus.db")
    [(name, argv)] = ask_commands(index, {("AAPL", 2024), ("AAPL", 2025)}).items()
    assert name == "edgar-rag ask (gross margin, AAPL 2024, in code)"
    assert argv[1:] == [
        "ask", "What was Apple's gross margin in fiscal 2024?", "--ticker", "AAPL",
        "--year", "2024", "--db", "corpus.db",
    ]  # fmt: skip
    peaks: dict[str, list[float]] = {}
    seconds = time_commands({BASELINE: [sys.executable, "-c", "pass"]}, 2, peaks=peaks)
    summary = summarise(seconds, peaks)
    assert summary[BASELINE]["peak_mib"] > 1
