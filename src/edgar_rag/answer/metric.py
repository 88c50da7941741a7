"""The metric a question asks about, as word stems an analyst and a filing might each use.

"Revenues" in a question is "Total net sales" in Apple's income statement and "profit" is "net
income"; a window of the passage should find that row, and an answer should cite a passage that
names what was asked. Words are compared by their first six letters, so "repurchases" meets
"repurchase" and "inventories" meets "inventory".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from edgar_rag.answer.numbers import find_figures, passage_figures, supports
from edgar_rag.retrieve.search import query_terms

STEM_CHARS = 6

SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("revenue", "revenues", "sales", "turnover"),
    ("profit", "earnings", "income"),
    ("eps", "earnings", "per", "share"),
    ("buybacks", "repurchases", "repurchase", "repurchased", "treasury"),
    ("capex", "capital", "expenditures", "property", "plant", "equipment"),
    ("r&d", "research", "development"),
    ("inventory", "inventories"),
    ("shareholders", "stockholders", "equity"),
    ("debt", "borrowings", "notes"),
    ("tax", "taxes", "provision"),
    ("dividends", "dividend"),
    ("cash", "equivalents"),
    ("flow", "flows", "activities"),
    ("end", "ending", "ended"),
    ("long-term", "noncurrent"),
)
"""Words that name the same figure; a question word in a group stands for all of it."""

GENERIC = frozenset(
    "fiscal year years end ended ending report reported reports much many total amount company "
    "value figure level annual full quarter reporting balance expense expenses spend spent paid "
    "pay amounts record recorded".split()
)
"""Question words that say when, how much or what kind of amount, not which figure: they name no
metric ("research and development expense" is named by its first three words, not by a
depreciation row's "Operating expenses")."""

_STRICT = {"profit": ("profit", "earnings", "net")}
"""Synonyms too loose to say that a line names the metric: "gross profit" is not "Operating
income", though a window for a profit question should still show the income rows."""
QUALIFIERS = frozenset({"current", "other", "deferred", "preferred", "before"})
"""Words that make a row another line item than the one asked unless the question says them:
"Total current liabilities" is not "total liabilities", "Income before income taxes" is no tax."""
DISTINGUISHING = frozenset({"gross", "operating", "diluted", "basic"})
"""Words that, when the question says them, the line must say too: "operating income" is not
"Net income", "diluted EPS" is not the basic row."""

_WORD = re.compile(r"[a-z0-9&]+")
_POSSESSIVE = re.compile(r"['’]s?$")
_PERIOD = re.compile(r"(?:fy|q[1-4])?'?\d+")
_GROUP_OF = {word: group for group in SYNONYM_GROUPS for word in group}


def stem(word: str) -> str:
    """The word's first letters, a short plural made singular first ("taxes" is "tax", "assets"
    "asset"), since its first six letters would keep the "s"."""
    if len(word) <= STEM_CHARS + 1 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-2] if word.endswith("xes") else word[:-1]
    return word[:STEM_CHARS]


def text_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words of three letters or more."""
    return frozenset(stem(w) for w in lower_words(text) if len(w) > 2)


def lower_words(text: str) -> list[str]:
    """Lower-case words; "non-current" is one word, so that it never reads as "current"."""
    return _WORD.findall(text.lower().replace("non-current", "noncurrent"))


SYNONYM_WEIGHT = 0.5
"""What a synonym of a question's word counts for, against the word itself: "operating income"
is the ``Operating income`` row before the ``Earnings per share`` row its synonym finds."""


def question_weights(question: str) -> dict[str, float]:
    """The stems of the question's content words (hyphenated ones split: "year-end" is "end of
    year") at 1, and of their synonyms at ``SYNONYM_WEIGHT``."""
    terms = query_terms(question)
    words = [part for w in terms for part in w.split("-") if part]
    own = {stem(w) for w in words if len(w) > 2 or w in _GROUP_OF}
    weights = dict.fromkeys(expand([*terms, *words]), SYNONYM_WEIGHT)
    weights.update(dict.fromkeys(own, 1.0))
    return weights


def expand(words: Iterable[str], *, strict: bool = False) -> frozenset[str]:
    """The stems of ``words`` and of their synonyms (words of one or two letters skipped);
    ``strict`` leaves out the loose ones (``profit`` then is not any ``income``)."""
    stems: set[str] = set()
    for word in words:
        if len(word) <= 2 and word not in _GROUP_OF:
            continue
        stems.add(stem(word))
        synonyms = _STRICT.get(word) if strict else None
        stems.update(stem(w) for w in (synonyms or _GROUP_OF.get(word, ())))
    return frozenset(stems)


def metric_words(question: str, company: str | None) -> tuple[str, ...]:
    """What the question asks for: its content words without the company's name, years and
    numbers, and the generic words of time and size (``fiscal``, ``total``, ``much``)."""
    ignored = {stem(w) for w in [*GENERIC, *_WORD.findall((company or "").lower())]}
    words = (_POSSESSIVE.sub("", w) for w in query_terms(question))
    return tuple(
        w
        for w in dict.fromkeys(words)
        if stem(w) not in ignored and not _PERIOD.fullmatch(w) and (len(w) > 2 or w in _GROUP_OF)
    )


def figure_names_metric(answer: str, passages: Iterable[str], words: Iterable[str]) -> bool:
    """Some figure the answer states is printed on a line (a table row, a sentence) of the cited
    passages that names what the question asks; true when the answer states no figure or the
    question names no metric.

    A line names the metric when it says at least half of the question's metric words (each
    with its synonyms), every distinguishing word the question says (``diluted``; ``net`` beside
    a word for profit), and no qualifier the question does not say. A table row must do so in
    its own label, not only through its group ("Shareholders' equity: Retained earnings" is no
    equity total), unless its own label says nothing but ``Total`` or the like.
    """
    words = list(words)
    wanted = expand(words, strict=True)
    claims = find_figures(answer)
    if not wanted or not claims:
        return True
    asked = _asked_words(words)
    expanded = expand(words)
    unasked = {q for q in _CHECK_QUALIFIERS if stem(q) not in expanded}
    required = {stem(w) for w in DISTINGUISHING & set(words)}
    if "net" in words and set(words) & set(_GROUP_OF["profit"]):
        required.add("net")
    for passage in passages:
        for line in passage.splitlines():
            printed = passage_figures(line)
            if not any(supports(p, c) for p in printed for c in claims):
                continue
            naming = _naming_text(line, unasked)
            said = text_stems(naming or "")
            if (
                naming is not None
                and wanted & said
                and required <= said
                and 2 * sum(_says(word, said) for word in asked) >= len(asked)
            ):
                return True
    return False


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
    words left out ("year-end" names nothing, "long-term" stays)."""
    kept: dict[frozenset[str], str] = {}
    for word in words:
        parts = [p for p in word.split("-") if p and stem(p) not in _GENERIC_STEMS]
        if parts:
            kept.setdefault(expand([word], strict=True), word)
    return list(kept.values())


def _says(word: str, said: frozenset[str]) -> bool:
    """``said`` holds ``word``, a synonym of it, or every part of it ("long-term debt")."""
    parts = [p for p in word.split("-") if p]
    return bool(expand([word], strict=True) & said) or all(stem(p) in said for p in parts)


def unasked_qualifiers(label: str, question_words: Iterable[str]) -> frozenset[str]:
    """The qualifiers (``current``, ``deferred`` …) that ``label`` says and the question not."""
    return (QUALIFIERS - set(question_words)) & set(lower_words(label))
