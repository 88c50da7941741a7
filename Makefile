# edgar-rag: every target runs inside .venv, made by `make setup`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch's CPU build lies in pip's find-links folder on these machines (see RUNTIME.md).
FIND_LINKS ?= $(shell pip config get global.find-links 2>/dev/null || echo /opt/wheels)
UV := $(BIN)/uv

.PHONY: setup lock check lint test bench docs-check clean demo

setup: $(BIN)/edgar-rag

$(BIN)/edgar-rag: pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv==0.13.8
	$(UV) pip install --python $(BIN)/python --require-hashes --find-links $(FIND_LINKS) -r requirements.lock
	$(UV) pip install --python $(BIN)/python --no-deps -e .
	touch $@

lock:
	$(UV) pip compile pyproject.toml --extra dev --find-links $(FIND_LINKS) --generate-hashes \
	  --python-version 3.11 --python-platform x86_64-unknown-linux-gnu --no-emit-find-links -o requirements.lock

lint: setup
	$(BIN)/ruff format --check src tests scripts
	$(BIN)/ruff check src tests scripts
	$(BIN)/mypy
	$(BIN)/lint-imports

test: setup
	$(BIN)/pytest -q

check: lint docs-check test

docs-check: setup
	$(BIN)/python scripts/check_docs.py

bench: setup
	$(BIN)/python -m edgar_rag.bench.ingest --corpus ../shared/corpus --out docs/performance.md

demo: setup
	$(BIN)/edgar-rag ingest --from src/edgar_rag/sample
	$(BIN)/edgar-rag filings

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
