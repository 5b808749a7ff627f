"""The search space: the tensor-core kernel's instances, or a model-only grid."""

from gpusim.kernel_catalog import instances as ki
from gpusim.tuning.space import search_space
from gpusim.workload import Workload


def _key(s):
    return (s.block_m, s.block_n, s.warps, s.stages)


def test_flash2_bf16_head_dim_128_is_the_kernel_grid():
    sp = search_space("flash2", Workload(head_dim=128, dtype="bf16"))
    assert sp.kernel_instances
    assert len(sp.schedules) == 2 * 3 * 2 * 3
    unsupported = {_key(s): why for s, why in sp.unsupported.items()}
    # Every warp needs a multiple of 16 query rows: Br 64 cannot take 8 warps.
    assert "16*warps" in unsupported[(64, 64, 8, 2)]
    assert (128, 64, 8, 2) not in unsupported and (64, 32, 4, 1) not in unsupported
    # The kernel's instance list (shared memory aside) is exactly what is supported.
    runnable = {
        _key(i.schedule())
        for i in ki.all_instances("tc", 1 << 40)
        if i.dtype == "bf16" and i.head_dim == 128
    }
    assert runnable == {_key(s) for s in sp.schedules} - set(unsupported)


def test_fp32_uses_the_simt_kernel():
    sp = search_space("flash2", Workload(head_dim=64, dtype="fp32"))
    assert sp.kernel_instances and "simt" in sp.source


def test_head_dim_without_instance_is_model_only():
    sp = search_space("flash2", Workload(head_dim=96, dtype="fp16"))
    assert not sp.kernel_instances and "model only" in sp.source
    assert sp.schedules


def test_other_algorithms_get_a_grid_with_their_warp_split():
    f1 = search_space("flash1", Workload())
    assert {s.warp_split for s in f1.schedules} == {"split-k"}
    naive = search_space("flash-naive-qkv", Workload())
    assert {s.block_m for s in naive.schedules} == {1}
