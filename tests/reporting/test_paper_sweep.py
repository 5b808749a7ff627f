"""The paper-sweep predictions: FlashAttention-2's own tiles, a point per workload and
profile, and each profile's numbers listed with their sources."""

from __future__ import annotations

from gpusim.profiles import load_profile
from gpusim.reporting.paper_sweep import main, predict, workloads
from gpusim.reporting.profile_sources import sources_markdown
from gpusim.workload import Workload


def test_the_sweep_is_the_papers():
    ws = workloads()
    assert len(ws) == 24
    assert {w.batch * w.seq_len_q for w in ws} == {16384}
    assert {w.heads * w.head_dim for w in ws} == {2048}


def test_a_point_runs_flash_attention_2s_tiles_and_the_a100_is_slower():
    w = Workload(batch=2, heads=16, seq_len_q=1024, seq_len_k=1024, head_dim=128, dtype="fp16")
    h100 = predict(load_profile("h100-sxm5"), w)
    a100 = predict(load_profile("a100-sxm4-80gb"), w)
    assert (h100["block_m"], h100["block_n"], h100["warps"]) == (128, 64, 4)
    assert a100["runtime_s"] > 1.3 * h100["runtime_s"]  # 312 against ~650 dense TFLOP/s
    # the backward with its own tiles (FlashAttention-2's for 227 and 163 KiB per block)
    assert h100["bwd_schedule"] == a100["bwd_schedule"] == [64, 128, 8, 2]
    assert h100["bwd_runtime_s"] > 2 * h100["runtime_s"] and h100["bwd_tflops"] > 0
    flops = 4 * 2 * 16 * 1024 * 1024 * 128
    step = flops * 3.5 / (h100["runtime_s"] + h100["bwd_runtime_s"]) / 1e12
    assert abs(h100["step_tflops"] - step) < 0.01


def test_every_sourced_number_is_listed():
    p = load_profile("a100-sxm4-80gb")
    text = sources_markdown(p)
    assert "`sm_count` | 108 |" in text and "`mma_sync_flops_per_clk_per_sm.fp16`" in text
    assert all(line.count("|") >= 4 for line in text.splitlines() if line.startswith("| `"))
    # What no source gives is listed with what the engine does instead.
    assert "- `barrier_base_cycles`: barriers cost nothing" in text
    assert "another GPU's" not in text
    assert "another GPU's" in sources_markdown(load_profile("h100-sxm5"))


def test_an_unknown_profile_is_a_one_line_error(tmp_path, capsys):
    assert main(["--out", str(tmp_path), "--profiles", "h900"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpusim: error: unknown profile 'h900'") and err.count("\n") == 1
