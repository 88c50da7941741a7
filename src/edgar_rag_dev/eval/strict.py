"""What a reader accepts as the figure asked: the one rule every figure scorer applies (issue 42).

A figure an answer states is the gold only when

- its **value**, read in the scale it wrote (or in the scale the question asked, where it wrote
  none and the question names one), is the gold's within the rounding it wrote, and that rounding
  is at most ``PRECISION`` of the gold or as coarse as the gold's own: ``$416.2 billion`` is
  416,161 million, ``$0.4 trillion`` is not; a bare ``6,747`` is not $6,747 million (where the
  question asks ``in USD millions``, a bare ``1,577`` answers in the unit asked);
- its **unit** is the gold's: a dollar amount carries a currency sign or word and counts no
  shares; a per-share amount is in dollars or per share; a percentage only for a percentage and
  never for anything else;
- its **sign** is the gold's: a negative gold is stated negative, or positive in a sentence that
  names the loss or the decrease; a positive gold is never stated negative (a payment the cash
  flow statement prints in parentheses excepted, where the caller says the gold is an outflow).

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from edgar_rag.answer.numbers import Figure, find_figures

Unit = Literal["usd", "usd_per_share", "percent", "number"]
"""What the gold is: dollars, dollars per share, a percentage, or a plain number (a count, a
ratio, a multiple)."""

PRECISION = 0.01
"""The coarsest rounding a reader accepts: half the last written digit's step, as a share of the
gold (``$6.1 billion`` for 6,085 million is 0.8%; ``$1.6 billion`` for 1,577 million is 3.2%)."""

_PER_SHARE_AFTER = re.compile(r"\s*(?:per|a|/)\s*(?:(?:diluted|basic|common|ordinary)\s+)*share\b")
_SHARES_AFTER = re.compile(
    r"\s*(?:of\s+)?(?:(?:class\s+[a-c]\s+)?(?:common\s+|ordinary\s+|treasury\s+)?)"
    r"(?:shares?|stock)\b",
    re.IGNORECASE,
)
_DOLLARS_AFTER = re.compile(r"\s*(?:u\.s\.\s+)?(?:dollars?\b|usd\b)", re.IGNORECASE)
_DOLLARS_BEFORE = re.compile(r"(?:\busd|us\$|\$)\s*$", re.IGNORECASE)
_LOSS_WORDS = re.compile(
    r"\b(?:loss(?:es)?|decreas\w*|declin\w*|fell|fall\w*|lower|negative|deficit|reduc\w*|"
    r"drop\w*|outflows?|used\s+in)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.;!?])\s+")


@dataclass(frozen=True, slots=True)
class Gold:
    """The figure asked: its signed value, its unit, and the scale the question names (``in USD
    millions``), if any."""

    value: float
    unit: Unit
    asked_scale: float | None = None
    outflow: bool = False
    """The gold is a payment, which a cash flow statement prints in parentheses."""
    half_step: float = 0.0
    """Half the last digit's step the gold itself is written to (``1.9%``: 0.05): an answer may
    round as coarsely as the gold does, and fall anywhere within it."""
    relative_tolerance: float = 0.0
    """A further tolerance as a share of the gold (FinanceBench's 1%), on top of the rounding the
    answer wrote."""


def half_step_of(figure: Figure, scale: float | None = None) -> float:
    """Half the step of the last digit ``figure`` writes, in ``scale`` (its own by default)."""
    return 0.5 * 10.0**-figure.decimals_written * (figure.scale if scale is None else scale)


def stated_unit(figure: Figure, text: str) -> str:
    """What ``figure`` is in, read from the words around it in ``text``: ``percent``,
    ``usd_per_share``, ``usd``, ``shares`` or ``bare``."""
    if figure.is_percent:
        return "percent"
    after = text[figure.end : figure.end + 40]
    before = text[max(0, figure.start - 6) : figure.start]
    if _PER_SHARE_AFTER.match(after):
        return "usd_per_share"
    if _SHARES_AFTER.match(after):
        return "shares"
    if any(sign in figure.text for sign in "$€£") or _DOLLARS_AFTER.match(after):
        return "usd"
    return "usd" if _DOLLARS_BEFORE.search(before) else "bare"


_ACCEPTED_UNITS: dict[Unit, frozenset[str]] = {
    "usd": frozenset({"usd"}),
    "usd_per_share": frozenset({"usd", "usd_per_share"}),
    "percent": frozenset({"percent"}),
    "number": frozenset({"bare", "usd", "usd_per_share", "shares"}),
}


def _sentence_of(figure: Figure, text: str) -> str:
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(text, 0, figure.start))]
    end = _SENTENCE_END.search(text, figure.end)
    return text[starts[-1] : end.start() if end else len(text)]


def _signed_as_gold(figure: Figure, text: str, gold: Gold) -> bool:
    negative = figure.value < 0
    if gold.value < 0:
        return negative or _LOSS_WORDS.search(_sentence_of(figure, text)) is not None
    return not negative or (gold.outflow and "(" in figure.text)


def _value_as_read(figure: Figure, gold: Gold) -> tuple[float, float]:
    """The figure's magnitude and half its last digit's step, in the scale it wrote, or in the
    question's scale where it wrote none."""
    scale = figure.scale
    if scale == 1 and gold.asked_scale is not None and gold.unit != "percent":
        scale = gold.asked_scale
    return figure.raw * scale, half_step_of(figure, scale)


def is_gold(figure: Figure, text: str, gold: Gold) -> bool:
    """``figure``, as ``text`` states it, is the gold figure under the strict rule."""
    unit = stated_unit(figure, text)
    asked_in_dollars = unit == "bare" and gold.unit == "usd" and gold.asked_scale is not None
    if unit not in _ACCEPTED_UNITS[gold.unit] and not asked_in_dollars:
        return False
    if gold.unit == "number" and figure.is_percent:
        return False
    if not _signed_as_gold(figure, text, gold):
        return False
    expected = abs(gold.value)
    magnitude, half_step = _value_as_read(figure, gold)
    if expected and half_step > max(PRECISION * expected, gold.half_step) * (1 + 1e-9):
        return False
    tolerance = max(half_step, gold.half_step, gold.relative_tolerance * expected)
    return abs(magnitude - expected) <= tolerance * (1 + 1e-9)


def states_gold(text: str, gold: Gold, figures: Iterable[Figure] | None = None) -> bool:
    """Some figure ``text`` states is the gold (``figures``: those already found in it)."""
    found = find_figures(text) if figures is None else figures
    return any(is_gold(figure, text, gold) for figure in found)
