"""``make eval``: rebuild the evaluation pages from the committed runs, byte for byte.

``--print`` shows the arms table instead (``make result``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from edgar_rag.eval.report import render_answering, render_retrieval

PAGES = {
    Path("docs/answering.md"): (Path("data/golden/run-dev.json"), render_answering),
    Path("docs/retrieval.md"): (Path("docs/retrieval.json"), render_retrieval),
}


def rendered() -> dict[Path, str]:
    """Each evaluation page as its committed run renders it (pages whose run is absent skipped)."""
    return {
        page: render(json.loads(source.read_text(encoding="utf-8")))
        for page, (source, render) in PAGES.items()
        if source.exists()
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--print", action="store_true", help="print the arms table")
    args = parser.parse_args(argv)
    pages = rendered()
    if args.print:
        page = pages.get(Path("docs/answering.md"), "")
        start = page.find("## Arms")
        end = page.find("## What each check stops")
        sys.stdout.write(page[start:end] if start >= 0 else "no answering run committed\n")
        return 0
    for path, text in pages.items():
        path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
