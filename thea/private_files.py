"""The data directory is private to its OS user: folders 0700, files 0600.

What lies there is the user's memory in clear (the graph's AOF and RDB, the SQLite chronicle,
the vectors with their payloads, logs that quote messages) plus the service's socket, locks
and its local access token. So:

* the service and its children run under :data:`PRIVATE_UMASK` (``077``): whatever an engine
  creates (FalkorDB's AOF, Qdrant Edge's segments, SQLite's WAL, rotated logs) is 0600/0700
  from the start, with no list of file names to keep up to date;
* what thea creates itself, in any process (a command's start lock, a handed-over settings
  file, the token), is created with explicit modes (:func:`private_dir`, :func:`open_private`,
  :func:`write_private`), whatever the caller's umask;
* a directory made by an older thea (0755/0644) is found by :func:`loose_entries` (``thea
  doctor``) and repaired by :func:`tighten` (``thea doctor --fix``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

PRIVATE_UMASK = 0o077
DIR_MODE = 0o700
FILE_MODE = 0o600
#: permission bits that let anyone but the owner in
_OTHERS = 0o077


def private_dir(path: Path) -> Path:
    """Create ``path`` (and missing parents) as 0700; an existing folder is left as it is."""
    if not path.is_dir():
        path.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)  # parents: the default mode
        os.chmod(path, DIR_MODE)  # mkdir's mode is filtered by the umask; this is not
    return path


def open_private(path: Path, flags: int) -> int:
    """``os.open`` that creates the file 0600 whatever the umask (an existing file keeps its mode)."""
    return os.open(path, flags | os.O_CREAT, FILE_MODE)


def write_private(path: Path, data: bytes, *, exclusive: bool = False) -> bool:
    """Write ``data`` to ``path`` as a 0600 file, atomically (a reader never sees half of it).
    With ``exclusive`` an existing file is kept (False returned): the first writer wins."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
            return True
        os.replace(tmp, path)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


@dataclass(frozen=True)
class LooseEntry:
    """A file or folder in the data directory that others may read, enter or write."""

    path: Path
    mode: int
    is_dir: bool

    def describe(self, root: Path) -> str:
        kind = "folder" if self.is_dir else "file"
        return f"{kind} {self.path.relative_to(root) if self.path != root else '.'} is {self.mode:04o}"


def _walk(root: Path) -> list[tuple[Path, os.stat_result]]:
    """Every entry under ``root`` (itself included), symlinks not followed."""
    out: list[tuple[Path, os.stat_result]] = []
    pending = [root]
    while pending:
        current = pending.pop()
        try:
            info = current.lstat()
        except FileNotFoundError:  # gone meanwhile (a rotated log, a temp file)
            continue
        if stat.S_ISLNK(info.st_mode):
            continue
        out.append((current, info))
        if stat.S_ISDIR(info.st_mode):
            with contextlib.suppress(FileNotFoundError, PermissionError):
                pending.extend(current.iterdir())
    return out


def loose_entries(root: Path) -> list[LooseEntry]:
    """The entries under ``root`` whose mode lets others in (group or other bits set)."""
    if not root.is_dir():
        return []
    return [
        LooseEntry(path=path, mode=stat.S_IMODE(info.st_mode), is_dir=stat.S_ISDIR(info.st_mode))
        for path, info in _walk(root)
        if stat.S_IMODE(info.st_mode) & _OTHERS
    ]


@dataclass
class Tightened:
    fixed: list[LooseEntry] = field(default_factory=list)
    #: entries that could not be changed (another owner), with the reason
    failed: list[tuple[LooseEntry, str]] = field(default_factory=list)


def tighten(root: Path) -> Tightened:
    """Make every folder under ``root`` 0700 and every other entry 0600 (only bits are removed:
    an executable keeps its owner's x bit)."""
    result = Tightened()
    for entry in loose_entries(root):
        mode = DIR_MODE if entry.is_dir else (entry.mode & 0o700) | FILE_MODE
        try:
            os.chmod(entry.path, mode)
        except FileNotFoundError:
            continue
        except OSError as exc:
            result.failed.append((entry, exc.strerror or str(exc)))
            continue
        result.fixed.append(entry)
    return result
