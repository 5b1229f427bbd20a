"""How far an import of one history file got, so the same import again continues from there.

A checkpoint is keyed by the user and a SHA-256 of the file's text and format (the same
bytes imported again by the same user find it; a changed file starts over). It holds how many
turns, in import order, are stored in every layer: it is written after each batch's
``record`` returned, so a stop (or a ``kill -9``) between two batches loses nothing and a
batch cut short is simply written again (writes are idempotent MERGEs). A finished import
removes its checkpoint, so importing a finished file again passes over every turn as before.

Checkpoints are small JSON files (0600) in ``<data dir>/imports/``, written atomically.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

log = logging.getLogger(__name__)


class Checkpoint(Protocol):
    """Where one import resumes from."""

    def done(self) -> int:
        """Turns already stored by an earlier run of the same import (0: none)."""
        ...

    def save(self, done: int, total: int) -> None: ...

    def clear(self) -> None: ...


def import_key(user_id: str, text: str, fmt: str) -> str:
    """The identity of one import: the same file's text, format and user."""
    digest = hashlib.sha256()
    for part in (user_id, fmt, text):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass
class FileCheckpoint:
    """A checkpoint in ``folder/<key>.json``."""

    folder: Path
    key: str
    source: str = "file"

    @property
    def path(self) -> Path:
        return self.folder / f"{self.key}.json"

    def done(self) -> int:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return 0
        value = data.get("done") if isinstance(data, dict) else None
        return value if isinstance(value, int) and value > 0 else 0

    def save(self, done: int, total: int) -> None:
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = self.path.with_suffix(f".{os.getpid()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"source": self.source, "done": done, "total": total}, out)
            os.replace(tmp, self.path)
        except OSError as exc:  # a lost checkpoint costs a longer re-run, never data
            log.warning("could not record the import's progress (%s): %s", self.path, exc)

    def clear(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def file_checkpoint(data_dir: Path, user_id: str, text: str, fmt: str, source: str) -> FileCheckpoint:
    """The checkpoint of importing ``text`` for ``user_id`` into the memory of ``data_dir``."""
    return FileCheckpoint(Path(data_dir) / "imports", import_key(user_id, text, fmt), source)
