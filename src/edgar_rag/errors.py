"""The errors edgar-rag raises, one tree; ``str(error)`` is the one line a user reads.

::

    EdgarRagError              exit_code = 1
    ├── ConfigError            a setting is missing or invalid (exit 2)
    │   └── MissingExtraError  an optional part is used without the extra that installs it
    ├── SourceError            EDGAR, the model server or the database did not answer
    ├── ParseError             a filing arrived but could not be understood
    ├── NotFoundError          a ticker, CIK, year or filing the caller named does not exist
    ├── EmptyIndexError        no filing is indexed yet, or the index file does not exist
    └── IndexMismatchError     the index was built by another embedder, or changed since

A decline is not an error: answering returns a typed decline. Adapters translate library
exceptions at their boundary (``raise SourceError(...) from exc``).
"""

from __future__ import annotations


class EdgarRagError(Exception):
    """Root of every error edgar-rag raises on purpose."""

    exit_code: int = 1


class ConfigError(EdgarRagError):
    """A setting is missing or invalid."""

    exit_code = 2


class MissingExtraError(ConfigError):
    """An optional part (PostgreSQL, the service, MCP, the statistics) is used without the extra
    that installs it; the message names the ``pip install`` to run (``edgar_rag.extras``)."""


class SourceError(EdgarRagError):
    """EDGAR, a model server or the database did not answer as expected."""


class ParseError(EdgarRagError):
    """A filing arrived but could not be understood (not a 10-K, truncated, unreadable)."""


class NotFoundError(EdgarRagError):
    """Something the caller named (ticker, CIK, fiscal year, filing) does not exist."""


class EmptyIndexError(EdgarRagError):
    """No filing is indexed yet, or the SQLite file does not exist (which a command that only
    reads never creates); the message names the command that fills it."""

    def __init__(self, missing: str | None = None) -> None:
        where = f" ({missing} does not exist)" if missing else ""
        super().__init__(
            f"no filings indexed{where}: run edgar-rag ingest --from DIR, or edgar-rag ingest "
            "--tickers AAPL --years 2025 to fetch 10-Ks from SEC EDGAR"
        )


class IndexMismatchError(EdgarRagError):
    """The index was built by another embedder, or by another schema version."""
