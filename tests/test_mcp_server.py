"""The MCP server as an agent meets it, through the SDK's own client: in process, and as
``edgar-rag mcp`` over stdio."""

from __future__ import annotations

import json
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

import edgar_rag
from edgar_rag.cli import main
from edgar_rag.domain import FilingSummary
from edgar_rag.mcp_server import create_server
from edgar_rag.service.app import build_services, create_app
from edgar_rag.service.models import AskResponse

MARGIN = "What was Apple's gross margin in fiscal 2025?"


def call(
    server: MCPServer | StdioServerParameters, *calls: tuple[str, dict[str, Any]]
) -> list[CallToolResult]:
    """Each call in turn, in one session of the SDK's client."""

    async def session() -> list[CallToolResult]:
        async with Client(server) as client:
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(session)


def text_of(result: CallToolResult) -> str:
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def test_the_tools_are_listed_with_the_response_object_as_their_schema(
    apple_library: edgar_rag.Index,
) -> None:
    async def listed() -> dict[str, Any]:
        async with Client(create_server(apple_library)) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    tools = anyio.run(listed)
    assert list(tools) == ["search", "ask", "compute", "filings"]
    ask = tools["ask"]
    assert set(ask.input_schema["properties"]) == {
        "question", "ticker", "cik", "fiscal_year", "form", "fiscal_quarter", "gate",
    }  # fmt: skip
    assert ask.input_schema["required"] == ["question"]
    assert ask.output_schema is not None
    assert set(ask.output_schema["properties"]) == set(AskResponse.model_fields)
    assert all(tool.annotations.read_only_hint for tool in tools.values())


def test_ask_returns_the_body_the_service_returns(apple_library: edgar_rag.Index) -> None:
    question = {"question": MARGIN, "ticker": "AAPL"}
    (result,) = call(create_server(apple_library), ("ask", question))
    assert not result.is_error
    body = result.structured_content
    assert body is not None
    assert json.loads(text_of(result)) == body
    assert body["generator"] == "computed"
    assert body["text"].startswith("Apple's gross margin was 46.9% in fiscal 2025")
    assert body["calculation"]["formula"] == "gross_profit / revenue"
    services = build_services(apple_library.settings)
    with closing(services.index), TestClient(create_app(services)) as http:
        served = http.post("/ask", json=question).json()
    assert {**body, "timings_ms": None} == {**served, "timings_ms": None}


def test_search_filings_and_compute_answer_as_the_service_would(
    apple_library: edgar_rag.Index,
) -> None:
    prose = "How does Apple describe its competition?"
    searched, listed, computed, needs_model = call(
        create_server(apple_library),
        ("search", {"question": "Total net sales", "ticker": "aapl", "k": 3}),
        ("filings", {}),
        ("compute", {"question": "What was Apple's revenue in fiscal 2025?", "ticker": "AAPL"}),
        ("compute", {"question": prose, "ticker": "AAPL"}),
    )
    hits = json.loads(text_of(searched))
    assert hits["source"]["ticker"] == "AAPL"
    assert [hit["rank"] for hit in hits["hits"]] == [1, 2, 3]
    (filing,) = json.loads(text_of(listed))
    assert (filing["ticker"], filing["fiscal_year"], filing["years_reported"]) == (
        "AAPL", 2025, [2023, 2024, 2025],
    )  # fmt: skip
    assert "$416,161 million" in json.loads(text_of(computed))["text"]
    assert needs_model.is_error
    assert text_of(needs_model) == (
        "not a figure question answered in code; ask answers it with the model"
    )


def test_bad_input_is_a_tool_error_in_the_line_the_command_prints(
    apple_library: edgar_rag.Index, apple_index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unknown, bad_year, blank, still = call(
        create_server(apple_library),
        ("ask", {"question": "revenue", "ticker": "ZZZZ"}),
        ("search", {"question": "revenue", "ticker": "AAPL", "fiscal_year": 2001}),
        ("ask", {"question": "   "}),
        ("filings", {}),
    )
    monkeypatch.setenv("EDGAR_RAG_EMBEDDER", "hashing")
    runner = CliRunner()
    for result, argv in [
        (unknown, ["ask", "revenue", "--ticker", "ZZZZ"]),
        (bad_year, ["search", "revenue", "--ticker", "AAPL", "--year", "2001"]),
    ]:
        printed = runner.invoke(main, [*argv, "--db", str(apple_index)])
        assert result.is_error
        assert f"Error: {text_of(result)}" == printed.stderr.strip()
    assert text_of(unknown) == "ticker ZZZZ is not indexed"
    assert blank.is_error
    assert "question" in text_of(blank)
    assert not still.is_error  # the server answers on after each error


def test_arguments_the_schema_rejects_are_one_line_naming_each_field(
    apple_library: edgar_rag.Index,
) -> None:
    too_many, two_wrong = call(
        create_server(apple_library),
        ("search", {"question": "revenue", "k": 100}),
        ("ask", {"question": "", "fiscal_year": "last year"}),
    )
    assert too_many.is_error
    assert (
        text_of(too_many)
        == "invalid arguments for search: k: Input should be less than or equal to 50"
    )
    assert two_wrong.is_error
    assert text_of(two_wrong) == (
        "invalid arguments for ask: question: String should have at least 1 character; "
        "fiscal_year: Input should be a valid integer, unable to parse string as an integer"
    )  # one line, and never the value given


class _BrokenIndex(edgar_rag.Index):
    def filings(self) -> list[FilingSummary]:
        raise RuntimeError("a bug")


def test_an_unexpected_failure_is_one_line_and_the_server_goes_on(
    apple_index: Path, caplog: pytest.LogCaptureFixture
) -> None:
    index = _BrokenIndex(edgar_rag.open_index(apple_index, embedder="hashing").settings)
    with closing(index):
        broken, searched = call(
            create_server(index),
            ("filings", {}),
            ("search", {"question": "Total net sales", "ticker": "AAPL"}),
        )
    assert broken.is_error
    assert text_of(broken) == "internal error (RuntimeError); see the server's log"
    assert "a bug" in caplog.text
    assert not searched.is_error


def test_edgar_rag_mcp_serves_the_tools_over_stdio(apple_index: Path, tmp_path: Path) -> None:
    environment = {
        "EDGAR_RAG_EMBEDDER": "hashing",
        "EDGAR_RAG_GENERATOR": "echo",
        "EDGAR_RAG_MODEL_DIR": str(tmp_path / "cache"),
        "PYTHONPATH": os.environ.get("PYTHONPATH", ""),
    }
    command = StdioServerParameters(
        command=str(Path(sys.executable).with_name("edgar-rag")),
        args=["mcp", "--db", str(apple_index)],
        env=environment,
        cwd=tmp_path,
    )
    listed, asked = call(command, ("filings", {}), ("ask", {"question": MARGIN, "ticker": "AAPL"}))
    assert json.loads(text_of(listed))[0]["ticker"] == "AAPL"
    assert asked.structured_content is not None
    assert asked.structured_content["calculation"]["formula"] == "gross_profit / revenue"
