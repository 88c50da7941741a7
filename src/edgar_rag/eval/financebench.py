"""FinanceBench on the PDFs at hand: does scoped search find the gold evidence, and does the
answerer state the gold figure? Written to docs/financebench.json and docs/financebench.md.

Indexes ``corpus/financebench/pdfs`` into its own SQLite file, keeps the questions whose document
is there, asks each scoped to that document's filing, and scores evidence recall@k (every
question) and answer accuracy (questions whose gold answer is a bare figure). Generations are
recorded to a tape, so ``--replay`` rebuilds the report without the model. ``render`` is a pure
function of the JSON, so a checker can re-render the page and compare.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.numbers import Figure, find_figures
from edgar_rag.compose import (
    build_answerer,
    build_company_list,
    build_embedder,
    build_searcher,
)
from edgar_rag.config import Settings, load_settings
from edgar_rag.domain import Embedder, FilingStore, Generator, Hit, Response, Scope
from edgar_rag.eval.sets import FINANCEBENCH_SET
from edgar_rag.eval.stats import Interval, percentiles, wilson
from edgar_rag.eval.strict import Gold, Unit, half_step_of, is_gold, states_gold
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.markdown import share, table
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher

KS = (1, 5, 10)
RUN_CHARS = 60
"""A passage overlaps the evidence when both share this many normalised characters in a row."""
COVER_CHARS = 20
COVER_SHARE = 0.5
"""Strict overlap: half the shorter text lies in 20-character runs that the other text shares."""
RELATIVE_TOLERANCE = 0.01
DEFAULT_TAPE = Path("data/financebench/tape.jsonl")
TYPES = ("metrics-generated", "domain-relevant", "novel-generated")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")
_LETTER_OR_DIGIT = re.compile(r"[A-Za-z0-9]")
_QUESTION_SCALE = re.compile(r"\b(thousands|millions|billions)\b", re.IGNORECASE)
_SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}

PAPER = (
    ("GPT-4-Turbo", "closed book (no retrieval)", "9%"),
    ("GPT-4-Turbo", "shared vector store (one store for all documents)", "19%"),
    ("GPT-4-Turbo", "single vector store (the question's own document)", "50%"),
    ("GPT-4-Turbo", "long context (the relevant pages in the prompt)", "79%"),
    ("GPT-4-Turbo", "oracle (the evidence page given)", "85%"),
)
"""Islam et al. 2023 (arXiv 2311.11944): correct answers, human-judged, 150 cases of all types."""


class Evidence(BaseModel):
    model_config = ConfigDict(frozen=True, extra="allow")

    evidence_text: str
    doc_name: str
    evidence_page_num: int


class Case(BaseModel):
    """One FinanceBench question (a line of ``financebench_open_source.jsonl``)."""

    model_config = ConfigDict(frozen=True, extra="allow")

    financebench_id: str
    company: str
    doc_name: str
    question_type: str
    question_reasoning: str | None = None
    question: str
    answer: str
    evidence: list[Evidence]


# -- evidence overlap (pure) ----------------------------------------------------------------------


def normalise(text: str) -> str:
    """Lower-case letters and digits only: PDF extraction breaks spacing, so all else goes."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).lower())


_ROW_CELL = re.compile(r" \| (?:[^|:\n]*: )?")
_SCALE_CELL = re.compile(r" \| \(in (?:thousands|millions|billions)[^|\n]*\)$", re.MULTILINE)


_GROUPED_ROW = re.compile(r"^(?P<group>[^|\n]+?): (?=[^|\n]* \| )")


def as_printed(passage: str) -> str:
    """A passage's labelled rows (``Net sales | 2019: 32,765 | 2018: 31,657 | (in millions)``)
    as the statement prints them (``Net sales 32,765 31,657``): the row form repeats each
    column's header in every row, and the heading a row sits under (``Current assets: ``) in
    every row below it, which no extractor of the page prints, so either would break every run
    of characters an evidence text shares with the table. A heading is kept where it is first
    printed: its own line, else the first row of the passage under it."""
    lines = []
    heading = None
    for line in passage.split("\n"):
        grouped = _GROUPED_ROW.match(line)
        if grouped is None:
            heading = None if " | " in line else line.strip().rstrip(":")
        elif grouped["group"] == heading:
            lines.append(line[grouped.end() :])
            continue
        else:
            heading = grouped["group"]
        lines.append(line)
    return _ROW_CELL.sub(" ", _SCALE_CELL.sub("", "\n".join(lines)))


def _grams(text: str, size: int) -> set[str]:
    return {text[i : i + size] for i in range(len(text) - size + 1)}


def _covered_share(text: str, grams: set[str], size: int) -> float:
    covered = [False] * len(text)
    for i in range(len(text) - size + 1):
        if text[i : i + size] in grams:
            covered[i : i + size] = [True] * size
    return sum(covered) / len(text) if text else 0.0


@dataclass(frozen=True, slots=True)
class EvidenceText:
    """A gold evidence text, normalised once, to test many passages against."""

    text: str
    run_grams: frozenset[str]
    run: int
    cover_grams: frozenset[str]

    @classmethod
    def of(cls, evidence: str) -> EvidenceText:
        text = normalise(evidence)
        run = min(RUN_CHARS, len(text))
        return cls(
            text, frozenset(_grams(text, run)) if run else frozenset(), run,
            frozenset(_grams(text, COVER_CHARS)),
        )  # fmt: skip

    def overlaps(self, passage: str) -> bool:
        """The passage shares a run of 60 normalised characters (all of a shorter evidence)."""
        text = normalise(as_printed(passage))
        return self.run > 0 and any(
            text[i : i + self.run] in self.run_grams for i in range(len(text) - self.run + 1)
        )

    def mostly_overlaps(self, passage: str) -> bool:
        """Strict: at least half of the shorter of the two lies in runs the other shares."""
        text = normalise(as_printed(passage))
        if not text or not self.text:
            return False
        if len(text) <= len(self.text):
            return _covered_share(text, set(self.cover_grams), COVER_CHARS) >= COVER_SHARE
        own = _grams(text, COVER_CHARS)
        return _covered_share(self.text, own, COVER_CHARS) >= COVER_SHARE


def overlaps(passage: str, evidence: str) -> bool:
    return EvidenceText.of(evidence).overlaps(passage)


# -- numeric answers (pure) ------------------------------------------------------------------------


def gold_figure(answer: str) -> Figure | None:
    """The figure a gold answer is, when it is nothing else (``$1577.00``, ``-3.7``, ``1.9%``)."""
    figures = find_figures(answer)
    if len(figures) != 1:
        return None
    rest = answer.replace(figures[0].text, "")
    return None if _LETTER_OR_DIGIT.search(rest) else figures[0]


def question_scale(question: str) -> float | None:
    """The scale a question asks the answer in (``in USD millions`` is 1e6), if it names one."""
    match = _QUESTION_SCALE.search(question)
    return _SCALES[match.group(1).lower()] if match else None


def gold_of(gold: Figure, scale: float | None) -> Gold:
    """The strict rule's gold: a ``$`` gold is dollars, a percentage a percentage, anything else a
    plain number; the gold is read in the question's scale where it writes none and the
    question names one (``in USD millions``: ``$1577.00`` is 1,577 million)."""
    unit: Unit = "percent" if gold.is_percent else "usd" if "$" in gold.text else "number"
    in_scale = scale if scale is not None and gold.scale == 1 and not gold.is_percent else 1.0
    return Gold(
        gold.value * in_scale,
        unit,
        asked_scale=scale,
        half_step=half_step_of(gold, gold.scale * in_scale),
        relative_tolerance=RELATIVE_TOLERANCE,
    )


def matches(gold: Figure, scale: float | None, stated: Figure, text: str | None = None) -> bool:
    """``stated`` (a figure of ``text``) is ``gold`` under the strict rule
    (``edgar_rag.eval.strict``), within 1% or the rounding it wrote, whichever is wider.

    A figure written without a scale is read in the question's (``1,577`` for a question asking
    in USD millions), never as a scale the question does not name (``1,577`` is not ``$1,577
    million``); a percentage matches only a percentage; the sign is the gold's (``-3.7`` is not
    ``3.7``, unless the sentence names the decrease)."""
    return is_gold(stated, stated.text if text is None else text, gold_of(gold, scale))


def is_correct(gold: Figure, scale: float | None, response: Response) -> bool:
    """An answer (not a decline) one of whose figures is the gold figure."""
    if response.reason is not None or response.text is None:
        return False
    return states_gold(response.text, gold_of(gold, scale))


# -- running -------------------------------------------------------------------------------------


def read_cases(path: Path) -> list[Case]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Case.model_validate_json(line) for line in lines if line.strip()]


def _stem(source: str) -> str:
    name = Path(source).name.lower().removesuffix(".gz")
    return name.rsplit(".", 1)[0]


def document_scopes(index: FilingStore, doc_names: Sequence[str]) -> dict[str, Scope]:
    """Each document's filing, by its file name, else by the company and year of the name."""
    summaries = index.filings()
    scopes: dict[str, Scope] = {}
    for doc in doc_names:
        found = [s for s in summaries if _stem(s.source) == doc.lower()]
        if not found:
            company, _, year = doc.rpartition("_10K")[0].rpartition("_")
            found = [
                s
                for s in summaries
                if normalise(s.company) == normalise(company) and str(s.fiscal_year) == year
            ]
        if found:
            scopes[doc] = Scope(found[0].filing_id, index.filing_meta(found[0].filing_id))
    return scopes


def evidence_ranks(hits: Sequence[Hit], evidence: Sequence[str]) -> dict[str, int | None]:
    """The first rank where a passage overlaps any evidence (and strictly), and every evidence."""
    texts = [EvidenceText.of(e) for e in evidence]

    def first(test: Callable[[EvidenceText, str], bool], text: EvidenceText) -> int | None:
        return next((h.rank for h in hits if test(text, h.passage.chunk.text)), None)

    loose = [first(EvidenceText.overlaps, t) for t in texts]
    strict = [first(EvidenceText.mostly_overlaps, t) for t in texts]
    found = [r for r in loose if r is not None]
    return {
        "any": min(found, default=None),
        "strict": min((r for r in strict if r is not None), default=None),
        "every": max(found) if len(found) == len(loose) else None,
    }


def recall(ranks: Sequence[int | None]) -> dict[str, float]:
    n = len(ranks)
    scores = {f"recall@{k}": sum(r is not None and r <= k for r in ranks) / n for k in KS}
    return {"n": n, **{key: round(value, 4) for key, value in scores.items()}}


def _interval(successes: int, n: int) -> dict[str, Any]:
    share: Interval = wilson(successes, n)
    values = (share.estimate, share.low, share.high)
    rounded = [None if math.isnan(v) else round(v, 4) for v in values]
    return {"k": successes, "n": n, "estimate": rounded[0], "low": rounded[1], "high": rounded[2]}


def _retrieval(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    groups = {"all": list(rows), **{t: [r for r in rows if r["type"] == t] for t in TYPES}}
    return {
        rule: {
            name: recall([r["ranks"][rule] for r in members])
            for name, members in groups.items()
            if members
        }
        for rule in ("any", "strict", "every")
    }


def _answers(rows: Sequence[dict[str, Any]], in_prompt: int, replayed: bool) -> dict[str, Any]:
    asked = [r for r in rows if r.get("answer") is not None]
    answered = [r for r in asked if r["answer"]["reason"] is None]
    correct = sum(r["answer"]["correct"] for r in asked)
    reasonings = sorted({r["reasoning"] or "unlabelled" for r in asked})
    return {
        "numeric": len(asked),
        "non_numeric": len(rows) - len(asked),
        "evidence_in_prompt": sum(
            r["ranks"]["any"] is not None and r["ranks"]["any"] <= in_prompt for r in asked
        ),
        "answered": len(answered),
        "answered_without_figure": sum(not find_figures(r["answer"]["text"]) for r in answered),
        "correct": correct,
        "accuracy": _interval(correct, len(asked)),
        "answered_share": _interval(len(answered), len(asked)),
        "correct_when_answered": _interval(correct, len(answered)),
        "declined": dict(
            sorted(Counter(r["answer"]["reason"] for r in asked if r not in answered).items())
        ),
        "by_reasoning": {
            name: _interval(
                sum(
                    r["answer"]["correct"]
                    for r in asked
                    if (r["reasoning"] or "unlabelled") == name
                ),
                sum((r["reasoning"] or "unlabelled") == name for r in asked),
            )
            for name in reasonings
        },
        "seconds": {
            key: round(value, 2)
            for key, value in percentiles([r["answer"]["seconds"] for r in asked]).items()
        }
        if asked
        else {},
        "replayed": replayed,
    }


def _filers(index: FilingStore) -> dict[str, dict[str, Any]]:
    """Each indexed PDF's filer as ingest named it."""
    return {
        Path(s.source).name: {"company": s.company, "ticker": s.ticker, "cik": s.cik}
        for s in sorted(index.filings(), key=lambda s: s.source)
    }


def run(
    corpus: Path,
    db: Path,
    tape: Path = DEFAULT_TAPE,
    *,
    replay: bool = False,
    resume: bool = False,
    settings: Settings | None = None,
    progress: Callable[[str], None] = lambda line: None,
    generator: Generator | None = None,
) -> dict[str, Any]:
    """Index the FinanceBench PDFs, ask their questions, and return the report (a JSON dict).

    Records generations to ``tape``, or with ``replay`` answers from it. Each question's row is
    also written to a journal beside ``db``; ``resume`` keeps the tape and the journal of an
    interrupted run and asks only the questions the journal lacks (a fresh run clears both).
    ``generator`` stands in for the settings' model (the gate's refuser: no model, no tape).
    """
    chosen = (settings or load_settings()).model_copy(
        update={"db": db, "tape": tape, "tape_mode": "replay" if replay else "record"}
    )
    folder = corpus / "financebench"
    cases = read_cases(folder / "financebench_open_source.jsonl")
    pdfs = sorted(p for p in (folder / "pdfs").iterdir() if p.suffix.lower() == ".pdf")
    present = {p.stem.lower() for p in pdfs}
    db.parent.mkdir(parents=True, exist_ok=True)
    with closing(SqliteIndex(db)) as index:
        embedder = build_embedder(chosen.embedder, chosen.model_dir)
        refused = _index_pdfs(folder / "pdfs", index, embedder, progress)
        kept = [c for c in cases if c.doc_name.lower() in present]
        scopes = document_scopes(index, sorted({c.doc_name for c in kept}))
        journal = db.with_name(db.stem + ".rows.jsonl")
        done = _read_journal(journal) if resume and not replay else {}
        if not (replay or resume):
            tape.unlink(missing_ok=True)
            journal.unlink(missing_ok=True)
        searcher = build_searcher(chosen, index)
        answerer = build_answerer(chosen, index)
        if generator is not None:
            answerer.generator = generator
        rows = []
        for number, case in enumerate(kept, 1):
            scope = scopes.get(case.doc_name)
            if scope is None:
                continue
            row = done.get(case.financebench_id)
            if row is None:
                row = _ask(case, scope, searcher, answerer)
                if not replay:
                    with journal.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            rows.append(row)
            progress(f"{number}/{len(kept)} {case.financebench_id}")
        return {
            "command": "edgar-rag eval financebench"
            + (" --replay" if replay else "")
            + (" --resume" if done else ""),
            "questions": len(cases),
            "pdfs": len(pdfs),
            "covered": len(kept),
            "covered_by_type": dict(Counter(c.question_type for c in kept)),
            "unscoped": sorted({c.doc_name for c in kept} - scopes.keys()),
            "refused_pdfs": refused,
            "filers": _filers(index),
            "chunks": index.counts()["chunks"],
            "settings": {
                "embedder": embedder.identity.describe(),
                "generator": answerer.generator.name,
                "gate": answerer.settings.gate,
                "search_k": answerer.settings.search_k,
                "passages_in_prompt": answerer.settings.passages_in_prompt,
            },
            "multi_evidence": sum(r["evidence_pieces"] > 1 for r in rows),
            "other_documents": sum(bool(r["other_documents"]) for r in rows),
            "retrieval": _retrieval(rows),
            "answers": _answers(rows, answerer.settings.passages_in_prompt, replay),
            "resumed_rows": len(done),
            "machine": {
                "cpus": os.cpu_count(),
                "load_average": [round(v, 1) for v in os.getloadavg()],
            },
            "paper": [{"model": m, "setup": s, "correct": c} for m, s, c in PAPER],
            "rows": rows,
        }


def _read_journal(journal: Path) -> dict[str, dict[str, Any]]:
    if not journal.is_file():
        return {}
    lines = journal.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return {row["id"]: row for row in rows}


def _index_pdfs(
    folder: Path, index: FilingStore, embedder: Embedder, progress: Callable[[str], None]
) -> dict[str, str]:
    """Index every PDF (a no-op for those already there); the refused ones with the reason."""
    refused: dict[str, str] = {}
    sources = find_local_filings([folder], build_company_list())
    for result in index_filings(sources, index, embedder):
        progress(f"{result.outcome.value:9} {result.source}")
        if result.outcome is Outcome.REFUSED:
            refused[Path(result.source).name] = result.reason or ""
    return refused


def _ask(case: Case, scope: Scope, searcher: Searcher, answerer: Answerer) -> dict[str, Any]:
    """One question's row: its evidence ranks, and its answer when the gold is a bare figure."""
    hits = searcher.search(read_question(case.question), scope, max(KS))
    row: dict[str, Any] = {
        "id": case.financebench_id,
        "doc": case.doc_name,
        "type": case.question_type,
        "reasoning": case.question_reasoning,
        "evidence_pieces": len(case.evidence),
        "other_documents": sorted({e.doc_name for e in case.evidence} - {case.doc_name}),
        "ranks": evidence_ranks(hits, [e.evidence_text for e in case.evidence]),
        "gold": None,
        "answer": None,
    }
    gold = gold_figure(case.answer)
    if gold is None:
        return row
    row["gold"] = case.answer
    started = time.perf_counter()
    response = answerer.answer(case.question, scope)
    row["answer"] = {
        "text": response.text,
        "reason": response.reason.value if response.reason else None,
        "correct": is_correct(gold, question_scale(case.question), response),
        "seconds": round(time.perf_counter() - started, 2),
    }
    return row


# -- the page (pure) -----------------------------------------------------------------------------


def _share(figures: dict[str, Any]) -> str:
    bounds = (figures["low"], figures["high"])
    return share(figures["k"], figures["n"], figures["estimate"], bounds, prose=True)


def _cell(text: str | None, width: int = 90) -> str:
    flat = " ".join((text or "").split()).replace("|", "\\|")
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def _recall_table(scores: dict[str, dict[str, float]]) -> list[str]:
    return table(
        ["questions", "n", *(f"recall@{k}" for k in KS)],
        [
            [name, int(s["n"]), *(f"{s[f'recall@{k}']:.3f}" for k in KS)]
            for name, s in scores.items()
        ],
        align="lr" + "r" * len(KS),
    )


def render(report: dict[str, Any]) -> str:
    """The Markdown page, a pure function of the report."""
    lines = [
        "# FinanceBench: evidence recall and numeric answers",
        "",
        f"Written by `{report['command']}` from "
        "`docs/financebench.json`; generations are on the tape `data/financebench/tape.jsonl`, so "
        "`--replay` rebuilds this page without the model.",
        "",
        FINANCEBENCH_SET.disclosure(),
        "",
        *_what_was_run(report),
        *_evidence_recall(report),
        *_numeric_answers(report),
        *_seconds_per_question(report),
        *_answer_table(report["rows"]),
        *_the_papers_figures(report["paper"]),
        *_notes(report),
    ]
    return "\n".join(lines)


def _what_was_run(report: dict[str, Any]) -> list[str]:
    chosen = report["settings"]
    return [
        "## What was run",
        "",
        f"- {report['pdfs']} FinanceBench 10-K PDFs (`../shared/corpus/financebench/pdfs`) indexed "
        f"into their own SQLite file: {report['chunks']} chunks, embedder {chosen['embedder']}"
        + (
            f"; refused: {', '.join(sorted(report['refused_pdfs']))}"
            if report["refused_pdfs"]
            else ""
        )
        + ".",
        f"- {report['covered']} of the {report['questions']} open-source questions name a document "
        "that is here ("
        + ", ".join(f"{t} {n}" for t, n in sorted(report["covered_by_type"].items()))
        + "). Each is asked scoped to its document's filing (matched by file name)"
        + (f"; no filing found for {', '.join(report['unscoped'])}" if report["unscoped"] else "")
        + ".",
        f"- Search: hybrid (dense + BM25, fused, near-duplicates removed), top 10. Answers: the "
        f"default answerer, generator `{chosen['generator']}`, gate `{chosen['gate']}`, "
        f"{chosen['passages_in_prompt']} of the top {chosen['search_k']} passages in the prompt, "
        "figures verified against the passages they cite.",
        "",
    ]


def _evidence_recall(report: dict[str, Any]) -> list[str]:
    retrieval = report["retrieval"]
    return [
        "## Evidence recall@k",
        "",
        f"A hit: a retrieved passage and a gold evidence text share {RUN_CHARS} characters in a "
        "row after both are normalised (Unicode NFKC, lower case, everything but letters and "
        "digits removed, so the broken spacing of PDF extraction does not matter, and a "
        "passage's labelled statement rows read as printed, without the column header each cell "
        "repeats or the heading each row under it repeats); an evidence "
        f"shorter than that must appear whole. Strict: at least {COVER_SHARE:.0%} of the shorter "
        f"of the two lies in {COVER_CHARS}-character runs the other shares. A question counts "
        "when any of its evidence texts is hit; *every* needs all of them in the top k.",
        "",
        "### Any evidence",
        "",
        *_recall_table(retrieval["any"]),
        "",
        "### Strict overlap",
        "",
        *_recall_table(retrieval["strict"]),
        "",
        f"### Every evidence text ({report['multi_evidence']} questions have more than one)",
        "",
        *_recall_table(retrieval["every"]),
        "",
    ]


def _numeric_answers(report: dict[str, Any]) -> list[str]:
    answers, chosen = report["answers"], report["settings"]
    return [
        "## Numeric answers",
        "",
        f"{answers['numeric']} questions have a gold answer that is a bare figure (`$1577.00`, "
        f"`1.9%`, `-3.7`); the other {answers['non_numeric']} (prose, some with figures inside) "
        "are not scored here. Correct (the strict rule of issue 42, `edgar_rag.eval.strict`): "
        "not a decline, and a figure of the answer equals the gold within "
        f"{RELATIVE_TOLERANCE:.0%} or the rounding it wrote (a rounding coarser than 1% of the "
        "gold never counts), in the gold's unit (a percentage only for a percentage, dollars "
        "for dollars), read in the question's scale where it writes none (`in USD millions`) "
        "and never in a scale nobody named, with the gold's sign (a negative gold stated "
        "negative or as a decrease). Intervals: Wilson, 95%.",
        "",
        *table(
            ["measure", "value"],
            [
                ["correct", _share(answers["accuracy"])],
                ["answered (not declined)", _share(answers["answered_share"])],
                ["correct when answered", _share(answers["correct_when_answered"])],
                *(
                    [f"correct, {name}", _share(figures)]
                    for name, figures in answers["by_reasoning"].items()
                ),
            ],
        ),
        "",
        f"The gold evidence was among the {chosen['passages_in_prompt']} passages of the prompt "
        f"for {answers['evidence_in_prompt']} of the {answers['numeric']} (by the overlap rule "
        "above; the prompt shows each passage's best window, not the whole chunk). "
        f"{answers['answered_without_figure']} of the answers state no figure at all.",
        "",
        "Declines by reason: "
        + (
            ", ".join(f"`{reason}` {count}" for reason, count in answers["declined"].items())
            or "none"
        )
        + ".",
        "",
    ]


def _seconds_per_question(report: dict[str, Any]) -> list[str]:
    answers = report["answers"]
    seconds = answers["seconds"]
    if not seconds:
        return []
    machine = report["machine"]
    measured = (
        "replayed from the tape: these time the replay, not the model"
        if answers["replayed"]
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
        f"P50 {seconds['p50']:.1f}, P95 {seconds['p95']:.1f}.",
        "",
    ]


def _answer_table(rows: list[dict[str, Any]]) -> list[str]:
    """Each numeric question asked: its gold figure and the answer or decline it got."""
    cells = []
    for row in rows:
        given = row["answer"]
        if given is None:
            continue
        said = given["text"] if given["reason"] is None else f"declined: {given['reason']}"
        cells.append(
            [
                row["id"].removeprefix("financebench_id_"),
                row["type"],
                row["gold"],
                _cell(said),
                "yes" if given["correct"] else "no",
            ]
        )
    return table(["id", "type", "gold", "answer or decline", "correct"], cells, align="llr")


def _the_papers_figures(paper: list[dict[str, Any]]) -> list[str]:
    return [
        "",
        "## The paper's figures (other models and setups, not re-run here)",
        "",
        "As reported in the paper (Islam et al. 2023, arXiv 2311.11944): share of correct "
        "answers on its 150-case sample of all question types, judged by people; the abstract's "
        '"incorrectly answered or refused to answer 81% of questions" is the shared vector '
        "store row. The paper also evaluates Llama 2 and Claude 2; their figures are not quoted "
        "here. Not comparable with the numbers above: other models, all question types, human "
        "grading; the nearest setup to ours is the single vector store.",
        "",
        *table(
            ["model", "setup", "correct (as reported)"],
            [[p["model"], p["setup"], p["correct"]] for p in paper],
            align="llr",
        ),
    ]


def _notes(report: dict[str, Any]) -> list[str]:
    return [
        "",
        "## Notes",
        "",
        "- The PDFs' income statements, balance sheets and cash-flow statements are read into "
        "labelled rows with their column years and scale (`ingest/statements.py`, measured in "
        "[the PDF readers' comparison](pdf_readers.md)), and each row's figures are stored "
        "beside XBRL facts; other tables are plain lines.",
        "- Search ranks, beside dense and BM25 passages, the chunks displaying the statement "
        "rows a figure question names (by their labels, as XBRL facts by their concepts) and "
        "the rows a named metric is computed from (the metric library's operands: a quick ratio "
        "finds the balance sheet), and matches no word of the filer's own name (which would "
        "rank its lists of subsidiaries and exhibits first).",
        "- FinanceBench's evidence texts come from another PDF extractor; the overlap rule "
        "compares letters and digits only. A passage that repeats a table's rows elsewhere in "
        "the filing (MD&A beside the statements) counts as a hit; the strict rule shows how much "
        "that matters.",
        _filer_note(report),
        f"- {report['multi_evidence']} questions cite several evidence pages; "
        f"{report['other_documents']} cite another document than the one asked about.",
        "- Most bare-figure questions ask for a computed metric (a ratio, an average, a growth "
        "rate): each is planned by the metric library or read from the formula the question "
        "states, and computed in code from the statement rows' figures, each cited; a metric "
        "whose operand no statement row prints is declined as `missing_figure`.",
        "",
    ]


def _filer_note(report: dict[str, Any]) -> str:
    """How the filers were named: by their cover, or (runs before ingest read covers) by their
    file names, with FinanceBench's spelling put in when the two differed only in spacing."""
    answers = report["answers"]
    if "renamed" in answers:
        return (
            "- This run named each filer by its PDF's file name (`BESTBUY_2019_10K.pdf` gave "
            "`BESTBUY`), which the company guard does not recognise as the Best Buy a question "
            f"names; {answers['renamed']} of the numeric questions were asked with "
            "FinanceBench's spelling of the same name (equal once spacing and punctuation are "
            "dropped). Under the file-name spelling the guard would have declined "
            f"{answers['declined_under_file_name']} of them as `out_of_scope`. Ingest now names "
            "the filer as the PDF's cover does (`Best Buy Co., Inc.`), with its CIK and ticker "
            "from edgartools' list of companies, so later runs ask the questions as written."
        )
    filers = report["filers"].values()
    return (
        "- Each filer is named as its PDF's cover prints it, above \"(Exact name of registrant "
        "as specified in its charter)\" (`Best Buy Co., Inc.`, not the file name's `BESTBUY`), "
        "so the company guard knows the Best Buy a question names; "
        f"{sum(f['cik'] is not None for f in filers)} of the {len(filers)} filers also have "
        "their CIK and ticker from edgartools' list of companies. The questions are asked as "
        "FinanceBench writes them."
    )


def write_report(report: dict[str, Any], out: Path) -> None:
    """The JSON at ``out`` and the page beside it (``.md``)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(report), encoding="utf-8")


def _to_stderr(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def write_financebench(
    corpus: Path, db: Path, out: Path, *, tape: Path | None, replay: bool, resume: bool
) -> dict[str, Any]:
    """``run`` (on ``DEFAULT_TAPE`` unless given a tape), its progress on stderr, then
    ``write_report``: ``edgar-rag eval financebench``. Returns the report written."""
    report = run(
        corpus, db, tape or DEFAULT_TAPE, replay=replay, resume=resume, progress=_to_stderr
    )
    write_report(report, out)
    return report
