"""``make bench-cli``: the light commands as whole processes, as a user's shell meets them.

``edgar-rag --version``, ``--help`` and ``filings`` (on the corpus index) each run as a new
process, in rounds interleaved with ``python -c pass`` on the same interpreter, so a busy
machine slows all of them alike: the page gives each P50 and its ratio to the bare
interpreter's. Written into the ``cli`` entry of docs/performance.json and rendered in
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

from edgar_rag.markdown import table

TARGET_S = 0.3
"""What issue 15 holds ``--version``, ``--help`` and ``filings`` to, as whole processes."""
BASELINE = "python -c pass"


def light_commands(index: Path) -> dict[str, list[str]]:
    """The commands timed, by the name the page gives them; the interpreter's first."""
    edgar_rag = str(Path(sys.executable).parent / "edgar-rag")
    return {
        BASELINE: [sys.executable, "-c", "pass"],
        "edgar-rag --version": [edgar_rag, "--version"],
        "edgar-rag --help": [edgar_rag, "--help"],
        "edgar-rag filings": [edgar_rag, "filings", "--db", str(index)],
    }


def time_commands(
    commands: Mapping[str, Sequence[str]],
    rounds: int,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds each command took, per round; each round runs every command once, in order."""
    seconds: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, argv in commands.items():
            start = clock()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
            seconds[name].append(clock() - start)
    return seconds


def summarise(seconds: Mapping[str, Sequence[float]]) -> dict[str, dict[str, Any]]:
    """Each command's P50 and slowest run, and its P50 over the bare interpreter's."""
    baseline = statistics.median(seconds[BASELINE])
    return {
        name: {
            "runs": len(runs),
            "p50_s": round(statistics.median(runs), 4),
            "max_s": round(max(runs), 4),
            "vs_python": round(statistics.median(runs) / baseline, 2),
        }
        for name, runs in seconds.items()
    }


def measure_commands(index: Path, out: Path, *, rounds: int = 15) -> dict[str, Any]:
    """Time the light commands on ``index``, write the ``cli`` entry of ``out`` (whose other
    entries ``make bench`` wrote), and render the page again."""
    from edgar_rag.bench.report import record_entry  # noqa: PLC0415 (it renders ours)

    if not index.exists():
        raise FileNotFoundError(f"{index}: build it first (`make build/corpus.db`)")
    from edgar_rag.index.sqlite import SqliteIndex  # noqa: PLC0415

    store = SqliteIndex(index)
    filings = len(store.filings())
    store.close()
    started = os.getloadavg()[0]
    seconds = time_commands(light_commands(index), rounds)
    entry = {
        "rounds": rounds,
        "filings": filings,
        "target_s": TARGET_S,
        "cpus": os.cpu_count(),
        "load_average_1m": [round(started, 2), round(os.getloadavg()[0], 2)],
        "commands": summarise(seconds),
    }
    record_entry(out, "cli", entry)
    return entry


def render_cli(cli: Mapping[str, Any]) -> list[str]:
    """The light commands' section of docs/performance.md."""
    commands = cli["commands"]
    low, high = cli["load_average_1m"]
    return [
        "## The light commands as new processes",
        "",
        f"Written by `make bench-cli` (`edgar-rag dev bench cli`): {cli['rounds']} rounds, each "
        f"running every command below once as a new process from the shell, `filings` on "
        f"the corpus index ({cli['filings']} filings), {cli['cpus']} cores (load average {low} "
        f"at the start, {high} at "
        f"the end). The ratio is each command's P50 over that of `{BASELINE}` in the same "
        f"rounds; the target is {cli['target_s']} s for `--version`, `--help` and `filings`.",
        "",
        *table(
            ["command", "P50 s", "slowest s", f"vs `{BASELINE}`", f"under {cli['target_s']} s"],
            [
                [
                    f"`{name}`",
                    f"{row['p50_s']:.3f}",
                    f"{row['max_s']:.3f}",
                    f"{row['vs_python']:.2f}x",
                    "-"
                    if name == BASELINE
                    else ("yes" if row["p50_s"] < cli["target_s"] else "no"),
                ]
                for name, row in commands.items()
            ],
            align="lrrrr",
        ),
        "",
    ]
