"""``gpusim verify``: every algorithm's numeric interpreter against a float64 reference.

Each algorithm runs on awkward shapes (Nq != Nk, lengths that are not
multiples of the blocks, head dims 16 to 256, causal with rows that see no
key at all) with fp64 storage, where a correct schedule agrees with the
reference to rounding (~1e-16). It also runs one mid-sized case in fp32, fp16
and bf16 storage, whose errors show the precision of each storage type.

Algorithms that implement the long-context fields also run :data:`LONG_CONTEXT_CASES`
(those whose fields they implement): split-KV decoding with Nq = 1 and 16, splits that
do not divide the key blocks, a split that some rows see no key of (bottom-right causal),
Nq > Nk causal, grouped K/V heads (GQA, MQA), packed heads and a backward K/V walk.

Algorithms with a backward pass (flash2, standard) also get a record of their own (``"pass":
"fwd+bwd"``): a training step's attention, the forward storing its log-sum-exp and the
backward's kernels after it, on :data:`BACKWARD_CASES`; its errors are those of dQ, dK
and dV (the worst of the three) against the float64 gradients of the definition.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from algorithms import ALGORITHMS, get_algorithm
from algorithms.base import Algorithm
from algorithms.numeric import (
    backward_inputs,
    random_inputs,
    reference,
    reference_backward,
    rel_err,
    run,
    run_tensors,
)
from gpusim import verify_tolerance
from gpusim.schedule import Schedule
from gpusim.workload import Workload


@dataclass(frozen=True)
class Case:
    """One verification shape and its blocks."""

    batch: int
    heads: int
    seq_len_q: int
    seq_len_k: int
    head_dim: int
    causal: bool
    block_m: int
    block_n: int
    heads_kv: int | None = None
    kv_splits: int = 1
    pack_gqa: bool = False
    kv_order: str = "forward"

    def label(self) -> str:
        """E.g. ``B1H2 Nq37 Nk53 d16 causal Br16 Bc32`` (and the long-context fields set)."""
        c = " causal" if self.causal else ""
        extra = (f" Hkv{self.heads_kv}" if self.heads_kv else "") + (
            f" splits{self.kv_splits}" if self.kv_splits != 1 else ""
        )
        extra += (" pack-gqa" if self.pack_gqa else "") + (
            f" kv-{self.kv_order}" if self.kv_order != "forward" else ""
        )
        return (
            f"B{self.batch}H{self.heads} Nq{self.seq_len_q} Nk{self.seq_len_k} "
            f"d{self.head_dim}{c} Br{self.block_m} Bc{self.block_n}{extra}"
        )

    def workload(self, dtype: str, causal: bool, pass_: str = "fwd") -> Workload:
        """This case's workload in ``dtype`` (``causal`` as the algorithm can run it)."""
        return Workload(
            batch=self.batch,
            heads=self.heads,
            seq_len_q=self.seq_len_q,
            seq_len_k=self.seq_len_k,
            head_dim=self.head_dim,
            dtype=dtype,
            causal=causal,
            heads_kv=self.heads_kv,
            pass_=pass_,
        )

    def applies_to(self, algorithm: Algorithm) -> bool:
        """Whether ``algorithm`` implements every long-context field this case sets."""
        orders = {"kv_splits": self.kv_splits != 1, "pack_gqa": self.pack_gqa}
        orders["kv_order"] = self.kv_order != "forward"
        if self.heads_kv is not None and not algorithm.supports_gqa:
            return False
        return all(name in algorithm.supports_orders for name, on in orders.items() if on)


#: Awkward shapes: ragged tiles everywhere; Nq > Nk causal leaves the first rows with no key.
CASES = (
    Case(1, 2, 37, 53, 16, False, 16, 32),
    Case(2, 1, 53, 37, 40, True, 16, 16),
    Case(1, 1, 45, 70, 64, True, 32, 16),
    Case(1, 1, 70, 45, 64, False, 16, 64),
    Case(1, 1, 33, 20, 16, True, 8, 8),
    Case(1, 1, 20, 24, 256, True, 16, 16),
)

#: The long-context fields on awkward shapes (key blocks Tc = ceil(Nk/Bc); a split's slice
#: is blocks [s·Tc // N, (s+1)·Tc // N)).
LONG_CONTEXT_CASES = (
    # decode: Nq = 1, 3 splits of Tc = 7 (no divisor), ragged last key block (100 % 16)
    Case(1, 2, 1, 100, 16, False, 16, 16, kv_splits=3),
    # Nq = 16, causal offset 84: the last split (keys 88..99) sees no key for rows 0..3
    Case(1, 2, 16, 100, 16, True, 16, 8, kv_splits=7),
    # Nq > Nk causal: rows 0..26 see no key at all, early splits exit for whole tiles
    Case(1, 1, 40, 13, 16, True, 8, 4, kv_splits=3),
    # GQA (2 query heads per K/V head), causal, ragged, walking K/V backward
    Case(2, 4, 37, 50, 16, True, 8, 8, heads_kv=2, kv_order="backward"),
    # MQA with the group packed into the tile rows (2 queries x 4 heads) and 4 splits
    Case(2, 4, 7, 50, 16, True, 8, 8, heads_kv=1, kv_splits=4, pack_gqa=True),
    # a decode step with 4 heads per K/V head packed, 5 splits of Tc = 5, backward
    Case(1, 8, 1, 77, 32, False, 16, 16, heads_kv=2, kv_splits=5, pack_gqa=True,
         kv_order="backward"),
    # GQA alone, for the algorithms that implement it but none of the schedule fields
    Case(1, 6, 45, 70, 64, True, 32, 16, heads_kv=3),
)  # fmt: skip

#: fp64 storage: a correct schedule agrees with the reference to rounding (~1e-16).
FP64_TOLERANCE = verify_tolerance.FP64_TOLERANCE


@dataclass(frozen=True)
class VerifyResult:
    """One algorithm's verification: its worst fp64 error over :data:`CASES`, and the errors of
    the low-precision storage types on :data:`LOW_PRECISION_CASE`."""

    algorithm: str
    cases: int
    max_rel_err: float
    max_abs_err: float
    nan_free: bool
    worst_case: str
    low_precision_case: str
    rel_err_fp32: float
    rel_err_fp16: float
    rel_err_bf16: float
    #: the workload pass verified: ``fwd``, or ``fwd+bwd`` (the gradients)
    pass_: str = "fwd"

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> VerifyResult:
        """From :func:`verify_algorithm`'s (or :func:`verify_backward`'s) record."""
        record = dict(record)
        pass_ = record.pop("pass", "fwd")
        return cls(**record, pass_=pass_)

    @property
    def passed(self) -> bool:
        """No NaN, and the fp64 error within :data:`FP64_TOLERANCE`."""
        err = self.max_rel_err
        return self.nan_free and err == err and err <= FP64_TOLERANCE

    def to_dict(self) -> dict[str, Any]:
        """The record as ``gpusim verify --json`` lists it (``pass`` only for a backward)."""
        out = asdict(self)
        value = out.pop("pass_")
        return out if value == "fwd" else out | {"pass": value}


#: The case used for the low-precision storage types.
LOW_PRECISION_CASE = Case(1, 1, 61, 77, 64, True, 16, 32)


def _schedule(algorithm: Algorithm, case: Case) -> Schedule:
    # One query per CTA is what flash-naive-qkv is.
    block_m = 1 if algorithm.name == "flash-naive-qkv" else case.block_m
    return Schedule(
        block_m=block_m,
        block_n=case.block_n,
        kv_splits=case.kv_splits,
        pack_gqa=case.pack_gqa,
        kv_order=case.kv_order,
    )


def cases_for(algorithm: Algorithm) -> tuple[Case, ...]:
    """:data:`CASES`, and the long-context cases whose fields ``algorithm`` implements."""
    return CASES + tuple(c for c in LONG_CONTEXT_CASES if c.applies_to(algorithm))


def run_case(algorithm: Algorithm, case: Case, dtype: str, seed: int) -> tuple[float, float, bool]:
    """``(relative error, max abs error, NaN-free)`` of one case against the fp64 reference."""
    w = case.workload(dtype, case.causal and algorithm.supports_causal)
    inputs = random_inputs(w, seed)
    out = run(algorithm, w, _schedule(algorithm, case), inputs)
    ref = reference(w, inputs)
    finite = bool(np.isfinite(out).all())
    abs_err = float(np.max(np.abs(out.astype(np.float64) - ref))) if finite else float("nan")
    return rel_err(out, ref), abs_err, finite


def _record(algorithm: Algorithm, cases, run, low_precision_case: Case, seed: int) -> dict:
    """The verification record of ``run(algorithm, case, dtype, seed)`` over ``cases`` in
    fp64 (the worst relative and absolute errors, NaN-freedom, the worst case), and the
    low-precision storage types' errors on ``low_precision_case``."""
    rel, worst_abs, finite, worst = 0.0, 0.0, True, ""
    for i, case in enumerate(cases):
        r, a, ok = run(algorithm, case, "fp64", seed + i)
        finite &= ok
        if not ok or r > rel:
            worst = case.label()
        rel = float("nan") if not ok else max(rel, r)
        worst_abs = max(worst_abs, a) if ok else float("nan")
    record = {
        "algorithm": algorithm.name,
        "cases": len(cases),
        "max_rel_err": rel,
        "max_abs_err": worst_abs,
        "nan_free": finite,
        "worst_case": worst,
        "low_precision_case": low_precision_case.label(),
    }
    for dtype in ("fp32", "fp16", "bf16"):
        record[f"rel_err_{dtype}"] = run(algorithm, low_precision_case, dtype, seed)[0]
    return record


def verify_algorithm(algorithm: Algorithm, seed: int = 0) -> dict:
    """The verification record of one algorithm."""
    return _record(algorithm, cases_for(algorithm), run_case, LOW_PRECISION_CASE, seed)


#: The backward's shapes: ragged tiles, Nq > Nk causal (rows that see no key: zero dQ),
#: grouped K/V heads (the group's gradients summed), MQA, and d 256.
BACKWARD_CASES = (
    Case(1, 2, 37, 53, 16, False, 16, 32),
    Case(2, 1, 53, 37, 40, True, 16, 16),
    Case(1, 1, 45, 70, 64, True, 32, 16),
    Case(1, 1, 33, 20, 16, True, 8, 8),
    Case(2, 4, 37, 50, 16, True, 8, 8, heads_kv=2),
    Case(1, 4, 29, 41, 32, False, 16, 8, heads_kv=1),
    Case(1, 1, 20, 24, 256, True, 16, 16),
)
#: The case used for the low-precision storage types' gradients.
BACKWARD_LOW_PRECISION_CASE = Case(1, 2, 61, 77, 64, True, 16, 32, heads_kv=1)
BACKWARD_PASS = "fwd+bwd"


def run_backward_case(
    algorithm: Algorithm, case: Case, dtype: str, seed: int
) -> tuple[float, float, bool]:
    """``(relative error, max abs error, NaN-free)`` of the worst of dQ, dK, dV of one
    training step (``fwd+bwd``) of ``algorithm`` against the float64 gradients."""
    w = case.workload(dtype, case.causal, BACKWARD_PASS)
    inputs = backward_inputs(w, seed)
    out = run_tensors(algorithm, w, _schedule(algorithm, case), inputs)
    ref = reference_backward(w, inputs)
    grads = [(out[n], ref[n]) for n in ("dQ", "dK", "dV")]
    finite = all(bool(np.isfinite(o).all()) for o, _ in grads)
    if not finite:
        return float("nan"), float("nan"), False
    rel = max(rel_err(o, r) for o, r in grads)
    return rel, max(float(np.max(np.abs(o.astype(np.float64) - r))) for o, r in grads), True


def verify_backward(algorithm: Algorithm, seed: int = 0) -> dict:
    """The verification record of ``algorithm``'s backward pass."""
    record = _record(
        algorithm, BACKWARD_CASES, run_backward_case, BACKWARD_LOW_PRECISION_CASE, seed
    )
    return {"algorithm": record.pop("algorithm"), "pass": BACKWARD_PASS} | record


def verify(algorithms: list[str] | None = None, seed: int = 0) -> list[dict]:
    """Verify ``algorithms`` (all of them when None); one record per algorithm, in table order,
    and after it one for its backward pass where it has one."""
    names = list(ALGORITHMS) if algorithms is None else algorithms
    out = []
    for n in names:
        alg = get_algorithm(n)
        out.append(verify_algorithm(alg, seed))
        if alg.supports_backward:
            out.append(verify_backward(alg, seed))
    return out
