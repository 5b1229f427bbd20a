"""A claim is kept only when the message, asked for its subject's attribute, answers its value.

The model writes a claim's label and value together and a small one often writes a value that is no
value of its label ("your workplace: boxes will take us weeks"). The same model, asked one question
of the message built from the claim's subject and attribute alone (services/prompts/value_check.py),
answers what the message says of it. Code keeps the claim when that short answer shares a word (in
any form; a number in digits or in words) with the value; an answer that is a whole sentence ("The
user's health is now better, as they …") or "not said" answers nothing. A failed call or an empty
answer keeps the claim (no verdict), as a failed sort does; so does, for a health or diet claim (a
constraint: lost, help breaks it), a value answered in the check's own words rather than the
message's, as it was asked to copy them ("not said" is no value). An end is never checked: its value
is the old one. A change the reader read (replaces, corrects) is not checked either, as it is never
sorted: the 1.5B often labels a right change loosely ("hospital pharmacy" as the new job, answered
"Pharmacist"), and a lost change leaves the old value current; a change the reviser reads beside an
earlier claim is checked, and so is a change the reader read whose value holds a word of its own
label ("plan: change of plan", "dates: same dates", seen in the fifth live trial: a value that only
names what changed), and a correction that closes no claim ("Your claim: mixed up", read from an
apology; checked once supersession has found nothing it corrects, keeper.py). A change the reader
read beside another change of the same subject's label is asked too, and dropped only when the
message answers the other's value (one message gives a label one new value: "answers_a_rival").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel

from services.common.dates import day_told
from services.common.held import as_digits
from services.common.llm_calls import ask_structured
from services.knowledge.claims.categories import category_of, is_constraint
from services.knowledge.claims.supersession import content_stems
from services.knowledge.claims.verify import clauses_of, plain, quoted_in, same_word, tidy, users_quote
from services.prompts import value_check as checking
from services.prompts.extract_claims import ClaimKind, ClaimOut
from thea.errors import LLMError
from thea.models import LLMUsage
from thea.words import NEGATION, STOPWORDS, lower_words, words

log = logging.getLogger(__name__)

#: an answer longer than this is a sentence about the message, not a value
MAX_ANSWER_WORDS = 8
#: the words before a noun that say nothing of it (closed class)
_ARTICLES = frozenset({"a", "an", "the"})
#: a longer message is asked about in the words the claim quotes (bounded work per claim)
MAX_ASKED_CHARS = 1_500


def names_its_label(claim: ClaimOut) -> bool:
    """The claim's value holds a word of its attribute ("plan: change of plan", "dates: same
    dates"): a change that may only name what changed, so it is checked like a new claim."""
    return bool(content_stems(claim.value) & content_stems(claim.attribute))


def _words(text: str) -> set[str]:
    """The words that carry a value: content words in any form, and numbers (digits or words)."""
    said = [as_digits(w) for w in plain(text).split()]
    return content_stems(" ".join(w for w in said if not w.isdigit())) | {w for w in said if w.isdigit()}


#: letters a shortened word keeps of the word it stands for ("physio" of "physiotherapist")
SHORT_FORM_LETTERS = 4


def _alike(one: str, other: str) -> bool:
    """The same word, or one a shortened form of the other ("physio", "physiotherapist"; stems
    such as "diabet" and "diabetic")."""
    short, long = sorted((one, other), key=len)
    return short == long or (len(short) >= SHORT_FORM_LETTERS and long.startswith(short))


def _shares(words: set[str], others: set[str]) -> bool:
    return any(_alike(w, o) for w in words for o in others)


def _leads_with(answer: str, value: str) -> bool:
    """The answer's first words are the value's, word for word (an article aside)."""
    said, held = (_unarticled(lower_words(text)) for text in (answer, value))
    return bool(held) and said[: len(held)] == held


#: any moment: a value names a day when a day can be worked out from it said then
_SAID_AT = 1_700_000_000_000


def _holds_the_day(answer: str, value: str) -> bool:
    """The value is a day and the answer says it, word for word (first contact, set 20: the
    trip moved to "the 23rd of September" was lost, asked for the trip the model answered "Colleen
    and I are now leaving on the 23rd of September rather than the 9th, which ..."). A day is no
    value of most labels, so one the message's answer holds is its label's."""
    return day_told(value, _SAID_AT) is not None and quoted_in(value, answer)


def _unarticled(words: list[str]) -> list[str]:
    return words[1:] if words and words[0] in _ARTICLES else words


def backs(answer: str, value: str, attribute: str = "") -> bool:
    """Whether the check's answer bears the value out. An empty answer, or one that only names
    the label ("diabetic", asked for the user's diabetes), is no verdict: kept, as a failed call
    (live: "type 1" of "I'm type 1 diabetic" was lost; "physio" answered "physiotherapist" too)."""
    said = answer.strip()
    if not said:
        return True
    words = _words(said)
    labelled = _words(attribute)
    if len(said.split()) > MAX_ANSWER_WORDS:
        # a sentence about the message, unless it leads with the value and says more of it (first
        # contact, set 17: "cataract surgery on the left eye at the Hospital Regional de Salto on
        # Tuesday 22 April ..." lost "appointment: cataract surgery") or is the label's own
        # sentence ("The user's dentist appointment is on January 9th at 4 PM.", live: the
        # appointment was lost)
        return (
            _leads_with(said, value)
            or _holds_the_day(said, value)
            or (
                len(said.split()) <= 2 * MAX_ANSWER_WORDS
                and bool(labelled)
                and all(_shares({w}, words) for w in labelled)
                and _shares(_words(value) - labelled, words - labelled)
            )
        )
    if words and labelled and all(_shares({w}, labelled) for w in words):
        return True
    return _shares(_words(value), words)


def copied(answer: str, message: str) -> bool:
    """The check's answer is words of the message, as it was asked to copy: an answer in its own
    words ("dairy-free" for "im lactose intolerant so no milk/cheese stuff", first contact set 17:
    the user's diet was lost) is no verdict, as an empty one is."""
    return quoted_in(answer, message)


def own_value(answer: str, message: str) -> bool:
    """The check answered a value in its own words: not the message's, and not saying it is
    not there ("not said", "none mentioned": a word of negation, closed class)."""
    return bool(answer.strip()) and not copied(answer, message) and not NEGATION.search(answer)


def said_with(answer: str, quote: str, message: str) -> bool:
    """The answer is words of the very clauses the claim quotes: another side of the same
    constraint ("no milk cheese ice cream" for "lactose intolerant" of "btw im lactose intolerant
    so no milk cheese ice cream for me", first contact set 21: the constraint was lost), not
    another thing the message says ("vegan" for "walk to work" of "I'm vegan now, and I walk to
    work")."""
    return bool(answer.strip()) and quoted_in(answer, clauses_of(quote, message))


async def answers_its_label(
    llm: BaseChatModel,
    claim: ClaimOut,
    about_user: bool,
    message: str,
    timeout_s: float,
    others: Sequence[str] = (),
) -> tuple[bool, LLMUsage]:
    """Whether the message, asked for the claim's subject's attribute, answers the claim's value;
    and what asking cost. ``others``: the values of the message's other claims. When the message
    answers one of those instead, the clauses the claim quotes are asked alone: a message telling
    two things of one kind answers with one of them (first contact set 23: "44, from bh … living
    in porto 6 yrs now", asked the user's age, answered "6", and the age was lost; its own
    clauses answer "44")."""
    if claim.kind is ClaimKind.ENDS or not claim.value.strip():
        return True, LLMUsage()
    text = _asked_text(claim, message)
    answer, cost = await _asked(llm, claim, about_user, text, timeout_s)
    if answer is None:
        log.warning("could not check a claim's value: kept")
        return True, cost
    kept = _answered(answer, claim, text)
    own = clauses_of(claim.quote, text)
    if not kept and own != text and _names_another(answer, others):
        again, more = await _asked(llm, claim, about_user, own, timeout_s)
        cost = cost.add(more)
        kept = again is not None and bool(again.strip()) and _answered(again, claim, own)
        answer = again or answer
    if not kept:
        log.info(
            "claim not kept: the message answers %r for %s, not %r", answer, claim.attribute, claim.value
        )
    return kept, cost


async def answers_a_rival(
    llm: BaseChatModel,
    claim: ClaimOut,
    about_user: bool,
    message: str,
    timeout_s: float,
    rivals: Sequence[str],
) -> tuple[bool, LLMUsage]:
    """Whether the message, asked for the change's label, answers another change's value of the
    same subject and label (``rivals``) and not the change's own: one message gives a label one
    new value (first contact set 23: "taken a ground-floor flat on Brook Street … a short walk
    from the esplanade … Forty-one years of … went into a single removal van" read as three new
    homes, the message asked for the home answering "Brook Street"). A failed or empty answer
    finds no rival."""
    answer, cost = await _asked(llm, claim, about_user, _asked_text(claim, message), timeout_s)
    said = answer or ""
    rival = not backs(said, claim.value, claim.attribute) and _names_another(said, rivals)
    if rival:
        log.info(
            "change not kept: the message answers %r for %s, not %r", answer, claim.attribute, claim.value
        )
    return rival, cost


def _asked_text(claim: ClaimOut, message: str) -> str:
    """What a claim's label is asked of: the message, or the claim's quote when the message is
    long (bounded work per claim)."""
    return message if len(message) <= MAX_ASKED_CHARS else claim.quote


def _names_another(answer: str, values: Sequence[str]) -> bool:
    """The check's answer (not empty: no verdict) bears out one of other claims' values."""
    return bool(answer.strip()) and any(backs(answer, value) for value in values)


def _answered(answer: str, claim: ClaimOut, text: str) -> bool:
    """The check's answer bears the claim's value out (:func:`backs`), or is a clause of the
    message holding the value (:func:`copied_with`), or, for a health or diet claim, is the
    check's own words or another side of the same constraint."""
    return (
        backs(answer, claim.value, claim.attribute)
        or copied_with(answer, claim.value, claim.attribute, text)
        or (
            is_constraint(category_of(claim.attribute))
            and (own_value(answer, text) or said_with(answer, claim.quote, text))
        )
    )


def copied_with(answer: str, value: str, attribute: str, message: str) -> bool:
    """The answer is a short run of the message's words, as the check was asked to copy, that
    holds the value's words whole and in order, and the value is more than its label's words
    (first contact, set 25: "My wife Isobel and I stay in a top-floor tenement flat in
    Dennistoun", asked for the user's home, answered "top-floor tenement flat in Dennistoun, just
    off Duke Street", and the home "Dennistoun" was lost as the answer was long)."""
    return (
        len(answer.split()) <= 2 * MAX_ANSWER_WORDS
        and copied(answer, message)
        and quoted_in(value, answer)
        and bool(_words(value) - _words(attribute))
    )


async def _asked(
    llm: BaseChatModel, claim: ClaimOut, about_user: bool, text: str, timeout_s: float
) -> tuple[str | None, LLMUsage]:
    """The text asked for the claim's subject's attribute (never its value): the model's answer,
    or None when the call failed; and what asking cost."""
    asked = checking.question(claim.subject, claim.relation, about_user, claim.attribute)
    try:
        out, cost = await ask_structured(
            llm,
            checking.ValueAnswer,
            checking.build(text, asked),
            checking.PROMPT,
            timeout_s=timeout_s,
            max_tokens=checking.MAX_TOKENS,
        )
    except LLMError as exc:
        log.warning("asking %r of a message failed (%s)", asked, exc)
        return None, LLMUsage()
    return out.answer, cost


async def users_words(
    llm: BaseChatModel, claim: ClaimOut, about_user: bool, sentence: str, timeout_s: float
) -> tuple[str, LLMUsage]:
    """The user's own words for a claim whose value the model wrote in its own ("job: tour guide"
    of "... has taken me on part-time to lead tours"): the sentence asked for the claim's label,
    the answer when it is a short run of the sentence's words that does not say "not"; "" when
    there is none. An end is never asked (its value is the old one)."""
    if claim.kind is ClaimKind.ENDS:
        return "", LLMUsage()
    said, cost = await _asked(llm, claim, about_user, sentence[:MAX_ASKED_CHARS], timeout_s)
    answer = (said or "").strip(" .,;:!?\"'")
    if NEGATION.search(answer):
        return "", cost
    if len(answer.split()) <= MAX_ANSWER_WORDS and copied(answer, sentence):
        return answer, cost
    run = longest_run(answer, sentence, claim.attribute)
    if not run and answer and is_constraint(category_of(claim.attribute)):
        return constraint_quote(claim, sentence), cost
    return run, cost


#: the most words a constraint's quote may have to stand as its value
MAX_QUOTED_VALUE = 16


def constraint_quote(claim: ClaimOut, sentence: str) -> str:
    """For a health or diet claim whose value is the model's words, when the check answers the
    label in none of the user's words either (and does not say it is not said): the quote
    itself, when short, as the user said it (first contact set 22: "doc said my bp iko juu sana,
    150 smthng, so ameniambia nipunguze chumvi kabisa" was read "diagnosis: high blood
    pressure", a translation, and dropped; asked what to go easy on, the answer named the
    family's market stall). A lost constraint breaks the help given; the user's own words
    invent nothing."""
    quote = users_quote(tidy(claim.quote), sentence)
    return tidy(quote) if 0 < len(quote.split()) <= MAX_QUOTED_VALUE else ""


def longest_run(answer: str, sentence: str, attribute: str) -> str:
    """The first run of the answer's words that the sentence holds word for word, or in another
    form ("tour guide" holds "tours" of "to lead tours"; the longest such run from that word), as
    the sentence writes them ("above the bakery on Mill Lane" of
    "The user's home is now above the bakery on Mill Lane."), without closed-class words at its
    ends; a run must hold a word of substance that is not the label's or the user's. "" when
    there is none."""
    said, source = words(answer), words(sentence)
    low_said, low_source = [w.lower() for w in said], [w.lower() for w in source]
    label = {w.lower() for w in words(attribute)} | {"user", "user's", "users"}
    for j in range(len(low_said)):
        best: list[str] = []
        for i in range(len(low_source)):
            n = 0
            while (
                i + n < len(low_source)
                and j + n < len(low_said)
                and same_word(low_source[i + n], low_said[j + n])
            ):
                n += 1
            run = source[i : i + n]
            while run and run[0].lower() in STOPWORDS:
                run = run[1:]
            while run and run[-1].lower() in STOPWORDS:
                run = run[:-1]
            if len(run) > len(best) and any(w.lower() not in STOPWORDS | label for w in run):
                best = run
        if best:
            return " ".join(best[:MAX_ANSWER_WORDS])
    return ""
