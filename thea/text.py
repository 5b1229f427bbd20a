"""Text that leaves thea for somewhere it could do harm: a model's prompt or a terminal.

:func:`neutralise` is for every text thea did not write itself that goes into a prompt
(recalled memories, a previous turn, the user's message). Its contract:

1. the result is NFKC-normalised (full-width and other compatibility forms become their
   plain spelling, so the full-width ``<|im_end|>`` (U+FF1C U+FF5C ...) is defused below too);
2. it holds no control character (Unicode Cc: C0, DEL, C1), no format character (Cf:
   zero-width characters, bidi embeddings and overrides, BOM, invisible tag characters),
   no surrogate, no line or paragraph separator (Zl, Zp) and no variation selector of the
   supplement block (used to smuggle bytes). Line breaks of every kind (``\\r``, ``\\v``,
   ``\\f``, U+0085, U+2028, U+2029, ...) and tabs become one space; with ``multiline=True``
   (a chat turn of its own) line breaks become ``\\n`` and tabs stay;
3. no chat-template token survives, in any case or spacing, with full-width or look-alike
   angle brackets and bars: ``<|...|>`` (ChatML, Llama 3, Phi, DeepSeek, Command R,
   Granite, ...), ``<start_of_turn>``-style tags (any tag with ``_`` or ``▁`` in its name,
   and ``<s>``, ``</s>``, ``<bos>``, ``<system>``, ``<user>``, ``<think>``, ...), Mistral's
   ``[INST]``/``[/INST]``-style brackets, and runs of ``<<``/``>>`` (``<<SYS>>``, the
   reference block's own ``<<<``/``>>>`` markers). Their brackets become parentheses
   (``<|im_start|>`` -> ``(im_start)``, ``[INST]`` -> ``(INST)``) and ``<<``/``>>`` runs
   become ``«``/``»``, so the text still reads the same but can no longer be parsed as a
   special token or mistaken for one;
4. it is idempotent, and everything else (letters, digits, punctuation, emoji) is kept.

:func:`printable` is for text printed on a terminal: control and bidi characters are
shown visibly (``\\x1b``, ``\\u202e``) instead of being interpreted.
"""

from __future__ import annotations

import re
import unicodedata

#: Look-alikes of ``<``, ``>`` and ``|`` that NFKC leaves alone.
LT_LOOKALIKES = "<\u2039\u02c2\u1438\u3008\u276e\u27e8\u29fc\u276c\u2770"
GT_LOOKALIKES = ">\u203a\u02c3\u1433\u3009\u276f\u27e9\u29fd\u276d\u2771"
BAR_LOOKALIKES = "|\u2223\u01c0\u2758\u2502\u2503\u23d0\u23b8\u23b9\u05c0"
LT, GT, BAR = f"[{LT_LOOKALIKES}]", f"[{GT_LOOKALIKES}]", f"[{BAR_LOOKALIKES}]"

#: Short tag names that chat templates use as special tokens (longer ones carry ``_`` or ``▁``).
TAG_NAMES = (
    "s", "bos", "eos", "pad", "unk", "sep", "cls", "mask", "sop", "eop", "eot", "end", "start",
    "system", "user", "assistant", "model", "human", "bot", "ai", "tool", "function", "ipython",
    "developer", "think", "thinking", "answer", "instruction", "response", "inst", "sys", "context",
    "message", "channel", "turn", "role",
)  # fmt: skip
#: Bracketed special tokens of Mistral-style templates.
BRACKET_NAMES = (
    "inst", "sys", "system", "system_prompt", "available_tools", "tool_calls", "tool_results",
    "tool_content", "gmask", "smask", "mask", "img", "think",
)  # fmt: skip

_NAME = r"[\w\u2581]*[_\u2581][\w\u2581]*|" + "|".join(sorted(TAG_NAMES, key=len, reverse=True))
_BRACKET = r"[A-Za-z]*_[A-Za-z_]*|" + "|".join(sorted(BRACKET_NAMES, key=len, reverse=True))
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    # <|im_start|>, DeepSeek's <(U+FF5C)User(U+FF5C)>, [|system|]: any bar next to a bracket
    (re.compile(rf"(?:{LT}|\[)\s*{BAR}+"), "("),
    (re.compile(rf"{BAR}+\s*(?:{GT}|\])"), ")"),
    # <<SYS>>, <<<REFERENCE ...>>>: runs of two or more brackets
    (re.compile(rf"{LT}(?:\s*{LT})+"), "\u00ab"),
    (re.compile(rf"{GT}(?:\s*{GT})+"), "\u00bb"),
    # <start_of_turn>, </s>, <system>, < think >
    (re.compile(rf"{LT}\s*(/?)\s*({_NAME})\s*(/?)\s*{GT}", re.IGNORECASE), r"(\1\2\3)"),
    # [INST], [/INST], [SYSTEM_PROMPT]
    (re.compile(rf"\[\s*(/?)\s*({_BRACKET})\s*\]", re.IGNORECASE), r"(\1\2)"),
)

_LINE_BREAK = re.compile("\r\n|[\r\v\f\x1c-\x1e\x85\u2028\u2029]")  # what str.splitlines() splits on
_SMUGGLE = re.compile("[\U000e0100-\U000e01ef]")  # variation selectors supplement
_DROP = {"Cf"}
_BLANK = {"Cc", "Zl", "Zp"}


def _clean(text: str, multiline: bool) -> str:
    out: list[str] = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in _DROP:
            continue
        if cat == "Cs":
            out.append("\ufffd")
        elif cat in _BLANK and not (multiline and ch in "\n\t"):
            out.append(" ")
        else:
            out.append(ch)
    return _SMUGGLE.sub("", "".join(out))


def neutralise(text: str, *, multiline: bool = False) -> str:
    """Make text safe to quote in a prompt (see the module docstring for the contract)."""
    text = unicodedata.normalize("NFKC", text)
    if multiline:
        text = _LINE_BREAK.sub("\n", text)
    text = _clean(text, multiline)
    # removing characters can bring parts together again ("<|im_\u200bend|>"): normalise once more
    text = unicodedata.normalize("NFKC", text)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    if multiline:
        return text
    return " ".join(text.split())


#: bidi controls: embeddings, overrides, isolates and marks. They reorder how the text after
#: them is shown (U+202E makes "txt.exe" of "exe.txt"), so stored text never keeps them.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")


def without_bidi_controls(text: str) -> str:
    """``text`` without bidi controls (everything else, other format characters included, kept)."""
    return _BIDI.sub("", text)


_INVISIBLE = {"Cc", "Cf", "Cs", "Zl", "Zp"}


def printable(text: str, *, keep_newlines: bool = True) -> str:
    """Text safe to print on a terminal: control, bidi and other invisible format characters
    (ESC, BEL, ``\\r``, U+009B, U+202E, U+200B, ...) are shown as escapes (``\\x1b``,
    ``\\u202e``) instead of reaching the terminal. Newlines (and tabs) stay unless
    ``keep_newlines`` is false."""
    out: list[str] = []
    for ch in text:
        if unicodedata.category(ch) in _INVISIBLE and not (keep_newlines and ch in "\n\t"):
            out.append(repr(ch)[1:-1])  # '\\x1b', '\\u202e', '\\U000e0041'
        else:
            out.append(ch)
    return "".join(out)


def _spaced(word: str) -> str:
    """``word`` as a pattern that allows blanks between its letters ("java script")."""
    return r"\s*".join(re.escape(ch) for ch in word)


#: a URL scheme that runs code or reads local data when a renderer follows it, however it is
#: spelt: blanks between its letters, its colon as an HTML entity ("javascript&#58;")
_UNSAFE_SCHEME = (
    r"(?:" + "|".join(_spaced(s) for s in ("javascript", "vbscript", "data", "file")) + r")"
    r"\s*(?::|&#0{0,8}58;?|&#x0{0,8}3a;?|&colon;?)"
)
#: ![alt](address): a renderer fetches the address as soon as it shows the answer, so an image
#: can carry the user's words to anyone's server without a click
#: a link's address: up to its closing parenthesis, one level of parentheses inside ("alert(1)")
_ADDRESS = r"(?:[^()\n]|\([^()\n]{0,200}\)){0,2000}\)?"
_MD_IMAGE = re.compile(rf"!\s*\[([^\]\n]{{0,120}})\]\s*\({_ADDRESS}")
_MD_UNSAFE_LINK = re.compile(rf"\[([^\]\n]{{0,120}})\]\s*\(\s*<?\s*{_UNSAFE_SCHEME}{_ADDRESS}", re.I)
_MD_UNSAFE_AUTOLINK = re.compile(rf"<\s*{_UNSAFE_SCHEME}[^>\n]{{0,2000}}>?", re.I)
_MD_UNSAFE_REFERENCE = re.compile(rf"\]\s*:\s*<?\s*{_UNSAFE_SCHEME}\S{{0,2000}}", re.I)
_MD_HTML_TAG = re.compile(
    r"<\s*/?\s*(?:script|iframe|img|object|embed|svg|style|form|input|a|link|meta)\b", re.I
)


def for_markdown(text: str) -> str:
    """An answer made safe for a client that renders markdown (an MCP host, a chat UI on the
    OpenAI-compatible endpoint): :func:`neutralise` (multi-line: no invisible or control
    characters, no template tokens), then no image (shown as ``[image: alt]``, never fetched),
    no link, autolink or reference to a ``javascript:``/``vbscript:``/``data:``/``file:``
    address (the link text stays), and no raw HTML tag that runs or loads something (its ``<``
    becomes U+2039). Idempotent; everything else is left as written."""
    # before neutralise (it makes "[img]" "(img)") and after (it removes what hid a scheme)
    return _defused(neutralise(_defused(text), multiline=True))


def _defused(text: str) -> str:
    text = _MD_IMAGE.sub(lambda m: f"[image: {m.group(1).strip()}]", text)
    text = _MD_UNSAFE_LINK.sub(lambda m: m.group(1), text)
    text = _MD_UNSAFE_AUTOLINK.sub("(link removed)", text)
    text = _MD_UNSAFE_REFERENCE.sub("]: (link removed)", text)
    return _MD_HTML_TAG.sub(lambda m: "\u2039" + m.group(0)[1:], text)


#: characters that may open a link, an image, a tag or an entity
_OPENERS = frozenset("[!<&")
#: a streamed answer holds back at most this much while a link may still be completing
MARKDOWN_HOLD_CHARS = 2_400
_ENTITY_GROWING = re.compile(r"&#?[xX]?\w{0,10}")
_TAG_START = re.compile(rf"\s{{0,8}}(?:[A-Za-z/]|{BAR})")


def _link_complete(rest: str) -> bool:
    """``rest`` starts with "[": is the link (or plain bracket) it opens finished?"""
    close = rest.find("]")
    if close < 0:
        return False
    after = rest[close + 1 :].lstrip(" ")
    if not after:
        return False  # "(" may come next
    if after[0] == ":":  # a reference definition: finished at the blank after its address
        address = after[1:].lstrip(" ")
        return bool(address) and any(ch.isspace() for ch in address)
    if after[0] != "(":
        return True
    depth = 0
    for ch in after:
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return True
    return False


def _complete(rest: str) -> bool:
    """Is the construct ``rest`` opens (a link, an image, a tag, an entity) finished?"""
    first = rest[0]
    if first == "&":
        return _ENTITY_GROWING.fullmatch(rest) is None
    if first == "<":
        return ">" in rest if _TAG_START.match(rest[1:]) or len(rest) == 1 else True
    if first == "!":
        after = rest[1:].lstrip(" ")
        return bool(after) and (after[0] != "[" or _link_complete(after))
    return _link_complete(rest)


class MarkdownStream:
    """:func:`for_markdown` over an answer streamed in pieces: from the first link, image, tag
    or entity of the current line that is not finished yet (at most ``MARKDOWN_HOLD_CHARS``
    back), the text is held until it is, so no piece lets half of one through."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, piece: str) -> str:
        text = self._held + piece
        cut = len(text)
        for at in range(max(text.rfind("\n") + 1, len(text) - MARKDOWN_HOLD_CHARS), len(text)):
            if text[at] in _OPENERS and not _complete(text[at:]):
                cut = at
                break
        self._held = text[cut:]
        return for_markdown(text[:cut]) if cut else ""

    def finish(self) -> str:
        held, self._held = self._held, ""
        return for_markdown(held) if held else ""
