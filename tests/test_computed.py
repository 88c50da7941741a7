"""Figure questions answered in code from the sample filings' reported figures: a lookup, a
library metric, a formula the question states, and the declines; the model is never asked."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import COMPUTED, Answerer, AnswerSettings
from edgar_rag.answer.checks import _quarter_unsaid
from edgar_rag.answer.computed import ComputedAnswers, display_company
from edgar_rag.answer.prompt import INSTRUCTION, NARRATIVE_INSTRUCTION, draw_refusal_token
from edgar_rag.answer.verify import Verdict
from edgar_rag.compose import build_company_list
from edgar_rag.domain import Generation, Hit, Prompt, Reason, Response, Scope
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.question.reading import Kind, Question, read_question
from edgar_rag.retrieve.search import Searcher, SearchTimings
from edgar_rag.service.models import AskResponse
from fakes import WHOLE_PASSAGES, ScriptedGenerator, marker_of


class NoModel:
    """A generator that fails the test when asked: a computed answer needs no model."""

    name = "no-model"

    def generate(self, prompt: Prompt) -> object:
        raise AssertionError(f"the model was asked: {prompt.messages[-1].content[:80]}")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("computed") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def ask(
    index: SqliteIndex,
    question: str,
    ticker: str,
    year: int,
    model: object = None,
    settings: AnswerSettings | None = None,
) -> Response:
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=model or NoModel(),  # type: ignore[arg-type]
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
        settings=settings or AnswerSettings(),
    )
    return answerer.answer(question, index.resolve_scope(ticker=ticker, fiscal_year=year))


def corpus_answerer(index: SqliteIndex) -> Answerer:
    """The answer path with no scope: the companies a question names are looked up."""
    return Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=NoModel(),  # type: ignore[arg-type]
        draw_token=lambda request: draw_refusal_token(b"test", request),
        directory=CompanyDirectory.from_edgartools(
            [(s.company, s.ticker, s.cik) for s in index.filings()]
        ),
        computed=ComputedAnswers(index, load_library()),
    )


def cite(needle: str, sentence: str) -> Callable[[Prompt], str]:
    """A model reply citing the first passage of the prompt that prints ``needle``."""
    return lambda prompt: sentence.format(marker=marker_of(prompt, needle))


def _figures(text: str) -> list[str]:
    return re.findall(r"\d[\d,]*(?:\.\d+)?", text)


def test_a_reported_figure_is_looked_up_and_cited_to_its_column(index: SqliteIndex) -> None:
    response = ask(index, "What was Apple's diluted EPS in fiscal 2024?", "AAPL", 2025)
    assert response.reason is None, response.detail
    assert response.generator == COMPUTED
    assert response.text == "Apple's diluted earnings per share was $6.08 in fiscal 2024 [1]."
    (citation,) = response.citations
    assert "September 28, 2024: 6.08" in citation.quote
    assert citation.quote.startswith("Earnings per share: Diluted")
    assert response.calculation is None


def test_a_margin_is_computed_from_cited_operands(index: SqliteIndex) -> None:
    response = ask(index, "What was Home Depot's gross margin in fiscal 2024?", "HD", 2024)
    assert response.reason is None, response.detail
    assert response.text is not None
    assert response.text.startswith(
        "Home Depot's gross margin was 33.4% in fiscal 2024, computed as gross profit / revenue:\n"
    )
    calculation = AskResponse.of(response).model_dump(mode="json")["calculation"]
    assert calculation["formula"] == "gross_profit / revenue"
    assert calculation["result"] == "33.4"
    assert calculation["rounding"] == {"decimals": 1, "mode": "half_up"}
    quotes = {c.marker: c.quote for c in response.citations}
    for operand in calculation["operands"]:
        # Each operand is printed in the passage its marker cites, in its year's column.
        assert f"Fiscal 2024: {operand['printed']}" in quotes[operand["marker"]]
        assert f"[{operand['marker']}]" in response.text
    values = {o["item"]: float(o["value"]) for o in calculation["operands"]}
    assert round(100 * values["gross_profit"] / values["revenue"], 1) == 33.4


def test_a_formula_the_question_states_is_computed_over_two_year_ends(index: SqliteIndex) -> None:
    question = (
        "What is Apple's FY2025 fixed asset turnover ratio? Fixed asset turnover ratio is "
        "defined as: FY2025 revenue / (average PP&E between FY2024 and FY2025). Round your "
        "answer to two decimal places."
    )
    response = ask(index, question, "AAPL", 2025)
    assert response.reason is None, response.detail
    assert response.calculation is not None
    operands = response.calculation["operands"]
    assert isinstance(operands, list)
    assert sorted((o["item"], o["fiscal_year"]) for o in operands) == [
        ("ppe_net", 2024), ("ppe_net", 2025), ("revenue", 2025),
    ]  # fmt: skip
    revenue, ppe = 416_161, (49_834 + 45_680) / 2
    assert response.calculation["result"] == f"{revenue / ppe:.2f}"
    assert response.text is not None
    assert f"{revenue / ppe:.2f}x" in response.text


def test_a_figure_the_filing_does_not_report_is_a_missing_figure(index: SqliteIndex) -> None:
    """With no gate; the default period gate declines the year first (the next test)."""
    ungated = AnswerSettings(gate="none")
    response = ask(
        index, "What was Apple's net income in fiscal 2019?", "AAPL", 2025, None, ungated
    )
    assert response.reason is Reason.MISSING_FIGURE
    assert response.detail is not None
    assert "net income" in response.detail
    assert "2019" in response.detail
    assert response.text is None
    assert response.citations == ()


def test_by_default_a_year_the_filing_does_not_report_is_out_of_period(index: SqliteIndex) -> None:
    response = ask(index, "What was Apple's net income in fiscal 2019?", "AAPL", 2025)
    assert (response.reason, response.gate) == (Reason.OUT_OF_PERIOD, "period")
    assert (
        response.detail == "the question names fiscal 2019; this filing reports fiscal 2023 to 2025"
    )


def test_a_formula_that_divides_by_zero_declines_naming_why(index: SqliteIndex) -> None:
    question = (
        "What is Apple's FY2025 asset gap ratio? Asset gap ratio is defined as: "
        "FY2025 revenue / (FY2025 total assets - FY2025 total assets)."
    )
    response = ask(index, question, "AAPL", 2025)
    assert response.reason is Reason.MISSING_FIGURE
    assert "zero" in (response.detail or "")
    assert not _figures(response.detail or "")  # names no withheld figure


def test_a_narrative_question_goes_to_the_model(index: SqliteIndex) -> None:
    model = ScriptedGenerator(["NONE"])
    response = ask(index, "Why does Apple depend on outsourcing partners?", "AAPL", 2025, model)
    assert response.generator == model.name
    assert model.prompts


@dataclass
class KindsSearched(Searcher):
    """A searcher that notes the kind each question it searches is read as."""

    kinds: list[Kind] = field(default_factory=list)

    def search_timed(
        self, question: Question, scope: Scope, k: int = 5
    ) -> tuple[list[Hit], SearchTimings]:
        self.kinds.append(question.kind)
        return super().search_timed(question, scope, k)


@pytest.mark.parametrize(
    ("question", "searched_as"),
    [
        ("What percent of Apple's employees work in the U.S.?", [Kind.NARRATIVE]),
        ("How dependent is Apple on Foxconn compared with its other suppliers?", [Kind.NARRATIVE]),
        ("What was Apple's gross margin in fiscal 2025?", []),
    ],
)
def test_a_computation_code_cannot_plan_is_searched_as_prose(
    index: SqliteIndex, question: str, searched_as: list[Kind]
) -> None:
    """Its answer is a percentage printed in a sentence, not the statement rows its operands
    would sit on; one code answers is cited to its own rows, and nothing is searched (so no
    embedder loads for it)."""
    assert read_question(question).kind in (Kind.COMPUTATION, Kind.COMPARISON)
    searcher = KindsSearched(index, HashingEmbedder())
    answerer = Answerer(
        searcher=searcher,
        generator=ScriptedGenerator(["NONE"]),
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
    )
    answerer.prepare(question, index.resolve_scope(ticker="AAPL", fiscal_year=2025))
    assert searcher.kinds == searched_as


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("How did Apple's segment structure change compared with the year before?", ()),
        (
            "What percent of Apple's employees work in the U.S.?",
            ("employees", "work", "u.s"),
        ),
    ],
)
def test_a_comparison_code_cannot_plan_names_a_metric_only_where_prose_would(
    index: SqliteIndex, question: str, metric: tuple[str, ...]
) -> None:
    """Read as prose, "how did its segment structure change" asks for no figure, so no line of
    its answer must name a metric; a share asked keeps what it is a share of."""
    assert read_question(question).kind in (Kind.COMPUTATION, Kind.COMPARISON)
    answerer = Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=ScriptedGenerator(["NONE"]),
        draw_token=lambda request: draw_refusal_token(b"test", request),
        computed=ComputedAnswers(index, load_library()),
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    assert answerer.prepare(question, scope).question.metric == metric


def test_a_figure_question_code_cannot_plan_is_prompted_as_prose(index: SqliteIndex) -> None:
    """Its answer is a figure inside a sentence ("about 10% of our employees"), so the model
    reads the longer prose windows with the prose instruction, not table rows."""
    model = ScriptedGenerator(["NONE"])
    question = "What percent of Apple's employees work in the U.S.?"
    assert read_question(question).kind is Kind.COMPUTATION
    ask(index, question, "AAPL", 2025, model)
    (prompt,) = model.prompts
    content = "\n".join(message.content for message in prompt.messages)
    assert NARRATIVE_INSTRUCTION in content
    assert INSTRUCTION not in content


@pytest.mark.parametrize(
    ("filer", "shown"),
    [
        ("Apple Inc.", "Apple"),
        ("HOME DEPOT, INC.", "Home Depot"),
        ("NVIDIA CORP", "Nvidia"),
        ("McDONALD’S CORPORATION", "McDonald’s"),
        ("AMAZON.COM, INC.", "Amazon.com"),
        ("MACY'S, INC.", "Macy's"),
        ("PROGRESSIVE CORP/OH/", "Progressive"),
        ("The Boeing Company", "Boeing"),
    ],
)
def test_a_filer_is_named_as_a_sentence_would(filer: str, shown: str) -> None:
    assert display_company(filer) == shown


def test_two_companies_are_compared_each_in_its_own_filing(index: SqliteIndex) -> None:
    answerer = corpus_answerer(index)
    response = answerer.answer("Compare Apple's and Home Depot's gross margin", Scope())
    assert response.reason is None, response.detail
    assert response.text is not None
    heads = [line for line in response.text.splitlines() if not line.startswith("- ")]
    assert heads == [
        "Apple's gross margin was 46.9% in fiscal 2025, computed as gross profit / revenue:",
        "Home Depot's gross margin was 33.4% in fiscal 2024, computed as gross profit / revenue:",
        "Apple's gross margin is the higher.",
    ]
    body = AskResponse.of(response).model_dump(mode="json")
    assert [part["result"] for part in body["comparison"]] == ["46.9", "33.4"]
    tickers = {c.marker: c.filing.ticker for c in response.citations}
    for part, ticker in zip(body["comparison"], ("AAPL", "HD"), strict=True):
        assert {tickers[o["marker"]] for o in part["operands"]} == {ticker}

    unindexed = answerer.answer("Compare Apple's and Walmart's gross margin", Scope())
    assert unindexed.reason is Reason.OUT_OF_SCOPE
    assert "not indexed" in (unindexed.detail or "")

    # A bank reports no gross profit: Apple's part is answered, the bank's declined by name.
    partial = answerer.answer("Compare Apple's and Wells Fargo's gross margin", Scope())
    assert partial.reason is None, partial.detail
    assert partial.text is not None
    *answered, declined = partial.text.splitlines()
    assert answered[0].startswith("Apple's gross margin was 46.9% in fiscal 2025")
    assert declined.startswith("Not answered for Wells Fargo")
    assert "gross profit for fiscal 2024 is not reported" in declined
    assert "Not answered for Wells Fargo" in (partial.detail or "")
    assert {c.filing.ticker for c in partial.citations} == {"AAPL"}
    assert [part.fiscal_year for part in AskResponse.of(partial).comparison] == [2025]

    # The year written is each company's year, even with no filing in scope to read it by.
    dated = answerer.answer("Compare Apple's and Home Depot's gross margins for 2024", Scope())
    assert dated.reason is None, dated.detail
    assert [part.fiscal_year for part in AskResponse.of(dated).comparison] == [2024, 2024]


def test_two_years_of_one_company_are_compared_with_the_change(index: SqliteIndex) -> None:
    response = ask(index, "Compare Apple's net income in fiscal 2024 and fiscal 2025", "AAPL", 2025)
    assert response.reason is None, response.detail
    assert response.text is not None
    latest, earlier, change, *operands = response.text.splitlines()
    assert latest == "Apple's net income was $112,010 million in fiscal 2025 [1]."
    assert earlier == "Apple's net income was $93,736 million in fiscal 2024 [1]."
    assert change == "Apple's net income rose by $18,274 million from fiscal 2024 to fiscal 2025:"
    assert operands == [
        "- net income, fiscal 2025: $112,010 million [1]",
        "- net income, fiscal 2024: $93,736 million [1].",
    ]
    body = AskResponse.of(response).model_dump(mode="json")
    assert [part["fiscal_year"] for part in body["comparison"]] == [2025, 2024]
    assert body["calculation"]["result"] == "18274"
    quotes = {c.marker: c.quote for c in response.citations}
    assert "112,010" in quotes[1]  # one row prints both years
    assert "93,736" in quotes[1]

    # A year neither the filing nor an indexed filing reports is named, never guessed (with no
    # gate: the default period gate declines the year before any computation).
    question = "Compare Apple's net income in fiscal 2019 and fiscal 2025"
    missing = ask(index, question, "AAPL", 2025, None, AnswerSettings(gate="none"))
    assert missing.reason is Reason.MISSING_FIGURE
    assert "2019" in (missing.detail or "")


CORPUS_FILINGS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "filings"


def test_a_figure_tagged_first_outside_its_statement_is_cited_in_its_statement_row(
    tmp_path: Path,
) -> None:
    """Visa tags net income first in its EPS allocation table (no year columns) and again in
    its income statement: the margin cites the statement's row, under fiscal 2024."""
    visa = SqliteIndex(tmp_path / "visa.db")
    list(
        index_filings(find_local_filings([CORPUS_FILINGS / "V" / "2024"]), visa, HashingEmbedder())
    )
    response = ask(visa, "What was Visa's net profit margin in fiscal 2024?", "V", 2024)
    assert response.reason is None, response.detail
    body = AskResponse.of(response).model_dump(mode="json")
    quotes = {c.marker: c.quote for c in response.citations}
    for operand in body["calculation"]["operands"]:
        assert f"2024: {operand['printed']}" in quotes[operand["marker"]]


@pytest.mark.parametrize(
    ("sentence", "agrees"),
    [
        ("Apple's gross margin was 46.9% in fiscal 2025 [1].", True),
        ("Apple's gross margin was 36.8% in fiscal 2025 [1].", False),
        ("Services gross margin was 75.4% in fiscal 2025 [1].", True),  # a segment's: unchecked
        ("Net income was $112,010 million in 2025, up from $93,736 million in 2024 [1].", True),
        ("Net income was 112,010 in fiscal 2025 [1].", True),  # as the table prints it
        ("Net income was $112.0 billion in fiscal 2025 [1].", True),
        ("Net income was $99,803 million in fiscal 2025 [1].", False),
        ("The iPhone net sales were $209,586 million in fiscal 2025 [1].", True),
        ("NVIDIA's gross margin was 75.0% in fiscal 2025 [1].", True),  # not Apple's to check
        # A count is no amount of the metric its sentence names:
        (
            "Apple has approximately 166,000 employees engaged in the research and development, "
            "manufacture and sale of its products [1].",
            True,
        ),
        ("Research and development expense was 166,000 in fiscal 2025 [1].", False),
    ],
)
def test_a_figure_the_model_states_is_checked_against_what_code_computes(
    index: SqliteIndex, sentence: str, agrees: bool
) -> None:
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    computed = ComputedAnswers(index, load_library())
    question = read_question("Why did Apple's results change in fiscal 2025?", scope.filing)
    problem = computed.disagreement(sentence, question, scope)
    assert (problem is None) is agrees, problem
    if problem is not None:
        assert not re.search(r"\d{2},\d{3}|\d\.\d", problem)  # names no figure it withholds


def test_a_model_answer_stating_another_years_margin_is_declined(index: SqliteIndex) -> None:
    """Apple prints its gross margin percentages in a row without year headers, so only the
    computed margin tells fiscal 2025's 46.9% from fiscal 2024's 46.2%."""
    question = "Why did Apple's gross margin change in fiscal 2025?"
    for stated, reason in (("46.9%", None), ("46.2%", Reason.UNSUPPORTED_CLAIM)):
        sentence = f"Apple's gross margin was {stated} in fiscal 2025 [{{marker}}]."
        model = ScriptedGenerator([cite("Total gross margin percentage", sentence)])
        whole = WHOLE_PASSAGES
        response = ask(index, question, "AAPL", 2025, model, whole)
        assert response.reason is reason, (stated, response.detail)


class Refusing:
    """A model that finds no answer: it replies with the request's refusal token."""

    name = "refusing"

    def generate(self, prompt: Prompt) -> Generation:
        return Generation(text=prompt.refusal_token, model=self.name)


def test_a_year_a_later_filing_reports_is_answered_from_it_with_no_scope(
    index: SqliteIndex,
) -> None:
    """Apple's fiscal 2023 sales are a comparative column of its fiscal 2025 10-K."""
    response = corpus_answerer(index).answer("What was Apple's revenue in fiscal 2023?", Scope())
    assert response.reason is None, response.detail
    assert response.text is not None
    assert "$383,285 million in fiscal 2023" in response.text


def test_a_year_no_filing_reports_and_a_company_not_indexed_decline_before_any_model(
    index: SqliteIndex,
) -> None:
    answerer = corpus_answerer(index)
    early = answerer.answer("What was Apple's revenue in fiscal 2015?", Scope())
    assert early.reason is Reason.OUT_OF_PERIOD
    other = answerer.answer("What was Microsoft's revenue in fiscal 2024?", Scope())
    assert other.reason is Reason.OUT_OF_SCOPE
    assert "not indexed" in (other.detail or "")


def test_a_premise_the_figures_contradict_is_declined_with_the_fact(index: SqliteIndex) -> None:
    response = ask(
        index, "What drove the decline in Apple's net income in fiscal 2025?", "AAPL", 2025
    )
    assert response.reason is Reason.FALSE_PREMISE
    assert "rose from $93,736 million in fiscal 2024 to $112,010 million" in (response.detail or "")
    raised = ask(index, "Why did Apple cut its dividend in fiscal 2025?", "AAPL", 2025)
    assert raised.reason is Reason.FALSE_PREMISE
    profit = ask(index, "What caused Apple's net loss in fiscal 2025?", "AAPL", 2025)
    assert profit.reason is Reason.FALSE_PREMISE
    assert "a profit" in (profit.detail or "")


def test_a_qualifier_no_plan_answers_is_not_answered_with_the_whole(index: SqliteIndex) -> None:
    """ "Per square foot" left to the model, which here refuses: never total net sales."""
    response = ask(
        index, "What were Apple's net sales per square foot in fiscal 2025?", "AAPL", 2025,
        model=Refusing(),
    )  # fmt: skip
    assert response.abstained
    assert response.generator != COMPUTED


def test_a_percent_change_is_stated_as_one_with_its_direction(index: SqliteIndex) -> None:
    response = ask(
        index, "By what percentage did Apple's net income change in fiscal 2025?", "AAPL", 2025
    )
    assert response.reason is None, response.detail
    assert (response.text or "").startswith(
        "Apple's net income rose 19.5% from fiscal 2024 to fiscal 2025:"
    )
    assert (response.calculation or {})["unit"] == "percent"


def test_an_act_taken_for_granted_needs_a_cited_passage_that_says_it(index: SqliteIndex) -> None:
    """No figure decides "when did it exit": an answer citing passages that never say an exit
    of any kind (exit, withdraw, cease, wind down) is declined, whatever else it says."""
    model = ScriptedGenerator([lambda prompt: "Apple designs and sells smartphones [1]."])
    response = ask(index, "When did Apple exit the smartphone business?", "AAPL", 2025, model)
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert "'exit the smartphone business'" in (response.detail or "")


def test_a_figure_the_model_states_for_a_part_code_left_it_needs_the_parts_words(
    index: SqliteIndex,
) -> None:
    """ "SRS's net earnings" left to the model: a passage printing the whole company's net
    earnings never says "SRS", so its figure is not the answer."""
    model = ScriptedGenerator(
        [cite("Net earnings", "SRS's net earnings were $14,806 million [{marker}].")]
    )
    response = ask(index, "What were SRS's net earnings in fiscal 2024?", "HD", 2024, model)
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert '"srs"' in (response.detail or "")


def test_a_compound_rate_code_could_not_compute_is_no_model_figure(index: SqliteIndex) -> None:
    # Zero is a figure no passage check holds against the passages: only the rule that a
    # compound rate is computed, never printed, declines it.
    model = ScriptedGenerator([lambda prompt: "App Store sales compounded to $0 million [1]."])
    question = (
        "What was the compound annual growth rate of Apple's App Store sales from FY2023 to FY2025?"
    )
    response = ask(index, question, "AAPL", 2025, model)
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert "compound" in (response.detail or "")


def test_a_figure_question_left_to_the_model_and_answered_in_prose_is_declined(
    index: SqliteIndex,
) -> None:
    """Prose beside the figure asked is no answer to it: "How fast did it grow?" answered with
    what drove the growth states no rate."""

    def reasons(prompt: Prompt) -> str:  # the first reason for growth a passage gives
        content = prompt.messages[-1].content
        said = re.search(r"[A-Z][\w ,]+ net sales increased during 2025 compared to 2024", content)
        assert said is not None, "no passage says why net sales grew"
        return f"{said.group()} [{marker_of(prompt, said.group())}]."

    model = ScriptedGenerator([reasons])
    response = ask(index, "How fast did Apple's Americas online sales grow in fiscal 2025?", "AAPL",
                   2025, model, WHOLE_PASSAGES)  # fmt: skip
    assert response.reason is Reason.MISSING_FIGURE, response.detail
    assert response.detail == "the question asks a figure and the answer states none"


def test_a_move_the_passages_deny_is_a_false_premise(index: SqliteIndex) -> None:
    """A move the question takes for granted is checked against the figures where code can
    read them, else against what the answer and its passages say ("Products gross margin
    percentage decreased" for "why did it rise")."""
    said = "Products gross margin percentage decreased during 2025 compared to 2024"
    model = ScriptedGenerator([lambda prompt: f"{said} [{marker_of(prompt, said)}]."])
    response = ask(index, "Why did Apple's Greater China net sales rise in fiscal 2025?", "AAPL",
                   2025, model)  # fmt: skip
    assert response.reason is Reason.FALSE_PREMISE, response.detail


def test_a_line_the_library_does_not_name_is_answered_by_its_printed_label(
    index: SqliteIndex,
) -> None:
    """The filing's own row labels stand in where the library has no name: a lookup, a part's
    line (the label of a segment table), and a change, each cited to the row that prints it."""
    paid = ask(
        index, "What were Home Depot's payments for businesses acquired, net in fiscal 2024?",
        "HD", 2024,
    )  # fmt: skip
    assert paid.generator == COMPUTED, paid.detail
    assert "payments for businesses acquired, net were $17,644 million in fiscal 2024" in (
        paid.text or ""
    )
    assert (
        "Payments for businesses acquired, net | Fiscal 2024: (17,644)" in paid.citations[0].quote
    )
    segment = ask(
        index, "What was Home Depot's Primary segment operating income in fiscal 2024?", "HD", 2024
    )
    assert segment.generator == COMPUTED, segment.detail
    assert "$21,313 million" in (segment.text or "")  # consolidated operating income is 21,526
    change = ask(
        index,
        "By what percentage did Home Depot's interest income and other, net change in fiscal 2024?",
        "HD", 2024,
    )  # fmt: skip
    assert (change.text or "").startswith(
        "Home Depot's interest income and other, net rose 12.9% from fiscal 2023 to fiscal 2024:"
    )


def test_a_line_saying_more_than_the_question_is_left_to_the_model(index: SqliteIndex) -> None:
    response = ask(
        index, "What were Home Depot's earnings from discontinued operations in fiscal 2024?",
        "HD", 2024, model=Refusing(),
    )  # fmt: skip
    assert response.generator != COMPUTED


def test_an_untagged_line_is_answered_with_its_scale_and_year_columns(index: SqliteIndex) -> None:
    """Sales per retail square foot is printed in the MD&A with no XBRL tag: read from its row
    (dollars per foot, unscaled), each year cited to its column."""
    response = ask(
        index, "Compare Home Depot's sales per retail square foot in fiscal 2024 with fiscal 2023.",
        "HD", 2024,
    )  # fmt: skip
    assert response.generator == COMPUTED, response.detail
    text = response.text or ""
    assert "sales per retail square foot was $599.92 in fiscal 2024 [1]" in text
    assert "sales per retail square foot was $604.55 in fiscal 2023 [1]" in text
    assert "Sales per retail square foot" in response.citations[0].quote


def test_a_share_of_a_whole_moves_in_percentage_points(index: SqliteIndex) -> None:
    response = ask(
        index,
        "How many percentage points did Home Depot's SG&A as a share of net sales rise in "
        "fiscal 2024?",
        "HD", 2024,
    )  # fmt: skip
    assert (response.text or "").startswith(
        "Home Depot's selling, general and administrative expenses as a share of net sales rose "
        "0.6 percentage points from 17.4% in fiscal 2023 to 18.0% in fiscal 2024:"
    )


def test_a_formula_written_with_balance_sheet_lines_beyond_the_metrics_is_computed(
    index: SqliteIndex,
) -> None:
    # Home Depot fiscal 2024: short-term debt (commercial paper) 316, current installments of
    # long-term debt 4,582, long-term debt excluding current installments 48,485, cash 1,659.
    response = ask(
        index,
        "Define net debt as short-term debt plus current installments of long-term debt plus "
        "long-term debt excluding current installments, less cash and cash equivalents. What was "
        "Home Depot's net debt at the end of fiscal 2024?",
        "HD",
        2024,
    )
    assert response.reason is None, response.detail
    assert (response.text or "").startswith(
        "Home Depot's net debt was $51,724 million in fiscal 2024"
    )


def test_a_term_the_question_defines_goes_into_the_metric_it_asks(index: SqliteIndex) -> None:
    defined = (
        "Taking debt as short-term debt plus current installments of long-term debt plus long-term "
        "debt excluding current installments, "
    )
    ratio = ask(index, defined + "what was Home Depot's debt-to-equity ratio at the end of "
                "fiscal 2024?", "HD", 2024)  # fmt: skip
    assert ratio.reason is None, ratio.detail
    # (316 + 4,582 + 48,485) / total shareholders' equity 6,640: the library's total debt unused
    assert (ratio.text or "").startswith("Home Depot's debt-to-equity ratio was 8.04x")
    share = ask(index, defined + "what share of Home Depot's total assets did debt make up at "
                "the end of fiscal 2024?", "HD", 2024)  # fmt: skip
    assert share.reason is None, share.detail
    assert (share.text or "").startswith("Home Depot's debt as a share of total assets was")
    assert "%" in (share.text or "").splitlines()[0]


def test_a_whole_written_after_the_parts_divides_all_of_them(index: SqliteIndex) -> None:
    # Apple fiscal 2025: (total net sales 416,161 - cost of sales 220,960) / 416,161.
    response = ask(
        index,
        "What was Apple's gross profit rate in fiscal 2025, i.e. net sales less cost of sales "
        "as a percentage of net sales?",
        "AAPL",
        2025,
    )
    assert response.reason is None, response.detail
    assert (response.text or "").startswith("Apple's gross profit rate was 46.9% in fiscal 2025")


def test_each_company_compared_is_answered_in_the_year_written_after_it(
    index: SqliteIndex,
) -> None:
    answerer = corpus_answerer(index)
    response = answerer.answer(
        "Compare Apple's net income in fiscal 2025 with Home Depot's net income in fiscal 2024.",
        Scope(),
    )
    assert response.reason is None, response.detail
    assert [part.fiscal_year for part in AskResponse.of(response).comparison] == [2025, 2024]
    assert (response.text or "").startswith(
        "Apple's net income was $112,010 million in fiscal 2025"
    )


def test_a_quarter_of_a_10k_is_answered_only_from_a_passage_that_reports_one(
    index: SqliteIndex,
) -> None:
    """Asked the fourth quarter, the year's figure is no answer: the model's sentence citing the
    annual income statement is not kept."""
    model = ScriptedGenerator(
        [cite("Net income", "Apple's net income was $112,010 million [{marker}].")]
    )
    response = ask(
        index, "What was Apple's net income in the fourth quarter of fiscal 2025?", "AAPL", 2025,
        model=model,
    )  # fmt: skip
    assert response.reason is Reason.UNSUPPORTED_CLAIM, response.text
    assert "quarter" in (response.detail or "")


@pytest.mark.parametrize(
    ("passage", "kept"),
    [
        ("Operating ratio | 2024: 59.9% | 2023: 62.3%", False),
        ("Operating ratio for the fourth quarter was 60.1%.", True),
        ("July 1 - July 31 | Shares repurchased: 1,000", True),
        ("October 1 - October 31 | Shares repurchased: 1,000", False),  # Apple's year ends Sept
        ("Net income | Year ended September 27, 2025: 59.9", False),
    ],
)
def test_a_quarter_of_a_10k_needs_a_cited_passage_that_reports_a_quarter(
    index: SqliteIndex, passage: str, kept: bool
) -> None:
    filing = index.resolve_scope(ticker="AAPL", fiscal_year=2025).filing
    assert filing is not None
    question = read_question("What was the operating ratio in the fourth quarter of 2025?", filing)
    verdict = Verdict(ok=True, reason=None, detail=None, text="It was 59.9% [1].", cited=(1,))
    assert (_quarter_unsaid(question, verdict, {1: passage}, filing) is None) is kept


META_2023 = Path("../shared/corpus/filings/META/2023")


@pytest.mark.skipif(not META_2023.exists(), reason="no ../shared/corpus")
def test_a_measure_the_filer_defines_otherwise_is_its_own_printed_figure(
    tmp_path: Path,
) -> None:
    """Meta's free cash flow also subtracts its finance lease payments: the library's formula
    would say 43,847; the answer is the figure of Meta's own reconciliation, 43,010, named so."""
    index = SqliteIndex(tmp_path / "meta.db")
    list(index_filings(find_local_filings([META_2023]), index, HashingEmbedder()))
    response = ask(index, "How much free cash flow did Meta generate in 2023?", "META", 2023)
    assert response.reason is None, response.detail
    assert (response.text or "").startswith(
        "Meta Platforms' free cash flow was $43,010 million in fiscal 2023"
    )
    assert "own figure" in (response.detail or "")


VERIZON_PDF = Path("../shared/corpus/financebench/pdfs/VERIZON_2022_10K.pdf")


@pytest.mark.skipif(not VERIZON_PDF.exists(), reason="no ../shared/corpus")
def test_a_total_printed_only_as_its_parts_is_answered_as_their_sum(
    tmp_path: Path,
) -> None:
    """Verizon's 2022 balance sheet (FinanceBench's PDF) prints its debt due within a year and
    its long-term debt and no total: "total debt" is their sum, written and cited as a
    computation (never as one figure looked up), and a change of it computed from all four."""
    index = SqliteIndex(tmp_path / "index.db")
    sources = find_local_filings([VERIZON_PDF], build_company_list())  # a PDF names no ticker
    list(index_filings(sources, index, HashingEmbedder()))
    total = ask(index, "What was Verizon's total debt at the end of 2022?", "VZ", 2022)
    assert total.reason is None, total.detail
    assert total.generator == COMPUTED
    assert total.text is not None
    assert total.text.startswith(
        "Verizon Communications' total debt was $150,639 million in fiscal 2022, computed as "
        "debt due within one year + long-term debt:"
    )
    assert total.calculation is not None
    assert len(total.citations) == 2
    change = ask(index, "Has Verizon increased its debt between 2021 and 2022?", "VZ", 2022)
    assert change.text is not None, (change.reason, change.detail)
    assert change.text.startswith("No. Verizon Communications' total debt fell by $229 million")
    # a measure the question defines after a comma is computed by its definition, not left
    # to the model (which took the financing cash flow for it)
    net = ask(
        index,
        "What was Verizon's net debt in 2022, defined as total debt minus cash and cash "
        "equivalents?",
        "VZ",
        2022,
    )
    assert net.generator == COMPUTED, (net.reason, net.detail)
    assert (net.text or "").startswith(
        "Verizon Communications' net debt was $148,034 million in fiscal 2022, computed as debt "
        "due within one year + long-term debt - cash and cash equivalents:"
    )  # 9,963 + 140,676 - 2,605
