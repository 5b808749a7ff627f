"""Decode set 1 of the Hopper kernel's split-KV and GQA instances: fixed before measuring."""

import json
from pathlib import Path

from gpusim.reporting import wgmma_decode_set as D
from gpusim.reporting import wgmma_decode_sets as S

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "reports/kernels/wgmma/decode_set1"


def test_the_committed_manifest_is_the_codes():
    committed = json.loads((FOLDER / "manifest.json").read_text())
    assert committed == D.manifest()
    for p in D.PROFILES:
        doc = json.loads((FOLDER / f"predictions_{p}.json").read_text())
        assert doc["manifest_sha256"] == committed["configs_sha256"]
        assert set(doc["predictions"]) == {D.config_id(c) for c in S.SET1.configs}


def test_instances_follow_the_workload_and_schedule():
    for c in S.SET1.configs + S.SET2.configs + D.CHECKS:
        w, s, inst = D.workload(c), D.schedule(c), D.instance(c)
        assert inst.gqa == (w.kv_heads != w.heads) and inst.split == (s.kv_splits > 1)
        assert (inst.block_m, inst.block_n, inst.stages) == (s.block_m, s.block_n, s.stages)
        assert inst.head_dim == w.head_dim and inst.dtype == w.dtype


def test_compare_counts_only_clean_runs_and_leaves_the_reference_out():
    ids = [D.config_id(c) for c in S.SET1.configs]
    rows = [{"id": i, "median_s": 1e-3, "nan_count": 0, "max_abs_err": 1e-3,
             "torch_max_abs_err": 1e-3} for i in ids]  # fmt: skip
    rows[1]["nan_count"] = 3
    rows[2]["max_abs_err"] = 5e-3  # over twice PyTorch's
    pred = {"profile": "h100-sxm5", "predictions": {i: {"runtime_s": 1.1e-3} for i in ids}}
    out = D.compare({"rows": rows}, [pred])
    model = out["methods"]["h100-sxm5"]["model"]
    assert out["not_counted"] == sorted(ids[1:3])
    assert model["n"] == len(ids) - 3 and abs(model["mape"] - 0.1) < 1e-9
    assert out["methods"]["h100-sxm5"]["constant_efficiency"]["reference"] == ids[0]
