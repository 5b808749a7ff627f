"""The numeric interpreter: runs an algorithm's tile program with NumPy.

Storage types are emulated exactly: fp16 through ``numpy.float16``, bf16 by
rounding fp32 to its top 16 bits (round to nearest even), fp64 as itself. All
arithmetic is done in fp32 (fp64 for fp64 storage), as the kernels accumulate.
"""

from __future__ import annotations

import numpy as np

from algorithms.base import Algorithm
from algorithms.tile_machine import TileMachine
from gpusim.schedule import Schedule
from gpusim.workload import Workload

VECTOR_TENSORS = ("m", "l", "LSE", "Dsum")
#: Running state kept in HBM between steps, always fp32 (the output accumulator ``Oacc`` too),
#: split-KV decoding's partial outputs and log-sum-exps, and the backward's row sums and dQ
#: accumulator.
FP32_STATE_TENSORS = ("m", "l", "Oacc", "Opart", "LSE", "Dsum", "dQacc")


def round_to_storage(x: np.ndarray, dtype: str) -> np.ndarray:
    """Round ``x`` to the storage type ``dtype``, returned in the compute type."""
    if dtype == "fp64":
        return np.asarray(x, dtype=np.float64)
    x32 = np.asarray(x, dtype=np.float32)
    if dtype == "fp32":
        return x32
    if dtype == "fp16":
        return x32.astype(np.float16).astype(np.float32)
    if dtype == "bf16":
        bits = x32.view(np.uint32).astype(np.uint64)
        # Round to nearest even on the 16 bits that are dropped; NaN stays NaN.
        rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32)
        out = rounded.view(np.float32)
        return np.where(np.isnan(x32), x32, out)
    raise ValueError(f"unknown dtype {dtype!r}")


def compute_type(dtype: str) -> type:
    """The accumulation type for a storage type."""
    return np.float64 if dtype == "fp64" else np.float32


class NumericMachine(TileMachine):
    """Executes tile operations on NumPy arrays held in ``tensors``."""

    def __init__(self, workload: Workload, tensors: dict[str, np.ndarray], kv_splits: int = 1):
        self.w = workload
        self.tensors = tensors
        self.ct = compute_type(workload.dtype)
        self.kv_splits = kv_splits

    # --- memory ---------------------------------------------------------------------
    def _array(self, tensor: str) -> np.ndarray:
        if tensor not in self.tensors:
            w, n = self.w, self.kv_splits
            bh, nq, nk, d = w.batch_heads, w.seq_len_q, w.seq_len_k, w.head_dim
            shapes = {
                "S": (bh, nq, nk),
                "P": (bh, nq, nk),
                "dP": (bh, nq, nk),
                "dS": (bh, nq, nk),
                "O": (bh, nq, d),
                "Oacc": (bh, nq, d),
                "m": (bh, nq),
                "l": (bh, nq),
                "Opart": (bh, nq, n * d),
                "LSE": (bh, nq, n),
                "Dsum": (bh, nq),
                "dQacc": (bh, nq, d),
                "dQ": (bh, nq, d),
                "dK": (w.batch_heads_kv, nk, d),
                "dV": (w.batch_heads_kv, nk, d),
                "dKexp": (bh, nk, d),
                "dVexp": (bh, nk, d),
            }
            # Poisoned, so that a read before any write shows up as NaN in the output.
            self.tensors[tensor] = np.full(shapes[tensor], np.nan, dtype=self.ct)
        return self.tensors[tensor]

    def load(self, tensor, bh, row0, nrows, col0=0, ncols=None, *, heads=1):
        if heads == 1:
            return self._load_one(tensor, bh, row0, nrows, col0, ncols)
        # Packed rows, query-major: tile row r is row row0 + r // heads of bh + r % heads.
        parts = [
            self._load_one(tensor, bh + i, row0, len(range(i, nrows, heads)), col0, ncols)
            for i in range(heads)
        ]
        out = np.empty((nrows, *parts[0].shape[1:]), dtype=self.ct)
        for i, part in enumerate(parts):
            out[i::heads] = part
        return out

    def _load_one(self, tensor, bh, row0, nrows, col0, ncols):
        arr = self._array(tensor)
        if tensor in VECTOR_TENSORS:
            # Padded rows: l and Dsum 0 (nothing seen, nothing to subtract), m and LSE -inf.
            pad = 0.0 if tensor in ("l", "Dsum") else -np.inf
            out = np.full(nrows, pad, dtype=self.ct)
            src = (
                arr[bh, row0 : row0 + nrows]
                if arr.ndim == 2
                else arr[bh, row0 : row0 + nrows, col0]
            )
            out[: len(src)] = src
            return out
        ncols = arr.shape[2] - col0 if ncols is None else ncols
        out = np.zeros((nrows, ncols), dtype=self.ct)
        src = arr[bh, row0 : row0 + nrows, col0 : col0 + ncols]
        out[: src.shape[0], : src.shape[1]] = src
        return out

    def store(self, tensor, bh, row0, tile, col0=0, *, heads=1):
        for i in range(heads):
            self._store_one(tensor, bh + i, row0, tile[i::heads], col0)

    def _store_one(self, tensor, bh, row0, tile, col0):
        arr = self._array(tensor)
        n = min(tile.shape[0], arr.shape[1] - row0)
        # State in HBM (m, l, O between steps, the split partials) is fp32 in every kernel;
        # S/P and the final O are stored in the storage type.
        keep_fp32 = tensor in FP32_STATE_TENSORS
        vals = tile[:n] if keep_fp32 else round_to_storage(tile[:n], self.w.dtype)
        if tensor in VECTOR_TENSORS:
            if arr.ndim == 2:
                arr[bh, row0 : row0 + n] = vals
            else:
                arr[bh, row0 : row0 + n, col0] = vals
        else:
            c = min(tile.shape[1], arr.shape[2] - col0)
            arr[bh, row0 : row0 + n, col0 : col0 + c] = vals[:, :c]

    def store_add(self, tensor, bh, row0, tile):
        arr = self._array(tensor)
        n = min(tile.shape[0], arr.shape[1] - row0)
        c = min(tile.shape[1], arr.shape[2])
        arr[bh, row0 : row0 + n, :c] += tile[:n, :c].astype(arr.dtype)

    # --- tensor core ------------------------------------------------------------------
    def _operand(self, t, transpose):
        # Tensor-core inputs are in the storage type: a loaded tile already is (rounding it
        # again changes nothing), a tile computed on chip (P, dS) is converted first.
        x = round_to_storage(t, self.w.dtype).astype(self.ct)
        return x.T if transpose else x

    def matmul(self, a, b, *, transpose_a=False, transpose_b=False, scale=1.0):
        return (self._operand(a, transpose_a) @ self._operand(b, transpose_b)) * self.ct(scale)

    def matmul_acc(self, acc, a, b, *, transpose_a=False):
        return acc + self._operand(a, transpose_a) @ b.astype(self.ct)

    # --- FP32 -----------------------------------------------------------------------
    def row_max(self, t):
        return t.max(axis=1) if t.shape[1] else np.full(t.shape[0], -np.inf, self.ct)

    def row_sum(self, t):
        return t.sum(axis=1, dtype=self.ct)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def scale_rows(self, t, v):
        return t * (v[:, None] if t.ndim == 2 else v)

    def add(self, a, b):
        return a + b

    def mul(self, a, b):
        return (a * b).astype(self.ct)

    def sub_rows(self, t, v):
        return (t - v[:, None]).astype(self.ct)

    def scale(self, t, factor):
        return (t * self.ct(factor)).astype(self.ct)

    def div_rows(self, t, v):
        safe = np.where(v == 0, 1, v)
        out = t / (safe[:, None] if t.ndim == 2 else safe)
        return np.where((v == 0)[:, None] if t.ndim == 2 else v == 0, 0, out).astype(self.ct)

    def mask(self, s, q0, k0, *, heads=1):
        rows = q0 + np.arange(s.shape[0])[:, None] // heads
        cols = k0 + np.arange(s.shape[1])[None, :]
        visible = cols < self.w.seq_len_k
        if self.w.causal:
            visible = visible & (cols <= rows + self.w.causal_offset)
        return np.where(visible, s, -np.inf).astype(self.ct)

    def full(self, nrows, ncols, value):
        shape = (nrows,) if ncols is None else (nrows, ncols)
        return np.full(shape, value, dtype=self.ct)

    # --- SFU --------------------------------------------------------------------------
    def exp_sub_rows(self, t, m):
        # A fully masked row has m = -inf; subtracting 0 instead keeps exp(-inf) = 0.
        base = np.where(np.isneginf(m), 0, m)
        return np.exp(t - base[:, None]).astype(self.ct)

    def exp_diff(self, a, b):
        base = np.where(np.isneginf(b), 0, b)
        return np.exp(a - base).astype(self.ct)

    def log(self, v):
        with np.errstate(divide="ignore"):
            return np.log(v).astype(self.ct)

    def barrier(self):
        pass


def random_inputs(workload: Workload, seed: int = 0) -> dict[str, np.ndarray]:
    """Random Q, K, V (standard normal), already rounded to the storage type."""
    rng = np.random.default_rng(seed)
    w = workload
    ct = compute_type(w.dtype)
    out = {}
    shapes = (
        ("Q", w.batch_heads, w.seq_len_q),
        ("K", w.batch_heads_kv, w.seq_len_k),  # one K and one V per K/V head (GQA)
        ("V", w.batch_heads_kv, w.seq_len_k),
    )
    for name, bh, n in shapes:
        x = rng.standard_normal((bh, n, w.head_dim))
        out[name] = round_to_storage(x, w.dtype).astype(ct)
    return out


def run_tensors(
    algorithm: Algorithm, workload: Workload, schedule: Schedule, inputs: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """Run every kernel of ``algorithm`` on (copies of) ``inputs``; every tensor afterwards."""
    algorithm.check(workload, schedule)
    tensors = {k: v.copy() for k, v in inputs.items()}
    tm = NumericMachine(workload, tensors, schedule.kv_splits)
    for kernel in algorithm.kernels(workload, schedule):
        for bh in range(kernel.grid_batch_heads):
            for block in range(kernel.blocks_per_bh()):
                kernel.body(tm, bh, block)
    return tensors


def run(
    algorithm: Algorithm, workload: Workload, schedule: Schedule, inputs: dict[str, np.ndarray]
) -> np.ndarray:
    """Run every kernel of ``algorithm`` on ``inputs``; return O, shape (B*H, Nq, d)."""
    return run_tensors(algorithm, workload, schedule, inputs)["O"]


def reference(workload: Workload, inputs: dict[str, np.ndarray]) -> np.ndarray:
    """Attention in float64, straight from the definition, with the same causal convention
    (and K/V head ``kv_bh(bh)`` for query head ``bh``)."""
    kv = [workload.kv_bh(bh) for bh in range(workload.batch_heads)]
    p, _lse = _probabilities(workload, inputs)
    return p @ inputs["V"].astype(np.float64)[kv]


def rel_err(out: np.ndarray, ref: np.ndarray) -> float:
    """``||out - ref|| / ||ref||`` (Frobenius), NaN if ``out`` has NaN."""
    num = np.linalg.norm((out.astype(np.float64) - ref).ravel())
    den = np.linalg.norm(ref.ravel())
    return float(num / den) if den else float(num)


def _probabilities(workload: Workload, inputs: dict[str, np.ndarray]):
    """``(P, LSE)`` in float64 from the definition: the softmax of the scaled, masked scores
    (K/V head ``kv_bh(bh)`` for query head ``bh``), and each row's log-sum-exp (``-inf`` for
    a row that sees no key, whose probabilities are all 0)."""
    kv = [workload.kv_bh(bh) for bh in range(workload.batch_heads)]
    q = inputs["Q"].astype(np.float64)
    k = inputs["K"].astype(np.float64)[kv]
    s = q @ k.transpose(0, 2, 1) / np.sqrt(workload.head_dim)
    if workload.causal:
        i = np.arange(workload.seq_len_q)[:, None]
        j = np.arange(workload.seq_len_k)[None, :]
        s = np.where(j <= i + workload.causal_offset, s, -np.inf)
    m = s.max(axis=2, keepdims=True)
    base = np.where(np.isneginf(m), 0, m)
    e = np.exp(s - base)
    den = e.sum(axis=2, keepdims=True)
    p = np.where(den == 0, 0, e / np.where(den == 0, 1, den))
    with np.errstate(divide="ignore"):
        lse = np.where(den == 0, -np.inf, base + np.log(np.where(den == 0, 1, den)))
    return p, lse[..., 0]


def reference_backward(workload: Workload, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The forward's ``O`` and ``LSE`` and the gradients ``dQ``, ``dK``, ``dV`` of
    ``sum(O * dO)`` in float64, straight from the definitions (with grouped K/V heads the
    gradients of a K/V head summed over its query heads)."""
    w = workload
    kv = [w.kv_bh(bh) for bh in range(w.batch_heads)]
    p, lse = _probabilities(w, inputs)
    k = inputs["K"].astype(np.float64)[kv]
    v = inputs["V"].astype(np.float64)[kv]
    q = inputs["Q"].astype(np.float64)
    do = inputs["dO"].astype(np.float64)
    o = p @ v
    dv = p.transpose(0, 2, 1) @ do
    dp = do @ v.transpose(0, 2, 1)
    ds = p * (dp - (do * o).sum(axis=2, keepdims=True))
    scale = 1.0 / np.sqrt(w.head_dim)
    dq = ds @ k * scale
    dk = ds.transpose(0, 2, 1) @ q * scale
    # Sum each K/V head's gradient over the query heads that read it.
    dk_kv = np.zeros((w.batch_heads_kv, w.seq_len_k, w.head_dim))
    dv_kv = np.zeros_like(dk_kv)
    np.add.at(dk_kv, kv, dk)
    np.add.at(dv_kv, kv, dv)
    return {"O": o, "LSE": lse, "P": p, "dQ": dq, "dK": dk_kv, "dV": dv_kv}


def backward_inputs(workload: Workload, seed: int = 0) -> dict[str, np.ndarray]:
    """Q, K, V and a random dO (standard normal, in the storage type); for ``--pass bwd``
    also what a forward leaves for the backward, from the float64 reference: O and P (in
    the storage type; P is 0 where masked) and LSE (fp32, one column)."""
    out = random_inputs(workload, seed)
    rng = np.random.default_rng(seed + 7919)
    ct = compute_type(workload.dtype)
    shape = (workload.batch_heads, workload.seq_len_q, workload.head_dim)
    out["dO"] = round_to_storage(rng.standard_normal(shape), workload.dtype).astype(ct)
    if workload.pass_ == "bwd":
        ref = reference_backward(workload, out)
        out["O"] = round_to_storage(ref["O"], workload.dtype).astype(ct)
        out["LSE"] = ref["LSE"].astype(ct)[..., None]
        out["P"] = round_to_storage(ref["P"], workload.dtype).astype(ct)
    return out
