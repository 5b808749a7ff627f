"""The main-loop walk of :mod:`gpusim.kernels.loop_extract` against the committed counts."""

from __future__ import annotations

import pytest

from gpusim.kernel_catalog.instances import all_instances
from gpusim.kernel_catalog.loop_counts import loop_counts
from gpusim.kernels.build import find_tool
from gpusim.kernels.loop_extract import count


@pytest.mark.skipif(find_tool("nvcc") is None or find_tool("cuobjdump") is None, reason="nvcc")
def test_committed_counts_are_what_the_compiler_gives():
    inst = next(i for i in all_instances() if i.key == "tc_bf16_d128_m128_n64_w8_s2")
    assert count([inst], jobs=1)[inst.key] == loop_counts()[inst.key]
