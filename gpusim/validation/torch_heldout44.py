"""Held-out set 44: PyTorch's FlashAttention-2 at head sizes no set has measured (32, 160 and
192), forward and backward by the default model, at 20 new prefills.

    python -m gpusim.validation.torch_heldout44 --list
    python -m gpusim.validation.torch_heldout44 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout44 predict --profile P --model default --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

Every PyTorch set so far drew its head sizes from 64, 96, 128 and 256. PyTorch compiles its
flash kernels for 32, 160 and 192 too, with tiles of their own (forward d160 128 x 32, d192
128 x 64 with 8 warps; backward d160 and d192 64 x 64), read from the sources
(:mod:`gpusim.validation.torch_flash_schedule`, :mod:`gpusim.validation.torch_flash_bwd_schedule`)
and never checked against a launch. This set asks the model, as it stands, of kernels it has
never been shown: the tile tables (the measurement records the kernels PyTorch launches), the
compiled counts (set 43) and the grouped products (set 41) at new head sizes. Nothing is
adopted. See :data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation import backward_heldout15
from gpusim.validation.backward_heldout15 import manifest_runs as manifest_runs  # the tests'
from gpusim.validation.torch_head_buckets import binary_buckets
from gpusim.validation.torch_heldout36 import draw_prefills
from gpusim.validation.torch_kernel_code import code_fetch

SET_NAME = "torch_heldout44"
SEED = 44
N_RUNS = 20
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: one model: the default (forward: compiled counts since set 43; backward: compiled step,
#: grouped products, head keys)
MODELS = ("default",)
#: head sizes PyTorch compiles that no earlier set drew
HEAD_DIMS = (32, 160, 192)
DTYPES = ("bf16", "fp16")
RULE = (
    "reported against issue 19's target for PyTorch's forward given its tile traits (7 % "
    "MAPE), nothing tuned and no mechanism judged: 20 prefill runs drawn with seed 44 "
    "(torch_heldout44.draw: head size 32, 160 or 192, uniform, sizes no earlier set drew; bf16 "
    "or fp16; causal or not, MHA or GQA groups of 4 and 8, 512-16384 tokens log-uniform in "
    "steps of 64, no power of two, 8k-32k tokens a run), PyTorch's flash-backend forward and "
    "backward timed by CUDA events (median of 20, L2 flushed) on the card the device lends, "
    "with the kernels it launched; judged: the default model's predictions for that card's "
    "profile (h100-sxm5 on an H100, h200-sxm on an H200), committed before the measurement; "
    "runtime MAPE, mean signed error and the worst runs for the forward (the target), the "
    "backward and their sum, over all runs and by head size, beside a roofline and a "
    "constant-efficiency baseline; and whether the launched kernels' tiles are the model's"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head size 32, 160 or 192 and bf16 or fp16, uniform."""
    return draw_prefills(seed, n, lambda rng: rng.choice(HEAD_DIMS), lambda rng: rng.choice(DTYPES))


RUNS = draw()


@code_fetch(False)  # the forward as this set predicted it (set 46 adopted the code charge)
@binary_buckets(False)  # the head sizes this set was predicted with (set 45 judges the binary's)
def predict_run(run: dict[str, Any], profile: str, model: str = "default") -> dict[str, Any]:
    """One run: forward and backward by the default model."""
    if model != "default":
        raise ValueError(f"set 44 predicts the default model only, not {model!r}")
    rec, fwd, bwd = backward_heldout15.predict_torch_run(run, profile)
    notes = [k.timing_note for k in (*fwd.kernels, *bwd.kernels) if k.timing_note]
    return rec | {"model": model, "timing_notes": notes}


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's flash forward and backward at new head sizes: " + __name__
    return backward_heldout15.model_set_main(
        argv, SET_NAME, what, RULE, RUNS, PROFILES, MODELS, predict_run
    )


if __name__ == "__main__":
    raise SystemExit(main())
