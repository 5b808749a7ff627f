"""The decode sets of the Hopper kernel's split-KV and GQA instances (harness:
:mod:`gpusim.reporting.wgmma_decode_set`), each fixed before it is measured.

Set 1 judged the model as it stood (reports/kernels/wgmma/decode_set1: on an H100 14.1 % MAPE,
mean -13.9 %, every L2-bound grouped-head decode predicted fast). Two mechanisms it suggested
are judged by set 2, on new workloads:

- ``one_wg_regs``: a CTA with one consumer warpgroup keeps the consumers' registers in every
  thread (:data:`algorithms.register_estimate.ONE_WARPGROUP_KEEPS_REGISTERS`), so such d64
  and 64 x 64 d128 CTAs run one to an SM as ptxas's counts say, not two;
- ``l2_by_size``: ``h100-sxm5``'s L2 bandwidth derived from the H200's measured one scaled by
  the two L2 sizes (50 MiB of the H100 against the H200's 60 MiB: the slices enabled at the
  same clock), not taken as the H200's own; the H100's microbenchmark (its calibration,
  no attention code) measured 7.91 TB/s, the rule gives 7.76.

Set 2 adopted both. Its look (data/h100/2026-12-06_wgmma_decode_look) and the one-warpgroup
microbenchmark (gpusim.calibrate.wgmma_step_one, data/h100/2026-12-06_wgmma_step_one)
suggested a third, judged by set 3 on new runs: ``one_wg_step``, a one-consumer-warpgroup step
timed as its products then its softmax as one warp's lone stream (the ping-pong bound with
n = 1).

Set 3 adopted it with c the mean over the record's five tiles. Recomputed on the seen sets 1-3,
each tile's own c from the same record (``one_wg_tiles``: 2.35 at Bc 128 d64 down to 1.48 at
Bc 64 d256) lowers the MAPE (set 3 10.6 -> 7.3 %); set 4 judges it on new runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The card's profile is judged: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")


@dataclass(frozen=True)
class DecodeSet:
    name: str
    #: (dtype, d, batch, heads, heads_kv, seq_q, seq_k, causal, block_n, stages, consumer
    #: warpgroups, kv_splits)
    configs: tuple[tuple, ...]
    rule: str
    #: model variants predicted before the run ("model": as committed)
    variants: tuple[str, ...] = ("model",)


SET1 = DecodeSet(
    "wgmma_decode_set1",
    (
        ("bf16", 128, 16, 32, 32, 1, 16384, False, 128, 2, 1, 1),
        ("bf16", 128, 16, 32, 32, 1, 16384, False, 128, 2, 1, 8),
        ("bf16", 128, 8, 32, 8, 1, 32768, False, 128, 2, 1, 1),
        ("bf16", 128, 8, 32, 8, 1, 32768, False, 128, 2, 1, 4),
        ("bf16", 128, 8, 32, 8, 1, 32768, False, 128, 2, 1, 16),
        ("fp16", 128, 2, 32, 4, 16, 65536, True, 128, 2, 1, 8),
        ("bf16", 128, 1, 32, 8, 128, 131072, True, 128, 2, 1, 8),
        ("bf16", 128, 32, 32, 8, 1, 4096, False, 128, 2, 1, 2),
        ("fp16", 64, 16, 32, 4, 1, 16384, False, 128, 2, 1, 4),
        ("bf16", 64, 4, 32, 32, 1, 65536, False, 128, 2, 1, 16),
        ("bf16", 256, 8, 16, 4, 1, 16384, False, 64, 2, 1, 4),
        ("bf16", 128, 2, 32, 4, 4096, 4096, True, 128, 2, 2, 1),
        ("fp16", 128, 1, 32, 8, 8192, 8192, False, 128, 2, 2, 1),
        ("bf16", 64, 4, 32, 8, 2048, 2048, True, 128, 2, 2, 1),
    ),
    "nothing is tuned or chosen: on the card the device lends, its profile's predictions made "
    "before the run (h100-sxm5 on an H100, h200-sxm on an H200) are reported against issue "
    "18's runtime target for the project's kernels (MAPE <= 10 %), with mean signed error and "
    "the worst runs, beside a roofline (datasheet tensor peak and DRAM bandwidth over the "
    "compulsory bytes) and a constant-efficiency model (the roofline over the fraction of it "
    "the first configuration reaches, that run left out of every figure); a run counts only "
    "if its output has no NaN and its error against float64 is at most twice PyTorch's SDPA "
    "error on the same inputs (or 0.02 where PyTorch cannot run it)",
)

SET2 = DecodeSet(
    "wgmma_decode_set2",
    (
        ("bf16", 128, 4, 32, 8, 1, 65536, False, 128, 2, 1, 8),
        ("fp16", 128, 16, 32, 4, 1, 8192, False, 128, 2, 1, 2),
        ("bf16", 128, 64, 32, 8, 1, 2048, False, 128, 2, 1, 1),
        ("bf16", 64, 8, 32, 8, 1, 32768, False, 128, 2, 1, 4),
        ("fp16", 64, 32, 16, 2, 1, 8192, False, 128, 2, 1, 2),
        ("bf16", 64, 2, 32, 32, 16, 32768, True, 128, 2, 1, 8),
        ("bf16", 128, 4, 28, 7, 1, 24576, False, 64, 2, 1, 4),
        ("fp16", 128, 8, 32, 32, 1, 8192, False, 64, 2, 1, 4),
        ("bf16", 256, 4, 16, 2, 1, 32768, False, 64, 2, 1, 8),
        ("bf16", 128, 1, 32, 4, 256, 65536, True, 128, 2, 1, 4),
        ("bf16", 128, 4, 32, 8, 2048, 2048, False, 128, 2, 2, 1),
        ("fp16", 64, 2, 32, 4, 4096, 4096, True, 128, 2, 2, 1),
        ("bf16", 128, 16, 32, 8, 4, 16384, False, 128, 2, 1, 4),
        ("fp16", 128, 1, 64, 8, 1, 131072, False, 128, 2, 1, 16),
        ("bf16", 64, 16, 32, 4, 1, 4096, False, 128, 3, 1, 2),
    ),
    "set 1's measurement and counting rules and baselines, on the lent card's profile "
    "(h100-sxm5 on an H100, h200-sxm on an H200), in two steps fixed before the run: (1) "
    "one_wg_regs is adopted (its switch on by default) if its runtime MAPE over the counted "
    "runs is lower than the model's; (2) on an H100 only, l2_by_size (h100-sxm5's L2 "
    "bandwidth derived from the H200's scaled by the L2 sizes) is adopted into the H100 "
    "derivation if, with step 1's winner, its MAPE is lower than without it; on an H200 it "
    "changes nothing and is not judged. Issue 18's 10 % is reported for the adopted variant",
    ("model", "one_wg_regs", "l2_by_size", "one_wg_regs+l2_by_size"),
)

SET3 = DecodeSet(
    "wgmma_decode_set3",
    (
        ("fp16", 128, 2, 40, 8, 1, 98304, False, 128, 2, 1, 8),
        ("bf16", 64, 16, 32, 8, 1, 16384, False, 128, 2, 1, 2),
        ("fp16", 64, 4, 32, 4, 8, 65536, False, 128, 2, 1, 8),
        ("bf16", 64, 32, 32, 32, 1, 8192, False, 128, 2, 1, 1),
        ("bf16", 64, 8, 16, 4, 1, 32768, False, 192, 2, 1, 4),
        ("bf16", 128, 8, 32, 4, 1, 16384, False, 64, 2, 1, 2),
        ("bf16", 128, 16, 32, 16, 2, 8192, True, 128, 2, 1, 4),
        ("bf16", 256, 8, 16, 8, 1, 8192, False, 64, 2, 1, 2),
        ("bf16", 256, 4, 8, 8, 2560, 2560, False, 64, 2, 1, 1),
        ("fp16", 256, 2, 16, 16, 3072, 3072, True, 64, 2, 1, 1),
        ("bf16", 64, 4, 16, 16, 4096, 4096, False, 128, 2, 1, 1),
        ("bf16", 128, 2, 32, 8, 4096, 4096, True, 128, 2, 2, 1),
    ),
    "set 1's measurement, counting rules and baselines (the first configuration the "
    "constant-efficiency reference), on the lent card's profile (h100-sxm5 on an H100, "
    "h200-sxm on an H200) as shipped after set 2 (one_wg_regs and l2_by_size in): one_wg_step "
    "(c from gpusim.calibrate.wgmma_step_one's H100 record, no attention code: a "
    "one-consumer-warpgroup step timed as max(T, softmax phase, T + I x c)) is adopted (the "
    "engine's one-warpgroup step, c then a profile field the calibration writes) if "
    "its runtime MAPE over the counted runs is lower than the shipped model's. Issue 18's "
    "10 % is reported for the winner",
    ("one_wg_regs+l2_by_size", "one_wg_regs+l2_by_size+one_wg_step"),
)

SET4 = DecodeSet(
    "wgmma_decode_set4",
    (
        ("bf16", 128, 4, 32, 8, 1, 49152, False, 128, 2, 1, 8),
        ("fp16", 64, 8, 32, 8, 1, 24576, False, 128, 2, 1, 4),
        ("bf16", 64, 2, 32, 4, 4, 65536, False, 192, 2, 1, 8),
        ("bf16", 64, 16, 16, 16, 1, 8192, False, 128, 2, 1, 2),
        ("bf16", 64, 4, 32, 8, 1, 32768, False, 192, 2, 1, 8),
        ("fp16", 128, 8, 32, 8, 1, 16384, False, 64, 2, 1, 4),
        ("bf16", 128, 4, 32, 32, 1, 32768, False, 64, 2, 1, 8),
        ("bf16", 128, 8, 32, 8, 2, 16384, True, 128, 2, 1, 4),
        ("bf16", 256, 4, 16, 4, 1, 16384, False, 64, 2, 1, 4),
        ("fp16", 256, 16, 8, 8, 1, 4096, False, 64, 2, 1, 2),
        ("bf16", 64, 2, 16, 16, 8192, 8192, True, 128, 2, 1, 1),
        ("bf16", 128, 2, 16, 16, 4096, 4096, False, 64, 2, 1, 1),
        ("bf16", 256, 2, 8, 8, 4096, 4096, False, 64, 2, 1, 1),
        ("bf16", 256, 4, 16, 4, 2048, 2048, True, 64, 2, 1, 1),
        ("fp16", 128, 2, 32, 8, 8192, 8192, False, 128, 2, 2, 1),
        ("bf16", 64, 8, 32, 4, 1, 8192, False, 128, 3, 1, 2),
    ),
    "set 1's measurement, counting rules and baselines (the first configuration the "
    "constant-efficiency reference), on the lent card's profile (h100-sxm5 on an H100, "
    "h200-sxm on an H200) as shipped after set 3 (one_wg_regs, l2_by_size and one_wg_step in): "
    "one_wg_tiles (each tile wgmma_step_one measured takes its own c, the H100 record's "
    "(step - products) / I at that Bc and d, no attention code, instead of the mean over the "
    "five tiles) is adopted (the calibration then writes the per-tile rows) if its runtime "
    "MAPE over the counted runs is lower than the shipped model's. Issue 18's 10 % is reported "
    "for the winner",
    ("one_wg_regs+l2_by_size+one_wg_step", "one_wg_regs+l2_by_size+one_wg_step+one_wg_tiles"),
)

SET5 = DecodeSet(
    "wgmma_decode_set5",
    (
        ("fp16", 128, 8, 32, 8, 1, 65536, False, 128, 2, 1, 8),
        ("bf16", 64, 4, 32, 8, 1, 49152, False, 128, 2, 1, 8),
        ("fp16", 64, 16, 32, 4, 2, 16384, False, 192, 2, 1, 4),
        ("bf16", 64, 32, 16, 4, 1, 4096, False, 128, 3, 1, 1),
        ("bf16", 64, 2, 32, 8, 16, 32768, True, 128, 2, 1, 4),
        ("bf16", 128, 16, 32, 8, 1, 8192, False, 64, 2, 1, 2),
        ("fp16", 128, 2, 32, 4, 1, 131072, False, 64, 2, 1, 16),
        ("bf16", 128, 4, 32, 16, 4, 32768, True, 128, 2, 1, 8),
        ("bf16", 128, 8, 32, 32, 1, 16384, False, 128, 2, 1, 4),
        ("bf16", 256, 8, 16, 4, 1, 8192, False, 64, 2, 1, 2),
        ("fp16", 256, 2, 16, 2, 1, 65536, False, 64, 2, 1, 8),
        ("bf16", 64, 4, 16, 16, 3072, 3072, False, 192, 2, 1, 1),
        ("fp16", 128, 2, 16, 16, 6144, 6144, True, 64, 2, 1, 1),
        ("bf16", 128, 4, 16, 4, 2048, 2048, False, 128, 2, 1, 1),
        ("bf16", 256, 2, 16, 16, 3072, 3072, True, 64, 2, 1, 1),
        ("bf16", 64, 4, 32, 8, 4096, 4096, False, 128, 2, 2, 1),
    ),
    "set 1's measurement, counting rules and baselines (the first configuration the "
    "constant-efficiency reference), on the lent card's profile (h100-sxm5 on an H100, "
    "h200-sxm on an H200) as shipped after set 4 (one_wg_regs, l2_by_size, one_wg_step and "
    "one_wg_tiles in): one_wg_peak (each c of wgmma_step_one's H100 record taken against its "
    "tile's products at the profile's wgmma peak, as the engine times them, instead of "
    "against the measured products-only row; no attention code) is adopted (the calibration "
    "then fits c so) if its runtime MAPE over the counted runs is lower than the shipped "
    "model's. Issue 18's 10 % is reported for the winner",
    (
        "one_wg_regs+l2_by_size+one_wg_step+one_wg_tiles",
        "one_wg_regs+l2_by_size+one_wg_step+one_wg_tiles+one_wg_peak",
    ),
)

SETS = {
    "decode_set1": SET1,
    "decode_set2": SET2,
    "decode_set3": SET3,
    "decode_set4": SET4,
    "decode_set5": SET5,
}


def l2_by_size(profile: Any) -> Any:
    """``profile`` (h100-sxm5) with its L2 bandwidth by the H100 derivation's rule
    (:func:`gpusim.profiles.derive._l2_bandwidth_by_size`: the H200's measured one scaled by
    the L2 sizes, which set 2 adopted); other profiles unchanged."""
    from gpusim.profiles.derive import _l2_bandwidth_by_size
    from gpusim.profiles.loader import load_profile
    from gpusim.profiles.schema import Sourced

    if profile.name != "h100-sxm5":
        return profile
    bw = _l2_bandwidth_by_size(load_profile("h200-sxm").model_dump())
    return profile.model_copy(update={"l2_bandwidth_bytes_per_s": Sourced[float](**bw)})


#: The record decode set 3's candidate takes its field from (no attention code).
STEP_ONE_RECORD = "data/h100/2026-12-06_wgmma_step_one/wgmma-step-one.json"


def _with_step_one(profile: Any, names: tuple[str, ...], peak: float | None = None) -> Any:
    """``profile`` with the one-warpgroup fields ``names`` (the mean c, the per-tile table) from
    :data:`STEP_ONE_RECORD`, c against the products at ``peak`` (None: against the record's
    measured products-only rows, as sets 3 and 4 had them)."""
    import json

    from gpusim.calibrate.wgmma_step_one import FIELD, TILES, entry, tiles_entry
    from gpusim.data.layout import REPO_ROOT
    from gpusim.profiles.schema import Sourced, SourcedRateTable

    doc = json.loads((REPO_ROOT / STEP_ONE_RECORD).read_text())
    where = Path(STEP_ONE_RECORD).parent.as_posix()
    make = {FIELD: lambda: Sourced[float](**entry(doc, where, peak)),
            TILES: lambda: SourcedRateTable(**tiles_entry(doc, where, peak))}  # fmt: skip
    return profile.model_copy(update={name: make[name]() for name in names})


def one_wg_step(profile: Any) -> Any:
    """``profile`` with the one-warpgroup field from :data:`STEP_ONE_RECORD` as set 3 adopted it
    (c against the measured products-only step: set 5's ``one_wg_peak`` refits it since)."""
    from gpusim.calibrate.wgmma_step_one import FIELD

    return _with_step_one(profile, (FIELD,))


def one_wg_tiles(profile: Any) -> Any:
    """``profile`` with one warpgroup's c at each tile :data:`STEP_ONE_RECORD` measured
    (``wgmma_softmax_cycles_per_instr_1_warpgroups_by_tile``) as set 4 adopted it, c against
    the measured products-only step (set 4's predictions were made before the profiles carried
    it, as rows ``"1/{d}"`` of ``wgmma_softmax_cycles_per_instr_by_block_n``, which the engine
    read the same way)."""
    from gpusim.calibrate.wgmma_step_one import TILES

    return _with_step_one(profile, (TILES,))


def one_wg_peak(profile: Any) -> Any:
    """``profile`` with both one-warpgroup fields refitted from :data:`STEP_ONE_RECORD` with c
    against the products at the profile's wgmma peak (``T`` as the engine times it), so that
    the engine's step at a measured tile is the measured one: c 8-15 % above the fit against
    the measured products-only row (2.55 at Bc 128 d64, 1.71 at Bc 64 d256); applied after
    ``one_wg_step`` and ``one_wg_tiles`` (:data:`PARTS`' order), whose fields it replaces."""
    from gpusim.calibrate.wgmma_step_one import FIELD, TILES

    peak = profile.wgmma_flops_per_clk_per_sm.bf16.value  # the record's products are bf16
    return _with_step_one(profile, (FIELD, TILES), peak)


#: the variants' parts and what each does to the profile (None: an engine switch only), in
#: the order they apply
PARTS = {
    "one_wg_regs": None,
    "l2_by_size": l2_by_size,
    "one_wg_step": one_wg_step,
    "one_wg_tiles": one_wg_tiles,
    "one_wg_peak": one_wg_peak,
}


@contextmanager
def variant(name: str, profile: Any) -> Iterator[Any]:
    """The profile to simulate ``name`` with, the variant's engine switches set meanwhile. Set
    3's variants stand on what set 2 adopted (``one_wg_regs``, ``l2_by_size``: shipped since),
    set 4's on set 3's ``one_wg_step``; a part not named is off."""
    from algorithms.register_estimate import ONE_WARPGROUP_KEEPS_REGISTERS
    from gpusim.engine.wgmma_rates import ONE_WARPGROUP_STEP, ONE_WARPGROUP_TILES

    parts = set(name.split("+")) - {"model"}
    if parts - set(PARTS):
        raise ValueError(f"unknown variant {name}")
    token = ONE_WARPGROUP_KEEPS_REGISTERS.set("one_wg_regs" in parts)
    step = ONE_WARPGROUP_STEP.set("one_wg_step" in parts)
    tiles = ONE_WARPGROUP_TILES.set("one_wg_tiles" in parts)
    try:
        for part, change in PARTS.items():  # in this order: one_wg_peak refits the others
            if part in parts and change is not None:
                profile = change(profile)
        yield profile
    finally:
        ONE_WARPGROUP_TILES.reset(tiles)
        ONE_WARPGROUP_STEP.reset(step)
        ONE_WARPGROUP_KEEPS_REGISTERS.reset(token)
