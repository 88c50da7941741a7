"""``make bench-cli``: the light commands as whole processes, as a user's shell meets them.

``edgar-rag --version``, ``--help`` and ``filings`` (on the corpus index) each run as a new
process, in rounds interleaved with ``python -c pass`` on the same interpreter, so a busy
machine slows all of them alike: the page gives each P50 and its ratio to the bare
interpreter's. Beside them, figure questions ``edgar-rag ask`` answers in code from the
filings' reported figures (issue 41), where the index holds their filings, with each
command's peak memory. Written into the ``cli`` entry of docs/performance.json and rendered in
docs/performance.md; the rest of that file is kept as it is.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from edgar_rag_dev.bench.commands_page import BASELINE
from edgar_rag_dev.bench.report import record_entry

TARGET_S = 0.3
"""What issue 15 holds ``--version``, ``--help`` and ``filings`` to, as whole processes."""
ASK_TARGET_S = 0.5
"""What issue 41 holds a question answered in code to, as a whole process."""
IN_CODE = (
    ("gross margin", "What was Apple's gross margin in fiscal 2024?", "AAPL", 2024),
    ("net income", "What was Walmart's net income in fiscal 2025?", "WMT", 2025),
    ("gross margin", "What was NVIDIA's gross margin in fiscal 2025?", "NVDA", 2025),
)
"""Figure questions the corpus answers in code (``make computed`` checks such answers)."""


def light_commands(index: Path) -> dict[str, list[str]]:
    """The commands timed, by the name the page gives them; the interpreter's first."""
    edgar_rag = str(Path(sys.executable).parent / "edgar-rag")
    return {
        BASELINE: [sys.executable, "-c", "pass"],
        "edgar-rag --version": [edgar_rag, "--version"],
        "edgar-rag --help": [edgar_rag, "--help"],
        "edgar-rag filings": [edgar_rag, "filings", "--db", str(index)],
    }


def ask_commands(index: Path, indexed: set[tuple[str, int]]) -> dict[str, list[str]]:
    """The questions of ``IN_CODE`` whose filing (ticker, fiscal year) is ``indexed``."""
    edgar_rag = str(Path(sys.executable).parent / "edgar-rag")
    return {
        f"edgar-rag ask ({what}, {ticker} {year}, in code)": [
            edgar_rag,
            "ask",
            question,
            "--ticker",
            ticker,
            "--year",
            str(year),
            "--db",
            str(index),
        ]
        for what, question, ticker, year in IN_CODE
        if (ticker, year) in indexed
    }


def time_commands(
    commands: Mapping[str, Sequence[str]],
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
    peaks: dict[str, list[float]] | None = None,
) -> dict[str, list[float]]:
    """Seconds each command took, per round; each round runs every command once, in order.
    ``peaks`` is given each run's peak resident memory in MiB (the kernel's own count)."""
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            start = clock()
            child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            seconds[name].append(clock() - start)
            child.returncode = os.waitstatus_to_exitcode(status)
            if child.returncode != 0:
                raise subprocess.CalledProcessError(child.returncode, argv)
            if peaks is not None:
                peaks.setdefault(name, []).append(usage.ru_maxrss / 1024)
    return seconds


def summarise(
    seconds: Mapping[str, Sequence[float]], peaks: Mapping[str, Sequence[float]] | None = None
) -> dict[str, dict[str, Any]]:
    """Each command's P50 and slowest run, its P50 over the bare interpreter's, and (with
    ``peaks``) its median peak memory."""
    baseline = statistics.median(seconds[BASELINE])
    summary = {
        name: {
            "runs": len(runs),
            "p50_s": round(statistics.median(runs), 4),
            "max_s": round(max(runs), 4),
            "vs_python": round(statistics.median(runs) / baseline, 2),
        }
        for name, runs in seconds.items()
    }
    for name, mib in (peaks or {}).items():
        summary[name]["peak_mib"] = round(statistics.median(mib), 1)
    return summary


def measure_commands(index: Path, out: Path, *, rounds: int = 15) -> dict[str, Any]:
    """Time the light commands on ``index``, write the ``cli`` entry of ``out`` (whose other
    entries ``make bench`` wrote), and render the page again."""
    if not index.exists():
        raise FileNotFoundError(f"{index}: build it first (`make build/corpus.db`)")
    from edgar_rag.index.sqlite import SqliteIndex  # noqa: PLC0415

    store = SqliteIndex(index)
    summaries = store.filings()
    store.close()
    indexed = {(s.ticker, s.fiscal_year) for s in summaries if s.ticker is not None}
    commands = light_commands(index) | ask_commands(index, indexed)
    time_commands(commands, 1)  # a warm-up round: the first ask may export the embedder
    started = os.getloadavg()[0]
    peaks: dict[str, list[float]] = {}
    seconds = time_commands(commands, rounds, peaks=peaks)
    entry = {
        "rounds": rounds,
        "filings": len(summaries),
        "target_s": TARGET_S,
        "ask_target_s": ASK_TARGET_S,
        "cpus": os.cpu_count(),
        "load_average_1m": [round(started, 2), round(os.getloadavg()[0], 2)],
        "commands": summarise(seconds, peaks),
    }
    record_entry(out, "cli", entry)
    return entry
