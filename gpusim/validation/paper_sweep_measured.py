"""The FlashAttention-2 paper's sweep measured on the card the device lends (an H100 or an
H200): PyTorch's FlashAttention-2 forward and backward, fp16, against predictions committed
before the measurement.

    python -m gpusim.validation.paper_sweep_measured --list
    python -m gpusim.validation.paper_sweep_measured manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.paper_sweep_measured predict --profile P --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

``reports/paper_sweep`` has committed, since 2026-12-05 (7229149), the model's forward and
backward of this sweep on ``h100-sxm5``, a profile derived from the H200's measurements and the
H100's datasheet, "so that a measurement can judge them". The device lends H100s; this set
is that measurement. The runs are the paper's: batch x length 16k tokens, hidden 2048 (32
heads of d64, 16 of d128), 512 to 16384 tokens, causal and not, fp16 (the H200's set 15 ran
them in bf16). Predicted with the code at the set's commit for ``h100-sxm5`` and ``h200-sxm``;
the card the measurement's provenance names decides which is judged. See :data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation.backward_heldout15 import manifest_runs, profile_set_main

SET_NAME = "paper_sweep_measured"
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: (batch, heads, heads_kv, seq_len, head_dim, dtype, causal): reports/paper_sweep's runs
RUNS = tuple(
    (16384 // n, 2048 // d, None, n, d, "fp16", causal)
    for d in (64, 128)
    for causal in (False, True)
    for n in (512, 1024, 2048, 4096, 8192, 16384)
)
RULE = (
    "reported against issue 19's question for a GPU the profiles were not calibrated on, "
    "nothing tuned: PyTorch's flash-backend forward and backward (FlashAttention-2's kernels; "
    "the model given their tiles) timed by CUDA events (median of 20, L2 flushed) on the card "
    "the device lends; judged: the predictions of the profile for that card (h100-sxm5 on an "
    "H100, h200-sxm on an H200) made at this set's commit, and on an H100 also "
    "reports/paper_sweep/predictions.json (7229149, committed before any H100 was measured); "
    "runtime MAPE, mean signed error and the worst runs for the forward, the backward and "
    "their sum, beside a roofline and a constant-efficiency baseline (the backward at the "
    "efficiency PyTorch's forward reached on the same run). Target (issue 19's, for PyTorch's "
    "forward given its tiles): 7 % MAPE"
)


def runs() -> list[dict[str, Any]]:
    """The set's runs in ``torch_bwd_measure``'s manifest form."""
    return manifest_runs(RUNS)



def main(argv: list[str] | None = None) -> int:
    what = "the FlashAttention-2 paper's sweep on the lent card: " + __name__
    return profile_set_main(argv, SET_NAME, what, RULE, RUNS, PROFILES)


if __name__ == "__main__":
    raise SystemExit(main())
