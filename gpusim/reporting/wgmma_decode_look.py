"""A look behind wgmma decode set 2's unexplained runs (diagnostic: judges nothing, feeds no
profile): the d64 one-warpgroup grouped-head decodes ran 1.5x the model's time where the d128
ones with twice the tile were right.

    python -m gpusim.reporting.wgmma_decode_look time --out FILE [--cubin-dir DIR]   (GPU)
    python -m gpusim.reporting.wgmma_decode_look one --index I [--cubin-dir DIR]    (GPU, for ncu)

``time``: one grouped-head decode workload per head dim (d64 and d128; 32 query heads over 8,
1 query, 32k keys, 4 splits) with the one-warpgroup instance at Bc 64/128/192 and 2-4 stages,
CUDA-event medians after an L2 flush, as the sets time them; each row beside the model's
prediction for the same schedule. ``one``: a single launch of :data:`LOOK` entry I, for Nsight
Compute to profile.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.reporting.wgmma_decode_set import config_id, instance, schedule, workload

#: (dtype, d, batch, heads, heads_kv, seq_q, seq_k, causal, block_n, stages, warpgroups, splits)
LOOK: tuple[tuple, ...] = tuple(
    ("bf16", d, 8, 32, 8, 1, 32768, False, bc, st, 1, 4)
    for d, tiles in ((64, ((64, 2), (128, 2), (128, 3), (128, 4), (192, 2))),
                     (128, ((64, 2), (128, 2), (128, 3))))
    for bc, st in tiles
)  # fmt: skip


def _launch(runner: Any, cp: Any, c: tuple, seed: int):
    from gpusim.kernels.wgmma_bench import inputs

    dtype, d, b, h, hkv, nq, nk, causal, *_ = c
    (q, k, v), _ = inputs(cp, (b, h, nq, d), (b, hkv, nk, d), dtype, seed)
    out = cp.empty_like(q)
    return runner.prepare(instance(c), q, k, v, out, causal, c[-1])


def time_all(out: Path, cubin_dir: str | None) -> None:
    import cupy as cp

    from gpusim.api import simulate
    from gpusim.kernels.measurement_provenance import provenance
    from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES, time_launches
    from gpusim.kernels.wgmma_runner import WgmmaRunner
    from gpusim.profiles.loader import load_profile

    runner = WgmmaRunner(cubin_dir, by_value=True)
    flush = cp.empty(L2_FLUSH_BYTES, dtype=cp.uint8)
    card = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    hw = load_profile("h100-sxm5" if "H100" in card else "h200-sxm")
    doc: dict[str, Any] = {"provenance": provenance(cp), "profile": hw.name, "rows": []}
    for n, c in enumerate(LOOK):
        row: dict[str, Any] = {"id": config_id(c), "instance": instance(c).key}
        try:
            launch = _launch(runner, cp, c, 2000 + n)
            times = time_launches(cp, launch, 20, 3, flush)
            row["median_s"] = statistics.median(times)
            row["attributes"] = runner.attributes(instance(c))
        except Exception as exc:
            row["error"] = str(exc)[:300]
        row["model_s"] = simulate("flash2", workload(c), schedule(c), hw).runtime_s
        doc["rows"].append(row)
        atomic.write_text(out, json.dumps(doc, indent=1))
        print(json.dumps(row), flush=True)


def one(index: int, cubin_dir: str | None) -> None:
    import cupy as cp

    from gpusim.kernels.wgmma_runner import WgmmaRunner

    launch = _launch(WgmmaRunner(cubin_dir, by_value=True), cp, LOOK[index], 3000 + index)
    launch()
    cp.cuda.Device().synchronize()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m gpusim.reporting.wgmma_decode_look")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("time")
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--cubin-dir")
    p = sub.add_parser("one")
    p.add_argument("--index", type=int, required=True)
    p.add_argument("--cubin-dir")
    a = ap.parse_args(argv)
    if a.cmd == "one" and not 0 <= a.index < len(LOOK):
        ap.error(f"--index must be 0..{len(LOOK) - 1}")
    if a.cmd == "time":
        time_all(a.out, a.cubin_dir)
    else:
        one(a.index, a.cubin_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
