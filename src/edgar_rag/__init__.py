"""edgar-rag: answers about SEC 10-K filings, every figure quoted from the passage it cites."""

__version__ = "0.1.0"
