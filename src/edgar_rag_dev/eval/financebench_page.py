"""docs/financebench.md: a pure function of docs/financebench.json, so that
scripts/check_docs.py can render it again and compare. Every number on it is the report's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from edgar_rag.markdown import share, table
from edgar_rag_dev.eval.financebench_labels import VERDICTS
from edgar_rag_dev.eval.sets import FINANCEBENCH_SET

Report = dict[str, Any]


def render(report: Report) -> str:
    """The Markdown page, a pure function of the report."""
    lines = [
        "# FinanceBench: every question, labelled as the paper labels it",
        "",
        f"Written by `{report['command']}` from "
        "`docs/financebench.json`; generations are on the tape `data/financebench/tape.jsonl`, so "
        "`--replay` rebuilds this page without the model, and the judgments it applies are in "
        "`data/financebench/judgments.jsonl`.",
        "",
        FINANCEBENCH_SET.disclosure(),
        "",
        *_what_was_run(report),
        *_against_the_paper(report),
        *_by_group(report, "by_type", "by_type_covered", "Per question type"),
        *_by_group(report, "by_kind", "by_kind_covered", "Per document kind"),
        *_declines(report),
        *_evidence_recall(report),
        *_seconds_per_question(report),
        *_incorrect_answers(report["rows"]),
        *_correct_by_judgment(report["rows"]),
        *_unjudged(report),
        *_every_question(report["rows"]),
        *_notes(report),
    ]
    return "\n".join(lines)


def _cell(text: str | None, width: int | None = 90) -> str:
    flat = " ".join((text or "").split()).replace("|", "\\|")
    return flat if width is None or len(flat) <= width else flat[: width - 1] + "…"


def _short(row: dict[str, Any]) -> str:
    return str(row["id"]).removeprefix("financebench_id_")


def _said(row: dict[str, Any], width: int | None = 90) -> str:
    answer = row["answer"]
    if answer["reason"] is not None:
        return f"declined: {answer['reason']}"
    return _cell(answer["text"], width)


def _what_was_run(report: Report) -> list[str]:
    chosen, document = report["settings"], report["scores"]["by_document"]
    kinds = ", ".join(f"{n} {kind}" for kind, n in report["pdfs_by_kind"].items())
    missing = document.get("missing", {}).get("n", 0)
    not_indexed = document.get("not_indexed", {}).get("n", 0)
    replaced = [d for d in report["unscoped"] if f"{d}.pdf" not in report["refused_pdfs"]]
    return [
        "## What was run",
        "",
        f"- {report['pdfs']} FinanceBench PDFs (`../shared/corpus/financebench/pdfs`: {kinds}) "
        f"indexed into their own SQLite file: {report['chunks']} chunks, embedder "
        f"{chosen['embedder']}"
        + (
            f"; refused by ingest: {', '.join(sorted(report['refused_pdfs']))}"
            if report["refused_pdfs"]
            else ""
        )
        + ".",
        f"- All {report['questions']} open-source questions are asked. {report['covered']} name "
        "a document that is in `pdfs/` ("
        + ", ".join(f"{t} {n}" for t, n in sorted(report["covered_by_type"].items()))
        + f"); {report['indexed_questions']} of them are asked scoped to that document's filing "
        f"(matched by file name), and the {not_indexed} whose PDF has no filing in the index "
        "(refused by ingest"
        + (
            f", or replaced by another PDF that ingest took for the same filing: "
            f"{', '.join(replaced)}"
            if replaced
            else ""
        )
        + f") are asked, as the {missing} whose document is not in `pdfs/` at all are, of the "
        "whole corpus: any answer to one of those is incorrect, a decline is declined.",
        f"- Search: hybrid (dense + BM25, fused, near-duplicates removed), top 10. Answers: the "
        f"default answerer, generator `{chosen['generator']}`, gate `{chosen['gate']}`, "
        f"{chosen['passages_in_prompt']} of the top {chosen['search_k']} passages in the prompt, "
        "figures verified against the passages they cite.",
        "",
    ]


def _against_the_paper(report: Report) -> list[str]:
    scores, rules = report["scores"], report["rules"]
    ours = [
        ["edgar-rag, local model", "all questions", scores["asked"]],
        ["edgar-rag, local model", "questions whose document is in pdfs/", scores["covered"]],
        ["edgar-rag, local model", "questions whose filing is indexed", scores["indexed"]],
    ]
    decided = scores["decided_by"]
    return [
        "## Correct, incorrect, declined: the paper's rows and ours",
        "",
        "The paper's rows are GPT-4-Turbo's, counted from the labels of its released results "
        "(Islam et al. 2023, arXiv 2311.11944, out of these 150 questions; its *refused* is our "
        "*declined*). Ours use the same three labels; a question no rule or judgment decides is "
        "*unjudged* and counts as neither correct nor incorrect.",
        "",
        *table(
            ["system", "questions", "n", "correct", "incorrect", "declined", "unjudged"],
            [
                *(
                    [
                        f"{p['model']}, {p['setup']}",
                        "all questions",
                        report["questions"],
                        _part(p["correct"], report["questions"]),
                        _part(p["incorrect"], report["questions"]),
                        _part(p["declined"], report["questions"]),
                        "",
                    ]
                    for p in report["paper"]
                ),
                *([name, group, *_tally_cells(t)] for name, group, t in ours),
            ],
            align="llrrrrr",
        ),
        "",
        "Correct out of all questions, Wilson 95%: " + _share(report["correct_share"]) + ".",
        "",
        "How each label was decided: a decline (a typed reason) is declined; an answer to a "
        "question whose document is not indexed is incorrect; a gold that is a bare figure "
        "(`$1577.00`, `1.9%`) is decided by the strict rule of issue 42 (`eval/strict.py`: a "
        f"figure of the answer equals the gold within {rules['relative_tolerance']:.0%} or the "
        "rounding it wrote, in the gold's unit and scale, with its sign); a prose gold by a rule "
        "where code can decide (an answer opening with the other yes or no than the gold's is "
        "incorrect; the gold's yes or no matched and every figure the gold states stated too, "
        "each by the strict rule, is correct; a gold that is only a yes or no needs that alone), "
        "and otherwise by a person's judgment of the exact answer text "
        "(`data/financebench/judgments.jsonl`, which keeps the answer's SHA-256: a changed answer "
        "is unjudged until judged again). Decided by: "
        + "; ".join(
            f"{verdict} " + ", ".join(f"{how} {n}" for how, n in decided[verdict].items())
            for verdict in VERDICTS
            if decided[verdict]
        )
        + ".",
        "",
    ]


def _part(count: int, n: int) -> str:
    return f"{count} ({count / n:.0%})" if n else str(count)


def _tally_cells(tally: dict[str, int]) -> list[object]:
    return [tally["n"], *(_part(tally[verdict], tally["n"]) for verdict in VERDICTS)]


def _share(figures: dict[str, Any]) -> str:
    bounds = (figures["low"], figures["high"])
    return share(figures["k"], figures["n"], figures["estimate"], bounds, prose=True)


def _by_group(report: Report, key: str, covered_key: str, title: str) -> list[str]:
    scores = report["scores"]
    covered = scores[covered_key]
    header = ["", "n", *VERDICTS, "n covered", *(f"{v}, covered" for v in VERDICTS[:3])]
    rows = []
    none: dict[str, int] = {"n": 0, **dict.fromkeys(VERDICTS, 0)}
    for name, tally in scores[key].items():
        inside = covered.get(name, none)
        rows.append(
            [
                name,
                *_tally_cells(tally),
                inside["n"],
                *(_part(inside[v], inside["n"]) for v in VERDICTS[:3]),
            ]
        )
    return [
        f"## {title}",
        "",
        "All questions, then those whose document is in `pdfs/` (covered).",
        "",
        *table(header, rows, align="l" + "r" * (len(header) - 1)),
        "",
    ]


def _declines(report: Report) -> list[str]:
    declined = report["scores"]["declined_by_reason"]
    return [
        "Declines by reason: "
        + (", ".join(f"`{reason}` {count}" for reason, count in declined.items()) or "none")
        + (
            " (*judged a decline*: an answer that says the passages do not give what was asked)"
            if "judged a decline" in declined
            else ""
        )
        + ".",
        "",
    ]


def _recall_table(scores: dict[str, dict[str, float]], ks: Sequence[int]) -> list[str]:
    return table(
        ["questions", "n", *(f"recall@{k}" for k in ks)],
        [
            [name, int(s["n"]), *(f"{s[f'recall@{k}']:.3f}" for k in ks)]
            for name, s in scores.items()
        ],
        align="lr" + "r" * len(ks),
    )


def _evidence_recall(report: Report) -> list[str]:
    retrieval, rules = report["retrieval"], report["rules"]
    ks = rules["ks"]
    return [
        "## Evidence recall@k",
        "",
        f"Over the {report['indexed_questions']} questions asked scoped to their document's "
        f"filing. A hit: a retrieved passage and a gold evidence text share {rules['run_chars']} "
        "characters in a row after both are normalised (Unicode NFKC, lower case, everything "
        "but letters and digits removed, so the broken spacing of PDF extraction does not "
        "matter, and a passage's labelled statement rows read as printed, without the column "
        "header each cell repeats or the heading each row under it repeats); an evidence "
        f"shorter than that must appear whole. Strict: at least {rules['cover_share']:.0%} of the "
        f"shorter of the two lies in {rules['cover_chars']}-character runs the other shares. A "
        "question counts when any of its evidence texts is hit; *every* needs all of them in "
        "the top k.",
        "",
        "### Any evidence",
        "",
        *_recall_table(retrieval["any"], ks),
        "",
        "### Strict overlap",
        "",
        *_recall_table(retrieval["strict"], ks),
        "",
        f"### Every evidence text ({report['multi_evidence']} questions have more than one)",
        "",
        *_recall_table(retrieval["every"], ks),
        "",
    ]


def _seconds_per_question(report: Report) -> list[str]:
    seconds = report["seconds"]
    if not seconds:
        return []
    machine = report["machine"]
    measured = (
        "replayed from the tape: these time the replay, not the model"
        if report["replayed"]
        else f"{machine['cpus']} CPU cores shared with other work, load average "
        f"{machine['load_average'][1]} over the last 5 minutes of the run"
    )
    if report["resumed_rows"]:
        measured += (
            f"; {report['resumed_rows']} rows were kept from an interrupted earlier process "
            "(`--resume`) and timed there"
        )
    return [
        f"Seconds per question (search, model, verification; {measured}): "
        + "; ".join(
            f"{name} ({s['n']}) P50 {s['p50']:.1f}, P95 {s['p95']:.1f}"
            for name, s in seconds.items()
        )
        + ".",
        "",
    ]


def _incorrect_answers(rows: list[dict[str, Any]]) -> list[str]:
    wrong = [r for r in rows if r["label"]["verdict"] == "incorrect"]
    failures = sorted({r["label"]["failure"] for r in wrong})
    lines = [
        f"## Every incorrect answer ({len(wrong)}), by what went wrong",
        "",
    ]
    for failure in failures:
        members = [r for r in wrong if r["label"]["failure"] == failure]
        lines += [
            f"### {failure} ({len(members)})",
            "",
            *table(
                ["id", "kind", "question", "gold", "answer", "why"],
                [
                    [
                        _short(r),
                        r["kind"],
                        _cell(r["question"], 120),
                        _cell(r["gold"], 120),
                        _said(r, 200),
                        _cell(r["label"]["why"], None),
                    ]
                    for r in members
                ],
            ),
            "",
        ]
    return lines


def _correct_by_judgment(rows: list[dict[str, Any]]) -> list[str]:
    """Every prose answer counted correct by a rule or a judgment, in full beside its gold, so
    that anyone can audit it."""
    lines = []
    for how, title in (("judgment", "a judgment"), ("rule", "the prose rule")):
        members = [
            r for r in rows if r["label"]["verdict"] == "correct" and r["label"]["how"] == how
        ]
        lines += [
            f"## Every answer judged correct by {title} ({len(members)}), beside its gold",
            "",
        ]
        if not members:
            lines += ["None.", ""]
            continue
        lines += [
            *table(
                ["id", "question", "gold", "answer", "why"],
                [
                    [
                        _short(r),
                        _cell(r["question"], None),
                        _cell(r["gold"], None),
                        _said(r, None),
                        _cell(r["label"]["why"], None),
                    ]
                    for r in members
                ],
            ),
            "",
        ]
    return lines


def _unjudged(report: Report) -> list[str]:
    scores = report["scores"]
    if not scores["unjudged"]:
        return ["No answer is unjudged.", ""]
    stale = scores["stale_judgments"]
    return [
        f"**{len(scores['unjudged'])} answers are unjudged** (counted neither correct nor "
        "incorrect): "
        + ", ".join(i.removeprefix("financebench_id_") for i in scores["unjudged"])
        + (
            f"; of them {len(stale)} have a judgment of an earlier answer text: "
            + ", ".join(i.removeprefix("financebench_id_") for i in stale)
            if stale
            else ""
        )
        + ".",
        "",
    ]


def _every_question(rows: list[dict[str, Any]]) -> list[str]:
    return [
        "## Every question",
        "",
        *table(
            ["id", "type", "kind", "document", "label", "decided by", "answer or decline"],
            [
                [
                    _short(r),
                    r["type"],
                    r["kind"],
                    r["document"],
                    r["label"]["verdict"],
                    r["label"]["how"],
                    _said(r),
                ]
                for r in rows
            ],
        ),
        "",
    ]


def _notes(report: Report) -> list[str]:
    filers = report["filers"].values()
    return [
        "## Notes",
        "",
        "- The PDFs' income statements, balance sheets and cash-flow statements are read into "
        "labelled rows with their column years and scale (`ingest/statements.py`, measured in "
        "[the PDF readers' comparison](pdf_readers.md)), and each row's figures are stored "
        "beside XBRL facts; other tables are plain lines.",
        "- FinanceBench's evidence texts come from another PDF extractor; the overlap rule "
        "compares letters and digits only. A passage that repeats a table's rows elsewhere in "
        "the filing (MD&A beside the statements) counts as a hit; the strict rule shows how much "
        "that matters.",
        "- Each filer is named as its PDF's cover prints it (`Best Buy Co., Inc.`, not the file "
        f"name's `BESTBUY`); {sum(f['cik'] is not None for f in filers)} of the {len(filers)} "
        "filers also have their CIK and ticker from edgartools' list of companies. The "
        "questions are asked as FinanceBench writes them.",
        f"- {report['multi_evidence']} of the scoped questions cite several evidence pages; "
        f"{report['other_documents']} cite another document than the one asked about.",
        "",
    ]
