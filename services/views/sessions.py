"""The web chat's history: a user's conversations (sessions), and one conversation's messages
with thea's answers, read from the graph (every message is a ``UserImpulse`` with its
``session_id``; its answer is the ``FinalResponse`` that ``IS_RESPONSE_TO`` it). ``!`` commands
are not messages and are not in the history."""

from __future__ import annotations

from services.common.tokens import clip_text
from thea.api.models import ChatSessionList, ChatSessionSummary, ChatSessionView, ExchangeView
from thea.memory.operations import ExchangeRow, TraceReads

#: how long a conversation's title (its first message) may be
TITLE_CHARS = 80
#: messages looked at for a conversation's last answer (a few unanswered ones may follow it)
LAST_LOOKBACK = 5


def list_sessions(traces: TraceReads, user_id: str, limit: int) -> ChatSessionList:
    """The user's conversations, the latest first, each titled by its first message."""
    rows = traces.chat_sessions(user_id, limit)
    return ChatSessionList(
        sessions=[
            ChatSessionSummary(
                session_id=row.session_id,
                title=clip_text(row.first_text, TITLE_CHARS) or "(empty message)",
                started_at=row.started_at,
                last_at=row.last_at,
                messages=row.messages,
            )
            for row in rows
        ]
    )


def last_answered(traces: TraceReads, user_id: str, session_id: str) -> ExchangeRow | None:
    """The conversation's latest message that thea answered, read from the graph: every replica
    of the service (and a service started again) sees the same one."""
    rows = traces.session_exchanges(user_id, session_id, LAST_LOOKBACK)
    return next((row for row in reversed(rows) if row.response_id), None)


def session_view(traces: TraceReads, user_id: str, session_id: str, limit: int) -> ChatSessionView:
    """The last ``limit`` messages of one of the user's conversations, oldest first."""
    rows = traces.session_exchanges(user_id, session_id, limit + 1)
    truncated = len(rows) > limit
    rows = rows[-limit:] if truncated else rows
    return ChatSessionView(
        session_id=session_id,
        truncated=truncated,
        exchanges=[
            ExchangeView(
                impulse_id=row.impulse.id,
                text=row.impulse.content,
                at=row.impulse.created_at,
                answer=row.answer,
                response_id=row.response_id,
                answered_at=row.answered_at,
                status=row.impulse.status.value if row.impulse.status else None,
            )
            for row in rows
        ],
    )
