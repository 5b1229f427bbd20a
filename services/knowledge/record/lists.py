"""Items of a list told in a sentence ("on Tuesdays and Thursdays", "chemistry, biology and
maths"): whether a word is one of them, and the sentence without it, so that "I've stopped
doing Thursdays" or "dropped maths" takes one item out instead of ending the whole fact."""

from __future__ import annotations

import re

from services.recall.lexical import stem

_TOKEN = re.compile(r"(?<![\w'-])[\w'-]+(?![\w'-])")
#: what joins two items: ", ", ", and ", " and ", " or ", " & "
_JOIN = r"(?:\s*,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+)"
_JOIN_BEFORE = re.compile(_JOIN + r"$", re.IGNORECASE)
_JOIN_AFTER = re.compile(r"^" + _JOIN + r"(?=\w)", re.IGNORECASE)
#: the item before a comma that is left last in its list ("chemistry, biology"): a word or two,
#: not a phrase with a preposition ("the shop, on Tuesdays")
_SHORT_ITEM = re.compile(
    r",\s*(?!(?:on|in|at|to|for|with|from|by)\b)(?P<item>\w[\w'-]*(?:\s+\w[\w'-]*)?)$", re.IGNORECASE
)


#: items joined by commas up to an "and"/"or": the rest of a list after (or before) an item
_MORE_AFTER = re.compile(r"^(?:\s*,\s*[\w'-]+(?:\s+[\w'-]+)?)*\s*,?\s+(?:and|or|&)\s+\w", re.IGNORECASE)
_MORE_BEFORE = re.compile(
    r"\w\s*,?\s+(?:and|or|&)\s+[\w'-]+(?:\s+[\w'-]+)?(?:\s*,\s*[\w'-]+(?:\s+[\w'-]+)?)*$", re.IGNORECASE
)
_CONJUNCTION = re.compile(r"\b(?:and|or)\b|&", re.IGNORECASE)


def _a_list(before: str, joined_before: str, joined_after: str, after: str) -> bool:
    """The joins around an item make a list: an "and"/"or" beside it, or commas that lead to one
    ("chemistry, biology and maths"); commas alone set off an aside ("a girlfriend, Anke, she ...")."""
    if _CONJUNCTION.search(f"{joined_before} {joined_after}"):
        return True
    return bool(joined_after and _MORE_AFTER.match(after)) or bool(
        joined_before and _MORE_BEFORE.search(before)
    )


def _item_said(text: str, word: str) -> re.Match[str] | None:
    """Where ``text`` says ``word``, in any form of it ("Saturdays" for "Saturday")."""
    wanted = stem(word.lower())
    return next((m for m in _TOKEN.finditer(text) if stem(m.group(0).lower()) == wanted), None)


#: the words of an item before its last one, after the join that starts it ("and an ad agency
#: called " of "a publisher called Firefly and an ad agency called Bold")
_PHRASE_ITEM = re.compile(
    r"(?:,\s*(?:(?:and|or)\s+)?|\s+(?:and|or|&)\s+)(?P<item>(?:[\w'-]+\s+){1,4})$", re.IGNORECASE
)
#: words that go on into the word after them, so that word does not start an item
_INSIDE_AN_ITEM = re.compile(r"\b(?:called|named|a|an|the|my|our|his|her|their)\s+$", re.IGNORECASE)
#: a phrase that ends an item: "on Mondays" of "swimming on Mondays"
_PHRASE_END = re.compile(r"\b(?P<prep>on|in|at|for|with)\s+[\w'-]+$", re.IGNORECASE)


def _own_phrase(head: str, after: str) -> str:
    """What follows the last item once its own phrase is taken too: when the item before it ends
    with a phrase ("swimming on Mondays"), the same phrase after this one ("gymnastics on
    Thursdays") is part of it; otherwise what follows is the whole list's ("at the shop")."""
    ends = _PHRASE_END.search(head)
    if ends is None:
        return after
    own = re.match(rf"\s+{ends.group('prep')}\s+[\w'-]+", after, re.IGNORECASE)
    return after[own.end() :] if own else after


def without_item(text: str, word: str) -> str | None:
    """``text`` with ``word`` taken out of the list it is an item of, or None when ``word`` is in
    no list there ("Tuesdays and Thursdays" -> "Tuesdays"; "chemistry, biology and maths" ->
    "chemistry and biology")."""
    found = _item_said(text, word)
    if found is None:
        return None
    before, after = text[: found.start()], text[found.end() :]
    phrase = _PHRASE_ITEM.search(before)
    if phrase is not None and not _JOIN_BEFORE.search(before) and not _JOIN_AFTER.match(after):
        # the word ends an item of a few words: "... Firefly and an ad agency called Bold"
        before = before[: phrase.start("item")]
    joined_before = _JOIN_BEFORE.search(before) if re.search(r"\w", before) else None
    joined_after = _JOIN_AFTER.match(after)
    if not _a_list(
        before[: joined_before.start()] if joined_before else before,
        joined_before.group(0) if joined_before else "",
        joined_after.group(0) if joined_after else "",
        after,
    ):
        return None
    if joined_before is not None and joined_after is not None:  # in the middle: "A, W and C"
        head, join = before[: joined_before.start()], joined_after.group(0)
        said = _CONJUNCTION.search(join)
        if said is not None and "," in join and not _SHORT_ITEM.search(head):
            join = f" {said.group(0)} "  # two left: "piano, guitar, and drums" -> "piano and drums"
        return head + join + after[joined_after.end() :]
    if joined_before is not None and joined_after is None:  # the last, with its own phrase:
        after = _own_phrase(before[: joined_before.start()], after)  # "... and gymnastics on Thursdays"
    if joined_after is not None and _INSIDE_AN_ITEM.search(before):
        return None  # "a cat called Tom and a dog": Tom ends an item that starts before it
    if joined_after is not None:  # the first: "W and B" -> "B"
        rest = before + after[joined_after.end() :]
        return rest[:1].upper() + rest[1:] if not before else rest
    if joined_before is None:
        return None
    head = before[: joined_before.start()]  # the last: "A, B and W" -> "A and B"
    last = _SHORT_ITEM.search(head)
    if last is not None and re.search(r"\b(?:and|or)\b", joined_before.group(0), re.IGNORECASE):
        head = f"{head[: last.start()]} and {last.group('item')}"
    return head + after
