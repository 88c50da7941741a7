"""The optional parts of edgar-rag, by the extra that installs them, and the one line a user
reads when a part is used without its extra.

The default install answers from SQLite with the local embedders; each extra below is imported
only by what uses it (pyproject.toml lists the same extras). The command's one place that
translates errors (``cli.EdgarRagGroup``) and ``compose`` ask ``missing_extra`` what an
``ImportError`` of a third-party module means.
"""

from __future__ import annotations

from edgar_rag.errors import MissingExtraError

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "postgres": ("psycopg", "psycopg_binary", "pgvector"),
    "serve": (
        "fastapi",
        "fastapi_offline",
        "starlette",
        "uvicorn",
        "sse_starlette",
        "prometheus_client",
    ),
    "mcp": ("mcp",),
    "eval": ("scipy", "statsmodels", "patsy"),
    "cluster": ("dask", "distributed"),
}
"""Each extra, with the top-level modules of what it installs that edgar-rag imports."""

FEATURES = {
    "postgres": "the PostgreSQL store (EDGAR_RAG_DATABASE_URL)",
    "serve": "the HTTP service",
    "mcp": "the MCP server",
    "eval": "the evaluations' statistics",
    "cluster": "ingest on a Dask cluster",
}
"""What each extra gives, as the error names it."""


def extra_of(module: str | None) -> str | None:
    """The extra that installs ``module`` (a dotted name), if one does."""
    top = (module or "").partition(".")[0]
    return next((extra for extra, tops in EXTRA_MODULES.items() if top in tops), None)


def missing_extra(error: ImportError) -> MissingExtraError | None:
    """The one-line error for an import that failed because an extra is not installed; None
    when the module that failed to import belongs to no extra (a bug, or a broken install)."""
    extra = extra_of(error.name)
    if extra is None:
        return None
    return MissingExtraError(
        f"{FEATURES[extra]} needs the '{extra}' extra ({error.name} is not installed): "
        f"pip install 'edgar-rag[{extra}]'"
    )
