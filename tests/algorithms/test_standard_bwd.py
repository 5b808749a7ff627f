"""Standard attention's backward pass: exact through the P the forward left, its traffic."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import get_algorithm
from algorithms.numeric import backward_inputs, reference_backward, run_tensors
from gpusim.counting import count
from gpusim.schedule import Schedule
from gpusim.workload import Workload

STANDARD = get_algorithm("standard")


def _err(out: np.ndarray, ref: np.ndarray) -> float:
    if not np.all(np.isfinite(out)):
        return float("nan")
    return float(np.linalg.norm((out - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1.0))


@settings(max_examples=20, deadline=None)
@given(
    nq=st.integers(1, 30),
    nk=st.integers(1, 40),
    block_m=st.sampled_from([2, 8]),
    block_n=st.sampled_from([3, 8]),
    causal=st.booleans(),
    grouped=st.booleans(),
    training=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_backward_is_exact(nq, nk, block_m, block_n, causal, grouped, training, seed):
    w = Workload(batch=1, heads=4 if grouped else 2, heads_kv=2 if grouped else None,
                 seq_len_q=nq, seq_len_k=nk, head_dim=8, dtype="fp64", causal=causal,
                 pass_="fwd+bwd" if training else "bwd")  # fmt: skip
    inputs = backward_inputs(w, seed)
    out = run_tensors(STANDARD, w, Schedule(block_m=block_m, block_n=block_n), inputs)
    ref = reference_backward(w, inputs)
    errs = {n: _err(out[n], ref[n]) for n in ("dQ", "dK", "dV")}
    assert all(e < 1e-13 for e in errs.values()), errs


def test_traffic_of_the_five_kernels():
    # Unmasked and aligned: P read by dv, ds (and written by nothing here), dP written and
    # read once, dS written once and read by dq and dk; four products, not the flash
    # backward's five (nothing recomputed).
    w = Workload(batch=1, heads=1, seq_len_q=256, seq_len_k=512, head_dim=64, dtype="fp16",
                 pass_="bwd")  # fmt: skip
    s = Schedule(block_m=64, block_n=128)
    names = [k.name for k in STANDARD.kernels(w, s)]
    assert names == ["bwd_dv", "bwd_dp", "bwd_ds", "bwd_dq", "bwd_dk"]
    c = count("standard", w, s)
    nn = 256 * 512 * 2  # one Nq x Nk matrix in fp16
    t = c.bytes_by_tensor
    assert t["P"] == {"read_bytes": 2 * nn, "write_bytes": 0}
    assert t["dP"] == {"read_bytes": nn, "write_bytes": nn}
    assert t["dS"] == {"read_bytes": 2 * nn, "write_bytes": nn}
    assert c.executed_mma_flops == 4 * 2 * 256 * 512 * 64
    assert c.flops == w.model_flops() == 10 * 256 * 512 * 64  # the papers' convention


def test_causal_backward_skips_the_tiles_above_the_diagonal():
    # The forward never wrote them: reading them would read poison (NaN) in the interpreter.
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=64, head_dim=8, dtype="fp64",
                 causal=True, pass_="fwd+bwd")  # fmt: skip
    out = run_tensors(STANDARD, w, Schedule(block_m=16, block_n=16), backward_inputs(w, 3))
    assert all(np.isfinite(out[n]).all() for n in ("dQ", "dK", "dV"))
    full = count("standard", w.model_copy(update={"causal": False}), Schedule(block_m=16,
                 block_n=16)).bytes_by_tensor["dS"]["write_bytes"]  # fmt: skip
    masked = count("standard", w, Schedule(block_m=16, block_n=16)).bytes_by_tensor["dS"]
    assert masked["write_bytes"] == full * 10 // 16  # 10 of the 16 tiles are on or below
