"""Figure questions answered in code: one reported figure looked up, or a metric computed from
reported figures, each cited to the statement row that prints it; no model takes part.

The question's plan (a stated formula, a library metric, or one line item) comes from
``figures.plan``; its operands are resolved in the scoped filing and, for a year before the
filing's comparative columns, in that year's own filing when it is indexed. The answer names
each operand with the marker of the passage printing it, and is checked as a model's would be:
each operand printed in its passage, in its fiscal year's column, and the result what the
operands give (``figures.check``). A plan that cannot be carried out declines with
``missing_figure`` and says which figure or what was wrong; a question the library cannot plan
goes to the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from functools import partial

from edgar_rag.answer.numbers import Figure, find_figures, states_change
from edgar_rag.answer.quarter import (
    QuarterStore,
    asks_one_quarter,
    in_quarter,
    quarter_meta,
    since_year_end,
    with_quarter_end,
    without_quarter_words,
)
from edgar_rag.answer.verify import split_sentences, strip_markers
from edgar_rag.domain import (
    Citation,
    FigureSource,
    FigureStore,
    FilingMeta,
    Passage,
    Reason,
    Scope,
)
from edgar_rag.errors import NotFoundError
from edgar_rag.figures.calculator import (
    SCALE_WORDS,
    Calculation,
    CalculationDecline,
    Operand,
    calculate,
)
from edgar_rag.figures.check import YearOfHeader, calculation_is_supported, operand_is_printed
from edgar_rag.figures.formula import (
    Binary,
    Dimension,
    Expr,
    Ref,
    map_refs,
    parse_formula,
    refs,
    render,
    shift,
)
from edgar_rag.figures.library import LineItem, MetricLibrary, PeriodKind, ResultUnit
from edgar_rag.figures.parts import find_part
from edgar_rag.figures.plan import (
    ComputationPlan,
    Plan,
    Unplanned,
    compute_plan,
    plan_computation,
)
from edgar_rag.figures.printed import (
    PrintedLine,
    line_figures,
    lines_labelled,
    match_line,
    printed_lines,
    untagged_facts,
)
from edgar_rag.figures.resolve import FilingFigures, MissingFigure
from edgar_rag.figures.stated import FormulaDecline
from edgar_rag.question.periods import asked_fiscal_years, years_of_companies
from edgar_rag.question.reading import Kind, Question, asks_for_prose
from edgar_rag.question.request import Premise, Request, Transform, open_words, read_request
from edgar_rag.question.words import COUNTED_AS, lower_words, names_share
from edgar_rag.rules import ANNUAL_FORMS, LEGAL_FORMS, display_name, name_words


@dataclass(frozen=True, slots=True)
class Computed:
    """A figure answered in code: the sentence, its citations (markers from 1) and, when
    something was computed, the calculation with each operand's marker (one per company or
    year of a comparison, in ``comparison``)."""

    text: str
    citations: tuple[Citation, ...]
    calculation: dict[str, object] | None
    detail: str
    comparison: tuple[dict[str, object], ...] = ()


@dataclass(frozen=True, slots=True)
class Uncomputable:
    """A figure question the filing cannot answer: why, naming the figure or the formula."""

    reason: Reason
    detail: str


HeaderYears = Callable[[FilingMeta], YearOfHeader]
"""A filing's mapping from a column header to the fiscal year it denotes."""


@dataclass(slots=True)
class ComputedAnswers:
    """Answers figure questions from a store's reported figures and a metric library."""

    store: FigureStore
    library: MetricLibrary
    quarter: bool = False
    """The store is a quarter's view (``answer.quarter``): its figures are one report's."""

    def answer(
        self, question: Question, scope: Scope, header_years: HeaderYears
    ) -> Computed | Uncomputable | None:
        """The answer computed for ``question`` in the scoped filing (a comparison: in each
        company's filing it names); None when it is not a figure question the library can plan
        (the model answers it)."""
        if scope.filing is not None and scope.filing.form not in ANNUAL_FORMS and not self.quarter:
            return self._in_quarter(question, scope, header_years)
        if question.outlook:
            return None  # what it expects of a later year is said in prose, never reported
        contradicted = self._premise_contradicted(question, scope, header_years)
        if contradicted is not None:
            return contradicted
        if asks_for_prose(question.text):
            return None
        one_company = len({m.companies[0].cik or m.text for m in question.companies}) <= 1
        if question.kind is Kind.COMPARISON and not (
            one_company and question.asked.transform is not Transform.LEVEL
        ):  # "by what percentage did revenue fall in 2024 versus 2023": one figure's change
            return self._compare(question, scope, header_years)
        filing, filing_id = scope.filing, scope.filing_id
        if filing is None or filing_id is None:
            return None
        plan = plan_computation(question.text, self.library, question.asked)
        if isinstance(plan, FormulaDecline):
            plan = self._printed_formula(question.text, question.asked, plan, filing_id, filing)
        if isinstance(plan, FormulaDecline):
            return Uncomputable(Reason.MISSING_FIGURE, plan.detail)
        if plan is None or isinstance(plan, Unplanned):
            found = self._filing_plan(question.text, question.asked, plan, filing_id, filing)
            if found is None:
                return None if plan is None else _unplanned(plan, question)
            plan = found  # its words are all the filing's line's: no prose is left to ask
        elif question.kind is Kind.NARRATIVE and plan.source == "lookup":
            # A line item named in a question the words call prose ("What are the terms of
            # its debt?") is no request for the figure; a metric or a formula named outright
            # ("the etr", "X is defined as") is one, however the rest is worded.
            return None
        if _each_year(plan, question.years):  # "gross margin in FY2022, FY2023 and FY2024"
            return self._compare_years(plan, filing_id, filing, question.years, header_years)
        asked = max(question.years, default=filing.fiscal_year)
        result = self._compute_in(filing_id, filing, plan, asked)
        if isinstance(result, MissingFigure | CalculationDecline):
            of = f"of {plan.part.name}, " if plan.part is not None else ""
            return Uncomputable(Reason.MISSING_FIGURE, of + result.detail)
        if self._defined_otherwise(plan, filing_id, result):
            own = self._own_measure(plan, filing_id, filing, asked)
            if own is None:
                return None  # the model quotes the filer's own figure from the passages
            plan, result = own
        written = self._write([(plan, filing, result)], header_years)
        if isinstance(written, Uncomputable):
            return written
        text, citations, (shown,) = written
        if _looked_up(plan, result):
            detail = "looked up in the filing's reported figures; no model wrote this"
            if plan.name.startswith(_OWN_PREFIX):
                detail = (
                    "the filing's own figure of a measure it defines itself (its reconciliation "
                    "line), not the library's formula; no model wrote this"
                )
            return Computed(text, citations, None, detail)
        detail = "computed in code from the cited figures; no model wrote this"
        return Computed(text, citations, shown, detail)

    def most_cash_activity(
        self, year: int, scope: Scope, header_years: HeaderYears
    ) -> Computed | Uncomputable | None:
        """Which of the cash flow statement's activities brought in the most cash (or lost the
        least) in fiscal ``year``: each activity's net cash flow looked up and cited, the
        highest named first; None without a filing in scope."""
        found = self.look_up(_ACTIVITY_ITEMS, year, scope, header_years)
        if found is None or isinstance(found, Uncomputable):
            return found
        (text, citations, _), values = found
        top = max(values, key=lambda key: values[key]).removeprefix("cash_")
        said = f"{top.capitalize()} activities brought in the most cash in fiscal {year}: {text}"
        detail = (
            "each activity's net cash flow looked up in the filing's statement; no model wrote this"
        )
        return Computed(said, citations, None, detail)

    def _in_quarter(
        self, question: Question, scope: Scope, header_years: HeaderYears
    ) -> Computed | Uncomputable | None:
        """The answer from a quarter's report, read as a year of two columns (the quarter,
        the same quarter a year before), each figure said of its quarter; None when the
        question asks another span or company, or its report names no quarter."""
        if scope.filing is None or scope.filing_id is None or scope.filing.fiscal_quarter is None:
            return None
        filing = with_quarter_end(scope.filing, partial(self.store.figures, scope.filing_id))
        year_end = since_year_end(question, filing)
        if not (year_end or asks_one_quarter(question, filing)):
            return None
        store = QuarterStore(self.store, filing, year_end)
        view = replace(self, store=store, quarter=True)
        viewed = replace(scope, filing=quarter_meta(filing))
        found = view.answer(without_quarter_words(question), viewed, lambda _: header_years(filing))
        said = partial(
            in_quarter, quarter=scope.filing.fiscal_quarter, fiscal_year=filing.fiscal_year,
            year_end=year_end,
        )  # fmt: skip
        if isinstance(found, Computed):
            return replace(found, text=said(found.text), detail=said(found.detail))
        if isinstance(found, Uncomputable):
            return replace(found, detail=said(found.detail))
        return None

    def look_up(
        self,
        items: Sequence[LineItem],
        year: int,
        scope: Scope,
        header_years: HeaderYears,
        *,
        each: bool = True,
    ) -> (
        tuple[tuple[str, tuple[Citation, ...], tuple[dict[str, object], ...]], dict[str, Decimal]]
        | Uncomputable
        | None
    ):
        """Each line item's figure of fiscal ``year`` in the scoped filing, written and cited
        as one answer, with each item's value by key; an Uncomputable when one is not reported
        (``each``; else those reported, None when none is), None without a filing in scope."""
        filing, filing_id = scope.filing, scope.filing_id
        if filing is None or filing_id is None:
            return None
        parts: list[tuple[ComputationPlan, FilingMeta, Calculation]] = []
        for item in items:
            plan = ComputationPlan(
                name=item.key, formula=Ref(item.key), unit=ResultUnit.USD, decimals=None,
                scale=None, fiscal_year=year, source="lookup", items=(item,),
            )  # fmt: skip
            result = self._compute_in(filing_id, filing, plan, year)
            if isinstance(result, MissingFigure | CalculationDecline):
                if each:
                    return Uncomputable(Reason.MISSING_FIGURE, result.detail)
                continue
            parts.append((plan, filing, result))
        if not parts:
            return None
        written = self._write(parts, header_years)
        if isinstance(written, Uncomputable):
            return written
        return written, {plan.name: result.value for plan, _, result in parts}

    def _premise_contradicted(
        self, question: Question, scope: Scope, header_years: HeaderYears
    ) -> Uncomputable | None:
        """A ``false_premise`` decline when the filing's figures contradict what the question
        takes for granted (growth where the figure fell, a fall where it rose, a loss where
        it earned a profit, a dividend cut where it paid more); None when nothing is taken
        for granted, or the figures cannot decide (a segment's figure, a figure not reported)."""
        request = question.asked
        taken, filing, filing_id = request.premise, scope.filing, scope.filing_id
        if taken is None or taken.premise is Premise.EVENT or filing is None or filing_id is None:
            return None
        start, end = taken.span
        subject = request.measure_text[start:end]
        if taken.premise in (Premise.LOSS, Premise.PROFIT):
            subject = _LOSS.sub(lambda m: f"{m['kind'] or 'net '}income", subject.lower())
        subject = _DIVIDEND.sub("dividends paid", subject)
        plan = plan_computation(subject, self.library, read_request(subject))
        if plan is None or isinstance(plan, Unplanned):
            plan = self._filing_plan(subject, read_request(subject), plan, filing_id, filing)
        if not isinstance(plan, ComputationPlan) or plan.source == "stated":
            return None
        year = max(request.years, default=filing.fiscal_year)
        now = self._compute_in(filing_id, filing, replace(plan, fiscal_year=year), year)
        if not isinstance(now, Calculation):
            return None
        name = self._metric_name(plan)
        company = possessive(display_company(filing.company))
        if taken.premise in (Premise.LOSS, Premise.PROFIT):
            loss = taken.premise is Premise.LOSS
            if (now.value <= 0) if loss else (now.value >= 0):
                return None
            return Uncomputable(
                Reason.FALSE_PREMISE,
                f"the question takes for granted a {'loss' if loss else 'profit'}, but {company} "
                f"{name} was {now.text()} in fiscal {year}, a {'profit' if loss else 'loss'}"
                f"{_printed(now)}",
            )
        before = self._compute_in(filing_id, filing, replace(plan, fiscal_year=year - 1), year - 1)
        if not isinstance(before, Calculation):
            return None
        none_paid = (Premise.RAISE, Premise.CUT, Premise.SUSPENSION)
        if now.value == before.value == 0 and taken.premise in none_paid:
            return Uncomputable(
                Reason.FALSE_PREMISE,
                f"the question takes for granted '{taken.said}', but {company} {name} were none "
                f"in fiscal {year - 1} or fiscal {year}",
            )
        if now.value == before.value:
            return None
        rose = now.value > before.value
        contradicted = {
            Premise.RISE: not rose,
            Premise.RAISE: not rose,
            Premise.FALL: rose,
            Premise.CUT: rose,
            Premise.SUSPENSION: rose,
        }.get(taken.premise, False)
        if not contradicted:
            return None
        moved = "rose" if rose else "fell"
        return Uncomputable(
            Reason.FALSE_PREMISE,
            f"the question takes for granted '{taken.said}', but {company} {name} {moved} "
            f"from {before.text()} in fiscal {year - 1} to {now.text()} in fiscal {year}"
            f"{_printed(now)}",
        )

    def _defined_otherwise(
        self, plan: ComputationPlan, filing_id: int, result: Calculation
    ) -> bool:
        """``defines_otherwise`` for a plan: a library metric of the company as a whole, at
        one year."""
        if plan.part is not None or plan.transform is not Transform.LEVEL:
            return False
        return self.defines_otherwise(plan.name, filing_id, result)

    def defines_otherwise(self, name: str, filing_id: int, result: Calculation) -> bool:
        """The filing prints its own figure of the library metric ``name`` computed (a non-GAAP
        measure's reconciliation: "Free cash flow | 2023: 43,010") and no line of it prints
        the figure computed: the filer defines the measure otherwise, and its own definition,
        not the library's, answers the question asked of it by name."""
        metric = self.library.metrics.get(name)
        if metric is None:
            return False
        tables = (text for _, text in self._tables(filing_id).values())
        percent = result.unit in (ResultUnit.PERCENT, ResultUnit.POINTS)
        own = [
            figures
            for line in lines_labelled((metric.name, *metric.synonyms), tables)
            for figures in [line_figures(line)]
            if figures and all(percent == is_percent for _, _, is_percent in figures)
        ]  # Apple's "Gross margin" row prints dollars: no gross margin of the library's unit
        value = abs(result.value).scaleb(-result.scale)  # a dollar figure in its scale
        return bool(own) and not any(
            round(value, places) == printed for figures in own for printed, places, _ in figures
        )

    def _own_measure(
        self, plan: ComputationPlan, filing_id: int, filing: FilingMeta, asked: int
    ) -> tuple[ComputationPlan, Calculation] | None:
        """The filer's own figure of a measure it defines otherwise than the library (Meta's free
        cash flow, less finance lease payments): the one line it prints under the measure's
        name, looked up for the asked year; None when no one line is, or it has no such year."""
        metric = self.library.metrics[plan.name]
        if metric.unit not in (ResultUnit.USD, ResultUnit.USD_PER_SHARE):
            return None
        lines = self._printed_lines(filing_id, filing)
        line = match_line(open_words(metric.name), lower_words(metric.name), lines)
        if not isinstance(line, PrintedLine):
            return None
        printed = line.item(metric.name)
        if printed.unit is not metric.unit.dimension:
            return None
        item = replace(printed, key=_OWN_PREFIX + printed.key)
        own = ComputationPlan(
            item.key, Ref(item.key), metric.unit, plan.decimals, plan.scale, plan.fiscal_year,
            "lookup", items=(item,),
        )  # fmt: skip
        result = self._compute_in(filing_id, filing, own, asked)
        return None if isinstance(result, MissingFigure | CalculationDecline) else (own, result)

    def _filing_plan(
        self,
        text: str,
        request: Request,
        plan: Unplanned | None,
        filing_id: int,
        filing: FilingMeta,
    ) -> ComputationPlan | None:
        """A plan of what the library alone could not plan, read in the filing itself: a part
        of the company it tags (``_part_plan``), else a line it prints (``_printed_plan``)."""
        parted = self._part_plan(text, request, plan, filing_id, filing.company)
        if parted is not None:
            return parted
        shared = self._printed_share(text, request, plan, filing_id, filing)
        if shared is not None:
            return shared
        return self._printed_plan(text, request, plan, filing_id, filing)

    def _printed_share(
        self,
        text: str,
        request: Request,
        plan: Unplanned | None,
        filing_id: int,
        filing: FilingMeta,
    ) -> ComputationPlan | None:
        """ "X as a share of Y" where the library names no line for X or Y: each side read as the
        line the filing prints under its words (Visa's "personnel expenses" as ``Operating
        Expenses: Personnel``), then planned as the library's share of a whole; None when a
        side names no one line, or the question asks more than the share."""
        said = _AS_SHARE.search(request.measure_text)
        if said is None or (plan is not None and plan.decline):
            return None
        lines: list[PrintedLine] | None = None
        items: list[LineItem] = []
        for start, end in ((0, said.start()), (said.end(), len(request.measure_text))):
            side = request.measure_text[start:end]
            words = open_words(side)
            if not words or self.library.item_named(" ".join(words)) is not None:
                continue
            lines = self._printed_lines(filing_id, filing) if lines is None else lines
            line = match_line(words, lower_words(side), lines)
            if not isinstance(line, PrintedLine):
                return None
            items.append(line.item(_phrase(side, words)))
        return self._replanned(text, request, items) if items else None

    def _replanned(
        self, text: str, request: Request, items: Sequence[LineItem]
    ) -> ComputationPlan | None:
        """The question planned again with ``items`` (lines the filing prints) beside the
        library's, the plan carrying them; None when it plans no computation even so."""
        again = plan_computation(text, self._with(items), request)
        if not isinstance(again, ComputationPlan) or again.source == "stated":
            return None
        return replace(again, items=(*again.items, *items))

    def _with(self, items: Sequence[LineItem]) -> MetricLibrary:
        """The library with ``items`` beside its own line items."""
        return replace(self.library, items={**self.library.items, **{i.key: i for i in items}})

    def _printed_plan(
        self,
        text: str,
        request: Request,
        plan: Unplanned | None,
        filing_id: int,
        filing: FilingMeta,
    ) -> ComputationPlan | None:
        """The plan of a line the filing prints under the question's own words ("fuel expense":
        ``Operating expenses: Fuel``) where the library names no figure the question asks;
        None when no one line fits (``figures.printed``) or the plan leaves words open."""
        if plan is not None and plan.decline:
            return None
        lines = self._printed_lines(filing_id, filing)
        line = match_line(request.open_words, lower_words(text), lines)
        if not isinstance(line, PrintedLine):
            return None
        if request.average_balance and line.fact.source is FigureSource.ROW:
            return None  # an untagged line says no balance date to average its years over
        said = set(lower_words(text))  # the label's words the question writes, filler or not
        named = [*request.open_words, *(w for w in lower_words(line.label) if w in said)]
        item = line.item(_phrase(request.measure_text, named), line.says_all(request.open_words))
        again = self._replanned(text, request, [item])
        return again if again is not None and item.key in _items_of(again.formula) else None

    def _printed_formula(
        self,
        text: str,
        request: Request,
        decline: FormulaDecline,
        filing_id: int,
        filing: FilingMeta,
    ) -> ComputationPlan | FormulaDecline | Unplanned:
        """The question's own formula with each phrase the library cannot name read as the
        line the filing prints under those words ("purchases related to property and equipment
        and intangible assets"); the decline as it was when a phrase names no one line, and
        what the rest of the question asks that code cannot do with the formula once every
        phrase names its line (a percent change of a share it defines)."""
        lines: list[PrintedLine] | None = None
        items: list[LineItem] = []
        plan: Plan | None = decline
        while isinstance(plan, FormulaDecline) and plan.phrase and len(items) < _MOST_PHRASES:
            lines = self._printed_lines(filing_id, filing) if lines is None else lines
            line = match_line(open_words(plan.phrase), lower_words(plan.phrase), lines)
            if not isinstance(line, PrintedLine):
                return decline
            items.append(line.item(plan.phrase))
            plan = plan_computation(text, self._with(items), request)
        if isinstance(plan, Unplanned) and plan.decline and items:
            return plan
        if not isinstance(plan, ComputationPlan) or not items:
            return decline
        return replace(plan, items=(*plan.items, *items))

    def _printed_lines(self, filing_id: int, filing: FilingMeta) -> list[PrintedLine]:
        """The labelled lines of the filing's tables, tagged or not (``figures.printed``)."""
        return printed_lines(self.store.figures(filing_id), self._tables(filing_id), filing)

    def _tables(self, filing_id: int) -> dict[int, tuple[int, str]]:
        """Each table chunk's start offset and text, by ordinal."""
        return {
            ordinal: (passage.chunk.start, passage.chunk.text)
            for ordinal, passage in self.store.table_passages(filing_id).items()
        }

    def _part_plan(
        self, text: str, request: Request, plan: Unplanned | None, filing_id: int, company: str
    ) -> ComputationPlan | None:
        """The plan of a part of the company the question names ("Greater China net sales",
        "the Data Center's share of revenue"), where its name is all that no plan accounted
        for: the same measure read in that part's XBRL facts, or the part's line as a share of
        the company's; None when the words name no part the filing tags, or nothing plans."""
        words = plan.words if plan is not None else ()
        if _HOW_MUCH_OF.search(request.measure_text):
            return None  # "how much of its revenue came from X": an amount or a share, unsaid
        share = not words and names_share(request.measure_text)  # the part's line over the whole
        if (plan is not None and plan.decline) or not (words or share):
            return None
        facts = self.store.figures(filing_id)
        part = find_part(words, text, facts, name_words(company))
        if part is None:
            return None
        if share:
            named = {item.key: item for _, item in self.library.item_spans(request.measure_text)}
            parts = tuple(item.of_part(part) for item in named.values())
            said = tuple(replace(i, synonyms=(part.name.lower(),), rows=()) for i in parts)
            library = replace(
                self.library, items={**self.library.items, **{i.key: i for i in said}}
            )
            again = plan_computation(text, library, request)
            if not isinstance(again, ComputationPlan) or again.source == "stated":
                return None
            used = {ref.item for ref in refs(again.formula)}
            return replace(again, part=part, items=tuple(i for i in said if i.key in used))
        measure = request.measure_text
        for word in words:
            measure = re.sub(rf"\b{re.escape(word)}\b", " " * len(word), measure, flags=re.I)
        again = plan_computation(text, self.library, replace(request, measure_text=measure))
        if not isinstance(again, ComputationPlan) or again.source == "stated":
            return None
        items = {key: self.library.items[key].of_part(part) for key in _items_of(again.formula)}
        formula = map_refs(again.formula, lambda ref: replace(ref, item=items[ref.item].key))
        name = items[again.name].key if again.name in items else again.name
        return replace(again, name=name, formula=formula, part=part, items=tuple(items.values()))

    def left_open(self, question: Question) -> tuple[str, ...]:
        """The words of a figure question no plan accounts for, which code left to the model
        ("graphics", "segment"): every passage its answer cites for a figure must say them. A
        measure the library lacks altogether ("buybacks", "combined ratio") is held to the
        verifier's metric check alone: its words are the filing's synonyms' business."""
        if question.kind is Kind.NARRATIVE:
            return ()  # prose names its topic in words a passage may put otherwise
        plan = plan_computation(question.text, self.library, question.asked)
        return plan.words if isinstance(plan, Unplanned) and not plan.decline else ()

    def disagreement(self, text: str, question: Question, scope: Scope) -> str | None:
        """Why a figure the model's ``text`` states for a metric or line item of the scoped
        filing is not what code computes from the filing's reported figures, for the fiscal
        years its sentence names (else the question's); None when every such figure agrees or
        none can be checked.

        A sentence is checked when it names one library metric or line item of the company
        itself ("Apple's gross margin", "net income"; not "Services gross margin", a segment's)
        and states a figure of its unit; any of the named years' values may back the figure.
        """
        filing, filing_id = scope.filing, scope.filing_id
        if filing is None or filing_id is None:
            return None
        if any(m.companies[0].cik != filing.cik for m in question.companies):
            return None  # another company's figures are not this filing's to check
        for sentence in split_sentences(strip_markers(text)):
            plan = plan_computation(sentence, self.library, complete=False)
            if not isinstance(plan, ComputationPlan) or not self._names_own_figure(
                sentence, plan, filing
            ):
                continue
            percent = plan.unit is ResultUnit.PERCENT
            claims = [
                f
                for f in find_figures(sentence)
                if f.is_percent == percent
                and not states_change(sentence, f)
                and not _counts_something(sentence, f)
            ]
            years = asked_fiscal_years(sentence, filing) or question.years or {filing.fiscal_year}
            values = [
                result.value
                for year in sorted(years)
                if isinstance(
                    result := self._compute_in(
                        filing_id, filing, replace(plan, fiscal_year=year), year
                    ),
                    Calculation,
                )
            ]
            if not claims or not values:
                continue
            if any(
                not any(_agrees(claim, value, plan.unit) for value in values) for claim in claims
            ):
                when = " or ".join(f"fiscal {year}" for year in sorted(years))
                return (
                    f"the answer states a {self._metric_name(plan)} that the filing's reported "
                    f"figures do not give for {when}"
                )
        return None

    def _names_own_figure(self, sentence: str, plan: ComputationPlan, filing: FilingMeta) -> bool:
        """The sentence names the plan's metric or line item as the filer's own: at its start,
        after the filer's possessive, ``its``, ``the``, ``total`` or the like; not a segment's,
        a product's or another company's ("Services gross margin", "NVIDIA's revenue")."""
        metric = self.library.metrics.get(plan.name)
        item = self.library.items.get(plan.name)
        if metric is not None:
            names: tuple[str, ...] = (metric.name, *metric.synonyms)
        elif item is not None and plan.source == "lookup":
            names = (item.label, *item.synonyms, *item.row_names)
        else:
            return False
        lowered = " ".join(sentence.lower().split())
        for name in sorted({n.lower() for n in names}, key=len, reverse=True):
            match = re.search(rf"(?<![\w&]){re.escape(name)}(?![\w&])", lowered)
            if match is None:
                continue
            before = (lowered[: match.start()].split()[-1:] or [""])[0]
            owner = _POSSESSIVE.fullmatch(before)
            if owner is not None:
                return owner[1] in {*name_words(filing.company), (filing.ticker or "").lower()}
            return _PLAIN_BEFORE.fullmatch(before) is not None
        return False

    def _compare(
        self, question: Question, scope: Scope, header_years: HeaderYears
    ) -> Computed | Uncomputable | None:
        """Two or more companies' figure, each computed in its own filing of the year the
        question writes (else its latest), and cited there, then which is the higher; a company
        whose filing lacks the figure is named as not answered, the others answered (issue 41).
        None unless the library plans the figure and the question names at least two indexed
        companies."""
        plan = plan_computation(question.text, self.library, question.asked)
        filing, filing_id = scope.filing, scope.filing_id
        if (plan is None or isinstance(plan, Unplanned)) and filing is not None and filing_id:
            # one company's part or printed line over years ("Greater China net sales in 2025
            # and 2024")
            parted = self._filing_plan(question.text, question.asked, plan, filing_id, filing)
            plan = parted if parted is not None and len(question.years) >= 2 else plan
        if isinstance(plan, Unplanned):
            return _unplanned(plan, question)
        if not isinstance(plan, ComputationPlan):
            return None if plan is None else Uncomputable(Reason.MISSING_FIGURE, plan.detail)
        years_written = set(_WRITTEN_YEAR.findall(question.text))
        named = max(question.years) if len(question.years) == 1 else None
        if named is None and not question.years and len(years_written) == 1:
            named = int(years_written.pop())  # read with no filing in scope: the year as written
        year = plan.fiscal_year or named  # "margins for 2023": each company's 2023, not its latest
        own = _own_years(question)
        if own:  # "P&G in fiscal 2025 and J&J in fiscal 2024": each company in its own year
            plan, year = replace(plan, fiscal_year=None), None
        compared = self._compared_filings(question, scope, year, own)
        if isinstance(compared, Uncomputable):
            return compared
        if plan.part is not None and len(compared) != 1:
            return None  # a part of one company set against another company: not planned
        if len(compared) == 1 and len(question.years) >= 2:
            return self._compare_years(plan, *compared[0], question.years, header_years)
        if len(compared) < 2:
            return None
        parts, unanswered = [], []
        for filing_id, filing in compared:
            result = self._compute_in(filing_id, filing, plan, year or filing.fiscal_year)
            if isinstance(result, MissingFigure | CalculationDecline):
                unanswered.append(f"for {display_company(filing.company)}: {result.detail}")
            elif self._defined_otherwise(plan, filing_id, result):
                return None
            else:
                parts.append((plan, filing, result))
        if not parts:
            return Uncomputable(Reason.MISSING_FIGURE, "; ".join(unanswered))
        written = self._write(parts, header_years)
        if isinstance(written, Uncomputable):
            return written
        text, citations, shown = written
        detail = "each company's figure computed in code from its own filing; no model wrote this"
        if unanswered:
            told = "Not answered " + "; ".join(unanswered)
            return Computed(_also(text, told), citations, None, f"{detail}. {told}", shown)
        higher = _higher(parts, self._metric_name(plan))
        return Computed(_also(text, higher), citations, None, detail, shown)

    def _compare_years(
        self,
        plan: ComputationPlan,
        filing_id: int,
        filing: FilingMeta,
        years: frozenset[int],
        header_years: HeaderYears,
    ) -> Computed | Uncomputable | None:
        """One company's figure in each year the question names (newest first), each cited to
        its column, and the change from the earliest to the latest computed from the same
        cited figures."""
        asked = sorted(years, reverse=True)
        latest, earliest = asked[0], asked[-1]
        first = self._compute_in(filing_id, filing, replace(plan, fiscal_year=latest), latest)
        if isinstance(first, Calculation) and self._defined_otherwise(plan, filing_id, first):
            own = self._own_measure(plan, filing_id, filing, latest)
            if own is None:
                return None
            plan = own[0]  # each year, and the change, of the filer's own line
        change = replace(
            plan,
            formula=Binary("-", plan.formula, shift(plan.formula, earliest - latest)),
            source="metric",
            unit=ResultUnit.POINTS if plan.unit is ResultUnit.PERCENT else plan.unit,
            transform=Transform.AMOUNT_CHANGE,
        )
        jobs = [(replace(plan, fiscal_year=year), filing_id, filing, year) for year in asked]
        jobs.append((replace(change, fiscal_year=latest), filing_id, filing, latest))
        written = self._compute_all(jobs, header_years)
        if written is None or isinstance(written, Uncomputable):
            return written
        text, citations, shown = written
        detail = "each year's figure and the change computed in code from the cited figures"
        return Computed(text, citations, shown[-1], detail + "; no model wrote this", shown[:-1])

    def _compute_all(
        self,
        jobs: Sequence[tuple[ComputationPlan, int, FilingMeta, int]],
        header_years: HeaderYears,
    ) -> tuple[str, tuple[Citation, ...], tuple[dict[str, object], ...]] | Uncomputable | None:
        """Each plan computed for its year in its filing, then written and checked as one
        answer; the first that cannot be computed declines it, and None when a filing defines
        the metric otherwise (``_defined_otherwise``)."""
        parts: list[tuple[ComputationPlan, FilingMeta, Calculation]] = []
        for plan, filing_id, filing, year in jobs:
            result = self._compute_in(filing_id, filing, plan, year)
            if isinstance(result, MissingFigure | CalculationDecline):
                return Uncomputable(Reason.MISSING_FIGURE, result.detail)
            if self._defined_otherwise(plan, filing_id, result):
                return None
            parts.append((plan, filing, result))
        return self._write(parts, header_years)

    def _compute_in(
        self, filing_id: int, filing: FilingMeta, plan: ComputationPlan, asked: int
    ) -> Calculation | CalculationDecline | MissingFigure:
        """The plan computed for fiscal ``asked`` (or the year the question writes) in this
        filing and the company's earlier filings it reaches back to."""
        facts = self.store.figures(filing_id)
        if any(not item.concepts and item.rows for item in plan.items):  # an untagged line's
            facts = facts + untagged_facts(facts, self._tables(filing_id), filing)
        filings = [FilingFigures(filing_id, filing, facts)]
        filings.extend(self._earlier_filings(filing, plan, plan.fiscal_year or asked))
        return compute_plan(plan, self.library, filings, fiscal_year=asked)

    def _write(
        self,
        parts: Sequence[tuple[ComputationPlan, FilingMeta, Calculation]],
        header_years: HeaderYears,
    ) -> tuple[str, tuple[Citation, ...], tuple[dict[str, object], ...]] | Uncomputable:
        """The sentence (one clause per part), its citations and each part's calculation with
        its markers, once every operand is checked printed in its cited row."""
        cited = self._cite(
            [
                (operand, header_years(filing))
                for _, filing, calc in parts
                for operand in calc.operands
            ]
        )
        if isinstance(cited, Uncomputable):
            return cited
        citations, markers, chosen = cited
        passages = {c.marker: c.quote for c in citations}
        sentences, shown, first = [], [], 0
        for plan, filing, resolved in parts:
            count = len(resolved.operands)
            own = {i: markers[first + i] for i in range(count)}
            calc = replace(resolved, operands=tuple(chosen[first : first + count]))
            first += count
            part = plan.part.name if plan.part is not None else None
            problem = calculation_is_supported(
                calc, calc.rounded, passages, own, header_years(filing), part
            )
            if problem is not None:  # e.g. tagged only in a table without year columns
                return Uncomputable(Reason.UNSUPPORTED_CLAIM, problem)
            sentences.append(self._sentence(plan, calc, filing, own))
            shown.append(_with_markers(calc, own))
        if any("\n" in sentence for sentence in sentences):
            return "\n".join(f"{sentence}." for sentence in sentences), citations, tuple(shown)
        return "; ".join(sentences) + ".", citations, tuple(shown)

    def _compared_filings(
        self, question: Question, scope: Scope, year: int | None, own: Mapping[int, int]
    ) -> list[tuple[int, FilingMeta]] | Uncomputable:
        """The scoped filing first (unless the question gives its company another year), then
        the filing of each other company the question names, of its own year in ``own`` (by
        CIK), else of ``year``, else its latest; an Uncomputable for a company with no such
        filing."""
        found: list[tuple[int, FilingMeta]] = []
        scoped, scoped_id = scope.filing, scope.filing_id
        if (
            scoped is not None
            and scoped_id is not None
            and (own.get(scoped.cik or 0, scoped.fiscal_year) == scoped.fiscal_year)
        ):
            found.append((scoped_id, scoped))
        for mention in question.companies:
            company = mention.companies[0]
            if company.cik is None or any(f.cik == company.cik for _, f in found):
                continue
            wanted = own.get(company.cik, year)
            try:
                other = self.store.resolve_scope(cik=company.cik, fiscal_year=wanted)
            except NotFoundError:
                when = f" for fiscal {wanted}" if wanted is not None else ""
                return Uncomputable(
                    Reason.OUT_OF_SCOPE,
                    f"the question compares {company.name}, whose 10-K{when} is not indexed",
                )
            if other.filing is not None and other.filing_id is not None:
                found.append((other.filing_id, other.filing))
        return found

    def _earlier_filings(
        self, filing: FilingMeta, plan: ComputationPlan, asked: int
    ) -> Iterator[FilingFigures]:
        """The company's own filings of the years before the asked filing's comparative columns
        that the plan reaches back to, as far as they are indexed."""
        earliest = min(filing.years_reported or (filing.fiscal_year,))
        needed = asked + min(offset for ref in refs(plan.formula) for offset in ref.offsets())
        for year in range(earliest - 1, needed - 1, -1):
            try:
                scope = self.store.resolve_scope(
                    ticker=None if filing.cik else filing.ticker, cik=filing.cik, fiscal_year=year
                )
            except NotFoundError:
                continue
            if scope.filing is not None and scope.filing_id is not None:
                facts = self.store.figures(scope.filing_id)
                yield FilingFigures(scope.filing_id, scope.filing, facts)

    def _sentence(
        self,
        plan: ComputationPlan,
        calculation: Calculation,
        filing: FilingMeta,
        markers: dict[int, int],
    ) -> str:
        """``Apple's gross margin was 46.9% in fiscal 2025`` (the result named as asked: "net
        sales fell 11.0% from fiscal 2022 to fiscal 2023"), then the formula in words and each
        operand on a line of its own with the marker of the row printing it (a lookup: the
        figure and its marker alone)."""
        company = possessive(display_company(filing.company))
        year = calculation.fiscal_year
        if _looked_up(plan, calculation):
            (operand,) = calculation.operands
            label, shown = operand.label, calculation
            if shown.value < 0 and _PROFIT.search(label):  # "operating loss was $17,729 million"
                label = _PROFIT.sub("loss", label, count=1)
                shown = replace(shown, value=-shown.value, rounded=-shown.rounded)
            return (
                f"{company} {label} {_verb(label)} {shown.text()} in fiscal {year} [{markers[0]}]"
            )
        name = self._metric_name(plan)
        result = _result_in_words(plan, calculation, name)
        if plan.transform is Transform.LEVEL or plan.source == "stated":
            computed = parse_formula(calculation.formula)  # a derived line's items in it
            result += f", computed as {render(computed, _named_leaf(calculation))}"
        lines = [
            f"- {operand.label}, fiscal {operand.fiscal_year}: {_figure(operand)} "
            f"[{markers[index]}]"
            for index, operand in enumerate(calculation.operands)
        ]
        return "\n".join([f"{company} {result}:", *lines])

    def _metric_name(self, plan: ComputationPlan) -> str:
        """The plan's metric or line item in words (``gross margin``, ``net income``; of a
        part, ``Graphics operating margin``)."""
        metric = self.library.metrics.get(plan.name)
        if metric is not None:
            return metric.name if plan.part is None else f"{plan.part.name} {metric.name}"
        if plan.source == "stated":
            return plan.name  # the question's own name for what it defines
        items = {**self.library.items, **{item.key: item for item in plan.items}}
        share = plan.formula
        if isinstance(share, Binary) and share.op == "-" and plan.unit is ResultUnit.POINTS:
            share = share.left  # a share's change in points: the share is what moved
        if (
            isinstance(share, Binary)
            and share.op == "/"
            and isinstance(share.left, Ref)
            and isinstance(share.right, Ref)
            and {share.left.item, share.right.item} <= items.keys()
        ):  # a line item's share of another: "capital expenditures as a share of revenue"
            return f"{items[share.left.item].label} as a share of {items[share.right.item].label}"
        item = items.get(plan.name)
        return item.label if item is not None else plan.name.replace("_", " ")

    def _cite(
        self, operands: Sequence[tuple[Operand, YearOfHeader]]
    ) -> tuple[tuple[Citation, ...], dict[int, int], list[Operand]] | Uncomputable:
        """One citation per distinct row printing an operand (the row as the quote), each
        operand's marker, and each operand cited where it is printed: of the places showing its
        figure, the first whose row prints it in its fiscal year's column (else the first)."""
        wanted: dict[int, set[int]] = {}
        for operand, _ in operands:
            for ref in (operand.citation, *operand.displays):
                if ref.filing_id is not None and ref.chunk_ordinal is not None:
                    wanted.setdefault(ref.filing_id, set()).add(ref.chunk_ordinal)
        found = {
            (filing_id, ordinal): passage
            for filing_id, ordinals in wanted.items()
            for ordinal, passage in self.store.passages_at(filing_id, sorted(ordinals)).items()
        }
        citations: list[Citation] = []
        markers: dict[int, int] = {}
        chosen: list[Operand] = []
        quotes: dict[tuple[int, int, int], int] = {}
        for index, (operand, year_of_header) in enumerate(operands):
            ref = operand.citation
            if ref.filing_id is None or ref.chunk_ordinal is None:
                return Uncomputable(
                    Reason.MISSING_FIGURE,
                    f"{operand.label} for fiscal {operand.fiscal_year} is reported but not "
                    "displayed in the filing's text, so it cannot be cited",
                )
            placed = _printed_place(operand, found, year_of_header)
            if placed is None:
                return Uncomputable(Reason.MISSING_FIGURE, "a cited passage is not in the index")
            cited, passage, (start, end) = placed
            ref = cited.citation
            spot = (ref.filing_id or 0, ref.chunk_ordinal or 0, start)
            if spot not in quotes:
                quotes[spot] = len(citations) + 1
                citations.append(_citation(quotes[spot], passage, start, end))
            markers[index] = quotes[spot]
            chosen.append(cited)
        return tuple(citations), markers, chosen


def _own_years(question: Question) -> dict[int, int]:
    """Each named company's own fiscal year by CIK, when the question writes one after every
    company and they differ ("Walmart's revenue for fiscal 2025 with Amazon's for 2024");
    empty otherwise (one year for all, or none)."""
    mentions = [m for m in question.companies if m.companies[0].cik is not None]
    years = years_of_companies(question.text, [(m.start, m.end) for m in mentions])
    own: dict[int, int] = {}
    for mention, year in zip(mentions, years, strict=True):
        cik = mention.companies[0].cik
        if year is None or cik is None or own.get(cik, year) != year:
            return {}
        own[cik] = year
    return own if len(own) >= 2 and len(set(own.values())) > 1 else {}


def _also(text: str, sentence: str) -> str:
    """``text`` and one more sentence: on a line of its own after an answer set out in lines."""
    joint = "\n" if "\n" in text else " "
    return f"{text}{joint}{sentence}."


def _higher(parts: Sequence[tuple[ComputationPlan, FilingMeta, Calculation]], name: str) -> str:
    """Which company's figure is the higher of two (the highest of more), as they are shown:
    figures the answer prints alike are said to be the same."""
    if len({calc.text() for _, _, calc in parts}) == 1:
        return f"The {name} is the same for each, as shown"
    top = max(parts, key=lambda part: part[2].value)
    which = "higher" if len(parts) == 2 else "highest"
    return f"{possessive(display_company(top[1].company))} {name} is the {which}"


def _verb(label: str) -> str:
    """``were`` for a plural line item ("capital expenditures", "total assets", "net sales"),
    else ``was`` ("revenue", "cost of sales", "dividends paid" were: its noun is plural)."""
    words = [word.strip(",;") for word in label.lower().split()]
    cut = next((i for i, word in enumerate(words) if i and word in _PREPOSITIONS), len(words))
    head_words = words[:cut]  # "return on assets" was, "payments for businesses" were
    head = next((w for w in reversed(head_words) if w not in _PARTICIPLES), head_words[-1])
    return "were" if head.endswith("s") and not head.endswith(("ss", "us", "is")) else "was"


_PARTICIPLES = frozenset({"paid", "declared", "net", "received", "used", "provided"})
_PREPOSITIONS = frozenset({"of", "on", "for", "from", "to", "in", "by", "attributable"})


def _result_in_words(plan: ComputationPlan, calculation: Calculation, name: str) -> str:
    """The result as the question asked it: a level ("gross margin was 46.9% in fiscal
    2025"), a change said with its direction in words ("net sales fell 11.0% from fiscal 2022
    to fiscal 2023", "operating margin rose 1.2 percentage points"), a compound rate, a mean."""
    year = calculation.fiscal_year
    first = year + min((ref.offset for ref in refs(plan.formula)), default=0)
    since = f"from fiscal {first} to fiscal {year}"
    amount = calculation.text().removeprefix("-").replace("$-", "$")
    falls = calculation.rounded < 0
    match plan.transform:
        case Transform.PERCENT_CHANGE | Transform.AMOUNT_CHANGE | Transform.POINT_CHANGE:
            if calculation.rounded == 0:
                return f"{name} was unchanged {since}"
            moved = "fell" if falls else "rose"
            by = " by" if plan.transform is Transform.AMOUNT_CHANGE else ""
            if calculation.unit is ResultUnit.POINTS:
                since = _point_levels(plan.formula, calculation) or since
            return f"{name} {moved}{by} {amount} {since}"
        case Transform.CAGR:
            moved = "fell" if falls else "grew"
            return f"{name} {moved} at a compound annual rate of {amount} {since}"
        case Transform.AVERAGE:
            return f"{name} averaged {calculation.text()} over fiscal {first} to fiscal {year}"
    return f"{name} {_verb(name)} {calculation.text()} in fiscal {year}"


def _point_levels(formula: Expr, calculation: Calculation) -> str | None:
    """``from 20.2% in fiscal 2021 to 22.9% in fiscal 2022``: the two percentages a change in
    percentage points is the difference of, each computed from the cited operands; None when
    the formula is not one percentage less another."""
    if not (isinstance(formula, Binary) and formula.op == "-"):
        return None
    levels = [
        calculate(side, calculation.fiscal_year, calculation.operands, ResultUnit.PERCENT)
        for side in (formula.right, formula.left)
    ]
    if not all(isinstance(level, Calculation) for level in levels):
        return None
    (earlier, later) = (level for level in levels if isinstance(level, Calculation))
    first = calculation.fiscal_year + min((ref.offset for ref in refs(formula.right)), default=0)
    return (
        f"from {earlier.text()} in fiscal {first} to {later.text()} in fiscal "
        f"{calculation.fiscal_year}"
    )


def _named_leaf(calculation: Calculation) -> Callable[[Ref], str]:
    """A formula's line item in words: its label, the year when not the asked one, the mean
    of opening and closing balances for an average."""
    year = calculation.fiscal_year

    def leaf(ref: Ref) -> str:
        label = next((o.label for o in calculation.operands if o.item == ref.item), ref.item)
        when = "" if ref.offset == 0 else f" of fiscal {year + ref.offset}"
        return f"average {label}{when}" if ref.average else f"{label}{when}"

    return leaf


def _activity_item(activity: str, concept: str, *rows: str) -> LineItem:
    """The net cash flow of one activity of the cash flow statement, as a line item."""
    return LineItem(
        key=f"cash_{activity}", label=f"net cash from {activity} activities",
        statement="cash_flow", period=PeriodKind.DURATION, unit=Dimension.USD,
        concepts=(concept,), alternates=(), synonyms=(),
        rows=(f"*cash*{activity} activities", *rows, "!*discontinued*", "!*continuing*"),
    )  # fmt: skip


_ACTIVITY_ITEMS = (
    _activity_item("operating", "us-gaap:NetCashProvidedByUsedInOperatingActivities",
                   "*cash*by operations", "*cash*from operations"),
    _activity_item("investing", "us-gaap:NetCashProvidedByUsedInInvestingActivities"),
    _activity_item("financing", "us-gaap:NetCashProvidedByUsedInFinancingActivities"),
)  # fmt: skip
"""Each activity's net cash flow: its total row ("Total cash provided by operating activities",
"Cash provided (used) by operations"), never that of continuing or discontinued operations."""


_DIVIDEND = re.compile(r"^.*\bdividends?\b", re.I | re.S)
"""A dividend premise's subject ("its common stock dividend") is the dividends it paid."""
_LOSS = re.compile(r"(?P<kind>operating\s+)?(?:net\s+)?(?:loss(?:es)?|profit(?:ability)?)")


def _printed(calculation: Calculation) -> str:
    """Where the figure is printed: ``; its statements print net income as 93,736 for fiscal
    2024`` (the first operand's row)."""
    if not calculation.operands:
        return ""
    operand = calculation.operands[0]
    return (
        f"; its statements print {operand.label} as {operand.printed} for fiscal "
        f"{operand.fiscal_year}"
    )


_OWN_PREFIX = "own_"
"""Keys a filer's own measure's line apart from the library's metric of the same name."""
_PROFIT = re.compile(r"\b(?:income|earnings|profit)\b(?!\s+tax)")
"""A result that is a loss when negative: "operating income" of -17,729 is an operating loss."""
_WRITTEN_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_HOW_MUCH_OF = re.compile(r"\bhow\s+much\s+of\b", re.I)


_AS_SHARE = re.compile(
    r"\s+as\s+an?\s+(?:share|percentage|percent|proportion|fraction|%)\s+of\s+", re.IGNORECASE
)
"""Where "X as a share of Y" divides the part from the whole."""
_MOST_PHRASES = 6
"""The most phrases of a question's formula read as printed lines."""


def _phrase(measure: str, words: Sequence[str]) -> str:
    """The stretch of ``measure`` from the first of ``words`` to the last, as written: the
    question's own name for the figure it asks."""
    lowered = measure.lower()
    spans = [
        (m.start(), m.end())
        for word in words
        for m in re.finditer(rf"(?<![\w&'’-]){re.escape(word)}(?![\w&-])", lowered)
    ]
    start, end = min(s for s, _ in spans), max(e for _, e in spans)
    return measure[start:end]


def _items_of(formula: Expr) -> list[str]:
    return list(dict.fromkeys(ref.item for ref in refs(formula)))


def possessive(name: str) -> str:
    """``McDonald's``, ``Meta Platforms'``, ``Amazon.com's``: a name that ends in an s takes an
    apostrophe alone, one that is already possessive nothing."""
    if name.endswith(("'s", "’s")):
        return name
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _unplanned(plan: Unplanned, question: Question) -> Uncomputable | None:
    """A question part of which no plan answers: declined naming the part, or (None) left to
    the model to read in the passages when the part is words a passage may say ("per square
    foot", "Greater China"), its answer held to the verifier."""
    if plan.decline:
        return Uncomputable(Reason.UNSUPPORTED_QUESTION, plan.detail)
    return None


def _printed_place(
    operand: Operand, found: dict[tuple[int, int], Passage], year_of_header: YearOfHeader
) -> tuple[Operand, Passage, tuple[int, int]] | None:
    """The operand cited at the first of its places (its own, then its other displays) whose row
    prints it in its fiscal year's column, else at its own place; None when that passage is not
    in the index."""
    first: tuple[Operand, Passage, tuple[int, int]] | None = None
    for ref in (operand.citation, *operand.displays):
        passage = found.get((ref.filing_id or 0, ref.chunk_ordinal or 0))
        if passage is None:
            continue
        cited = replace(operand, citation=ref)
        start, end = _row_span(passage, cited)
        if operand_is_printed(cited, passage.chunk.text[start:end], year_of_header):
            return cited, passage, (start, end)
        if first is None and ref is operand.citation:
            first = cited, passage, (start, end)
    return first


_POSSESSIVE = re.compile(r"(.+)['’]s?")
_PLAIN_BEFORE = re.compile(r"|its|the|total|consolidated|reported|our|of|in|and|was|were")


def _agrees(claim: Figure, value: Decimal, unit: ResultUnit) -> bool:
    """The stated figure is ``value`` (in the unit: percent points, dollars, a multiple, days)
    to within one unit of the last place it is written in, signs aside; an amount written
    without a scale word may be in the filing's thousands, millions or billions."""
    exact = abs(float(value))
    step = 10.0**-claim.decimals_written
    if unit is not ResultUnit.USD and unit is not ResultUnit.USD_PER_SHARE:
        return abs(claim.raw - exact) <= step
    if claim.scale != 1:
        return abs(abs(claim.value) - exact) <= step * claim.scale
    return any(abs(claim.raw * scale - exact) <= step * scale for scale in (1, 1e3, 1e6, 1e9))


def _with_markers(calculation: Calculation, markers: dict[int, int]) -> dict[str, object]:
    """The calculation as JSON carries it, each operand with the marker that cites it."""
    shown = calculation.as_json()
    for index, operand in enumerate(shown["operands"]):
        operand["marker"] = markers[index]
    return shown


def _figure(operand: Operand) -> str:
    """``$53,308 million`` as the filing prints it, a payment in parentheses."""
    unit = str(operand.unit)
    money = unit.startswith("usd")
    return f"{'$' if money else ''}{operand.printed}{SCALE_WORDS.get(operand.scale, '')}"


_LINE = re.compile(r"[^\n]+")


def _row_span(passage: Passage, operand: Operand) -> tuple[int, int]:
    """The span (in the chunk's text) of the line that prints the operand: the line holding its
    offset, else the first line printing its figure, else the whole chunk."""
    chunk, offset = passage.chunk, operand.citation.offset
    lines = [(m.start(), m.end()) for m in _LINE.finditer(chunk.text)]
    if offset is not None:
        local = offset - chunk.start
        for start, end in lines:
            if start <= local < end:
                return start, end
    shown = operand.citation.displayed.strip("()")
    for start, end in lines:
        if shown and shown in chunk.text[start:end]:
            return start, end
    return 0, len(chunk.text)


def _citation(marker: int, passage: Passage, start: int, end: int) -> Citation:
    chunk = passage.chunk
    return Citation(
        marker=marker,
        filing=passage.filing,
        item=chunk.item,
        title=chunk.title,
        quote=chunk.text[start:end],
        start=chunk.start + start,
        end=chunk.start + end,
        score=1.0,
    )


def display_company(name: str) -> str:
    """A filer's name as a sentence writes it: ``HOME DEPOT, INC.`` is ``Home Depot``,
    ``Apple Inc.`` is ``Apple`` (its legal form, ``rules.LEGAL_FORMS``, left out), ``The Boeing
    Company`` is ``Boeing`` (a sentence says "Boeing's", not "The Boeing's")."""
    words = re.sub(r"/[A-Z]{2,3}/?$", "", name.strip()).replace(",", " ").split()  # CORP/OH/
    while len(words) > 1 and words[-1].lower().strip(".") in LEGAL_FORMS:
        words.pop()
    if len(words) > 1 and words[0].lower() == "the":
        words.pop(0)
    return display_name(" ".join(words).strip(" ,."))


_SCALES = frozenset({"thousand", "million", "billion"})


def _counts_something(sentence: str, figure: Figure) -> bool:
    """``figure`` counts what the word after it names ("131,900 employees ... engaged in research
    and development"): a count, not an amount of the metric its sentence names."""
    after = lower_words(sentence[figure.end :])
    after = after[1:] if after and after[0] in _SCALES else after
    return bool(after) and after[0] in COUNTED_AS


def _each_year(plan: ComputationPlan, years: frozenset[int]) -> bool:
    """Whether the question's years ask for the plan's figure in each of them: it names more
    years than one figure of the plan reaches back over ("gross margin in FY2022 and FY2023",
    unlike "revenue growth from FY2022 to FY2023" or "return on average equity between FY2022
    and FY2023"), and it writes no formula of its own (whose years are its operands')."""
    if len(years) < 2 or plan.transform is not Transform.LEVEL or plan.source == "stated":
        return False
    reach = -min((offset for ref in refs(plan.formula) for offset in ref.offsets()), default=0)
    return max(years) - min(years) > reach


def _looked_up(plan: ComputationPlan, calculation: Calculation) -> bool:
    """The answer is one reported figure: a lookup not derived from other lines (total debt
    summed from its parts is computed, and written as a computation)."""
    return plan.source == "lookup" and len(calculation.operands) == 1
