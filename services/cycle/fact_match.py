"""Which of the user's claims a question is about: by the claims' own words, not by English rules.

A question is compared with each claim's fields (subject, relation, attribute, value and the
user's quoted words) word by word (stems, stopwords dropped), and with what recall found for it
(vectors and keywords over the claims' text). Whom it asks about is read off the claims too: a
subject or relation some claim holds that the question names ("When is Tomás's birthday?",
"What does my sister do?"), else the user when the question speaks in the first person.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.cycle.not_told import FRAME_WORDS, is_personal_question
from services.knowledge.claims.verify import plain
from services.recall.lexical import stem
from thea.models import USER_SUBJECT, Fact
from thea.words import FIRST_PERSON, STOPWORDS

#: share of the best match a claim needs to be shown with it
MATCH_FLOOR = 0.35
#: how much a claim about whom the question asks weighs, beside its shared words and recall score
ABOUT_WEIGHT = 0.5


def stems_of(text: str) -> frozenset[str]:
    """Content stems: words of two letters or more, stopwords dropped."""
    return frozenset(stem(w) for w in plain(text).split() if w not in STOPWORDS and len(w) > 1)


def restates(answer: str, question: str, naming: frozenset[str] = frozenset()) -> bool:
    """Words copied as the answer that are only the question's own ("Kluska" for "What breed is
    Kluska?"), or those and ``naming``: the words of the line that only name whom it is about
    ("your wife" for "What was Moira's maiden name?"); a number the question does not hold is an
    answer (live: "9" for "how old is Femi?" had been taken for a restatement, a number having no
    word stem)."""
    if not answer.strip():
        return False
    numbers = set(re.findall(r"\d+", answer)) - set(re.findall(r"\d+", question))
    return not numbers and not stems_of(answer) - stems_of(question) - naming


def question_stems(question: str) -> frozenset[str]:
    """What the question asks about: its content stems without first-person words."""
    return frozenset(
        stem(w)
        for w in plain(question).split()
        if w not in STOPWORDS and w not in FIRST_PERSON and len(w) > 1
    )


#: the stems of the words that only frame a question ("name", "called", "kind")
FRAME_STEMS = frozenset(stem(w) for w in FRAME_WORDS)


def topic_stems(question: str) -> frozenset[str]:
    """The question's stems without the words that only frame a question ("name", "now")."""
    stems = question_stems(question)
    return frozenset(s for s in stems if s not in FRAME_STEMS) or stems


def speaks_as_user(question: str) -> bool:
    return bool(set(plain(question).split()) & FIRST_PERSON)


def subject_stems(fact: Fact) -> frozenset[str]:
    """The words a question may name the claim's subject by: its name and its relation."""
    if fact.subject_key == USER_SUBJECT:
        return frozenset()
    return stems_of(f"{fact.subject or ''} {fact.subject_key or ''} {fact.relation or ''}")


def held_stems(fact: Fact) -> frozenset[str]:
    """The words of what the claim holds: subject, relation, attribute and value (not the words
    around it in the user's quote)."""
    return stems_of(" ".join(p or "" for p in (fact.subject, fact.relation, fact.attribute, fact.value)))


def claim_stems(fact: Fact) -> frozenset[str]:
    """Every word the claim holds: subject, relation, attribute, value and the user's quote."""
    return held_stems(fact) | stems_of(f"{fact.quote or ''} {fact.content or ''}")


def inherited_stems(facts: Sequence[Fact]) -> dict[str, frozenset[str]]:
    """Each claim's words, with the words of the claims it replaced ("York" after "I live in
    Leeds" is still found by "live"): a question in the old words finds the newer value."""
    by_id = {f.id: f for f in facts}
    words = {f.id: set(claim_stems(f)) for f in facts}
    for fact in facts:
        seen: set[str] = set()
        newer = fact.superseded_by
        while newer and newer in by_id and newer not in seen:
            seen.add(newer)
            words[newer] |= claim_stems(fact)
            newer = by_id[newer].superseded_by
    return {k: frozenset(v) for k, v in words.items()}


#: how many letters a question's word may add to a relation it names: a plural ("daughters"), not
#: another word of its stem ("booked" is no "book": first contact set 17's book list was named by
#: "had the procedure been booked?")
RELATION_SLACK = 1


def _names_relation(words: Sequence[str], relation: str) -> bool:
    """Whether a word of the question is the relation, give or take a plural's letter."""
    wanted = stem(relation)
    return any(stem(w) == wanted and abs(len(w) - len(relation)) <= RELATION_SLACK for w in words)


def names_subject(question: str, fact: Fact) -> bool:
    """Whether the question names the claim's subject: by a word of its name, or by its relation
    to the user in nearly the relation's own form."""
    if fact.subject_key == USER_SUBJECT:
        return False
    asked = question_stems(question)
    if stems_of(f"{fact.subject or ''} {fact.subject_key or ''}") & asked:
        return True
    words = [w for w in plain(question).split() if w not in STOPWORDS]
    return any(_names_relation(words, r) for r in plain(fact.relation or "").split() if r not in STOPWORDS)


def named_subjects(question: str, facts: Sequence[Fact]) -> frozenset[str]:
    """The subjects (keys) of claims whose name or relation the question names."""
    return frozenset(f.subject_key or "" for f in facts if names_subject(question, f))


def subject_names(question: str, facts: Sequence[Fact]) -> list[str]:
    """The names, as the claims show them, of the subjects the question names by name or by who
    they are to the user ("Tango" for "how old is my dog?"): the words the user's other messages
    about them hold, whatever the question's words."""
    named = named_subjects(question, facts) - {USER_SUBJECT, ""}
    return sorted({f.subject for f in facts if f.subject_key in named and f.subject})


@dataclass(frozen=True)
class ClaimMatch:
    fact: Fact
    score: float
    #: the claim is about whom the question asks
    about: bool
    #: the question's words the claim holds
    shared: frozenset[str]

    @property
    def why(self) -> str:
        who = "about whom it asks" if self.about else "about someone else"
        words = ", ".join(sorted(self.shared)[:4]) or "meaning"
        return f"{who}; shares {words}"


#: the writer with someone else ("we", or "I" / "me" joined by "and": "Gerald and I"; closed class)
_WE = frozenset({"we", "us", "ourselves"})
_I = frozenset({"i", "me"})


def asks_with_user(question: str) -> bool:
    """The question asks about the user together with someone ("Whereabouts are Gerald and I
    living at present?", "where do we live now?"), not only whose someone is ("my sister")."""
    words = plain(question).split()
    if _WE & set(words):
        return True
    return any(w in _I and "and" in words[max(i - 1, 0) : i + 2] for i, w in enumerate(words))


def focus_of(question: str, facts: Sequence[Fact]) -> frozenset[str]:
    """Whom the question asks about: subjects it names (and the user, when it asks about them
    together: first contact set 16, "Whereabouts are Gerald and I living at present?" was
    answered from Gerald's claims alone, "your home" on record), else the user when it speaks
    as them, else nobody in particular (empty)."""
    named = named_subjects(question, facts)
    if named:
        return named | {USER_SUBJECT} if asks_with_user(question) else named
    return frozenset({USER_SUBJECT}) if speaks_as_user(question) else frozenset()


def match_claims(
    question: str, facts: Sequence[Fact], recalled: Mapping[str, float] | None = None
) -> list[ClaimMatch]:
    """The claims the question is about, best first: words shared with the question (its topic),
    recall's score for the claim (0-1 relative to the best), and whether it is about whom the
    question asks."""
    recalled = recalled or {}
    top = max(recalled.values(), default=0.0) or 1.0
    topic = topic_stems(question)
    focus = focus_of(question, facts)
    held = inherited_stems(facts)
    out: list[ClaimMatch] = []
    for fact in facts:
        shared = topic & held[fact.id]
        about = not focus or (fact.subject_key or "") in focus
        if not (shared or fact.id in recalled):
            continue
        share = len(shared) / len(topic) if topic else 0.0
        score = share + recalled.get(fact.id, 0.0) / top + (ABOUT_WEIGHT if about else 0.0)
        out.append(ClaimMatch(fact, score, about, shared))
    out.sort(key=lambda m: (-m.score, -m.fact.created_at))
    if not out:
        return []
    floor = out[0].score * MATCH_FLOOR
    return [m for m in out if m.score >= floor]


def told_of(question: str, facts: Sequence[Fact]) -> bool:
    """Some claim holds a word the question is about (it was told, whatever recall found)."""
    topic = topic_stems(question)
    return bool(topic) and any(topic & words for words in inherited_stems(facts).values())


def about_told(question: str, stored: Sequence[Fact]) -> bool:
    """The question asks about the user or someone they named (what they told): its answer is
    never shown to the model as conversation history. Beside the grammar's personal question, a
    question in the first person that names what a current claim of the user's holds ("where's
    home for me at the moment" with a home told: the user's claims, not a wording, say so)."""
    return bool(question) and (
        is_personal_question(question)
        or bool(named_subjects(question, stored))
        or (speaks_as_user(question) and _names_an_attribute_of_the_user(question, stored))
    )


def _names_an_attribute_of_the_user(question: str, stored: Sequence[Fact]) -> bool:
    asked = topic_stems(question)
    return any(
        f.subject_key == USER_SUBJECT and f.valid_until is None and (stems_of(f.attribute or "") & asked)
        for f in stored
    )
