"""The compiled instances of the flash2 CUDA kernels and the rules that decide which exist.

A :class:`KernelInstance` is one template instantiation (variant, dtype, head dim, Br, Bc,
warps, stages). The grid is Br in {64, 128}, Bc in {32, 64, 128}, warps in {4, 8}, stages in
{1, 2, 3}; an instance exists when its tile shape fits the variant's thread layout, its shared
memory fits one block on the target (232,448 bytes on Hopper by default) and its accumulators
fit the register file without heavy spilling. ``instance_for`` maps a
:class:`~gpusim.workload.Workload` and :class:`~gpusim.schedule.Schedule` to one, or raises
:class:`~gpusim.errors.GpusimError` saying why it cannot.

The tensor-core kernel also takes the schedule's long-context fields as compile-time
switches (``kv_order`` backward, ``q_order`` first-first, grouped K/V heads, ``kv_splits`` >
1, ``pack_gqa``); an instance with all of them off is the grid instance the recorded build
describes, with the same key. The fp32 kernel's long-context fields have no CUDA code.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, replace
from typing import Literal

from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

Variant = Literal["tc", "simt"]

GRID_BLOCK_M = (64, 128)
GRID_BLOCK_N = (32, 64, 128)
GRID_WARPS = (4, 8)
GRID_STAGES = (1, 2, 3)
TC_DTYPES = ("fp16", "bf16")
TC_HEAD_DIMS = (32, 64, 128, 256)
SIMT_HEAD_DIMS = (64, 128)

#: Opt-in shared memory per block on sm_90 (H100/H200); the runner re-checks the real device.
SMEM_PER_BLOCK_OPTIN_BYTES = 232_448
#: Accumulator registers per thread (S and O fragments) above which an instance would spill
#: heavily; 255 is the ISA limit and addresses, m, l and temporaries need the rest.
TC_ACC_REGS_MAX = 192
SIMT_REGS_ESTIMATE_MAX = 160


@dataclass(frozen=True, order=True)
class KernelInstance:
    """One template instance of ``flash2_tc`` (fp16/bf16) or ``flash2_simt`` (fp32)."""

    variant: Variant
    dtype: str
    head_dim: int
    block_m: int
    block_n: int
    warps: int
    stages: int
    #: Long-context switches of the tensor-core kernel (template parameters of flash2_tc).
    kv_backward: bool = False
    q_first: bool = False
    gqa: bool = False
    split: bool = False
    #: pack_gqa: a GQA group's heads in one tile's rows (needs ``gqa``)
    pack: bool = False

    @property
    def features(self) -> tuple[bool, bool, bool, bool, bool]:
        """The five switches in template order (KV_BACK, Q_FIRST, GQA, SPLIT, PACK)."""
        return (self.kv_backward, self.q_first, self.gqa, self.split, self.pack)

    @property
    def threads(self) -> int:
        """Threads per CTA."""
        return 32 * self.warps

    @property
    def kernel_name(self) -> str:
        """The template's name in the .cu source."""
        return "flash2_tc" if self.variant == "tc" else "flash2_simt"

    @property
    def name_expression(self) -> str:
        """The C++ expression NVRTC instantiates, e.g. ``flash2_tc<true,128,128,64,4,2>``."""
        args = [self.head_dim, self.block_m, self.block_n, self.warps, self.stages]
        if self.variant == "tc":
            args = ["true" if self.dtype == "bf16" else "false", *args]
        if any(self.features):  # the defaults (all false) are the template's own
            # PACK, the last, is named only when on: the other instances keep their names
            feats = self.features if self.pack else self.features[:4]
            args += ["true" if f else "false" for f in feats]
        return f"{self.kernel_name}<{','.join(str(a) for a in args)}>"

    @property
    def key(self) -> str:
        """A file-name-safe identifier, e.g. ``tc_bf16_d128_m128_n64_w4_s2``."""
        tags = ("_kvb", "_qff", "_gqa", "_split", "_pack")
        return (
            f"{self.variant}_{self.dtype}_d{self.head_dim}_m{self.block_m}_n{self.block_n}"
            f"_w{self.warps}_s{self.stages}"
            + "".join(tag for tag, on in zip(tags, self.features, strict=True) if on)
        )

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory of one CTA, as the kernel lays it out."""
        d, bm, bn, st = self.head_dim, self.block_m, self.block_n, self.stages
        if self.variant == "tc":
            return 2 * (bm * d + 2 * st * bn * d)
        ld, ldp = d + 4, bn + 16  # padded rows, see flash2_simt.cu
        return 4 * (bm * ld + 2 * st * bn * ld + bm * ldp)

    def schedule(self, kv_splits: int = 2) -> Schedule:
        """The schedule this instance runs (``kv_splits`` where it splits the keys)."""
        return Schedule(
            block_m=self.block_m,
            block_n=self.block_n,
            warps=self.warps,
            stages=self.stages,
            warp_split="split-q",
            residency="registers",
            kv_splits=kv_splits if self.split else 1,
            kv_order="backward" if self.kv_backward else "forward",
            q_order="first-first" if self.q_first else "last-first",
            pack_gqa=self.pack,
        )

    def base(self) -> KernelInstance:
        """The grid instance of the same tiles with every long-context switch off."""
        return replace(self, kv_backward=False, q_first=False, gqa=False, split=False, pack=False)

    def as_dict(self) -> dict:
        """Plain fields plus the derived ones a results file wants."""
        return asdict(self) | {
            "key": self.key,
            "name_expression": self.name_expression,
            "threads": self.threads,
            "smem_bytes": self.smem_bytes,
        }


def variant_of(dtype: str) -> Variant:
    """fp32 runs on the CUDA cores, fp16/bf16 on the tensor cores."""
    if dtype == "fp32":
        return "simt"
    if dtype in TC_DTYPES:
        return "tc"
    raise GpusimError(f"no flash2 CUDA kernel for dtype {dtype!r}; accepted: fp32, fp16, bf16")


def rejection_reason(
    inst: KernelInstance, smem_limit_bytes: int = SMEM_PER_BLOCK_OPTIN_BYTES
) -> str | None:
    """Why ``inst`` cannot exist (tile shape, shared memory, registers), or None if it can."""
    d, bm, bn, w = inst.head_dim, inst.block_m, inst.block_n, inst.warps
    if inst.variant == "tc":
        if d not in TC_HEAD_DIMS:
            return f"head_dim {d} has no tensor-core instance (have {TC_HEAD_DIMS})"
        if bm % (16 * w):
            return f"split-q needs block_m divisible by 16*warps={16 * w} (got {bm})"
        if bn % 16:
            return f"block_n must be a multiple of 16 (got {bn})"
        mt = bm // (16 * w)
        acc = 4 * mt * (d // 8 + bn // 8)
        if acc > TC_ACC_REGS_MAX:
            return (
                f"S and O accumulators need {acc} registers per thread "
                f"(limit {TC_ACC_REGS_MAX} of 255)"
            )
    else:
        if d not in SIMT_HEAD_DIMS:
            return f"head_dim {d} has no fp32 instance (have {SIMT_HEAD_DIMS})"
        rows_threads = 2 * w
        if bm % rows_threads or bn % 16:
            return f"fp32 layout needs block_m % {rows_threads} == 0 and block_n % 16 == 0"
        tm, tn = bm // rows_threads, bn // 16
        est = tm * d // 16 + tm * tn + 4 * (tm + tn)
        if tm > 8 or est > SIMT_REGS_ESTIMATE_MAX:
            return (
                f"{tm} rows x {tn} keys per thread needs about {est} registers "
                f"(limit {SIMT_REGS_ESTIMATE_MAX})"
            )
    if inst.smem_bytes > smem_limit_bytes:
        return (
            f"needs {inst.smem_bytes} bytes of shared memory per block (limit {smem_limit_bytes})"
        )
    return None


def grid_instances(variant: Variant | None = None) -> list[KernelInstance]:
    """Every point of the grid, feasible or not, for one variant or both."""
    out = []
    for var in ("tc", "simt") if variant is None else (variant,):
        dtypes = TC_DTYPES if var == "tc" else ("fp32",)
        dims = TC_HEAD_DIMS if var == "tc" else SIMT_HEAD_DIMS
        for dt, d, bm, bn, w, st in itertools.product(
            dtypes, dims, GRID_BLOCK_M, GRID_BLOCK_N, GRID_WARPS, GRID_STAGES
        ):
            out.append(KernelInstance(var, dt, d, bm, bn, w, st))
    return out


def all_instances(
    variant: Variant | None = None, smem_limit_bytes: int = SMEM_PER_BLOCK_OPTIN_BYTES
) -> list[KernelInstance]:
    """The feasible instances of the grid."""
    return [i for i in grid_instances(variant) if rejection_reason(i, smem_limit_bytes) is None]


def rejected_instances(
    smem_limit_bytes: int = SMEM_PER_BLOCK_OPTIN_BYTES,
) -> list[tuple[KernelInstance, str]]:
    """The grid points that do not exist, each with its reason."""
    out = []
    for i in grid_instances():
        why = rejection_reason(i, smem_limit_bytes)
        if why is not None:
            out.append((i, why))
    return out


def unimplemented(workload: Workload, schedule: Schedule) -> dict[str, object]:
    """The long-context fields of ``workload``/``schedule``, with their values, that the CUDA
    kernels do not implement (they are modelled: algorithms/split_kv.py,
    algorithms/q_outer.py); empty when they implement them all.

    The tensor-core kernel (fp16/bf16) implements split-KV (its split form plus
    flash2_combine.cu), grouped K/V heads, the backward K/V walk and first-first launch
    order, and the packing of a GQA group's heads into one tile's rows, as template switches;
    the fp32 kernel has none of them."""
    s, defaults = schedule, Schedule()
    out: dict[str, object] = {}
    if workload.dtype == "fp32":
        out = {
            name: getattr(s, name)
            for name in ("kv_splits", "kv_order", "q_order")
            if getattr(s, name) != getattr(defaults, name)
        }
        if workload.heads_kv is not None:
            out["heads_kv"] = workload.heads_kv
        if s.pack_gqa:
            out["pack_gqa"] = True
    return out


def unimplemented_fields(workload: Workload, schedule: Schedule) -> str | None:
    """:func:`unimplemented` as one line (None: nothing is missing)."""
    missing = unimplemented(workload, schedule)
    if not missing:
        return None
    parts = [
        "--pack-gqa" if k == "pack_gqa" else f"--{k.replace('_', '-')} {v}"
        for k, v in missing.items()
    ]
    if "kv_splits" in missing:
        parts[0] += " (split and combine kernels)"
    kernel = "fp32 kernel does" if workload.dtype == "fp32" else "CUDA kernels do"
    return f"the {kernel} not implement {', '.join(parts)} (modelled only)"


def instance_for(
    workload: Workload, schedule: Schedule, smem_limit_bytes: int = SMEM_PER_BLOCK_OPTIN_BYTES
) -> KernelInstance:
    """The kernel instance that runs flash2's ``schedule`` on ``workload``; GpusimError if none
    can (the CUDA kernel implements flash2 only: its callers hold the algorithm's name)."""
    why_not = unimplemented_fields(workload, schedule)
    if why_not is not None:
        raise GpusimError(why_not)
    if schedule.warp_split != "split-q" or schedule.residency != "registers":
        raise GpusimError(
            "the CUDA kernel implements warp_split='split-q' with residency='registers'; "
            f"got {schedule.warp_split!r}/{schedule.residency!r}"
        )
    variant = variant_of(workload.dtype)
    features = long_context_features(workload, schedule)
    inst = KernelInstance(
        variant,
        workload.dtype,
        workload.head_dim,
        schedule.block_m,
        schedule.block_n,
        schedule.warps,
        schedule.stages,
        *features,
    )
    why = rejection_reason(inst, smem_limit_bytes)
    if why is not None:
        raise GpusimError(f"no flash2 {variant} instance for {inst.key}: {why}")
    if inst.base() not in set(all_instances(variant, smem_limit_bytes)):
        grid = (
            f"block_m {GRID_BLOCK_M}, block_n {GRID_BLOCK_N}, warps {GRID_WARPS}, "
            f"stages {GRID_STAGES}"
        )
        raise GpusimError(f"no flash2 instance {inst.key}; the compiled grid is {grid}")
    return inst


def long_context_features(
    workload: Workload, schedule: Schedule
) -> tuple[bool, bool, bool, bool, bool]:
    """The kernel switches (KV_BACK, Q_FIRST, GQA, SPLIT, PACK) a workload and schedule ask
    for (what no kernel implements is refused before: :func:`unimplemented`); GpusimError
    for more splits than key blocks, or a packing the tile's rows cannot hold."""
    from algorithms.q_outer import (  # late: algorithms imports gpusim
        check_packing,
        long_context_switches,
    )

    check_packing(workload, schedule)
    features = long_context_switches(workload, schedule)
    key_blocks = -(-workload.seq_len_k // schedule.block_n)
    if schedule.kv_splits > key_blocks:
        raise GpusimError(
            f"kv_splits {schedule.kv_splits} is more than the {key_blocks} key blocks of "
            f"{schedule.block_n} keys (seq_len_k {workload.seq_len_k})"
        )
    return features
