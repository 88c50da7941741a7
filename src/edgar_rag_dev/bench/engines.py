"""Dask distributed and Ray side by side, measured in a venv that holds one of them.

For the choice of engine behind ``edgar-rag ingest --cluster``: what the engine installs (its
distributions and everything they require, summed from their RECORD files), seconds to import
it in a new process, seconds to start a local cluster of two one-thread workers and run a first
task, and what happens to a task whose worker process is SIGKILLed while running it.
Only the standard library and the engine are imported, so it runs in a bare venv::

    PYTHONPATH=src VENV/bin/python -m edgar_rag_dev.bench.engines dask docs/cluster.json
"""

from __future__ import annotations

import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

ENGINES = {"dask": ("distributed", "distributed"), "ray": ("ray", "ray")}
"""Engine name: (distribution, module)."""

REPEATS = 3
_NAME = re.compile(r"[A-Za-z0-9._-]+")


def installed_bytes(distribution: str) -> int:
    """Bytes on disk of ``distribution`` and every distribution it requires (extras aside)."""
    seen: set[str] = set()
    todo = [distribution]
    total = 0
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for file in dist.files or []:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                total += path.stat().st_size
        for requirement in dist.requires or []:
            if "extra ==" not in requirement:
                match = _NAME.match(requirement)
                if match is not None:
                    todo.append(match.group())
    return total


def import_seconds(module: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
    return time.perf_counter() - started


def worker_pid() -> int:
    return os.getpid()


def die_first_time(marker: str) -> int:
    """Kill the worker process running this, the first time only; return the pid that ran it."""
    if not os.path.exists(marker):
        Path(marker).write_text("killed", encoding="utf-8")
        os.kill(os.getpid(), signal.SIGKILL)
    return os.getpid()


def _dask_run(marker: str) -> tuple[float, dict[str, Any]]:
    import distributed  # noqa: PLC0415

    started = time.perf_counter()
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.submit(worker_pid, pure=False).result()
        start_s = time.perf_counter() - started
        return start_s, _killed(lambda: client.submit(die_first_time, marker, pure=False).result())


def _ray_run(marker: str) -> tuple[float, dict[str, Any]]:
    import ray  # noqa: PLC0415

    started = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        ray.get(ray.remote(num_cpus=1)(worker_pid).remote())
        start_s = time.perf_counter() - started
        task = ray.remote(num_cpus=1)(die_first_time)
        return start_s, _killed(lambda: ray.get(task.remote(marker)))
    finally:
        ray.shutdown()


def _killed(run: Callable[[], object]) -> dict[str, Any]:
    started = time.perf_counter()
    try:
        run()
    except Exception as error:  # the engine's own failure type: recorded, not raised
        return {"retried": False, "error": type(error).__name__}
    return {"retried": True, "seconds_to_result": round(time.perf_counter() - started, 2)}


def measure_engine(engine: str) -> dict[str, Any]:
    distribution, module = ENGINES[engine]
    run = _dask_run if engine == "dask" else _ray_run
    starts, kills = [], []
    for _ in range(REPEATS):
        with tempfile.TemporaryDirectory() as folder:
            start_s, killed = run(str(Path(folder) / "marker"))
        starts.append(start_s)
        kills.append(killed)
    return {
        "version": metadata.version(distribution),
        "installed_mib": round(installed_bytes(distribution) / 2**20, 1),
        "import_s": round(statistics.median(import_seconds(module) for _ in range(REPEATS)), 2),
        "local_cluster_start_s": round(statistics.median(starts), 2),
        "killed_task": kills,
        "repeats": REPEATS,
    }


def main(argv: list[str]) -> int:
    engine, out = argv[0], Path(argv[1])
    data = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    data.setdefault("engines", {})[engine] = measure_engine(engine)
    out.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(json.dumps(data["engines"][engine]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
