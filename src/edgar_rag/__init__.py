"""edgar-rag: answers about SEC 10-K filings, every figure quoted from the passage it cites.

The library is ``open_index`` and the ``Index`` it returns (``edgar_rag.api``)::

    import edgar_rag

    with edgar_rag.open_index("edgar-rag.db") as index:
        index.ingest("filings/AAPL")
        hits = index.search("total net sales", ticker="AAPL", fiscal_year=2025)
        response = index.ask("What was Apple's gross margin in fiscal 2025?", ticker="AAPL")

Importing it loads nothing heavy: ``edgar_rag.api`` is imported on first use of its names (the
``edgar-rag`` command imports this package before it parses ``--version``), and each method
imports what it runs.
"""

from typing import TYPE_CHECKING, Any

from edgar_rag.version import __version__

if TYPE_CHECKING:
    from edgar_rag.api import Index, open_index

__all__ = ["Index", "__version__", "open_index"]


def __getattr__(name: str) -> Any:
    if name in ("Index", "open_index"):
        from edgar_rag import api  # noqa: PLC0415

        return getattr(api, name)
    raise AttributeError(f"module 'edgar_rag' has no attribute {name!r}")
