"""The commands over the index: ``ingest`` filings, ``search`` passages, list the ``filings``."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from edgar_rag.cli.app import db_option, json_option, json_text

if TYPE_CHECKING:
    from edgar_rag.ingest.indexer import IngestResult


@click.command()
@click.option(
    "--from",
    "paths",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A filing, a folder, or the corpus layout with its manifest.csv (repeatable).",
)
@click.option("--tickers", "tickers", multiple=True, help="Only these tickers (several allowed).")
@click.option("--years", "years", multiple=True, type=int, help="Only these fiscal years.")
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Run each filing as a task on this Dask scheduler (tcp://host:8786), or 'local' for "
    "a cluster on this machine; writes to EDGAR_RAG_DATABASE_URL.",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 256),
    default=2,
    show_default=True,
    help="One-thread workers of --cluster local.",
)
@db_option
@json_option
def ingest(
    paths: tuple[Path, ...],
    tickers: tuple[str, ...],
    years: tuple[int, ...],
    cluster: str | None,
    workers: int,
    db: Path | None,
    as_json: bool,
) -> None:
    """Index 10-K filings from local files, or from SEC EDGAR when no --from is given.

    One line per filing on stdout as it is done; with --json, those lines go to stderr and
    stdout gets the list of outcomes at the end. On a terminal, a line on stderr as each stage
    of a filing begins; a filing missing Items a 10-K has is indexed with a warning line on
    stderr. Exits 1 when a file was refused."""
    from edgar_rag.api import open_index, require_every_request_met  # noqa: PLC0415
    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    if not paths and not tickers:
        raise click.UsageError("give --from PATH, or --tickers (with --years) to fetch from EDGAR")
    lines = sys.stderr if as_json else sys.stdout
    with open_index(db) as index:
        sources = index.find_sources(*paths, tickers=tickers, years=years)
        watching = _StageLines() if sys.stderr.isatty() else None
        each = index.ingest_each(
            sources, tickers, years, cluster=cluster, workers=workers, stages=watching
        )
        results = _run_with_progress(each, len(sources), lines, watching)
    if as_json:
        from edgar_rag.service.models import IngestResultJson  # noqa: PLC0415

        click.echo(json_text([IngestResultJson.of(result) for result in results]))
    require_every_request_met(results, tickers, years)
    if any(r.outcome is Outcome.REFUSED for r in results):
        sys.exit(1)


class _StageLines:
    """Each stage of a filing as a line on stderr, above the bar (a filing takes 25 to 40 s
    to parse and embed on 2 cores: issue 41)."""

    def __init__(self) -> None:
        self.bar: Any = None

    def __call__(self, name: str, stage: str) -> None:
        line = f"  {stage:<22} {name}"
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            click.echo(line, err=True)


def _run_with_progress(
    results: Any, total: int, lines: TextIO, watching: _StageLines | None = None
) -> list[IngestResult]:
    from tqdm import tqdm  # noqa: PLC0415 (only the ingest command draws a bar)

    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    done: list[IngestResult] = []
    chunks = 0
    with tqdm(total=total, unit="filing", file=sys.stderr, dynamic_ncols=True, disable=None) as bar:
        if watching is not None:
            watching.bar = bar
        for result in results:
            done.append(result)
            bar.write(_describe(result), file=lines)
            if result.warning is not None:
                bar.write(f"warning    {result.source}: {result.warning}", file=sys.stderr)
            chunks += result.chunks
            bar.set_postfix(chunks=chunks, refused=sum(r.outcome is Outcome.REFUSED for r in done))
            bar.update(1)
    return done


def _describe(result: IngestResult) -> str:
    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    meta = result.meta
    if result.outcome is Outcome.INDEXED and meta is not None:
        who = meta.ticker or meta.company
        return (
            f"indexed    {who} {meta.period}: {result.chunks} chunks, {result.facts} facts"
            f"  ({result.source})"
        )
    return f"{result.outcome.value:<10} {result.source}: {result.reason}"


def scope_options(command: Callable[..., None]) -> Callable[..., None]:
    command = click.option(
        "--quarter",
        "fiscal_quarter",
        type=click.IntRange(1, 4),
        help="Fiscal quarter of a 10-Q or an earnings release (implies --form 10-Q).",
    )(command)
    command = click.option(
        "--form",
        type=click.Choice(["10-K", "10-Q", "8-K", "earnings"], case_sensitive=False),
        help="The filing's form (default: the annual report, 10-K).",
    )(command)
    command = click.option(
        "--fiscal-year",
        "--year",
        "fiscal_year",
        type=int,
        help="Fiscal year (default: the latest indexed); --year is its old name.",
    )(command)
    command = click.option("--cik", type=int, help="Scope to this company by CIK.")(command)
    return click.option("--ticker", help="Scope to this company's filing.")(command)


@click.command()
@click.argument("question")
@scope_options
@click.option("-k", "k", type=click.IntRange(1, 50), default=5, show_default=True)
@db_option
@json_option
def search(
    question: str,
    ticker: str | None,
    cik: int | None,
    fiscal_year: int | None,
    form: str | None,
    fiscal_quarter: int | None,
    k: int,
    db: Path | None,
    as_json: bool,
) -> None:
    """Rank the passages that best answer QUESTION (one filing, or the whole corpus)."""
    if not question.strip():
        raise click.BadParameter("the question is empty", param_hint="QUESTION")
    from edgar_rag.domain import MAX_QUESTION_CHARS  # noqa: PLC0415

    if len(question) > MAX_QUESTION_CHARS:
        raise click.BadParameter(
            f"the question has {len(question):,} characters; at most {MAX_QUESTION_CHARS:,}",
            param_hint="QUESTION",
        )
    from edgar_rag.api import open_index  # noqa: PLC0415
    from edgar_rag.service.models import HitJson  # noqa: PLC0415

    with open_index(db) as index:
        hits = index.search(
            question,
            ticker=ticker,
            cik=cik,
            fiscal_year=fiscal_year,
            form=form,
            fiscal_quarter=fiscal_quarter,
            k=k,
        )
    if as_json:
        click.echo(json_text([HitJson.of(hit) for hit in hits]))
        return
    for hit in hits:
        chunk, filing = hit.passage.chunk, hit.passage.filing
        click.echo(
            f"[{hit.rank}] {filing.ticker or filing.company} "
            f"{filing.period} {chunk.item} "
            f"{chunk.title}  (score {hit.score:.4f}, cosine {hit.cosine:.3f})"
        )
        click.echo("    " + chunk.text.replace("\n", "\n    "))


@click.command()
@db_option
@json_option
def filings(db: Path | None, as_json: bool) -> None:
    """List the indexed filings."""
    from edgar_rag.api import open_index  # noqa: PLC0415

    with open_index(db) as index:
        summaries = index.filings()
    if not summaries:
        from edgar_rag.errors import EmptyIndexError  # noqa: PLC0415

        raise EmptyIndexError
    if as_json:
        from edgar_rag.service.models import FilingEntry  # noqa: PLC0415

        click.echo(json_text([FilingEntry.model_validate(s) for s in summaries]))
        return
    click.echo(
        f"{'ticker':<7}{'cik':>9}  {'company':<28}{'filing':<16}{'items':>6}{'chunks':>7}"
        f"{'facts':>7}  {'years':<11}statements"
    )
    for s in summaries:
        years = f"{s.years_reported[0]}-{s.years_reported[-1]}" if s.years_reported else "-"
        found = ",".join(dict.fromkeys(statement.kind for statement in s.statements)) or "-"
        click.echo(
            f"{s.ticker or '-':<7}{s.cik or '-':>9}  {s.company[:27]:<28}{s.period:<16}"
            f"{s.items:>6}{s.chunks:>7}{s.facts:>7}  {years:<11}{found}"
        )
