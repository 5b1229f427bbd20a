"""Regenerate the pictures of docs/user-guide.md from the real UI.

Runs a short scripted conversation on a throw-away embedded data dir (scripted model,
no real LLM), serves the web app with uvicorn, drives headless Chromium through it and
saves:

  web-chat.png   the chat with a streamed answer
  web-trace.png  the same chat with its "How I got this" panel open
  web-insights.png  the insights inspector with an insight's lineage
  web-graph.png  the graph view of the concept "Redis"
  web-memory.png / web-memory-phone.png  the Memory page ("What I know about you") after a
                 correction, on a desktop and on a 390 px phone screen
  trace-tree.txt / trace-tree.svg  ``thea trace`` tree output of the same answer

Usage (from the repository root):  python scripts/screenshots.py [--out docs/img]
Needs playwright and the Debian chromium package (/usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402

from services.views.trace import load_trace, trace_json  # noqa: E402
from thea.api.models import TraceView  # noqa: E402
from thea.cli.render import trace_tree  # noqa: E402
from thea.config import load_settings  # noqa: E402
from thea.llm.fake import FakeCall, StreamingFakeChatModel  # noqa: E402
from thea.llm.prompt_ids import PromptId  # noqa: E402
from thea.runtime import Runtime, build_runtime  # noqa: E402
from thea.testing.seed import seed_insights  # noqa: E402
from thea.testing.service import LiveServer, local_token, service_app  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
USER = "ana"


def demo_model() -> StreamingFakeChatModel:
    """Plausible answers per prompt, so the pictures show something meaningful."""

    def answer(call: FakeCall) -> str:
        if "What do I work on" in str(call.messages[-1].content):
            return (
                "You work on Redis queues: you run job queues on Redis streams with consumer "
                "groups, as you told me earlier."
            )
        return "Nice to meet you, Ana! I will remember that you work on Redis queues."

    model = StreamingFakeChatModel(reply="The user runs job queues on Redis streams.", token_delay_s=0.02)
    model.answer(
        PromptId.PLANNER,
        json.dumps({"queries": ["Redis queues", "work"], "concepts": ["Redis"], "time_window": "none"}),
    )
    model.answer(PromptId.SYNTHESIS, answer)
    model.answer(PromptId.EXTRACT_CLAIMS, read_claims)
    for prompt in (PromptId.DISTILL, PromptId.REFLECT):
        model.answer(prompt, "The user runs job queues on Redis streams.")
    return model


#: what the (scripted) model reads in the messages told for the Memory page
CLAIMS: dict[str, list[tuple[str, ...]]] = {
    "Leeds": [("I live in Leeds", "user", "self", "home", "Leeds")],
    "Sam": [
        ("My partner Sam", "Sam", "partner", "name", "Sam"),
        ("Sam is a carpenter", "Sam", "partner", "job", "carpenter"),
    ],
    "Pixel": [("My cat Pixel is four years old", "Pixel", "cat", "age", "four years old")],
    "peanuts": [("I'm allergic to peanuts", "user", "self", "allergy", "peanuts")],
    # a change told ahead: listed as planned until its day
    "boatyard": [
        (
            "Sam starts at the boatyard next month",
            "Sam",
            "partner",
            "workplace",
            "the boatyard",
            "next month",
            "replaces",
        )
    ],
}


FIELDS = ("quote", "subject", "relation", "attribute", "value", "when", "kind")


def read_claims(call: FakeCall) -> str:
    """The claims of the message being read (none for any other)."""
    said = str(call.messages[-1].content)
    claims = [
        dict(zip(FIELDS, (*c, "", "new")[: len(FIELDS)], strict=True))
        for key, found in CLAIMS.items()
        if key in said
        for c in found
    ]
    return json.dumps({"claims": claims})


def capture_trace_tree(runtime: Runtime, impulse_id: str, out: Path) -> None:
    console = Console(
        record=True, width=110, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    console.print(trace_tree(TraceView.model_validate(trace_json(load_trace(runtime.memory, impulse_id)))))
    (out / "trace-tree.txt").write_text(console.export_text(clear=False, styles=False), encoding="utf-8")
    (out / "trace-tree.svg").write_text(console.export_svg(title="thea trace last"), encoding="utf-8")


QUESTIONS = ["My name is Ana and I work on Redis queues.", "What do I work on?"]
#: told in a second conversation, for the Memory page (the first one is then corrected)
MORE_FACTS = [
    "I live in Leeds.",
    "My partner Sam is a carpenter.",
    "My cat Pixel is four years old.",
    "I'm allergic to peanuts.",
    "Sam starts at the boatyard next month.",
]


def drive_browser(url: str, token: str, out: Path, settle: Callable[[], object]) -> str:
    """Chat, open the trace, the insights and the graph; save a picture of each. Returns the
    impulse id of the last answer. The page is opened on its token address, as `thea serve`
    prints it (the cookie carries the token from then on)."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 720})
            page = context.new_page()
            page.set_default_timeout(15_000)
            page.goto(f"{url}/?token={token}")
            for i, text in enumerate(QUESTIONS):
                page.fill("#input", text)
                page.press("#input", "Enter")
                expect(page.locator("#messages li.msg.thea .trace-link")).to_have_count(i + 1)
            page.screenshot(path=str(out / "web-chat.png"))

            last = page.locator("#messages li.msg.thea").last
            last.get_by_role("button", name="How I got this").click()
            expect(page.locator("#trace-panel li.step")).to_have_count(4)
            page.screenshot(path=str(out / "web-trace.png"))
            impulse_id = str(last.get_attribute("data-impulse"))

            page.click("#tab-insights")
            page.select_option("#insight-state", "all")
            page.locator("tr.insight").first.click()
            expect(page.locator("#insight-detail .lineage").first).to_be_visible()
            page.screenshot(path=str(out / "web-insights.png"))

            page.goto(url + "/#graph?concept=Redis")
            page.wait_for_function("() => window.theaGraph && window.theaGraph.nodes().length > 3")
            page.wait_for_timeout(300)
            page.screenshot(path=str(out / "web-graph.png"))

            page.goto(url + "/#chat")
            page.click("#new-chat")
            for i, text in enumerate(MORE_FACTS):
                page.fill("#input", text)
                page.press("#input", "Enter")
                expect(page.locator("#messages li.msg.thea .trace-link")).to_have_count(i + 1)
            with concurrent.futures.ThreadPoolExecutor(1) as pool:  # the slow loop reads the claims
                pool.submit(settle).result()
            page.click("#tab-memory")
            leeds = page.locator(".fact-card", has_text="Leeds")
            leeds.get_by_role("button", name="Correct").click()
            leeds.locator("input").fill("York")
            leeds.get_by_role("button", name="Save").click()
            expect(page.locator(".fact-card", has_text="York").locator(".fact-history")).to_be_visible()
            page.screenshot(path=str(out / "web-memory.png"))
            page.set_viewport_size({"width": 390, "height": 844})
            page.locator("#memory-refresh").click()
            expect(page.locator("#memory-notice")).to_be_hidden()
            page.wait_for_timeout(300)
            page.screenshot(path=str(out / "web-memory-phone.png"))
        finally:
            browser.close()
    return impulse_id


def shoot(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="thea-shots-"))
    settings = load_settings("embedded", data_dir=tmp / "data", llm={"provider": "fake"}, user_id=USER)
    llm = demo_model()
    runtime = build_runtime(settings, llm=llm)
    try:
        seed_insights(runtime.memory, user_id=USER, concept="Redis")
        with LiveServer(service_app(runtime)) as server:
            impulse_id = drive_browser(server.url, local_token(settings), out, runtime.run_jobs)
        capture_trace_tree(runtime, impulse_id, out)
    finally:
        runtime.close()
        shutil.rmtree(tmp, ignore_errors=True)
    names = ["web-chat.png", "web-trace.png", "web-insights.png", "web-graph.png", "web-memory.png"]
    names.append("web-memory-phone.png")
    return [out / n for n in [*names, "trace-tree.txt", "trace-tree.svg"]]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"needs {CHROMIUM} (apt-get install chromium)")
    for path in shoot(args.out):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
