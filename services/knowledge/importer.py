"""Import conversation history into a user's memory (``thea import`` and the LoCoMo benchmarks).

Every message becomes a :class:`~thea.models.DialogueTurn` experience node of the user:
content ``"Speaker: text"``, ``event_time`` = when it was said (the file's date, not the
import time), ``context`` = the words of the turn it replies to (the one before it in its
session, searched with it), one ``session_id`` per session, linked (``CONTAINS_CONCEPT``) to the concepts
the deterministic extractor finds in its words, as the cycle does without an LLM. Writes go
through :meth:`UniversalMemory.record` in batches (graph UNWIND, one embedding call, one
vector upsert, one chronicle append per batch), each sized to take about two seconds, so a stop
(the service stopping, the caller gone) ends an import promptly at a batch boundary; with a
checkpoint (services/knowledge/import_checkpoints.py) the same import again continues there.

With ``embed_later`` (what the service does for a large import) the turns are written to the
graph and the log only, each marked as waiting for its vectors, and the service computes those
in the background (``UniversalMemory.embed_pending``, with the same embedder: one embedding
space per store). The embedding model is almost all of an import's time (~20-80 turns/s on two
cores); without it the import writes thousands of turns per second, keyword recall finds them
at once, and ``thea memory check`` counts the waiting ones as pending.

A message longer than the turn limit (``document_chars``: the service's ``max_impulse_chars``,
200,000 characters by default) is stored as a chat paste is (services/knowledge/documents.py): the
turn keeps a summary and a :class:`~thea.models.Document` of numbered chunks holds its text, so
a file with a 349,000-character message imports whole and every part of that message is
recallable (through its chunks).

The whole file is parsed and validated first (services/knowledge/history_formats.py): a bad file
writes nothing. Node ids derive from the user, the conversation and the turn's key, so
importing the same file again writes no duplicates.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from services.common.plan_fallback import candidate_concepts
from services.knowledge.documents import Paste, is_document, make_paste
from services.knowledge.history_formats import Format, HistoryConversation, HistoryTurn, parse_history
from services.knowledge.import_checkpoints import Checkpoint
from thea.errors import ImportInterrupted, InputError
from thea.memory.ports import ImportTarget, MemoryWriter
from thea.memory.universal import UniversalMemory
from thea.models import Concept, DialogueTurn, Edge, EdgeType, Node, stable_id

log = logging.getLogger(__name__)

#: (turns written so far, turns in total)
ImportProgress = Callable[[int, int], None]
#: most turns per batch (one graph UNWIND, one embedding call, one vector upsert, one log append)
BATCH = 512
#: the first batch, before the speed of this machine is known
FIRST_BATCH = 64
MIN_BATCH = 16
#: how long one batch should take: a stop waits at most about this long
BATCH_SECONDS = 2.0
#: Characters of the previous turn kept as a turn's reply context.
CONTEXT_CHARS = 400
#: A message longer than this is imported as a document of chunks (the chat turn limit's default).
DOCUMENT_OVER = 200_000


@dataclass
class ImportResult:
    conversations: int = 0
    turns: int = 0
    #: turns whose id was already in memory (an earlier import of the same file)
    already_present: int = 0
    #: messages longer than the turn limit, stored as documents of chunks
    documents: int = 0
    skipped_empty: int = 0
    #: turns the file gives no date for (dated at import time)
    undated: int = 0
    first_ms: int | None = None
    last_ms: int | None = None
    seconds: float = 0.0
    #: memories of this import whose vectors were left to the background (``embed_later``)
    vectors_pending: int = 0


def turn_id(user_id: str, conversation: str, key: str) -> str:
    """The node id of one imported turn: the same file imported again maps to the same nodes."""
    return stable_id("import", user_id, conversation, key)


@dataclass
class ImportedTurn:
    """One turn ready to be written: its node, the words its concepts come from, and the
    document holding its text when it is longer than the turn limit."""

    node: DialogueTurn
    words: str
    paste: Paste | None = None


def turn_nodes(
    conversation: HistoryConversation,
    user_id: str,
    *,
    reply_context: bool = True,
    short_context_only: bool = False,
    document_over: int = DOCUMENT_OVER,
) -> list[ImportedTurn]:
    """The nodes of each non-empty turn (a turn over ``document_over`` characters as a paste;
    ``short_context_only``: reply context only from a turn of at most ``CONTEXT_CHARS``)."""
    out = []
    previous: HistoryTurn | None = None
    for turn in conversation.turns:
        if not turn.text.strip():
            continue
        same_session = previous is not None and previous.session == turn.session
        replied = previous.text if reply_context and previous is not None and same_session else None
        node = DialogueTurn(
            id=turn_id(user_id, conversation.name, turn.key),
            content=turn.text,
            speaker=turn.speaker,
            event_time=turn.time_ms,
            context=replied_words(replied, short_only=short_context_only),
            user_id=user_id,
            session_id=f"import:{conversation.name}/{turn.session}",
        )
        # a message over the turn limit: the chunks hold its text, the turn its summary
        paste = make_paste(node) if is_document(turn.text, document_over) else None
        node.content = f"{turn.speaker}: {node.content}"
        out.append(ImportedTurn(node, turn.text if paste is None else node.content, paste))
        previous = turn
    return out


def replied_words(text: str | None, *, short_only: bool = False) -> str | None:
    """The end of the turn replied to (its last words matter most), or None; with
    ``short_only`` None too when that turn is longer than ``CONTEXT_CHARS`` (a long reply's
    tail is not what a short answer to it is about, and would drown its own words)."""
    if not text or not text.strip():
        return None
    text = " ".join(text.split())
    if len(text) <= CONTEXT_CHARS:
        return text
    return None if short_only else "…" + text[-CONTEXT_CHARS:]


def concepts_in(text: str) -> list[str]:
    """The concepts the cycle links to a text without an LLM (as for an impulse's fallback plan)."""
    return [c for c in candidate_concepts(text) if len(c.strip()) >= 3][:5]


def record_with_concepts(
    memory: MemoryWriter,
    nodes: Sequence[Node],
    texts: Sequence[str] | None = None,
    *,
    batch: int = BATCH,
    progress: Callable[[int], None] | None = None,
    embed: bool = True,
) -> int:
    """memory.record in batches, each node linked (CONTAINS_CONCEPT) to the concepts of its text
    (``embed=False``: their vectors and those of new concepts left for later); returns how many
    nodes were left waiting for their vectors."""
    pending = 0
    sources = list(texts) if texts is not None else [n.content for n in nodes]
    for start in range(0, len(nodes), batch):
        chunk = nodes[start : start + batch]
        names = {
            node.id: concepts_in(text)
            for node, text in zip(chunk, sources[start : start + batch], strict=True)
        }
        users = {node.id: node.user_id or "" for node in chunk}
        concepts: dict[tuple[str, str], Concept] = {}  # concepts are per user
        for user in sorted(set(users.values()) - {""}):
            wanted = sorted({n for node_id, found in names.items() if users[node_id] == user for n in found})
            if wanted:
                found_here = memory.get_or_create_concepts(wanted, user, embed=embed)
                concepts.update({(user, name): c for name, c in found_here.items()})
        links = [
            Edge(src=node_id, dst=concepts[users[node_id], name].id, type=EdgeType.CONTAINS_CONCEPT)
            for node_id, found in names.items()
            for name in found
            if (users[node_id], name) in concepts
        ]
        pending += memory.record(chunk, links, embed=embed).pending
        if progress is not None:
            progress(len(chunk))
    return pending


def import_history(
    memory: ImportTarget,
    conversations: Sequence[HistoryConversation],
    user_id: str,
    *,
    batch: int = BATCH,
    progress: ImportProgress | None = None,
    reply_context: bool = True,
    should_stop: Callable[[], str | None] | None = None,
    checkpoint: Checkpoint | None = None,
    short_context_only: bool = False,
    document_over: int = DOCUMENT_OVER,
    embed_later: bool = False,
) -> ImportResult:
    """Write validated conversations into ``user_id``'s memory, in batches (``reply_context``
    False leaves out what each turn replies to: for ablations). A message longer than
    ``document_over`` characters is stored as a document of chunks. ``embed_later`` leaves
    the vectors to :meth:`UniversalMemory.embed_pending` (the service's background).

    Batches are sized to take about :data:`BATCH_SECONDS` each (at most ``batch`` turns).
    Before each batch ``should_stop()`` is asked: a reason (the service stops, the caller went
    away) ends the import there with :class:`ImportInterrupted`; with a ``checkpoint`` the
    turns stored so far are recorded after every batch and the same import again continues
    after them (they count as already present)."""
    if not user_id.strip():
        raise InputError("give the user the history belongs to (--user)")
    started = time.perf_counter()
    result = ImportResult(conversations=len(conversations))
    turns = [
        turn
        for conv in conversations
        for turn in turn_nodes(
            conv,
            user_id,
            reply_context=reply_context,
            short_context_only=short_context_only,
            document_over=document_over,
        )
    ]
    result.skipped_empty = sum(len(c.turns) for c in conversations) - len(turns)
    # written shortest first: a batch then holds texts of about one length, which the embedding
    # model runs with little padding (the order is fixed by the file, so a checkpoint's count of
    # turns done means the same turns on the next run; dates and reply context are set above)
    turns.sort(key=lambda turn: len(turn.node.embedding_text() or ""))
    total = len(turns)
    times = [t.node.event_time for t in turns if t.node.event_time is not None]
    result.undated = total - len(times)
    result.first_ms, result.last_ms = (min(times), max(times)) if times else (None, None)
    done = min(checkpoint.done(), total) if checkpoint is not None else 0
    if done:
        log.info("resuming the import for user %s after %d of %d turns", user_id, done, total)
    result.already_present = done
    size = min(batch, FIRST_BATCH)
    if progress is not None:
        progress(done, total)
    while done < total:
        why = should_stop() if should_stop is not None else None
        if why:
            log.info("import for user %s stopped at %d of %d turns: %s", user_id, done, total, why)
            raise ImportInterrupted.at(done, total, why)
        chunk = turns[done : done + size]
        nodes = [turn.node for turn in chunk]
        batch_started = time.perf_counter()
        result.already_present += len(memory.exchange.existing_ids([n.id for n in nodes]))
        result.vectors_pending += record_with_concepts(
            memory, nodes, [turn.words for turn in chunk], batch=len(chunk), embed=not embed_later
        )
        done += len(chunk)
        if checkpoint is not None:
            checkpoint.save(done, total)
        if progress is not None:
            progress(done, total)
        per_turn = (time.perf_counter() - batch_started) / len(chunk)
        size = max(MIN_BATCH, min(batch, int(BATCH_SECONDS / max(per_turn, 1e-6))))
    pastes = [turn.paste for turn in turns if turn.paste is not None]
    for paste in pastes:  # after the turns: a paste's first edge starts at its turn
        result.vectors_pending += memory.record(
            [paste.document], paste.edges[:1], embed=not embed_later
        ).pending
        for start in range(0, len(paste.chunks), batch):
            chunks = paste.chunks[start : start + batch]
            written = memory.record(
                chunks, paste.edges[1 + start : 1 + start + len(chunks)], embed=not embed_later
            )
            result.vectors_pending += written.pending
    result.documents = len(pastes)
    if checkpoint is not None:
        checkpoint.clear()
    result.turns = total
    result.seconds = time.perf_counter() - started
    log.info(
        "imported %d turns (%d already present) of %d conversations for user %s in %.1f s",
        total,
        result.already_present,
        len(conversations),
        user_id,
        result.seconds,
    )
    return result


def import_file(
    memory: UniversalMemory,
    path: Path,
    user_id: str,
    fmt: Format = "auto",
    *,
    document_over: int = DOCUMENT_OVER,
    progress: ImportProgress | None = None,
) -> ImportResult:
    """Parse and validate the whole file, then import it (nothing is written for a bad file;
    a message longer than ``document_over`` characters becomes a document of chunks)."""
    conversations = parse_history(path, fmt)
    return import_history(memory, conversations, user_id, progress=progress, document_over=document_over)
