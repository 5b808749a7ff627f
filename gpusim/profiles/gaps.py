"""Which of the numbers the engine reads a profile lacks, or holds from another GPU.

A profile of a GPU the project has not measured (an A100 from its datasheet and the
published microbenchmark studies) has no source for some mechanisms the engine models:
the step efficiency with few warps, the L2's loss curve, the barrier cost. Without the
field the engine runs its simple model of that mechanism (listed below), and
:func:`gaps_line` says so in one line, so that no prediction silently stands on another
GPU's number. Values a profile keeps from another GPU with a source that says so ("not
measured on ...") are counted as borrowed.
"""

from __future__ import annotations

from gpusim.profiles.schema import HardwareProfile

#: Optional fields the engine reads, and what it does without each.
ENGINE_OPTIONAL: dict[str, str] = {
    "sm_clock_tensor_load_hz": "tensor-core kernels run at sm_clock_hz",
    "sm_clock_stream_load_hz": "tensor-core kernels run at the products-only clock",
    "simt_mma_flops_per_clk_per_sm": "fp32 products run at the FP32 peak",
    "step_efficiency_1_warp_per_scheduler": "steps with few warps run at full rate",
    "step_efficiency_2_warps_per_scheduler": "steps with few warps run at full rate",
    "smem_fill_cost_per_byte": "a tile fill costs its bytes of shared-memory bandwidth",
    "smem_sched_release_share": (
        "a products phase holds the schedulers for all of its shared-memory time"
    ),
    "grouped_products_kappa_by_cta_warps": (
        "products in barrier-separated groups (flash2's backward) take the longer pipe's time"
    ),
    "staged_store_bytes_per_clk_per_sm": "issuing a staged output block's stores costs no SM time",
    "dram_read_bandwidth_bytes_per_s": "DRAM reads take a copy's bandwidth",
    "l2_loss_by_depth": "the L2 is an LRU with a hard edge at l2_bytes",
    "cta_duration_scatter": "identical CTAs stay in lockstep",
    "dram_share_by_inflight": "any bytes in flight reach the full DRAM bandwidth",
    "barrier_base_cycles": "barriers cost nothing",
    "barrier_cycles_per_warp": "barriers cost nothing",
    "l2_fetch_bytes_per_byte_padded_row_copy": "padded-row copies fetch what they ask (1.0)",
    "kernel_launch_overhead_s": "no launch time is added",
    "kernel_queued_launch_s": "a kernel queued behind another is charged a whole launch",
    "l2_atomic_add_bytes_per_s": "atomic adds (the backward's dQ) take the L2's bandwidth of "
    "plain writes",
}
#: Fields the engine reads only for some storage types.
ONLY_FOR_DTYPES = {
    "sm_clock_tensor_load_hz": ("fp16", "bf16"),
    "sm_clock_stream_load_hz": ("fp16", "bf16"),
    "simt_mma_flops_per_clk_per_sm": ("fp32",),
}
#: Fields the engine reads only for a run of several kernels (split keys, standard attention).
ONLY_FOR_SEVERAL_KERNELS = ("kernel_queued_launch_s",)
#: Fields the engine reads only for a run with atomic adds (flash2's backward: dQ), or only
#: for flash2's backward's grouped products (the same runs).
ONLY_FOR_ATOMIC_ADDS = ("l2_atomic_add_bytes_per_s", "grouped_products_kappa_by_cta_warps")
#: How a source says its value is another GPU's (derive.py and the hand-written profiles).
BORROWED_PREFIXES = ("not measured on", "assumed")


def missing_fields(
    profile: HardwareProfile,
    dtype: str | None = None,
    kernels: int | None = None,
    atomic_adds: bool | None = None,
) -> list[str]:
    """The engine's optional fields ``profile`` lacks (those read for ``dtype``, a run of
    ``kernels`` kernels and, where ``atomic_adds`` is given, with or without atomic adds; or
    all)."""
    out = []
    for name in ENGINE_OPTIONAL:
        only = ONLY_FOR_DTYPES.get(name)
        if dtype is not None and only is not None and dtype not in only:
            continue
        if kernels == 1 and name in ONLY_FOR_SEVERAL_KERNELS:
            continue
        if atomic_adds is False and name in ONLY_FOR_ATOMIC_ADDS:
            continue
        if getattr(profile, name) is None:
            out.append(name)
    return out


def _sources(profile: HardwareProfile):
    for name in type(profile).model_fields:
        value = getattr(profile, name)
        source = getattr(value, "source", None)
        if isinstance(source, str):
            yield name, source
        elif value is not None and hasattr(type(value), "model_fields"):  # per-dtype rates
            for sub in type(value).model_fields:
                inner = getattr(value, sub)
                if inner is not None:
                    yield f"{name}.{sub}", inner.source


def borrowed_fields(profile: HardwareProfile) -> list[str]:
    """Fields whose source says the value is another GPU's (not measured on this one)."""
    return [
        name for name, source in _sources(profile) if source.lower().startswith(BORROWED_PREFIXES)
    ]


def gaps_line(
    profile: HardwareProfile,
    dtype: str | None = None,
    kernels: int | None = None,
    atomic_adds: bool | None = None,
) -> str | None:
    """One line naming the fields the engine needs (for ``dtype``, a run of ``kernels``
    kernels, with or without ``atomic_adds``) and ``profile`` lacks, with what the engine
    does instead, and how many values are another GPU's; None when there are none."""
    missing = missing_fields(profile, dtype, kernels, atomic_adds)
    borrowed = borrowed_fields(profile)
    if not missing and not borrowed:
        return None
    parts = []
    if missing:
        # One consequence per mechanism (both step efficiencies, both barrier fields).
        effects = list(dict.fromkeys(ENGINE_OPTIONAL[f] for f in missing))
        parts.append(f"profile {profile.name} lacks {', '.join(missing)}: {'; '.join(effects)}")
    if borrowed:
        parts.append(
            f"{len(borrowed)} of its values are another GPU's, not measured on this one "
            f"(gpusim profiles {profile.name})"
        )
    return "; ".join(parts)


def launch_overhead_s(profile: HardwareProfile) -> float:
    """The profile's launch time, 0 where it has none (:func:`gaps_line` says so)."""
    q = profile.kernel_launch_overhead_s
    return q.value if q is not None else 0.0


def queued_launch_s(profile: HardwareProfile) -> float:
    """Time from a kernel's end to the start of the next one queued behind it: the profile's
    ``kernel_queued_launch_s``, a whole launch where it has none (:func:`gaps_line` says so
    for runs of several kernels)."""
    q = profile.kernel_queued_launch_s
    return q.value if q is not None else launch_overhead_s(profile)


def barrier_cycles(profile: HardwareProfile, warps: int) -> float:
    """SM cycles one ``__syncthreads()`` costs a CTA of ``warps`` warps: the profile's
    ``barrier_base_cycles + barrier_cycles_per_warp x warps`` (on the H200 a fit of
    data/h200/2026-11-30_barrier_cost/barrier_cost_h200.json: 10.2-39.5 cycles for 1-16
    warps); 0 where the profile has no measurement (:func:`gaps_line` says so)."""
    base, per_warp = profile.barrier_base_cycles, profile.barrier_cycles_per_warp
    if base is None or per_warp is None:
        return 0.0
    return base.value + per_warp.value * warps


def l2_atomic_cost(profile: HardwareProfile) -> float:
    """L2 bytes one byte of fp32 atomic adds costs: the L2's bandwidth over the rate
    ``l2_atomics`` measured for adds from every SM; 1 (a plain write) where the profile has
    none, which :func:`gaps_line` names for a run that adds atomically."""
    rate = profile.l2_atomic_add_bytes_per_s
    return profile.l2_bandwidth_bytes_per_s.value / rate.value if rate is not None else 1.0


def atomic_extra_bytes(l2_atomic_cost_: float, atomic_bytes: float) -> float:
    """L2 lane bytes atomic adds of ``atomic_bytes`` cost beyond plain writes of them, at
    ``l2_atomic_cost_`` lane bytes per byte (:func:`l2_atomic_cost`)."""
    return (l2_atomic_cost_ - 1.0) * atomic_bytes
