"""Held-out set 39: the backward's default step as compiled (adopted by set 38 on bf16 d64 and
d128 runs) at 16 new prefills that also have d256 and fp16, against the source's formulas.

    python -m gpusim.validation.torch_heldout39 --list
    python -m gpusim.validation.torch_heldout39 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout39 predict --profile P --model M --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

Set 38 (``reports/torch_heldout38``) judged ``--instruction-counts compiled`` on bf16 d64 and
d128 runs only; this set, drawn with seed 39 before any of it is measured, asks whether it
holds where nothing was looked at: d256 (64 x 64 tiles; compiled 526 warp-instructions a step
against the binary's 523-540 and the formulas' 334) and fp16. The four backward models of
:mod:`gpusim.validation.torch_bwd_models` on the same runs; the forward is the default model
(the fit: the committed forward dump holds no d256 or fp16 instance), reported. See
:data:`RULE`.
"""

from __future__ import annotations

from typing import Any

from gpusim.engine.head_keys import head_keys
from gpusim.engine.product_groups import grouped
from gpusim.validation import backward_heldout15
from gpusim.validation.backward_heldout15 import manifest_runs as manifest_runs  # the tests'
from gpusim.validation.backward_heldout15 import record, workload
from gpusim.validation.torch_bwd_models import MODELS, simulate_backward
from gpusim.validation.torch_flash_schedule import compiled_counts
from gpusim.validation.torch_heldout36 import draw_prefills

SET_NAME = "torch_heldout39"
SEED = 39
N_RUNS = 16
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
HEAD_DIMS = (64, 128, 256)
DTYPES = ("bf16", "fp16")
RULE = (
    "judges the backward's default --instruction-counts compiled (adopted by held-out set 38 "
    "on bf16 d64/d128 runs) against the formulas where set 38 did not look: 16 prefill runs "
    "drawn with seed 39 (torch_heldout39.draw: head size 64, 128 or 256 and bf16 or fp16, "
    "uniform; causal or not, MHA or GQA groups of 4 and 8, 512-16384 tokens log-uniform in "
    "steps of 64, no power of two, 8k-32k tokens a run), PyTorch's flash-backend forward and "
    "backward timed by CUDA events (median of 20, L2 flushed) on the card the device lends; "
    "judged: each backward model's predictions for that card's profile (h100-sxm5 on an "
    "H100, h200-sxm on an H200), committed before the measurement; runtime MAPE, mean signed "
    "error and the worst runs, beside a roofline and a constant-efficiency baseline, on the "
    "whole set and on its d256 and fp16 runs. compiled stays the default if its backward "
    "MAPE is lower than the formulas'; otherwise the formulas are the default again. counts "
    "and replay are reported; the forward (the default fit) is reported"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head size 64, 128 or 256 and bf16 or fp16, uniform."""
    return draw_prefills(seed, n, lambda rng: rng.choice(HEAD_DIMS), lambda rng: rng.choice(DTYPES))


RUNS = draw()


@grouped(False)  # the backward this set judged (grouped products came with set 41)
@head_keys(False)  # and its group sums' tiles named as then (engine/head_keys.py)
@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def predict_run(run: dict[str, Any], profile: str, model: str) -> dict[str, Any]:
    """One run: the backward by ``model``, the forward by the default model."""
    import gpusim
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    fwd_w = workload(run, "fwd")
    fwd = gpusim.simulate("flash2", fwd_w, torch_flash_schedule(fwd_w), profile)
    bwd = simulate_backward(run, model, profile)
    rec = record(run["id"], bwd, fwd, backward_heldout15.backward_schedule(run),
                 workload(run, "bwd"), fwd_w)  # fmt: skip
    return rec | {"bwd_model": model}


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's flash backward, compiled counts at d256 and fp16: " + __name__
    return backward_heldout15.model_set_main(
        argv, SET_NAME, what, RULE, RUNS, PROFILES, MODELS, predict_run
    )


if __name__ == "__main__":
    raise SystemExit(main())
