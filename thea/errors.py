"""The thea exception tree.

Every error thea raises on purpose derives from :class:`TheaError`. User mistakes
(:class:`InputError` and its children) are kept apart from run-time failures of a
backend (:class:`BackendUnavailable` and its children) so interfaces can word them
differently: the first is "you asked for something invalid", the second is "a
service is down, nothing was lost".
"""

from __future__ import annotations


class TheaError(Exception):
    """Root of every error raised by thea."""


class ConfigError(TheaError):
    """Settings are missing or inconsistent."""


class InputError(TheaError):
    """The caller passed invalid input (empty text, unknown label, ...)."""


class UnknownLabelError(InputError):
    """A node label or edge type is not part of thea's schema."""


class NotFoundError(InputError):
    """An id (or id prefix) matches nothing, or more than one thing."""


class BackendUnavailable(TheaError):
    """A storage or queue backend cannot be reached."""

    def __init__(self, backend: str, detail: str) -> None:
        super().__init__(f"{backend} is unavailable: {detail}")
        self.backend = backend
        self.detail = detail


class GraphUnavailable(BackendUnavailable):
    """The graph database cannot be reached or refused a query."""

    def __init__(self, detail: str) -> None:
        super().__init__("graph store", detail)


class VectorStoreUnavailable(BackendUnavailable):
    """The vector store cannot be reached."""

    def __init__(self, detail: str) -> None:
        super().__init__("vector store", detail)


class VectorStoreLocked(VectorStoreUnavailable):
    """The embedded vector store is held open by another process."""


class VectorStoreDamaged(VectorStoreUnavailable):
    """A collection directory of the embedded vector store exists but cannot be loaded."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"the collection directory {path} cannot be loaded ({reason}); `thea memory repair` moves "
            "it aside and re-embeds its memories from the graph"
        )
        self.path = path
        self.reason = reason


class ChronicleUnavailable(BackendUnavailable):
    """The temporal log cannot be reached."""

    def __init__(self, detail: str) -> None:
        super().__init__("chronicle", detail)


class ChronicleDamaged(ChronicleUnavailable):
    """The chronicle's file exists but is not a readable database (garbage, corrupt pages)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(
            f"the file {path} is unreadable ({reason}); `thea memory repair` moves it aside and "
            "rebuilds the chronicle from the graph"
        )
        self.path = path
        self.reason = reason


class QueueUnavailable(BackendUnavailable):
    """The job queue (Redis) cannot be reached."""

    def __init__(self, detail: str) -> None:
        super().__init__("job queue", detail)


class EmbeddingError(TheaError):
    """The embedding model failed to load or to embed."""


class LLMError(TheaError):
    """The language model failed (timeout, transport error, bad output)."""


class LLMTimeout(LLMError):
    """The language model did not answer within its time limit."""


class MalformedOutput(LLMError):
    """The language model returned output that does not fit the expected schema."""


class NetworkLLMBlocked(LLMError):
    """A network LLM call was attempted while the test guard is active."""


class StorageError(TheaError):
    """The data directory cannot take thea's files: read-only, not writable by this user,
    a file instead of a directory, or full (:class:`DiskFullError`)."""


class DiskFullError(StorageError):
    """Not enough free space in the data directory for what thea was about to write."""


class ModelAssetError(TheaError):
    """A local model file is missing or fails its checksum."""


class PartialWriteError(TheaError):
    """A memory write reached some layers but not all of them.

    ``written`` lists the layers that hold the data, ``failed`` maps each failed
    layer to its error. The graph is the source of truth: ``thea memory repair``
    re-derives missing vector and chronicle entries from it.
    """

    def __init__(self, written: list[str], failed: dict[str, Exception]) -> None:
        detail = "; ".join(f"{layer}: {err}" for layer, err in failed.items())
        super().__init__(f"write reached {written or 'no layer'} but failed on {detail}")
        self.written = written
        self.failed = failed


class JobError(TheaError):
    """A slow-loop job (crystallize, distill, reflect) could not finish.

    The worker lets RQ retry it; after the last retry it stays in the failed
    registry with this message (``thea jobs`` shows it, ``thea jobs retry`` reruns it).
    """


class ReflectionBusy(TheaError):
    """Another reflection for the same user is running; try again when it finishes."""


class TooManyWaiting(TheaError):
    """This user already has as many messages waiting for an answer as one user may; nothing of
    this one was recorded (send it again when those are answered)."""


class ImportInterrupted(TheaError):
    """An import stopped at a batch boundary before the end (the service stopped, or its caller
    went away). Every turn before ``done`` is stored in every layer; the same import again
    continues from there."""

    def __init__(self, message: str, done: int | None = None, total: int | None = None) -> None:
        super().__init__(message)
        self.done = done
        self.total = total

    @classmethod
    def at(cls, done: int, total: int, why: str) -> ImportInterrupted:
        return cls(
            f"import stopped at {done:,} of {total:,} turns ({why}); run the same import again "
            "to continue from there",
            done,
            total,
        )
