"""What a question takes for granted that its filing never says, read against a real filing
with the real embedder (the embedding is what tells a topic from the question's framing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from edgar_rag.answer.answerer import SECOND_LOOK_NOTE, Answerer
from edgar_rag.answer.premise import (
    FilingWords,
    says_nothing_of,
    spoken,
    topic_words,
    unsaid_topic,
)
from edgar_rag.domain import ParsedFiling, Prompt, Reason, Response
from edgar_rag.index.embedders import HashingEmbedder, OnnxMiniLMEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.question.reading import read_question
from edgar_rag.retrieve.search import Searcher
from fakes import ScriptedGenerator, marker_of, scripted_answerer


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder(tmp_path_factory.mktemp("onnx"))


@pytest.fixture(scope="module")
def apple_words(sample_filings: dict[str, ParsedFiling]) -> frozenset[str]:
    return FilingWords(lambda _: sample_filings["AAPL-2025"].text)(1)


@pytest.mark.parametrize(
    ("question", "unsaid"),
    [
        ("How does Apple account for its cryptocurrency holdings?", ("cryptocurrency",)),
        ("How large is Apple's defined benefit pension obligation?", ("pension",)),
        ("How many passenger trains does Apple run each day?", ("passenger",)),
        ("What royalties do Apple's franchisees pay?", ("franchisees",)),
        ("How many restaurants does Apple run?", ("restaurants",)),
        # Framing the filing need not say, words it says in another form, and synonyms:
        ("How does Apple arrive at its warranty reserve estimate, and what is the rationale?", ()),
        ("What was Apple's total headcount at the end of fiscal 2025?", ()),
        ("How much did Apple spend on buybacks in fiscal 2025?", ()),
        ("What is Apple's employee count?", ()),
        ("Apple's cash and cash equivalents as of FY25 year end", ()),
    ],
)
def test_the_topic_a_filing_never_mentions_is_found(
    question: str,
    unsaid: tuple[str, ...],
    apple_words: frozenset[str],
    embedder: OnnxMiniLMEmbedder,
) -> None:
    read = read_question(question)
    assert unsaid_topic(read, apple_words, embedder.embed, "Apple Inc.") == unsaid


def test_nothing_is_embedded_when_the_filing_says_every_word(apple_words: frozenset[str]) -> None:
    def embed(texts: object) -> object:
        raise AssertionError("embedded")

    read = read_question("What were Apple's total net sales in fiscal 2025?")
    assert unsaid_topic(read, apple_words, embed, "Apple Inc.") == ()  # type: ignore[arg-type]


def test_a_hyphenated_word_of_the_filing_says_the_joined_one() -> None:
    words = FilingWords(lambda _: "Operations move to back-up facilities in another state.")(7)
    read = read_question("What backup facilities does it have?")
    assert unsaid_topic(read, words, HashingEmbedder().embed) == ()


def test_the_words_kept_are_the_latest_filings_read() -> None:
    reads: list[int] = []

    def text_of(filing_id: int) -> str:
        reads.append(filing_id)
        return f"filing {filing_id}"

    words = FilingWords(text_of)
    for filing_id in [*range(40), 39, 0]:
        words(filing_id)
    assert reads == [*range(40), 0]


def test_an_answer_is_read_for_the_unsaid_words_it_speaks() -> None:
    text = "Johnson & Johnson accounts for its cryptocurrency holdings at fair value [3]."
    assert spoken(text, ("cryptocurrency", "custody")) == ["cryptocurrency"]
    assert spoken("It holds marketable securities at fair value [3].", ("cryptocurrency",)) == []


def test_the_words_that_may_name_a_topic_leave_out_names_framing_and_counting() -> None:
    pension = read_question("How is NVIDIA's defined benefit pension plan funded?", None, None)
    assert topic_words(pension, "NVIDIA CORP") == (
        "defined",
        "benefit",
        "pension",
        "plan",
        "funded",
    )
    count = read_question("What is the number of Apple employees in 2025?", None, None)
    assert topic_words(count, "Apple Inc.") == ("employees",)


def test_an_answer_saying_none_of_the_topic_answers_another_question() -> None:
    topic = ("defined", "benefit", "pension", "plan", "funded")
    assert says_nothing_of(
        "The excess of repurchase price over par value was allocated between additional "
        "paid-in capital and retained earnings [5].",
        topic,
    )
    assert not says_nothing_of("Its pension plans are funded by contributions [2].", topic)
    # A synonym, a root or a count word says the topic too; no topic, nothing to say:
    assert not says_nothing_of("Apple repurchased $90 billion of its stock [1].", ("buybacks",))
    assert not says_nothing_of("Its workforce is unionized [1].", ("unions",))
    assert not says_nothing_of("It had 166,000 employees [1].", ("headcount",))
    assert not says_nothing_of("It was $4.2 billion [1].", ())


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> SqliteIndex:
    index = SqliteIndex(tmp_path_factory.mktemp("premise") / "index.db")
    list(index_filings(find_local_filings([sample_dir]), index, HashingEmbedder()))
    return index


def _quoting(extra: str) -> Callable[[Prompt], str]:
    """A reply quoting passage [1]'s first words, with ``extra`` before them."""

    def reply(prompt: Prompt) -> str:
        body = re.search(r"^\[1\] [^\n]*\n(.*)$", prompt.messages[-1].content, re.M)
        assert body is not None
        words = re.sub(r"[^A-Za-z ]", " ", body.group(1)).split()[:12]
        return f"{extra} {' '.join(words)} [1]."

    return reply


def _answerer(index: SqliteIndex, extra: str) -> Answerer:
    answerer = scripted_answerer(index, ScriptedGenerator([_quoting(extra)]))
    answerer.filing_words = FilingWords(index.filing_text)
    return answerer


QUESTION = "How does Apple account for its cryptocurrency holdings?"


def test_an_answer_speaking_of_the_unsaid_topic_is_declined(index: SqliteIndex) -> None:
    answerer = _answerer(
        index, "Apple holds its cryptocurrency as marketable securities [{marker}]."
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    prepared = replace(answerer.prepare(QUESTION, scope), unsaid=("cryptocurrency",))
    generation = answerer.generate(prepared.prompt)
    response = answerer.conclude(prepared, generation, "none")
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert response.detail == (
        'the answer speaks of "cryptocurrency", which the question asks about and the filing '
        "never mentions"
    )


def test_an_answer_that_leaves_the_unsaid_topic_alone_is_verified_as_ever(
    index: SqliteIndex,
) -> None:
    answerer = _answerer(
        index, "Apple accounts for its marketable securities as available-for-sale [{marker}]."
    )
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    prepared = replace(answerer.prepare(QUESTION, scope), unsaid=("cryptocurrency",))
    response = answerer.conclude(prepared, answerer.generate(prepared.prompt), "none")
    assert response.reason is None


def test_an_answer_to_another_question_is_declined(index: SqliteIndex) -> None:
    answerer = _answerer(index, "Apple holds marketable securities [{marker}].")
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    asked = answerer.prepare("How is Apple's defined benefit pension plan funded?", scope)
    assert asked.topic == ("defined", "benefit", "pension", "plan", "funded")
    prepared = replace(answerer.prepare(QUESTION, scope), topic=("pension", "obligation"))
    response = answerer.conclude(prepared, answerer.generate(prepared.prompt), "none")
    assert response.reason is Reason.UNSUPPORTED_CLAIM
    assert response.detail == (
        'the answer says none of the words the question asks about ("pension", "obligation"): '
        "it answers another question"
    )


def test_the_answerer_reads_the_filings_for_the_unsaid_topic(index: SqliteIndex) -> None:
    answerer = _answerer(index, "unused")
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    assert "cryptocurrency" in answerer.prepare(QUESTION, scope).unsaid
    corpus = answerer.prepare("How is cryptocurrency accounted for?", index.resolve_scope())
    assert corpus.scope.corpus_wide
    assert corpus.unsaid == ("cryptocurrency",)  # none of the filings its passages come from
    taxes = answerer.prepare("How are income taxes accounted for?", index.resolve_scope())
    assert taxes.unsaid == ()


def _asked_again(
    index: SqliteIndex,
    embedder: OnnxMiniLMEmbedder,
    question: str,
    needle: str,
    first: Callable[[Prompt], str] = lambda prompt: prompt.refusal_token,
) -> tuple[Response, ScriptedGenerator]:
    """``question`` of Apple's filing, where the model declines first, then quotes the sentence
    of the passage holding ``needle``. The passages are searched by the hashing embedder the
    index was built with; the real one then tells the question's topic words from its framing."""

    def quote(prompt: Prompt) -> str:
        marker = marker_of(prompt, needle)
        body = prompt.messages[-1].content.split(f"[{marker}] ", 1)[1].split("\n\n[", 1)[0]
        sentence = next(s for s in re.split(r"(?<=\.)\s+", body) if needle in s)
        return f"{sentence.rstrip('.')} [{marker}]."

    model = ScriptedGenerator([first, quote])
    answerer = scripted_answerer(index, model)
    prepared = answerer.prepare(question, index.resolve_scope(ticker="AAPL", fiscal_year=2025))
    answerer.searcher = Searcher(index, embedder)
    return answerer.conclude(prepared, answerer.reply(prepared), "none"), model


@pytest.mark.parametrize(
    "declining",
    [lambda prompt: prompt.refusal_token, lambda prompt: "NOANSWER"],
    ids=["the token", "the refusal word alone"],
)
def test_a_prose_question_the_model_declines_is_asked_again_without_the_refusal(
    index: SqliteIndex, embedder: OnnxMiniLMEmbedder, declining: Callable[[Prompt], str]
) -> None:
    response, model = _asked_again(
        index,
        embedder,
        "How competitive are the markets for Apple's products and services?",
        "highly competitive",
        declining,
    )
    first, again = model.prompts
    offer = f"If the passages do not contain the answer, reply exactly: {first.refusal_token}\n"
    assert offer in first.messages[0].content
    assert again.messages[0].content == first.messages[0].content.replace(offer, "")
    assert response.reason is None, response.detail
    assert response.detail is not None
    assert SECOND_LOOK_NOTE in response.detail
    assert response.text is not None
    assert "highly competitive" in response.text
    assert response.prompt_tokens == 200  # both replies' tokens


def test_a_second_look_from_passages_that_leave_the_topic_unsaid_stays_declined(
    index: SqliteIndex, embedder: OnnxMiniLMEmbedder
) -> None:
    """Asked again, a model answers a question no passage answers from a passage on another
    subject: one that never says "lumber" or "futures"."""
    response, _ = _asked_again(
        index, embedder, "How well do Apple's lumber futures hedges offset its risk?", "hedg"
    )
    assert response.reason is Reason.MODEL_DECLINED
    assert response.detail is not None
    assert response.detail.startswith(
        "the model found no answer in the passages; asked again, its answer was not kept: the "
        'passages it cites never say "lumber"'
    ), response.detail


def test_a_figure_lookup_the_model_declines_is_not_asked_again(index: SqliteIndex) -> None:
    model = ScriptedGenerator([lambda prompt: prompt.refusal_token])
    scope = index.resolve_scope(ticker="AAPL", fiscal_year=2025)
    response = scripted_answerer(index, model).answer("What were Apple's total net sales?", scope)
    assert response.reason is Reason.MODEL_DECLINED
    assert len(model.prompts) == 1
