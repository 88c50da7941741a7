"""The long-running commands: ``serve`` (HTTP and the page) and ``mcp`` (the Model Context
Protocol over stdio)."""

from __future__ import annotations

from pathlib import Path

import click

from edgar_rag.cli.app import db_option, settings_for


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@db_option
def serve(host: str, port: int, db: Path | None) -> None:
    """Serve the HTTP API and the web page (http://HOST:PORT/)."""
    from edgar_rag.service.app import serve as run_server  # noqa: PLC0415

    run_server(settings_for(db), host, port)


@click.command()
@db_option
def mcp(db: Path | None) -> None:
    """Serve the Model Context Protocol over stdio (tools: search, ask, compute, filings)."""
    from edgar_rag.mcp_server import serve_stdio  # noqa: PLC0415

    serve_stdio(db)
