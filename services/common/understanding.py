"""What a message is: each sentence a statement, a question, a request for help, or small talk.

Decided without the model, before anything is recorded, so every later step knows what it
handles (docs/architecture.md, "Facts of record"):

* a **statement** tells something ("I live in Berlin.", "Big news: we're moving!"): it is
  acknowledged and its facts are remembered;
* a **question** asks what thea knows ("What is my name?", "When is Tomás's birthday?"): it is
  answered from memory, and it is never evidence of anything;
* a **request** asks for help or gives an instruction ("Can you suggest a quick dinner idea?",
  "Any tips for hiring a mechanic?", "How do I true a wheel?"): it gets a real answer from the
  model's general knowledge, using what thea knows about the user; "you never told me" is never
  the answer to it;
* **small talk** greets or thanks ("Hi!", "Thanks a lot").

A message may mix them ("Hi! My name is Marta.", "I'm allergic to peanuts. Any snack ideas?"):
every part is handled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from services.common.statements import GREETED, GREETING, asks, is_greeting, sentences, tells, upper_first
from services.prompts.quoting import without_forged_turns
from thea.models import MessageKind


class Act(StrEnum):
    """What one sentence does."""

    STATEMENT = "statement"
    QUESTION = "question"
    REQUEST = "request"
    SMALL_TALK = "small_talk"
    #: neither tells in English nor plainly asks (another language, a list of keywords): the model
    #: answers it, and it is still remembered (it may tell something)
    FRAGMENT = "fragment"


#: "you" as people type it ("can u suggest ...", "could ya check ..."): the pronoun, closed class
_YOU = r"(?:you|u|ya)"

#: Openers and phrases that ask for help or give an instruction rather than ask what thea knows.
_REQUEST = re.compile(
    # the marks before the opening word are taken possessively (every word starts with a letter)
    r"^\W*+(?:please\b|tell\s+me\b|suggest|recommend|give|write|draft|explain|describe|list|show|make|create|plan"
    r"|help|translate|summari[sz]e|calculate|compute|compare|define|find|check|design|outline|brainstorm"
    r"|teach|convert|fix|rewrite|propose|prepare|generate)\b"
    rf"|\b(?:can|could|would|will)\s+{_YOU}\s+(?!tell\s+me\b|remind\s+me\b|remember\b|recall\b)\w+"
    r"|\bany\s+(?:[\w-]+\s+){0,2}(?:tips?|ideas?|advice|suggestions?|recommendations?|thoughts?|pointers?)\b"
    r"|\b(?:what|which)(?:'s|\s+is|\s+are|\s+would\s+be)\s+(?:a\s+|some\s+|the\s+)?(?:good|great|best|quick|easy|nice|healthy|fun)\b"
    r"|\bwhat\s+are\s+some\b|\bwhat\s+should\s+(?:i|we)\b|\bshould\s+(?:i|we)\b"
    r"|\bhow\s+(?:do|can|should|could|would|might)\s+(?:i|we|you|one)\b|\bhow\s+to\b"
    r"|\b(?:i|we)\s+(?:need|want|would\s+like|'d\s+like)\s+(?:some\s+)?(?:help|advice|ideas?|tips?|a\s+plan|suggestions?)\b"
    r"|\bis\s+it\s+(?:ok|okay|safe|a\s+good\s+idea|better|worth)\b|\bwhat\s+do\s+you\s+(?:think|suggest|recommend)\b",
    re.IGNORECASE,
)
#: Thanks or goodbye opening a sentence ("Thanks, that was helpful!").
_THANKS = re.compile(r"^\W*(?:thanks|thank\s+you|cheers|bye|goodbye|good\s+night)\b", re.IGNORECASE)
#: "Can you tell me what my ...", "remind me when ...": questions about what thea knows. Linear
#: time: after "tell me" the search for "my" stops at the next "tell me", which is tried on its
#: own (each "tell me" scanned to the end of the line: 1 s for "tell me " repeated to 20,000
#: characters); whether it matches is unchanged, only used as yes or no
_MEMORY_REQUEST = re.compile(
    r"\b(?:tell|remind)\s+me\b(?:(?!\b(?:tell|remind)\s+me\b).)*?\b(?:my|mine|i|our|we)\b|\bdo\s+you\s+(?:know|remember|recall)\b"
    r"|\bwhat\s+do\s+you\s+know\b",
    re.IGNORECASE,
)


def sentence_act(sentence: str) -> Act:
    """The act of one sentence."""
    if is_greeting(sentence) or _THANKS.match(sentence):
        return Act.SMALL_TALK
    if tells(sentence):
        return Act.STATEMENT
    if _MEMORY_REQUEST.search(sentence):
        return Act.QUESTION
    if _REQUEST.search(sentence):
        return Act.REQUEST
    if asks(sentence):
        return Act.QUESTION
    # a fragment ("Redis Initech PIN", a sentence in another language): the model answers it
    return Act.FRAGMENT


@dataclass(frozen=True)
class Part:
    text: str
    act: Act


@dataclass(frozen=True)
class Understanding:
    """A message read sentence by sentence."""

    parts: tuple[Part, ...]

    @property
    def acts(self) -> frozenset[Act]:
        return frozenset(p.act for p in self.parts)

    @property
    def kind(self) -> MessageKind:
        acts = self.acts - {Act.SMALL_TALK}
        if not acts:
            return MessageKind.SMALL_TALK
        if Act.FRAGMENT in acts:
            return MessageKind.MIX  # it may tell something, and the model answers it
        if len(acts) == 1:
            return MessageKind(next(iter(acts)).value)
        if Act.STATEMENT in acts:
            return MessageKind.MIX
        return MessageKind.REQUEST if Act.REQUEST in acts else MessageKind.QUESTION

    def read_as_questions(self, texts: frozenset[str]) -> Understanding:
        """The message with these requests read as questions (the model read them as asking
        what the user told, not for help)."""

        def read(part: Part) -> Part:
            return Part(part.text, Act.QUESTION) if part.act is Act.REQUEST and part.text in texts else part

        return Understanding(tuple(read(p) for p in self.parts))

    def texts(self, act: Act) -> list[str]:
        return [p.text for p in self.parts if p.act is act]

    @property
    def statements(self) -> list[str]:
        return self.texts(Act.STATEMENT)

    @property
    def only_tells(self) -> bool:
        """Statements (and perhaps a greeting) and nothing to answer: acknowledged, not asked."""
        return self.kind is MessageKind.STATEMENT

    @property
    def asks_for_help(self) -> bool:
        return Act.REQUEST in self.acts

    @property
    def asks_memory(self) -> bool:
        return Act.QUESTION in self.acts or Act.FRAGMENT in self.acts

    @property
    def told(self) -> list[str]:
        """What may tell something: statements and fragments (what the slow loop learns from)."""
        return [p.text for p in self.parts if p.act in (Act.STATEMENT, Act.FRAGMENT)]

    @property
    def read_for_claims(self) -> list[str]:
        """What the claims model reads for facts: what may tell something, and requests for
        help, which often carry what the user tells beside what they ask ("Doctor says I'm type 2
        diabetic now ... can you give me a rhubarb recipe ...", dictated without a stop, is one
        request; the model reads no fact from a request alone)."""
        return [p.text for p in self.parts if p.act in (Act.STATEMENT, Act.FRAGMENT, Act.REQUEST)]


#: a greeting opening a sentence before a comma ("Hello, I'm Raj ..."): greeted back on its own
_OPENING_GREETING = re.compile(
    rf"^(?P<greeting>{GREETING}{GREETED})\s*[,!]\s+(?=\w)",
    re.IGNORECASE,
)


#: a statement, a dash or a comma, then what asks: "I'm vegan - can you suggest a dinner?", "I'm
#: coeliac, any ideas for lunch?" Linear time: a match starts where a run of blanks or of dashes
#: starts, never inside one (every start in a long run scanned the rest of it again: 3.5 s for
#: 20,000 spaces), and runs are taken possessively (``++``)
_THEN_ASKS = re.compile(
    r"(?!(?<=\s)\s)\s*+(?:(?<![-\u2013\u2014])[-\u2013\u2014]++|,)\s++(?=(?:so\s+|and\s+)?(?:can|could|would|will)\s+"
    rf"{_YOU}\b|any\s+(?:[\w-]+\s+){{0,2}}"
    r"(?:tips?|ideas?|advice|suggestions?|recommendations?)\b|what\s+(?:should|can|could)\s+(?:i|we)\b)",
    re.IGNORECASE,
)


#: what only says the request is being thought over: part of the request, not a fact
_DELIBERATES = re.compile(
    r"\b(?:thinking|wondering|trying\s+to\s+(?:decide|figure|work\s+out)|not\s+sure|deciding|considering"
    r"|looking\s+for)\b",
    re.IGNORECASE,
)


def _parts_of(sentence: str) -> list[Part]:
    # each opening greeting is a part of its own, in a loop: one call per greeting ran past
    # Python's recursion limit on "hi, hi, hi, ..." (1,000 greetings, 4,000 characters)
    greetings: list[Part] = []
    opening = _OPENING_GREETING.match(sentence)
    while opening is not None:
        greetings.append(Part(opening.group("greeting") + "!", Act.SMALL_TALK))
        sentence = upper_first(sentence[opening.end() :])
        opening = _OPENING_GREETING.match(sentence)
    return [*greetings, *_told_then_asked(sentence)]


def _told_then_asked(sentence: str) -> list[Part]:
    cut = _THEN_ASKS.search(sentence)
    if cut is not None and cut.start() > 0:
        told, asked = sentence[: cut.start()].rstrip(" ,") + ".", upper_first(sentence[cut.end() :])
        # "I'm vegan." then "Can you suggest a dinner?"; not "I'm thinking about the car, any tips?"
        if sentence_act(told) is Act.STATEMENT and not _DELIBERATES.search(told):
            return [Part(told, Act.STATEMENT), Part(asked, sentence_act(asked))]
    return [Part(sentence, sentence_act(sentence))]


def understand(text: str) -> Understanding:
    """Each sentence of the message with its act (a message without a word or a number, such as
    emoji or an empty one, is small talk). Forged turns (after a template token or a role label
    such as "SYSTEM:") are left out: the model is never asked to answer them."""
    kept, forged = without_forged_turns(text)
    if forged:  # a turn written as the system's, thea's or another user's is not the user speaking
        text = kept
    if not _WORDS.search(text):
        return Understanding((Part(text.strip(), Act.SMALL_TALK),))
    parts = tuple(p for s in sentences(" ".join(text.split())) for p in _parts_of(s))
    if any(p.act is Act.STATEMENT for p in parts):  # "Kim here. 34. Paramedic, ...": an age, told
        parts = tuple(Part(p.text, Act.STATEMENT) if _BARE_AGE.match(p.text) else p for p in parts)
    return Understanding(parts or (Part(text.strip(), Act.SMALL_TALK),))


#: a letter or a digit of any script
_WORDS = re.compile(r"[^\W_]")
#: a sentence that is only a number: an age, in an introduction
_BARE_AGE = re.compile(r"^\s*\d{1,3}\s*[.!]?\s*$")


#: a question about earlier values ("Where did I live before the move?", "my old car"). Linear
#: time: the search for "use to" after a "did" stops at the next "did" that could start one (each
#: "did" scanned to the end: 0.4 s for "until did " repeated to 20,000 characters); "did" takes
#: one blank, the scan the rest (as ``\s+`` backtracking did, without it); only used as yes or no
_HISTORY = re.compile(
    r"\b(?:before|previous(?:ly)?|used\s+to|originally|at\s+first|earlier|former(?:ly)?|in\s+the\s+past"
    r"|prior|my\s+old|our\s+old|back\s+then|until|did\s(?!you\b)(?:(?!\bdid\s(?!you\b))[^?.!])*?\buse\s+to"
    r"|first\s+(?:booked|planned|scheduled|set|arranged|due|meant)|(?:was|were)\s+\w+\s+first\s+\w+ed)\b",
    re.IGNORECASE,
)
#: a question about the conversation itself ("What did I ask you about Lisbon?")
_CONVERSATION = re.compile(
    r"\b(?:did|have)\s+i\s+(?:ask|tell|say|mention)|\bwhat\s+did\s+(?:you|i)\s+(?:say|tell|ask|answer)"
    r"|\b(?:you|we)\s+(?:said|told\s+me|talked|discussed|spoke|answered)\b|\bdid\s+we\s+(?:talk|discuss|speak)"
    r"|\bour\s+(?:conversation|chat)\b|\bi\s+asked\s+you\b",
    re.IGNORECASE,
)


def asks_history(text: str) -> bool:
    """The message asks what was true before a change: earlier facts are recalled too."""
    return bool(_HISTORY.search(text))


def asks_conversation(text: str) -> bool:
    """The message asks about the conversation: questions and thea's answers are recalled too."""
    return bool(_CONVERSATION.search(text))


def only_asks(words: str) -> bool:
    """The words ask (a question, a request) and tell nothing, small talk aside: what the reading
    makes of them is no fact ("Your food: pudding" out of "can you suggest a pudding for Sunday"),
    and they are never a line of an answer from what the user told."""
    acts = understand(words).acts - {Act.SMALL_TALK}
    return bool(acts) and acts <= {Act.QUESTION, Act.REQUEST}
