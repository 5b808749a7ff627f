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


def test_a_head_size_runs_padded_to_the_next_compiled_one_where_the_switch_is_on():
    from gpusim.validation.torch_flash_bwd_schedule import bwd_head_dim_bucket
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    w = Workload(batch=2, heads=8, seq_len=2048, head_dim=160, dtype="bf16")
    assert (binary_head_dim(160), binary_head_dim(40), binary_head_dim(240)) == (192, 64, 256)
    assert executed(w) is w and bwd_head_dim_bucket(160) == 160  # off: as set 44 had it
    assert torch_flash_schedule(w).block_n == 32  # the sources' d160 tile
    with binary_buckets(True):
        assert executed(w).head_dim == 192 and bwd_head_dim_bucket(160) == 192
        assert (torch_flash_schedule(w).block_m, torch_flash_schedule(w).warps) == (128, 8)
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
