"""Facts of record: what a user told, current and earlier, and the insights resting on it."""

from __future__ import annotations

import abc
from collections.abc import Sequence

from thea.models import Fact, KnowledgeCrystal, UserImpulse


class FactReads(abc.ABC):
    @abc.abstractmethod
    def facts_of_record(
        self, user_id: str, *, current_only: bool, limit: int, at: int | None = None
    ) -> list[Fact]:
        """The user's facts of record (with a subject and attribute), newest first: only the
        ones current at ``at`` (epoch ms, default now: no ``valid_until``, or one still ahead, as
        for a home until a move told ahead), or every one, earlier values included."""

    @abc.abstractmethod
    def insights_resting_on(self, source_ids: Sequence[str], user_id: str) -> list[KnowledgeCrystal]:
        """The user's active insights derived from these memories, and the insights merged from
        those (what states a value those memories told)."""

    @abc.abstractmethod
    def count_unread(self, user_id: str, since_ms: int) -> int:
        """How many of the user's messages since ``since_ms`` that tell something still wait for
        the slow loop to read their claims."""

    @abc.abstractmethod
    def recent_statements(self, user_id: str, limit: int) -> list[UserImpulse]:
        """The user's newest messages that tell something (at most ``limit``, newest first),
        read into claims by the slow loop or not."""

    @abc.abstractmethod
    def recent_messages(self, user_id: str, limit: int) -> list[UserImpulse]:
        """The user's newest messages of every kind (statements, questions, requests; at most
        ``limit``, newest first; withdrawn ones aside)."""

    @abc.abstractmethod
    def statements(self, user_id: str, ids: Sequence[str]) -> list[UserImpulse]:
        """The user's messages with these ids (withdrawn ones aside), in no set order."""

    @abc.abstractmethod
    def statements_naming(self, user_id: str, names: Sequence[str], limit: int) -> list[UserImpulse]:
        """The user's newest messages that tell something and hold one of ``names`` as words (at
        most ``limit``, newest first; withdrawn ones aside)."""
