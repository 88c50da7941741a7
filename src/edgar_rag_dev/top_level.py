"""The tooling's commands that stand at the top of ``edgar-rag``, beside the runtime's: the cosine
gate's ``thresholds`` (fitted on the repository's golden set) and the public benchmark's ``eval
financebench``. The runtime finds them by their entry points (``edgar_rag.cli.tools``); without
this package installed each answers one line saying so.
"""

from __future__ import annotations

import json
from contextlib import closing
from pathlib import Path

import click

from edgar_rag.cli.app import db_option, json_option, settings_for
from edgar_rag.errors import ConfigError
from edgar_rag_dev.options import corpus_option


@click.command()
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
    from edgar_rag_dev.eval.answering import fit_cosine_threshold  # noqa: PLC0415
    from edgar_rag_dev.eval.golden import read_golden  # noqa: PLC0415

    if not golden.is_file():
        raise ConfigError(
            f"thresholds: no golden questions at {golden}: run it from the repository root "
            "or pass --golden PATH"
        )
    settings = settings_for(db).model_copy(update={"generator": "echo"})
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


@click.group(name="eval")
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
    from edgar_rag_dev.eval.financebench import write_financebench  # noqa: PLC0415

    report = write_financebench(corpus, db, out, tape=tape, replay=replay, resume=resume)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo(f"wrote {out} and {out.with_suffix('.md')}", err=True)
