"""The search space: the tensor-core kernel's instances, or a model-only grid."""

from gpusim.tuning.space import TENSOR_CORE_SPACE, search_space
from gpusim.workload import Workload


def test_flash2_bf16_head_dim_128_is_the_kernel_instance_list():
    sp = search_space("flash2", Workload(head_dim=128, dtype="bf16"))
    assert sp.kernel_instances
    got = {(s.block_m, s.block_n, s.warps, s.stages) for s in sp.schedules}
    # Every warp needs a multiple of 16 query rows: Br 64 cannot take 8 warps.
    assert (64, 64, 8, 2) not in got
    assert (128, 64, 8, 2) in got and (64, 32, 4, 1) in got
    assert len(got) == len(sp.schedules) == (3 * 3) + (2 * 3 * 3)
    for s in sp.schedules:
        assert s.block_m in TENSOR_CORE_SPACE.block_m
        assert s.block_n in TENSOR_CORE_SPACE.block_n
        assert s.block_m % (16 * s.warps) == 0


def test_head_dim_without_instance_is_model_only():
    sp = search_space("flash2", Workload(head_dim=96, dtype="fp16"))
    assert not sp.kernel_instances and "model only" in sp.source
    assert sp.schedules


def test_other_algorithms_get_a_grid_with_their_warp_split():
    f1 = search_space("flash1", Workload())
    assert {s.warp_split for s in f1.schedules} == {"split-k"}
    naive = search_space("flash-naive-qkv", Workload())
    assert {s.block_m for s in naive.schedules} == {1}
