"""The citation verifier: each figure an answer states is printed, for the period asked, in a
passage that the sentence cites."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import pytest

from edgar_rag.answer.answerer import fiscal_year_of_header
from edgar_rag.answer.verify import (
    Verdict,
    markers_in,
    pointers_folded,
    split_sentences,
    strip_markers,
    verify_answer,
    without_cut_tail,
)
from edgar_rag.domain import FilingMeta, Reason, SourceFormat

SALES_ROW = "Total net sales | 2025: 416,161 | 2024: 391,035 | 2023: 383,285 | (in millions)"
EPS_ROW = (
    "Earnings per share: Diluted | September 27, 2025: 7.46 | September 28, 2024: 6.08 | "
    "September 30, 2023: 6.13"
)
CHINA_ROW = (
    "Greater China | 2025: 64,377 | Change: (4)% | 2024: 66,952 | Change: (8)% | 2023: 72,559 | "
    "(in millions)"
)
PROSE = "Total net sales increased 6% or $25.1 billion during 2025 compared to 2024."
CHANGE_ROW = "Total net sales | 2025: 416,161 | Change: 6% | 2024: 391,035 | (in millions)"
PASSAGES = {1: SALES_ROW, 2: EPS_ROW, 3: CHINA_ROW, 4: PROSE, 5: CHANGE_ROW}
FY2025 = frozenset({2025})


def last_year_named(header: str) -> int | None:
    years = re.findall(r"\b(?:19|20)\d{2}\b", header)
    return int(years[-1]) if years else None


def verify(text: str, asked_years: frozenset[int] = FY2025) -> Verdict:
    return verify_answer(text, PASSAGES, asked_years, last_year_named)


@pytest.mark.parametrize("pointer", ["This is shown in [1].", "This can be found in [1]."])
def test_a_sentence_that_only_points_at_a_passage_cites_the_sentence_before_it(
    pointer: str,
) -> None:
    verdict = verify(
        f"Apple reported total net sales of $416,161 million in fiscal 2025. {pointer}"
    )
    assert verdict.ok, verdict.detail
    assert verdict.text == "Apple reported total net sales of $416,161 million in fiscal 2025 [1]."


def test_a_pointer_that_says_more_or_follows_a_cited_sentence_is_left_as_it_is() -> None:
    cited = "Total net sales were $416,161 million in fiscal 2025 [1]. This is shown in [4]."
    assert pointers_folded(cited) == cited
    saying = "Sales were $416,161 million. This figure is in the financing section, see [1]."
    assert pointers_folded(saying) == saying
    assert not verify(saying).ok


def test_an_answer_citing_the_passage_that_prints_its_figure_is_shown() -> None:
    verdict = verify("Apple reported total net sales of $416,161 million for fiscal 2025 [1].")
    assert verdict == Verdict(
        ok=True, reason=None, detail=None, cited=(1,), text=verdict.text, recited=()
    )
    assert verdict.text == "Apple reported total net sales of $416,161 million for fiscal 2025 [1]."


@pytest.mark.parametrize(
    "figure", ["$416.2 billion", "$416 billion", "416,161", "$416,161 million"]
)
def test_a_figure_rounded_to_the_precision_it_is_written_in_is_supported(figure: str) -> None:
    assert verify(f"Total net sales were {figure} in fiscal 2025 [1].").ok


@pytest.mark.parametrize("figure", ["$417 billion", "$416.3 billion", "$416,000 million"])
def test_a_near_miss_in_rounding_is_an_unsupported_claim(figure: str) -> None:
    verdict = verify(f"Total net sales were {figure} in fiscal 2025 [1].")
    assert (verdict.ok, verdict.reason) == (False, Reason.UNSUPPORTED_CLAIM)


def test_a_percent_only_matches_a_percent() -> None:
    assert verify("Diluted earnings per share were $7.46 in fiscal 2025 [2].").ok
    as_percent = verify("Diluted earnings per share grew 7.46% in fiscal 2025 [2].")
    assert as_percent.reason is Reason.UNSUPPORTED_CLAIM
    as_plain = verify("Total net sales increased by 6 in fiscal 2025 [4].")
    assert as_plain.reason is Reason.UNSUPPORTED_CLAIM


def test_a_figure_in_an_uncited_passage_does_not_support_the_sentence() -> None:
    text = "Total net sales were $416,161 million in fiscal 2025 [2]."
    verdict = verify_answer(text, PASSAGES, FY2025, last_year_named, recite=False)
    assert (verdict.ok, verdict.reason) == (False, Reason.UNSUPPORTED_CLAIM)
    assert "[2]" in (verdict.detail or "")


def test_a_wrong_marker_is_corrected_to_the_first_passage_that_prints_the_figure() -> None:
    verdict = verify("Total net sales were $416,161 million in fiscal 2025 [2].")
    assert verdict.ok
    assert verdict.text == "Total net sales were $416,161 million in fiscal 2025 [1]."
    assert (verdict.cited, verdict.recited) == ((1,), ((2, 1),))


def test_a_marker_is_not_corrected_when_no_passage_prints_the_figure() -> None:
    nowhere = verify("Total net sales were $512,345 million in fiscal 2025 [2].")
    assert (nowhere.ok, nowhere.reason, nowhere.recited) == (False, Reason.UNSUPPORTED_CLAIM, ())
    two_figures = verify("Net sales were $416,161 million and diluted EPS was $7.46 [3].")
    assert (two_figures.ok, two_figures.recited) == (False, ())


def test_a_marker_is_not_corrected_to_the_prior_year_column() -> None:
    verdict = verify("Total net sales were $391,035 million in fiscal 2025 [2].")
    assert (verdict.ok, verdict.reason) == (False, Reason.UNSUPPORTED_CLAIM)


def test_a_marker_of_a_passage_not_given_is_no_citation() -> None:
    verdict = verify("Total net sales were $416,161 million in fiscal 2025 [7].")
    assert (verdict.ok, verdict.reason, verdict.cited) == (False, Reason.NO_VALID_CITATION, ())
    assert "[7]" in (verdict.detail or "")


def test_a_sentence_with_a_figure_and_no_marker_has_no_valid_citation() -> None:
    verdict = verify("Apple sold iPhones worth $416,161 million to its customers in fiscal 2025.")
    assert verdict.reason is Reason.NO_VALID_CITATION


def test_an_answer_citing_nothing_cites_the_passage_holding_its_words() -> None:
    """The model quoted a passage and left out the marker: code cites the passage that holds
    the sentence's words, and the sentence is then checked against it as if the model had."""
    verdict = verify("Total net sales increased 6% during 2025 compared to 2024.")
    assert verdict.ok
    assert verdict.attributed
    assert verdict.text == "Total net sales increased 6% during 2025 compared to 2024 [4]."
    wrong = verify("Total net sales increased 7% during 2025 compared to 2024.")
    assert wrong.reason is Reason.UNSUPPORTED_CLAIM


def test_a_paraphrase_stating_figures_cites_the_passage_printing_them() -> None:
    """A sentence with figures and no marker that paraphrases a passage too freely for the
    word rule cites the passage printing every figure it states and holding half its words;
    it is then held to that passage like any cited sentence."""
    dividends = (
        "The Company has paid dividends on common stock for 48 consecutive years and has "
        "increased the dividend amount at least once every year."
    )
    passages = {1: SALES_ROW, 2: dividends}
    answer = "The dividend track record is 48 consecutive years, raised at least once every year."
    verdict = verify_answer(answer, passages, frozenset(), last_year_named)
    assert verdict.ok, verdict.detail
    assert verdict.attributed
    assert verdict.text.endswith("every year [2].")
    # a figure no passage prints, or words no passage printing it holds: still uncited
    wrong = "The dividend track record is 49 consecutive years, raised at least once every year."
    assert verify_answer(wrong, passages, frozenset(), last_year_named).reason is (
        Reason.NO_VALID_CITATION
    )
    loose = "Shareholders of McDonald's enjoyed 48 consecutive years of rising payouts globally."
    assert verify_answer(loose, passages, frozenset(), last_year_named).reason is (
        Reason.NO_VALID_CITATION
    )


def test_a_marker_moved_after_an_abbreviation_keeps_its_full_stop() -> None:
    verdict = verify_answer(
        "[1] There are 600 Sam's Club locations in the U.S.",
        {1: "Sam's Club U.S. operates 600 clubs in 44 states in the U.S. and Puerto Rico."},
        frozenset(),
        last_year_named,
    )
    assert verdict.ok, verdict.detail
    assert verdict.text == "There are 600 Sam's Club locations in the U.S. [1]."


def test_markers_written_before_their_sentences_are_moved_after_them() -> None:
    """ "[4] A. [1] B." cites [4] for A and [1] for B, as "A [4]. B [1]." does."""
    verdict = verify("[4] Total net sales increased 6% in 2025. [1] They were $416,161 million.")
    assert verdict.ok, verdict.detail
    assert (
        verdict.text == "Total net sales increased 6% in 2025 [4]. They were $416,161 million [1]."
    )


def test_a_figure_in_words_needs_a_marker_and_is_held_to_the_passage() -> None:
    assert verify("Net sales rose by twenty-five point one billion dollars.").reason is (
        Reason.NO_VALID_CITATION
    )
    assert verify("Net sales rose by twenty-five point one billion dollars [4].").ok
    wrong = verify("Net sales rose by twenty-six billion dollars [4].")
    assert wrong.reason is Reason.UNSUPPORTED_CLAIM


def test_a_long_sentence_without_a_marker_has_no_valid_citation() -> None:
    sentence = (
        "Apple explains that its sales grew because customers in every region bought more "
        "iPhones and services while the company kept launching new products and expanding "
        "its retail presence."
    )
    verdict = verify(sentence)
    assert (verdict.ok, verdict.reason) == (False, Reason.NO_VALID_CITATION)
    assert "long" in (verdict.detail or "")
    cited = verify(sentence[:-1] + " [4].")
    assert cited.reason is Reason.UNSUPPORTED_CLAIM, "it cites a passage that says none of it"
    assert "shares almost none of its words" in (cited.detail or "")


def test_a_sentence_quoting_another_passage_than_it_cites_cites_that_one() -> None:
    passages = {
        1: "The Company's operations are subject to the risks of industrial accidents.",
        2: "Substantially all manufacturing is performed by a small number of outsourcing "
        "partners, often in single locations.",
    }
    verdict = verify_answer(
        "Manufacturing is performed by a small number of outsourcing partners, often in single "
        "locations [1].",
        passages,
        frozenset(),
        last_year_named,
    )
    assert verdict.ok, verdict.detail
    assert verdict.requoted == ((1, 2),)
    assert verdict.text.endswith("single locations [2].")


def test_a_short_sentence_without_figures_needs_no_marker() -> None:
    assert verify("Apple designs and sells smartphones. Sales were $416,161 million [1].").ok


@pytest.mark.parametrize(
    "text", ["The figure with its unit and scale.", "The passages do not say.", "Yes."]
)
def test_an_answer_that_cites_no_passage_at_all_has_no_valid_citation(text: str) -> None:
    verdict = verify(text)
    assert (verdict.ok, verdict.reason) == (False, Reason.NO_VALID_CITATION)
    assert "cites no passage" in (verdict.detail or "")


def test_the_prior_year_figure_of_the_same_row_is_withheld_without_naming_it() -> None:
    verdict = verify("Apple reported total net sales of $391,035 million for fiscal 2025 [1].")
    assert (verdict.ok, verdict.reason) == (False, Reason.UNSUPPORTED_CLAIM)
    detail = verdict.detail or ""
    assert "fiscal 2024 column" in detail
    assert "asks about fiscal 2025" in detail
    assert "Apple reported total net sales of" in detail
    assert "391" not in detail
    assert "035" not in detail


def test_an_unsupported_figure_is_masked_in_the_detail() -> None:
    verdict = verify("Total net sales were $987,654 million in fiscal 2025 [1].")
    assert verdict.reason is Reason.UNSUPPORTED_CLAIM
    assert "987" not in (verdict.detail or "")
    assert "654" not in (verdict.detail or "")


def test_a_long_sentence_is_quoted_shortened_in_the_detail() -> None:
    sentence = "Apple said " + "that demand held up well " * 10 + "with sales of $391,035 [1]."
    detail = verify(sentence).detail or ""
    assert len(detail) < 250
    assert "391" not in detail


def test_the_column_of_the_year_asked_supports_the_figure() -> None:
    assert verify("Total net sales were $391,035 million in fiscal 2024 [1].", frozenset({2024})).ok
    assert verify("Diluted earnings per share were $6.08 [2].", frozenset({2024})).ok
    assert not verify("Diluted earnings per share were $6.08 [2].").ok


def test_a_question_about_two_years_accepts_either_column() -> None:
    both = frozenset({2023, 2024})
    answer = "Total net sales were $391,035 million in 2024 and $383,285 million in 2023 [1]."
    assert verify(answer, both).ok
    current = verify("Total net sales were $416,161 million [1].", both)
    assert current.reason is Reason.UNSUPPORTED_CLAIM
    assert "fiscal 2023 and 2024" in (current.detail or "")


def test_a_change_cell_belongs_to_the_year_column_before_it() -> None:
    assert verify("Total net sales increased 6% in fiscal 2025 [5].").ok
    assert verify("Greater China net sales decreased 4% [3].").ok
    prior = verify("Greater China net sales decreased 8% [3].")
    assert not prior.ok
    assert prior.detail is not None
    assert "fiscal 2024 column" in prior.detail


def test_a_prose_amount_is_held_to_the_year_its_sentence_gives_it() -> None:
    # "$25.1 billion during 2025 compared to 2024": the amount is 2025's.
    assert verify("Total net sales grew by $25.1 billion [4].", FY2025).ok
    other = verify("Total net sales grew by $25.1 billion [4].", frozenset({2024}))
    assert other.reason is Reason.UNSUPPORTED_CLAIM
    assert other.detail is not None
    dated = "cites a passage whose sentence dates it fiscal 2025, but the question asks about"
    assert f"{dated} fiscal 2024" in other.detail
    assert "25.1" not in other.detail


META_2023 = FilingMeta(
    company="Meta Platforms, Inc.",
    cik=1326801,
    ticker="META",
    form="10-K",
    fiscal_year=2023,
    period_end=date(2023, 12, 31),
    accession=None,
    filing_date=None,
    url=None,
    years_reported=(2021, 2022, 2023),
    source="test",
    sha256="",
    source_format=SourceFormat.HTML,
)


def test_an_event_after_the_year_end_is_of_the_next_year_and_a_balance_then_of_the_last() -> None:
    """Issue 20 (n166): Meta's fiscal 2023 10-K announces its first dividend, paid in 2024; the
    window starts at the sentence after the one that dates it. The holders of record counted a
    month after the year end are still the fiscal 2023 cover's."""
    passages = {
        1: "This cash dividend of $0.50 per share of common stock is equivalent to $2.00 per "
        "share on an annual basis.",
        2: "As of January 31, 2024, there were 3,098 stockholders of record of our Class A "
        "common stock.",
    }
    leads = {
        1: "Dividend On February 1, 2024, we announced the initiation of our first ever "
        "cash dividend program. "
    }

    def check(text: str) -> Verdict:
        return verify_answer(
            text,
            passages,
            frozenset({2023}),
            lambda header: fiscal_year_of_header(header, META_2023),
            leads=leads,
        )

    paid = check("Meta paid a dividend of $0.50 per share during 2023 [1].")
    assert paid.reason is Reason.UNSUPPORTED_CLAIM
    assert paid.detail is not None
    assert "dates it fiscal 2024, but the question asks about fiscal 2023" in paid.detail
    assert check("Meta had 3,098 stockholders of record [2].").ok


def test_a_balance_at_mid_year_is_of_the_fiscal_year_it_lies_in() -> None:
    """Issue 20 (n126): the cover of Progressive's fiscal 2023 10-K values its public float "at
    June 30, 2023", 181 days after fiscal 2022 ended and 184 before fiscal 2023 did."""
    progressive = replace(META_2023, company="The Progressive Corporation", cik=80661, ticker="PGR")
    passages = {
        1: "The aggregate market value of the voting common shares held by non-affiliates of "
        "the registrant at June 30, 2023: $76,906,833,454"
    }
    answer = "The aggregate market value held by non-affiliates was $76,906,833,454 [1]."

    def check(asked: int) -> Verdict:
        return verify_answer(
            answer, passages, frozenset({asked}), lambda h: fiscal_year_of_header(h, progressive)
        )

    assert check(2023).ok
    assert check(2022).reason is Reason.UNSUPPORTED_CLAIM


def test_a_number_no_figure_reads_is_never_passed_as_a_sentence_without_figures() -> None:
    cut_off = verify("Long-term debt was $1,234,567,890,000,0")
    assert cut_off.reason is Reason.UNSUPPORTED_CLAIM
    assert cut_off.detail is not None
    assert "no figure reads" in cut_off.detail
    assert "1,234" not in cut_off.detail
    assert verify("Sales were $1,2345 million [1].").reason is Reason.UNSUPPORTED_CLAIM


def test_no_asked_years_means_no_period_check() -> None:
    assert verify("Total net sales were $391,035 million [1].", frozenset()).ok


@pytest.mark.parametrize("markers", ["[1, 2]", "[1][2]", "[1-2]", "[1,2]", "[2] [1]"])
def test_a_sentence_may_cite_several_passages_in_any_marker_form(markers: str) -> None:
    verdict = verify(f"Net sales were $416.2 billion and diluted EPS was $7.46 {markers}.")
    assert verdict.ok
    assert set(verdict.cited) == {1, 2}


def test_each_figure_must_be_printed_in_one_of_the_cited_passages() -> None:
    verdict = verify("Net sales were $416.2 billion and diluted EPS was $7.46 [1].")
    assert verdict.reason is Reason.UNSUPPORTED_CLAIM


def test_cited_lists_the_given_markers_in_order_of_first_use() -> None:
    answer = "EPS was $7.46 [2]. Sales were $416,161 million [1][2]. They rose [9]."
    assert verify(answer).cited == (2, 1)


def test_a_marker_after_the_full_stop_belongs_to_its_sentence() -> None:
    assert verify("Total net sales were $416,161 million. [1] EPS was $7.46.[2]").ok


def test_an_empty_answer_has_no_valid_citation() -> None:
    for text in ("", "  \n "):
        verdict = verify(text)
        assert (verdict.ok, verdict.reason) == (False, Reason.NO_VALID_CITATION)


def test_sentences_are_not_split_inside_figures_or_abbreviations() -> None:
    text = "Apple Inc. grew $25.1 billion in the U.S. per Note No. 3 [4]. Sales grew 6% [4]."
    assert split_sentences(text) == [
        "Apple Inc. grew $25.1 billion in the U.S. per Note No. 3 [4].",
        "Sales grew 6% [4].",
    ]
    assert verify(text).ok


def test_each_line_and_bullet_is_its_own_sentence() -> None:
    answer = "- Net sales: $416,161 million [1]\n- Diluted EPS: $6.08 [2]"
    assert split_sentences(answer) == ["Net sales: $416,161 million [1]", "Diluted EPS: $6.08 [2]"]
    assert verify(answer).reason is Reason.UNSUPPORTED_CLAIM


def test_markers_are_read_and_stripped_in_every_form() -> None:
    assert markers_in("a [2] b [1, 3] c [4-6] d [2][7]") == [2, 1, 3, 4, 5, 6, 7]
    assert strip_markers("Sales grew [1]. EPS rose [2, 3][4].") == "Sales grew. EPS rose."


def test_a_whole_row_copied_out_keeps_only_the_column_of_the_year_asked() -> None:
    copied = f"[1] {SALES_ROW}"
    verdict = verify(copied)
    assert verdict.ok
    assert verdict.trimmed
    assert verdict.text == "[1] Total net sales | 2025: 416,161 | (in millions)"
    both = verify(copied, frozenset({2024, 2025}))
    assert both.text == "[1] Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)"


def test_a_copied_row_without_the_year_asked_is_left_as_written_and_withheld() -> None:
    verdict = verify(f"[1] {SALES_ROW}", frozenset({2019}))
    assert (verdict.ok, verdict.reason, verdict.trimmed) == (False, Reason.UNSUPPORTED_CLAIM, False)


def test_an_abbreviation_after_a_hyphen_ends_no_sentence() -> None:
    sentence = "About 80% of BCA's backlog is with non-U.S. airlines [1]."
    assert split_sentences(sentence) == [sentence]


def test_an_uncited_sentence_stating_a_figure_cites_the_passage_holding_its_words() -> None:
    """Only the answer's last sentence has a marker; the first, which states the figure, is
    cited to the passage it was quoted from."""
    verdict = verify("Total net sales increased 6% during 2025 compared to 2024. Sales grew [1].")
    assert verdict.ok, verdict.detail
    assert verdict.attributed
    assert verdict.text.startswith("Total net sales increased 6% during 2025 compared to 2024 [4].")


@pytest.mark.parametrize(
    ("reply", "kept"),
    [
        # a half figure after a whole sentence
        (
            "The registrant had 2,189,898,148 shares of Class A common stock [1]. And 343",
            "The registrant had 2,189,898,148 shares of Class A common stock [1].",
        ),
        # one unfinished sentence of a list: what precedes its last semicolon
        (
            "[1] suppliers of GPUs, such as AMD; [2] large cloud services companies; [3",
            "[1] suppliers of GPUs, such as AMD; [2] large cloud services companies",
        ),
        # a list whose last line was cut
        (
            "Segments:\n- Walmart U.S. [1]\n- Walmart International is a",
            "Segments:\n- Walmart U.S. [1]",
        ),
    ],
)
def test_a_cut_reply_loses_only_its_unfinished_sentence(reply: str, kept: str) -> None:
    assert without_cut_tail(reply) == (kept, True)


@pytest.mark.parametrize(
    "reply",
    [
        "Net sales were $416,161 million [1].",
        "Net sales were $416,161 million [1]",
        "Net sales were rising as Inc. noted",  # one unfinished sentence and no semicolon
        "",
    ],
)
def test_a_reply_that_ends_whole_or_cannot_be_cut_is_kept(reply: str) -> None:
    assert without_cut_tail(reply) == (reply, False)
