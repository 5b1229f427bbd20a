"""Correct, outdate or forget one fact of record: the same effect from every interface (the API,
``thea memories``, ``!memories``, the MCP tools, ``thea.Client``).

* **correct**: the correction becomes the claim's new value (the same subject and attribute,
  told by the user), and the corrected claim is superseded by it: ``valid_until``,
  ``superseded_by``, a SUPERSEDES edge from the new claim, its asserted relations closed.
  History is kept.
* **outdate**: the fact stops holding now (``valid_until``), nothing replaces it; kept in history.
* **forget**: the fact is erased from the graph (with its edges and asserted relations), the
  vectors and the chronicle, which keeps only that a deletion happened
  (:mod:`thea.memory.erasure`); it is gone from answers, recall, insights and the graph view at
  once. An earlier value it had replaced is handed to the fact that replaced it, if any.

Insights resting on the fact (derived from the message that told it, or from the fact itself,
and those merged from them) are re-checked: a corrected, outdated or deleted fact no longer
supports them, so they are superseded (inactive, ``valid_until``, a ``superseded`` revision
saying why) and their asserted relations closed.

Every action takes the caller's own fact by id or unique prefix; another user's id gets exactly
the answer of an id that does not exist.
"""

from __future__ import annotations

import logging
import re

from services.common.impulse_input import validate_impulse_text
from services.common.statements import turn_round
from services.knowledge.claims.render import claim_line
from services.knowledge.erasing import (
    Conversations,
    PendingJobs,
    compaction_note,
    count,
    drop_conversations,
    forget_in_jobs,
    withdraw,
)
from services.views.memories import CORRECTION, FactBook, own_fact, read_book, second_person
from thea.api.models import MAX_FACT_TEXT_CHARS, FactEditResult
from thea.errors import InputError
from thea.memory.erasure import erase
from thea.memory.operations import NodePatch
from thea.memory.ports import FactEdits, InsightSupersession
from thea.memory.redaction import Secret, scrub
from thea.memory.universal import UniversalMemory
from thea.models import USER_SUBJECT, Edge, EdgeType, Fact, FactOrigin, Revision, now_ms, stable_id

log = logging.getLogger(__name__)

CORRECTED = "a fact it rests on was corrected"
OUTDATED = "a fact it rests on is outdated"

#: a correction that starts in the second person, as the list shows facts ("You live in York.")
_SECOND_PERSON = frozenset({"you", "your", "you're", "you've", "you'll", "you'd", "yours"})
_PRONOUN = re.compile(r"^\s*(he|she|they|it)(?:'s|\u2019s)?\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"^\s*(his|her|their|its)\b", re.IGNORECASE)


def _quoted(text: str) -> str:
    return f"\u201c{text}\u201d"


def as_told(text: str, fact: Fact) -> str:
    """The correction as the user would tell it: the second person of the memory list turned
    back ("You live in York." -> "I live in York."), and a pronoun standing for the fact's
    subject named ("She is a nurse." about Ana -> "Ana is a nurse.")."""
    said = " ".join(text.split())
    first = said.split(" ", 1)[0].lower().strip(",.;:!").replace("\u2019", "'")
    if first in _SECOND_PERSON:
        return turn_round(said)
    if fact.subject_key in (None, USER_SUBJECT) or not fact.subject:
        return said
    name = fact.subject
    pronoun = _PRONOUN.match(said)
    if pronoun:
        rest = said[pronoun.end() :]
        joined = f"{name} is" if pronoun.group(0).lower().endswith(("'s", "\u2019s")) else name
        return joined + rest
    possessive = _POSSESSIVE.match(said)
    if possessive:
        return f"{name}'s" + said[possessive.end() :]
    return said


def corrected_claim(text: str, fact: Fact, at: int) -> Fact:
    """The claim the correction makes: the same subject and attribute, the corrected value (the
    user's words, as told), superseding the old one."""
    value = text.strip().rstrip(".")
    new = fact.model_copy(
        update={
            "id": stable_id("correction", fact.id, str(at)),
            "value": value,
            "quote": text if fact.quote is not None else None,
            "change": CORRECTION,
            "origin": FactOrigin.TOLD,
            "created_at": at,
            "valid_from": at,
            "valid_until": None,
            "superseded_by": None,
            "active": True,
            "when": None,
            "read_by": None,
            "source_message_id": None,
            "correlation_id": None,
            "session_id": None,
            "keywords": [],
            "slots": [],
        }
    )
    # a fact read before claims existed has no fields to show: it keeps the words told
    return new.model_copy(update={"content": claim_line(new) if fact.quote is not None else text})


def _sources(fact: Fact) -> list[str]:
    """What insights may rest on for this fact: the fact, and the message that told it (a fact
    told with !fact names the chat's last message, which did not tell it)."""
    ids = [fact.id]
    if fact.origin is FactOrigin.SAID and fact.source_message_id:
        ids.append(fact.source_message_id)
    return ids


def supersede_insights(
    memory: InsightSupersession, fact: Fact, at: int, reason: str, *, by: str | None = None
) -> list[str]:
    """Supersede the user's active insights resting on ``fact``; return their ids."""
    user_id = fact.user_id or ""
    found = memory.facts.insights_resting_on(_sources(fact), user_id)
    if not found:
        return []
    evidence = [by] if by else []
    changed = [
        k.model_copy(
            update={
                "active": False,
                "valid_until": at,
                "revisions": [
                    *k.revisions,
                    Revision(kind="superseded", at=at, reason=reason, evidence=evidence),
                ],
            }
        )
        for k in found
    ]
    edges = [Edge(src=by, dst=k.id, type=EdgeType.SUPERSEDES) for k in changed] if by else []
    memory.record(changed, edges)
    ids = [k.id for k in changed]
    memory.close_insight_relations(ids, at)
    return ids


def _require_current(fact: Fact, verb: str) -> None:
    """A fact closed only from a later day (by a change told ahead) still holds now."""
    if (fact.valid_until is not None and fact.valid_until <= now_ms()) or not fact.active:
        newer = f" by {fact.superseded_by[:8]}" if fact.superseded_by else ""
        raise InputError(
            f"fact {fact.id[:8]} no longer holds (replaced{newer} or outdated): {verb} a current fact "
            "(`thea memories` lists them), or forget this one"
        )


def correct(
    memory: FactEdits,
    id_or_prefix: str,
    text: str,
    user_id: str,
    *,
    max_chars: int = MAX_FACT_TEXT_CHARS,
) -> FactEditResult:
    """Replace one of the user's current facts by what they say is true instead."""
    fact = own_fact(memory, id_or_prefix, user_id)
    _require_current(fact, "correct")
    if not text.strip():
        raise InputError('give the correction: what is true instead, e.g. "I live in York."')
    told = as_told(validate_impulse_text(text, max_chars), fact)
    at = max(now_ms(), fact.created_at + 1)
    newest = corrected_claim(told, fact, at)
    facts = [newest]
    memory.record(facts, [Edge(src=newest.id, dst=fact.id, type=EdgeType.SUPERSEDES)])
    memory.knowledge.patch_nodes([NodePatch(fact.id, {"valid_until": at, "superseded_by": newest.id})])
    memory.knowledge.close_relations([fact.id], at)
    closed = [fact.id]
    insights = supersede_insights(memory, fact, at, CORRECTED, by=newest.id)
    book = read_book(memory, user_id)
    views = [book.view(book.by_id[f.id]) for f in facts if f.id in book.by_id]
    now_text = "; ".join(second_person(f) for f in facts)
    was = _quoted(second_person(fact))
    summary = f"corrected {fact.id[:8]}: now {_quoted(now_text)} (was {was}, kept in history)"
    others = [i for i in closed if i != fact.id]
    if others:
        summary += f"; also replaced {', '.join(i[:8] for i in others)}"
    summary += _insights_note(insights)
    log.info("user %s corrected fact %s by %s", user_id, fact.id, [f.id for f in facts])
    return FactEditResult(
        action="correct",
        id=fact.id,
        facts=views,
        closed=closed,
        insights_superseded=list(dict.fromkeys(insights)),
        summary=summary,
    )


def outdate(memory: FactEdits, id_or_prefix: str, user_id: str) -> FactEditResult:
    """One of the user's current facts no longer holds; nothing replaces it (kept in history)."""
    fact = own_fact(memory, id_or_prefix, user_id)
    _require_current(fact, "outdate")
    at = max(now_ms(), fact.created_at + 1)
    memory.knowledge.patch_nodes([NodePatch(fact.id, {"valid_until": at})])
    memory.knowledge.close_relations([fact.id], at)
    insights = supersede_insights(memory, fact, at, OUTDATED)
    summary = (
        f"marked {fact.id[:8]} outdated: {_quoted(second_person(fact))} no longer holds (kept in history)"
        + _insights_note(insights)
    )
    log.info("user %s marked fact %s outdated", user_id, fact.id)
    return FactEditResult(
        action="outdate", id=fact.id, closed=[fact.id], insights_superseded=insights, summary=summary
    )


def forget(
    memory: UniversalMemory,
    id_or_prefix: str,
    user_id: str,
    conversations: Conversations | None = None,
    jobs: PendingJobs | None = None,
) -> FactEditResult:
    """Erase one of the user's facts (current or earlier) everywhere: its node, vectors and log
    event, its words in the message that told it, thea's reply and every trace that used it,
    the insights drawn from them and a concept only it named; then the engines rewrite their
    files, so the words are gone from disk when this returns."""
    fact = own_fact(memory, id_or_prefix, user_id)
    book = read_book(memory, user_id)
    erase(memory, [fact], user_id)
    withdraw(memory, [fact])  # the message it was read from: recall would hand it out again
    _relink(memory, book, fact)
    secret = Secret.of(fact)
    scrubbed = scrub(memory, user_id, [secret])
    drop_conversations(conversations, user_id, scrubbed.sessions)
    forget_in_jobs(jobs, user_id, [secret])
    compacted = memory.compact()
    summary = (
        f"deleted {fact.id[:8]} ({_quoted(second_person(fact))}): it is no longer recalled, used in "
        f"answers or shown; its words were erased from {count(len(scrubbed.redacted), 'stored text')} "
        "(messages, replies, trace steps)"
        + _erased_note(scrubbed.insights, "insight")
        + _erased_note(scrubbed.concepts, "concept")
    )
    summary += compaction_note(compacted)
    log.info("user %s deleted fact %s", user_id, fact.id)
    closed = [fact.id] if fact.valid_until is None else []
    return FactEditResult(
        action="forget", id=fact.id, closed=closed, insights_superseded=scrubbed.insights, summary=summary
    )


def _erased_note(ids: list[str], what: str) -> str:
    if not ids:
        return ""
    return f"; {count(len(ids), what)} made from it erased ({', '.join(i[:8] for i in ids)})"


def _relink(memory: FactEdits, book: FactBook, fact: Fact) -> None:
    """The values a deleted fact had replaced now belong to the history of the fact that
    replaced it (or to none, when it was current)."""
    earlier = book.replaced.get(fact.id, [])
    if not earlier:
        return
    newer = fact.superseded_by if fact.superseded_by and fact.superseded_by in book.by_id else None
    memory.knowledge.patch_nodes([NodePatch(f.id, {"superseded_by": newer}) for f in earlier])
    if newer:
        memory.link([Edge(src=newer, dst=f.id, type=EdgeType.SUPERSEDES) for f in earlier])


def _insights_note(ids: list[str]) -> str:
    if not ids:
        return ""
    n = len(ids)
    return f"; {n} insight{'s' if n != 1 else ''} resting on it superseded ({', '.join(i[:8] for i in ids)})"
