"""The catalogue says which long-context fields no CUDA kernel implements, and refuses them."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import instance_for, unimplemented
from gpusim.schedule import Schedule
from gpusim.workload import Workload

W = Workload(dtype="bf16")
F32 = Workload(dtype="fp32", head_dim=64)
F32_TILE = {"block_m": 64, "warps": 8}


@pytest.mark.parametrize(
    ("w", "s", "field", "option"),
    [
        (
            F32.model_copy(update={"heads_kv": 8}),
            Schedule(pack_gqa=True, **F32_TILE),
            "pack_gqa",
            "--pack-gqa",
        ),
        (F32, Schedule(kv_splits=4, **F32_TILE), "kv_splits", "--kv-splits 4"),
        (F32, Schedule(kv_order="backward", **F32_TILE), "kv_order", "--kv-order backward"),
        (F32, Schedule(q_order="first-first", **F32_TILE), "q_order", "--q-order first-first"),
        (F32.model_copy(update={"heads_kv": 8}), Schedule(**F32_TILE), "heads_kv", "--heads-kv"),
    ],
)
def test_a_field_the_kernels_lack_has_no_instance(w, s, field, option):
    assert field in unimplemented(w, s)
    with pytest.raises(GpusimError) as e:
        instance_for(w, s)
    assert option in str(e.value) and "modelled only" in str(e.value)


@pytest.mark.parametrize(
    ("w", "s"),
    [
        (W, Schedule()),
        (W, Schedule(kv_splits=4)),
        (W, Schedule(kv_order="backward", q_order="first-first")),
        (Workload(dtype="bf16", heads_kv=8), Schedule()),
    ],
)
def test_the_tensor_core_kernel_implements_splits_orders_and_gqa(w, s):
    assert unimplemented(w, s) == {}
    assert instance_for(w, s).base().key == "tc_bf16_d128_m128_n64_w4_s2"
