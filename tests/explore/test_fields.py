"""Profile fields by name: the varied profile is the schema's, shared memory stays coupled."""

from __future__ import annotations

import pytest

import gpusim
from gpusim.errors import GpusimError
from gpusim.explore.fields import (
    coerce_value,
    describe_fields,
    variable_fields,
    varied_profile,
)
from gpusim.profiles.schema import PLAUSIBLE
from gpusim.tuning.sram import with_sram_bytes

BASE = gpusim.load_profile("h200-sxm-datasheet")


def test_numeric_fields_are_variable_and_typed():
    fields = variable_fields()
    assert fields["sm_count"] is int and fields["l2_bytes"] is int
    assert fields["dram_bandwidth_bytes_per_s"] is float
    assert fields["mma_sync_flops_per_clk_per_sm.bf16"] is float
    assert fields["cta_duration_scatter"] is float  # a fraction
    assert "name" not in fields and "smem_carveout_steps_kib" not in fields  # not numbers
    # Every bounded quantity of the schema can be varied.
    assert set(PLAUSIBLE) <= {k.partition(".")[0] for k in fields}


def test_a_varied_profile_changes_only_what_was_asked_and_says_so():
    p = varied_profile(BASE, {"sm_count": 66, "mma_sync_flops_per_clk_per_sm.bf16": 2048.0})
    assert p.sm_count.value == 66 and "gpusim explore" in p.sm_count.source
    assert p.mma_sync_flops_per_clk_per_sm.bf16.value == 2048.0
    assert p.mma_sync_flops_per_clk_per_sm.fp16 == BASE.mma_sync_flops_per_clk_per_sm.fp16
    same = {"sm_count", "mma_sync_flops_per_clk_per_sm"}
    assert all(getattr(p, k) == getattr(BASE, k) for k in type(BASE).model_fields if k not in same)


@pytest.mark.parametrize("per_sm_bytes", [98304, 131072, 233472])
def test_smem_per_sm_sets_the_per_block_size_as_sram_kib_does(per_sm_bytes):
    reserved = BASE.smem_reserved_per_block_bytes.value
    p = varied_profile(BASE, {"smem_per_sm_bytes": per_sm_bytes})
    assert p.smem_per_sm_bytes.value == per_sm_bytes
    assert p == with_sram_bytes(BASE, per_sm_bytes - reserved)
    q = varied_profile(BASE, {"smem_per_block_bytes": per_sm_bytes - reserved})
    assert q.smem_per_sm_bytes == p.smem_per_sm_bytes


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"sm_count": 5000}, "sm_count.value: 5000 is outside the plausible range 1 .. 4096"),
        ({"smem_per_sm_bytes": 100000}, "not a multiple of 128"),
        ({"smem_per_sm_bytes": 512}, "reservation"),
        ({"smem_per_sm_bytes": 98304, "smem_per_block_bytes": 1024}, "not both"),
        ({"max_threads_per_block": 2048, "max_warps_per_sm": 32}, "max_threads_per_block"),
    ],
)
def test_values_the_schema_refuses_are_one_line_errors_naming_the_field(params, expected):
    with pytest.raises(GpusimError) as e:
        varied_profile(BASE, params)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_values_are_coerced_to_the_fields_type():
    assert coerce_value("l2_bytes", 5.0e7) == 50_000_000
    assert isinstance(coerce_value("l2_bytes", 5.0e7), int)
    assert coerce_value("dram_bandwidth_bytes_per_s", "4.8e12") == 4.8e12  # YAML 1.1's 1e9
    for bad, why in [(1.5, "whole number"), (True, "not a number"), ("x", "not a number")]:
        with pytest.raises(GpusimError, match=why):
            coerce_value("sm_count", bad)
    with pytest.raises(GpusimError, match="did you mean 'sm_count'"):
        coerce_value("sm_counts", 1)


def test_describe_lists_values_and_ranges():
    rows = {r["field"]: r for r in describe_fields(BASE)}
    assert rows["sm_count"]["value"] == BASE.sm_count.value
    assert (rows["sm_count"]["plausible_min"], rows["sm_count"]["plausible_max"]) == (1, 4096)
