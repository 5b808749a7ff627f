"""Held-out set 43: PyTorch's FlashAttention-2 forward given its tile traits, its step's
instructions counted by the fit to the project's loops (the default) or as nvcc compiles
PyTorch's (``--instruction-counts compiled``), at 20 new prefills.

    python -m gpusim.validation.torch_heldout43 --list
    python -m gpusim.validation.torch_heldout43 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout43 predict --profile P --model M --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

PyTorch builds its flash kernels without fast math: each exponential is an ``exp2f`` with a
range check and two FMULs around MUFU.EX2, and the scale-subtract stays an FMUL and an FADD.
Read off the backward's binary first (set 38 adopted it there), the same per-element terms are
in PyTorch's forward loops (d64 and d128 instances of the committed dump: FSETP, FMUL, FADD
and FFMA against the formulas within the rows' 4). The fit (to the project's loops, compiled
with fast math) undercounts PyTorch's d64 step by about a third. A look on seen sets 38-42's
forwards (``reports/torch_heldout43/look_seen.md``): fit 5.5-9.0 %, compiled 3.9-5.6 %. See
:data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation import backward_heldout15, torch_heldout39
from gpusim.validation.backward_heldout15 import manifest_runs as manifest_runs  # the tests'
from gpusim.validation.backward_heldout15 import workload

SET_NAME = "torch_heldout43"
SEED = 43
N_RUNS = 20
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: the forward's instruction counts: ``fit`` (the default, sass-fit) or ``compiled``
MODELS = ("fit", "compiled")
RULE = (
    "judges PyTorch's forward given its tile traits with --instruction-counts compiled (the "
    "formulas plus nvcc's per-score-element terms without fast math: gpusim.instruction_mix) "
    "against the default fit to the project's loops: 20 prefill runs drawn with seed 43 "
    "(torch_heldout43.draw: head size 64, 128 or 256 and bf16 or fp16, uniform; causal or "
    "not, MHA or GQA groups of 4 and 8, 512-16384 tokens log-uniform in steps of 64, no power "
    "of two, 8k-32k tokens a run), PyTorch's flash-backend forward and backward timed by CUDA "
    "events (median of 20, L2 flushed) on the card the device lends; judged: both models' "
    "forward predictions for that card's profile (h100-sxm5 on an H100, h200-sxm on an H200), "
    "committed before the measurement; runtime MAPE, mean signed error and the worst runs, "
    "beside a roofline and a constant-efficiency baseline. compiled becomes the counts of "
    "PyTorch's forward schedule (torch_flash_schedule) if its forward MAPE is lower than the "
    "fit's; the backward (the default) is reported"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head size 64, 128 or 256 and bf16 or fp16, uniform (set 39's draw)."""
    return torch_heldout39.draw(seed, n)


RUNS = draw()


def predict_run(run: dict[str, Any], profile: str, model: str) -> dict[str, Any]:
    """One run: the forward with ``model``'s instruction counts, the backward by the default
    model."""
    from gpusim.validation.torch_flash_schedule import schedule_before_set43

    fwd_s = schedule_before_set43(workload(run, "fwd"))  # the fit's counts, the default then
    if model == "compiled":
        fwd_s = fwd_s.model_copy(update={"instruction_counts": "compiled"})
    rec, _, _ = backward_heldout15.predict_torch_run(run, profile, fwd_s)
    return rec | {"fwd_model": model}


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's flash forward with compiled counts: " + __name__
    return backward_heldout15.model_set_main(
        argv, SET_NAME, what, RULE, RUNS, PROFILES, MODELS, predict_run
    )


if __name__ == "__main__":
    raise SystemExit(main())
