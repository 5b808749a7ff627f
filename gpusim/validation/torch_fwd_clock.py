"""The SM clock and power while PyTorch's FlashAttention-2 forward runs under the timing
protocol, at the paper sweep's non-causal lengths (GPU; a diagnostic, nothing reads it).

    python3 -m gpusim.validation.torch_fwd_clock --out FILE

On the H100 the paper sweep's non-causal forwards (one grid: batch x length 16k tokens, the
same CTAs at every length) reach 361 TFLOP/s at 4096 tokens (d128) and fall to 349 at 8192
and 331 at 16384, where the model stays at 369-372 (reports/paper_sweep_measured: -2 %, -6 %,
-11 %). The CTAs are the same; what grows is each CTA's loop and the kernel's duration (1.5 to
6.6 ms). This asks whether the SM clock falls with it: each shape runs the timing harness's
protocol (a 256 MB L2 flush, then the forward, synchronized) for about two seconds while
nvidia-smi is sampled every 20 ms, and each forward's CUDA-event time is kept. A clock seen to
fall here would be a mechanism to measure without attention code (``load_clock``'s long
launches) and to judge on a new set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

#: (batch, heads, seq_len, head_dim): the paper sweep's non-causal fp16 runs at 4k-16k tokens
SHAPES = tuple((16384 // n, 2048 // d, n, d) for d in (128, 64) for n in (4096, 8192, 16384))
FLUSH_BYTES = 256 << 20


def under_protocol(one, times_ms: list[float], seconds: float) -> dict:
    """Run ``one()`` (a timed call that appends its CUDA-event ms to ``times_ms``) three times
    to warm up, idle a second as the harness does, then for ``seconds`` while nvidia-smi is
    sampled every 20 ms: the calls' times and the samples' SM clock and power."""
    from gpusim.calibrate.clocks import SmiSampler

    for _ in range(3):
        one()
    times_ms.clear()
    time.sleep(1.0)  # the harness's idle second before a run
    with SmiSampler(period_ms=20) as smi:
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            one()
    clocks = [float(s["clocks.sm"]) for _t, s in smi.samples if s.get("clocks.sm")]
    power = [float(s["power.draw"]) for _t, s in smi.samples if s.get("power.draw")]
    first20 = times_ms[:20]
    return {
        "calls": len(times_ms),
        "ms_median_first20": statistics.median(first20) if first20 else None,
        "ms_median_all": statistics.median(times_ms) if times_ms else None,
        "ms": times_ms,
        "sm_clock_mhz_median": statistics.median(clocks) if clocks else None,
        "sm_clock_mhz_min": min(clocks, default=None),
        "power_w_median": statistics.median(power) if power else None,
        "samples": [s for _t, s in smi.samples],
        "error": smi.error,
    }


def measure_shape(b: int, h: int, n: int, d: int, seconds: float) -> dict:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times_ms: list[float] = []

    def one() -> None:
        flush.zero_()
        start.record()
        torch.nn.functional.scaled_dot_product_attention(q, k, v)
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))

    with sdpa_kernel(SDPBackend.FLASH_ATTENTION), torch.no_grad():
        got = under_protocol(one, times_ms, seconds)
    # this record's names for the times (data/h100/2026-12-07_torch_fwd_clock)
    times = {f"fwd_{k}": got.pop(k) for k in ("ms_median_first20", "ms_median_all", "ms")}
    shape = {"batch": b, "heads": h, "seq_len": n, "head_dim": d, "dtype": "fp16"}
    calls = got.pop("calls")
    return {"shape": shape, "calls": calls, **times, **got}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args(argv)
    import torch

    rows = []
    for shape in SHAPES:
        row = measure_shape(*shape, a.seconds)
        rows.append(row)
        print(f"{shape}: {row['calls']} calls, fwd {row['fwd_ms_median_first20']:.3f} ms, "
              f"SM clock {row['sm_clock_mhz_median']} MHz (min {row['sm_clock_mhz_min']}), "
              f"power {row['power_w_median']} W", flush=True)  # fmt: skip
    doc = {"kind": "gpusim.torch_fwd_clock", "gpu": torch.cuda.get_device_name(0),
           "torch": torch.__version__, "rows": rows}  # fmt: skip
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
