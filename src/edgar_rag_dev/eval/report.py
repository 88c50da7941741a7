"""Markdown pages of the evaluations, rendered from the JSON their commands wrote."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from edgar_rag.markdown import interval, share, table

RETRIEVAL_TARGETS = {"figure": 0.9, "narrative-item": 0.9}


def _recall_table(named: Iterable[tuple[str, dict[str, float]]]) -> list[str]:
    rows = [
        [name, int(scores["n"])]
        + [f"{scores[key]:.3f}" for key in ("recall@1", "recall@5", "recall@10", "mrr")]
        for name, scores in named
    ]
    return table(["", "n", "recall@1", "recall@5", "recall@10", "MRR"], rows, align="lrrrrr")


def render_retrieval(report: dict[str, Any]) -> str:
    arms = report["arms"]
    default = arms[report["default_arm"]]
    targets = []
    for group, target in RETRIEVAL_TARGETS.items():
        value = default[group]["recall@5"]
        targets.append([group, f"{value:.3f}", target, "yes" if value >= target else "no"])
    lines = [
        "# Retrieval",
        "",
        "Written by `make retrieval` (`edgar-rag dev eval retrieval`) from `docs/retrieval.json`.",
        "",
        f"- {report['questions']['figure']} figure questions generated from the filings' XBRL "
        "facts (`data/retrieval/figures.jsonl`): a hit is a passage printing the fact's value as "
        "displayed, scoped to the filing.",
        f"- {report['questions']['narrative']} hand-written narrative questions "
        "(`data/retrieval/narrative.jsonl`): `narrative-item` counts a passage of the expected "
        "Item as a hit; `narrative-phrase`, stricter, one that also contains the expected phrase.",
        f"- The index: the whole corpus, {report['corpus_chunks']} chunks of 800 characters with "
        "150 of overlap.",
        "",
        f"## Targets (default search: {report['default_arm']}, scoped)",
        "",
        *table(["set", "recall@5", "target", "met"], targets, align="lrrl"),
    ]
    lines += ["", "## Ablation (scoped to the filing)", ""]
    for group in ("figure", "narrative-item", "narrative-phrase"):
        lines += [f"### {group}", ""]
        lines += _recall_table((name, scores[group]) for name, scores in arms.items())
        lines.append("")
    lines += ["## Default search, per group", ""]
    lines += _recall_table((group, scores) for group, scores in default.items() if group != "all")
    wide = report["corpus_wide_narrative"]
    lines += [
        "",
        "## Narrative questions across the whole corpus (the right filing and Item)",
        "",
        *_recall_table([("narrative-item, corpus-wide", wide["narrative-item"])]),
        "",
    ]
    sweep = report.get("chunk_sweep")
    if sweep:
        lines += [
            "## Chunk size (characters / overlap)",
            "",
            f"The filings {', '.join(sweep['filings'])} re-indexed at each size; the "
            f"{int(next(iter(sweep['sizes'].values()))['figure']['n'])} figure and "
            f"{int(next(iter(sweep['sizes'].values()))['narrative-item']['n'])} narrative "
            "questions about them, default search, scoped. With so few narrative questions, one "
            "question moves narrative recall@5 by "
            f"{1 / next(iter(sweep['sizes'].values()))['narrative-item']['n']:.0%}; "
            "the default is 800/150.",
            "",
            *table(
                [
                    "chunks",
                    "n chunks",
                    "figure recall@5",
                    "figure MRR",
                    "narrative-item recall@5",
                    "narrative-item MRR",
                ],
                [
                    [size, int(scores["chunks"]["n"])]
                    + [
                        f"{scores[group][key]:.3f}"
                        for group in ("figure", "narrative-item")
                        for key in ("recall@5", "mrr")
                    ]
                    for size, scores in sweep["sizes"].items()
                ],
                align="lrrrrr",
            ),
        ]
        lines.append("")
    return "\n".join(lines)


ARMS = ("none", "cosine", "period", "period+cosine")
UNANSWERABLE = ("other_company", "other_period", "not_disclosed")


def arm_outcome(record: dict[str, Any], arm: str, threshold: float | None) -> str:
    """What an arm shows for a case: the shared generation's outcome, or the arm's own decline."""
    if record["company_declined"]:
        return "out_of_scope"
    if "period" in arm and record["period_declined"]:
        return "out_of_period"
    best = record["best_cosine"]
    if "cosine" in arm and threshold is not None and (best is None or best < threshold):
        return "gate_rejected"
    return str(record["outcome"])


def _bare(record: dict[str, Any]) -> str:
    """The outcome of the model and the figure verifier alone (runs before the metric check
    recorded only the period check's effect)."""
    return str(record.get("outcome_bare") or record["outcome_without_period_check"])


def _without_metric(record: dict[str, Any]) -> str:
    return str(record.get("outcome_without_metric_check") or record["outcome"])


def _rate(count: int, n: int) -> str:
    from edgar_rag_dev.eval.stats import wilson  # noqa: PLC0415

    bounds = wilson(count, n)
    return share(count, n, count / n if n else None, (bounds.low, bounds.high))


def _completeness(run: dict[str, Any], done: int) -> list[str]:
    total = int(run.get("questions_in_split", done))
    if done >= total:
        return []
    return [
        f"**Partial run: {done} of the split's {total} questions were asked before the run was "
        "stopped (two shared cores, one local model); the questions are in golden-set order, "
        "whole filings at a time.**",
        "",
    ]


def render_answering(run: dict[str, Any]) -> str:
    records = run["records"]
    thresholds = run["thresholds"]
    answerable = [r for r in records if r["kind"] == "answerable"]
    unanswerable = [r for r in records if r["kind"] != "answerable"]
    outcomes = {
        arm: [arm_outcome(r, arm, thresholds.get(r["ticker"])) for r in records] for arm in ARMS
    }
    lines = [
        "# Answering",
        "",
        f"Written by `make answering` from `data/golden/run-{run['split']}.json`: the "
        f"{run['split']} split of the golden set ({len(answerable)} answerable questions with an "
        f"XBRL gold value, {len(unanswerable)} unanswerable by construction), generator "
        f"`{run['generator']}`, temperature 0. Each question was searched and generated once; "
        "every arm is a mask over that generation. Intervals are Wilson 95%.",
        "",
        *_completeness(run, len(records)),
        "## Arms",
        "",
        *_arms(records, outcomes),
        "",
        "Paired comparisons against `none` on answerable questions (exact McNemar):",
        "",
        *_paired_with_none(records, outcomes),
        "",
        "## What each check stops (false answers on unanswerable questions, by kind)",
        "",
        *_what_each_check_stops(records),
        "",
        *_figure_questions(records),
        "",
        "Declines on answerable questions (arm none):",
        "",
        *_declines(answerable),
        "",
        *_answering_cost(records),
        "",
    ]
    return "\n".join(lines)


def _correct_on_answerable(records: list[dict[str, Any]], shown: list[str]) -> list[bool]:
    """For each answerable question, whether the arm that shows ``shown`` got it right."""
    return [
        outcome == "answered" and record["correct"]
        for record, outcome in zip(records, shown, strict=True)
        if record["kind"] == "answerable"
    ]


def _arms(records: list[dict[str, Any]], outcomes: dict[str, list[str]]) -> list[str]:
    from edgar_rag_dev.eval.stats import cluster_bootstrap  # noqa: PLC0415

    answerable = sum(r["kind"] == "answerable" for r in records)
    clusters = [r["ticker"] for r in records if r["kind"] != "answerable"]
    rows = []
    for arm, shown in outcomes.items():
        correct = sum(_correct_on_answerable(records, shown))
        false = [
            o == "answered"
            for r, o in zip(records, shown, strict=True)
            if r["kind"] != "answerable"
        ]
        boot = cluster_bootstrap([float(f) for f in false], clusters, seed=0)
        spent = sum(
            r["generate_s"] for r, o in zip(records, shown, strict=True)
            if o not in ("out_of_scope", "out_of_period", "gate_rejected")
        ) / len(records)  # fmt: skip
        rows.append(
            [
                arm,
                _rate(correct, answerable),
                _rate(sum(false), len(false)),
                interval((boot.low, boot.high)),
                f"{spent:.2f}",
            ]
        )
    header = ["arm", "correct on answerable", "false answers on unanswerable"]
    header += ["company-bootstrap 95% (false answers)", "generator s / question"]
    return table(header, rows, align="llllr")


def _paired_with_none(records: list[dict[str, Any]], outcomes: dict[str, list[str]]) -> list[str]:
    from edgar_rag_dev.eval.stats import mcnemar_exact  # noqa: PLC0415

    none_ok = _correct_on_answerable(records, outcomes["none"])
    lines = []
    for arm in ARMS[1:]:
        test = mcnemar_exact(none_ok, _correct_on_answerable(records, outcomes[arm]))
        lines.append(
            f"- {arm}: correct under none only {test.discordant_ab}, under {arm} only "
            f"{test.discordant_ba}, p = {test.p_value:.3f}"
        )
    return lines


def _what_each_check_stops(records: list[dict[str, Any]]) -> list[str]:
    """False answers by kind of unanswerable question, as each check is added in turn."""
    rows = []
    for kind in UNANSWERABLE:
        group = [r for r in records if r["kind"] == kind]
        bare = sum(_bare(r) == "answered" for r in group)
        guarded = sum(_bare(r) == "answered" and not r["company_declined"] for r in group)
        periods = sum(_without_metric(r) == "answered" and not r["company_declined"] for r in group)
        metric = sum(r["outcome"] == "answered" and not r["company_declined"] for r in group)
        n = len(group)
        rows.append([kind, n, *(_rate(count, n) for count in (bare, guarded, periods, metric))])
    header = ["kind", "n", "model + figure check only", "+ company guard"]
    return table([*header, "+ period-aware figures", "+ metric named"], rows, align="lr")


def _figure_questions(records: list[dict[str, Any]]) -> list[str]:
    answerable = [r for r in records if r["kind"] == "answerable"]
    unanswerable = [r for r in records if r["kind"] != "answerable"]
    answered = [r for r in answerable if r["outcome"] == "answered"]
    loose = [r for r in answerable if r["outcome_without_period_check"] == "answered"]
    gold_given = [r for r in answerable if r.get("gold_in_prompt", False)]
    gold_whole = [r for r in answerable if r.get("gold_in_top", False)]
    unmetered_correct = sum(r.get("correct_without_metric_check", r["correct"]) for r in answerable)
    metric_stopped = sum(
        _without_metric(r) == "answered" and r["outcome"] != "answered" for r in unanswerable
    )
    correct = sum(r["correct"] for r in answerable)
    unmetered = [r for r in answerable if _without_metric(r) == "answered"]
    recited = sum(r.get("recited", False) for r in answerable)
    trimmed = sum(r.get("trimmed", False) for r in answerable)
    return [
        "## Figure questions",
        "",
        f"- Correct (the stated figure is the gold value, cited from a passage printing it): "
        f"{_rate(correct, len(answerable))}.",
        f"- Answered with another figure than the gold value (a wrong answer, or a figure the "
        f"gold set does not hold, such as buybacks from the equity statement rather than the "
        f"cash flow statement): {_rate(len(answered) - correct, len(answered))}; without the "
        f"metric check {_rate(len(unmetered) - unmetered_correct, len(unmetered))}.",
        f"- Wrong-period answers among answered figure questions: "
        f"{_rate(sum(r['wrong_period'] for r in answered), len(answered))} with the period-aware "
        f"check; {_rate(sum(r['wrong_period_without_check'] for r in loose), len(loose))} "
        "without it.",
        f"- Where the bottleneck is: the gold figure was printed in the passages given to the "
        f"model for {_rate(len(gold_given), len(answerable))} of the answerable questions; of "
        f"those, the model answered correctly "
        f"{_rate(sum(r['correct'] for r in gold_given), len(gold_given))} and declined "
        f"{_rate(sum(r['outcome'] == 'model_declined' for r in gold_given), len(gold_given))}. "
        f"Read whole rather than cut to their best lines, the same passages print it for "
        f"{_rate(len(gold_whole), len(answerable))}; cutting them to the context budget lost "
        f"{sum(not r.get('gold_in_prompt', False) for r in gold_whole)} of those.",
        f"- The metric check (a figure's line in the cited passage must name the metric asked): "
        f"{unmetered_correct} correct answers without it, {correct} "
        f"with it; it stopped {metric_stopped} false answers on the {len(unanswerable)} "
        "unanswerable questions.",
        f"- Answers the verifier corrected before showing them: {recited} of {len(answered)} with "
        "a citation marker moved to the given passage that prints the figure (the model cited "
        f"another), {trimmed} with a table row the model copied whole cut to the column of the "
        "year asked.",
    ]


def _declines(answerable: list[dict[str, Any]]) -> list[str]:
    reasons: dict[str, int] = {}
    for record in answerable:
        if record["outcome"] != "answered":
            reasons[record["outcome"]] = reasons.get(record["outcome"], 0) + 1
    return [f"- {reason}: {count}" for reason, count in sorted(reasons.items())]


def _answering_cost(records: list[dict[str, Any]]) -> list[str]:
    from edgar_rag_dev.eval.stats import percentiles  # noqa: PLC0415

    timed = [r for r in records if not r.get("replayed", False)]
    seconds = percentiles([r["generate_s"] for r in timed])
    tokens = percentiles([r["prompt_tokens"] for r in records])
    return [
        "## Cost",
        "",
        f"- Prompt tokens per question: P50 {tokens['p50']:.0f}, P95 {tokens['p95']:.0f}.",
        f"- Generator seconds per question: P50 {seconds['p50']:.2f}, P95 {seconds['p95']:.2f} "
        f"({len(timed)} generations timed; {len(records) - len(timed)} replayed from the tape "
        "after an interrupted run are not).",
    ]
