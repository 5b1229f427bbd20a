"""Which facts of record a question is about: whom it asks about, and what.

A question names whom it is about (its **focus**): the user ("my", "I", "we"), a person, pet or
thing by name ("Where does Karin live?", "When is Erik's mother's birthday?"), or someone by
their relation to the user ("What does my brother do?", "What's our dog's name?"); and what it
asks (its **slots**: "Where do we live?" asks the home; services/knowledge/record/slots.py). A
fact answers it when it is about the same one (a fact about the user's sister never answers
where the user lives, and "my brother" is found under the name the user gave him: "My brother
Felix ...") and speaks of the same slot or the same words; meaning (embeddings) breaks ties.

Pure functions over facts already read; no store, no model.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from services.cycle.not_told import topic_words
from services.knowledge.record.extraction import DATE
from services.knowledge.record.reading import USER
from services.knowledge.record.slots import (
    SINGLE_VALUED,
    Slot,
    attribute_slots,
    cue_stems,
    event_kinds,
    fact_slots,
    kind_word_stems,
    question_slots,
    relation_covers,
    relation_word,
    relation_word_typed,
    relations_in,
    word_stems,
    words_of,
)
from services.recall.lexical import stem
from thea.models import Fact
from thea.words import without_possessive
from thea.words import words as read_words

#: the words that make a question about the user (or the user's household)
_OWN = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})
_QUESTION_WORDS = frozenset(
    {"what", "when", "where", "who", "whom", "whose", "why", "how", "which", "is", "are", "am", "was", "were",
     "do", "does", "did", "have", "has", "had", "can", "could", "will", "would", "should", "tell", "remind"}
)  # fmt: skip
#: "my brother Felix", "our neighbour Jonas", "my best friend Omar": a name and its relation
_RELATED_NAME = re.compile(
    r"\b(?P<whose>(?i:my|our|his|her|their))\s+(?i:(?:best|old|older|younger|little|big|new|eldest|youngest|oldest|twin)\s+)?"
    r"(?P<relation>(?:[a-z][\w'-]*\s+)?[\w'-]+)\s*,?\s+(?P<name>[A-Z][\w'-]+)"
)
#: "a tabby cat called Miso", "a beagle named Kaffe", "My cat is called Tom", "my mum's name is Ingrid"
_CALLED_NAME = re.compile(
    r"\b(?P<relation>(?:[\w'-]+\s+)?[\w'-]+?)(?:'s\s+name\s+is|\s+is\s+(?:called|named)|\s+(?:called|named))\s+"
    r"(?P<name>[A-Z][\w'-]+)"
)
#: "we have a little girl, Noor", "two springer spaniels, Basil and Thyme", "adopted a cat, Miso"
_HAVE_NAMED = re.compile(
    r"\b(?i:have|has|had|got|adopted|welcomed|rescued)\s+(?:(?P<count>(?i:a|an|two|three|four|five|\d+))\s+)?"
    r"(?P<relation>(?:[a-z][\w'-]*\s+){0,2}?[a-z][\w'-]*)\s*,\s*(?P<name>[A-Z][\w'-]+)"
    r"(?:\s*(?:,|and|&)\s*(?P<name2>[A-Z][\w'-]+))?"
)
#: "My flatmates are Josh and Tara", "my boss is Kwame"
_MARRIED_TO = re.compile(
    r"^(?:I['\u2019]m|I\s+am|I['\u2019]ve\s+been)\s+"
    # "I'm a primary school teacher in Norwich, married to Steve": after a role of the user's
    r"(?:(?:(?!\b(?:she|he|they|her|his|their)\b)[^.;])*?,\s*(?:and\s+)?)?"
    r"(?:happily\s+)?married\s+to\s+(?P<name>[A-Z][\w'-]+)"
)
_ARE_NAMED = re.compile(
    r"\b(?P<whose>(?i:my|our))\s+(?P<relation>[a-z][\w'-]*)\s+(?:are|is)\s+(?P<name>[A-Z][\w'-]+)"
    r"(?:\s*(?:,|and|&)\s*(?P<name2>[A-Z][\w'-]+))?"
)
#: "Who is Omar?", "Who's Hollie?"
_WHO_IS = re.compile(r"^\s*who(?:'s|\s+is|\s+was)\s+(?P<name>[A-Z][\w'-]+)\s*\??\s*$", re.IGNORECASE)
#: a question asking what thea thinks: the model answers it, with the facts ("Is Sam happy with the
#: job, do you think?")
_OPINION = re.compile(
    r"\b(?:do|would)\s+you\s+(?:think|say|reckon|guess|suppose)\b|\bin\s+your\s+(?:opinion|view)\b"
    r"|\bwhat(?:'s|\s+is)\s+your\s+(?:opinion|view|take)\b|\bshould\s+(?:i|we)\b",
    re.IGNORECASE,
)
#: a yes/no question: the facts answer it plainly only when they hold every word it asks about
#: ("Do I have any health conditions?"; not "Are my Redis jobs busy these days?")
_YES_NO = re.compile(
    r"^\s*(?:is|are|am|was|were|do|does|did|can|could|will|would|has|have|had)\b", re.IGNORECASE
)
#: a question asking for a date: only a fact that names one answers it
_WHEN = re.compile(r"^\s*(?:when|what\s+(?:date|day|time)|which\s+(?:date|day))\b", re.IGNORECASE)
#: what a "when" question asks that any date answers ("What day ...", "what time ...")
_WHEN_WORDS = frozenset(stem(w) for w in ("day", "date", "time", "week", "month", "year"))
#: weights of what makes a fact the answer (scores are compared, never shown)
AGREES, SLOT, SHARE, MEANING, RECALL = 2.0, 1.0, 1.0, 1.0, 0.25


@dataclass(frozen=True)
class Focus:
    """Whom a question is about."""

    user: bool
    names: frozenset[str]
    relations: frozenset[str]

    @property
    def anyone(self) -> bool:
        return self.user or bool(self.names) or bool(self.relations)


@dataclass(frozen=True)
class FactMatch:
    fact: Fact
    #: the fact is about whom the question asks
    agrees: bool
    #: slots the question asks that the fact speaks of
    slots: frozenset[Slot]
    #: of those, the fact's main slots (its attribute's: "I'm Sofia" is a name, "a beagle named
    #: Kaffe" a pet)
    main: frozenset[Slot]
    #: share of the question's topic words (stems) the fact holds
    share: float
    similarity: float
    score: float
    #: the fact plainly answers the question (it may be said back as it was told)
    plain: bool
    #: why it matched, for the trace ("about you; speaks of: home; words: live")
    why: str = ""
    #: about whom and of what the message asks, whatever kind of message it is (a request for
    #: help, an opinion asked: the facts do not answer it, but it speaks of them)
    relevant: bool = False


#: someone who is no longer in the user's life: "Biscuit died", "I broke up with Sam"
#: how a person or pet leaves a life: "died", "passed away", "was put down"
DIED = (
    r"died|passed\s+away|(?:had\s+to\s+)?(?:was|be|been|got)\s+put\s+(?:down|to\s+sleep)|did(?:n['\u2019]t|\s+not)\s+(?:make\s+it|survive)"
    r"|(?:was|got)\s+killed"
)
#: how a pet leaves a life without dying: "Fig had to be rehomed", "we gave Rex away"
REHOMED = r"(?:had\s+to\s+be\s+|was\s+|got\s+)?(?:rehomed|given\s+away)"
_GONE = re.compile(
    rf"^(?:(?:My|Our|my|our)\s+(?:[a-z][\w'-]*\s+){{1,2}})?(?P<subject>[A-Z][\w'-]+)\s+"
    rf"(?:{DIED}|{REHOMED}|moved\s+out(?!\s+of\b))\b"
    r"|\b(?:broke\s+up\s+with|split\s+up\s+with|divorced|separated\s+from)\s+(?P<object>[A-Z][\w'-]+)"
    r"|^(?P<partner>[A-Z][\w'-]+)\s+and\s+(?:I|me)\s+(?:broke\s+up|split\s+up|separated|(?:got\s+)?divorced)\b"
    r"|\bput\s+(?:(?:my|our)\s+(?:[a-z][\w'-]*\s+){0,2})?(?P<put>[A-Z][\w'-]+)\s+(?:to\s+sleep|down)\b",
)


#: words around a relation that are not part of it ("my", "is called")
_NOT_RELATION = frozenset(
    {"my", "our", "his", "her", "their", "is", "called", "named", "name", "s", "a", "an", "the", "and"}
)


#: "a cat, a grey one called Mochi": "one" is the noun just said (not a child, "my little one")
_ONE_AGAIN = re.compile(
    r"\b(?P<noun>[a-z][\w'-]*)\s*,\s*(?:an?|the)\s+(?P<between>(?:[\w'-]+\s+){0,2}?)one\b"
)


@dataclass(frozen=True)
class Naming:
    """A person or pet a fact names by their relation: "my best friend Omar" -> (best friend,
    Omar); "Claire lives with her husband Mark" -> (husband, Mark, of Claire)."""

    said: str
    name: str
    #: whose relation it is when not the user's ("her husband Mark" in a fact about Claire)
    owner: str = ""

    @property
    def introduction(self) -> str:
        """ "Mark is Claire's husband.", "Omar is your best friend." """
        whose = f"{self.owner}'s" if self.owner else "your"
        return f"{self.name} is {whose} {self.said}."


#: the name a "his", "her" or "their" before a relation refers to: the first one the fact says,
#: its subject ("Claire lives in Leeds with her husband Mark", "my brother Sami and his wife")
_OWNER = re.compile(r"\b(?!(?:My|Our|I|We|The|A|An)\b)[A-Z][\w'-]+")


def _owner(content: str, match: re.Match[str]) -> str | None:
    """Whose relation a match names: "" for the user's ("my", "our", "a cat called ..."), the
    name a "his", "her" or "their" refers to, or None when that cannot be told."""
    whose = (match.groupdict().get("whose") or "my").lower()
    if whose in ("my", "our"):
        return ""
    before = _OWNER.findall(content[: match.start()])
    return without_possessive(before[0]) if before else None


def _namings(content: str) -> list[Naming]:
    """Each person or pet a fact names by their relation, with the relation as the user said it:
    "my best friend Omar" -> (best friend, Omar), "a tabby cat called Miso" -> (tabby cat, Miso),
    "two springer spaniels, Basil and Thyme" -> (springer spaniel, Basil), (..., Thyme);
    "Claire lives with her husband Mark" -> (husband, Mark, Claire's)."""
    out: list[Naming] = []
    content = _ONE_AGAIN.sub(lambda m: f"{m.group('noun')}, a {m.group('between')}{m.group('noun')}", content)
    for match in [*_RELATED_NAME.finditer(content), *_CALLED_NAME.finditer(content)]:
        owner = _owner(content, match)
        if relation_word(match.group("relation").split()[-1]) and owner is not None:
            said = match.group(0)[: match.start("name") - match.start()]
            kept = [w for w in read_words(said) if w.lower() not in _NOT_RELATION]
            out.append(Naming(" ".join(kept).lower().removesuffix("'s"), match.group("name"), owner))
    for match in _ARE_NAMED.finditer(content):
        if relation_word(match.group("relation")):
            out += [
                Naming(match.group("relation").lower(), n)
                for n in (match.group("name"), match.group("name2"))
                if n
            ]
    for match in _MARRIED_TO.finditer(content):  # "I'm married to Sarah": her spouse, whom "my wife" asks
        out.append(Naming("spouse", match.group("name")))
    for match in _HAVE_NAMED.finditer(content):
        relation = match.group("relation")
        several = match.group("name2") is not None
        one = (match.group("count") or "two").lower() in ("a", "an")
        if relation_word(relation.split()[-1]) and several != one:
            out += [Naming(relation.lower(), n) for n in (match.group("name"), match.group("name2")) if n]
    return out


def who_left(fact: Fact) -> str | None:
    """Who the fact says left the user's life ("Olivier and I split up" -> olivier, "Biscuit
    died" -> biscuit), lower-cased, or None."""
    found = _GONE.search(fact.content)
    if found is None:
        return None
    who = found.group("subject") or found.group("object") or found.group("partner") or found.group("put")
    return who.lower()


def naming_of(name: str, facts: Sequence[Fact]) -> Naming | None:
    """How the user named someone by a relation ("my best friend Omar", "her husband Mark"): the
    user's own relations first."""
    found = [n for fact in facts for n in _namings(fact.content) if n.name.lower() == name.lower()]
    return min(found, key=lambda n: bool(n.owner)) if found else None


def relation_said(name: str, facts: Sequence[Fact]) -> str:
    """The words the user named their relation to someone with ("best friend", "mum"), or ""."""
    naming = naming_of(name, facts)
    return naming.said if naming and not naming.owner else ""


def naming_facts(name: str, facts: Sequence[Fact]) -> list[Fact]:
    """The facts in which the user named ``name`` by a relation ("My cat is called Tom.")."""
    return [f for f in facts if any(n.name.lower() == name.lower() for n in _namings(f.content))]


def people_and_gone(facts: Sequence[Fact]) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """Each person's (or pet's) relations to the user, as the facts tell them ("My brother
    Felix ..." -> felix: brother), those who left the user's life included, and which of them
    left ("Biscuit died")."""
    found: dict[str, set[str]] = {}
    gone: set[str] = set()
    for fact in facts:
        for naming in _namings(fact.content):
            relation = relation_word(naming.said.split()[-1])
            if relation and not naming.owner:
                found.setdefault(naming.name.lower(), set()).add(relation)
        left = who_left(fact)
        if left:
            gone.add(left)
    return {n: frozenset(relations) for n, relations in found.items()}, frozenset(gone & set(found))


def people_of(facts: Sequence[Fact], *, gone_too: bool = False) -> dict[str, frozenset[str]]:
    """Each person's (or pet's) relations to the user, without those who left the user's life
    unless ``gone_too`` (``people_and_gone``)."""
    everyone, gone = people_and_gone(facts)
    return everyone if gone_too else {n: r for n, r in everyone.items() if n not in gone}


def _names_in(text: str) -> set[str]:
    return {without_possessive(w.lower()) for w in read_words(text) if len(w) > 1 and w[0].isupper()}


#: what a relation word names with these after it and no one's before it: "parents' evening",
#: "Mother's Day", "a baby shower", "family meeting" (not "my mum's day off")
_OCCASIONS = frozenset({"evening", "evenings", "day", "shower", "meeting", "night", "group", "gathering"})


def _names_an_occasion(words: Sequence[str], i: int) -> bool:
    after = words[i + 1].lower() if i + 1 < len(words) else ""
    before = words[i - 1].lower() if i > 0 else ""
    return after in _OCCASIONS and before not in _OWN | {"your", "his", "her", "their"}


def focus_of(question: str, known_names: Collection[str]) -> Focus:
    """Whom the question asks about: the names the user told of that it uses (in any case), the
    relations it names, and whether it speaks of the user. Another capitalised word is whom it
    asks about only when the question is not about the user ("Who is Zelda?"); in "When is our
    Lisbon trip?" it is what it asks about."""
    words = [w for w in read_words(question) if w[0].isalpha()]
    user = any(w.lower() in _OWN for w in words)
    names: set[str] = set()
    relations: set[str] = set()
    for i, word in enumerate(words):
        low = without_possessive(word.lower())
        if low in _OWN or low in _QUESTION_WORDS:
            continue
        # a typing slip is forgiven in a common word, not in a capitalised one ("German" is no "grandma")
        proper = word[:1].isupper() and i > 0
        relation = (relation_word if proper else relation_word_typed)(low) if low not in known_names else None
        if relation and _names_an_occasion(words, i):
            continue
        if relation:
            relations.add(relation)
        elif low in known_names or (word[:1].isupper() and i > 0 and low != "i" and not user):
            names.add(low)
    return Focus(user=user, names=frozenset(names), relations=frozenset(relations))


def _fact_relations(fact: Fact, people: Mapping[str, frozenset[str]]) -> set[str]:
    found = set(relations_in(fact.content))
    for name in {*_names_in(fact.content), (fact.subject_key or "").lower()}:
        found |= people.get(name, frozenset())
    if fact.subject_key and relation_word(fact.subject_key.split()[-1]):
        found.add(relation_word(fact.subject_key.split()[-1]) or "")
    # a fact that replaced one about them ("The school start got moved" after "The boys start ...")
    found |= {r for r in (relation_word(k) for k in fact.keywords or []) if r}
    return found


def agrees(focus: Focus, fact: Fact, people: Mapping[str, frozenset[str]]) -> bool:
    """The fact is about whom the question asks."""
    if focus.names:
        content = set(words_of(fact.content))
        said = (
            _names_in(fact.content)
            | {(fact.subject_key or "").lower()}
            | content
            | {w[:-1] for w in content if w.endswith("s")}  # "dylans party": typed without an apostrophe
            | set(fact.keywords or [])
        )
        if not all(name in said or _known_by_relation(name, fact, people) for name in focus.names):
            return False
        return not focus.relations or _relation_agrees(focus, fact, people) or _possessed(focus, fact)
    if focus.relations:
        return _relation_agrees(focus, fact, people)
    if focus.user:
        return fact.subject_key == USER
    return True


def _known_by_relation(name: str, fact: Fact, people: Mapping[str, frozenset[str]]) -> bool:
    """ "My wife works at the hospital" is about Denise when Denise is the user's only wife (told
    "My wife is Denise, she works ...": the pronoun keeps the relation)."""
    relation = fact.subject_key or ""
    if relation not in people.get(name, frozenset()):
        return False
    return sum(relation in relations for relations in people.values()) == 1


#: the user expecting a child: "I'm 16 weeks pregnant", "we're expecting in May", "due on 2 May"
_EXPECTING = re.compile(
    r"\b(?:pregnant|expecting|due\s+(?:on|in)|due\s+date|having\s+an?\s+(?:girl|boy|baby))\b", re.IGNORECASE
)
#: the relations a question about a child on the way names ("the baby", "a boy or a girl")
_CHILD = frozenset({"child", "son", "daughter"})


def _relation_agrees(focus: Focus, fact: Fact, people: Mapping[str, frozenset[str]]) -> bool:
    if focus.relations & _CHILD and fact.subject_key == USER and _EXPECTING.search(fact.content):
        return True  # "When is the baby due?" of "I'm 16 weeks pregnant ..., due on 5 May"
    told = _fact_relations(fact, people)
    return any(relation_covers(asked, t) for asked in focus.relations for t in told)


def _possessed(focus: Focus, fact: Fact) -> bool:
    """ "Erik's mother": the relation is said right after the name in the fact too."""
    return any(r in (fact.subject_key or "") for r in focus.relations)


def _topic(question: str, focus: Focus) -> frozenset[str]:
    """The question's topic stems without whom it is about."""
    ignore = set(focus.names)
    words = [w for w in topic_words(question) if w not in ignore and not relation_word_typed(w)]
    # "How old am I?" asks an age: "We have an old collie" says none
    asking = _ASKING | ({stem("old")} if _HOW_OLD.search(question) else set())
    frame = {stem(m.group("frame").lower()) for m in _TO_BE.finditer(question)}
    counted = {stem(m.group("what").lower()) for m in _HOW_MANY.finditer(question)}
    return frozenset([*(stem(w) for w in words), *counted]) - asking - _HISTORY_WORDS - frame


_HOW_OLD = re.compile(r"\bhow\s+old\b", re.IGNORECASE)
#: what a count asks of: "days" of "How many days do I work?" (a frame word elsewhere: "What day")
_HOW_MANY = re.compile(r"\bhow\s+many\s+(?P<what>days|hours|times|weeks|nights|shifts)\b", re.IGNORECASE)
#: the frame of a plan asked about, not its topic: "When was the wedding going to be before?"
#: (the fact says "getting married ... on 14 March", never "going")
_TO_BE = re.compile(
    r"\b(?P<frame>going|supposed|meant|due|planned|scheduled|set)\s+to\s+(?:be|happen|take\s+place)\b",
    re.IGNORECASE,
)


#: question words typed without their apostrophe ("whats", "wheres")
_ASKING = frozenset({"what", "where", "who", "how", "when", "why"})
#: words that ask for an earlier value, not of what ("What day did choir use to be?")
_HISTORY_WORDS = frozenset(stem(w) for w in ("use", "used", "before", "previously", "earlier", "formerly"))


def named_relatives(question: str, people: Mapping[str, frozenset[str]]) -> list[str]:
    """The names of the people a question asks the name of by relation ("What's my husband's
    name?" -> Karim, when the user told of "my husband Karim"), as the user wrote them."""
    focus = focus_of(question, set(people))
    if focus.names or not focus.relations or Slot.NAME not in question_slots(question):
        return []
    return [
        name
        for name, relations in people.items()
        if any(relation_covers(asked, told) for asked in focus.relations for told in relations)
    ]


@lru_cache(maxsize=16_384)
def _dated(text: str) -> bool:
    return DATE.search(text) is not None


def cue_stems_of_kinds(kinds: frozenset[str]) -> frozenset[str]:
    """The stems of the words naming these kinds of event (the question's "holiday" is shared by
    a fact that names a trip as "a caravan in Tenby")."""
    return kind_word_stems(kinds)


_SLOT_VALUES = frozenset(s.value for s in Slot)


def _slots_of(fact: Fact) -> frozenset[Slot]:
    stored = frozenset(Slot(s) for s in (fact.slots or []) if s in _SLOT_VALUES)
    found = stored | fact_slots(fact.content, fact.attribute, fact.value)
    if fact.category == "constraint":  # a health constraint is what a diet must mind, if it is of food
        found |= {Slot.DIET, Slot.HEALTH} if _OF_FOOD.search(fact.content) else {Slot.HEALTH}
    return found


#: a constraint that bears on what one eats or drinks (not "I've got asthma", "a bad knee")
_OF_FOOD = re.compile(
    r"\b(?:allerg\w*|intoleran\w*|vegetarian|vegan|pescatarian|gluten|lactose|dairy|coeliac|celiac|diabet\w*"
    r"|kosher|halal|eat|eating|drink|drinking|food|salt|sodium|cholesterol|sugar|carbs?|fodmap|ibs|gout"
    r"|pregnan\w*|diet|go\s+easy\s+on|cut\s+(?:down|back)|avoid\w*|sober|alcohol|blood\s+pressure|nuts?)\b",
    re.IGNORECASE,
)


def match_facts(
    question: str,
    facts: Sequence[Fact],
    *,
    people: Mapping[str, frozenset[str]] | None = None,
    similarity: Mapping[str, float] | None = None,
    recall: Mapping[str, float] | None = None,
) -> list[FactMatch]:
    """The facts ranked for the question, best first (newer first among equals)."""
    people = people if people is not None else people_of(facts)
    # the names the user gave (a subject shown as itself: "Tomás", not "the vet" or "your sister")
    known_names = set(people) | {
        (f.subject_key or "").lower()
        for f in facts
        if f.subject_key not in (None, USER) and (f.subject or "").lower() == f.subject_key
    }
    focus = focus_of(question, known_names)
    # what is asked of them, not who they are ("What does my brother do?" asks a job, not family)
    asked = question_slots(" ".join(w for w in question.split() if not relation_word(w.strip("?!.,"))))
    topic = _topic(question, focus)
    content_slots = asked - {Slot.EVENT}  # a plan is told apart by its words, not by being a plan
    thing_named = bool(_MY_THING_CALLED.search(question))
    when = bool(_WHEN.match(question))
    opinion = bool(_OPINION.search(question))
    yes_no = bool(_YES_NO.match(question))
    top_recall = max((recall or {}).values(), default=0.0) or 1.0
    out: list[FactMatch] = []
    for fact in facts:
        agreeing = agrees(focus, fact, people)
        if not agreeing:  # about someone else: never an answer, ranked by recall alone
            recalled = (recall or {}).get(fact.id, 0.0) / top_recall
            out.append(
                FactMatch(
                    fact=fact, agrees=False, slots=frozenset(), main=frozenset(), share=0.0, similarity=0.0,
                    score=RECALL * recalled, plain=False, why="about someone else",
                )
            )  # fmt: skip
            continue
        stems = (
            word_stems(f"{fact.content} {fact.subject or ''}")
            | set(fact.keywords or [])
            | _distances(fact.content)
        )
        slots = asked & _slots_of(fact) - _not_the_users_name(thing_named, fact)
        main = asked & attribute_slots(fact.attribute, fact.value) - _not_the_users_name(thing_named, fact)
        kinds = event_kinds(question) & event_kinds(f"{fact.content} {' '.join(fact.keywords or [])}")
        shared = topic & (stems | cue_stems(slots - {Slot.EVENT}) | cue_stems_of_kinds(kinds))
        if when and not _dated(fact.content):
            shared = frozenset()  # a "when" question is answered by a fact that says when
        elif when:
            shared |= topic & _WHEN_WORDS  # "What day is choir?": the date said is the day asked
        share = len(shared) / len(topic) if topic else 0.0
        meaning = (similarity or {}).get(fact.id, 0.0)
        recalled = (recall or {}).get(fact.id, 0.0) / top_recall
        slot_share = len(slots & content_slots) / len(content_slots) if content_slots else 0.0
        main_share = len(main & content_slots) / len(content_slots) if content_slots else 0.0
        score = (
            AGREES * agreeing
            + SLOT * (slot_share + main_share) / 2
            + SHARE * share
            + MEANING * meaning
            + RECALL * recalled
        )
        relevant = _plain(focus, topic, share, slots & content_slots, agreeing)
        out.append(
            FactMatch(
                why=_why(focus, slots, shared, meaning) if agreeing else "about someone else",
                fact=fact,
                agrees=agreeing,
                slots=slots,
                main=main,
                share=share,
                similarity=meaning,
                score=score,
                # a yes/no question about someone alone ("Do we still have a dog?") needs no words
                plain=not opinion and (not yes_no or share == 1.0 or not topic) and relevant,
                relevant=relevant,
            )
        )
    out.sort(key=lambda m: (m.score, m.fact.created_at), reverse=True)
    return out


def _why(focus: Focus, slots: frozenset[Slot], shared: frozenset[str], meaning: float) -> str:
    whom = [*(n.title() for n in sorted(focus.names)), *(f"your {r}" for r in sorted(focus.relations))]
    parts = [f"about {', '.join(whom) if whom else 'you' if focus.user else 'anyone'}"]
    if slots:
        parts.append("speaks of " + ", ".join(sorted(s.value for s in slots)))
    if shared:
        parts.append("shares " + ", ".join(sorted(shared)))
    if meaning:
        parts.append(f"meaning {meaning:.2f}")
    return "; ".join(parts)


#: the name of a thing of the user's ("What's my restaurant called?", "my boat's name")
_MY_THING_CALLED = re.compile(
    r"\b(?:my|our)\s+(?P<thing>[a-z]+)(?:['\u2019]s\s+name|\s+called|\s+named)\b", re.I
)


def _not_the_users_name(thing_named: bool, fact: Fact) -> frozenset[Slot]:
    """A name asked of a thing ("What's my restaurant called?") is not the user's own name."""
    mine = fact.subject_key == USER and fact.attribute == stem("name")
    return frozenset({Slot.NAME}) if thing_named and mine else frozenset()


def _distances(text: str) -> frozenset[str]:
    """A race named by its distance ("the 10k"): a word of the fact a question may ask by."""
    return frozenset(m.group().lower() for m in _DISTANCE.finditer(text))


_DISTANCE = re.compile(r"\b\d{1,3}\s?(?:k|km)\b", re.IGNORECASE)


def _plain(focus: Focus, topic: frozenset[str], share: float, slots: frozenset[Slot], agreeing: bool) -> bool:
    """The fact answers the question plainly: about whom it asks, and of what it asks (a slot,
    or half its words); a question about no one in particular needs all its words ("What is the
    capital of France?" is never answered with "You lived in France")."""
    if not agreeing:
        return False
    if not focus.anyone:
        return bool(topic) and (share == 1.0 or (share >= 0.5 and bool(slots)))
    if not topic and not slots:
        return bool(focus.names or focus.relations)  # "Who is Omar?"
    return bool(slots) or share >= 0.5


def who_is(question: str) -> str | None:
    """The name a "Who is X?" question asks about, or None."""
    found = _WHO_IS.match(question)
    return found.group("name") if found else None


def single_valued(matches: Sequence[FactMatch]) -> bool:
    """The best match answers with one value at a time (a home, a job, a car): the newest
    fact of that slot is the answer, not all of them."""
    return bool(matches) and bool(matches[0].slots & SINGLE_VALUED)


def told_of(question: str, facts: Sequence[Fact]) -> bool:
    """Some fact (current or earlier) is about whom the question asks and of what it asks: the
    user told of it, whatever words the question uses ("What bike do I ride now?" and "I bought
    a Canyon Grail" after selling the old bike), or it asks the name of someone the user named by
    that relation ("What's my dog called?" after "got a staffie called Tyson")."""
    people = people_of(facts)
    if named_relatives(question, people):
        return True
    matches = match_facts(question, facts, people=people)
    return any(m.agrees and (m.slots or m.share > 0 or m.plain) for m in matches)


def never_told_of(question: str, facts: Sequence[Fact], texts: Sequence[str]) -> bool:
    """The question asks about someone by name or relation the user never told of: no fact is
    about them and no remembered text names them ("What is my brother's name?" when only a
    sister was mentioned)."""
    people = people_of(facts)
    known = set(people) | {(f.subject_key or "").lower() for f in facts if f.subject_key not in (None, USER)}
    focus = focus_of(question, known)
    if not (focus.names or focus.relations):
        return False
    if any(agrees(focus, f, people) for f in facts):
        return False
    said = [t.lower() for t in texts]
    if any(n in t for n in focus.names for t in said):
        return False
    mentioned = {r for t in texts for r in relations_in(t)}
    return not any(relation_covers(asked, told) for asked in focus.relations for told in mentioned)
