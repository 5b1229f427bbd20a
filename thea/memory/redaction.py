"""Forgetting for good: the words of a forgotten fact erased from everything that holds them.

Erasing a fact (:func:`thea.memory.erasure.erase`) removes its node, vectors and log event. What
it was said in, and what was made from it, hold the same words: the message that told it,
thea's reply, the trace of that cycle, the cycles that recalled it and their answers, the
conversation's distilled turns, insights drawn from them, a concept named by it.
:func:`scrub`:

1. reads the user's memory nodes and finds those holding the fact's id or its quote
   (case-insensitive): their cycles (correlation ids) are the cycles that told or used it;
2. in those cycles, every text (messages, replies, trace inputs and outputs) has the fact's
   value and quote replaced by :data:`FORGOTTEN_MARK`; outside them, the quote;
3. erases the insights derived from any of those nodes or holding the value or quote (and the
   insights merged from them), and the concepts named by the value that no remaining fact or
   insight contains;
4. writes the redacted nodes back to every layer: the graph, fresh vectors, fresh log rows.

Another fact is left alone even when it holds the same words: the user told it separately and
it is still theirs. Ids are never redacted (only text). The caller then has the engines
rewrite their files (:meth:`UniversalMemory.compact`), so the words leave the disk too.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from thea.memory.erasure import erase, erase_concepts
from thea.memory.universal import UniversalMemory, collection_for
from thea.models import Collection, Fact, KnowledgeCrystal, Node, NodeType
from thea.words import STOPWORDS

log = logging.getLogger(__name__)

#: what a forgotten value or quote becomes in the texts that held it
FORGOTTEN_MARK = "[forgotten]"
#: nodes read per page while searching the user's memories
PAGE = 500
#: node types whose text is redacted in place (what happened stays, the words go)
_REDACTED_IN_PLACE = frozenset(
    {
        NodeType.USER_IMPULSE,
        NodeType.TASK,
        NodeType.REPORT,
        NodeType.INSTINCTIVE_RESPONSE,
        NodeType.SEARCH_PLAN,
        NodeType.FINAL_RESPONSE,
        NodeType.DIALOGUE_TURN,
    }
)


@dataclass(frozen=True)
class Secret:
    """The words one forgotten fact leaves behind."""

    fact_id: str
    #: its value (and, forgetting everything about a subject, the subject's name): erased in
    #: the cycles that told or used it
    values: tuple[str, ...] = ()
    #: the user's words that told it: erased everywhere
    quote: str = ""
    #: its own cycle (the message that told it)
    source_ids: tuple[str, ...] = ()

    @classmethod
    def of(cls, fact: Fact, *also: str) -> Secret:
        values = tuple(v for v in (_plain_words(w) for w in (fact.value or "", *also)) if _erasable(v))
        quote = _plain_words(fact.quote or "")
        sources = tuple(i for i in (fact.source_message_id, fact.correlation_id) if i)
        return cls(fact_id=fact.id, values=values, quote=quote, source_ids=sources)

    def pattern(self, *, with_value: bool) -> re.Pattern[str] | None:
        words = [self.quote, *(self.values if with_value else ())]
        alternatives = [words_pattern(w) for w in sorted({w for w in words if w}, key=len, reverse=True)]
        if not alternatives:
            return None
        return re.compile("|".join(alternatives), re.IGNORECASE)


def _plain_words(text: str) -> str:
    return " ".join(text.split())


def _erasable(value: str) -> bool:
    """A value worth erasing from text: not a word too common to erase ("no", "it")."""
    return len(value) >= 2 and value.lower() not in STOPWORDS


def words_pattern(words: str) -> str:
    """A regular expression of the words as written, whatever the spacing, not inside a longer
    word (compile it ignoring case)."""
    body = r"\s+".join(re.escape(part) for part in words.split())
    return rf"(?<!\w){body}(?!\w)"


@dataclass
class Scrubbed:
    """What one scrub changed."""

    #: nodes whose text was redacted in place
    redacted: list[str] = field(default_factory=list)
    #: insights erased (derived from the forgotten words)
    insights: list[str] = field(default_factory=list)
    #: concepts erased (named by the forgotten value, supported by nothing left)
    concepts: list[str] = field(default_factory=list)
    #: conversations whose messages or replies held the words (their short-term context too)
    sessions: list[str] = field(default_factory=list)


def _is_id_key(key: str) -> bool:
    return key == "id" or key.endswith(("_id", "_ids", "Id")) or key in ("ids", "type", "user_id")


def redact_value(value: Any, pattern: re.Pattern[str]) -> Any:
    """``value`` with every match of ``pattern`` in its texts replaced (ids left alone)."""
    if isinstance(value, str):
        return pattern.sub(FORGOTTEN_MARK, value)
    if isinstance(value, list):
        return [redact_value(v, pattern) for v in value]
    if isinstance(value, dict):
        return {k: v if _is_id_key(str(k)) else redact_value(v, pattern) for k, v in value.items()}
    return value


def redact_node(node: Node, pattern: re.Pattern[str]) -> Node | None:
    """The node with its texts redacted, or None when nothing in it matched."""
    data = node.model_dump(mode="json")
    redacted = redact_value(data, pattern)
    if redacted == data:
        return None
    try:
        return type(node).model_validate(redacted)
    except ValidationError as exc:  # a bounded field grew: fall back to the bare mark
        log.warning("redacting %s %s: %s; its texts are replaced whole", node.type.value, node.id, exc)
        whole = {
            k: (FORGOTTEN_MARK if isinstance(v, str) and pattern.search(v) else v)
            for k, v in redacted.items()
        }
        return type(node).model_validate(whole)


def _texts(props: dict[str, Any]) -> Iterator[str]:
    for key, value in props.items():
        if key in ("id", "type", "user_id"):
            continue
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, str))


def user_memory_props(memory: UniversalMemory, user_id: str) -> Iterator[dict[str, Any]]:
    """Every memory node of the user, as its stored properties, a page at a time."""
    after = ""
    while True:
        page = memory.graph.deletion.user_memory_page(user_id, after, PAGE)
        yield from page
        if len(page) < PAGE:
            return
        after = str(page[-1]["id"])


def _cycle(props: dict[str, Any]) -> str:
    return str(props.get("correlation_id") or props.get("id"))


def _node(props: dict[str, Any]) -> Node | None:
    try:
        return Node.from_props(props)
    except (ValueError, TypeError) as exc:  # an unreadable node: `thea memory check` reports it
        log.warning("forgetting skips unreadable node %s: %s", props.get("id"), exc)
        return None


@dataclass
class _Found:
    """What the search of the user's memories found for the forgotten words."""

    changed: dict[str, Node] = field(default_factory=dict)
    insights: set[str] = field(default_factory=set)
    concepts: set[str] = field(default_factory=set)

    def search(self, nodes: Sequence[dict[str, Any]], secret: Secret) -> None:
        everything = secret.pattern(with_value=True)
        quote_only = secret.pattern(with_value=False)
        if everything is None:
            return
        cycles = set(secret.source_ids) | {_cycle(p) for p in nodes if _holds(p, secret.fact_id, quote_only)}
        for props in nodes:
            node_type = str(props.get("type"))
            if node_type == NodeType.KNOWLEDGE_CRYSTAL.value:
                if _matches(props, everything):
                    self.insights.add(str(props["id"]))
            elif node_type == NodeType.CONCEPT.value:
                if _matches(props, everything):
                    self.concepts.add(str(props["id"]))
            elif node_type in _REDACTED_IN_PLACE:  # a document keeps its text: the user did not tell it
                in_cycle = _cycle(props) in cycles or props.get("id") in cycles
                self._redact(props, everything if in_cycle else quote_only)

    def _redact(self, props: dict[str, Any], pattern: re.Pattern[str] | None) -> None:
        if pattern is None or not _matches(props, pattern):
            return
        node = self.changed.get(str(props["id"])) or _node(props)
        redacted = redact_node(node, pattern) if node is not None else None
        if redacted is not None:
            self.changed[redacted.id] = redacted


def scrub(memory: UniversalMemory, user_id: str, secrets: Sequence[Secret]) -> Scrubbed:
    """Erase the words of forgotten facts from the user's other memories (see the module)."""
    out = Scrubbed()
    secrets = [s for s in secrets if s.values or s.quote]
    if not secrets or not user_id:
        return out
    erased_facts = {s.fact_id for s in secrets}
    nodes = [p for p in user_memory_props(memory, user_id) if str(p.get("type")) != NodeType.FACT.value]
    found = _Found()
    for secret in secrets:
        found.search(nodes, secret)
    changed, insight_ids, concept_ids = found.changed, found.insights, found.concepts
    redacted_nodes = list(changed.values())
    touched = [*erased_facts, *(i for s in secrets for i in s.source_ids), *changed]
    insight_ids |= set(memory.graph.deletion.insights_derived_from(touched, user_id))
    if insight_ids:
        insights = [n for n in memory.get(sorted(insight_ids)) if isinstance(n, KnowledgeCrystal)]
        out.insights = erase(memory, insights, user_id).ids
    leaving = [*erased_facts, *out.insights]
    unsupported = memory.graph.deletion.unsupported_concepts(sorted(concept_ids), user_id, leaving)
    out.concepts = erase_concepts(memory, unsupported, user_id)
    if redacted_nodes:
        _rewrite(memory, redacted_nodes)
        out.redacted = [n.id for n in redacted_nodes]
        out.sessions = sorted({n.session_id for n in redacted_nodes if n.session_id})
    log.info(
        "forgetting for user %s: %d texts redacted, %d insights and %d concepts erased",
        user_id,
        len(out.redacted),
        len(out.insights),
        len(out.concepts),
    )
    return out


def _matches(props: dict[str, Any], pattern: re.Pattern[str]) -> bool:
    return any(pattern.search(t) for t in _texts(props))


def _holds(props: dict[str, Any], fact_id: str, quote: re.Pattern[str] | None) -> bool:
    """Whether a memory names the fact (a recall that handed it out) or holds its quote."""
    return any(fact_id in t for t in _texts(props)) or (quote is not None and _matches(props, quote))


def _rewrite(memory: UniversalMemory, nodes: Sequence[Node]) -> None:
    """Redacted nodes in every layer: graph properties overwritten, the old vectors and log
    rows (which held the words) replaced by new ones."""
    memory.graph.upsert_nodes(nodes)
    by_collection: dict[Collection, list[str]] = {}
    for node in nodes:
        by_collection.setdefault(collection_for(node.type), []).append(node.id)
    for collection, ids in by_collection.items():
        memory.vectors.delete(collection, ids)
    records = memory.vector_records(nodes)
    if records:
        memory.vectors.upsert(records)
    memory.chronicle.delete([n.id for n in nodes])
    memory.chronicle.append([memory.event_of(n) for n in nodes])
