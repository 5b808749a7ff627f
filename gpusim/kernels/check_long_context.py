"""Correctness of the tensor-core kernel's long-context switches on the GPU; one JSON file.

    python -m gpusim.kernels.check_long_context --out OUT/correctness_long_context.json
        [--cubin-dir DIR]

Each switch alone and in combination (kv_order backward, q_order first-first, grouped K/V
heads, split-KV with its combine kernel, a group's heads packed into one tile) on a few tile
shapes, over awkward cases: ragged lengths, Nq > Nk under a causal mask (rows that see no
key), Nq = 1 and 16 against long keys, split counts that do not divide the key blocks and
slices that come out empty. Inputs are fresh random normals; the output and, for split runs,
the fp32 workspace are poisoned with NaN first. The output is compared element by element
with the float64 reference (:func:`gpusim.kernels.check.check_workload`: no NaN, guard
intact, and within twice PyTorch's error in the same dtype when PyTorch is there, else the
sweep's relative-error limit). Split runs also check every split's log-sum-exp against the
float64 one (exactly -inf where the split sees no key of the row) and every partial output,
and that the CTAs of splits with no keys for their query block wrote nothing (their
workspace stays NaN, and the combine kernel does not read it).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from algorithms.q_outer import q_rows
from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernel_catalog.split_kv import slice_blocks
from gpusim.kernels.check import as_float, check_workload, expand_kv_heads, visible_mask
from gpusim.kernels.runner import Flash2Runner
from gpusim.workload import Workload

#: Tile shapes: the sweep's decode and prefill tiles, one stage (FlashAttention-2's
#: buffering), fp16 at d64 with three stages, and eight warps.
BASES = (
    KernelInstance("tc", "bf16", 128, 64, 64, 4, 2),
    KernelInstance("tc", "bf16", 128, 128, 64, 4, 2),
    KernelInstance("tc", "bf16", 128, 128, 64, 4, 1),
    KernelInstance("tc", "fp16", 64, 64, 64, 4, 3),
    KernelInstance("tc", "bf16", 128, 128, 128, 8, 2),
)
SWITCHES = ("kv_backward", "q_first", "gqa", "split")
#: (batch, heads, heads_kv, Nq, Nk, causal, kv_splits); heads_kv and kv_splits apply to
#: instances with those switches only.
CASES = (
    (2, 4, 2, 257, 389, False, 3),
    (1, 4, 1, 389, 257, True, 4),
    (2, 8, 2, 1, 1000, True, 5),
    (1, 4, 4, 16, 777, True, 7),
    (1, 2, 1, 200, 461, True, 8),
)
#: |lse - lse_ref| allowed (fp32 sums of exact bf16 products; values are about 5-10).
LSE_ABS_TOL = 2e-3
#: Norm-wise relative error allowed on a slice's partial output (P rounds to 16 bits).
PART_REL_TOL = 2e-2
#: The sweep's relative-error limit, used where PyTorch is missing.
REL_TOL = {"bf16": 2e-2, "fp16": 1e-2}


#: pack_gqa goes with grouped K/V heads: alone, split, and with every other switch.
PACKED = (
    {"gqa": True, "pack": True},
    {"gqa": True, "pack": True, "split": True},
    dict.fromkeys((*SWITCHES, "pack"), True),
)


def variants() -> list[KernelInstance]:
    """Every base with each switch alone, and with all four together, and split with each
    other switch, and packed (:data:`PACKED`): 5 x (4 + 1 + 3 + 3) instances."""
    out = []
    for base in BASES:
        combos = [{s: True} for s in SWITCHES] + [dict.fromkeys(SWITCHES, True)]
        combos += [{"split": True, s: True} for s in SWITCHES if s != "split"]
        combos += list(PACKED)
        for c in combos:
            out.append(replace(base, **c))
    return out


def case_workload(inst: KernelInstance, case: tuple) -> tuple[Workload, int]:
    """The workload and split count of ``case`` for ``inst`` (switches it lacks: off)."""
    b, h, hkv, nq, nk, causal, splits = case
    if inst.gqa and hkv == h:
        hkv = h // 2
    w = Workload(
        batch=b, heads=h, heads_kv=hkv if inst.gqa else h, seq_len_q=nq, seq_len_k=nk,
        head_dim=inst.head_dim, dtype=inst.dtype, causal=causal,
    )  # fmt: skip
    return w, min(splits, math.ceil(nk / inst.block_n)) if inst.split else 1


def split_reference(cp: Any, w: Workload, inst: KernelInstance, q: Any, k: Any, v: Any, s: int):
    """float64 ``(lse, part, written)`` of every split, laid out as the kernel writes them:
    (B*H, Nq, s), (B*H, Nq, s, d), and whether the split's CTA for that row's query block
    runs (has keys; the others exit and write nothing)."""
    sched = inst.schedule(kv_splits=s)
    k, v = (expand_kv_heads(cp, x, w.heads) for x in (k, v))
    q, k, v = (x.astype(cp.float64).reshape(-1, x.shape[2], w.head_dim) for x in (q, k, v))
    scores = cp.matmul(q, k.swapaxes(-1, -2)) / math.sqrt(w.head_dim)
    seen = visible_mask(cp, w.seq_len_q, w.seq_len_k, w.causal)
    bh, nq, bn = q.shape[0], w.seq_len_q, inst.block_n
    lse = cp.full((bh, nq, s), -cp.inf)
    part = cp.zeros((bh, nq, s, w.head_dim))
    written = cp.zeros((bh, nq, s), dtype=bool)
    keys = cp.arange(w.seq_len_k)
    block = q_rows(w, sched).queries  # queries per tile (block_m / group when packed)
    for q0 in range(0, nq, block):
        rows = slice(q0, min(q0 + block, nq))
        for n in range(s):
            blocks = slice_blocks(w, sched, n, q0)
            if not blocks:
                continue
            written[:, rows, n] = True
            in_slice = (keys >= blocks.start * bn) & (keys < blocks.stop * bn)
            sc = cp.where((seen[rows] & in_slice[None, :])[None], scores[:, rows], -cp.inf)
            m = sc.max(axis=-1, keepdims=True)
            p = cp.exp(sc - cp.where(cp.isfinite(m), m, 0.0))
            den = p.sum(axis=-1)
            some = den > 0
            lse[:, rows, n] = cp.where(some, cp.log(cp.where(some, den, 1.0)) + m[..., 0], -cp.inf)
            part[:, rows, n] = cp.matmul(p, v) / cp.where(some, den, 1.0)[..., None]
    return lse, part, written


def check_split_workspace(cp: Any, w, inst, split, q, k, v) -> dict:
    """The workspace a split run left (poisoned with NaN before it) against the float64
    splits: written where the split has keys (-inf and 0 for rows that see none of its
    keys), untouched where its CTA exits."""
    lse_ref, part_ref, written = split_reference(cp, w, inst, q, k, v, split.splits)
    lse = split.lse.astype(cp.float64)
    part = split.o_part.astype(cp.float64).reshape(part_ref.shape)
    empty = written & cp.isinf(lse_ref)
    finite = written & ~empty
    lse_err = float(cp.abs(cp.where(finite, lse - lse_ref, 0.0)).max())
    diff = cp.where(written[..., None], part - part_ref, 0.0)
    ref_norm = float(cp.sqrt((cp.where(written[..., None], part_ref, 0.0) ** 2).sum()))
    rec = {
        "workspace_nan_where_written": int(cp.isnan(cp.where(written, lse, 0.0)).sum()),
        "unwritten_left_alone": bool(cp.all(cp.where(written, True, cp.isnan(lse)))),
        "empty_rows_lse_minus_inf": bool(cp.all(cp.where(empty, lse == -cp.inf, True))),
        "empty_rows_o_zero": bool(cp.all(cp.where(empty[..., None], part == 0, True))),
        "lse_max_abs_err": lse_err,
        "part_rel_err": float(cp.sqrt((diff**2).sum())) / max(ref_norm, 1e-300),
        "empty_slice_rows": int(empty.sum()),
        "exited_split_rows": int((~written).sum()),
    }
    rec["workspace_ok"] = bool(
        rec["workspace_nan_where_written"] == 0
        and rec["unwritten_left_alone"]
        and rec["empty_rows_lse_minus_inf"]
        and rec["empty_rows_o_zero"]
        and lse_err <= LSE_ABS_TOL
        and rec["part_rel_err"] <= PART_REL_TOL
    )
    return rec


def check_one(runner: Flash2Runner, inst: KernelInstance, case: tuple, seed: int, baseline):
    """One instance on one case: output record, and the workspace's for split instances."""
    from gpusim.kernels.schedule_timing import random_inputs

    cp = runner.cp
    w, splits = case_workload(inst, case)
    schedule = inst.schedule(kv_splits=splits)
    split = runner.split_workspace(w, schedule)
    if split is not None:
        split.o_part.fill(cp.nan)
        split.lse.fill(cp.nan)
    rec = check_workload(runner, inst, w, schedule, seed, baseline, split=split)
    if baseline is None and inst.variant == "tc":
        rec["ok"] = bool(rec["ok"] and rec["rel_err"] <= REL_TOL[w.dtype])
    if split is not None:
        q, k, v = (as_float(cp, x, w.dtype) for x in random_inputs(cp, w, seed))
        rec |= check_split_workspace(cp, w, inst, split, q, k, v)
        rec["ok"] = bool(rec["ok"] and rec["workspace_ok"])
    return rec


def run_checks(runner: Flash2Runner, instances: list[KernelInstance], baseline=None) -> list:
    """Every case on every instance; a lost CUDA context ends the run (recorded)."""
    out = []
    for n, (inst, (c, case)) in enumerate(itertools.product(instances, enumerate(CASES))):
        try:
            out.append(check_one(runner, inst, case, 100 + 17 * n + c, baseline))
        except Exception as exc:  # a failed launch is a result too
            out.append({"instance": inst.key, "case": list(case), "ok": False, "error": str(exc)})
            if "illegal" in str(exc).lower() or "launch failure" in str(exc).lower():
                break
    return out


def main(argv: list[str] | None = None) -> int:
    """Check every variant, write ``--out``, print failures and a count; exit 1 on any."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--cubin-dir", type=Path, default=None)
    args = ap.parse_args(argv)
    from gpusim.kernels.check_all import torch_baseline
    from gpusim.kernels.measurement_provenance import provenance

    t0 = time.time()
    runner = Flash2Runner(cubin_dir=args.cubin_dir)
    insts = variants()
    try:
        baseline = torch_baseline()
    except ImportError:
        baseline = None
    records = run_checks(runner, insts, baseline)
    attrs = {}
    for i in insts:
        try:
            attrs[i.key] = runner.load(i).attributes()
        except Exception as exc:  # recorded beside the runs that failed with it
            attrs[i.key] = {"error": str(exc)[:300]}
    bad = [r for r in records if not r["ok"]]
    doc = {
        "provenance": provenance(runner.cp),
        "instances": [i.as_dict() for i in insts],
        "attributes": attrs,
        "records": records,
        "failed": len(bad),
        "wall_s": time.time() - t0,
    }
    args.out.write_text(json.dumps(doc, indent=1))
    for r in bad[:20]:
        print("FAIL", json.dumps(r)[:400], file=sys.stderr)
    print(f"long-context correctness: {len(records)} runs, {len(bad)} failed, "
          f"{time.time() - t0:.1f} s")  # fmt: skip
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
