"""The right voice: answers speak to the user as "you", and say only the dates they were told.

The offline 0.5B model often copies a memory in the user's own words ("I am allergic to
peanuts.") or in the insight's third person ("The user's name is Ana."), and adds years nobody
said ("May 8, 2026"). The prompt asks for the right voice; these checks make it so:

* :func:`to_second_person`: a sentence of the answer that states something about the user in
  the first person ("I live in Munich.", "My name is Marta.", "We have a cat.") is turned round
  ("You live in Munich."); thea speaking of itself ("I don't know", "I remember", "I'd suggest")
  is left alone. "The user" becomes "you".
* :func:`without_invented_years`: a year written after a day and month that neither the
  message nor any memory the answer was given contains is dropped ("May 8, 2026" -> "May 8").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from services.common.statements import (
    may_become_acknowledgement,
    turn_round,
    upper_first,
    without_acknowledgement,
)
from services.cycle.refusal import may_refuse
from services.cycle.said_back import may_say_back
from services.prompts import QUOTED_REMINDER, QUOTED_RULE, REFERENCE_RULE
from services.prompts import synthesis as synthesis_prompt
from thea.words import WORD, lower_words

#: what thea says of itself after "I" / "I'm" / "I've" ...: its own speech acts, never user facts
_THEA_SPEAKS = re.compile(
    r"^\W*(?:I|I'm|I've|I'd|I'll|I\s+am|I\s+have|I\s+would|I\s+will)\s+(?:not\b|don't|do\s+not|didn't"
    r"|can't|cannot|can\b|could\b|would\b|will\b|shall\b|should\b|might\b|may\b|must\b|know|knew|remember"
    r"|recall|think|thought|believe|see|understand|suggest|recommend|hope|guess|noted|note|found|find"
    r"|have\s+no|haven't|had\s+no|(?:be\s+)?(?:sorry|happy|glad|delighted|pleased|afraid|here|able|unable)"
    r"|unsure|not\s+sure|sure|just"
    r"|also|only|apologi[sz]e|love\s+to|like\s+to|want\s+to|need\s+more|searched|looked|checked|got\s+it"
    r"|updated|stored|saved|kept|made\s+a\s+note|assume|mean|meant|am\s+thea|thea\b|an?\s+(?:ai|assistant))",
    re.IGNORECASE,
)
_FIRST_PERSON_START = re.compile(r"^\W*(?:I|I'm|I've|I'd|I'll|My|We|We're|We've|Our|Me)\b")
_SENTENCE_KEEPING_BREAKS = re.compile(r"(?<=[.!?])(\s+)")
_USER_FORMS = [
    (re.compile(r"\bthe user's\b", re.IGNORECASE), "your"),
    (re.compile(r"\bthe user is\b", re.IGNORECASE), "you are"),
    (re.compile(r"\bthe user was\b", re.IGNORECASE), "you were"),
    (re.compile(r"\bthe user has\b", re.IGNORECASE), "you have"),
    (re.compile(r"\bthe user does\b", re.IGNORECASE), "you do"),
    (re.compile(r"\bthe user\b", re.IGNORECASE), "you"),
]
_YEAR_AFTER_DATE = re.compile(
    r"(?P<date>\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?\s+\d{1,2}(?:st|nd|rd|th)?"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?"
    r"|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?))"
    r"(?P<year>,?\s+(?:19|20)\d{2})\b",
    re.IGNORECASE,
)


_USER_VERB = re.compile(r"\bthe user (\w+s)\b", re.IGNORECASE)


def base_form(verb: str) -> str:
    """ "lives" -> "live", "watches" -> "watch", "studies" -> "study", "goes" -> "go"."""
    low = verb.lower()
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + "y"
    if re.search(r"(?:sh|ch|x|ss|o|z)es$", low):
        return verb[:-2]
    return verb[:-1] if low.endswith("s") and not low.endswith("ss") else verb


def speaks_as_user(sentence: str) -> bool:
    """The sentence states something about the user in the first person."""
    return bool(_FIRST_PERSON_START.match(sentence)) and not _THEA_SPEAKS.match(sentence)


#: talk about the prompt itself ("Based on the information provided in the reference memory, ...")
_PREAMBLE = re.compile(
    r"^\W*(?:based\s+on|according\s+to|from)\s+(?:the|your|my)\s+(?:information|memories|memory|facts|reference"
    r"|data|records?)(?:\s+(?:provided|given|above|you\s+(?:gave|shared)))?(?:\s+in\s+the\s+reference\s+memory)?,\s*",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"(?<=,)\s+")


def _clause_voice(sentence: str) -> str:
    """A first-person clause after a comma ("..., I played for Redland Rovers") turned too."""
    parts = _CLAUSE.split(sentence)
    return " ".join(turn_round(p) if i and speaks_as_user(p) else p for i, p in enumerate(parts))


def to_second_person(answer: str) -> str:
    """The answer with first-person statements about the user turned to "you" (the space or
    line break between its sentences kept: a list stays a list)."""
    pieces = _SENTENCE_KEEPING_BREAKS.split(answer)
    out: list[str] = []
    for index, sentence in enumerate(pieces):
        if index % 2:  # what lies between two sentences
            out.append(sentence)
            continue
        fixed = _PREAMBLE.sub("", sentence)
        fixed = upper_first(turn_round(fixed)) if speaks_as_user(fixed) else _clause_voice(fixed)
        for pattern, replacement in _USER_FORMS[:5]:
            fixed = pattern.sub(replacement, fixed)
        fixed = _USER_VERB.sub(lambda m: "you " + base_form(m.group(1)), fixed)
        fixed = _USER_FORMS[-1][0].sub("you", fixed)
        if fixed != sentence:
            fixed = upper_first(fixed)
        out.append(fixed)
    return "".join(out)


def without_invented_years(answer: str, sources: Iterable[str]) -> str:
    """The answer without years after a date that none of ``sources`` (the message, the memories
    it was given) contains."""
    said = " ".join(sources)
    known = set(re.findall(r"\b(?:19|20)\d{2}\b", said))

    def keep(match: re.Match[str]) -> str:
        year = match.group("year").strip(" ,")
        return match.group(0) if year in known else match.group("date")

    return _YEAR_AFTER_DATE.sub(keep, answer)


#: the longest annotation removed, in characters between its parentheses: the prompt's are a date
#: or two ("true until 3 May 2026"); an open "(told" no longer scans to the end of the answer
ANNOTATION_CHARS = 200
#: the prompt's own annotations, copied by a small model ("(told Wednesday 25 November)"); the
#: blanks before one are matched from where they start, possessively (a match tried from every
#: blank of a long run was quadratic: 0.5 s for 20,000 spaces)
_ANNOTATION = re.compile(
    rf"(?!(?<=\s)\s)\s*+\((?:told|true until|until|earlier)\b[^)]{{0,{ANNOTATION_CHARS}}}\)", re.IGNORECASE
)


#: "Can I have a croissant?": the modal and the verb a user asks about themselves
_ASKS_MAY_I = re.compile(r"^\W*(can|could|may|should|shall)\s+i\s+(\w+)\b", re.IGNORECASE)


#: thea's own "I know", "I think" after a question that holds the same words
_THEA_VERBS = frozenset({"think", "know"})

#: "What do I want to study?", "Where did I work?": the verb a user asks about themselves
_ASKS_DO_I = re.compile(r"\b(?:do|did|does)\s+i\s+(?P<verb>[a-z]+)\b", re.IGNORECASE)


def _echoing_what_i_do(answer: str, asked: str) -> str:
    """ "I want to study pharmacy at Uni." for "What do I want to study?": the user's own verb
    said back in their first person is theirs ("You want to study ..."); "I want to help" said to
    another question is thea's."""
    found = _ASKS_DO_I.search(asked)
    if found is None or found.group("verb").lower() in _THEA_VERBS | {"you"}:
        return answer
    stem_ = re.escape(found.group("verb").lower().rstrip("ey")) or re.escape(found.group("verb").lower())
    echo = re.compile(rf"(^|(?<=[.!?]\s))I(\s+{stem_}\w*)\b", re.IGNORECASE)
    return echo.sub(lambda m: m.group(1) + "You" + m.group(2), answer)


def _echoing_the_question(answer: str, asked: str) -> str:
    """ "I will be working at Southmead from May." for "where will I be working from May?": a
    sentence opening on "I" whose next three words the user's own first-person question holds is
    the question said back, and is turned round ("You will be working ..."). No verb list: the
    question's words decide."""
    asked_words = set(lower_words(asked))
    if "i" not in asked_words:
        return answer
    pieces = _SENTENCE_KEEPING_BREAKS.split(answer)
    for index in range(0, len(pieces), 2):
        words = lower_words(pieces[index])
        if len(words) >= 4 and words[0] == "i" and set(words[1:4]) <= asked_words - _THEA_VERBS:
            pieces[index] = upper_first(turn_round(pieces[index]))
    return "".join(pieces)


#: the user's object and possessive first person, said back as "you" / "your" (closed class)
_MY_FORMS = {"me": "you", "my": "your", "mine": "yours", "myself": "yourself"}
#: a run this long copied from the question is the question said back
ECHO_RUN = 3


def _echoing_my_words(answer: str, asked: str) -> str:
    """ "The company that employs me is Boateng Motors." for "What's the name of the company that
    employs me?": in a run of :data:`ECHO_RUN` or more words the answer copies from the user's
    question, the user's "me", "my", "mine", "myself" are theirs ("employs you"); thea's own
    "me" outside such a run stays ("let me know")."""
    told = lower_words(asked)
    if not set(told) & set(_MY_FORMS):
        return answer
    found = list(WORD.finditer(answer))
    said = [m.group(0).lower().replace("\u2019", "'") for m in found]
    swap: set[int] = set()
    for start in range(len(said)):
        for begin in (j for j, w in enumerate(told) if w == said[start]):
            length = 0
            while (
                start + length < len(said)
                and begin + length < len(told)
                and said[start + length] == told[begin + length]
            ):
                length += 1
            if length >= ECHO_RUN:
                swap |= {i for i in range(start, start + length) if said[i] in _MY_FORMS}
    out, last = [], 0
    for index in sorted(swap):
        match = found[index]
        word = _MY_FORMS[said[index]]
        out += [answer[last : match.start()], upper_first(word) if match.group(0)[0].isupper() else word]
        last = match.end()
    return "".join(out) + answer[last:]


def echoing_the_user(answer: str, asked: str) -> str:
    """ "Yes, I can have a croissant!" for "Can I have a croissant?": the model echoing the user's
    question in their first person is turned round ("Yes, you can have ..."), which "I can" of
    thea's own speech ("I can help") is not."""
    answer = _echoing_my_words(answer, asked)
    found = _ASKS_MAY_I.match(asked)
    if found is None:
        return _echoing_the_question(_echoing_what_i_do(answer, asked), asked)
    modal, verb = (re.escape(g.lower()) for g in found.groups())
    echo = re.compile(rf"\bI(\s+{modal}(?:n['\u2019]t|not|\s+not)?(?:\s+\w+ly)?\s+{verb})\b", re.IGNORECASE)
    return echo.sub(lambda m: "you" + m.group(1), answer)


#: words in a row an answer shares with the prompt's own fixed text that show it is saying the
#: prompt back (seen live: the 0.5B answered "no halloumi after all, add veggie skewers" with
#: the quoting rule, the reference block and the reminder, word for word)
ECHO_WORDS = 5
#: the reference block's marks ("<<<REFERENCE MEMORY", the « » of a quote, words joined by ^)
_PROMPT_MARK = re.compile(r"<<<|>>>|[«»]|\w\^\w")
_SENTENCE_END = re.compile(r"[.!?:](?=\s)|\n")


def _word_spans(text: str) -> list[tuple[int, str]]:
    """Each word of the text, folded, with where it starts."""
    return [(m.start(), m.group().casefold()) for m in re.finditer(WORD, text)]


@lru_cache(maxsize=1)
def _run_starts() -> frozenset[tuple[str, ...]]:
    """The first one to :data:`ECHO_WORDS` - 1 words of every run of :func:`_prompt_runs`."""
    return frozenset(run[:n] for run in _prompt_runs() for n in range(1, ECHO_WORDS))


def echo_hold(text: str) -> int:
    """Where a streamed answer may be starting to say the prompt back: the start of its longest
    last few words that begin a run of the prompt's fixed text (held until the run shows or
    breaks), else its end."""
    whole = text if not text or text[-1].isspace() else text[: max(text.rfind(" "), text.rfind("\n")) + 1]
    # (a last word still arriving is held back anyway: LAG_WORDS)
    spans = _word_spans(whole)[-(ECHO_WORDS - 1) :]
    starts = _run_starts()
    for i in range(len(spans)):
        if tuple(word for _, word in spans[i:]) in starts:
            return spans[i][0]
    return len(text)


@lru_cache(maxsize=1)
def _prompt_runs() -> frozenset[tuple[str, ...]]:
    """Every run of :data:`ECHO_WORDS` words of the prompts' fixed text (rules and reminders)."""
    texts = (
        REFERENCE_RULE,
        QUOTED_RULE,
        QUOTED_REMINDER,
        synthesis_prompt.SYSTEM,
        synthesis_prompt.REMINDER,
        synthesis_prompt.FACTS_HEADING,
        synthesis_prompt.MEMORIES_HEADING,
        synthesis_prompt.EARLIER_HEADING,
        synthesis_prompt.AVOID_HEADING,
    )
    runs: set[tuple[str, ...]] = set()
    for text in texts:
        words = lower_words(text)
        runs.update(tuple(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1))
    return frozenset(runs)


def prompt_echo_cut(answer: str) -> int | None:
    """Where the answer starts saying the prompt back: the start of the sentence holding a mark
    of the reference block or :data:`ECHO_WORDS` words in a row of the prompt's fixed text; None
    when it does not. What the model was told is never shown as its answer."""
    found = [m.start() for m in [_PROMPT_MARK.search(answer)] if m]
    spans = _word_spans(answer)
    runs = _prompt_runs()
    for i in range(len(spans) - ECHO_WORDS + 1):
        if tuple(word for _, word in spans[i : i + ECHO_WORDS]) in runs:
            found.append(spans[i][0])
            break
    if not found:
        return None
    at = min(found)
    ends = [m.end() for m in _SENTENCE_END.finditer(answer, 0, at)]
    return ends[-1] if ends else 0


def in_voice(answer: str, sources: Iterable[str], asked: str = "") -> str:
    """The answer as the user is shown it: "you" for the user, no invented years, none of the
    prompt's annotations (``asked``: the user's question, which the answer may echo), nothing
    from where it starts saying the prompt back."""
    cut = prompt_echo_cut(answer)
    if cut is not None:
        answer = answer[:cut].rstrip()
    said = echoing_the_user(_ANNOTATION.sub("", answer), asked) if asked else _ANNOTATION.sub("", answer)
    return without_invented_years(to_second_person(said), sources)


#: words an answer is held back by while it streams: enough to decide a sentence's voice
#: ("I am allergic" / "I don't know") and to see a year after a date ("May 8, 2026")
LAG_WORDS = 3


class VoiceStream:
    """Streams an answer in the right voice: each piece of the model's output goes in, and what
    is safe to show comes out, a few words behind (:data:`LAG_WORDS`)."""

    def __init__(self, sources: Iterable[str], asked: str = "") -> None:
        self.sources = list(sources)
        self.asked = asked
        self.raw = ""
        self.shown = ""

    def feed(self, piece: str) -> str:
        self.raw += piece
        raw = without_acknowledgement(self.raw)
        if may_become_acknowledgement(raw):
            return ""  # it may be thea's acknowledgement said again: held until it is seen
        if may_refuse(raw):
            return ""  # a refusal is never shown (the answer is asked again or replaced)
        if may_say_back(raw, self.asked):
            return ""  # nor the request said back (services/cycle/said_back.py)
        # the words that may begin the prompt said back are held until it shows or breaks
        echo = prompt_echo_cut(raw)
        if echo is not None:
            raw = raw[:echo]
        fixed = in_voice(raw[: echo_hold(raw)], self.sources, self.asked)
        cut = _before_last_words(fixed, LAG_WORDS)
        return self._advance(fixed[:cut].rstrip())

    def finish(self, final: str | None = None) -> str:
        """The rest of the answer (``final``: the answer as it will be recorded)."""
        said = in_voice(without_acknowledgement(self.raw), self.sources, self.asked)
        return self._advance(final if final is not None else said)

    def _advance(self, text: str) -> str:
        if not text.startswith(self.shown) or len(text) <= len(self.shown):
            return ""
        new = text[len(self.shown) :]
        self.shown = text
        return new


def _before_last_words(text: str, n: int) -> int:
    """Where the last ``n`` words of the text start (0 when it has fewer)."""
    spaces = [m.start() for m in re.finditer(r"\s+", text)]
    return spaces[-n] if len(spaces) >= n else 0
