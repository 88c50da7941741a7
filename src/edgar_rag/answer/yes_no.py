"""A yes-or-no question decided by a figure computed in code: the yes or no (or the word of an
either-or question) said first, then the computed answer that decides it, cited as it is.

The figure question and the sign that means yes come from ``question.verdicts``; the figure is
computed by ``ComputedAnswers`` as for any figure question, and its result decides. A figure that
cannot be computed decides nothing: the question goes on as it would have (the model reads the
passages), and a result of zero, neither up nor down, is no yes and no no.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal, InvalidOperation
from itertools import pairwise

from edgar_rag.answer.computed import Computed
from edgar_rag.question.verdicts import Decides, YesNoFigure

_PAST = {"improve": "improved", "increase": "increased", "grow": "grew", "grown": "grew",
         "decline": "declined", "decrease": "decreased", "deteriorate": "deteriorated",
         "fall": "fell", "fallen": "fell"}  # fmt: skip


def decide_yes_no(asked: YesNoFigure, computed: Computed) -> Computed | None:
    """``computed`` (the answer to ``asked.figure_question``) opened with what it decides:
    ``No. Adobe's operating margin fell ...``; None when its result decides nothing."""
    if asked.decides is Decides.STEADY:
        return _steady(asked, computed)
    result = _result(computed)
    if result is None or result == 0:
        return None
    rose = result > 0
    if asked.either is not None:
        said = _PAST.get(asked.either[0 if rose else 1], asked.either[0 if rose else 1])
        opening = f"It {said}."
    else:
        yes = rose if asked.decides in (Decides.RISE, Decides.POSITIVE) else not rose
        opening = "Yes." if yes else "No."
    detail = f"{computed.detail}; the yes or no is the sign of the computed {asked.measure}"
    return replace(computed, text=f"{opening} {computed.text}", detail=detail)


def _result(computed: Computed) -> Decimal | None:
    """The computed figure (a change's, for a change), None when nothing was computed."""
    calculation = computed.calculation
    if calculation is None:
        return None
    try:
        return Decimal(str(calculation["result"]))
    except (KeyError, InvalidOperation):
        return None


def _steady(asked: YesNoFigure, computed: Computed) -> Computed | None:
    """``computed`` (each year's figure, newest first, then the change over them) opened with
    whether no year moved by more than the question's limit: each step between consecutive
    years, in percentage points of the margins as computed (to one decimal), is set against
    it."""
    try:
        levels = [Decimal(str(shown["result"])) for shown in computed.comparison]
    except (KeyError, InvalidOperation):
        return None
    units = {shown.get("unit") for shown in computed.comparison}
    if asked.limit is None or len(levels) < 2 or units != {"percent"}:
        return None  # each year's margin in percent, so a step is in percentage points
    steps = [abs(newer - older) for newer, older in pairwise(levels)]
    largest = max(steps)
    limit = asked.limit
    if largest.quantize(Decimal("0.1")) == limit.quantize(Decimal("0.1")):
        return None  # on the limit itself: "roughly" decides nothing
    steady = largest < limit
    said = "Yes" if steady else "No"
    opening = (
        f"{said}. {asked.subject} moved by at most {largest:.1f} percentage points from one "
        f"year to the next, within the {limit.normalize():f} points the question allows."
        if steady
        else f"{said}. {asked.subject} moved by {largest:.1f} percentage points in one year, "
        f"more than the {limit.normalize():f} points the question allows."
    )
    detail = (
        f"{computed.detail}; the yes or no sets the largest yearly change of the computed "
        f"{asked.measure} against the question's limit of {limit.normalize():f}"
    )
    return replace(computed, text=f"{opening} {computed.text}", detail=detail)
