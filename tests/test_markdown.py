"""Tables and shares as every page under docs/ writes them."""

from __future__ import annotations

from edgar_rag.markdown import interval, share, table


def test_a_table_right_aligns_the_columns_it_is_told_and_leaves_empty_cells_narrow() -> None:
    assert table(["", "n", "note"], [["all", 3, ""]], align="lr") == [
        "| | n | note |",
        "| --- | ---: | --- |",
        "| all | 3 | |",
    ]


def test_a_share_shows_its_count_rate_and_interval_in_either_wording() -> None:
    assert share(12, 40, 0.3, (0.179, 0.458)) == "12/40 = 30.0% [17.9%, 45.8%]"
    assert share(12, 40, 0.3, (0.179, 0.458), prose=True) == "12 of 40: 30.0% (17.9% to 45.8%)"
    assert interval((None, 0.5)) == "[n/a, 50.0%]"


def test_a_share_of_nothing_claims_no_rate() -> None:
    assert share(0, 0, None, (0.0, 1.0)) == "0/0"
    assert share(0, 0, None, (0.0, 1.0), prose=True) == "0 of 0"
