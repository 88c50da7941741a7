"""Whether a figure an answer states sits on a line of its cited passages that names the metric
the question asks about (the question's words are read in ``question.words``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from itertools import pairwise

from edgar_rag.answer.numbers import (
    PROSE_SENTENCE,
    Figure,
    PrintedFigure,
    find_figures,
    passage_figures,
    states_change,
    supports,
)
from edgar_rag.question.words import (
    COUNTED_AS,
    DISTINGUISHING,
    GENERIC,
    NOT_SAID,
    QUALIFIERS,
    SYNONYMS_OF,
    counting_stems,
    expand,
    lower_words,
    share_classes,
    stem,
    text_stems,
)


def figure_names_metric(
    answer: str,
    passages: Iterable[str],
    words: Iterable[str],
    counted: str | None = None,
    share_class: str | None = None,
) -> bool:
    """Some figure the answer states is printed on a line (a table row, a sentence) of the cited
    passages that names what the question asks; true when the answer states no figure or the
    question names no metric.

    A line names the metric when it says at least half of the question's metric words (each
    with its synonyms), every distinguishing word the question says (``diluted``; ``net`` beside
    a word for profit), and no qualifier the question does not say. A table row must do so in
    its own label, not only through its group ("Shareholders' equity: Retained earnings" is no
    equity total), unless its own label says nothing but ``Total`` or the like. A sentence
    whose figure belongs to a metric of another kind (``gross margin ... 51.2%`` for a question
    on net margin) backs no figure of the metric asked, whatever else its line says.

    A question that counts something (``counted``: "how many ... lawsuits") is answered only by
    a count printed beside what it counts: "106 lawsuits by individual shippers", "employees
    totaled over 150,000", a row labelled "Number of stores"; never by a percentage, nor by a
    change ("reduced headcount by approximately 10,000 employees"). An abbreviation says the
    words whose initials it spells: "BCA" says "commercial airplanes". A question about one class
    of stock (``share_class``) is not answered by a line naming only another class ("23
    stockholders of record of our Class B common stock" for Class A).
    """
    words = list(words)
    wanted = expand(words, strict=True)
    claims = find_figures(answer)
    if not wanted or not claims:
        return True
    if counted is not None:  # a count is no percentage: "78% male" answers no "how many"
        claims = [claim for claim in claims if not claim.is_percent]
        if not claims:
            return False
    asked = _asked_words(words)
    expanded = expand(words)
    unasked = {q for q in _CHECK_QUALIFIERS if stem(q) not in expanded}
    required = {stem(w) for w in DISTINGUISHING & set(words)}
    required |= {  # "combined ratio": its "combined" names it, never an operating ratio's line
        stem(before) for before, word in pairwise(words) if word in _HEADS and before not in GENERIC
    }
    if "net" in words and set(words) & set(SYNONYMS_OF["profit"]):
        required.add("net")
    per = "per" in words  # "dividends per share declared": a line of totals is no answer
    for passage in passages:
        for line in passage.splitlines():
            printed = passage_figures(line)
            if not any(supports(p, c) for p in printed for c in claims):
                continue
            if per and not _PER.search(line):
                continue
            if share_class is not None and _names_other_class(line, share_class, claims):
                continue
            if counted is not None:
                if _counts(line, printed, claims, counted):
                    return True
                continue
            if " | " not in line and not _backing_sentences(line, claims, words):
                continue
            naming = _naming_text(line, unasked) or ""
            said = text_stems(naming) | _abbreviated(naming, asked)
            if (
                naming
                and wanted & said
                and required <= said
                and 2 * sum(_says(word, said) for word in asked) >= len(asked)
            ):
                return True
    return False


_HEADS = frozenset({"ratio", "margin", "rate", "yield", "turnover"})
"""Nouns of a metric that its first word distinguishes (a combined ratio is no operating
ratio): the line must say the word before them too."""
_PER = re.compile(r"\bper\b|\beps\b|\bearnings\s+a\s+share\b", re.IGNORECASE)
"""A line that states a figure per something: its label, group or column says "per"."""

_METRIC_KIND = re.compile(
    r"\b(gross|operating|diluted|basic)\s+(?:profit\s+)?"
    r"(?:margins?|profits?|income|earnings|loss(?:es)?|eps|per\s+share)\b",
    re.IGNORECASE,
)
"""A kind of metric named in prose: ``gross margin``, ``operating income``, ``diluted EPS``."""


def _backing_sentences(line: str, claims: Sequence[Figure], words: Sequence[str]) -> list[str]:
    """The sentences of a prose line that print one of ``claims`` and name no metric of a kind
    the question does not ask (``gross`` margin when it asks about net margin)."""
    asked = {stem(word) for word in words}
    return [
        sentence
        for sentence in PROSE_SENTENCE.split(line)
        if any(supports(p, c) for p in passage_figures(sentence) for c in claims)
        and all(stem(kind[1].lower()) in asked for kind in _METRIC_KIND.finditer(sentence))
    ]


def _counts(
    line: str, printed: Sequence[PrintedFigure], claims: Sequence[Figure], counted: str
) -> bool:
    """The ``line`` (whose figures are ``printed``) prints a claimed count of what is
    ``counted``: a table row whose label
    names it, or a sentence that prints the figure (no percentage, no change "by" so much) with
    a word for it among the few words after it or before it, or, for the sentence's first
    figure, among the words its sentence opens with. A percentage or an amount of money is no
    count."""
    nouns = counting_stems(counted)
    if " | " in line:  # the row's own label (not its group) or the cell's column header
        label = line.split(" | ", maxsplit=1)[0].rpartition(":")[2]
        unit = _MEASURED_IN.search(label)
        if unit is not None and not nouns & text_stems(unit[1]):
            return False  # "Train length (feet)" counts no trains
        return any(
            nouns & text_stems(f"{label} {cell.header or ''}")
            for cell in printed
            if not _MONEY.search(cell.figure.text) and any(supports(cell, c) for c in claims)
        )
    for sentence in PROSE_SENTENCE.split(line):
        counts = [f for f in find_figures(sentence) if not (f.is_percent or _MONEY.search(f.text))]
        for first, figure in enumerate(counts):
            said_here = PrintedFigure(figure, (), header=None, label=None)
            if not any(supports(said_here, claim) for claim in claims):
                continue
            if states_change(sentence, figure):
                continue
            before = lower_words(sentence[: figure.start])
            named = _number_of(before)
            if named is not None and stem(named) not in nouns:
                continue  # "the number of shareholders of ... common stock was 4,500,000"
            after = lower_words(sentence[figure.end :])[:_AFTER_WORDS]
            if figure.value != 1:  # "18 employee representative bodies" counts bodies
                after = [word for word in after if word not in _SINGULAR]
            said = [w for w in before if w.isalpha() and w not in NOT_SAID]
            beside = [*after, *said[-_BEFORE_WORDS:]]
            if first == 0:  # "The Company employees, which include ..., totaled over 150,000"
                beside += said[:_SUBJECT_WORDS]
            if nouns & {stem(word) for word in beside}:
                return True
    return False


def _number_of(words: Sequence[str]) -> str | None:
    """What "the number of ..." counts among ``words`` (a sentence up to its figure): the first
    word that counts something within a few words after the last "number of" ("the number of
    shareholders of record ... was" counts shareholders, whatever stock it names later); None
    when the words say no such thing."""
    starts = [i for i in range(len(words) - 1) if words[i : i + 2] == ["number", "of"]]
    if not starts:
        return None
    following = words[starts[-1] + 2 : starts[-1] + 2 + _NUMBER_OF_WORDS]
    return next((word for word in following if word in COUNTED_AS), None)


_NUMBER_OF_WORDS = 3
"""How far after "number of" its noun may come: "the number of common shares outstanding"."""
_MONEY = re.compile(r"[$€£]")
"""A count is no amount of money: "Common stock: $5,061" counts no shareholders."""
_MEASURED_IN = re.compile(
    r"\((?:in\s+)?(feet|foot|miles?|hours?|days?|minutes?|years?|tons?|gallons?|barrels?|"
    r"pounds?|kilo\w+|meters?|mph|percent|%)\)",
    re.IGNORECASE,
)
"""A row label's unit of measure: the row measures ("Train length (feet)", "Average terminal
dwell time (hours)"), it counts nothing but that unit."""
_SINGULAR = frozenset(word for word in COUNTED_AS if word + "s" in COUNTED_AS)
"""Count words in the singular ("employee"): after a figure other than one, a modifier of what
it counts ("18 employee representative bodies"), not what it counts."""
_AFTER_WORDS = 4
"""How far after a count its noun may come: "106 lawsuits", "3 million square feet"."""
_BEFORE_WORDS = 4
"""How many words before it, dates and small words aside, may name it: "employees totaled over
150,000", "holders of record of our common stock was 101,000", "Common Shares, $1.00 par value,
outstanding as of January 31, 2024: 585,677,464"."""
_SUBJECT_WORDS = 4
"""The words that open a sentence name what its first figure counts, however far it comes."""
_ABBREVIATION = re.compile(r"\b[A-Z]{2,6}\b")


def _names_other_class(line: str, asked: str, claims: Sequence[Figure]) -> bool:
    """Each part of the line that prints a claimed figure (the row, or each sentence) names a
    class of stock, never the one asked."""
    parts = [line] if " | " in line else PROSE_SENTENCE.split(line)
    printing = [
        part for part in parts if any(supports(p, c) for p in passage_figures(part) for c in claims)
    ]
    named = [share_classes(part) for part in printing]
    return bool(printing) and all(classes and asked not in classes for classes in named)


def _abbreviated(text: str, asked: Sequence[str]) -> frozenset[str]:
    """The stems of two or more consecutive ``asked`` words whose initials an abbreviation of
    ``text`` spells ("BCA" for "commercial airplanes" asked after the company's name)."""
    initials = "".join(word[0] for word in asked)
    said: set[str] = set()
    for token in _ABBREVIATION.findall(text):
        letters = token.lower()
        for first in range(len(asked)):
            for last in range(first + 2, len(asked) + 1):
                if initials[first:last] in letters:
                    said.update(stem(word) for word in asked[first:last])
    return frozenset(said)


def _naming_text(line: str, unasked: set[str]) -> str | None:
    """What must name the metric on a line: a sentence whole; a table row's own label, without
    an ``unasked`` qualifier, or, when the label says nothing but ``Total``, the label with its
    group (None when the group adds an unasked qualifier: "Current liabilities: Total")."""
    if " | " not in line:
        return line
    group, _, label = line.split(" | ", maxsplit=1)[0].rpartition(":")
    if text_stems(label) - _GENERIC_STEMS:
        return None if unasked & set(lower_words(label)) else label
    return None if unasked & set(lower_words(group)) else f"{group} {label}"


_GENERIC_STEMS = frozenset(stem(w) for w in GENERIC)
_CHECK_QUALIFIERS = QUALIFIERS | {"gross", "restricted", "per"}
"""The qualifiers a cited row may not add unless the question says them or a synonym of them:
those of the window's ranking, and three more the check alone uses ("Gross profit" is no answer
to a question on profit, cash "including restricted" is another total than cash and cash
equivalents, dividends "per share" are not the dividends paid; "EPS" asks per share)."""


def _asked_words(words: Iterable[str]) -> list[str]:
    """The question's metric words counted once per synonym group, generic parts of hyphenated
    words left out ("year-end" names nothing, "long-term" stays), and words a line's reading
    never keeps ("U.S.": letters too short to be read) left out too."""
    kept: dict[frozenset[str], str] = {}
    for word in words:
        if text_stems(word) - _GENERIC_STEMS:
            kept.setdefault(expand([word], strict=True), word)
    return list(kept.values())


def _says(word: str, said: frozenset[str]) -> bool:
    """``said`` holds ``word``, a synonym of it, or every part of it as a line's words are read
    ("long-term debt"; "non-u.s" is "non", as in "non-U.S. customers")."""
    parts = text_stems(word)
    return bool(expand([word], strict=True) & said) or (bool(parts) and parts <= said)


def sentence_stating(
    words: Sequence[str],
    passages: Mapping[int, str],
    markers: Sequence[int],
    counted: str | None = None,
) -> tuple[int, str] | None:
    """The first prose sentence of the passages of ``markers`` (in that order) that states a
    figure on a line naming the metric ``words`` say, with its marker; None when none does or
    the question names no metric."""
    if not words:
        return None
    for marker in markers:
        for line in passages[marker].splitlines():
            if " | " in line:
                continue
            for sentence in PROSE_SENTENCE.split(line):
                if find_figures(sentence) and figure_names_metric(
                    sentence, [sentence], words, counted
                ):
                    return marker, sentence.strip()
    return None
