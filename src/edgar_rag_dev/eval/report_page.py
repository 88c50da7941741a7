"""``docs/eval/report.md``: the evaluation report rendered from ``docs/eval/report.json`` alone."""

from __future__ import annotations

from typing import Any

from edgar_rag.markdown import interval, percent, share, table
from edgar_rag_dev.eval.report import ARMS, UNANSWERABLE
from edgar_rag_dev.eval.sets import GOLDEN_SET

SPLITS = ("dev", "eval")


def _share(figures: dict[str, Any]) -> str:
    return share(figures["count"], figures["n"], figures["rate"], figures["wilson"])


def _pp(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:+.1f} p.p."


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _headline(report: dict[str, Any]) -> list[str]:
    runs = report["runs"]
    shown = [split for split in SPLITS if split in runs]
    header = ["arm"]
    for split in shown:
        header += [
            f"correct on answerable, {split}",
            f"false answers on unanswerable, {split}",
            f"generator s / question, {split}",
        ]
    rows = []
    for arm in ARMS:
        cells = [arm]
        for split in shown:
            figures = runs[split]["arms"][arm]
            cells += [
                _share(figures["correct"]),
                _share(figures["false_answers"]),
                _seconds(figures["generator_s_per_question"]),
            ]
        rows.append(cells)
    lines = table(header, rows, align="l" + "llr" * len(shown))
    if "eval" not in runs:
        lines += [
            "",
            "No evaluation-split run is committed yet: `edgar-rag dev eval answering "
            "--split eval` (with the settings of `make answering`) writes "
            "`data/golden/run-eval.json`, and `make eval` then shows it beside dev.",
        ]
    return lines


def _arms(run: dict[str, Any]) -> list[str]:
    rows = []
    for arm in ARMS:
        figures = run["arms"][arm]
        rows.append(
            [
                arm,
                _share(figures["correct"]),
                interval(figures["correct"]["bootstrap"]),
                _share(figures["false_answers"]),
                interval(figures["false_answers"]["bootstrap"]),
                figures["reached_model"],
                _seconds(figures["generator_s_per_question"]),
            ]
        )
    by_kind = [
        [arm, *(_share(run["arms"][arm]["false_by_kind"][kind]) for kind in UNANSWERABLE)]
        for arm in ARMS
    ]
    return [
        *table(
            [
                "arm",
                "correct on answerable",
                "company bootstrap 95%",
                "false answers on unanswerable",
                "company bootstrap 95%",
                "reached the model",
                "generator s / question",
            ],
            rows,
            align="lllllrr",
        ),
        "",
        "False answers by kind of unanswerable question:",
        "",
        *table(["arm", *UNANSWERABLE], by_kind),
    ]


def _comparisons(run: dict[str, Any]) -> list[str]:
    rows = []
    for row in run["comparisons"]:
        estimate, low, high = row["difference"]
        measure = "correct" if row["measure"] == "correct" else "false answers"
        mde = f"{row['mde'] * 100:.1f} p.p." if row["mde"] is not None else "n/a"
        if row["mde_one_way"]:
            mde += " *"
        rows.append(
            [
                f"{row['arms'][0]} vs {row['arms'][1]}",
                measure,
                row["n"],
                row["only_first"],
                row["only_second"],
                f"{row['p_value']:.3f}",
                f"{_pp(estimate)} [{_pp(low)}, {_pp(high)}]",
                mde,
            ]
        )
    return [
        *table(
            [
                "arms (first vs second)",
                "measure",
                "n",
                "only the first",
                "only the second",
                "exact McNemar p",
                "first - second, company bootstrap 95%",
                "MDE, 80% power",
            ],
            rows,
            align="llrrrrlr",
        ),
        "",
        "A difference smaller than the MDE beside it is not distinguishable at this n. The MDE is "
        "Connor's (1987) for paired proportions at the observed share of discordant pairs; "
        "marked *, the observed share is too small for any difference it could hold to be "
        "detected, and the MDE assumes every discordant pair goes one way (the least any "
        "paired comparison of this n can detect).",
    ]


def _auroc(run: dict[str, Any]) -> list[str]:
    groups = ("all", *UNANSWERABLE)
    rows = []
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
        rows.append([name, *cells])
    return table(["gate score", *(f"vs {group} unanswerable" for group in groups)], rows)


def _risk_coverage(run: dict[str, Any]) -> list[str]:
    figures = run["risk_coverage"]
    coverages = list(next(iter(figures["scores"].values()))["risk_at_coverage"])
    rows = []
    for name, curve in figures["scores"].items():
        cells = [name, f"{curve['aurc']:.3f}"]
        for coverage in coverages:
            point = curve["risk_at_coverage"][coverage]
            cells.append(
                "n/a" if point is None else f"{percent(point[1])} (at {percent(point[0])})"
            )
        rows.append(cells)
    header = ["gate score", "AURC", *(f"risk at coverage >= {float(c):.0%}" for c in coverages)]
    return [
        *table(header, rows, align="lr" + "r" * len(coverages)),
        "",
        f"Risk is the share of the admitted questions whose end-to-end outcome under arm none is "
        f"wrong (an answerable question not answered correctly, or an unanswerable one "
        f"answered); at full coverage it is {percent(figures['end_to_end_risk'])}. Questions are "
        "admitted from the highest score down, ties together; `best possible` ranks every right "
        "outcome first, the lowest AURC any score could reach on these outcomes.",
    ]


def _cost(run: dict[str, Any]) -> list[str]:
    cost = run.get("cost")
    if cost is None:
        return []
    computed = cost.get("computed", 0)
    return [
        f"{computed} of the {cost.get('questions', 0)} questions were answered or declined in "
        "code from the filing's reported figures, with no model; for the others: "
        f"prompt tokens per question P50 {cost['prompt_tokens_p50']:.0f}, P95 "
        f"{cost['prompt_tokens_p95']:.0f}; generator seconds per question (arm none, every "
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
    kinds = ("answerable", *UNANSWERABLE)
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
        GOLDEN_SET.disclosure(),
        "",
        "## Golden set",
        "",
        f"{golden['questions']} questions generated from the filings' XBRL facts, split by "
        "company before any run (`data/golden/split.json`):",
        "",
        *table(
            ["split", "companies", *kinds],
            [
                [name, ", ".join(split["companies"]), *(split["kinds"].get(k, 0) for k in kinds)]
                for name, split in splits.items()
            ],
            align="ll" + "r" * len(kinds),
        ),
    ]
    lines += ["", "## Arms", "", *_headline(report), ""]
    for split in SPLITS:
        if split in report["runs"]:
            lines += _run_section(report["runs"][split])
    return "\n".join(lines)
