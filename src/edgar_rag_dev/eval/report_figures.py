"""The evaluation report's figures (``docs/eval/report.json``): a pure function of the committed
runs and the golden set, so that ``make eval`` rebuilds it byte for byte.

Every arm is a mask over one generation per question (``report.arm_outcome``). Rates carry a
Wilson interval and a company-cluster bootstrap; paired arms an exact McNemar test, a bootstrap
interval on their difference and the minimum detectable effect at 80% power; each gate's score
its AUROC (answerable against unanswerable) and risk-coverage curve. Bootstraps are seeded, and
floats are rounded to six places so that the JSON does not depend on the last bits of a machine's
arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from edgar_rag_dev.eval.golden import GoldenQuestion
from edgar_rag_dev.eval.report import ARMS, UNANSWERABLE, arm_outcome
from edgar_rag_dev.eval.stats import (
    auroc_interval,
    cluster_bootstrap,
    mcnemar_exact,
    minimum_detectable_effect,
    paired_cluster_bootstrap,
    percentiles,
    risk_coverage,
    wilson,
)

Record = dict[str, Any]
GATE_DECLINES = frozenset({"out_of_scope", "out_of_period", "gate_rejected"})
"""Outcomes decided before the model: the question never reached it under that arm."""
PAIRS = (
    ("cosine", "none"),
    ("period", "none"),
    ("period+cosine", "none"),
    ("period+cosine", "cosine"),
)
"""Each gated arm against no gate, and the period guard added to the cosine gate."""
COVERAGES = (0.9, 0.75, 0.5)
RESAMPLES = 2000
"""Company-bootstrap resamples behind every interval (seed 0)."""
_NO_COSINE = -1.0
"""Cosines lie in [-1, 1]: a question with no hit scores as low as any can."""


def _round(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def _share(flags: Sequence[bool], clusters: Sequence[str] | None = None) -> dict[str, Any]:
    """count / n with its Wilson interval, and with a company bootstrap when clusters are given."""
    count, n = sum(flags), len(flags)
    interval = wilson(count, n)
    share: dict[str, Any] = {
        "count": count,
        "n": n,
        "rate": _round(interval.estimate),
        "wilson": [_round(interval.low), _round(interval.high)],
    }
    if clusters is not None:
        boot = cluster_bootstrap(
            [float(flag) for flag in flags], clusters, n_resamples=RESAMPLES, seed=0
        )
        share["bootstrap"] = [_round(boot.low), _round(boot.high)]
    return share


def _outcomes(records: Sequence[Record], thresholds: Mapping[str, float]) -> dict[str, list[str]]:
    return {
        arm: [arm_outcome(r, arm, thresholds.get(r["ticker"])) for r in records] for arm in ARMS
    }


def _correct(record: Record, outcome: str) -> bool:
    return outcome == "answered" and bool(record["correct"])


def _arm_figures(records: Sequence[Record], shown: Sequence[str]) -> dict[str, Any]:
    answerable = [(r, o) for r, o in zip(records, shown, strict=True) if r["kind"] == "answerable"]
    unanswerable = [
        (r, o) for r, o in zip(records, shown, strict=True) if r["kind"] != "answerable"
    ]
    timed = [(r, o) for r, o in zip(records, shown, strict=True) if not r.get("replayed", False)]
    spent = sum(r["generate_s"] for r, o in timed if o not in GATE_DECLINES)
    return {
        "correct": _share(
            [_correct(r, o) for r, o in answerable], [r["ticker"] for r, _ in answerable]
        ),
        "false_answers": _share(
            [o == "answered" for _, o in unanswerable], [r["ticker"] for r, _ in unanswerable]
        ),
        "false_by_kind": {
            kind: _share([o == "answered" for r, o in unanswerable if r["kind"] == kind])
            for kind in UNANSWERABLE
        },
        "correct_in_code": sum(_correct(r, o) and bool(r.get("computed")) for r, o in answerable),
        "reached_model": sum(o not in GATE_DECLINES for o in shown),
        "generator_s_per_question": _round(spent / len(timed)) if timed else None,
    }


def _comparison(
    records: Sequence[Record],
    outcomes: Mapping[str, Sequence[str]],
    pair: tuple[str, str],
    measure: str,
) -> dict[str, Any]:
    """``pair[0]`` against ``pair[1]`` on one measure, case by case."""
    answerable = measure == "correct"
    rows = [i for i, r in enumerate(records) if (r["kind"] == "answerable") == answerable]

    def flags(arm: str) -> list[bool]:
        if answerable:
            return [_correct(records[i], outcomes[arm][i]) for i in rows]
        return [outcomes[arm][i] == "answered" for i in rows]

    first, second = flags(pair[0]), flags(pair[1])
    test = mcnemar_exact(first, second)
    clusters = [records[i]["ticker"] for i in rows]
    difference = paired_cluster_bootstrap(first, second, clusters, n_resamples=RESAMPLES, seed=0)
    n = len(rows)
    observed = (test.discordant_ab + test.discordant_ba) / n if n else 0.0
    mde, one_way = paired_mde(n, observed) if n else (math.nan, False)
    return {
        "arms": list(pair),
        "measure": measure,
        "n": n,
        "only_first": test.discordant_ab,
        "only_second": test.discordant_ba,
        "p_value": _round(test.p_value),
        "difference": [
            _round(difference.estimate),
            _round(difference.low),
            _round(difference.high),
        ],
        "discordance": _round(observed),
        "mde": _round(mde),
        "mde_one_way": one_way,
    }


def paired_mde(n: int, observed_discordance: float) -> tuple[float, bool]:
    """The minimum detectable difference of two paired arms (80% power, two-sided 5%), and
    whether it assumes every discordant pair goes one way.

    A true difference d needs a discordance of at least d, so the discordance assumed is the
    observed one or d, whichever is larger: Connor's formula at the observed discordance when it
    can detect a difference that small, else the d it detects when the discordance is d itself
    (found by bisection; no paired design of n pairs detects less).
    """
    if observed_discordance > 0:
        at_observed = minimum_detectable_effect(n, 0.5, paired_discordance=observed_discordance)
        if not math.isnan(at_observed):
            return at_observed, False
    low, high = max(observed_discordance, 1e-9), 1.0
    for _ in range(60):
        middle = (low + high) / 2
        reachable = not math.isnan(minimum_detectable_effect(n, 0.5, paired_discordance=middle))
        low, high = (low, middle) if reachable else (middle, high)
    return high, True


GateScore = Callable[[Record], float]
GATE_SCORES: dict[str, GateScore] = {
    "cosine": lambda r: _NO_COSINE if r["best_cosine"] is None else float(r["best_cosine"]),
    "period": lambda r: 0.0 if r["period_declined"] else 1.0,
    "period+cosine": lambda r: (
        2 * _NO_COSINE
        if r["period_declined"]
        else (_NO_COSINE if r["best_cosine"] is None else float(r["best_cosine"]))
    ),
}
"""What each gate scores, higher meaning more likely answerable: the best cosine; the period
guard's decision (0 declined, 1 passed); the best cosine with the guard's declines below all."""


def _auroc(records: Sequence[Record], score: GateScore, kind: str | None) -> dict[str, Any]:
    positive = [r for r in records if r["kind"] == "answerable"]
    negative = [
        r for r in records if r["kind"] != "answerable" and (kind is None or r["kind"] == kind)
    ]
    interval = auroc_interval(
        [score(r) for r in positive],
        [score(r) for r in negative],
        [r["ticker"] for r in positive],
        [r["ticker"] for r in negative],
        n_resamples=RESAMPLES,
        seed=0,
    )
    return {
        "estimate": _round(interval.estimate),
        "interval": [_round(interval.low), _round(interval.high)],
        "answerable": len(positive),
        "unanswerable": len(negative),
    }


def _risk_coverage(scores: Sequence[float], errors: Sequence[bool]) -> dict[str, Any]:
    curve = risk_coverage(scores, errors)
    at = {}
    for wanted in COVERAGES:
        reached = [i for i, c in enumerate(curve.coverage) if c >= wanted]
        at[f"{wanted:g}"] = (
            [_round(curve.coverage[reached[0]]), _round(curve.risk[reached[0]])]
            if reached
            else None
        )
    return {"aurc": _round(curve.aurc), "risk_at_coverage": at}


def _errors_last(errors: Sequence[bool]) -> list[float]:
    """Distinct scores that rank every right outcome above every wrong one: the lowest AURC
    any score can reach on these outcomes."""
    return [(0.0 if error else 1.0) + i / (2 * len(errors)) for i, error in enumerate(errors)]


def _wrong(record: Record, outcome: str) -> bool:
    """The end-to-end outcome is wrong: an answerable question not answered correctly, or an
    unanswerable one answered."""
    if record["kind"] == "answerable":
        return not _correct(record, outcome)
    return outcome == "answered"


def _cost(records: Sequence[Record]) -> dict[str, float | None]:
    """Prompt tokens and generator seconds per question that reached the model, P50 and P95
    (timed generations only); the questions answered or declined in code ask no model."""
    asked = [r for r in records if not r.get("computed", False)]
    tokens = percentiles([r["prompt_tokens"] for r in asked])
    seconds = percentiles([r["generate_s"] for r in asked if not r.get("replayed", False)])
    return {
        "questions": len(records),
        "computed": len(records) - len(asked),
        "prompt_tokens_p50": _round(tokens["p50"]),
        "prompt_tokens_p95": _round(tokens["p95"]),
        "generator_s_p50": _round(seconds["p50"]),
        "generator_s_p95": _round(seconds["p95"]),
    }


def run_figures(run: Mapping[str, Any], source: str) -> dict[str, Any]:
    """Every figure of one split's run."""
    records = list(run["records"])
    outcomes = _outcomes(records, run["thresholds"])
    errors = [_wrong(r, o) for r, o in zip(records, outcomes["none"], strict=True)]
    timed = sum(1 for r in records if not r.get("replayed", False))
    return {
        "source": source,
        "split": run["split"],
        "generator": run["generator"],
        "questions": len(records),
        "questions_in_split": int(run.get("questions_in_split", len(records))),
        "companies": sorted({r["ticker"] for r in records}),
        "thresholds": sorted({_round(t) for t in run["thresholds"].values()}),
        "generations_timed": timed,
        "cost": _cost(records),
        "arms": {arm: _arm_figures(records, outcomes[arm]) for arm in ARMS},
        "comparisons": [
            _comparison(records, outcomes, pair, measure)
            for pair in PAIRS
            for measure in ("correct", "false_answers")
        ],
        "auroc": {
            name: {
                group: _auroc(records, score, None if group == "all" else group)
                for group in ("all", *UNANSWERABLE)
            }
            for name, score in GATE_SCORES.items()
        },
        "risk_coverage": {
            "end_to_end_risk": _round(sum(errors) / len(errors)) if errors else None,
            "scores": {
                **{
                    name: _risk_coverage([score(r) for r in records], errors)
                    for name, score in GATE_SCORES.items()
                },
                "best possible": _risk_coverage(_errors_last(errors), errors),
            },
        },
    }


def golden_figures(golden: Sequence[GoldenQuestion]) -> dict[str, Any]:
    splits: dict[str, Any] = {}
    for question in golden:
        split = splits.setdefault(question.split, {"companies": set(), "kinds": {}})
        split["companies"].add(question.ticker)
        split["kinds"][question.kind] = split["kinds"].get(question.kind, 0) + 1
    return {
        "questions": len(golden),
        "splits": {
            name: {
                "companies": sorted(split["companies"]),
                "kinds": dict(sorted(split["kinds"].items())),
            }
            for name, split in sorted(splits.items())
        },
    }


def report_figures(
    runs: Mapping[str, tuple[str, Mapping[str, Any]]], golden: Sequence[GoldenQuestion]
) -> dict[str, Any]:
    """The report: the golden set, and each split's run (``split -> (its path, the run)``)."""
    return {
        "bootstrap_resamples": RESAMPLES,
        "golden": golden_figures(golden),
        "runs": {split: run_figures(run, source) for split, (source, run) in runs.items()},
    }
