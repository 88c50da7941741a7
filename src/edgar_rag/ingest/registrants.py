"""Public companies by name, from edgartools' offline list: a filing that only its cover page
names (a PDF, a plain-text 10-K) gets its CIK and ticker here, when the name is one company's.

Names are compared by their key (``rules.company_key``: without case, punctuation, a leading
"The", trailing legal forms and EDGAR's state tags): the cover's ``Best Buy Co., Inc.`` is the
list's ``BEST BUY CO INC``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from edgar_rag.rules import ListedCompany, company_key, listed_companies


@dataclass(frozen=True, slots=True)
class Registrant:
    cik: int
    ticker: str | None
    """The list's first ticker for the CIK (the SEC lists a company's main class first)."""


class CompanyList:
    """Names of public companies, each to its CIK and ticker."""

    def __init__(self, rows: Iterable[ListedCompany]) -> None:
        """``rows``: ``(name, ticker, cik)`` in the SEC's order (rows without a CIK skipped)."""
        self._by_name: dict[tuple[str, ...], dict[int, str | None]] = {}
        for name, ticker, cik in rows:
            if cik is None:
                continue
            tickers = self._by_name.setdefault(company_key(name), {})
            if tickers.get(cik) is None:
                tickers[cik] = ticker or None

    @classmethod
    def from_edgartools(cls) -> CompanyList:
        """The public companies edgartools ships (``rules.listed_companies``)."""
        return cls(listed_companies())

    def identify(self, name: str) -> Registrant | None:
        """The one company of this name, or None (no company, or several)."""
        found = self._by_name.get(company_key(name), {})
        if len(found) != 1:
            return None
        ((cik, ticker),) = found.items()
        return Registrant(cik, ticker)
