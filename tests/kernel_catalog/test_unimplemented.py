"""The catalogue says which long-context fields no CUDA kernel implements yet, and refuses them."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import instance_for, unimplemented
from gpusim.schedule import Schedule
from gpusim.workload import Workload

W = Workload(dtype="bf16")


@pytest.mark.parametrize(
    ("w", "s", "field", "option"),
    [
        (W, Schedule(kv_splits=4), "kv_splits", "--kv-splits 4 (split and combine kernels)"),
        (W, Schedule(kv_order="backward"), "kv_order", "--kv-order backward"),
        (W, Schedule(q_order="first-first"), "q_order", "--q-order first-first"),
        (Workload(dtype="bf16", heads_kv=8), Schedule(), "heads_kv", "--heads-kv 8"),
        (Workload(dtype="bf16", heads_kv=8), Schedule(pack_gqa=True), "pack_gqa", "--pack-gqa"),
    ],
)
def test_a_field_the_kernels_lack_has_no_instance(w, s, field, option):
    assert field in unimplemented(w, s)
    with pytest.raises(GpusimError) as e:
        instance_for(w, s)
    assert option in str(e.value) and "modelled only" in str(e.value)


def test_the_default_fields_keep_their_instance():
    assert unimplemented(W, Schedule()) == {}
    assert instance_for(W, Schedule()).key == "tc_bf16_d128_m128_n64_w4_s2"
