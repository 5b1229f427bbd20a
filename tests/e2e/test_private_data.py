"""Other local users cannot read a data directory (issue 22, item 4): after a real service run
every folder is 0700 and every file 0600, the engines' own files included, and ``thea doctor
--fix`` repairs a tree an older thea left 0755/0644."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests import processes
from thea.locations import ServicePaths


def modes(root: Path) -> dict[str, int]:
    """Every entry under ``root`` (itself as "."), by relative path, with its permission bits."""
    found = {".": stat.S_IMODE(root.stat().st_mode)}
    for folder, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(folder) / name
            if not path.is_symlink():
                found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def open_to_others(root: Path) -> dict[str, str]:
    return {name: f"{mode:04o}" for name, mode in modes(root).items() if mode & 0o077}


def test_a_service_run_leaves_nothing_other_users_can_read(tmp_path: Path) -> None:
    data = tmp_path / "data"
    told = processes.thea(["ask", "My locker code is 4711."], data)
    assert told.returncode == 0, told.stderr
    assert processes.thea(["memory", "stats"], data).returncode == 0
    # while it runs: sockets, locks, pid records, logs, the token, and every engine's files
    running = modes(data)
    for expected in (
        "service/service.lock",
        "service/start.lock",
        "service/service.json",
        "service/service.log",
        "service/stderr.log",
        "service/token",
        "graph/falkordb.pid",
        "graph/server.log",
        "graph/appendonlydir",
    ):
        assert expected in running, sorted(running)
    assert any(name.startswith("vectors/") for name in running)
    assert any(name.endswith("-wal") for name in running), sorted(running)  # SQLite's WAL
    assert open_to_others(data) == {}
    socket = ServicePaths.of(data).socket
    assert stat.S_IMODE(socket.stat().st_mode) & 0o077 == 0
    assert processes.thea(["service", "stop"], data).returncode == 0
    assert any(name.startswith("graph/appendonlydir/") for name in modes(data))
    assert open_to_others(data) == {}


def test_doctor_reports_and_repairs_a_tree_left_open(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert processes.thea(["ask", "My locker code is 4711."], data).returncode == 0
    assert processes.thea(["service", "stop"], data).returncode == 0
    for folder, _dirs, files in os.walk(data):  # as an older thea (umask 022) left it
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o644)
    assert len(open_to_others(data)) > 10

    checked = processes.thea(["doctor"], data)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "other users may read or enter" in checked.stdout
    assert "--fix" in checked.stdout  # (the table may wrap "thea doctor --fix")
    assert stat.S_IMODE(data.stat().st_mode) == 0o700  # the service closed the folder itself

    fixed = processes.thea(["doctor", "--fix"], data)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "repaired" in fixed.stdout
    assert open_to_others(data) == {}
