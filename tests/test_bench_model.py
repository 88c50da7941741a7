"""make bench-model's page: `edgar-rag ask` as a new process, on golden and narrative questions."""

from __future__ import annotations

import json
from pathlib import Path

from edgar_rag_dev.bench.model import narrative_questions
from edgar_rag_dev.bench.report import render_model

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_the_model_page_shows_asks_of_golden_and_narrative_questions() -> None:
    timed = {"questions": 31, "failed": 0, "p50_s": 9.5, "p95_s": 14.0}
    model = json.loads((DOCS / "performance.json").read_text(encoding="utf-8"))["model"]
    model |= {
        "ask_narrative": {"cold": timed, "warm": timed},
        "ask_narrative_of": len(narrative_questions()),
        "ask_narrative_every": 6,
    }
    page = "\n".join(render_model(model))
    assert "of the hand-written narrative set, both splits (31 asked" in page
    assert page.count("| model process | questions | failed | P50 s | P95 s |") == 2


def test_the_model_page_sets_the_narrative_arms_side_by_side() -> None:
    row = {"questions": 30, "failed": 0, "p95_s": 14.0, "generate_p50_s": 8.0}
    row |= {"model_cpu_p50_s": 9.0}
    model = json.loads((DOCS / "performance.json").read_text(encoding="utf-8"))["model"]
    model |= {
        "narrative_arms": {
            "prompt lookup off": row
            | {"p50_s": 10.0, "generated_tokens_p50": 40, "same_as_first": 30},
            "prompt lookup 10": row
            | {"p50_s": 5.0, "generated_tokens_p50": 40, "same_as_first": 29},
        },
        "narrative_arms_of": 185,
    }
    page = "\n".join(render_model(model))
    assert "## Narrative answers, arm by arm" in page
    assert (
        "| prompt lookup 10 | 30 | 0 | 5.00 | 14.00 | 8.00 | 9.00 | 40 | 0.50x | 29 of 30 |" in page
    )


def test_a_corpus_wide_narrative_question_is_asked_with_no_scope() -> None:
    questions = narrative_questions()
    corpus_wide = [q for q in questions if q.ticker is None]
    scoped = [q for q in questions if q.ticker is not None]
    assert corpus_wide
    assert scoped
    assert corpus_wide[0].scope_args() == []
    assert scoped[0].scope_args()[:1] == ["--ticker"]
