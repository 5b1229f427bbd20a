"""Life slots: what a fact (or a question) is about, whatever words it uses.

People tell an assistant about the same few parts of their life: their name, age and
birthday, where they live and where they are from, what they do and where, what they study,
their partner, children, family, friends and pets, what they drive or ride and how they get to
work, their health and diet, what they like, their hobbies and teams, money matters, and
dated plans (a trip, an appointment, a deadline, a wedding). A **slot** names one of these.

A statement's slots come from its words ("We moved to Malmö" -> home; "Just got promoted to
lead engineer" -> job; "a beagle named Kaffe" -> pet) and from what it replaced (a new fact
that supersedes "My bike is a Cannondale" takes over its *bike* slot, so "I bought a Canyon
Grail" answers "What bike do I ride now?"). A question's slots come from its words the same
way ("Where do we live now?" -> home, "What are my children called?" -> children, name).
Matching slots rather than words is what lets "kids" answer "children" and "moved to" answer
"live".

The lexicon is general vocabulary of everyday life (kinship, occupations, vehicles and their
common makes, pets and common breeds, health and diet words), not any one person's sentences;
words it does not know are still matched by their own stems and by meaning (recall's vectors).
Pure functions, no store and no model.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from enum import StrEnum
from functools import lru_cache

from services.recall.lexical import stem
from thea.words import WORD, lower_words, without_possessive
from thea.words import words as read_words

#: languages one speaks or learns ("I've switched to Portuguese" replaces "Spanish")
_LANGUAGES_TEXT = (
    "english spanish portuguese french german italian dutch mandarin chinese cantonese japanese korean "
    "arabic hindi urdu bengali punjabi russian polish turkish greek swedish norwegian danish finnish hebrew "
    "persian farsi swahili thai vietnamese indonesian welsh irish gaelic latin ukrainian czech hungarian "
    "romanian tagalog catalan croatian serbian"
)
LANGUAGES = frozenset(_LANGUAGES_TEXT.split())


class Slot(StrEnum):
    """One part of a person's life a fact can be about."""

    NAME = "name"
    AGE = "age"
    BIRTHDAY = "birthday"
    HOME = "home"
    ORIGIN = "origin"
    JOB = "job"
    WORKPLACE = "workplace"
    STUDY = "study"
    #: the people who work for or with someone ("Who works at my shop?")
    STAFF = "staff"
    PARTNER = "partner"
    CHILDREN = "children"
    FAMILY = "family"
    FRIEND = "friend"
    PET = "pet"
    CAR = "car"
    BIKE = "bike"
    COMMUTE = "commute"
    HEALTH = "health"
    DIET = "diet"
    LIKES = "likes"
    HOBBY = "hobby"
    EVENT = "event"
    MONEY = "money"
    CONTACT = "contact"
    LANGUAGE = "language"


#: a subject holds one value of these at a time: a newer one replaces the older
SINGLE_VALUED = frozenset(
    {
        Slot.NAME,
        Slot.AGE,
        Slot.BIRTHDAY,
        Slot.HOME,
        Slot.JOB,
        Slot.WORKPLACE,
        Slot.PARTNER,
        Slot.CAR,
        Slot.BIKE,
        Slot.COMMUTE,
    }
)

_OCCUPATIONS = (
    "accountant actor administrator agent analyst architect artist assistant baker barista builder butcher "
    "carpenter cashier chef cleaner clerk "
    "coach consultant cook dentist designer dev developer doctor driver economist editor electrician "
    "engineer "
    "farmer firefighter freelancer gardener hairdresser journalist judge lawyer lecturer librarian manager "
    "mechanic midwife musician nurse optician painter paramedic pharmacist photographer physician physio "
    "physiotherapist pilot plumber poet police policeman policewoman postman postwoman professor programmer "
    "psychologist receptionist researcher retired salesman scientist secretary singer soldier surgeon "
    "tailor teacher technician therapist translator tutor vet veterinarian waiter waitress writer "
    "officer specialist coordinator director executive supervisor ceo cto founder contractor intern "
    "apprentice trainee recruiter marketer strategist auditor banker broker cleaner courier dispatcher "
    "estimator forester geologist inspector instructor janitor miner nanny carer caregiver radiographer "
    "surveyor lifeguard porter tester planner buyer chemist biologist statistician ranger steward stewardess "
    "bartender barber florist welder roofer joiner plasterer decorator locksmith solicitor barrister "
    "paralegal dietitian nutritionist counsellor counselor worker illustrator animator copywriter producer "
    "presenter dancer hygienist optometrist vicar priest chaplain headteacher principal postdoc sysadmin "
    "operator machinist labourer laborer handyman guard detective constable groomer trainer gp locum"
)
_CAR_MAKES = (
    "audi bmw citroen citroën dacia fiat ford golf honda hyundai jeep kia lexus mazda mercedes mini nissan "
    "octavia opel peugeot polo porsche renault clio seat skoda škoda subaru suzuki tesla toyota "
    "vauxhall volkswagen "
    "volvo vw prius yaris corolla"
)
_BIKE_MAKES = "bianchi brompton canyon cannondale cube giant scott specialized surly trek vespa"
#: pets by kind, with the breeds a user names them by ("a staffie called Tyson" is a dog): both a
#: relation to the user and the pet slot's words
_PET_KINDS: dict[str, str] = {
    "pet": "pet pets animal",
    "dog": "dog dogs puppy pup beagle labrador poodle terrier spaniel collie greyhound retriever dachshund "
    "husky pug bulldog shiba inu corgi chihuahua schnauzer rottweiler doberman dalmatian whippet lurcher "
    "cockapoo labradoodle cavapoo sheepdog alsatian weimaraner akita samoyed malamute vizsla bichon "
    "pomeranian staffie staffy staffies pitbull westie springer",
    "cat": "cat cats kitten kitty tabby siamese persian ragdoll bengal sphynx burmese moggy",
    "rabbit": "rabbit rabbits bunny",
    "bird": "bird birds parrot budgie",
    "fish": "fish goldfish",
    "horse": "horse horses pony",
    "hamster": "hamster hamsters",
    "guinea pig": "pig pigs guinea",
    "tortoise": "tortoise turtle",
}
_PET_WORDS = " ".join([*_PET_KINDS.values(), "lizard snake ferret"])
#: a word naming a kind of pet ("guinea pigs" ends in "pigs"), for a pattern
PET_WORD = r"(?:" + "|".join(sorted(set(_PET_WORDS.split()), key=len, reverse=True)) + r")"

#: cue words of each slot (stemmed at import): in a fact, in a question
_CUES: dict[Slot, str] = {
    Slot.NAME: "name names surname nickname",
    Slot.AGE: "age aged",
    Slot.BIRTHDAY: "birthday bday born",
    Slot.HOME: (
        "live lives living lived home house flat apartment city town village neighbourhood neighborhood "
        "address reside based relocated relocating"
    ),
    Slot.ORIGIN: "hometown grew native originally",
    Slot.JOB: (
        "job jobs work works worked working occupation profession career role position title promoted "
        "promotion employed unemployed freelance self-employed part-time teach teaches taught redundant "
        "redundancy laid fired sacked " + _OCCUPATIONS
    ),
    Slot.WORKPLACE: ("employer company firm startup start-up office shop store business agency"),
    Slot.STAFF: (
        "employee employees staff hire hired hiring colleague colleagues coworker coworkers co-worker "
        "apprentice assistant intern"
    ),
    Slot.STUDY: (
        "study studies studying studied school university uni college degree course major "
        "classes semester phd doctorate masters msc mba bsc postgraduate undergraduate"
    ),
    Slot.PARTNER: (
        "partner husband wife spouse girlfriend boyfriend fiancé fiancée fiance fiancee married "
        "engaged dating widow widower widowed divorced"
    ),
    Slot.CHILDREN: "kid kids child children son sons daughter daughters baby babies twins boys girls toddler",
    Slot.FAMILY: (
        "family mother mum mom father dad parents parent sister sisters brother brothers sibling siblings "
        "grandson granddaughter grandchild grandchildren grandmother grandma granny grandfather grandpa "
        "aunt uncle cousin niece nephew in-law in-laws stepson stepdaughter"
    ),
    Slot.FRIEND: (
        "friend friends flatmate flatmates roommate roommates housemate neighbour neighbor colleague"
    ),
    Slot.PET: _PET_WORDS,
    Slot.CAR: "car cars drive drives driving drove vehicle van truck suv estate hatchback " + _CAR_MAKES,
    Slot.BIKE: (
        "bike bikes bicycle cycle cycling ride rides riding rode scooter motorbike motorcycle e-bike "
        + _BIKE_MAKES
    ),
    Slot.COMMUTE: "commute commutes commuting campus",
    Slot.HEALTH: (
        "health healthy allergy allergies allergic intolerant intolerance condition conditions diabetes "
        "diabetic asthma asthmatic coeliac celiac pressure cholesterol medication medicine pregnant injury "
        "injured surgery operation disease illness sick migraine arthritis epilepsy replacement diagnosed "
        "diagnosis"
    ),
    Slot.DIET: (
        "diet eat eats eating food vegetarian vegan pescatarian meat fish gluten lactose dairy milk "
        "halal kosher salt sugar carbs alcohol sober nuts peanuts peanut"
    ),
    Slot.LIKES: (
        "like likes love loves favourite favorite prefer prefers enjoy enjoys coffee tea drink drinks"
    ),
    Slot.HOBBY: (
        "hobby hobbies play plays playing played team club sport sports football soccer cricket tennis "
        "rugby golf running run runs marathon training swim swimming band guitar bass piano violin drums "
        "sing singing paint painting garden gardening allotment knit knitting chess climbing hiking "
        "surf surfing yoga pilates cycling photography pottery dance dancing boxing skating kayaking "
        "fishing crochet"
    ),
    Slot.EVENT: (
        "trip travel travelling traveling holiday holidays vacation flight flights fly flying visit "
        "wedding marry marrying party appointment checkup check-up deadline due meeting interview exam "
        "exams test surgery operation conference talk presentation concert race ride marathon renovation "
        "ceremony graduation funeral match game festival reunion start starts starting begins booked "
        "scheduled"
    ),
    Slot.MONEY: "rent salary mortgage price cost costs pay paid earn earns budget saving savings loan debt",
    Slot.CONTACT: "phone number email e-mail mobile",
    Slot.LANGUAGE: "speak speaks language languages fluent learning",
}


def _stems(words: Iterable[str]) -> frozenset[str]:
    return frozenset(stem(w.lower().removesuffix("'s")) for w in words)


_CUE_STEMS: dict[Slot, frozenset[str]] = {slot: _stems(words.split()) for slot, words in _CUES.items()}
#: words that speak of a slot in a question but not in a statement ("Where did we move?" asks
#: where one lives; "the exam was moved" is no home)
_QUESTION_CUES: dict[Slot, frozenset[str]] = {
    Slot.HOME: _stems(["move", "moved", "moving"]),
    # "What are my children called?" asks names; "a beagle named Kaffe" is no name of the user's
    Slot.NAME: _stems(["called", "named", "call"]),
}
#: a word that ends a "where" of a place: "in Leeds", "to Malmö"
_PLACE = re.compile(r"\b(?:in|to|at|near|from)\s+[A-Z\u00c0-\u00de][\w\u00c0-\u024f-]+")
_AGE_PHRASE = re.compile(
    r"\b\d{1,3}\s*(?:years?\s+old|yo\b|months?\s+old)|\bturn(?:s|ed|ing)?\s+\d{1,3}\b", re.I
)
_BIRTHDAY_PHRASE = re.compile(r"\bturn(?:s|ing)?\s+\d{1,3}\s+(?:on|in)\b|\bborn\s+on\b", re.I)
_FROM_PLACE = re.compile(
    r"\b(?:i'm|i\s+am|we're|we\s+are|is|are|come|comes)\s+(?:originally\s+)?from\b", re.I
)
#: "I'm a student", "she's a PhD student", "as a student": someone studies (not "two other students")
_IS_STUDENT = re.compile(
    r"\b(?:am|is|are|was|were|as|i'm|she's|he's|'m|'s)\s+(?:an?\s+)?(?:[\w-]+\s+){0,2}students?\b", re.I
)
#: "first year medicine", "final-year student": a year of a course
_YEAR_OF_STUDY = re.compile(r"\b(?:first|second|third|fourth|final|1st|2nd|3rd|4th)[\s-]+year\b", re.I)
#: "for a living": what someone does, not where they live
_LIVING = re.compile(
    r"\bfor\s+a\s+living\b|\b(?:drive|drives|driving|deliver|delivers|delivering)\s+for\s+\w"
    r"|\b(?:drive|drives|driving)\s+(?:an?\s+|the\s+)?(?:lorr(?:y|ies)|trucks?|vans?|bus(?:es)?|taxis?|cabs?"
    r"|trains?|trams?|forklifts?|ambulances?)\b"
    r"|\b(?:started|run|runs|running|own|owns|set\s+up)\s+(?:my|our|his|her|their)\s+own\s+(?:[\w-]+\s+)?"
    r"(?:company|business|firm|shop|practice|agency)\b"
    r"|\b(?:manage|manages|managing|run|runs|running|own|owns)\s+(?:a|an|the|my|our)\s+(?:[\w'-]+\s+){0,2}"
    r"(?:shop|centre|center|restaurant|cafe|café|pub|bar|hotel|bakery|salon|store|business|company|firm|farm"
    r"|garage|practice|clinic|nursery|b&b|guesthouse|team|department|branch|warehouse|studio|gym)\b",
    re.I,
)
#: a new pastime: "taken up surfing", "I've got into bouldering"
_TAKEN_UP = re.compile(r"\b(?:tak(?:e|es|en|ing)|took)\s+up\b|\b(?:got|getting|get)\s+into\b", re.IGNORECASE)
#: "moving in with my boyfriend Dan", "moved into a flat in Acton": a new home
_MOVING_IN = re.compile(r"\bmov(?:e|es|ed|ing)\s+in(?:to)?\b", re.IGNORECASE)
_AT_NAME = re.compile(r"\b(?:at|for)\s+(?:the\s+)?[A-Z]")
#: "work as", "works at": the job (and the workplace when a place follows); "got an offer from
#: Zalando", "accepted the job offer at Arup", "I've been offered head of science at a school in
#: Leeds": a new job and where (not "offered a place" at a university)
_WORK_AT = re.compile(
    r"\bwork(?:s|ed|ing)?\s+(?:at|for|in)\b"
    r"|\b(?:been|was|were|got|get|getting)\s+offered\s+(?!(?:an?\s+|the\s+)?(?:place|lift|ride|discount|refund)\b)"
    r"|\b(?:got|get|getting|accepted|accept|accepting|took|take|taking)\s+(?:an?\s+|the\s+|their\s+)?"
    r"(?:new\s+)?(?:job\s+)?offer\s+(?:from|at|with)\s+(?:the\s+)?[A-Z]",
    re.I,
)


def words_of(text: str) -> list[str]:
    """The words of a text that start with a letter, lower-cased, possessive "'s" dropped."""
    return [without_possessive(w) for w in lower_words(text) if w[0].isalpha()]


@lru_cache(maxsize=16_384)
def word_stems(text: str) -> frozenset[str]:
    """The stems of a text's words (the same stemmer recall uses)."""
    return _stems(words_of(text))


#: a capitalised word that names someone: inside a sentence, or first before "'s", "is", "and"
#: ("Pete is out of the half": Pete is no pet)
_NAMED = re.compile(r"(?<=[\w,] )[A-Z][a-z]+\b|^[A-Z][a-z]+(?=['\u2019]s\b|\s+(?:is|was|has|and|will)\b)")
_CUE_WORDS = frozenset(w for words in _CUES.values() for w in words.split())


def _unless_a_cue(found: re.Match[str]) -> str:
    """A name is no cue of a slot by its stem ("Pete" -> "pet"); a cue word as said still is
    ("Tesla", "Spanish")."""
    return found.group() if found.group().lower() in _CUE_WORDS else " "


#: a medicine by its name's usual endings or a few common names ("amlodipine", "ramipril",
#: "atorvastatin", "metformin", "sertraline", "insulin")
_MEDICINE = re.compile(
    r"\b(?:[a-z]{3,}(?:dipine|pril|sartan|olol|statin|formin|gliptin|azepam|zolam|oxetine|traline|triptyline"
    r"|prazole|cillin|mycin|cycline|floxacin|thiazide|semide|xaban|gabalin|pentin|thyroxine|sone|olone)"
    r"|warfarin|insulin|aspirin|ibuprofen|paracetamol|codeine|morphine|tramadol|lithium|levothyroxine"
    r"|gliclazide|methotrexate|inhaler|statins?|antidepressants?|beta[- ]blockers?|blood\s+thinners?)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=16_384)
def slots_of(text: str) -> frozenset[Slot]:
    """The slots a sentence (a fact or a question) speaks of."""
    stems = word_stems(_NAMED.sub(_unless_a_cue, text))
    found = {slot for slot, cues in _CUE_STEMS.items() if stems & cues}
    if _LIVING.search(text):
        found.add(Slot.JOB)
        if not _PLACE.search(text):
            found.discard(Slot.HOME)
    found.update(slot for phrase, slot in _PHRASE_SLOTS if phrase.search(text))
    if LANGUAGES & set(lower_words(text)):  # "I've switched to Portuguese"
        found.add(Slot.LANGUAGE)
    if _WORK_AT.search(text) or (Slot.JOB in found and _AT_NAME.search(text)):
        found.update((Slot.JOB, Slot.WORKPLACE))  # "works at X", "a pharmacist at Southmead"
    return frozenset(found)


#: "What does Mia do?", "What do I do for a living?" (not "What do I do on Sundays?")
_WHAT_DOES_DO = re.compile(
    r"\bwhat\s+(?:do|does|did)\s+[\w'-]+(?:\s+[\w'-]+){0,2}?\s+do\b"
    r"(?!\s+(?:on|at|in|with|about|to|when|if|after)\b)",
    re.IGNORECASE,
)
_WHERE_WORK = re.compile(
    r"\bwhere\b.*\bwork|\bwhich\s+(?:company|firm)\b|\bwho\s+do\s+\w+\s+work\s+for\b", re.I
)


_CANNOT_HAVE = re.compile(
    r"\b(?:can't|cannot|shouldn't|mustn't)\s+(?:i\s+|we\s+)?(?:have|eat|drink|take)\b"
    r"|\bcan\s+(?:i|we)\s+not\s+(?:have|eat|drink|take)\b|\bwhat\s+(?:do|should)\s+(?:i|we)\s+avoid\b",
    re.IGNORECASE,
)


_WHERE_FROM = re.compile(r"^\s*where\b.*\bfrom\s*[?.!]*\s*$", re.IGNORECASE)


@lru_cache(maxsize=16_384)
def question_slots(question: str) -> frozenset[Slot]:
    """The slots a question asks about ("Where do I work?" asks the workplace as well as the job)."""
    stems = word_stems(question)
    extra = {slot for slot, cues in _QUESTION_CUES.items() if stems & cues}
    if _WHERE_WORK.search(question):
        extra |= {Slot.JOB, Slot.WORKPLACE}
    if re.search(r"\bwho\s+(?:works?|is\s+working|helps?)\b", question, re.IGNORECASE):
        extra.add(Slot.STAFF)
    if _WHAT_DOES_DO.search(question):
        extra.add(Slot.JOB)
    if re.search(r"\bhow\s+old\b", question, re.I):
        extra.add(Slot.AGE)
    if _WHERE_FROM.search(question):  # "Where am I from?", "Where does Anke come from?"
        extra.add(Slot.ORIGIN)
    if _CANNOT_HAVE.search(question):  # "What can't I have?": what the user must avoid
        extra |= {Slot.DIET, Slot.HEALTH}
    return slots_of(question) | extra


#: "a data analyst at Norrland Freight", "a chef at a seafood restaurant": a role at a place
_ROLE_AT = re.compile(
    r"^(?:an?\s+|the\s+)?(?!(?:in|at|on|to|for|from|with|by|of)\b)[\w\s'-]{2,40}?\s+(?:at|for|with)\s+"
    r"(?:an?\s+|the\s+)?\w",
    re.IGNORECASE,
)


@lru_cache(maxsize=16_384)
def fact_slots(text: str, attribute: str | None = None, value: str | None = None) -> frozenset[Slot]:
    """The slots of a fact: from its words, and its attribute key ("nam" of "I'm Raj Mehta" is a
    name, "be-a" of "Mia's a vet" a job when the value is an occupation or a role at a place)."""
    found = set(slots_of(text))
    if attribute == "be-a" and value and _ROLE_AT.match(value):
        found.update((Slot.JOB, Slot.WORKPLACE))
    if attribute:
        key = attribute.removeprefix("be-")
        for slot, cues in _CUE_STEMS.items():
            if key in cues and slot is not Slot.EVENT:
                found.add(slot)
    return frozenset(found)


#: the words that name a slot itself: a question in these words is answered by any fact of the
#: slot ("What's my job?" by "I'm a nurse"), while "shop" or "renovation" must be said
_HEADS: dict[Slot, str] = {
    Slot.NAME: "name names called named call",
    Slot.AGE: "age old",
    Slot.BIRTHDAY: "birthday born",
    Slot.HOME: "live lives living home city town move moved",
    Slot.ORIGIN: "from hometown",
    Slot.JOB: "job work works do occupation profession career living",
    Slot.WORKPLACE: "work works company employer",
    Slot.STUDY: "study studies",
    Slot.STAFF: "staff employees",
    Slot.PARTNER: "partner",
    Slot.CHILDREN: "kids children",
    Slot.FAMILY: "family",
    Slot.FRIEND: "friends",
    Slot.PET: "pet pets animal",
    Slot.CAR: "car drive",
    Slot.BIKE: "bike ride cycle",
    Slot.COMMUTE: "commute get",
    Slot.HEALTH: "health condition conditions medical allergy allergies allergic intolerance intolerances",
    Slot.DIET: "diet eat food meat fish dairy milk gluten vegetarian vegan sugar salt alcohol drink",
    Slot.LIKES: "like favourite favorite",
    Slot.HOBBY: "hobby hobbies play",
    Slot.EVENT: "",
    Slot.MONEY: "money",
    Slot.CONTACT: "contact number",
    Slot.LANGUAGE: "language languages speak",
}
_HEAD_STEMS: dict[Slot, frozenset[str]] = {slot: _stems(words.split()) for slot, words in _HEADS.items()}


def cue_stems(slots: Iterable[Slot]) -> frozenset[str]:
    """The stems of the words that name these slots ("job", "live", "bike")."""
    out: set[str] = set()
    for slot in slots:
        out |= _HEAD_STEMS[slot]
    return frozenset(out)


def is_occupation(value: str) -> bool:
    """The value names an occupation ("a vet", "a retired postman", "lead engineer", "head of
    science")."""
    return bool(word_stems(value) & _stems(_OCCUPATIONS.split())) or bool(_HEAD_OF.search(value))


#: how much one works: "part time", "full-time", "three days a week"
_WORKING_TIME = re.compile(
    r"\b(?:part|full)[\s-]time\b|\b(?:\d|one|two|three|four|five|six)\s+days\s+a\s+week\b", re.IGNORECASE
)
#: a post that heads something: "head of science", "deputy head", "head of year"
_HEAD_OF = re.compile(r"\b(?:deputy\s+head|head\s+of\s+\w+)", re.IGNORECASE)


# --- relations: people and animals known by how they relate to the user --------------------

#: each relation's canonical key and the words that name it
_RELATION_WORDS: dict[str, str] = {
    "child": "kid kids child children baby babies twin twins toddler bairn bairns",
    "son": "son sons boy boys stepson lad lads",
    "daughter": "daughter daughters girl girls stepdaughter",
    "partner": "partner partners spouse",
    "husband": "husband hubby",
    "wife": "wife",
    "girlfriend": "girlfriend gf",
    "boyfriend": "boyfriend bf",
    "fiancé": "fiancé fiancée fiance fiancee",
    "parent": "parent parents folks",
    "mother": "mother mum mom mam mummy mommy ma",
    "father": "father dad daddy papa pa",
    "sibling": "sibling siblings",
    "sister": "sister sisters sis",
    "brother": "brother brothers bro",
    "grandchild": "grandchild grandchildren grandkid grandkids",
    "grandson": "grandson grandsons",
    "granddaughter": "granddaughter granddaughters",
    "grandparent": "grandparent grandparents",
    "grandmother": "grandmother grandma granny nan nana gran",
    "grandfather": "grandfather grandpa granddad grandad",
    "aunt": "aunt auntie aunty",
    "uncle": "uncle",
    "cousin": "cousin cousins",
    "niece": "niece nieces",
    "nephew": "nephew nephews",
    "in-law": "mother-in-law father-in-law sister-in-law brother-in-law in-law in-laws",
    "friend": "friend friends mate pal buddy",
    "neighbour": "neighbour neighbours neighbor neighbors",
    "colleague": "colleague colleagues coworker coworkers co-worker",
    "boss": "boss manager supervisor",
    "flatmate": "flatmate flatmates roommate roommates housemate housemates",
    "employee": "employee employees staff assistant apprentice",
    "client": "client clients customer customers",
    "carer": "carer carers caregiver caregivers nanny childminder babysitter",
    **_PET_KINDS,
}
#: a general relation covers the specific ones ("my kids" are sons and daughters)
_COVERS: dict[str, frozenset[str]] = {
    "child": frozenset({"son", "daughter"}),
    "partner": frozenset({"husband", "wife", "girlfriend", "boyfriend", "fiancé"}),
    "parent": frozenset({"mother", "father"}),
    "sibling": frozenset({"sister", "brother"}),
    "grandchild": frozenset({"grandson", "granddaughter"}),
    "grandparent": frozenset({"grandmother", "grandfather"}),
    "pet": frozenset({"dog", "cat", "rabbit", "bird", "fish", "horse", "hamster", "guinea pig", "tortoise"}),
}
_RELATION_OF: dict[str, str] = {word: key for key, words in _RELATION_WORDS.items() for word in words.split()}
# "a lab called Barney" is a dog; "I work in a lab" speaks of no pet, so "lab" is a relation only
_RELATION_OF |= {"lab": "dog", "labs": "dog"}


def is_pet(noun: str) -> bool:
    """The noun names a kind of pet ("kitten", "guinea pig", "rescue greyhound")."""
    return bool(noun) and _RELATION_OF.get(noun.split()[-1].lower()) in _PET_KINDS


def relation_word(word: str) -> str | None:
    """The relation a word names ("mum" -> "mother", "kids" -> "child", "beagle" -> "dog"), or None."""
    low = word.lower().removesuffix("'s").removesuffix("\u2019s")
    return _RELATION_OF.get(low) or _RELATION_OF.get(low.removesuffix("s"))  # not "pass": "pa"


#: a relation word counts when it is someone's: "my sister", "our two kids", "I have twin boys",
#: "a cat called Miso", "Felix, my brother" (not "the children's hospital")
_OWNED = frozenset({"my", "our", "your", "his", "her", "their", "have", "has", "had", "got", "adopted"})
#: of those, the ones that make it someone else's ("her husband")
_THEIRS = frozenset({"his", "her", "their"})


def known_word(word: str) -> bool:
    """A word the slot vocabulary knows (a cue, an occupation): never a typing slip."""
    stems = word_stems(word)
    return any(stems & cues for cues in _CUE_STEMS.values()) or is_occupation(word)


def relation_word_typed(word: str) -> str | None:
    """As :func:`relation_word`, forgiving a typing slip in a longer word ("husbnd", "dauhgter")."""
    found = relation_word(word)
    if found or len(word) < 5 or known_word(word):
        return found  # a word of its own ("hobby" is no slip of "hubby")
    close = difflib.get_close_matches(word.lower(), _RELATION_OF.keys(), n=1, cutoff=0.8)
    return _RELATION_OF[close[0]] if close else None


@lru_cache(maxsize=16_384)
def relations_in(text: str) -> frozenset[str]:
    """Every relation a text gives someone."""
    words = read_words(text)
    found: set[str] = set()
    for i, word in enumerate(words):
        relation = relation_word(word)
        if relation is None:
            continue
        if i + 1 < len(words) and relation_word(words[i + 1]):
            continue  # "twin boys", "baby girl": the noun after says who they are
        before = [w.lower() for w in words[max(0, i - 4) : i]]
        owner = next((w for w in reversed(before) if w in _OWNED), "")
        if owner in _THEIRS:
            continue  # "Inés lives with her husband Pablo": Inés's husband, not the user's
        after = words[i + 1 : i + 3]
        named = bool(after) and (after[0][:1].isupper() or after[0].lower() in ("called", "named"))
        if owner or named:
            found.add(relation)
    return frozenset(found)


def relations_named(text: str) -> frozenset[str]:
    """Every relation a question names, owned or not ("What's my brother's name?", "the twins")."""
    return frozenset(r for r in (relation_word(w) for w in words_of(text)) if r)


def relation_covers(asked: str, told: str) -> bool:
    """A relation asked about is answered by one told: the same, or one covering the other
    ("my sons" by "my kids"; "my kids" by "my son")."""
    return asked == told or told in _COVERS.get(asked, frozenset()) or asked in _COVERS.get(told, frozenset())


# --- dated plans: which words name the same event --------------------------------------------

#: words for the same kind of event ("the wedding" is when Omar gets "married")
_EVENT_KINDS: dict[str, str] = {
    "wedding": "wedding wed marry married marrying marriage",
    "flight": "flight flights fly flying flies flew",
    # a stay booked is a trip: "we booked a caravan in Tenby"
    "trip": "trip travel travelling traveling holiday vacation journey caravan cottage villa cruise campsite"
    " chalet glamping",
    "operation": "operation surgery op procedure replacement",
    "appointment": "appointment checkup check-up",
    "exam": "exam exams test",
    "talk": "talk presentation present presenting keynote",
    "party": "party celebration barbecue bbq",
    "meeting": "meeting meetup reunion",
    "deadline": "deadline due",
    "interview": "interview",
    "race": "race marathon ride",
    "arrive": "arrive arrives arriving arrived arrival land lands landing landed",
}
_EVENT_OF: dict[str, str] = {stem(w): key for key, words in _EVENT_KINDS.items() for w in words.split()}


_DATE_TEXT = (
    "january february march april may june july august september october november december jan feb mar apr "
    "jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday week weeks "
    "month months year years today tomorrow tonight yesterday next last this morning evening night weekend "
    "now out back up"
)
_DATE_WORDS = _stems(_DATE_TEXT.split())


#: going somewhere is a trip ("we're going to Lisbon", "flying to Tehran", "off to Rome")
_GOING_TO = re.compile(
    r"\b(?:go|goes|going|went|gone|travel\w*|fly|flies|flying|flew|head\w*|off)\s+(?:back\s+)?to\s+[A-Z]"
)


#: a race named by its distance or kind ("the Leeds 10k", "a half marathon", "parkrun")
#: a race: "the Leeds 10k", "a half marathon", "the Sheffield half"
_RACE = re.compile(
    r"\b\d{1,3}\s?k\b|\bhalf[- ]marathon\b|\btriathlon\b|\bparkrun\b|\bultra\b"
    r"|\b(?:the|a)\s+(?:(?-i:[A-Z])[\w-]+\s+)?half\b(?!\s+(?:of|an?|past|term|price|hour|day|way)\b)",
    re.IGNORECASE,
)


@lru_cache(maxsize=16_384)
def event_kinds(text: str) -> frozenset[str]:
    """The kinds of event a text names ("married" and "wedding" are one kind; going to a place is
    a trip)."""
    kinds = {_EVENT_OF[s] for s in word_stems(text) if s in _EVENT_OF}
    if _GOING_TO.search(text):
        kinds.add("trip")
    if _RACE.search(text):  # "running the Leeds 10k"
        kinds.add("race")
    return frozenset(kinds)


def _names_in(text: str) -> list[str]:
    """Capitalised words that start no sentence ("Omar", "Japan")."""
    return [
        m.group()
        for m in WORD.finditer(text)
        if len(m.group()) > 1
        and m.group()[0].isupper()
        and m.start() > 0
        and not (text[m.start() - 2 : m.start() - 1] in (".", "!", "?") and text[m.start() - 1].isspace())
    ]


@lru_cache(maxsize=16_384)
def kind_word_stems(kinds: frozenset[str]) -> frozenset[str]:
    """The stems of every word naming these kinds of event ("holiday" of a trip)."""
    return frozenset(s for s, kind in _EVENT_OF.items() if kind in kinds) | {stem(k) for k in kinds}


def event_words(text: str) -> frozenset[str]:
    """What names the event a text speaks of: the kinds of event it names (canonical: "married" is
    a wedding) and the names in it ("Japan", "Omar"), never a date, so two wordings of one plan
    share words and two plans in the same month do not."""
    proper = {stem(without_possessive(n.lower())) for n in _names_in(text.strip())} - _DATE_WORDS
    return event_kinds(text) | proper


def attribute_slots(attribute: str | None, value: str | None = None) -> frozenset[Slot]:
    """The slots a fact's attribute key alone names (its main slot: "liv" is the home, "be-a" a
    job when the value is an occupation)."""
    if not attribute:
        return frozenset()
    if attribute == "be-a":
        role = bool(value) and (is_occupation(value or "") or bool(_ROLE_AT.match(value or "")))
        return frozenset({Slot.JOB}) if role else frozenset()
    key = attribute.removeprefix("be-")
    return frozenset(slot for slot, cues in _CUE_STEMS.items() if key in cues and slot is not Slot.EVENT)


#: phrases that speak of a slot whatever their words' cues: "aged 40", "moving in with", "I'm on
#: amlodipine", "gone part time", "head of science", "taken up surfing", "born on", "from Leeds"
_PHRASE_SLOTS: tuple[tuple[re.Pattern[str], Slot], ...] = (
    (_AGE_PHRASE, Slot.AGE),
    (_MOVING_IN, Slot.HOME),
    (_MEDICINE, Slot.HEALTH),
    (_WORKING_TIME, Slot.JOB),
    (_HEAD_OF, Slot.JOB),
    (_TAKEN_UP, Slot.HOBBY),
    (_BIRTHDAY_PHRASE, Slot.BIRTHDAY),
    (_FROM_PLACE, Slot.ORIGIN),
    (_IS_STUDENT, Slot.STUDY),
    (_YEAR_OF_STUDY, Slot.STUDY),
)
