"""backward_compare: the errors, the baselines and what is missing, on made-up measurements."""

from __future__ import annotations

import json

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.reporting.backward_compare import compare, main, roofline_s
from gpusim.workload import Workload

RUN = {"batch": 2, "heads": 4, "heads_kv": 4, "seq_len_q": 1024, "seq_len_k": 1024,
       "head_dim": 64, "dtype": "bf16", "causal": False}  # fmt: skip
MANIFEST = {"set": "t", "runs": [RUN | {"id": "a"}, RUN | {"id": "b", "causal": True}]}
PREDICTIONS = {
    "profile": "h200-sxm",
    "commit": "x",
    "runs": [
        {"id": "a", "bwd_s": 1.1e-3, "fwd_s": 0.5e-3, "fwd_bwd_s": 1.6e-3,
         "bwd_flops": 250, "fwd_flops": 100},
        {"id": "b", "bwd_s": 1.0e-3, "fwd_s": 0.4e-3, "fwd_bwd_s": 1.4e-3,
         "bwd_flops": 250, "fwd_flops": 100},
    ],
}  # fmt: skip


def _measured(status_b: str = "ok") -> dict:
    timing = {"bwd": {"median_s": 1.0e-3}, "fwd": {"median_s": 0.5e-3},
              "fwd_bwd": {"median_s": 1.5e-3}}  # fmt: skip
    return {"a": {"id": "a", "status": "ok"} | timing,
            "b": {"id": "b", "status": status_b, "error": "wrong result"} | timing}  # fmt: skip


def test_errors_and_the_forward_scaled_baseline():
    out = compare(MANIFEST, PREDICTIONS, _measured(), load_profile("h200-sxm"))
    bwd = out["summary"]["bwd"]
    assert bwd["model"]["n"] == 2
    assert bwd["model"]["mape"] == pytest.approx((0.1 + 0.0) / 2)
    assert bwd["model"]["mean_signed"] == pytest.approx(0.05)
    # the backward at the forward's measured efficiency: 0.5 ms x 250/100 = 1.25 ms
    assert bwd["constant_efficiency"]["mape"] == pytest.approx(0.25)
    step = out["summary"]["fwd_bwd"]["model"]
    assert step["mean_signed"] == pytest.approx(0.0) and step["mape"] == pytest.approx(0.1 / 1.5)
    assert out["missing"] == []


def test_a_failed_run_is_missing_not_dropped():
    out = compare(MANIFEST, PREDICTIONS, _measured("failed"), load_profile("h200-sxm"))
    assert out["summary"]["bwd"]["model"]["n"] == 1
    assert out["missing"] == [{"id": "b", "why": "wrong result"}]


def test_roofline_counts_the_backward():
    hw = load_profile("h200-sxm")
    w = Workload(batch=1, heads=16, seq_len_q=16384, seq_len_k=16384, head_dim=128, dtype="bf16")
    assert roofline_s(w, "bwd", hw) > 2.4 * roofline_s(w, "fwd", hw)  # compute-bound: 2.5x
    assert w.model_copy(update={"pass_": "bwd"}).compulsory_bytes() == 2 * w.compulsory_bytes()


def test_main_writes_and_refuses_a_missing_folder(tmp_path, capsys):
    m, p = tmp_path / "m.json", tmp_path / "p.json"
    m.write_text(json.dumps(MANIFEST))
    p.write_text(json.dumps(PREDICTIONS))
    assert main(["--manifest", str(m), "--predictions", str(p), "--measured", str(tmp_path)]) == 2
    assert "no measured runs" in capsys.readouterr().err
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in _measured().values()))
    out = tmp_path / "c.json"
    args = ["--manifest", str(m), "--predictions", str(p), "--measured", str(tmp_path)]
    assert main([*args, "--out", str(out)]) == 0
    assert json.loads(out.read_text())["summary"]["bwd"]["model"]["n"] == 2
