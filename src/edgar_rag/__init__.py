"""edgar-rag: answers about SEC 10-K filings, every figure quoted from the passage it cites.

The library is ``open_index`` and the ``Index`` it returns (``edgar_rag.api``)::

    import edgar_rag

    with edgar_rag.open_index("edgar-rag.db") as index:
        index.ingest("filings/AAPL")
        hits = index.search("total net sales", ticker="AAPL", year=2025)
        response = index.ask("What was Apple's gross margin in fiscal 2025?", ticker="AAPL")

Importing it loads nothing heavy: each method imports what it runs.
"""

from edgar_rag.api import Index, open_index
from edgar_rag.version import __version__

__all__ = ["Index", "__version__", "open_index"]
