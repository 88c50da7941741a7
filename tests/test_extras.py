"""The default install without any extra: what it runs, and the one line naming the extra to
install when an optional part is used without it. Each command runs in a new interpreter where
the extras' modules cannot be imported, as in a venv made by ``pip install edgar-rag``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from edgar_rag.extras import EXTRA_MODULES, extra_of, missing_extra

ROOT = Path(__file__).resolve().parent.parent

WITHOUT_EXTRAS = """
import sys
from edgar_rag.extras import EXTRA_MODULES
for modules in EXTRA_MODULES.values():
    for module in modules:
        sys.modules[module] = None  # an import of it raises ModuleNotFoundError
from edgar_rag.cli import main
main(sys.argv[1:])
"""


def run_without_extras(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("EDGAR_RAG_")
    }
    environment |= {
        "EDGAR_RAG_DB": str(tmp_path / "index.db"),
        "EDGAR_RAG_EMBEDDER": "hashing",
        "EDGAR_RAG_GENERATOR": "echo",
        "EDGAR_RAG_MODEL_DIR": str(tmp_path / "cache"),
        "XDG_CACHE_HOME": str(tmp_path / "user-cache"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=environment,
        check=False,
    )


def test_the_default_install_ingests_lists_searches_and_asks(
    tmp_path: Path, sample_dir: Path
) -> None:
    steps = [
        ["ingest", "--from", str(sample_dir / "filings"), "--tickers", "AAPL", "--years", "2025"],
        ["filings"],
        ["search", "net income", "--ticker", "AAPL"],
        ["ask", "How much net income did Apple report for fiscal year 2025?", "--ticker", "AAPL"],
    ]
    for step in steps:
        done = run_without_extras(tmp_path, *step)
        assert done.returncode == 0, (step, done.stderr)
    assert "AAPL" in run_without_extras(tmp_path, "filings").stdout


@pytest.mark.parametrize(
    ("args", "env", "extra"),
    [
        (["serve"], {}, "serve"),
        (["mcp"], {}, "mcp"),
        (["filings"], {"EDGAR_RAG_DATABASE_URL": "postgresql://127.0.0.1/none"}, "postgres"),
        (["dev", "eval", "render"], {}, "eval"),
    ],
)  # fmt: skip
def test_an_optional_part_without_its_extra_is_one_line_naming_the_extra(
    tmp_path: Path, sample_dir: Path, args: list[str], env: dict[str, str], extra: str
) -> None:
    argv = [arg.replace("{sample}", str(sample_dir)) for arg in args]
    failed = run_without_extras(tmp_path, *argv, env=env)
    assert (failed.returncode, failed.stdout) == (2, "")
    line = re.fullmatch(
        rf"Error: [^\n]+ needs the '{extra}' extra \(([.\w]+) is not installed\):"
        rf" pip install 'edgar-rag\[{extra}\]'\n",
        failed.stderr,
    )
    assert line is not None, failed.stderr
    assert line.group(1).partition(".")[0] in EXTRA_MODULES[extra]
    assert not (tmp_path / "index.db").exists()
    assert not (tmp_path / "user-cache" / "edgar-rag" / "edgar-rag.log").exists()


def test_a_missing_module_of_no_extra_is_no_extra_error() -> None:
    assert extra_of("statsmodels.stats.power") == "eval"
    assert extra_of("distributed") == "cluster"
    assert extra_of("numpy") is None
    assert missing_extra(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None
    assert missing_extra(ImportError("no pq wrapper available")) is None


def test_the_extras_named_are_those_of_pyproject_and_the_lock_holds_every_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = set(project["optional-dependencies"])
    assert set(EXTRA_MODULES) <= extras
    header = (ROOT / "requirements.lock").read_text(encoding="utf-8").splitlines()[1]
    assert set(re.findall(r"--extra (\S+)", header)) == extras
    required = " ".join(project["dependencies"])
    for extra in ("postgres", "serve", "mcp", "eval"):
        for requirement in project["optional-dependencies"][extra]:
            assert requirement.split("[")[0].split(">")[0] not in required, requirement
