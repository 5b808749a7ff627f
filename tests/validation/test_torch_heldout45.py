"""Held-out set 45 (PyTorch at head sizes its binary has no kernel for): the committed
manifest is the module's draw, the draw is new, and the switch it judges gives the binary's
head sizes."""

from __future__ import annotations

import json

import pytest

from gpusim.data.layout import REPO_ROOT
from gpusim.errors import GpusimError
from gpusim.validation import torch_heldout36, torch_heldout43, torch_heldout44
from gpusim.validation import torch_heldout45 as S
from gpusim.validation.torch_head_buckets import binary_buckets, binary_head_dim, executed
from gpusim.workload import Workload

MANIFEST = REPO_ROOT / "data/h100/2026-12-07_torch_heldout45/manifest_configs.json"
RES_USAGE = REPO_ROOT / "data/h200/2026-12-02_torch_flash_sass/flash_res_usage.txt"


def test_the_manifest_is_the_module_draw_and_new():
    doc = json.loads(MANIFEST.read_text())
    assert doc["runs"] == S.manifest_runs(S.RUNS) and doc["decision_rule"] == S.RULE
    assert len(doc["runs"]) == S.N_RUNS == len({r["id"] for r in doc["runs"]})
    earlier = {r["head_dim"] for m in (torch_heldout36, torch_heldout43, torch_heldout44)
               for r in m.manifest_runs(m.RUNS)}  # fmt: skip
    assert earlier & {r["head_dim"] for r in doc["runs"]} == {160}  # set 44's d160
    seen = {r["id"] for r in torch_heldout44.manifest_runs(torch_heldout44.RUNS)}
    assert not seen & {r["id"] for r in doc["runs"]}


def test_the_binary_s_head_sizes_are_those_of_its_kernels():
    import re

    text = RES_USAGE.read_text()
    sizes = {int(d) for d in re.findall(r"Flash_(?:fwd|bwd)_kernel_traitsILi(\d+)E", text)}
    from gpusim.validation.torch_head_buckets import BINARY_HEAD_DIMS

    assert sizes == set(BINARY_HEAD_DIMS)


def test_a_head_size_runs_padded_to_the_next_compiled_one_the_adopted_default():
    from gpusim.validation.torch_flash_bwd_schedule import bwd_head_dim_bucket
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    w = Workload(batch=2, heads=8, seq_len=2048, head_dim=160, dtype="bf16")
    assert (binary_head_dim(160), binary_head_dim(40), binary_head_dim(240)) == (192, 64, 256)
    assert executed(w).head_dim == 192 and bwd_head_dim_bucket(160) == 192  # on: set 45
    assert (torch_flash_schedule(w).block_m, torch_flash_schedule(w).warps) == (128, 8)
    with binary_buckets(False):  # off: as sets 15-44 had it
        assert executed(w) is w and bwd_head_dim_bucket(160) == 160
        assert torch_flash_schedule(w).block_n == 32  # the sources' d160 tile
    with pytest.raises(GpusimError, match="multiple of 8"):
        binary_head_dim(100)


PREDICTIONS = REPO_ROOT / "reports/torch_heldout45"


def test_committed_predictions_are_the_code_s():
    """A short d160 run's forward and backward by both models, each on one profile."""
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    rid = "bwd_b13h20_n640_d160_fp16_c0"
    for profile, model in zip(S.PROFILES, S.MODELS, strict=True):
        doc = json.loads((PREDICTIONS / f"predictions_{profile}_{model}.json").read_text())
        assert doc["rule"] == S.RULE and doc["model"] == model
        committed = {r["id"]: r for r in doc["runs"]}[rid]
        now = S.predict_run(runs[rid], profile, model)
        assert (now["fwd_s"], now["bwd_s"]) == (committed["fwd_s"], committed["bwd_s"]), model
        assert now["executed_head_dim"] == (192 if model == "buckets" else 160)


MEASURED = REPO_ROOT / "data/h100/2026-12-07_torch_heldout45_measured"


def test_two_measured_forwards_recomputed_by_both_models_and_the_rule_adopted_buckets():
    """The set came back on an H100: forward 24.8 % (mean -24.8 %) before, 7.4 % (-6.1 %)
    with the binary's head sizes, which the rule adopted. Recomputed from the code: two short
    runs, d160 (-29.7 % -> +1.9 %) and d40 (-33.6 % -> -13.9 %)."""
    import gpusim
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule
    from tests.validation.conftest import measured_runs

    measured = measured_runs(MEASURED, "H100", S.N_RUNS)
    runs = {r["id"]: r for r in S.manifest_runs(S.RUNS)}
    err = {}
    for rid in ("bwd_b13h20_n640_d160_fp16_c0", "bwd_b21h12_n768_d40_bf16_c0"):
        for model in S.MODELS:
            with binary_buckets(model == "buckets"):
                w = executed(workload(runs[rid], "fwd"))
                now = gpusim.simulate("flash2", w, torch_flash_schedule(w), "h100-sxm5")
            err[rid, model] = now.runtime_s / measured[rid]["fwd"]["median_s"] - 1
    assert 0.0 < err["bwd_b13h20_n640_d160_fp16_c0", "buckets"] < 0.04, err
    assert -0.32 < err["bwd_b13h20_n640_d160_fp16_c0", "before"] < -0.27, err
    assert -0.16 < err["bwd_b21h12_n768_d40_bf16_c0", "buckets"] < -0.12, err
    assert -0.36 < err["bwd_b21h12_n768_d40_bf16_c0", "before"] < -0.31, err
    # the launch trace: the sources' d144 and d160 kernels are not what ran (the d192 one did)
    for rid, r in measured.items():
        assert r["tiles_match"] == (runs[rid]["head_dim"] not in (144, 160)), rid
