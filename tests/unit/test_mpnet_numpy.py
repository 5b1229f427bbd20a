"""The parts of the numpy all-mpnet-base-v2 (benchmarks/mpnet_numpy.py) that need no model file."""

from __future__ import annotations

import json
import math
import struct
from pathlib import Path

import numpy as np
import pytest

from benchmarks.mpnet_numpy import (
    erf_approx,
    gelu,
    l2_normalise,
    layer_norm,
    mean_pool,
    model_folder,
    read_safetensors,
    relative_position_bucket,
)

# relative position (key - query) -> bucket, worked out by hand from the definition: keys before
# the query (negative) in buckets 0-15, after it in 16-31; distances 0-7 exact; from 8 on
# 8 + floor(8 * log(d / 8) / log(128 / 8)) = 8 + floor(2 * log2(d / 8)), at most 15
BUCKETS = {
    0: 0,
    -1: 1,
    -7: 7,
    -8: 8,  # 2*log2(1) = 0
    -11: 8,  # 2*log2(1.375) = 0.92
    -12: 9,  # 2*log2(1.5) = 1.17
    -15: 9,  # 1.81
    -16: 10,  # exactly 2
    -31: 11,  # 3.91
    -32: 12,  # exactly 4
    -63: 13,  # 5.95
    -64: 14,  # exactly 6
    -127: 15,  # 7.98
    -128: 15,  # 8, capped
    -383: 15,
    1: 17,
    7: 23,
    8: 24,
    16: 26,
    64: 30,
    383: 31,
}


def test_relative_position_bucket_matches_hand_computed_values() -> None:
    relative = np.array(list(BUCKETS), dtype=np.int64)
    assert relative_position_bucket(relative).tolist() == list(BUCKETS.values())


def test_relative_position_bucket_of_a_matrix_is_key_minus_query() -> None:
    span = np.arange(4)
    buckets = relative_position_bucket(span[None, :] - span[:, None])
    assert buckets.tolist() == [[0, 17, 18, 19], [1, 0, 17, 18], [2, 1, 0, 17], [3, 2, 1, 0]]


def test_mean_pool_ignores_padding() -> None:
    hidden = np.array([[[1, 2], [3, 4], [100, 100]], [[5, 5], [7, 9], [0, 0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0], [1, 1, 1]])
    assert mean_pool(hidden, mask).tolist() == [[2.0, 3.0], [4.0, pytest.approx(14 / 3)]]


def test_l2_normalise_gives_unit_rows_and_leaves_zero_rows() -> None:
    out = l2_normalise(np.array([[3, 4], [0, 0]], dtype=np.float32))
    assert out.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]


def test_layer_norm_centres_and_scales() -> None:
    x = np.array([[1, 2, 3, 4]], dtype=np.float32)
    out = layer_norm(x, np.ones(4, np.float32), np.zeros(4, np.float32), 1e-5)
    assert out.mean() == pytest.approx(0.0, abs=1e-6)
    assert out.std() == pytest.approx(1.0, abs=1e-4)


def test_gelu_is_the_erf_form() -> None:
    x = np.array([-3.0, -1.0, 0.0, 0.5, 2.0], dtype=np.float32)
    expected = [v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    assert gelu(x).tolist() == pytest.approx(expected, abs=1e-6)


def test_erf_fallback_is_close_to_math_erf() -> None:
    x = np.linspace(-5, 5, 101, dtype=np.float32)
    assert erf_approx(x).tolist() == pytest.approx([math.erf(v) for v in x.tolist()], abs=2e-7)


def test_read_safetensors_parses_header_and_little_endian_data(tmp_path: Path) -> None:
    a = np.arange(6, dtype="<f4").reshape(2, 3)
    b = np.array([7, -1], dtype="<i8")
    header = {
        "__metadata__": {"format": "pt"},
        "a": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]},
        "b": {"dtype": "I64", "shape": [2], "data_offsets": [24, 40]},
    }
    text = json.dumps(header).encode()
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + a.tobytes() + b.tobytes())
    tensors = read_safetensors(path)
    assert sorted(tensors) == ["a", "b"]
    assert tensors["a"].tolist() == a.tolist()
    assert tensors["b"].tolist() == [7, -1]


def test_model_folder_accepts_the_unzip_target(tmp_path: Path) -> None:
    inner = tmp_path / "all-mpnet-base-v2"
    inner.mkdir()
    (inner / "model.safetensors").write_bytes(b"")
    assert model_folder(tmp_path) == inner
    assert model_folder(inner) == inner
    with pytest.raises(FileNotFoundError):
        model_folder(tmp_path / "missing")


def test_one_memory_keeps_the_mpnet_row_on_its_own_memory() -> None:
    from benchmarks.locomo import Memory, chosen_methods

    one = chosen_methods(e5=False, explore=False, one_memory=True, mpnet=True)
    assert one["thea with all-mpnet-base-v2"].memory == Memory(embedder="mpnet")
    assert {m.memory for m in one.values()} == {Memory(), Memory(embedder="mpnet")}
    assert "thea with all-mpnet-base-v2" not in chosen_methods(e5=False, explore=False, one_memory=True)
