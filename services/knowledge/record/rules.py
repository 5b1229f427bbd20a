"""Which older facts a new fact supersedes (pure rules, no model, no store).

* **Same subject, same attribute, another value** supersedes when the attribute has one value
  at a time (where one lives, one's name, job, car, commute, age, a birthday, a deadline, an
  appointment, the rent) or when the new statement says it changed ("now", "no longer", "not
  Berlin anymore", "got a new job", an "Update:" label).
* **An end** ("I sold the Golf", "I quit the Clifton Wanderers", "my Surly got stolen") closes
  every current fact that names what ended.
* **A move** of a date ("the deadline moved to March 17", "the ride was pushed back to July 5")
  closes the current facts about the same thing that carried a date: the same subject and
  attribute, or a dated fact naming every word of what moved.

A fact never supersedes one told in the same message, and a value is no change when one
contains the other ("Berlin" / "Berlin, in Kreuzberg").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.knowledge.record.extraction import (
    DATE,
    LOST_WORK,
    USER,
    WEEKDAY_NAME,
    Category,
    Change,
    ExtractedFact,
    says_a_date,
)
from services.knowledge.record.lists import without_item
from services.knowledge.record.slots import (
    LANGUAGES,
    Slot,
    attribute_slots,
    event_kinds,
    event_words,
    fact_slots,
    is_occupation,
    relation_word,
    word_stems,
)
from services.knowledge.record.slots import SINGLE_VALUED as SINGLE_SLOTS
from services.recall.lexical import stem
from thea.models import Fact
from thea.words import STOPWORDS, terms

#: attributes (stems) that hold one value at a time
SINGLE_VALUED = frozenset(
    {
        stem(w)
        for w in (
            "name", "live", "job", "drive", "commute", "age", "birthday", "deadline", "appointment",
            "rent", "salary", "address", "phone", "email", "surname", "nationality", "hometown",
            "partner", "husband", "wife", "boss", "manager", "team", "school", "employer", "title",
            "anniversary",
        )
    }
)  # fmt: skip
#: relations one has one of at a time: a new name for them replaces the old ("my new manager is
#: Kwame"); a second brother or friend is another person
_ONE_AT_A_TIME = frozenset(
    {"boss", "partner", "husband", "wife", "girlfriend", "boyfriend", "mother", "father"}
)
#: attributes that describe what someone is or does for a living: one replaces another on a change
_ROLE = frozenset({"be-a", "job"})


def words(text: str) -> set[str]:
    return set(terms(text))


@dataclass(frozen=True)
class Replacement:
    old_id: str
    #: why, for the trace and the fact's history
    reason: str


def _same_attribute(new: ExtractedFact, old: Fact) -> bool:
    if new.attribute == old.attribute:
        return True
    # "I'm a nurse" and "I work as a midwife" are one job; "I'm a student" is no job
    return (
        new.attribute in _ROLE
        and old.attribute in _ROLE
        and (new.attribute != "be-a" or is_occupation(new.value))
        and (old.attribute != "be-a" or is_occupation(old.value or ""))
    )


def _differs(new_value: str, old_value: str) -> bool:
    a, b = " ".join(new_value.lower().split()), " ".join(old_value.lower().split())
    return bool(a) and a not in b and b not in a


def _roots(said: set[str]) -> set[str]:
    return {stem(w) for w in said}


def _does(word: str, roots: set[str]) -> bool:
    """The word names who does what the old fact names ("the roofers" of "the roof repair", "the
    builders" of "the building work", "the painter" of "painting the hall")."""
    root = stem(word)
    return len(root) > 5 and root.endswith("er") and root[:-2] in roots


def _named_in(about: Sequence[str], old: Fact) -> list[str]:
    """The words of what ended or moved that the old fact names, in any form ("driving" of "I
    drive"), as a kind of event ("the wedding" of "Omar is getting married") or as who does it
    ("the roofers" of "the roof repair")."""
    said = words(old.content) | words(old.subject or "")
    kinds = event_words(f"{old.content} {old.subject or ''}")
    roots = _roots(said)
    return [w for w in about if w in said or stem(w) in roots or _same_kind(w, kinds) or _does(w, roots)]


def _names_all(about: Sequence[str], old: Fact) -> bool:
    """Every word of what ended or moved is in the old fact (``_named_in``)."""
    return bool(about) and len(_named_in(about, old)) == len(about)


def _ends_only_part(new: ExtractedFact, old: Fact) -> bool:
    """Someone who left or died ("Skye passed away") is only part of an older fact that says
    where the user lives or works ("I live near Inverness with ... our collies, Bran and Skye"):
    that fact stays; facts about them, or about having them, end."""
    if new.verb == "move" and new.subject_key != USER and old.subject_key == new.subject_key:
        return Slot.HOME.value not in old.slots  # "Josh moved out": he is still a chef, elsewhere
    left = (
        new.subject_key != USER
        and old.subject_key != new.subject_key
        and (new.verb in _BEINGS_END or _GONE_FOR_GOOD.search(new.text) is not None)
    )
    if not (left or new.verb in _PARTING):  # "Olivier and I split up" is a parting
        return False  # a thing stolen or sold ends what it was part of ("I ride a Brompton to work")
    return bool(_single_slots(old) & {Slot.HOME, Slot.JOB, Slot.WORKPLACE, Slot.STUDY})


#: a death however said: "had to be put down", "didn't make it", "was killed"
_GONE_FOR_GOOD = re.compile(
    r"\b(?:died|passed\s+away|put\s+(?:down|to\s+sleep)|did(?:n['\u2019]t|\s+not)\s+(?:make\s+it|survive)"
    r"|(?:was|got)\s+killed)\b",
    re.IGNORECASE,
)
#: how a couple parts: "split up", "broke up", "divorced", "separated"
_PARTING = frozenset({"split", "break", "divorce", "separate"})
#: how people and pets leave a life: "died", "passed away", "moved out", "left"
_BEINGS_END = frozenset({"die", "pass", "move", "leave"})


def _same_kind(word: str, kinds: frozenset[str]) -> bool:
    """The word names a kind of event the old fact names too ("wedding" / "married")."""
    kind = event_words(word)
    return bool(kind) and kind <= kinds


def _names_most(about: Sequence[str], old: Fact) -> bool:
    """At least half the words of what moved are in the old fact (``_named_in``: "The vet called,
    Pixel's appointment got moved" is about "Pixel has a vet appointment"; "my coaching day" about
    "I coach the under-tens")."""
    return bool(about) and len(_named_in(about, old)) * 2 >= len(about)


def _single_slots(fact: Fact | ExtractedFact) -> frozenset[Slot]:
    """Its one-at-a-time slots, but not who its subject is ("My husband Karim teaches history"
    says what Karim does; "husband" is who he is, not a second thing it says)."""
    found = fact_slots(fact.content, fact.attribute, fact.value) if isinstance(fact, Fact) else fact.slots
    return (found & SINGLE_SLOTS) - {Slot.PARTNER}


def _same_slot(new: ExtractedFact, old: Fact) -> bool:
    """The new fact's main slot is the old fact's main slot and one held a value at a time, and
    the old fact says nothing else of that kind ("I just got promoted to lead engineer" replaces
    "I'm a developer", not "I'm a developer at Paylark": where one works is still true)."""
    main = attribute_slots(new.attribute, new.value) & SINGLE_SLOTS
    if not main or not main & attribute_slots(old.attribute, old.value):
        return False
    return _single_slots(old) <= _single_slots(new) | main


def _overlap(new: ExtractedFact, old: Fact) -> bool:
    """The two speak of one thing: a slot in common, or the new one has none to tell ("We moved
    from Dundee to Perth" is no news of "I teach at a school in Dundee")."""
    mine = _single_slots(new) | attribute_slots(new.attribute, new.value)
    return not mine or bool(mine & (_single_slots(old) | attribute_slots(old.attribute, old.value)))


def _same_subject(new: ExtractedFact, old: Fact) -> bool:
    """The same subject, or the same relation in other words ("my boss" / "my manager")."""
    if old.subject_key == new.subject_key:
        return True
    relation = relation_word(new.subject_key)
    return relation is not None and relation == relation_word(old.subject_key or "")


#: the attribute of a plain "I'm ...": it says many things, one at a time only of one kind
_BE = "be"


#: a diet, of which one keeps one at a time (an allergy or a condition is kept beside it)
_DIET = re.compile(
    r"\b(?:vegan|vegetarian|veggie|pescatarian|keto|paleo|carnivore|flexitarian|plant-based|omnivore)\b",
    re.IGNORECASE,
)
#: words of a changed value that say it changed, not what it is about
_CHANGE_ONLY = frozenset({"not", "anymore", "now", "no", "longer"})


def _one_thing(new: ExtractedFact, old: Fact) -> bool:
    """A changed "I'm ..." replaces an "I'm ..." about the same thing: a word in common, or a slot
    when they are not both health or diet constraints, which hold side by side ("I'm now a vegan"
    replaces "I'm vegetarian", not "I'm coeliac"; "I'm engaged now" replaces "I'm single")."""
    if new.attribute != _BE:
        return True
    if (words(new.value) & words(old.value or "")) - STOPWORDS - _CHANGE_ONLY:
        return True
    if new.category is Category.CONSTRAINT and old.category == Category.CONSTRAINT.value:
        return bool(_DIET.search(new.value) and _DIET.search(old.value or ""))  # one diet at a time
    mine, theirs = new.slots, fact_slots(old.content, old.attribute, old.value)
    return not (mine and theirs) or bool(mine & theirs)


def _job_beside_study(new: ExtractedFact, old: Fact) -> bool:
    """A student who tells of a job has both ("I'm a law student at Warwick", then "I've got a
    part-time job at Waterstones"), unless they say it changed ("now I work full time")."""
    studies = Slot.STUDY in fact_slots(old.content, old.attribute, old.value)
    return studies and new.change is Change.NONE and Slot.STUDY not in new.slots and Slot.JOB in new.slots


#: times one works, of which one holds at a time ("nurse on nights" -> "switched to days")
_SHIFTS = frozenset(
    {"days", "nights", "earlies", "lates", "mornings", "afternoons", "evenings", "weekends", "weekdays",
     "part-time", "full-time"}
)  # fmt: skip
#: verbs of a switch from one thing to another
SWITCHES = frozenset({"switch", "change", "transfer"})


def switched_from(new: ExtractedFact, old_content: str) -> str:
    """What a switch that does not say what it replaced replaced in an older fact: the same noun
    with another word before it ("night shifts" in "... mostly night shifts" for "I've switched to
    day shifts"), or ""."""
    if new.old_value or new.change is not Change.CHANGE:
        return ""
    if new.verb == "move":  # "moved to the renal ward" after "... on a cardiac ward"
        return _same_noun(new, old_content)
    if new.verb not in SWITCHES:
        return ""
    language = re.sub(r"^to\s+", "", new.value.split(",")[0].strip()).lower()
    language = re.sub(r"\s+now$", "", language)
    for kinds in (LANGUAGES, _SHIFTS):
        if language in kinds:  # "switched to Portuguese" after "I'm learning Spanish ...", days after nights
            words_said = (m.group() for m in re.finditer(r"[A-Za-z-]+", old_content))
            return next((w for w in words_said if w.lower() in kinds and w.lower() != language), "")
    studied = _STUDYING.search(old_content)
    if studied and len(language.split()) <= 3 and studied.group("what").lower() != language:
        return studied.group("what")  # "switched to politics" after "... studying law"
    return _same_noun(new, old_content)


def _same_noun(new: ExtractedFact, old_content: str) -> str:
    """The same noun with another word before it in the older fact ("night shifts" for "day
    shifts", "cardiac ward" for "the renal ward"), or ""."""
    said = re.match(
        r"^(?:to\s+)?(?:(?:the|a|an)\s+)?(?P<kind>[\w-]+)\s+(?P<noun>[\w-]+)\s*$",
        new.value.split(",")[0].strip(),
    )
    if said is None or said.group("kind").lower() in STOPWORDS:
        return ""
    noun = re.escape(said.group("noun"))
    before = re.search(rf"\b(?P<kind>[\w-]+)\s+{noun}\b", old_content, re.IGNORECASE)
    if before is None or before.group("kind").lower() in (*STOPWORDS, said.group("kind").lower()):
        return ""
    return before.group()


#: what someone studies: "studying law", "doing medicine", "reading history"
_STUDYING = re.compile(
    r"\b(?:studying|doing|reading|studies|does|reads)\s+(?P<what>[\w-]+(?:\s+[\w-]+)?)(?=\s*(?:$|[,.;!]|\s+(?:at|in)\b))",
    re.IGNORECASE,
)
_PLACE_NAMED = re.compile(r"\b(?:in|to|at|near)\s+(?P<place>[A-Z][\w-]+)")
_WEEKDAY = re.compile(rf"\b(?P<day>{WEEKDAY_NAME})s?\b", re.IGNORECASE)
#: a change said as one: "instead", "changed his mind"
_CHANGE_SAID = re.compile(r"\b(?:instead|changed\s+(?:his|her|their)\s+mind)\b", re.IGNORECASE)


def _instead(new: ExtractedFact, old: Fact) -> bool:
    """A change of someone's place or weekly day, said as a change ("Adam is going to Leeds
    instead" after "... university in Manchester"; "Kate's now coming on Saturdays" after "Kate
    visits on Sundays"): the older one is replaced."""
    if new.change is not Change.CHANGE or new.subject_key != old.subject_key:
        return False
    if new.subject_key == USER:
        return _thing_goes_elsewhere(new, old)
    for pattern, group in ((_PLACE_NAMED, "place"), (_WEEKDAY, "day")):
        said, before = pattern.search(new.text), pattern.search(old.content)
        if said and before and said.group(group).lower() != before.group(group).lower():
            return group == "day" or _CHANGE_SAID.search(new.text) is not None
    return False


def _thing_goes_elsewhere(new: ExtractedFact, old: Fact) -> bool:
    """ "The trip is to Brazil now" after "I'm learning Spanish for a trip to Mexico": the thing
    the user changed ("the trip") is in the old fact, going to another place."""
    said, before = _PLACE_NAMED.search(new.text), _PLACE_NAMED.search(old.content)
    if not (said and before) or said.group("place").lower() == before.group("place").lower():
        return False
    return bool(new.attribute) and new.attribute in {stem(w) for w in words(old.content)}


#: an amount that names one fact only: money, thousands, three digits ("£1,050"; not "7")
_AN_AMOUNT = re.compile(r"[£$€]|\d[,.]\d|\d{3}")


def _replaces_what_it_names(new: ExtractedFact, old: Fact, same: bool) -> bool:
    """The new fact says what it replaced and the old fact holds it ("we swapped the Clio for a
    Tesla", "not Berlin anymore"; "I've switched to day shifts" after "... mostly night shifts")."""
    if (new.subject_key == old.subject_key and switched_from(new, old.content)) or _instead(new, old):
        return True
    if new.change is Change.CHANGE and new.about and new.subject_key == old.subject_key:
        return _names_all(new.about, old)  # "My rotation changed, I'm in A&E now"
    if not new.verb and new.old_value:  # "(Sorry, I meant) Crete, not Cyprus": whoever it was of
        return re.search(rf"\b{re.escape(new.old_value)}\b", old.content, re.IGNORECASE) is not None
    if new.old_value and _AN_AMOUNT.search(new.old_value) and new.old_value in old.content:
        # "the rent is £1,100 not £1,050": whoever said the amount ("Landlord's put the rent up to £1,050")
        return bool(words(new.text) & words(old.content) - set(STOPWORDS) - words(new.old_value))
    return (
        bool(new.old_value)
        and (new.old_value.lower() in old.content.lower() or _names_all(tuple(words(new.old_value)), old))
        and (same or (old.subject_key == new.subject_key and _overlap(new, old)))
    )


def _lost_the_work_of(new: ExtractedFact, old: Fact) -> bool:
    """ "Got laid off today", "I was made redundant": the job and where it was are over ("I drive
    lorries for Eddie Stobart" ends, though a promotion would not end where one works)."""
    lost = new.attribute == "job" and new.subject_key == old.subject_key and LOST_WORK.search(new.text)
    if not lost or old.category == Category.CONSTRAINT.value:
        return False  # "no shellfish, which is funny for a sushi chef" still holds
    return bool({Slot.JOB.value, Slot.WORKPLACE.value} & set(old.slots))


#: someone or something away or lost: "went missing", "ran off", "is in hospital", "off work"
_AWAY = re.compile(
    r"\b(?:missing|disappeared|vanished|escaped|ran\s+(?:away|off)|run\s+away"
    r"|(?:got|is|was|been|are|were|'s)\s+lost|in\s+hospital|off\s+(?:work|sick))\b",
    re.IGNORECASE,
)
#: back again: "came home", "is back", "turned up", "was found", "out of hospital", "back at work"
_BACK = re.compile(
    r"\b(?:came|come|comes|coming|got|is|'s|was|are|were|been)\s+(?:back|home)\b"
    r"|\b(?:turned|turns)\s+up\b|\b(?:was|were|been|got)\s+found\b|\bfound\s+(?:him|her|them|it)\b"
    r"|\bout\s+of\s+hospital\b|\bdischarged\b|\bback\s+(?:at|to|in)\s+work\b",
    re.IGNORECASE,
)


def says_back(text: str) -> bool:
    """It says someone or something is back (``_BACK``), and not away again."""
    return _BACK.search(text) is not None and not _AWAY.search(text)


def _back_again(new: ExtractedFact, old: Fact) -> bool:
    """ "Saffron came home" after "Saffron went missing on Sunday", "Mum's out of hospital" after
    "Mum is in hospital", "I'm back at work" after "Off work with flu": the absence is over."""
    return says_back(new.text) and _AWAY.search(old.content) is not None and _same_subject(new, old)


#: the reason given when an end took one item out of a list
ONE_ITEM = "one item ended"
#: how long an end holds, not what ended ("stopped the Saturday golf for now")
_FOR_A_TIME = frozenset({"now", "anymore", "more", "longer", "moment", "while", "being"})
#: words of a habit that name no thing of their own ("stopped doing Thursdays", "going on Fridays",
#: "dropped the Friday shifts")
_LIGHT_VERBS = frozenset(
    {"doing", "going", "taking", "attending", "working", "volunteering"}
    | {
        "shift",
        "shifts",
        "session",
        "sessions",
        "class",
        "classes",
        "lesson",
        "lessons",
        "contract",
        "contracts",
    }
)


def dropped_item(new: ExtractedFact, old: Fact) -> str | None:
    """The one item of a list in ``old`` that the end ``new`` takes out ("I've stopped doing
    Thursdays at the shop" of "I volunteer at the Oxfam shop on Tuesdays and Thursdays"; "dropped
    maths" of "doing chemistry, biology and maths"), or None. Every other word the end says must
    be in ``old`` too, so it is the same habit, not another one on a Thursday."""
    mine = new.subject_key == USER and (old.subject or "").lower().startswith("your ")  # "My clients are ..."
    if new.change is not Change.END or not (new.subject_key == old.subject_key or mine):
        return None
    if new.verb in _PARTING | _BEINGS_END or _GONE_FOR_GOOD.search(new.text):
        return None  # someone who left a list of people: ``_ends_only_part``
    ended = new.value.split(",")[0]  # "gave up on the Italian, too much at once": not the reason
    said = [w for w in dict.fromkeys(terms(ended)) if w not in STOPWORDS and len(w) > 2]
    said = [w for w in said if w not in _LIGHT_VERBS and w not in _FOR_A_TIME]
    items = [w for w in said if without_item(old.content, w) is not None]
    if len(items) != 1:
        return None
    rest = [w for w in said if w != items[0]]
    return items[0] if len(_named_in(rest, old)) == len(rest) else None


def _ended_by(new: ExtractedFact, old: Fact) -> str | None:
    """Why the end ``new`` closes ``old``: one item of its list, or all of it; or None."""
    if dropped_item(new, old) is not None:
        return f"{ONE_ITEM}: {new.text}"
    if _names_all(new.about, old) and not _ends_only_part(new, old):
        return f"ended: {new.text}"
    return None


def replaced_by(new: ExtractedFact, old: Fact) -> str | None:
    """Why ``new`` supersedes ``old`` (a current fact of the same user), or None."""
    if new.change is Change.END:
        return _ended_by(new, old)
    if _job_beside_study(new, old):
        return None
    same = _same_subject(new, old) and _same_attribute(new, old)
    name = same and new.attribute == stem("name") and new.subject_key != USER
    if name and relation_word(new.subject_key) not in _ONE_AT_A_TIME:
        return None  # "my brother is called Sam" after "... Tom": two brothers
    if new.change is Change.MOVE:
        if (same or _moved_of(new, old)) and (old.value is None or _differs(new.value, old.value or "")):
            return f"moved: {new.text}"
        return None
    if _replaces_what_it_names(new, old, same) or _back_again(new, old):
        return f"changed: {new.text}"  # "we swapped the Clio for a Tesla", "Saffron came home"
    if not same:
        if (
            old.subject_key == new.subject_key
            and _same_slot(new, old)
            and _differs(new.value, old.value or "")
        ):
            return f"changed: {new.text}"
        return None
    single = new.attribute in SINGLE_VALUED
    if (single or new.change is Change.CHANGE) and _differs(new.value, old.value or ""):
        return f"changed: {new.text}" if _one_thing(new, old) else None
    if new.dated and DATE.search(old.content) and _differs(new.value, old.value or ""):
        return f"changed: {new.text}"  # the same thing on another date ("the exam is on July 21")
    return None


def _names_what_moved(new: ExtractedFact, old: Fact) -> bool:
    """The old fact names what moved: its head word and most of its words."""
    return _names_all(new.about[-1:], old) and _names_most(new.about, old)


def _moved_of(new: ExtractedFact, old: Fact) -> bool:
    """The old fact is about what moved: it names it, and it says when (a date moved to another
    date ends the date, not "I've joined the bowls club" when "Bowls has moved to Wednesdays")."""
    return _names_what_moved(new, old) and (not new.dated or DATE.search(old.content) is not None)


def _when_told_beside(new: ExtractedFact, current: Sequence[Fact]) -> list[Replacement]:
    """A move of something whose day was told in a sentence of its own, beside the one naming it
    ("I've joined the bowls club, we play on Thursdays." then "Bowls has moved to Wednesdays"):
    the dated facts of the message that named it, when that message dated nothing else."""
    if new.change is not Change.MOVE or not new.dated or not new.about:
        return []
    named = {f.source_message_id for f in current if _names_what_moved(new, f)}
    out: list[Replacement] = []
    for source in named - {None}:
        dated = [
            f for f in current
            if f.source_message_id == source and DATE.search(f.content) and _differs(new.value, f.value or "")
        ]  # fmt: skip
        if len(dated) == 1 and dated[0].subject_key in (new.subject_key, USER):
            out.append(Replacement(dated[0].id, f"moved: {new.text}"))
    return out


def _undated_words(value: str) -> tuple[str, ...]:
    """What a new date is given to, without the date: "my library day to Thursdays" -> library."""
    unsaid = STOPWORDS | {"day", "days", "date", "time"}
    return tuple(w for w in sorted(words(DATE.sub(" ", value))) if w not in unsaid)


def _rescheduled(new: ExtractedFact, current: Sequence[Fact], taken: set[str]) -> Replacement | None:
    """A plan told again with a new date replaces the dated fact about the same plan: "we now fly
    out on April 5" after "we're going to Japan, flying out on April 3". Only the one plan that
    shares the most words (kinds of event counted as one: a flight, a wedding)."""
    if not new.dated or new.change not in (Change.CHANGE, Change.MOVE) or new.attribute == stem("live"):
        return None  # moving house in April reschedules no plan
    said, kinds = event_words(new.text), event_kinds(new.text)
    best: tuple[int, Fact] | None = None
    for old in current:
        if old.id in taken or old.subject_key != new.subject_key or not DATE.search(old.content):
            continue
        if not _differs(new.value, old.value or "") or DATE.search(new.text) is None:
            continue
        thing = _undated_words(new.value)
        if not kinds & event_kinds(old.content) and not _names_most(thing, old):
            continue  # the same kind of plan (a flight, a wedding) or thing, not just the same place
        shared = len(said & event_words(old.content)) + len(_roots(set(thing)) & _roots(words(old.content)))
        if shared and (best is None or shared > best[0]):
            best = (shared, old)
    return Replacement(best[1].id, f"rescheduled: {new.text}") if best else None


#: a place a fact names: "in York", "at the Grand", "to Mexico"
_PLACE_IN = re.compile(r"\b(?:in|at|to)\s+(?P<place>(?:the\s+)?[A-Z][\w'&-]+(?:\s+[A-Z][\w'&-]+)*)")
#: a place typed in lower case: "booked for 3 august in york" (one word, last or before a date)
_PLACE_IN_LOWER = re.compile(r"\b(?:in|at)\s+(?P<place>[a-z][\w'-]{2,})(?=\s*(?:$|[,.;!]|\s+on\b|\s+\d))")
#: words after "in" or "at" that are no place one could move an event from
_NO_PLACE_TEXT = (
    "home work school uni college town hospital bed church time advance person total all general "
    "future past end case fact mind charge touch"
)
_NO_PLACE_WORDS = frozenset(_NO_PLACE_TEXT.split())


def place_named(text: str) -> str | None:
    """The place a fact names ("in York", "at the Grand Hotel"; "in york" typed in lower case), or
    None."""
    found = _PLACE_IN.search(text)
    if found:
        return found.group("place")
    lower = _PLACE_IN_LOWER.search(text)
    if (
        lower is None
        or lower.group("place") in _NO_PLACE_WORDS | STOPWORDS
        or DATE.match(lower.group("place"))
    ):
        return None
    return lower.group("place")


def _is_event(fact: Fact) -> bool:
    return Slot.EVENT.value in fact.slots or bool(event_kinds(fact.content))


def _moved_elsewhere(new: ExtractedFact, current: Sequence[Fact]) -> list[Replacement]:
    """What a move says moved, when its own words cannot find it: "it" is the event told last ("My
    sister is getting married in York on 12 June" then "They've moved it to 19 June"), and an event
    moved to another place is the latest fact of its kind that says where ("The wedding has moved
    to Harrogate"). A date move needs a dated fact, a place move one that names a place; when the
    last message that told such an event told two, nothing is guessed."""
    to_date = says_a_date(new.value)
    if new.change is not Change.MOVE or not (new.refers_back or not to_date):
        return []
    kinds = event_kinds(" ".join(new.about))
    fits = [
        f
        for f in current
        if _is_event(f)
        and (DATE.search(f.content) if to_date else place_named(f.content))
        and (new.refers_back or kinds & event_kinds(f.content) or _names_what_moved(new, f))
    ]
    if new.refers_back and new.context:  # the clause before named it: "failed my driving test, rebooked"
        fits = [f for f in fits if set(new.context) & word_stems(f.content)] or fits
    if not fits:
        return []
    last = max(f.valid_from or 0 for f in fits)
    latest = [f for f in fits if (f.valid_from or 0) == last]
    return [Replacement(latest[0].id, f"moved: {new.text}")] if len(latest) == 1 else []


def supersessions(new: ExtractedFact, current: Sequence[Fact]) -> list[Replacement]:
    """Every current fact ``new`` replaces, with the reason."""
    if new.refers_back:
        return _moved_elsewhere(new, current)
    out: list[Replacement] = []
    for old in current:
        reason = f"ended: {new.text}" if _lost_the_work_of(new, old) else replaced_by(new, old)
        if reason is not None:
            out.append(Replacement(old.id, reason))
    if not out:
        out = _when_told_beside(new, current) or _moved_elsewhere(new, current)
    if not out:
        plan = _rescheduled(new, current, set())
        if plan is not None:
            out.append(plan)
    return out
