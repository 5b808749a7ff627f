"""The heatmap file and the text report of ``gpusim tune`` (stand-in engine)."""

from gpusim.tuning.plot import heatmap
from gpusim.tuning.render import render_text
from gpusim.tuning.space import search_space
from gpusim.tuning.tuner import tune
from gpusim.workload import Workload

W = Workload(batch=1, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="fp16")


def test_heatmap_writes_a_png_with_missing_cells(tmp_path, h200, fake_simulate):
    r = tune("flash2", W, h200, sram_bytes=40 * 1024, simulate=fake_simulate)
    assert r.rejected  # some cells have nothing that fits
    out = heatmap(
        [(c.schedule, c.runtime_s) for c in r.candidates],
        search_space("flash2", W).schedules,
        tmp_path / "tune.png",
        "test",
    )
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000


def test_text_report_lists_candidates_rules_and_rejections(h200, fake_simulate):
    r = tune("flash2", W, h200, sram_bytes=40 * 1024, simulate=fake_simulate)
    assert all(len(line) <= 80 for line in render_text(r, width=80).splitlines())
    text = render_text(r, width=400)  # wide: each reason on one line
    lines = text.splitlines()
    assert "40 KiB per CTA (--sram-kib)" in lines[0]
    assert sum(1 for ln in lines if ln.lstrip().split(" ")[0].isdigit()) >= len(r.candidates)
    assert "FlashAttention paper" in text and "seed 000" in text
    assert f"Rejected ({len(r.rejected)})" in text
    assert all(x.reason in text for x in r.rejected)
