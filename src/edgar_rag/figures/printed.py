"""Line items a filing prints that the metric library does not name, found by the filing's own
row labels: "Operating expenses: Fuel", "Net premiums written", "Total backlog".

A question whose measure the library has no name for ("fuel expense", "net premiums written")
is answered in code only when one printed line says exactly what it asks: every word of the
row's own label is a word of the question, and every word the question leaves open is a word of
that label, of its section ("Operating expenses") or of its column's header. Two lines of
different figures that fit equally well are no answer (the model reads the passages instead),
and a line whose label says more than the question ("Net income from continuing operations"
for "net income") never fits, which keeps code from answering a sibling of the figure asked.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from edgar_rag.domain import Fact, FigureSource, FilingMeta
from edgar_rag.figures.formula import Dimension
from edgar_rag.figures.library import LineItem, Part, PeriodKind
from edgar_rag.figures.resolve import TRAILING_NOTE, part_of
from edgar_rag.question.words import lower_words, stem
from edgar_rag.rules import same_day

_PAYMENT = re.compile(
    r"(?:cash\s+)?(?:dividends?\s+paid|payments?\b|purchases?\s+of|repurchases?\s+of|"
    r"acquisitions?\s+of|additions?\s+to|capital\s+expenditures|repayments?\s+of|"
    r"distributions?\s+(?:paid|to))",
    re.IGNORECASE,
)
"""A cash flow row's own label naming a payment: printed in parentheses, it is an outflow
(``Dividends paid to common shareholders (4,048)`` paid 4,048), as the library's
``printed = "outflow"`` items are."""
_UNITS = {"usd": Dimension.USD, "usd/shares": Dimension.USD_PER_SHARE, "pure": Dimension.PURE}
"""The units a printed line is looked up in (the planner's line-item units); a percentage
read from an untagged line is ``pure``, its value a fraction (``59.9%`` is 0.599)."""
_JOINING = frozenset(
    "total and or of the a an for to in on by from & at as with provided used".split()
)
"""Words of a row's label that say nothing of which figure it is ("Cash provided by
operations" is "cash operations")."""
_OF_PART = frozenset(stem(word) for word in "segment business group division unit".split())
"""Words a question puts beside a part's name ("its Personal Lines segment")."""
_DATE_WORDS = re.compile(
    r"\b(?:(?:fiscal\s+)?years?|months?|weeks?|quarters?)\s+ended\b|\bas\s+of\b|\bended\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2},?|"
    r"\b(?:fy|fiscal)\s*'?\d{2,4}\b|\b\d{4}\b|\b\d+\b|\([^)]*\)",
    re.IGNORECASE,
)
_STATEMENTS = {"income_statement": "income", "balance_sheet": "balance", "cash_flow": "cash_flow"}


@dataclass(frozen=True, slots=True)
class PrintedLine:
    """One line of a statement or note as the filing labels it, and the figure it prints."""

    label: str
    """The row's own label as printed ("Fuel"; a column's header when the row is a total)."""
    own: frozenset[str]
    """The stems of ``label``'s words that say which figure it is."""
    context: frozenset[str]
    """The stems of its section's, its column header's and its total's words ("operat",
    "expens"; "freight" for ``Bulk`` above ``Total freight revenues``)."""
    fact: Fact

    @property
    def key(self) -> str:
        """Who prints it: its XBRL concept (and member, for a part's), else (a row of a filing
        without XBRL) its label."""
        tagged = part_of(self.fact)
        of = f"@{tagged[1]}" if tagged is not None else ""
        return (self.fact.concept + of) if self.fact.concept else f"row:{self.fact.label}"

    def says_all(self, asked: Iterable[str]) -> bool:
        """Its own label says every one of the ``asked`` words (no section or header needed)."""
        return {stem(word) for word in asked if word not in _JOINING} <= self.own

    def item(self, phrase: str, by_label: bool = False) -> LineItem:
        """The line as a line item the planner and the resolver read, found by ``phrase`` (the
        question's own words for it, as it writes them) and named by it, or (``by_label``) by
        its label as printed, its first letter lower case ("debt due after one year"); a
        part's line is the part's figure."""
        fact = self.fact
        tagged = part_of(fact)
        instant = fact.period_start is None
        statement = _STATEMENTS.get(fact.statement or "", "balance" if instant else "income")
        is_row = fact.source is FigureSource.ROW
        return LineItem(
            key="printed_" + re.sub(r"\W+", "_", self.key).strip("_").lower(),
            label=_named(self.label) if by_label else " ".join(phrase.split()),
            statement=statement,
            period=PeriodKind.INSTANT if instant else PeriodKind.DURATION,
            unit=_UNITS[(fact.unit or "").lower()],
            concepts=() if is_row else (fact.concept,),
            alternates=(),
            synonyms=(phrase.lower(),),
            rows=(TRAILING_NOTE.sub("", self.label),) if is_row else (),
            part=None if tagged is None else Part(*tagged, self.label),
            outflow=is_row and statement == "cash_flow" and fact.value < 0
            and _PAYMENT.match(self.label.rsplit(": ", 1)[-1]) is not None,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Ambiguous:
    """Lines of different figures that each fit the question's words as well."""

    labels: tuple[str, ...]


def printed_lines(
    facts: Iterable[Fact], texts: Mapping[int, tuple[int, str]], meta: FilingMeta | None = None
) -> list[PrintedLine]:
    """Each displayed dollar figure of ``facts``, the company's or one part's (a segment's, a
    product line's), with the label of the line that prints it: a row's own label, else the
    line of the chunk (``texts``: its start offset and text, by ordinal) that holds the XBRL
    fact's offset, read in the ``Label | Header: figure`` form tables are written in. With the
    filing's ``meta``, the lines no XBRL tag is on are read too (``untagged_facts``)."""
    lines: list[PrintedLine] = []
    facts = list(facts)
    if meta is not None:
        facts += untagged_facts(facts, texts, meta)
    for fact in facts:
        if (fact.unit or "").lower() not in _UNITS:
            continue
        if fact.dimensions and part_of(fact) is None:
            continue
        if fact.source is FigureSource.ROW and fact.label:
            section, _, own = fact.label.rpartition(": ")
            line = _line(own, section, "", fact)
        else:
            line = _displayed_line(fact, texts)
        if line is not None:
            lines.append(line)
    return lines


def match_line(
    asked: Sequence[str], said: Iterable[str], lines: Sequence[PrintedLine]
) -> PrintedLine | Ambiguous | None:
    """The line whose label says what the question asks: ``asked`` the words the question leaves
    open (no filler), ``said`` every word it writes. A line whose own label says more of the asked
    words beats one that needs its section or header for more of them; two lines of
    different figures that fit as well are ``Ambiguous``; None when no line fits. A line no
    XBRL tag is on is looked at only when no tagged line fits: a filing repeats its statements'
    figures untagged in its MD&A."""
    wanted = frozenset(stem(word) for word in asked if word not in _JOINING)
    if not wanted:
        return None
    said = list(said)
    written = frozenset(stem(word) for word in said)
    tagged = [line for line in lines if line.fact.concept]
    if len(tagged) < len(lines):  # an untagged line only where no tagged one fits
        best = match_line(asked, said, tagged)
        if best is not None:
            return best
    fitting: dict[int, dict[str, PrintedLine]] = {}
    for line in lines:
        if not line.own or not line.own <= written or not wanted & line.own:
            continue
        named = line.own | line.context | (_OF_PART if part_of(line.fact) else frozenset())
        if not wanted <= named:
            continue
        tier = len(wanted - line.own)
        fitting.setdefault(tier, {}).setdefault(line.key, line)
    for tier in sorted(fitting):
        found = list(fitting[tier].values())
        if len(found) == 1:
            return found[0]
        return Ambiguous(tuple(dict.fromkeys(line.label for line in found)))
    return None


def _displayed_line(fact: Fact, texts: Mapping[int, tuple[int, str]]) -> PrintedLine | None:
    if fact.offset is None or fact.chunk_ordinal is None or fact.chunk_ordinal not in texts:
        return None
    start, text = texts[fact.chunk_ordinal]
    local = fact.offset - start
    if not 0 <= local < len(text):
        return None
    begin = text.rfind("\n", 0, local) + 1
    end = text.find("\n", local)
    row = text[begin : end if end >= 0 else len(text)]
    cells = row.split(" | ")
    if len(cells) < 2 or local - begin < len(cells[0]):
        return None  # not a table row, or the figure sits in the row's label
    at, header = begin + len(cells[0]), ""
    for cell in cells[1:]:
        at += len(" | ")
        if at <= local < at + len(cell):
            header = cell.rpartition(": ")[0]
            break
        at += len(cell)
    section, _, own = cells[0].rpartition(": ")
    following = texts.get(fact.chunk_ordinal + 1, (0, ""))[1]  # a table split across chunks
    total = _total_below(f"{text}\n{following}", end if end >= 0 else len(text), section)
    return _line(own, section, f"{header} {total}", fact)


def _total_below(text: str, end: int, section: str) -> str:
    """The words of the ``Total ...`` row that sums the rows down to it (``Total freight
    revenues`` below ``Bulk``, ``Industrial``, ``Premium``), in the same section; empty when
    the table ends, or another section starts, first."""
    prefix = f"{section}: " if section else ""
    for row in text[end + 1 :].split("\n"):
        label = row.split(" | ")[0]
        if " | " not in row or not label.startswith(prefix) or ": " in label[len(prefix) :]:
            return ""
        own = label[len(prefix) :]
        if own.lower().startswith("total "):
            return own
    return ""


def _line(own: str, section: str, header: str, fact: Fact) -> PrintedLine | None:
    own_stems = _stems(own)
    if not own_stems:  # a total row of a table whose columns name the figures
        own, header = header, ""
        own_stems = _stems(own)
    if not own_stems:
        return None
    return PrintedLine(own.strip(), own_stems, _stems(section) | _stems(header), fact)


_FOOTNOTE = re.compile(r"(?<=[a-z])\d+(?:,\d+)*\b", re.IGNORECASE)
"""A footnote's number stuck to a label's last word ("Other operating expenses1")."""


def _stems(text: str) -> frozenset[str]:
    words = lower_words(_FOOTNOTE.sub(" ", _DATE_WORDS.sub(" ", text)))
    return frozenset(stem(word) for word in words if word not in _JOINING and not word.isdigit())


def _named(label: str) -> str:
    """A label as a sentence names it: ``Debt due after one year`` is ``debt due after one
    year``, a label in title case (``Total Backlog``) ``total backlog``; an acronym (``SG&A``)
    and a name inside a label (``Net loss attributable to Boeing shareholders``) keep their
    capitals."""
    words = _FOOTNOTE.sub("", re.sub(r"\([^)]*\)", " ", label)).split()
    lowered = (w.lower() if w[:1].isupper() and w[1:].islower() else w for w in words)
    if all(w[:1].isupper() for w in words if len(w) > 3):
        return " ".join(lowered)
    if words and words[0][1:].islower():
        words[0] = words[0].lower()
    return " ".join(words)


def lines_labelled(names: Iterable[str], texts: Iterable[str]) -> list[str]:
    """The table lines of ``texts`` whose own label (its section aside) is one of ``names``,
    case, punctuation and footnote marks aside: where a filing prints its own figure of a
    measure ("Free cash flow | 2023: 43,010")."""
    wanted = {_spelled(name) for name in names}
    return [
        row
        for text in texts
        for row in text.split("\n")
        if " | " in row and _spelled(row.split(" | ")[0].rpartition(": ")[2]) in wanted
    ]


def _spelled(label: str) -> str:
    return " ".join(lower_words(_FOOTNOTE.sub(" ", re.sub(r"\([^)]*\)", " ", label))))


_CELL_FIGURE = re.compile(
    r":\s*\$?\s*\(?(?P<number>\d[\d,]*(?:\.(?P<places>\d+))?)\)?\s*(?P<percent>%)?"
)


def line_figures(line: str) -> list[tuple[Decimal, int, bool]]:
    """The figures of a table line's cells, signs aside: each value, its decimal places and
    whether it is a percentage (``Effective tax rate | 2023: (50)%`` is 50, 0 places, a
    percentage)."""
    found = []
    for cell in line.split(" | ")[1:]:
        match = _CELL_FIGURE.search(cell)
        if match is not None:
            places = len(match["places"] or "")
            value = Decimal(match["number"].replace(",", ""))
            found.append((value, places, match["percent"] is not None))
    return found


_YEAR_HEADER = re.compile(r"^\s*(?:fiscal\s+(?:year\s+)?|fy\s*)?(?P<year>(?:19|20)\d{2})\s*$", re.I)
_SCALE_CELL = re.compile(
    r"^\s*\(\s*(?:\$|dollars)?\s*in\s+(?P<scale>thousands|millions|billions)\b", re.I
)
_SCALES = {"thousands": 3, "millions": 6, "billions": 9}
_PLAIN_FIGURE = re.compile(
    r"^\s*(?P<open>\()?\s*(?P<dollar>\$)?\s*(?P<number>\d[\d,]*(?:\.\d+)?)\s*(?P<close>\))?"
    r"\s*(?P<percent>%)?\s*$"
)
_PERCENT_LABEL = re.compile(r"\(%\)|\bpercent\b|%", re.I)
_PER_UNIT = re.compile(r"\bper\s+\w+", re.I)
"""A figure per something ("per share", "per retail square foot"), printed as it is: no scale."""


def untagged_facts(
    facts: Sequence[Fact], texts: Mapping[int, tuple[int, str]], meta: FilingMeta
) -> list[Fact]:
    """The figures of the table lines that no XBRL tag is on, each a row figure (``source``
    ROW) of its column's fiscal year: read only where the line says its unit and scale (a
    ``$`` or ``%``, a "(in millions)" cell, a per-share or per-unit label) and each column is
    headed by a year ("2024", "Fiscal 2024"); a figure that could be read two ways is never
    read (Boeing's "Total Backlog | 2024: $521,336 | 2023: $520,195 | (in millions)")."""
    if meta.period_end is None:
        return []
    tagged: dict[int, list[int]] = {}  # each chunk's tagged offsets, in order
    for fact in facts:
        if fact.offset is not None and fact.chunk_ordinal is not None:
            tagged.setdefault(fact.chunk_ordinal, []).append(fact.offset)
    found: list[Fact] = []
    for ordinal, (start, text) in texts.items():
        offsets = sorted(tagged.get(ordinal, ()))
        begin = 0
        for row in text.split("\n"):
            at, begin = begin, begin + len(row) + 1
            first = bisect_left(offsets, start + at)
            if " | " not in row or (first < len(offsets) and offsets[first] < start + begin - 1):
                continue  # no table row, or a tag is on it
            found.extend(_row_figures(row, start + at, ordinal, meta))
    return found


def _row_figures(row: str, offset: int, ordinal: int, meta: FilingMeta) -> list[Fact]:
    period_end = meta.period_end
    if period_end is None:
        return []
    cells = row.split(" | ")
    label = cells[0].strip()
    if not lower_words(label):
        return []
    scales = [m for c in cells[1:] if (m := _SCALE_CELL.match(c))]
    read: list[tuple[int, str, re.Match[str], int]] = []
    at = len(cells[0])
    for cell in cells[1:]:
        at += len(" | ")
        header, _, figure = cell.rpartition(": ")
        headed, printed = _YEAR_HEADER.match(header), _PLAIN_FIGURE.match(figure)
        if headed and printed:
            place = offset + at + len(header) + len(": ")
            read.append((int(headed["year"]), figure.replace("$", "").strip(), printed, place))
        at += len(cell)
    if not read:
        return []
    percent = any(m["percent"] for _, _, m, _ in read) or bool(_PERCENT_LABEL.search(label))
    dollars = any(m["dollar"] for _, _, m, _ in read)
    if percent:
        unit, scale = "pure", -2
    elif _PER_UNIT.search(label):
        unit, scale = ("usd/shares", 0) if dollars else ("", 0)
    elif scales and len(scales) == 1:
        unit, scale = "usd", _SCALES[scales[0]["scale"].lower()]
    else:
        return []  # no unit or no scale said: not read
    if not unit:
        return []
    figures = []
    for year, shown, match, place in read:
        number = float(match["number"].replace(",", ""))
        sign = -1.0 if match["open"] and match["close"] else 1.0
        end = same_day(period_end, period_end.year - (meta.fiscal_year - year))
        figures.append(
            Fact(
                concept="",
                value=sign * number * 10.0**scale,
                displayed=shown,
                unit=unit,
                decimals=None,
                period_start=same_day(end, end.year - 1) + timedelta(days=1),
                period_end=end,
                dimensions=(),
                offset=place,
                chunk_ordinal=ordinal,
                source=FigureSource.ROW,
                label=label,
                scale=max(scale, 0),
                fiscal_year=year,
            )
        )
    return figures
