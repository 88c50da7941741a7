"""What ingest tells a person as it goes: each filing's stages, and a warning for a filing that
lacks Items every 10-K has (issue 41)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from edgar_rag.cli import main
from edgar_rag.domain import RawFiling
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.items import ITEMS, missing_items
from edgar_rag.ingest.local import find_local_filings


@dataclass(frozen=True)
class Loaded:
    """A filing source whose bytes are already at hand."""

    raw: RawFiling
    name: str = "apple-2025.htm"

    def load(self) -> RawFiling:
        return self.raw


@pytest.fixture(scope="module")
def apple_raw(sample_dir: Path) -> RawFiling:
    [apple] = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), (2025,))]
    return apple.load()


def test_each_stage_of_each_filing_is_told_as_it_begins(
    apple_raw: RawFiling, tmp_path: Path
) -> None:
    told: list[tuple[str, str]] = []
    index = SqliteIndex(tmp_path / "index.db")
    try:
        [result] = index_filings(
            [Loaded(apple_raw)], index, HashingEmbedder(), stages=lambda *s: told.append(s)
        )
    finally:
        index.close()
    assert result.outcome is Outcome.INDEXED
    assert told == [
        ("apple-2025.htm", "loading"),
        ("apple-2025.htm", "parsing"),
        ("apple-2025.htm", f"embedding {result.chunks} chunks"),
        ("apple-2025.htm", "storing"),
    ]
    assert result.warning is None  # the whole filing has every Item


def test_a_filing_with_its_middle_cut_out_is_indexed_with_a_warning_naming_the_count(
    apple_raw: RawFiling, tmp_path: Path
) -> None:
    content = apple_raw.content
    cut = content[: len(content) * 3 // 10] + content[-len(content) // 10 :]
    assert cut.rstrip().endswith(b"</html>")
    index = SqliteIndex(tmp_path / "index.db")
    try:
        [result] = index_filings(
            [Loaded(replace(apple_raw, content=cut))], index, HashingEmbedder()
        )
    finally:
        index.close()
    assert result.outcome is Outcome.INDEXED
    assert result.warning is not None
    assert f"of the {len(ITEMS)} 10-K Items found (missing Item " in result.warning
    assert "\n" not in result.warning


def test_the_items_a_10k_must_have_depend_on_its_year() -> None:
    every = [key for key in ITEMS if key != "16"]
    assert missing_items(every, 2025) == []
    assert missing_items([k for k in every if k not in ("1C", "9C")], 2021) == []
    assert missing_items([k for k in every if k != "1C"], 2024) == ["1C"]
    assert missing_items(["1", "1A"], 2025)[:3] == ["1B", "1C", "2"]


def test_ingest_prints_the_warning_on_stderr_and_the_outcome_on_stdout(
    sample_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    result = CliRunner().invoke(
        main, ["ingest", "--from", str(sample_dir), "--db", str(tmp_path / "index.db")]
    )
    assert result.exit_code == 0, result.output
    # The sample's PDF is a few pages of 3M's 10-K: two of its Items.
    [warning] = [line for line in result.stderr.splitlines() if line.startswith("warning")]
    assert warning.startswith("warning    ")
    assert "3M_2018_10K.pdf: only 2 of the 23 10-K Items found (missing Item 1B, " in warning
    assert "indexed    MMM FY2018" in result.stdout
    assert "warning" not in result.stdout
