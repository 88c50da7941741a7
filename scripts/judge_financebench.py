"""Judge FinanceBench answers no rule decides, by hand (issue 39).

``python scripts/judge_financebench.py`` prints each unjudged answer of docs/financebench.json
with its question and gold, to read. ``python scripts/judge_financebench.py ID VERDICT --why
TEXT [--failure KIND]`` writes a person's verdict (correct, incorrect or declined; an incorrect
one names what went wrong) on that row's exact answer text to data/financebench/judgments.jsonl.
Then rerun ``edgar-rag eval financebench --replay`` so the page counts it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from edgar_rag_dev.eval.financebench_labels import (
    DEFAULT_JUDGMENTS,
    Judgment,
    answer_sha256,
    write_judgment,
)

ROOT = Path(__file__).resolve().parent.parent


def _rows(report: Path) -> dict[str, dict[str, Any]]:
    rows: list[dict[str, Any]] = json.loads(report.read_text(encoding="utf-8"))["rows"]
    return {row["id"]: row for row in rows}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("id", nargs="?", help="financebench_id, or its last five digits")
    parser.add_argument("verdict", nargs="?", choices=("correct", "incorrect", "declined"))
    parser.add_argument("--why", help="why, in a sentence a reader can check against the gold")
    parser.add_argument("--failure", help="what went wrong, for an incorrect answer")
    parser.add_argument("--report", type=Path, default=ROOT / "docs/financebench.json")
    args = parser.parse_args(argv)
    rows = _rows(args.report)
    if args.id is None:
        for unjudged in rows.values():
            if unjudged["label"]["verdict"] == "unjudged":
                print(f"== {unjudged['id']} ({unjudged['label']['how']})")
                print(f"Q: {unjudged['question']}\nG: {unjudged['gold']}")
                print(f"A: {unjudged['answer']['text']}\n")
        return 0
    key = args.id if args.id.startswith("financebench_id_") else f"financebench_id_{args.id}"
    row = rows.get(key)
    if row is None or row["answer"]["text"] is None:
        print(f"{key}: no answer to judge in {args.report}", file=sys.stderr)
        return 1
    if args.verdict is None or not args.why:
        parser.error("a verdict and --why are needed to judge")
    text = row["answer"]["text"]
    judgment = Judgment(
        id=key,
        answer_sha256=answer_sha256(text),
        answer=text,
        gold=row["gold"],
        verdict=args.verdict,
        failure=args.failure,
        why=args.why,
    )
    write_judgment(ROOT / DEFAULT_JUDGMENTS, judgment)
    print(f"judged {key} {args.verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
