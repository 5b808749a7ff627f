"""--mma wgmma on the command line: timed on the measured Hopper profiles, one-line errors
naming the rule elsewhere (exit 2), and tune over the wgmma tile space or the user's."""

from __future__ import annotations

import pytest

BASE = ["--seq-len", "256", "--batch", "1", "--heads", "2", "--dtype", "bf16"]
WG = ["--mma", "wgmma", "--warps", "8", "--block-m", "128", "--block-n", "128"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--profile", "a100-sxm4-80gb"], "has no wgmma"),
        (["--profile", "l40s", "--block-n", "64"], "has no wgmma"),
        (["--profile", "rtx-4090", "--block-n", "64"], "has no wgmma"),
        (["--dtype", "fp32"], "impossible with fp32"),
        (["--block-m", "64"], "multiple of 64 query rows"),
        (["--block-n", "100"], "multiple of 8 from 8 to 256"),
        (["--block-n", "264"], "multiple of 8 from 8 to 256"),
    ],
)
def test_bad_wgmma_input_exits_2_naming_the_rule(gpusim, args, says):
    r = gpusim("simulate", "-a", "flash2", *BASE, *WG, *args)
    assert r.code == 2 and r.out == ""
    err = r.err.strip()
    assert err.startswith("gpusim: error:") and says in err and "\n" not in err


@pytest.fixture
def profile_file(tmp_path):
    import yaml

    from tests.engine.wgmma_fixture import wgmma_profile

    path = tmp_path / "h200-wgmma-test.yaml"
    path.write_text(yaml.safe_dump(wgmma_profile().model_dump(exclude_none=True)))
    return str(path)


def test_simulate_wgmma_runs_on_a_hopper_profile_with_the_rates(gpusim, profile_file):
    r = gpusim("simulate", "-a", "flash2", *BASE, *WG, "--profile", profile_file, "--json")
    assert r.code == 0, r.err
    assert r.json()["runtime_s"] > 0


def test_tune_wgmma_ranks_a_user_tile_space_and_says_why_it_rejects(gpusim, profile_file):
    space = "block_m=128,96;block_n=64,128,100;warps=8;stages=2"
    r = gpusim("tune", "--mma", "wgmma", *BASE, "--tile-space", space, "--json",
               "--profile", profile_file)  # fmt: skip
    assert r.code == 0, r.err
    out = r.json()
    got = {(c["schedule"]["block_m"], c["schedule"]["block_n"]) for c in out["candidates"]}
    assert got == {(128, 64), (128, 128)}
    reasons = " ".join(x["reason"] for x in out["rejected"])
    assert "multiple of 8 from 8 to 256" in reasons and "multiple of 64 query rows" in reasons


def test_a_bad_tile_space_is_one_line(gpusim):
    r = gpusim(
        "tune", "--mma", "wgmma", *BASE, "--tile-space", "block_q=64", "--profile", "h200-sxm"
    )
    assert r.code == 2 and "--tile-space" in r.err and "\n" not in r.err.strip()
