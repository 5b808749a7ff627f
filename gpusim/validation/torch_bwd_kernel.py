"""Which of PyTorch's FlashAttention-2 backward kernels a run launches, by mangled name.

The SM core model can replay a binary's loop (``--sass FILE --kernel NAME``); to replay the
backward PyTorch runs, it needs the instance its dispatch picks. ``run_mha_bwd`` picks the
traits by head dim and shared memory
(:func:`gpusim.validation.torch_flash_bwd_schedule.bwd_traits`) and the kernel's bool
template arguments ``<Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K,
Is_softcap>`` from the call (``run_flash_bwd_seqk_parallel`` in ``flash_bwd_launch_template.h``,
the commits that module cites): ``Is_even_MN`` when no sequence is variable-length, both
lengths divide by the tile (``seqlen_q % kBlockM``, ``seqlen_k % kBlockN``) and the head dim
is at most 128 (the launch passes ``IsEvenMNConst && IsEvenKConst && !Is_local &&
kHeadDim <= 128``); ``Is_even_K`` when the head dim equals its rounded size. Nsight Compute
saw exactly these instances on held-out set 15's d64, d128 and d256 runs
(``data/h200/2026-12-05_torch_bwd_ncu``). The SASS of the 20 instances an H200 runs without
dropout, ALiBi, softcap or a local window is ``data/h200/2026-12-05_torch_flash_bwd_sass``.
"""

from __future__ import annotations

import re
from pathlib import Path

from gpusim.errors import GpusimError
from gpusim.validation.torch_flash_bwd_schedule import bwd_head_dim_bucket, bwd_traits

#: The committed SASS of the backward instances and their registers (see the docstring).
SASS_DIR = Path(__file__).parents[2] / "data" / "h200" / "2026-12-05_torch_flash_bwd_sass"
SASS = SASS_DIR / "torch_flash_bwd.sass.gz"
RES_USAGE = SASS_DIR / "res_usage_bwd.txt"
KERNEL = "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"
MANGLED_ELEMENT = {"bf16": "10bfloat16_t", "fp16": "6half_t"}


def flags(head_dim: int, seq_len_q: int, seq_len_k: int, causal: bool) -> tuple[int, ...]:
    """``<Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap>``."""
    t = bwd_traits(bwd_head_dim_bucket(head_dim))
    even_mn = seq_len_q % t.block_m == 0 and seq_len_k % t.block_n == 0 and t.head_dim <= 128
    even_k = head_dim == t.head_dim
    return (0, int(causal), 0, 0, int(even_mn), int(even_k), 0)


def mangled_pattern(head_dim: int, dtype: str, seq_len_q: int, seq_len_k: int, causal: bool) -> str:
    """The part of the instance's mangled name that singles it out: traits, element, flags."""
    if dtype not in MANGLED_ELEMENT:
        raise GpusimError(f"PyTorch's flash backward runs bf16 and fp16, not {dtype}")
    t = bwd_traits(bwd_head_dim_bucket(head_dim))
    ints = (t.head_dim, t.block_m, t.block_n, t.warps, t.atom_msdp, t.atom_ndkv, t.atom_mdq)
    traits = "".join(f"Li{x}E" for x in ints) + f"Lb{int(t.v_in_regs)}ELb{int(t.no_double_buffer)}E"
    tail = "".join(f"Lb{f}E" for f in flags(head_dim, seq_len_q, seq_len_k, causal))
    element = f"N7cutlass{MANGLED_ELEMENT[dtype]}E"
    return f"{KERNEL}I23Flash_bwd_kernel_traitsI{traits}{element}.*E{tail}EEv"


def kernel_name(
    names: list[str], head_dim: int, dtype: str, seq_len_q: int, seq_len_k: int, causal: bool
) -> str:
    """The one name of ``names`` (a SASS dump's functions) that the run launches."""
    pat = re.compile(mangled_pattern(head_dim, dtype, seq_len_q, seq_len_k, causal))
    hits = [n for n in names if pat.search(n)]
    if len(hits) != 1:
        raise GpusimError(
            f"{len(hits)} backward instances match d{head_dim} {dtype} Nq{seq_len_q} "
            f"Nk{seq_len_k} causal={causal} (one expected)"
        )
    return hits[0]


def main(argv: list[str] | None = None) -> int:
    """Print the mangled name of the instance a run launches (for ``--kernel``)."""
    import argparse
    import sys

    from gpusim.kernel_catalog.binary_sass import functions, read_text

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--head-dim", type=int, required=True)
    ap.add_argument("--dtype", choices=sorted(MANGLED_ELEMENT), default="bf16")
    ap.add_argument("--seq-len-q", type=int, required=True)
    ap.add_argument("--seq-len-k", type=int)
    ap.add_argument("--causal", action="store_true")
    a = ap.parse_args(argv)
    try:
        names = sorted(functions(read_text(SASS)))
        print(kernel_name(names, a.head_dim, a.dtype, a.seq_len_q, a.seq_len_k or a.seq_len_q,
                          a.causal))  # fmt: skip
    except GpusimError as e:
        print(f"torch_bwd_kernel: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
