"""FinanceBench on the PDFs at hand: does scoped search find the gold evidence, and is each
answer correct, incorrect or declined as the paper labels it? Written to docs/financebench.json
and docs/financebench.md.

Indexes ``corpus/financebench/pdfs`` into its own SQLite file and asks all 150 questions: each
scoped to its document's filing where one is indexed, else of the whole corpus (any answer to
those is incorrect). Scores evidence recall@k for the scoped questions and labels every answer
(``eval.financebench_labels``). Generations are recorded to a tape, so ``--replay`` rebuilds the
report without the model; the page (``eval.financebench_page``) is a pure function of the JSON,
so a checker can re-render it and compare.
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
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from edgar_rag.answer.answerer import Answerer
from edgar_rag.compose import (
    build_answerer,
    build_company_list,
    build_embedder,
    build_searcher,
)
from edgar_rag.config import Settings, load_settings
from edgar_rag.domain import Embedder, FilingStore, Generator, Hit, Scope
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from edgar_rag_dev.eval.financebench_labels import (
    DEFAULT_JUDGMENTS,
    RELATIVE_TOLERANCE,
    Judgment,
    labelled,
    read_judgments,
    scores,
)
from edgar_rag_dev.eval.financebench_page import render
from edgar_rag_dev.eval.stats import Interval, percentiles, wilson

KS = (1, 5, 10)
RUN_CHARS = 60
"""A passage overlaps the evidence when both share this many normalised characters in a row."""
COVER_CHARS = 20
COVER_SHARE = 0.5
"""Strict overlap: half the shorter text lies in 20-character runs that the other text shares."""
DEFAULT_TAPE = Path("data/financebench/tape.jsonl")
TYPES = ("metrics-generated", "domain-relevant", "novel-generated")
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")

PAPER = (
    ("GPT-4-Turbo", "per-document vector store", 75, 17, 58),
    ("GPT-4-Turbo", "whole document in context (context first)", 118, 26, 6),
    ("GPT-4-Turbo", "oracle (the gold evidence page given)", 134, 14, 2),
)
"""Islam et al. 2023 (arXiv 2311.11944): correct, incorrect and refused out of its 150
open-source questions, counted from the labels in the repository's released ``results/``."""


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


# -- running -------------------------------------------------------------------------------------


def read_cases(path: Path) -> list[Case]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [Case.model_validate_json(line) for line in lines if line.strip()]


KINDS = {
    "10k": "10-K",
    "10k_annualreport": "10-K",
    "10q": "10-Q",
    "8k": "8-K",
    "earnings": "earnings release",
}
"""FinanceBench's document types (``doc_type``) as the page names them; an annual report
bound with its 10-K (``10k_annualreport``) is a 10-K."""


def document_kinds(path: Path) -> dict[str, str]:
    """Each FinanceBench document's kind (``10-K``, ``10-Q``, ``8-K``, ``earnings release``),
    from ``financebench_document_information.jsonl``, which lists every document its questions
    name, those missing from ``pdfs/`` too."""
    kinds = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            document = json.loads(line)
            kinds[document["doc_name"]] = KINDS[document["doc_type"].lower()]
    return kinds


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
    judgments: Path = DEFAULT_JUDGMENTS,
) -> dict[str, Any]:
    """Index the FinanceBench PDFs, ask their questions, and return the report (a JSON dict).

    Records generations to ``tape``, or with ``replay`` answers from it. Each question's row is
    also written to a journal beside ``db``; ``resume`` keeps the tape and the journal of an
    interrupted run and asks only the questions the journal lacks (a fresh run clears both).
    ``generator`` stands in for the settings' model (the gate's refuser: no model, no tape).
    Each row is labelled (``eval.financebench_labels``) with the ``judgments`` committed.
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
        kinds = document_kinds(folder / "financebench_document_information.jsonl")
        rows = []
        for number, case in enumerate(cases, 1):
            row = done.get(case.financebench_id)
            if row is None:
                scope = scopes.get(case.doc_name)
                document = {
                    "kind": kinds.get(case.doc_name, "unknown"),
                    "document": "indexed"
                    if scope is not None
                    else "not_indexed"
                    if case.doc_name.lower() in present
                    else "missing",
                }
                row = _ask(case, scope, searcher, answerer, document)
                if not replay:
                    with journal.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            rows.append(row)
            progress(f"{number}/{len(cases)} {case.financebench_id}")
        return {
            "command": "edgar-rag eval financebench"
            + (" --replay" if replay else "")
            + (" --resume" if done else ""),
            "questions": len(cases),
            "pdfs": len(pdfs),
            "pdfs_by_kind": dict(Counter(kinds.get(p.stem, "unknown") for p in pdfs)),
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
            "rules": {
                "run_chars": RUN_CHARS,
                "cover_chars": COVER_CHARS,
                "cover_share": COVER_SHARE,
                "relative_tolerance": RELATIVE_TOLERANCE,
                "ks": list(KS),
            },
            "replayed": replay,
            "resumed_rows": len(done),
            "machine": {
                "cpus": os.cpu_count(),
                "load_average": [round(v, 1) for v in os.getloadavg()],
            },
            "paper": [
                {"model": m, "setup": s, "correct": c, "incorrect": i, "declined": d}
                for m, s, c, i, d in PAPER
            ],
            **summary(rows, read_judgments(judgments)),
        }


def summary(rows: Sequence[dict[str, Any]], judgments: Mapping[str, Judgment]) -> dict[str, Any]:
    """What the page reports of a run's rows (pure): each row labelled, the labels counted,
    evidence recall over the questions asked scoped to their document, seconds per question."""
    rows = labelled(rows, judgments)
    indexed = [r for r in rows if r["document"] == "indexed"]
    scored = scores(rows, TYPES, tuple(dict.fromkeys(KINDS.values())))
    return {
        "indexed_questions": len(indexed),
        "multi_evidence": sum(r["evidence_pieces"] > 1 for r in indexed),
        "other_documents": sum(bool(r["other_documents"]) for r in indexed),
        "retrieval": _retrieval(indexed),
        "scores": scored,
        "correct_share": _interval(scored["asked"]["correct"], scored["asked"]["n"]),
        "seconds": _seconds(rows),
        "rows": rows,
    }


def _seconds(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Seconds per question, for answers made in code and for those the model wrote."""
    groups = {
        "in code": [r for r in rows if not r["answer"].get("completion_tokens")],
        "by the model": [r for r in rows if r["answer"].get("completion_tokens")],
    }
    return {
        name: {
            "n": len(members),
            **{
                key: round(value, 2)
                for key, value in percentiles([r["answer"]["seconds"] for r in members]).items()
            },
        }
        for name, members in groups.items()
        if members
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


def _ask(
    case: Case,
    scope: Scope | None,
    searcher: Searcher,
    answerer: Answerer,
    document: dict[str, str],
) -> dict[str, Any]:
    """One question's row: its evidence ranks in its document's filing, and the answer it got.

    ``document`` gives its kind and whether it is ``indexed``, ``not_indexed`` (in ``pdfs/`` but
    refused by ingest) or ``missing`` (not in ``pdfs/``). A question whose document is not
    indexed (``scope`` None) is asked of the whole corpus, as a user without that document would
    ask it: any answer to it is incorrect."""
    row: dict[str, Any] = {
        "id": case.financebench_id,
        "doc": case.doc_name,
        **document,
        "type": case.question_type,
        "reasoning": case.question_reasoning,
        "question": case.question,
        "evidence_pieces": len(case.evidence),
        "other_documents": sorted({e.doc_name for e in case.evidence} - {case.doc_name}),
        "ranks": None,
        "gold": case.answer,
        "answer": None,
    }
    if scope is not None:
        hits = searcher.search(read_question(case.question), scope, max(KS))
        row["ranks"] = evidence_ranks(hits, [e.evidence_text for e in case.evidence])
    started = time.perf_counter()
    response = answerer.answer(case.question, scope or Scope())
    row["answer"] = {
        "text": response.text,
        "reason": response.reason.value if response.reason else None,
        "detail": response.detail,
        "generator": response.generator,
        "completion_tokens": response.completion_tokens,
        "seconds": round(time.perf_counter() - started, 2),
    }
    return row


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
