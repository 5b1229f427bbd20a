"""Questions answered from the facts of record themselves, with no model.

The default model is small: given four facts and "What bike do I commute on now?" it can answer
with the fact about the user's wife, and given one fact it can still wander off. When the facts
of record answer a question plainly, the answer is made of those facts, turned to the user
("you"), their relative dates spelled out, so an answer can only say what the user told:

* the most related fact (recall's order) shares at least half of the question's topic words
  ("What bike do I commute on now?" -> "commute") when the question is about the user's own
  life or a person the user told of, and all of them otherwise ("When is the charity ride?";
  "What is the capital of France?" is never answered with "You lived in France"), or the
  question asks what someone does for a living and a fact says what that someone is ("Where
  do I work?" -> "You're a data engineer at Helix Logistics", though "At work I'm leading..."
  shares the word);
* other facts as related (``JOIN_SHARE`` of its score) and as plainly about the question (half
  its topic words) join it, at most ``MAX_FACTS``.

Anything else (nothing plainly matches, a request for help, a mix) goes to the model with the
facts in its prompt. A question about what was true before is answered from earlier values
with when they changed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.common.dates import resolve_relative, when_text
from services.cycle.not_told import topic_words
from services.cycle.statements import lower_first, turn_round
from services.prompts.quoting import without_any_order
from services.recall.lexical import stem
from thea.models import Fact

#: facts one answer is made of at most
MAX_FACTS = 3
#: share of the best fact's recall score another fact needs to join the answer
JOIN_SHARE = 0.4
#: attributes (stems) saying what someone is or does for a living
ROLE_ATTRIBUTES = frozenset({"be-a", stem("job"), stem("work"), stem("employer"), stem("title")})
#: "Where do I work?", "What does Tomás do?", "What is my job?": who the question is about
_OCCUPATION = re.compile(
    r"\b(?:where|who)\s+(?:do|does|did)\s+(?P<who>[^\W\d_]+)\s+work\b"
    r"|\bwhat\s+(?:do|does)\s+(?P<who2>[^\W\d_]+)\s+do\b(?!\s+(?:on|at|in|with|for|about|to|when|if|after)\b)"
    r"|\b(?P<whose>my|[^\W\d_]+'s)\s+(?:job|occupation|profession)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_DOUBLE_STOP = re.compile(r"(?<!\.)\.\s*\.$")
#: words that make a question about the user's own life (or their household's)
_OWN = frozenset({"i", "me", "my", "mine", "we", "us", "our", "ours"})
_SELF = frozenset({"i", "my", "me"})


@dataclass(frozen=True)
class RankedFact:
    """A fact of record with recall's score for the question."""

    fact: Fact
    score: float


@dataclass(frozen=True)
class FactAnswer:
    text: str
    facts: tuple[Fact, ...]


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _stems(fact: Fact) -> set[str]:
    return {stem(w) for w in _words(f"{fact.content} {fact.subject or ''}")}


def _about(question: str, facts: Sequence[RankedFact]) -> bool:
    """The question is about the user's life or someone (something) the user told of."""
    said = set(_words(question))
    if said & _OWN:
        return True
    names = {w for r in facts if r.fact.subject for w in _words(r.fact.subject)}
    return bool(said & names)


def _occupation_of(question: str) -> str | None:
    """Whose occupation the question asks ("user" for the user), or None."""
    found = _OCCUPATION.search(question)
    if found is None:
        return None
    who = (found.group("who") or found.group("who2") or found.group("whose") or "").lower()
    who = who.removesuffix("'s").removesuffix("\u2019s")
    return "user" if who in _SELF else who


def _role_facts(whose: str, known: Sequence[Fact]) -> list[Fact]:
    return [f for f in known if f.attribute in ROLE_ATTRIBUTES and (f.subject_key or "").lower() == whose][:2]


def _related(question: str, facts: Sequence[RankedFact], *, own: bool) -> list[Fact]:
    """The best fact when it shares half the topic words (all of them when the question does not
    say it is about the user: "When is the charity ride?"), and related facts sharing half."""
    topic = {stem(w) for w in topic_words(question)}
    if not topic or not facts:
        return []
    best = facts[0]
    if not _plain(topic, best.fact, own=own):
        return []
    chosen = [best.fact]
    for other in facts[1:]:
        if len(chosen) >= MAX_FACTS or other.score < best.score * JOIN_SHARE:
            break
        # as plainly about it: "The vet called." is not, for "When is the vet appointment?"
        if len(topic & _stems(other.fact)) * 2 >= len(topic):
            chosen.append(other.fact)
    return chosen


def _plain(topic: set[str], fact: Fact, *, own: bool) -> bool:
    shared = topic & _stems(fact)
    return len(shared) * 2 >= len(topic) and (own or shared == topic) and bool(shared)


def may_answer(question: str, known: Sequence[Fact]) -> bool:
    """Some fact of ``known`` could answer the question plainly (no recall needed: the instinct
    step asks this to spare the model call when the answer will be the facts themselves)."""
    ranked = [RankedFact(f, 0.0) for f in known]
    own = _about(question, ranked)
    whose = _occupation_of(question) if own else None
    if whose and _role_facts(whose, known):
        return True
    topic = {stem(w) for w in topic_words(question)}
    return bool(topic) and any(_plain(topic, f, own=own) for f in known)


def told_sentence(fact: Fact) -> str:
    """A fact as said back to the user: "you", its relative dates spelled out, a full stop,
    nothing invisible."""
    # invisible characters (tag smuggling), chat-template tokens ("[/INST]") and orders a
    # stored text may carry never come back
    content = without_any_order(fact.content)[0].strip()
    text = turn_round(content) if fact.subject_key is not None else content
    text = resolve_relative(text[:1].upper() + text[1:], fact.created_at).strip()
    text = _DOUBLE_STOP.sub(".", text)  # ("red.<hidden>." read as "red..")
    return text if text.endswith((".", "!", "?")) else text + "."


def answer_from_facts(
    question: str, facts: Sequence[RankedFact], known: Sequence[Fact], *, earlier: bool
) -> FactAnswer | None:
    """The answer made of the facts that plainly answer the question, or None (the model answers).
    ``facts`` are the facts recall found, best first, and ``known`` every fact of record of the
    user, newest first: the current ones (the earlier ones when ``earlier``)."""
    own = _about(question, facts)
    whose = _occupation_of(question) if own else None
    chosen = _role_facts(whose, known) if whose else []
    chosen = chosen or _related(question, facts, own=own)
    if not chosen:
        return None
    said = " ".join(told_sentence(f) for f in chosen)
    if not earlier:
        return FactAnswer(text=said, facts=tuple(chosen))
    ended = [f.valid_until for f in chosen if f.valid_until is not None]
    changed = f" That changed on {when_text(max(ended))}." if ended else ""
    return FactAnswer(text=f"Earlier you told me: {lower_first(said)}{changed}", facts=tuple(chosen))
