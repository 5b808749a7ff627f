"""The cut of grids out of lockstep (gpusim/engine/scatter_skip.py) against running them out.

    python benchmarks/bench_scatter_skip.py [--quick]

Each case is simulated twice in this process on the aggregated path: with the cut, and
with ``scatter_skip.ENABLED`` off (every wave simulated; the lumping of causal grids and
the streaming skip stay as they are). It prints both wall times, their ratio, the CTAs
left out, and the cut's error in runtime and in DRAM read and write bytes. The claim
(docs/limits.md): within 1 % in runtime and 0.1 % in DRAM bytes.
"""

from __future__ import annotations

import argparse
import time

from gpusim.engine import scatter_skip, simulate
from gpusim.profiles import load_profile
from gpusim.profiles.sm_count import with_sm_count
from gpusim.schedule import Schedule
from gpusim.workload import Workload


def _w(b, h, n, d, dtype, causal=False, **kw) -> Workload:
    nq = kw.pop("nq", n)
    return Workload(batch=b, heads=h, seq_len_q=nq, seq_len_k=n, head_dim=d, dtype=dtype,
                    causal=causal, **kw)  # fmt: skip


S128 = Schedule(block_m=128, block_n=64, warps=4, stages=2)
S64 = Schedule(block_m=64, block_n=64, warps=4, stages=2)
STD = Schedule(block_m=128, block_n=128, warps=4, stages=2)  # standard's default here
#: (label, algorithm, workload, schedule, profile)
CASES = [
    ("flash2 B8 H32 N4096 d128 bf16", "flash2", _w(8, 32, 4096, 128, "bf16"), S128, "h200-sxm"),
    ("  64x64", "flash2", _w(8, 32, 4096, 128, "bf16"), S64, "h200-sxm"),
    ("  causal", "flash2", _w(8, 32, 4096, 128, "bf16", True), S128, "h200-sxm"),
    ("flash2 B16 H32 N2048 d64 fp16 causal", "flash2", _w(16, 32, 2048, 64, "fp16", True),
     S128, "h200-sxm"),
    ("flash2 B8 H32 N2048 d64 fp32 64x64 w8", "flash2", _w(8, 32, 2048, 64, "fp32"),
     Schedule(block_m=64, block_n=64, warps=8, stages=2), "h200-sxm"),
    ("flash2 B32 H16 N1024 d128 bf16", "flash2", _w(32, 16, 1024, 128, "bf16"), S128,
     "h200-sxm"),
    ("flash2 kv backward B8 H16 N8192 causal", "flash2", _w(8, 16, 8192, 128, "bf16", True),
     S128.model_copy(update={"kv_order": "backward"}), "h200-sxm"),
    ("flash2 decode GQA q1 N65536 splits 16", "flash2",
     _w(16, 32, 65536, 128, "bf16", nq=1, heads_kv=8),
     S64.model_copy(update={"kv_splits": 16}), "h200-sxm"),
    ("standard B8 H32 N2048 d64 fp16", "standard", _w(8, 32, 2048, 64, "fp16"),
     Schedule(block_m=128, block_n=128, warps=4, stages=2), "h200-sxm"),
    ("flash1 B8 H32 N4096 d64 fp16", "flash1", _w(8, 32, 4096, 64, "fp16"), S128, "h200-sxm"),
    ("a100 flash2 B8 H32 N4096 d128 bf16", "flash2", _w(8, 32, 4096, 128, "bf16"), S128,
     "a100-sxm4-80gb"),
    ("  causal", "flash2", _w(8, 32, 4096, 128, "bf16", True), S128, "a100-sxm4-80gb"),
    ("a100 + H200 scatter: flash2 B8 H32 N4096 d128", "flash2", _w(8, 32, 4096, 128, "bf16"),
     S128, "a100+scatter"),
    ("  fp32 B8 H32 N2048 d64 64x64 w8", "flash2", _w(8, 32, 2048, 64, "fp32"),
     Schedule(block_m=64, block_n=64, warps=8, stages=2), "a100+scatter"),
    # the row softmax streams but is not DRAM-bound on fewer SMs: the cut, not the stream skip
    ("standard B8 H32 N2048 d128 fp16, 48 SMs", "standard", _w(8, 32, 2048, 128, "fp16"),
     STD, "h200-sxm@48"),
    ("  16 SMs", "standard", _w(8, 32, 2048, 128, "fp16"), STD, "h200-sxm@16"),
]  # fmt: skip
QUICK = [0, 2, 4, 7, 13, 14]


def profile_named(name: str):
    """A shipped profile, ``NAME@N`` (that profile with N SMs, as ``--sm-count``), or
    ``a100+scatter``: the A100 (no measured scatter) given the H200's, so that its grids go
    out of lockstep too."""
    if "@" in name:
        base, sms = name.split("@")
        return with_sm_count(load_profile(base), int(sms))
    if name != "a100+scatter":
        return load_profile(name)
    h200 = load_profile("h200-sxm")
    return load_profile("a100-sxm4-80gb").model_copy(
        update={"cta_duration_scatter": h200.cta_duration_scatter}
    )


def run(algorithm, w, s, profile, enabled: bool):
    """(result, wall seconds) of one aggregated simulation, the cut on or off."""
    scatter_skip.ENABLED = enabled
    try:
        t0 = time.perf_counter()
        r = simulate(algorithm, w, s, profile, detail="aggregated")
        return r, time.perf_counter() - t0
    finally:
        scatter_skip.ENABLED = True


def compare(case) -> dict:
    """The cut against the run without it, for one case of :data:`CASES`."""
    _label, algorithm, w, s, name = case
    profile = profile_named(name)
    cut, t_cut = run(algorithm, w, s, profile, True)
    full, t_full = run(algorithm, w, s, profile, False)
    c, f = cut.counters, full.counters
    return {
        "wall_cut_s": t_cut,
        "wall_full_s": t_full,
        "skipped_waves": sum(k.waves_extrapolated for k in cut.kernels),
        "waves": sum(k.waves for k in cut.kernels),
        "runtime_err": cut.runtime_s / full.runtime_s - 1,
        "dram_read_err": c.dram_read_bytes / f.dram_read_bytes - 1 if f.dram_read_bytes else 0,
        "dram_write_err": c.dram_write_bytes / f.dram_write_bytes - 1 if f.dram_write_bytes else 0,
        "exact_work": (c.ctas, c.mma_flops, c.global_read_bytes, c.global_write_bytes)
        == (f.ctas, f.mma_flops, f.global_read_bytes, f.global_write_bytes),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="five of the cases")
    args = ap.parse_args()
    cases = [CASES[i] for i in QUICK] if args.quick else CASES
    print(f"{'case':40} {'profile':15} {'waves':>7} {'skipped':>7} {'cut s':>6} {'full s':>6} "
          f"{'ratio':>6} {'runtime':>8} {'DRAM rd':>8} {'DRAM wr':>8} work")  # fmt: skip
    worst = [0.0, 0.0]
    for case in cases:
        d = compare(case)
        worst[0] = max(worst[0], abs(d["runtime_err"]))
        worst[1] = max(worst[1], abs(d["dram_read_err"]), abs(d["dram_write_err"]))
        print(f"{case[0]:40} {case[4]:15.15} {d['waves']:7.1f} {d['skipped_waves']:7d} "
              f"{d['wall_cut_s']:6.2f} {d['wall_full_s']:6.2f} "
              f"{d['wall_full_s'] / d['wall_cut_s']:6.2f} {100 * d['runtime_err']:+7.3f}% "
              f"{100 * d['dram_read_err']:+7.3f}% {100 * d['dram_write_err']:+7.3f}% "
              f"{'exact' if d['exact_work'] else 'DIFFERS'}")  # fmt: skip
    print(f"worst: runtime {100 * worst[0]:.3f} %, DRAM bytes {100 * worst[1]:.3f} %")


if __name__ == "__main__":
    main()
