"""``make bench-cluster``: ingest through Dask against one plain process, and the engines compared.

The same filings are indexed into two fresh PostgreSQL databases of one throwaway server: once
by one plain process whose embedder runs on two threads, once as tasks on a local Dask cluster
of two one-thread workers (cluster start included). Both use all the cores of this machine, so
the ratio is the engine's overhead. The engine figures (docs/cluster.json's ``engines``) come
from ``edgar_rag_dev.bench.engines``, run in a venv of each engine; this module renders both into
docs/cluster.md.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from edgar_rag.api import open_index
from edgar_rag.compose import build_embedder
from edgar_rag.config import EmbedderName
from edgar_rag.index.postgres import create_database
from edgar_rag.ingest.indexer import Outcome
from edgar_rag_dev.bench.postgres_server import running_postgres
from edgar_rag_dev.bench.report import write_scaling


def measure_cluster_ingest(
    filings: Path, embedders: Sequence[EmbedderName], cache: Path, out: Path, workers: int = 2
) -> None:
    """Time both ways for each embedder and write the rows into ``out``'s ``ingest``."""
    rows = []
    with tempfile.TemporaryDirectory() as folder, running_postgres(Path(folder)) as server:
        for name in embedders:
            build_embedder(name, cache).embed(["warm the model cache"])  # an export, untimed
            row: dict[str, Any] = {"embedder": name, "workers": workers}
            for way, cluster in (("plain", None), ("engine", "local")):
                url = create_database(server, f"{way}_{name.replace('-', '_')}")
                with open_index(database_url=url, embedder=name, model_dir=cache) as index:
                    sources = index.find_sources(filings)
                    started = time.perf_counter()
                    results = list(index.ingest_each(sources, cluster=cluster, workers=workers))
                    seconds = time.perf_counter() - started
                indexed = [r for r in results if r.outcome is Outcome.INDEXED]
                row |= {
                    "filings": len(indexed),
                    "chunks": sum(r.chunks for r in indexed),
                    f"{way}_s": round(seconds, 2),
                }
            rows.append(row)
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    data["ingest"] = rows
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    out.with_suffix(".md").write_text(render(data), encoding="utf-8")
    if (out.parent / "performance.json").exists():
        write_scaling(out.parent)  # docs/scaling.md draws on this bench too


def render(data: dict[str, Any]) -> str:
    engines = data.get("engines", {})
    lines = [
        "# Ingest on a distributed engine",
        "",
        "Written by `make bench-cluster` from `docs/cluster.json` (the engines by "
        "`python -m edgar_rag_dev.bench.engines ENGINE docs/cluster.json`, in a venv of each).",
        "",
        "`edgar-rag ingest --cluster local|tcp://scheduler:8786` runs each filing as a Dask task "
        "(parse, chunk, embed, then one PostgreSQL transaction on the worker). A worker killed "
        "mid-task loses only its open transaction; the scheduler reruns the task elsewhere, and "
        "a rerun of a committed filing finds it by its sha256: each filing whole or absent, once "
        "(tests/test_cluster.py kills two workers mid-run).",
        "",
        "## Dask distributed or Ray (a local cluster of two one-thread workers)",
        "",
        "| engine | version | installed MiB | import s | cluster up s | killed task retried |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for engine, figures in sorted(engines.items()):
        kills = figures["killed_task"]
        retried = sum(k["retried"] for k in kills)
        lines.append(
            f"| {engine} | {figures['version']} | {figures['installed_mib']:.1f} | "
            f"{figures['import_s']:.2f} | {figures['local_cluster_start_s']:.2f} | "
            f"{retried} of {len(kills)} |"
        )
    if engines:
        repeats = max(figures["repeats"] for figures in engines.values())
        lines += ["", f"Medians of {repeats} runs; installed: the engine and what it requires."]
    lines += [
        "",
        "## Through the engine or one plain process, same filings, same cores",
        "",
        "| embedder | filings | chunks | plain process, 2 threads s | engine, 2 workers x 1 "
        "thread s | engine / plain | filings/hour plain | filings/hour engine |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in data.get("ingest", []):
        plain, engine = row["plain_s"], row["engine_s"]
        lines.append(
            f"| {row['embedder']} | {row['filings']} | {row['chunks']} | {plain:.1f} | "
            f"{engine:.1f} | {engine / plain:.2f} | {row['filings'] * 3600 / plain:,.0f} | "
            f"{row['filings'] * 3600 / engine:,.0f} |"
        )
    lines += [
        "",
        "The engine's time includes starting the cluster and each worker loading its embedder. "
        "A filing is one task, so with few filings the last one runs on one core alone; at "
        "thousands of filings that tail is a rounding error.",
        "",
    ]
    return "\n".join(lines)
