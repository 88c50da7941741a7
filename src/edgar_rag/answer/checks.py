"""The checks a model's answer passes after the verifier, before it is shown: each a function
of the verdict and the draft it was given, returning the verdict or a decline of it with its
reason, applied in ``CHECKS``' order until one declines (``Answerer.conclude``).

The verifier (``answer.verify``) holds every sentence to its cited passage; these hold the answer
to the question: the period it names is one the filing reports, the figure sits on a line naming
what is asked and agrees with what code computes, the answer does not take the year for a
quarter, speaks of the question's topic, does not deny or assume what the passages do not say,
states a figure where one is asked, and a second look's answer cites what the topic names.
Pure: no store, no model (the second look's topic check embeds words with the searcher's
embedder, passed in).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from edgar_rag.answer.comparisons import comparison_contradicted, quarter_for_year
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.context import Window
from edgar_rag.answer.metric import figure_names_metric
from edgar_rag.answer.numbers import MARKER, find_figures
from edgar_rag.answer.premise import says_nothing_of, spoken, unsaid_topic
from edgar_rag.answer.prepared import Prepared
from edgar_rag.answer.verify import Verdict, split_sentences, strip_markers
from edgar_rag.domain import FilingMeta, Reason, Vectors
from edgar_rag.figures.stated import definition_spans
from edgar_rag.question.periods import describe_years
from edgar_rag.question.reading import Kind, Question, asks_for_prose
from edgar_rag.question.request import Premise, Transform
from edgar_rag.question.words import lower_words, names_share, prose_stems, stem
from edgar_rag.rules import ANNUAL_FORMS

SECOND_LOOK_UNSAID = 1
"""How many of the question's topic words a second look's cited passages may leave unsaid.
Asked again, a 1.5B model answers narrative questions it wrongly declined, quoting the passage
that answers them ("BDS faces strong competition primarily from Lockheed Martin ..." for Boeing's
defense rivals); it also answers questions no passage answers, from a passage on another
subject, which leaves several of the question's topic words unsaid ("lumber", "futures",
"hedges"; "benefit", "pension", "funded"). Tried on the narrative dev split, the answers that
were right left 0 or 1 unsaid and those to unanswerable questions 2 or 3; the eval split then
gained 4 correct answers and no false one (docs/narrative.md, Second looks)."""


@dataclass(frozen=True, slots=True)
class Draft:
    """A model's answer as the checks read it."""

    prepared: Prepared
    text: str
    """The model's text as the verifier was given it (markers and all)."""
    passages: Mapping[int, str]
    """Each prompt passage's text by its marker."""
    named: frozenset[int]
    """The fiscal years the question names (none: the filing's own is meant)."""
    verify: Callable[[str], Verdict]
    """The verifier as the answer was verified, for a check that moves a citation marker."""
    computed: ComputedAnswers | None
    embed: Callable[[Sequence[str]], Vectors]
    check_periods: bool = True
    check_metric: bool = True
    second_look: bool = False
    """The answer is the model's second look, after it first found none."""


Check = Callable[[Verdict, Draft], Verdict]
"""A check: the verdict kept, or declined with a reason and a detail."""


def _declined(verdict: Verdict, reason: Reason, detail: str) -> Verdict:
    return replace(verdict, ok=False, reason=reason, detail=detail)


def _unless(verdict: Verdict, reason: Reason, problem: str | None) -> Verdict:
    """The verdict when there is no ``problem``, else declined with it."""
    return verdict if problem is None else _declined(verdict, reason, problem)


def period_reported(verdict: Verdict, draft: Draft) -> Verdict:
    """A figure of a year the filing does not report is another year's (``unsupported_claim``)."""
    if not draft.check_periods:
        return verdict
    return _reported_period(verdict, draft.text, draft.named, draft.prepared.scope.filing)


def metric_named(verdict: Verdict, draft: Draft) -> Verdict:
    """The figure sits on a line of its passage that names what is asked (``unsupported_claim``;
    a marker moved to the passage that does)."""
    if not draft.check_metric:
        return verdict
    question, windows = draft.prepared.question, draft.prepared.windows
    return _metric_named(verdict, draft.text, question, windows, draft.verify)


def computed_agrees(verdict: Verdict, draft: Draft) -> Verdict:
    """Where code can compute what the model states (a margin, a reported line), the model's
    figure is what the filing's reported figures give (``unsupported_claim``)."""
    if draft.computed is None:
        return verdict
    prepared = draft.prepared
    problem = draft.computed.disagreement(draft.text, prepared.question, prepared.scope)
    return _unless(verdict, Reason.UNSUPPORTED_CLAIM, problem)


def comparison_agrees(verdict: Verdict, draft: Draft) -> Verdict:
    """A comparison says its figures' order as they are ("rose" from a lower to a higher
    figure: ``comparisons.comparison_contradicted``; ``unsupported_claim``)."""
    wrong_way = comparison_contradicted(verdict.text)
    return _unless(verdict, Reason.UNSUPPORTED_CLAIM, wrong_way)


def year_not_quarter(verdict: Verdict, draft: Draft) -> Verdict:
    """A year's figure is no answer to a question of a quarter (``comparisons.quarter_for_year``;
    ``unsupported_claim``)."""
    of_quarter = quarter_for_year(draft.prepared.question.text, verdict.text)
    return _unless(verdict, Reason.UNSUPPORTED_CLAIM, of_quarter)


def unsaid_unspoken(verdict: Verdict, draft: Draft) -> Verdict:
    """The answer speaks of no topic word the filing never says (``unsupported_claim``)."""
    unsaid = spoken(verdict.text, draft.prepared.unsaid)
    if not unsaid:
        return verdict
    return _declined(
        verdict,
        Reason.UNSUPPORTED_CLAIM,
        f"the answer speaks of {_quoted(unsaid)}, which the question asks about and the filing "
        "never mentions",
    )


def topic_said(verdict: Verdict, draft: Draft) -> Verdict:
    """The answer says a word of the question's topic, else it answers another question
    (``unsupported_claim``)."""
    topic = draft.prepared.topic
    if not says_nothing_of(verdict.text, topic):
        return verdict
    return _declined(
        verdict,
        Reason.UNSUPPORTED_CLAIM,
        "the answer says none of the words the question asks about ("
        + ", ".join(f'"{word}"' for word in topic)
        + "): it answers another question",
    )


def premise_stands(verdict: Verdict, draft: Draft) -> Verdict:
    """What the question takes for granted is not said the other way by the answer or its
    passages (``false_premise``)."""
    denied = _premise_denied(draft.prepared.question, verdict, draft.passages)
    return _unless(verdict, Reason.FALSE_PREMISE, denied)


def figure_stated(verdict: Verdict, draft: Draft) -> Verdict:
    """A figure question code left to the model is answered with a figure (``missing_figure``)."""
    if not _figure_missing(draft.prepared, verdict):
        return verdict
    return _declined(
        verdict, Reason.MISSING_FIGURE, "the question asks a figure and the answer states none"
    )


def figure_founded(verdict: Verdict, draft: Draft) -> Verdict:
    """The model's figure is one a filing can print, in the kind asked, from a passage that says
    what code could not plan (``unsupported_claim``)."""
    unfounded = _figure_unfounded(draft.prepared, verdict, draft.passages)
    return _unless(verdict, Reason.UNSUPPORTED_CLAIM, unfounded)


def act_said(verdict: Verdict, draft: Draft) -> Verdict:
    """A cited passage says the act the question takes for granted (``unsupported_claim``)."""
    unsaid_act = _act_unsaid(draft.prepared.question, verdict, draft.passages)
    if unsaid_act is None:
        return verdict
    return _declined(
        verdict,
        Reason.UNSUPPORTED_CLAIM,
        f"no passage the answer cites says {unsaid_act}, which the question takes for granted",
    )


def quarter_said(verdict: Verdict, draft: Draft) -> Verdict:
    """A figure answering a quarter of an annual report is cited from a passage reporting a
    quarter (``unsupported_claim``)."""
    filing = draft.prepared.scope.filing
    quarter = _quarter_unsaid(draft.prepared.question, verdict, draft.passages, filing)
    return _unless(verdict, Reason.UNSUPPORTED_CLAIM, quarter)


def second_look_kept(verdict: Verdict, draft: Draft) -> Verdict:
    """A second look's answer stands only where its passages say the question's topic: the
    filing says every word naming it, and the passages it cites leave at most
    ``SECOND_LOOK_UNSAID`` of them unsaid; else the model's first "no answer" stands
    (``model_declined``)."""
    if not draft.second_look:
        return verdict
    prepared = draft.prepared
    question, filing = prepared.question, prepared.scope.filing
    if prepared.unsaid:
        problem = f"the filing never mentions {_quoted(prepared.unsaid)}"
    else:
        cited_words = _cited_stems(verdict, draft.passages)
        company = filing.company if filing is not None else None
        left = unsaid_topic(question, cited_words, draft.embed, company)
        if len(left) <= SECOND_LOOK_UNSAID:
            return verdict
        problem = f"the passages it cites never say {_quoted(left)}"
    return _declined(verdict, Reason.MODEL_DECLINED, f"{problem}, which the question asks about")


CHECKS: tuple[Check, ...] = (
    period_reported,
    metric_named,
    computed_agrees,
    comparison_agrees,
    year_not_quarter,
    unsaid_unspoken,
    topic_said,
    premise_stands,
    figure_stated,
    figure_founded,
    act_said,
    quarter_said,
    second_look_kept,
)
"""Every check, in the order applied: the first to decline gives the decline."""


def run_checks(verdict: Verdict, draft: Draft, checks: Sequence[Check] = CHECKS) -> Verdict:
    """The verdict after every check, or the first check's decline."""
    for check in checks:
        if not verdict.ok:
            break
        verdict = check(verdict, draft)
    return verdict


def _reported_period(
    verdict: Verdict, text: str, named: frozenset[int], filing: FilingMeta | None
) -> Verdict:
    """The verdict, unless the answer states a figure while every year the question names lies
    outside the years the filing reports: whatever column it came from, it is another year's
    (this holds where a table's header lost its year, so the column check cannot). ``named``
    are the years the question names (none: the filing's own year is meant)."""
    if filing is None or not filing.years_reported or not named:
        return verdict
    if named & set(filing.years_reported) or not find_figures(strip_markers(text)):
        return verdict
    return replace(
        verdict,
        ok=False,
        reason=Reason.UNSUPPORTED_CLAIM,
        detail=f"the answer states a figure, but the question asks about "
        f"{' and '.join(f'fiscal {y}' for y in sorted(named))} and this filing reports fiscal "
        f"{describe_years(filing.years_reported)}",
    )


def answers_metric(text: str, question: Question, cited: Sequence[str]) -> bool:
    """Some figure ``text`` states sits on a line of the ``cited`` passages' text that names
    what the question asks (``metric.figure_names_metric``)."""
    return figure_names_metric(
        strip_markers(text), cited, question.metric, question.counted, question.share_class
    )


def _metric_named(
    verdict: Verdict,
    text: str,
    question: Question,
    windows: Sequence[Window],
    verify: Callable[[str], Verdict],
) -> Verdict:
    """The verdict, unless no figure the answer states sits on a line of its cited passages that
    names the metric asked (a nearby number of another line item, the typical answer to a
    metric the filing does not disclose). An answer citing one passage whose figures another
    given passage prints on a line that does name it is shown citing that one instead, as the
    verifier moves a marker to the passage printing the figure."""
    if answers_metric(text, question, [windows[m - 1].text for m in verdict.cited]):
        return verdict
    if len(verdict.cited) == 1:
        (old,) = verdict.cited
        for new, window in enumerate(windows, 1):
            if new == old or not answers_metric(text, question, [window.text]):
                continue
            moved = verify(MARKER.sub(f"[{new}]", verdict.text))
            if moved.ok:
                return replace(moved, recited=(*moved.recited, (old, new)))
    return replace(
        verdict,
        ok=False,
        reason=Reason.UNSUPPORTED_CLAIM,
        detail=(
            "the lines of the cited passages that print the answer's figures never name what "
            f"the question asks about ({', '.join(question.metric)})"
        ),
    )


def _cited_stems(verdict: Verdict, passages: Mapping[int, str]) -> frozenset[str]:
    """The prose stems of every passage the answer cites."""
    return frozenset().union(*(prose_stems(passages[m]) for m in verdict.cited if m in passages))


def _figure_unfounded(
    prepared: Prepared, verdict: Verdict, passages: Mapping[int, str]
) -> str | None:
    """Why a figure the model states for a figure question code left to it is not an answer:
    the question asks what is only ever computed (a compound growth rate, a mean over years,
    which no passage prints, or a formula it writes itself), it asks an amount and the answer
    states only percentages, or a passage it cites never says a word code could not plan
    ("'srs'" for SRS's net earnings, whose row is the whole company's); None when it states no
    figure or none of these holds."""
    figures = find_figures(verdict.text)
    request = prepared.question.asked
    if not figures or prepared.computed is not None:
        return None
    if request.transform in (Transform.CAGR, Transform.AVERAGE):
        return (
            f"the question asks a {request.transform.value.replace('_', ' ')} code could not "
            "compute here, and a filing prints none: the model's figure is no answer"
        )
    if definition_spans(prepared.question.text):
        return (
            "the question writes its own formula, which code could not compute here: the "
            "model's figure is no answer"
        )
    if _asks_amount_only(prepared.question) and all(f.is_percent for f in figures):
        return "the question asks an amount and the answer states only percentages"
    if _asks_percentage(prepared.question) and not any(f.is_percent for f in figures):
        return "the question asks a percentage and the answer states none"
    if prepared.left_open:
        cited = _cited_stems(verdict, passages)
        missing = [w for w in prepared.left_open if stem(w) not in cited]
        if missing:
            return (
                f"no passage the answer cites says {_quoted(tuple(missing))}, which the question "
                "asks about"
            )
    return None


_SHARE_WORDS = re.compile(
    r"\b(?:percent(?:age)?s?|share|rate|ratio|margin|proportion|fraction|portion|how\s+fast|"
    r"how\s+much\s+of|what\s+part)\b|%",
    re.I,
)


_WHAT_IN_YEAR = re.compile(
    r"^\s*what\s+(?:was|were|is|are)\b[^?]*\b(?:in|for|during|at\s+the\s+end\s+of)\s+"
    r"(?:(?:fiscal|calendar)\s+)?(?:year\s+)?(?:fy\s?)?(?:19|20)\d\d\s*\??\s*$",
    re.I,
)
""""What were its net premiums written in 2023?": a figure of a year, whatever it measures."""


_WHAT_PERCENT = re.compile(r"\bwhat\s+percent", re.I)


def _asks_percentage(question: Question) -> bool:
    """The question asks a percentage: a percent change, a change in points, a share."""
    changes = (Transform.PERCENT_CHANGE, Transform.POINT_CHANGE)
    text = question.text
    return (
        question.asked.transform in changes or names_share(text) or bool(_WHAT_PERCENT.search(text))
    )


def _asks_amount_only(question: Question) -> bool:
    """The question asks a figure (how much, a lookup or computation, what something was in a
    year) and names no share, rate or percentage."""
    asks = question.asks_amount or question.kind in (Kind.LOOKUP, Kind.COMPUTATION)
    asks = asks or _WHAT_IN_YEAR.search(question.text) is not None
    return asks and _SHARE_WORDS.search(question.text) is None


def _act_unsaid(question: Question, verdict: Verdict, passages: Mapping[int, str]) -> str | None:
    """The act or move the question takes for granted ("'exit the cloud computing business'")
    when no passage the answer cites says a word of it; None when one does, or it takes none
    for granted (whatever the figures could decide was decided before the model)."""
    taken = question.asked.premise
    if taken is None or not taken.said_by or not verdict.cited:
        return None
    about = {stem(w) for w in lower_words(taken.subject) if len(w) > 2} - _NOT_SUBJECT
    for marker in verdict.cited:
        for sentence in split_sentences(strip_markers(passages.get(marker, ""))):
            if _HEDGED.search(sentence):
                continue  # "we may suspend dividends": no suspension said
            stems = prose_stems(sentence)
            if any(word.startswith(taken.said_by) for word in stems) and (
                not about or about & stems
            ):
                return None
    return f"'{taken.said}'"


def _quarter_unsaid(
    question: Question, verdict: Verdict, passages: Mapping[int, str], filing: FilingMeta | None
) -> str | None:
    """Why a figure answering a quarter of an annual report is not kept: none of its cited
    passages reports a quarter (a 10-K's figures are the year's, its fourth quarter only where a
    table or sentence says so, as Item 5's repurchases do); None otherwise."""
    if not question.quarters or filing is None or filing.form not in ANNUAL_FORMS:
        return None
    if not find_figures(strip_markers(verdict.text)):
        return None
    months = _last_quarter_months(filing)
    for marker in verdict.cited:
        passage = passages.get(marker, "")
        labels = (_row_label(line) for line in passage.splitlines() if " | " in line)
        if _QUARTER_SAID.search(passage) or any(label and label <= months for label in labels):
            return None  # it says a quarter, or its rows are the quarter's months
    named = " and ".join(f"Q{q}" for q in sorted(question.quarters))
    return (
        f"the question asks for {named}, and no passage the answer cites reports a quarter: "
        f"the {filing.form}'s figures are for fiscal {filing.fiscal_year}"
    )


_QUARTER_SAID = re.compile(r"\b(?:quarters?|quarterly|three\s+months|Q[1-4])\b", re.IGNORECASE)
"""A passage that says it reports a quarter."""


def _row_label(line: str) -> set[str]:
    """The first word of a table row's own label, lower case (``December | ...``: ``december``);
    empty for a row with no label."""
    return set(line.split(" | ", maxsplit=1)[0].rpartition(":")[2].lower().split()[:1])


def _last_quarter_months(filing: FilingMeta) -> set[str]:
    """The names of the fiscal year's last three months (a row of Item 5's monthly repurchases
    is labelled by one), lower case; none without a period end."""
    if filing.period_end is None:
        return set()
    last = filing.period_end.month
    return {calendar.month_name[(last - back - 1) % 12 + 1].lower() for back in range(3)}


_HEDGED = re.compile(
    r"\b(?:may|might|could|would|should|can|cannot|if|whether|unless|no\s+assurance|"
    r"subject\s+to|intend\w*|plan(?:s|ned)?\s+to|expect\w*|not)\b",
    re.IGNORECASE,
)
"""A sentence that says an act only as a possibility, a plan or a negation."""
_NOT_SUBJECT = frozenset(stem(w) for w in "its their the our company business fiscal year".split())


_MOVED = {
    Premise.RISE: r"decreas\w*|declin\w*|fell|drop(?:ped|s)?|lower|down|contract\w*|shr[ai]nk\w*",
    Premise.FALL: r"increas\w*|r[io]se|risen|grew|grow[ns]?|higher|up|climb\w*|expand\w*",
}
_MOVED[Premise.RAISE] = _MOVED[Premise.RISE]
_MOVED[Premise.CUT] = _MOVED[Premise.FALL]
_POSSESSOR = re.compile(r"^.*?['’]s?\s+|\s+(?:in|during|for)\s+(?:fiscal\s+)?(?:19|20)\d\d$", re.I)
"""A premise subject's company ("Apple's ") and year (" in 2024"), which the text it is
looked for in may leave out."""


def _premise_denied(
    question: Question, verdict: Verdict, passages: Mapping[int, str]
) -> str | None:
    """Where the question takes a move for granted that figures in code could not decide
    ("why did Greater China net sales rise"), the answer or a passage it cites saying the
    subject moved the other way ("Greater China net sales decreased"); None otherwise."""
    taken = question.asked.premise
    if taken is None or taken.premise not in _MOVED:
        return None
    subject = _POSSESSOR.sub("", taken.subject).strip()
    if len(subject.split()) < 2:
        return None  # "sales" alone names too much: "lower iPhone sales" is no denial
    words = r"\s+".join(re.escape(word) for word in subject.split())
    other_way = re.compile(
        rf"\b{words}\s+(?:(?:was|were|has|have|had|been)\s+)?(?P<moved>{_MOVED[taken.premise]})\b",
        re.I,
    )
    for text in (verdict.text, *(passages[m] for m in verdict.cited if m in passages)):
        found = other_way.search(" ".join(strip_markers(text).split()))
        if found is not None:
            return (
                f"the question takes for granted '{taken.said}', but the answer and the "
                f"passages it cites say '{found.group(0)}'"
            )
    return None


_REASON_ASKED = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+){0,3}?(?:drove|drives|caused|causes|led\s+to|explains?|"
    r"contributed\s+to|(?:was|were|is|are)\s+behind)\b|\bcredit(?:s|ed)?\s+(?:\w+\s+){0,2}?for\b|"
    r"\battribut\w+\s+(?:\w+\s+){0,4}?to\b|\b(?:reasons?|factors?|drivers?)\s+(?:for|behind|of)\b",
    re.I,
)
"""A question asking what lies behind a figure, which prose answers."""


def _figure_missing(prepared: Prepared, verdict: Verdict) -> bool:
    """A figure question code left to the model (a lookup, a computation, a comparison, how
    much) whose answer states no figure: prose beside the figure asked is no answer to it."""
    question = prepared.question
    if prepared.computed is not None or asks_for_prose(question.text):
        return False
    if question.asked.premise is not None or _REASON_ASKED.search(question.text):
        return False  # "what drove the growth in ...": the question asks a reason
    asks = question.asks_amount or question.kind in (Kind.LOOKUP, Kind.COMPUTATION)
    asks = asks or (question.kind is Kind.COMPARISON and bool(question.metric))
    return asks and not find_figures(strip_markers(verdict.text))


def _quoted(words: Sequence[str]) -> str:
    return " and ".join(f'"{w}"' for w in words)
