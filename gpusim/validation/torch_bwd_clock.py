"""The SM clock and power while PyTorch's FlashAttention-2 backward runs back to back (GPU).

    python3 -m gpusim.validation.torch_bwd_clock --out FILE

A diagnostic of held-out set 15 (the model's backward 13-26 % fast on every run): whether the
SM clock under the backward's load sits below the clock the engine times tensor-core kernels
at (``sm_clock_stream_load_hz``, 1792 MHz on the H200, measured with no attention code). It
samples nvidia-smi every 50 ms while one of the set's shapes (bf16 d128 B4 H16 N4096, and the
forward beside it) runs for about 3 s each, and writes the samples. Nothing reads the file: a
clock seen here would be a mechanism to measure without attention code and judge on a new set.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path


def _run(fn, seconds: float) -> int:
    import torch

    n, t0 = 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        fn()
        n += 1
        if n % 10 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return n


def measure(seconds: float = 3.0) -> dict:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from gpusim.calibrate.clocks import SmiSampler

    b, h, n, d = 4, 16, 4096, 128
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)
               for _ in range(3))  # fmt: skip
    do = torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16)
    out: dict = {"shape": {"batch": b, "heads": h, "seq_len": n, "head_dim": d, "dtype": "bf16"}}
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        o = torch.nn.functional.scaled_dot_product_attention(q, k, v)

        def bwd():
            q.grad = k.grad = v.grad = None
            o.backward(do, retain_graph=True)

        def fwd():
            with torch.no_grad():
                torch.nn.functional.scaled_dot_product_attention(q, k, v)

        for name, fn in (("backward", bwd), ("forward", fwd)):
            _run(fn, 0.5)  # warm
            with SmiSampler(period_ms=50) as smi:
                calls = _run(fn, seconds)
            clocks = [float(s["clocks.sm"]) for _t, s in smi.samples if s.get("clocks.sm")]
            power = [float(s["power.draw"]) for _t, s in smi.samples if s.get("power.draw")]
            out[name] = {
                "calls": calls,
                "samples": len(clocks),
                "sm_clock_mhz_median": statistics.median(clocks) if clocks else None,
                "sm_clock_mhz_min": min(clocks, default=None),
                "power_w_median": statistics.median(power) if power else None,
                "raw": [s for _t, s in smi.samples],
                "error": smi.error,
            }
            print(f"{name}: {calls} calls, SM clock median {out[name]['sm_clock_mhz_median']} MHz"
                  f", power {out[name]['power_w_median']} W", flush=True)  # fmt: skip
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seconds", type=float, default=3.0)
    a = ap.parse_args(argv)
    a.out.write_text(json.dumps(measure(a.seconds), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
