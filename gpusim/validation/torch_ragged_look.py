"""A look (judges nothing): why PyTorch's short causal forwards run 10-34 % slower than the model
says (held-out set 36 and the paper sweep on an H100).

    python -m gpusim.validation.torch_ragged_look --list
    python -m gpusim.validation.torch_ragged_look manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.torch_ragged_look predict --profile h100-sxm5 --out FILE
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

Set 36's two worst runs were d64 causal grids of 1472 and 1600 tokens (-33 %, -34 %), lengths
that leave the last query block half full (PyTorch's ``Is_even_MN = false`` instance); its
even-length short causal runs were 10-18 % fast, and the paper sweep's short non-causal ones
8-14 %. One grid of 264 batch-heads (B22 H12, d64 fp16, PyTorch's 128 x 128 tile) at five
lengths around 1536 (two ragged below it, two above), causal and not, separates the three
candidates: a cost of the causal mask, a cost of the ragged instance, a cost per CTA (the
grid's CTAs get shorter where the mask halves them).
"""

from __future__ import annotations

from typing import Any

from gpusim.validation.backward_heldout15 import manifest_runs, profile_set_main

SET_NAME = "torch_ragged_look"
PROFILES = ("h100-sxm5",)
LENGTHS = (1408, 1472, 1536, 1600, 1664)
RUNS = tuple((22, 12, None, n, 64, "fp16", causal) for causal in (False, True) for n in LENGTHS)
RULE = (
    "a look, nothing judged or tuned: PyTorch's flash forward and backward on one grid (B22 H12 "
    "d64 fp16) at 1408-1664 tokens, causal and not, timed by CUDA events (median of 20, L2 "
    "flushed), beside the h100-sxm5 predictions committed before the measurement"
)


def runs() -> list[dict[str, Any]]:
    return manifest_runs(RUNS)


def main(argv: list[str] | None = None) -> int:
    what = "PyTorch's short d64 forwards, even and ragged, causal and not: " + __name__
    return profile_set_main(argv, SET_NAME, what, RULE, RUNS, PROFILES)


if __name__ == "__main__":
    raise SystemExit(main())
