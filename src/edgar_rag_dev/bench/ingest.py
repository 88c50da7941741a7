"""``make bench``: what ingest and search cost on this machine, written to docs/performance.md.

Ingest stages (parse, chunk, embed, store) are timed on a fixed five-filing subset of the corpus;
the embedder we ship is timed side by side with a plain ``SentenceTransformer.encode`` over the
same chunks in the same run, with the top-5 agreement on a fixed query set. Search latency
(embed + search + fuse) is measured over the whole corpus indexed, on SQLite and PostgreSQL in the
same run. Machines here are shared, so ratios measured side by side matter more than seconds.
"""

from __future__ import annotations

import csv
import json
import resource
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgar_rag.domain import Embedder, FilingStore, ParsedFiling, RawFiling
from edgar_rag.index.embedders import MiniLMEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.postgres import PostgresIndex, create_database
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import embedding_text
from edgar_rag.ingest.pipeline import chunk_filing, read_filing
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from edgar_rag_dev.bench.embedding import compare_embedders
from edgar_rag_dev.bench.report import write_performance

SUBSET = ("AAPL-2025", "NVDA-2025", "JNJ-2024", "TSLA-2024", "WFC-2024")
QUESTIONS = Path("data/retrieval/narrative.jsonl")


@dataclass(frozen=True, slots=True)
class StageTimes:
    filing: str
    bytes: int
    chunks: int
    facts: int
    parse_s: float
    chunk_s: float
    embed_s: float
    store_sqlite_s: float
    store_postgres_s: float | None


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _manifest(corpus: Path) -> list[dict[str, str]]:
    with (corpus / "filings" / "manifest.csv").open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _percentiles(samples: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(float(np.percentile(samples, 50)), 2),
        "p95_ms": round(float(np.percentile(samples, 95)), 2),
    }


def time_stages(
    corpus: Path, embedder: Embedder, postgres_url: str | None
) -> tuple[list[StageTimes], list[ParsedFiling], dict[str, float]]:
    rows = {f"{r['ticker']}-{r['fiscal_year']}": r for r in _manifest(corpus)}
    times, parsed_all, memory = [], [], {"start_mib": _rss_mib()}
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        sqlite = stack.enter_context(closing(SqliteIndex(folder / "bench.db")))
        sqlite.ensure_embedder(embedder.identity)
        postgres = (
            stack.enter_context(closing(PostgresIndex(postgres_url))) if postgres_url else None
        )
        if postgres is not None:
            postgres.ensure_embedder(embedder.identity)
        for key in SUBSET:
            path = corpus / rows[key]["path"]
            raw = RawFiling(path.read_bytes(), str(path))
            started = time.perf_counter()
            read = read_filing(raw)
            parsed_at = time.perf_counter()
            parsed = chunk_filing(read)
            chunked_at = time.perf_counter()
            memory["after_parse_mib"] = _rss_mib()
            vectors = embedder.embed([embedding_text(c) for c in parsed.chunks])
            embedded_at = time.perf_counter()
            memory["after_embed_mib"] = _rss_mib()
            sqlite.write_filing(parsed, vectors)
            stored_at = time.perf_counter()
            postgres_s = None
            if postgres is not None:
                postgres.write_filing(parsed, vectors)
                postgres_s = time.perf_counter() - stored_at
            times.append(
                StageTimes(
                    key, len(raw.content), len(parsed.chunks), len(parsed.facts),
                    parsed_at - started, chunked_at - parsed_at, embedded_at - chunked_at,
                    stored_at - embedded_at, postgres_s,
                )
            )  # fmt: skip
            parsed_all.append(parsed)
        sqlite_bytes = Path(sqlite.path).stat().st_size
        memory["sqlite_bytes_per_chunk"] = sqlite_bytes / sum(t.chunks for t in times)
    return times, parsed_all, memory


COMPARISON_STRIDE = 3
"""Every third chunk of the subset goes into the side-by-side comparison (plain encode is slow)."""


def embedding_comparison(parsed: Sequence[ParsedFiling], cache: Path) -> dict[str, Any]:
    texts = [embedding_text(chunk) for filing in parsed for chunk in filing.chunks]
    texts = texts[::COMPARISON_STRIDE]
    queries = [
        json.loads(line)["question"]
        for line in QUESTIONS.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    plain = MiniLMEmbedder()
    rows = {}
    for name, candidate in (
        ("onnx-fp32", OnnxMiniLMEmbedder(cache)),
        ("onnx-int8", OnnxMiniLMEmbedder(cache, precision="int8")),
    ):
        comparison = compare_embedders(texts, queries, plain, candidate, k=5, rounds=1)
        rows[name] = asdict(comparison)
    return rows


def search_latency(
    index: FilingStore, embedder: Embedder, questions: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    searcher = Searcher(index, embedder)
    scopes = {
        (q["ticker"], q["fiscal_year"]): index.resolve_scope(
            ticker=q["ticker"], fiscal_year=q["fiscal_year"]
        )
        for q in questions
    }
    corpus = index.resolve_scope()
    searcher.search(read_question("warm up"), corpus, 5)
    scoped, wide = [], []
    for q in questions:
        started = time.perf_counter()
        searcher.search(read_question(q["question"]), scopes[(q["ticker"], q["fiscal_year"])], 5)
        scoped.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        searcher.search(read_question(q["question"]), corpus, 5)
        wide.append((time.perf_counter() - started) * 1000)
    return {"queries": len(questions), "scoped": _percentiles(scoped), "corpus": _percentiles(wide)}


def copy_index(source: FilingStore, target: FilingStore) -> None:
    identity = source.embedder_identity()
    assert identity is not None
    target.ensure_embedder(identity)
    for summary in source.filings():
        parsed, vectors = source.export_filing(summary.filing_id)
        if target.stored_filing(parsed.meta.sha256) is None:
            target.write_filing(parsed, vectors)


def run(corpus: Path, index_path: Path, cache: Path) -> dict[str, Any]:
    from edgar_rag_dev.bench.postgres_server import running_postgres  # noqa: PLC0415

    embedder = OnnxMiniLMEmbedder(cache)
    questions = [
        json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line
    ]
    with ExitStack() as stack:
        server = stack.enter_context(
            running_postgres(Path(stack.enter_context(tempfile.TemporaryDirectory())))
        )
        stages_url = create_database(server, "bench_stages")
        corpus_url = create_database(server, "bench_corpus")
        stages, parsed, memory = time_stages(corpus, embedder, stages_url)
        comparison = embedding_comparison(parsed, cache)
        sqlite = stack.enter_context(closing(SqliteIndex(index_path)))
        latency = {"sqlite": search_latency(sqlite, embedder, questions)}
        memory["search_process_mib"] = _rss_mib()
        postgres = stack.enter_context(closing(PostgresIndex(corpus_url)))
        copy_index(sqlite, postgres)
        latency["postgres"] = search_latency(postgres, embedder, questions)
        counts = sqlite.counts()
    return {
        "subset": list(SUBSET),
        "stages": [asdict(s) for s in stages],
        "memory": {k: round(v, 1) for k, v in memory.items()},
        "embedding": comparison,
        "search": latency,
        "corpus_counts": counts,
        "corpus_filings": len(_manifest(corpus)),
    }


def measure_ingest(corpus: Path, index: Path, cache: Path, out: Path) -> None:
    """Measure ingest and search into ``out`` (keeping what else it holds), then its page."""
    results = run(corpus, index, cache)
    if out.exists():  # keep what `make bench-load` wrote there
        results = json.loads(out.read_text(encoding="utf-8")) | results
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    write_performance(out)
