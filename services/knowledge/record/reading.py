"""A telling sentence read by its grammar: its clauses, each with its subject and verb.

The dependency parse (thea/language.py) says which words are the subject, the verb and what
follows it, whatever the wording:

* a sentence has one clause per verb that says something on its own: the main verb, verbs
  joined by "and"/"but" ("I sold the Golf and bought a Skoda": the second keeps "I"), clauses
  after a comma with a subject of their own ("..., she helps at the library now"). A relative
  clause or an appositive stays with the noun it describes ("two kids, Elsa who is 9 and Nils
  who is 6"; "a dog, a beagle named Kaffe"); a clause about "it" or "they" stays with the
  clause before it ("Bruno opened his own restaurant, it's called Maré");
* the **subject** is the user ("I", "we", "my wife Margaret and I", or none: "Just got
  promoted!"), a named person, pet or thing ("my brother Felix", "Mia"), someone known by
  their relation ("Erik's mother", "my sister"), or something of the user's ("my name", "the
  deadline", "the Madrid conference"): then its noun is what the fact is about;
* "he"/"she" refer to the last person named in the message;
* verbless introductions are about the user ("Daniel here.", "Ines Duarte, freelance graphic
  designer, based in Porto.", "Software dev at a fintech startup called Paylark.").

What each clause *says* (attribute, value, change) is read in
services/knowledge/record/extraction.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from services.common.statements import (
    HERE,
    NOT_CASUAL,
    SOMEONE_IS_STATE,
    STATE_OPENER,
    lower_first,
    upper_first,
)
from services.knowledge.record.slots import is_occupation, is_pet, known_word, relation_word
from thea.language import parse
from thea.models import USER_SUBJECT

#: the subject key of facts about the user themselves
USER = USER_SUBJECT

_FIRST_PERSON = frozenset({"i", "we", "me", "us"})
_USER_OWNER = frozenset({"my", "our"})
_OWNERS = frozenset({"my", "our", "his", "her", "their"})
_PERSON_PRONOUNS = frozenset({"he", "she", "him", "her"})
#: pronouns that refer to a thing or a group just named: their clause stays with the one before
_THING_PRONOUNS = frozenset({"it", "they", "this", "that", "these", "those", "there"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
#: dependents that start a clause of their own when they are verbs
_CLAUSE_DEPS = frozenset({"conj", "ccomp", "parataxis"})
#: a subordinate clause opened by these stays with its main clause ("because the clinic is closed")
_SUBORDINATING = frozenset(
    {"because", "since", "as", "when", "while", "if", "although", "though", "unless", "until", "after",
     "before", "whereas", "so that", "once"}
)  # fmt: skip
_VERB_POS = frozenset({"VERB", "AUX"})
#: words that join a clause to the one before ("so", "and", "but"): not part of what it says
_LINKERS = frozenset({"so", "and", "but", "then", "also", "plus"})
_NAME_POS = frozenset({"PROPN"})
#: "name's George", "surname's Kowalski": the "'s" is "is" (the parser reads a possessive)
_NAME_IS = re.compile(r"\b((?:sur|nick|first|last|full)?name)['\u2019]s\b(?=\s+[A-Z])", re.IGNORECASE)
#: someone switched the user from one thing to another: "Doctor's moved me off warfarin onto
#: apixaban", "my GP switched me from sertraline to citalopram" -> "I've switched from ... to ..."
_SWITCHED_ME = re.compile(
    r"^(?:[\w'.]+\s+){1,3}?(?:has\s+|have\s+|['\u2019]s\s+)?(?:moved|switched|changed|swapped|put)\s+me\s+"
    r"(?:off|from)\s+(?P<old>[\w' -]+?)\s+(?:onto|on\s+to|to|on)\s+",
    re.IGNORECASE,
)
#: "The doctor has added gliclazide", "My GP put me on statins": a medicine the user now takes
_PRESCRIBED_ME = re.compile(
    r"^(?:the|my|our)\s+(?:doctor|doc|gp|consultant|specialist|nurse|surgeon|cardiologist|psychiatrist"
    r"|diabetes\s+nurse|rheumatologist|oncologist)\s+(?:has\s+|have\s+|['\u2019]s\s+)?(?:just\s+)?"
    r"(?:(?P<added>added)|prescribed(?:\s+me)?|(?:put|started)\s+me\s+on)\s+(?=\w)",
    re.IGNORECASE,
)
#: "Me and my husband Rhys are expecting ...", "me and jess are ...": "... and I"
_ME_AND = re.compile(
    r"^(?:me|myself)\s+and\s+(?P<who>(?:my|our)\s+[a-z][\w'-]*(?:\s+[A-Z][\w'-]+)?|[A-Za-z][\w'-]+)\s+"
    r"(?=(?:are|were|have|had|'ve|\w+ed|will|got|just)\b)",
    re.IGNORECASE,
)
#: "Wife's Denise", "Husband's called Mark": the user's relation, "my" left out
_RELATION_IS = re.compile(
    r"^(?P<relation>wife|husband|partner|boyfriend|girlfriend|fianc[ée]e?|son|daughter|mum|mom|dad|brother"
    r"|sister|boss)['\u2019]s\s+(?=(?-i:[A-Z])|called\b|named\b)",
    re.IGNORECASE,
)


def _relation_is(found: re.Match[str]) -> str:
    return f"My {found.group('relation').lower()} is "


#: a birth told as "A little girl, we've called her Nia", "It's a boy! His name is Theo"
BABY_NAMED = re.compile(
    r"(?:^|(?<=[.!?]\s))(?:it['\u2019]s\s+|we\s+had\s+)?an?\s+(?:little\s+|baby\s+|healthy\s+)*(?P<kind>girl|boy)\b"
    r"[!,.]*\s*(?:and\s+)?(?:we(?:['\u2019]ve|\s+have)?\s+(?:called|named)\s+(?:her|him)"
    r"|(?:she|he)['\u2019]s\s+called|(?:her|his)\s+name(?:['\u2019]s|\s+is))\s+(?P<name>(?-i:[A-Z])[\w'-]+)",
    re.IGNORECASE,
)


def _taking(found: re.Match[str]) -> str:
    """ "I'm taking " for what a doctor prescribed; "I'm also taking " for what they added."""
    return "I'm also taking " if found.group("added") else "I'm taking "


def baby_named(found: re.Match[str]) -> str:
    child = "daughter" if found.group("kind").lower() == "girl" else "son"
    return f"We had a baby {found.group('kind').lower()}, our {child} {found.group('name')}"


#: how one lives with others, said after a name and an age ("Tom, 45, married to Sarah")
_STATE_OF_LIFE = re.compile(
    r"^(?:happily\s+)?(?:married|engaged|divorced|separated|single|widowed)\b", re.IGNORECASE
)
_TITLED_NAME = r"(?:(?:Prof|Dr|Mr|Mrs|Ms|Miss|Sir)\.?\s+)?[A-Z][\w'-]+"
#: "my supervisor Prof. Hart is leaving ..., so Dr. Osei is taking over": Osei is the new supervisor
_TAKING_OVER = re.compile(
    rf"\b(?P<first>(?i:my|our)\s+(?P<role>[a-z][\w-]*)\s+{_TITLED_NAME}\b.*?)(?:,\s*|\s+)(?:so\s+|and\s+)?"
    rf"(?P<new>{_TITLED_NAME})\s+(?:is|['\u2019]s|will\s+be)\s+taking\s+over\b(?:\s+from\s+(?:him|her|them))?"
)


def _taking_over(found: re.Match[str]) -> str:
    return f"{found.group('first')}, {found.group('new')} is my new {found.group('role')}"


#: "Hana's vegetarian": "Hana is vegetarian"
_STATE_IS = re.compile(SOMEONE_IS_STATE, re.IGNORECASE)


def _state_is(found: re.Match[str]) -> str:
    return found.group()[: found.end("who") - found.start()] + " is "


_WHO_IS = re.compile(r"\b([Ww]ho)['\u2019]s\b(?!\s+(?:been|got|had)\b)")
#: "Daniel here.", "It's Daniel here", "This is Daniel."
_HERE = re.compile(
    rf"^\s*(?:(?:it's|it\s+is|this\s+is)\s+)?{NOT_CASUAL}(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){{0,2}}){HERE}"
    r"|^\s*this\s+is\s+(?P<name2>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})\s*[.!]?\s*$"
)

#: an introduction before what the user says: "Hamid, 34, I'm a bus driver", "Claire here, 52, I
#: run a B&B", "It's Daniel here": a name said with "here" or an age (else "Noor, she ..." is
#: about Noor)
_LEADING_INTRO = re.compile(
    r"^\s*(?:(?i:it's|it\s+is)\s+|(?P<me>(?i:i'm|i\s+am|my\s+name\s+is))\s+)?"
    r"(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){0,2})"
    r"(?:(?P<here>\s+here)\s*(?:[,.!:;-]\s*|$)|\s*,\s*(?P<age>\d{1,3})\s*(?:[,.!:;-]\s*|$))"
    r"(?:(?P<also>\d{1,3})\s*(?:[,.!:;-]\s*|$))?(?P<rest>.*)$",
)
#: "(I'm Luca, 34,) from Turin", "(I'm Mia, 29,) in Leeds": where the user is from or lives
_FROM_OR_IN = re.compile(r"^(?:originally\s+)?(?:from|in|based\s+in)\s+[A-Z]")
#: "Olivier and I split up", "Anke and me broke up": someone and the user, at the start
_NAME_AND_I = re.compile(
    rf"^\s*{NOT_CASUAL}(?P<who>(?:(?i:my|our)\s+[a-z]+\s+)?(?P<name>[A-Z][\w'-]+))\s+and\s+(?:I|me)\b(?!['\u2019])"
)


def _misread(sentence: str) -> bool:
    """The parser took the sentence for a noun phrase ("My partner Lou and I have a son, Alfie":
    "partner" as its root, "I have ..." as an aside)."""
    return any(t.dep_ == "ROOT" and t.pos_ in ("NOUN", "PROPN") for t in parse(sentence))


def _said_together(clause: Clause, who: str) -> Clause:
    """The clause as the user said it ("Olivier and I split up", "My partner Lou and I have ...",
    not "I and Olivier ...")."""
    text = re.sub(rf"\bI and {re.escape(who)}\b", upper_first(f"{who} and I"), clause.text, count=1)
    return Clause(**{**clause.__dict__, "text": text}) if text != clause.text else clause


#: a clause with a subject of its own ("my daughter Bea is 2", "we have ...", "I run ...")
_OWN_SUBJECT = re.compile(r"^(?:(?:my|our)\s+\w+|I|we|I['\u2019]m|we['\u2019]re)\b", re.IGNORECASE)
#: what may follow an introduction with an age: the user's own clause or who they are
_ABOUT_USER = re.compile(r"^(?:I\b|I['\u2019]|me\b|my\b|a\b|an\b|$)")
#: "a little girl, Noor, she turned 2": the pronoun is the name just given
_NAME_THEN_PRONOUN = re.compile(
    r",\s*(?P<name>[A-Z][\w'-]+)\s*,\s*(?P<pronoun>she|he)\b(?P<c>['\u2019](?:s|ll|d))?"
)


@dataclass(frozen=True)
class Subject:
    #: "user", a name ("tomás"), or a relation ("sister", "erik's mother")
    key: str
    #: as shown: "you", "Tomás", "your sister", "Erik's mother"
    shown: str
    #: the possessed noun the clause is about ("name" of "my name is", "birthday" of "Tomás's birthday")
    noun: str = ""
    #: the subject's words as said ("My wife Margaret and I", "The Madrid conference")
    said: str = ""
    #: the subject is not stated: the user is meant ("Just got promoted")
    implicit: bool = False


@dataclass(frozen=True)
class Clause:
    """One clause of a telling sentence."""

    #: the clause as said (an implicit "I" supplied, a pronoun subject named)
    text: str
    subject: Subject
    #: the verb's lemma ("live", "be", "sell"); "" for a verbless introduction
    verb: str
    #: the verb's tag (VBD past, VBN participle, VBG -ing, VBZ/VBP present, MD...)
    tag: str
    #: what follows the verb (or the copula): "in Hamburg", "a nurse at the Charité"
    value: str
    copula: bool
    passive: bool
    negated: bool
    #: the auxiliaries before the verb, lower-cased ("will", "is going to", "have")
    auxiliaries: tuple[str, ...] = ()
    #: the direct object's words ("the Golf"), if any
    object_words: tuple[str, ...] = ()
    #: the prepositional objects: (preposition, its object's words)
    preps: tuple[tuple[str, str], ...] = field(default_factory=tuple)


#: verbs that report what someone said: with what was said read as its own clause, nothing is left
_REPORTING = frozenset({"say", "tell", "think", "reckon", "mention", "believe", "suppose", "guess"})


def _text(tokens: list[Any]) -> str:
    out = ""
    for i, token in enumerate(tokens):
        out += token.text
        if i + 1 < len(tokens):
            nxt = tokens[i + 1]
            out += token.whitespace_ if nxt.i == token.i + 1 else " "
    return out.strip()


#: how a parser may hang a sentence's opening past verb on the next one
_OPENING_VERB_DEPS = frozenset({"advcl", "nsubj", "csubj"})


def _subject_token(head: Any) -> Any | None:
    subjects = [c for c in head.children if c.dep_ in _SUBJECT_DEPS and not _is_opening_verb(c)]
    if subjects:
        # "Not a security guard anymore, I've been promoted": of two, the user
        return next((c for c in subjects if c.lower_ in _FIRST_PERSON and c.pos_ == "PRON"), subjects[0])
    for child in head.children:  # "My friend Omar is getting married": the parser may hang it on an auxiliary
        if child.dep_ in ("aux", "auxpass"):
            for grandchild in child.children:
                if grandchild.dep_ in _SUBJECT_DEPS:
                    return grandchild
    for child in head.children:  # "Tom and I got engaged": a small parser can take "Tom and I" for an adverb
        if child.i < head.i and child.dep_ in ("npadvmod", "dep") and _joins_nouns(child):
            return child
    return None


def _is_opening_verb(token: Any) -> bool:
    """ "Stopped" of "Stopped driving for uber, started ...": a clause, not a subject."""
    return token.i == 0 and token.pos_ == "VERB" and token.tag_ in ("VBD", "VBN")


def _joins_nouns(token: Any) -> bool:
    """A noun phrase joined to another by "and" ("Tom and I")."""
    nouns = ("PROPN", "PRON", "NOUN")
    return token.pos_ in nouns and any(c.dep_ == "conj" and c.pos_ in nouns for c in token.children)


def _inherited_subject(head: Any) -> Any | None:
    """A verb joined by "and" to another shares its subject ("I sold X and bought Y")."""
    node = head
    while node.dep_ == "conj" and node.head.i != node.i:
        node = node.head
        found = _subject_token(node)
        if found is not None:
            return found
    return None


def _is_clause_head(token: Any) -> bool:
    if token.dep_ == "ROOT":
        return True
    if token.dep_ in _OPENING_VERB_DEPS and _is_opening_verb(token):
        # "Switched from medicine to biology, medicine wasn't for me", "Stopped driving for uber,
        # started my own company" (a small parser may take the first verb for the subject)
        return True
    if token.pos_ not in _VERB_POS:
        return False
    if token.dep_ in _CLAUSE_DEPS:
        subject = _subject_token(token)
        if token.tag_ == "VB" and subject is not None and subject.lower_ in _OBJECT_PRONOUNS:
            return False  # "comes in the mornings to help me dress": a purpose, not a clause
        return token.dep_ == "conj" or subject is not None
    if token.dep_ == "advcl" and _subject_token(token) is not None:
        marks = {c.lower_ for c in token.children if c.dep_ == "mark"}
        return not (marks & _SUBORDINATING)
    return False


def _clause_tokens(head: Any, heads: set[int]) -> list[Any]:
    """The head's subtree without the subtrees of the other clause heads below it."""
    out: list[Any] = []
    stack = [head]
    while stack:
        token = stack.pop()
        out.append(token)
        stack.extend(c for c in token.children if c.i not in heads)
    # a joining word before a clause cut off ("I sold the Golf and | bought a Skoda")
    cut = any(c.i in heads for c in head.children)
    out = [t for t in out if not (cut and t.dep_ == "cc" and t.head.i == head.i)]
    out.sort(key=lambda t: t.i)
    # no joining word or punctuation at the edges ("and bought a Skoda", ", she helps", "So the doctor")
    while out and (out[0].pos_ in ("PUNCT", "CCONJ") or out[0].lower_ in _LINKERS):
        out = out[1:]
    while out and (out[-1].pos_ in ("PUNCT", "CCONJ")) and out[-1].text not in ("!", "?", "."):
        out = out[:-1]
    return out


def _name_of(token: Any) -> str:
    """A proper noun with the proper nouns compounded with it ("Ines Duarte", "Tesla Model")."""
    parts = [c for c in token.children if c.dep_ in ("compound", "flat") and c.pos_ in _NAME_POS]
    parts.append(token)
    return " ".join(t.text for t in sorted(parts, key=lambda t: t.i))


def _appositive_name(token: Any) -> str:
    """The name given to a noun: "my brother Felix", "my partner Tomás", "a carer called Joy" (also
    when a small parser hangs the name on the verb: the proper noun right after the noun)."""
    for child in token.children:
        if child.dep_ in ("appos", "compound", "npadvmod") and child.pos_ in _NAME_POS and child.i > token.i:
            return _name_of(child)
        if child.dep_ == "acl" and child.lemma_ in ("call", "name") and child.i > token.i:
            # "A carer called Joy comes in the mornings": Joy
            named = next((c for c in child.children if c.dep_ in ("oprd", "attr", "dobj", "xcomp")), None)
            if named is not None and named.pos_ in _NAME_POS:
                return _name_of(named)
    following = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if (
        following is not None
        and following.pos_ in _NAME_POS
        and following.dep_ in ("compound", "nsubj", "appos")
    ):
        return _name_of(following)
    return ""


#: pronouns that are never a subject of a tensed clause ("help me dress")
_OBJECT_PRONOUNS = frozenset({"me", "him", "her", "us", "them"})


def _read_subject(subject: Any, last_person: str, last_key: str = "") -> Subject | None:
    """Who or what a subject phrase is; None for a subject that is not about the user's life
    ("you": the assistant)."""
    phrase = sorted(subject.subtree, key=lambda t: t.i)
    following = subject.doc[phrase[-1].i + 1] if phrase[-1].i + 1 < len(subject.doc) else None
    if following is not None and following.pos_ in _NAME_POS and following.head.i != subject.i:
        phrase.append(following)  # "Our old rabbit | Clover died": the name the parser put aside
    said = _text(phrase)
    low = subject.lower_
    if any(t.lower_ in _FIRST_PERSON and t.pos_ == "PRON" for t in phrase):
        return Subject(USER, "you", said=said)
    if low in ("you", "u"):
        return None
    if low in _PERSON_PRONOUNS:
        if last_person:  # "My wife is Morag, she teaches": the wife, said as "My wife"
            return Subject(last_key or last_person.lower(), last_person, said=said)
        return Subject(low, low, said=said)
    bare = not any(c.dep_ in ("det", "poss") for c in subject.children)
    # a capitalised noun opening the sentence is a name unless it is a word of the vocabulary
    # ("Deadline extended to 31 May" is the user's deadline)
    common = subject.i == 0 and subject.pos_ == "NOUN" and known_word(subject.lower_)
    if not common and (
        subject.pos_ in _NAME_POS or (subject.text[:1].isupper() and bare and subject.pos_ == "NOUN")
    ):
        # a name (a small parser can take an unusual one for a noun: "Miso is 7 years old")
        name = _name_of(subject)
        return Subject(name.lower(), name, said=said)
    name = _appositive_name(subject)
    if name:  # "my brother Felix", "our neighbour Jonas"
        return Subject(name.lower(), name, said=said)
    theirs = _their_thing(subject, last_person, last_key)
    return theirs if theirs is not None else _owned_subject(subject, said)


def _their_thing(subject: Any, last_person: str, last_key: str) -> Subject | None:
    """ "his birthday", "her wife" after a person named in the message ("my grandson Owen is 9,
    his birthday is on 14 March"): Owen's birthday, never the user's."""
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    if owner is None or owner.lower_ not in ("his", "her") or not last_person:
        return None
    said = _their_said(subject, last_person)
    if relation_word(subject.lemma_.lower()):  # "his wife": someone of their own
        shown = f"{last_person}'s {subject.text}"
        return Subject(f"{last_key or last_person.lower()}'s {subject.text.lower()}", shown, said=said)
    return Subject(last_key or last_person.lower(), last_person, noun=subject.text.lower(), said=said)


def _their_said(subject: Any, last_person: str) -> str:
    return " ".join(f"{last_person}'s" if t.dep_ == "poss" and t.head.i == subject.i else t.text
                    for t in sorted(subject.subtree, key=lambda t: t.i))  # fmt: skip


def _owned_subject(subject: Any, said: str) -> Subject:
    """A subject known by its owner, relation or trade ("my mum's name", "Erik's mother", "my
    sister", "the builder"), or something of the user's ("my name", "the deadline")."""
    owner = next((c for c in subject.children if c.dep_ == "poss"), None)
    noun = subject.lemma_.lower()
    relation = relation_word(noun)
    owner_relation = relation_word(owner.lower_) if owner is not None else None
    if owner is not None and owner_relation and any(c.lower_ in _USER_OWNER for c in owner.children):
        # "my mum's name", "our dog's vet": the relation is the subject, what follows its noun
        return Subject(owner.lower_, f"your {owner.text}", noun=subject.text.lower(), said=said)
    if owner is not None and owner.pos_ in _NAME_POS:
        owner_name = _name_of(owner)
        if relation:  # "Erik's mother"
            shown = f"{owner_name}'s {subject.text}"
            return Subject(shown.lower(), shown, said=said)
        return Subject(owner_name.lower(), owner_name, noun=subject.text.lower(), said=said)
    if relation and owner is not None and owner.lower_ in _USER_OWNER:  # "my sister" (no name)
        return Subject(noun, f"your {subject.text}", said=said)
    if (relation or is_occupation(noun)) and (owner is None or owner.lower_ not in _USER_OWNER):
        return Subject(noun, f"the {subject.text}", said=said)  # "the builder", "the doctor", "the vet"
    # "my name", "our rent", "the deadline", "the billing migration deadline", "the Madrid conference"
    return Subject(USER, "you", noun=subject.text.lower(), said=said)


def _value_tokens(tokens: list[Any], head: Any, subject_ids: set[int]) -> list[Any]:
    after = [t for t in tokens if t.i > head.i and t.i not in subject_ids]
    while after and after[-1].pos_ == "PUNCT":
        after = after[:-1]
    return after


def _clause(tokens: list[Any], head: Any, subject: Subject, subject_ids: set[int], text: str) -> Clause:
    auxiliaries = tuple(
        c.lower_ for c in head.children if c.dep_ in ("aux", "auxpass") and c.i < head.i
    ) + tuple(c.lower_ for c in head.children if c.dep_ == "advmod" and c.lower_ == "going")
    copula = head.lemma_.lower() == "be" and head.pos_ == "AUX"
    passive = any(c.dep_ in ("auxpass", "nsubjpass") for c in head.children)
    negated = any(c.dep_ == "neg" for c in head.children)
    obj = next((c for c in head.children if c.dep_ in ("dobj", "obj")), None)
    object_words = tuple(t.text for t in sorted(obj.subtree, key=lambda t: t.i)) if obj is not None else ()
    preps = tuple(
        (c.lower_, _text(sorted(c.subtree, key=lambda t: t.i)[1:]))
        for c in head.children
        if c.dep_ in ("prep", "agent", "dative")
    )
    value = _text(_value_tokens(tokens, head, subject_ids))
    return Clause(
        text=text,
        subject=subject,
        verb=head.lemma_.lower() if head.pos_ in _VERB_POS else "",
        tag=head.tag_,
        value=value,
        copula=copula,
        passive=passive,
        negated=negated,
        auxiliaries=auxiliaries,
        object_words=object_words,
        preps=preps,
    )


def _new_subject_after_and(doc: Any) -> tuple[int, int] | None:
    """Where "and my/our <relative> [Name] <verb>" starts a clause of its own, as (end of the
    first part, start of the second) in characters: a small parser hangs "our daughter Astrid"
    on the object before it ("runs a flower shop and our daughter") and leaves "is 16" without
    a subject. None when there is no such joint."""
    tokens = list(doc)
    for i, token in enumerate(tokens[:-3]):
        if token.lower_ != "and" or i == 0 or tokens[i + 1].lower_ not in _OWNERS:
            continue
        j = i + 2
        if not relation_word(tokens[j].lower_):
            continue
        j += 1
        while j < len(tokens) and tokens[j].pos_ in _NAME_POS:
            j += 1
        if j < len(tokens) and tokens[j].pos_ in _VERB_POS and _subject_token(tokens[j]) is None:
            return token.idx, tokens[i + 1].idx
    return None


def names_a_role(text: str) -> bool:
    """ "bus driver in Glasgow": a noun phrase (who someone is), not a verb ("loves walks")."""
    first = parse(text)[0] if text else None
    if first is None or not first.text[:1].islower():
        return False
    # "retired engineer": a participle a parser reads as a verb, before an occupation
    return first.pos_ in ("NOUN", "ADJ", "PROPN") or (first.tag_ == "VBN" and is_occupation(text))


def _their_name(token: Any) -> bool:
    """ "his name", "her name", "its name": the name of someone or something just spoken of."""
    return token.lemma_.lower() == "name" and any(
        c.dep_ == "poss" and c.lower_ in ("his", "her", "its", "their") for c in token.children
    )


def _had_thing(tokens: list[Any]) -> str:
    """The noun of what a clause says the user has or got ("brother", "shiba inu"), or ""."""
    for token in tokens:
        owned = token.head.lemma_ in ("have", "get", "adopt")
        if owned and token.dep_ in ("dobj", "obj") and token.pos_ == "NOUN":
            parts = [c for c in token.children if c.dep_ == "compound" and c.i < token.i] + [token]
            return " ".join(t.lower_ for t in parts)
    return ""


def _called(token: Any) -> bool:
    """The name in "she's called Pickle", "he's named Rex"."""
    return token.dep_ == "oprd" and token.head.lemma_ in ("call", "name") and token.pos_ in _NAME_POS


def _given_name(token: Any) -> bool:
    """The name in "..., her name is Hana": what a "name" is."""
    return token.dep_ == "attr" and any(c.dep_ == "nsubj" and c.lemma_ == "name" for c in token.head.children)


def _user_verb(text: str) -> bool:
    """ "live in Bristol with ...": a clause of the user's with "I" left out (not "based in Cork")."""
    doc = parse(f"I {text}")
    return len(doc) > 1 and doc[1].pos_ == "VERB" and doc[1].tag_ == "VBP" and doc[0].dep_ == "nsubj"


def _user_says(text: str, value: str) -> Clause:
    """A clause of the user's own introduction ("I'm Hamid.", "I'm 34.")."""
    return Clause(
        text=text, subject=Subject(USER, "you", implicit=True), verb="be", tag="VBP", value=value,
        copula=True, passive=False, negated=False,
    )  # fmt: skip


_DETERMINED = re.compile(r"^(?:(?i:an?|the|my|our|one)\b|[A-Z]|\d)")
_BARE_TITLE = re.compile(r"^(?:head|chief|director|principal|deputy)\b", re.IGNORECASE)


def with_article(role: str) -> str:
    """ "carpenter from Aarhus" said as "a carpenter from Aarhus" ("head of sales" stays)."""
    if _DETERMINED.match(role) or _BARE_TITLE.match(role) or not role[:1].islower():
        return role
    return ("an " if role[:1] in "aeiou" else "a ") + role


def _introduction(sentence: str, doc: Any) -> Clause | None:
    """A verbless introduction: "Daniel here.", "Ines Duarte, freelance graphic designer, based
    in Porto.", "Software dev at a fintech startup called Paylark."."""
    here = _HERE.match(sentence)
    if here:
        name = here.group("name") or here.group("name2")
        return Clause(
            text=f"I'm {name}.", subject=Subject(USER, "you", implicit=True), verb="be", tag="VBP",
            value=name, copula=True, passive=False, negated=False,
        )  # fmt: skip
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if (
        root is None
        or root.pos_ not in ("PROPN", "NOUN")
        or any(t.pos_ in _VERB_POS and t.dep_ in ("ROOT", "aux") for t in doc)
    ):
        return None  # fmt: skip
    body = sentence.strip().rstrip(".!")
    if root.pos_ == "PROPN" and root.i <= 2 and any(c.dep_ in ("appos", "acl") for c in root.children):
        return Clause(
            text=f"I'm {body}.", subject=Subject(USER, "you", implicit=True), verb="be", tag="VBP",
            value=body, copula=True, passive=False, negated=False,
        )  # fmt: skip
    if root.pos_ == "NOUN" and is_occupation(_text(sorted(root.subtree, key=lambda t: t.i))):
        value = body[:1].lower() + body[1:]
        return Clause(
            text=f"I'm {with_article(value)}.", subject=Subject(USER, "you", implicit=True), verb="be",
            tag="VBP", value=value, copula=True, passive=False, negated=False,
        )  # fmt: skip
    return None


#: "be" after an inherited subject whose "-ing" verb shared its auxiliary
_BE_OF = {"i": "'m", "we": " are", "they": " are", "you": " are"}
#: what a pronoun's contraction stands for once the pronoun is a name ("she's" -> "Pixel is")
_EXPANDED = {"'s": " is", "'ll": " will", "'d": " would", "'ve": " has", "": ""}


#: what follows a "'s" that is "has": "she's got", "she's started a new job" (not "she's married",
#: "she's moving")
_PERFECT = re.compile(
    r"\s+(?:(?:just|already|now|finally|recently|also)\s+)?(?:got|been|gone|started|finished|moved|taken"
    r"|passed|left|joined|quit|changed|decided|bought|sold|found|lost|had|done|made|won|booked|applied"
    r"|signed|given|become|gotten|broken|written|begun|stopped|switched|landed|accepted|handed)\b",
    re.IGNORECASE,
)


def _named(text: str, pronoun: str, name: str) -> str:
    """The clause with its pronoun subject replaced by the name it refers to ("she's now a
    pharmacist" -> "Anjali is now a pharmacist"), so the fact says whom it is about."""
    found = re.search(rf"\b{re.escape(pronoun)}(?P<c>['\u2019](?:s|ll|d|ve))?(?![\w'])", text)
    if found is None:
        return text
    contraction = (found.group("c") or "").replace("\u2019", "'")
    rest = text[found.end() :]
    if contraction == "'s" and _PERFECT.match(rest):
        return text[: found.start()] + name + " has" + rest  # "she's got a new job": has, not is
    return text[: found.start()] + name + _EXPANDED.get(contraction, "") + rest


def _name_homonym(doc: Any) -> bool:
    """The sentence opens with a name that is also a small word, right before its verb: "Per has
    moved into a care home", "Per is 70", "Will has started school" (a parser reads a preposition,
    an adverb or "will", and no one as the subject)."""
    if len(doc) < 3 or not doc[0].text.istitle() or doc[1].pos_ not in _VERB_POS:
        return False
    first = doc[0]
    return (
        (first.pos_ == "ADV" and first.dep_ == "nsubj")
        or first.pos_ == "ADP"
        or (first.pos_ == "AUX" and doc[1].pos_ == "AUX" and doc[1].lower_ in ("has", "is", "was", "had"))
    )


def _with_the_user_said(sentence: str, doc: Any) -> Any | None:
    """ "Quit my job at the bank." (read as a name), "Got a kitten, she's called Pickle" (read as
    a clause of the second), "Moving in with Dan this weekend": a sentence that opens with its
    verb, "I" left out, parsed again with it when "I ..." reads as the user doing it; else None."""
    verbless = not any(t.pos_ in _VERB_POS for t in doc) and doc[0].pos_ in _NAME_POS | {"NOUN"}
    leading = doc[0].pos_ == "VERB" and doc[0].dep_ != "ROOT" and _subject_token(doc[0]) is None
    if len(doc) < 2 or not (verbless or leading):
        return None
    doing = doc[0].tag_ == "VBG"
    again = parse(f"{'I am' if doing else 'I'} {sentence[:1].lower()}{sentence[1:]}")
    verb = again[2 if doing else 1]
    return again if verb.pos_ == "VERB" and again[0].dep_ == "nsubj" and again[0].head.i == verb.i else None


def _implicit_text(tokens: list[Any]) -> str:
    said = _text(tokens)
    doing = tokens[0].tag_ == "VBG"  # "Moving in with Dan this weekend": "I'm moving in ..."
    return ("I'm " if doing else "I ") + (said[:1].lower() + said[1:] if said[:2] != "I " else said[2:])


@dataclass
class Reader:
    """Reads the telling sentences of one message in order ("he"/"she": the last person named)."""

    last_person: str = ""
    #: the key of the person "he"/"she" means ("wife" when ``last_person`` is "My wife")
    last_key: str = ""
    #: what the user last said they have ("brother" of "I have a brother"): whose "his name" is
    last_thing: str = ""

    def clauses(self, sentence: str) -> list[Clause]:
        sentence = _NAME_IS.sub(r"\1 is", sentence)
        sentence = _WHO_IS.sub(r"\1 is", sentence)  # "Maya who's 6": a parser reads a possessive
        sentence = _STATE_IS.sub(_state_is, sentence)
        if STATE_OPENER.match(sentence):  # "On blood thinners, ...": "I'm on blood thinners, ..."
            sentence = f"I'm {sentence[:1].lower()}{sentence[1:]}"
        sentence = _SWITCHED_ME.sub(r"I've switched from \g<old> to ", sentence)
        sentence = _PRESCRIBED_ME.sub(_taking, sentence)  # "The doctor has added X"
        sentence = _ME_AND.sub(r"\g<who> and I ", sentence)  # "Me and my husband Rhys are ..."
        sentence = _RELATION_IS.sub(_relation_is, sentence)  # "Wife's Denise, ..."
        sentence = _TAKING_OVER.sub(_taking_over, sentence)
        lead = self._leading_introduction(sentence)
        if lead is not None:
            return lead
        then = _NAME_THEN_PRONOUN.search(sentence)
        if then is not None:  # "... a little girl, Noor, she turned 2": two sentences, the second about Noor
            name = then.group("name")
            rest = name + _EXPANDED.get((then.group("c") or "").replace("\u2019", "'"), "")
            first = self.clauses(sentence[: then.start("pronoun")].rstrip(" ,") + ".")
            self.last_person, self.last_key = name, name.lower()
            return first + self.clauses(rest + sentence[then.end() :])
        together = _NAME_AND_I.match(sentence)
        relative = together is not None and together.group("who") != together.group("name")
        if relative and not _misread(sentence):
            together = None  # "My wife Karin and I are going ...": read well as it is
        if together is not None:  # "Olivier and I split up": a parser takes "Olivier" for an interjection
            name, who = together.group("name"), lower_first(together.group("who"))
            self.last_person, self.last_key = name, name.lower()  # "..., he moved to Grenoble"
            return [_said_together(c, who) for c in self.clauses(f"I and {who}{sentence[together.end() :]}")]
        doc = self._parsed(sentence)
        split = _new_subject_after_and(doc)
        if split is not None:  # "... runs a flower shop and our daughter Astrid is 16": two clauses
            cut, start = split
            return self.clauses(sentence[:cut].rstrip(" ,") + ".") + self.clauses(sentence[start:])
        intro = _introduction(sentence, doc)
        if intro is not None:
            return [intro]
        heads = [t for t in doc if _is_clause_head(t)]
        head_ids = {t.i for t in heads}
        out: list[Clause] = []
        for head in sorted(heads, key=lambda t: t.i):
            tokens = _clause_tokens(head, head_ids - {head.i})
            if tokens:
                self._read_clause(head, tokens, out)
        return out

    def _parsed(self, sentence: str) -> Any:
        doc = parse(sentence)
        if _name_homonym(doc) or (
            not any(t.pos_ in _VERB_POS for t in doc) and len(doc) > 2 and doc[0].pos_ in _NAME_POS
        ):
            # "Margaret volunteers at ...": a small parser can take a name's verb for a plural noun;
            # read it as "She volunteers at ..." with "she" being the name
            again = parse("She" + sentence[len(doc[0].text) :])
            if any(t.pos_ in _VERB_POS and t.dep_ == "ROOT" for t in again):
                doc, self.last_person, self.last_key = again, doc[0].text, doc[0].text.lower()
                return doc
        return _with_the_user_said(sentence, doc) or doc

    def _read_clause(self, head: Any, tokens: list[Any], out: list[Clause]) -> None:
        """The clause of one verb, added to ``out`` (or joined to the clause before it)."""
        subject_token = _subject_token(head) or _inherited_subject(head)
        theirs = subject_token is not None and _their_name(subject_token)
        if (
            subject_token is not None
            and (subject_token.lower_ in _THING_PRONOUNS or theirs or self._pet_pronoun(subject_token))
            and out
        ):
            # "..., it's called Maré", "..., they're 3", "a shiba inu, his name is Kuro": part of
            # what was just said
            previous = out[-1]
            pet = self._pet_pronoun(subject_token)
            name = (
                next((t for t in tokens if _given_name(t) or (pet and _called(t))), None)
                if theirs or pet
                else None
            )
            # "a shiba inu, his name is Kuro" is "a shiba inu called Kuro"; "a rescue cat last
            # weekend, his name is Mochi" is "a rescue cat called Mochi last weekend"
            said = previous.text.rstrip(".!")
            thing = re.search(rf"\b{re.escape(self.last_thing)}\b", said) if self.last_thing else None
            if name is not None and thing is not None:
                text = f"{said[: thing.end()]} called {_name_of(name)}{said[thing.end() :]}"
            else:
                text = said + (f" called {_name_of(name)}" if name is not None else f", {_text(tokens)}")
            out[-1] = Clause(**{**previous.__dict__, "text": text})
            self._remember_person(previous.subject, tokens)
            return
        if theirs:  # "I have a brother. His name is Sami.": the brother's name, never the user's
            self._read_their_name(head, tokens, out)
            return
        if subject_token is None:
            if head.pos_ not in _VERB_POS:
                return  # a fragment ("Sad news.")
            subject = Subject(USER, "you", implicit=True)
            subject_ids: set[int] = set()
            # "Just started a new job", "I'm not vegan anymore, started eating fish again": the user's
            # (a clause that opens with its verb: not "..., so no gluten at all for me")
            mine = not out or (out[-1].subject.key == USER and tokens[0].i == head.i)
            text = _implicit_text(tokens) if _subject_token(head) is None and mine else _text(tokens)
            if out and head.dep_ == "conj":  # "... and bought a Skoda": the first clause's subject
                subject = out[-1].subject
                text = f"{out[-1].subject.said or 'I'} {_text(tokens)}"
        else:
            read = _read_subject(subject_token, self.last_person, self.last_key)
            if read is None:
                return
            subject = read
            subject_ids = {t.i for t in subject_token.subtree}
            text = self._subject_text(subject_token, read, tokens)
        clause = _clause(tokens, head, subject, subject_ids, text)
        self._remember_person(subject, tokens)
        if clause.verb not in _REPORTING or clause.value:
            out.append(clause)  # not "My doctor says | I have to ...": what was said is the clause

    def _pet_pronoun(self, token: Any) -> bool:
        """ "he"/"she" with no one named yet, after a pet the user got ("got a kitten, she's called
        Pickle"): the pet."""
        return token.lower_ in ("he", "she") and not self.last_person and is_pet(self.last_thing)

    def _read_their_name(self, head: Any, tokens: list[Any], out: list[Clause]) -> None:
        """ "His name is Sami." after "I have a brother.": read as "My brother's name is Sami.", the
        name of what the user last said they have; nothing when there is none to give it to."""
        if self.last_thing:
            rest = _text([t for t in tokens if t.i > head.i])
            out += self.clauses(f"My {self.last_thing}'s name is {rest}")

    def _subject_text(self, subject_token: Any, read: Subject, tokens: list[Any]) -> str:
        """The clause as said, its subject said when it was inherited, "she" as the name it means."""
        text = _text(tokens)
        if subject_token.i not in {t.i for t in tokens}:  # inherited: said before the verb
            if tokens and tokens[0].tag_ == "VBG":  # "I'm 17 and doing A levels": "I'm doing ..."
                return f"{read.said}{_BE_OF.get(read.said.lower(), ' is')} {text}"
            return f"{read.said} {text}"
        if subject_token.lower_ in _PERSON_PRONOUNS and self.last_person:
            return _named(text, subject_token.text, self.last_person)
        owner = next((c for c in subject_token.children if c.dep_ == "poss"), None)
        if owner is not None and read.key != USER and owner.lower_ in ("his", "her"):
            return _named(text, owner.text, f"{self.last_person}'s")  # "Owen's birthday is ..."
        return text

    def _leading_introduction(self, sentence: str) -> list[Clause] | None:
        """ "Hamid, 34, I'm a bus driver in Glasgow.": the name, the age, then the rest as said."""
        found = _LEADING_INTRO.match(sentence)
        if found is None:
            return None
        rest = re.sub(r"^(?:and|but|so)\s+", "", found.group("rest").strip(), flags=re.IGNORECASE)
        age = found.group("age") or found.group("also")
        if not found.group("here") and not _ABOUT_USER.match(rest) and not names_a_role(rest):
            # "Basil, 3, loves walks": about Basil; "Nia, 36, run a dog grooming business": the
            # user's own verb, with the "I" left out
            if not found.group("me") and not (age and _user_verb(rest)):
                return None
            # "I'm Luca, 34, from Turin", "im jess, 16, doing my gcses": still the user
            rest = f"I {rest}" if _user_verb(rest) else f"I'm {rest}"
        if not found.group("me") and parse(found.group("name"))[0].pos_ not in _NAME_POS | {"NOUN"}:
            return None  # "Today, 3 ..." is no name
        name = found.group("name")
        out = [_user_says(f"I'm {name}.", name)]
        if age:
            out.append(_user_says(f"I'm {age}.", age))
        if _STATE_OF_LIFE.match(rest):  # "married to Sarah and we have 2 kids, ...": as said
            return [*out, *self.clauses(f"I'm {rest}")]
        role, dash, after = rest.partition(" - ")
        if dash and names_a_role(role) and _OWN_SUBJECT.match(after):
            # "dad of one - my daughter Bea is 2 and goes to ...": who the user is, then the rest
            return [*out, _user_says(f"I'm {with_article(role)}.", role), *self.clauses(after)]
        role, _, more = rest.partition(", ")
        doing = bool(more) and parse(more)[0].tag_ == "VBG"  # "..., living in Hackney with ..."
        if rest and names_a_role(rest) and more and (_user_verb(more) or doing):
            # "junior architect, live in Bristol with ...": who the user is, then what they do
            out.append(_user_says(f"I'm {with_article(role)}.", role))
            out += self.clauses(f"I'm {more}" if doing else f"I {more}")
        elif rest and names_a_role(rest):  # "software tester from Leicester": who the user is
            role = rest.rstrip(".!")
            out.append(_user_says(f"I'm {with_article(role)}.", role))
        elif rest:
            out += self.clauses(rest)
        return out

    def _remember_person(self, subject: Subject, tokens: list[Any]) -> None:
        """The person "he"/"she" will mean: the clause's subject when it is someone other than the
        user, else a person named by their relation in it ("I live with my girlfriend Mia")."""
        if subject.key == USER:
            self.last_thing = _had_thing(tokens) or self.last_thing
        called = next((t for t in tokens if _called(t) or _given_name(t)), None)
        if subject.key != USER and called is not None:
            # "My girlfriend is called Ama, she's a nurse": "she" is Ama, by her name
            self.last_person = _name_of(called)
            self.last_key = self.last_person.lower()
            return
        if subject.key != USER and not subject.noun:
            self.last_person = subject.shown if subject.shown.lower() == subject.key else subject.said
            self.last_key = subject.key
            return
        if subject.key != USER and subject.shown.lower() == subject.key:
            # "Helen's visit is confirmed: she lands on 19 December": "she" is Helen
            self.last_person, self.last_key = subject.shown, subject.key
            return
        # "my girlfriend Mia", "a new mechanic, Priya", "a grey cat called Pixel"
        named = [t for t in tokens if t.pos_ in _NAME_POS and (t.dep_ in ("appos", "oprd")
                 or (t.dep_ == "compound" and relation_word(t.head.lower_)) or _given_name(t))]  # fmt: skip
        if named:
            self.last_person = _name_of(named[-1])
            self.last_key = self.last_person.lower()
