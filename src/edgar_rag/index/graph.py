"""The corpus-wide vector graph of the SQLite index: an HNSW graph (usearch) over every chunk
vector, in a file beside the SQLite file, that finds a corpus-wide query's candidates without
comparing the query with every vector.

The tables are the truth and the graph is derived from them. Each filing write appends a row to
``vector_changes`` in its own transaction (the chunk ids it removed, the filing it added), so the
row's number is the tables' generation. The graph file's name records the generation it reflects
and a CRC of its bytes. Opened behind the tables, the graph replays the changes since; missing,
unreadable, corrupt, ahead of the tables or holding another number of vectors than the chunks
table, it is rebuilt from the tables with a one-line warning. A killed ingest (filing committed,
graph not saved) therefore costs a replay, never a wrong answer.

Candidates are scored again exactly with the float32 vectors of the chunks table, so a score is
the same cosine the exact search gives (the gates' thresholds hold); only which chunks are found
is approximate. It must not hold the corpus's vectors in memory beyond the graph's own copy.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from edgar_rag.domain import ScoredIds, Vectors

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from usearch.index import Index

log = logging.getLogger(__name__)

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 4096
"""The smallest expansion measured with recall@10 of at least 0.95 against exact at a million
chunks (docs/scale.md, 1024 to 8192), on the synthetic corpus, where each chunk has dozens of
near copies that the graph must tell apart."""
RECONNECT_EXPANSION = 32
"""The search expansion of the check that each added vector is found by a search for itself."""
RECONNECT_ROUNDS = 3
RECONNECT_HITS = 8
"""A search for a vector reaches it when it returns it among this many hits, or returns only
copies of it (some boilerplate chunks have a dozen)."""
OVERSAMPLE = 2
"""The graph is asked for this many times the k wanted; the exact re-scoring keeps the best k."""
_BATCH = 50_000
_SUFFIX = ".usearch"


class VectorGraph:
    """The graph of one SQLite index file, brought up to date with its tables on each search."""

    def __init__(self, db: sqlite3.Connection, db_path: Path, threads: int = 2) -> None:
        self.db = db
        self.db_path = db_path
        self.threads = threads
        self.expansion_search = EXPANSION_SEARCH
        self._index: Index | None = None
        self._generation = -1
        self._dirty = False

    def search(self, vector: Vectors, k: int) -> ScoredIds:
        import numpy as np  # noqa: PLC0415 (the store imports this module on every command)

        """The k chunks nearest ``vector`` that the graph finds, with their exact cosine."""
        index = self.synced()
        if not len(index):
            return []
        index.expansion_search = self.expansion_search  # type: ignore[misc]  # it has a setter
        found = index.search(vector, min(k * OVERSAMPLE, len(index)), threads=1)
        ids = [int(key) for key in found.keys]
        rows = self.db.execute(
            f"SELECT id, vector FROM chunks WHERE id IN ({', '.join('?' for _ in ids)})", ids
        ).fetchall()
        keys = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
        scores = matrix.reshape(len(rows), -1) @ vector.astype(np.float32)
        best = np.argsort(-scores)[:k]
        return [(int(keys[i]), float(scores[i])) for i in best]

    def synced(self) -> Index:
        """The graph as of the tables' current generation, saved when it had to change."""
        if self._index is not None and self._generation == tables_generation(self.db):
            return self._index
        self.db.execute("BEGIN")  # one snapshot of the tables for the whole catch-up
        try:
            index = self._catch_up(tables_generation(self.db))
        finally:
            self.db.execute("COMMIT")
        if self._dirty:
            self.save()
        return index

    def _catch_up(self, generation: int) -> Index:
        if self._index is None:
            self._index, self._generation = self._load()
        reason = None
        if self._generation > generation:
            reason = f"the graph is of generation {self._generation}, the tables {generation}"
        elif self._generation < generation:
            self._replay(self._index, self._generation)
            self._dirty = True
        count = chunk_count(self.db)
        if reason is None and len(self._index) != count:
            reason = f"the graph holds {len(self._index)} vectors, the chunks table {count}"
        if reason is not None:
            log.warning("vector_graph_rebuilt: %s (%s)", reason, self.db_path)
            self._index = self._build()
        self._generation = generation
        return self._index

    def save(self) -> None:
        """Write the graph beside the SQLite file under a name recording its generation and
        CRC, atomically, and remove the files of older generations."""
        if self._index is None:
            return
        temporary = self.db_path.with_name(f"{self.db_path.name}.graph-{os.getpid()}.tmp")
        try:
            self._index.save(str(temporary))
            name = f"{self.db_path.name}.{self._generation}.{_crc(temporary):08x}{_SUFFIX}"
            os.replace(temporary, self.db_path.with_name(name))
        except (OSError, RuntimeError) as exc:  # a read-only folder: the graph stays in memory
            log.warning("vector_graph_not_saved: %s (%s)", exc, self.db_path)
            temporary.unlink(missing_ok=True)
            return
        self._dirty = False
        for old in self.files():
            if old.name != name:
                old.unlink(missing_ok=True)

    def files(self) -> list[Path]:
        return sorted(self.db_path.parent.glob(f"{self.db_path.name}.*{_SUFFIX}"))

    def _load(self) -> tuple[Index, int]:
        """The newest readable graph file and its generation, else one built from the tables."""
        files = sorted(self.files(), key=self._generation_of, reverse=True)
        for path in files:
            try:
                crc_text = path.name[len(self.db_path.name) + 1 :].split(".")[1]
                if int(crc_text, 16) != _crc(path):
                    raise ValueError("its bytes do not match the CRC in its name")
                index = _empty(dimensions(self.db))
                index.load(str(path))
                return index, self._generation_of(path)
            except (ValueError, RuntimeError, OSError, IndexError) as exc:
                log.warning("vector_graph_rebuilt: %s is unreadable (%s)", path.name, exc)
        if not files and chunk_count(self.db):
            log.warning("vector_graph_built: no graph beside %s", self.db_path)
        return self._build(), tables_generation(self.db)

    def _generation_of(self, path: Path) -> int:
        """The generation a graph file's name records (-1 for a name that records none)."""
        text = path.name[len(self.db_path.name) + 1 :].split(".")[0]
        return int(text) if text.isdigit() else -1

    def _build(self) -> Index:
        index = _empty(dimensions(self.db))
        for ids, vectors in vector_batches(self.db, "SELECT id, vector FROM chunks ORDER BY id"):
            _add(index, ids, vectors, self.threads)
        self._dirty = True
        return index

    def _replay(self, index: Index, since: int) -> None:
        """Apply the filing writes after generation ``since``: drop what they removed, then add
        the chunks of the filings they added that are still indexed."""
        removed: set[int] = set()
        added: list[int] = []
        for removed_ids, filing_id in self.db.execute(
            "SELECT removed, filing_id FROM vector_changes WHERE generation > ? "
            "ORDER BY generation",
            (since,),
        ):
            removed.update(int(i) for i in removed_ids.split(",") if i)
            added.append(int(filing_id))
        _remove_present(index, removed)
        marks = ", ".join("?" for _ in added)
        query = f"SELECT id, vector FROM chunks WHERE filing_id IN ({marks}) ORDER BY id"
        for ids, vectors in vector_batches(self.db, query, added):
            _remove_present(index, set(ids.tolist()))
            _add(index, ids, vectors, self.threads)


def record_change(db: sqlite3.Connection, removed: Sequence[int], filing_id: int) -> None:
    """Inside a filing's transaction: the chunk ids it removed and the filing it added."""
    db.execute(
        "INSERT INTO vector_changes (removed, filing_id) VALUES (?, ?)",
        (",".join(str(i) for i in removed), filing_id),
    )


def tables_generation(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT coalesce(max(generation), 0) FROM vector_changes").fetchone()[0])


def chunk_count(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])


def dimensions(db: sqlite3.Connection) -> int:
    row = db.execute("SELECT length(vector) FROM chunks LIMIT 1").fetchone()
    return int(row[0]) // 4 if row is not None else 384


def _empty(ndim: int) -> Index:
    # usearch 2.26.6 loaded before onnxruntime 1.32 makes onnxruntime's import segfault (the
    # reverse order works): onnxruntime, when installed, goes first. Both are heavy, so both
    # load on the first graph, not at import.
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401, PLC0415
    from usearch.index import Index  # noqa: PLC0415

    # Inner product on unit vectors is the cosine. f16 storage: measured in docs/scale.md.
    return Index(
        ndim=ndim,
        metric="ip",
        dtype="f16",
        connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD,
    )


def _add(index: Index, ids: npt.NDArray[np.int64], vectors: Vectors, threads: int) -> None:
    """Add vectors, then reconnect those a search for themselves does not reach: usearch's
    concurrent insert can leave a node stored but unlinked (unum-cloud/USearch#735), which no
    corpus-wide search would ever return. Such a node is inserted again alone, where it links."""
    import numpy as np  # noqa: PLC0415

    index.add(ids, vectors, threads=threads)
    index.expansion_search = RECONNECT_EXPANSION  # type: ignore[misc]  # it has a setter
    for _ in range(RECONNECT_ROUNDS):
        found = index.search(vectors, RECONNECT_HITS, threads=threads)
        lost = ~reached(ids, found.keys, found.distances)
        if not lost.any():
            return
        log.debug("vector_graph_reconnected: %d of %d vectors", int(lost.sum()), len(ids))
        ids, vectors = ids[lost], vectors[lost]
        index.remove(ids.astype(np.uint64))
        index.add(ids, vectors, threads=1)


def reached(ids: npt.NDArray[np.int64], keys: object, distances: object) -> npt.NDArray[np.bool_]:
    """Of searches for each of ``ids``' own vectors, which returned it: among the hits, or hits
    that all tie (copies of it, any of which serves a query as well)."""
    import numpy as np  # noqa: PLC0415

    hits = np.asarray(keys).reshape(len(ids), -1).astype(np.int64)
    spread = np.ptp(np.asarray(distances).reshape(len(ids), -1), axis=1)
    return np.asarray((hits == ids[:, None]).any(axis=1) | (spread == 0))


def _remove_present(index: Index, keys: set[int]) -> None:
    import numpy as np  # noqa: PLC0415

    if keys:
        wanted = np.fromiter(keys, dtype=np.uint64, count=len(keys))
        present = wanted[np.asarray(index.contains(wanted), dtype=bool)]
        if len(present):
            index.remove(present)


def vector_batches(
    db: sqlite3.Connection, query: str, parameters: Sequence[object] = ()
) -> Iterator[tuple[npt.NDArray[np.int64], Vectors]]:
    import numpy as np  # noqa: PLC0415

    cursor = db.execute(query, parameters)
    while rows := cursor.fetchmany(_BATCH):
        ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
        matrix = np.frombuffer(b"".join(row[1] for row in rows), dtype=np.float32)
        yield ids, matrix.reshape(len(rows), -1)


def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as file:
        while block := file.read(1 << 24):
            crc = zlib.crc32(block, crc)
    return crc
