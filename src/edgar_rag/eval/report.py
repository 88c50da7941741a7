"""Markdown pages of the evaluations, rendered from the JSON their commands wrote."""

from __future__ import annotations

from typing import Any

RETRIEVAL_TARGETS = {"figure": 0.9, "narrative-item": 0.9}


def _row(name: str, scores: dict[str, float]) -> str:
    return (
        f"| {name} | {int(scores['n'])} | {scores['recall@1']:.3f} | {scores['recall@5']:.3f} | "
        f"{scores['recall@10']:.3f} | {scores['mrr']:.3f} |"
    )


HEADER = [
    "| | n | recall@1 | recall@5 | recall@10 | MRR |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
]


def render_retrieval(report: dict[str, Any]) -> str:
    arms = report["arms"]
    default = arms["hybrid+dedup"]
    lines = [
        "# Retrieval",
        "",
        "Written by `make retrieval` (`python -m edgar_rag.eval.retrieval`) from "
        "`docs/retrieval.json`.",
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
        "## Targets (default search: hybrid + dedup, scoped)",
        "",
        "| set | recall@5 | target | met |",
        "| --- | ---: | ---: | --- |",
    ]
    for group, target in RETRIEVAL_TARGETS.items():
        value = default[group]["recall@5"]
        lines.append(f"| {group} | {value:.3f} | {target} | {'yes' if value >= target else 'no'} |")
    lines += ["", "## Ablation (scoped to the filing)", ""]
    for group in ("figure", "narrative-item", "narrative-phrase"):
        lines += [f"### {group}", "", *HEADER]
        lines += [_row(name, scores[group]) for name, scores in arms.items()]
        lines.append("")
    lines += ["## Default search, per group", "", *HEADER]
    lines += [_row(group, scores) for group, scores in default.items() if group != "all"]
    wide = report["corpus_wide_narrative"]
    lines += [
        "",
        "## Narrative questions across the whole corpus (the right filing and Item)",
        "",
        *HEADER,
        _row("narrative-item, corpus-wide", wide["narrative-item"]),
        "",
    ]
    sweep = report.get("chunk_sweep")
    if sweep:
        lines += [
            "## Chunk size (characters / overlap), the corpus HTML filings re-indexed at each",
            "",
            "| chunks | n chunks | figure recall@5 | figure MRR | narrative-item recall@5 | "
            "narrative-item MRR |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for size, scores in sweep.items():
            lines.append(
                f"| {size} | {int(scores['chunks']['n'])} | {scores['figure']['recall@5']:.3f} | "
                f"{scores['figure']['mrr']:.3f} | {scores['narrative-item']['recall@5']:.3f} | "
                f"{scores['narrative-item']['mrr']:.3f} |"
            )
        lines.append("")
    return "\n".join(lines)
