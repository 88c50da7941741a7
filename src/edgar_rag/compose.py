"""Settings in, adapters out: the one place that picks implementations.

Each builder imports the implementation it picks in its own body, so that a command needs only
what it builds (``edgar-rag filings`` opens SQLite, and never loads the embedders, PostgreSQL's
driver, HTTP or the model).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from edgar_rag.errors import ConfigError, EmptyIndexError
from edgar_rag.extras import missing_extra
from edgar_rag.location import IndexLocation

if TYPE_CHECKING:
    from edgar_rag.answer.answerer import Answerer, AnswerSettings
    from edgar_rag.config import EmbedderName, Settings
    from edgar_rag.domain import Embedder, FilingStore, Generator
    from edgar_rag.figures.operands import LibraryOperands, LibraryStatements
    from edgar_rag.index.embedders import OnnxPrecision
    from edgar_rag.ingest.edgar import EdgarClient
    from edgar_rag.ingest.registrants import CompanyList
    from edgar_rag.model.process import Announce, ModelProcess
    from edgar_rag.model.state import ModelOptions
    from edgar_rag.question.companies import CompanyDirectory
    from edgar_rag.retrieve.search import Searcher


def build_embedder(name: EmbedderName, cache_dir: Path, threads: int = 2) -> Embedder:
    from edgar_rag.index.embedders import (  # noqa: PLC0415
        HashingEmbedder,
        MiniLMEmbedder,
        OnnxMiniLMEmbedder,
    )

    if name == "hashing":
        return HashingEmbedder()
    if name in ("minilm", "minilm-bf16"):
        return MiniLMEmbedder(threads=threads, bfloat16=name == "minilm-bf16")
    precision = _ONNX_PRECISIONS[name]
    # int8-block measured 1.5x faster at batch 1 than at 16 (docs/performance.md, 444 chunks).
    batch_size = 1 if precision == "int8-block" else 16
    return OnnxMiniLMEmbedder(
        cache_dir / "embedders", threads=threads, batch_size=batch_size, precision=precision
    )


_ONNX_PRECISIONS: dict[str, OnnxPrecision] = {
    "minilm-onnx": "fp32",
    "minilm-int8": "int8",
    "minilm-int8-mixed": "int8-mixed",
    "minilm-int8-block": "int8-block",
}


def open_index(settings: Settings, *, create: bool = True) -> FilingStore:
    """PostgreSQL when EDGAR_RAG_DATABASE_URL is set, else the SQLite file (``create``: made
    when missing, as ingest wants; else EmptyIndexError, as a command that only reads wants)."""
    url = settings.database_url
    location = IndexLocation(settings.db, None if url is None else url.get_secret_value())
    return open_store(location, create=create)


def open_store(location: IndexLocation, *, create: bool = True) -> FilingStore:
    """The store at ``location``: PostgreSQL when it has a URL, else the SQLite file, which
    is made when missing only with ``create`` (else EmptyIndexError naming it)."""
    if location.database_url is None and not create and not location.db.exists():
        raise EmptyIndexError(str(location.db))
    if location.database_url is not None:
        try:
            from edgar_rag.index.postgres import PostgresIndex  # noqa: PLC0415
        except ImportError as error:  # the postgres extra is not installed
            raise (missing_extra(error) or error) from error
        return PostgresIndex(location.database_url)
    from edgar_rag.index.sqlite import SqliteIndex  # noqa: PLC0415

    return SqliteIndex(location.db)


def build_searcher(settings: Settings, index: FilingStore) -> Searcher:
    """A searcher whose query embedder is the one that built the index."""
    from edgar_rag.index.rerankers import CrossEncoderReranker  # noqa: PLC0415
    from edgar_rag.retrieve.search import Searcher  # noqa: PLC0415

    embedder = build_embedder(settings.embedder, settings.model_dir)
    recorded = index.embedder_identity()
    if recorded is not None and recorded != embedder.identity:
        index.ensure_embedder(embedder.identity)
    reranker = None if settings.reranker is None else CrossEncoderReranker(settings.reranker)
    return Searcher(
        index,
        embedder,
        reranker=reranker,
        operand_reader=build_operand_reader(),
        statement_reader=build_statement_reader(),
    )


def build_operand_reader() -> LibraryOperands:
    """What search reads as a question's metric operands: the packaged metric library's."""
    from edgar_rag.figures.library import load_library  # noqa: PLC0415
    from edgar_rag.figures.operands import LibraryOperands  # noqa: PLC0415

    return LibraryOperands(load_library())


def build_statement_reader() -> LibraryStatements:
    """Which primary statements search lifts for a question: those of the packaged metric
    library's line items it names."""
    from edgar_rag.figures.library import load_library  # noqa: PLC0415
    from edgar_rag.figures.operands import LibraryStatements  # noqa: PLC0415

    return LibraryStatements(load_library())


Progress = Callable[[int, int], None]
"""Told (bytes done, bytes in all) while the local model is assembled from its parts."""


def build_model_process(
    settings: Settings, progress: Progress | None = None, announce: Announce | None = None
) -> ModelProcess:
    """The local model process of the settings' model cache, to answer with (the model file is
    assembled from its parts the first time)."""
    from edgar_rag.model.local_model import assemble_model  # noqa: PLC0415
    from edgar_rag.model.process import ModelProcess  # noqa: PLC0415

    model = assemble_model(settings.model_dir, progress)
    return ModelProcess(model, settings.model_dir, _model_options(settings), announce=announce)


def find_model_process(settings: Settings) -> ModelProcess:
    """The local model process of the settings' model cache, to see or stop (nothing assembled)."""
    from edgar_rag.model.local_model import MODEL_FILE  # noqa: PLC0415
    from edgar_rag.model.process import ModelProcess  # noqa: PLC0415

    model = settings.model_dir / MODEL_FILE
    return ModelProcess(model, settings.model_dir, _model_options(settings))


def _model_options(settings: Settings) -> ModelOptions:
    from edgar_rag.model.state import ModelOptions  # noqa: PLC0415

    return ModelOptions(
        threads=settings.model_threads or os.cpu_count() or 1,
        ctx=settings.model_ctx,
        repack=settings.model_repack,
        idle_s=settings.model_idle_s,
        prompt_lookup=settings.model_prompt_lookup,
    )


def build_generator(
    settings: Settings, progress: Progress | None = None, announce: Announce | None = None
) -> Generator:
    """The generator the settings name, wrapped in a tape when one is recording or replaying."""
    from edgar_rag.model.tapes import TapeGenerator  # noqa: PLC0415

    if settings.tape_mode in ("replay", "replay-paced"):
        paced = settings.tape_mode == "replay-paced"
        return TapeGenerator(None, _tape_path(settings), "replay", paced=paced)
    inner = _plain_generator(settings, progress, announce)
    if settings.tape_mode == "record":
        return TapeGenerator(inner, _tape_path(settings), "record")
    return inner


def _tape_path(settings: Settings) -> Path:
    if settings.tape is None:
        raise ConfigError("EDGAR_RAG_TAPE: a tape file is needed when EDGAR_RAG_TAPE_MODE is set")
    return settings.tape


def _plain_generator(
    settings: Settings, progress: Progress | None, announce: Announce | None
) -> Generator:
    timeout = settings.generator_timeout_s
    name = settings.generator
    if name == "local":  # reached over loopback when first asked: httpx is not imported here
        from edgar_rag.model.generator import LocalModelGenerator  # noqa: PLC0415

        return LocalModelGenerator(build_model_process(settings, progress, announce), timeout)
    import httpx  # noqa: PLC0415

    from edgar_rag.model.generators import (  # noqa: PLC0415
        AnthropicGenerator,
        EchoGenerator,
        OllamaGenerator,
        OpenAICompatibleGenerator,
    )

    if name == "echo":
        return EchoGenerator()
    http = httpx.Client()
    if name == "openai":
        key = settings.openai_api_key
        return OpenAICompatibleGenerator(
            http, settings.openai_base_url, settings.openai_model, key, timeout
        )
    if name == "anthropic":
        if settings.anthropic_api_key is None:
            raise ConfigError(
                "ANTHROPIC_API_KEY is not set (needed by EDGAR_RAG_GENERATOR=anthropic)"
            )
        return AnthropicGenerator(
            http, settings.anthropic_model, settings.anthropic_api_key, timeout
        )
    return OllamaGenerator(http, settings.ollama_url, settings.ollama_model, timeout)


def build_directory(index: FilingStore, cache_dir: Path | None = None) -> CompanyDirectory:
    """Public companies (edgartools' offline list) and the companies in the index, kept built
    in ``cache_dir`` for the next process while neither the list, the index's companies nor
    the code that reads names changes."""
    import hashlib  # noqa: PLC0415

    from edgar_rag import rules  # noqa: PLC0415
    from edgar_rag.question import companies  # noqa: PLC0415

    indexed = [(s.company, s.ticker, s.cik) for s in index.filings()]
    if cache_dir is None:
        return companies.CompanyDirectory.from_edgartools(indexed)
    listing = rules.listing_path()
    stat = listing.stat()
    key = hashlib.sha256(repr((str(listing), stat.st_size, stat.st_mtime_ns, indexed)).encode())
    for module in (rules, companies):
        key.update(Path(str(module.__file__)).read_bytes())
    cached = cache_dir / f"companies-{key.hexdigest()[:16]}.marshal"
    try:
        return companies.CompanyDirectory.from_bytes(cached.read_bytes())
    except (OSError, ValueError):
        pass
    directory = companies.CompanyDirectory.from_edgartools(indexed)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        for stale in cache_dir.glob("companies-*.marshal"):
            stale.unlink(missing_ok=True)
        written = cached.with_suffix(f".{os.getpid()}.part")
        written.write_bytes(directory.to_bytes())
        written.replace(cached)
    except OSError:
        pass  # a read-only cache: build it again next time
    return directory


def build_company_list() -> CompanyList:
    """Public companies by name (edgartools' offline list), for filings only a cover names."""
    from edgar_rag.ingest.registrants import CompanyList  # noqa: PLC0415

    return CompanyList.from_edgartools()


def build_answerer(
    settings: Settings,
    index: FilingStore,
    progress: Progress | None = None,
    announce: Announce | None = None,
    searcher: Searcher | None = None,
) -> Answerer:
    """The answerer the settings name, over ``searcher`` when one is built already."""
    from edgar_rag.answer.answerer import Answerer  # noqa: PLC0415
    from edgar_rag.answer.computed import ComputedAnswers  # noqa: PLC0415
    from edgar_rag.answer.premise import FilingWords  # noqa: PLC0415
    from edgar_rag.answer.prompt import draw_refusal_token  # noqa: PLC0415
    from edgar_rag.figures.library import load_library  # noqa: PLC0415

    secret = settings.refusal_secret.get_secret_value().encode()
    return Answerer(
        searcher=searcher or build_searcher(settings, index),
        generator=build_generator(settings, progress, announce),
        draw_token=lambda request: draw_refusal_token(secret, request),
        directory=build_directory(index, settings.model_dir),
        settings=answer_settings(settings),
        computed=ComputedAnswers(index, load_library()),
        filing_words=FilingWords(index.filing_text),
    )


def answer_settings(settings: Settings) -> AnswerSettings:
    """The answering knobs the settings set; the measured defaults for the rest."""
    from edgar_rag.answer.answerer import AnswerSettings  # noqa: PLC0415

    chosen = AnswerSettings(gate=settings.gate, cosine_threshold=settings.cosine_threshold)
    if settings.narrative_passages is not None:
        chosen = replace(chosen, narrative_passages=settings.narrative_passages)
    if settings.narrative_passage_chars is not None:
        chosen = replace(chosen, narrative_passage_chars=settings.narrative_passage_chars)
    if settings.answer_max_tokens is not None:
        chosen = replace(chosen, max_tokens=settings.answer_max_tokens)
    return chosen


def build_edgar_client(settings: Settings) -> EdgarClient:
    import httpx  # noqa: PLC0415

    from edgar_rag.ingest.edgar import EdgarClient  # noqa: PLC0415

    return EdgarClient(
        http=httpx.Client(follow_redirects=True),
        contact=settings.sec_contact,
        cache_dir=settings.model_dir,
    )
