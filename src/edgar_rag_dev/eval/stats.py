"""Interval estimates and tests for the evaluation report: pure functions of their arguments.

Owns Wilson intervals, the company-cluster bootstrap, exact McNemar, AUROC, risk-coverage and the
minimum detectable effect. Must not do I/O or import beyond numpy, scipy and statsmodels (an
import-linter contract); randomness comes only from the ``seed`` argument, never a global RNG.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import SupportsFloat

import numpy as np
import numpy.typing as npt

# scipy and statsmodels ship no type information; each call goes through a typed helper below.
# `unused-ignore` keeps this valid once pyproject lists them under ignore_missing_imports.
from scipy import stats as scipy_stats  # type: ignore[import-untyped, unused-ignore]
from statsmodels.stats.power import NormalIndPower  # type: ignore[import-untyped, unused-ignore]
from statsmodels.stats.proportion import (  # type: ignore[import-untyped, unused-ignore]
    proportion_confint,
)

FloatArray = npt.NDArray[np.float64]
Statistic = Callable[[FloatArray], SupportsFloat]
Seed = int | np.random.Generator
Rows = npt.NDArray[np.intp]


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with the two ends of its interval."""

    estimate: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class McNemar:
    """Discordant pairs of two paired arms and the exact two-sided p-value."""

    discordant_ab: int
    """Cases where arm a is true and arm b false."""
    discordant_ba: int
    p_value: float


@dataclass(frozen=True, slots=True)
class RiskCoverage:
    """A risk-coverage curve, one point per distinct score threshold from high to low.

    coverage: share answered (score at or above the threshold); risk: error rate among them;
    aurc: area under risk over coverage on [0, 1], lower is better.
    """

    thresholds: tuple[float, ...]
    coverage: tuple[float, ...]
    risk: tuple[float, ...]
    aurc: float


_NAN_INTERVAL = Interval(math.nan, math.nan, math.nan)


def mean(values: FloatArray) -> float:
    """The arithmetic mean, as a Python float: the default bootstrap statistic."""
    return float(np.mean(values))


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """The share successes / n with its Wilson score interval.

    Follows statsmodels' ``proportion_confint(method="wilson")``. With n = 0 nothing is known:
    the estimate is nan and the interval [0, 1].
    """
    if not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got {successes} of {n}")
    if n == 0:
        return Interval(math.nan, 0.0, 1.0)
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="wilson")
    return Interval(successes / n, float(low), float(high))


def _resampled_rows(clusters: Sequence[str], n_resamples: int, rng: Seed) -> Iterator[Rows]:
    """Row indices of each resample: as many clusters as there are, drawn with replacement."""
    generator = np.random.default_rng(rng)
    _, cluster_of_row = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    members = [np.flatnonzero(cluster_of_row == k) for k in range(int(cluster_of_row.max()) + 1)]
    for _ in range(n_resamples):
        drawn = generator.integers(0, len(members), size=len(members))
        yield np.concatenate([members[k] for k in drawn])


def _percentile_interval(estimate: float, replicates: list[float], confidence: float) -> Interval:
    """The percentile bootstrap interval; replicates that came out nan are left out."""
    kept = np.asarray(replicates, dtype=np.float64)
    kept = kept[~np.isnan(kept)]
    if kept.size == 0:
        return Interval(estimate, math.nan, math.nan)
    low, high = np.quantile(kept, [(1 - confidence) / 2, (1 + confidence) / 2])
    return Interval(estimate, float(low), float(high))


def cluster_bootstrap(
    values: Sequence[float | bool],
    clusters: Sequence[str],
    statistic: Statistic = mean,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: Seed = 0,
) -> Interval:
    """``statistic(values)`` with a percentile interval from resampling whole clusters.

    Each resample draws as many clusters (companies) as there are, with replacement, and keeps all
    of a drawn cluster's values, so questions about one company stay together (Field and Welsh
    2007, "Bootstrapping clustered data"). The same seed gives the same interval; a Generator
    passed as seed is advanced. Empty input gives nan throughout.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size != len(clusters):
        raise ValueError(f"{data.size} values but {len(clusters)} cluster labels")
    if data.size == 0:
        return _NAN_INTERVAL
    replicates = [
        float(statistic(data[rows])) for rows in _resampled_rows(clusters, n_resamples, seed)
    ]
    return _percentile_interval(float(statistic(data)), replicates, confidence)


def paired_cluster_bootstrap(
    a: Sequence[float | bool],
    b: Sequence[float | bool],
    clusters: Sequence[str],
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: Seed = 0,
) -> Interval:
    """mean(a) - mean(b) over the same cases, with a cluster-bootstrap percentile interval.

    Both arms are resampled together, case by case, so their correlation is kept: the
    bootstrap runs on the per-case differences a - b (see ``cluster_bootstrap``).
    """
    if len(a) != len(b):
        raise ValueError(f"arms differ in length: {len(a)} and {len(b)}")
    differences = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    return cluster_bootstrap(differences.tolist(), clusters, mean, n_resamples, confidence, seed)


def _binomial_two_sided_p(successes: int, trials: int) -> float:
    return float(scipy_stats.binomtest(successes, trials, p=0.5, alternative="two-sided").pvalue)


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> McNemar:
    """Exact McNemar test of two paired arms: the discordant pairs and a two-sided p-value.

    The p-value is scipy's ``binomtest(discordant_ab, discordant_ab + discordant_ba, p=0.5)``;
    with no discordant pair it is 1.0.
    """
    if len(a) != len(b):
        raise ValueError(f"arms differ in length: {len(a)} and {len(b)}")
    ab = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    ba = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    p_value = 1.0 if ab + ba == 0 else _binomial_two_sided_p(ab, ab + ba)
    return McNemar(discordant_ab=ab, discordant_ba=ba, p_value=p_value)


def _average_ranks(values: FloatArray) -> FloatArray:
    return np.asarray(scipy_stats.rankdata(values, method="average"), dtype=np.float64)


def auroc(scores_positive: Sequence[float], scores_negative: Sequence[float]) -> float:
    """The probability that a positive scores above a negative, ties counting half.

    The Mann-Whitney U of the positives over n_pos * n_neg (Hanley and McNeil 1982), from
    scipy's average ranks. nan when either side is empty.
    """
    positive = np.asarray(scores_positive, dtype=np.float64)
    negative = np.asarray(scores_negative, dtype=np.float64)
    if positive.size == 0 or negative.size == 0:
        return math.nan
    ranks = _average_ranks(np.concatenate([positive, negative]))
    u_positive = float(ranks[: positive.size].sum()) - positive.size * (positive.size + 1) / 2
    return u_positive / (positive.size * negative.size)


def auroc_interval(
    scores_positive: Sequence[float],
    scores_negative: Sequence[float],
    clusters_positive: Sequence[str] | None = None,
    clusters_negative: Sequence[str] | None = None,
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    seed: Seed = 0,
) -> Interval:
    """``auroc`` with a percentile bootstrap interval.

    With cluster labels for both sides, whole clusters are resampled across positives and
    negatives together; without them every score is its own cluster. A resample that lacks
    positives or negatives is left out.
    """
    positive = np.asarray(scores_positive, dtype=np.float64)
    negative = np.asarray(scores_negative, dtype=np.float64)
    estimate = auroc(scores_positive, scores_negative)
    if math.isnan(estimate):
        return _NAN_INTERVAL
    if clusters_positive is None or clusters_negative is None:
        clusters_positive = [f"+{i}" for i in range(positive.size)]
        clusters_negative = [f"-{i}" for i in range(negative.size)]
    if len(clusters_positive) != positive.size or len(clusters_negative) != negative.size:
        raise ValueError("each score needs one cluster label")
    scores = np.concatenate([positive, negative])
    is_positive = np.arange(scores.size) < positive.size
    replicates = [
        auroc(scores[rows][is_positive[rows]].tolist(), scores[rows][~is_positive[rows]].tolist())
        for rows in _resampled_rows([*clusters_positive, *clusters_negative], n_resamples, seed)
    ]
    return _percentile_interval(estimate, replicates, confidence)


def risk_coverage(scores: Sequence[float], errors: Sequence[bool]) -> RiskCoverage:
    """The risk-coverage curve of answering only cases scored at or above a threshold.

    Thresholds run over the distinct scores from high to low (Geifman and El-Yaniv 2017,
    "Selective classification for deep neural networks"); tied scores enter together. ``aurc`` is
    the trapezoid area of risk over coverage, with the first point's risk held from coverage 0,
    so the area spans [0, 1]. Empty input gives empty tuples and aurc nan.
    """
    score = np.asarray(scores, dtype=np.float64)
    error = np.asarray(errors, dtype=bool)
    if score.size != error.size:
        raise ValueError(f"{score.size} scores but {error.size} error flags")
    if np.isnan(score).any():
        raise ValueError("scores must not be nan")
    if score.size == 0:
        return RiskCoverage((), (), (), math.nan)
    order = np.argsort(-score, kind="stable")
    score, error = score[order], error[order]
    last_of_tie = np.flatnonzero(np.append(score[1:] != score[:-1], True))
    answered = last_of_tie + 1
    errors_answered = np.cumsum(error)[last_of_tie]
    coverage = answered / score.size
    risk = errors_answered / answered
    area = float(np.trapezoid(np.insert(risk, 0, risk[0]), np.insert(coverage, 0, 0.0)))
    thresholds = tuple(score[last_of_tie].tolist())
    return RiskCoverage(thresholds, tuple(coverage.tolist()), tuple(risk.tolist()), area)


def _solve_cohens_h(n: int, alpha: float, power: float) -> float:
    return float(
        NormalIndPower().solve_power(
            effect_size=None, nobs1=n, alpha=alpha, power=power, ratio=1.0, alternative="two-sided"
        )
    )


def _normal_quantile(probability: float) -> float:
    return float(scipy_stats.norm.ppf(probability))


def minimum_detectable_effect(
    n: int,
    baseline_rate: float,
    alpha: float = 0.05,
    power: float = 0.8,
    paired_discordance: float | None = None,
) -> float:
    """The smallest difference in proportion detectable with the given power, two-sided.

    Two independent arms of n each: statsmodels' ``NormalIndPower.solve_power`` gives Cohen's h,
    which is turned back into proportions around ``baseline_rate`` (h = 2 asin sqrt p1 -
    2 asin sqrt p0); the smaller |p1 - p0| of the two directions that stay inside [0, 1] is
    returned.

    Paired, n pairs with discordance rate psi = P(a != b): Connor (1987), "Sample size for testing
    differences in proportions for the paired-sample design", n = (z_a sqrt(psi) +
    z_b sqrt(psi - d^2))^2 / d^2, solved exactly for d. With s = sqrt(psi - d^2) it is the
    quadratic (n + z_b^2) s^2 + 2 z_a z_b sqrt(psi) s + z_a^2 psi - n psi = 0; d = sqrt(psi - s^2)
    for its non-negative root, and d <= psi since |p_ab - p_ba| cannot exceed p_ab + p_ba.
    ``baseline_rate`` plays no part there.

    nan when no difference is detectable at this n.
    """
    if n <= 0 or not 0 < alpha < 1 or not 0 < power < 1 or not 0 <= baseline_rate <= 1:
        raise ValueError("need n > 0, 0 < alpha < 1, 0 < power < 1 and 0 <= baseline_rate <= 1")
    if paired_discordance is not None:
        return _connor_paired_effect(n, paired_discordance, alpha, power)
    h = _solve_cohens_h(n, alpha, power)
    phi = 2 * math.asin(math.sqrt(baseline_rate))
    reachable = [
        abs(math.sin(shifted / 2) ** 2 - baseline_rate)
        for shifted in (phi - h, phi + h)
        if 0 <= shifted <= math.pi
    ]
    return min(reachable, default=math.nan)


def _connor_paired_effect(n: int, discordance: float, alpha: float, power: float) -> float:
    if not 0 < discordance <= 1:
        raise ValueError(f"paired_discordance must be in (0, 1], got {discordance}")
    a = _normal_quantile(1 - alpha / 2) * math.sqrt(discordance)
    b = _normal_quantile(power)
    discriminant = n * discordance * (n + b**2) - n * a**2
    if discriminant < 0:
        return math.nan
    s = (-a * b + math.sqrt(discriminant)) / (n + b**2)
    effect = math.sqrt(discordance - s**2) if s >= 0 else math.nan
    return effect if effect <= discordance else math.nan


def percentiles(values: Sequence[float], qs: Sequence[float] = (50, 95)) -> dict[str, float]:
    """Named percentiles, ``{"p50": ..., "p95": ...}``, by ``numpy.percentile``; nan if empty."""
    data = np.asarray(values, dtype=np.float64)
    return {f"p{q:g}": float(np.percentile(data, q)) if data.size else math.nan for q in qs}
