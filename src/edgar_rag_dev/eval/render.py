"""``make eval``: rebuild the evaluation pages from the committed runs, byte for byte (the
golden set's and the narrative set's).

``--print`` shows the arms table instead (``make result``).
"""

from __future__ import annotations

import json
from pathlib import Path

from edgar_rag_dev.eval.golden import read_golden
from edgar_rag_dev.eval.narrative import NARRATIVE_PAGE, narrative_page
from edgar_rag_dev.eval.report import render_answering, render_retrieval
from edgar_rag_dev.eval.report_figures import report_figures
from edgar_rag_dev.eval.report_page import SPLITS, render_report

PAGES = {
    Path("docs/answering.md"): (Path("data/golden/run-dev.json"), render_answering),
    Path("docs/retrieval.md"): (Path("docs/retrieval.json"), render_retrieval),
}
GOLDEN = Path("data/golden/questions.jsonl")
REPORT_JSON = Path("docs/eval/report.json")
REPORT_PAGE = Path("docs/eval/report.md")


def _run_path(split: str) -> Path:
    return Path(f"data/golden/run-{split}.json")


def rendered() -> dict[Path, str]:
    """Each evaluation page as its committed run renders it (pages whose run is absent skipped),
    and the evaluation report with its JSON when any split's run is committed."""
    pages = {
        page: render(json.loads(source.read_text(encoding="utf-8")))
        for page, (source, render) in PAGES.items()
        if source.exists()
    }
    runs = {
        split: (str(_run_path(split)), json.loads(_run_path(split).read_text(encoding="utf-8")))
        for split in SPLITS
        if _run_path(split).exists()
    }
    if runs:
        report = report_figures(runs, read_golden(GOLDEN))
        pages[REPORT_JSON] = json.dumps(report, indent=1) + "\n"
        pages[REPORT_PAGE] = render_report(report)
    narrative = narrative_page()
    if narrative is not None:
        pages[NARRATIVE_PAGE] = narrative
    return pages


def write_pages() -> None:
    """Write each page that ``rendered`` returns (``make eval``)."""
    for path, text in rendered().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def arms_table() -> str:
    """The evaluation report's arms table, as ``make result`` prints it."""
    page = rendered().get(REPORT_PAGE, "")
    start = page.find("## Arms")
    end = page.find("\n## ", start + 1)
    return page[start:end] + "\n" if start >= 0 else "no answering run committed\n"
