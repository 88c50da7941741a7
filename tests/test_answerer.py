"""The answering pipeline on a real index of the sample filings, with a scripted model."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import (
    CUT_NOTE,
    MENDED_NOTE,
    Answerer,
    AnswerSettings,
    fiscal_year_of_header,
)
from edgar_rag.answer.prompt import draw_refusal_token
from edgar_rag.domain import Generation, Prompt, Reason
from edgar_rag.errors import SourceError
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.generators import EchoGenerator
from edgar_rag.question.companies import CompanyDirectory
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.models import AskResponse
from fakes import WHOLE_PASSAGES, ScriptedGenerator, marker_of

SALES_2025 = "What were Apple's total net sales in fiscal 2025?"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("answer") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


@pytest.fixture(scope="module")
def directory(index: SqliteIndex) -> CompanyDirectory:
    return CompanyDirectory.from_edgartools([(s.company, s.ticker, s.cik) for s in index.filings()])


def answerer(
    index: SqliteIndex,
    generator: object,
    *,
    directory: CompanyDirectory | None = None,
    settings: AnswerSettings | None = None,
    **knobs: object,
) -> Answerer:
    return Answerer(
        searcher=Searcher(index, HashingEmbedder()),
        generator=generator,  # type: ignore[arg-type]
        draw_token=lambda request: draw_refusal_token(b"test", request),
        directory=directory,
        settings=settings or AnswerSettings(**knobs),  # type: ignore[arg-type]
    )


def cite(figure: str, sentence: str) -> Callable[[Prompt], str]:
    return lambda prompt: sentence.format(marker=marker_of(prompt, figure))


def test_a_figure_printed_in_the_cited_passage_is_answered(index: SqliteIndex) -> None:
    model = ScriptedGenerator(
        [
            cite(
                "416,161",
                "Apple's total net sales were $416,161 million in fiscal 2025 [{marker}].",
            )
        ]
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    response = answerer(index, model).answer(SALES_2025, scope)
    assert response.reason is None, response.detail
    assert response.text is not None
    assert "$416,161 million" in response.text
    [citation] = response.citations
    assert "416,161" in citation.quote
    assert scope.filing_id is not None
    assert index.filing_text(scope.filing_id)[citation.start : citation.end] == citation.quote
    assert citation.filing.fiscal_year == 2025


def test_the_prompt_stays_short(index: SqliteIndex) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    user = model.prompts[0].messages[-1].content
    assert len(user) < 2000


def test_the_exact_refusal_token_is_a_model_decline(index: SqliteIndex) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    assert response.reason is Reason.MODEL_DECLINED
    assert response.text is None
    assert response.citations == ()


@pytest.mark.parametrize("reply", ["[1] {token}", "NOANSWER", "{token}."])
def test_a_refusal_word_that_is_not_the_exact_token_is_never_an_answer(
    index: SqliteIndex, reply: str
) -> None:
    model = ScriptedGenerator([lambda prompt: reply.format(token=prompt.refusal_token)])
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    assert response.reason is Reason.MODEL_DECLINED
    assert response.text is None
    assert response.detail is not None
    assert "not exactly this request's token" in response.detail


def test_a_figure_from_a_passage_that_never_names_the_metric_asked_is_withheld(
    index: SqliteIndex,
) -> None:
    question = "What was Apple's goodwill in fiscal 2025?"
    sales = cite("416,161", "Goodwill was $416,161 million in fiscal 2025 [{marker}].")
    # Every passage whole, so that the metric check alone decides.
    whole = WHOLE_PASSAGES
    for check, reason in ((True, Reason.UNSUPPORTED_CLAIM), (False, None)):
        model = ScriptedGenerator([sales])
        asker = answerer(index, model, settings=replace(whole, check_metric=check))
        response = asker.answer(question, index.resolve_scope(ticker="AAPL", fiscal_year=2025))
        assert response.reason is reason, response.detail
    declined = answerer(index, ScriptedGenerator([sales]), settings=whole).answer(
        question, index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    )
    assert declined.detail is not None
    assert "never name what the question asks about (goodwill)" in declined.detail
    assert "416,161" not in declined.detail


def test_a_percentage_printed_for_one_metric_never_answers_another(index: SqliteIndex) -> None:
    """Home Depot's MD&A prints its gross profit margin (33.4%) in a sentence that also says
    "net sales": asked for the net profit margin, the figure is withheld, whether the model
    cites that passage or another one (which the verifier would move the citation from)."""
    gross = "33.4% for both"
    whole = WHOLE_PASSAGES
    scope = index.resolve_scope(ticker="HD", fiscal_year=2024)
    for cited in (gross, "Net sales"):
        sentence = "Home Depot's {metric} was 33.4% in fiscal 2024 [{marker}]."
        for metric, reason in (
            ("net profit margin", Reason.UNSUPPORTED_CLAIM),
            ("gross profit margin", None),
        ):
            reply = cite(cited, sentence.replace("{metric}", metric))
            question = f"What was Home Depot's {metric} in fiscal 2024?"
            response = answerer(index, ScriptedGenerator([reply]), settings=whole).answer(
                question, scope
            )
            assert response.reason is reason, (cited, metric, response.detail)
            if reason is None:
                assert response.citations
                assert all(gross in c.quote for c in response.citations)


def test_a_figure_answering_a_year_the_filing_does_not_report_is_withheld(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([cite("416,161", "Net sales were $416,161 million [{marker}].")])
    question = "What were Apple's total net sales in fiscal 2015?"
    scope = index.resolve_scope(ticker="AAPL")
    response = answerer(index, model).answer(question, scope, gate="none")
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert "asks about fiscal 2015" in (response.detail or "")
    assert "416" not in (response.detail or "")


@dataclass
class CutGenerator(ScriptedGenerator):
    """A model whose every reply ran to the prompt's token limit."""

    def generate(self, prompt: Prompt) -> Generation:
        return replace(super().generate(prompt), completion_tokens=prompt.max_tokens)


def test_a_reply_cut_at_its_token_limit_is_verified_without_its_unfinished_sentence(
    index: SqliteIndex,
) -> None:
    reply = "Net sales were $416,161 million [{marker}]. Services net sales were 10"
    scope = index.resolve_scope(ticker="AAPL")
    cut = answerer(index, CutGenerator([cite("416,161", reply)])).answer(SALES_2025, scope)
    assert cut.reason is None
    assert cut.text is not None
    assert cut.text.startswith("Net sales were $416,161 million [")
    assert "Services" not in cut.text
    assert CUT_NOTE in (cut.detail or "")
    # The same words from a model that stopped by itself are its whole answer: the half
    # figure "10" is then a claim of its own, which no passage prints.
    whole = answerer(index, ScriptedGenerator([cite("416,161", reply)])).answer(SALES_2025, scope)
    assert whole.reason is Reason.UNSUPPORTED_CLAIM


def test_by_default_a_year_the_filing_does_not_report_is_declined_before_the_model(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([])
    question = "What were Apple's total net sales in fiscal 2015?"
    response = answerer(index, model).answer(question, index.resolve_scope(ticker="AAPL"))
    assert (response.reason, response.gate, model.prompts) == (Reason.OUT_OF_PERIOD, "period", [])
    assert response.detail == (
        "the question names fiscal 2015; this filing reports fiscal 2023 to 2025"
    )


def test_a_figure_not_in_the_cited_passage_is_withheld(index: SqliteIndex) -> None:
    model = ScriptedGenerator([cite("416,161", "Net sales were $512,345 million [{marker}].")])
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert response.detail is not None
    assert "512,345" not in response.detail


def test_the_prior_year_figure_of_the_same_row_is_withheld(index: SqliteIndex) -> None:
    model = ScriptedGenerator(
        [cite("391,035", "Total net sales were $391,035 million [{marker}].")]
    )
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert response.detail is not None
    assert "2024" in response.detail
    assert "391" not in response.detail


def test_a_figure_without_a_citation_is_withheld(index: SqliteIndex) -> None:
    model = ScriptedGenerator(["Apple sold goods worth $416,161 million."])
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    assert response.reason is Reason.NO_VALID_CITATION


def test_another_company_is_declined_before_the_model(
    index: SqliteIndex, directory: CompanyDirectory
) -> None:
    model = ScriptedGenerator([])
    response = answerer(index, model, directory=directory).answer(
        "What was Microsoft's revenue in fiscal 2025?", index.resolve_scope(ticker="AAPL")
    )
    assert response.reason is Reason.OUT_OF_SCOPE
    assert model.prompts == []


def test_a_year_the_filing_does_not_report_is_declined_by_the_period_gate(
    index: SqliteIndex,
) -> None:
    model = ScriptedGenerator([])
    response = answerer(index, model, gate="period").answer(
        "What were Apple's net sales in fiscal 2019?", index.resolve_scope(ticker="AAPL")
    )
    assert response.reason is Reason.OUT_OF_PERIOD
    assert response.gate == "period"
    assert model.prompts == []


def test_the_cosine_gate_declines_a_weak_match(index: SqliteIndex) -> None:
    model = ScriptedGenerator([])
    response = answerer(index, model, gate="cosine", cosine_threshold=0.99).answer(
        "Who won the 1998 World Cup final?", index.resolve_scope(ticker="AAPL")
    )
    assert response.reason is Reason.GATE_REJECTED
    assert response.gate_score is not None
    assert response.gate_score < 0.99


def test_an_unreachable_model_is_an_error_not_a_decline(index: SqliteIndex) -> None:
    class Down:
        name = "down"

        def generate(self, prompt: Prompt) -> Generation:
            raise SourceError("openai at http://127.0.0.1:9 did not answer")

    with pytest.raises(SourceError):
        answerer(index, Down()).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))


def test_echo_returns_the_passages_it_would_have_given(index: SqliteIndex) -> None:
    response = answerer(index, EchoGenerator()).answer(
        SALES_2025, index.resolve_scope(ticker="AAPL")
    )
    assert response.reason is None
    assert response.generator == "echo"
    assert len(response.citations) == AnswerSettings().passages_in_prompt


def test_the_json_has_the_shape_of_the_design(index: SqliteIndex) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    response = answerer(index, model).answer(SALES_2025, index.resolve_scope(ticker="AAPL"))
    body = AskResponse.of(response).model_dump(mode="json")
    assert list(body) == [
        "question",
        "text",
        "citations",
        "abstained",
        "reason",
        "detail",
        "gate",
        "retrieval_score",
        "gate_score",
        "source",
        "generator",
        "timings_ms",
        "tokens",
        "replayed",
    ]  # fmt: skip  (only an answer computed in code adds a calculation)
    assert body["abstained"] is True
    assert body["reason"] == "model_declined"
    assert body["source"]["ticker"] == "AAPL"
    assert set(body["tokens"]) == {"prompt", "completion"}


def test_a_corpus_wide_question_cites_each_passage_with_its_filing(index: SqliteIndex) -> None:
    response = answerer(index, EchoGenerator()).answer("total net sales", index.resolve_scope())
    assert response.source is None
    assert all(c.filing.company for c in response.citations)


def test_column_headers_map_to_the_filing_s_fiscal_years(index: SqliteIndex) -> None:
    apple = index.resolve_scope(ticker="AAPL", fiscal_year=2025).filing
    home_depot = index.resolve_scope(ticker="HD").filing
    assert apple is not None
    assert home_depot is not None
    assert fiscal_year_of_header("September 28, 2024", apple) == 2024
    assert fiscal_year_of_header("2023", apple) == 2023
    assert fiscal_year_of_header("February 2, 2025", home_depot) == 2024
    assert fiscal_year_of_header("Fiscal 2023", home_depot) == 2023
    assert fiscal_year_of_header("Change", apple) is None


def test_a_count_in_prose_answers_a_how_many_question(index: SqliteIndex) -> None:
    """The metric check reads what the question counts, not where it points to read."""
    reply = cite(
        "166,000", "Apple had approximately 166,000 full-time equivalent employees [{marker}]."
    )
    whole = WHOLE_PASSAGES
    response = answerer(index, ScriptedGenerator([reply]), settings=whole).answer(
        "According to the risk factor disclosures, how many employees did the Company have as "
        "of September 27, 2025?",
        index.resolve_scope(ticker="AAPL", fiscal_year=2025),
    )
    assert response.reason is None, response.detail
    assert "166,000" in response.citations[0].quote


def test_a_prose_figure_is_held_to_the_date_its_sentence_gives(index: SqliteIndex) -> None:
    """Home Depot's fiscal 2024 ended on February 2, 2025: a sentence dated that day reports
    fiscal 2024, not fiscal 2025 as its year alone would say."""
    reply = cite(
        "11.7 billion",
        "Approximately $11.7 billion of the share repurchase authorization remained available "
        "[{marker}].",
    )
    whole = WHOLE_PASSAGES
    response = answerer(index, ScriptedGenerator([reply]), settings=whole).answer(
        "How much of Home Depot's share repurchase authorization remained available?",
        index.resolve_scope(ticker="HD", fiscal_year=2024),
    )
    assert response.reason is None, response.detail


def test_an_answer_that_leaves_out_the_figure_asked_is_mended_from_its_cited_sentence(
    index: SqliteIndex,
) -> None:
    """The model wrote "approximately ... employees" with the count elided: the sentence of the
    passage it cites that states the count is shown instead, and says so; with no such
    sentence the answer is declined, saying why."""
    question = (
        "According to the risk factor disclosures, how many employees did the Company have as "
        "of September 27, 2025?"
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    whole = WHOLE_PASSAGES
    elided = cite("166,000", "Apple had approximately full-time equivalent employees [{marker}].")
    response = answerer(index, ScriptedGenerator([elided]), settings=whole).answer(question, scope)
    assert response.reason is None, response.detail
    assert response.text is not None
    assert "approximately 166,000 full-time equivalent employees" in response.text
    assert response.detail is not None
    assert "did not state the figure asked" in response.detail

    elsewhere = cite("Apple Inc.", "Apple had many employees [{marker}].")
    declined = answerer(index, ScriptedGenerator([elsewhere]), settings=whole).answer(
        question, scope
    )
    assert declined.reason is Reason.MISSING_FIGURE
    assert "states no figure" in (declined.detail or "")


def test_an_answer_cut_before_the_figure_asked_is_mended_from_its_cited_sentence(
    index: SqliteIndex,
) -> None:
    """The model copied the passage until its token limit cut the sentence holding the count:
    what is left states other figures, so the cited sentence that states the count is shown;
    an answer whose kept sentence states the count stays the model's."""
    question = "How many full-time equivalent employees did Apple have?"
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    copied = cite(
        "166,000",
        "Apple's net sales were $416,161 million [{marker}]. As of September 27, 2025, the "
        "Company had approximately 166",
    )
    response = answerer(index, CutGenerator([copied]), settings=WHOLE_PASSAGES).answer(
        question, scope
    )
    assert response.reason is None, response.detail
    assert response.text is not None
    assert "approximately 166,000 full-time equivalent employees" in response.text
    assert "416,161" not in response.text
    assert MENDED_NOTE in (response.detail or "")

    stated = cite(
        "166,000",
        "Apple had approximately 166,000 full-time equivalent employees [{marker}]. It also",
    )
    kept = answerer(index, CutGenerator([stated]), settings=WHOLE_PASSAGES).answer(question, scope)
    assert kept.text is not None
    assert kept.text.startswith("Apple had approximately 166,000")
    assert MENDED_NOTE not in (kept.detail or "")


@pytest.mark.parametrize(
    ("question", "narrowed"),
    [
        ("How many employees did Apple have at the end of fiscal 2024?", ("AAPL", 2024)),
        ("How many employees does Apple have?", ("AAPL", 2025)),
        ("How many employees did Apple have in fiscal 2019?", None),
        ("Compare Apple's and Home Depot's employees in fiscal 2024.", None),
        ("How dependent is Home Depot on Apple as a supplier in fiscal 2024?", ("HD", 2024)),
        ("Which companies report the most employees?", None),
    ],
)
def test_a_corpus_wide_question_naming_one_company_is_asked_of_its_filing(
    index: SqliteIndex,
    directory: CompanyDirectory,
    question: str,
    narrowed: tuple[str, int] | None,
) -> None:
    """The first company it names, of the year it names, else the latest; the corpus stays when
    it names no company, compares companies, or names a year that is not indexed."""
    asker = answerer(index, ScriptedGenerator([]), directory=directory)
    scope = asker.prepare(question, index.resolve_scope()).scope
    filing = scope.filing
    assert (None if filing is None else (filing.ticker, filing.fiscal_year)) == narrowed


@pytest.mark.parametrize(
    ("question", "declined"),
    [
        # Home Depot's only sample 10-K is for fiscal 2024: no indexed filing is of 2027.
        ("What products did Home Depot sell in fiscal 2027?", True),
        # The year after its latest: that 10-K's cover speaks of early 2025.
        ("How many stores did Home Depot operate in 2025?", False),
        ("What products did Home Depot sell in fiscal 2024?", False),
    ],
)
def test_a_corpus_wide_question_of_a_year_no_filing_of_its_company_is_of_is_out_of_period(
    index: SqliteIndex, directory: CompanyDirectory, question: str, declined: bool
) -> None:
    model = ScriptedGenerator(["Home Depot sells home improvement products [1]."])
    response = answerer(index, model, directory=directory).answer(question, index.resolve_scope())
    assert (response.reason is Reason.OUT_OF_PERIOD) is declined, response.detail
    if declined:
        assert model.prompts == []
        assert response.detail == (
            "the question names fiscal 2027; the latest indexed filing of Home Depot, Inc. reports "
            "fiscal 2022 to 2024"
        )
