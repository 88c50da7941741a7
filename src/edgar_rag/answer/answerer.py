"""The answering pipeline: search, guards and gate, prompt, generate, verify; an answer with
quoted citations, or a typed decline.

Everything that can be decided in code is decided before the model runs (the company guard, the
gate) or after it (the verifier); the model only reads a short context and writes a sentence.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from edgar_rag.answer.checks import Draft, answers_metric, run_checks
from edgar_rag.answer.computed import Computed, ComputedAnswers
from edgar_rag.answer.context import Window, best_prose_window, best_window, paragraph_before
from edgar_rag.answer.fit import unfit_metric
from edgar_rag.answer.gates import apply_gate
from edgar_rag.answer.largest import largest_line, read_largest_line
from edgar_rag.answer.metric import sentence_stating
from edgar_rag.answer.numbers import find_figures
from edgar_rag.answer.premise import (
    FilingWords,
    topic_words,
    unsaid_topic,
)
from edgar_rag.answer.prepared import Prepared
from edgar_rag.answer.prompt import (
    INSTRUCTION,
    NARRATIVE_INSTRUCTION,
    PromptPassage,
    build_prompt,
    carries_refusal_word,
    is_refusal,
    without_token_echo,
)
from edgar_rag.answer.prose_dates import event_day
from edgar_rag.answer.verify import (
    Verdict,
    markers_in,
    strip_markers,
    verify_answer,
    without_cut_tail,
)
from edgar_rag.answer.yes_no import decide_yes_no
from edgar_rag.domain import (
    Citation,
    FilingMeta,
    Generation,
    Generator,
    Hit,
    Prompt,
    Reason,
    Response,
    Scope,
    StreamingGenerator,
    TokenSink,
)
from edgar_rag.errors import NotFoundError
from edgar_rag.question.companies import CompanyDirectory, company_guard
from edgar_rag.question.periods import asked_fiscal_years, describe_years, quarter_guard
from edgar_rag.question.reading import (
    Kind,
    Question,
    asks_figure,
    read_question,
    sets_against,
)
from edgar_rag.question.verdicts import (
    read_hedged_metric,
    read_most_cash_activity,
    read_named_calculation,
    read_yes_no_figure,
)
from edgar_rag.retrieve.search import Searcher
from edgar_rag.rules import fiscal_year_in_quarter, fiscal_year_of_day, parse_day

COMPUTED = "computed"
"""The generator a response names when code, not a model, wrote its answer."""
RECITED_NOTE = "which is cited instead"
"""Ends the detail of an answer whose citation marker the verifier moved."""
TRIMMED_NOTE = "only the columns of the year asked are shown"
"""Ends the detail of an answer whose copied table row the verifier cut to the year asked."""
ATTRIBUTED_NOTE = "a sentence the model cited no passage for cites the passage holding its words"
"""Part of the detail of an answer whose citations code supplied."""
MENDED_NOTE = (
    "the model's answer did not state the figure asked; the cited sentence that states it is shown"
)
"""Notes an answer that left out the figure asked (elided, or cut off with its sentence), shown
as its cited sentence."""
ECHO_NOTE = "the model's reply opened with an echo of this request's refusal token, left out"
"""Begins the detail of an answer whose first word only echoed the sentinel it was shown."""
SECOND_LOOK_NOTE = (
    "the model first found no answer; asked again to answer from the same passages, it gave this"
)
"""Notes an answer the model gave on a second look (``Answerer.reply``)."""
CUT_NOTE = (
    "the model's reply reached its token limit mid-sentence; the unfinished sentence is left out"
)
"""Notes an answer whose last, cut-off sentence was dropped before it was verified."""
_DATE = re.compile(r"([A-Z][a-z]{2,8})\.?\s+(\d{1,2}),\s*((?:19|20)\d{2})")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")


@dataclass(frozen=True, slots=True)
class AnswerSettings:
    """The knobs of answering; the defaults are the measured ones (docs/answering.md)."""

    search_k: int = 5
    passages_in_prompt: int = 5
    passage_chars: int = 180
    gate: str = "period"
    cosine_threshold: float = 0.0
    max_tokens: int = 120
    check_metric: bool = True
    """Withhold a figure whose cited passages never name what the question asks about."""
    narrative_passages: int = 4
    narrative_passage_chars: int = 650
    """A narrative question's answer is a sentence or two of prose, longer than a table row:
    fewer, longer windows hold it. A fifth passage shows more questions their phrase but gave
    no more correct answers on the dev split, and more wrong figures (docs/narrative.md,
    passage-window table)."""
    narrow_to_named_company: bool = True
    """Ask a corpus-wide question that names one company of that company's filing."""
    second_look: bool = True
    """Ask a narrative question again, without the option to decline, when the model finds no
    answer (``Answerer.reply``)."""


def fiscal_year_of_header(header: str, filing: FilingMeta) -> int | None:
    """The fiscal year a table column header denotes, in the filing's own calendar.

    ``September 27, 2025`` and ``Jan 26, 2025`` are period-end dates (mapped through the
    filing's period end, so that Home Depot's year ended 2025-02-02 is fiscal 2024); ``2025``
    and ``Fiscal 2024`` are fiscal years as the filing labels them; in a quarter's report a date
    is of the fiscal year it falls in (``rules.fiscal_year_in_quarter``). A prose figure's header
    that dates an event (``on February 1, 2024``, ``prose_dates.event_day``) is of the fiscal
    year containing it.
    """
    if filing.period_end is not None:
        day = event_day(header)
        event = day is not None
        if day is None and (match := _DATE.search(header)):
            day = parse_day(match[1], int(match[2]), int(match[3]))
        if day is not None and filing.fiscal_quarter is not None:
            return fiscal_year_in_quarter(
                day, filing.period_end, filing.fiscal_quarter, filing.fiscal_year
            )
        if day is not None:
            return fiscal_year_of_day(day, filing.period_end, filing.fiscal_year, event=event)
    years = _YEAR.findall(header)
    return int(years[-1]) if years else None


@dataclass(slots=True)
class Answerer:
    """Answers a question inside a scope, or declines with a reason."""

    searcher: Searcher
    generator: Generator
    draw_token: Callable[[str], str]
    directory: CompanyDirectory | None = None
    settings: AnswerSettings = field(default_factory=AnswerSettings)
    computed: ComputedAnswers | None = None
    """Answers figure questions in code from the filing's reported figures, before the model
    (None: every question goes to the model)."""
    filing_words: FilingWords | None = None
    """Each filing's words, to find what a question takes for granted that its filing never
    says (None: not looked for)."""

    def answer(
        self,
        question: str,
        scope: Scope,
        gate: str | None = None,
        on_token: TokenSink | None = None,
    ) -> Response:
        """Search, screen (company guard and gate), compute in code, or generate and verify.

        With ``on_token``, a generator that streams tells it the model's text as it comes (a
        draft: the response is what was verified); an answer decided before the model, or a
        generator that does not stream, tells it nothing."""
        settled = self.settle(question, scope, gate)
        if isinstance(settled, Prepared):
            return self.finish(settled, gate, on_token)
        return settled

    def answer_in_code(
        self, question: str, scope: Scope, gate: str | None = None
    ) -> Response | None:
        """What ``answer`` decides with no model: a decline before it (the company guard, the
        gate) or a figure answered in code; None when the question needs the model."""
        settled = self.settle(question, scope, gate)
        return None if isinstance(settled, Prepared) else settled

    def settle(self, question: str, scope: Scope, gate: str | None = None) -> Response | Prepared:
        """``answer`` up to the model: the response decided in code, or the question prepared
        for the model (``finish`` answers it). The service settles outside its generation
        slots, so that only a question the model answers waits for one (issue 41)."""
        prepared = self.prepare(question, scope)
        settled = self._settle(question, prepared, gate or self.settings.gate)
        return prepared if settled is None else settled

    def finish(
        self, prepared: Prepared, gate: str | None = None, on_token: TokenSink | None = None
    ) -> Response:
        """``answer`` from the model on: its reply to ``prepared``, verified."""
        gate_name = gate or self.settings.gate
        gate_score = prepared.best if "cosine" in gate_name else None
        started = time.perf_counter()
        generation = self.reply(prepared, on_token)
        prepared.timings["generate"] = _ms_since(started)
        return self.conclude(prepared, generation, gate_name, gate_score)

    def _settle(self, question: str, prepared: Prepared, gate_name: str) -> Response | None:
        decline = _Decliner(
            question, prepared.scope.filing, gate_name, prepared.best, prepared.timings
        )
        started = time.perf_counter()
        screened = self.screen(prepared, gate_name)
        prepared.timings["gate"] = _ms_since(started)
        if screened is not None:
            reason, detail, gate_score = screened
            return decline(reason, detail, gate_score)
        gate_score = prepared.best if "cosine" in gate_name else None
        return self.compute(prepared, gate_name, gate_score)

    def generate(self, prompt: Prompt, on_token: TokenSink | None = None) -> Generation:
        """The generator's answer to ``prompt``, streamed to ``on_token`` where it can be."""
        if on_token is not None and isinstance(self.generator, StreamingGenerator):
            return self.generator.stream(prompt, on_token)
        return self.generator.generate(prompt)

    def reply(self, prepared: Prepared, on_token: TokenSink | None = None) -> Generation:
        """The model's reply to the prepared prompt, or, where it found no answer to a narrative
        question (its refusal token, or the refusal word in another spelling), its reply to the
        same passages asked again without the option to decline (``Prepared.second_look``;
        ``conclude`` holds that reply to ``checks.SECOND_LOOK_UNSAID``). The second reply is not
        streamed: the first, the refusal, already was."""
        first = self.generate(prepared.prompt, on_token)
        again = prepared.second_look
        if again is None or not carries_refusal_word(first.text):  # the token spells it too
            return first
        second = self.generate(again)
        return replace(
            second,
            prompt_tokens=first.prompt_tokens + second.prompt_tokens,
            completion_tokens=first.completion_tokens + second.completion_tokens,
            replayed=first.replayed and second.replayed,
            recorded_s=first.recorded_s + second.recorded_s,
            second_look=True,
        )

    def prepare(self, text: str, scope: Scope) -> Prepared:
        """Read the question (once: every later stage takes what is read here), search, then
        the prompt from the best lines of the top passages."""
        question = read_question(text, scope.filing, self.directory)
        narrowed = self.narrow(question, scope)
        if narrowed is not scope:
            scope = narrowed
            question = read_question(text, scope.filing, self.directory)
        started = time.perf_counter()
        planned = None
        if self.computed is not None:
            planned = (
                self._unfit(text, scope)
                or self._yes_or_no(text, scope)
                or self.computed.answer(question, scope, _year_of_header)
            )
            if planned is None:
                planned = self._named_calculation(text, scope)
            if planned is None and (year := read_most_cash_activity(text)) is not None:
                planned = self.computed.most_cash_activity(year, scope, _year_of_header)
            if planned is None and (extreme := read_largest_line(text)) is not None:
                year = max(question.years, default=None)
                planned = largest_line(extreme, scope, self.computed, _year_of_header, year)
        compute_ms = _ms_since(started)
        prose = question.kind is Kind.NARRATIVE or (self.computed is not None and planned is None)
        # A computation or comparison code cannot plan ("what share of its revenue came from
        # the U.S. government", "how dependent is it on its largest customer") is answered by a
        # percentage the filing prints in a sentence: it is searched as prose is, not for the
        # statement rows its operands would sit on. A lookup's figure is a row, whoever answers
        # it.
        # Read as prose, it asks for a figure only where prose would: "how did its segment
        # structure change after the separation" names no metric a line must print.
        searched_as = question
        if prose and question.kind in (Kind.COMPUTATION, Kind.COMPARISON):
            searched_as = replace(question, kind=Kind.NARRATIVE)
            if not asks_figure(text, Kind.NARRATIVE):
                question = replace(question, metric=())
        timings = {"compute": compute_ms}
        hits: list[Hit] = []
        if not isinstance(planned, Computed):  # answered in code: cited to its own rows
            hits, searched = self.searcher.search_timed(searched_as, scope, self.settings.search_k)
            timings["embed"] = round(searched.embed_ms, 1)
            timings["search"] = round(searched.search_ms + searched.fuse_ms, 1)
        settings = self.settings
        given = hits[: settings.narrative_passages if prose else settings.passages_in_prompt]
        if prose:
            chars = settings.narrative_passage_chars
            windows = [best_prose_window(h.passage.chunk.text, question, chars) for h in given]
        else:
            chars = settings.passage_chars
            windows = [best_window(h.passage.chunk.text, question, chars) for h in given]
        token = self.draw_token(text + "\x00" + "\x00".join(str(h.passage.chunk_id) for h in given))
        ask = partial(
            build_prompt,
            text,
            [
                PromptPassage(marker, _heading(hit, scope), window.text)
                for marker, (hit, window) in enumerate(zip(given, windows, strict=True), 1)
            ],
            token,
            _source(scope.filing),
            self.settings.max_tokens,
            instruction=NARRATIVE_INSTRUCTION if prose else INSTRUCTION,
            question_first=searched_as.kind is Kind.NARRATIVE,
        )
        prompt = ask()
        # A question asking what the filing says is asked again; a figure lookup or computation
        # code could not plan is not: asked again, the model states a figure some passage
        # prints for whatever else it counts ("$18,200 million in stock buybacks" for Boeing,
        # which bought back none).
        again = question.kind is Kind.NARRATIVE and self.settings.second_look
        second_look = ask(offer_refusal=False) if again else None
        best = max((h.cosine for h in hits), default=None)
        company = scope.filing.company if scope.filing is not None else None
        topic = topic_words(question, company)
        unsaid: tuple[str, ...] = ()
        if self.filing_words is not None and not isinstance(planned, Computed):
            # Only a model's answer is read for it (one computed in code states no topic). A
            # question of the whole corpus is held to the filings its passages come from.
            read = [scope.filing_id] if scope.filing_id else [h.passage.filing_id for h in given]
            if read:
                said = frozenset().union(*(self.filing_words(f) for f in dict.fromkeys(read)))
                unsaid = unsaid_topic(question, said, self.searcher.embedder.embed, company)
        left_open = self.computed.left_open(question) if self.computed and planned is None else ()
        return Prepared(
            question, scope, hits, given, windows, prompt, best, timings, planned, topic, unsaid,
            second_look, left_open,
        )  # fmt: skip

    def _unfit(self, text: str, scope: Scope) -> Computed | None:
        """That the metric a question's hedge names does not fit a lender, said in code
        (``answer.fit``); None when it names none, or the metric fits."""
        hedged = read_hedged_metric(text)
        if hedged is None or self.computed is None:
            return None
        return unfit_metric(hedged, scope, self.computed, _year_of_header)

    def _yes_or_no(self, text: str, scope: Scope) -> Computed | None:
        """A yes-or-no question a figure decides, answered from that figure computed in code
        (``answer.yes_no``); None when it is no such question or the figure is not computed."""
        years = scope.filing.years_reported if scope.filing is not None else ()
        asked = read_yes_no_figure(text, years)
        if asked is None or self.computed is None:
            return None
        figure = read_question(asked.figure_question, scope.filing, self.directory)
        found = self.computed.answer(figure, scope, _year_of_header)
        return decide_yes_no(asked, found) if isinstance(found, Computed) else None

    def _named_calculation(self, text: str, scope: Scope) -> Computed | None:
        """A question code could not plan as worded, answered from the figure one of its
        sentences names to compute ("Calculate inventory turnover ratio for FY2022"), when code
        computes it; else None (the model reads the passages)."""
        asked = read_named_calculation(text)
        if asked is None or self.computed is None:
            return None
        figure = read_question(asked, scope.filing, self.directory)
        found = self.computed.answer(figure, scope, _year_of_header)
        return found if isinstance(found, Computed) else None

    def narrow(self, question: Question, scope: Scope) -> Scope:
        """The filing a corpus-wide question is asked of when it names a company first (others
        it names are then its customers, rivals or partners: "How dependent is Apple on
        Foxconn?"): that company's filing of the fiscal year it names, or its latest when it
        names none. The corpus stays the scope when the question names no company, compares
        companies, names a name several companies go by, several years, or a company or year
        that is not indexed."""
        if not scope.corpus_wide or not self.settings.narrow_to_named_company:
            return scope
        if not question.companies or sets_against(question.text):
            return scope
        first = question.companies[0].companies
        if len({(c.cik, c.tickers) for c in first}) != 1:
            return scope
        cik, tickers = first[0].cik, first[0].tickers
        index = self.searcher.index
        try:
            latest = index.resolve_scope(ticker=tickers[0] if tickers else None, cik=cik)
        except NotFoundError:
            return scope
        if latest.filing is None:
            return scope
        years = asked_fiscal_years(question.text, latest.filing)
        if not years or latest.filing.fiscal_year in years:
            return latest
        found = self._filing_reporting(latest, max(years))
        if found is not None:
            return found
        # A figure no filing reports is declined by the latest filing's period guard, naming
        # the years it reports; prose dated in a year no filing is of stays corpus-wide (the
        # cover of a 10-K for 2024 says what held in early 2025).
        return scope if question.kind is Kind.NARRATIVE else latest

    def _filing_reporting(self, latest: Scope, year: int) -> Scope | None:
        """The company's filing of fiscal ``year``, else its earliest later filing whose
        statements report that year as a comparative column (Apple's fiscal 2023 revenue is in
        its 2024 and 2025 10-Ks); None when no indexed filing reports it."""
        filing = latest.filing
        assert filing is not None
        for fiscal_year in range(year, filing.fiscal_year + 1):
            try:
                found = self.searcher.index.resolve_scope(cik=filing.cik, fiscal_year=fiscal_year)
            except NotFoundError:
                continue
            if found.filing is not None and year in (
                found.filing.fiscal_year,
                *found.filing.years_reported,
            ):
                return found
        return None

    def unindexed_company(self, question: Question, scope: Scope) -> str | None:
        """Why a corpus-wide question about one company no indexed filing is of is declined
        (it names a listed company the index holds no 10-K of), else None."""
        if not scope.corpus_wide or not question.companies or sets_against(question.text):
            return None
        first = question.companies[0].companies
        ciks = {c.cik for c in first if c.cik is not None}
        if not ciks or len(first) != 1:
            return None
        try:
            self.searcher.index.resolve_scope(cik=next(iter(ciks)))
        except NotFoundError:
            return f"the question asks about {first[0].name}, whose 10-K filings are not indexed"
        return None

    def unindexed_period(self, question: Question, scope: Scope) -> str | None:
        """Why a corpus-wide question about one company is declined ``out_of_period``: it
        names a fiscal year later than the year after that company's latest indexed filing
        (whose cover may speak of the months after its year end), so no indexed filing of it
        can be of that year (AMD's fiscal 2022 asked of an index holding its 10-K for 2015);
        else None."""
        if not scope.corpus_wide or not question.companies or sets_against(question.text):
            return None
        first = question.companies[0].companies
        if len(first) != 1 or first[0].cik is None:
            return None
        try:
            latest = self.searcher.index.resolve_scope(cik=first[0].cik).filing
        except NotFoundError:
            return None
        if latest is None:
            return None
        later = sorted(
            year
            for year in asked_fiscal_years(question.text, latest)
            if year > latest.fiscal_year + 1
        )
        if not later:
            return None
        reported = latest.years_reported or (latest.fiscal_year,)
        return (
            f"the question names fiscal {describe_years(later)}; the latest indexed filing of "
            f"{first[0].name} reports fiscal {describe_years(reported)}"
        )

    def screen(
        self, prepared: Prepared, gate_name: str
    ) -> tuple[Reason, str | None, float | None] | None:
        """A decline decided before the model (company guard, then the gate), or None."""
        filing = prepared.scope.filing
        unindexed = self.unindexed_company(prepared.question, prepared.scope)
        if unindexed is not None:
            return Reason.OUT_OF_SCOPE, unindexed, None
        too_late = self.unindexed_period(prepared.question, prepared.scope)
        if too_late is not None:
            return Reason.OUT_OF_PERIOD, too_late, None
        if filing is not None and self.directory is not None:
            question = prepared.question
            other = company_guard(question.text, question.companies, filing)
            if other is not None:
                return Reason.OUT_OF_SCOPE, other, None
        question = prepared.question
        if filing is not None and question.kind is not Kind.NARRATIVE:
            # before the figures: a 10-K's year is no answer to a question of its fourth quarter
            other_period = quarter_guard(question.quarters, filing)
            if other_period is not None:
                return Reason.OUT_OF_PERIOD, other_period, None
        if isinstance(prepared.computed, Computed):
            return None  # answered from the filing's figures, cited to their rows: no passage
        decision = apply_gate(
            gate_name, prepared.question, filing, prepared.hits, self.settings.cosine_threshold
        )
        if not decision.passed and decision.reason is not None:
            return decision.reason, decision.detail, decision.gate_score
        if not prepared.hits:
            return Reason.GATE_REJECTED, "no passage of the filing matches the question", None
        return None

    def compute(
        self, prepared: Prepared, gate_name: str, gate_score: float | None = None
    ) -> Response | None:
        """The answer (or the decline) of a figure question computed in code from the filing's
        reported figures; None when the question is not one the metric library can plan."""
        result = prepared.computed
        if result is None:
            return None
        filing = prepared.scope.filing
        decline = _Decliner(
            prepared.question.text, filing, gate_name, prepared.best, prepared.timings
        )
        decline.generation = (COMPUTED, 0, 0)
        if not isinstance(result, Computed):
            return decline(result.reason, result.detail, gate_score)
        return decline.respond(
            result.text, result.citations, None, result.detail, gate_score, result.calculation,
            result.comparison,
        )  # fmt: skip

    def conclude(
        self,
        prepared: Prepared,
        generation: Generation,
        gate_name: str,
        gate_score: float | None = None,
        *,
        check_periods: bool = True,
        check_metric: bool | None = None,
    ) -> Response:
        """The model's text verified against the passages it was given: an answer or a decline."""
        question, scope, timings = prepared.question, prepared.scope, prepared.timings
        filing = scope.filing
        decline = _Decliner(question.text, filing, gate_name, prepared.best, timings)
        decline.generation = (
            generation.model,
            generation.prompt_tokens,
            generation.completion_tokens,
        )
        decline.replayed = generation.replayed
        decline.second_look = generation.second_look
        if is_refusal(generation.text, prepared.prompt.refusal_token):
            return decline(Reason.MODEL_DECLINED, "the model found no answer in the passages")
        if carries_refusal_word(generation.text):
            return decline(
                Reason.MODEL_DECLINED,
                "the model replied with a refusal word that is not exactly this request's token; "
                "nothing it wrote is shown",
            )
        given, windows = prepared.given, prepared.windows
        if generation.verbatim:
            return decline.respond(
                generation.text.strip(), _citations(prepared, range(1, len(given) + 1)), None,
                f"the {generation.model} generator returns the retrieved passages; "
                "no model wrote this",
                gate_score,
            )  # fmt: skip
        started = time.perf_counter()
        # An outlook year is no year the filing reports, yet its passages still speak of it
        named = question.years - question.outlook
        asked = question.years or (
            frozenset({filing.fiscal_year}) if filing is not None else frozenset()
        )
        passages = {marker: window.text for marker, window in enumerate(windows, 1)}
        leads = {
            marker: paragraph_before(hit.passage.chunk.text, window)
            for marker, (hit, window) in enumerate(zip(given, windows, strict=True), 1)
        }
        text, echoed = without_token_echo(generation.text, prepared.prompt.refusal_token)
        cut = False
        if generation.completion_tokens >= prepared.prompt.max_tokens > 0:
            text, cut = without_cut_tail(text)
        mending = _with_figure_asked(question, text, passages, cut=cut)
        if mending is None:
            what = ", ".join(question.metric) or "what it asks"
            return decline(
                Reason.MISSING_FIGURE,
                f"the question asks how many or how much and the answer states no figure; "
                f"no sentence of the passages it cites states one for {what}",
            )
        text, mended = mending

        def verify(text: str) -> Verdict:
            years = asked if check_periods else frozenset()
            return verify_answer(text, passages, years, _year_of_header(filing), leads=leads)

        draft = Draft(
            prepared, text, passages, named, verify, self.computed, self.searcher.embedder.embed,
            check_periods=check_periods,
            check_metric=self.settings.check_metric if check_metric is None else check_metric,
            second_look=generation.second_look,
        )  # fmt: skip
        verdict = run_checks(verify(text), draft)
        timings["verify"] = _ms_since(started)
        if not verdict.ok:
            return decline(verdict.reason or Reason.UNSUPPORTED_CLAIM, verdict.detail)
        return decline.respond(
            verdict.text.strip(),
            _citations(prepared, verdict.cited),
            None,
            _answer_note(
                asked,
                filing,
                verdict,
                mended=mended,
                echoed=echoed,
                cut=cut,
                second_look=generation.second_look,
            ),
            gate_score,
        )


def _with_figure_asked(
    question: Question, text: str, passages: Mapping[int, str], *, cut: bool
) -> tuple[str, bool] | None:
    """The answer's text, and whether it was mended: where a question asks how many or how much
    and the figure is missing from the answer ("Approximately ... employees"), or went with the
    sentence the token limit cut (a cover quoted until "and 343"), the cited sentence that
    states it in its place; None when the answer states no figure and no cited sentence does
    (a cut answer with none is verified as it stands)."""
    if not question.asks_amount:
        return text, False
    cited = [m for m in dict.fromkeys(markers_in(text)) if m in passages]
    stated = bool(find_figures(strip_markers(text)))
    if stated and not (cut and not answers_metric(text, question, [passages[m] for m in cited])):
        return text, False
    found = sentence_stating(question.metric, passages, cited, question.counted)
    if found is None:
        return None if not stated else (text, False)
    marker, sentence = found
    return f"{sentence.rstrip('.')} [{marker}].", True


@dataclass(slots=True)
class _Decliner:
    question: str
    filing: FilingMeta | None
    gate: str
    retrieval_score: float | None
    timings: dict[str, float]
    generation: tuple[str, int, int] = ("none", 0, 0)
    replayed: bool = False
    second_look: bool = False
    """The model's answer is a second look: any decline of it is the model's first one."""

    def __call__(
        self, reason: Reason, detail: str | None, gate_score: float | None = None
    ) -> Response:
        if self.second_look:
            reason, detail = (
                Reason.MODEL_DECLINED,
                f"the model found no answer in the passages; asked again, its answer was not "
                f"kept: {detail}",
            )
        return self.respond(None, (), reason, detail, gate_score)

    def respond(
        self,
        text: str | None,
        citations: tuple[Citation, ...],
        reason: Reason | None,
        detail: str | None,
        gate_score: float | None,
        calculation: Mapping[str, object] | None = None,
        comparison: tuple[Mapping[str, object], ...] = (),
    ) -> Response:
        """The response with this question's shared fields: an answer (``reason`` None) or a
        decline (``text`` None)."""
        model, prompt_tokens, completion_tokens = self.generation
        return Response(
            question=self.question,
            text=text,
            citations=citations,
            reason=reason,
            detail=detail,
            gate=self.gate,
            retrieval_score=self.retrieval_score,
            gate_score=gate_score,
            source=self.filing,
            generator=model,
            timings_ms=self.timings,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            replayed=self.replayed,
            calculation=calculation,
            comparison=comparison,
        )


def _answer_note(
    asked: frozenset[int],
    filing: FilingMeta | None,
    verdict: Verdict,
    *,
    mended: bool = False,
    echoed: bool = False,
    cut: bool = False,
    second_look: bool = False,
) -> str | None:
    notes = [SECOND_LOOK_NOTE] if second_look else []
    notes += [ECHO_NOTE] if echoed else []
    notes += [CUT_NOTE] if cut else []
    notes += [MENDED_NOTE] if mended else []
    notes += [
        f"the model cited [{old}]; the figure is printed in [{new}], {RECITED_NOTE}"
        for old, new in verdict.recited
    ]
    notes += [
        f"the model cited [{old}]; the sentence is quoted from [{new}], {RECITED_NOTE}"
        for old, new in verdict.requoted
    ]
    if verdict.attributed:
        notes.append(ATTRIBUTED_NOTE)
    if verdict.trimmed:
        notes.append(f"the model quoted a whole table row; {TRIMMED_NOTE}")
    if filing is not None and asked and filing.years_reported:
        names = " and ".join(f"fiscal {year}" for year in sorted(asked))
        reported = describe_years(filing.years_reported)
        notes.insert(0, f"the question asks about {names}; this filing reports fiscal {reported}")
    return "; ".join(notes) or None


def _heading(hit: Hit, scope: Scope) -> str:
    chunk, filing = hit.passage.chunk, hit.passage.filing
    where = f"{chunk.item}, {chunk.title}"
    if scope.filing is None:
        return f"{filing.company} 10-K fiscal {filing.fiscal_year}, {where}"
    return where


def _source(filing: FilingMeta | None) -> str | None:
    if filing is None:
        return None
    return f"{filing.company} Form {filing.form}, fiscal year {filing.fiscal_year}"


def _year_of_header(filing: FilingMeta | None) -> Callable[[str], int | None]:
    """A column header's fiscal year in the filing's calendar (none without a filing)."""
    if filing is None:
        return lambda header: None
    return lambda header: fiscal_year_of_header(header, filing)


def _citations(prepared: Prepared, markers: Iterable[int]) -> tuple[Citation, ...]:
    """The citations of these markers of the prompt: each passage with its window quoted."""
    given, windows = prepared.given, prepared.windows
    return tuple(_citation(m, given[m - 1], windows[m - 1]) for m in markers)


def _citation(marker: int, hit: Hit, window: Window) -> Citation:
    chunk = hit.passage.chunk
    return Citation(
        marker=marker,
        filing=hit.passage.filing,
        item=chunk.item,
        title=chunk.title,
        quote=window.text,
        start=chunk.start + window.start,
        end=chunk.start + window.end,
        score=round(hit.cosine, 4),
    )


def _ms_since(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)


def _quoted(words: Sequence[str]) -> str:
    return " and ".join(f'"{w}"' for w in words)
