"""Public companies by name, from edgartools' offline list: a filing that only its cover page
names (a PDF, a plain-text 10-K) gets its CIK and ticker here, when the name is one company's.

Names are compared without case, punctuation, a leading "The", trailing legal forms (Inc.,
Corporation, Co., plc...) and EDGAR's state tags (``/NEW``, ``/NY/``): the cover's
``Best Buy Co., Inc.`` is the list's ``BEST BUY CO INC``.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

_LEGAL_FORMS = frozenset(
    "inc incorporated corp corporation co company companies ltd limited plc llc lp nv sa ag se "
    "com".split()
)
_STATE = re.compile(r"/[A-Za-z]{1,3}\b/?")
_WORD = re.compile(r"[a-z0-9]+|&")


@dataclass(frozen=True, slots=True)
class Registrant:
    cik: int
    ticker: str | None
    """The list's first ticker for the CIK (the SEC lists a company's main class first)."""


class CompanyList:
    """Names of public companies, each to its CIK and ticker."""

    def __init__(self, rows: Iterable[tuple[str, str | None, int]]) -> None:
        """``rows``: ``(name, ticker, cik)`` in the SEC's order."""
        self._by_name: dict[tuple[str, ...], dict[int, str | None]] = {}
        for name, ticker, cik in rows:
            tickers = self._by_name.setdefault(name_key(name), {})
            if tickers.get(cik) is None:
                tickers[cik] = ticker or None

    @classmethod
    def from_edgartools(cls) -> CompanyList:
        """The ~10,000 companies edgartools ships, read without importing edgartools (which
        takes seconds and builds an HTTP client at import)."""
        spec = importlib.util.find_spec("edgar")
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError("edgartools is not installed: no list of public companies")
        package = Path(next(iter(spec.submodule_search_locations)))
        return cls(_read_rows(package / "reference/data/company_tickers.parquet"))

    def identify(self, name: str) -> Registrant | None:
        """The one company of this name, or None (no company, or several)."""
        found = self._by_name.get(name_key(name), {})
        if len(found) != 1:
            return None
        ((cik, ticker),) = found.items()
        return Registrant(cik, ticker)


def name_key(name: str) -> tuple[str, ...]:
    """The words that tell a company's name from another's."""
    text = _STATE.sub(" ", name).replace("’", "").replace("'", "").lower()
    words = _WORD.findall(text)
    if words[:1] == ["the"] and len(words) > 1:
        words = words[1:]
    while len(words) > 1 and words[-1] in _LEGAL_FORMS:
        words.pop()
    return tuple(words)


def _read_rows(path: Path) -> list[tuple[str, str | None, int]]:
    # pyarrow comes with edgartools: imported only when the list is read.
    import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: PLC0415  # no py.typed

    # ParquetFile.read, not read_table: read_table first imports pyarrow.dataset (1.5 s here).
    table = pq.ParquetFile(path).read(columns=["name", "ticker", "cik"], use_threads=False)
    names, tickers, ciks = (table.column(column).to_pylist() for column in table.column_names)
    return [
        (str(name), str(ticker) if ticker else None, int(str(cik)))
        for name, ticker, cik in zip(names, tickers, ciks, strict=True)
        if name and cik
    ]
