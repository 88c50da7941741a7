"""Inline-XBRL: numeric facts with their contexts and units, and the ``dei:`` cover facts.

A fact's value is scaled and signed as XBRL defines it: the displayed ``416,161`` with
``scale="6"`` is 416,161,000,000; ``sign="-"`` negates it.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date

import lxml.html

from edgar_rag.domain import Fact
from edgar_rag.ingest.html import FACT_TAG
from edgar_rag.rules import fiscal_year_at, parse_number_words

log = logging.getLogger(__name__)

_NONE_WORDS = frozenset({"no", "none"})


@dataclass(frozen=True, slots=True)
class Context:
    start: date | None
    end: date
    dimensions: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class XbrlDocument:
    """What the inline-XBRL of one filing says: numeric facts keyed by element id, cover facts."""

    facts: dict[str, Fact]
    cover: dict[str, str]
    """``dei:`` facts by local name (``DocumentType`` -> ``10-K``), first occurrence wins."""
    cover_period_end: date | None
    """The end of the context of ``dei:DocumentType``: the fiscal period the filing covers."""

    def years_reported(self, fiscal_year: int, period_end: date | None) -> tuple[int, ...]:
        """Fiscal years with full-year figures in the filing, from its one-year contexts.

        A year counts when at least a tenth as many facts cover it as cover the best-covered
        year, so a five-year summary table alone does not make a year "reported".
        """
        if period_end is None:
            return ()
        ends = Counter(
            fact.period_end
            for fact in self.facts.values()
            if fact.period_start is not None
            and not fact.dimensions
            and 350 <= (fact.period_end - fact.period_start).days <= 380
        )
        enough = max(3, max(ends.values(), default=0) // 10)
        years = {
            fiscal_year_at(end, period_end, fiscal_year)
            for end, count in ends.items()
            if count >= enough and end <= period_end
        }
        return tuple(sorted(years))


def read_xbrl(root: lxml.html.HtmlElement) -> XbrlDocument:
    """Read contexts, units, numeric facts and cover facts from a parsed inline-XBRL document."""
    contexts = {c.get("id", ""): _context(c) for c in root.iter("xbrli:context")}
    units = {u.get("id", ""): _unit(u) for u in root.iter("xbrli:unit")}
    facts: dict[str, Fact] = {}
    for index, element in enumerate(root.iter(FACT_TAG)):
        context = contexts.get(element.get("contextref", ""))
        if context is None or element.get("xsi:nil") == "true":
            continue
        displayed = element.text_content().strip()
        number = _displayed_number(displayed, element.get("format", ""))
        if number is None:
            log.debug("xbrl_value_skipped", extra={"displayed": displayed})
            continue
        value = number * 10 ** int(element.get("scale", "0") or 0)
        if element.get("sign") == "-":
            value = -value
        decimals = element.get("decimals", "INF")
        facts[f"f{index}"] = Fact(
            concept=element.get("name", ""),
            value=value,
            displayed=displayed,
            unit=units.get(element.get("unitref", "")),
            decimals=None if decimals == "INF" else int(decimals),
            period_start=context.start,
            period_end=context.end,
            dimensions=context.dimensions,
            offset=None,
        )
    cover: dict[str, str] = {}
    cover_period_end = None
    for element in root.iter("ix:nonnumeric"):
        name = element.get("name", "")
        if name.startswith("dei:"):
            cover.setdefault(name[4:], " ".join(element.text_content().split()))
            if name == "dei:DocumentType" and cover_period_end is None:
                context = contexts.get(element.get("contextref", ""))
                cover_period_end = context.end if context else None
    return XbrlDocument(facts, cover, cover_period_end)


def _context(element: lxml.html.HtmlElement) -> Context:
    def day(tag: str) -> date | None:
        found = next(element.iter(tag), None)
        return date.fromisoformat(found.text.strip()[:10]) if found is not None else None

    instant = day("xbrli:instant")
    start, end = day("xbrli:startdate"), day("xbrli:enddate")
    dimensions = tuple(
        (member.get("dimension", ""), " ".join(member.text_content().split()))
        for member in element.iter("xbrldi:explicitmember", "xbrldi:typedmember")
    )
    return Context(None if instant else start, instant or end or date.min, dimensions)


def _unit(element: lxml.html.HtmlElement) -> str:
    measures = [m.text.strip().split(":")[-1].lower() for m in element.iter("xbrli:measure")]
    return "/".join(measures)


def _displayed_number(displayed: str, number_format: str) -> float | None:
    text = displayed.strip()
    kind = number_format.rsplit(":", maxsplit=1)[-1]
    if kind in ("fixed-zero", "zerodash") or re.fullmatch(r"[-–—]+", text):
        return 0.0
    if kind in ("numwordsen", "num-word-en"):
        words = text.lower().rstrip(".")
        return 0.0 if words in _NONE_WORDS else parse_number_words(words)
    if kind in ("num-comma-decimal", "numcommadecimal"):
        text = text.replace(".", "").replace(" ", "").replace(",", ".")
    digits = re.sub(r"[^\d.]", "", text)
    try:
        return float(digits)
    except ValueError:
        return None
