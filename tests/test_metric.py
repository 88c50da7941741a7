"""The metric a question asks about, and the check that an answer's passage names it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from edgar_rag.answer.metric import figure_names_metric
from edgar_rag.question.reading import read_question
from edgar_rag.question.words import metric_words


def test_the_metric_words_leave_out_the_company_the_period_and_the_size_words() -> None:
    assert metric_words("What were Apple's total revenues in fiscal 2025?", "Apple Inc.") == (
        "revenues",
    )
    assert metric_words("Home Depot stock buybacks FY23", "HOME DEPOT, INC.") == (
        "stock",
        "buybacks",
    )
    assert metric_words("How much did Apple report for fiscal 2025?", "Apple Inc.") == ()


def test_how_the_question_frames_the_figure_is_no_word_of_the_metric() -> None:
    """How concentrated its sales were among its largest wholesalers asks of the wholesalers'
    share of sales: the degree asked and the preposition that places it are no metric words, so
    the sentence that prints the shares names what is asked."""
    question = "How concentrated were Johnson & Johnson's 2023 sales among its largest wholesalers?"
    words = metric_words(question, "JOHNSON & JOHNSON")
    assert words == ("sales", "largest", "wholesalers")
    line = (
        "In 2023, the Company utilized three wholesalers distributing products for both segments "
        "that represented approximately 18.2%, 15.1% and 14.2% of the total consolidated revenues."
    )
    assert figure_names_metric("They were 18.2%, 15.1% and 14.2% [1].", [line], words)
    assert metric_words("How large is the backlog?", None) == ("backlog",)
    asked = "Does any single customer account for a large share of Apple's trade receivables?"
    assert metric_words(asked, "Apple Inc.") == ("customer", "share", "trade", "receivables")


def names(line: str, words: tuple[str, ...]) -> bool:
    """The line names the metric of ``words`` (asked of the figure the line prints)."""
    figures = [cell.rpartition(": ")[2] for cell in line.split(" | ")[1:2]]
    return figure_names_metric(f"It was {figures[0]} [1].", [line], words)


def test_a_synonym_names_the_metric() -> None:
    row = "Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)"
    assert names(row, metric_words("Apple revenues FY25", "Apple Inc."))
    eps = "Earnings per share: Diluted | 2025: 7.46 | 2024: 6.08"
    assert names(eps, metric_words("Apple's diluted EPS in 2025?", "Apple Inc."))
    buybacks = "Repurchases of common stock | 2025: (90,711) | (in millions)"
    assert names(buybacks, metric_words("How much did Apple spend on buybacks?", None))


def test_a_passage_about_another_line_item_does_not_name_the_metric() -> None:
    row = "Total net sales | 2025: 416,161 | 2024: 391,035 | (in millions)"
    assert not names(row, metric_words("What was Apple's goodwill in 2025?", "Apple Inc."))


@given(st.sampled_from(["revenue", "net income", "total assets", "inventories", "goodwill"]))
def test_a_row_labelled_with_the_metric_asked_always_names_it(metric: str) -> None:
    question = f"What was the {metric} of Apple in fiscal 2025?"
    row = f"{metric.capitalize()} | 2025: 1,234 | 2024: 1,111 | (in millions)"
    assert names(row, metric_words(question, "Apple Inc."))


def test_the_line_that_prints_the_figure_must_name_the_metric() -> None:
    passage = (
        "Research and development | 2024: 31,370 | (in millions)\n"
        "Selling, general and administrative | 2024: 26,097 | (in millions)"
    )
    words = metric_words("How much did Apple spend on R&D in 2024?", "Apple Inc.")
    assert figure_names_metric("R&D was $31,370 million in 2024 [1].", [passage], words)
    assert not figure_names_metric("R&D was $26,097 million in 2024 [1].", [passage], words)
    assert figure_names_metric("Apple designs phones [1].", [passage], words)


def test_a_row_that_shares_only_the_word_expense_does_not_name_the_metric() -> None:
    row = "Operating expenses: Depreciation and amortization | Fiscal: 3,034 | (in millions)"
    question = "How much research and development expense did Home Depot report for fiscal 2024?"
    words = metric_words(question, "HOME DEPOT, INC.")
    assert words == ("research", "development")
    assert not figure_names_metric("R&D expense was $3,034 million [1].", [row], words)


def test_a_loose_synonym_or_an_unasked_qualifier_does_not_name_the_metric() -> None:
    def named(question: str, row: str) -> bool:
        return figure_names_metric(
            "It was $9,713 million [1].", [row], metric_words(question, None)
        )

    assert not named("Gross profit in 2024?", "Operating income | 2024: 9,713 | (in millions)")
    assert named("Profit in 2024?", "Net income | 2024: 9,713 | (in millions)")
    assert not named(
        "Total liabilities?", "Total current liabilities | 2024: 9,713 | (in millions)"
    )
    assert named(
        "Total current liabilities?", "Total current liabilities | 2024: 9,713 | (in millions)"
    )
    assert named(
        "Cash and cash equivalents?",
        "Current assets: Cash and equivalents | 2024: 9,713 | (in millions)",
    )
    assert named(
        "Long-term debt?", "Total non-current portion of term debt | 2024: 9,713 | (in millions)"
    )


def test_a_row_named_only_by_its_qualified_group_does_not_name_the_total() -> None:
    words = metric_words("Walmart total liabilities FY25", "Walmart Inc.")
    assert not names("Current liabilities: Short-term borrowings | 2025: 3,068 | 2024: 878", words)
    assert names("Total liabilities | 2025: 163,131 | 2024: 161,828", words)
    cash = metric_words("Walmart cash and cash equivalents FY25", "Walmart Inc.")
    assert names("Current assets: Cash and cash equivalents | 2025: 9,037 | 2024: 9,867", cash)


def test_a_row_naming_one_of_many_words_asked_does_not_name_the_metric() -> None:
    # Apple fiscal 2024: the model gave operating income as operating cash flow.
    words = metric_words(
        "How much net cash provided by operating activities did Apple report for 2024?",
        "Apple Inc.",
    )
    assert not names("Operating income | 2024: 123,216 | 2023: 114,301", words)
    assert names(
        "Changes in operating assets and liabilities: Cash generated by operating activities | "
        "2024: 118,254 | 2023: 110,543",
        words,
    )


def test_net_beside_a_word_for_profit_must_be_said() -> None:
    words = metric_words("How much net income did Home Depot report for fiscal 2024?", "Home Depot")
    assert not names("Gross profit | Fiscal 2024: 53,308 | (in millions)", words)
    assert not names("Operating income | Fiscal 2024: 21,526 | (in millions)", words)
    assert names("Net earnings | Fiscal 2024: 14,806 | (in millions)", words)
    profit = metric_words("Walmart profit FY25", "Walmart Inc.")
    assert not names("Gross profit | 2025: 169,232 | (in millions)", profit)
    sales = metric_words("What was Union Pacific's net sales in 2024?", "Union Pacific Corp")
    assert names("Total operating revenues | 2024: 24,250 | 2023: 24,119", sales)


def test_a_row_named_only_by_its_group_does_not_name_the_metric() -> None:
    words = metric_words(
        "What were Boeing's total shareholders' equity at the end of 2024?", "Boeing"
    )
    assert not names("Shareholders’ equity: Retained earnings | 2024: 15,362 | 2023: 27,251", words)
    assert names("Shareholders’ equity: Total shareholders’ deficit | 2024: (3,908)", words)
    liabilities = metric_words("Total liabilities at year-end 2024?", None)
    assert names("Liabilities: Total | 2024: 50,825 | 2023: 52,344", liabilities)
    assert not names("Current liabilities: Total | 2024: 5,254 | 2023: 5,106", liabilities)


def test_restricted_cash_is_not_cash_and_cash_equivalents() -> None:
    words = metric_words("Boeing cash and cash equivalents as of FY24 year end", "Boeing")
    assert not names(
        "Cash & cash equivalents, including restricted, at end of year | 2024: 13,822", words
    )
    assert names("Cash and cash equivalents at end of year | 2024: $13,801 | 2023: $12,691", words)


def test_a_per_share_row_answers_only_a_per_share_question() -> None:
    dividends = metric_words("How much cash dividends did Apple report for 2025?", "Apple Inc.")
    assert not names("Cash dividends declared per share | 2025: 1.02 | 2024: 0.98", dividends)
    assert names("Payments for dividends | 2025: (15,421) | 2024: (15,234)", dividends)
    eps = metric_words("What was Apple's diluted EPS in fiscal 2025?", "Apple Inc.")
    assert names("Diluted earnings per share | 2025: 7.46 | 2024: 6.08", eps)


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "According to the risk factors, how much indebtedness does Boeing have?",
            ("indebtedness",),
        ),
        ("How many lawsuits are pending against Johnson & Johnson over talc?", ("lawsuits",)),
        ("Based on the cash flow statement, what was Apple's capex in 2024?", ("capex",)),
        ("How many full-time employees does Walmart have?", ("full-time", "employees")),
        ("How much did Apple spend on R&D in 2024?", ("r&d",)),
        ("What was Apple's goodwill as of September 27, 2025?", ("goodwill",)),
    ],
)
def test_the_metric_is_what_the_question_counts_not_where_it_points(
    question: str, words: tuple[str, ...]
) -> None:
    """ "How many X", "how much X" ask for X; "according to the risk factors" says where to read."""
    companies = ("Boeing", "Johnson & Johnson", "Apple", "Walmart")
    assert metric_words(question, None, *companies) == words


def test_a_count_in_prose_is_held_to_what_the_question_counts() -> None:
    question = "According to the legal proceedings note, how many talc lawsuits were pending?"
    words = metric_words(question, None)
    line = "As of year end, approximately 67,000 lawsuits related to talc were pending."
    assert figure_names_metric("About 67,000 talc lawsuits were pending [1].", [line], words)


def asked(question: str, sentence: str, answer: str) -> bool:
    """The answer's figure, printed in ``sentence``, names what ``question`` asks (read as the
    answerer reads it)."""
    read = read_question(question)
    return figure_names_metric(answer, [sentence], read.metric, read.counted)


def test_a_count_printed_beside_what_is_counted_names_it() -> None:
    """Union Pacific's legal note: the sentence says "lawsuits" beside 106 and leaves the
    litigation's name to the sentence before it."""
    question = (
        "How many individual shipper lawsuits from the fuel surcharge antitrust litigation are "
        "pending against Union Pacific?"
    )
    sentence = (
        "As of January 31, 2025, approximately 106 lawsuits by individual shippers are pending "
        "in federal court based on claims essentially identical to those alleged in MDL I."
    )
    assert asked(question, sentence, "About 106 lawsuits are pending [1].")
    assert not asked(question, "There were 106 locomotives in storage.", "106 [1].")


def test_a_word_counting_the_same_thing_before_the_figure_names_it() -> None:
    question = "How many people did McDonald's itself employ at year-end 2023?"
    sentence = "The Company's employees totaled over 150,000 worldwide as of year-end 2023."
    assert asked(question, sentence, "It employed over 150,000 people [1].")


def test_a_count_word_modifying_what_is_counted_names_nothing() -> None:
    """Boeing's workforce: 18 bodies that represent employees are no count of employees."""
    question = "How many Boeing employees were represented by unions at the end of 2024?"
    sentence = (
        "As of December 31, 2024, we had 9 unions in the U.S. with 27 independent agreements "
        "and 18 employee representative bodies internationally."
    )
    assert not asked(question, sentence, "Boeing had 18 employee representative bodies [1].")
    assert asked(question, "Approximately 58,000 employees were union represented.", "58,000 [1].")
    assert asked("How many employees does it have?", "It has 1 employee.", "1 employee [1].")


def test_a_percentage_counts_nothing() -> None:
    """ "How many employees" is not answered by the workforce's share of men."""
    question = "How many employees did NVIDIA have at the end of fiscal 2025?"
    sentence = "Our global workforce was 78% male, 21% female, and 1% not declared."
    assert not asked(question, sentence, "78% [1].")


def test_an_abbreviation_says_the_words_whose_initials_it_spells() -> None:
    question = "How much of Boeing Commercial Airplanes' backlog is with airlines outside the U.S.?"
    sentence = (
        "Approximately 80% of BCA’s total backlog, in dollar terms, is with non-U.S. airlines."
    )
    assert asked(question, sentence, "About 80% of it is [1].")
    other = "Approximately 80% of total backlog, in dollar terms, is with non-U.S. customers."
    assert not asked(question, other, "About 80% of it is [1].")


def test_a_word_of_the_question_is_read_as_the_lines_words_are() -> None:
    """ "non-U.S." in a question is the word the line's reading keeps of "non-U.S. customers";
    "U.S." alone is too short for either reading, so it is no word a line must say."""
    question = "What share of Boeing's defense backlog is attributable to non-U.S. customers?"
    sentence = "At the end of 2024, 29% of the backlog was attributable to non-U.S. customers."
    assert asked(question, sentence, "29% of BDS backlog [1].")
    assert not asked(question, "At the end of 2024, 29% of the backlog was funded.", "29% [1].")
    assert asked(
        "How much U.S. revenue did Boeing report?",
        "Revenues | 2024: 66,517 | (in millions)",
        "$66,517 million [1].",
    )


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("How many Sam's Club locations are there in the U.S.?", "It operates 600 clubs."),
        ("How many McDonald's locations are there?", "There were 600 restaurants at year end."),
        ("How many Costco stores are open?", "We operated 600 warehouses worldwide."),
    ],
)
def test_a_place_is_counted_by_the_name_the_business_gives_it(question: str, sentence: str) -> None:
    assert asked(question, sentence, "There are 600 [1].")
    assert not asked(question, "It employed 600 pharmacists.", "There are 600 [1].")


def test_the_number_of_something_counts_that_thing() -> None:
    """ "The number of shareholders ... of the Company's common stock" counts holders, not the
    stock it names on the way to its figure; "the number of shares outstanding" counts shares."""
    question = "How many McDonald's common shares were outstanding at the end of January 2024?"
    holders = (
        "The number of shareholders of record and beneficial owners of the Company's common "
        "stock as of January 31, 2024 was estimated to be 4,500,000."
    )
    assert not asked(question, holders, "It had 4,500,000 common shares [1].")
    shares = (
        "The number of shares outstanding of the registrant's common stock as of January 31, "
        "2024: 722,051,488"
    )
    assert asked(question, shares, "It had 722,051,488 common shares [1].")
    assert asked("How many shareholders of record did it have?", holders, "4,500,000 [1].")


def test_a_change_or_an_amount_of_money_counts_nothing() -> None:
    """ "Reduced headcount by approximately 10,000" is how many left, and "Common stock: $5,061"
    is dollars: neither is how many there are."""
    assert not asked(
        "How many employees did Meta have at the end of 2023?",
        "In 2023 we reduced our headcount by approximately 10,000 employees.",
        "Meta had about 10,000 employees [1].",
    )
    row = "Balance at December 31, 2023 | Boeing shareholders Common stock: $5,061"
    assert not asked(
        "How many common shareholders of record did Boeing have?", row, "5,061 holders [1]."
    )


def test_a_row_measured_in_a_unit_counts_nothing_else() -> None:
    """ "Train length (feet)" names trains, but its figure is feet: no count of trains; a row of
    square feet still answers how many square feet."""
    row = "Train length (feet) | 2024: 9,469 | 2023: 9,356"
    assert not asked("How many trains does Union Pacific run each day?", row, "9,469 trains [1].")
    space = "Total store space (feet) | 2024: 241,000,000"
    assert asked("How many square feet of store space?", space, "241,000,000 square feet [1].")


def test_a_count_is_named_by_its_row_or_its_column_header() -> None:
    row = "Class A common stock | Shares outstanding: 1,728,105,021"
    assert asked("How many Visa class A shares were outstanding?", row, "1,728,105,021 [1].")
    cover = (
        "The number of the registrant’s Common Shares, $1.00 par value, outstanding as of "
        "January 31, 2024: 585,677,464"
    )
    assert asked("How many common shares were outstanding?", cover, "585,677,464 shares [1].")


def test_a_count_of_another_class_of_stock_does_not_answer() -> None:
    """Asked about Class A holders, the sentence counting Class B holders is no answer, even on
    a line whose other sentence names Class A."""
    question = read_question(
        "How many stockholders of record held Meta's Class A stock at the end of 2023?"
    )
    assert question.share_class == "a"
    line = (
        "Because many of our shares of Class A common stock are held by brokers, we cannot "
        "estimate the holders. As of December 31, 2023, there were 23 stockholders of record of "
        "our Class B common stock."
    )
    answer = "There were 23 stockholders of record [1]."
    check = (question.metric, question.counted)
    assert figure_names_metric(answer, [line], *check)
    assert not figure_names_metric(answer, [line], *check, question.share_class)
    of_a = line.replace("23", "3,098").replace("Class B", "Class A")
    assert figure_names_metric("There were 3,098 [1].", [of_a], *check, question.share_class)


def test_the_pronoun_that_joins_a_verb_to_the_figure_is_no_word_of_it() -> None:
    """ "The cash proceeds that JnJ realised from the separation of Kenvue": the line printing
    "$13.2 billion in cash proceeds" names it; "that" is no word a line must say."""
    asked = (
        "What is the amount of the cash proceeds that JnJ realised from the separation of "
        "Kenvue, as of August 30, 2023?"
    )
    words = metric_words(asked, "Johnson & Johnson", "JnJ")
    assert "that" not in words
    line = "The Company generated $13.2 billion in cash proceeds as result of the Kenvue offering"
    assert figure_names_metric("It generated $13.2 billion in cash proceeds [1].", [line], words)
