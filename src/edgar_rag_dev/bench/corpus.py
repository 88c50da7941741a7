"""``make corpus``: ingest every file of the shared corpus and list what happened to each.

It runs the same ``index_filings`` loop as ``edgar-rag ingest``, with the hashing embedder so the
whole corpus (HTML filings and FinanceBench PDFs) goes through in minutes: what is measured here
is that each filing is parsed and stored, or refused with its reason, not the embedding (whose cost
is in docs/performance.md). Written to docs/ingest.md and docs/ingest.json.
"""

from __future__ import annotations

import json
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

from edgar_rag.compose import build_company_list
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import Outcome, index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.markdown import table


def ingest_corpus(corpus: Path) -> dict[str, Any]:
    sources = find_local_filings([corpus], build_company_list())
    rows: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        closing(SqliteIndex(Path(folder) / "corpus.db")) as index,
    ):
        for result in index_filings(sources, index, HashingEmbedder()):
            meta = result.meta
            rows.append(
                {
                    "source": str(Path(result.source).relative_to(corpus)),
                    "outcome": result.outcome.value,
                    "reason": result.reason,
                    "company": meta.company if meta else None,
                    "ticker": meta.ticker if meta else None,
                    "fiscal_year": meta.fiscal_year if meta else None,
                    "format": meta.source_format.value if meta else None,
                    "years_reported": list(meta.years_reported) if meta else [],
                    "chunks": result.chunks,
                    "facts": result.facts,
                }
            )
        items = {(s.ticker or s.company, s.fiscal_year): s.items for s in index.filings()}
    for row in rows:
        row["items"] = items.get((row["ticker"] or row["company"], row["fiscal_year"]), 0)
    return {"files": len(sources), "results": rows}


def render(report: dict[str, Any]) -> str:
    results = report["results"]
    counts = {o.value: sum(r["outcome"] == o.value for r in results) for o in Outcome}
    lines = [
        "# Ingesting the whole corpus",
        "",
        "Written by `make corpus` (`edgar-rag dev bench corpus`) from `docs/ingest.json`: "
        "every file under `../shared/corpus` through the ingest loop of `edgar-rag ingest` "
        "(hashing embedder: the embedding's cost is measured in docs/performance.md).",
        "",
        f"{report['files']} files: " + ", ".join(f"{v} {k}" for k, v in counts.items() if v) + ".",
        "",
    ]
    rows = []
    for r in results:
        years = f"{r['years_reported'][0]}-{r['years_reported'][-1]}" if r["years_reported"] else ""
        outcome = r["outcome"] if not r["reason"] else f"{r['outcome']}: {r['reason']}"
        rows.append(
            [
                r["source"],
                outcome,
                r["company"] or "",
                r["fiscal_year"] or "",
                r["format"] or "",
                r["items"],
                r["chunks"],
                r["facts"],
                years,
            ]
        )
    header = [
        "file",
        "outcome",
        "company",
        "FY",
        "format",
        "Items",
        "chunks",
        "facts",
        "years reported",
    ]
    lines += table(header, rows, align="lllrlrrrl")
    lines.append("")
    return "\n".join(lines)


def write_corpus_report(corpus: Path, out: Path) -> None:
    """Ingest the whole corpus into ``out`` (JSON) and its Markdown page beside it."""
    report = ingest_corpus(corpus)
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(report), encoding="utf-8")
