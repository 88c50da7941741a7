"""The library a newcomer imports: ``edgar_rag.open_index`` and what its ``Index`` does."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import edgar_rag
from edgar_rag.errors import ConfigError, NotFoundError
from edgar_rag.ingest.indexer import Outcome

README = Path(__file__).parents[1] / "README.md"


def test_the_index_lists_searches_and_answers_a_figure_in_code(
    apple_library: edgar_rag.Index,
) -> None:
    (filing,) = apple_library.filings()
    assert (filing.ticker, filing.fiscal_year) == ("AAPL", 2025)
    hits = apple_library.search("Total net sales", ticker="AAPL", k=3)
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert {hit.passage.filing.accession for hit in hits} == {filing.accession}
    response = apple_library.ask("What was Apple's gross margin in fiscal 2025?", ticker="AAPL")
    assert response.generator == "computed"
    assert response.text is not None
    assert "46.9%" in response.text
    assert response.calculation is not None
    assert response.citations


def test_compute_answers_what_needs_no_model_and_nothing_else(
    apple_library: edgar_rag.Index,
) -> None:
    computed = apple_library.compute("What was Apple's revenue in fiscal 2025?", ticker="AAPL")
    assert computed is not None
    assert computed.text is not None
    assert "$416,161 million" in computed.text
    declined = apple_library.compute("What was Microsoft's revenue?", ticker="AAPL")
    assert declined is not None
    assert declined.reason is not None
    assert declined.reason.value == "out_of_scope"
    assert apple_library.compute("How does Apple describe its competition?", ticker="AAPL") is None


def test_compute_builds_no_generator(apple_index: Path, tmp_path: Path) -> None:
    """A replay setting whose tape is missing fails ask, never compute."""
    missing = tmp_path / "no-tape.jsonl"
    with edgar_rag.open_index(
        apple_index, embedder="hashing", tape_mode="replay", tape=missing
    ) as index:
        computed = index.compute("What was Apple's revenue in fiscal 2025?", ticker="AAPL")
        assert computed is not None
        assert computed.generator == "computed"
        with pytest.raises(ConfigError, match="tape not found"):
            index.ask("How does Apple describe its competition?", ticker="AAPL")


def test_a_name_not_indexed_raises_the_line_the_command_prints(
    apple_library: edgar_rag.Index,
) -> None:
    with pytest.raises(NotFoundError, match=r"^ticker ZZZZ is not indexed$"):
        apple_library.ask("revenue", ticker="ZZZZ")
    with pytest.raises(NotFoundError, match=r"indexed years: 2025$"):
        apple_library.search("revenue", ticker="AAPL", fiscal_year=2001)


def test_the_year_is_fiscal_year_as_over_http_and_mcp_and_year_is_still_taken(
    apple_library: edgar_rag.Index,
) -> None:
    margin = "What was Apple's gross margin in fiscal 2025?"
    named = apple_library.compute(margin, ticker="AAPL", fiscal_year=2025)
    old = apple_library.compute(margin, ticker="AAPL", year=2025)
    assert named is not None
    assert old is not None
    assert (named.text, old.text) == (old.text, named.text)
    assert apple_library.scope("AAPL", fiscal_year=2025) == apple_library.scope("AAPL", year=2025)
    hits = apple_library.search("net sales", ticker="AAPL", fiscal_year=2025, k=1)
    assert hits[0].passage.filing.fiscal_year == 2025
    with pytest.raises(ValueError, match="disagree"):
        apple_library.search("net sales", ticker="AAPL", fiscal_year=2025, year=2024)


def test_ingest_finds_nothing_to_write_before_it_opens_the_store(
    tmp_path: Path, sample_dir: Path
) -> None:
    db = tmp_path / "index.db"
    with edgar_rag.open_index(db, embedder="hashing") as index:
        with pytest.raises(NotFoundError, match="no filing for ZZZZ found under"):
            index.ingest(sample_dir / "filings", tickers=["zzzz"])
        assert not db.exists()
        (result,) = index.ingest(sample_dir / "filings", tickers=["wfc"])
        assert result.outcome is Outcome.INDEXED
        (again,) = index.ingest(sample_dir / "filings", tickers=["WFC"])
        assert again.outcome is Outcome.UNCHANGED


def test_importing_edgar_rag_loads_nothing_heavy() -> None:
    code = (
        "import sys, edgar_rag; heavy = ('pydantic', 'numpy', 'torch', 'httpx', 'sqlite3', "
        "'mcp'); print(sorted(m for m in heavy if m in sys.modules))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]", loaded.stderr


def test_the_readme_snippet_runs_as_written(
    tmp_path: Path,
    sample_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The README's Python section, run with the hashing embedder in a scratch folder."""
    (snippet,) = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_GENERATOR", "echo")
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    exec(compile(snippet.replace("src/edgar_rag/sample", str(sample_dir)), "README", "exec"))
    printed = capsys.readouterr().out
    assert "AAPL 2025" in printed
    assert "Apple's gross margin was 46.9% in fiscal 2025" in printed
