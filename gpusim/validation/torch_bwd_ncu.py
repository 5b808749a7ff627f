"""Where PyTorch's FlashAttention-2 backward (or forward) spends its cycles: one launch under
Nsight Compute.

    python3 -m gpusim.validation.torch_bwd_ncu --run B H HKV N D DTYPE CAUSAL   # the driver
    bash gpusim/validation/run_red_mma_bwd_ncu_device.sh                       # on the GPU
    bash gpusim/validation/run_torch_fwd_ncu_device.sh                         # the forward

A diagnostic, not a judged set: held-out set 15 found the model's backward 13-26 % fast on
every run, and at 1980 MHz the kernel spends about 1.4 times the SM cycles per step the
described step gives it. This driver runs one forward and one backward of
``scaled_dot_product_attention`` (flash backend, random inputs) so that ``ncu`` can profile
the backward's main kernel (``flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel``) once; the
script asks for its sections of instruction mix, pipe use, warp stalls, occupancy and
memory (local memory too: the kernel's 255 registers and 8-80 bytes of stack). What the
counts suggest is a lead; a mechanism built from it is judged on a set other than 15.
``--forward-only`` runs the forward alone, for its kernel (``flash_fwd_kernel``). Torch is
imported in :func:`main` only; nothing here needs pydantic or simpy.
"""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--run", nargs=7, required=True,
                    metavar=("B", "H", "HKV", "N", "D", "DTYPE", "CAUSAL"))  # fmt: skip
    ap.add_argument("--forward-only", action="store_true",
                    help="run the forward alone (no gradients), for its kernel")  # fmt: skip
    a = ap.parse_args(argv)
    b, h, hkv, n, d = (int(x) for x in a.run[:5])
    dtype, causal = a.run[5], a.run[6] in ("1", "true", "True")
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    dt_ = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    torch.manual_seed(17)

    def leaf(heads: int):
        x = torch.randn(b, n, heads, d, dtype=dt_, device="cuda")
        return x.transpose(1, 2).requires_grad_()

    q, k, v = leaf(h), leaf(hkv), leaf(hkv)
    kw = {"is_causal": causal, **({"enable_gqa": True} if hkv != h else {})}
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        if a.forward_only:
            with torch.no_grad():
                out = torch.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
        else:
            out = torch.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
            out.backward(torch.randn_like(out))
    torch.cuda.synchronize()
    grads = () if a.forward_only else tuple(t.grad for t in (q, k, v))
    ok = all(bool(torch.isfinite(t).all()) for t in (out, *grads))
    print(f"torch_bwd_ncu: B{b} H{h}/{hkv} N{n} d{d} {dtype} causal={causal} finite={ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
