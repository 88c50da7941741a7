"""The web page in a real headless Chromium, against a real server replaying a recorded answer."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import ConsoleMessage, Page, Route, expect, sync_playwright

from edgar_rag.answer.answerer import Answerer
from edgar_rag.answer.computed import ComputedAnswers
from edgar_rag.answer.render import REASON_WORDS
from edgar_rag.figures.library import load_library
from edgar_rag.index.embedders import HashingEmbedder
from edgar_rag.index.sqlite import SqliteIndex
from edgar_rag.ingest.indexer import index_filings
from edgar_rag.ingest.local import find_local_filings
from edgar_rag.model.tapes import TapeGenerator
from edgar_rag.retrieve.search import Searcher
from edgar_rag.service.app import Services, create_app
from edgar_rag.service.server import serve_in_thread
from fakes import ScriptedGenerator, StreamingScriptedGenerator, marker_of
from fakes import scripted_answerer as answerer

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SALES_2025 = "What were Apple's total net sales in fiscal 2025?"
SALES_ANSWER = "Apple's total net sales were $416,161 million in fiscal 2025 [{marker}]."
ANOTHER_COMPANY = "What was Microsoft's revenue in fiscal 2025?"
WAIT_MS = 15_000


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory, sample_dir: Path) -> Iterator[SqliteIndex]:
    index = SqliteIndex(tmp_path_factory.mktemp("page") / "index.db")
    apple = [f for f in find_local_filings([sample_dir]) if f.matches(("AAPL",), ())]
    list(index_filings(apple, index, HashingEmbedder()))
    yield index
    index.close()


@pytest.fixture
def tape(index: SqliteIndex, tmp_path: Path) -> tuple[Path, str]:
    """A tape holding the answer to SALES_2025, recorded around a scripted model, and the
    Item its citation quotes."""
    path = tmp_path / "tape.jsonl"
    model = ScriptedGenerator(
        [lambda prompt: SALES_ANSWER.format(marker=marker_of(prompt, "416,161"))]
    )
    recording = answerer(index, TapeGenerator(model, path, "record"))
    response = recording.answer(SALES_2025, index.resolve_scope("AAPL", fiscal_year=2025))
    assert response.reason is None, response.detail
    [citation] = response.citations
    return path, f"{citation.item} · {citation.title}"


@contextmanager
def chromium_page() -> Iterator[Page]:
    """A page of a new headless Chromium (Debian's, never a downloaded one); a missing
    browser fails the test: it is not skipped."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)",
            pytrace=False,
        )
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS
        )
        try:
            page = browser.new_page(viewport={"width": 1360, "height": 900})
            page.set_default_timeout(WAIT_MS)
            yield page
        finally:
            browser.close()


@contextmanager
def served_page(index: SqliteIndex, answering: Answerer) -> Iterator[tuple[Page, list[str]]]:
    """The page of the service over ``index`` and ``answering``, open in Chromium, with the
    page's errors and console errors gathered for the test to assert none."""
    problems: list[str] = []
    with (
        chromium_page() as page,
        serve_in_thread(
            create_app(Services(index, Searcher(index, HashingEmbedder()), answering))
        ) as url,
    ):
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda message: _note_console_error(message, problems))
        page.goto(url)
        yield page, problems


@pytest.mark.browser
def test_a_replayed_answer_opens_its_quote_inside_its_item(
    index: SqliteIndex, tape: tuple[Path, str], tmp_path: Path
) -> None:
    recorded, cited_item = tape
    replay = answerer(index, TapeGenerator(None, recorded, "replay"))
    with served_page(index, replay) as (page, problems):
        expect(page.locator("#status")).to_contain_text("model scripted")
        page.select_option("#company", "ticker:AAPL")
        expect(page.locator("#year option")).to_have_count(2)
        page.select_option("#year", "2025")
        page.fill("#question", SALES_2025)
        page.click("#ask-button")

        answer = page.locator("#answer-text")
        expect(answer).to_contain_text("Apple's total net sales were $416,161 million")
        expect(page.locator("#meta")).to_contain_text("(replayed)")
        answer.locator(".cite").first.click()
        quote = page.locator("#passage-text mark")
        expect(quote).to_have_count(1)
        expect(quote).to_contain_text("416,161")
        expect(quote).to_be_in_viewport()
        expect(page.locator("#passage-title")).to_have_text(f"[1] {cited_item}")
        shot = tmp_path / "page-answer.png"
        page.screenshot(path=str(shot))
        print(f"screenshot of the answer and its quote: {shot}")

        page.fill("#question", ANOTHER_COMPANY)
        page.click("#ask-button")
        decline = page.locator("#decline")
        expect(decline).to_contain_text(REASON_WORDS["out_of_scope"])
        expect(decline).to_contain_text("out_of_scope")
        expect(page.locator("#passage")).to_be_hidden()
        shot = tmp_path / "page-decline.png"
        page.screenshot(path=str(shot))
        print(f"screenshot of the decline: {shot}")
    assert problems == []


@pytest.mark.browser
def test_a_computed_answer_shows_its_formula_with_each_operand_cited(
    index: SqliteIndex, tmp_path: Path
) -> None:
    """No model: Apple's fixed asset turnover computed in code, each operand linked to the
    statement row that prints it."""
    computing = replace(
        answerer(index, ScriptedGenerator([])),
        computed=ComputedAnswers(index, load_library()),
    )
    with served_page(index, computing) as (page, problems):
        page.select_option("#company", "ticker:AAPL")
        page.select_option("#year", "2025")
        page.fill("#question", "What was Apple's fixed asset turnover ratio in fiscal 2025?")
        page.click("#ask-button")
        expect(page.locator("#answer-text")).to_contain_text("fixed asset turnover")
        rows = page.locator("#calculation tr")
        expect(rows).to_have_count(3)  # revenue, and PP&E at both year ends
        expect(page.locator("#calculation")).to_contain_text("Computed in code: ")
        expect(page.locator("#meta")).to_contain_text("generator computed")
        rows.nth(0).locator(".cite").click()
        quote = page.locator("#passage-text mark")
        expect(quote).to_have_count(1)
        expect(quote).to_contain_text("416,161")
        # The statement shows as it prints: a table with its column headers, the quoted row's
        # cell of the cited figure marked, no index row text ("Net sales | 2025: ...").
        table = page.locator("#passage-text table.printed", has=page.locator("mark"))
        expect(table.locator("thead th").nth(1)).not_to_be_empty()
        expect(table.locator("tr.quoted td mark")).to_have_text("416,161")
        expect(page.locator("#passage-text")).not_to_contain_text(" | ")
        shot = tmp_path / "page-computed.png"
        page.screenshot(path=str(shot))
        print(f"screenshot of the computed answer: {shot}")

        # Two years compared: each year's figure shown with its citation, then the change.
        page.fill("#question", "Compare Apple's net income in fiscal 2024 and fiscal 2025")
        page.click("#ask-button")
        expect(page.locator("#answer-text")).to_contain_text("net income rose by $18,274 million")
        expect(page.locator("#comparison-0")).to_contain_text("112,010")
        expect(page.locator("#comparison-1")).to_contain_text("93,736")
        expect(page.locator("#calculation tr")).to_have_count(2)
    assert problems == []


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 768, 375])
def test_the_page_never_scrolls_sideways_with_an_answer_and_its_widest_passage_open(
    index: SqliteIndex, width: int, tmp_path: Path
) -> None:
    """Item 8 prints tables of up to eight columns: open, one made a 1280 px window 1446 px
    wide and a 375 px one 820 px (issue 41). Such a table scrolls in its own box, the form's
    controls stay in their card, and a wide window shows the passage beside the answer."""
    computing = replace(
        answerer(index, ScriptedGenerator([])),
        computed=ComputedAnswers(index, load_library()),
    )
    with served_page(index, computing) as (page, problems):
        page.set_viewport_size({"width": width, "height": 900})
        page.select_option("#company", "ticker:AAPL")
        page.select_option("#year", "2025")
        page.fill("#question", "What was Apple's fixed asset turnover ratio in fiscal 2025?")
        page.click("#ask-button")
        expect(page.locator("#calculation tr")).to_have_count(3)
        page.locator("#calculation tr").nth(1).locator(".cite").click()  # PP&E, fiscal 2025
        quote = page.locator("#passage-text mark")
        expect(quote).to_contain_text("49,834")
        expect(quote).to_be_in_viewport()
        shot = tmp_path / f"page-{width}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot at {width} px: {shot}")

        assert page.evaluate("document.scrollingElement.scrollWidth") <= width
        card = _box(page, "#ask-form")
        for control in ("#company", "#year", "#question", "#gate", "#ask-button"):
            assert _box(page, control)["right"] <= card["right"], control
        answer, passage = _box(page, "#answer"), _box(page, "#passage")
        if width >= 1280:  # beside the answer, in the right half
            assert passage["left"] >= width / 2
            assert passage["top"] < answer["bottom"]
        else:
            assert passage["top"] >= answer["bottom"]
    assert problems == []


def _box(page: Page, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.eval_on_selector(
        selector, "e => e.getBoundingClientRect().toJSON()"
    )
    return box


@pytest.mark.browser
def test_the_api_docs_render_from_the_service_alone(index: SqliteIndex, tmp_path: Path) -> None:
    outside: list[str] = []
    problems: list[str] = []
    with (
        chromium_page() as page,
        serve_in_thread(
            create_app(Services(index, Searcher(index, HashingEmbedder()), None))
        ) as url,
    ):

        def only_the_service(route: Route) -> None:
            if route.request.url.startswith(f"{url}/"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", only_the_service)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("console", lambda message: _note_console_error(message, problems))
        page.goto(f"{url}/docs")
        expect(page.locator(".opblock-summary-path").first).to_be_visible()
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert {"/ask", "/search", "/filings", "/health"} <= {p.strip() for p in paths}
        shot = tmp_path / "api-docs.png"
        page.screenshot(path=str(shot))
        print(f"screenshot of the API docs: {shot}")
    assert outside == []
    assert problems == []


@pytest.mark.browser
def test_the_draft_shows_as_it_comes_marked_unverified_then_the_checked_answer_replaces_it(
    index: SqliteIndex, tmp_path: Path
) -> None:
    """The model writes a word, then waits: the page shows that word as an unverified draft.
    Once it ends, the verified answer replaces the draft; a draft the verifier refuses (a
    figure no passage prints) is replaced by the decline; a whole JSON answer (a service from
    before streaming) is shown as it is; an error event mid-stream shows as the error."""
    model = StreamingScriptedGenerator(
        [
            lambda prompt: SALES_ANSWER.format(marker=marker_of(prompt, "416,161")),
            lambda prompt: "Apple's total net sales were $999,999 million in fiscal 2025 [1].",
            lambda prompt: SALES_ANSWER.format(marker=marker_of(prompt, "416,161")),
        ]
    )
    with served_page(index, answerer(index, model)) as (page, problems):
        page.select_option("#company", "ticker:AAPL")
        page.select_option("#year", "2025")
        page.fill("#question", SALES_2025)
        for reply in ("answer", "decline"):
            model.first_told.clear()
            model.go_on.clear()
            page.click("#ask-button")
            draft = page.locator("#draft")
            expect(draft).to_contain_text("unverified")
            expect(page.locator("#draft-text")).to_have_text("Apple's")
            expect(page.locator("#answer-text")).to_have_count(0)
            shot = tmp_path / f"page-draft-{reply}.png"
            page.screenshot(path=str(shot))
            print(f"screenshot of the draft before the {reply}: {shot}")
            model.go_on.set()
            expect(draft).to_have_count(0)
            if reply == "answer":
                answer = page.locator("#answer-text")
                expect(answer).to_contain_text("Apple's total net sales were $416,161 million")
                expect(answer.locator(".cite")).to_have_count(1)
        expect(page.locator("#decline")).to_contain_text("unsupported_claim")
        expect(page.locator("#decline")).not_to_contain_text("999,999")
        assert model.told[-1] == " [1]."

        def unstreamed(route: Route) -> None:  # a service from before streaming answers whole
            headers = route.request.headers | {"accept": "application/json"}
            route.fulfill(response=route.fetch(headers=headers))

        page.route("**/ask", unstreamed)
        streamed = len(model.told)
        page.click("#ask-button")
        expect(page.locator("#answer-text")).to_contain_text("$416,161 million")
        assert len(model.told) == streamed  # answered whole: nothing was streamed

        died = "the local model process died while answering (Segmentation fault)"
        events = (
            'event: token\ndata: {"text": "Apple"}\n\n'
            f'event: error\ndata: {{"status": 502, "error": "source_unreachable", '
            f'"detail": "{died}"}}\n\n'
        )
        page.unroute("**/ask")
        page.route(
            "**/ask",
            lambda route: route.fulfill(
                status=200, headers={"Content-Type": "text/event-stream"}, body=events
            ),
        )
        page.click("#ask-button")
        expect(page.locator("#error")).to_have_text(died)
        expect(page.locator("#answer")).to_be_hidden()
    assert problems == []


def _note_console_error(message: ConsoleMessage, problems: list[str]) -> None:
    if message.type == "error":
        problems.append(message.text)
