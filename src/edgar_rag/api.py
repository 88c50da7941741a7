"""The library: open an index, ingest filings, list them, search them, ask them.

``import edgar_rag`` gives ``open_index`` and the ``Index`` it returns; the ``edgar-rag``
command and the MCP server are thin layers over it. It builds everything through ``compose``
and holds no logic of its own beyond choosing what to build: the searcher and the answerer are
built on first use, so listing filings never loads an embedder and searching never a model.
Nothing heavy is imported at module level (``edgar-rag --version`` imports this module).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from edgar_rag.errors import ConfigError, NotFoundError

if TYPE_CHECKING:
    from edgar_rag.answer.answerer import Answerer
    from edgar_rag.compose import Progress
    from edgar_rag.config import Settings
    from edgar_rag.domain import (
        FilingMeta,
        FilingStore,
        FilingSummary,
        Hit,
        RawFiling,
        Response,
        Scope,
    )
    from edgar_rag.ingest.edgar import EdgarClient, EdgarFiling
    from edgar_rag.ingest.indexer import FilingSource, IngestResult, Stages
    from edgar_rag.model.process import Announce
    from edgar_rag.retrieve.search import Searcher


def open_index(
    db: str | Path | None = None,
    *,
    progress: Progress | None = None,
    announce: Announce | None = None,
    **settings: Any,
) -> Index:
    """The index in SQLite file ``db`` (default: ``EDGAR_RAG_DB`` or ``./edgar-rag.db``), or
    the PostgreSQL database ``EDGAR_RAG_DATABASE_URL`` names. Other keyword arguments override
    the settings of the same name (``embedder="hashing"``, ``generator="echo"``); the rest come
    from the environment and ``.env``, as for the command. ``progress`` and ``announce`` are
    told how the local model's assembly and start go. Close it, or use it in ``with``.

    The settings are read on first use, so a bad one is raised by the first method that needs
    it; listing the filings reads only where the index is (``edgar_rag.location``)."""
    if db is not None:
        settings["db"] = Path(db)
    return Index(overrides=settings, progress=progress, announce=announce)


class Index:
    """An index and what answers from it. Methods raise an ``EdgarRagError`` whose text is the
    one line the command prints (an unknown ticker, a year not indexed, a model that cannot be
    reached); a decline is no error but a ``Response`` with its ``reason``. The store opens on
    first use, so finding the filings to ingest writes nothing."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        overrides: Mapping[str, Any] | None = None,
        progress: Progress | None = None,
        announce: Announce | None = None,
    ) -> None:
        """On ``settings``, or on those read with ``overrides`` when first needed."""
        self._settings = settings
        self._overrides = dict(overrides or {})
        self._progress, self._announce = progress, announce
        self._store: FilingStore | None = None
        self._searcher: Searcher | None = None
        self._answerers: dict[bool, Answerer] = {}

    def __enter__(self) -> Index:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
        self._store, self._searcher = None, None
        self._answerers.clear()

    @property
    def settings(self) -> Settings:
        """The settings given, or read from the environment and ``.env`` under the overrides."""
        if self._settings is None:
            from edgar_rag.config import load_settings  # noqa: PLC0415

            self._settings = load_settings(**self._overrides)
        return self._settings

    @property
    def store(self) -> FilingStore:
        """The SQLite file, or the PostgreSQL database, the settings name; the file is made
        when missing (ingest writes to it), which the methods that only read never do."""
        return self._open(create=True)

    def _open(self, *, create: bool) -> FilingStore:
        """The store; without ``create``, EmptyIndexError when its SQLite file is missing."""
        from edgar_rag.compose import open_index, open_store  # noqa: PLC0415
        from edgar_rag.location import locate_index  # noqa: PLC0415

        if self._store is None:
            if self._settings is None:  # nothing else read yet: spare pydantic-settings
                self._store = open_store(locate_index(self._overrides), create=create)
            else:
                self._store = open_index(self._settings, create=create)
        return self._store

    def filings(self) -> list[FilingSummary]:
        """The indexed filings, by company and year (none in an empty index; EmptyIndexError
        when its file does not exist, which this never creates)."""
        return self._open(create=False).filings()

    def scope(
        self,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        *,
        year: int | None = None,
        form: str | None = None,
        fiscal_quarter: int | None = None,
    ) -> Scope:
        """One company's filing (its latest year unless ``fiscal_year`` is given; its annual
        report unless ``form`` names another, ``10-Q``, ``8-K`` or ``earnings``, or a
        ``fiscal_quarter`` a 10-Q), or the whole corpus when no company is named; NotFoundError
        names what is not indexed, EmptyIndexError says that nothing is (and the SQLite file is
        never created here). ``year`` is ``fiscal_year``'s old name here, still accepted, as in
        the methods below; ValueError names a form that is none of those."""
        from edgar_rag.index.schema import resolve_indexed_scope  # noqa: PLC0415

        asked = _fiscal_year(fiscal_year, year)
        return resolve_indexed_scope(
            self._open(create=False),
            ticker,
            cik,
            asked,
            form=_form(form),
            fiscal_quarter=fiscal_quarter,
        )

    def search(
        self,
        question: str,
        *,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        year: int | None = None,
        form: str | None = None,
        fiscal_quarter: int | None = None,
        k: int = 5,
    ) -> list[Hit]:
        """The ``k`` passages that best answer ``question``, in one filing or the whole corpus."""
        from edgar_rag.question.reading import read_question  # noqa: PLC0415

        scope = self.scope(
            ticker, cik, fiscal_year, year=year, form=form, fiscal_quarter=fiscal_quarter
        )
        return self.searcher.search(read_question(_required(question)), scope, k)

    def ask(
        self,
        question: str,
        *,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        year: int | None = None,
        form: str | None = None,
        fiscal_quarter: int | None = None,
        gate: str | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> Response:
        """The answer with its quoted citations, or a typed decline (DESIGN.md's response
        object). A figure question is answered in code; others go to the configured model,
        whose draft ``on_token`` is told as it comes when the model streams."""
        scope = self.scope(
            ticker, cik, fiscal_year, year=year, form=form, fiscal_quarter=fiscal_quarter
        )
        return self._answerer(model=True).answer(_required(question), scope, gate, on_token)

    def compute(
        self,
        question: str,
        *,
        ticker: str | None = None,
        cik: int | None = None,
        fiscal_year: int | None = None,
        year: int | None = None,
        form: str | None = None,
        fiscal_quarter: int | None = None,
        gate: str | None = None,
    ) -> Response | None:
        """What ``ask`` answers in code, never reaching a model: a figure looked up or computed
        from cited figures, or a decline decided before any model (another company, a missing
        figure, a year not reported). None when the question needs the model."""
        scope = self.scope(
            ticker, cik, fiscal_year, year=year, form=form, fiscal_quarter=fiscal_quarter
        )
        return self._answerer(model=False).answer_in_code(_required(question), scope, gate)

    @property
    def searcher(self) -> Searcher:
        from edgar_rag.compose import build_searcher  # noqa: PLC0415

        if self._searcher is None:
            self._searcher = build_searcher(self.settings, self.store)
        return self._searcher

    def _answerer(self, *, model: bool) -> Answerer:
        """The answerer of the configured generator, or (``model`` False) one that never
        builds a model, for answers in code; both share this index's searcher."""
        from edgar_rag.compose import build_answerer  # noqa: PLC0415

        if model not in self._answerers:
            no_model = {"generator": "echo", "tape_mode": "off"}
            settings = self.settings if model else self.settings.model_copy(update=no_model)
            self._answerers[model] = build_answerer(
                settings, self.store, self._progress, self._announce, self.searcher
            )
        return self._answerers[model]

    def find_sources(
        self, *paths: str | Path, tickers: Iterable[str] = (), years: Iterable[int] = ()
    ) -> list[FilingSource]:
        """The filings an ingest would read: local files, folders or a corpus with its
        manifest.csv, or, with no path, SEC EDGAR's 10-Ks of ``tickers`` (``years``)."""
        wanted, fiscal_years = _tickers(tickers), tuple(years)
        if not paths:
            if not wanted:
                raise ValueError("give a path, or tickers (with years) to fetch from EDGAR")
            return self._edgar_sources(wanted, fiscal_years)
        from edgar_rag.compose import build_company_list  # noqa: PLC0415
        from edgar_rag.ingest.local import find_local_filings  # noqa: PLC0415

        folders = [Path(path) for path in paths]
        found = find_local_filings(folders, build_company_list())
        sources: list[FilingSource] = [f for f in found if f.matches(wanted, fiscal_years)]
        if not sources:
            asked = " ".join([*wanted, *map(str, fiscal_years)])
            what = f"no filing for {asked}" if asked else "no filing"
            raise NotFoundError(f"{what} found under {', '.join(map(str, folders))}")
        return sources

    def ingest_each(
        self,
        sources: Iterable[FilingSource],
        tickers: Iterable[str] = (),
        years: Iterable[int] = (),
        *,
        cluster: str | None = None,
        workers: int = 2,
        stages: Stages | None = None,
    ) -> Iterator[IngestResult]:
        """Index each source, yielding its result as soon as it is stored (each filing in one
        transaction; an unchanged one is skipped, one that is not a 10-K, 10-Q, 8-K or earnings
        release refused with a reason; one missing Items its form has is indexed with a
        ``warning``). ``stages`` is told each
        filing's stages as they begin (not on a cluster, whose workers run them).

        ``cluster``: run each filing as a task on the Dask cluster at this address (``local``
        starts ``workers`` one-thread workers here for the run); the index must be PostgreSQL,
        which every worker writes to, and Dask installed (the ``cluster`` extra)."""
        from edgar_rag.compose import build_embedder  # noqa: PLC0415

        embedder = build_embedder(self.settings.embedder, self.settings.model_dir)
        wanted = _wanted(_tickers(tickers), tuple(years))
        if cluster is None:
            from edgar_rag.ingest.indexer import index_filings  # noqa: PLC0415

            yield from index_filings(sources, self.store, embedder, wanted=wanted, stages=stages)
            return
        self.store.ensure_embedder(embedder.identity)
        yield from _index_on_cluster(self.settings, sources, cluster, wanted, workers)

    def ingest(
        self,
        *paths: str | Path,
        tickers: Iterable[str] = (),
        years: Iterable[int] = (),
        cluster: str | None = None,
        workers: int = 2,
    ) -> list[IngestResult]:
        """Find the filings (``find_sources``), index them all (on ``cluster``, as for
        ``ingest_each``), and raise NotFoundError after when a ticker or year asked for is in
        none of them."""
        sources = self.find_sources(*paths, tickers=tickers, years=years)
        results = list(self.ingest_each(sources, tickers, years, cluster=cluster, workers=workers))
        require_every_request_met(results, tickers, years)
        return results

    def _edgar_sources(self, tickers: Sequence[str], years: Sequence[int]) -> list[FilingSource]:
        from edgar_rag.compose import build_edgar_client  # noqa: PLC0415

        client = build_edgar_client(self.settings)
        companies = client.resolve_tickers(tickers)
        return [
            _EdgarSource(client, filing)
            for ticker in tickers
            for filing in client.annual_reports(companies[ticker], years)
        ]


def _index_on_cluster(
    settings: Settings,
    sources: Iterable[FilingSource],
    address: str,
    wanted: Callable[[FilingMeta], str | None],
    workers: int,
) -> Iterator[IngestResult]:
    from functools import partial  # noqa: PLC0415

    from edgar_rag import compose  # noqa: PLC0415

    if settings.database_url is None:
        raise ConfigError(
            "--cluster writes from every worker to PostgreSQL: set EDGAR_RAG_DATABASE_URL"
        )
    try:
        from edgar_rag.ingest.cluster import WorkerTools, index_on_cluster  # noqa: PLC0415
    except ImportError as exc:
        raise ConfigError(
            f"--cluster needs Dask distributed ({exc}): pip install 'edgar-rag[cluster]'"
        ) from exc
    tools = WorkerTools(
        open_store=partial(compose.open_index, settings),
        # One thread per worker: a worker is a process per core (docs/cluster.md).
        build_embedder=partial(
            compose.build_embedder, settings.embedder, settings.model_dir, threads=1
        ),
    )
    yield from index_on_cluster(sources, address, tools, wanted, workers=workers)


def require_every_request_met(
    results: Sequence[IngestResult], tickers: Iterable[str], years: Iterable[int]
) -> None:
    """NotFoundError naming each ticker and year asked for that no result holds."""
    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    wanted, fiscal_years = _tickers(tickers), tuple(years)
    have = [r.meta for r in results if r.meta is not None and r.outcome is not Outcome.SKIPPED]
    missing = [t for t in wanted if not any(m.ticker == t for m in have)]
    missing_years = [y for y in fiscal_years if not any(m.fiscal_year == y for m in have)]
    if missing or missing_years:
        parts = [f"ticker {t}" for t in missing] + [f"fiscal year {y}" for y in missing_years]
        raise NotFoundError(f"no filing indexed for {', '.join(parts)}")


@dataclass(frozen=True, slots=True)
class _EdgarSource:
    client: EdgarClient
    filing: EdgarFiling

    @property
    def name(self) -> str:
        return self.filing.url

    def load(self) -> RawFiling:
        return self.client.download(self.filing)


def _tickers(tickers: Iterable[str]) -> tuple[str, ...]:
    """Upper case, one each: ``["aapl,msft", "nvda"]`` is AAPL, MSFT, NVDA."""
    return tuple(t.upper() for arg in tickers for t in arg.replace(",", " ").split())


def _wanted(tickers: Sequence[str], years: Sequence[int]) -> Callable[[FilingMeta], str | None]:
    def reason(meta: FilingMeta) -> str | None:
        if tickers and meta.ticker not in tickers:
            return f"ticker {meta.ticker or 'unknown'} not asked for"
        if years and meta.fiscal_year not in years:
            return f"fiscal year {meta.fiscal_year} not asked for"
        return None

    return reason


def _fiscal_year(fiscal_year: int | None, year: int | None) -> int | None:
    """``fiscal_year``, the name HTTP and MCP use, or ``year``, the library's before issue 41."""
    if fiscal_year is not None and year is not None and fiscal_year != year:
        raise ValueError(f"fiscal_year={fiscal_year} and year={year} disagree; give fiscal_year")
    return year if fiscal_year is None else fiscal_year


def _form(written: str | None) -> str | None:
    """The form a caller names, as the index keeps it; ValueError for one it does not hold."""
    if written is None:
        return None
    from edgar_rag.rules import canonical_form  # noqa: PLC0415

    form = canonical_form(written)
    if form is None:
        raise ValueError(f"form {written!r}: one of 10-K, 10-Q, 8-K or earnings")
    return form


def _required(question: str) -> str:
    if not question.strip():
        raise ValueError("the question is empty")
    return question
