"""The package's version, in a module of its own: the EDGAR client's User-Agent names it, and
importing it from ``edgar_rag`` would make ``ingest`` import the library built above it."""

__version__ = "0.1.0"
