"""The wgmma microbenchmark's record: the profile's wgmma fields recomputed from the raw run
(data/h200/2026-12-03_calibration_wgmma), the generated wrappers current, the layout check."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gpusim.calibrate import wgmma_record
from gpusim.calibrate.wgmma_check import accumulators, check_product, operand_words, smem_tile
from gpusim.calibrate.wgmma_ops import HEADER, header_text
from gpusim.profiles import load_profile

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / wgmma_record.FOLDER / "wgmma-h200.json"


#: The record's tests wait for the run (the device calls found no machine): said, not hidden.
NO_RUN = pytest.mark.skipif(not RECORD.exists(), reason=f"no wgmma run recorded yet ({RECORD})")


@pytest.fixture(scope="module")
def record():
    return json.loads(RECORD.read_text())


def test_the_committed_wrappers_are_the_generator_s():
    assert HEADER.read_text() == header_text()


@NO_RUN
@pytest.mark.parametrize("name", ["h200-sxm", "h100-sxm5"])
def test_the_profiles_wgmma_fields_come_from_the_raw_run(record, name):
    p = load_profile(name)
    want = wgmma_record.profile_entries(record)
    assert p.wgmma_rate_by_n.value == {k: [tuple(r) for r in v] for k, v in
                                       want["wgmma_rate_by_n"]["value"].items()}  # fmt: skip
    assert p.sm_clock_wgmma_load_hz.value == want["sm_clock_wgmma_load_hz"]["value"]
    for dtype in ("fp16", "bf16"):
        got = getattr(p.wgmma_flops_per_clk_per_sm, dtype)
        assert got.value == want["wgmma_flops_per_clk_per_sm"][dtype]["value"]
        assert wgmma_record.FOLDER in got.source
    for share in ("same_warpgroup", "other_warpgroup", "two_warpgroups"):
        field = getattr(p, f"wgmma_softmax_overlap_{share}")
        assert field.value == want[f"wgmma_softmax_overlap_{share}"]["value"]
        assert wgmma_record.FOLDER in field.source


@NO_RUN
def test_the_run_is_sound(record):
    rates = wgmma_record.rate_rows(record)
    assert rates and all(r["outputs_finite"] for r in rates)
    assert all(c["ok"] for c in record["checks"]), [c for c in record["checks"] if not c["ok"]]
    # Rate per N never falls much as N grows at the table's shape (larger tiles amortise issue).
    for key, rows in wgmma_record.rate_table(record).items():
        vals = [r for _, r in rows]
        assert vals[-1] >= 0.9 * max(vals), key


def test_profiles_without_wgmma_keep_none():
    for name in ("a100-sxm4-80gb", "l40s", "rtx-4090"):
        p = load_profile(name)
        assert p.wgmma_rate_by_n is None and p.sm_clock_wgmma_load_hz is None


def test_the_layout_check_fails_on_a_wrong_product():
    words = operand_words(np.random.default_rng(0), "bf16", 1 << 12)
    n = 32
    b = smem_tile(words, 0, n, "bf16", 1)
    a = smem_tile(words, n * 128, 64, "bf16", 1)
    ref = a @ b.T
    got = np.zeros(128 * n // 2)
    for t in range(128):
        w, lane = divmod(t, 32)
        for i in range(n // 2):
            j, q = divmod(i, 4)
            got[t * n // 2 + i] = ref[
                16 * w + lane // 4 + 8 * (q // 2), 8 * j + 2 * (lane % 4) + q % 2
            ]
    assert np.allclose(accumulators(got, n), ref)
    assert check_product(got, words, n, "bf16", False, 1)["ok"]
    assert not check_product(got, words, n, "bf16", False, 0)["ok"]  # the other layout


@NO_RUN
def test_no_one_cta_rate_row_beats_the_whitepaper_ceiling(record):
    # 4096 FLOP/clk/SM dense fp16/bf16 (H100 whitepaper: 989.4 TFLOPS = 132 SMs x 4096 x
    # 1.83 GHz). A rate above it means the per-clock reduction is wrong, not a fast GPU.
    rows = [r for r in wgmma_record.rate_rows(record) if r["ctas_per_sm"] == 1]
    assert rows
    worst = max(rows, key=lambda r: r["flops_per_clk_per_sm"])
    assert worst["flops_per_clk_per_sm"] <= 4096 * 1.005, worst["kernel"]
    # and the best reaches it: the loop is not starved at the table's shape
    assert worst["flops_per_clk_per_sm"] >= 4096 * 0.95
