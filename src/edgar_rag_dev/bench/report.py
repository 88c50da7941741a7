"""Markdown from the benchmark JSON: docs/performance.md and docs/scaling.md.

The text is a pure function of the JSON a benchmark wrote, so ``scripts/check_docs.py`` can
render it again and fail when a committed page and its numbers disagree.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from edgar_rag.config import Settings
from edgar_rag.markdown import table
from edgar_rag_dev.bench.commands_page import render_cli
from edgar_rag_dev.bench.install_page import install_figures, render_install

DEFAULT_GATE = str(Settings.model_fields["gate"].default)
"""The gate an answer goes through unless one is asked for: the README's figures are its arm's."""

EDGAR_10K_PER_YEAR = 7_000
"""About how many 10-K filings EDGAR receives a year (order of magnitude, for the projection)."""
YEARS_OF_EDGAR = 30


def _stage_totals(data: dict[str, Any]) -> dict[str, float]:
    stages = data["stages"]
    totals = {
        key: sum(s[key] or 0.0 for s in stages)
        for key in ("parse_s", "chunk_s", "embed_s", "store_sqlite_s", "store_postgres_s")
    }
    totals["chunks"] = sum(s["chunks"] for s in stages)
    totals["bytes"] = sum(s["bytes"] for s in stages)
    return totals


def render_performance(data: dict[str, Any]) -> str:
    corpus_chunks = data["corpus_counts"]["chunks"]
    lines = [
        "# Performance",
        "",
        "Written by `make bench` (`edgar-rag dev bench ingest`) on a 2-core machine that",
        "other work shares; compare the ratios measured side by side in one run, not seconds",
        "across runs. Every number below comes from `docs/performance.json`.",
        "",
        *_ingest_stages(data),
        *_embedding_comparison(data),
        *(render_embedders(data["embedders"]) if "embedders" in data else []),
        *_search_latency(data),
    ]
    if "load" in data:
        lines += render_load(data["load"], data["corpus_filings"], corpus_chunks)
    if "model" in data:
        lines += render_model(data["model"])
    if "cli" in data:
        lines += render_cli(data["cli"])
    if "install" in data:
        lines += render_install(data["install"])
    return "\n".join(lines)


def _ingest_stages(data: dict[str, Any]) -> list[str]:
    """Each filing's seconds per stage and their sum, then what the sum means for the corpus."""
    totals = _stage_totals(data)
    chunks = totals["chunks"]
    corpus_chunks = data["corpus_counts"]["chunks"]
    rows = [_stage_cells(s["filing"], s, s["facts"]) for s in data["stages"]]
    rows.append(_stage_cells("all", totals, ""))
    header = ["filing", "MiB", "chunks", "facts", "parse s", "chunk s", "embed s"]
    rate = {key: chunks / totals[key] for key in ("parse_s", "chunk_s", "embed_s")}
    per_chunk_s = (
        sum(totals[k] for k in ("parse_s", "chunk_s", "embed_s", "store_sqlite_s")) / chunks
    )
    memory = data["memory"]
    return [
        f"## Ingest, per stage, on {len(data['stages'])} filings ({', '.join(data['subset'])})",
        "",
        *table([*header, "store SQLite s", "store PostgreSQL s"], rows, align="l" + "r" * 8),
        "",
        f"- Chunks per second: parse {rate['parse_s']:.0f}, chunk {rate['chunk_s']:.0f}, "
        f"embed {rate['embed_s']:.1f}. Embedding is the cost: "
        f"{totals['embed_s'] / (per_chunk_s * chunks):.0%} of the ingest time.",
        f"- The corpus's {data['corpus_filings']} HTML filings ({corpus_chunks} chunks): about "
        f"{corpus_chunks * per_chunk_s / 60:.1f} minutes at these rates (the FinanceBench PDFs "
        "are indexed on their own by `edgar-rag eval financebench`).",
        f"- Peak memory (process RSS high-water mark): {memory['after_parse_mib']:.0f} MiB "
        f"after parsing, {memory['after_embed_mib']:.0f} MiB after embedding; the SQLite index "
        f"takes {memory['sqlite_bytes_per_chunk'] / 1024:.1f} KiB per chunk on disk.",
        "",
    ]


def _stage_cells(name: str, stage: dict[str, Any], facts: object) -> list[object]:
    postgres = stage["store_postgres_s"]
    return [
        name,
        f"{stage['bytes'] / 2**20:.2f}",
        stage["chunks"],
        facts,
        f"{stage['parse_s']:.2f}",
        f"{stage['chunk_s']:.3f}",
        f"{stage['embed_s']:.1f}",
        f"{stage['store_sqlite_s']:.2f}",
        f"{postgres:.2f}" if postgres is not None else "-",
    ]


def _embedding_comparison(data: dict[str, Any]) -> list[str]:
    return [
        "## Embedding: ours against a plain `SentenceTransformer.encode`, same chunks, same run",
        "",
        *table(
            [
                "embedder",
                "chunks",
                "plain encode chunks/s",
                "ours chunks/s",
                "speed-up",
                "cosine to plain (mean / min)",
                "same top-5",
                "top-5 overlap",
            ],
            [
                [
                    name,
                    row["texts"],
                    f"{row['baseline_texts_per_s']:.1f}",
                    f"{row['candidate_texts_per_s']:.1f}",
                    f"{row['speedup']:.2f}x",
                    f"{row['cosine_mean']:.4f} / {row['cosine_min']:.4f}",
                    f"{row['same_top_k_share']:.0%} of {row['queries']} queries",
                    f"{row['top_k_overlap_mean']:.3f}",
                ]
                for name, row in data["embedding"].items()
            ],
            align="l" + "r" * 7,
        ),
        "",
        "The default embedder is `onnx-fp32`: all-MiniLM-L6-v2 exported to ONNX with attention "
        "fused, run by ONNX Runtime on length-sorted batches. It gives the plain model's vectors, "
        "so its top-5 results are the plain model's; int8 is faster but moves results, so it is "
        "opt-in (`EDGAR_RAG_EMBEDDER=minilm-int8`).",
        "",
    ]


_SETS = ("figure", "narrative-item", "narrative-phrase", "narrative-item, corpus-wide")


def render_embedders(data: dict[str, Any]) -> list[str]:
    """The embedder variants' speed-ups over plain encode, and the retrieval of those whose
    vectors differ."""
    lengths, load = data["token_lengths"], data["load_average"]
    retrieval = data["retrieval"]
    default_per_s = data["variants"]["onnx-fp32"]["chunks_per_s"]
    return [
        "## Embedder variants: speed against plain encode, and retrieval held or not",
        "",
        "Written by `make bench-embedders` (`edgar-rag dev bench embedders`). "
        f"Plain `SentenceTransformer.encode` and each variant took turns over the same "
        f"{data['chunks']} chunks (every {data['stride']}th of {', '.join(data['filings'])}), "
        f"median of {data['rounds']} round(s); the 1-minute load average was {load[0]} when the "
        f"timing began and {load[1]} when it ended. Plain encode: "
        f"{data['plain_chunks_per_s']} chunks/s.",
        "",
        *table(
            [
                "variant",
                "chunks/s",
                "speed-up over plain",
                "over onnx-fp32",
                "cosine to plain (mean / min)",
            ],
            [
                [
                    name,
                    row["chunks_per_s"],
                    f"{row['speedup']:.2f}x",
                    f"{row['chunks_per_s'] / default_per_s:.2f}x",
                    f"{row['cosine_mean']:.4f} / {row['cosine_min']:.4f}",
                ]
                for name, row in data["variants"].items()
            ],
            align="lrrrr",
        ),
        "",
        "`onnx-int8` quantizes each weight MatMul's input with one scale per tensor; "
        "`onnx-int8-block` uses ONNX Runtime's MatMulNBits instead, 8-bit weights and "
        "activations with one scale per block of 32 values (per token), "
        "`EDGAR_RAG_EMBEDDER=minilm-int8-block`. `torch-bf16` is plain encode with the "
        "weights cast to bfloat16 and the vectors normalised in float32 "
        "(`EDGAR_RAG_EMBEDDER=minilm-bf16`): oneDNN runs it on the CPU's AVX-512 BF16 "
        "instructions where they exist and emulates them elsewhere, more slowly and not "
        "bit for bit alike, so it is never the default. Batch 1 pads nothing.",
        "",
        f"Sequence length: the corpus's {lengths['chunks']} chunks are {lengths['p50']:.0f} model "
        f"tokens at the median, {lengths['p90']:.0f} at P90, {lengths['p99']:.0f} at P99, "
        f"{lengths['max']} at most; {lengths['share_over_256']:.1%} are cut at the model's 256, "
        f"{lengths['share_over_128']:.1%} would be cut at 128.",
        "",
        "Retrieval, the whole corpus re-embedded with each scored variant (the same chunks), the "
        "retrieval evaluation's default search; recall@5 / MRR per question set. "
        "Held: every set within one question of the default (`onnx-fp32`). "
        f"{_unscored(data)}",
        "",
        *table(
            [
                "variant",
                *(
                    f"{name} (n={retrieval['onnx-fp32']['scores'][name]['n']:.0f})"
                    for name in _SETS
                ),
                "held",
            ],
            [
                [
                    name,
                    *(
                        f"{row['scores'][s]['recall@5']:.4f} / {row['scores'][s]['mrr']:.4f}"
                        for s in _SETS
                    ),
                    "yes" if row["holds_recall"] else "no",
                ]
                for name, row in retrieval.items()
            ],
            align="lrrrrl",
        ),
        "",
        *_embedders_verdict(data),
        "",
    ]


def _unscored(data: dict[str, Any]) -> str:
    far = [
        f"`{name}`"
        for name, row in data["variants"].items()
        if name not in data["retrieval"] and row["cosine_mean"] < 0.999
    ]
    if not far:
        return "Every other variant differs from a scored one only in batch size or threads."
    return (
        f"Not scored, as their cosine to plain is under 0.999 (mean): {', '.join(far)}; the "
        "others differ from a scored one only in batch size or threads."
    )


def _embedders_verdict(data: dict[str, Any]) -> list[str]:
    held = [
        (data["variants"][name]["speedup"], name)
        for name, row in data["retrieval"].items()
        if row["holds_recall"] and name != "onnx-fp32"
    ]
    if not held:
        return ["No variant whose vectors differ held recall; the default stays `onnx-fp32`."]
    speedup, name = max(held)
    verdict = "reaches" if speedup >= 3 else "falls short of"
    default = data["variants"]["onnx-fp32"]["speedup"]
    return [
        f"Fastest variant that held recall: `{name}`, {speedup:.2f}x plain encode, which {verdict} "
        f"3x, and {speedup / default:.2f}x the default `onnx-fp32` ({default:.2f}x plain in the "
        "same run: plain encode loses most when other processes share the cores, so read the "
        "ratio to the default beside the load average). The default stays `onnx-fp32` (every "
        "recorded model tape depends on its retrieval)."
    ]


def _search_latency(data: dict[str, Any]) -> list[str]:
    search, memory = data["search"], data["memory"]
    corpus_chunks = data["corpus_counts"]["chunks"]
    return [
        f"## Search latency (embed + search + fuse), whole corpus indexed ({corpus_chunks} "
        f"chunks), {search['sqlite']['queries']} questions",
        "",
        *table(
            ["store", "scoped P50 ms", "scoped P95 ms", "corpus-wide P50 ms", "corpus-wide P95 ms"],
            [
                [
                    store,
                    *(
                        search[store][where][key]
                        for where in ("scoped", "corpus")
                        for key in ("p50_ms", "p95_ms")
                    ),
                ]
                for store in ("sqlite", "postgres")
            ],
            align="lrrrr",
        ),
        "",
        f"Memory: corpus-wide search holds the vector matrix in memory, {corpus_chunks} x 384 "
        f"float32 = {corpus_chunks * 384 * 4 / 2**20:.0f} MiB; the benchmark process as a whole, "
        f"with three embedders loaded for the comparison, peaked at "
        f"{memory['search_process_mib']:.0f} MiB RSS.",
        "",
    ]


def _share(every: int, total: int) -> str:
    if every == 1:
        return f"All {total} questions"
    return f"Every {every}{'nd' if every == 2 else 'th'} of the {total} questions"


def render_model(model: dict[str, Any]) -> list[str]:
    """The local model process (``make bench-model``): load parameters, then ``ask`` timings."""
    configs = model["configs"]
    default = next(iter(configs.values()))
    flags = ", ".join(model["cpu_flags"]) or "none of AVX2, AVX-512, AMX"
    lines = [
        "## The local model process: load parameters side by side",
        "",
        f"Written by `make bench-model` (`edgar-rag dev bench model`) on this CPU ({flags}; "
        f"{model['threads']} threads): one model process per configuration, all running at "
        f"once, asked the same {default['requests']} golden dev prompts in turn; tokens per "
        "second are llama.cpp's own counters (prompt tokens counted are those evaluated, after "
        "the reused prefix).",
        "",
        *table(
            [
                "configuration",
                "load s",
                "prompt tok/s",
                "generated tok/s",
                "request P50 s",
                "vs first: prompt",
                "vs first: generated",
                "same text as first",
            ],
            [
                [
                    name,
                    f"{row['load_s']:.2f}",
                    f"{row['prompt_tok_s']:.1f}",
                    f"{row['generate_tok_s']:.1f}",
                    f"{row['request_s_p50']:.2f}",
                    f"{row['prompt_tok_s'] / default['prompt_tok_s']:.2f}x",
                    f"{row['generate_tok_s'] / default['generate_tok_s']:.2f}x",
                    f"{row['same_text_as_default']} of {row['requests']}",
                ]
                for name, row in configs.items()
            ],
            align="l" + "r" * 7,
        ),
    ]
    fastest = min(configs, key=lambda name: configs[name]["request_s_p50"])
    lines += [
        "",
        f"Fastest request here: {fastest}; the default is repack off "
        "(`EDGAR_RAG_MODEL_REPACK=false`). llama.cpp is compiled for the CPU at hand with AMX "
        "left out (`NO_AMX` in the Makefile), and the model process never repacks weights on a "
        "build that has AMX: that pairing crashes the model on its first decode (RUNTIME.md). "
        + (
            "This CPU has AMX."
            if "amx_int8" in model["cpu_flags"]
            else "This CPU has no AMX, so the flags leave its build as it would be without them."
        ),
        "",
    ]
    if "ask" in model:
        ask = model["ask"]
        lines += [
            "## `edgar-rag ask` as a new process",
            "",
            f"{_share(model['ask_every'], model['ask_of'])} of the golden dev split "
            f"({ask['warm']['questions']} asked) on `build/corpus.db`, each a new `edgar-rag ask "
            "--json` process timed from the shell: *cold* with no model process (each call "
            "starts one, and it loads the model), *warm* with the model process running.",
            "",
            *_ask_table(ask),
            "",
        ]
    if "ask_narrative" in model:
        ask = model["ask_narrative"]
        lines += [
            f"{_share(model['ask_narrative_every'], model['ask_narrative_of'])} of the "
            f"hand-written narrative set, both splits ({ask['warm']['questions']} asked, each in "
            "its scope: a filing or the whole corpus), the same way; their prompts hold fewer, "
            "longer passages, so the model reads more before it writes.",
            "",
            *_ask_table(ask),
            "",
        ]
    if "narrative_arms" in model:
        lines += _arms_section(model["narrative_arms"], model["narrative_arms_of"])
    return lines


def _arms_section(arms: dict[str, Any], of: int) -> list[str]:
    """The narrative arms (issue 41): ``ask`` with the model process running, arm by arm."""
    first_name, first = next(iter(arms.items()))
    asked = first["questions"]
    return [
        "## Narrative answers, arm by arm",
        "",
        f"{asked} of the {of} hand-written narrative questions, spread over the set, each "
        "asked as a new `edgar-rag ask --json` process with the arm's model process running; "
        "the arms take each question in turn. *Generate* is the answer's own generation time; "
        "*model CPU* the CPU seconds the arm's model process spent on it (its threads spin "
        "while they wait for a core, so other work on the cores inflates it too); "
        f"*same answer* counts answers (or decline reasons) word for word those of "
        f"{first_name}.",
        "",
        *table(
            [
                "arm",
                "questions",
                "failed",
                "P50 s",
                "P95 s",
                "generate P50 s",
                "model CPU P50 s",
                "generated tokens P50",
                "vs first: P50",
                "same answer",
            ],
            [
                [
                    name,
                    row["questions"],
                    row["failed"],
                    f"{row['p50_s']:.2f}",
                    f"{row['p95_s']:.2f}",
                    f"{row['generate_p50_s']:.2f}",
                    f"{row.get('model_cpu_p50_s', 0.0):.2f}",
                    f"{row['generated_tokens_p50']:g}",
                    f"{row['p50_s'] / first['p50_s']:.2f}x",
                    f"{row['same_as_first']} of {row['questions']}",
                ]
                for name, row in arms.items()
            ],
            align="l" + "r" * 9,
        ),
        "",
        *[
            f"Answers of {name} that differ from {first_name}'s: "
            + ", ".join(f"`{d['id']}`" for d in row["differing"])
            + " (docs/performance.json holds both texts)."
            for name, row in arms.items()
            if row.get("differing")
        ],
        "",
    ]


def _ask_table(ask: dict[str, Any]) -> list[str]:
    return table(
        ["model process", "questions", "failed", "P50 s", "P95 s"],
        [
            [
                mode,
                ask[mode]["questions"],
                ask[mode]["failed"],
                f"{ask[mode]['p50_s']:.2f}",
                f"{ask[mode]['p95_s']:.2f}",
            ]
            for mode in ("cold", "warm")
        ],
        align="lrrrr",
    )


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def render_load(load: dict[str, Any], filings: int, chunks: int) -> list[str]:
    """The service-under-load section of docs/performance.md (``make bench-load``)."""
    tape = load["tape"]
    recorded = [s for s in tape["recorded_generation_s"] if s > 0]
    lines = [
        "## The HTTP service under load",
        "",
        "Written by `make bench-load` (`edgar-rag dev bench load`; `make bench` runs it "
        f"too). `edgar-rag serve` runs in its own process on loopback over the whole corpus "
        f"({filings} filings, {chunks} chunks, SQLite, onnx-fp32 embedder). The clients run in "
        "the benchmark's process (one asyncio loop, httpx), on the same "
        f"{load['cpus']} cores as the server; each sends its next request as soon as its last "
        f"one returned, for {load['seconds_per_level']:g} s per row after a warm-up, cycling "
        f"through {len(load['questions'])} questions ({'; '.join(load['questions'])}).",
        "",
        f"`/ask` replays the model's answers from a tape (`{tape['generator']}`, recorded "
        f"once into `build/bench/` with {len(recorded)} generations of "
        f"{min(recorded, default=0):.1f} to {max(recorded, default=0):.1f} s, re-recorded when "
        "a prompt changes): its rows time the pipeline around the model (embed, search, "
        "guards, prompt, verify, the HTTP round trip), not the model. This server had "
        f"{load['slots_for_levels']} generation slots so that every `/ask` got one; with the "
        "default single slot a question for the model waits in the queue or is turned away "
        "(next section). The machine is shared: its 1-minute load average was "
        f"{load['load_average_1m_at_start']} when the run began and "
        f"{load['load_average_1m_at_end']} when it ended, so compare rows of one run.",
        "",
        *table(
            [
                "endpoint",
                "clients",
                "requests",
                "200",
                "503",
                "other",
                "requests/s",
                "P50 ms",
                "P95 ms",
            ],
            [
                [
                    f"`{row['endpoint']}`",
                    row["clients"],
                    row["requests"],
                    row["ok"],
                    row["busy"],
                    row["other"],
                    f"{row['requests_per_s']:.1f}",
                    _ms(row["p50_ms"]),
                    _ms(row["p95_ms"]),
                ]
                for row in load["levels"]
            ],
            align="l" + "r" * 8,
        ),
    ]
    lines += _saturation_lines(load["saturation"])
    return lines


def _saturation_lines(saturation: dict[str, Any]) -> list[str]:
    rounds, queue, burst = saturation["rounds"], saturation["queue"], saturation["burst"]
    lines = [
        "",
        "### Figure questions while the model generates, and the queue",
        "",
        "A second server ran with the default one generation slot, a queue of "
        f"{queue} (the default is {saturation['queue_default']}; a round lasts as long as the "
        "generations a full queue holds), and `EDGAR_RAG_TAPE_MODE=replay-paced`: a replay "
        "sleeps as long as "
        "the generation it replays took when recorded. Figure questions are answered in code "
        f"and never wait for the slot ({'; '.join(saturation['figure_questions'])}). In each "
        f"of {rounds} rounds, {burst} figure `/ask` were sent at once with nothing generating; "
        "then the question with the shortest recorded generation of at least "
        f"{saturation['min_hold_s']:g} s ({saturation['holder_recorded_s']:.1f} s) took the "
        f"slot, {queue} more of it filled the queue, and while it generated {burst} narrative "
        f"`/ask` past the queue were sent at once, then {burst} figure `/ask` at once, then "
        f"{saturation['one_at_a_time_per_round']} figure `/ask` and as many `/search` one at a "
        "time. Times are from sending a request to its whole reply.",
        "",
    ]
    rows = []
    for label, key in (
        (f"figure `/ask`, {burst} at once, nothing generating", "figure_at_once_idle"),
        (f"figure `/ask`, {burst} at once, while generating", "figure_at_once_generating"),
        ("figure `/ask`, one at a time, while generating", "figure_one_at_a_time_generating"),
        (f"narrative `/ask`, {burst} at once, past the full queue", "ask_past_the_queue"),
        ("`/search`, one at a time, while generating", "search_while_held"),
        ("`/search`, one at a time, before any generation (same server)", "search_idle"),
        ("the narrative `/ask` holding the slot", "holder"),
        ("the narrative `/ask` waiting in the queue", "queued"),
    ):
        row = saturation[key]
        replies = ", ".join(f"{count} x {status}" for status, count in row["statuses"].items())
        rows.append(
            [
                label,
                row["requests"],
                replies,
                row["busy_with_retry_after"],
                *(_ms(row[key]) for key in ("p50_ms", "p95_ms", "max_ms")),
            ]
        )
    header = ["requests sent", "requests", "replies", "503 with Retry-After"]
    lines += table([*header, "P50 ms", "P95 ms", "max ms"], rows, align="lrlrrrr")
    lines += [
        "",
        "Each 503 said to retry after the queue ahead of it (the generation running and the "
        f"{queue} waiting) at the median time lately of a generation (a default before one "
        "has finished: round 1). The measured wait is from the 503 until the last question "
        "ahead of it had been answered, when a question sent would have had the slot at once.",
        "",
        *table(
            ["round", "Retry-After s", "measured wait P50 s", "measured wait max s"],
            [
                [
                    wait["round"],
                    ", ".join(map(str, wait["retry_after_s"])) or "-",
                    _seconds(_median(wait["waited_s"])),
                    _seconds(max(wait["waited_s"], default=None)),
                ]
                for wait in saturation["waits"]
            ],
            align="rrrr",
        ),
        "",
        "A paced replay sleeps where the model would compute: with a real generation running, "
        "figure answers and `/search` share the cores with the model, so their latency while "
        "it generates is a lower bound here.",
        "",
    ]
    return lines


def _median(values: list[float]) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


WORKERS_PROJECTED = (1, 4, 16, 64)
"""Machines like this one (2 cores, two one-thread engine workers each) in the projection."""
QUERY_MEMORY_MIB = 2048
"""The memory the issue allows a corpus-wide query process (issue 16)."""
RECALL_WANTED = 0.95
"""The recall@10 against exact search the issue asks of a corpus-wide search (issue 16)."""


def scaling_inputs(
    docs: Path,
) -> tuple[dict[str, Any], dict[str, Any] | None, dict[str, Any] | None]:
    """What docs/scaling.md is rendered from: one filing's stages (performance.json), ingest
    through the engine (cluster.json) and corpus-wide search at a million chunks (scale.json);
    the last two are None until their bench has run."""

    def read(name: str) -> dict[str, Any] | None:
        path = docs / name
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    performance = read("performance.json")
    if performance is None:
        raise FileNotFoundError(docs / "performance.json")
    return performance, read("cluster.json"), read("scale.json")


def write_scaling(docs: Path) -> None:
    """Render docs/scaling.md again from the benches it draws on."""
    (docs / "scaling.md").write_text(render_scaling(*scaling_inputs(docs)), encoding="utf-8")


def render_scaling(
    data: dict[str, Any], cluster: dict[str, Any] | None = None, scale: dict[str, Any] | None = None
) -> str:
    totals = _stage_totals(data)
    filings = len(data["stages"])
    per_filing = {
        key: totals[key] / filings
        for key in ("parse_s", "chunk_s", "embed_s", "store_sqlite_s", "store_postgres_s")
    }
    counts = data["corpus_counts"]
    chunks_per_filing = counts["chunks"] / counts["filings"]
    bytes_per_chunk = data["memory"]["sqlite_bytes_per_chunk"]
    year_chunks = EDGAR_10K_PER_YEAR * chunks_per_filing
    engine = engine_rate(cluster)
    embed_share = per_filing["embed_s"] / sum(per_filing.values())
    lines = [
        "# Scaling past one machine",
        "",
        "Written by `make bench`, `make bench-cluster` and `make bench-scale` from "
        "`docs/performance.json`, `docs/cluster.json` and `docs/scale.json`; every figure "
        "below is one of theirs or computed from them, with the assumption it rests on.",
        "",
        f"## One filing, measured here (mean of {filings})",
        "",
        *table(
            [
                "parse s",
                "chunk s",
                "embed s",
                "store SQLite s",
                "store PostgreSQL s",
                "chunks",
                "KiB stored per chunk",
            ],
            [
                [
                    f"{per_filing['parse_s']:.2f}",
                    f"{per_filing['chunk_s']:.3f}",
                    f"{per_filing['embed_s']:.1f}",
                    f"{per_filing['store_sqlite_s']:.2f}",
                    f"{per_filing['store_postgres_s']:.2f}",
                    f"{totals['chunks'] / filings:.0f}",
                    f"{bytes_per_chunk / 1024:.1f}",
                ]
            ],
            align="r" * 7,
        ),
        "",
        f"The corpus indexed here holds {chunks_per_filing:.0f} chunks a filing on average "
        f"({counts['chunks']:,} chunks, {counts['filings']} filings); "
        f"a year of EDGAR, about {EDGAR_10K_PER_YEAR:,} 10-Ks, is then about "
        f"{year_chunks / 1e6:.1f} million chunks and {year_chunks * bytes_per_chunk / 2**30:,.0f} "
        "GiB of SQLite index (text, vectors, facts, full-text index).",
        "",
        *_year_through_the_engine(engine, chunks_per_filing, embed_share),
        *_year_of_search(scale, year_chunks),
        *_all_of_edgar(engine, chunks_per_filing, bytes_per_chunk),
        "## The path",
        "",
        "- Ingest is a function of one filing (`edgar_rag.ingest.pipeline.ingest_filing`: "
        "bytes in, values out, no I/O), and so is embedding a filing's chunks. "
        "`edgar-rag ingest --cluster local|tcp://scheduler:8786` runs each filing as a task "
        "on Dask distributed, each worker writing its filing to PostgreSQL in one "
        "transaction; Dask was chosen over Ray by install size, start time and a killed "
        "worker's task retried, measured in [ingest on a distributed engine](cluster.md).",
        "- A scoped search never leaves its filing, so the chunks table can be distributed "
        "by CIK (Citus `create_distributed_table('chunks', 'cik')`, with filings, sections "
        "and facts co-located): a scoped query touches one shard, exact cosine over one "
        "filing's few hundred rows. Corpus-wide search fans out to every shard's HNSW index "
        "and merges the top k.",
        "- Embedding dominates; it is the stage to put on accelerators or spread widest.",
        "",
    ]
    return "\n".join(lines)


def engine_rate(cluster: dict[str, Any] | None) -> dict[str, Any] | None:
    """The engine's run with the default embedder (``docs/cluster.json``), if measured."""
    default = str(Settings.model_fields["embedder"].default)
    runs = [r for r in (cluster or {}).get("ingest", []) if r["embedder"] == default]
    return {**runs[0], "embedder": default} if runs else None


def _year_through_the_engine(
    run: dict[str, Any] | None, chunks_per_filing: float, embed_share: float
) -> list[str]:
    """A year of 10-Ks through the engine on N machines like the one measured, from the
    chunks per second of the engine's run with the default embedder."""
    if run is None:
        return ["A year through the engine: not measured yet (`make bench-cluster`).", ""]
    per_second = run["chunks"] / run["engine_s"]
    per_hour = per_second * 3600 / chunks_per_filing
    workers = run["workers"]
    rows = [
        [f"{n}", f"{per_hour * n:,.0f}", f"{EDGAR_10K_PER_YEAR / (per_hour * n):,.1f}"]
        for n in WORKERS_PROJECTED
    ]
    return [
        "## A year of 10-Ks through the engine",
        "",
        f"Measured (`docs/cluster.json`, embedder `{run['embedder']}`): {run['filings']} "
        f"filings, {run['chunks']:,} chunks, in {run['plain_s']:.1f} s by one plain process "
        f"with {workers} threads and {run['engine_s']:.1f} s through Dask with {workers} "
        f"one-thread workers ({run['engine_s'] / run['plain_s']:.2f}x, cluster start and "
        f"embedder loads included): {run['chunks'] / run['plain_s']:.1f} and "
        f"{per_second:.1f} chunks/s, so {per_hour:,.0f} filings an hour a machine at this "
        f"corpus's {chunks_per_filing:.0f} chunks a filing.",
        "",
        *table(
            [
                f"machines ({workers} one-thread workers each)",
                "filings/hour",
                f"hours for {EDGAR_10K_PER_YEAR:,}",
            ],
            rows,
            align="rrr",
        ),
        "",
        "Assumptions: filings are independent tasks (one filing, one task, one transaction), so "
        "the rate grows with machines until something shared saturates; embedding is the cost "
        f"({embed_share:.0%} of one filing's ingest above); the machines are like the one "
        "measured.",
        "",
    ]


def _year_of_search(scale: dict[str, Any] | None, year_chunks: float) -> list[str]:
    """Corpus-wide search over a year's chunks, scaled from the million-chunk bench."""
    if scale is None:
        return []
    name = next(
        k
        for k in scale["stores"]
        if k.endswith(f"expansion {scale['graph_parameters']['expansion_search']}")
    )
    graph = scale["stores"][name]
    growth = year_chunks / scale["chunks"]
    memory = graph["query_rss_mib"] * growth
    return [
        "## Corpus-wide search over a year",
        "",
        f"At {scale['chunks']:,} chunks (`docs/scale.json`, the store's default {name}): P50 "
        f"{graph['p50_ms']:.1f} ms, recall@10 {graph['recall_at_10']:.3f}, "
        f"{graph['query_rss_mib']:,.0f} MiB of query process, {graph['disk_mib']:,.0f} MiB of "
        f"graph file, built in {graph['build_s']:,.0f} s. A year's {year_chunks / 1e6:.1f} "
        f"million chunks is {growth:.1f}x that: a graph grows linearly with its vectors "
        f"(about {memory:,.0f} MiB of query process, {graph['disk_mib'] * growth:,.0f} MiB of "
        f"graph file); a graph search visits a number of nodes that grows about with the "
        "logarithm of their number, so its time grows far slower (not measured past "
        f"{scale['chunks']:,}).",
        "",
        *_postgres_at_scale(scale),
        "## What breaks first",
        "",
        f"- The query process's memory: about {memory:,.0f} MiB for a year's graph against the "
        f"{QUERY_MEMORY_MIB:,} MiB allowed, so one process holds at most about "
        f"{scale['chunks'] * QUERY_MEMORY_MIB / graph['query_rss_mib'] / 1e6:.1f} million "
        "chunks: past that, a year's index is split across graphs (PostgreSQL's partitions by "
        "CIK, each with its own HNSW index) and the top k merged.",
        "- Embedding time, linear in chunks: more machines (table above) or an accelerator.",
        "- PostgreSQL's writes (one transaction a filing, measured above for one writer); "
        "not measured under many concurrent writers.",
        "",
    ]


def _postgres_at_scale(scale: dict[str, Any]) -> list[str]:
    """PostgreSQL's corpus-wide search at the bench's scale: at the store's own candidate list,
    the smallest one measured that reaches the recall the issue asks (``RECALL_WANTED``), and the
    store's own list searched over one connection (the partitions one after another)."""
    parameters = scale.get("postgres_parameters")
    if not parameters:
        return []
    store_own = parameters["ef_search"]
    rows = {
        int(name.removeprefix("postgres, ef_search ")): row
        for name, row in scale["stores"].items()
        if name.removeprefix("postgres, ef_search ").isdigit() and row.get("plan_uses_hnsw", True)
    }
    if store_own not in rows:
        return []
    own = rows[store_own]
    enough = [ef for ef in sorted(rows) if rows[ef]["recall_at_10"] >= RECALL_WANTED]
    widest = max(rows)
    reached = (
        f"recall@10 reaches {RECALL_WANTED} first at ef_search {enough[0]}, P50 "
        f"{rows[enough[0]]['p50_ms']:.1f} ms"
        if enough
        else f"no ef_search measured reaches recall@10 {RECALL_WANTED} (at {widest}: "
        f"{rows[widest]['recall_at_10']:.3f}, P50 {rows[widest]['p50_ms']:.1f} ms)"
    )
    partitions = parameters["partitions"]
    connections = parameters.get("search_connections", 1)
    spread = f", searched over {connections} connections at once" if connections > 1 else ""
    half = " of half-precision vectors" if parameters.get("dtype") == "halfvec" else ""
    return [
        f"PostgreSQL at the same {scale['chunks']:,} chunks (`docs/scale.md`: {partitions} "
        f"partitions by CIK, an HNSW index each{half}{spread}, {own['disk_mib']:,.0f} MiB of "
        "indexes "
        f"built in {own['build_s']:,.0f} s): at the store's own ef_search ({store_own}) P50 "
        f"{own['p50_ms']:.1f} ms with recall@10 {own['recall_at_10']:.3f}; {reached}."
        + _one_connection(scale["stores"], store_own, own)
        + _postgres_memory(own),
        "",
    ]


def _postgres_memory(own: dict[str, Any]) -> str:
    if own["query_rss_mib"] <= QUERY_MEMORY_MIB:
        return ""
    pss = own.get("query_pss_mib")
    measured = (
        f"between {pss:,.0f} MiB (proportional set size: a page the processes share counted "
        f"once) and {own['query_rss_mib']:,.0f} MiB (peak RSS: counted by each process)"
        if pss is not None
        else f"{own['query_rss_mib']:,.0f} MiB as measured (each process counting the cached "
        "index pages it read)"
    )
    verdict = (
        f"over the {QUERY_MEMORY_MIB:,} MiB allowed"
        if pss is None or pss > QUERY_MEMORY_MIB
        else f"the {QUERY_MEMORY_MIB:,} MiB allowed lies between the two"
    )
    return (
        f" Its query processes' memory (the client and the server processes that searched) is "
        f"{measured}: {verdict}; the HNSW indexes alone are {own['disk_mib']:,.0f} MiB, and a "
        "search is fast only while they stay in memory."
    )


def _one_connection(stores: dict[str, Any], ef_search: int, own: dict[str, Any]) -> str:
    alone = stores.get(f"postgres, ef_search {ef_search}, 1 connection")
    if alone is None:
        return ""
    return (
        f" Over one connection, which searches the partitions one after another, the same list "
        f"takes P50 {alone['p50_ms']:.1f} ms ({alone['p50_ms'] / own['p50_ms']:.1f}x)."
    )


def _all_of_edgar(
    run: dict[str, Any] | None, chunks_per_filing: float, bytes_per_chunk: float
) -> list[str]:
    all_filings = EDGAR_10K_PER_YEAR * YEARS_OF_EDGAR
    storage_gib = all_filings * chunks_per_filing * bytes_per_chunk / 2**30
    work = ""
    if run is not None:
        machine_hours = all_filings * chunks_per_filing / (run["chunks"] / run["engine_s"]) / 3600
        work = f"about {machine_hours:,.0f} machine-hours through the engine as measured, and "
    return [
        "## All of EDGAR's 10-Ks",
        "",
        f"At about {EDGAR_10K_PER_YEAR:,} 10-Ks a year for {YEARS_OF_EDGAR} years "
        f"({all_filings:,} filings): {work}{storage_gib:,.0f} GiB of SQLite index.",
        "",
    ]


def record_entry(json_path: Path, key: str, entry: Any) -> None:
    """Set the ``key`` entry of a bench's JSON, keeping the other benches' entries, and render
    its pages again."""
    data = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else {}
    data[key] = entry
    json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    write_performance(json_path)


def write_performance(json_path: Path) -> None:
    data = json.loads(json_path.read_text(encoding="utf-8"))
    json_path.with_name("performance.md").write_text(render_performance(data), encoding="utf-8")
    write_scaling(json_path.parent)


README_BEGIN = "<!-- figures: rendered from docs/*.json by scripts/check_docs.py; do not edit -->"
README_END = "<!-- end of figures -->"


def render_readme_figures(docs: Path, after: Sequence[str] = ()) -> str:
    """The README's measured figures, each taken from the JSON a command wrote, then the lines
    ``after`` (what the evaluation sets measure: bench does not import eval)."""
    figures: list[_Figure] = []
    items_path = docs / "items.json"
    if items_path.exists():
        summary = json.loads(items_path.read_text(encoding="utf-8"))["summary"]["ours"]
        figures.append(
            (
                f"10-K Items found (of 23), mean over {summary['filings']} filings",
                str(summary["mean_found"]),
                "[items](docs/items.md)",
            )
        )
    performance_path = docs / "performance.json"
    if performance_path.exists():
        data = json.loads(performance_path.read_text(encoding="utf-8"))
        fp32 = data["embedding"]["onnx-fp32"]
        sqlite = data["search"]["sqlite"]
        figures += [
            (
                "embedding speed-up over plain `SentenceTransformer.encode` (same top-5 on "
                f"{fp32['same_top_k_share']:.0%} of queries)",
                f"{fp32['speedup']:.2f}x",
                _PERFORMANCE,
            ),
            (
                "scoped search P50 / corpus-wide P50, SQLite, whole corpus",
                f"{sqlite['scoped']['p50_ms']} ms / {sqlite['corpus']['p50_ms']} ms",
                _PERFORMANCE,
            ),
        ]
        if "load" in data:
            figures += _load_figures(data["load"])
        if "ask" in data.get("model", {}):
            figures += _ask_figures(data["model"])
        if "cli" in data:
            figures += _cli_figures(data["cli"])
        if "install" in data:
            figures += install_figures(data["install"])
    for name, render in _EXTRA_FIGURES:
        path = docs / name
        if path.exists():
            figures += render(json.loads(path.read_text(encoding="utf-8")))
    lines = table(["measured", "figure", "page"], figures)
    tail = ["", *after] if after else []
    return "\n".join([README_BEGIN, "", *lines, *tail, "", README_END])


_Figure = tuple[str, str, str]
"""A row of the README's figures: what was measured, the figure, the page it comes from."""
_PERFORMANCE = "[performance](docs/performance.md)"


def _ask_figures(model: dict[str, Any]) -> list[_Figure]:
    asked = [("ask", "golden dev questions")]
    if "ask_narrative" in model:
        asked.append(("ask_narrative", "narrative questions"))
    return [
        (
            "`edgar-rag ask` as a new process, P50 with the model process running / without "
            f"({model[key]['warm']['questions']} {what}, {model['threads']} cores)",
            f"{model[key]['warm']['p50_s']:.2f} s / {model[key]['cold']['p50_s']:.2f} s",
            _PERFORMANCE,
        )
        for key, what in asked
    ] + _arm_figures(model)


def _arm_figures(model: dict[str, Any]) -> list[_Figure]:
    if "narrative_arms" not in model:
        return []
    arms = model["narrative_arms"]
    return [
        (
            "`edgar-rag ask` as a new process with the model process running, narrative "
            f"answers, P50 by arm ({next(iter(arms.values()))['questions']} questions, "
            f"{model['threads']} cores): " + " / ".join(arms),
            " / ".join(f"{row['p50_s']:.2f} s" for row in arms.values()),
            _PERFORMANCE,
        )
    ]


def _cli_figures(cli: dict[str, Any]) -> list[_Figure]:
    rows = cli["commands"]
    light = ["edgar-rag --version", "edgar-rag --help", "edgar-rag filings"]
    return [
        (
            "`edgar-rag --version` / `--help` / `filings` as new processes, P50 (and over "
            f"`python -c pass` in the same rounds), {cli['cpus']} cores",
            " / ".join(
                f"{rows[name]['p50_s']:.2f} s ({rows[name]['vs_python']:.1f}x)" for name in light
            ),
            _PERFORMANCE,
        )
    ] + [
        (
            f"`{name}` as a new process, P50 and peak memory, {cli['cpus']} cores",
            f"{row['p50_s']:.2f} s, {row['peak_mib']:.0f} MiB",
            _PERFORMANCE,
        )
        for name, row in rows.items()
        if name.startswith("edgar-rag ask") and "peak_mib" in row
    ]


def _load_figures(load: dict[str, Any]) -> list[_Figure]:
    search = max(
        (row for row in load["levels"] if row["endpoint"] == "/search"),
        key=lambda row: row["clients"],
    )
    saturation = load["saturation"]
    burst = saturation["burst"]
    idle, generating = (
        saturation[key] for key in ("figure_at_once_idle", "figure_at_once_generating")
    )
    last = saturation["waits"][-1]
    return [
        (
            f"`/search` over HTTP, {search['clients']} clients at once: requests/s, P95",
            f"{search['requests_per_s']:.1f}/s, {_ms(search['p95_ms'])} ms",
            _PERFORMANCE,
        ),
        (
            f"figure `/ask` sent {burst} at once ({idle['requests']} in all): answered, P95",
            f"{idle['statuses'].get('200', 0)}/{idle['requests']}, {_ms(idle['p95_ms'])} ms",
            _PERFORMANCE,
        ),
        (
            f"figure `/ask` sent {burst} at once while a narrative answer generates "
            f"({generating['requests']} in all): answered, P95",
            f"{generating['statuses'].get('200', 0)}/{generating['requests']}, "
            f"{_ms(generating['p95_ms'])} ms",
            _PERFORMANCE,
        ),
        (
            f"503 past a full queue of {saturation['queue']}: Retry-After told / the measured "
            "wait until the questions ahead were answered, P50 (last round)",
            f"{', '.join(map(str, last['retry_after_s'])) or '-'} s / "
            f"{_seconds(_median(last['waited_s']))} s",
            _PERFORMANCE,
        ),
    ]


def _retrieval_figures(data: dict[str, Any]) -> list[_Figure]:
    default = data["arms"][data["default_arm"]]
    page = "[retrieval](docs/retrieval.md)"
    return [
        (
            "XBRL figure questions: passage printing the figure in the top 5, scoped "
            f"({int(default['figure']['n'])} questions)",
            f"{default['figure']['recall@5']:.3f}",
            page,
        ),
        (
            "narrative questions: expected Item in the top 5, scoped "
            f"({int(default['narrative-item']['n'])} questions)",
            f"{default['narrative-item']['recall@5']:.3f}",
            page,
        ),
    ]


def _answering_figures(report: dict[str, Any]) -> list[_Figure]:
    """The default gate's arm of each split, and the dev split's cost, from the evaluation
    report (docs/eval/report.json)."""
    if "dev" not in report["runs"]:
        return []
    page = "[evaluation report](docs/eval/report.md)"
    figures: list[_Figure] = []
    for split in ("dev", "eval"):
        run = report["runs"].get(split)
        if run is None:
            continue
        arm = run["arms"][DEFAULT_GATE]
        correct, false = arm["correct"], arm["false_answers"]
        in_code = arm.get("correct_in_code")
        who = (
            f"{in_code} of them answered in code, the rest by the local model"
            if in_code is not None
            else "local model"
        )
        figures += [
            (
                f"answerable golden questions answered correctly ({who}), gate {DEFAULT_GATE} "
                f"({split} split)",
                _count_of(correct),
                page,
            ),
            (
                "false answers on unanswerable questions, same run",
                _count_of(false),
                page,
            ),
        ]
    cost = report["runs"]["dev"].get("cost")
    if cost is not None:
        figures.append(
            (
                "prompt tokens P50 / generator seconds P50 per question the local model answered "
                f"({cost['questions'] - cost['computed']} of {cost['questions']}; the rest in "
                "code), 2 cores (dev split)",
                f"{cost['prompt_tokens_p50']:.0f} / {cost['generator_s_p50']:.2f} s",
                page,
            )
        )
    return figures


def _count_of(share: dict[str, Any]) -> str:
    return f"{share['count']}/{share['n']} = {share['count'] / max(share['n'], 1):.1%}"


def _computed_figures(report: dict[str, Any]) -> list[_Figure]:
    """The derived computed questions' eval split and latency (docs/computed.json)."""
    counts = report["derived"]["by_split"]["eval"]
    total = sum(counts.values())
    page = "[computed answers](docs/computed.md)"
    latency = report["derived"]["latency_ms"]
    return [
        (
            "derived computed questions (generated from the metric library's own words, gold "
            f"from its calculator) answered correctly / wrongly, no model (eval split, {total} "
            "questions)",
            f"{counts['correct'] / total:.1%} / {counts['wrong'] / total:.1%}",
            page,
        ),
        (
            "a figure answered in code: P50 inside one running process / `edgar-rag ask` as a "
            "new process from the shell",
            f"{latency['p50']} ms / {report['derived']['process_ms']['p50'] / 1000:.2f} s",
            page,
        ),
    ]


def _narrative_figures(run: dict[str, Any]) -> list[_Figure]:
    """A narrative set's run (data/narrative/run-<split>.json) under the default gate:
    answerable questions answered correctly, and unanswerable ones answered at all. A record's
    outcome is the model's under no gate; the period gate declines it before the model."""
    records = [r for r in run["records"] if not ("period" in DEFAULT_GATE and r["period_declined"])]
    answerable = [r for r in run["records"] if r["kind"] != "decline"]
    unanswerable = [r for r in run["records"] if r["kind"] == "decline"]
    false = [r for r in records if r["kind"] == "decline" and r["outcome"] == "answered"]
    correct = sum(bool(r["correct"]) for r in records if r["kind"] != "decline")
    return [
        (
            "narrative questions answered correctly (the expected phrase cited) / unanswerable "
            f"ones answered, local model, gate {DEFAULT_GATE} ({run['split']} split, "
            f"{len(run['records'])} questions)",
            f"{correct}/{len(answerable)} = {correct / len(answerable):.1%} / "
            f"{len(false)}/{len(unanswerable)}",
            "[narrative answers](docs/narrative.md)",
        )
    ]


def _scale_figures(scale: dict[str, Any]) -> list[_Figure]:
    """Corpus-wide search at the scale bench's size: each store at its own search setting."""
    graph = f"graph, expansion {scale['graph_parameters']['expansion_search']}"
    measured = [("SQLite's graph", scale["stores"].get(graph))]
    parameters = scale.get("postgres_parameters")
    if parameters:
        connections = parameters.get("search_connections", 1)
        measured.append(
            (
                f"PostgreSQL ({parameters['partitions']} CIK partitions over {connections} "
                f"connection{'s' if connections > 1 else ''})",
                scale["stores"].get(f"postgres, ef_search {parameters['ef_search']}"),
            )
        )
    found = [(store, row) for store, row in measured if row is not None]
    if not found:
        return []
    return [
        (
            f"corpus-wide search over {scale['chunks']:,} synthetic chunks, P50 and recall@10 "
            f"against exact search, 2 cores: {'; '.join(store for store, _ in found)}",
            "; ".join(f"{row['p50_ms']:.1f} ms, {row['recall_at_10']:.3f}" for _, row in found),
            "[scale](docs/scale.md)",
        )
    ]


def _asks_figures(report: dict[str, Any]) -> list[_Figure]:
    """The analysts' hand-written questions' eval split (docs/asks.json): what code answers
    right and wrong, and the questions to decline that were answered."""
    groups = report["groups"]["eval"]
    answers, declines = groups["answer"], groups["decline"]
    n, m = sum(answers.values()), sum(declines.values())
    coded = report["model"] == "refuser"
    who = "by code, no model" if coded else f"code and the model {report['model']}"
    page = f"[questions as analysts ask them](docs/asks{'' if coded else '-model'}.md)"
    return [
        (
            "analysts' hand-written figure questions (gold by hand, not from the metric library) "
            f"answered correctly / wrongly, {who} (eval split, {n} questions)",
            f"{answers['correct'] / n:.1%} / {answers['wrong'] / n:.1%}",
            page,
        ),
        (
            f"questions the filing cannot answer that were answered, same run ({m} questions)",
            f"{declines['wrong']}/{m}",
            page,
        ),
    ]


_EXTRA_FIGURES: tuple[tuple[str, Callable[[dict[str, Any]], list[_Figure]]], ...] = (
    ("scale.json", _scale_figures),
    ("retrieval.json", _retrieval_figures),
    ("computed.json", _computed_figures),
    ("asks.json", _asks_figures),
    ("asks-model.json", _asks_figures),
    ("eval/report.json", _answering_figures),
    ("../data/narrative/run-dev.json", _narrative_figures),
    ("../data/narrative/run-eval.json", _narrative_figures),
)
