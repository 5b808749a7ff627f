"""PyTorch's FlashAttention-2 backward by each of the model's four ways of timing it.

- ``formulas``: the pipe model's described step, the source's arithmetic (the default
  until held-out set 38);
- ``compiled``: the described step as nvcc compiles it (``--instruction-counts compiled``,
  :data:`gpusim.instruction_mix.BWD_COMPILED_PER_ELEMENT`; the default since set 38);
- ``counts``: the pipe model charging the binary's own steady-step count (``--binary-timing
  counts`` with the instance PyTorch launches, from the committed dump);
- ``replay``: the SM core model replaying that binary's loop (the profile's ``-core`` twin).

The dump (:data:`gpusim.validation.torch_bwd_kernel.SASS`) holds d64, d128 and d256
instances; ``counts`` and ``replay`` of another head size is a one-line error.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from gpusim.validation.backward_heldout15 import backward_schedule, workload
from gpusim.validation.torch_bwd_kernel import RES_USAGE, SASS, kernel_name

MODELS = ("formulas", "compiled", "counts", "replay")


@lru_cache(maxsize=1)
def _names() -> tuple[str, ...]:
    from gpusim.kernel_catalog.binary_sass import functions, read_text

    return tuple(sorted(functions(read_text(SASS))))


def binary_args(run: dict[str, Any]) -> dict[str, Any]:
    """``simulate``'s binary arguments for the backward instance ``run`` launches."""
    k = kernel_name(
        list(_names()), run["head_dim"], run["dtype"], run["seq_len_q"], run["seq_len_k"],
        run["causal"],
    )  # fmt: skip
    return {"sass": SASS, "res_usage": RES_USAGE, "kernel": k}


def simulate_backward(run: dict[str, Any], model: str, profile: str):
    """The backward of one run by ``model`` on ``profile`` (a :class:`gpusim.SimResult`)."""
    import gpusim
    from gpusim.errors import GpusimError

    w, s = workload(run, "bwd"), backward_schedule(run)
    extra: dict[str, Any] = {"footprints": "estimate"}
    if model in ("formulas", "compiled"):  # asked for by name: compiled is the default
        s = s.model_copy(update={"instruction_counts": model})
    elif model == "counts":
        extra |= binary_args(run) | {"binary_timing": "counts"}
    elif model == "replay":
        # the steps it does not replay described as set 38 predicted them (by the formulas,
        # then the default; compiled moves a replayed backward by about 0.1 %)
        s = s.model_copy(update={"instruction_counts": "formulas"})
        extra |= binary_args(run)
        profile = f"{profile}-core"
    else:
        raise GpusimError(f"unknown backward model {model!r}; use {', '.join(MODELS)}")
    return gpusim.simulate("flash2", w, s, profile, **extra)
