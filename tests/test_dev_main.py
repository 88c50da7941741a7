"""``python -m edgar_rag_dev``: the dev commands where no entry point is installed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "edgar_rag_dev", *args],
        capture_output=True, text=True, check=False, cwd=cwd,
    )  # fmt: skip


def test_the_module_runs_the_dev_commands_without_the_entry_points(tmp_path: Path) -> None:
    listed = run_module("--help", cwd=tmp_path)
    assert listed.returncode == 0
    assert listed.stdout.startswith("Usage: python -m edgar_rag_dev [OPTIONS] COMMAND")
    assert "bench" in listed.stdout
    assert "eval" in listed.stdout
    rendered = run_module("eval", "render", "--print", cwd=tmp_path)
    assert (rendered.returncode, rendered.stdout) == (0, "no answering run committed\n")
