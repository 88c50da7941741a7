"""``make bench-scale``: corpus-wide search in the embedded store at a million chunks.

A synthetic index is written from the real one: its chunks (text, full-text index, vectors)
replicated under made-up CIKs, each vector with a little Gaussian noise so that no two are
equal, until the asked number of chunks. The filings rows keep no text and the copies no
sections or facts: corpus-wide dense search reads neither. The queries are the real question
sets' embeddings. Each store is then measured in a process of its own (its memory is the query
process's): the vector graph beside the SQLite file (``index.graph``, usearch HNSW, candidates
scored exactly) and sqlite-vec's ``vec0`` table (exact: 0.1.x has no approximate index; it
needs a SQLite that loads extensions, which this CPython's is not, so it runs through ``apsw``
when that is importable). Recall@10 is against an exact scan of the chunks table. Written to
docs/scale.json and rendered to docs/scale.md.
"""

from __future__ import annotations

import importlib.util
import json
import resource
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from edgar_rag.domain import Vectors
from edgar_rag.errors import ConfigError
from edgar_rag.index import graph
from edgar_rag.index.embedders import OnnxMiniLMEmbedder
from edgar_rag.index.graph import record_change
from edgar_rag.index.postgres import (
    CHUNK_TYPES,
    EF_SEARCH,
    HNSW_EF_CONSTRUCTION,
    HNSW_M,
    PARTITIONS,
    SEARCH_CONNECTIONS,
    PostgresIndex,
    chunk_cik,
    copy_rows,
    hnsw_index,
)
from edgar_rag.index.sqlite import GRAPH_MIN_CHUNKS, SqliteIndex
from edgar_rag.markdown import table
from edgar_rag_dev.bench.report import write_scaling

QUESTION_SETS = (
    Path("data/retrieval/narrative.jsonl"),
    Path("data/retrieval/figures.jsonl"),
    Path("data/golden/questions.jsonl"),
    Path("data/narrative/questions.jsonl"),
)
CANDIDATES = 40
"""A corpus-wide search asks the store for this many dense candidates (``SearchSettings``)."""
EXPANSIONS = (1024, 2048, 4096, 8192)
"""The graph's search expansions measured, one query process each."""
EF_SEARCHES = (100, 200, 400, 600, 800, 1000)
"""PostgreSQL's HNSW candidate lists measured (``hnsw.ef_search``), the store's own among them
(EF_SEARCH, recorded beside them), each with the store's SEARCH_CONNECTIONS; the store's own
list is also measured with one connection, which searches the partitions one after another."""
PG_SEARCHES = (
    *((ef, SEARCH_CONNECTIONS) for ef in EF_SEARCHES),
    *(((EF_SEARCH, 1),) if SEARCH_CONNECTIONS != 1 else ()),
)
PG_BUILD_MEMORY = "2GB"
"""``maintenance_work_mem`` for the HNSW build: a million 384-dimension vectors and their graph
fit, so pgvector builds in memory rather than page by page."""
PG_SERVER_SETTINGS = {"shared_buffers": "3GB"}
"""The local server's settings (``--postgres local``): its buffer cache holds the HNSW indexes of a
million chunks (about 2 GiB), as pgvector's docs ask, where the default 128 MB had every query
read most of its pages again from the kernel's cache (through PostgreSQL 18's I/O workers)."""
_BATCH = 50_000


@dataclass(frozen=True, slots=True)
class ScaleSettings:
    chunks: int = 1_000_000
    noise: float = 0.01
    """Standard deviation of the noise added to each coordinate before normalising again."""
    query_every: int = 4
    """Every Nth question of the sets is asked."""
    seed: int = 0
    sqlite_vec: bool = True


def measure_scale(
    source: Path,
    work: Path,
    cache: Path,
    out: Path,
    settings: ScaleSettings,
    postgres: str | None = None,
) -> None:
    """Write the synthetic index under ``work``, measure each store, write ``out`` and its page.
    With ``postgres`` (the URL of an empty database) the same chunks are measured there too."""
    work.mkdir(parents=True, exist_ok=True)
    db = work / f"scale-{settings.chunks}.db"
    queries = question_vectors(cache, settings.query_every)
    np.save(work / "queries.npy", queries)
    started = time.perf_counter()
    write_synthetic(source, db, settings)
    tables_s = time.perf_counter() - started
    started = time.perf_counter()
    exact = exact_top(db, queries, 10)
    exact_s = time.perf_counter() - started
    stores = {
        f"graph, expansion {expansion}": run
        for expansion, run in zip(EXPANSIONS, _in_own_process("graph", db, work), strict=True)
    }
    if settings.sqlite_vec and importlib.util.find_spec("apsw") is not None:
        stores["sqlite-vec"] = _in_own_process("sqlite-vec", db, work)[0]
    if postgres is not None:
        runs = _in_own_process("postgres", db, work, postgres)
        stores |= {_pg_row_name(run): run for run in runs}
    for result in stores.values():
        found = result.pop("top")
        result["recall_at_10"] = float(
            np.mean([len(set(f) & set(e)) / 10 for f, e in zip(found, exact, strict=True)])
        )
    report = {
        "settings": asdict(settings),
        "source_chunks": SqliteIndex(source).counts()["chunks"],
        "chunks": settings.chunks,
        "queries": len(queries),
        "tables_s": round(tables_s, 1),
        "sqlite_mib": db.stat().st_size / 2**20,
        "exact_scan_s_per_query": exact_s / len(queries),
        "graph_parameters": {
            "connectivity": graph.CONNECTIVITY,
            "expansion_add": graph.EXPANSION_ADD,
            "expansion_search": graph.EXPANSION_SEARCH,
            "expansions_measured": list(EXPANSIONS),
            "oversample": graph.OVERSAMPLE,
            "dtype": "f16",
        },
        "postgres_parameters": {
            "partitions": PARTITIONS,
            "ef_search": EF_SEARCH,
            "search_connections": SEARCH_CONNECTIONS,
            "ef_searches_measured": list(EF_SEARCHES),
            "m": HNSW_M,
            "ef_construction": HNSW_EF_CONSTRUCTION,
            "dtype": "halfvec",
            "maintenance_work_mem": PG_BUILD_MEMORY,
        },
        "stores": stores,
    }
    out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(report), encoding="utf-8")
    if (out.parent / "performance.json").exists():
        write_scaling(out.parent)  # docs/scaling.md draws on this bench too


def question_vectors(cache: Path, every: int) -> Vectors:
    questions = [
        json.loads(line)["question"]
        for path in QUESTION_SETS
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return OnnxMiniLMEmbedder(cache).embed(questions[::every])


def write_synthetic(source: Path, db: Path, settings: ScaleSettings) -> None:
    """Replicate the source's chunks under made-up CIKs until ``settings.chunks`` of them."""
    for stale in db.parent.glob(f"{db.name}*"):
        stale.unlink()
    rng = np.random.default_rng(settings.seed)
    with closing(SqliteIndex(source)) as real, closing(SqliteIndex(db)) as index:
        identity = real.embedder_identity()
        assert identity is not None
        index.ensure_embedder(identity)
        filings = real.db.execute("SELECT * FROM filings ORDER BY id").fetchall()
        chunks = real.db.execute(
            'SELECT filing_id, ordinal, item, title, start, "end", kind, text, vector '
            "FROM chunks ORDER BY id"
        ).fetchall()
        of_filing = {f["id"]: [c for c in chunks if c["filing_id"] == f["id"]] for f in filings}
        left, replica = settings.chunks, 0
        while left > 0:
            index.db.execute("BEGIN")  # one transaction per replica of the corpus
            for filing in filings:
                rows = of_filing[filing["id"]][:left]
                if rows:
                    _write_copy(index, filing, rows, replica, rng, settings.noise)
                    left -= len(rows)
            index.db.execute("COMMIT")
            replica += 1


def _write_copy(
    index: SqliteIndex,
    filing: Any,
    rows: list[Any],
    replica: int,
    rng: np.random.Generator,
    noise: float,
) -> None:
    values = dict(filing) | {
        "sha256": f"{filing['sha256']}-synthetic-{replica}",
        "cik": 9_000_000_000 + replica * 10_000_000 + (filing["cik"] or 0) % 10_000_000,
        "company": f"{filing['company']} (synthetic {replica})",
        "ticker": None,
        "accession": None,
        "text": "",
    }
    del values["id"]
    cursor = index.db.execute(
        f"INSERT INTO filings ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        list(values.values()),
    )
    filing_id = int(cursor.lastrowid or 0)
    vectors = np.frombuffer(b"".join(r["vector"] for r in rows), dtype=np.float32)
    vectors = vectors.reshape(len(rows), -1) + rng.normal(0, noise, (len(rows), 384)).astype(
        np.float32
    )
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index.db.executemany(
        'INSERT INTO chunks (filing_id, ordinal, item, title, start, "end", kind, text, vector) '
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [(filing_id, *tuple(r)[1:8], v.tobytes()) for r, v in zip(rows, vectors, strict=True)],
    )
    record_change(index.db, [], filing_id)


def exact_top(db: Path, queries: Vectors, k: int) -> list[list[int]]:
    """Each query's k nearest chunks by an exact scan of the chunks table, in batches."""
    best_ids = np.full((len(queries), k), -1, dtype=np.int64)
    best = np.full((len(queries), k), -np.inf, dtype=np.float32)
    with closing(SqliteIndex(db)) as index:
        for ids, vectors in graph.vector_batches(index.db, "SELECT id, vector FROM chunks"):
            scores = np.concatenate([best, queries @ vectors.T], axis=1)
            candidates = np.concatenate(
                [best_ids, np.broadcast_to(ids, (len(queries), len(ids)))], 1
            )
            order = np.argsort(-scores, axis=1)[:, :k]
            best = np.take_along_axis(scores, order, axis=1)
            best_ids = np.take_along_axis(candidates, order, axis=1)
    return [[int(i) for i in row] for row in best_ids]


def _in_own_process(
    store: str, db: Path, work: Path, postgres: str | None = None
) -> list[dict[str, Any]]:
    """Build the store's index in one process, then query it from a fresh one per search
    setting (the graph's expansions, PostgreSQL's candidate lists; sqlite-vec has none)."""
    settings = {
        "graph": [str(expansion) for expansion in EXPANSIONS],
        "postgres": [f"{ef}x{connections}" for ef, connections in PG_SEARCHES],
    }.get(store, ["0"])
    phases = ["build", *(f"query {setting}" for setting in settings)]
    results = []
    for phase in phases:
        answer = work / f"{store}-{phase.replace(' ', '-')}.json"
        code = f"from edgar_rag_dev.bench.scale import run_phase; run_phase({store!r}, {phase!r})"
        where = [postgres] if postgres is not None else []
        subprocess.run(
            [sys.executable, "-c", code, str(db), str(work / "queries.npy"), str(answer), *where],
            check=True,
        )
        results.append(json.loads(answer.read_text(encoding="utf-8")))
    return [results[0] | query for query in results[1:]]


def run_phase(store: str, phase: str) -> None:
    """In its own process (``sys.argv``: the index, the queries, where to write, and for
    PostgreSQL its URL)."""
    db, queries, answer = Path(sys.argv[1]), np.load(sys.argv[2]), Path(sys.argv[3])
    phase, _, setting = phase.partition(" ")
    searcher: _GraphSearch | _VecSearch | _PgSearch
    if store == "graph":
        searcher = _GraphSearch(db)
        if setting:
            assert searcher.index.graph is not None
            searcher.index.graph.expansion_search = int(setting)
    elif store == "postgres":
        ef_search, _, connections = setting.partition("x")
        searcher = _PgSearch(db, sys.argv[4], int(connections or SEARCH_CONNECTIONS))
        if ef_search:
            searcher.index.ef_search = int(ef_search)
    else:
        searcher = _VecSearch(db)
    started = time.perf_counter()
    disk = searcher.prepare(build=phase == "build")
    prepare_s = time.perf_counter() - started
    rss = _rss_mib() + searcher.server_rss_mib()
    result: dict[str, Any] = {f"{phase}_s": prepare_s, f"{phase}_rss_mib": rss}
    if phase == "build":
        result["disk_mib"] = disk / 2**20
    else:
        latencies, top = [], []
        for query in queries:
            started = time.perf_counter()
            found = searcher.search(query, CANDIDATES)
            latencies.append(time.perf_counter() - started)
            top.append(found[:10])
        result |= {
            "p50_ms": 1000 * float(np.percentile(latencies, 50)),
            "p95_ms": 1000 * float(np.percentile(latencies, 95)),
            "query_rss_mib": _rss_mib() + searcher.server_rss_mib(),
            "top": top,
        }
        if isinstance(searcher, _PgSearch):
            by_hnsw, partitions = searcher.partitions_by_hnsw(queries[0], CANDIDATES)
            result["hnsw_partitions"] = by_hnsw
            result["plan_uses_hnsw"] = by_hnsw == partitions
            result["ef_search"] = searcher.index.ef_search
            result["connections"] = searcher.index.search_connections
            result["shared_buffers"] = searcher.shared_buffers()
            result["query_pss_mib"] = _rss_mib() + searcher.server_pss_mib()
    answer.write_text(json.dumps(result), encoding="utf-8")


class _GraphSearch:
    def __init__(self, db: Path) -> None:
        self.index = SqliteIndex(db, graph_min_chunks=0)

    def prepare(self, build: bool) -> int:
        assert self.index.graph is not None
        if build:
            for old in self.index.graph.files():
                old.unlink()
        self.index.graph.synced()
        return sum(path.stat().st_size for path in self.index.graph.files())

    def search(self, vector: Vectors, k: int) -> list[int]:
        return [chunk_id for chunk_id, _ in self.index.dense_search(vector, None, k)]

    def server_rss_mib(self) -> float:
        return 0.0


class _VecSearch:
    """sqlite-vec's vec0 table (brute force) in a file of its own, filled from the chunks."""

    def __init__(self, db: Path) -> None:
        import apsw  # noqa: PLC0415  (loads extensions)
        import sqlite_vec  # type: ignore[import-untyped]  # noqa: PLC0415  (ships no types)

        self.source = db
        self.path = db.with_suffix(".vec.db")
        self.db = apsw.Connection(str(self.path))
        self.db.enable_load_extension(True)
        self.db.load_extension(sqlite_vec.loadable_path())

    def prepare(self, build: bool) -> int:
        if build:
            self.db.execute("DROP TABLE IF EXISTS chunks_vec")
            self.db.execute("CREATE VIRTUAL TABLE chunks_vec USING vec0(embedding float[384])")
            with closing(SqliteIndex(self.source)) as index:
                for ids, vectors in graph.vector_batches(index.db, "SELECT id, vector FROM chunks"):
                    with self.db:
                        self.db.executemany(
                            "INSERT INTO chunks_vec (rowid, embedding) VALUES (?, ?)",
                            [(int(i), v.tobytes()) for i, v in zip(ids, vectors, strict=True)],
                        )
        return self.path.stat().st_size

    def search(self, vector: Vectors, k: int) -> list[int]:
        rows = self.db.execute(
            "SELECT rowid FROM chunks_vec WHERE embedding MATCH ? AND k = ? ORDER BY distance",
            (vector.astype(np.float32).tobytes(), k),
        )
        return [int(row[0]) for row in rows]

    def server_rss_mib(self) -> float:
        return 0.0


class _PgSearch:
    """The PostgreSQL store (the product's schema: chunks hash-partitioned by CIK, one HNSW
    index a partition) in an empty database, filled from the synthetic SQLite file as a bulk
    load is: the HNSW index dropped, the rows copied with their SQLite ids (so recall compares
    ids), the index built once after."""

    def __init__(self, db: Path, url: str, connections: int) -> None:
        self.source = db
        self.url = url
        self.index = PostgresIndex(url, search_connections=connections)

    def prepare(self, build: bool) -> int:
        pg = self.index.db
        if build:
            if self.index.counts()["filings"]:
                raise ConfigError(
                    f"bench scale loads an empty database; the {self.index.where} holds filings"
                )
            with closing(SqliteIndex(self.source)) as source:
                identity = source.embedder_identity()
                assert identity is not None
                self.index.ensure_embedder(identity)
                pg.execute("DROP INDEX chunks_by_embedding")
                ciks = self._copy_filings(source)
                self._copy_chunks(source, ciks)
            pg.execute(f"SET maintenance_work_mem = '{PG_BUILD_MEMORY}'")
            pg.execute("SET max_parallel_maintenance_workers = 1")  # two cores: one helper
            pg.execute(hnsw_index(identity.dimensions))
            pg.execute("ANALYZE chunks")
        else:  # open: the indexes read into the buffer cache, as the graph's open loads its file
            self._prewarm()
            identity = self.index.embedder_identity()
            assert identity is not None
            ones = np.ones(identity.dimensions, dtype=np.float32)
            self.index.dense_search(ones / np.linalg.norm(ones), None, 1)
        row = pg.execute(
            "SELECT coalesce(sum(pg_relation_size(relid)), 0) AS size "
            "FROM pg_partition_tree('chunks_by_embedding')"
        ).fetchone()
        return int(row["size"]) if row is not None else 0

    def _prewarm(self) -> None:
        """Read the HNSW indexes into the server's buffer cache, from a connection of its own
        (the memory of the processes that search then counts only the pages they read)."""
        with closing(PostgresIndex(self.url, search_connections=1)) as other:
            other.db.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
            other.db.execute(
                "SELECT pg_prewarm(relid) FROM pg_partition_tree('chunks_by_embedding') "
                "WHERE isleaf"
            )

    def _copy_filings(self, source: SqliteIndex) -> dict[int, int]:
        """The filings rows (the columns both stores have, ids kept); each filing's chunk CIK."""
        pg = self.index.db
        ours = {r["column_name"] for r in pg.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'filings'"
        )}  # fmt: skip
        theirs = [r[1] for r in source.db.execute("PRAGMA table_info(filings)")]
        columns = [c for c in theirs if c in ours]
        rows = source.db.execute(f"SELECT {', '.join(columns)} FROM filings").fetchall()
        with pg.transaction(), pg.cursor() as cursor:
            copy_rows(
                cursor,
                f"filings ({', '.join(columns)})",  # column names read from both schemas
                (tuple(r) for r in rows),
            )
        return {int(r["id"]): chunk_cik(r["cik"]) for r in rows}

    def _copy_chunks(self, source: SqliteIndex, ciks: dict[int, int]) -> None:
        pg = self.index.db
        query = (
            'SELECT id, filing_id, ordinal, item, title, start, "end", kind, text, vector '
            "FROM chunks ORDER BY id"
        )
        cursor = source.db.execute(query)
        while rows := cursor.fetchmany(_BATCH):
            with pg.transaction(), pg.cursor() as copy:
                copy_rows(
                    copy,
                    'chunks (id, cik, filing_id, ordinal, item, title, start, "end", kind, text, '
                    "embedding)",
                    (
                        (r[0], ciks[r[1]], *tuple(r)[1:9], np.frombuffer(r[9], dtype=np.float32))
                        for r in rows
                    ),
                    types=("int8", *CHUNK_TYPES),
                )

    def search(self, vector: Vectors, k: int) -> list[int]:
        return [chunk_id for chunk_id, _ in self.index.dense_search(vector, None, k)]

    def partitions_by_hnsw(self, vector: Vectors, k: int) -> tuple[int, int]:
        """How many partitions the planner searches through their HNSW index, of how many (on a
        small partition it may prefer reading every row, which the row would then measure)."""
        plan = self.index.corpus_search_plan(vector, k)
        return sum("Index Scan" in line for line in plan), len(self.index.chunk_partitions())

    def shared_buffers(self) -> str:
        """The server's buffer cache (``shared_buffers``), as it shows it."""
        row = self.index.db.execute("SHOW shared_buffers").fetchone()
        assert row is not None
        return str(row["shared_buffers"])

    def server_rss_mib(self) -> float:
        """The peak resident memory of the server processes that run the store's searches, added
        up: the buffer cache's pages that several of them read are counted once by each."""
        return sum(_proc_mib(pid, "status", "VmHWM:") for pid in self.index.server_pids())

    def server_pss_mib(self) -> float:
        """The same processes' proportional set size now: a page several processes mapped is
        shared out among them (the server's own writers among them), so it counts once at most."""
        return sum(_proc_mib(pid, "smaps_rollup", "Pss:") for pid in self.index.server_pids())


def _proc_mib(pid: int, name: str, field: str) -> float:
    """A memory figure (kB) of a process from ``/proc``, in MiB."""
    try:
        text = Path(f"/proc/{pid}/{name}").read_text(encoding="utf-8")
    except OSError:  # a server on another machine: its memory is not ours to read
        return 0.0
    kib = next((line.split()[1] for line in text.splitlines() if line.startswith(field)), "0")
    return int(kib) / 1024


def _pg_row_name(run: dict[str, Any]) -> str:
    """``postgres, ef_search N``, with the connections when they are not the store's own."""
    name = f"postgres, ef_search {run['ef_search']}"
    if run["connections"] != SEARCH_CONNECTIONS:
        name += f", {run['connections']} connection" + ("s" if run["connections"] > 1 else "")
    return name


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def render(report: dict[str, Any]) -> str:
    settings, stores, parameters = report["settings"], report["stores"], report["graph_parameters"]
    rows = [
        [
            _store_label(store, row),
            f"{row['p50_ms']:.2f}",
            f"{row['p95_ms']:.2f}",
            f"{row['recall_at_10']:.3f}",
            f"{row['query_rss_mib']:.0f}",
            f"{row['query_pss_mib']:.0f}" if "query_pss_mib" in row else "",
            f"{row['query_s']:.1f}",
            f"{row['build_s']:.0f}",
            f"{row['build_rss_mib']:.0f}",
            f"{row['disk_mib']:.0f}",
        ]
        for store, row in stores.items()
    ]
    return "\n".join(
        [
            "# Corpus-wide search at scale",
            "",
            "Written by `make bench-scale` (`edgar-rag dev bench scale`) from `docs/scale.json`, "
            "on a 2-core machine other work shares, under `nice`.",
            "",
            f"A synthetic index of {report['chunks']:,} chunks: the real index's "
            f"{report['source_chunks']:,} chunks (text, full-text index, MiniLM vectors) "
            "replicated under made-up CIKs, each vector with Gaussian noise (standard deviation "
            f"{settings['noise']} a coordinate) and normalised again; {report['tables_s']:.0f} s "
            f"to write, {report['sqlite_mib']:,.0f} MiB of SQLite. {report['queries']} queries: "
            f"every {settings['query_every']}th question of the retrieval, golden and narrative "
            f"sets, embedded. Each asks for the {CANDIDATES} dense candidates a corpus-wide search "
            "asks for; recall@10 is of their top 10 against an exact scan of the chunks table "
            f"({1000 * report['exact_scan_s_per_query']:.0f} ms a query, amortised over all "
            "queries in one scan).",
            "",
            *table(
                [
                    "store",
                    "P50 ms",
                    "P95 ms",
                    "recall@10",
                    "query RSS MiB",
                    "query PSS MiB",
                    "open s",
                    "build s",
                    "build RSS MiB",
                    "disk MiB",
                ],
                rows,
                align="l" + "r" * 9,
            ),
            "",
            "- *graph*: the HNSW graph (usearch) beside the SQLite file, the store's corpus-wide "
            f"search from {GRAPH_MIN_CHUNKS:,} chunks: f16 vectors, connectivity "
            f"{parameters['connectivity']}, expansion {parameters['expansion_add']} on insert "
            "and as the row says on search (the store's default: "
            f"{parameters['expansion_search']}), {parameters['oversample']}x the candidates "
            "asked, scored again exactly from the chunks table. One graph, built once (*build "
            "s*: reading the vectors from the chunks table, building, saving); each row is a new "
            "query process (*open s*: loading the graph file with its CRC check). The disk "
            "column is the graph file alone.",
            "- *sqlite-vec*: a `vec0` table of float32 vectors in a file of its own (0.1.x "
            "compares the query with every row: exact, no approximate index).",
            *_postgres_note(report),
            "",
            *_verdict(stores, parameters["expansion_search"]),
        ]
    )


def _store_label(store: str, row: dict[str, Any]) -> str:
    if row.get("plan_uses_hnsw", True):
        return store
    if "hnsw_partitions" in row:
        return f"{store} (HNSW in {row['hnsw_partitions']} partitions, the others read whole)"
    return f"{store} (the planner scans every row)"


def _postgres_note(report: dict[str, Any]) -> list[str]:
    parameters = report.get("postgres_parameters")
    rows = [row for store, row in report["stores"].items() if store.startswith("postgres")]
    if not rows or not parameters:
        return []
    cache = rows[0].get("shared_buffers")
    connections = parameters.get("search_connections", 1)
    return [
        "- *postgres*: the PostgreSQL store (pgvector) on a server on this machine"
        + (f" (shared_buffers {cache}, which holds the indexes)" if cache else "")
        + f": the chunks table hash-partitioned by CIK into {parameters['partitions']} "
        f"partitions, one HNSW index each ({_pg_vectors(parameters)}m {parameters['m']}, "
        f"ef_construction {parameters['ef_construction']}), built once after the rows were "
        "copied in "
        f"(maintenance_work_mem {parameters['maintenance_work_mem']}, one parallel worker). "
        f"A corpus-wide search spreads the partitions over {connections} connections that "
        "search at once (one query each, for every partition's nearest, its distance from the "
        "float32 column) and merges the hits by distance; a row marked *1 connection* "
        "searches them one after another. Each row is a new query process with "
        "`hnsw.ef_search` as it says (the store's own: "
        f"{parameters['ef_search']}); *open s* reads the HNSW indexes into the buffer cache "
        "(`pg_prewarm`). Its RSS columns add to the client's the peak RSS of the server "
        "processes that ran the queries (each counts the cached index pages it read, so a "
        "page both read counts twice) or the build; *query PSS MiB* shares each such page out "
        "among the processes that mapped it, so it counts once at most. The disk column is the "
        "HNSW indexes alone.",
    ]


def _pg_vectors(parameters: dict[str, Any]) -> str:
    return "of half-precision vectors (`halfvec`), " if parameters.get("dtype") == "halfvec" else ""


def _verdict(stores: dict[str, Any], expansion: int) -> list[str]:
    graph_row, vec_row = stores.get(f"graph, expansion {expansion}"), stores.get("sqlite-vec")
    if graph_row is None or vec_row is None:
        return []
    return [
        f"The store keeps the graph: at its default expansion ({expansion}) a corpus-wide "
        f"search takes {graph_row['p50_ms']:.1f} ms at the median with recall@10 "
        f"{graph_row['recall_at_10']:.3f}, where sqlite-vec takes {vec_row['p50_ms']:.0f} ms.",
        "",
    ]
