"""Forgetting more than one fact, for good: everything about a subject, a whole conversation,
or everything a user has (deleting the user's data).

Each does for all it covers what forgetting one fact does (:func:`memory_edits.forget`): the
memories are erased from the graph, the vectors and the log (which keeps only that deletions
happened), the facts' words are erased from every message, reply and trace that held them
(:mod:`thea.memory.redaction`), insights and concepts made from them go, the short-term
conversations that held them are dropped, and the engines rewrite their files once, before
the call returns.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Protocol

from services.views.memories import second_person
from thea.api.models import ErasureAction, ErasureResult
from thea.errors import InputError, NotFoundError
from thea.memory.erasure import erase, erase_concepts
from thea.memory.operations import NodePatch
from thea.memory.redaction import Scrubbed, Secret, scrub, user_memory_props, words_pattern
from thea.memory.universal import UniversalMemory
from thea.models import Collection, Concept, Fact, FactOrigin, Node

log = logging.getLogger(__name__)

#: facts one "forget everything about" reads at most (a subject has far fewer)
MAX_FACTS = 10_000
#: the longest subject "forget everything about" takes
MAX_ABOUT_CHARS = 200


class Conversations(Protocol):
    """The short-term conversations the forgotten words must leave as well."""

    def clear(self, user_id: str, session_id: str) -> Sequence[object]: ...


class PendingJobs(Protocol):
    """The slow loop's jobs, which may carry a user's words (a conversation waiting to be
    distilled holds its turns): they leave with the rest (workers/queues.py)."""

    def forget_jobs(
        self,
        user_id: str,
        *,
        words: re.Pattern[str] | None = None,
        sessions: Sequence[str] = (),
        everything: bool = False,
    ) -> int: ...


def forget_in_jobs(
    jobs: PendingJobs | None,
    user_id: str,
    secrets: Sequence[Secret] = (),
    *,
    sessions: Sequence[str] = (),
    everything: bool = False,
) -> None:
    """The forgotten words leave the slow loop's jobs too: erased from the jobs that wait, and
    a job that ran and held them deleted (RQ keeps a finished job's arguments for a day)."""
    if jobs is None:
        return
    patterns = [p.pattern for p in (s.pattern(with_value=True) for s in secrets) if p is not None]
    words = re.compile("|".join(patterns), re.IGNORECASE) if patterns else None
    if words is None and not sessions and not everything:
        return
    changed = jobs.forget_jobs(user_id, words=words, sessions=sessions, everything=everything)
    if changed:
        log.info("user %s: %d queued jobs held forgotten words", user_id, changed)


def _about(fact: Fact, words: re.Pattern[str]) -> bool:
    return any(words.search(t or "") for t in (fact.subject, fact.subject_key, fact.value, fact.quote))


def forget_about(
    memory: UniversalMemory,
    about: str,
    user_id: str,
    conversations: Conversations | None = None,
    jobs: PendingJobs | None = None,
) -> ErasureResult:
    """Erase every fact (current or earlier) whose subject, value or words name ``about``, and
    ``about`` itself from the cycles that told or used them."""
    words = " ".join(about.split())
    if not words or len(words) > MAX_ABOUT_CHARS:
        raise InputError(f"say what to forget everything about, in at most {MAX_ABOUT_CHARS} characters")
    pattern = re.compile(words_pattern(words), re.IGNORECASE)
    facts = [
        f
        for f in memory.facts.facts_of_record(user_id, current_only=False, limit=MAX_FACTS)
        if _about(f, pattern)
    ]
    if not facts:
        raise NotFoundError(f"thea knows nothing about {words!r}")
    erased = erase(memory, facts, user_id)
    withdraw(memory, facts)
    secrets = [Secret.of(f, words) for f in facts]
    scrubbed = scrub(memory, user_id, secrets)
    forget_in_jobs(jobs, user_id, secrets)
    summary = f"forgot everything about {words!r}: {_facts_line(facts)}"
    return _finish(memory, ErasureAction.ABOUT, user_id, erased.ids, facts, scrubbed, summary, conversations)


def forget_conversation(
    memory: UniversalMemory,
    session_id: str,
    user_id: str,
    conversations: Conversations | None = None,
    jobs: PendingJobs | None = None,
) -> ErasureResult:
    """Erase one of the user's conversations: its messages, replies and traces, the facts told
    in it (and their words wherever else they were used), the insights drawn from it."""
    nodes = [n for n in _user_nodes(memory, user_id) if n.session_id == session_id]
    if not nodes:
        raise NotFoundError(f"no conversation {session_id!r}")
    facts = [n for n in nodes if isinstance(n, Fact)]
    erased = _erase_all(memory, nodes, user_id)
    secrets = [Secret.of(f) for f in facts]
    scrubbed = scrub(memory, user_id, secrets)
    forget_in_jobs(jobs, user_id, secrets, sessions=[session_id])
    summary = f"forgot the conversation {session_id!r}: {len(erased)} memories"
    if facts:
        summary += f", among them {_facts_line(facts)}"
    drop_conversations(conversations, user_id, [session_id])
    return _finish(
        memory, ErasureAction.CONVERSATION, user_id, erased, facts, scrubbed, summary, conversations
    )


def forget_user(
    memory: UniversalMemory,
    user_id: str,
    conversations: Conversations | None = None,
    jobs: PendingJobs | None = None,
) -> ErasureResult:
    """Erase everything the user has: every memory, concept, vector and log row with content."""
    nodes = list(_user_nodes(memory, user_id))
    sessions = sorted({n.session_id for n in nodes if n.session_id})
    erased = _erase_all(memory, nodes, user_id)
    drop_conversations(conversations, user_id, sessions)
    forget_in_jobs(jobs, user_id, everything=True)
    facts = [n for n in nodes if isinstance(n, Fact)]
    summary = f"deleted everything thea had of {user_id!r}: {len(erased)} memories"
    return _finish(memory, ErasureAction.USER, user_id, erased, facts, Scrubbed(), summary, None)


def _user_nodes(memory: UniversalMemory, user_id: str) -> list[Node]:
    """Every memory of the user (one that no longer reads as a node is erased by id at once)."""
    out: list[Node] = []
    unreadable: list[str] = []
    for props in user_memory_props(memory, user_id):
        try:
            out.append(Node.from_props(props))
        except (ValueError, TypeError) as exc:
            log.warning("erasing unreadable node %s: %s", props.get("id"), exc)
            unreadable.append(str(props["id"]))
    if unreadable:
        memory.graph.deletion.delete_nodes(unreadable, user_id)
        for collection in Collection:
            memory.vectors.delete(collection, unreadable)
        memory.chronicle.delete(unreadable)
    return out


def _erase_all(memory: UniversalMemory, nodes: Sequence[Node], user_id: str) -> list[str]:
    """Erase the nodes, concepts with their aliases, and the insights drawn from any of them."""
    concepts = [n.id for n in nodes if isinstance(n, Concept)]
    others = [n for n in nodes if not isinstance(n, Concept)]
    derived = set(memory.graph.deletion.insights_derived_from([n.id for n in others], user_id))
    derived -= {n.id for n in others}
    if derived:
        others += memory.get(sorted(derived))
    return erase(memory, others, user_id).ids + erase_concepts(memory, concepts, user_id)


def withdraw(memory: UniversalMemory, facts: Sequence[Fact]) -> None:
    """The messages the facts were read from are no evidence any more."""
    sources = {f.source_message_id for f in facts if f.origin is FactOrigin.SAID and f.source_message_id}
    if sources:
        memory.knowledge.patch_nodes([NodePatch(i, {"withdrawn": True}) for i in sorted(sources)])


def count(n: int, what: str) -> str:
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _facts_line(facts: Sequence[Fact]) -> str:
    shown = "; ".join(second_person(f) for f in facts[:5])
    more = f" and {len(facts) - 5} more" if len(facts) > 5 else ""
    return f"{len(facts)} fact{'s' if len(facts) != 1 else ''} ({shown}{more})"


def drop_conversations(conversations: Conversations | None, user_id: str, session_ids: Sequence[str]) -> None:
    """Drop (not distil) the short-term conversations that held forgotten words: the next
    message restores each from the graph."""
    if conversations is not None:
        for session_id in session_ids:
            conversations.clear(user_id, session_id)


def compaction_note(compacted: dict[str, bool]) -> str:
    """What the answer says of the engines that could not rewrite their files."""
    unwritten = [layer for layer, done in compacted.items() if not done]
    if not unwritten:
        return ""
    return f" (the {' and '.join(unwritten)} engine keeps old files until it compacts them itself)"


def _finish(
    memory: UniversalMemory,
    action: ErasureAction,
    user_id: str,
    erased: list[str],
    facts: Sequence[Fact],
    scrubbed: Scrubbed,
    summary: str,
    conversations: Conversations | None,
) -> ErasureResult:
    drop_conversations(conversations, user_id, scrubbed.sessions)
    compacted = memory.compact()
    if scrubbed.redacted:
        summary += f"; their words erased from {count(len(scrubbed.redacted), 'stored text')}"
    if scrubbed.insights or scrubbed.concepts:
        made = f"{count(len(scrubbed.insights), 'insight')} and {count(len(scrubbed.concepts), 'concept')}"
        summary += f"; {made} made from them erased"
    summary += compaction_note(compacted)
    # the log says what was done, never what was forgotten
    log.info(
        "user %s: erased %d memories (%s), redacted %d texts",
        user_id,
        len(erased),
        action.value,
        len(scrubbed.redacted),
    )
    return ErasureResult(
        action=action,
        erased=len(erased),
        facts=[f.id for f in facts],
        redacted=len(scrubbed.redacted),
        insights=scrubbed.insights,
        concepts=scrubbed.concepts,
        summary=summary,
    )
