"""A background prompt is evaluated in slices, but never what the prompt cache already holds:
slicing the cached start again cut the cached prompt short and evaluated it all over (the claims
reader's fixed 1,300 tokens took 20 s every time)."""

from __future__ import annotations

from thea.llm.local import RecentPrompts, cached_chars, prompt_slices, prompt_text

SYSTEM = {"role": "system", "content": "You read messages. " * 100}  # 1,900 characters


def _prompt(message: str) -> list[dict[str, str]]:
    return [SYSTEM, {"role": "user", "content": message}]


def test_what_an_earlier_prompt_evaluated_is_not_sliced_again() -> None:
    earlier = prompt_text(_prompt("I live in Leeds."))
    now = _prompt("We moved to York last month, the flat is lovely. " * 30)
    skip = cached_chars(now, [earlier])
    assert skip == len(SYSTEM["content"])  # the system text is cached, the message is new
    slices = prompt_slices(now, skip=skip)
    assert slices  # the new part is still sliced
    assert all(sum(len(m["content"]) for m in s) > skip for s in slices)
    assert len(slices) < len(prompt_slices(now))


def test_nothing_is_cached_for_a_prompt_never_seen_and_a_short_new_part_needs_no_slice() -> None:
    assert cached_chars(_prompt("hello"), []) == 0
    assert cached_chars(_prompt("hello"), [prompt_text([{"role": "system", "content": "Other."}])]) == 0
    earlier = prompt_text(_prompt("I live in Leeds."))
    now = _prompt("I live in York.")
    assert prompt_slices(now, skip=cached_chars(now, [earlier])) == []


def test_a_prompt_stays_known_as_cached_however_many_calls_of_another_prompt_came_between() -> None:
    """Eight sort calls after a claims reading (another system prompt) had pushed the reading's
    prompt out of the last three remembered, and the next reading was sliced from its start."""
    recent = RecentPrompts(keep=3)
    recent.add(_prompt("I live in Leeds."))
    sort = {"role": "system", "content": "You sort one note. " * 20}
    for n in range(8):
        recent.add([sort, {"role": "user", "content": f"note {n}"}])
    assert recent.cached(_prompt("We moved to York.")) == len(SYSTEM["content"])
    assert recent.cached([sort, {"role": "user", "content": "note 9"}]) > len(sort["content"])


def test_the_prompt_family_used_least_recently_is_forgotten_beyond_what_is_kept() -> None:
    recent = RecentPrompts(keep=2)
    families = [{"role": "system", "content": f"{n} is a prompt. " * 50} for n in range(3)]
    for family in families:
        recent.add([family, {"role": "user", "content": "hi"}])
    assert recent.cached([families[0], {"role": "user", "content": "x"}]) == 0
    assert recent.cached([families[2], {"role": "user", "content": "x"}]) == len(families[2]["content"])
