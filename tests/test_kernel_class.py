"""The implementation class: defaults are the project's kernels; impossible classes are one line."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_class import resolve_class
from gpusim.schedule import Schedule


def test_defaults_are_the_project_kernels():
    assert resolve_class(Schedule(), "bf16").product == "mma"
    assert resolve_class(Schedule(), "fp32").product == "ffma"
    assert resolve_class(Schedule(), "fp16").is_project_kernel


@pytest.mark.parametrize(
    ("fields", "dtype", "says"),
    [
        ({"mma": "wgmma"}, "fp32", "impossible with fp32"),
        ({"mma": "mma"}, "fp32", "impossible with fp32"),
        ({"mma": "ffma"}, "bf16", "impossible with bf16"),
        ({"mma": "wgmma", "warps": 2}, "bf16", "whole warpgroups"),
        ({"mma": "wgmma", "warps": 8, "block_m": 64}, "bf16", "multiple of 128"),
    ],
)
def test_impossible_classes_are_one_line_errors(fields, dtype, says):
    with pytest.raises(GpusimError, match=says) as e:
        resolve_class(Schedule(**fields), dtype)
    assert "\n" not in str(e.value)


def test_wgmma_is_described_with_its_warpgroups():
    cls = resolve_class(Schedule(mma="wgmma", warps=8, block_m=128), "bf16")
    assert cls.consumer_warpgroups == 2 and not cls.is_project_kernel
