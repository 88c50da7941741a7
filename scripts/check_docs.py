"""Fail when a page under docs/ (or the README's measured figures) disagrees with the JSON its
command wrote: each page is rendered again from its JSON and compared byte for byte.

``--write-readme`` first writes the README's figures block from the JSON (after a command
measured anew), so the block is never typed by hand."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from edgar_rag_dev.bench import cluster, corpus, items, pdf_readers, report, scale
from edgar_rag_dev.eval import asks, computed_answers, financebench_page, sets
from edgar_rag_dev.eval import render as evaluations
from edgar_rag_dev.eval.financebench_labels import label_problems, read_judgments

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _items() -> str:
    return items.render_markdown(*items.load_report(DOCS / "items.json"))


def _json(name: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((DOCS / name).read_text(encoding="utf-8"))
    return data


PAGES: dict[str, Callable[[], str]] = {
    "items.md": _items,
    "ingest.md": lambda: corpus.render(_json("ingest.json")),
    "financebench.md": lambda: financebench_page.render(_json("financebench.json")),
    "pdf_readers.md": lambda: pdf_readers.render(_json("pdf_readers.json")),
    "performance.md": lambda: report.render_performance(_json("performance.json")),
    "scaling.md": lambda: report.render_scaling(*report.scaling_inputs(DOCS)),
    "computed.md": lambda: computed_answers.render(_json("computed.json")),
    "asks.md": lambda: asks.render(_json("asks.json")),
    "asks-model.md": lambda: asks.render(_json("asks-model.json")),
    "scale.md": lambda: scale.render(_json("scale.json")),
    "cluster.md": lambda: cluster.render(_json("cluster.json")),
}


def main(argv: list[str]) -> int:
    if "--write-readme" in argv:
        _write_readme_figures(ROOT / "README.md")
    failures = []
    for name, render in PAGES.items():
        page = DOCS / name
        if not page.exists():
            failures.append(f"docs/{name} is missing")
            continue
        if page.read_text(encoding="utf-8") != render():
            failures.append(f"docs/{name} differs from what its JSON renders; rerun its command")
    for path, text in evaluations.rendered().items():
        if not (ROOT / path).exists() or (ROOT / path).read_text(encoding="utf-8") != text:
            failures.append(f"{path} differs from its committed run; run `make eval`")
    failures += label_problems(
        _json("financebench.json"), read_judgments(ROOT / "data/financebench/judgments.jsonl")
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = report.render_readme_figures(DOCS, sets.readme_lines())
    if block not in readme:
        failures.append("README.md's measured figures differ from docs/*.json; paste:\n" + block)
    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"docs: {len(PAGES)} pages and the README's figures match their JSON")
    return 1 if failures else 0


def _write_readme_figures(path: Path) -> None:
    readme = path.read_text(encoding="utf-8")
    start, end = readme.index(report.README_BEGIN), readme.index(report.README_END)
    block = report.render_readme_figures(DOCS, sets.readme_lines())
    path.write_text(readme[:start] + block + readme[end + len(report.README_END) :], "utf-8")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
