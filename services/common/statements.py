"""Statements: telling thea something, told apart from asking it something, without the model.

A *statement* is a message whose every sentence tells (``My name is Priya.``, ``I moved to
Lyon in May; the move was hard.``): no question mark, no question word or request verb
opening a sentence, no "can you" / "tell me" / "I want to know" anywhere, no greeting on
its own. Such a message is answered with :func:`acknowledge`: a template restating the
user's own words with the persons turned round (``my`` -> ``your``), so nothing about a
person, place or project can be invented (measured: the offline 0.5B model answered
"My name is Priya Ramanathan." with "Priya Ramanathan is a renowned Indian actress.").

:func:`tells_anything` is what the slow loop checks before learning: a message all of whose
sentences ask (a question, a request) or greet yields no new insight. It is deliberately looser
than :func:`is_statement` (a sentence in another language, or without an English subject or
verb, still counts as telling): only what plainly asks is left out.
"""

from __future__ import annotations

import re

from thea.words import STOPWORDS, first_word, lower_words, pieces

#: a sentence ends after . ! ? ; (not after a title: "My dentist is Dr. Hale.")
_SENTENCE = re.compile(
    r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMs\.)(?<!\bMrs\.)(?<!\bSt\.)(?<!\bProf\.)(?<!\bMt\.)(?<=[.!?;])\s+|\n+"
)

#: Words that open a question ("What ...", "Should I ...", "How ...").
_QUESTION_OPENERS = frozenset(
    [
        # typed without the apostrophe ("whats my husbands name")
        "whats",
        "wheres",
        "whos",
        "hows",
        "whens",
        "whys",
        "what",
        "when",
        "where",
        "who",
        "whom",
        "whose",
        "why",
        "how",
        "which",
        "is",
        "are",
        "am",
        "was",
        "were",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "will",
        "shall",
        "should",
        "may",
        "might",
        "have",
        "has",
        "had",
    ]
)
#: Words that open a request or an instruction ("Tell me ...", "Please ...", "Suggest ...").
_INSTRUCTION_OPENERS = frozenset(
    [
        "tell",
        "explain",
        "describe",
        "list",
        "give",
        "show",
        "write",
        "summarise",
        "summarize",
        "compare",
        "find",
        "name",
        "help",
        "please",
        "remind",
        "recall",
        "define",
        "translate",
        "suggest",
        "recommend",
        "let",
        "make",
        "create",
        "draft",
        "calculate",
        "compute",
        "check",
        "search",
        "look",
        "say",
    ]
)
#: Words that open a question or a request.
_ASKING_OPENERS = _QUESTION_OPENERS | _INSTRUCTION_OPENERS
#: Phrases that ask anywhere in a sentence ("I want to know ...", "... can you ...").
_ASKING_PHRASES = re.compile(
    # not "comes in the mornings to help me dress": a purpose, not a request
    r"\b(can|could|would|will|do|did) you\b|(?<!\bto )\b(?:tell|remind|show|help) me\b"
    r"|\bi (?:\w+ )?(want|need|would like|'d like|wonder|was wondering|wanna)\b|\bi'd like\b|\blet me know\b"
    r"|\bany idea\b|\bi don't know (what|how|why|where|when|who|if|whether)\b"
    # a question after another clause: a question word, the verb before its subject ("if i get the
    # 6:12 from ashbury what time do i get into port ellis", "so when are we meant to be there")
    r"|\b(?:what|when|where|which|who|how|why)(?:\s+(?!to\b)\w+){0,2}\s+(?:am|is|are|was|were|do|does|did|can|could"
    r"|will|would|should|shall|must)\s+(?:i|we|you|he|she|it|they)\b",
    re.IGNORECASE,
)
#: a greeting, however it is stretched ("heyyy", "hiii", "helloo") and in a few languages
GREETING = (
    r"(?:he+y+a*|h+i+(?:y+a+)?|hel+o+|howdy|yo+|ciao|hola|hallo|bonjour|salut"
    r"|good\s+(?:morning|afternoon|evening))"
)
#: whom a greeting may name: "hello dear", "hi there", "hey thea"
GREETED = r"(?:\s+(?:there|dear|all|everyone|folks|friend|mate|buddy|thea))?"
_GREETING_WORD = re.compile(GREETING, re.IGNORECASE)
#: words that only thank, agree or take leave (greetings are :data:`GREETING`)
_SMALL_TALK = frozenset(
    [
        "thanks",
        "thank",
        "ok",
        "okay",
        "yes",
        "no",
        "yeah",
        "yep",
        "nope",
        "sure",
        "cool",
        "great",
        "bye",
        "goodbye",
        "good",
        "morning",
        "evening",
        "night",
        "afternoon",
        "fine",
        "nice",
        "welcome",
        "cheers",
        "a",
        "lot",
        "much",
        "very",
        "so",
        "you",
        "again",
        "there",
        "all",
        "everyone",
        "alright",
    ]
)
#: A telling sentence has a subject or a verb among these, or a past tense ("launched"): a list
#: of keywords ("Redis Initech passport PIN") or a salutation ("hello with a token") has none.
_TELLING_MARKERS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "am",
        "be",
        "been",
        "isn't",
        "aren't",
        "wasn't",
        "weren't",
        "i",
        "i'm",
        "i've",
        "i'd",
        "i'll",
        "my",
        "we",
        "we're",
        "our",
        "he",
        "he's",
        "his",
        "she",
        "she's",
        "her",
        "they",
        "they're",
        "their",
        "it",
        "it's",
        "its",
        "you",
        "you're",
        "your",
        "has",
        "have",
        "had",
        "will",
        "would",
        "can",
        "could",
        "do",
        "does",
        "did",
        "don't",
        "doesn't",
        "didn't",
        "won't",
        "can't",
        "there's",
        "that's",
    ]
)
#: Past tenses that do not end in "-ed" ("got two guinea pigs", "quit the cafe", "Biscuit died"):
#: a sentence with one tells, even typed without a subject or a full stop
IRREGULAR_PAST = frozenset(
    {"got", "went", "came", "left", "quit", "sold", "bought", "lost", "won", "met", "began", "became",
     "broke", "found", "ran", "kept", "fell", "paid", "spent", "split", "took", "gave", "made", "told",
     "brought", "caught", "thought", "wrote", "drove", "flew", "grew", "knew", "rode", "sang", "swam",
     "threw", "wore", "died", "tied", "lied", "wed"}
)  # fmt: skip
#: The fewest words a telling sentence has ("I am tired." has three).
MIN_WORDS = 3


def _past(word: str) -> bool:
    return word in IRREGULAR_PAST or (len(word) > 4 and word.endswith("ed"))


def _small_talk(word: str) -> bool:
    return word in _SMALL_TALK or bool(_GREETING_WORD.fullmatch(word))


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text.strip()) if s.strip()]


def _words(sentence: str) -> list[str]:
    return lower_words(sentence)


_CONTRACTED = re.compile(r"['\u2019](?:s|re|m|ve|ll|d)$")


def _opener(word: str) -> str:
    """The word without a contraction ("where's" is "where", "who're" is "who")."""
    return _CONTRACTED.sub("", word)


def _word_count(words: list[str]) -> int:
    """Words as said: a contraction is two ("I'm vegan." has three, as "I am vegan." has)."""
    return len(words) + sum(1 for w in words if re.search(r"'(?:m|re|s|ve|ll|d)$", w))


#: words that open a casual sentence and are no one's name ("So here's my plan", "ok here is ...")
CASUAL_WORDS = frozenset(
    {"so", "ok", "okay", "well", "yeah", "yep", "right", "anyway", "now", "just", "look", "oh", "hey"}
)
#: before a capitalised word: it is not one of those
NOT_CASUAL = rf"(?!(?i:{'|'.join(sorted(CASUAL_WORDS))})\b)"
#: "Priya here" (not "So here's", "Tom here is ...")
HERE = r"\s+here\b(?!\s*['\u2019]|\s+(?:is|are|was)\b)"
#: a self-introduction too short to count as a sentence: "Daniel here.", "It's Daniel here",
#: "Ines, 19, medicine at Edinburgh": a name and who they are
_INTRODUCTION = re.compile(
    rf"^\s*(?:(?:it's|it\s+is|this\s+is)\s+)?{NOT_CASUAL}[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+){{0,2}}"
    rf"(?:{HERE}|\s*,\s*\d{{1,3}}\s*(?:,|\.|$))"
)


def tells(sentence: str) -> bool:
    """One sentence tells something: declarative, not a question, request or bare greeting."""
    words = _words(sentence)
    if _INTRODUCTION.match(sentence) and not sentence.rstrip().endswith("?"):
        return True
    if sentence.rstrip().endswith("?"):
        return False
    if _word_count(words) < MIN_WORDS and not (len(words) == 2 and _past(words[1])):
        return False  # "Clover died.", "Got promoted!" tell; "Sounds good." does not
    if _opener(words[0]) in _ASKING_OPENERS or _ASKING_PHRASES.search(sentence):
        return False
    # a subject or verb we know, a past tense, or a full stop: a list of keywords has none of them
    if sentence.rstrip().endswith("."):
        return True
    if all(_small_talk(w) for w in words):
        return False
    core = split_opening(sentence)[1] or sentence  # "remember hana's vegetarian"
    if _STATE_OPENER.match(core) or _SOMEONE_IS.match(core):
        return True  # "On blood thinners, warfarin, so no ibuprofen for me": "I'm on ..."
    return any(w in _TELLING_MARKERS or _past(w) for w in words) or _has_subject_and_verb(sentence)


#: where the user is, said without "I'm": "On blood thinners, ...", "Off work with flu this
#: week", "In hospital till Friday", "Back at work after the surgery"
STATE_OPENER = _STATE_OPENER = re.compile(
    r"^\s*(?:on|off|in|back\s+(?:at|in|on|from|to)|home\s+from|out\s+of)\s+(?:(?:a|an|my|the)\s+)?"
    r"(?:blood\s+thinners|antibiotics|meds|medication|tablets|pills|insulin|steroids|statins|warfarin"
    r"|holiday|leave|sick\s+leave|maternity\s+leave|paternity\s+leave|nights|days|lates|earlies|shifts?"
    r"|work|hospital|bed\s+rest|crutches|a\s+diet|bed)\b"
    r"|^\s*on\s+[\w-]+(?:\s+[\w-]+)?\s+for\s+(?:my|the|a|an)\s+\w",  # "On sertraline for my anxiety"
    re.IGNORECASE,
)


#: "Hana's vegetarian", "Tom's allergic to nuts", "Dad's retired": someone's "is" before a state
#: a parser reads as a possessive's noun ("Hana's vegetarian (dish)")
SOMEONE_IS_STATE = (
    r"^\s*(?:(?:my|our|the)\s+)?(?P<who>[\w-]+)['\u2019]s\s+(?=(?:vegetarian|vegan|pescatarian|pregnant"
    r"|allergic|diabetic|coeliac|celiac|lactose|gluten|intolerant|retired|married|engaged|single|divorced"
    r"|ill|sick|unwell|poorly|better|fine|okay|ok|busy|asleep|deaf|blind|autistic|dyslexic|epileptic"
    r"|asthmatic|teetotal|sober|halal|kosher)\b"
    # the state ends the phrase ("Hana's vegetarian dish" is a dish)
    r"(?:\s*$|\s*[,.!;?]|\s+(?:to|and|now|too|so|as|but|since|these|at|for|from|with|btw|by|again)\b))"
)
#: "Mum's in hospital", "Dad's back home", "The dog's off his food": someone's "is", which a
#: parser may read as a possessive ("Mum's hospital")
_SOMEONE_IS = re.compile(
    r"^\s*(?:(?:my|our|the)\s+)?[\w-]+['\u2019]s\s+(?:in|out|off|on|at|back|home|away|still|now|not|been"
    r"|got|going|getting|moving|having|starting|doing|feeling|a|an|very|so|really|just|also)\b"
    rf"|{SOMEONE_IS_STATE}",
    re.IGNORECASE,
)


def _has_subject_and_verb(sentence: str) -> bool:
    """A subject with a verb of its own in a tense ("Kofi works nights now", "Mango ate a sock"):
    a statement typed without a full stop, which a list of keywords ("pasta carbonara recipe")
    is not."""
    from thea.language import parse  # the parser only for what the words alone cannot tell

    return any(
        t.dep_ in ("nsubj", "nsubjpass")
        and t.pos_ in ("PROPN", "NOUN", "PRON")
        and t.head.pos_ in ("VERB", "AUX")
        and t.head.tag_ in ("VBD", "VBZ", "VBP")
        for t in parse(sentence)
    )


def telling_sentences(text: str) -> list[str]:
    """The sentences of a message that tell something (what an insight may be learnt from)."""
    return [s for s in sentences(text) if tells(s)]


def is_greeting(sentence: str) -> bool:
    """The sentence only greets, thanks or agrees ("Hi!", "Thanks a lot", "OK, great")."""
    words = _words(sentence)
    return bool(words) and all(_small_talk(w) for w in words)


def asks(sentence: str) -> bool:
    """A sentence plainly asks or greets: a question, a request, a bare greeting."""
    words = _words(sentence)
    if not words or sentence.rstrip().endswith("?"):
        return True
    if _opener(words[0]) in _ASKING_OPENERS or _ASKING_PHRASES.search(sentence):
        return True
    return all(_small_talk(w) for w in words)


def puts_a_question(sentence: str) -> bool:
    """A sentence put as a question ("How do I get to work?", "what should i cook"), not as an
    instruction ("Suggest a soup.")."""
    words = _words(sentence)
    return sentence.rstrip().endswith("?") or (bool(words) and _opener(words[0]) in _QUESTION_OPENERS)


def tells_anything(text: str) -> bool:
    """Some sentence of the message does not plainly ask or greet (any language)."""
    return any(not asks(s) for s in sentences(text))


def is_statement(text: str) -> bool:
    """Every sentence of the message tells something, and none asks (a '?' anywhere asks)."""
    parts = sentences(text)
    return bool(parts) and "?" not in text and all(tells(s) for s in parts)


# --- the acknowledgement --------------------------------------------------------------

_FIRST_TO_SECOND = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
    "ourselves": "yourselves",
    "i'm": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "we're": "you're",
    "we've": "you've",
    "we'll": "you'll",
    "we'd": "you'd",
    "am": "are",
}
_SECOND_TO_FIRST = {
    "your": "my",
    "yours": "mine",
    "yourself": "myself",
    "you're": "I'm",
    "you've": "I've",
    "you'll": "I'll",
    "you'd": "I'd",
}
#: Words before a "you" that make it a subject ("... and you said" -> "and I said").
_CLAUSE_OPENERS = frozenset(
    ["and", "but", "or", "so", "because", "that", "when", "if", "while", "as", "then", "think", "know"]
)
#: Words after a "you" that make it a subject ("you are right" -> "I am right").
_SUBJECT_NEXT = frozenset(
    [
        "are",
        "were",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "should",
        "shall",
        "might",
        "may",
        "must",
        "do",
        "did",
        "don't",
        "didn't",
        "won't",
        "can't",
        "know",
        "said",
        "told",
        "helped",
        "gave",
        "asked",
        "seem",
        "seemed",
        "look",
        "looked",
        "always",
        "never",
        "also",
        "were",
    ]
)
#: At most this much of a message is restated; the rest is counted.
MAX_RESTATED_CHARS = 280


def turn_round(sentence: str) -> str:
    """First person becomes second and second becomes first: "I told you my plan" ->
    "you told me your plan". Word by word; case of the first letter kept."""
    tokens = pieces(sentence)
    out: list[str] = []
    previous = ""  # the last word token, lower case
    for i, tok in enumerate(tokens):
        low = tok.lower().replace("\u2019", "'")
        if not tok[0].isalpha():
            out.append(tok)
            continue
        if low == "was" and previous == "i":
            new = "were"
        elif low == "you":
            # the next word, found by index: a copy of the rest per "you" was quadratic
            following = next(
                (tokens[j].lower() for j in range(i + 1, len(tokens)) if tokens[j][0].isalpha()), ""
            )
            subject = previous in ("", *_CLAUSE_OPENERS) or following in _SUBJECT_NEXT
            new = "I" if subject else "me"
        elif low == "are" and previous == "you":
            new = "am"
        elif low == "were" and previous == "you":
            new = "was"
        elif low in _FIRST_TO_SECOND and not (low == "am" and previous != "i"):
            new = _FIRST_TO_SECOND[low]
        elif low in _SECOND_TO_FIRST:
            new = _SECOND_TO_FIRST[low]
        else:
            new = tok
        if new is not tok and tok[0].isupper() and low not in ("i", "i'm", "i've", "i'll", "i'd"):
            new = new[0].upper() + new[1:]
        out.append(new)
        previous = low
    return "".join(out)


def upper_first(text: str) -> str:
    """The text with its first letter upper-cased ("you work ..." -> "You work ...")."""
    return text[:1].upper() + text[1:]


def lower_first(text: str) -> str:
    """Lower-case the first letter unless it starts a name or acronym ("My" -> "my",
    "Priya" stays, "I" stays)."""
    if len(text) > 1 and text[0].isupper() and text[1].islower():
        word = first_word(text).replace("\u2019", "'")
        if word.lower() in {*_FIRST_TO_SECOND.values(), *_SECOND_TO_FIRST.values(), *STOPWORDS}:
            return text[0].lower() + text[1:]
    return text


#: words that open a told sentence without telling anything: greetings, joining words, news labels
#: ("Hey, ...", "And ...", "Scratch that, ...", "Quick update - ...")
OPENING_WORDS = (
    rf"{GREETING}{GREETED}|(?:well|so)(?=\s*,)|oh|ok(?:ay)?|and|but|also|plus"
    r"|anyway|by\s+the\s+way|btw|sadly|unfortunately|luckily|fortunately|finally|guess\s+what|actually"
    r"|sorry|scratch\s+that|correction|i\s+meant|(?:i\s+mean|wait|no\s+wait)(?=\s*,)|change\s+of\s+plans?"
    r"|(?:some\s+)?(?:big|good|great|bad|sad|exciting|quick)\s+news|news|(?:quick\s+)?update"
    r"|just\s+so\s+you\s+know|for\s+the\s+record|fyi|long\s+story\s+short|here['\u2019]s\s+the\s+thing"
    r"|(?:i\s+)?(?:forgot|meant|should|need)\s+to\s+(?:say|mention|tell\s+you)(?:\s+that)?"
    r"|i\s+should\s+(?:say|mention)(?:\s+that)?"
    # "remember hana's vegetarian", "don't forget that I'm on nights": what follows is told
    r"|(?:please\s+)?(?:remember|note|keep\s+in\s+mind|bear\s+in\s+mind|don['\u2019]t\s+forget|do\s+not\s+forget)"
    r"(?!\s+(?:to|when|what|where|who|how|if|me|us)\b)(?:\s+that)?"
)
#: one or more opening words, each with what follows it (",", "!", " - "), not the start of a
#: longer word ("Well-known ..." keeps its "Well"); the blanks before them are taken possessively
#: (every word starts with a letter): given back one by one, each tried every opening word
OPENERS = re.compile(
    rf"^\s*+(?:(?:{OPENING_WORDS})(?![\w'-])(?:\s*[,!.:]+|\s+[-\u2013\u2014]+)*\s*)+", re.IGNORECASE
)
#: a short label before a colon: "Big news:", "Update:", "Bad luck:", "The hospital rang:"
LABEL = re.compile(r"^\s*(?:[\w'-]+\s+){0,2}[\w'-]+\s*:\s+(?=\S)")


#: a filler after what a sentence tells: "I'm allergic to kiwi, by the way." Linear time: a match
#: starts at a comma or where a run of blanks starts (not inside the run: a run of spaces made
#: every start in it scan the run again, 20 s for 20,000 spaces), and the blanks and the end are
#: taken possessively (``*+``), never given back
_TRAILING_FILLER = re.compile(
    r"(?:,|(?<![\s,]))\s++(?:by\s+the\s+way|btw|fyi|lol|haha|just\s+so\s+you\s+know|for\s+the\s+record"
    r"|(?:i\s+)?forgot\s+to\s+(?:say|mention|tell\s+you))(?=\s*+[.!]*+\s*+$)",
    re.IGNORECASE,
)


def split_opening(sentence: str) -> tuple[str, str]:
    """(the labels and opening words before what a sentence tells, in any order, the rest without
    a filler at its end): "ok so quick update: Tom and I ..." -> ("ok so quick update: ", "Tom and
    I ..."); "I'm allergic to kiwi, by the way." -> ("", "I'm allergic to kiwi.")."""
    text = _TRAILING_FILLER.sub("", sentence)
    rest = text
    for _ in range(3):
        found = LABEL.match(rest) or OPENERS.match(rest)
        if found is None or not found.group().strip():
            break
        rest = rest[found.end() :]
    return text[: len(text) - len(rest)], rest.strip()


def without_opening(sentence: str) -> str:
    """The sentence without a label or joining word before what it tells ("Quick update: ...",
    "And ...", "Scratch that, ...", "ok so quick update: ...")."""
    rest = split_opening(sentence)[1]
    return upper_first(rest) if rest and rest != sentence else sentence


def _with_the_user(sentence: str) -> str:
    """A sentence that opens with a past tense, "I" left out ("Started at Pawfect Grooming"), said
    with its subject, so that it is said back as "you started ...", not "Started ..."."""
    words = _words(sentence)
    if words and _past(words[0]) and sentence[:1].isalpha():
        return f"I {sentence[:1].lower()}{sentence[1:]}"
    return sentence


#: what a statement gets when the model's reaction cannot be shown, and what opens an answer to a
#: message that told something and asked too
ACKNOWLEDGEMENT = "Got it, I'll remember that."
#: that acknowledgement (and the older "Noted: ... I'll remember that."), after a greeting, once
#: or several times over
_ACKNOWLEDGED = re.compile(
    r"^(?:\s*(?:\w+!\s+)?(?:Noted: .*? I'll remember that\.|" + re.escape(ACKNOWLEDGEMENT) + r"))+\s*",
    re.DOTALL,
)


def without_acknowledgement(answer: str) -> str:
    """An answer without its opening acknowledgements (the small model copies them from the
    conversation into answers to requests: "Noted: A good high protein lunch ...", and on first
    contact "Got it, I'll remember that. Got it, I'll remember that. The perfume ...")."""
    return _ACKNOWLEDGED.sub("", answer, count=1)


def may_become_acknowledgement(start: str) -> bool:
    """The start of a streamed answer may still become the acknowledgement (after a greeting)."""
    words = start.split()
    if words and words[0].endswith("!"):
        words = words[1:]
    return bool(start.strip()) and ACKNOWLEDGEMENT.startswith(" ".join(words))
