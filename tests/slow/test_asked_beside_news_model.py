"""The real claims model reads news for what it asks of thea (services/prompts/asked_beside_news.py):
bad news with what comes next is only news, news with help asked inside it asks for help. Live,
"ugh, Pepper ate a sock again, vet tomorrow at 9" was read as asking for help (prompt v1 read 1 of
6 such messages as news) and got an answer that said the message back. Slow: the 1.5B reads
each message."""

from __future__ import annotations

import pytest

from services.common.llm_calls import ask_structured
from services.prompts import asked_beside_news as asked_prompt
from thea.runtime import Runtime

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]

ONLY_NEWS = (
    "the cat was sick all night, vet at 10 tomorrow",
    "ugh the car failed its MOT, garage on thursday morning",
    "my back is killing me again, physio booked for monday 2pm",
    "Leo fell off his bike and broke his arm, fracture clinic tomorrow at 11",
    "boiler's packed in again, engineer coming friday between 8 and 12",
    "mum's in hospital with a chest infection, visiting her tonight at 7",
    # a told constraint is not asked (prompt v3, since dropped, read these two as asking)
    "hi, I'm Lina, I teach year 3 in Leeds. my two kids are Sam (7) and Ada (5). Sam is allergic to nuts",
    "moved to Porto last month with my partner Joana, she works at a bakery. I can't eat dairy",
)

ASKING = (
    ("PASSED MY DRIVING TEST 🎉 which insurance is cheapest for new drivers, no too cost", "help"),
    ("Our Leo turns six on Sunday. I would like to bake him a cake. Have you a good recipe?", "help"),
    ("new flat finally!! need ideas for cheap furniture", "help"),
    ("got a puppy! best way to crate train him", "help"),
    ("my hip is bad again, GP at 9. what can i do for the pain till then", "help"),
    ("started my new job monday. when did i say the dentist was", "my life"),
    # only the thing wanted, no verb (set 27: "another favor: staff meal ideas …")
    ("another favour pls: packed lunch ideas for the kids this week, nothing with nuts", "help"),
    ("quick one - leaving present suggestions for my boss, around 20 quid", "help"),
    # something to write for them (set 30: "cn u write me a short bio for the station site")
    ("could u write a two line bio for my band's insta", "help"),
    ("pls draft an email to my manager asking for friday off", "help"),
    ("my nan turns 90 sat, write me something nice for her card", "help"),
)


async def _read(runtime: Runtime, message: str) -> asked_prompt.AskedBesideNews:
    model = runtime.claims_model or runtime.llm
    read, _usage = await ask_structured(
        model,
        asked_prompt.AskedBesideNews,
        asked_prompt.build(message),
        asked_prompt.PROMPT,
        timeout_s=120,
        max_tokens=asked_prompt.MAX_TOKENS,
    )
    return read


async def test_bad_news_with_what_comes_next_asks_nothing_and_a_request_inside_news_asks(
    runtime: Runtime,
) -> None:
    wrong = []
    for message in ONLY_NEWS:
        read = await _read(runtime, message)
        if read.asks is not asked_prompt.Asked.NOTHING and read.asked.strip():
            wrong.append((message, read.asks.value, read.asked))
    for message, wanted in ASKING:
        read = await _read(runtime, message)
        if read.asks.value != wanted or not read.asked.strip():
            wrong.append((message, read.asks.value, read.asked))
    assert len(wrong) <= 2, wrong  # most of each group
