"""The FlashAttention-2 backward kernels whose SASS to dump from ``libtorch_cuda.so``.

    python3 -m gpusim.validation.torch_bwd_sass_pick RES_USAGE_FILE   # prints NAME,NAME,...

PyTorch's flash backend runs ``flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel`` on the H200
with the tiles :mod:`gpusim.validation.torch_flash_bwd_schedule` names (the traits Nsight
Compute showed on held-out set 15's runs: ``<64,128,128,8,4,4,4>`` at d64,
``<128,64,128,8,2,4,2>`` at d128, ``<256,64,64,8,4,2,2>`` at d256, V not in registers,
double-buffered). Of the mangled names in ``cuobjdump -res-usage``'s lines (committed in
``data/h200/2026-12-02_torch_flash_sass/flash_res_usage.txt``) this keeps those traits in
bf16 and fp16 with no dropout, no local window, no ALiBi, no softcap and ``Is_even_K``:
causal or not, ``Is_even_MN`` or not (20 functions).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

#: (head dim, block m, block n, warps, AtomLayoutMSdP, AtomLayoutNdKV, AtomLayoutMdQ)
TRAITS = ((64, 128, 128, 8, 4, 4, 4), (128, 64, 128, 8, 2, 4, 2), (256, 64, 64, 8, 4, 2, 2))
KERNEL = "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"
_FLAGS = re.compile(r"EELb([01])ELb([01])ELb([01])ELb([01])ELb([01])ELb([01])ELb([01])EEEv")


def traits_text(t: tuple[int, ...]) -> str:
    """How ``Flash_bwd_kernel_traits<...>`` with V in shared memory and double buffering
    is mangled."""
    return "Flash_bwd_kernel_traitsI" + "".join(f"Li{x}E" for x in t) + "Lb0ELb0E"


def picked(text: str) -> list[str]:
    """The wanted functions' mangled names in ``text`` (res-usage lines), sorted."""
    out = []
    for name in sorted(set(re.findall(r"_ZN13pytorch_flash\w+", text))):
        if KERNEL not in name or not any(traits_text(t) in name for t in TRAITS):
            continue
        m = _FLAGS.search(name)
        if m is None:
            continue
        dropout, _causal, local, alibi, _even_mn, even_k, softcap = m.groups()
        if (dropout, local, alibi, even_k, softcap) == ("0", "0", "0", "1", "0"):
            out.append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: torch_bwd_sass_pick RES_USAGE_FILE", file=sys.stderr)
        return 2
    names = picked(Path(argv[0]).read_text())
    print(",".join(names))
    print(f"{len(names)} backward kernels picked", file=sys.stderr)
    return 0 if names else 1


if __name__ == "__main__":
    raise SystemExit(main())
