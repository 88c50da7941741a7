"""``ask`` a question, printing the model's draft as it comes, and the ``model`` process that
``ask`` and ``serve`` share."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from edgar_rag.cli.app import db_option, json_option, json_text, settings_for
from edgar_rag.cli.index import scope_options
from edgar_rag.errors import SourceError


@click.command()
@click.argument("question")
@scope_options
@click.option(
    "--gate",
    type=click.Choice(["none", "cosine", "period", "period+cosine"]),
    default=None,
    help="Relevance gate before the model (default: EDGAR_RAG_GATE or period).",
)
@db_option
@json_option
def ask(
    question: str,
    ticker: str | None,
    cik: int | None,
    fiscal_year: int | None,
    form: str | None,
    fiscal_quarter: int | None,
    gate: str | None,
    db: Path | None,
    as_json: bool,
) -> None:
    """Answer QUESTION from a filing (or the whole corpus), citing the passages it quotes.

    On a terminal, the model's draft is printed as it comes, marked unverified, then the
    verified answer."""
    if not question.strip():
        raise click.BadParameter("the question is empty", param_hint="QUESTION")
    from edgar_rag.domain import MAX_QUESTION_CHARS  # noqa: PLC0415

    if len(question) > MAX_QUESTION_CHARS:
        raise click.BadParameter(
            f"the question has {len(question):,} characters; at most {MAX_QUESTION_CHARS:,}",
            param_hint="QUESTION",
        )
    from edgar_rag.answer.render import response_text  # noqa: PLC0415
    from edgar_rag.api import open_index  # noqa: PLC0415

    draft = _Draft() if not as_json and sys.stdout.isatty() else None
    with open_index(db, progress=AssemblyBar(), announce=announce) as index:
        response = index.ask(
            question,
            ticker=ticker,
            cik=cik,
            fiscal_year=fiscal_year,
            form=form,
            fiscal_quarter=fiscal_quarter,
            gate=gate,
            on_token=draft,
        )
    if as_json:
        from edgar_rag.service.models import AskResponse  # noqa: PLC0415

        click.echo(json_text(AskResponse.of(response)))
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


class AssemblyBar:
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


def announce(line: str) -> None:
    click.echo(line, err=True)


@click.group()
def model() -> None:
    """The local model process that `ask` and `serve` share: see it, start it, stop it."""


@model.command(name="status")
@json_option
def model_status(as_json: bool) -> None:
    """Show the running local model process, if any."""
    from edgar_rag.compose import find_model_process  # noqa: PLC0415
    from edgar_rag.model.process import describe_status, status_json  # noqa: PLC0415

    process = find_model_process(settings_for(None))
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

    process = build_model_process(settings_for(None), AssemblyBar(), announce)
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

    process = find_model_process(settings_for(None))
    stopped = process.stop()
    process.close()
    if as_json:
        click.echo(json.dumps({"stopped": stopped is not None, "pid": stopped and stopped.pid}))
    else:
        click.echo("not running" if stopped is None else f"stopped (pid {stopped.pid})")
