"""The SM clock of short wgmma bursts with an L2 flush between them, as a benchmark runs.

``sustained_clock`` (wgmma.py) reads the clock after seconds of back-to-back products:
1620 MHz on the H200, against 1980 MHz idle. A benchmark that times ms-long kernels, each
after a 256 MB L2 flush, may run at neither. This measures the clock of the same product
loop (m64n256k16 bf16, 2 warpgroups per SM, all SMs) in launches of 0.25, 1 and 4 ms, each
after the flush, 20 repeats: the clock from every block's clock64/%globaltimer stamps, the
time from CUDA events. It shares no code with any attention kernel.

    python -m gpusim.calibrate.wgmma_burst --cubin wgmma.cubin --out wgmma-burst-h200.json
    python -m gpusim.calibrate.wgmma_burst --record RECORD.json --profile PROFILE.yaml
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

from gpusim.calibrate.clocks import clock_hz_from_stamps
from gpusim.calibrate.context import import_cupy, make_context
from gpusim.calibrate.profile_patch import set_after
from gpusim.calibrate.wgmma import Bench, U, _flop, _smem, tput_name

FLUSH_BYTES = 256 * 1024 * 1024
TARGETS_S = (2.5e-4, 1e-3, 4e-3)


def burst_clock(b: Bench, repeats: int = 20) -> list[dict[str, Any]]:
    cp, ctx = b.cp, b.ctx
    n, groups = 256, 2
    smem = _smem(n, groups)
    f = b.fn(tput_name(n, 1, 0, 1, 0), smem)
    grid = ctx.sm_count
    stamps = cp.zeros(4 * grid, dtype=cp.uint64)
    flush = cp.empty(FLUSH_BYTES, dtype=cp.uint8)

    def launch(it: int) -> None:
        args = (b.init["bf16"], np.int32(b.words), np.int32(it), np.int32(0b0101), np.int32(1))
        f((grid,), (128 * groups,), (*args, b.out, stamps), shared_mem=smem)

    launch(100)
    cp.cuda.Device().synchronize()
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch(2000)
    end.record()
    end.synchronize()
    per_iter_s = cp.cuda.get_elapsed_time(start, end) / 1e3 / 2000
    rows = []
    for target in TARGETS_S:
        iters = max(1, int(target / per_iter_s))
        times, clocks = [], []
        time.sleep(0.5)  # let the clock recover from the previous target's bursts
        for r in range(repeats):
            flush.fill(r & 0xFF)
            start.record()
            launch(iters)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, end) / 1e3)
            clocks.append(clock_hz_from_stamps(stamps.get().tolist(), min_ns=50_000)["median_hz"])
        flop = iters * groups * U * _flop(n) * grid
        t = statistics.median(times)
        row = {
            "target_s": target,
            "iters": iters,
            "time_s": t,
            "times_s": times,
            "clock_hz": statistics.median(clocks),
            "clock_first_hz": clocks[0],
            "clocks_hz": clocks,
            "flops_per_s": flop / t,
        }
        rows.append(row)
        ctx.log(
            f"burst {target * 1e3:.2f} ms x {repeats} after a flush: clock "
            f"{row['clock_hz'] / 1e6:.0f} MHz (first {clocks[0] / 1e6:.0f}), "
            f"{row['flops_per_s'] / 1e12:.0f} TFLOP/s"
        )
    return rows


FIELD = "sm_clock_wgmma_burst_hz"
#: Where the field goes in a profile: after the sustained clock.
_AFTER = "sm_clock_wgmma_load_hz"


def profile_entry(record: dict[str, Any], record_path: str) -> dict[str, Any]:
    """``sm_clock_wgmma_burst_hz``: the median clock over every burst of every length."""
    clocks = [c for b in record["bursts"] for c in b["clocks_hz"]]
    each = ", ".join(
        f"{b['target_s'] * 1e3:g} ms {b['clock_hz'] / 1e6:.0f} MHz" for b in record["bursts"]
    )
    return {
        "value": round(statistics.median(clocks), -6),
        "source": f"measured on {record['gpu']}, {record['date']}, python -m "
        f"gpusim.calibrate.wgmma_burst ({record_path})",
        "note": f"median of {len(clocks)} launches of m64n256k16 bf16 products on every SM, "
        f"each after a 256 MB L2 flush, by burst length: {each}",
    }


def apply(profile_text: str, record: dict[str, Any], record_path: str) -> str:
    """``profile_text`` with the burst clock set (after the sustained clock), a header line
    naming the record."""
    entry = {FIELD: profile_entry(record, record_path)}
    try:
        return set_after(profile_text, _AFTER, entry, f"# wgmma burst clock: {record_path}")
    except ValueError as exc:
        raise ValueError(f"{exc}: record the wgmma run first") from None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cubin", help="measure: the prebuilt sm_90a cubin of kernels/wgmma.cu")
    ap.add_argument("--out", type=Path, help="measure: the JSON to write")
    ap.add_argument("--record", type=Path, help="record: a run's JSON to set in --profile")
    ap.add_argument("--profile", type=Path, help="record: the profile YAML to update")
    a = ap.parse_args(argv)
    if a.record is not None:
        from gpusim import atomic

        if a.profile is None:
            ap.error("--record needs --profile")
        text = apply(a.profile.read_text(), json.loads(a.record.read_text()), str(a.record))
        atomic.write_text(a.profile, text)
        return 0
    if a.cubin is None or a.out is None:
        ap.error("measuring needs --cubin and --out")
    ctx = make_context(import_cupy())
    b = Bench(ctx, Path(a.cubin))
    doc = {"gpu": ctx.gpu_name, "date": ctx.date, "sm_count": ctx.sm_count}
    doc["bursts"] = burst_clock(b)
    a.out.write_text(json.dumps(doc, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
