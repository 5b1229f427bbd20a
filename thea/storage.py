"""Room to write in the data directory, checked before thea's stores open and before large writes.

Why: the embedded vector store (Qdrant Edge) maps its files into memory. A page of a mapped
file that has no disk block behind it gets one when it is first written, and on tmpfs even
when it is first *read*; on a full filesystem the kernel answers with SIGBUS, which kills the
process without a word (exit 135). The other stores fail more politely (ENOSPC, Redis'
MISCONF) but mid-write. So every interface (CLI, web, workers) goes through these checks and
gets one clear line instead: :class:`~thea.errors.DiskFullError` naming the directory, the
space needed and the space free, or :class:`~thea.errors.StorageError` for a data directory
that is read-only, not writable by this user, or a file.

What each store needs was measured on ext4 and tmpfs (docs/reliability.md, "Disk space"):

* every open and every memory write keeps :data:`RESERVE_BYTES` free (the largest message,
  200,000 characters, wrote 2.7 MB to the three stores);
* opening the vector store: nothing more on disk filesystems; on tmpfs the bytes its index
  and vector files still lack (:func:`unmapped_bytes`: 83 MB the first time a new store is
  reopened, then whatever new segments added), creating it :data:`VECTOR_CREATE_TMPFS_BYTES`;
* building the vector index: as much again as the store holds;
* the offline model: its size (491 MB).
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass
from pathlib import Path

from thea.errors import DiskFullError, StorageError
from thea.private_files import private_dir

MB = 1024 * 1024
#: kept free by every store open and every memory write
RESERVE_BYTES = 16 * MB
#: creating an embedded vector store on tmpfs (34 MB) and mapping it in on the next open (83 MB)
VECTOR_CREATE_TMPFS_BYTES = 120 * MB
#: filesystems that allocate a page when a mapped file is read, not only when it is written
_ALLOCATE_ON_READ = frozenset({"tmpfs", "shmem", "ramfs", "hugetlbfs"})
# files of a Qdrant Edge store that are mapped in whole when it opens (the WAL and the payload
# pages fill as data is written, and each write goes through the per-write check)
_MAPPED_ON_OPEN = frozenset({"payload_index", "vector_storage"})


def _size(n: int) -> str:
    return f"{n / MB:,.1f} MB"


@dataclass(frozen=True)
class Space:
    free: int | None  # bytes an unprivileged writer may still use; None: the filesystem sets no limit
    read_only: bool
    fstype: str


def filesystem_type(path: Path) -> str:
    """The type of the filesystem holding ``path`` (``ext4``, ``tmpfs``, ...; "" if unknown)."""
    target = str(path.resolve())
    best, kind = "", ""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return ""
    for line in lines:
        fields = line.split()
        if "-" not in fields:
            continue
        mount = fields[4].replace("\\040", " ")
        sep = fields.index("-")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best) and sep + 1 < len(fields):
            best, kind = mount, fields[sep + 1]
    return kind


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (what will hold it once created)."""
    current = path
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def space(path: Path) -> Space:
    where = _existing(Path(path))
    st = os.statvfs(where)
    free = st.f_bavail * st.f_frsize if st.f_blocks else None
    return Space(free=free, read_only=bool(st.f_flag & os.ST_RDONLY), fstype=filesystem_type(where))


def prepare_data_dir(path: Path | str) -> Path:
    """Create the data directory if needed (0700: only its user may enter it) and make sure
    thea can write there."""
    folder = Path(path).expanduser()
    if folder.exists() and not folder.is_dir():
        raise StorageError(
            f"thea's data directory {folder} is a file, not a directory; set THEA_DATA_DIR to a directory"
        )
    try:
        private_dir(folder)
    except OSError as exc:
        raise _unwritable(folder, exc) from exc
    require_writable(folder)
    return folder


def require_writable(folder: Path) -> None:
    """Raise :class:`StorageError` unless this process may create files in ``folder``."""
    if os.access(folder, os.W_OK | os.X_OK):
        return
    if space(folder).read_only:
        raise _unwritable(folder, OSError(errno.EROFS, os.strerror(errno.EROFS)))
    raise _unwritable(folder, OSError(errno.EACCES, os.strerror(errno.EACCES)))


def _unwritable(folder: Path, exc: OSError) -> StorageError:
    if exc.errno == errno.ENOSPC:
        free = space(folder).free
        return DiskFullError(
            f"no space left for thea's data directory {folder}"
            + (f" ({_size(free)} free)" if free is not None else "")
            + "; free some space or set THEA_DATA_DIR to a larger disk"
        )
    if exc.errno == errno.EROFS:
        return StorageError(
            f"thea's data directory {folder} is on a read-only filesystem; thea writes there even to read "
            "(locks, logs): remount it read-write or set THEA_DATA_DIR to a writable directory"
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return StorageError(
            f"thea may not write to its data directory {folder} (permission denied for user id "
            f"{os.geteuid()}); fix its permissions or set THEA_DATA_DIR to a directory you own"
        )
    if exc.errno == errno.ENOTDIR:
        return StorageError(
            f"thea's data directory {folder} lies under a file, not a directory; set THEA_DATA_DIR"
        )
    return StorageError(f"cannot use thea's data directory {folder}: {exc.strerror or exc}")


def require_space(folder: Path, need: int, what: str) -> None:
    """Raise :class:`DiskFullError` unless ``need`` bytes plus the reserve are free for ``folder``
    (and :class:`StorageError` when it is read-only)."""
    room = space(folder)
    if room.read_only:
        raise _unwritable(Path(folder), OSError(errno.EROFS, os.strerror(errno.EROFS)))
    wanted = need + RESERVE_BYTES
    if room.free is not None and room.free < wanted:
        raise DiskFullError(
            f"not enough free space in {folder}: {what} needs {_size(wanted)}, {_size(room.free)} free; "
            "free some space or set THEA_DATA_DIR to a larger disk"
        )


def allocates_on_read(folder: Path) -> bool:
    return space(folder).fstype in _ALLOCATE_ON_READ


def unmapped_bytes(store: Path) -> int:
    """Bytes of a vector store's index and vector files with no block behind them yet: what
    opening it takes on a filesystem that allocates on read (tmpfs)."""
    total = 0
    for root, _, files in os.walk(store):
        parts = set(Path(root).relative_to(store).parts)
        if "wal" in parts or not parts & _MAPPED_ON_OPEN:
            continue
        for name in files:
            try:
                st = os.stat(os.path.join(root, name))
            except OSError:
                continue
            total += max(0, st.st_size - st.st_blocks * 512)
    return total


def allocated_bytes(store: Path) -> int:
    """Bytes a directory tree really occupies on disk."""
    total = 0
    for root, _, files in os.walk(store):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                continue
    return total


def vector_store_need(store: Path) -> int:
    """Bytes opening (or creating) the embedded vector store at ``store`` takes."""
    if not allocates_on_read(store):
        return 0
    if not any(store.glob("*/edge_config.json")):
        return VECTOR_CREATE_TMPFS_BYTES
    return unmapped_bytes(store)


class SpaceGuard:
    """Called before every memory write: refuses it (before anything is written) when the data
    directory is read-only or has less than the reserve free."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def __call__(self) -> None:
        require_space(self.folder, 0, "writing to the memory")
