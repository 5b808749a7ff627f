"""Issue 20's held-out sets 8-10: the softmax's cycles per instruction from wgmma_step's
overlap rows (whose softmax sits between the waits for S and for P V, as the kernel's SASS
has it), judged set after set. :mod:`gpusim.reporting.wgmma_sets` registers them with the
others."""

from __future__ import annotations

from pathlib import Path

from gpusim.reporting.wgmma_set_kind import (
    BY_N,
    CARD_PROFILES,
    PINGPONG_FIELDS,
    HeldoutSet,
    card_variants,
)

#: Set 8 judges c from wgmma_step's overlap rows (the softmax held between the waits for S and
#: for P V, as the kernel's SASS has it; the other rows' SASS waits for P V first), measured by
#: set 7's device call: the fields alone, and with every tile's own c.
OVERLAP_RECORD = "data/h100/2026-12-06_wgmma_heldout7/ws/wgmma-step.json"
OVERLAP_VARIANTS = {
    f"{p}_{tag}": (p, OVERLAP_RECORD, family, fields)
    for p in CARD_PROFILES[:2]
    for tag, family, fields in (
        ("overlap", "overlap", PINGPONG_FIELDS),
        ("overlap_tiles", "overlap/every", BY_N),
    )
}
HELDOUT8 = HeldoutSet(
    name="heldout8",
    workloads=(
        ("fp16", 64, False, 3, 28, 4096),
        ("bf16", 64, True, 6, 16, 3328),
        ("fp16", 64, True, 2, 32, 7936),
        ("bf16", 128, False, 2, 28, 5376),
        ("fp16", 128, True, 5, 16, 3072),
        ("bf16", 128, True, 12, 12, 1664),
        ("fp16", 256, False, 4, 10, 2304),
        ("bf16", 256, True, 3, 16, 2816),
    ),
    what="issue 20 held-out set 8: flash3_wgmma instances on workloads outside the paper "
    "sweep and sets 1-7, the model as it stands and with the softmax cycles per instruction "
    "from wgmma_step's overlap rows (alone, and every tile its own), predicted for each card "
    "the device may lend before they are measured",
    measured=Path("data/h100/2026-12-06_wgmma_heldout8/heldout8/heldout.json"),
    variants=card_variants(*OVERLAP_VARIANTS),
    variant_profiles=CARD_PROFILES,
    variant_records=OVERLAP_VARIANTS,
    extra={
        "question": "every wgmma_step row the profiles' c came from waits for P V before its "
        "softmax (cuobjdump: ptxas put WARPGROUP.DEPBAR 0 17-38 instructions after the wait "
        "for S, no exp2 between), while flash3_wgmma's consumer runs its whole softmax "
        "between the two waits. Does c from the overlap rows (the same loop with P's words "
        "stored before the wait, which keeps every exp2 between; no attention code) predict "
        "the kernel better, as two fields (the mean of the paired shapes' rows and the "
        "three-warpgroup row), or with every tile's own c? Suggested by looking at the SASS "
        "after sets 1-6 (d64's three warpgroups +13..+21 %, d128 n64 slow against n128), so "
        "none of them, nor set 7, can judge it",
        "decision_rule": "on the card the call's records name (h200-sxm and its _overlap, "
        "_overlap_tiles on an H200; h100-sxm5 and its on an H100): of the model as it stands "
        "and the two variants, the one with the highest mean Spearman over the 8 workloads "
        "is adopted, provided it has no more first choices more than 3 % off the measured "
        "best and its runtime MAPE on the judged runs is at most 0.5 points above the "
        "model's; otherwise the model stays. Adopted fields go into h200-sxm, h200-sxm-core "
        "and h100-sxm5 from the overlap rows of the H100's record (the same GH100 SM) until an "
        "H200 record of them exists; `gpusim calibrate` then writes them from the overlap "
        "rows. Issue 20's targets are reported for every variant on that card",
    },
)


#: Set 9 judges set 8's `_overlap` alone (the two fields from the overlap rows), by a rule on
#: runtime error that keeps the ranking from getting worse; fixed after set 8 came back.
OVERLAP_ONLY = {k: v for k, v in OVERLAP_VARIANTS.items() if k.endswith("_overlap")}


def _overlap_only(n: int, workloads: tuple, question: str, decision_rule: str) -> HeldoutSet:
    """Set ``n``: the model as it stands against :data:`OVERLAP_ONLY` on each card, measured
    into the day's H100 folder the device script writes."""
    return HeldoutSet(
        name=f"heldout{n}",
        workloads=workloads,
        what=f"issue 20 held-out set {n}: flash3_wgmma instances on workloads outside the paper "
        f"sweep and sets 1-{n - 1}, the model as it stands and with the two softmax "
        "cycles-per-instruction fields from wgmma_step's overlap rows, predicted for each card "
        "the device may lend before they are measured",
        measured=Path(f"data/h100/2026-12-06_wgmma_heldout{n}/heldout{n}/heldout.json"),
        variants=card_variants(*OVERLAP_ONLY),
        variant_profiles=CARD_PROFILES,
        variant_records=OVERLAP_ONLY,
        extra={"question": question, "decision_rule": decision_rule},
    )


HELDOUT9 = _overlap_only(
    9,
    (
        ("bf16", 64, False, 5, 24, 2560),
        ("fp16", 64, True, 3, 40, 3584),
        ("bf16", 64, True, 2, 20, 9216),
        ("fp16", 128, False, 6, 20, 2048),
        ("bf16", 128, True, 3, 24, 4608),
        ("fp16", 128, True, 1, 48, 6144),
        ("bf16", 256, False, 5, 8, 3072),
        ("fp16", 256, True, 2, 24, 2048),
    ),
    "set 8 measured c from rows whose softmax overlaps its own P V (as the "
    "kernel's SASS has it): its _overlap variant had the lowest MAPE (3.65 % against "
    "4.52 %) and a mean signed error within +-2 % (-1.87 % against +3.26 %) at the same "
    "Spearman, but set 8's rule ranked by Spearman first and kept the model. Does "
    "_overlap predict the kernel better on new workloads?",
    "on the card the call's records name (h200-sxm against "
    "h200-sxm_overlap on an H200, h100-sxm5 against h100-sxm5_overlap on an H100): "
    "_overlap is adopted (its two fields into h200-sxm, h200-sxm-core and h100-sxm5 "
    "from the H100 record's overlap rows; `gpusim calibrate` then writes them from the "
    "overlap rows) if its runtime MAPE on the judged runs is lower than the model's, "
    "its |mean signed error| lower, its mean Spearman over the 8 workloads not lower "
    "and it has no more first choices more than 3 % off the measured best; otherwise "
    "the model stays. Issue 20's targets are reported for both",
)


#: Set 10 judges the overlap fields again, by issue 20's own targets: on sets 8 and 9 they met
#: the runtime targets the model missed and ranked no better; fixed after set 9 came back.
HELDOUT10 = _overlap_only(
    10,
    (
        ("fp16", 64, False, 4, 20, 3328),
        ("bf16", 64, True, 4, 24, 5120),
        ("fp16", 64, True, 6, 28, 2816),
        ("bf16", 128, False, 3, 20, 3840),
        ("fp16", 128, True, 2, 40, 5632),
        ("bf16", 128, True, 8, 16, 2304),
        ("fp16", 256, False, 3, 12, 4352),
        ("bf16", 256, True, 2, 20, 3584),
    ),
    "on sets 8 and 9 (an H100) the overlap fields met issue 20's runtime "
    "targets where the model did not (MAPE 3.65 and 3.26 % against 4.52 and 5.27 %; mean "
    "signed -1.87 and -1.36 % against +3.26 and +3.82 %) and ranked no better (Spearman "
    "0.51 and 0.45 against 0.51 and 0.49; first choices > 3 % off 1 and 3 against 1 and "
    "2). Set 8's rule ranked by Spearman first, set 9's asked for all four to improve; "
    "both kept the model. Judged by issue 20's four targets themselves, on new "
    "workloads, which predicts the kernel better?",
    "on the card the call's records name (h200-sxm against "
    "h200-sxm_overlap on an H200, h100-sxm5 against h100-sxm5_overlap on an H100), count "
    "the issue 20 targets each meets on the judged runs: runtime MAPE at most 5 %, mean "
    "signed error within +-2 %, mean Spearman over the 8 workloads at least 0.85, every "
    "first choice within 3 % of the measured best. _overlap is adopted (its two fields "
    "into h200-sxm, h200-sxm-core and h100-sxm5 from the H100 record's overlap rows; "
    "`gpusim calibrate` then writes them from the overlap rows) if it meets more of "
    "them than the model; otherwise (a tie included) the model stays",
)


def overlap_sets() -> dict[str, HeldoutSet]:
    """Sets 8, 9 and 10 by name."""
    return {s.name: s for s in (HELDOUT8, HELDOUT9, HELDOUT10)}
