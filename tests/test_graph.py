"""The vector graph beside the SQLite file: corpus-wide search finds the exact top hits, and the
graph stays consistent with the tables (missing, stale, corrupt, or after a killed ingest)."""

from __future__ import annotations

import json
import logging
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from edgar_rag.domain import ParsedFiling
from edgar_rag.index.embedders import HashingEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.graph import RECONNECT_HITS, reached, vector_batches
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings

QUESTIONS = (
    "What were Apple's total net sales?",
    "How much did the company spend on research and development?",
    "What are the risks of relying on outsourcing partners for manufacturing?",
    "Cash dividends declared per share",
    "Who audits the financial statements?",
    "Goodwill impairment testing",
    "What was net income attributable to shareholders?",
    "Legal proceedings and litigation",
)


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Path:
    """The sample's real filings indexed once with the hashing embedder."""
    path = tmp_path_factory.mktemp("graph") / "sample.db"
    with closing(SqliteIndex(path)) as index:
        list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return path


@pytest.fixture
def db(tmp_path: Path, sample_db: Path) -> Path:
    """A copy of the sample index with no graph beside it yet."""
    path = tmp_path / "index.db"
    with closing(SqliteIndex(sample_db)) as source:
        source.db.execute("VACUUM INTO ?", (str(path),))
    return path


def _graph_files(db: Path) -> list[Path]:
    return sorted(db.parent.glob(f"{db.name}.*.usearch"))


def _search_corpus(index: SqliteIndex, question: str, k: int = 10) -> list[int]:
    vector = HashingEmbedder().embed([question])[0]
    return [chunk_id for chunk_id, _ in index.dense_search(vector, None, k)]


def _graph_agrees_with_the_chunks_table(index: SqliteIndex) -> bool:
    assert index.graph is not None
    keys = {int(key) for key in np.asarray(index.graph.synced().keys)}
    return keys == {int(row[0]) for row in index.db.execute("SELECT id FROM chunks")}


ROOT = Path(__file__).resolve().parent.parent
CORPUS_DB = ROOT / "build" / "corpus.db"
EMBEDDER_CACHE = ROOT / "build" / "cache" / "embedders"
NARRATIVE = ROOT / "data" / "retrieval" / "narrative.jsonl"


@pytest.mark.skipif(not EMBEDDER_CACHE.exists(), reason="no build/corpus.db and its embedder")
def test_a_corpus_wide_search_through_the_graph_finds_the_exact_top_hits(tmp_path: Path) -> None:
    """Four filings of the real index (MiniLM vectors), asked the narrative questions."""
    path = tmp_path / "real.db"
    with closing(sqlite3.connect(f"file:{CORPUS_DB}?mode=ro", uri=True)) as corpus:
        corpus.execute("VACUUM INTO ?", (str(path),))  # never migrates or writes build/
    with closing(SqliteIndex(path)) as index:
        kept = [summary.filing_id for summary in index.filings()[:4]]
        index.db.execute(f"DELETE FROM filings WHERE id NOT IN ({', '.join(map(str, kept))})")
    questions = [json.loads(line)["question"] for line in NARRATIVE.read_text().splitlines()]
    vectors = OnnxMiniLMEmbedder(EMBEDDER_CACHE).embed(questions)
    found_share = []
    with (
        closing(SqliteIndex(path, graph_min_chunks=0)) as approximate,
        closing(SqliteIndex(path, graph_min_chunks=10**9)) as exact,
    ):
        for vector in vectors:
            found = approximate.dense_search(vector, None, 10)
            truth = exact.dense_search(vector, None, 10)
            assert found[0][1] == pytest.approx(truth[0][1])  # the best cosine (chunks may tie)
            found_share.append(len({i for i, _ in found} & {i for i, _ in truth}) / 10)
    assert np.mean(found_share) >= 0.98, found_share
    assert len(_graph_files(path)) == 1


@pytest.mark.skipif(not EMBEDDER_CACHE.exists(), reason="no build/corpus.db and its embedder")
def test_every_chunk_of_the_real_index_is_reached_by_a_search_for_its_own_vector(
    tmp_path: Path,
) -> None:
    """usearch's concurrent insert can strand a stored vector where no search reaches it (about
    one in two thousand here, unum-cloud/USearch#735); the graph reconnects those."""
    path = tmp_path / "real.db"
    with closing(sqlite3.connect(f"file:{CORPUS_DB}?mode=ro", uri=True)) as corpus:
        corpus.execute("VACUUM INTO ?", (str(path),))
    with closing(SqliteIndex(path, graph_min_chunks=0)) as index:
        assert index.graph is not None
        graph = index.graph.synced()
        graph.expansion_search = 4096  # type: ignore[misc]  # it has a setter
        for ids, vectors in vector_batches(index.db, "SELECT id, vector FROM chunks"):
            found = graph.search(vectors, RECONNECT_HITS, threads=2)
            unreached = ids[~reached(ids, found.keys, found.distances)]
            assert not len(unreached), f"{len(unreached)} of {len(ids)} chunks: {unreached[:5]}"


def test_a_scoped_search_stays_exact_and_builds_no_graph(db: Path) -> None:
    with (
        closing(SqliteIndex(db, graph_min_chunks=0)) as index,
        closing(SqliteIndex(db, graph_min_chunks=10**9)) as exact,
    ):
        scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
        vector = HashingEmbedder().embed([QUESTIONS[0]])[0]
        assert index.dense_search(vector, scope.filing_id, 40) == exact.dense_search(
            vector, scope.filing_id, 40
        )
    assert _graph_files(db) == []


def test_a_small_corpus_is_searched_exactly_without_a_graph(db: Path) -> None:
    with closing(SqliteIndex(db)) as index:
        _search_corpus(index, QUESTIONS[0])
    assert _graph_files(db) == []


def test_a_missing_graph_is_built_from_the_tables_with_a_warning(
    db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        first = _search_corpus(index, QUESTIONS[1])
    assert "vector_graph_built" in caplog.text
    for path in _graph_files(db):
        path.unlink()
    caplog.clear()
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        assert _search_corpus(index, QUESTIONS[1]) == first
        assert _graph_agrees_with_the_chunks_table(index)
    assert "vector_graph_built" in caplog.text
    assert len(_graph_files(db)) == 1


def test_a_stale_graph_replays_the_filings_written_since_without_a_rebuild(
    db: Path, apple_2025: ParsedFiling, caplog: pytest.LogCaptureFixture
) -> None:
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        _search_corpus(index, QUESTIONS[0])
    (saved,) = _graph_files(db)
    newer = replace(apple_2025, meta=replace(apple_2025.meta, sha256="a newer version"))
    with closing(SqliteIndex(db, graph_min_chunks=10**9)) as writer:  # a process with no graph
        writer.write_filing(newer, HashingEmbedder().embed([c.text for c in newer.chunks]))
    caplog.clear()
    with caplog.at_level(logging.WARNING), closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        assert _graph_agrees_with_the_chunks_table(index)
        with closing(SqliteIndex(db, graph_min_chunks=10**9)) as exact:
            assert _search_corpus(index, QUESTIONS[0], 1) == _search_corpus(exact, QUESTIONS[0], 1)
    assert "vector_graph" not in caplog.text
    assert _graph_files(db) != [saved]


def test_a_graph_ahead_of_the_tables_is_rebuilt(db: Path, caplog: pytest.LogCaptureFixture) -> None:
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        _search_corpus(index, QUESTIONS[0])
    (saved,) = _graph_files(db)
    generation, rest = saved.name[len(db.name) + 1 :].split(".", 1)
    saved.rename(saved.with_name(f"{db.name}.{int(generation) + 7}.{rest}"))
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        assert _graph_agrees_with_the_chunks_table(index)
    assert "vector_graph_rebuilt" in caplog.text


@pytest.mark.parametrize("damage", ["garbage", "flipped bytes", "truncated", "empty"])
def test_a_corrupt_graph_file_is_rebuilt_with_a_one_line_warning(
    db: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        first = _search_corpus(index, QUESTIONS[2])
    (saved,) = _graph_files(db)
    data = saved.read_bytes()
    saved.write_bytes(
        {
            "garbage": b"not a graph" * 100,
            "flipped bytes": data[:4096] + bytes(4096) + data[8192:],
            "truncated": data[: len(data) // 2],
            "empty": b"",
        }[damage]
    )
    caplog.clear()
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        assert _search_corpus(index, QUESTIONS[2]) == first
        assert _graph_agrees_with_the_chunks_table(index)
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "vector_graph_rebuilt" in warning.getMessage()
    assert "\n" not in warning.getMessage()


_INGEST = """
import sys
from pathlib import Path
from edgar_rag.index.embedders import HashingEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.graph import RECONNECT_HITS, reached, vector_batches
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings

index = SqliteIndex(sys.argv[1], graph_min_chunks=0)
for result in index_filings(find_local_filings([Path(sys.argv[2])]), index, HashingEmbedder()):
    print(result.outcome.value, flush=True)
    index.dense_search(HashingEmbedder().embed(["net sales"])[0], None, 10)
"""


def test_a_killed_ingest_leaves_the_graph_consistent_with_the_tables(
    tmp_path: Path, sample_copy: Path
) -> None:
    db = tmp_path / "killed.db"
    ingest = subprocess.Popen(
        [sys.executable, "-c", _INGEST, str(db), str(sample_copy)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert ingest.stdout is not None
    assert ingest.stdout.readline().strip() == "indexed"
    ingest.send_signal(signal.SIGKILL)
    ingest.wait()
    with closing(SqliteIndex(db, graph_min_chunks=0)) as index:
        filings = index.counts()["filings"]
        assert 1 <= filings < 5
        assert _graph_agrees_with_the_chunks_table(index)
        list(index_filings(find_local_filings([sample_copy]), index, HashingEmbedder()))
        assert index.counts()["filings"] == 5
        assert _graph_agrees_with_the_chunks_table(index)
