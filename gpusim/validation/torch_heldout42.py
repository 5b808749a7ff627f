"""Held-out set 42: PyTorch's FlashAttention-2 backward by the default model (grouped products
since set 41) at 20 new prefills, with a GQA group sum's tiles named per head (the default
since 2026-12-07, :mod:`gpusim.engine.head_keys`) and as before.

    python -m gpusim.validation.torch_heldout42 --list
    python -m gpusim.validation.torch_heldout42 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout42 predict --profile P --model M --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

Set 41 adopted the grouped products on the runs it judged; this set asks the default backward
again on new shapes, and judges the head keys: a counting fix found in set 41's per-kernel
times (the model's group sum read 1/G of its bytes from DRAM, since the G query heads' tiles of
one block shared an L2 name), whose bytes the tests check and whose time only a new set can
judge. See :data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation import backward_heldout15, torch_heldout39
from gpusim.validation.backward_heldout15 import manifest_runs as manifest_runs  # the tests'
from gpusim.validation.torch_flash_schedule import compiled_counts
from gpusim.validation.torch_kernel_code import code_fetch

SET_NAME = "torch_heldout42"
SEED = 42
N_RUNS = 20
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: ``keys``: the default (grouped products, head keys); ``before``: the head keys off
MODELS = ("keys", "before")
RULE = (
    "judges the per-head tile names of a GQA group sum (gpusim.engine.head_keys, a counting "
    "fix) and reports the default backward (the compiled step with the grouped products of set "
    "41) on new shapes: 20 prefill runs drawn with seed 42 (torch_heldout42.draw: head size "
    "64, 128 or 256 and bf16 or fp16, uniform; causal or not, MHA or GQA groups of 4 and 8, "
    "512-16384 tokens log-uniform in steps of 64, no power of two, 8k-32k tokens a run), "
    "PyTorch's flash-backend forward and backward timed by CUDA events (median of 20, L2 "
    "flushed) on the card the device lends; judged: both models' backward predictions for that "
    "card's profile (h100-sxm5 on an H100, h200-sxm on an H200), committed before the "
    "measurement; runtime MAPE, mean signed error and the worst runs, beside a roofline and a "
    "constant-efficiency baseline, over all runs and over the GQA runs. The head keys stay on "
    "if the backward's MAPE over the GQA runs with them is not higher than without; the "
    "forward (the default fit) is reported"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head size 64, 128 or 256 and bf16 or fp16, uniform (set 39's draw)."""
    return torch_heldout39.draw(seed, n)


RUNS = draw()


@code_fetch(False)  # the forward as this set predicted it (set 46 adopted the code charge)
@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def predict_run(run: dict[str, Any], profile: str, model: str) -> dict[str, Any]:
    """One run: the backward by the default model with (``keys``) or without (``before``) the
    head keys, the forward by the default model."""
    from gpusim.engine.head_keys import head_keys

    with head_keys(model == "keys"):
        rec, _, _ = backward_heldout15.predict_torch_run(run, profile)
    return rec | {"bwd_model": model}


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's flash backward, the default model and head keys: " + __name__
    return backward_heldout15.model_set_main(
        argv, SET_NAME, what, RULE, RUNS, PROFILES, MODELS, predict_run
    )


if __name__ == "__main__":
    raise SystemExit(main())
