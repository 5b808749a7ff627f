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
        (["simulate", "-a", "flash2", "--producer-warps", "1"], "warp-specialized"),
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


def test_the_default_class_given_explicitly_predicts_the_same(gpusim):
    a = gpusim("simulate", "-a", "flash2", "--json", *BASE)
    b = gpusim("simulate", "-a", "flash2", "--mma", "mma", "--json", *BASE)
    assert a.json()["runtime_s"] == b.json()["runtime_s"]
