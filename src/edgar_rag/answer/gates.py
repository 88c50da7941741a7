"""The gates that may decline a question before the model runs, and how their threshold is fitted.

A gate is named by the checks it runs: ``none``, ``cosine``, ``period`` (the default) or
``period+cosine``. The period check runs first, only with one filing in scope and only on a
question for a reported figure (a lookup, a computation, a comparison): a prose question names
years of events a filing tells of ("the 2017 Tax Act", "its 2019 acquisition") that are no
column of its statements. The cosine check compares the best hit's cosine with a threshold
fitted on answerable questions. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from edgar_rag.domain import FilingMeta, Hit, Reason
from edgar_rag.errors import ConfigError
from edgar_rag.question.periods import period_guard
from edgar_rag.question.reading import Kind, Question

GATES: tuple[str, ...] = ("none", "cosine", "period", "period+cosine")


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Whether a question goes on to the model, and if not, why."""

    passed: bool
    reason: Reason | None
    """``out_of_period`` or ``gate_rejected`` when declined; None when passed."""
    detail: str | None
    gate: str
    gate_score: float | None
    """The best hit's cosine, when a cosine check ran."""


def best_cosine(hits: Sequence[Hit]) -> float | None:
    """The highest cosine among the hits: the score a cosine gate holds to its threshold.

    The highest, not the first hit's: fusion may rank a lexical match above the passage
    closest in meaning, and the gate asks whether any passage is close enough.
    """
    return max((hit.cosine for hit in hits), default=None)


def apply_gate(
    name: str,
    question: Question,
    filing: FilingMeta | None,
    hits: Sequence[Hit],
    cosine_threshold: float,
) -> GateDecision:
    """Run the named gate on ``question``, read against ``filing`` (None for a corpus-wide
    question: no period check)."""
    if name not in GATES:
        raise ConfigError(f"unknown gate {name!r}; choose one of {', '.join(GATES)}")
    checks = name.split("+")
    if "period" in checks and filing is not None and question.kind is not Kind.NARRATIVE:
        detail = period_guard(question.years - question.outlook, filing)
        if detail is not None:
            return GateDecision(False, Reason.OUT_OF_PERIOD, detail, name, None)
    if "cosine" not in checks:
        return GateDecision(True, None, None, name, None)
    score = best_cosine(hits)
    if score is None:
        return GateDecision(
            False, Reason.GATE_REJECTED, "no passage matches the question", name, None
        )
    if score < cosine_threshold:
        detail = (
            f"the best passage scores {score:.3f}, "
            f"under the gate's threshold of {cosine_threshold:.3f}"
        )
        return GateDecision(False, Reason.GATE_REJECTED, detail, name, score)
    return GateDecision(True, None, None, name, score)


def fit_threshold(scores: Sequence[float], admit: float = 0.9) -> float:
    """The cosine threshold that admits ``admit`` of these answerable questions' best scores.

    The ``1 - admit`` quantile (the 10th percentile for 0.9) with numpy's ``lower`` method:
    the sorted score at index ``floor((n - 1) * (1 - admit))``, never an interpolated value.
    At most ``1 - admit`` of the scores lie strictly under it, so a gate passing
    ``score >= threshold`` admits at least ``admit`` of them, also on a small sample, where
    numpy's default ``linear`` method can admit fewer (4 of 5 for ``admit=0.9``).
    """
    if not 0.0 < admit <= 1.0:
        raise ValueError(f"admit must be in (0, 1], not {admit}")
    if len(scores) == 0:
        raise ValueError("no scores to fit a threshold on")
    values = np.asarray(scores, dtype=np.float64)
    # Rounded: 1 - 0.9 is 0.0999..., which would take the score below the 10th percentile.
    return float(np.quantile(values, round(1.0 - admit, 12), method="lower"))


def cross_fit_thresholds(
    scores_by_company: Mapping[str, Sequence[float]], folds: int = 2, *, admit: float = 0.9
) -> dict[str, float]:
    """Each company's threshold, fitted only on companies in the other folds.

    Companies go to folds by sorted name, alternating (the first to fold 0, the second to
    fold 1, ...), so the split is the same on every run and never sees a company's own
    scores when fitting its threshold.
    """
    if folds < 2:
        raise ValueError(f"cross-fitting needs at least 2 folds, not {folds}")
    names = sorted(scores_by_company)
    fold_of = {company: index % folds for index, company in enumerate(names)}
    thresholds: dict[str, float] = {}
    for fold in range(folds):
        held_out = [company for company in names if fold_of[company] == fold]
        if not held_out:
            continue
        training = [
            score
            for company in names
            if fold_of[company] != fold
            for score in scores_by_company[company]
        ]
        if not training:
            raise ValueError(f"no scores outside fold {fold} ({', '.join(held_out)}) to fit on")
        threshold = fit_threshold(training, admit)
        thresholds.update(dict.fromkeys(held_out, threshold))
    return thresholds
