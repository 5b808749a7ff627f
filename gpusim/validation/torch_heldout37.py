"""Held-out set 37: PyTorch's FlashAttention-2 forward timed with its binary's own loop counts
(``simulate --binary-timing counts``) against the pipe model's fit, at 20 new bf16 prefills.

    python -m gpusim.validation.torch_heldout37 --list
    python -m gpusim.validation.torch_heldout37 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_heldout37 predict --profile P --model M --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

The mechanism: the pipe model charges a step the instruction count of the project's own
compiled loops (``sass-fit``); PyTorch's loop is another binary, and its steady step issues
more (d64, 128 x 128: 1308 warp-instructions a warp besides HMMA and LDSM against the fit's
891; d128, 128 x 64: 853 against 793). ``--binary-timing counts`` charges the binary's own
count, read from the committed dump of torch 2.11.0+cu130's ``libtorch_cuda.so``
(``data/h200/2026-12-02_torch_flash_sass``: bf16, d64 and d128, the 16 instances PyTorch
dispatches; :func:`gpusim.validation.torch_fwd_kernel.torch_kernel` names the one each run
launches).
It was found on seen sets (a look on 2026-12-07: held-out set 36's, the paper sweep's and the
ragged look's H100 runs, 11.2 -> 6.4 % MAPE; the H200's long-context and partition runs, 6.2 ->
3.7 % and 3.0 -> 1.4 %), so this set, drawn with seed 37 before any of it is measured, judges
it. bf16 and d64/d128 only: the runs the committed dump holds instances for. See :data:`RULE`.
"""

from __future__ import annotations

import argparse
from typing import Any

from gpusim.validation import backward_heldout15
from gpusim.validation.backward_heldout15 import manifest_runs, predict_run, set_main, workload
from gpusim.validation.torch_flash_schedule import compiled_counts
from gpusim.validation.torch_heldout36 import draw_prefills

SET_NAME = "torch_heldout37"
SEED = 37
N_RUNS = 20
#: The lent card's profile decides: h100-sxm5 on an H100, h200-sxm on an H200.
PROFILES = ("h100-sxm5", "h200-sxm")
#: ``fit``: the default (the pipe model's sass-fit counts); ``counts``: the binary's own.
MODELS = ("fit", "counts")
#: the head sizes the committed dump holds instances for (heads, groups, lengths and tokens
#: are set 36's: :func:`gpusim.validation.torch_heldout36.draw_prefills`)
HEAD_DIMS = (64, 128)
RULE = (
    "judges simulate --binary-timing counts (PyTorch's forward timed by the pipe model with "
    "its binary's own steady-step instruction count, from the committed SASS dump "
    "data/h200/2026-12-02_torch_flash_sass) against the default fit: 20 bf16 prefill runs "
    "drawn with seed 37 (torch_heldout37.draw: head size 64 or 128, causal or not, MHA or GQA "
    "groups of 4 and 8, 512-16384 tokens log-uniform in steps of 64, no power of two, 8k-32k "
    "tokens a run), PyTorch's flash-backend forward and backward timed by CUDA events "
    "(median of 20, L2 flushed) on the card the device lends; judged: both models' forward "
    "predictions for that card's profile (h100-sxm5 on an H100, h200-sxm on an H200), "
    "committed before the measurement; runtime MAPE, mean signed error and the worst runs, "
    "beside a roofline and a constant-efficiency baseline. Adopted (PyTorch's forward "
    "predicted with --binary-timing counts where its binary is given, in the reports and the "
    "README) if counts' forward MAPE is lower than the fit's; issue 19's 7 % target is "
    "reported for both; the backward is reported, not judged"
)


def draw(seed: int = SEED, n: int = N_RUNS) -> tuple:
    """This set's runs: head size 64 or 128 (uniform), bf16."""
    return draw_prefills(seed, n, lambda rng: rng.choice(HEAD_DIMS), lambda rng: "bf16")


RUNS = draw()


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def binary_args(run: dict[str, Any]) -> dict[str, Any]:
    """``simulate``'s arguments that time the forward instance PyTorch launches for ``run``
    with that binary's own loop counts."""
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule
    from gpusim.validation.torch_fwd_kernel import replay_args

    w = workload(run, "fwd")
    return replay_args(w, torch_flash_schedule(w)) | {"binary_timing": "counts"}


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def predict_counts(run: dict[str, Any], profile: str) -> dict[str, Any]:
    """:func:`~gpusim.validation.backward_heldout15.predict_run` with the forward timed by
    the binary's counts (the backward as the default)."""
    import gpusim
    from gpusim.engine.cta_issue import cta_issue
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    rec = predict_run(run, profile)
    w = workload(run, "fwd")
    with cta_issue(False):  # the counts this set judged (the per-CTA issue came with set 40)
        fwd = gpusim.simulate("flash2", w, torch_flash_schedule(w), profile, **binary_args(run))
    rec |= {"fwd_s": fwd.runtime_s, "fwd_bwd_s": rec["bwd_s"] + fwd.runtime_s}
    rec |= {"fwd_step_issue_per_warp": fwd.schedule.step_issue_per_warp}
    return rec


def predictions(profile: str, model: str) -> dict[str, Any]:
    """Every run's prediction by ``model`` on ``profile``, with what made them."""
    return backward_heldout15.predictions(
        profile, RUNS, SET_NAME, RULE, predict_run if model == "fit" else predict_counts,
        {"model": model},
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    def add_predict(pr: argparse.ArgumentParser) -> None:
        pr.add_argument("--profile", required=True, choices=PROFILES, help="the card's profile")
        pr.add_argument("--model", required=True, choices=MODELS, help="fit or counts")

    what = "PyTorch's flash forward timed with its binary's loop counts: " + __name__
    return set_main(argv, SET_NAME, what, RULE, lambda: manifest_runs(RUNS), add_predict,
                    lambda a: predictions(a.profile, a.model))  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
