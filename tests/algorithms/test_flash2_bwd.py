"""flash2's backward pass: exact gradients on awkward shapes, the walk, the traffic, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from algorithms import get_algorithm
from algorithms.flash2_bwd import q_walk
from algorithms.numeric import backward_inputs, reference_backward, run_tensors
from algorithms.tiling import first_q_block, kv_blocks, q_blocks, visible_kv_blocks
from gpusim.counting import count, traced_classes
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

FLASH2 = get_algorithm("flash2")
GRADS = ("dQ", "dK", "dV")


def _w(**kw) -> Workload:
    return Workload(**({"batch": 1, "heads": 2, "head_dim": 16, "dtype": "fp64"} | kw))


def _err(out: np.ndarray, ref: np.ndarray) -> float:
    """Relative error, against 1 where the reference is smaller (a gradient that is zero up
    to the reference's own rounding: one key, or no key seen)."""
    if not np.all(np.isfinite(out)):
        return float("nan")
    return float(np.linalg.norm((out - ref).ravel()) / max(np.linalg.norm(ref.ravel()), 1.0))


def _errors(w: Workload, s: Schedule, seed: int = 0) -> dict[str, float]:
    inputs = backward_inputs(w, seed)
    out = run_tensors(FLASH2, w, s, inputs)
    ref = reference_backward(w, inputs)
    names = GRADS + (("O",) if w.pass_ == "fwd+bwd" else ())
    return {n: _err(out[n], ref[n]) for n in names}


@settings(max_examples=30, deadline=None)
@given(
    nq=st.integers(1, 40),
    nk=st.integers(1, 60),
    block_m=st.sampled_from([2, 8, 16]),
    block_n=st.sampled_from([3, 8, 16]),
    causal=st.booleans(),
    grouped=st.booleans(),
    training=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_backward_is_exact(nq, nk, block_m, block_n, causal, grouped, training, seed):
    # Ragged tiles, Nq > Nk under the mask (rows that see no key: zero gradients), GQA.
    w = _w(
        seq_len_q=nq,
        seq_len_k=nk,
        causal=causal,
        heads=4 if grouped else 2,
        heads_kv=2 if grouped else None,
        **{"pass": "fwd+bwd" if training else "bwd"},
    )
    errs = _errors(w, Schedule(block_m=block_m, block_n=block_n), seed)
    assert all(e < 1e-13 for e in errs.values()), errs


def test_rows_that_see_no_key_get_zero_gradients():
    # Nq 20 > Nk 6, causal: rows 0..13 see no key; their dQ is exactly zero, nothing is NaN.
    w = _w(seq_len_q=20, seq_len_k=6, causal=True, **{"pass": "fwd+bwd"})
    out = run_tensors(FLASH2, w, Schedule(block_m=8, block_n=4), backward_inputs(w, 1))
    assert np.all(np.isfinite(out["dQ"])) and np.all(np.isfinite(out["dK"]))
    assert np.all(out["dQ"][:, :14] == 0) and np.any(out["dQ"][:, 14:] != 0)


@pytest.mark.parametrize("dtype,bound", [("fp32", 1e-5), ("fp16", 5e-3), ("bf16", 4e-2)])
def test_low_precision_gradients(dtype, bound):
    w = _w(seq_len_q=61, seq_len_k=77, head_dim=64, causal=True, dtype=dtype, **{"pass": "bwd"})
    errs = _errors(w, Schedule(block_m=16, block_n=32))
    assert all(e < bound for e in errs.values()), errs
    assert all(e > 0 for e in errs.values())  # really rounded, not computed in float64


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("nq,nk,br,bc", [(37, 53, 8, 16), (53, 37, 16, 8), (64, 64, 16, 16)])
def test_walk_visits_exactly_the_blocks_that_see_the_keys(causal, nq, nk, br, bc):
    w = _w(seq_len_q=nq, seq_len_k=nk, causal=causal)
    s = Schedule(block_m=br, block_n=bc)
    for j in range(kv_blocks(w, bc)):
        unmasked, masked = q_walk(w, s, j * bc)
        walked = list(unmasked) + list(masked)
        want = [i for i in range(q_blocks(w, br)) if visible_kv_blocks(w, i * br, br, bc) > j]
        assert walked == sorted(want, reverse=True)  # from the last block down, each once
        assert (first_q_block(w, br, j * bc) if want else None) in (min(want, default=None),)


def test_main_kernel_traffic_and_flops():
    # Unmasked, aligned: five products; K, V read once per CTA; Q, dO, LSE, Dsum once per
    # K/V block; Tc x Nq x d fp32 bytes added into dQacc; dK, dV written once.
    w = Workload(batch=1, heads=1, seq_len_q=256, seq_len_k=512, head_dim=64, dtype="bf16",
                 **{"pass": "bwd"})  # fmt: skip
    s = Schedule(block_m=64, block_n=128, warps=8, stages=2)
    main = FLASH2.kernels(w, s)[1]
    (cls,) = traced_classes(main)
    steps = cls.program.expanded().steps
    tc, e, d = 512 // 128, 2, 64
    reads = {}
    for st_ in steps:
        for a in st_.reads:
            reads[a.tensor] = reads.get(a.tensor, 0) + a.nbytes
    writes = {}
    for st_ in steps:
        for a in st_.writes:
            writes[a.tensor] = writes.get(a.tensor, 0) + a.nbytes
    assert reads["K"] == reads["V"] == 128 * d * e
    assert reads["Q"] == reads["dO"] == 256 * d * e  # one CTA walks every query block
    assert reads["LSE"] == reads["Dsum"] == 256 * 4
    assert writes["dQacc"] == 256 * d * 4 and writes["dK"] == writes["dV"] == 128 * d * e
    assert sum(st_.mma_flops for st_ in steps) == 5 * 2 * 256 * 128 * d
    c = count("flash2", w, s)
    assert c.flops == w.model_flops() == 10 * 256 * 512 * d
    assert c.executed_mma_flops == c.flops  # nothing masked, nothing padded
    assert len(FLASH2.kernels(w, s)) == 3 and tc == main.blocks_per_bh()


def test_training_step_adds_the_forward_and_its_log_sum_exp():
    w = Workload(batch=2, heads=4, heads_kv=2, seq_len_q=256, seq_len_k=256, head_dim=64,
                 dtype="fp16", causal=True, **{"pass": "fwd+bwd"})  # fmt: skip
    s = Schedule(block_m=64, block_n=64)
    names = [k.name for k in FLASH2.kernels(w, s)]
    assert names == ["flash2_fwd", "flash2_bwd_dot", "flash2_bwd", "flash2_bwd_convert",
                     "flash2_bwd_group_sum"]  # fmt: skip
    c = count("flash2", w, s)
    assert c.flops == 14 * 2 * 4 * 256 * 256 * 64 // 2  # 7 products, causal halves
    fwd = Workload(**(w.model_dump() | {"pass": "fwd"}))
    assert "LSE" not in count("flash2", fwd, s).bytes_by_tensor
    assert c.bytes_by_tensor["LSE"]["write_bytes"] == 2 * 4 * 256 * 4


def test_pass_field_is_named_pass_and_left_out_for_the_forward():
    w = Workload(**{"pass": "bwd"})
    assert w.pass_ == "bwd" and w.model_dump()["pass"] == "bwd"
    assert Workload(**w.model_dump()) == w and Workload(pass_="bwd") == w
    assert "pass" not in Workload().model_dump()
    assert Workload().model_flops() * 5 == w.model_flops() * 2
    with pytest.raises(ValueError):
        Workload(**{"pass": "sideways"})


@pytest.mark.parametrize(
    "algorithm,schedule,dtype,needle",
    [
        ("flash1", {}, "bf16", "has no backward pass"),
        ("flash2", {"kv_splits": 2}, "bf16", "forward options"),
        ("flash2", {"pack_gqa": True}, "bf16", "forward options"),
        ("flash2", {"mma": "wgmma"}, "bf16", "mma.sync"),
        ("flash2", {"instruction_counts": "sass-fit"}, "bf16", "formulas"),
        ("flash2", {}, "fp32", "mma.sync"),
    ],
)
def test_refusals_are_one_line(algorithm, schedule, dtype, needle):
    w = Workload(batch=1, heads=2, seq_len_q=128, seq_len_k=128, head_dim=64, dtype=dtype,
                 heads_kv=1 if schedule.get("pack_gqa") else None, **{"pass": "bwd"})  # fmt: skip
    with pytest.raises(GpusimError, match=needle) as e:
        count(algorithm, w, Schedule(block_m=64, block_n=64, **schedule))
    assert "\n" not in str(e.value)


def test_one_key_by_hand():
    # With a single key every row's P is 1: dS = P (dP - rowsum(P dP)) = 0, so dQ = dK = 0,
    # and dV = P^T dO is the sum of dO over the rows.
    w = _w(seq_len_q=5, seq_len_k=1, head_dim=4, **{"pass": "bwd"})
    inputs = backward_inputs(w, 2)
    out = run_tensors(FLASH2, w, Schedule(block_m=2, block_n=1), inputs)
    assert np.allclose(out["dQ"], 0) and np.allclose(out["dK"], 0)
    assert np.allclose(out["dV"][:, 0], inputs["dO"].sum(axis=1))


def test_the_description_is_the_mix_the_tracer_charges():
    # count's kernel_description for --pass bwd describes the backward's step, and the engine
    # is charged exactly that (unmasked steps; the masked ones add the mask's formula).
    from gpusim.kernel_catalog.description import describe

    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16",
                 pass_="bwd")  # fmt: skip
    s = Schedule(block_m=64, block_n=128, warps=8, stages=2)
    mix = describe(w, s).as_dict()["step_mix"]
    assert mix["step"] == "backward" and mix["instruction_counts"] == "compiled"
    (cls,) = traced_classes(FLASH2.kernels(w, s)[1])
    steady = max(cls.program.steps, key=lambda st_: st_.repeat)
    assert steady.instrs == pytest.approx(mix["engine_issue_per_cta"])
    assert mix["per_compute_warp"]["RED"] == 64 * 128 / (32 * 8)  # dQ's adds, one per float
    both = describe(w.model_copy(update={"pass_": "fwd+bwd"}), s).as_dict()
    assert "step" not in both["step_mix"] and both["backward_step_mix"] == mix


def test_compiled_counts_add_what_nvcc_emits_and_formulas_stay_asked_for():
    # compiled (the default) over the source's formulas, per warp: per score element
    # (E = 64 x 128 / 256 = 32) an FMUL pair and an FSETP of exp2f, the unfused scale (FMUL
    # and FADD for one FFMA); a LEA pair per RED (32): 4 E + 2 x 32 = 192.
    from gpusim.kernel_catalog.description import describe

    w = Workload(batch=1, heads=2, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="bf16",
                 pass_="bwd")  # fmt: skip
    s = Schedule(block_m=64, block_n=128, warps=8, stages=2)
    compiled = describe(w, s).as_dict()["step_mix"]
    source = describe(w, s.model_copy(update={"instruction_counts": "formulas"})).as_dict()
    source = source["step_mix"]
    assert source["instruction_counts"] == "formulas"
    per_warp = compiled["formulas_issued_per_compute_warp"]
    assert per_warp - source["formulas_issued_per_compute_warp"] == pytest.approx(192)
    assert compiled["per_compute_warp"]["FSETP"] == 32 and "FFMA" not in {
        k for k, v in compiled["per_compute_warp"].items() if v
    }
    asked = s.model_copy(update={"instruction_counts": "formulas"})
    (cls,) = traced_classes(FLASH2.kernels(w, asked)[1])
    steady = max(cls.program.steps, key=lambda st_: st_.repeat)
    assert steady.instrs == pytest.approx(source["engine_issue_per_cta"])


def test_compiled_counts_describe_an_mma_forward_too_and_refuse_the_fp32_one():
    """nvcc's per-element terms hold for PyTorch's forward loops as well (instruction_mix):
    the forward's compiled step issues the formulas' plus 4 a score element; an FFMA kernel
    (fp32) has no such loop, a one-line error."""
    from gpusim.kernel_catalog.description import describe

    w = Workload(seq_len=256, head_dim=64, dtype="bf16")
    s = Schedule(block_m=64, block_n=64, warps=4, instruction_counts="formulas")
    mixes = [describe(w, s.model_copy(update={"instruction_counts": c})).as_dict()["step_mix"]
             for c in ("formulas", "compiled")]  # fmt: skip
    elems = 64 * 64 / (32 * 4)  # score elements a thread holds
    per_warp = [m["formulas_issued_per_compute_warp"] for m in mixes]
    assert per_warp[1] - per_warp[0] == pytest.approx(4 * elems)
    count("flash2", w.model_copy(update={"pass_": "fwd+bwd"}),
          s.model_copy(update={"instruction_counts": "compiled"}))  # fmt: skip
    with pytest.raises(GpusimError, match="compiled") as e:
        count("flash2", w.model_copy(update={"dtype": "fp32"}),
              s.model_copy(update={"instruction_counts": "compiled"}))  # fmt: skip
    assert "\n" not in str(e.value)
