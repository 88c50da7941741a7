"""Before any ingest: every command, the library, HTTP and MCP say in one line what to run, and
nothing that only reads creates the index file (issue 41)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

import edgar_rag
from edgar_rag.cli import main
from edgar_rag.errors import EmptyIndexError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.mcp_server import create_server
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, create_app
from fakes import ScriptedGenerator, scripted_answerer

LINE = (
    "no filings indexed: run edgar-rag ingest --from DIR, or edgar-rag ingest --tickers AAPL "
    "--years 2025 to fetch 10-Ks from SEC EDGAR"
)
READS = [
    ["ask", "What were Apple's net sales?"],
    ["ask", "What were Apple's net sales?", "--ticker", "AAPL"],
    ["search", "net sales"],
    ["search", "net sales", "--ticker", "AAPL", "--json"],
    ["filings"],
    ["filings", "--json"],
]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    monkeypatch.setenv("EDGAR_RAG_GENERATOR", "echo")
    monkeypatch.setenv("EDGAR_RAG_MODEL_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.chdir(tmp_path)
    return CliRunner()


@pytest.mark.parametrize("command", [*READS, ["serve", "--port", "1"]])
def test_a_command_on_a_missing_index_says_what_to_run_and_creates_nothing(
    run: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "edgar-rag.db"
    result = run.invoke(main, [*command, "--db", str(db)])
    assert result.exit_code == 1, result.output
    assert result.stderr == f"Error: {LINE.replace(':', f' ({db} does not exist):', 1)}\n"
    assert result.stdout == ""
    assert list(tmp_path.glob("edgar-rag.db*")) == []


@pytest.mark.parametrize("command", READS)
def test_a_command_on_an_empty_index_says_what_to_run(
    run: CliRunner, tmp_path: Path, command: list[str]
) -> None:
    db = tmp_path / "empty.db"
    SqliteIndex(db).close()
    result = run.invoke(main, [*command, "--db", str(db)])
    assert (result.exit_code, result.stderr, result.stdout) == (1, f"Error: {LINE}\n", "")


def test_the_library_raises_the_line_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "edgar-rag.db"
    with edgar_rag.open_index(db, embedder="hashing", generator="echo") as index:
        for read in (
            index.filings,
            lambda: index.search("net sales"),
            lambda: index.ask("What were Apple's net sales?", ticker="AAPL"),
            lambda: index.compute("What were Apple's net sales?"),
        ):
            with pytest.raises(EmptyIndexError, match="no filings indexed"):
                read()
    assert not db.exists()
    SqliteIndex(db).close()
    with edgar_rag.open_index(db, embedder="hashing", generator="echo") as index:
        assert index.filings() == []  # a list, empty: nothing to say beyond it
        with pytest.raises(EmptyIndexError, match=f"^{LINE}$"):
            index.search("net sales")


def test_http_on_an_empty_index_is_409_for_a_question_and_empty_for_the_lists(
    tmp_path: Path,
) -> None:
    index = SqliteIndex(tmp_path / "empty.db")
    answerer = scripted_answerer(index, ScriptedGenerator([]))
    client = TestClient(create_app(Services(index, Searcher(index, HashingEmbedder()), answerer)))
    try:
        for path, body in (
            ("/ask", {"question": "What were Apple's net sales?"}),
            ("/ask", {"question": "What were Apple's net sales?", "ticker": "AAPL"}),
            ("/query", {"question": "net sales"}),
            ("/search", {"question": "net sales"}),
        ):
            reply = client.post(path, json=body)
            assert (reply.status_code, reply.json()) == (
                409,
                {"error": "no_filings", "detail": LINE},
            ), path
        streamed = client.post(
            "/ask", json={"question": "net sales"}, headers={"Accept": "text/event-stream"}
        )
        assert streamed.status_code == 409
        assert client.get("/filings").json() == []
        health = client.get("/health")
        assert (health.status_code, health.json()["filings"]) == (200, 0)
    finally:
        index.close()


def test_mcp_on_a_missing_index_is_the_line_and_creates_nothing(tmp_path: Path) -> None:
    db = tmp_path / "edgar-rag.db"

    async def session() -> list[str]:
        with edgar_rag.open_index(db, embedder="hashing", generator="echo") as index:
            async with Client(create_server(index)) as client:
                results = [
                    await client.call_tool(name, arguments)
                    for name, arguments in (
                        ("filings", {}),
                        ("search", {"question": "net sales"}),
                        ("ask", {"question": "net sales", "ticker": "AAPL"}),
                    )
                ]
        assert all(result.is_error for result in results)
        return [getattr(result.content[0], "text", "") for result in results]

    assert anyio.run(session) == [LINE.replace(":", f" ({db} does not exist):", 1)] * 3
    assert not db.exists()
