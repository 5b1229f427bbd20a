"""thea's reaction to a statement or to small talk: written by the model, checked by code.

The model reacts in its own words (services/prompts/reply.py). What it wrote is shown only
when it passes checks that need no word list of any language:

* not an echo: no run of :data:`ECHO_WORDS` words copied from the message;
* nothing made up: every number and every word of substance it says is in the message (in any
  ending, as recall's stemmer reads it: "teaching" for "I teach"), the user's name or the
  prompt's own words; a sentence that says more ("Leipzig is a beautiful city", "you've never
  had them", what an example's user told) is left out and the rest stands;
* short: at most :data:`MAX_SENTENCES` sentences, no list;
* no refusal ("I can't assist with that") for a greeting or a joke;
* the right voice: thea has no "my brother"; the user's first person said back is not shown;
* the right tone: the model first says how the message feels to the user (good, bad, neutral);
  a reaction to bad news that cheers (thea's own cheerful words, :data:`prompt.CHEERFUL`) is not
  shown, one without a word of sympathy gets "I'm sorry to hear that." first, and one to good
  news that pities is not shown (:func:`in_tone`).

Otherwise the message gets the plain acknowledgement. The reaction is thea's own words: never
evidence of anything (claims are read from the user's words only).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from services.common.held import numbers_not_held
from services.common.statements import sentences
from services.common.understanding import understand
from services.cycle.from_text import flat
from services.cycle.refusal import is_refusal
from services.cycle.voice import in_voice
from services.prompts import reply as prompt
from services.recall.lexical import stem
from thea.models import MessageKind
from thea.words import is_content, lower_words

#: a run this long copied from the user's message is an echo, not a reaction
ECHO_WORDS = 6
#: a reaction is one or two sentences
MAX_SENTENCES = 2
MAX_CHARS = 240

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
#: a line that starts a list (one line's leading blanks taken possessively: linear time)
_LIST_LINE = re.compile(r"^[ \t]*+(?:[-*•]|\d+[.)])[ \t]", re.MULTILINE)
_SPEAKER = re.compile(r"^\s*(?:thea|assistant)\s*:\s*", re.IGNORECASE)
#: thea speaks of itself as "I" only: "my", "our", "we" in a reaction are the user's words
_USER_AS_ME = re.compile(r"\b(?:my|our|we|us)\b", re.IGNORECASE)


def copied_run(reply: str, message: str) -> int:
    """The longest run of words the reply copies from the message, in order."""
    said, told = lower_words(reply), lower_words(message)
    best = 0
    previous = [0] * (len(told) + 1)
    for word in said:
        current = [0] * (len(told) + 1)
        for j, other in enumerate(told, start=1):
            if word == other:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


#: the words of the prompt's own instructions (its list of warm words among them): a reply may
#: use them ("lovely", "congratulations", "sorry") without the message saying them. Not the
#: example replies' words: "A new job at Leipzig, congratulations!" for a move took "job" from one
_PROMPT_WORDS = frozenset(lower_words(prompt.SYSTEM))


def _of_substance(word: str) -> bool:
    """A word that says something (a contraction by its first word: "that's", "you'll", "don't")."""
    if word.isdigit():
        return False
    head = re.split(r"['\u2019]", word.removesuffix("n't").removesuffix("n\u2019t"), maxsplit=1)[0]
    return is_content(head)


def made_up(reply: str, message: str, name: str = "") -> list[str]:
    """What the reply says that the user did not: numbers the message does not hold, and words of
    substance neither the message (in any ending), the user's name nor the prompt's own
    instructions hold (a name, a place, an inference such as "you've never had them", what an
    example's user told)."""
    told = {stem(w) for w in [*lower_words(message), *lower_words(name)]}
    said = [w for w in lower_words(reply) if _of_substance(w)]
    unheld = [w for w in said if stem(w) not in told and w not in _PROMPT_WORDS]
    return numbers_not_held(reply, message) + unheld


#: the prompt's examples of small talk (a greeting, thanks, emojis) and the words of their replies
_SMALL_TALK_EXAMPLES = tuple(
    (set(lower_words(said)), lower_words(reply))
    for said, _feeling, reply in prompt.EXAMPLES
    if understand(said).kind is MessageKind.SMALL_TALK
)


def _replied_examples(sentence: str) -> list[set[str]]:
    """The words of each example of small talk whose reply (the prompt's) the whole sentence
    says, word for word."""
    words = lower_words(sentence)
    return [
        example
        for example, reply in _SMALL_TALK_EXAMPLES
        if copied_run(sentence, " ".join(reply)) == len(words)
    ]


def _sentences_of(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(" ".join(text.split())) if s]


def _stock(sentence: str, small_talk: str) -> bool:
    """The sentence is a run of two or more words of the reply the prompt gives to an example of
    small talk the message does not make ("You're welcome!" to "Hi! I'm Sam, coeliac since
    spring": the thanks example's reply, seen live and on first contact): it answers nothing the
    user said."""
    said = set(lower_words(small_talk))
    return len(lower_words(sentence)) >= 2 and any(
        not said & example for example in _replied_examples(sentence)
    )


def answers_small_talk_only(text: str, small_talk: str) -> bool:
    """Every sentence of the reaction is the prompt's reply to an example of small talk the
    message makes ("You're welcome!" to "thanks! oh and Pim turned 4 yesterday", a live trial):
    it says nothing of what the user told."""
    said = set(lower_words(small_talk))
    sentences = _sentences_of(text)
    return bool(sentences) and all(any(said & example for example in _replied_examples(s)) for s in sentences)


def checked_reply(reply: str, message: str, name: str = "", small_talk: str | None = None) -> str | None:
    """The model's reaction as shown to the user, or None when it must not be shown.
    ``small_talk``: for a message that tells something, its small talk ("Hi!"), "" when none: a
    stock reply to other small talk is left out of the reaction."""
    text = _SPEAKER.sub("", reply.strip()).strip().strip('"“”').strip()
    if not text or _LIST_LINE.search(text) or is_refusal(text):
        return None
    sentences = _sentences_of(text)
    if small_talk is not None:
        sentences = [s for s in sentences if not _stock(s, small_talk)]
    # a sentence that makes something up is left out; the rest of the reaction stands
    # ("Great news! Leipzig is a beautiful city." shows "Great news!")
    sentences = [s for s in sentences if not made_up(s, message, name)]
    text = " ".join(sentences[:MAX_SENTENCES])
    if not text or len(text) > MAX_CHARS or copied_run(text, message) >= ECHO_WORDS:
        return None
    if _USER_AS_ME.search(text):  # the user's "my brother" said back as thea's own
        return None
    kept = [s for s in sentences[:MAX_SENTENCES] if not _mixed_voice(s, message)]
    voiced = [_voiced(s, message, name) for s in kept]
    return " ".join(s for s in voiced if not _news_as_its_own(s, message)) or None


#: thea speaking of itself, and a sentence that speaks to the user
_THEA_AS_I = re.compile(r"\b(?:I|I'm|I've|I'll|I'd|me|myself)\b")
_TO_THE_USER = re.compile(r"\b(?:you|your|you're|you'll|you've|yours)\b", re.IGNORECASE)
#: the same, as :func:`lower_words` gives them
_THEA_AS_I_WORDS = frozenset({"i", "i'm", "i've", "i'll", "i'd", "me", "myself"})
#: a word written with a capital: a name
_NAME = re.compile(r"\b[A-Z][\w'-]+")


def _news_as_its_own(sentence: str, message: str) -> bool:
    """The sentence tells the user's news as thea's own: thea as "I", nothing said to the user,
    and a name the message gives (live: "we're off to Porto on the 14th of March" -> "I can't
    wait to go to Porto for the long weekend!"). "I'll keep gluten out of anything I suggest"
    names nothing; "I hope you love Porto" speaks to the user."""
    if not _THEA_AS_I.search(sentence) or _TO_THE_USER.search(sentence):
        return False
    told = set(lower_words(message))
    names = [w for w in _NAME.findall(sentence) if not _THEA_AS_I.fullmatch(w)]
    return any(w.lower() in told for w in names)


def _mixed_voice(sentence: str, message: str) -> bool:
    """The sentence says the user's words back as "I" while speaking to "you": whose "I" and
    whose "you" it is cannot be told, and turned round it says the user's news of someone else
    as theirs (first contact, set 19: "OMG zoe got engaged to her bf marco!!! … so happy for her"
    -> "You're so happy for me and my bf Marco."). Only an "I" that stands beside a word of the
    message is the user's said back ("I'm so happy for", "I'm throwing"); "I'm glad you …" is
    thea's."""
    if copied_run(sentence, message) < 2 or not _TO_THE_USER.search(sentence):
        return False
    said, told = lower_words(sentence), set(lower_words(message))
    # thea's own "I" beside words of its own is thea speaking ("I'm glad you finished painting
    # the spare room" was left out, a reaction the reactions benchmark had shown before)
    beside = [said[max(i - 1, 0) : i + 2] for i in range(len(said))]
    return any(
        word in _THEA_AS_I_WORDS and any(other in told for other in near if other != word)
        for word, near in zip(said, beside, strict=True)
    )


def _voiced(sentence: str, message: str, name: str) -> str:
    """The sentence in the right voice. One that repeats no two words of the message in a row is
    thea speaking of itself ("I'll keep that in mind", "I'll keep gluten out of anything I
    suggest" stay); one that does may be the user's first person said back ("I'm lactose
    intolerant" becomes "You're lactose intolerant")."""
    return in_voice(sentence, [message, name]) if copied_run(sentence, message) >= 2 else sentence


#: what bad news gets before a reaction without sympathy, or instead of one that cannot be shown
SORRY = "I'm sorry to hear that."


def says_any(text: str, words: Sequence[str]) -> bool:
    """The text holds one of the words (or phrases) as whole words, case aside."""
    said = f" {' '.join(lower_words(text))} "
    return any(f" {' '.join(lower_words(w))} " in said for w in words)


def in_tone(reaction: str, feeling: prompt.Feeling) -> str | None:
    """The reaction in the tone of the message as the model felt it, or None: bad news is never
    cheered ("That's great news!" to a cancelled driving test, seen on first contact) and gets
    sympathy ("I'll keep that in mind" after a death becomes "I'm sorry to hear that. I'll keep
    that in mind."); good news is never pitied. The words are thea's own (the prompt's), never
    the user's."""
    if feeling is prompt.Feeling.BAD:
        if says_any(reaction, prompt.CHEERFUL):
            return None
        if not says_any(reaction, (*prompt.SYMPATHETIC, *prompt.HOPEFUL)):
            return f"{SORRY} {reaction}"
    if feeling is prompt.Feeling.GOOD and says_any(reaction, prompt.SYMPATHETIC):
        return None
    return reaction


@dataclass(frozen=True)
class Reaction:
    """What the user is shown of the model's reaction."""

    text: str
    #: only :data:`SORRY`: the model's own words could not be shown (a greeting goes before it)
    sympathy_only: bool = False


def reaction_shown(
    read: prompt.Reply, message: str, name: str = "", small_talk: str | None = None
) -> Reaction | None:
    """What the user is shown of the model's reaction: the reaction when it passes the checks
    (:func:`checked_reply`), in the tone the model felt (:func:`in_tone`); for bad news whose
    reaction cannot be shown, :data:`SORRY` alone (never "Got it" after a death); else None (the
    plain acknowledgement). A message that holds the user's own apology is never bad news to be
    sorry about."""
    feeling = read.feeling
    if feeling is prompt.Feeling.BAD and says_any(message, prompt.APOLOGY):
        # the user's apology for a slip felt as bad news: "eish sorry i got that wrong juzi, achieng
        # yuko moi uni ..." got "I'm sorry to hear that." (first contact, sets 21 and 22)
        feeling = prompt.Feeling.NEUTRAL
    checked = checked_reply(read.reply, message, name, small_talk)
    toned = in_tone(checked, feeling) if checked is not None else None
    if toned is None and feeling is prompt.Feeling.BAD:
        return Reaction(SORRY, sympathy_only=True)
    return Reaction(toned) if toned is not None else None


def name_of_user(values: Sequence[tuple[str, str]]) -> str:
    """The user's current name among (attribute, value) pairs of their own claims."""
    return next((v for a, v in values if a.strip().lower() == "name" and v.strip()), "")


#: a message that opens on a third-person pronoun ("she got the job!", "his exam went well"):
#: whom it means comes from an earlier turn, or from nobody (closed-class words only)
_OPENING_PRONOUN = re.compile(
    r"^\W*(?P<who>he|she|his|her)(?:['\u2019](?:s|ll|d|ve))?\b(?!\s*[.!?,]?$)", re.IGNORECASE
)


def unclear_who(text: str, said_before: Sequence[str]) -> str | None:
    """The pronoun a statement opens on when the user said nothing earlier in the conversation
    that could say whom it means ("she got the job!" as the first message of a chat), else None:
    then thea asks back instead of reacting (and the claims reading keeps no claim of a bare
    pronoun)."""
    if any(said.strip() for said in said_before):
        return None
    found = _OPENING_PRONOUN.match(text)
    return found.group("who").lower() if found else None


def question_back(pronoun: str) -> str:
    return prompt.ASK_WHO.format(pronoun=pronoun)


def without_opening(answer: str, reaction: str) -> str:
    """The answer without its opening sentences that say the reaction shown before it again
    (the answering model's "I'm sorry to hear that." after the reading model's, set 25): a
    person says it once."""
    said = {flat(s) for s in sentences(reaction)} - {""}
    rest = answer.strip()
    while rest and (first := sentences(rest)[:1]) and flat(first[0]) in said:
        at = rest.find(first[0])
        rest = rest[at + len(first[0]) :].lstrip() if at >= 0 else ""
    return rest
