"""How many bytes of code the FlashAttention-2 forward kernel PyTorch launches has.

The record (``python -m gpusim.validation.torch_code_sizes`` on the GPU machine: every
``pytorch_flash`` function of torch 2.11.0+cu130's ``libtorch_cuda.so`` with its size from
the cubins' ELF symbol tables) is read by the instance's template arguments: the traits
(head size, Br, Bc, warps), the element type, and the bools PyTorch's dispatch passes
(``Is_causal``, ``Is_even_MN``, ``Is_even_K``; the split kernel where it splits the keys).
With :data:`CODE_FETCH` on, :func:`with_code_fetch` charges PyTorch's forward schedule its
kernel's code once per CTA as straight-line code, at the cost ``python -m gpusim.calibrate.
icache`` measured for code of that length with the SM's CTAs in step (``straight``; the
CTAs each at its own place, ``rotated``, overshoots the seen short runs by 25-47 %:
``reports/torch_icache_look``): ``L s / (1 - s)`` warp-instructions a warp, ``L`` the
kernel's instructions, ``s`` the share of issue slots such code loses against a cached loop,
on the issue lane as the schedule's ``cta_issue_per_warp``. Held-out set 46 adopted it.

A leaf of gpusim.validation: importable on the GPU machine (no simpy or pydantic).
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from gpusim.curves import share_at
from gpusim.data.layout import DATA_DIR
from gpusim.errors import GpusimError
from gpusim.mechanism import Mechanism

if TYPE_CHECKING:
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

RECORD = DATA_DIR / "h100" / "2026-12-07_torch_code_sizes/torch_code_sizes.json"
ICACHE = DATA_DIR / "h100" / "2026-12-07_icache_rotated/icache.json"
#: on since held-out set 46 adopted it (PyTorch's forward on short grids 15.7 -> 12.7 % MAPE,
#: an H100); off: the sets predicted before it
CODE_FETCH = Mechanism(True)
#: code shorter than this runs a few microseconds a launch in the record: launch and ramp
MIN_INSTRUCTIONS = 1024

_NAME = re.compile(
    r"^_ZN13pytorch_flash(?P<kind>16flash_fwd_kernel|24flash_fwd_splitkv_kernel)"
    r"I23Flash_fwd_kernel_traitsILi(?P<d>\d+)ELi(?P<m>\d+)ELi(?P<n>\d+)ELi(?P<w>\d+)E"
    r"Lb[01]ELb[01]EN7cutlass(?P<elem>10bfloat16_t|6half_t)E.*?S3_EE(?P<bools>(?:Lb[01]E)+)"
    r"EEvNS_16Flash_fwd_paramsE$"
)
_ELEM = {"10bfloat16_t": "bf16", "6half_t": "fp16"}


def instance_key(name: str) -> tuple | None:
    """``(split, head_dim, Br, Bc, warps, dtype, causal, even_mn, even_k)`` of a forward
    kernel's mangled name; None for any other function (the backward's, the combine)."""
    m = _NAME.match(name)
    if m is None:
        return None
    bools = [b == "1" for b in re.findall(r"Lb([01])E", m["bools"])]
    split = m["kind"].startswith("24")
    if split:  # Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap, Split,
        # Append_KV (mha_fwd's split kernels: Split true, no K/V appended)
        if len(bools) != 8 or bools[1] or bools[2] or bools[5] or not bools[6] or bools[7]:
            return None
        causal, even_mn, even_k = bools[0], bools[3], bools[4]
    else:  # Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, Is_softcap, ...
        if len(bools) != 8 or bools[0] or bools[2] or bools[3] or bools[6] or bools[7]:
            return None
        causal, even_mn, even_k = bools[1], bools[4], bools[5]
    return (split, int(m["d"]), int(m["m"]), int(m["n"]), int(m["w"]), _ELEM[m["elem"]],
            causal, even_mn, even_k)  # fmt: skip


@cache
def _table(path: str) -> dict[tuple, int]:
    try:
        sizes = json.loads(Path(path).read_text())["code_bytes"]
    except (OSError, ValueError, KeyError) as e:
        raise GpusimError(f"cannot read the kernels' code sizes {path}: {e}") from None
    table: dict[tuple, set[int]] = {}
    for name, size in sizes.items():
        key = instance_key(name)
        if key is not None:
            table.setdefault(key, set()).add(int(size))
    # the traits' two smem-layout flags never differ among sm90's instances of one key; if
    # they did, the key would be ambiguous and is left out
    return {k: v.pop() for k, v in table.items() if len(v) == 1}


def kernel_code_bytes(asked: Workload, s: Schedule, path: str = str(RECORD)) -> int:
    """Code bytes of the forward instance PyTorch launches for ``asked`` (the workload at
    the head size the user gave) under its schedule ``s``."""
    from gpusim.validation.torch_head_buckets import binary_head_dim

    d = binary_head_dim(asked.head_dim)
    rows = asked.seq_len_q * asked.group_size if s.pack_gqa else asked.seq_len_q
    causal = asked.causal and asked.seq_len_q > 1
    even_k = d == asked.head_dim
    # the launch template passes Is_even_MN only with Is_even_K and a head size up to 128
    # (flash_fwd_launch_template.h); the library has no even-MN instance above d128
    even_mn = rows % s.block_m == 0 and asked.seq_len_k % s.block_n == 0 and even_k and d <= 128
    key = (s.kv_splits > 1, d, s.block_m, s.block_n, s.warps, asked.dtype, causal, even_mn, even_k)
    size = _table(path).get(key)
    if size is None:
        raise GpusimError(f"no kernel of the code-size record {path} for {key}")
    return size


def code_fetch(on: bool):
    """PyTorch's forward schedules with (``on``) or without their code's fetch charged."""
    return CODE_FETCH.setting(on)


def lost_share_curve(record: dict, variant: str) -> list[tuple[float, float]]:
    """``[(code bytes, share of issue slots lost), ...]`` of the icache record's ``variant``
    (``straight`` or ``rotated``): ``1 - loop_ns / variant_ns``, 0 where the straight code is
    the faster, never falling with length."""
    out, best = [], 0.0
    for r in sorted(record["rows"], key=lambda r: r["instructions"]):
        if r["instructions"] >= MIN_INSTRUCTIONS:
            best = max(best, 1.0 - r["loop_ns"] / r[f"{variant}_ns"])
            out.append((16.0 * r["instructions"], best))
    return out


def charge_per_warp(code_bytes: int, curve) -> float:
    """Warp-instructions a warp issues more once per CTA for ``code_bytes`` run straight."""
    s = share_at(curve, float(code_bytes))
    return code_bytes / 16 * s / (1.0 - s)


@cache
def _straight_curve(path: str) -> tuple:
    return tuple(lost_share_curve(json.loads(Path(path).read_text()), "straight"))


def with_code_fetch(asked: Workload, s: Schedule) -> Schedule:
    """``s`` with its kernel's code fetch charged once per CTA where :data:`CODE_FETCH` is
    on (added to any ``cta_issue_per_warp`` it has)."""
    if not CODE_FETCH.on:
        return s
    charge = charge_per_warp(kernel_code_bytes(asked, s), _straight_curve(str(ICACHE)))
    return s.model_copy(update={"cta_issue_per_warp": (s.cta_issue_per_warp or 0.0) + charge})


def charged_schedule(asked: Workload, sm_count: int = 132) -> Schedule:
    """PyTorch's forward schedule as the model gives it now: its tiles and splits for the
    head size its binary runs, the step as nvcc compiles it, and its code's fetch charged
    once per CTA where :data:`CODE_FETCH` is on."""
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule
    from gpusim.validation.torch_head_buckets import executed

    return with_code_fetch(asked, torch_flash_schedule(executed(asked), sm_count))
