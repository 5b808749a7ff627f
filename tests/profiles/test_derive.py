"""The derived H100 profile: the committed file is what the derivation gives, and every
number says whether it is an H100 fact, an H200 measurement kept, or derived by a rule."""

from __future__ import annotations

import pytest
import yaml

from gpusim.errors import GpusimError
from gpusim.profiles import load_profile
from gpusim.profiles.derive import derive, main, render
from gpusim.profiles.loader import profile_path


def _sourced(entry):
    if isinstance(entry, dict) and "source" in entry:
        yield entry
    elif isinstance(entry, dict):
        for v in entry.values():
            yield from _sourced(v)


@pytest.mark.parametrize("name", ["h100-sxm5", "h100-sxm5-core"])
def test_the_committed_h100_profile_is_the_derivation(name):
    assert profile_path(name).read_text() == render(name)


def test_the_core_profile_is_the_h100_with_the_h200s_core_cycles():
    pipe, core = derive("h100-sxm5"), derive("h100-sxm5-core")
    assert "sass_core_cycles" not in pipe
    assert core["sass_core_cycles"]["value"] == derive_base_core_cycles()
    assert core["sass_core_cycles"]["source"].startswith("not measured on an H100")
    rest = {k: v for k, v in core.items() if k not in ("name", "display_name", "note",
                                                       "sass_core_cycles")}  # fmt: skip
    assert rest == {k: v for k, v in pipe.items() if k not in ("name", "display_name", "note")}


def derive_base_core_cycles():
    return load_profile("h200-sxm-core").sass_core_cycles.value


def test_every_h100_number_names_where_it_comes_from():
    h100 = derive("h100-sxm5")
    for key, entry in h100.items():
        for e in _sourced(entry):
            src = e["source"]
            if "H200" in src:  # an H200 number may only be kept or derived, and say so
                assert src.startswith(("not measured on an H100", "derived:")), (key, src)


def test_the_memory_system_is_the_h100s_and_the_sm_the_h200s():
    h100, h200 = load_profile("h100-sxm5"), load_profile("h200-sxm")
    assert h100.l2_bytes.value == 50 * 2**20 and h100.dram_bytes.value == 80 * 2**30
    ratio = h100.dram_bandwidth_bytes_per_s.value / h200.dram_bandwidth_bytes_per_s.value
    assert ratio == pytest.approx(3.35 / 4.8)
    for dtype in ("fp16", "bf16", "tf32"):
        a = getattr(h100.mma_sync_flops_per_clk_per_sm, dtype)
        assert a.value == getattr(h200.mma_sync_flops_per_clk_per_sm, dtype).value
    assert h100.step_efficiency_1_warp_per_scheduler.value == (
        h200.step_efficiency_1_warp_per_scheduler.value
    )


def test_littles_law_gives_the_lower_peak_a_larger_share_of_each_amount_in_flight():
    h100 = derive("h100-sxm5")["dram_share_by_inflight"]["value"]
    h200 = yaml.safe_load(profile_path("h200-sxm").read_text())["dram_share_by_inflight"]["value"]
    assert [x for x, _ in h100] == [x for x, _ in h200]
    for (_, a), (_, b) in zip(h100, h200, strict=True):
        assert b <= a <= 1.0
    assert any(a > b for (_, a), (_, b) in zip(h100, h200, strict=True))


def test_the_l2_loss_curve_moves_with_the_l2_size():
    h100 = derive("h100-sxm5")["l2_loss_by_depth"]["value"]
    h200 = yaml.safe_load(profile_path("h200-sxm").read_text())["l2_loss_by_depth"]["value"]
    assert [s for _, s in h100] == [s for _, s in h200]
    assert h100[-1][0] == pytest.approx(h200[-1][0] * (50 * 2**20) / (60 * 2**20), abs=1)


def test_an_unknown_derivation_is_a_one_line_error(capsys):
    with pytest.raises(GpusimError, match="no derivation for profile 'b200'; derived: h100-sxm5"):
        derive("b200")
    assert main(["b200"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpusim: error: ") and err.count("\n") == 1
