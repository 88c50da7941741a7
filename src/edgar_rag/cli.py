"""The ``edgar-rag`` command: parse options, build through ``compose``, call one function, print.

Data goes to stdout, messages to stderr; an EdgarRagError becomes one line and a non-zero exit.
Each command imports what it runs in its own body (the stores, the embedders, the model, the
service's models): ``--version``, ``--help`` and a mistyped option answer without loading them.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import click

from edgar_rag import __version__
from edgar_rag.dev import corpus_option, dev
from edgar_rag.errors import ConfigError, EdgarRagError, SourceError
from edgar_rag.extras import missing_extra

if TYPE_CHECKING:
    import logging

    from pydantic import BaseModel

    from edgar_rag.config import Settings
    from edgar_rag.ingest.indexer import IngestResult


class EdgarRagGroup(click.Group):
    """Turns every EdgarRagError into one line on stderr and its exit code; never a traceback.
    An optional part used without its extra is one such line, naming the extra to install.

    What the package logs goes to the log file (``log_file_path``); an unexpected exception, a
    bug, is logged there with its traceback, and the user reads one line naming the file."""

    def invoke(self, ctx: click.Context) -> Any:
        import logging  # noqa: PLC0415 (--version and --help answer before this runs)

        log = logging.getLogger("edgar_rag")
        handler = _log_file_handler()
        log.addHandler(handler)
        try:
            return super().invoke(ctx)
        except EdgarRagError as error:
            failure = click.ClickException(str(error))
            failure.exit_code = error.exit_code  # type: ignore[misc]
            raise failure from error
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:
            missing = missing_extra(error) if isinstance(error, ImportError) else None
            if missing is not None:
                failure = click.ClickException(str(missing))
                failure.exit_code = missing.exit_code  # type: ignore[misc]
                raise failure from error
            log.exception("unexpected_failure", extra={"command": ctx.invoked_subcommand})
            raise click.ClickException(
                f"internal error ({type(error).__name__}: {error}); "
                f"the traceback is in {handler.baseFilename}"
            ) from error
        finally:
            log.removeHandler(handler)
            handler.close()


def log_file_path() -> Path:
    """The command's log: ``edgar-rag.log`` in the user's cache folder (``$XDG_CACHE_HOME`` or
    ``~/.cache``, then ``edgar-rag/``), beside the local model's own files by default."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "edgar-rag" / "edgar-rag.log"


def _log_file_handler() -> logging.FileHandler:
    """Appends to the log file, which is created only when something is logged."""
    import logging  # noqa: PLC0415

    path = log_file_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    return handler


def _settings(db: Path | None) -> Settings:
    from edgar_rag.config import load_settings  # noqa: PLC0415

    settings = load_settings()
    return settings.model_copy(update={"db": db}) if db is not None else settings


db_option = click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="SQLite index file (default: EDGAR_RAG_DB or ./edgar-rag.db).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _json(body: BaseModel | Sequence[BaseModel]) -> str:
    """The body the service would send for the same data (``service.models``), indented."""
    from pydantic import BaseModel  # noqa: PLC0415

    if isinstance(body, BaseModel):
        return json.dumps(body.model_dump(mode="json"), indent=2)
    return json.dumps([row.model_dump(mode="json") for row in body], indent=2)


@click.group(cls=EdgarRagGroup)
@click.version_option(__version__, prog_name="edgar-rag")
def main() -> None:
    """Answers about SEC 10-K filings, every figure quoted from the passage it cites."""


main.add_command(dev)


@main.command()
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
    stdout gets the list of outcomes at the end. Exits 1 when a file was refused."""
    from edgar_rag.api import open_index, require_every_request_met  # noqa: PLC0415
    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    if not paths and not tickers:
        raise click.UsageError("give --from PATH, or --tickers (with --years) to fetch from EDGAR")
    lines = sys.stderr if as_json else sys.stdout
    with open_index(db) as index:
        sources = index.find_sources(*paths, tickers=tickers, years=years)
        each = index.ingest_each(sources, tickers, years, cluster=cluster, workers=workers)
        results = _run_with_progress(each, len(sources), lines)
    if as_json:
        from edgar_rag.service.models import IngestResultJson  # noqa: PLC0415

        click.echo(_json([IngestResultJson.of(result) for result in results]))
    require_every_request_met(results, tickers, years)
    if any(r.outcome is Outcome.REFUSED for r in results):
        sys.exit(1)


def _run_with_progress(results: Any, total: int, lines: TextIO) -> list[IngestResult]:
    from tqdm import tqdm  # noqa: PLC0415 (only the ingest command draws a bar)

    from edgar_rag.ingest.indexer import Outcome  # noqa: PLC0415

    done: list[IngestResult] = []
    chunks = 0
    with tqdm(total=total, unit="filing", file=sys.stderr, dynamic_ncols=True, disable=None) as bar:
        for result in results:
            done.append(result)
            bar.write(_describe(result), file=lines)
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
            f"indexed    {who} {meta.fiscal_year}: {result.chunks} chunks, {result.facts} facts"
            f"  ({result.source})"
        )
    return f"{result.outcome.value:<10} {result.source}: {result.reason}"


def _scope_options(command: Callable[..., None]) -> Callable[..., None]:
    command = click.option("--year", type=int, help="Fiscal year (default: the latest indexed).")(
        command
    )
    command = click.option("--cik", type=int, help="Scope to this company by CIK.")(command)
    return click.option("--ticker", help="Scope to this company's filing.")(command)


@main.command()
@click.argument("question")
@_scope_options
@click.option("-k", "k", type=click.IntRange(1, 50), default=5, show_default=True)
@db_option
@json_option
def search(
    question: str,
    ticker: str | None,
    cik: int | None,
    year: int | None,
    k: int,
    db: Path | None,
    as_json: bool,
) -> None:
    """Rank the passages that best answer QUESTION (one filing, or the whole corpus)."""
    if not question.strip():
        raise click.BadParameter("the question is empty", param_hint="QUESTION")
    from edgar_rag.api import open_index  # noqa: PLC0415
    from edgar_rag.service.models import HitJson  # noqa: PLC0415

    with open_index(db) as index:
        hits = index.search(question, ticker=ticker, cik=cik, year=year, k=k)
    if as_json:
        click.echo(_json([HitJson.of(hit) for hit in hits]))
        return
    for hit in hits:
        chunk, filing = hit.passage.chunk, hit.passage.filing
        click.echo(
            f"[{hit.rank}] {filing.ticker or filing.company} FY{filing.fiscal_year} {chunk.item} "
            f"{chunk.title}  (score {hit.score:.4f}, cosine {hit.cosine:.3f})"
        )
        click.echo("    " + chunk.text.replace("\n", "\n    "))


@main.command()
@click.argument("question")
@_scope_options
@click.option(
    "--gate",
    type=click.Choice(["none", "cosine", "period", "period+cosine"]),
    default=None,
    help="Relevance gate before the model (default: EDGAR_RAG_GATE or none).",
)
@db_option
@json_option
def ask(
    question: str,
    ticker: str | None,
    cik: int | None,
    year: int | None,
    gate: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Answer QUESTION from a filing (or the whole corpus), citing the passages it quotes.

    On a terminal, the model's draft is printed as it comes, marked unverified, then the
    verified answer."""
    if not question.strip():
        raise click.BadParameter("the question is empty", param_hint="QUESTION")
    from edgar_rag.answer.render import response_text  # noqa: PLC0415
    from edgar_rag.api import open_index  # noqa: PLC0415
    from edgar_rag.service.models import AskResponse  # noqa: PLC0415

    draft = _Draft() if not as_json and sys.stdout.isatty() else None
    with open_index(db, progress=_AssemblyBar(), announce=_announce) as index:
        response = index.ask(question, ticker=ticker, cik=cik, year=year, gate=gate, on_token=draft)
    if as_json:
        click.echo(_json(AskResponse.of(response)))
    else:
        if draft is not None:
            draft.end()
        click.echo(response_text(response))


class _Draft:
    """The model's tokens printed as they come, dimmed after a label saying they are unchecked;
    a blank line ends them before the verified answer."""

    def __init__(self) -> None:
        self.started = False

    def __call__(self, piece: str) -> None:
        if not self.started:
            click.secho("draft, unverified: ", bold=True, nl=False)
            self.started = True
        click.secho(piece, dim=True, nl=False)

    def end(self) -> None:
        if self.started:
            click.echo("\n")


class _AssemblyBar:
    """The local model's assembly from its parts (bytes written of the total), told by
    ``assemble_model``: a tqdm bar on a terminal's stderr; elsewhere one line when it is done."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._shown = 0

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm  # noqa: PLC0415 (only a first question draws it)

        if self._bar is None:
            self._bar = tqdm(
                total=total, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                desc="assembling the local model", dynamic_ncols=True, disable=None,
            )  # fmt: skip
            self._shown = 0
        self._bar.update(done - self._shown)
        self._shown = done
        if done >= total:
            if self._bar.disable:
                click.echo(f"assembled the local model ({total / 2**20:,.0f} MiB)", err=True)
            self._bar.close()
            self._bar = None


def _announce(line: str) -> None:
    click.echo(line, err=True)


@main.group()
def model() -> None:
    """The local model process that `ask` and `serve` share: see it, start it, stop it."""


@model.command(name="status")
@json_option
def model_status(as_json: bool) -> None:
    """Show the running local model process, if any."""
    from edgar_rag.compose import find_model_process  # noqa: PLC0415
    from edgar_rag.model.process import describe_status, status_json  # noqa: PLC0415

    process = find_model_process(_settings(None))
    status = process.status()
    process.close()
    if as_json:
        click.echo(json.dumps(status_json(status, process), indent=2))
    elif status is None:
        click.echo(f"not running (it starts on the first question; log: {process.log_path})")
    else:
        click.echo(describe_status(status, process))


@model.command(name="start")
@json_option
def model_start(as_json: bool) -> None:
    """Start the local model process now (`ask` and `serve` start it on first use)."""
    from edgar_rag.compose import build_model_process  # noqa: PLC0415
    from edgar_rag.model.process import describe_status, status_json  # noqa: PLC0415

    process = build_model_process(_settings(None), _AssemblyBar(), _announce)
    process.ensure()
    status = process.status()
    process.close()
    if status is None:
        raise SourceError(
            f"the local model process stopped right after starting; see {process.log_path}"
        )
    if as_json:
        click.echo(json.dumps(status_json(status, process), indent=2))
    else:
        click.echo(describe_status(status, process))


@model.command(name="stop")
@json_option
def model_stop(as_json: bool) -> None:
    """Stop the local model process (a request it is answering finishes first)."""
    from edgar_rag.compose import find_model_process  # noqa: PLC0415

    process = find_model_process(_settings(None))
    stopped = process.stop()
    process.close()
    if as_json:
        click.echo(json.dumps({"stopped": stopped is not None, "pid": stopped and stopped.pid}))
    else:
        click.echo("not running" if stopped is None else f"stopped (pid {stopped.pid})")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@db_option
def serve(host: str, port: int, db: Path | None) -> None:
    """Serve the HTTP API and the web page (http://HOST:PORT/)."""
    from edgar_rag.service.app import serve as run_server  # noqa: PLC0415

    run_server(_settings(db), host, port)


@main.command()
@db_option
def mcp(db: Path | None) -> None:
    """Serve the Model Context Protocol over stdio (tools: search, ask, compute, filings)."""
    from edgar_rag.mcp_server import serve_stdio  # noqa: PLC0415

    serve_stdio(db)


@main.command()
@click.option("--split", type=click.Choice(["dev", "eval"]), default="dev", show_default=True)
@click.option(
    "--golden", type=click.Path(path_type=Path), default=Path("data/golden/questions.jsonl"),
    show_default=True,
    help="The golden questions (in the repository; relative paths are read from here).",
)  # fmt: skip
@db_option
@json_option
def thresholds(split: str, golden: Path, db: Path | None, as_json: bool) -> None:
    """Fit the cosine gate's threshold on the golden set's answerable questions."""
    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415
    from edgar_rag.eval.answering import fit_cosine_threshold  # noqa: PLC0415
    from edgar_rag.eval.golden import read_golden  # noqa: PLC0415

    if not golden.is_file():
        raise ConfigError(
            f"thresholds: no golden questions at {golden}: run it from the repository root "
            "or pass --golden PATH"
        )
    settings = _settings(db).model_copy(update={"generator": "echo"})
    with closing(open_index(settings)) as index:
        answerer = build_answerer(settings, index)
        fit = fit_cosine_threshold(answerer, index, read_golden(golden), split)
    if as_json:
        from dataclasses import asdict  # noqa: PLC0415

        fitted = {"variable": "EDGAR_RAG_COSINE_THRESHOLD", "split": split, "golden": str(golden)}
        click.echo(json.dumps(fitted | asdict(fit), indent=2))
        return
    click.echo(
        f"EDGAR_RAG_COSINE_THRESHOLD={fit.threshold:.4f}\n"
        f"fitted on the {split} split of {golden}: the best-passage cosine of {fit.questions} "
        f"answerable questions of {fit.companies} companies; the threshold is their lower 10th "
        f"percentile, so it admits {fit.admitted} of them ({fit.admitted / fit.questions:.0%})."
    )


@main.group(name="eval")
def evaluate() -> None:
    """Evaluations against public benchmarks."""


@evaluate.command()
@corpus_option
@click.option("--db", type=click.Path(path_type=Path), default=Path("build/financebench.db"))
@click.option("--out", type=click.Path(path_type=Path), default=Path("docs/financebench.json"))
@click.option(
    "--tape", type=click.Path(path_type=Path), help="Default: data/financebench/tape.jsonl."
)
@click.option("--replay", is_flag=True, help="Answer from the recorded tape, with no model.")
@click.option("--resume", is_flag=True, help="Keep an interrupted run's tape and answers.")
@json_option
def financebench(
    corpus: Path, db: Path, out: Path, tape: Path | None, replay: bool, resume: bool, as_json: bool
) -> None:
    """Index FinanceBench's 10-K PDFs, then measure evidence recall and numeric accuracy.

    Writes the report to --out and its page beside it; --json prints the report too."""
    from edgar_rag.eval.financebench import write_financebench  # noqa: PLC0415

    report = write_financebench(corpus, db, out, tape=tape, replay=replay, resume=resume)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo(f"wrote {out} and {out.with_suffix('.md')}", err=True)


@main.command()
@db_option
@json_option
def filings(db: Path | None, as_json: bool) -> None:
    """List the indexed filings."""
    from edgar_rag.api import open_index  # noqa: PLC0415

    with open_index(db) as index:
        summaries = index.filings()
    if as_json:
        from edgar_rag.service.models import FilingEntry  # noqa: PLC0415

        click.echo(_json([FilingEntry.model_validate(s) for s in summaries]))
        return
    click.echo(
        f"{'ticker':<7}{'cik':>9}  {'company':<28}{'FY':>5}{'items':>6}{'chunks':>7}"
        f"{'facts':>7}  {'years':<11}statements"
    )
    for s in summaries:
        years = f"{s.years_reported[0]}-{s.years_reported[-1]}" if s.years_reported else "-"
        found = ",".join(dict.fromkeys(statement.kind for statement in s.statements)) or "-"
        click.echo(
            f"{s.ticker or '-':<7}{s.cik or '-':>9}  {s.company[:27]:<28}{s.fiscal_year:>5}"
            f"{s.items:>6}{s.chunks:>7}{s.facts:>7}  {years:<11}{found}"
        )
