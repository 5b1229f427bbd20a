"""The web page's memory and history in headless Chromium (issue 23): the Memory page ("What I know
about you": tell, correct, delete, then ask in a new chat), the conversation kept across a reload
and reopened from the list, the page reconnecting by itself after the service restarts, the
header on a 390 px screen, and the insight details after a filter. A live uvicorn server on a real
embedded runtime with the scripted, streaming fake model."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from typing import Any

import pytest

from services.prompts.extract_claims import ClaimKind
from tests.claims_support import said, scripted_reader
from tests.e2e.web.test_browser import (
    CHROMIUM,
    Visit,
    browser,
    say,
    server,
    sync_api,
    visit,
    visitor_settings,
)
from tests.web.test_memories import READ, TOLD
from thea.llm.fake import FakeCall, StreamingFakeChatModel, plain_text
from thea.llm.prompt_ids import PromptId
from thea.runtime import Runtime
from thea.testing.seed import seed_insights
from thea.testing.service import LiveServer, service_app

__all__ = ["browser", "server", "visit"]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason="needs the Debian chromium package at /usr/bin/chromium"
)

FACTS_HEADING = "FACTS (what the user told you):"


def answer_from_current_facts(call: FakeCall) -> str:
    """A model that answers with the current facts its prompt holds (none: "I don't know.")."""
    text = plain_text(call.messages)
    if FACTS_HEADING not in text:
        return "I don't know."
    said = []
    for line in text.split(FACTS_HEADING, 1)[1].splitlines()[1:]:
        if not line.startswith("- "):
            break
        if not line.startswith("- EARLIER"):
            said.append(line[2:].strip())
    return " ".join(said) or "I don't know."


def fact_card(page: Any, words: str) -> Any:
    return page.locator("#memory-list .fact-card", has_text=words)


def test_tell_correct_and_delete_on_the_memory_page_then_ask_in_a_new_chat(
    visit: Visit, llm: StreamingFakeChatModel, runtime: Runtime
) -> None:
    page = visit.page
    llm.answer(PromptId.SYNTHESIS, answer_from_current_facts)
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(READ))
    for text in TOLD:
        say(page, text)
    # the slow loop reads the claims of each message (in a thread: playwright's loop runs here)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(runtime.run_jobs).result()

    page.click("#tab-memory")
    sync_api.expect(page.locator("#memory-list section.subject h3")).to_have_text(["You", "Sam"])
    leeds = fact_card(page, "Your home: Leeds.")
    sync_api.expect(leeds.locator(".source-text")).to_have_text("I live in Leeds")
    sync_api.expect(leeds.locator(".fact-source")).to_contain_text("you said on")
    sync_api.expect(leeds.locator(".fact-since")).to_contain_text("since ")
    sync_api.expect(page.locator("#memory-summary")).to_contain_text("your home: Leeds")
    sync_api.expect(page.locator("#memory-count")).to_have_text("4 facts")

    # correct one fact, inline
    leeds.get_by_role("button", name="Correct").click()
    leeds.locator("input.fact-input").fill("York")
    leeds.get_by_role("button", name="Save").click()
    york = fact_card(page, "Your home: York.")
    sync_api.expect(york.locator(".fact-source")).to_contain_text("your correction")
    sync_api.expect(york.locator(".fact-history li")).to_contain_text(["Your home: Leeds."])
    sync_api.expect(page.locator("#memory-notice")).to_contain_text("corrected")
    sync_api.expect(page.locator("#memory-summary")).to_contain_text("your home: York")
    sync_api.expect(page.locator("#memory-summary")).not_to_contain_text("Leeds")

    # delete another, after a confirmation (Keep first: nothing happens)
    peanuts = fact_card(page, "peanuts")
    peanuts.get_by_role("button", name="Delete").click()
    peanuts.get_by_role("button", name="Keep").click()
    sync_api.expect(peanuts.get_by_role("button", name="Delete")).to_be_visible()
    peanuts.get_by_role("button", name="Delete").click()
    peanuts.get_by_role("button", name="Delete for good").click()
    sync_api.expect(fact_card(page, "peanuts")).to_have_count(0)
    sync_api.expect(page.locator("#memory-notice")).to_contain_text("deleted")
    sync_api.expect(page.locator("#memory-count")).to_have_text("3 facts")

    # a new chat: the answers use the correction and do not know the deleted fact
    page.click("#tab-chat")
    page.click("#new-chat")
    sync_api.expect(page.locator("#messages li.msg")).to_have_count(0)
    where = say(page, "Where do I live?")
    sync_api.expect(where.locator(".text")).to_contain_text("York")
    assert "Leeds" not in where.locator(".text").inner_text()
    allergy = say(page, "What am I allergic to?")
    assert "peanut" not in allergy.locator(".text").inner_text().lower()

    # a reload keeps the conversation; the earlier one is listed and reopens
    page.reload()
    shown = page.locator("#messages li.msg.user")
    sync_api.expect(shown).to_have_text(["Where do I live?", "What am I allergic to?"])
    sync_api.expect(page.locator("#messages li.msg.thea").first.locator(".text")).to_contain_text("York")
    sync_api.expect(page.locator("#sessions li.session .session-title")).to_have_text(
        ["Where do I live?", TOLD[0]]
    )
    sync_api.expect(page.locator("#sessions li.session.current .session-title")).to_have_text(
        "Where do I live?"
    )
    page.locator("#sessions li.session", has_text=TOLD[0]).click()
    # the deleted fact's words are gone from the conversation too; the rest stays as said
    sync_api.expect(shown).to_have_text([*TOLD[:2], "[forgotten]."])
    page.locator("#messages li.msg.thea").first.get_by_role("button", name="How I got this").click()
    sync_api.expect(page.locator("#trace-panel .impulse")).to_have_text(TOLD[0])
    page.reload()  # the reopened conversation is the tab's conversation now
    sync_api.expect(shown).to_have_text([*TOLD[:2], "[forgotten]."])
    assert visit.errors == []


def test_a_change_told_ahead_is_listed_as_planned_beside_what_holds_now(
    visit: Visit, llm: StreamingFakeChatModel, runtime: Runtime
) -> None:
    page = visit.page
    llm.answer(
        PromptId.EXTRACT_CLAIMS,
        scripted_reader(
            {
                **READ,
                "York": [
                    said(
                        "we're moving to York next month",
                        "home",
                        "York",
                        when="next month",
                        kind=ClaimKind.REPLACES,
                    )
                ],
            }
        ),
    )
    for text in ("I live in Leeds.", "Big news: we're moving to York next month!"):
        say(page, text)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(runtime.run_jobs).result()
    page.click("#tab-memory")
    sync_api.expect(fact_card(page, "York").locator(".fact-since")).to_contain_text("(planned)")
    sync_api.expect(fact_card(page, "Leeds").locator(".fact-since")).to_contain_text("since ")
    sync_api.expect(fact_card(page, "Leeds").locator(".fact-since")).not_to_contain_text("planned")
    sync_api.expect(page.locator("#memory-summary")).to_contain_text("your home: Leeds")
    sync_api.expect(page.locator("#memory-summary")).not_to_contain_text("York")
    assert visit.errors == []


#: every header item's box, and how wide the page is laid out
HEADER_BOXES = """() => ({
  items: [...document.querySelectorAll('header h1, header .tab, header #status, header #whoami')]
    .filter((e) => e.getClientRects().length)
    .map((e) => { const r = e.getBoundingClientRect(); return [e.id || e.textContent, r.left, r.right]; }),
  scrollWidth: document.documentElement.scrollWidth,
})"""


@pytest.mark.parametrize("view", ["chat", "memory", "insights", "graph"])
def test_the_header_fits_a_390_px_screen(browser: Any, server: LiveServer, view: str) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.goto(f"{server.url}/?token=token-of-visitor-39#{view}")  # the cookie, then "/"
        sync_api.expect(page.locator("#whoami")).to_contain_text("visitor-39")
        for tab in ("Chat", "Memory", "Insights", "Graph"):
            sync_api.expect(page.get_by_role("link", name=tab)).to_be_in_viewport(ratio=1)
        boxes = page.evaluate(HEADER_BOXES)
        assert boxes["scrollWidth"] <= 390, boxes
        for name, left, right in boxes["items"]:
            assert left >= 0, (name, left)
            assert right <= 390, (name, right)
    finally:
        context.close()


def test_a_filter_clears_the_details_of_an_insight_it_no_longer_lists(visit: Visit, runtime: Runtime) -> None:
    page = visit.page
    seeded = seed_insights(runtime.memory, user_id=visit.user_id, concept="Sourdough")
    page.click("#tab-insights")
    page.locator("tr.insight", has_text=seeded.merged.content).click()
    detail = page.locator("#insight-detail")
    sync_api.expect(detail.locator(".insight-text")).to_have_text(seeded.merged.content)

    page.fill("#insight-min", "0.1")  # it is still listed: its details stay
    page.click("#insight-refresh")
    sync_api.expect(page.locator("tr.insight.selected td.content")).to_have_text(seeded.merged.content)
    sync_api.expect(detail.locator(".insight-text")).to_have_text(seeded.merged.content)

    page.select_option("#insight-state", "archived")  # no longer listed: its details go
    sync_api.expect(page.locator("tr.insight", has_text=seeded.first.content)).to_be_visible()
    sync_api.expect(detail).to_be_hidden()
    sync_api.expect(page.locator("tr.insight.selected")).to_have_count(0)
    page.locator("tr.insight", has_text=seeded.first.content).click()
    sync_api.expect(detail.locator(".insight-text")).to_have_text(seeded.first.content)
    assert visit.errors == []


@pytest.fixture
def own_server(runtime: Runtime) -> Iterator[list[LiveServer]]:
    """A server of its own on the module's runtime (same tokens), which a test may stop and
    start again on its port: the last one started is stopped at the end."""
    servers = [LiveServer(service_app(runtime, visitor_settings(runtime))).__enter__()]
    try:
        yield servers
    finally:
        servers[-1].__exit__(None, None, None)


def test_the_page_reconnects_by_itself_after_the_service_restarts(
    browser: Any, runtime: Runtime, own_server: list[LiveServer]
) -> None:
    first = own_server[0]
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        page.goto(f"{first.url}/?token=token-of-visitor-38")  # the cookie, then "/"
        say(page, "Before the restart.")
        first.__exit__(None, None, None)  # the service goes away

        answer = say(page, "While it is away.")
        sync_api.expect(answer).to_have_class("msg error")
        sync_api.expect(answer).to_contain_text("thea cannot be reached")
        bar = page.locator("#offline-bar")
        sync_api.expect(bar).to_be_visible()
        sync_api.expect(bar).to_contain_text("run thea serve in a terminal")
        sync_api.expect(page.locator("#status")).to_have_text("offline")

        page.wait_for_timeout(2_500)  # it keeps trying, waiting longer each time
        sync_api.expect(bar).to_be_visible()
        restarted = LiveServer(service_app(runtime, visitor_settings(runtime)), port=first.port)
        own_server.append(restarted.__enter__())  # the service is back on its port
        sync_api.expect(bar).to_be_hidden(timeout=20_000)  # no click: it came back by itself
        # the conversation is read again: the message it could not send is not in it
        sync_api.expect(page.locator("#messages li.msg.user")).to_have_text(["Before the restart."])
        after = say(page, "Is it back?")
        sync_api.expect(after).to_have_class("msg thea")
        sync_api.expect(after.locator(".text")).to_have_text("Here is my answer.")
    finally:
        context.close()


def test_the_page_says_what_the_slow_loop_still_has_to_do_and_the_graph_opens_on_what_was_told(
    visit: Visit, llm: StreamingFakeChatModel, runtime: Runtime
) -> None:
    """Issue 38, items 5 and 6: while the messages wait to be read the Memory and Insights views
    say so (how many, how long), and say nothing once they are read; the Graph tab opens on the
    user's own graph around what they told last (empty: it says how to fill it), never blank."""
    page = visit.page
    page.click("#tab-graph")
    sync_api.expect(page.locator("#graph-info")).to_have_text(
        "Nothing to show yet: tell me about yourself in the chat."
    )
    llm.answer(PromptId.EXTRACT_CLAIMS, scripted_reader(READ))
    page.click("#tab-chat")
    for text in TOLD:
        say(page, text)
    page.click("#tab-memory")
    waiting = page.locator("#memory-slow")
    sync_api.expect(waiting).to_contain_text(f"{len(TOLD)} of your messages still to be read")
    page.click("#tab-insights")
    sync_api.expect(page.locator("#insight-slow")).to_contain_text("The slow loop is still at work")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(runtime.run_jobs).result()
    page.click("#tab-memory")
    sync_api.expect(page.locator("#memory-count")).to_have_text("4 facts")
    sync_api.expect(waiting).to_be_hidden()
    page.click("#tab-graph")
    page.wait_for_function("() => window.theaGraph && window.theaGraph.nodes().length >= 2")
    sync_api.expect(page.locator("#graph-info")).to_contain_text("around what you told last")
    types = set(page.evaluate("() => window.theaGraph.nodes().map(n => n.data('type'))"))
    assert "Fact" in types
    assert visit.errors == []
