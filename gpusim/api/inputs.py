"""From user values to model inputs: validated Workload, Schedule and profile, defaults filled.

:func:`build_inputs` takes the flat values a command line or a sweep point has (``seq_len``,
``block_m`` ...), :func:`resolve_schedule` fills a partial schedule with the default rule
(``gpusim.tuning.default_choice``: the default rule's choice, kept to what the tuner
accepts), and
:func:`check_schedule_fits` refuses a schedule whose CTA cannot run on the profile's SM. The
CLI, ``gpusim report``, the sweeps and :mod:`gpusim.api.functions` all go through here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from pydantic import ValidationError

from gpusim.api.names import algorithm_named, profile_named
from gpusim.errors import GpusimError
from gpusim.kernel_catalog.description import describe
from gpusim.occupancy import check_fits
from gpusim.profiles import DEFAULT_PROFILE, HardwareProfile
from gpusim.profiles.loader import validation_summary
from gpusim.profiles.sm_count import with_sm_count
from gpusim.schedule import BWD_FIELDS, TILE_FIELDS, Schedule
from gpusim.workload import Workload

#: The schedule's fields, in the order the command line lists them.
SCHEDULE_FIELDS = ("block_m", "block_n", "warps", "stages", "warp_split", "residency")
#: Schedule fields for long context and inference; left out, they keep Schedule's defaults
#: (no split, forward K/V walk, last query blocks first, a CTA per head), but that a flash2
#: decode step with grouped K/V heads packs the group (:func:`packs_by_default`).
ORDER_FIELDS = ("kv_splits", "kv_order", "q_order", "pack_gqa")
#: The implementation class (gpusim.kernel_class); left out, the project's kernel for the dtype.
CLASS_FIELDS = ("mma", "tile_copy", "producer_warps", "instruction_counts", "o_store")

#: Model field -> command-line option, for error messages.
_OPTION_OF = {
    "seq_len_q": "--seq-len",
    "seq_len_k": "--seq-len-k",
    "head_dim": "--head-dim",
    "block_m": "--block-m",
    "block_n": "--block-n",
    "warp_split": "--warp-split",
    "heads_kv": "--heads-kv",
    "kv_splits": "--kv-splits",
    "kv_order": "--kv-order",
    "q_order": "--q-order",
    "pack_gqa": "--pack-gqa",
    "tile_copy": "--tile-copy",
    "producer_warps": "--producer-warps",
    "instruction_counts": "--instruction-counts",
    "o_store": "--o-store",
    **{f: "--" + f.replace("_", "-") for f in BWD_FIELDS},
}


class Inputs(NamedTuple):
    """What a workload command runs on: the three inputs and the schedule fields defaulted."""

    workload: Workload
    schedule: Schedule
    profile: HardwareProfile
    filled: dict[str, Any]  # schedule fields not given, with the value the default rule chose


def _model(cls, **kwargs):
    try:
        return cls(**kwargs)
    except ValidationError as e:
        text = validation_summary(e)
        field, sep, rest = text.partition(": ")
        if sep and field in cls.model_fields:
            text = f"{_OPTION_OF.get(field, '--' + field.replace('_', '-'))}: {rest}"
        raise GpusimError(text) from None


def resolve_schedule(
    algorithm: str, workload: Workload, profile: HardwareProfile, given: dict[str, Any]
) -> tuple[Schedule, dict[str, Any]]:
    """``(schedule, filled)``: the schedule fields in ``given`` that are None come from
    ``accepted_default_schedule(algorithm, workload, profile)`` (the default rule's choice,
    kept to what ``gpusim tune`` accepts); ``filled`` maps each of them to the value used.

    A training step (``pass_`` ``fwd+bwd``) given no forward tile (``block_m`` ...) runs each
    pass with its own rule's tiles, as FlashAttention-2 does: the forward's in the schedule's
    tile fields, the backward's in its ``bwd_*`` fields (those not given, filled where they
    differ). Given forward tiles are the backward's too, but for the ``bwd_*`` given."""
    from gpusim.tuning.default_choice import accepted_default_schedule

    missing = [k for k in SCHEDULE_FIELDS if given.get(k) is None]
    own_passes = workload.pass_ == "fwd+bwd" and all(given.get(k) is None for k in TILE_FIELDS)
    filled: dict[str, Any] = {}
    if missing:
        w = workload.model_copy(update={"pass_": "fwd"}) if own_passes else workload
        try:
            pins = {k: given.get(k) for k in TILE_FIELDS if given.get(k) is not None}
            base = accepted_default_schedule(algorithm, w, profile, pins)
        except GpusimError:
            if any(k in missing for k in TILE_FIELDS):
                raise
            base = Schedule()  # only the mapping is left: Schedule's defaults
        filled = {k: getattr(base, k) for k in missing}
    if own_passes:
        w = workload.model_copy(update={"pass_": "bwd"})
        bwd = accepted_default_schedule(algorithm, w, profile)
        for tile, own in zip(TILE_FIELDS, BWD_FIELDS, strict=True):
            if given.get(own) is None and getattr(bwd, tile) != filled[tile]:
                filled[own] = getattr(bwd, tile)
    if given.get("pack_gqa") is None and packs_by_default(algorithm, workload):
        filled["pack_gqa"] = True
    values = {k: given.get(k) for k in SCHEDULE_FIELDS} | filled
    values |= {
        k: given[k] for k in (*ORDER_FIELDS, *CLASS_FIELDS, *BWD_FIELDS) if given.get(k) is not None
    }
    return _model(Schedule, **values), filled


def packs_by_default(algorithm: str, workload: Workload) -> bool:
    """Whether a schedule left without ``pack_gqa`` packs a GQA group's heads into one tile:
    a flash2 forward decode step (one query) with grouped K/V heads, as FlashAttention-2
    does for itself there (the group's query heads become the query rows, so its K/V is
    read once, not once per head). Only fp16/bf16: the project's fp32 kernel has no packed
    instance. Everywhere else a CTA per head (Schedule's default)."""
    return (
        algorithm == "flash2"
        and workload.dtype in ("fp16", "bf16")
        and workload.pass_ == "fwd"
        and workload.seq_len_q == 1
        and workload.group_size > 1
    )


def build_inputs(
    algorithm: str = "flash2",
    profile: str | Path | HardwareProfile = DEFAULT_PROFILE,
    batch: int = 8,
    heads: int = 32,
    seq_len: int = 2048,
    seq_len_k: int | None = None,
    head_dim: int = 128,
    dtype: str = "fp16",
    causal: bool = False,
    block_m: int | None = None,
    block_n: int | None = None,
    warps: int | None = None,
    stages: int | None = None,
    warp_split: str | None = None,
    residency: str | None = None,
    heads_kv: int | None = None,
    kv_splits: int | None = None,
    kv_order: str | None = None,
    q_order: str | None = None,
    pack_gqa: bool | None = None,
    mma: str | None = None,
    tile_copy: str | None = None,
    producer_warps: int | None = None,
    instruction_counts: str | None = None,
    o_store: str | None = None,
    pass_: str = "fwd",
    bwd_block_m: int | None = None,
    bwd_block_n: int | None = None,
    bwd_warps: int | None = None,
    bwd_stages: int | None = None,
    *,
    sm_count: int | None = None,
    check: bool = True,
) -> Inputs:
    """Validate the options into ``(Workload, Schedule, HardwareProfile, filled)``.

    ``heads_kv`` (None: ``heads``) groups the query heads over fewer K/V heads (GQA, MQA);
    ``kv_splits``, ``kv_order``, ``q_order`` and ``pack_gqa`` left as None keep
    :class:`~gpusim.schedule.Schedule`'s defaults; so do the implementation class's ``mma``,
    ``tile_copy`` and ``producer_warps`` (the project's kernel), checked to exist for the
    dtype (:func:`gpusim.kernel_catalog.description.describe`). The other schedule fields
    left as None come from the default rule (:func:`resolve_schedule`);
    ``filled`` maps each to the value used. With ``check``, a schedule that cannot run one
    CTA on the profile's SM is a one-line :class:`GpusimError` (what it needs, what the limit
    is). ``pass_`` is the workload's pass (``fwd``, ``bwd``, ``fwd+bwd``: ``--pass``);
    ``bwd_block_m``, ``bwd_block_n``, ``bwd_warps``, ``bwd_stages`` a training step's backward
    tiles (``--bwd-block-m`` ...; None: see :func:`resolve_schedule`).
    ``sm_count`` replaces the profile's SM count (:func:`with_sm_count`; beyond the
    profile's, or below 1, a one-line error). Example:
    ``w, s, p, filled = build_inputs("flash2", "h200-sxm", seq_len=4096)``.
    """
    alg = algorithm_named(algorithm)
    hw = with_sm_count(profile_named(profile), sm_count)
    workload = _model(
        Workload,
        batch=batch,
        heads=heads,
        seq_len_q=seq_len,
        seq_len_k=seq_len if seq_len_k is None else seq_len_k,
        head_dim=head_dim,
        dtype=dtype,
        causal=causal,
        heads_kv=heads_kv,
        pass_=pass_,
    )
    given = dict(
        block_m=block_m,
        block_n=block_n,
        warps=warps,
        stages=stages,
        warp_split=warp_split,
        residency=residency,
        kv_splits=kv_splits,
        kv_order=kv_order,
        q_order=q_order,
        pack_gqa=pack_gqa,
        mma=mma,
        tile_copy=tile_copy,
        producer_warps=producer_warps,
        instruction_counts=instruction_counts,
        o_store=o_store,
        bwd_block_m=bwd_block_m,
        bwd_block_n=bwd_block_n,
        bwd_warps=bwd_warps,
        bwd_stages=bwd_stages,
    )
    schedule, filled = resolve_schedule(algorithm, workload, hw, given)
    describe(workload, schedule)  # the class exists for this dtype (one-line error if not)
    alg.check(workload, schedule)
    if check:
        check_schedule_fits(algorithm, workload, schedule, hw)
    return Inputs(workload, schedule, hw, filled)


def check_schedule_fits(
    algorithm: str, workload: Workload, schedule: Schedule, profile: HardwareProfile
) -> None:
    """Raise a one-line :class:`GpusimError` if a CTA of any of the kernels cannot run."""
    for kernel in algorithm_named(algorithm).kernels(workload, schedule):
        chip = kernel.on_chip()
        check_fits(profile, chip.smem_bytes, chip.threads, chip.regs_per_thread)
