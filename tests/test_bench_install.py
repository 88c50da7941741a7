"""make bench-install: the default install against all extras, in throwaway venvs. The installs
themselves run only in the command; here, what needs none."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from edgar_rag_dev.bench.install import (
    Inputs,
    check_cli,
    count_distributions,
    parse_uv_log,
    summarise,
    venv_size_mib,
)
from edgar_rag_dev.bench.install_page import ALL, DEFAULT, render_install
from edgar_rag_dev.bench.report import record_entry, render_performance, render_readme_figures

DOCS = Path(__file__).resolve().parent.parent / "docs"

UV_LOG = """Using Python 3.11.7 environment at: /tmp/x/default
Resolved 83 packages in 86ms
   Building llama-cpp-python==0.3.36
      Built llama-cpp-python==0.3.36
Downloading torch (190.2MiB)
 Downloaded torch
Prepared 2 packages in 3m 01s
Installed 83 packages in 14.28s
 + click==8.2.1
"""


def _install(seconds: float, size_mib: float, distributions: int) -> dict[str, Any]:
    return {
        "seconds": [seconds], "p50_s": seconds, "max_s": seconds, "uv_installed": distributions,
        "built": [], "downloaded": [], "size_mib": size_mib, "distributions": distributions,
        "version": "edgar-rag, version 0.1.0", "imported": [], "installed": ["scipy"],
    }  # fmt: skip


def _entry() -> dict[str, Any]:
    installs = {DEFAULT: _install(6.0, 1500.0, 80), ALL: _install(8.0, 1600.0, 100)}
    return {
        "rounds": 1, "cpus": 2, "load_average_1m": [1.0, 1.5], "uv": "0.13.8",
        "uv_cache": "/root/.cache/uv", "python": "3.11.7", "lock": "requirements.lock",
        "find_links": "/opt/wheels", "extras": ["postgres", "serve", "mcp", "eval"],
        "modules": ["psycopg", "scipy"], "installs": installs,
        "default_over_all": summarise(installs),
    }  # fmt: skip


def test_uv_log_gives_the_counts_and_what_was_built_or_downloaded() -> None:
    log = parse_uv_log(UV_LOG)
    assert (log.resolved, log.installed) == (83, 83)
    assert log.built == ("llama-cpp-python==0.3.36",)
    assert log.downloaded == ("torch",)
    assert parse_uv_log("Installed 1 package in 5ms\n").installed == 1


def test_every_install_is_offline_copied_and_constrained_to_the_lock(tmp_path: Path) -> None:
    inputs = Inputs(Path("uv"), Path("requirements.lock"), Path("/opt/wheels"))
    argv = inputs.install_argv(tmp_path, ALL)
    assert argv[:3] == ["uv", "--color", "never"]
    assert {"--offline", "copy", "requirements.lock", "/opt/wheels"} <= set(argv)
    assert argv[-1] == ALL
    assert "--find-links" not in Inputs(Path("uv"), Path("lock"), None).install_argv(tmp_path, ALL)


def test_the_ratio_is_the_default_install_over_all_extras() -> None:
    ratio = _entry()["default_over_all"]
    assert ratio == {"p50_s": 0.75, "size_mib": 0.94, "distributions": 0.8}


def test_a_venv_is_measured_by_its_blocks_once_per_file_and_its_dist_infos(tmp_path: Path) -> None:
    site = tmp_path / "lib/python3.11/site-packages"
    (site / "a-1.dist-info").mkdir(parents=True)
    (site / "b-2.dist-info").mkdir()
    (site / "big.bin").write_bytes(b"x" * 2**20)
    os.link(site / "big.bin", site / "same.bin")
    assert count_distributions(tmp_path) == 2
    assert 1.0 <= venv_size_mib(tmp_path) < 1.1


def test_the_cli_check_names_the_modules_importing_the_cli_loaded() -> None:
    found = check_cli(Path(sys.executable), ["json", "no_such_module_here"])
    assert found == {"imported": ["json"], "installed": ["json"]}


def test_the_entry_is_written_and_the_page_renders_from_it(tmp_path: Path) -> None:
    out = tmp_path / "performance.json"
    shutil.copy(DOCS / "performance.json", out)
    entry = _entry()
    record_entry(out, "install", entry)
    data = json.loads(out.read_text())
    assert data["install"] == entry
    page = (tmp_path / "performance.md").read_text()
    assert page == render_performance(data)
    section = "\n".join(render_install(entry))
    assert section in page
    assert "| default / all | 0.75 | | | 0.94 | 0.80 |" in section
    assert "warm uv cache (`/root/.cache/uv`)" in section
    assert "builds logged: none" in section
    readme = render_readme_figures(tmp_path)
    assert "| 1500 / 1600 MiB (0.94x), 6.0 / 8.0 s (0.75x), 80 / 100 |" in readme
