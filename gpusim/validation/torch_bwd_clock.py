"""The SM clock and power while PyTorch's FlashAttention-2 backward runs under the timing
protocol (GPU; a diagnostic, nothing reads it).

    python3 -m gpusim.validation.torch_bwd_clock --out FILE

Held-out set 38 left the described backward 8-23 % fast on every run, and even the binary's
own instruction count leaves the pipe model 6-19 % fast. The backward's main kernel holds 255
registers a thread and keeps the tensor cores busier than the forward; if it draws the card
to its power cap and the SM clock falls below the clock the profile times it at, that is part
of the gap. Each shape runs the backward's protocol (a 256 MB L2 flush, then ``backward``,
synchronized) for about two seconds while nvidia-smi is sampled every 20 ms, its forward the
same way beside it; each call's CUDA-event time is kept. A clock seen to fall here is a
mechanism to measure without attention code and to judge on a new set.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

#: (batch, heads, seq_len, head_dim): the paper sweep's non-causal bf16 shapes, 4k and 16k
SHAPES = tuple((16384 // n, 2048 // d, n, d) for d in (64, 128) for n in (4096, 16384))
FLUSH_BYTES = 256 << 20


def measure(b: int, h: int, n: int, d: int, pass_: str, seconds: float) -> dict:
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    from gpusim.validation.torch_fwd_clock import under_protocol

    def rand():
        return torch.randn(b, h, n, d, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    q, k, v = rand(), rand(), rand()
    flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times_ms: list[float] = []
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        d_out = torch.randn_like(out)

        def one() -> None:
            q.grad = k.grad = v.grad = None
            flush.zero_()
            start.record()
            if pass_ == "bwd":
                out.backward(d_out, retain_graph=True)
            else:
                with torch.no_grad():
                    torch.nn.functional.scaled_dot_product_attention(q, k, v)
            end.record()
            end.synchronize()
            times_ms.append(start.elapsed_time(end))

        got = under_protocol(one, times_ms, seconds)
    shape = {"batch": b, "heads": h, "seq_len": n, "head_dim": d, "dtype": "bf16"}
    return {"shape": shape, "pass": pass_, **got}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seconds", type=float, default=2.0)
    a = ap.parse_args(argv)
    import torch

    rows = []
    for shape in SHAPES:
        for pass_ in ("bwd", "fwd"):
            row = measure(*shape, pass_, a.seconds)
            rows.append(row)
            print(f"{shape} {pass_}: {row['calls']} calls, {row['ms_median_first20']:.3f} ms, "
                  f"SM clock {row['sm_clock_mhz_median']} MHz (min {row['sm_clock_mhz_min']}), "
                  f"power {row['power_w_median']} W", flush=True)  # fmt: skip
    doc = {"kind": "gpusim.torch_bwd_clock", "gpu": torch.cuda.get_device_name(0),
           "torch": torch.__version__, "rows": rows}  # fmt: skip
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
