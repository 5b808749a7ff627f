"""The tiles PyTorch's flash backend runs the attention backward with on an H100/H200 (sm90).

``out.backward()`` after ``scaled_dot_product_attention`` on the flash backend runs
``mha_bwd`` of the FlashAttention-2 copy vendored in libtorch. Read from the sources (public
repositories, as stored for the search tool; each at the commit named):

- ``pytorch/pytorch`` ``aten/src/ATen/native/transformers/cuda/flash_attn/flash_api.cpp`` @
  ``03b7c19dbe228c9febd503755f723240945f8067`` (the commit the forward's
  :mod:`gpusim.validation.torch_flash_schedule` cites), ``mha_bwd``: head sizes a multiple of
  8 up to 256; ``dq_accum`` fp32 of ``batch x round(seqlen_q, 128) x heads x
  head_size_rounded``; with fewer K/V heads than query heads (GQA/MQA) the kernels write
  ``dk_expanded``/``dv_expanded`` per *query* head and ``at::sum_out`` adds each group into
  ``dk``/``dv`` afterwards (two reductions more); ``run_mha_bwd`` dispatches on dtype,
  ``HEADDIM_SWITCH(params.d)`` and ``BOOL_SWITCH(params.is_causal)`` to
  ``run_mha_bwd_<T, kHeadDim, Is_causal>``.
- the same folder's ``flash_bwd_launch_template.h`` @
  ``cb553e7d0041ed1d8a4d475b6fcf0c79208ca646`` (and @ ``08e43ed521ff6a77b1f9dc6f0512deb418ba1011``,
  an older one), and upstream ``Dao-AILab/flash-attention``
  ``csrc/flash_attn/src/flash_bwd_launch_template.h`` @
  ``073afd5931d6672ff4899429f83a881ff8182fe2`` (which has the ``Is_causal`` template
  argument of the newest PyTorch, whose own copy of this file is not in the store): the same
  ``Flash_bwd_kernel_traits<kHeadDim, kBlockM, kBlockN, kNWarps, AtomLayoutMSdP,
  AtomLayoutNdKV, AtomLayoutMdQ, Is_V_in_regs, No_double_buffer>`` in every branch that an
  H200 takes. ``run_mha_bwd_hdim{32..256}`` read ``cudaDevAttrMaxSharedMemoryPerBlockOptin``
  and test it against 104 KB (d 32), 144 KB (d 64, 128), 116 KB (d 96, 160), 136 KB (d 192),
  176 and 144 KB (d 256); :func:`bwd_traits` restates those branches. Causal does not change
  the tiles (it is a template flag of the kernel). ``run_flash_bwd_seqk_parallel`` launches
  ``flash_bwd_dot_do_o_kernel`` (grid ``(ceil(seqlen_q / kBlockM), b, h)``: rowsum(dO * O),
  and clears ``dq_accum``), then ``flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel`` (grid
  ``(ceil(seqlen_k / kBlockN), b, h)``, ``kNWarps * 32`` threads, ``kSmemSize1colblock``
  bytes of dynamic shared memory), then ``flash_bwd_convert_dq_kernel`` (grid as the first,
  ``kSmemdQSize`` bytes): dQ from fp32 to the storage type.
- ``pytorch/pytorch`` ``.../flash_attn/flash_bwd_kernel.h`` @
  ``7e2ec4256d68a7e9ed7b7c23c8214dd02abeaed0``, ``compute_dq_dk_dv_seqk_parallel``: one CTA
  per (key block ``n_block = blockIdx.x``, batch, query head); ``compute_dq_dk_dv_1colblock``
  keeps the block's K and V, walks the query blocks from the last one down to ``m_block_min``
  (0, or the diagonal's block when causal), accumulates dK and dV in registers and adds each
  query block's dQ into ``dq_accum`` with ``atomicAdd`` (fp32); Q and dO double-buffered in
  shared memory unless ``No_double_buffer``.
- ``.../flash_attn/kernel_traits.h`` @ ``00067369c9339bed950762afec327514d6fa2566``: the
  traits' shared memory, restated in :meth:`BwdTraits.smem_bytes`; each threshold above is
  exactly the shared memory of the kernel its branch picks.
- ``.../flash_attn/static_switch.h``: ``HEADDIM_SWITCH`` buckets. The stored versions
  (@ ``035290b77d8b4bd106cf5f9a728516d4335d5a42``) still have a 224 bucket (traits
  ``<224, 64, 64, 8, 4, 4, 4, false, false>``), but the newest PyTorch kernels folder (causal
  and non-causal files per head dim) has no causal backward for 224, and upstream dropped
  it: whether the build on the GPU machine has it is not settled here, so head dims 200 to
  224 are refused (:func:`bwd_head_dim_bucket`), and the forward module's buckets are used.

The H200's opt-in shared memory per block, 232448 bytes (227 KB), is the value its
``device__attribute_max_shared_memory_per_block_optin`` reads in
``data/h200/2026-11-30_validation_dram21/h200-dataset.json``: it passes every threshold.
Whether the torch on the GPU machine runs exactly this is checked there
(:mod:`gpusim.validation.torch_bwd_measure` records the kernels' names;
:func:`observed_bwd_tiles` reads the traits back from them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gpusim.errors import GpusimError

KB = 1024
#: ``cudaDevAttrMaxSharedMemoryPerBlockOptin`` on the H200 (see the module docstring).
H200_MAX_SMEM_PER_BLOCK_OPTIN = 232448
#: The head dims the backward dispatches on (``HEADDIM_SWITCH``, without the unsettled 224).
HEAD_DIM_BUCKETS = (32, 64, 96, 128, 160, 192, 256)
#: The kernels one backward launches, in order (``run_flash_bwd_seqk_parallel``).
KERNEL_SEQUENCE = (
    "flash_bwd_dot_do_o_kernel",
    "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel",
    "flash_bwd_convert_dq_kernel",
)
#: What ``mha_bwd`` runs after them when K/V heads are fewer than query heads.
GQA_REDUCTIONS = ("at::sum_out(dk)", "at::sum_out(dv)")
ELEMENT = {"bf16": "cutlass::bfloat16_t", "fp16": "cutlass::half_t"}
#: Bytes per element of Q, K, V, dO, P, dS in shared memory (fp16/bf16).
_ELEM_BYTES = 2


@dataclass(frozen=True)
class BwdTraits:
    """``Flash_bwd_kernel_traits<...>``'s integer and bool arguments, in their order."""

    head_dim: int
    block_m: int
    block_n: int
    warps: int
    atom_msdp: int
    atom_ndkv: int
    atom_mdq: int
    v_in_regs: bool
    no_double_buffer: bool

    def smem_bytes(self) -> int:
        """``kSmemSize1colblock``: the main kernel's dynamic shared memory."""
        qdo = self.block_m * self.head_dim * (2 if self.no_double_buffer else 3)
        kv = self.block_n * self.head_dim * 2
        ds = p = self.block_m * self.block_n
        elems = qdo + (max(kv, kv // 2 + ds + p) if self.v_in_regs else kv + ds + p)
        return elems * _ELEM_BYTES

    def dq_smem_bytes(self) -> int:
        """``kSmemdQSize``: ``flash_bwd_convert_dq_kernel``'s dynamic shared memory."""
        return self.block_m * self.head_dim * _ELEM_BYTES

    def template(self, dtype: str) -> str:
        """The traits as the source spells them (the element type for ``dtype``)."""
        b = "true", "false"
        return (
            f"Flash_bwd_kernel_traits<{self.head_dim}, {self.block_m}, {self.block_n}, "
            f"{self.warps}, {self.atom_msdp}, {self.atom_ndkv}, {self.atom_mdq}, "
            f"{b[not self.v_in_regs]}, {b[not self.no_double_buffer]}, {ELEMENT[dtype]}>"
        )


def bwd_head_dim_bucket(head_dim: int) -> int:
    """The head dimension the backward's kernels are compiled for (``HEADDIM_SWITCH``; the
    binary's, :mod:`gpusim.validation.torch_head_buckets`, where that switch is on)."""
    from gpusim.validation.torch_head_buckets import BINARY_BUCKETS, binary_head_dim

    if BINARY_BUCKETS.on:
        return binary_head_dim(head_dim)
    if head_dim <= 0 or head_dim % 8 or head_dim > 256:
        raise GpusimError(
            f"FlashAttention-2's backward takes head_dim a multiple of 8 up to 256, not {head_dim}"
        )
    if 192 < head_dim <= 224:
        raise GpusimError(
            f"head_dim {head_dim}: whether PyTorch's backward runs it as 224 or 256 is not "
            "settled from the sources; use a head dim of at most 192, or above 224"
        )
    return next(b for b in HEAD_DIM_BUCKETS if head_dim <= b)


def bwd_traits(
    head_dim: int, max_smem_per_block: int = H200_MAX_SMEM_PER_BLOCK_OPTIN, dropout: bool = False
) -> BwdTraits:
    """The traits ``run_mha_bwd_hdim<d>`` picks for a device with ``max_smem_per_block``
    bytes of opt-in shared memory per block (``head_dim`` one of :data:`HEAD_DIM_BUCKETS`)."""
    d, smem = head_dim, max_smem_per_block
    if d == 32:
        big = smem >= 2 * ((3 * 128 + 2 * 128) * d + 2 * 128 * 128)  # 104 KB
        return BwdTraits(d, 128, 128, 8, 4, 4, 4, not (big and dropout), False)
    if d == 64:
        if smem >= 144 * KB:
            return BwdTraits(d, 128, 128, 8, 4, 4, 4, False, False)
        return BwdTraits(d, 64, 128, 8, 2, 4, 4, True, False)
    if d == 96:
        return BwdTraits(d, 64, 128, 8, 2, 4, 4, not (smem >= 116 * KB and dropout), False)
    if d == 128:
        if smem >= 144 * KB:
            return BwdTraits(d, 64, 128, 8, 2, 4, 2, False, False)
        return BwdTraits(d, 64, 64, 8, 4, 2, 2, True, False)
    if d == 160:
        return BwdTraits(d, 64, 64, 8, 4, 4, 4, False, smem < 116 * KB)
    if d == 192:
        big = smem >= 136 * KB
        return BwdTraits(d, 64, 64, 8, 4, 2, 2, not big, not big)
    if d == 256:
        if smem >= 176 * KB:  # "H100"
            return BwdTraits(d, 64, 64, 8, 4, 2, 2, False, False)
        if smem >= 144 * KB:  # "A100, we don't do double buffering to save smem"
            return BwdTraits(d, 64, 64, 8, 4, 2, 2, False, True)
        if dropout:
            raise GpusimError("FlashAttention-2 has no head_dim 256 backward with dropout here")
        return BwdTraits(d, 64, 32, 8, 4, 1, 2, True, True)
    raise GpusimError(f"head_dim {d} is none of the backward's buckets {HEAD_DIM_BUCKETS}")


#: The traits on an H200 without dropout, per head-dim bucket.
BWD_TRAITS_H200 = {d: bwd_traits(d) for d in HEAD_DIM_BUCKETS}


def bwd_tiles(
    head_dim: int,
    dtype: str,
    causal: bool,
    *,
    max_smem_per_block: int = H200_MAX_SMEM_PER_BLOCK_OPTIN,
    dropout: bool = False,
) -> dict[str, Any]:
    """The tiles and kernels of PyTorch's flash backward for one head dim, dtype and mask on
    an sm90 GPU (an H200 unless ``max_smem_per_block`` says otherwise)."""
    if dtype not in ELEMENT:
        raise GpusimError(f"PyTorch's flash backend runs fp16 and bf16 only, not {dtype}")
    t = bwd_traits(bwd_head_dim_bucket(head_dim), max_smem_per_block, dropout)
    return {
        "head_dim": t.head_dim,
        "block_m": t.block_m,
        "block_n": t.block_n,
        "warps": t.warps,
        "threads": t.warps * 32,
        "double_buffer": not t.no_double_buffer,
        "v_in_regs": t.v_in_regs,
        "atom_layouts": (t.atom_msdp, t.atom_ndkv, t.atom_mdq),
        "smem_bytes": t.smem_bytes(),
        "dq_smem_bytes": t.dq_smem_bytes(),
        "causal": bool(causal),
        "traits": t.template(dtype),
        "kernels": KERNEL_SEQUENCE,
    }


def bwd_grids(
    tiles: dict[str, Any], batch: int, heads: int, seq_len_q: int, seq_len_k: int
) -> dict[str, tuple[int, int, int]]:
    """Each kernel's grid (``heads`` the query heads: GQA does not shrink them)."""
    m = (-(-seq_len_q // tiles["block_m"]), batch, heads)
    n = (-(-seq_len_k // tiles["block_n"]), batch, heads)
    return dict(zip(KERNEL_SEQUENCE, (m, n, m), strict=True))


#: The integer and bool arguments of the traits in a demangled kernel name.
_TRAITS = re.compile(
    r"Flash_bwd_kernel_traits<\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),"
    r"\s*(true|false),\s*(true|false),\s*([\w:]+)"
)
#: The main kernel's bool template arguments after its traits, by count (launch templates
#: with and without ``Is_softcap``).
_FLAG_NAMES = {
    6: ("Is_dropout", "Is_causal", "Is_local", "Has_alibi", "Is_even_MN", "Is_even_K"),
    7: (
        "Is_dropout",
        "Is_causal",
        "Is_local",
        "Has_alibi",
        "Is_even_MN",
        "Is_even_K",
        "Is_softcap",
    ),
}


def short_name(name: str) -> str:
    """A demangled kernel name without return type, namespaces and arguments."""
    head = name.removeprefix("void ").strip()
    cut = min((i for i in (head.find("<"), head.find("(")) if i >= 0), default=len(head))
    return head[:cut].rsplit("::", 1)[-1]


def _top_level_args(text: str, start: int) -> list[str] | None:
    """The comma-separated arguments of the template list opening at ``text[start] == '<'``
    (None when the name is cut before it closes)."""
    depth, args, cur = 0, [], start + 1
    for i in range(start, len(text)):
        c = text[i]
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth == 0:
                args.append(text[cur:i].strip())
                return args
        elif c == "," and depth == 1:
            args.append(text[cur:i].strip())
            cur = i + 1
    return None


def observed_bwd_tiles(kernel_names: list[str]) -> dict[str, Any]:
    """What the kernels of one backward say of its tiles: ``sequence`` (their short names in
    launch order) and ``found``; when the main kernel is among them, its traits (keys as
    :func:`bwd_tiles`'s) and its bool template flags."""
    out: dict[str, Any] = {"sequence": [short_name(n) for n in kernel_names], "found": False}
    for name in kernel_names:
        kernel = short_name(name)
        m = _TRAITS.search(name)
        if not kernel.startswith("flash_bwd_dq_dk_dv") or m is None:
            continue
        d, bm, bn, warps, a1, a2, a3 = (int(x) for x in m.groups()[:7])
        elem = m.group(10)
        out |= {
            "found": True,
            "kernel": kernel,
            "head_dim": d,
            "block_m": bm,
            "block_n": bn,
            "warps": warps,
            "threads": warps * 32,
            "double_buffer": m.group(9) == "false",
            "v_in_regs": m.group(8) == "true",
            "atom_layouts": (a1, a2, a3),
            "dtype": next((k for k, v in ELEMENT.items() if elem.endswith(v)), elem),
        }
        args = _top_level_args(name, name.find("<", name.find(kernel)))
        flags = [a == "true" for a in (args or [])[1:] if a in ("true", "false")]
        if args and len(flags) == len(args) - 1:
            names = _FLAG_NAMES.get(len(flags))
            out["flags"] = dict(zip(names, flags, strict=True)) if names else flags
        return out
    return out


def tiles_match(expected: dict[str, Any], observed: dict[str, Any]) -> bool:
    """Whether the observed main kernel has the expected traits."""
    keys = ("head_dim", "block_m", "block_n", "warps", "double_buffer", "v_in_regs")
    return (
        bool(observed.get("found"))
        and all(expected[k] == observed.get(k) for k in keys)
        and tuple(expected["atom_layouts"]) == tuple(observed.get("atom_layouts", ()))
    )
