# edgar-rag: every target runs inside .venv, made by `make setup`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
UV := $(BIN)/uv
# torch's CPU build lies in pip's find-links folder on these machines (see RUNTIME.md).
FIND_LINKS ?= $(shell pip config get global.find-links 2>/dev/null || echo /opt/wheels)
CORPUS ?= ../shared/corpus
SAMPLE := src/edgar_rag/sample
DEMO_DB ?= edgar-rag.db

.PHONY: setup lock check lint test browser docs-check bench bench-cli bench-install bench-embedders bench-load bench-model bench-scale corpus items retrieval computed asks asks-model answering narrative eval result eval-ci eval-accept demo clean

setup: $(BIN)/edgar-rag

# llama.cpp is compiled for this machine's CPU but never with AMX: on a CPU with AMX its AMX
# kernels crash the default model on the first decode (RUNTIME.md). The model process also turns
# weight repacking off on any build that has them (src/edgar_rag/model/worker.py).
NO_AMX := -mno-amx-tile -mno-amx-int8 -mno-amx-bf16

# Two editable installs: the runtime (the edgar-rag wheel's contents) and, beside it, the
# evaluations and benchmarks (dev/pyproject.toml, src/edgar_rag_dev), whose entry points add
# `edgar-rag dev`, `eval` and `thresholds`.
$(BIN)/edgar-rag: pyproject.toml dev/pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==0.13.8
	CFLAGS="$(NO_AMX)" CXXFLAGS="$(NO_AMX)" $(UV) pip install --python $(BIN)/python \
	  --require-hashes --find-links $(FIND_LINKS) -r requirements.lock
	$(UV) pip install --python $(BIN)/python --no-deps -e . -e dev
	touch $@

# The lock holds every extra: `make setup` installs all that the tests need.
ALL_EXTRAS := postgres serve mcp eval cluster model dev

lock:
	$(UV) pip compile pyproject.toml $(ALL_EXTRAS:%=--extra %) --find-links $(FIND_LINKS) \
	  --generate-hashes --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
	  --no-emit-find-links -o requirements.lock

lint: setup
	$(BIN)/ruff format --check src tests scripts
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

docs-check: setup
	$(BIN)/python scripts/check_docs.py

# The tests drive Debian's Chromium (the page) and replay the golden tapes on build/corpus.db:
# both come from here, so `make check` passes on a fresh clone with nothing run before it.
test: setup browser build/corpus.db
	$(BIN)/pytest -q

browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  test "$$(id -u)" = 0 || { echo "Chromium is missing: run 'sudo apt-get install chromium'" >&2; exit 1; }; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

check: lint docs-check test

demo: setup
	$(BIN)/edgar-rag ingest --from $(SAMPLE) --db $(DEMO_DB)
	$(BIN)/edgar-rag ask "How much net income did Apple report for fiscal year 2025?" \
	  --ticker AAPL --fiscal-year 2025 --db $(DEMO_DB)
	$(BIN)/edgar-rag ask "What was Microsoft's revenue in fiscal 2025?" \
	  --ticker AAPL --fiscal-year 2025 --db $(DEMO_DB)

# The corpus's 24 filings indexed once, for the benchmarks and evaluations below (the golden
# tapes were recorded on this index: its BM25 statistics span every filing in it).
build/corpus.db: | $(BIN)/edgar-rag
	mkdir -p build
	EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache $(BIN)/edgar-rag ingest --from $(CORPUS)/filings \
	  --db $@ > build/corpus-ingest.log || true
	@test -s $@ || { echo "$@ was not built (see build/corpus-ingest.log)" >&2; rm -f $@; exit 1; }

bench: build/corpus.db
	$(BIN)/edgar-rag dev bench ingest --corpus $(CORPUS) --index build/corpus.db \
	  --out docs/performance.json
	$(MAKE) bench-load
	$(MAKE) bench-model
	$(MAKE) bench-cli

# `edgar-rag --version`, `--help` and `filings` as whole processes, beside `python -c pass` in
# the same rounds (docs/performance.*).
bench-cli: build/corpus.db
	$(BIN)/edgar-rag dev bench cli --index build/corpus.db --out docs/performance.json

# The default install against the extras it held before issue 15 split them out, each into a
# throwaway venv with uv from this Makefile's install inputs and the uv cache `make setup`
# filled, offline (docs/performance.*).
bench-install: setup
	CFLAGS="$(NO_AMX)" CXXFLAGS="$(NO_AMX)" nice -n 15 $(BIN)/edgar-rag dev bench install \
	  --lock requirements.lock --find-links $(FIND_LINKS) --out docs/performance.json

# The local model process: weight repacking on and off side by side, then `edgar-rag ask` as a
# new process, cold and warm, over the golden dev questions (docs/performance.*).
bench-embedders: build/corpus.db
	nice -n 10 $(BIN)/edgar-rag dev bench embedders --index build/corpus.db --stride 6 \
	  --out docs/performance.json

bench-model: build/corpus.db
	$(BIN)/edgar-rag dev bench model --index build/corpus.db --every 2 --narrative-every 6 \
	  --out docs/performance.json

# The HTTP service under load, into docs/performance.*: `edgar-rag serve` on loopback replaying
# a tape under build/bench/, recorded with the local model when missing or when a prompt changed.
bench-load: build/corpus.db
	$(BIN)/edgar-rag dev bench load --index build/corpus.db --model-dir build/cache \
	  --tape build/bench/load-tape.jsonl --out docs/performance.json

# Corpus-wide search on a synthetic index of a million chunks made from build/corpus.db, into
# docs/scale.*: the vector graph, sqlite-vec (when apsw is importable) and PostgreSQL (a throwaway
# server under build/scale with shared_buffers 3GB, which holds its HNSW indexes; SCALE_POSTGRES=
# leaves it out, or names an empty database), each in its own process. Outside CI: without
# PostgreSQL about 20 minutes and 7 GiB of disk at 1M chunks on 2 shared cores, PostgreSQL adds
# about 15 minutes, 6 GiB of disk and 3 GiB of memory; SCALE_CHUNKS sets the size.
SCALE_CHUNKS ?= 1000000
SCALE_POSTGRES ?= local
bench-scale: build/corpus.db
	nice -n 15 $(BIN)/edgar-rag dev bench scale --index build/corpus.db --chunks $(SCALE_CHUNKS) \
	  --work build/scale --out docs/scale.json $(if $(SCALE_POSTGRES),--postgres '$(SCALE_POSTGRES)')

# Ingest through a local Dask cluster (two one-thread workers) against one plain process, on the
# sample, into docs/cluster.* (needs the cluster extra; the engines' own figures come from
# `python -m edgar_rag_dev.bench.engines dask|ray docs/cluster.json` in a venv of each).
.PHONY: bench-cluster
bench-cluster: setup
	$(BIN)/edgar-rag dev bench cluster --out docs/cluster.json

corpus: setup
	$(BIN)/edgar-rag dev bench corpus --corpus $(CORPUS) --out docs/ingest.json

items: setup
	$(BIN)/edgar-rag dev bench items --corpus $(CORPUS) --out docs/items.md

retrieval: build/corpus.db
	$(BIN)/edgar-rag dev eval retrieval --corpus $(CORPUS) --index build/corpus.db \
	  --out docs/retrieval.json

# The computed questions (data/computed/) through the whole answer path, no model (docs/computed.*).
computed: build/corpus.db
	EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache $(BIN)/edgar-rag dev eval computed \
	  --index build/corpus.db --out docs/computed.json

# The hand-written analyst questions (data/asks/) through the whole answer path, strictly scored
# against their hand-computed gold (docs/asks.*). --no-model: a question code leaves to the
# model counts as declined, so the page measures what code answers and declines.
asks: build/corpus.db
	EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache $(BIN)/edgar-rag dev eval asks --no-model \
	  --out docs/asks.json

# The same questions with the local model answering what code leaves to it, its generations
# recorded on data/asks/tape.jsonl (a prompt already there replays with no model), into
# docs/asks-model.* (about 30 minutes on 2 cores when nothing is recorded yet).
asks-model: build/corpus.db
	EDGAR_RAG_DB=build/corpus.db EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache \
	EDGAR_RAG_TAPE=data/asks/tape.jsonl EDGAR_RAG_TAPE_MODE=record \
	  $(BIN)/edgar-rag dev eval asks --out docs/asks-model.json

# One generation per dev-split golden question with the local model, recorded on a tape.
answering: build/corpus.db
	EDGAR_RAG_DB=build/corpus.db EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache \
	EDGAR_RAG_TAPE=data/golden/tape-dev.jsonl EDGAR_RAG_TAPE_MODE=record \
	  $(BIN)/edgar-rag dev eval answering --split dev
	$(MAKE) eval

# One generation per narrative question of each split (data/narrative/) with the local model, recorded
# on a tape; the page docs/narrative.md is rendered from the runs.
# Each split is also answered with the other passage windows and counts of NARRATIVE_ARMS (options
# of `dev eval narrative`, none for the default run; the page's passage-window table), on the same
# tapes: an arm already recorded replays with no model.
NARRATIVE_ARMS ?= none --passage-chars=500 --passage-chars=800 --passages=5
narrative: build/corpus.db
	for split in dev eval; do \
	  for arm in $(NARRATIVE_ARMS); do \
	    EDGAR_RAG_DB=build/corpus.db EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache \
	    EDGAR_RAG_TAPE=data/narrative/tape-$$split.jsonl EDGAR_RAG_TAPE_MODE=record \
	      $(BIN)/edgar-rag dev eval narrative --split $$split \
	        $$([ $$arm = none ] || echo $$arm) || exit 1; \
	  done; \
	done

# Rebuild the evaluation pages from the committed runs (no model, no index).
eval: setup
	$(BIN)/edgar-rag dev eval render

result: setup
	@$(BIN)/edgar-rag dev eval render --print

# The CI gate held to gold (issue 42): every gated set (golden and narrative both splits replayed
# from their tapes, the computed sets in code, FinanceBench replayed over its PDFs) scored against
# its gold and held to data/gates/: any question that must stay right or declined flipping, or a
# group crossing its floor, fails. No model; about 5 minutes on 2 cores.
eval-ci: build/corpus.db
	EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache $(BIN)/edgar-rag dev eval gate check

# A person's command, never run by CI: accept today's scores as the gate, listing every question
# that moved (commit data/gates/ with the list in the message). GATE_SETS="--set narrative" limits it.
eval-accept: build/corpus.db
	EDGAR_RAG_MODEL_DIR=$(CURDIR)/build/cache $(BIN)/edgar-rag dev eval gate accept $(GATE_SETS)

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
