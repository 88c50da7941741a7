"""Ingest on a Dask cluster the tests start: two one-thread workers on this machine, real
PostgreSQL, the hashing embedder and three sample filings; workers killed mid-run.

The engine is an optional extra (``cluster``): without Dask these tests skip, all but the one
that needs no engine.
"""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, cast

import pytest
from click.testing import CliRunner

from edgar_rag.api import open_index
from edgar_rag.cli import main
from edgar_rag.compose import build_embedder
from edgar_rag.domain import (
    EmbedderIdentity,
    FilingMeta,
    FilingStore,
    ParsedFiling,
    RawFiling,
    Vectors,
)
from edgar_rag.index.postgres import PostgresIndex
from edgar_rag.ingest.indexer import Outcome
from edgar_rag.ingest.pipeline import ingest_filing

YEAR = 2024
"""The sample's filings of fiscal 2024: Apple's, Home Depot's and Wells Fargo's."""


def _kill_this_worker_once(marker: Path) -> None:
    """SIGKILL the worker process running the task, the first time only (a marker file keeps
    count across worker processes)."""
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)


@dataclass(frozen=True)
class DyingParse:
    """Parses; the first time it parses ``victim``, kills its worker before anything is stored."""

    victim: str
    marker: Path

    def __call__(self, raw: RawFiling) -> ParsedFiling:
        parsed = ingest_filing(raw)
        if parsed.meta.ticker == self.victim:
            _kill_this_worker_once(self.marker)
        return parsed


@dataclass
class DyingStore:
    """A PostgreSQL store whose first write of ``victim`` kills its worker right after the
    transaction commits, before the task can report back: the retry must not write it again."""

    url: str
    victim: str
    marker: Path
    store: PostgresIndex | None = None

    def _open(self) -> PostgresIndex:
        if self.store is None:
            self.store = PostgresIndex(self.url)
        return self.store

    def ensure_embedder(self, identity: EmbedderIdentity) -> None:
        self._open().ensure_embedder(identity)

    def stored_filing(self, sha256: str) -> FilingMeta | None:
        return self._open().stored_filing(sha256)

    def write_filing(self, parsed: ParsedFiling, vectors: Vectors) -> int:
        filing_id = self._open().write_filing(parsed, vectors)
        if parsed.meta.ticker == self.victim:
            _kill_this_worker_once(self.marker)
        return filing_id

    def close(self) -> None:
        if self.store is not None:
            self.store.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._open(), name)


def _open_dying_store(url: str, victim: str, marker: Path) -> FilingStore:
    return cast("FilingStore", DyingStore(url, victim, marker))  # the rest by delegation


@pytest.fixture
def dask() -> None:
    """Skip where Dask distributed is not installed, before a PostgreSQL server is started."""
    pytest.importorskip("distributed")


def _hashing_embedder() -> Any:
    return build_embedder("hashing", Path())


def test_a_cluster_ingest_needs_postgresql(tmp_path: Path, sample_dir: Path) -> None:
    with open_index(tmp_path / "index.db", embedder="hashing") as index:
        sources = index.find_sources(sample_dir / "filings", years=[YEAR])
        with pytest.raises(Exception, match="EDGAR_RAG_DATABASE_URL"):
            list(index.ingest_each(sources, cluster="local"))


@pytest.mark.postgres
@pytest.mark.usefixtures("dask")
def test_workers_killed_mid_run_leave_each_filing_whole_and_once(
    postgres_url: str,
    sample_dir: Path,
    sample_filings: dict[str, ParsedFiling],
    tmp_path: Path,
) -> None:
    import cloudpickle  # noqa: PLC0415 (a dependency of distributed)

    from edgar_rag.ingest.cluster import WorkerTools, index_on_cluster  # noqa: PLC0415

    # The workers unpickle this module's fakes by value: they need not import the tests.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    tools = WorkerTools(
        open_store=partial(_open_dying_store, postgres_url, "HD", tmp_path / "killed-after"),
        build_embedder=_hashing_embedder,
        parse=DyingParse("AAPL", tmp_path / "killed-before"),
    )
    with open_index(database_url=postgres_url, embedder="hashing") as index:
        sources = index.find_sources(sample_dir / "filings", years=[YEAR])
        index.store.ensure_embedder(_hashing_embedder().identity)
        results = list(index_on_cluster(sources, "local", tools, workers=2))
        stored = index.filings()

    assert (tmp_path / "killed-before").exists()
    assert (tmp_path / "killed-after").exists()
    assert sorted(r.outcome for r in results) == sorted(
        [Outcome.INDEXED, Outcome.INDEXED, Outcome.UNCHANGED]
    ), results
    assert Counter((f.ticker, f.fiscal_year) for f in stored) == {
        ("AAPL", YEAR): 1,
        ("HD", YEAR): 1,
        ("WFC", YEAR): 1,
    }
    for filing in stored:
        whole = sample_filings[f"{filing.ticker}-{YEAR}"]
        assert (filing.chunks, filing.facts) == (len(whole.chunks), len(whole.facts))


@pytest.mark.postgres
@pytest.mark.usefixtures("dask")
def test_ingest_on_a_local_cluster_from_the_command(
    postgres_url: str, sample_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_DATABASE_URL", postgres_url)
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(tmp_path / "cache"))
    args = ["ingest", "--from", str(sample_dir / "filings"), "--years", str(YEAR)]

    first = CliRunner().invoke(main, [*args, "--cluster", "local", "--workers", "2"])
    again = CliRunner().invoke(main, [*args, "--cluster", "local", "--workers", "1"])

    assert first.exit_code == 0, first.output
    assert first.output.count("indexed ") == 3
    assert again.exit_code == 0, again.output
    assert again.output.count("unchanged ") == 3


@pytest.mark.postgres
@pytest.mark.usefixtures("dask")
def test_a_scheduler_that_does_not_answer_is_one_line(
    postgres_url: str, sample_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_DATABASE_URL", postgres_url)
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    args = ["ingest", "--from", str(sample_dir / "filings"), "--cluster", "tcp://127.0.0.1:9"]

    result = CliRunner().invoke(main, args)

    assert result.exit_code == 1
    assert "cannot reach the Dask cluster at tcp://127.0.0.1:9" in result.output
    assert "Traceback" not in result.output
