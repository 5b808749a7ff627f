"""Statements of the command-line contract (../shared/CLI.md) that an audit found unkept."""

from __future__ import annotations

import pytest


def _one_line_error(result, *fragments: str) -> None:
    assert result.code == 2, (result.code, result.err)
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("gpusim: error: ")
    for f in fragments:
        assert f in lines[0], lines[0]


def test_calibrate_plan_refuses_an_unknown_base_profile(gpusim):
    # "non-zero with a one-line error ... on bad input: unknown profile": --plan says what a
    # run would do, and that run refuses the name, so the plan must too.
    _one_line_error(
        gpusim("calibrate", "--plan", "--base-profile", "no-such-gpu", "--json"),
        "unknown profile 'no-such-gpu'",
    )


def test_calibrate_plan_with_a_known_base_profile_still_plans(gpusim):
    result = gpusim("calibrate", "--plan", "--base-profile", "h100-sxm5", "--json")
    assert result.code == 0, result.err
    assert "benchmarks" in result.json()


def test_simulate_has_every_key_count_has(gpusim):
    # "simulate: everything count has, plus ...": the kernel description was count's alone.
    small = ("--algorithm", "flash2", "--batch", "1", "--heads", "2", "--seq-len", "256",
             "--head-dim", "64", "--json")  # fmt: skip
    counted = gpusim("count", *small).json()
    simulated = gpusim("simulate", *small).json()
    assert set(counted) - set(simulated) == set()
    assert simulated["kernel_description"] == counted["kernel_description"]


def test_a_flash2_option_on_the_default_pair_says_to_name_the_algorithm(gpusim):
    # Without --algorithm, simulate compares standard and flash2; standard has no split-KV.
    r = gpusim("simulate", "--kv-splits", "2", "--json")
    _one_line_error(r, "does not support --kv-splits 2", "name --algorithm flash2")


def test_fields_left_out_suit_the_ones_given(gpusim):
    # "Block sizes left out are chosen by the tuner's default rule": with --block-m 64 alone
    # the rest came from the 128-row default (8 warps: 8 rows a warp, which no mma.sync
    # kernel runs, and a warning said there was no instance); now from the rule's choices
    # with 64 rows.
    r = gpusim("simulate", "--algorithm", "flash2", "--block-m", "64", "--json")
    d = r.json()
    s = d["schedule"]
    assert s["block_m"] == 64 and s["block_m"] % (16 * s["warps"]) == 0
    assert d["warnings"] == [] and "block_m" not in d["defaults_used"]
    # the rule's own choice when nothing is pinned, and with a pin it already has
    full = gpusim("simulate", "--algorithm", "flash2", "--json").json()["schedule"]
    same = gpusim("simulate", "--algorithm", "flash2", "--block-m", str(full["block_m"]), "--json")
    assert same.json()["schedule"] == full


def test_tune_says_which_path_its_runtimes_come_from(gpusim):
    # A candidate's runtime_s is the aggregated path's: simulate on that path gives the same.
    small = ("--algorithm", "flash2", "--batch", "1", "--heads", "4", "--seq-len", "512",
             "--head-dim", "64")  # fmt: skip
    t = gpusim("tune", *small, "--json").json()
    assert t["detail"] == "aggregated"
    best = t["candidates"][0]
    pins = [x for k in ("block_m", "block_n", "warps", "stages", "kv_splits")
            for x in (f"--{k.replace('_', '-')}", str(best[k]))]  # fmt: skip
    s = gpusim("simulate", *small, *pins, "--detail", "aggregated", "--json").json()
    # (the split instance's registers may come from another build record: a few ppm)
    assert s["runtime_s"] == pytest.approx(best["runtime_s"], rel=1e-3)
