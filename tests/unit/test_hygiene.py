"""Answers that loop are stopped; answers cut by the length limit say they were cut."""

from __future__ import annotations

import json

import pytest

from services.cycle.hygiene import (
    LENGTH_NOTE,
    LOOP_NOTE,
    loop_cut,
    points_cut,
    tidy,
    too_many_points,
    without_points,
)
from services.cycle.steps import CycleState
from services.cycle.synthesis import SynthesisService
from thea.llm.fake import StreamingFakeChatModel
from thea.models import UserImpulse


def test_a_repeated_unit_at_the_end_is_a_loop() -> None:
    text = "Corgis are small dogs. A corgi, a corgi, a corgi, a corgi,"
    cut = loop_cut(text)
    assert cut is not None
    assert text[:cut] == "Corgis are small dogs. A corgi,"
    assert loop_cut("The tideurchin corgi corgi otter corgi corgi otter corgi corgi otter") is not None


def test_ordinary_text_is_no_loop() -> None:
    for text in ("She said no no no.", "I like tea. I like coffee.", "one two three", ""):
        assert loop_cut(text) is None


def test_an_answer_that_used_its_whole_allowance_mid_sentence_says_it_was_cut() -> None:
    assert tidy("The bay is home to a", 384, 384) == ("The bay is home to a" + LENGTH_NOTE, LENGTH_NOTE)
    assert tidy("The bay is home to otters.", 384, 384) == ("The bay is home to otters.", "")
    assert tidy("Short and unfinished", 12, 384) == ("Short and unfinished", "")  # not at the limit


def state_for(text: str, sink: list[str]) -> CycleState:
    impulse = UserImpulse(content=text, user_id="ana", session_id="s")
    return CycleState(
        impulse=impulse, correlation_id=impulse.id, user_id="ana", session_id="s", on_token=sink.append
    )


async def test_a_looping_answer_stops_streaming_and_says_so() -> None:
    loop = "Otters live in kelp. " + "A corgi, " * 200

    model = StreamingFakeChatModel(reply=loop)
    streamed: list[str] = []
    state = state_for("Which animals live in the bay?", streamed)
    outcome = await SynthesisService(model, timeout_s=10, budget_tokens=100, max_tokens=384).handle(state)
    assert state.answer == "Otters live in kelp. A corgi," + LOOP_NOTE
    assert len("".join(streamed)) < 100  # stopped early, not after 200 corgis
    assert "".join(streamed).endswith(LOOP_NOTE)
    assert outcome.output is not None
    assert "repeating" in json.dumps(outcome.output.wire())


#: the offline model's answer to "can you give me a packing list for a weekend in Porto?" (terminal
#: trial): a list that started over and over until the length limit
PACKING_LOOP = "Here is a packing list:\n" + "".join(
    f"- 1 box of fresh {thing} seeds\n"
    for thing in ["eggs", "bread", "apples", "bananas", "oranges", "grapes", "pineapple", "mangoes"] * 6
)


def test_a_list_that_starts_over_is_a_loop_cut_after_its_first_pass() -> None:
    cut = loop_cut(PACKING_LOOP)
    assert cut is not None
    kept = PACKING_LOOP[:cut]
    assert kept.count("eggs") == 1
    assert kept.rstrip().endswith("- 1 box of fresh mangoes seeds")
    # numbered the second time round, or still arriving mid-line: the same loop
    numbered = "1. Pack socks and a warm jumper\n2. Pack a rain jacket\n3. Pack socks and a warm jumper\n"
    assert loop_cut(numbered + "4. Pack a rain jacket\n5. Pack so") is not None
    assert loop_cut("Take an umbrella with you today.\n" * 3) is not None


def test_lists_and_steps_that_repeat_a_line_now_and_then_are_no_loop() -> None:
    recipe = (
        "1. Heat the oil in a pan.\n2. Add the onion and stir well.\n3. Add the rice.\n"
        "4. Add the stock and stir well.\n5. Simmer for 20 minutes.\n"
    )
    packing = "- passport\n- charger\n- sun cream\n- a light jacket\n- comfortable shoes\n"
    for text in (recipe, packing, "Yes.\nNo.\nYes.\nNo.\n", "Stir well.\nStir well.\nServe.\n"):
        assert loop_cut(text) is None, text


async def test_a_list_that_starts_over_stops_streaming_after_its_first_pass() -> None:
    model = StreamingFakeChatModel(reply=PACKING_LOOP)
    streamed: list[str] = []
    state = state_for("can you give me a packing list for a weekend in Porto?", streamed)
    await SynthesisService(model, timeout_s=10, budget_tokens=100, max_tokens=2000).handle(state)
    assert state.answer is not None
    # a request: its list ends at five points, before the loop shows
    assert state.answer.count("\n- ") == 5, state.answer
    assert state.answer.count("eggs") == 1
    assert "".join(streamed).count("eggs") == 1


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        # numbered, past five points
        (
            "Some ideas:\n\n1. Soup\n2. Salad\n3. Risotto\n4. Tacos\n5. Curry\n6. Stew\n7. Pie",
            "Some ideas:\n\n1. Soup\n2. Salad\n3. Risotto\n4. Tacos\n5. Curry",
        ),
        # bullets, a point given twice (in other case and spacing)
        (
            "Ideas:\n- Lentil soup\n- Rice bowl\n-  lentil Soup\n- Omelette",
            "Ideas:\n- Lentil soup\n- Rice bowl",
        ),
        # bold headings, numbered with ")"
        (
            "1) **Soup**: leek\n2) **Salad**: tomato\n3) **Soup**: leek\n4) **Fish**",
            "1) **Soup**: leek\n2) **Salad**: tomato",
        ),
        # a point's bold name given again, its description worded otherwise (live)
        (
            "- **Eggplant Stir-Fry**: quick\n- **Broccoli and Spinach Salad**: spinach, broccoli and "
            "cherry tomatoes. It's easy.\n- **Broccoli and Spinach  salad**: spinach, broccoli, cherry "
            "tomatoes. Easy too.\n- **Pie**",
            "- **Eggplant Stir-Fry**: quick\n- **Broccoli and Spinach Salad**: spinach, broccoli and "
            "cherry tomatoes. It's easy.",
        ),
        (
            "1. **Tacos** with beans\n2. **Curry** with chickpeas\n3. **Tacos** with halloumi\n4. **Soup**",
            "1. **Tacos** with beans\n2. **Curry** with chickpeas",
        ),
    ],
)
def test_a_request_s_list_ends_at_five_points_or_before_one_given_again(answer: str, kept: str) -> None:
    """The synthesis prompt asks for at most five points; the 0.5B wrote ten dinner ideas for a
    coeliac, two of them twice (live trial)."""
    cut = points_cut(answer)
    assert cut is not None
    assert answer[:cut] == kept
    assert too_many_points(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "1. Soup\n2. Salad\n3. Risotto\n4. Tacos\n5. Curry",
        "Breakfast:\n- oats\n- eggs\n- toast\nLunch:\n- soup\n- salad\n- wrap",  # two lists of three
        "1. Soup\n   - leek\n   - potato\n2. Salad\n   - leek\n3. Pie",  # sub-points repeat, points don't
        "Plain text without a list. Another sentence.",
        "1. Soup\n2. Salad\n3. Soup",  # the last point may still be arriving
    ],
)
def test_five_points_sub_points_and_separate_lists_are_kept(answer: str) -> None:
    assert points_cut(answer) is None


def test_the_last_point_of_a_whole_answer_given_twice_is_cut() -> None:
    """Live: "5. **Carrot and Kale Salad**: …" repeated point 2 word for word as the answer's last
    line, which a stream may still be writing but a finished answer has written."""
    answer = "Ideas:\n1. Kale salad: carrots and kale\n2. Soup\n3. Kale salad: carrots and kale"
    assert points_cut(answer) is None  # still arriving
    cut = points_cut(answer, whole=True)
    assert cut is not None
    assert answer[:cut] == "Ideas:\n1. Kale salad: carrots and kale\n2. Soup"


@pytest.mark.parametrize(
    ("answer", "kept"),
    [
        (
            "Ideas:\n1. **Baked Salmon**: fish\n2. **Grilled Chicken**: quick\n   - with rice\n"
            "3. Veg curry\n4. Dal\nEnjoy!",
            "Ideas:\n1. Veg curry\n2. Dal\nEnjoy!",
        ),
        ("- salmon bowl\n- tofu bowl", "- tofu bowl"),
        ("1) chicken wrap\n2) bean wrap\n3) egg wrap", "1) bean wrap\n2) egg wrap"),
    ],
)
def test_points_left_out_take_their_sub_points_and_the_rest_is_numbered_again(answer: str, kept: str) -> None:
    assert (
        without_points(answer, lambda point: "salmon" in point.lower() or "chicken" in point.lower()) == kept
    )


def test_no_list_or_every_point_going_leaves_nothing_to_show() -> None:
    assert without_points("Try a chicken curry.", lambda point: True) is None
    assert without_points("- chicken\n- salmon", lambda point: True) is None


@pytest.mark.parametrize(
    "answer",
    [
        "Here are some ideas:\n\n1. Cheese sandwich\n\n2. Pasta salad\n\n3. Rice bowl with egg\n\nEnjoy!",
        "Ideas:\n\n- Toast with jam\n\n- Bagel\n\n- Fruit salad\n\n\n- Wrap\n",
        "Lunch:\n\n1. **Sandwich**: ham on rye\n\n2. **Bowl**: rice and beans\n\n\n3. **Soup**: with bread",
    ],
)
def test_points_left_out_leave_no_run_of_blank_lines(answer: str) -> None:
    kept = without_points(
        answer,
        lambda point: any(
            w in point.lower() for w in ("sandwich", "toast", "bagel", "wrap", "pasta", "bread")
        ),
    )
    assert kept is not None
    assert "\n\n\n" not in kept
    assert not kept.startswith("\n")
    assert not kept.endswith("\n")
