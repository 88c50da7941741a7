"""``docs/eval/report.md``: the evaluation report rendered from ``docs/eval/report.json`` alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edgar_rag.eval.report import ARMS, UNANSWERABLE

SPLITS = ("dev", "eval")


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


def _share(share: dict[str, Any]) -> str:
    low, high = share["wilson"]
    if share["n"] == 0:
        return "0/0"
    return f"{share['count']}/{share['n']} = {_pct(share['rate'])} [{_pct(low)}, {_pct(high)}]"


def _interval(bounds: Sequence[float | None]) -> str:
    return f"[{_pct(bounds[0])}, {_pct(bounds[1])}]"


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} p.p."


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _headline(report: dict[str, Any]) -> list[str]:
    runs = report["runs"]
    shown = [split for split in SPLITS if split in runs]
    header = "| arm |" + "".join(
        f" correct on answerable, {s} | false answers on unanswerable, {s} | generator s / "
        f"question, {s} |"
        for s in shown
    )
    lines = [header, "| --- |" + " --- | --- | ---: |" * len(shown)]
    for arm in ARMS:
        cells = ""
        for split in shown:
            figures = runs[split]["arms"][arm]
            cells += (
                f" {_share(figures['correct'])} | {_share(figures['false_answers'])} | "
                f"{_seconds(figures['generator_s_per_question'])} |"
            )
        lines.append(f"| {arm} |{cells}")
    if "eval" not in runs:
        lines += [
            "",
            "No evaluation-split run is committed yet: `edgar-rag dev eval answering "
            "--split eval` (with the settings of `make answering`) writes "
            "`data/golden/run-eval.json`, and `make eval` then shows it beside dev.",
        ]
    return lines


def _arms(run: dict[str, Any]) -> list[str]:
    lines = [
        "| arm | correct on answerable | company bootstrap 95% | false answers on "
        "unanswerable | company bootstrap 95% | reached the model | generator s / question |",
        "| --- | --- | --- | --- | --- | ---: | ---: |",
    ]
    for arm in ARMS:
        figures = run["arms"][arm]
        lines.append(
            f"| {arm} | {_share(figures['correct'])} | "
            f"{_interval(figures['correct']['bootstrap'])} | {_share(figures['false_answers'])} | "
            f"{_interval(figures['false_answers']['bootstrap'])} | {figures['reached_model']} | "
            f"{_seconds(figures['generator_s_per_question'])} |"
        )
    lines += [
        "",
        "False answers by kind of unanswerable question:",
        "",
        "| arm | " + " | ".join(UNANSWERABLE) + " |",
        "| --- |" + " --- |" * len(UNANSWERABLE),
    ]
    for arm in ARMS:
        by_kind = run["arms"][arm]["false_by_kind"]
        lines.append(f"| {arm} | " + " | ".join(_share(by_kind[k]) for k in UNANSWERABLE) + " |")
    return lines


def _comparisons(run: dict[str, Any]) -> list[str]:
    lines = [
        "| arms (first vs second) | measure | n | only the first | only the second | exact "
        "McNemar p | first - second, company bootstrap 95% | MDE, 80% power |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for row in run["comparisons"]:
        estimate, low, high = row["difference"]
        measure = "correct" if row["measure"] == "correct" else "false answers"
        mde = f"{row['mde'] * 100:.1f} p.p." if row["mde"] is not None else "n/a"
        if row["mde_one_way"]:
            mde += " *"
        lines.append(
            f"| {row['arms'][0]} vs {row['arms'][1]} | {measure} | {row['n']} | "
            f"{row['only_first']} | {row['only_second']} | {row['p_value']:.3f} | "
            f"{_pp(estimate)} [{_pp(low)}, {_pp(high)}] | {mde} |"
        )
    return [
        *lines,
        "",
        "A difference smaller than the MDE beside it is not distinguishable at this n. The MDE is "
        "Connor's (1987) for paired proportions at the observed share of discordant pairs; "
        "marked *, the observed share is too small for any difference it could hold to be "
        "detected, and the MDE assumes every discordant pair goes one way (the least any "
        "paired comparison of this n can detect).",
    ]


def _auroc(run: dict[str, Any]) -> list[str]:
    groups = ("all", *UNANSWERABLE)
    lines = [
        "| gate score | " + " | ".join(f"vs {g} unanswerable" for g in groups) + " |",
        "| --- |" + " --- |" * len(groups),
    ]
    for name, by_group in run["auroc"].items():
        cells = []
        for group in groups:
            figures = by_group[group]
            value = "n/a" if figures["estimate"] is None else f"{figures['estimate']:.3f}"
            low, high = figures["interval"]
            bounds = "" if low is None else f" [{low:.3f}, {high:.3f}]"
            cells.append(
                f"{value}{bounds} (n = {figures['answerable']} + {figures['unanswerable']})"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def _risk_coverage(run: dict[str, Any]) -> list[str]:
    figures = run["risk_coverage"]
    coverages = list(next(iter(figures["scores"].values()))["risk_at_coverage"])
    lines = [
        "| gate score | AURC | "
        + " | ".join(f"risk at coverage >= {float(c):.0%}" for c in coverages)
        + " |",
        "| --- | ---: |" + " ---: |" * len(coverages),
    ]
    for name, curve in figures["scores"].items():
        cells = []
        for coverage in coverages:
            point = curve["risk_at_coverage"][coverage]
            cells.append("n/a" if point is None else f"{_pct(point[1])} (at {_pct(point[0])})")
        lines.append(f"| {name} | {curve['aurc']:.3f} | " + " | ".join(cells) + " |")
    return [
        *lines,
        "",
        f"Risk is the share of the admitted questions whose end-to-end outcome under arm none is "
        f"wrong (an answerable question not answered correctly, or an unanswerable one "
        f"answered); at full coverage it is {_pct(figures['end_to_end_risk'])}. Questions are "
        "admitted from the highest score down, ties together; `best possible` ranks every right "
        "outcome first, the lowest AURC any score could reach on these outcomes.",
    ]


def _cost(run: dict[str, Any]) -> list[str]:
    cost = run.get("cost")
    if cost is None:
        return []
    return [
        f"Prompt tokens per question: P50 {cost['prompt_tokens_p50']:.0f}, P95 "
        f"{cost['prompt_tokens_p95']:.0f}. Generator seconds per question (arm none, every "
        f"generation timed): P50 {_seconds(cost['generator_s_p50'])}, P95 "
        f"{_seconds(cost['generator_s_p95'])}.",
        "",
    ]


def _run_section(run: dict[str, Any]) -> list[str]:
    companies = run["companies"]
    thresholds = ", ".join(f"{t:.4f}" for t in run["thresholds"])
    partial = run["questions"] < run["questions_in_split"]
    return [
        f"## The {run['split']} split",
        "",
        f"From `{run['source']}`: {run['questions']} questions"
        + (f" of the split's {run['questions_in_split']} (a partial run)" if partial else "")
        + f", {len(companies)} companies ({', '.join(companies)}), generator "
        f"`{run['generator']}`, temperature 0. Cosine thresholds, cross-fitted by company in two "
        f"folds at the score admitting 90% of the other fold's answerable questions: "
        f"{thresholds}. Generator seconds count a question only when the arm lets it reach the "
        f"model, over the {run['generations_timed']} generations timed (generations replayed "
        "from the tape after an interrupted run have no time).",
        "",
        *_cost(run),
        "### Arms",
        "",
        *_arms(run),
        "",
        "### Paired comparisons",
        "",
        *_comparisons(run),
        "",
        "### Gate scores: AUROC, answerable against unanswerable",
        "",
        *_auroc(run),
        "",
        "The probability that an answerable question scores above an unanswerable one (ties "
        "count half), with a company-bootstrap 95% interval. `cosine` is the best hit's cosine; "
        "`period` the period guard's decision (1 passed, 0 declined); `period+cosine` the "
        "cosine with the guard's declines below every cosine.",
        "",
        "### Risk against coverage",
        "",
        *_risk_coverage(run),
        "",
    ]


def render_report(report: dict[str, Any]) -> str:
    golden = report["golden"]
    splits = golden["splits"]
    lines = [
        "# Evaluation report",
        "",
        "Written by `make eval` from the committed runs (`data/golden/run-<split>.json`) and the "
        "golden set (`data/golden/questions.jsonl`); every figure is in `docs/eval/report.json`, "
        "and `make check` fails when either file differs from what the runs give. Each question "
        "was searched and generated once; every arm is a mask over that generation. Intervals "
        "are 95%: Wilson in brackets beside a count, company-cluster bootstrap "
        f"({report['bootstrap_resamples']:,} resamples, seed 0) where named. The dev run's "
        "detail (what each check stops, where the bottleneck is): [answering](../answering.md).",
        "",
        "## Golden set",
        "",
        f"{golden['questions']} questions generated from the filings' XBRL facts, split by "
        "company before any run (`data/golden/split.json`):",
        "",
        "| split | companies | " + " | ".join(("answerable", *UNANSWERABLE)) + " |",
        "| --- | --- |" + " ---: |" * (1 + len(UNANSWERABLE)),
    ]
    for name, split in splits.items():
        kinds = split["kinds"]
        lines.append(
            f"| {name} | {', '.join(split['companies'])} | "
            + " | ".join(str(kinds.get(k, 0)) for k in ("answerable", *UNANSWERABLE))
            + " |"
        )
    lines += ["", "## Arms", "", *_headline(report), ""]
    for split in SPLITS:
        if split in report["runs"]:
            lines += _run_section(report["runs"][split])
    return "\n".join(lines)
