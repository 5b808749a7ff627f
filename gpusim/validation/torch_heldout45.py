"""Held-out set 45: PyTorch's FlashAttention-2 at head sizes it has no kernel for (40, 80,
112, 144, 160, 176, 240), given the binary's head sizes and the executed head size
(:mod:`gpusim.validation.torch_head_buckets`) or as before, at 20 new prefills.

    python -m gpusim.validation.torch_heldout45 --list
    python -m gpusim.validation.torch_heldout45 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout45 predict --profile P --model M --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

Held-out set 44 found the d160 runs 27 % fast (forward) and 18 % (backward): the torch the
device runs has no head-size-160 kernel and ran them with its head-size-192 instance, while
the model gave them the 160 tiles of the sources and 160 columns of work. The switch gives
PyTorch's schedules the sizes of the binary and the model the head size the kernel executes.
Suggested by set 44, judged here on new runs at head sizes each padded to a compiled size
(all but 160 new to every set). See :data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation import backward_heldout15
from gpusim.validation.backward_heldout15 import manifest_runs as manifest_runs  # the tests'
from gpusim.validation.backward_heldout15 import workload
from gpusim.validation.torch_heldout36 import draw_prefills
from gpusim.validation.torch_kernel_code import code_fetch

SET_NAME = "torch_heldout45"
SEED = 45
N_RUNS = 20
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: ``buckets``: the binary's head sizes, the executed head size; ``before``: as set 44 had it
MODELS = ("buckets", "before")
#: head sizes a multiple of 8 that PyTorch's binary has no kernel for (each runs padded)
HEAD_DIMS = (40, 80, 112, 144, 160, 176, 240)
DTYPES = ("bf16", "fp16")
RULE = (
    "judges the binary's head sizes with the executed head size (gpusim.validation."
    "torch_head_buckets, suggested by held-out set 44's d160 runs) against the model as set "
    "44 had it: 20 prefill runs drawn with seed 45 (torch_heldout45.draw: head size 40, 80, "
    "112, 144, 160, 176 or 240, uniform: sizes no kernel of the binary has, none drawn by an "
    "earlier set but 160 (set 44's); bf16 or fp16; causal or not, MHA or GQA groups of 4 "
    "and 8, 512-16384 tokens "
    "log-uniform in steps of 64, no power of two, 8k-32k tokens a run), PyTorch's "
    "flash-backend forward and backward timed by CUDA events (median of 20, L2 flushed) on "
    "the card the device lends, with the kernels it launched; judged: both models' "
    "predictions for that card's profile (h100-sxm5 on an H100, h200-sxm on an H200), "
    "committed before the measurement; runtime MAPE, mean signed error and the worst runs, "
    "beside a roofline and a constant-efficiency baseline. buckets is adopted (the switch "
    "on) if its forward MAPE is lower than before's; the backward is reported"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head sizes of :data:`HEAD_DIMS` and bf16 or fp16, uniform."""
    return draw_prefills(seed, n, lambda rng: rng.choice(HEAD_DIMS), lambda rng: rng.choice(DTYPES))


RUNS = draw()


@code_fetch(False)  # the forward as this set predicted it (set 46 adopted the code charge)
def predict_run(run: dict[str, Any], profile: str, model: str) -> dict[str, Any]:
    """One run's forward and backward by the default model, with (``buckets``) or without
    (``before``) the binary's head sizes."""
    from gpusim.validation.torch_head_buckets import binary_buckets, executed

    if model not in MODELS:
        raise ValueError(f"set 45 predicts {' or '.join(MODELS)}, not {model!r}")
    with binary_buckets(model == "buckets"):
        d = executed(workload(run, "fwd")).head_dim
        rec, _, _ = backward_heldout15.predict_torch_run(run, profile)
    return rec | {"model": model, "executed_head_dim": d}


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's flash forward and backward at padded head sizes: " + __name__
    return backward_heldout15.model_set_main(
        argv, SET_NAME, what, RULE, RUNS, PROFILES, MODELS, predict_run
    )


if __name__ == "__main__":
    raise SystemExit(main())
