"""Held-out set 18: PyTorch's FlashAttention-2 forward replayed from its SASS, with and
without local memory timed as measured.

    python -m gpusim.reporting.forward_replay_heldout18 --list
    python -m gpusim.reporting.forward_replay_heldout18 manifest --out DIR/manifest_configs.json
    python -m gpusim.reporting.forward_replay_heldout18 predict --method M --out FILE
    # on the GPU machine (no wheels needed; it times the forward and the backward):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

The SM core model's replay of PyTorch's forward (``h200-sxm-core``, ``--sass`` of
``data/h200/2026-12-02_torch_flash_sass``) walks the step the kernel executes (Nsight
Compute, ``data/h200/2026-12-05_torch_fwd_ncu``) yet has run fast (``reports/torch_sass``).
That kernel keeps part of its state in local memory (12 loads and 14 stores a step at d128),
which the core model times as integer instructions of 20 cycles' latency.
``calibrate.local_mem`` (``data/h200/2026-12-05_calibration_local_mem``, no attention code)
measured a local load's latency (34.7 cycles) and what an access holds the SM's L1 data pipe
(about 4 cycles). The variant ``replay-local`` is ``h200-sxm-core`` with both in its
``sass_core_cycles`` (``local_latency``, ``local_access``), which the core model then uses
for every LDL and STL. Judged here, on PyTorch's forward at shapes no earlier set holds (bf16,
d64 and d128, causal and not, ragged lengths, GQA); the backward is timed beside it and
reported. Fixed, with every method's predictions, before any of it is measured; see
:data:`RULE`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from gpusim.engine.head_keys import head_keys
from gpusim.engine.product_groups import grouped
from gpusim.validation import backward_heldout15
from gpusim.validation.backward_heldout15 import backward_schedule, workload
from gpusim.validation.torch_flash_schedule import compiled_counts

SET_NAME = "forward_replay_heldout18"
ROOT = Path(__file__).resolve().parents[2]
LOCAL_MEM = ROOT / "data/h200/2026-12-05_calibration_local_mem/local_mem.json"
#: (batch, heads, heads_kv, seq_len, head_dim, dtype, causal); bf16 (the committed forward
#: SASS is bf16's); none in sets 15 or 17 or the 2026-12-02 sweeps.
RUNS = (
    (3, 20, None, 3328, 128, "bf16", False),
    (2, 24, None, 5632, 128, "bf16", True),
    (6, 12, None, 1792, 128, "bf16", False),
    (1, 40, None, 7040, 128, "bf16", True),
    (4, 16, None, 2500, 128, "bf16", False),  # ragged
    (2, 32, 8, 4608, 128, "bf16", True),  # GQA
    (4, 24, None, 3328, 64, "bf16", False),
    (2, 40, None, 5120, 64, "bf16", True),
    (8, 16, None, 1536, 64, "bf16", False),
    (3, 32, None, 2200, 64, "bf16", True),  # ragged
    (3, 32, 4, 3072, 64, "bf16", True),  # GQA
)
METHODS = ("pipe", "replay", "replay-local")
RULE = (
    "judged on the forward: h200-sxm-core takes local_latency and local_access (the "
    "replay-local variant) if the variant's forward runtime MAPE over the set's correct runs "
    "is lower than the replay's (h200-sxm-core as shipped), both replaying the SASS of the "
    "forward instance PyTorch launches; the pipe model (h200-sxm), the roofline and the "
    "constant-efficiency baseline reported beside them; the backward (the described step for "
    "pipe, the replay of PyTorch's backward SASS for the others) reported, not judged. "
    "PyTorch's flash backend timed by CUDA events (median of 20, L2 flushed); a run whose "
    "outputs or gradients fail the float64 check is reported as failed, not compared"
)


def manifest_runs() -> list[dict[str, Any]]:
    return backward_heldout15.manifest_runs(RUNS)


def local_fields() -> dict[str, float]:
    """``local_latency`` and ``local_access`` of the committed local_mem record."""
    from gpusim.calibrate.local_mem import cycles

    return cycles(json.loads(LOCAL_MEM.read_text()))


def variant_profile():
    """``h200-sxm-core`` with the local-memory cycles in its ``sass_core_cycles``, written as
    ``python -m gpusim.calibrate.local_mem --record R --profile P`` would write them."""
    import yaml

    from gpusim.calibrate.local_mem import apply
    from gpusim.profiles.schema import HardwareProfile

    core = ROOT / "hardware_profiles/h200-sxm-core.yaml"
    text = apply(core.read_text(), json.loads(LOCAL_MEM.read_text()), str(LOCAL_MEM))
    variant = HardwareProfile.model_validate(yaml.safe_load(text))
    return variant.model_copy(update={"name": "h200-sxm-core-local"})


@grouped(False)  # the backward this set judged (grouped products came with set 41)
@head_keys(False)  # and its group sums' tiles named as then (engine/head_keys.py)
@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def predict_run(run: dict[str, Any], method: str, bwd_names: list[str], profile) -> dict:
    """One run's forward and backward by ``method`` (``profile``: its profile object)."""
    import gpusim
    from gpusim.reporting.torch_sass import replay_args
    from gpusim.validation.backward_heldout17 import binary_of
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    fwd_w, bwd_w = workload(run, "fwd"), workload(run, "bwd")
    fwd_s, bwd_s = torch_flash_schedule(fwd_w), backward_schedule(run)
    # the backward this set predicted: the formulas (the default until held-out set 38)
    bwd_s = bwd_s.model_copy(update={"instruction_counts": "formulas"})
    fwd_bin: dict[str, Any] = {}
    bwd_bin: dict[str, Any] = {}
    if method != "pipe":
        fwd_bin = replay_args(fwd_w, fwd_s)
        bwd_bin = binary_of(run, "replay", bwd_names)
    fwd = gpusim.simulate("flash2", fwd_w, fwd_s, profile, **fwd_bin)
    bwd = gpusim.simulate("flash2", bwd_w, bwd_s, profile, footprints="estimate", **bwd_bin)
    rec = backward_heldout15.record(run["id"], bwd, fwd, bwd_s, bwd_w, fwd_w)
    return {**rec, "fwd_schedule": fwd_s.model_dump(),
            **({"fwd_kernel": fwd_bin["kernel"]} if fwd_bin else {})}  # fmt: skip


def predictions(method: str) -> dict[str, Any]:
    from gpusim.kernel_catalog.binary_sass import functions, read_text
    from gpusim.source_commit import git_commit
    from gpusim.validation.torch_bwd_kernel import SASS as BWD_SASS

    names = sorted(functions(read_text(BWD_SASS)))
    profile = {"pipe": "h200-sxm", "replay": "h200-sxm-core"}.get(method) or variant_profile()
    extra = {"local_fields": local_fields()} if method == "replay-local" else {}
    return {
        "set": SET_NAME, "method": method,
        "profile": profile if isinstance(profile, str) else profile.name,
        "commit": git_commit(), "rule": RULE, **extra,
        "runs": [predict_run(r, method, names, profile) for r in manifest_runs()],
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    def add_predict(pr: argparse.ArgumentParser) -> None:
        pr.add_argument("--method", choices=METHODS, required=True)

    what = "PyTorch's forward replayed, with local memory as measured: " + __name__
    return backward_heldout15.set_main(
        argv, SET_NAME, what, RULE, manifest_runs, add_predict, lambda a: predictions(a.method)
    )


if __name__ == "__main__":
    raise SystemExit(main())
