"""Figures in text: what an answer's sentence states, and what a passage prints.

Reads figures written in digits (``$416,161 million``, ``(4)%``, ``$1.5B``) or in words
(``two and a half billion``) and leaves out what only looks like one: citation markers, years,
dates, counts of periods, and the numbers of Items, Notes, pages, exhibits, sections and rules
and of standards (ISO 27001, NIST CSF 2.0, SOC 2).
A passage's labelled table rows (``Total net sales | 2025: 416,161 | (in millions)``) say which
column and which scale each printed figure belongs to. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from edgar_rag.answer.prose_dates import dated_header
from edgar_rag.question.words import ends_in_change_by
from edgar_rag.rules import MULTIPLIERS, SMALL_NUMBERS, TENS, Spelled, read_number_words

MARKER = re.compile(r"\[\s*(\d+(?:\s*[,\-–]\s*\d+)*)\s*\]")
"""A citation marker: ``[1]``, ``[1, 2]``, ``[1-2]``."""

_REFERENCE_NUMBER = r"\d[\w.\-]*(?:\([a-z0-9]+\))*"
_REFERENCE = re.compile(
    r"(?i:\b(?:items?|notes?|pages?|pp?\.|exhibits?|sections?|parts?|rules?|footnotes?|"
    r"schedules?|forms?|articles?|chapters?|regulations?|topics?|asc|asu|sfas|levels?|tiers?|s&p|"
    r"iso(?:/iec)?|iec|nist(?:\s+csf)?|csf|soc|pci|ifrs|ias|frameworks?|"
    rf"nos?\.)\s*){_REFERENCE_NUMBER}"
    rf"(?:(?:\s*,\s+|\s+(?:and|or|through|to)\s+|\s*[-–]\s*){_REFERENCE_NUMBER})*"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DATE = re.compile(
    rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b(?:,?\s+\d{{4}}\b)?"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b"
)
_CLOSES = r"(?=(?:US)?[$€£]?\s?\d[\d,.]*%?\))"
_DIGIT_FIGURE = re.compile(
    r"(?<![\w.,/'’])(?<![A-Za-z]-)"
    r"(?P<minus>[-−–])?"
    rf"(?P<open>\({_CLOSES})?"
    r"(?P<currency>(?:US)?[$€£]\s?)?"
    rf"(?P<open_after>\({_CLOSES})?"
    r"(?P<number>(?>\d{1,3}(?:,\d{3})+|\d+)(?>\.\d+)?)"
    r"(?:(?P<abbr>bn|mn|mm|MM|tn|[MBKkx])\b"
    r"|(?!\w|[.,]\d|-[A-Za-z]|\(\w)"
    r"(?P<close>%?\))?"
    r"(?P<percent>\s?(?i:%|percent\b|per\scent\b))?"
    r"(?:\s?(?P<word>(?i:thousand|million|billion|trillion))s?\b)?)"
)
_PERCENT_AFTER = re.compile(r"\s?(?i:%|percent\b|per\scent\b)")
_PERIOD_UNIT = re.compile(r"[\s-](?i:calendar\s|fiscal\s)?(?i:day|week|month|quarter|year)s?\b")
_WORD = re.compile(r"[A-Za-z]+")
_GLUED = re.compile(r"-([A-Za-z]+)")
_SCALE_NOTE = re.compile(r"\(in (thousands|millions|billions)\)", re.IGNORECASE)
_SCALE_NOTE_AFTER = re.compile(r"\s?\(in (thousands|millions|billions)\)", re.IGNORECASE)

_ABBREVIATIONS = {
    "k": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "mn": 1e6,
    "b": 1e9,
    "bn": 1e9,
    "tn": 1e12,
    "x": 1.0,
}
"""``x`` is a multiple: a ratio of 8.71x, interest covered 12x."""
_SCALE_NOTES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_NOT_ALONE = frozenset({"one", "a", "an", "and", "half", "quarter", "quarters"})
_VOCABULARY = frozenset([*SMALL_NUMBERS, *TENS, *MULTIPLIERS, *_NOT_ALONE, "hundred", "point"])


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure a text states: ``$416.2 billion`` is raw 416.2 at scale 1e9, 1 decimal."""

    value: float
    """Scaled and signed: ``(1,049)`` is -1049.0; ``1.5 billion`` is 1.5e9."""
    raw: float
    """The number as written before its scale word, unsigned."""
    scale: float
    is_percent: bool
    decimals_written: int
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class PrintedFigure:
    """A figure a passage prints, with the table column and row it sits in (None in prose)."""

    figure: Figure
    alternatives: tuple[float, ...]
    """What the figure also stands for: a cell of a row ``(in millions)`` times 1e6."""
    header: str | None
    label: str | None

    @property
    def value(self) -> float:
        return self.figure.value

    @property
    def values(self) -> tuple[float, ...]:
        return (self.figure.value, *self.alternatives)


def supports(printed: PrintedFigure, claim: Figure) -> bool:
    """True when ``printed`` is ``claim``'s figure, rounded as the claim wrote it; signs aside."""
    if printed.figure.is_percent != claim.is_percent:
        return False
    tolerance = 0.5 * 10.0**-claim.decimals_written
    return any(
        math.isclose(abs(v) / claim.scale, claim.raw, abs_tol=tolerance * (1 + 1e-9))
        for v in printed.values
    )


def find_figures(sentence: str) -> list[Figure]:
    """Every figure ``sentence`` states, in order, in digits or in words."""
    return _find_figures(sentence, years_are_figures=False)


def states_change(sentence: str, figure: Figure) -> bool:
    """The ``figure`` of ``sentence`` says how much something changed, not its value: it comes
    after "by" ("reduced headcount by approximately 10,000", "reduced our operating profit by
    $17.73 billion")."""
    return ends_in_change_by(sentence[: figure.start])


def passage_figures(text: str, lead: str = "") -> list[PrintedFigure]:
    """Every figure ``text`` prints: labelled-row cells with their header, label and scale note.

    ``lead`` is the text of the paragraph before ``text`` begins (a window cut from a chunk):
    never a figure the passage prints, only what dates the first sentence of ``text`` when it
    continues the one before ("On February 1, 2024 we announced our first dividend. This cash
    dividend of $0.50 per share ...")."""
    printed: list[PrintedFigure] = []
    for number, line in enumerate(text.splitlines()):
        if " | " in line:
            printed.extend(_row_figures(line.split(" | ")))
        else:
            printed.extend(_prose_figures(line, lead if number == 0 else ""))
    return printed


def _prose_figures(line: str, lead: str = "") -> list[PrintedFigure]:
    """A prose line's figures, each amount with the year its sentence gives it as its header
    (None where the sentence does not say which year), so that a prose figure is held to the
    period asked as a table cell is (``$384 million of payments in 2023`` is a 2023 figure).
    A sentence that names no year and opens by pointing back ("This dividend", "Such cases")
    reports the period of the sentence before it, within the line or ``lead``."""
    printed = []
    before = PROSE_SENTENCE.split(lead.strip())[-1] if lead.strip() else ""
    carried = {dated_header(y, before) for y in _years_in(before)}
    for sentence in PROSE_SENTENCE.split(line):
        years = _years_in(sentence)
        continues = not years and _POINTING_BACK.match(sentence) is not None
        for figure in find_figures(sentence):
            if continues:
                year = None if figure.is_percent or len(carried) != 1 else next(iter(carried))
            else:
                year = _year_of(figure, sentence, years)
            printed.append(PrintedFigure(figure, (), year, None))
        if not continues:
            carried = {dated_header(y, sentence) for y in years}
    return printed


def _years_in(sentence: str) -> list[re.Match[str]]:
    """The years ``sentence`` names as periods: none inside a figure, after "since" or "by"."""
    return [
        m
        for m in _YEAR_IN_HEADER.finditer(sentence)
        if not _inside_figure(m, sentence) and not _UNDATING.search(sentence, 0, m.start())
    ]


_POINTING_BACK = re.compile(r"[\s(\"“]*(?:This|These|That|Those|Such)\b")
"""A sentence opening that refers to what the sentence before it said."""


_UNDATING = re.compile(
    r"\b(?:since|beginning\s+in|starting\s+in|commencing\s+in|by(?:\s+the\s+end\s+of)?)\s+"
    r"(?:[A-Z][a-z]{2,8}\.?\s+(?:\d{1,2},\s*)?)?$",
    re.IGNORECASE,
)
"""Words before a year that make it no period the figure reports: the start of a span running
to the filing's own date ("Since May 2013, more than 50 cases have been filed", a count as of
now) or a target's deadline ("expansion to 50,000 restaurants by the end of 2027")."""


def _inside_figure(year: re.Match[str], sentence: str) -> bool:
    return sentence[year.end() : year.end() + 1].isdigit() or (
        year.start() > 0 and sentence[year.start() - 1] in ",.$"
    )


def _year_of(figure: Figure, sentence: str, years: list[re.Match[str]]) -> str | None:
    """The year a sentence gives an amount: the only year it names, or, among several, the one
    right after the amount ("$9.7 billion in fiscal 2023"); None for a percentage, which in
    prose compares one year with another."""
    if figure.is_percent or not years:
        return None
    if len({dated_header(y, sentence) for y in years}) == 1:
        return dated_header(years[0], sentence)
    after = _YEAR_AFTER.match(sentence, figure.end)
    return after.group("year") if after else None


_GROUPED_RUN = re.compile(r"\d+(?:,\d+)+")
PROSE_SENTENCE = re.compile(r"(?<=[.;!?])\s+(?=[A-Z(\"“])")
"""Where one sentence of a prose line ends and the next begins."""
_YEAR_AFTER = re.compile(
    r"(?:\s+of\s+[a-z][a-z\s-]{0,30}?)?\s+(?:in|during|for|at the end of)\s+"
    r"(?:(?:fiscal|calendar)\s+(?:year\s+)?|the\s+(?:fiscal\s+)?year\s+)?(?P<year>(?:19|20)\d{2})\b"
)


def _row_figures(parts: list[str]) -> list[PrintedFigure]:
    notes = [_SCALE_NOTE.fullmatch(p.strip()) for p in parts]
    scale = next((_SCALE_NOTES[n.group(1).lower()] for n in notes if n), None)
    cells = [p for p, n in zip(parts, notes, strict=True) if not n]
    label = None
    if cells and not _is_figure_cell(cells[0]):
        label = cells[0].strip()
        cells = cells[1:]
        if _PER_SHARE.search(label):
            scale = None  # a per-share amount is never in millions, whatever the table's note
    printed = [PrintedFigure(f, (), None, label) for f in find_figures(label or "")]
    dated_column = None
    for cell in cells:
        header, figures = _cell_figures(cell)
        if header is not None and header.lower() in {"page", "pages"}:
            continue
        if header is not None and _YEAR_IN_HEADER.search(header):
            dated_column = header
        elif dated_column is not None and header is not None:
            # "2025: 416,161 | Change: 6%": a change column belongs to the year before it.
            header = f"{header} ({dated_column})"
        for figure in figures:
            scaled = () if scale is None or figure.is_percent else (figure.value * scale,)
            printed.append(PrintedFigure(figure, scaled, header, label))
    return printed


_PER_SHARE = re.compile(r"\bper(?:[\s-]+(?:diluted|basic|common))?[\s-]+shares?\b", re.I)
_YEAR_IN_HEADER = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")


def _is_figure_cell(cell: str) -> bool:
    figures = _cell_figures(cell)[1]
    return len(figures) == 1 and figures[0].text == cell.rpartition(": ")[2].strip()


def _cell_figures(cell: str) -> tuple[str | None, list[Figure]]:
    header, colon, value = cell.rpartition(": ")
    return (header.strip() if colon else None), _find_figures(value, years_are_figures=True)


def unread_numbers(sentence: str, figures: Sequence[Figure]) -> list[tuple[int, int]]:
    """Where ``sentence`` writes digits grouped by commas that none of its ``figures`` (what
    ``find_figures`` read in it) covers (``1,2345``, or a figure cut off mid-group when the reply
    ran out of tokens): a claim the verifier cannot check, so it may not pass as a sentence
    without figures."""
    covered = _excluded(sentence) + [(f.start, f.end) for f in figures]
    return [
        run.span()
        for run in _GROUPED_RUN.finditer(sentence)
        if not any(s <= run.start() and run.end() <= e for s, e in covered)
    ]


def _excluded(text: str) -> list[tuple[int, int]]:
    """Spans that only look like figures: citation markers, references, dates."""
    spans = [m.span() for m in MARKER.finditer(text)]
    spans += [m.span() for m in _REFERENCE.finditer(text)]
    spans += [m.span() for m in _DATE.finditer(text)]
    return spans


def _find_figures(text: str, *, years_are_figures: bool) -> list[Figure]:
    excluded = _excluded(text)
    figures = [
        figure
        for match in _DIGIT_FIGURE.finditer(text)
        if (figure := _digit_figure(match, text, years_are_figures=years_are_figures))
    ]
    taken = [(f.start, f.end) for f in figures]
    figures += [
        f for f in _word_figures(text) if not any(s < f.end and f.start < e for s, e in taken)
    ]
    kept = [f for f in figures if not any(s <= f.start and f.end <= e for s, e in excluded)]
    return sorted(kept, key=lambda f: f.start)


def _digit_figure(match: re.Match[str], text: str, *, years_are_figures: bool) -> Figure | None:
    number = match["number"]
    raw = float(number.replace(",", ""))
    tail = (match["close"] or "") + (match["percent"] or "")
    is_percent = "%" in tail or "cent" in tail.lower()
    scale = 1.0
    if match["abbr"]:
        if match["abbr"] in "Kk" and not match["currency"]:
            return None
        scale = _ABBREVIATIONS[match["abbr"].lower()]
    elif match["word"]:
        scale = float(MULTIPLIERS[match["word"].lower()])
    elif not is_percent and (note := _SCALE_NOTE_AFTER.match(text, match.end())):
        scale = _SCALE_NOTES[note.group(1).lower()]  # "308,030 (in millions)", a row copied out
    bare = scale == 1 and not (is_percent or match["currency"] or match["minus"])
    if bare and "." not in number and "," not in number:
        if not years_are_figures and len(number) == 4 and 1900 <= raw <= 2100:
            return None
        if not match["open"] and _PERIOD_UNIT.match(text, match.end()):
            return None
    negative = bool(match["minus"] or match["open"] or match["open_after"])
    decimals = len(number.partition(".")[2])
    value = -raw * scale if negative else raw * scale
    return Figure(value, raw, scale, is_percent, decimals, match[0], match.start(), match.end())


def _word_figures(text: str) -> list[Figure]:
    figures: list[Figure] = []
    for run in _word_runs(text):
        i = 0
        while i < len(run):
            for j in range(len(run), i, -1):
                words = [w.group(0).lower() for w in run[i:j]]
                spelled = read_number_words(words)
                if spelled is not None and not set(words) <= _NOT_ALONE:
                    figure = _spelled_figure(spelled, text, run[i].start(), run[j - 1].end())
                    if figure is not None:
                        figures.append(figure)
                    i = j
                    break
            else:
                i += 1
    return figures


def _word_runs(text: str) -> list[list[re.Match[str]]]:
    runs: list[list[re.Match[str]]] = []
    previous_end = -1
    for word in _WORD.finditer(text):
        glued = _GLUED.match(text, word.end())
        if word.group(0).lower() not in _VOCABULARY or (
            glued and glued[1].lower() not in _VOCABULARY
        ):
            previous_end = -1
            continue
        gap = text[previous_end : word.start()]
        if runs and previous_end >= 0 and (gap == "-" or (gap.isspace() and "\n" not in gap)):
            runs[-1].append(word)
        else:
            runs.append([word])
        previous_end = word.end()
    return runs


def _spelled_figure(spelled: Spelled, text: str, start: int, end: int) -> Figure | None:
    percent = _PERCENT_AFTER.match(text, end)
    whole = spelled.decimals == 0 and spelled.scale == 1
    if whole and not percent and _PERIOD_UNIT.match(text, end):
        return None
    end = percent.end() if percent else end
    raw, scale = spelled.raw, spelled.scale
    return Figure(
        raw * scale, raw, scale, bool(percent), spelled.decimals, text[start:end], start, end
    )
