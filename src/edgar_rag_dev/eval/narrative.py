"""The narrative answer evaluation: the hand-written set of ``data/narrative/questions.jsonl``
through the same answer path, arms and statistics as the golden set.

Each question is searched once and generated once (company guard off, as the golden runner does);
every arm is a mask over that generation (``edgar_rag_dev.eval.report.arm_outcome``). An answer is
correct (the strict rule of issue 42) when it is not declined, its cited quote of the expected
filing itself holds the question's phrase (or a listed equivalent) and its own text states it:
the phrase's words for a prose question, the figure with its unit for a figure question. A
decline question is answered falsely when anything is answered. The run is written to
``data/narrative/run-<split>.json``; the page is a pure function of the runs.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import closing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from edgar_rag.answer.answerer import COMPUTED, Answerer
from edgar_rag.answer.numbers import find_figures, passage_figures, supports
from edgar_rag.answer.prepared import Prepared
from edgar_rag.domain import Generation, Reason, Response
from edgar_rag.markdown import interval, share, table
from edgar_rag.model.tapes import NotRecorded
from edgar_rag_dev.eval.answering import guards_declining, read_partial
from edgar_rag_dev.eval.report import ARMS, arm_outcome
from edgar_rag_dev.eval.sets import NARRATIVE_SET
from edgar_rag_dev.eval.strict import Gold, Unit, half_step_of, states_gold

QUESTIONS = Path("data/narrative/questions.jsonl")
ITEM_PATTERN = r"^(Item \d{1,2}[A-C]?|Cover|Document)$"
KINDS = ("prose", "figure", "decline")

Topic = Literal[
    "risk",
    "segment",
    "strategy",
    "competition",
    "people",
    "cyber",
    "legal",
    "property",
    "market-risk",
    "accounting",
    "controls",
    "capital",
    "supply",
    "regulation",
    "shares",
    "concentration",
    "backlog",
    "other",
]


class NarrativeQuestion(BaseModel):
    """One line of ``data/narrative/questions.jsonl`` (its README says what each key means)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^n\d{2,}$")
    ticker: str
    fiscal_year: int
    split: Literal["dev", "eval"]
    scope: Literal["filing", "corpus"]
    expect: Literal["answer", "decline"]
    question: str = Field(min_length=10)
    item: str | None = Field(pattern=ITEM_PATTERN)
    phrase: str | None
    topic: Topic
    figure: str | None
    unit: str | None
    why: str | None
    absent: tuple[str, ...]
    equivalents: tuple[str, ...] = ()
    """Other words the filing or an answer may say the phrase in, each held to it as the phrase
    is: in the cited quote, and in the answer's text."""

    @model_validator(mode="after")
    def _fields_fit_the_kind(self) -> Self:
        if (self.item is None) != (self.phrase is None):
            raise ValueError("item and phrase come together")
        if self.phrase is not None and (
            not 4 <= len(self.phrase.split()) <= 12 or self.phrase.strip() != self.phrase
        ):
            raise ValueError(f"the phrase is not 4 to 12 words: {self.phrase!r}")
        if (self.figure is None) != (self.unit is None):
            raise ValueError("figure and unit come together")
        if self.figure is not None and (self.phrase is None or self.figure not in self.phrase):
            raise ValueError(f"the figure {self.figure!r} is not in the phrase")
        if self.expect == "answer":
            if self.phrase is None or self.why is not None or self.absent:
                raise ValueError("an answerable question has a phrase and no why or absent")
        else:
            if not self.why or self.figure is not None or self.scope != "filing":
                raise ValueError("a decline has a why, no figure, and a filing scope")
            if not self.absent and self.phrase is None:
                raise ValueError("a decline shows its absent terms or the contradicting phrase")
        return self

    @property
    def kind(self) -> str:
        """``figure``, ``prose`` or ``decline``: how the set is counted and reported."""
        if self.expect == "decline":
            return "decline"
        return "figure" if self.figure is not None else "prose"


def read_narrative(path: Path = QUESTIONS) -> list[NarrativeQuestion]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [NarrativeQuestion.model_validate_json(line) for line in lines if line.strip()]


@dataclass(frozen=True, slots=True)
class NarrativeRecord:
    """What happened to one narrative question, enough to score every arm without a model."""

    id: str
    kind: str
    topic: str
    scope: str
    ticker: str
    fiscal_year: int
    best_cosine: float | None
    company_declined: bool
    period_declined: bool
    outcome: str
    """``answered`` or the decline reason of the shared generation (company guard off)."""
    cites_phrase: bool
    """A citation is a passage of the expected filing that contains the phrase."""
    states_figure: bool
    """The answer's own text states the figure (a figure question) or the phrase (prose)."""
    correct: bool
    phrase_in_prompt: bool
    """The phrase is in what the model read: a window of a passage it was given (a phrase that
    retrieval found but the window cut off was never in view)."""
    text: str | None
    generate_s: float
    prompt_tokens: int
    replayed: bool = False
    computed: bool = False
    second_look: bool = False
    """The model found no answer and was asked again (``Answerer.reply``): the outcome is of
    that second reply."""


def _flat(text: str) -> str:
    return " ".join(text.split())


def states_figure(text: str, figure: str, unit: str | None = None) -> bool:
    """The answer states the figure as a reader takes it (``edgar_rag_dev.eval.strict``): its value
    to at most 1% rounding (``1.6 million`` for ``1,600,000``; ``2 million`` is not 1.6 million),
    a percentage only for a percentage, dollars for dollars, and, where ``unit`` is given, the
    answer names what it counts (a word of the unit: ``employees``, ``feet``, ``record``)."""
    gold = find_figures(figure)
    if not gold:
        return _flat(figure) in _flat(text)
    kind: Unit = "percent" if gold[0].is_percent else "usd" if "$" in figure else "number"
    if not states_gold(text, Gold(gold[0].value, kind, half_step=half_step_of(gold[0]))):
        return False
    return unit is None or bool(_content_words(unit) & _content_words(text))


def prints_figure(quote: str, figure: str) -> bool:
    """A cited quote prints the figure: it states it as an answer would (``states_figure``), or
    a table row's cell, in the row's scale, is it (``Dividends paid | 2025: (834) | (in
    millions)`` prints $834 million)."""
    if states_figure(quote, figure):
        return True
    gold = find_figures(figure)
    return bool(gold) and any(supports(cell, gold[0]) for cell in passage_figures(quote))


_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or our such that the their "
    "these this to was we were which with".split()
)


def _content_words(text: str) -> set[str]:
    """Lower-case words, a plural's ``s`` and a possessive dropped, stopwords left out."""
    words = (w.removesuffix("s") for w in _WORD.findall(text.lower().replace("’", "'")))
    return {w for w in words if w and w not in _STOPWORDS}


def _phrases(question: NarrativeQuestion) -> tuple[str, ...]:
    return tuple(_flat(p).lower() for p in (question.phrase, *question.equivalents) if p)


def cites_phrase(response: Response, question: NarrativeQuestion) -> bool:
    """Some citation is of the expected filing and its quote itself (the window shown under the
    answer, not the ~800-character chunk it was cut from) holds the phrase or a listed
    equivalent, or, for a figure question, prints the figure: a filing states a count in more
    than one place ("We have 32,880 route miles" in Item 2, "Our rail network includes 32,880
    route miles" in Item 1)."""
    phrases = _phrases(question)
    if not phrases:
        return False
    expected = (question.ticker, question.fiscal_year)
    for citation in response.citations:
        if (citation.filing.ticker, citation.filing.fiscal_year) != expected:
            continue
        quote = _flat(citation.quote).lower()
        if any(phrase in quote for phrase in phrases):
            return True
        if question.figure is not None and prints_figure(citation.quote, question.figure):
            return True
    return False


STATED_SHARE = 0.5
"""The share of a phrase's content words an answer's text must say to state it."""


def states_phrase(text: str, question: NarrativeQuestion) -> bool:
    """The answer's own text says what the phrase says: it holds the phrase or a listed
    equivalent, or at least half the phrase's content words (``Its headquarters are located in
    Washington's Puget Sound region`` states ``We own and lease our corporate headquarters in
    Washington's Puget Sound region``; ``Tesla relies on suppliers such as Panasonic`` does not
    state ``fully qualified only a very limited number of such suppliers``)."""
    flat = _flat(text).lower()
    if any(phrase in flat for phrase in _phrases(question)):
        return True
    said = _content_words(text)
    return any(
        len(words & said) >= STATED_SHARE * len(words)
        for words in map(_content_words, _phrases(question))
        if words
    )


def _scope(index: Any, question: NarrativeQuestion) -> Any:
    if question.scope == "corpus":
        return index.resolve_scope()
    return index.resolve_scope(ticker=question.ticker, fiscal_year=question.fiscal_year)


def run_narrative(
    answerer: Answerer,
    index: Any,
    questions: Sequence[NarrativeQuestion],
    split: str,
    partial: Path | None = None,
) -> list[NarrativeRecord]:
    """One record per question of the split; each is appended to ``partial`` as it is made, and
    questions already there are not asked again (an interrupted run resumes)."""
    done = read_partial(partial, NarrativeRecord)
    records = []
    for question in (q for q in questions if q.split == split):
        if question.id in done:
            records.append(done[question.id])
            continue
        scope = _scope(index, question)
        filing = scope.filing
        prepared = answerer.prepare(question.question, scope)
        phrase = _flat(question.phrase or "\0")
        shown = any(phrase in _flat(window.text) for window in prepared.windows)
        company, period = guards_declining(answerer, prepared, filing)
        started = time.perf_counter()
        response = answerer.compute(prepared, "none")
        generation = None
        if response is None:
            generation = _generate(answerer, prepared, question)
            response = answerer.conclude(prepared, generation, "none")
        seconds = (generation.recorded_s if generation else 0.0) or time.perf_counter() - started
        answered = response.reason is None and response.text is not None
        text = response.text or ""
        # A figure computed in code cites the statement rows of its operands, each checked
        # printed there, not the prose that rounds it ("approximately 41%" for 41.1%).
        computed_figure = response.generator == COMPUTED and question.figure is not None
        cited = answered and (computed_figure or cites_phrase(response, question))
        stated = answered and (
            states_phrase(text, question)
            if question.figure is None
            else states_figure(text, question.figure, question.unit)
        )
        correct = question.expect == "answer" and cited and stated
        records.append(
            NarrativeRecord(
                id=question.id, kind=question.kind, topic=question.topic, scope=question.scope,
                ticker=question.ticker, fiscal_year=question.fiscal_year,
                best_cosine=prepared.best, company_declined=company, period_declined=period,
                outcome="answered" if answered else _reason(response),
                cites_phrase=cited, states_figure=stated, correct=correct,
                phrase_in_prompt=shown,
                text=response.text if answered else (generation.text if generation else None),
                generate_s=round(seconds, 3),
                prompt_tokens=generation.prompt_tokens if generation else 0,
                replayed=bool(generation and generation.replayed and not generation.recorded_s),
                computed=generation is None,
                second_look=bool(generation and generation.second_look),
            )
        )  # fmt: skip
        if partial is not None:
            with partial.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(asdict(records[-1])) + "\n")
    return records


def _generate(answerer: Answerer, prepared: Prepared, question: NarrativeQuestion) -> Generation:
    try:
        return answerer.reply(prepared)
    except NotRecorded as exc:
        raise NotRecorded(
            f"narrative question {question.id} ({question.question!r}) was not recorded: its "
            f"prompt differs from every prompt on the tape ({exc})"
        ) from exc


def _reason(response: Response) -> str:
    return (response.reason or Reason.UNSUPPORTED_CLAIM).value


def answer_narrative(
    answerer: Answerer,
    index: Any,
    questions: Sequence[NarrativeQuestion],
    split: str,
    *,
    partial: Path | None = None,
) -> dict[str, Any]:
    """The run of one split, as ``data/narrative/run-<split>.json`` holds it (the cosine arms'
    thresholds are filled in by ``record_narrative``: none here, so those arms admit all)."""
    records = run_narrative(answerer, index, questions, split, partial)
    return {
        "split": split,
        "questions_in_split": sum(1 for q in questions if q.split == split),
        "generator": answerer.generator.name,
        "passages": answerer.settings.narrative_passages,
        "passage_chars": answerer.settings.narrative_passage_chars,
        "thresholds": {},
        "records": [asdict(r) for r in records],
    }


def record_narrative(
    split: str, passage_chars: int | None = None, passages: int | None = None
) -> Path:
    """Answer the split with the settings' generator (a tape when ``EDGAR_RAG_TAPE`` names one)
    into ``data/narrative/run-<split>.json``, with the golden run's cosine thresholds. With
    ``passage_chars`` or ``passages``, an arm of the passage-window table quoting that many
    characters of each passage, or giving that many passages, into
    ``data/narrative/<arm>/run-<split>.json`` (``arm_name``)."""
    from edgar_rag.compose import build_answerer, open_index  # noqa: PLC0415
    from edgar_rag.config import load_settings  # noqa: PLC0415

    arms = {"narrative_passage_chars": passage_chars, "narrative_passages": passages}
    settings = load_settings(**{key: value for key, value in arms.items() if value is not None})
    arm = arm_name(passage_chars, passages)
    out = QUESTIONS.parent / (f"{arm}/run-{split}.json" if arm else f"run-{split}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".partial.jsonl")
    with closing(open_index(settings)) as index:
        answerer = build_answerer(settings, index)
        run = answer_narrative(answerer, index, read_narrative(), split, partial=partial)
    golden = Path(f"data/golden/run-{split}.json")
    if golden.exists():
        run["thresholds"] = json.loads(golden.read_text(encoding="utf-8")).get("thresholds", {})
    out.write_text(json.dumps(run, indent=1) + "\n", encoding="utf-8")
    partial.unlink(missing_ok=True)
    return out


def arm_name(passage_chars: int | None, passages: int | None) -> str | None:
    """The folder of a passage-window arm: ``window-650``, ``passages-5``, both joined, or None
    for the default run."""
    parts = [f"passages-{passages}"] if passages is not None else []
    parts += [f"window-{passage_chars}"] if passage_chars is not None else []
    return "-".join(parts) or None


# The page -------------------------------------------------------------------------------------


def _rate(count: int, n: int) -> str:
    from edgar_rag_dev.eval.stats import wilson  # noqa: PLC0415

    bounds = wilson(count, n)
    return share(count, n, count / n if n else None, (bounds.low, bounds.high))


def _shown(run: dict[str, Any], arm: str) -> list[str]:
    thresholds = run.get("thresholds", {})
    return [arm_outcome(r, arm, thresholds.get(r["ticker"])) for r in run["records"]]


def _correct(records: list[dict[str, Any]], shown: list[str], kinds: Sequence[str]) -> list[bool]:
    return [
        outcome == "answered" and bool(r["correct"])
        for r, outcome in zip(records, shown, strict=True)
        if r["kind"] in kinds
    ]


def _false(records: list[dict[str, Any]], shown: list[str]) -> list[bool]:
    return [
        outcome == "answered"
        for r, outcome in zip(records, shown, strict=True)
        if r["kind"] == "decline"
    ]


def _wrong_figures(records: list[dict[str, Any]], shown: list[str]) -> list[bool]:
    """Figure questions answered without the figure: a wrong answer, not a decline."""
    return [
        outcome == "answered" and not r["states_figure"]
        for r, outcome in zip(records, shown, strict=True)
        if r["kind"] == "figure"
    ]


def _arms(run: dict[str, Any]) -> list[str]:
    from edgar_rag_dev.eval.stats import cluster_bootstrap  # noqa: PLC0415

    records = run["records"]
    clusters = [r["ticker"] for r in records if r["kind"] == "decline"]
    rows = []
    for arm in ARMS:
        shown = _shown(run, arm)
        prose = _correct(records, shown, ("prose",))
        figure = _correct(records, shown, ("figure",))
        wrong = _wrong_figures(records, shown)
        false = _false(records, shown)
        boot = cluster_bootstrap([float(f) for f in false], clusters, seed=0)
        rows.append(
            [
                arm,
                _rate(sum(prose) + sum(figure), len(prose) + len(figure)),
                _rate(sum(prose), len(prose)),
                _rate(sum(figure), len(figure)),
                _rate(sum(wrong), len(wrong)),
                _rate(sum(false), len(false)),
                interval((boot.low, boot.high)),
            ]
        )
    header = ["arm", "correct on answerable", "prose correct", "figure correct", "figure wrong"]
    return table([*header, "false answers on unanswerable", "company-bootstrap 95%"], rows)


def _paired_with_none(run: dict[str, Any]) -> list[str]:
    from edgar_rag_dev.eval.stats import mcnemar_exact  # noqa: PLC0415

    records = run["records"]
    kinds = ("prose", "figure")
    none_ok = _correct(records, _shown(run, "none"), kinds)
    lines = []
    for arm in ARMS[1:]:
        test = mcnemar_exact(none_ok, _correct(records, _shown(run, arm), kinds))
        lines.append(
            f"- {arm}: correct under none only {test.discordant_ab}, under {arm} only "
            f"{test.discordant_ba}, p = {test.p_value:.3f}"
        )
    return lines


def _by(run: dict[str, Any], key: str) -> list[str]:
    records = run["records"]
    shown = _shown(run, "none")
    rows = []
    for value in sorted({str(r[key]) for r in records}):
        picked = [(r, o) for r, o in zip(records, shown, strict=True) if str(r[key]) == value]
        answerable = [r["correct"] and o == "answered" for r, o in picked if r["kind"] != "decline"]
        false = [o == "answered" for r, o in picked if r["kind"] == "decline"]
        rows.append(
            [
                value,
                len(picked),
                _rate(sum(answerable), len(answerable)) if answerable else "-",
                _rate(sum(false), len(false)) if false else "-",
            ]
        )
    return table([key, "n", "correct on answerable", "false answers on unanswerable"], rows, "lr")


def _reasons(run: dict[str, Any]) -> list[str]:
    records = run["records"]
    answerable = [r for r in records if r["kind"] != "decline"]
    counts = Counter(_miss(r) for r in answerable if not r["correct"])
    rows = [[reason, count] for reason, count in counts.most_common()]
    return table(["why an answerable question was not correct (arm none)", "n"], rows, "lr")


def _second_looks(run: dict[str, Any]) -> list[str]:
    """What the questions the model first found no answer to became when asked again."""
    again = [r for r in run["records"] if r.get("second_look")]
    if not again:
        return []
    answerable = [r for r in again if r["kind"] != "decline"]
    rows = [
        ["asked again", str(len(again))],
        ["answered", str(sum(r["outcome"] == "answered" for r in again))],
        [
            "answerable, now correct",
            f"{sum(r['correct'] for r in answerable)} of {len(answerable)}",
        ],
        [
            "unanswerable, now answered (false)",
            f"{sum(r['outcome'] == 'answered' for r in again if r['kind'] == 'decline')} of "
            f"{len(again) - len(answerable)}",
        ],
    ]
    return [
        "Second looks: the questions the model first found no answer to, asked again without "
        "the option to decline (a reply whose cited passages leave more than one of the "
        "question's topic words unsaid stays declined):",
        "",
        *table(["second look", "n"], rows, "lr"),
        "",
    ]


def _miss(record: dict[str, Any]) -> str:
    unseen = "" if record["phrase_in_prompt"] else " (the phrase not in the prompt)"
    if record["outcome"] != "answered":
        return f"{record['outcome']}{unseen}"
    if not record["cites_phrase"]:
        return "answered, the phrase not cited" + unseen
    return "answered, the figure not stated"


def _gap(runs: Sequence[dict[str, Any]]) -> list[str]:
    rows = []
    for run in runs:
        correct, _, false = _rates_of_none(run)
        rows.append([run["split"], correct, false])
    return table(["split", "correct on answerable", "false answers on unanswerable"], rows)


def _rates_of_none(run: dict[str, Any]) -> tuple[str, str, str]:
    """Arm none's correct answers on answerable questions, wrong figures, and false answers on
    unanswerable questions, each as a rate with its interval."""
    records = run["records"]
    shown = _shown(run, "none")
    ok = _correct(records, shown, ("prose", "figure"))
    wrong = _wrong_figures(records, shown)
    false = _false(records, shown)
    return (
        _rate(sum(ok), len(ok)),
        _rate(sum(wrong), len(wrong)),
        _rate(sum(false), len(false)),
    )


def render_narrative(runs: Sequence[dict[str, Any]], windows: Sequence[dict[str, Any]] = ()) -> str:
    """The page of the narrative runs (one per split): arms, then per kind, topic, scope and
    reason for each split, then the dev/eval gap, then the ``windows`` runs (other passage
    windows) beside the committed ones."""
    lines = [
        "# Narrative answers",
        "",
        "Written by `edgar-rag dev eval narrative` from `data/narrative/run-<split>.json`: the "
        "hand-written narrative set (`data/narrative/questions.jsonl`) through the answer path. "
        "Correct: not declined, a citation of the expected filing whose passage holds the "
        "question's phrase (for a figure question, or prints the figure: a filing states a count "
        "in more than one place, or, for a figure computed in code, the rows printing its "
        "operands) and, for a figure question, the figure stated. Each question was "
        "searched and generated once; every arm is a mask over that generation. Intervals are "
        "Wilson 95%.",
        "",
        NARRATIVE_SET.disclosure(),
        "",
    ]
    for run in runs:
        n = len(run["records"])
        lines += [
            f"## {run['split']} split: {n} of {run['questions_in_split']} questions, generator "
            f"`{run['generator']}`",
            "",
            *_arms(run),
            "",
            "Paired comparisons against `none` on answerable questions (exact McNemar):",
            "",
            *_paired_with_none(run),
            "",
            *_by(run, "kind"),
            "",
            *_by(run, "topic"),
            "",
            *_by(run, "scope"),
            "",
            *_reasons(run),
            "",
            *_second_looks(run),
        ]
    if len(runs) > 1:
        lines += ["## Dev/eval gap (arm none)", "", *_gap(runs), ""]
    if windows:
        lines += ["## Passage window", "", *_windows(runs, windows), ""]
    return "\n".join(lines)


def _windows(runs: Sequence[dict[str, Any]], windows: Sequence[dict[str, Any]]) -> list[str]:
    """Each split answered with each window a narrative prompt quotes of its passages: the
    committed ``runs`` (the default) beside the arms of ``edgar-rag dev eval narrative
    --passage-chars N``, for the splits that have such arms."""
    rows = []
    measured = {run["split"] for run in windows}
    defaults = [run for run in runs if run["split"] in measured]
    arms = [(run, " (default)") for run in defaults] + [(run, "") for run in windows]
    for run, default in sorted(
        arms,
        key=lambda arm: (
            arm[0]["split"] != "dev",
            arm[0].get("passages") or 0,
            arm[0].get("passage_chars") or 0,
        ),
    ):
        records = run["records"]
        answerable = [r for r in records if r["kind"] != "decline"]
        in_view = sum(r["phrase_in_prompt"] for r in answerable)
        tokens = [r["prompt_tokens"] for r in records if r["prompt_tokens"]]
        rows.append(
            [
                run["split"],
                f"{run.get('passages', '?')} x {run.get('passage_chars', '?')}{default}",
                *_rates_of_none(run),
                f"{in_view}/{len(answerable)}",
                round(statistics.mean(tokens)) if tokens else "-",
            ]
        )
    return [
        "Each split answered with other windows (passages given x characters quoted of each) "
        "is shown once per window, arm none. The default is the run above; the others are "
        "`data/narrative/window-<chars>/run-<split>.json` and "
        "`data/narrative/passages-<n>/run-<split>.json`.",
        "",
        *table(
            [
                "split",
                "window",
                "correct on answerable",
                "figure wrong",
                "false answers on unanswerable",
                "phrase in the prompt",
                "mean prompt tokens",
            ],
            rows,
            "lrlllrr",
        ),
    ]


NARRATIVE_PAGE = Path("docs/narrative.md")


def narrative_page() -> str | None:
    """The page as the committed runs of ``data/narrative/`` render it (dev, then eval); None
    when no split has been run."""
    paths = [QUESTIONS.parent / f"run-{split}.json" for split in ("dev", "eval")]
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in paths if path.exists()]
    windows = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(QUESTIONS.parent.glob("*/run-*.json"))
    ]
    return render_narrative(runs, windows) if runs else None


def write_narrative_page(page: Path = NARRATIVE_PAGE) -> Path | None:
    """Render ``page`` from the committed runs; None when no split has been run."""
    text = narrative_page()
    if text is None:
        return None
    page.write_text(text, encoding="utf-8")
    return page
