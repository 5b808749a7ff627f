"""Which of PyTorch's FlashAttention-2 forward kernels a run launches, by mangled name, and
where their SASS is committed.

The SM core model can replay a binary's loop (``--sass FILE --kernel NAME``) and the pipe model
can charge its instruction count (``--binary-timing counts``); both need the instance PyTorch's
dispatch picks for a run: its traits (:mod:`gpusim.validation.torch_flash_schedule`) and the
bool template arguments of ``flash_fwd_kernel`` / ``flash_fwd_splitkv_kernel`` (``Is_causal``,
``Is_even_MN`` and the rest, as ``flash_fwd_launch_template.h`` passes them;
:mod:`gpusim.reporting.torch_sass` checked these names against the kernels the sweeps'
profiler recorded). The SASS of the 16 bf16 d64/d128 instances (torch 2.11.0+cu130's
``libtorch_cuda.so``) and their registers are ``data/h200/2026-12-02_torch_flash_sass``.
"""

from __future__ import annotations

from typing import Any

from gpusim.data.layout import H200
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

SASS_DIR = H200 / "2026-12-02_torch_flash_sass"
SASS = SASS_DIR / "torch_flash_fwd.sass.gz"
RES_USAGE = SASS_DIR / "flash_res_usage.txt"


def _b(x: bool) -> str:
    return f"Lb{int(x)}E"


def torch_kernel(w: Workload, s: Schedule) -> str:
    """The mangled name of the FlashAttention-2 forward instance PyTorch runs for ``w`` under
    its schedule ``s`` (bf16, no dropout, window, alibi or softcap; flash_api.cpp's
    ``mha_fwd``: one query drops causal; packed GQA queries make the rows a group's)."""
    if w.dtype != "bf16":
        raise GpusimError(f"the committed SASS holds bf16 kernels only, not {w.dtype}")
    d = 64 if w.head_dim <= 64 else 128
    rows = w.seq_len_q * (w.heads // (w.heads_kv or w.heads)) if s.pack_gqa else w.seq_len_q
    causal = w.causal and w.seq_len_q > 1
    even_mn = rows % s.block_m == 0 and w.seq_len_k % s.block_n == 0
    traits = f"ILi{d}ELi{s.block_m}ELi{s.block_n}ELi{s.warps}E"
    head = (f"23Flash_fwd_kernel_traits{traits}Lb0ELb0EN7cutlass10bfloat16_tE"
            f"19Flash_kernel_traits{traits}S3_EE")  # fmt: skip
    if s.kv_splits > 1:
        bools = [causal, False, False, even_mn, True, False, True, False]
        kind = "24flash_fwd_splitkv_kernel"
    else:
        bools = [False, causal, False, False, even_mn, True, False, False]
        kind = "16flash_fwd_kernel"
    return f"_ZN13pytorch_flash{kind}I{head}{''.join(map(_b, bools))}EEvNS_16Flash_fwd_paramsE"


def replay_args(w: Workload, s: Schedule) -> dict[str, Any]:
    """``simulate``'s ``sass``, ``res_usage`` and ``kernel`` that replay the forward instance
    PyTorch launches for ``w`` under ``s`` (:func:`torch_kernel`)."""
    return {"sass": SASS, "res_usage": RES_USAGE, "kernel": torch_kernel(w, s)}
