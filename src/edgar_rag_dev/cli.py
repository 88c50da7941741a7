"""``edgar-rag dev``: the evaluations and benchmarks behind the Makefile, one command each.

The group joins ``edgar-rag`` by its entry point (``dev/pyproject.toml``), or runs alone as
``python -m edgar_rag_dev``. Hidden from ``edgar-rag --help``, since they measure the project
rather than answer questions. Each command parses its options and calls one function of its
module, imported in the command's body: the eval and bench modules load numpy, the embedders and
the stores, and ``edgar-rag --help`` or ``--version`` must not wait for them. Paths default to
the repository's layout, so the commands run from its root.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import click

from edgar_rag_dev.options import (
    PATH,
    corpus_option,
    embedder_cache_option,
    index_option,
    path_option,
)

if TYPE_CHECKING:
    from edgar_rag.config import EmbedderName


@click.group(hidden=True)
def dev() -> None:
    """Evaluations and benchmarks of the project itself, as the Makefile's targets run them."""


@dev.group(name="eval")
def evaluations() -> None:
    """Evaluations of answer and retrieval quality.

    FinanceBench, public, is `edgar-rag eval financebench`.
    """


@evaluations.command()
@corpus_option
@click.option("--split", type=click.Choice(["dev", "eval"]), default="dev", show_default=True)
@click.option("--generate", is_flag=True, help="Write the golden questions instead.")
@click.option(
    "--finish-partial",
    is_flag=True,
    help="Write the run from the questions done so far, without asking the model more.",
)
def answering(corpus: Path, split: str, generate: bool, finish_partial: bool) -> None:
    """Run the answering evaluation on one split (`make answering`)."""
    from edgar_rag_dev.eval import answering as evaluation  # noqa: PLC0415

    if generate:
        evaluation.write_golden_questions(corpus)
    else:
        evaluation.record_split(split, finish_partial=finish_partial)


@evaluations.command()
@click.option("--split", type=click.Choice(["dev", "eval"]), default="dev", show_default=True)
@click.option("--render", "render_only", is_flag=True, help="Only rebuild docs/narrative.md.")
@click.option(
    "--passage-chars",
    type=click.IntRange(100, 4000),
    default=None,
    help="Quote this many characters of each passage instead of the default: an arm of the "
    "page's passage-window table, written to data/narrative/window-N/run-SPLIT.json.",
)
@click.option(
    "--passages",
    type=click.IntRange(1, 20),
    default=None,
    help="Give the model this many passages instead of the default: an arm of the same table, "
    "written to data/narrative/passages-N/run-SPLIT.json.",
)
def narrative(
    split: str, render_only: bool, passage_chars: int | None, passages: int | None
) -> None:
    """Answer the narrative set's split (data/narrative/run-SPLIT.json), then its page.

    The generator is the settings' (EDGAR_RAG_TAPE and EDGAR_RAG_TAPE_MODE record or replay
    data/narrative/tape-SPLIT.jsonl, as `make answering` does for the golden set).
    """
    from edgar_rag_dev.eval import narrative as evaluation  # noqa: PLC0415

    if not render_only:
        click.echo(f"wrote {evaluation.record_narrative(split, passage_chars, passages)}", err=True)
    page = evaluation.write_narrative_page()
    click.echo(f"wrote {page}" if page else "no narrative run yet: nothing to render", err=True)


@evaluations.command()
@click.option("--print", "print_arms", is_flag=True, help="Print the arms table instead.")
def render(print_arms: bool) -> None:
    """Rebuild the evaluation pages from the committed runs (`make eval`, `make result`)."""
    from edgar_rag_dev.eval import render as pages  # noqa: PLC0415

    if print_arms:
        click.echo(pages.arms_table(), nl=False)
    else:
        pages.write_pages()


@evaluations.command()
@click.argument("command", type=click.Choice(["check", "accept"]))
@index_option
@click.option("--set", "names", multiple=True, help="A gated set (repeatable); default: all.")
def gate(command: Literal["check", "accept"], index: Path, names: tuple[str, ...]) -> None:
    """Score every gated set against its gold and hold it to data/gates/ (`make eval-ci`), or
    accept the scores as the new gate, listing every question that moved."""
    from edgar_rag.config import load_settings  # noqa: PLC0415
    from edgar_rag_dev.eval.gate import gated_sets, run_gate  # noqa: PLC0415

    settings = load_settings().model_copy(update={"db": index})
    sys.exit(run_gate(command, gated_sets(), settings, only=names))


@evaluations.command()
@index_option
@path_option("--out", "docs/computed.json", "The report; its page goes beside it as .md.")
@click.option(
    "--generate",
    is_flag=True,
    help="Write the derived questions and their ceiling into data/computed/ instead.",
)
def computed(index: Path, out: Path, generate: bool) -> None:
    """Ask the computed questions through the answer path; write docs/computed.*."""
    if generate:
        from edgar_rag_dev.eval import computed as derived  # noqa: PLC0415

        derived.write_computed(index, Path("data/computed"), Path(derived.HANDWRITTEN))
        return
    from edgar_rag.config import load_settings  # noqa: PLC0415
    from edgar_rag_dev.eval import computed_answers  # noqa: PLC0415

    computed_answers.measure(index, out, load_settings())


@evaluations.command()
@index_option
@path_option("--out", "docs/asks.json", "The report; its page goes beside it as .md.")
@click.option(
    "--no-model", is_flag=True, help="A stand-in that refuses answers instead of the model."
)
def asks(index: Path, out: Path, no_model: bool) -> None:
    """Ask the hand-written analyst questions (data/asks/); write docs/asks.*."""
    from edgar_rag.config import load_settings  # noqa: PLC0415
    from edgar_rag_dev.eval import asks as analyst  # noqa: PLC0415

    analyst.measure(index, out, load_settings(), model=not no_model)


@evaluations.command()
@corpus_option
@index_option
@embedder_cache_option
@path_option("--out", "docs/retrieval.json", "The report; its page goes beside it as .md.")
@click.option("--generate", is_flag=True, help="Write the figure questions instead.")
@click.option("--no-sweep", is_flag=True, help="Skip the chunk-size sweep.")
@click.option("--sweep-only", is_flag=True, help="Run only the sweep, into the existing JSON.")
def retrieval(
    corpus: Path,
    index: Path,
    cache: Path,
    out: Path,
    generate: bool,
    no_sweep: bool,
    sweep_only: bool,
) -> None:
    """Measure retrieval; write docs/retrieval.* (`make retrieval`)."""
    from edgar_rag_dev.eval import retrieval as evaluation  # noqa: PLC0415

    if generate:
        evaluation.write_figure_questions(corpus)
    else:
        evaluation.write_retrieval_report(
            corpus, index, cache, out, sweep=not no_sweep, sweep_only=sweep_only
        )


@dev.group()
def bench() -> None:
    """Benchmarks: what ingest, search, the service and the model cost here."""


@bench.command(name="ingest")
@corpus_option
@index_option
@embedder_cache_option
@path_option(
    "--out", "docs/performance.json", "The figures; docs/performance.md is rendered from them."
)
def bench_ingest(corpus: Path, index: Path, cache: Path, out: Path) -> None:
    """Measure ingest and search; write the docs (`make bench`)."""
    from edgar_rag_dev.bench.ingest import measure_ingest  # noqa: PLC0415

    measure_ingest(corpus, index, cache, out)


@bench.command(name="cluster")
@path_option("--filings", "src/edgar_rag/sample/filings", "The filings to index both ways.")
@click.option(
    "--embedder",
    "embedders",
    multiple=True,
    type=click.Choice(["hashing", "minilm-onnx", "minilm", "minilm-int8"]),
    default=("hashing", "minilm-onnx"),
    show_default=True,
    help="Embedders to measure with (repeatable).",
)
@embedder_cache_option
@path_option("--out", "docs/cluster.json", "The figures; docs/cluster.md is rendered from them.")
def bench_cluster(filings: Path, embedders: tuple[str, ...], cache: Path, out: Path) -> None:
    """Ingest through a local Dask cluster against one plain process (`make bench-cluster`)."""
    from edgar_rag_dev.bench.cluster import measure_cluster_ingest  # noqa: PLC0415

    names = [cast("EmbedderName", name) for name in embedders]
    measure_cluster_ingest(filings, names, cache, out)


@bench.command(name="model")
@index_option
@click.option(
    "--model-dir",
    type=PATH,
    default=lambda: Path.home() / ".cache" / "edgar-rag",
    show_default="~/.cache/edgar-rag",
    help="Where the local model is assembled.",
)
@click.option("--prompts", type=int, default=8, show_default=True, help="Dev prompts per config.")
@click.option("--every", type=int, default=1, show_default=True, help="Ask every Nth dev question.")
@click.option(
    "--narrative-every", type=int, default=6, show_default=True,
    help="Ask every Nth narrative question (data/narrative/questions.jsonl).",
)  # fmt: skip
@click.option("--skip-asks", is_flag=True, help="Measure the configurations only.")
@click.option(
    "--arm-questions", type=int, default=30, show_default=True,
    help="Narrative questions each arm (prompt lookup off, on) answers; 0 skips the arms.",
)  # fmt: skip
@click.option("--arms-only", is_flag=True, help="Measure the arms only, keeping the rest.")
@path_option("--out", "docs/performance.json", "The figures; its `model` entry is written.")
def bench_model(
    index: Path,
    model_dir: Path,
    prompts: int,
    every: int,
    narrative_every: int,
    skip_asks: bool,
    arm_questions: int,
    arms_only: bool,
    out: Path,
) -> None:
    """The local model process, measured as a user meets it (`make bench-model`)."""
    from edgar_rag_dev.bench.model import measure_model  # noqa: PLC0415

    measure_model(
        index, model_dir, out, prompts=prompts, every=every,
        narrative_every=narrative_every, skip_asks=skip_asks,
        arm_questions=arm_questions, arms_only=arms_only,
    )  # fmt: skip


@bench.command(name="cli")
@index_option
@click.option("--rounds", type=int, default=15, show_default=True, help="Runs of each command.")
@path_option("--out", "docs/performance.json", "The figures; its `cli` entry is written.")
def bench_cli(index: Path, rounds: int, out: Path) -> None:
    """`--version`, `--help` and `filings` as whole processes (`make bench-cli`)."""
    from edgar_rag_dev.bench.commands import measure_commands  # noqa: PLC0415

    commands = measure_commands(index, out, rounds=rounds)["commands"]
    for name, row in commands.items():
        click.echo(f"{name:<22}P50 {row['p50_s']:.3f} s  {row['vs_python']:.2f}x", err=True)


@bench.command(name="install")
@path_option("--project", ".", "The checkout built as a wheel and installed.")
@path_option("--lock", "requirements.lock", "The pins both installs are constrained to.")
@click.option("--find-links", type=PATH, help="Where torch's CPU wheel lies (FIND_LINKS).")
@click.option("--rounds", type=int, default=5, show_default=True, help="Installs of each.")
@path_option("--out", "docs/performance.json", "The figures; its `install` entry is written.")
def bench_install(
    project: Path, lock: Path, find_links: Path | None, rounds: int, out: Path
) -> None:
    """The default install against all extras, in throwaway venvs (`make bench-install`)."""
    from edgar_rag_dev.bench.install import measure_install  # noqa: PLC0415

    entry = measure_install(project, lock, find_links, out, rounds=rounds)
    for name, row in entry["installs"].items():
        click.echo(
            f"{name:<38}P50 {row['p50_s']:.2f} s  {row['size_mib']:.1f} MiB  "
            f"{row['distributions']} distributions",
            err=True,
        )


@bench.command(name="load")
@index_option
@path_option("--model-dir", "build/cache", "EDGAR_RAG_MODEL_DIR of the server and of recording.")
@path_option(
    "--tape",
    "build/bench/load-tape.jsonl",
    "The benchmark's own tape, recorded where it lacks one.",
)
@click.option(
    "--seconds", type=float, default=8.0, show_default=True, help="Per endpoint and clients."
)
@path_option("--out", "docs/performance.json", "The figures; its `load` entry is written.")
def bench_load(index: Path, model_dir: Path, tape: Path, seconds: float, out: Path) -> None:
    """Load the HTTP service; add it to the docs (`make bench-load`)."""
    from edgar_rag_dev.bench.load import measure_load  # noqa: PLC0415

    measure_load(index, model_dir, tape, out, seconds=seconds)


@bench.command(name="corpus")
@corpus_option
@path_option("--out", "docs/ingest.json", "The report; its page goes beside it as .md.")
def bench_corpus(corpus: Path, out: Path) -> None:
    """Ingest the whole corpus; write docs/ingest.* (`make corpus`)."""
    from edgar_rag_dev.bench.corpus import write_corpus_report  # noqa: PLC0415

    write_corpus_report(corpus, out)


@bench.command(name="items")
@corpus_option
@path_option("--out", "docs/items.md", "The page; its JSON goes beside it.")
def bench_items(corpus: Path, out: Path) -> None:
    """Item segmentation: ours against edgartools (`make items`)."""
    from edgar_rag_dev.bench.items import compare_items  # noqa: PLC0415

    click.echo(compare_items(corpus, out))


@bench.command(name="pdf-readers")
@path_option("--pdfs", "../shared/corpus/financebench/pdfs", "The FinanceBench PDFs to read.")
@path_option("--out", "docs/pdf_readers.json", "The figures; the page goes beside it as .md.")
def bench_pdf_readers(pdfs: Path, out: Path) -> None:
    """PDF statements: PDFium's characters against pdfplumber's words (pdfplumber optional)."""
    from edgar_rag_dev.bench.pdf_readers import write_reader_report  # noqa: PLC0415

    write_reader_report(pdfs, out)


@bench.command(name="embedding")
@click.option("--texts", type=PATH, required=True, help="JSON list of passage texts.")
@click.option("--queries", type=PATH, required=True, help="JSON list of queries.")
@click.option("--k", type=int, default=5, show_default=True)
@click.option("--rounds", type=int, default=3, show_default=True)
@click.option("--slice", "slice_texts", type=int, default=100, show_default=True, help="Per turn.")
@click.option("--limit", type=int, default=None, help="Use only the first N texts.")
@click.option("--batch-size", type=int, default=16, show_default=True, help="Of the candidate.")
@click.option("--int8", is_flag=True, help="Quantize the ONNX candidate.")
@click.option("--cache-dir", type=PATH, default=None, help="Where the ONNX model lives.")
def bench_embedding(texts: Path, queries: Path, **options: Any) -> None:
    """Two embedders on the same texts in one process: speed, vector and top-k agreement."""
    from edgar_rag_dev.bench.embedding import compare_files  # noqa: PLC0415

    # The options are compare_files's keyword arguments, by name.
    click.echo(compare_files(texts, queries, **options).describe())


@bench.command(name="embedders")
@index_option
@embedder_cache_option
@path_option(
    "--indexes", "build/embedder-indexes", "Where the corpus re-embedded with each variant goes."
)
@click.option("--stride", type=int, default=3, show_default=True, help="Time every Nth chunk.")
@click.option("--rounds", type=int, default=1, show_default=True)
@path_option("--out", "docs/performance.json", "The figures; its `embedders` entry is written.")
def bench_embedders(
    index: Path, cache: Path, indexes: Path, stride: int, rounds: int, out: Path
) -> None:
    """Embedder variants against plain encode: speed, and retrieval (`make bench-embedders`)."""
    from edgar_rag_dev.bench.embedders import measure_embedders  # noqa: PLC0415
    from edgar_rag_dev.eval.retrieval import default_search_scores  # noqa: PLC0415

    measure_embedders(
        index, cache, indexes, out, default_search_scores, stride=stride, rounds=rounds
    )


@bench.command(name="scale")
@index_option
@embedder_cache_option
@path_option("--work", "build/scale", "Where the synthetic index and its graph are written.")
@path_option("--out", "docs/scale.json", "The figures; docs/scale.md is rendered beside them.")
@click.option("--chunks", type=int, default=1_000_000, show_default=True, help="Synthetic size.")
@click.option("--noise", type=float, default=0.01, show_default=True, help="Per coordinate.")
@click.option("--every", type=int, default=4, show_default=True, help="Ask every Nth question.")
@click.option("--no-sqlite-vec", is_flag=True, help="Measure the vector graph only.")
@click.option(
    "--postgres",
    metavar="URL",
    help="An empty PostgreSQL database (pgvector) to load the same chunks into and measure; "
    "'local' starts a throwaway server under --work for the run.",
)
def bench_scale(
    index: Path,
    cache: Path,
    work: Path,
    out: Path,
    chunks: int,
    noise: float,
    every: int,
    no_sqlite_vec: bool,
    postgres: str | None,
) -> None:
    """Corpus-wide search on a synthetic index of a million chunks (`make bench-scale`)."""
    from edgar_rag_dev.bench.scale import (  # noqa: PLC0415
        PG_SERVER_SETTINGS,
        ScaleSettings,
        measure_scale,
    )

    settings = ScaleSettings(chunks, noise, every, sqlite_vec=not no_sqlite_vec)
    if postgres != "local":
        measure_scale(index, work, cache, out, settings, postgres)
        return
    from edgar_rag_dev.bench.postgres_server import running_postgres  # noqa: PLC0415

    (work / "postgres").mkdir(parents=True, exist_ok=True)
    with running_postgres(work / "postgres", PG_SERVER_SETTINGS) as url:
        measure_scale(index, work, cache, out, settings, url)
