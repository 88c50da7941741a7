"""``make bench-install``: what splitting out the extras saves a user's install (issue 15).

Two throwaway virtual environments in a temporary folder, filled by uv from the inputs of
``make setup`` (``requirements.lock`` as constraints, torch's CPU build from the find-links
folder, the same uv cache) with this checkout built once as a wheel: the default install,
``edgar-rag``, and ``edgar-rag[postgres,serve,mcp,eval]``, what the default install held before
those extras were split out. After one untimed install of all extras, each round installs both
into fresh venvs, in alternating order, with ``--offline``: an install that needed a download
fails, and uv's log names any build. Files are copied from the cache (``--link-mode copy``), so
a venv's size is its own. In each venv ``edgar-rag --version`` runs and the CLI is imported to
see which of the extras' modules (``edgar_rag.extras``) it loads. Written into the ``install``
entry of docs/performance.json and rendered in docs/performance.md; the rest is kept.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from edgar_rag.extras import EXTRA_MODULES
from edgar_rag_dev.bench.install_page import ALL, DEFAULT, SPLIT_EXTRAS
from edgar_rag_dev.bench.report import record_entry

VENVS = {DEFAULT: "default", ALL: "all"}
"""The folder of each install's venv, under the temporary folder."""
SOURCES = ("pyproject.toml", "README.md", "src")
"""What setuptools reads to build the wheel, copied so the build writes nothing in the checkout."""

CLI_CHECK = """
import importlib.util, json, sys
import edgar_rag.cli
names = sys.argv[1:]
print(json.dumps({
    "imported": sorted(name for name in names if name in sys.modules),
    "installed": sorted(name for name in names if importlib.util.find_spec(name) is not None),
}))
"""
"""Run in a venv's interpreter: which of the named top-level modules importing the CLI loaded,
and which are installed at all (looked up after the import, so the lookup imports nothing)."""


@dataclass(frozen=True, slots=True)
class UvLog:
    """What ``uv pip install`` said it did."""

    resolved: int
    installed: int
    built: tuple[str, ...]
    downloaded: tuple[str, ...]


def parse_uv_log(text: str) -> UvLog:
    """The counts and the distributions built or downloaded, from uv's log on stderr."""

    def count(verb: str) -> int:
        found = re.search(rf"^{verb} (\d+) packages? in", text, re.MULTILINE)
        return int(found.group(1)) if found else 0

    return UvLog(
        resolved=count("Resolved"),
        installed=count("Installed"),
        built=tuple(re.findall(r"^\s*Built (\S+)", text, re.MULTILINE)),
        downloaded=tuple(re.findall(r"^\s*Downloaded (\S+)", text, re.MULTILINE)),
    )


@dataclass(frozen=True, slots=True)
class Inputs:
    """How ``make setup`` installs, less ``--require-hashes``, which a local wheel cannot meet."""

    uv: Path
    lock: Path
    find_links: Path | None

    def install_argv(self, venv: Path, requirement: str) -> list[str]:
        links = ["--find-links", str(self.find_links)] if self.find_links else []
        python = str(venv / "bin/python")
        return [
            str(self.uv), "--color", "never", "pip", "install", "--python", python, "--offline",
            "--link-mode", "copy", "-c", str(self.lock), *links, requirement,
        ]  # fmt: skip


def clean_environment() -> dict[str, str]:
    """This process's environment without ``PYTHONPATH``, which would let a venv import the
    checkout instead of what was installed in it."""
    return {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def build_wheel(uv: Path, project: Path, work: Path) -> Path:
    """This checkout as a wheel, built from a copy, offline, before anything is timed."""
    source = work / "source"
    for name in SOURCES:
        origin = project / name
        if origin.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
            shutil.copytree(origin, source / name, ignore=ignore)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, source / name)
    _run([str(uv), "build", "--wheel", "--offline", "--out-dir", str(work / "dist"), str(source)])
    return next((work / "dist").glob("edgar_rag-*.whl"))


def install(inputs: Inputs, venv: Path, requirement: str) -> tuple[float, UvLog]:
    """A fresh venv at ``venv`` (not timed) and the seconds ``uv pip install`` took in it."""
    shutil.rmtree(venv, ignore_errors=True)
    _run([str(inputs.uv), "venv", "--quiet", "--python", sys.executable, str(venv)])
    start = time.perf_counter()
    log = _run(inputs.install_argv(venv, requirement))
    return time.perf_counter() - start, parse_uv_log(log)


def venv_size_mib(venv: Path) -> float:
    """The venv's size on disk: the blocks of each file, a file with several links once."""
    seen: set[tuple[int, int]] = set()
    blocks = 0
    for folder, _, files in os.walk(venv):
        for name in files:
            status = os.lstat(os.path.join(folder, name))
            if (status.st_dev, status.st_ino) not in seen:
                seen.add((status.st_dev, status.st_ino))
                blocks += status.st_blocks
    return round(blocks * 512 / 2**20, 1)


def count_distributions(venv: Path) -> int:
    return len(list(venv.glob("lib/python*/site-packages/*.dist-info")))


def check_cli(python: Path, modules: Sequence[str]) -> dict[str, list[str]]:
    """Which of ``modules`` importing ``edgar_rag.cli`` loads in ``python``, and which exist."""
    found: dict[str, list[str]] = json.loads(_run([str(python), "-c", CLI_CHECK, *modules], 1))
    return found


def describe_venv(venv: Path, modules: Sequence[str]) -> dict[str, Any]:
    version = _run([str(venv / "bin/edgar-rag"), "--version"], 1).strip()
    return {
        "size_mib": venv_size_mib(venv),
        "distributions": count_distributions(venv),
        "version": version,
        **check_cli(venv / "bin/python", modules),
    }


def summarise(installs: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """The default install over all extras: time (P50), size and distributions."""
    default, everything = installs[DEFAULT], installs[ALL]
    return {
        key: round(default[key] / everything[key], 2)
        for key in ("p50_s", "size_mib", "distributions")
    }


def measure_install(
    project: Path, lock: Path, find_links: Path | None, out: Path, *, rounds: int = 5
) -> dict[str, Any]:
    """Install both ways ``rounds`` times, write the ``install`` entry of ``out``, and render
    the page again."""
    inputs = Inputs(Path(sys.executable).parent / "uv", lock.resolve(), find_links)
    modules = [name for extra in SPLIT_EXTRAS for name in EXTRA_MODULES[extra]]
    started = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="bench-install-") as work_dir:
        work = Path(work_dir)
        wheel = build_wheel(inputs.uv, project, work)
        requirements = {DEFAULT: f"{DEFAULT} @ {wheel.as_uri()}", ALL: f"{ALL} @ {wheel.as_uri()}"}
        install(inputs, work / "warm-up", requirements[ALL])
        seconds: dict[str, list[float]] = {DEFAULT: [], ALL: []}
        logs: dict[str, list[UvLog]] = {DEFAULT: [], ALL: []}
        for round_number in range(rounds):
            order = [DEFAULT, ALL] if round_number % 2 == 0 else [ALL, DEFAULT]
            for name in order:
                took, log = install(inputs, work / VENVS[name], requirements[name])
                seconds[name].append(took)
                logs[name].append(log)
        installs = {
            name: {
                "seconds": [round(value, 2) for value in seconds[name]],
                "p50_s": round(statistics.median(seconds[name]), 2),
                "max_s": round(max(seconds[name]), 2),
                "uv_installed": logs[name][-1].installed,
                "built": sorted({built for log in logs[name] for built in log.built}),
                "downloaded": sorted({got for log in logs[name] for got in log.downloaded}),
                **describe_venv(work / VENVS[name], modules),
            }
            for name in (DEFAULT, ALL)
        }
    entry = {
        "rounds": rounds,
        "cpus": os.cpu_count(),
        "load_average_1m": [round(started, 2), round(os.getloadavg()[0], 2)],
        "uv": _run([str(inputs.uv), "--version"], 1).split()[1],
        "uv_cache": _run([str(inputs.uv), "cache", "dir"], 1).strip(),
        "python": platform.python_version(),
        "lock": lock.name,
        "find_links": str(find_links) if find_links else None,
        "extras": list(SPLIT_EXTRAS),
        "modules": modules,
        "installs": installs,
        "default_over_all": summarise(installs),
    }
    record_entry(out, "install", entry)
    return entry


def _run(argv: Sequence[str], stream: int = 2) -> str:
    """Run ``argv`` and return its stdout (``stream`` 1) or its stderr (2, where uv logs)."""
    done = subprocess.run(
        argv, check=False, capture_output=True, text=True, env=clean_environment()
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])} failed ({done.returncode}): {done.stderr}")
    return done.stdout if stream == 1 else done.stderr
