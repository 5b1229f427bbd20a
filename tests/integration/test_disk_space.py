"""A full, read-only or unusable data directory gives one clear line, never a crash.

On a real small filesystem (a tmpfs, and an ext4 image when mkfs.ext4 is there) filled to
400 kB free: before the checks, opening the vector store on tmpfs killed every command
with SIGBUS (exit 135, nothing printed). Needs root to mount; skipped otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import ROOT, cli_env, one_line, thea
from thea.config import Settings, load_settings
from thea.errors import DiskFullError, StorageError
from thea.llm.assets import ModelAsset, ensure_local_model
from thea.llm.fake import FakeChatModel
from thea.runtime import build_runtime

SIGBUS_EXIT = -7  # what subprocess reports for a process killed by SIGBUS (a shell shows 135)


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


@contextlib.contextmanager
def mounted(kind: str, tmp_path: Path) -> Iterator[Path]:
    """A freshly mounted small filesystem (256 MB tmpfs: Qdrant Edge maps ~120 MB in there;
    96 MB ext4 without blocks kept for root). Skips when mounting is not permitted."""
    mount = tmp_path / "fs"
    mount.mkdir()
    if kind == "tmpfs":
        done = _run("mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mount))
    else:
        if shutil.which("mkfs.ext4") is None:
            pytest.skip("mkfs.ext4 is not installed (apt-get install e2fsprogs)")
        image = tmp_path / "fs.img"
        with open(image, "wb") as fh:
            fh.truncate(96 * 1024 * 1024)
        made = _run("mkfs.ext4", "-q", "-F", "-m", "0", str(image))
        if made.returncode != 0:
            pytest.skip(f"mkfs.ext4 failed: {made.stderr.strip()}")
        done = _run("mount", "-o", "loop", str(image), str(mount))
    if done.returncode != 0:
        pytest.skip(f"mounting a small {kind} needs root (mount said: {done.stderr.strip()})")
    try:
        yield mount
    finally:
        _run("umount", "-l", str(mount))


@pytest.fixture(params=["tmpfs", pytest.param("ext4", marks=pytest.mark.slow)])
def small_fs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    with mounted(request.param, tmp_path) as mount:
        yield mount


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    with mounted("tmpfs", tmp_path) as mount:
        yield mount


def fill(fs: Path, leave_kb: int = 400) -> Path:
    """Fill ``fs`` with one file until ``leave_kb`` remain for unprivileged writers."""
    st = os.statvfs(fs)
    filler = fs / "filler"
    size = st.f_bavail * st.f_frsize - leave_kb * 1024
    with open(filler, "wb") as fh:
        os.posix_fallocate(fh.fileno(), 0, size)
    return filler


def counts(data: Path) -> dict[str, int]:
    done = thea(["memory", "stats", "--json"], data)
    assert done.returncode == 0, done.stderr
    graph: dict[str, int] = json.loads(done.stdout)["graph"]
    return graph


def assert_one_clear_line(done: subprocess.CompletedProcess[str], *needles: str) -> str:
    assert done.returncode not in (0, SIGBUS_EXIT, 135), (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    line = one_line(done.stderr)
    for needle in needles:
        assert needle in line, line
    return line


def test_a_full_disk_gives_one_clear_line_and_loses_nothing(small_fs: Path) -> None:
    data = small_fs / "data"
    assert thea(["ask", "My cat is called Tom."], data).returncode == 0  # starts the service: the stores
    filler = fill(small_fs)
    # the running service: reading still works, a message is refused before anything is written
    assert thea(["memory", "stats"], data).returncode == 0
    assert_one_clear_line(thea(["ask", "hello?"], data), "not enough free space in", str(data))
    # a service starting on the full disk: one line (before: SIGBUS on tmpfs, exit 135 and nothing
    # printed, because opening the vector store maps ~83 MB more of it in)
    assert thea(["service", "stop"], data).returncode == 0
    stats = assert_one_clear_line(thea(["memory", "stats"], data), "not enough free space in", str(data))
    assert re.search(r"needs [\d.]+ MB, [\d.]+ MB free", stats), stats
    filler.unlink()

    before = counts(data)
    assert thea(["service", "stop"], data).returncode == 0  # this test's runtime opens the stores itself
    settings: Settings = load_settings("embedded", data_dir=data, llm={"provider": "fake"})
    rt = build_runtime(settings, llm=FakeChatModel())
    try:
        acknowledged = asyncio.run(rt.orchestrator.handle_impulse("My dog is called Rex.", "local", "s1"))
        filler = fill(small_fs)
        # a running runtime: its next message is refused before anything is written
        with pytest.raises(DiskFullError, match=r"needs 16\.0 MB, [\d.]+ MB free") as refused:
            asyncio.run(rt.orchestrator.handle_impulse("What is my dog called?", "local", "s1"))
        assert str(data) in str(refused.value)
        with pytest.raises(DiskFullError, match="building the vector index"):
            rt.memory.vectors.optimize()
    finally:
        rt.close()
    filler.unlink()

    # space again: everything works, and nothing acknowledged was lost
    after = counts(data)
    assert after["UserImpulse"] == before["UserImpulse"] + 1  # Rex is kept, the refused question is not
    asked = thea(["ask", "--json", "What is my dog called?"], data)
    assert asked.returncode == 0, asked.stderr
    assert thea(["service", "stop"], data).returncode == 0
    rt = build_runtime(settings, llm=FakeChatModel())
    try:
        assert rt.memory.get([acknowledged.impulse_id])[0].content == "My dog is called Rex."
    finally:
        rt.close()


def test_a_read_only_data_dir_gives_one_clear_line(small_tmpfs: Path) -> None:
    data = small_tmpfs / "data"
    assert thea(["ask", "My cat is called Tom."], data).returncode == 0
    assert thea(["service", "stop"], data).returncode == 0  # the next commands start one on a read-only dir
    remounted = _run("mount", "-o", "remount,ro", str(small_tmpfs))
    if remounted.returncode != 0:
        pytest.skip(f"cannot remount read-only: {remounted.stderr.strip()}")
    try:
        for args in (["memory", "stats"], ["ask", "hello?"], ["jobs"]):
            assert_one_clear_line(thea(args, data), str(data), "read-only filesystem", "THEA_DATA_DIR")
    finally:
        _run("mount", "-o", "remount,rw", str(small_tmpfs))
    assert thea(["memory", "stats"], data).returncode == 0
    assert thea(["service", "stop"], data).returncode == 0


def test_assembling_the_offline_model_checks_the_space_first(small_tmpfs: Path, tmp_path: Path) -> None:
    parts = []
    for n in (1, 2):  # 2 x 300 MB of model parts (sparse files: nothing is really stored)
        part = tmp_path / f"part{n}.bin"
        with open(part, "wb") as fh:
            fh.truncate(300 * 1024 * 1024)
        parts.append(part)
    asset = ModelAsset(name="big-model", sha256="0" * 64, size=0, packages=())
    with pytest.raises(DiskFullError, match=r"assembling the offline model needs 616\.0 MB"):
        ensure_local_model(small_tmpfs / "data", asset=asset, progress=False, locate=lambda _: parts)
    assert not list((small_tmpfs / "data" / "models").glob("*.part"))


def test_a_data_dir_that_is_a_file_or_not_writable_gives_one_clear_line(tmp_path: Path) -> None:
    a_file = tmp_path / "data"
    a_file.write_text("not a directory")
    assert_one_clear_line(thea(["memory", "stats"], a_file), f"{a_file} is a file, not a directory")
    assert_one_clear_line(thea(["ask", "hi"], a_file / "sub"), "lies under a file")

    # not writable for this user: root ignores permission bits, so drop that power for the run
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    caps = "-dac_override,-dac_read_search,-fowner"
    cmd = ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}", sys.executable, "-m", "thea.cli.main"]
    env = cli_env(locked / "data")
    done = subprocess.run(
        [*cmd, "memory", "stats"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120
    )
    if "setpriv:" in done.stderr:
        pytest.skip(f"cannot drop capabilities here: {done.stderr.strip()}")
    assert_one_clear_line(done, "permission denied", str(locked / "data"), "THEA_DATA_DIR")


def test_storage_errors_are_thea_errors() -> None:
    assert issubclass(DiskFullError, StorageError)
