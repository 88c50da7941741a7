"""The evaluation statistics against known values, their edge cases and their properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest  # type: ignore[import-untyped, unused-ignore]
from statsmodels.stats.proportion import (  # type: ignore[import-untyped, unused-ignore]
    proportion_confint,
)

from edgar_rag_dev.eval.stats import (
    auroc,
    auroc_interval,
    cluster_bootstrap,
    mcnemar_exact,
    minimum_detectable_effect,
    paired_cluster_bootstrap,
    percentiles,
    risk_coverage,
    wilson,
)


@pytest.mark.parametrize(
    ("successes", "published_low", "published_high"),
    [(0, 0.0, 0.2775), (5, 0.2366, 0.7634), (10, 0.7225, 1.0)],
)
def test_wilson_matches_statsmodels_and_published_values(
    successes: int, published_low: float, published_high: float
) -> None:
    interval = wilson(successes, 10)
    low, high = proportion_confint(successes, 10, alpha=0.05, method="wilson")
    assert interval.estimate == successes / 10
    assert (interval.low, interval.high) == pytest.approx((low, high), rel=1e-12, abs=1e-15)
    assert interval.low == pytest.approx(published_low, abs=1e-4)
    assert interval.high == pytest.approx(published_high, abs=1e-4)


def test_wilson_reproduces_the_headline_false_answer_rate() -> None:
    interval = wilson(13, 300)
    assert (round(interval.low, 3), round(interval.high, 3)) == (0.025, 0.073)


def test_wilson_of_no_cases_knows_nothing() -> None:
    interval = wilson(0, 0)
    assert math.isnan(interval.estimate)
    assert (interval.low, interval.high) == (0.0, 1.0)


def test_wilson_rejects_more_successes_than_cases() -> None:
    with pytest.raises(ValueError, match="successes"):
        wilson(11, 10)


def test_auroc_of_perfectly_separated_scores_is_one() -> None:
    assert auroc([0.9, 0.8, 0.7], [0.3, 0.2]) == 1.0


def test_auroc_of_reversed_scores_is_zero() -> None:
    assert auroc([0.3, 0.2], [0.9, 0.8, 0.7]) == 0.0


def test_auroc_of_identical_scores_is_one_half() -> None:
    assert auroc([0.5, 0.5], [0.5, 0.5, 0.5]) == 0.5


def test_auroc_counts_a_tie_as_half() -> None:
    assert auroc([0.9, 0.5], [0.5]) == 0.75


def test_auroc_without_positives_or_negatives_is_nan() -> None:
    assert math.isnan(auroc([], [0.1]))
    assert math.isnan(auroc([0.1], []))


def test_auroc_interval_brackets_the_estimate_and_repeats_with_its_seed() -> None:
    rng = np.random.default_rng(7)
    positive = rng.normal(1.0, 1.0, 60).tolist()
    negative = rng.normal(0.0, 1.0, 60).tolist()
    interval = auroc_interval(positive, negative, n_resamples=500, seed=3)
    assert interval.low < interval.estimate < interval.high
    assert interval == auroc_interval(positive, negative, n_resamples=500, seed=3)


def test_auroc_interval_is_wider_over_few_clusters() -> None:
    rng = np.random.default_rng(11)
    separation_by_company = np.repeat([2.0, 1.5, 0.0, -0.5], 20)
    positive = (rng.normal(0.0, 1.0, 80) + separation_by_company).tolist()
    negative = rng.normal(0.0, 1.0, 80).tolist()
    companies = [f"c{i // 20}" for i in range(80)]
    by_company = auroc_interval(positive, negative, companies, companies, n_resamples=500)
    by_question = auroc_interval(positive, negative, n_resamples=500)
    assert by_company.estimate == by_question.estimate
    assert by_company.high - by_company.low > by_question.high - by_question.low


def test_auroc_interval_of_an_empty_side_is_nan() -> None:
    interval = auroc_interval([], [0.1, 0.2])
    assert all(math.isnan(x) for x in (interval.estimate, interval.low, interval.high))


def test_mcnemar_exact_p_equals_the_two_sided_binomial_test() -> None:
    a = [True] * 8 + [False] * 2 + [True] * 5 + [False] * 7
    b = [False] * 8 + [True] * 2 + [True] * 5 + [False] * 7
    result = mcnemar_exact(a, b)
    assert (result.discordant_ab, result.discordant_ba) == (8, 2)
    assert result.p_value == binomtest(2, 10, p=0.5, alternative="two-sided").pvalue


def test_mcnemar_exact_reproduces_the_h2_reading() -> None:
    result = mcnemar_exact([True, True, False], [False, False, False])
    assert (result.discordant_ab, result.discordant_ba) == (2, 0)
    assert result.p_value == pytest.approx(0.5)


def test_mcnemar_exact_without_discordant_pairs_has_p_one() -> None:
    assert mcnemar_exact([True, False], [True, False]).p_value == 1.0
    assert mcnemar_exact([], []).p_value == 1.0


def test_risk_at_full_coverage_is_the_overall_error_rate() -> None:
    errors = [False, True, False, False, True, False, False]
    curve = risk_coverage([0.9, 0.1, 0.8, 0.8, 0.4, 0.6, 0.3], errors)
    assert curve.coverage[-1] == 1.0
    assert curve.risk[-1] == pytest.approx(sum(errors) / len(errors))
    assert curve.thresholds == (0.9, 0.8, 0.6, 0.4, 0.3, 0.1)
    assert curve.coverage[1] == pytest.approx(3 / 7)


def test_aurc_of_a_perfect_ranking_is_below_a_random_one() -> None:
    rng = np.random.default_rng(5)
    errors = (rng.random(400) < 0.3).tolist()
    perfect = [0.0 if error else 1.0 + rng.random() for error in errors]
    random_scores = rng.random(400).tolist()
    assert risk_coverage(perfect, errors).aurc < risk_coverage(random_scores, errors).aurc


def test_aurc_of_one_threshold_is_its_risk() -> None:
    assert risk_coverage([0.5] * 4, [True, False, False, False]).aurc == pytest.approx(0.25)


def test_risk_coverage_of_no_cases_is_empty() -> None:
    curve = risk_coverage([], [])
    assert (curve.thresholds, curve.coverage, curve.risk) == ((), (), ())
    assert math.isnan(curve.aurc)


def test_cluster_bootstrap_repeats_with_the_same_seed() -> None:
    values = [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    clusters = ["a", "a", "b", "b", "c", "c", "d", "d"]
    first = cluster_bootstrap(values, clusters, n_resamples=300, seed=42)
    assert first == cluster_bootstrap(values, clusters, n_resamples=300, seed=42)
    from_generator = cluster_bootstrap(
        values, clusters, n_resamples=300, seed=np.random.default_rng(42)
    )
    assert from_generator == first


def test_cluster_bootstrap_is_wider_when_clusters_are_few() -> None:
    values = [1.0] * 100 + [0.0] * 100
    four_companies = [f"c{i // 50}" for i in range(200)]
    one_per_question = [f"q{i}" for i in range(200)]
    few = cluster_bootstrap(values, four_companies, n_resamples=500)
    many = cluster_bootstrap(values, one_per_question, n_resamples=500)
    assert few.estimate == many.estimate == 0.5
    assert few.high - few.low > 2 * (many.high - many.low)


def test_cluster_bootstrap_takes_another_statistic() -> None:
    interval = cluster_bootstrap([1.0, 2.0, 3.0, 10.0], ["a", "b", "c", "d"], np.median, 200)
    assert interval.estimate == 2.5


def test_cluster_bootstrap_of_no_values_is_nan() -> None:
    interval = cluster_bootstrap([], [])
    assert all(math.isnan(x) for x in (interval.estimate, interval.low, interval.high))


def test_cluster_bootstrap_needs_one_label_per_value() -> None:
    with pytest.raises(ValueError, match="cluster labels"):
        cluster_bootstrap([1.0, 0.0], ["a"])


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(st.booleans(), min_size=3, max_size=3),
        min_size=1,
        max_size=12,
    ),
    st.integers(0, 2**32 - 1),
)
def test_cluster_bootstrap_interval_contains_the_point_estimate(
    groups: list[list[bool]], seed: int
) -> None:
    values = [value for group in groups for value in group]
    clusters = [f"c{k}" for k, group in enumerate(groups) for _ in group]
    interval = cluster_bootstrap(values, clusters, n_resamples=300, seed=seed)
    assert interval.low <= interval.estimate <= interval.high


def test_paired_cluster_bootstrap_estimates_the_difference_of_means() -> None:
    a = [True, True, False, True, False, True]
    b = [False, True, False, False, False, True]
    clusters = ["x", "x", "y", "y", "z", "z"]
    interval = paired_cluster_bootstrap(a, b, clusters, n_resamples=300, seed=1)
    assert interval.estimate == pytest.approx(2 / 6)
    assert interval.low <= interval.estimate <= interval.high
    assert interval == paired_cluster_bootstrap(a, b, clusters, n_resamples=300, seed=1)


def test_paired_cluster_bootstrap_rejects_arms_of_different_length() -> None:
    with pytest.raises(ValueError, match="length"):
        paired_cluster_bootstrap([True], [True, False], ["a"])


def test_mde_turns_cohens_h_back_into_a_proportion() -> None:
    h = (1.959964 + 0.841621) * math.sqrt(2 / 300)
    phi = 2 * math.asin(math.sqrt(0.043))
    expected = 0.043 - math.sin((phi - h) / 2) ** 2
    assert minimum_detectable_effect(300, 0.043) == pytest.approx(expected, rel=1e-4)


def test_mde_at_a_zero_baseline_moves_upward() -> None:
    effect = minimum_detectable_effect(180, 0.0)
    h = (1.959964 + 0.841621) * math.sqrt(2 / 180)
    assert effect == pytest.approx(math.sin(h / 2) ** 2, rel=1e-4)


def test_paired_mde_inverts_connors_sample_size() -> None:
    discordance, difference = 0.1, 0.04
    z_alpha, z_beta = 1.959964, 0.841621
    n = (
        z_alpha * math.sqrt(discordance) + z_beta * math.sqrt(discordance - difference**2)
    ) ** 2 / difference**2
    effect = minimum_detectable_effect(round(n), 0.5, paired_discordance=discordance)
    assert effect == pytest.approx(difference, rel=1e-2)


def test_mde_is_nan_when_nothing_is_detectable() -> None:
    assert math.isnan(minimum_detectable_effect(1, 0.5))
    assert math.isnan(minimum_detectable_effect(1, 0.5, paired_discordance=0.01))


def test_paired_mde_never_exceeds_the_discordance() -> None:
    assert math.isnan(minimum_detectable_effect(20, 0.5, paired_discordance=0.05))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 5000),
    st.integers(1, 5000),
    st.floats(0.0, 1.0),
    st.one_of(st.none(), st.floats(0.01, 1.0)),
)
def test_mde_decreases_with_n(
    n: int, extra: int, baseline_rate: float, discordance: float | None
) -> None:
    smaller = minimum_detectable_effect(n, baseline_rate, paired_discordance=discordance)
    larger = minimum_detectable_effect(n + extra, baseline_rate, paired_discordance=discordance)
    if not math.isnan(smaller):
        assert larger < smaller


def test_percentiles_name_each_quantile() -> None:
    assert percentiles([1.0, 2.0, 3.0, 4.0, 5.0]) == {"p50": 3.0, "p95": pytest.approx(4.8)}
    assert set(percentiles([1.0], qs=(99.9,))) == {"p99.9"}


def test_percentiles_of_nothing_are_nan() -> None:
    assert all(math.isnan(value) for value in percentiles([]).values())
