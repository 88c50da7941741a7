"""The citation verifier: every figure an answer states is printed in a passage it cites.

Reads an answer sentence by sentence and decides whether it may be shown: the answer cites a
passage that was given, and a sentence with a figure, or a long one, cites one itself; each of
its figures is printed in a cited passage, rounded as the sentence wrote it, and no number in it
escapes the figure reader; a figure taken from a labelled table row sits in the column of a year
the question asks about, and one taken from prose belongs to such a year where its sentence
says which. A failure's detail quotes the sentence with its figures masked, so a decline never
shows the figure it withheld. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from edgar_rag.answer.numbers import (
    MARKER,
    Figure,
    PrintedFigure,
    find_figures,
    passage_figures,
    supports,
    unread_numbers,
)
from edgar_rag.domain import Reason
from edgar_rag.question.words import STOPWORDS, lower_words, stem

LONG_SENTENCE_WORDS = 25
"""A sentence of more words than this makes a claim even without a figure, so it must cite."""

_QUOTE_CHARS = 120
_MAX_RANGE = 20
_MARKER_WITH_SPACE = re.compile(r"[ \t]*" + MARKER.pattern)
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)]*(?P<markers>(?:\s*" + MARKER.pattern + r")*)(?=\s|$)")
_MARKER_RUN = re.compile(r"((?:\[\s*\d+(?:\s*[,\-–]\s*\d+)*\s*\]\s*)+)")
_LEADING_MARKER = re.compile(r"\s*\[\s*\d")
_ENDING = re.compile(r"[.!?]+[\"'”’)]*$")
_COMPLETE = re.compile(r"(?:[.!?]+[\"'”’)]*|\])$")
"""A reply that ends as a sentence does, or on a closed marker."""
_ATTRIBUTED_SHARE = 0.8
"""How many of an uncited sentence's words a passage must hold for the sentence to cite it."""
_SCALE_CELL = re.compile(r"\(in (?:thousands|millions|billions)\)", re.IGNORECASE)
_ACRONYM = re.compile(r"(?:[a-z]\.)+[a-z]")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d{1,2}[.)])\s+")
_ABBREVIATIONS = frozenset(
    "inc corp co ltd llc plc no nos vs approx est incl dept mr ms mrs dr st fig p pp etc "
    "jan feb mar apr jun jul aug sep sept oct nov dec".split()
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether an answer may be shown; when not, the reason and a detail that names no figure."""

    ok: bool
    reason: Reason | None
    detail: str | None
    cited: tuple[int, ...]
    """The markers the answer uses that name a given passage, in order of first use."""
    text: str = ""
    """The answer as it may be shown: the model's, with any corrected citation markers."""
    recited: tuple[tuple[int, int], ...] = ()
    """Citations corrected: (the marker the model wrote, the passage that prints its figures)."""
    trimmed: bool = False
    """A table row the model copied out is shown with the columns of the years asked only."""
    attributed: bool = False
    """Some sentence cited no passage; it cites the one that holds its words."""
    requoted: tuple[tuple[int, int], ...] = ()
    """Citations of sentences without figures corrected: (the marker the model wrote, the
    passage that holds the sentence's words)."""


def markers_in(text: str) -> list[int]:
    """The passage numbers ``text`` cites, in order of first use; ``[1-3]`` is 1, 2 and 3."""
    found: dict[int, None] = {}
    for match in MARKER.finditer(text):
        for part in re.split(r"\s*,\s*", match.group(1)):
            bounds = [int(n) for n in re.split(r"\s*[-–]\s*", part)]
            first, last = bounds[0], bounds[-1]
            ends = (first, last) if last - first > _MAX_RANGE else range(first, last + 1)
            found.update(dict.fromkeys(ends))
    return list(found)


def strip_markers(text: str) -> str:
    """``text`` without its citation markers."""
    return _MARKER_WITH_SPACE.sub("", text)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, each with the markers that follow its full stop.

    A full stop ends a sentence only before white space, so ``$25.1`` stays whole, and not after
    an abbreviation (``Inc.``, ``U.S.``, ``No. 3``) unless markers follow it. Each line is read on
    its own, without its list bullet.
    """
    sentences: list[str] = []
    for line in text.splitlines():
        line = _BULLET.sub("", line)  # noqa: PLW2901 (the bullet is not part of the sentence)
        start = 0
        for end in _sentence_ends(line):
            sentences.append(line[start:end].strip())
            start = end
        sentences.append(line[start:].strip())
    return [s for s in sentences if s]


def without_cut_tail(text: str) -> tuple[str, bool]:
    """``text`` without the sentence a token limit cut off, and whether one was cut.

    A reply that reaches its token limit stops mid-word: on a half figure ("... Class A common
    stock and 343"), an unclosed marker ("[3"), a clause with no verb. What follows the last
    whole sentence is left out, or, where the reply is one unfinished sentence, what follows its
    last semicolon; a reply with neither is left as it is (the verifier then reads all of it).
    """
    body = text.rstrip()
    if not body or _COMPLETE.search(body):
        return text, False
    lines = body.splitlines()
    last = lines[-1]
    ends = list(_sentence_ends(last))
    if ends:
        kept = "\n".join([*lines[:-1], last[: ends[-1]]])
    elif len(lines) > 1:
        kept = "\n".join(lines[:-1])
    elif ";" in last:
        kept = last[: last.rindex(";")]
    else:
        return text, False
    kept = kept.rstrip()
    return (kept, True) if kept else (text, False)


def _sentence_ends(line: str) -> Iterator[int]:
    for match in _SENTENCE_END.finditer(line):
        word = line[: match.start()].rsplit(maxsplit=1)[-1:] or [""]
        word_before = word[0].lstrip("(\"'").lower().rpartition("-")[2]
        abbreviated = line[match.start()] == "." and (
            word_before in _ABBREVIATIONS
            or (len(word_before) == 1 and word_before.isalpha())
            or _ACRONYM.fullmatch(word_before) is not None
        )
        if match["markers"] or not abbreviated:
            yield match.end()


def verify_answer(
    text: str,
    passages: Mapping[int, str],
    asked_years: frozenset[int],
    header_year: Callable[[str], int | None],
    *,
    recite: bool = True,
    leads: Mapping[int, str] | None = None,
) -> Verdict:
    """Check ``text`` against the ``passages`` it was given (marker -> passage text).

    ``asked_years`` are the fiscal years the question asks about (empty: periods are not
    checked); ``header_year`` reads the fiscal year a table column header denotes; ``leads``
    holds, for a passage cut from within a paragraph, the paragraph's text before it (it dates
    the passage's first sentence, and is never quoted or checked).

    With ``recite``, a sentence that cites one given passage while its figures are all printed,
    in the right columns, in another is shown citing the first such passage (a small model
    writes ``[1]`` out of habit), and a table row the model copied whole keeps only the columns
    of the years asked; both corrections are recorded in the verdict.
    """
    text = pointers_folded("\n".join(markers_last(line) for line in text.split("\n")))
    held = {marker: _content_words(passage) for marker, passage in passages.items()}
    leads = leads or {}
    printed = {
        marker: passage_figures(passage, leads.get(marker, ""))
        for marker, passage in passages.items()
    }
    text, attributed = _attributed(text, held, printed)
    cited = tuple(m for m in markers_in(text) if m in passages)
    if not text.strip():
        return Verdict(False, Reason.NO_VALID_CITATION, "the answer is empty", cited, text)
    text, requoted, ungrounded = _grounded(text, held)
    if ungrounded is not None:
        return Verdict(False, Reason.UNSUPPORTED_CLAIM, ungrounded, cited, text)
    written = text
    if recite and asked_years:
        text = "\n".join(asked_columns(line, asked_years, header_year) for line in text.split("\n"))
    shown, recited = text, []
    for sentence in split_sentences(text):
        failure = _check_sentence(sentence, printed, asked_years, header_year)
        if failure is not None and recite and failure[0] is Reason.UNSUPPORTED_CLAIM:
            moved = _recited(sentence, printed, asked_years, header_year)
            if moved is not None:
                corrected, old, new = moved
                shown = shown.replace(sentence, corrected, 1)
                recited.append((old, new))
                continue
        if failure is not None:
            reason, detail = failure
            return Verdict(False, reason, detail, cited, text)
    cited = tuple(m for m in markers_in(shown) if m in passages)
    if not cited:
        detail = "the answer cites no passage that was given, so nothing it says is grounded"
        return Verdict(False, Reason.NO_VALID_CITATION, detail, cited, text)
    return Verdict(
        True, None, None, cited, shown, tuple(recited), trimmed=text != written,
        attributed=attributed, requoted=tuple(requoted),
    )  # fmt: skip


def markers_last(line: str) -> str:
    """A line whose citation markers come before their sentences ("[1] Sales rose. Prices
    held. [2] Costs fell.", as a small model often writes) with the markers moved to the end of
    each sentence they head ("Sales rose [1]. Prices held [1]. Costs fell [2]."); any other
    line, and a copied table row, unchanged."""
    if not _LEADING_MARKER.match(line) or " | " in line:
        return line
    pieces = _MARKER_RUN.split(line)
    moved = []
    for run, following in zip(pieces[1::2], pieces[2::2], strict=True):
        markers = " ".join(run.split())
        body = following.strip()
        if not body:
            moved.append(markers)
            continue
        moved.extend(_cite(sentence, markers) for sentence in split_sentences(body))
    return " ".join(moved)


_POINTING = frozenset(
    "this that it these is are was were can be shown found stated given seen see in on the a "
    "passage passages as per according to source quoted cited from".split()
)
"""Every word of a sentence that only points at passages ("This is shown in [1].")."""


def pointers_folded(text: str) -> str:
    """``text`` with each sentence that only points at passages ("This can be found in [2].",
    as a small model writes after the sentence it means) folded into the sentence before it
    when that one cites nothing: the markers move there and the pointer is left out. A pointer
    after a cited sentence, or a sentence that says anything more, is left as it is."""
    sentences = split_sentences(text)
    shown = text
    for before, sentence in pairwise(sentences):
        markers = markers_in(sentence)
        words = lower_words(strip_markers(sentence))
        if not markers or markers_in(before) or not words or not set(words) <= _POINTING:
            continue
        start = shown.find(before)
        end = shown.find(sentence, start + len(before)) if start >= 0 else -1
        if end < 0:
            continue
        run = " ".join(f"[{marker}]" for marker in markers)
        shown = shown[:start] + _cite(before, run) + shown[end + len(sentence) :]
    return shown


def _cite(sentence: str, markers: str) -> str:
    """``sentence`` with ``markers`` before its full stop; an abbreviation's own stop stays
    ("in the U.S. [1].", not "in the U.S [1].")."""
    ending = _ENDING.search(sentence)
    stop = ending.group(0) if ending else ""
    body = sentence[: len(sentence) - len(stop)].rstrip()
    if stop == "." and _ACRONYM.fullmatch(body.rpartition(" ")[2].lower()):
        body += stop
    return f"{body} {markers}{stop}"


def _attributed(
    text: str,
    held: Mapping[int, frozenset[str]],
    printed: Mapping[int, Sequence[PrintedFigure]],
) -> tuple[str, bool]:
    """``text`` with each sentence that cites no passage, where it needs one (it states a
    figure, it is long, or the answer cites nothing at all), citing the first given passage
    that holds nearly all its words: the model quoted or closely paraphrased it and left out
    the marker ("The Company has five reportable segments ... . These segments reflect ... [1]").
    A sentence stating figures may paraphrase more freely: it cites the first passage that
    prints every figure it states and holds at least half its words ("The dividend track
    record is 48 consecutive years" from "paid dividends ... for 48 consecutive years"); the
    figure checks then hold it to that passage as to any cited one. ``held`` is each given
    passage's content words, ``printed`` its figures. Whether any sentence was cited so."""
    bare = not markers_in(text)
    shown, attributed = text, False
    for sentence in split_sentences(text):
        if markers_in(sentence):  # cited, if wrongly ([7] of five passages): left to the checks
            continue
        long = len(strip_markers(sentence).split()) > LONG_SENTENCE_WORDS
        figures = find_figures(sentence)
        if not (bare or long or figures):
            continue
        source = _source_of(_content_words(sentence), figures, held, printed)
        if source is not None:
            shown = shown.replace(sentence, _cite(sentence, f"[{source}]"), 1)
            attributed = True
    return shown, attributed


def _source_of(
    words: frozenset[str],
    figures: Sequence[Figure],
    held: Mapping[int, frozenset[str]],
    printed: Mapping[int, Sequence[PrintedFigure]],
) -> int | None:
    """The first given passage holding nearly all ``words``, else, for a sentence stating
    ``figures``, the first printing every one of them and holding at least half the words."""
    if not words:
        return None
    for marker, passage in held.items():
        if len(words & passage) >= _ATTRIBUTED_SHARE * len(words):
            return marker
    for marker, passage in held.items():
        if (
            figures
            and len(words & passage) >= _CITED_SHARE * len(words)
            and all(any(supports(p, f) for p in printed[marker]) for f in figures)
        ):
            return marker
    return None


def _grounded(
    text: str, held: Mapping[int, frozenset[str]]
) -> tuple[str, list[tuple[int, int]], str | None]:
    """``text`` with each sentence without figures that cites a passage holding few of its
    words citing instead the given passage that holds nearly all of them (the model quoted
    passage 2 and wrote [1]); a failure's detail when such a sentence shares almost no words
    with the passages it cites and no passage holds it (a claim the passages do not make).
    Figures are left to the figure checks."""
    shown, requoted = text, []
    for sentence in split_sentences(text):
        given = [m for m in markers_in(sentence) if m in held]
        words = _content_words(strip_markers(sentence))
        if not given or len(words) < _GROUNDED_WORDS or find_figures(sentence):
            continue
        share = {m: len(words & passage) / len(words) for m, passage in held.items()}
        if max(share[m] for m in given) >= _CITED_SHARE:
            continue
        best = max(share, key=lambda m: share[m])
        if share[best] >= _ATTRIBUTED_SHARE:
            shown = shown.replace(sentence, MARKER.sub(f"[{best}]", sentence), 1)
            requoted.append((given[0], best))
        elif max(share[m] for m in given) < _UNGROUNDED_SHARE:
            masked = _mask(sentence, [])
            cites = ", ".join(f"[{m}]" for m in given)
            return (
                shown,
                requoted,
                (
                    f'the sentence "{masked}" shares almost none of its words with the passages it '
                    f"cites ({cites}), and no passage given says it"
                ),
            )
    return shown, requoted, None


_GROUNDED_WORDS = 4
"""Fewer content words than this say too little to compare with a passage."""
_CITED_SHARE = 0.5
"""A cited passage holding at least this share of a sentence's words is what it draws on."""
_UNGROUNDED_SHARE = 0.25
"""A sentence sharing less than this with every passage it cites is not drawn from them."""


def _content_words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in lower_words(text) if len(w) > 2 and w not in STOPWORDS)


def asked_columns(
    line: str, asked_years: frozenset[int], header_year: Callable[[str], int | None]
) -> str:
    """A table row the model copied out (``Net income | 2025: 72,880 | 2024: 29,760 |
    (in millions)``) with only the cells of the years asked, its label and scale note kept; the
    line unchanged when it is not such a row or no cell is of a year asked."""
    cells = line.split(" | ")
    if len(cells) < 3:
        return line
    years = [
        header_year(cell.rpartition(": ")[0]) if ": " in cell and find_figures(cell) else None
        for cell in cells
    ]
    if not any(year in asked_years for year in years[1:]):
        return line
    kept = [cells[0]] + [
        cell
        for cell, year in zip(cells[1:], years[1:], strict=True)
        if year in asked_years or (not find_figures(cell) and _SCALE_CELL.fullmatch(cell.strip()))
    ]
    return " | ".join(kept)


def _recited(
    sentence: str,
    printed: Mapping[int, Sequence[PrintedFigure]],
    asked_years: frozenset[int],
    header_year: Callable[[str], int | None],
) -> tuple[str, int, int] | None:
    """The sentence citing the first given passage that backs all its figures, or None."""
    written = [m for m in markers_in(sentence) if m in printed]
    if len(written) != 1 or not find_figures(sentence):
        return None
    backing = []
    for marker in printed:
        candidate = MARKER.sub(f"[{marker}]", sentence)
        if marker != written[0] and not _check_sentence(
            candidate, printed, asked_years, header_year
        ):
            backing.append((candidate, marker))
    if not backing:
        return None
    candidate, marker = backing[0]
    return candidate, written[0], marker


def _check_sentence(
    sentence: str,
    printed: Mapping[int, Sequence[PrintedFigure]],
    asked_years: frozenset[int],
    header_year: Callable[[str], int | None],
) -> tuple[Reason, str] | None:
    markers = markers_in(sentence)
    given = [m for m in markers if m in printed]
    figures = find_figures(sentence)
    unread = unread_numbers(sentence, figures)
    quoted = f'the sentence "{_mask(sentence, [(f.start, f.end) for f in figures] + unread)}"'
    if unread:
        return Reason.UNSUPPORTED_CLAIM, f"{quoted} writes a number no figure reads, so unchecked"
    if not given:
        words = len(strip_markers(sentence).split())
        if not figures and words <= LONG_SENTENCE_WORDS:
            return None
        claim = "states a figure" if figures else f"is long ({words} words)"
        return Reason.NO_VALID_CITATION, f"{quoted} {claim} {_but_cites(markers, printed)}"
    support = [p for m in given for p in printed[m]]
    matches = [[p for p in support if supports(p, figure)] for figure in figures]
    if not all(matches):
        cites = ", ".join(f"[{m}]" for m in given)
        return Reason.UNSUPPORTED_CLAIM, (
            f"{quoted} states a figure that the passages it cites ({cites}) do not print"
        )
    if not asked_years:
        return None
    for found in matches:
        years = {header_year(p.header) if p.header is not None else None for p in found}
        if None not in years and not years & asked_years:
            columns = sorted(y for y in years if y is not None)
            plural = "s" if len(columns) > 1 else ""
            where = (
                f"cites the {_fiscal(columns)} column{plural}"
                if any(p.label is not None for p in found)
                else f"cites a passage whose sentence dates it {_fiscal(columns)}"
            )
            return Reason.UNSUPPORTED_CLAIM, (
                f"{quoted} {where}, but the question asks about {_fiscal(sorted(asked_years))}"
            )
    return None


def _but_cites(markers: Sequence[int], printed: Mapping[int, object]) -> str:
    if not markers:
        return "but cites no passage"
    cites = ", ".join(f"[{m}]" for m in markers)
    if not printed:
        return f"but cites {cites}, and no passage was given"
    given = ", ".join(f"[{m}]" for m in sorted(printed))
    return f"but cites {cites}, and only {given} were given"


def _fiscal(years: Sequence[int]) -> str:
    names = [str(y) for y in years]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"fiscal {listed}"


def _mask(sentence: str, spans: Sequence[tuple[int, int]]) -> str:
    """The sentence with each figure's span replaced by an ellipsis, shortened for a message."""
    masked = sentence
    for start, end in sorted(spans, reverse=True):
        masked = masked[:start] + "…" + masked[end:]
    masked = " ".join(masked.split())
    if len(masked) > _QUOTE_CHARS:
        masked = masked[: _QUOTE_CHARS - 1].rstrip() + "…"
    return masked
