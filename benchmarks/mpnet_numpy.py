"""all-mpnet-base-v2 in plain numpy, for measurement only (``benchmarks/locomo.py --mpnet DIR``).

The optional embedder of the issue's ablation row: sentence-transformers' all-mpnet-base-v2
(768-d) with nothing but its ``model.safetensors``, ``config.json`` and ``tokenizer.json``:
no torch, no ONNX export. The encoder's forward pass is written out here in float32 numpy
after HF transformers' MPNet (``modeling_mpnet.py``), then the model's own sentence-transformers
head (``modules.json``: mean pooling over the attention mask, ``1_Pooling/config.json``; then
L2 normalisation). What differs from BERT:

* the ``<s> ... </s>`` tokens of the RoBERTa-style tokenizer, pad id 1;
* absolute positions counted from ``padding_idx + 1`` = 2 over the non-pad tokens (pads get 1);
* a learned relative position bias (32 buckets, 16 per direction, exact up to distance 8,
  log-spaced up to 128) shared by the 12 layers and added to every layer's attention scores;
* post-layer-norm blocks like BERT's, GELU in its exact erf form, layer-norm eps 1e-5.

Texts are truncated at 384 tokens (``sentence_bert_config.json``); long texts reach the
memory as overlapping 384-token windows (:meth:`MPNetNumpyEmbeddings.chunk_text`, the same
treatment as MiniLM's 256-token windows in ``thea/memory/embeddings.py``).

Not for the product: it is a few times slower than an ONNX runtime would be. Validate and
time it with ``python -m benchmarks.mpnet_numpy DIR`` (``--zip FILE`` unzips the model first).
On a machine whose cores are shared with other work, run it with ``OPENBLAS_NUM_THREADS=1``:
numpy's OpenBLAS threads spin while waiting for each other, and a one-question batch then
took 1.2 s instead of 0.2 s (indexing speed was about the same either way).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import threading
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from numpy.typing import NDArray

from thea.memory.embeddings import l2_normalise, mean_pool, token_windows

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]

_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def unzip_model(archive: Path, dest: Path) -> Path:
    """Unzip ``archive`` into ``dest`` unless that was done already; the model's folder."""
    if not any(dest.rglob("model.safetensors")):
        dest.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(dest)
    return model_folder(dest)


def model_folder(folder: Path) -> Path:
    """The folder holding ``model.safetensors``: ``folder`` itself or its one subfolder that does
    (so both the unzip target and the ``all-mpnet-base-v2/`` inside it are accepted)."""
    if (folder / "model.safetensors").is_file():
        return folder
    found = sorted(p.parent for p in folder.glob("*/model.safetensors"))
    if len(found) != 1:
        raise FileNotFoundError(f"no (single) model.safetensors in {folder} or its subfolders")
    return found[0]


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """The tensors of a .safetensors file (8-byte little-endian header length, a JSON header of
    name -> dtype, shape, byte offsets, then the raw little-endian data), memory-mapped."""
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    size = int(np.frombuffer(raw[:8].tobytes(), dtype="<u8")[0])
    header = json.loads(raw[8 : 8 + size].tobytes())
    base = 8 + size
    out: dict[str, NDArray[Any]] = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        dtype = np.dtype(_DTYPES[meta["dtype"]]).newbyteorder("<")
        start, end = meta["data_offsets"]
        out[name] = raw[base + start : base + end].view(dtype).reshape(meta["shape"])
    return out


def relative_position_bucket(relative: I64, num_buckets: int = 32, max_distance: int = 128) -> I64:
    """MPNet's (T5's) bidirectional bucket of each relative position ``key - query``.

    Half of the buckets are for keys before the query, half for keys after it (those get
    ``num_buckets // 2`` added). Within a half, distances below a quarter of the buckets have a
    bucket each; larger ones share log-spaced buckets up to ``max_distance``, the last bucket
    taking everything beyond. A 1e-9 nudge keeps the exact powers (distance 16, 32, 64) on the
    bucket they are mathematically on, whatever the last bit of ``log``.
    """
    half = num_buckets // 2
    exact = half // 2
    n = -np.asarray(relative, dtype=np.int64)
    ret = np.where(n < 0, half, 0).astype(np.int64)
    n = np.abs(n)
    scaled = np.log(np.maximum(n, 1) / exact) / math.log(max_distance / exact) * (half - exact)
    large = np.minimum(exact + np.floor(scaled + 1e-9).astype(np.int64), half - 1)
    out: I64 = ret + np.where(n < exact, n, large)
    return out


def erf_approx(x: F32) -> F32:
    """erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7): the fallback without scipy."""
    a = np.abs(x).astype(np.float64)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    out: F32 = (np.sign(x) * (1.0 - poly * np.exp(-a * a))).astype(np.float32)
    return out


def _erf_function() -> Callable[[F32], F32]:
    """scipy's erf when scipy is there (it is not a dependency of thea), else :func:`erf_approx`."""
    try:
        erf: Callable[[F32], F32] = importlib.import_module("scipy.special").erf
    except ImportError:
        return erf_approx
    return erf


_ERF = _erf_function()


def gelu(x: F32) -> F32:
    """GELU in its exact form x·Φ(x) (config.json's ``hidden_act = "gelu"``, not the tanh one)."""
    out: F32 = _ERF(x * np.float32(1.0 / math.sqrt(2.0)))
    out += np.float32(1.0)
    out *= x
    out *= np.float32(0.5)
    return out


def layer_norm(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: F32 = centred / np.sqrt(var + np.float32(eps)) * weight + bias
    return out


@dataclass(frozen=True)
class _Layer:
    qkv_w: F32  # [hidden, 3 * hidden]: q, k, v side by side (transposed for x @ w)
    qkv_b: F32
    o_w: F32
    o_b: F32
    ln1_w: F32
    ln1_b: F32
    in_w: F32  # [hidden, intermediate]
    in_b: F32
    out_w: F32  # [intermediate, hidden]
    out_b: F32
    ln2_w: F32
    ln2_b: F32


class MPNetNumpyEmbeddings(Embeddings):
    """all-mpnet-base-v2 sentence vectors (768-d, unit length) from the model's folder.

    Thread-safe after loading (the forward pass only reads the weights). ``token_budget``
    bounds the padded tokens of one model run (the memory of the attention and FFN arrays).
    """

    dimension = 768

    def __init__(
        self, folder: Path | str, *, max_tokens: int = 384, batch_size: int = 64, token_budget: int = 4096
    ) -> None:
        self.folder = model_folder(Path(folder))
        self.max_tokens = max_tokens
        self.batch_size = batch_size
        self.token_budget = token_budget
        self._lock = threading.Lock()
        self._loaded = False

    # -- loading -----------------------------------------------------------------------

    def _load(self) -> None:
        if self._loaded:
            return
        with self._lock:
            if self._loaded:
                return
            from tokenizers import Tokenizer

            config = json.loads((self.folder / "config.json").read_text(encoding="utf-8"))
            self._check_head()
            self.heads = int(config["num_attention_heads"])
            self.hidden = int(config["hidden_size"])
            self.eps = float(config["layer_norm_eps"])
            self.pad_id = int(config.get("pad_token_id", 1))
            buckets = int(config.get("relative_attention_num_buckets", 32))
            if self.max_tokens + self.pad_id + 1 > int(config["max_position_embeddings"]):
                raise ValueError(f"max_tokens {self.max_tokens} exceeds the model's positions")
            tensors = read_safetensors(self.folder / "model.safetensors")

            def get(name: str) -> F32:
                key = name if name in tensors else f"mpnet.{name}"
                return np.ascontiguousarray(tensors[key], dtype=np.float32)

            def linear(name: str) -> tuple[F32, F32]:  # torch stores [out, in]; we use x @ w
                return np.ascontiguousarray(get(f"{name}.weight").T), get(f"{name}.bias")

            self.word = get("embeddings.word_embeddings.weight")
            self.position = get("embeddings.position_embeddings.weight")
            self.emb_ln = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
            layers: list[_Layer] = []
            for i in range(int(config["num_hidden_layers"])):
                p = f"encoder.layer.{i}"
                q, k, v = (linear(f"{p}.attention.attn.{n}") for n in ("q", "k", "v"))
                o_w, o_b = linear(f"{p}.attention.attn.o")
                in_w, in_b = linear(f"{p}.intermediate.dense")
                out_w, out_b = linear(f"{p}.output.dense")
                layers.append(
                    _Layer(
                        qkv_w=np.ascontiguousarray(np.concatenate([q[0], k[0], v[0]], axis=1)),
                        qkv_b=np.concatenate([q[1], k[1], v[1]]),
                        o_w=o_w,
                        o_b=o_b,
                        ln1_w=get(f"{p}.attention.LayerNorm.weight"),
                        ln1_b=get(f"{p}.attention.LayerNorm.bias"),
                        in_w=in_w,
                        in_b=in_b,
                        out_w=out_w,
                        out_b=out_b,
                        ln2_w=get(f"{p}.output.LayerNorm.weight"),
                        ln2_b=get(f"{p}.output.LayerNorm.bias"),
                    )
                )
            self.layers = layers
            # the relative position bias of every (query, key) pair up to max_tokens: [heads, L, L]
            table = get("encoder.relative_attention_bias.weight")  # [buckets, heads]
            span = np.arange(self.max_tokens)
            bucket = relative_position_bucket(span[None, :] - span[:, None], num_buckets=buckets)
            self.position_bias = np.ascontiguousarray(table[bucket].transpose(2, 0, 1))
            tok = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            tok.enable_truncation(max_length=self.max_tokens)
            tok.enable_padding(pad_id=self.pad_id, pad_token="<pad>")  # to the longest of a batch
            raw = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            raw.no_truncation()
            raw.no_padding()
            self._tokenizer, self._raw_tokenizer = tok, raw
            self._loaded = True

    def _check_head(self) -> None:
        """The sentence-transformers head this class computes: mean pooling, then Normalize."""
        pooling = self.folder / "1_Pooling" / "config.json"
        if pooling.is_file():
            cfg = json.loads(pooling.read_text(encoding="utf-8"))
            if not cfg.get("pooling_mode_mean_tokens") or cfg.get("pooling_mode_cls_token"):
                raise ValueError(f"{pooling}: only mean pooling is implemented")
        modules = self.folder / "modules.json"
        if modules.is_file():
            kinds = [m["type"].rsplit(".", 1)[-1] for m in json.loads(modules.read_text(encoding="utf-8"))]
            if kinds != ["Transformer", "Pooling", "Normalize"]:
                raise ValueError(f"{modules}: expected Transformer, Pooling, Normalize; got {kinds}")

    # -- the forward pass --------------------------------------------------------------

    def forward(self, ids: I64, mask: I64) -> F32:
        """The encoder's last hidden state [batch, tokens, hidden] of right-padded ids."""
        self._load()
        batch, length = ids.shape
        heads, size = self.heads, self.hidden // self.heads
        real = ids != self.pad_id
        positions = np.cumsum(real, axis=1) * real + self.pad_id  # padding_idx + 1 onwards
        x = layer_norm(self.word[ids] + self.position[positions], *self.emb_ln, self.eps)
        x = x.reshape(batch * length, self.hidden)
        # relative position bias + the mask of padded keys, the same for every layer
        blocked = np.where(mask[:, None, None, :] > 0, np.float32(0.0), np.float32(-1e9))
        bias = self.position_bias[None, :, :length, :length] + blocked  # [batch, heads, L, L]
        scale = np.float32(1.0 / math.sqrt(size))
        for layer in self.layers:
            qkv = (x @ layer.qkv_w + layer.qkv_b).reshape(batch, length, 3, heads, size)
            q = qkv[:, :, 0].transpose(0, 2, 1, 3)
            k = qkv[:, :, 1].transpose(0, 2, 3, 1)
            v = qkv[:, :, 2].transpose(0, 2, 1, 3)
            scores = (q @ k) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch * length, self.hidden)
            attended = layer_norm(context @ layer.o_w + layer.o_b + x, layer.ln1_w, layer.ln1_b, self.eps)
            inner = gelu(attended @ layer.in_w + layer.in_b)
            x = layer_norm(inner @ layer.out_w + layer.out_b + attended, layer.ln2_w, layer.ln2_b, self.eps)
        out: F32 = x.reshape(batch, length, self.hidden)
        return out

    def _batches(self, lengths: Sequence[int]) -> list[list[int]]:
        """Indexes of the texts grouped shortest first, each group padded to its last (longest)
        text within ``token_budget`` padded tokens and ``batch_size`` texts: little padding."""
        groups: list[list[int]] = []
        group: list[int] = []
        for index in sorted(range(len(lengths)), key=lambda i: lengths[i]):
            width = min(lengths[index], self.max_tokens)
            if group and ((len(group) + 1) * width > self.token_budget or len(group) == self.batch_size):
                groups.append(group)
                group = []
            group.append(index)
        return [*groups, group] if group else groups

    def _embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors in the order given, computed in batches of texts of similar token length."""
        self._load()
        cleaned = [t if t.strip() else " " for t in texts]
        encoded = self._tokenizer.encode_batch(cleaned)  # padded to the longest of all: cut below
        lengths = [sum(e.attention_mask) for e in encoded]
        out: list[list[float]] = [[] for _ in texts]
        for group in self._batches(lengths):
            width = max(lengths[i] for i in group)
            ids = np.array([encoded[i].ids[:width] for i in group], dtype=np.int64)
            mask = np.array([encoded[i].attention_mask[:width] for i in group], dtype=np.int64)
            vectors = l2_normalise(mean_pool(self.forward(ids, mask), mask))
            for index, vector in zip(group, vectors, strict=True):
                out[index] = vector.astype(np.float32).tolist()
        return out

    # -- LangChain ---------------------------------------------------------------------

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self._embed(texts) if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self._embed([text])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        """Several queries in one batch (the model embeds queries and documents alike)."""
        return self._embed(texts) if texts else []

    def chunk_text(self, text: str, max_tokens: int | None = None, overlap: int = 32) -> list[str]:
        """Overlapping windows of at most ``max_tokens`` tokens (with ``<s>``, ``</s>``) that are
        real substrings of the text: MiniLM's chunking with MPNet's tokenizer and 384-token window."""
        limit = (max_tokens or self.max_tokens) - 2
        self._load()
        offsets = self._raw_tokenizer.encode(text, add_special_tokens=False).offsets
        return token_windows(text, offsets, limit, overlap)


# -- validation and timing (python -m benchmarks.mpnet_numpy DIR) ---------------------------

#: (a, b, expected cosine or None): the sentence-transformers examples, plus pairs whose torch
#: cosines a third-party engine's tests record (Kjarni's MpnetBaseV2Tests: dog/puppy 0.778325,
#: dog/cat 0.608123, dog/car 0.390584, dog/quantum physics 0.250900)
PAIRS: tuple[tuple[str, str, float | None], ...] = (
    ("A man is eating food.", "A man is eating a piece of bread.", None),
    ("A man is eating food.", "The girl is carrying a baby.", None),
    ("A man is eating food.", "A man is riding a horse.", None),
    ("The weather is lovely today.", "It's so sunny outside!", None),
    ("The weather is lovely today.", "He drove to the stadium.", None),
    ("dog", "puppy", 0.778325),
    ("dog", "cat", 0.608123),
    ("dog", "car", 0.390584),
    ("dog", "quantum physics", 0.250900),
)
#: "Hello world"'s first five values under torch (the same third-party tests)
HELLO_WORLD = (0.0262497, 0.0133956, -0.0045332, -0.0217914, 0.0545519)


def validate(model: MPNetNumpyEmbeddings) -> dict[str, Any]:
    """Cosines of known pairs, "Hello world"'s first values, and batched = one-by-one."""
    report: dict[str, Any] = {"pairs": []}
    for a, b, expected in PAIRS:
        va, vb = (np.asarray(model.embed_query(t)) for t in (a, b))
        report["pairs"].append({"a": a, "b": b, "cosine": round(float(va @ vb), 6), "torch": expected})
    hello = model.embed_query("Hello world")
    report["hello_world"] = [round(x, 7) for x in hello[:5]]
    report["hello_world_max_error"] = max(abs(x - y) for x, y in zip(hello, HELLO_WORLD, strict=False))
    texts = [a for a, _, _ in PAIRS] + ["a much longer sentence " * 20]
    batched = np.asarray(model.embed_documents(texts))
    single = np.asarray([model.embed_query(t) for t in texts])
    report["batched_vs_single_max_error"] = float(np.abs(batched - single).max())
    return report


def timing(model: MPNetNumpyEmbeddings, questions: Sequence[str], documents: Sequence[str]) -> dict[str, Any]:
    """Median ms per query (one at a time) and texts/s of a batched indexing pass."""
    model.embed_query("warm up")
    per_query = []
    for question in questions:
        started = time.perf_counter()
        model.embed_query(question)
        per_query.append((time.perf_counter() - started) * 1000)
    started = time.perf_counter()
    model.embed_documents(list(documents))
    spent = time.perf_counter() - started
    return {
        "queries": len(per_query),
        "ms_per_query_median": round(statistics.median(per_query), 1),
        "documents": len(documents),
        "index_s": round(spent, 2),
        "texts_per_s": round(len(documents) / spent, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="validate and time the numpy all-mpnet-base-v2")
    parser.add_argument("folder", type=Path, help="the unzipped model (or the folder to unzip into)")
    parser.add_argument("--zip", type=Path, default=None, help="unzip this archive into FOLDER first")
    parser.add_argument("--time", action="store_true", help="also time it on LoCoMo dev's first conversation")
    args = parser.parse_args(argv)
    folder = unzip_model(args.zip, args.folder) if args.zip else args.folder
    model = MPNetNumpyEmbeddings(folder)
    print(json.dumps(validate(model), indent=2))
    if args.time:
        from benchmarks.locomo_data import default_data, load_conversations

        conv = load_conversations(default_data())[0]
        questions = [q.question for q in conv.questions[:40]]
        print(json.dumps(timing(model, questions, [t.document for t in conv.turns[:300]]), indent=2))


if __name__ == "__main__":
    main()
