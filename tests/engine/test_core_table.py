"""The committed core-model replays (gpusim/engine/core_step_cycles.json)
are the model's: same cycles, same phase count, and a sample replayed again equal to the entries."""

from __future__ import annotations

import json

import pytest

from gpusim.engine import core_table
from gpusim.engine.core_model import PHASES, CoreTiming
from gpusim.profiles.loader import load_profile


@pytest.fixture(scope="module")
def profile():
    return load_profile(core_table.PROFILE)


@pytest.fixture(scope="module")
def table():
    return json.loads(core_table.TABLE.read_text())


def test_the_table_is_replayed_with_the_profiles_cycles(profile, table):
    c = profile.sass_core_cycles.value
    bw = profile.smem_bandwidth_bytes_per_clk_per_sm.value
    scheds = profile.warp_schedulers_per_sm.value
    assert table["timing"] == core_table.timing_key(c, bw, scheds)
    assert table["phases"] == PHASES


def test_every_launch_the_profile_can_hold_has_an_entry(profile, table):
    want = {core_table.entry_key(k, n) for k, n, _w in core_table.launches(profile)}
    assert want == set(table["step_cycles"])
    assert len(want) > 300


@pytest.mark.parametrize(
    "instance, ctas",
    [("tc_bf16_d128_m128_n128_w8_s2", 1), ("tc_bf16_d64_m128_n64_w4_s3", 2),
     ("tc_bf16_d128_m64_n32_w4_s2", 3), ("tc_bf16_d128_m64_n64_w4_s2_split", 2)],
)  # fmt: skip
def test_a_sample_replays_to_the_committed_cycles(profile, table, instance, ctas):
    timing = CoreTiming.from_profile(profile)
    warps = int(instance.split("_w")[1].split("_")[0])
    got = core_table.replay((instance, ctas, warps), timing)
    assert got == table["step_cycles"][core_table.entry_key(instance, ctas)]


def test_other_cycles_are_not_answered_from_the_table(profile):
    c = dict(profile.sass_core_cycles.value)
    bw = profile.smem_bandwidth_bytes_per_clk_per_sm.value
    scheds = profile.warp_schedulers_per_sm.value
    key = "tc_bf16_d128_m128_n128_w8_s2"
    assert core_table.lookup(key, 1, c, bw, scheds) is not None
    assert core_table.lookup(key, 1, c, bw, scheds + 1) is None
    c["hmma_pipe"] += 1.0
    assert core_table.lookup(key, 1, c, bw, scheds) is None
