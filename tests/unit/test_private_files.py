"""The data directory's modes: what is loose is found and repaired, what thea writes is private."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from thea.local_token import ensure_local_token, read_local_token
from thea.locations import ServicePaths
from thea.private_files import loose_entries, private_dir, tighten, write_private
from thea.storage import prepare_data_dir


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_tree_an_older_thea_left_open_is_found_and_closed(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "graph" / "appendonlydir").mkdir(parents=True)
    aof = root / "graph" / "appendonlydir" / "falkordb.aof.1.incr.aof"
    aof.write_text("SET secret 1")
    log = root / "chronicle.sqlite3"
    log.write_text("rows")
    tool = root / "helper.sh"
    tool.write_text("#!/bin/sh")
    for folder in (root, root / "graph", root / "graph" / "appendonlydir"):
        os.chmod(folder, 0o755)
    os.chmod(aof, 0o644)
    os.chmod(log, 0o664)
    os.chmod(tool, 0o755)
    (root / "link").symlink_to("/etc/passwd")  # never followed, never changed

    loose = {entry.path for entry in loose_entries(root)}
    assert loose == {root, root / "graph", root / "graph" / "appendonlydir", aof, log, tool}

    result = tighten(root)
    assert len(result.fixed) == 6
    assert not result.failed
    assert loose_entries(root) == []
    assert [mode(p) for p in (root, root / "graph", aof, log, tool)] == [0o700, 0o700, 0o600, 0o600, 0o700]
    assert mode(Path("/etc/passwd")) & 0o004  # the link's target was left alone


def test_what_thea_creates_is_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        data = prepare_data_dir(tmp_path / "data")
        folder = private_dir(data / "vectors")
        write_private(data / "record.json", b"{}")
        token = ensure_local_token(ServicePaths.of(data))
    finally:
        os.umask(old)
    paths = ServicePaths.of(data)
    assert [mode(p) for p in (data, folder, paths.run_dir)] == [0o700] * 3
    assert mode(data / "record.json") == mode(paths.token_file) == 0o600
    assert len(token) >= 40
    assert ensure_local_token(paths) == read_local_token(paths) == token  # generated once, then kept
    assert not write_private(paths.token_file, b"other", exclusive=True)
    assert read_local_token(paths) == token
