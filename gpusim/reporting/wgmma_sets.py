"""The held-out sets of issue 20's Hopper kernel: which workloads, where each file lives.

A set is fixed (its manifest committed) and predicted (its predictions committed) before it is
measured. Set 1 judged the model as it stood; set 2 was added to judge one mechanism set 1
suggested (the SM clock of ms-long wgmma launches after an L2 flush, ``sm_clock_wgmma_burst_hz``,
against the sustained one), so both variants are predicted for it and the rule that picks
between them is written in its manifest before it runs. Set 3 judges the next one, which sets
1 and 2 and the paper sweep suggested (short sequences 23-26 % fast, more so at larger head
dims): the output block stored from the accumulators' registers, at the cost per byte the
``cta_life`` microbenchmark measured (``fragment_store_bytes_per_clk_per_sm``).
"""

from __future__ import annotations

from pathlib import Path

from gpusim.reporting.wgmma_set_kind import (
    BY_N,
    CARD_PROFILES,
    PINGPONG_FIELDS,
    HeldoutSet,
    card_variants,
)
from gpusim.reporting.wgmma_sets_overlap import overlap_sets

SETS: dict[str, HeldoutSet] = {
    s.name: s
    for s in (
        HeldoutSet(
            name="heldout",
            workloads=(
                ("bf16", 128, False, 2, 32, 6144),
                ("bf16", 128, True, 1, 32, 12288),
                ("bf16", 128, False, 16, 16, 1536),
                ("bf16", 64, False, 4, 24, 3072),
                ("bf16", 256, True, 2, 16, 5120),
                ("fp16", 128, True, 4, 24, 3072),
                ("fp16", 64, False, 2, 24, 10240),
                ("fp16", 256, False, 1, 32, 4096),
            ),
            what="issue 20 held-out set: flash3_wgmma instances on workloads outside the "
            "paper sweep, fixed and predicted before they are measured",
            measured=Path("data/h200/2026-12-03_wgmma_heldout/heldout.json"),
        ),
        HeldoutSet(
            name="heldout2",
            workloads=(
                ("bf16", 128, True, 2, 24, 7168),
                ("bf16", 128, False, 8, 20, 2560),
                ("fp16", 128, False, 1, 40, 9216),
                ("bf16", 128, True, 8, 16, 1024),
                ("bf16", 64, True, 2, 40, 6144),
                ("fp16", 64, False, 6, 16, 4608),
                ("bf16", 256, False, 3, 12, 3584),
                ("fp16", 256, True, 1, 20, 11264),
            ),
            what="issue 20 held-out set 2: flash3_wgmma instances on workloads outside the "
            "paper sweep and outside set 1, fixed and predicted (both clock variants) before "
            "they are measured",
            measured=Path("data/h200/2026-12-03_wgmma_heldout2/heldout.json"),
            variants={"burst": (), "sustained": ("sm_clock_wgmma_burst_hz",)},
            extra={
                "question": "does the SM clock of ms-long wgmma launches after an L2 flush "
                "(sm_clock_wgmma_burst_hz, 1781 MHz, data/h200/2026-12-03_calibration_wgmma_"
                "burst) predict the kernel better than the sustained clock (sm_clock_wgmma_"
                "load_hz, 1620 MHz)? The burst clock was suggested by set 1 (the model was "
                "+4.8 % slow there), so set 1 cannot judge it",
                "decision_rule": "the profile keeps sm_clock_wgmma_burst_hz if the burst "
                "variant's runtime MAPE on the judged runs of this set is lower than the "
                "sustained variant's; otherwise the field is removed from the profiles",
            },
        ),
        HeldoutSet(
            name="heldout3",
            workloads=(
                ("bf16", 128, False, 16, 24, 768),
                ("fp16", 128, True, 12, 16, 1536),
                ("bf16", 128, False, 2, 16, 12288),
                ("bf16", 128, True, 4, 32, 4096),
                ("bf16", 64, False, 8, 24, 1280),
                ("fp16", 64, True, 4, 32, 2560),
                ("bf16", 256, False, 8, 8, 1024),
                ("fp16", 256, True, 2, 16, 4096),
            ),
            what="issue 20 held-out set 3: flash3_wgmma instances on workloads outside the "
            "paper sweep and outside sets 1 and 2, fixed and predicted (with and without the "
            "cost of storing the output from the accumulators' registers) before they are "
            "measured",
            measured=Path("data/h200/2026-12-04_wgmma_heldout3/heldout.json"),
            variants={"stores": (), "no_stores": ("fragment_store_bytes_per_clk_per_sm",)},
            variant_schedules={"no_stores": {"o_store": "staged"}},
            extra={
                "question": "does charging each CTA the SM cycles of storing its output block "
                "straight from the accumulators' registers (4-byte stores; "
                "fragment_store_bytes_per_clk_per_sm, 8.42 B/clk, data/h200/2026-12-04_"
                "calibration_cta_life, no attention kernel) predict the kernel better than "
                "charging the output's bytes only? Suggested by sets 1 and 2 and the paper "
                "sweep (short sequences too fast, most at larger head dims), so none of them "
                "can judge it",
                "decision_rule": "the profiles keep fragment_store_bytes_per_clk_per_sm and "
                "the wgmma class keeps o_store = fragments as its default if the stores "
                "variant's runtime MAPE on the judged runs of this set is lower than the "
                "no_stores variant's; otherwise the field is removed from the profiles and the "
                "class default goes back to staged",
            },
        ),
    )
}


SETS["heldout4"] = HeldoutSet(
    name="heldout4",
    workloads=(
        ("bf16", 128, False, 4, 20, 3584),
        ("fp16", 128, True, 2, 28, 5632),
        ("bf16", 128, True, 6, 12, 2304),
        ("fp16", 128, False, 12, 8, 1280),
        ("bf16", 64, False, 3, 40, 4608),
        ("fp16", 64, True, 8, 16, 1792),
        ("bf16", 256, False, 4, 12, 2816),
        ("bf16", 256, True, 1, 24, 7680),
    ),
    what="issue 20 held-out set 4: flash3_wgmma instances on workloads outside the paper "
    "sweep and sets 1-3, fixed and predicted (the model as it stands, and with each step at "
    "the ping-pong bound of its consumer warpgroups) before they are measured",
    measured=Path("data/h200/2026-12-05_wgmma_heldout4/heldout.json"),
    # "model" drops the two fields (none yet: the model as it stands), so that the variant
    # keeps its meaning whichever profile later takes them
    variants={"model": PINGPONG_FIELDS, "pingpong_fill": (), "pingpong_step": ()},
    variant_pingpong={"pingpong_fill": "fill", "pingpong_step": "step"},
    extra={
        "question": "does timing a step of n >= 2 consumer warpgroups at max(T, A, T/n + I x c) "
        "(T the products at the paired rate, the one-CTA peak; A the softmax phase; I one "
        "consumer warp's instructions; c the cycles per instruction of that lone softmax "
        "stream, from the wgmma_step microbenchmark, no attention code: "
        "python -m gpusim.calibrate.wgmma_pingpong) predict the kernel better than the "
        "harmonic-mean product rate and one overlap share? c from wg_step_fill's rows "
        "(tiles streamed in by a producer warpgroup; 4.60 and 7.30 cycles with 2 and 3 "
        "warpgroups) or from wg_step's (3.78 and 5.80). Suggested by sets 1-3 and the "
        "paper sweep (d64 fast, d256 slow), so none of them can judge it",
        "decision_rule": "of model, pingpong_fill and pingpong_step, the variant with the "
        "lowest runtime MAPE on the judged runs of this set is adopted: a pingpong variant's "
        "two fields go into h200-sxm and h200-sxm-core (python -m "
        "gpusim.calibrate.wgmma_pingpong --rows ROWS --record ... --profile ...) and into the "
        "derived h100-sxm5; if model wins, no profile takes them",
    },
)


#: Set 5 is judged on whichever card the device lends, as the long-context sets 7 and 8.
SETS["heldout5"] = HeldoutSet(
    name="heldout5",
    workloads=(
        ("bf16", 128, False, 6, 16, 2816),
        ("fp16", 128, True, 3, 20, 4864),
        ("bf16", 128, True, 2, 32, 3328),
        ("fp16", 128, False, 16, 12, 1024),
        ("bf16", 64, False, 4, 32, 3840),
        ("fp16", 64, True, 6, 24, 2304),
        ("bf16", 256, False, 2, 20, 3072),
        ("fp16", 256, True, 3, 12, 2560),
    ),
    what="issue 20 held-out set 5: flash3_wgmma instances on workloads outside the paper "
    "sweep and sets 1-4, the model as it stands, predicted for each card the device may lend "
    "before they are measured",
    measured=Path("data/h200/2026-12-05_wgmma_heldout5/heldout5/heldout.json"),
    variants=card_variants(),
    variant_profiles=CARD_PROFILES,
    extra={
        "question": "do issue 20's targets (runtime MAPE <= 5 %, mean signed within +-2 %; "
        "tuner Spearman >= 0.85 and first choice within 3 % of the measured best everywhere) "
        "hold for the model as it stands on new workloads, on the card the device lends? "
        "Nothing is chosen, nothing tuned",
        "decision_rule": "the card the call's records name decides the judged predictions: "
        "h100-sxm5 (the default H100 profile, derived from the H200) on an H100, with "
        "h100-sxm5-measured (calibrated on an H100) reported beside it; h200-sxm on an H200. "
        "No profile changes whatever the result",
    },
)


#: Set 6 judges the candidate the ranking look over sets 1-5 suggested (reports/kernels/wgmma/
#: ranking_look/DIAGNOSIS.md), on whichever card the device lends.
LONE_STREAM = {f"{p}_lone_stream": (p, "lone_stream_masks") for p in CARD_PROFILES[:2]}
SETS["heldout6"] = HeldoutSet(
    name="heldout6",
    workloads=(
        ("bf16", 128, True, 4, 16, 3584),
        ("fp16", 128, True, 2, 24, 6656),
        ("bf16", 128, False, 10, 16, 1792),
        ("fp16", 128, True, 8, 16, 1280),
        ("bf16", 64, True, 3, 32, 4352),
        ("fp16", 64, False, 5, 20, 2816),
        ("bf16", 256, True, 2, 16, 3840),
        ("fp16", 256, False, 6, 8, 2048),
    ),
    what="issue 20 held-out set 6: flash3_wgmma instances on workloads outside the paper "
    "sweep and sets 1-5, the model as it stands and with masked steps' extra instructions "
    "issued at the ping-pong rate, predicted for each card the device may lend before they "
    "are measured",
    measured=Path("data/h100/2026-12-05_wgmma_heldout6/heldout6/heldout.json"),
    variants=card_variants(*LONE_STREAM),
    variant_profiles=CARD_PROFILES,
    variant_switches=LONE_STREAM,
    extra={
        "question": "does issuing a masked key block's extra instructions (the causal compare "
        "and select per element) at the ping-pong bound's cycles per instruction of one "
        "consumer warp (c, from the wgmma_step microbenchmark, whose masked rows put a mask "
        "instruction at 2.3-6.0 cycles against 3.0-3.8 for a softmax one; no attention code), "
        "instead of at the SM's full issue rate, rank the kernel's tiles better without "
        "losing its runtime accuracy? Suggested by sets 1-5 (d128 n176 picked over n128 on "
        "causal and short workloads), so none of them can judge it",
        "decision_rule": "on the card the call's records name (h200-sxm and "
        "h200-sxm_lone_stream on an H200; h100-sxm5 and h100-sxm5_lone_stream on an H100), the "
        "candidate (LONE_STREAM_ISSUE on by default) is adopted if its mean Spearman over the "
        "8 workloads is higher than the model's, it has no more first choices more than 3 % "
        "off the measured best, and its runtime MAPE on the judged runs is at most 0.5 "
        "points above the model's; otherwise it stays off. Issue 20's targets are reported "
        "for the model as it stands on that card",
    },
)


#: Set 7 judges the three-warpgroup c from a three-stage ring (wgmma_step's ``wg_step_ring``,
#: the ring depth of the d64 m192 n96 s3 instance) and the per-tile table the calibrate writes
#: from wgmma_step's gap rows, both from the H100's record (the same GH100 SM as the H200's).
RING_RECORD = "data/h100/2026-12-05_wgmma_heldout6/ws/wgmma-step.json"
RING3 = PINGPONG_FIELDS[1:]
RECORD_VARIANTS = {
    f"{p}_{tag}": (p, RING_RECORD, "fill", fields)
    for p in CARD_PROFILES[:2]
    for tag, fields in (("ring3", RING3), ("ring3_by_n", BY_N))
}
SETS["heldout7"] = HeldoutSet(
    name="heldout7",
    workloads=(
        ("bf16", 64, False, 2, 48, 5120),
        ("fp16", 64, True, 4, 16, 5888),
        ("bf16", 64, True, 10, 16, 1536),
        ("fp16", 128, False, 3, 24, 4352),
        ("bf16", 128, True, 2, 20, 8448),
        ("bf16", 128, False, 6, 24, 1408),
        ("fp16", 256, True, 4, 8, 3328),
        ("bf16", 256, False, 2, 24, 1792),
    ),
    what="issue 20 held-out set 7: flash3_wgmma instances on workloads outside the paper "
    "sweep and sets 1-6, the model as it stands, with the three-warpgroup softmax cycles per "
    "instruction from a three-stage ring, and with the calibrate's per-tile table too, "
    "predicted for each card the device may lend before they are measured",
    measured=Path("data/h100/2026-12-06_wgmma_heldout7/heldout7/heldout.json"),
    variants=card_variants(*RECORD_VARIANTS),
    variant_profiles=CARD_PROFILES,
    variant_records=RECORD_VARIANTS,
    extra={
        "question": "(1) does the three-warpgroup field from wgmma_step's three-stage ring "
        "rows (wg_step_ring, 3 consumer warpgroups and a producer over 3 stages, 128 "
        "registers, no spill: 6.71 cycles on the H100 against 7.30 from wg_step_fill's "
        "two-stage rows; no attention code) predict the kernel better? Suggested by sets "
        "1-6 (the d64 m192 n96 s3 c3 instance +13..+21 % slow in every one), so none of them "
        "can judge it. (2) does the per-tile table `gpusim calibrate` writes from "
        "wgmma_step's gap rows (wgmma_softmax_cycles_per_instr_by_block_n: a tile's own c "
        "where the record has its row; Bc 176 d128 3.93 against 4.58) predict better on top?",
        "decision_rule": "on the card the call's records name (h200-sxm and its _ring3, "
        "_ring3_by_n on an H200; h100-sxm5 and its on an H100): ring3 is adopted (the "
        "three-warpgroup field of h200-sxm, h200-sxm-core and h100-sxm5 from the ring rows) "
        "if its runtime MAPE on the judged runs is lower than the model's, its mean Spearman "
        "over the 8 workloads not lower and it has no more first choices more than 3 % off "
        "the measured best. ring3_by_n is then judged against the winner of that step by "
        "set 6's rule (mean Spearman higher, no more first choices > 3 % off, MAPE at most "
        "0.5 points above); if it loses, `gpusim calibrate` stops writing the per-tile "
        "table into profiles (the record keeps its rows). Issue 20's targets are reported "
        "for the model as it stands on that card",
    },
)

SETS.update(overlap_sets())
