"""The MCP server (``edgar-rag mcp``): the library's index as tools an agent calls over stdio.

Tools: ``search``, ``ask``, ``compute`` (what ``ask`` answers in code, never reaching a model)
and ``filings``. Each returns the body the service returns for the same request
(``service.models``: ``SearchResponse``, ``AskResponse``, the ``FilingEntry`` list), as
structured content and as its JSON text. Arguments are named as in the service's request
bodies. A ticker, CIK or year not indexed, or a model that cannot be reached (any
EdgarRagError), is a tool error whose text is the one line the command prints; arguments the
schema rejects are one line naming each field and what is wrong with it, as the service's 422
says (never the value given); anything else is logged and reported as an internal error. None
of them ends the server.

The SDK runs each tool in a worker thread; one lock keeps the index to one call at a time
(the service's lock does the same, and one local model answers one question at a time).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from edgar_rag.api import Index, open_index
from edgar_rag.errors import EdgarRagError
from edgar_rag.service.models import (
    AskResponse,
    FilingEntry,
    FormName,
    GateName,
    Question,
    SearchResponse,
)
from edgar_rag.version import __version__

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "Answers about SEC 10-K filings. Every figure in an answer is printed in a passage it "
    "cites; when the filing does not support an answer, the response declines with a typed "
    "reason (abstained true, reason, detail). Call filings first to see which companies and "
    "fiscal years are indexed; scope a question with ticker (or cik) and fiscal_year (and form "
    "and fiscal_quarter for a 10-Q, 8-K or earnings release), or leave them out to ask the "
    "whole corpus."
)

Ticker = Annotated[str | None, Field(description="scope to this company's filing")]
Cik = Annotated[int | None, Field(description="scope to this company by CIK")]
FiscalYear = Annotated[
    int | None, Field(description="the filing's fiscal year (default: the latest indexed)")
]
Form = Annotated[
    FormName | None, Field(description="the filing's form (default: the annual report, 10-K)")
]
Quarter = Annotated[
    int | None,
    Field(ge=1, le=4, description="a 10-Q's or an earnings release's fiscal quarter"),
]
Passages = Annotated[int, Field(ge=1, le=50, description="how many passages")]
Gate = Annotated[GateName | None, Field(description="relevance gate (default: the server's)")]

_READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class FilingsList(BaseModel):
    """The ``filings`` tool's structured content: the SDK wraps a list under ``result``."""

    result: list[FilingEntry]


def create_server(index: Index) -> MCPServer:
    """An MCP server whose tools read ``index``; the caller keeps and closes the index."""
    server = _OneLineErrors(
        name="edgar-rag", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    run = _runner(threading.Lock())

    @server.tool(annotations=_READ_ONLY)
    def search(
        question: Question,
        ticker: Ticker = None,
        cik: Cik = None,
        fiscal_year: FiscalYear = None,
        form: Form = None,
        fiscal_quarter: Quarter = None,
        k: Passages = 5,
    ) -> Annotated[CallToolResult, SearchResponse]:
        """Rank the passages that best answer a question, in one filing or the whole corpus."""

        def work() -> SearchResponse:
            hits = index.search(
                question,
                ticker=ticker,
                cik=cik,
                fiscal_year=fiscal_year,
                form=form,
                fiscal_quarter=fiscal_quarter,
                k=k,
            )
            scope = index.scope(ticker, cik, fiscal_year, form=form, fiscal_quarter=fiscal_quarter)
            source = scope.filing
            return SearchResponse.of(question, source, hits)

        return run(work)

    @server.tool(annotations=_READ_ONLY)
    def ask(
        question: Question,
        ticker: Ticker = None,
        cik: Cik = None,
        fiscal_year: FiscalYear = None,
        form: Form = None,
        fiscal_quarter: Quarter = None,
        gate: Gate = None,
    ) -> Annotated[CallToolResult, AskResponse]:
        """Answer a question with quoted citations, or decline with a typed reason. A figure,
        or one computed from reported figures (a margin, growth, a ratio, a comparison), is
        answered in code with its calculation; other questions go to the language model."""
        return run(
            lambda: AskResponse.of(
                index.ask(
                    question,
                    ticker=ticker,
                    cik=cik,
                    fiscal_year=fiscal_year,
                    form=form,
                    fiscal_quarter=fiscal_quarter,
                    gate=gate,
                )
            )
        )

    @server.tool(annotations=_READ_ONLY)
    def compute(
        question: Question,
        ticker: Ticker = None,
        cik: Cik = None,
        fiscal_year: FiscalYear = None,
        form: Form = None,
        fiscal_quarter: Quarter = None,
        gate: Gate = None,
    ) -> Annotated[CallToolResult, AskResponse]:
        """What ask answers in code with no language model: a reported figure, or one computed
        from cited figures with its formula and operands, or a decline decided before any
        model. A question that needs the model (prose) is a tool error: use ask for it."""

        def work() -> AskResponse:
            response = index.compute(
                question,
                ticker=ticker,
                cik=cik,
                fiscal_year=fiscal_year,
                form=form,
                fiscal_quarter=fiscal_quarter,
                gate=gate,
            )
            if response is None:
                raise _NeedsModelError(
                    "not a figure question answered in code; ask answers it with the model"
                )
            return AskResponse.of(response)

        return run(work)

    @server.tool(annotations=_READ_ONLY)
    def filings() -> Annotated[CallToolResult, FilingsList]:
        """The indexed filings: company, ticker, CIK, fiscal year, the years their statements
        report, and how many Items, chunks and facts each holds."""
        return run(
            lambda: FilingsList(
                result=[FilingEntry.model_validate(summary) for summary in index.filings()]
            )
        )

    return server


def serve_stdio(db: Path | None = None) -> None:
    """Serve the index of ``db`` (default: the settings') over stdio until stdin closes."""
    with open_index(db) as index:
        create_server(index).run("stdio")


class _OneLineErrors(MCPServer):
    """The SDK's server, its argument errors told in one line (the SDK passes pydantic's
    multi-line text, with links and the rejected values, to the agent)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            fields = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in cause.errors()
            )
            raise ToolError(f"invalid arguments for {name}: {fields}") from cause


class _NeedsModelError(EdgarRagError):
    """``compute`` was asked a question only the model answers (a tool error, not a crash)."""


def _runner(lock: threading.Lock) -> Callable[[Callable[[], BaseModel]], CallToolResult]:
    def run(work: Callable[[], BaseModel]) -> CallToolResult:
        try:
            with lock:
                body = work()
        except EdgarRagError as error:
            return _failure(str(error))
        except Exception as error:  # a bug: logged with its traceback, one line to the agent
            log.exception("unexpected_failure")
            return _failure(f"internal error ({type(error).__name__}); see the server's log")
        return _success(body)

    return run


def _success(body: BaseModel) -> CallToolResult:
    data: dict[str, Any] = body.model_dump(mode="json")
    shown = data["result"] if isinstance(body, FilingsList) else data
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(shown))], structured_content=data
    )


def _failure(line: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=line)], is_error=True)
