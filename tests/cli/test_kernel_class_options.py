"""--mma and the class options on the command line: impossible or untimed classes exit 2."""

from __future__ import annotations

import pytest

BASE = ["--seq-len", "256", "--batch", "1", "--heads", "2"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["simulate", "-a", "flash2", "--mma", "bogus"], "--mma"),
        (["simulate", "-a", "flash2", "--mma", "wgmma", "--dtype", "fp32"], "impossible"),
        (
            ["simulate", "-a", "flash2", "--mma", "wgmma", "--profile", "h200-sxm-datasheet"],
            "lacks the measured wgmma rates",
        ),
        (
            ["tune", "--mma", "wgmma", "--profile", "h200-sxm-datasheet"],
            "lacks the measured wgmma rates",
        ),
        (["tune", "--tile-copy", "tma"], "compiled kernels"),
        (["tune", "--o-store", "fragments"], "compiled kernels"),
        (["simulate", "-a", "flash2", "--producer-warps", "1"], "warp-specialized"),
        (["simulate", "-a", "flash2", "--o-store", "scattered"], "--o-store"),
        (
            ["simulate", "-a", "flash2", "--o-store", "fragments", "--profile", "a100-sxm4-80gb"],
            "lacks fragment_store_bytes_per_clk_per_sm",
        ),
    ],
)
def test_bad_classes_exit_2_with_one_line(gpusim, args, says):
    r = gpusim(*args, *BASE)
    assert r.code == 2 and r.out == ""
    err = r.err.strip()
    assert err.startswith("gpusim: error:") and says in err and "\n" not in err


def test_count_describes_a_wgmma_kernel(gpusim):
    r = gpusim("count", "--mma", "wgmma", "--json", *BASE)
    assert r.code == 0
    desc = r.json()["kernel_description"]
    assert desc["class"]["product"] == "wgmma" and desc["step_mix"]["per_compute_warp"]["HGMMA"] > 0
    # the project's wgmma kernel stores O from its accumulators; mma.sync's stages it
    assert desc["class"]["o_store"] == "fragments"
    mma = gpusim("count", "--json", *BASE).json()["kernel_description"]["class"]
    assert mma["o_store"] == "staged"


def test_fragment_stores_cost_the_mma_kernel_time_too(gpusim):
    a = gpusim("simulate", "-a", "flash2", "--json", *BASE).json()
    b = gpusim("simulate", "-a", "flash2", "--o-store", "fragments", "--json", *BASE).json()
    assert b["runtime_s"] > a["runtime_s"] and b["schedule"]["o_store"] == "fragments"
    assert "o_store" not in a["schedule"]  # a default class field is left out of the dump


def test_the_default_class_given_explicitly_predicts_the_same(gpusim):
    a = gpusim("simulate", "-a", "flash2", "--json", *BASE)
    b = gpusim("simulate", "-a", "flash2", "--mma", "mma", "--json", *BASE)
    assert a.json()["runtime_s"] == b.json()["runtime_s"]


def test_mma_sync_is_the_contracts_spelling_of_mma(gpusim):
    # shared/CLI.md names the product instruction mma.sync; it is the class mma.
    a = gpusim("simulate", "-a", "flash2", "--mma", "mma", "--json", *BASE).json()
    b = gpusim("simulate", "-a", "flash2", "--mma", "mma.sync", "--json", *BASE).json()
    assert b["schedule"]["mma"] == "mma" and a["runtime_s"] == b["runtime_s"]
