"""On a machine with an NVIDIA GPU and CuPy: a few instances against the float64 reference."""

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernels import runner as runner_mod
from gpusim.schedule import Schedule
from gpusim.workload import Workload

try:
    runner_mod.import_cupy()
    HAVE_GPU = True
except GpusimError:
    HAVE_GPU = False

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not HAVE_GPU, reason="needs CuPy and a GPU")]


@pytest.fixture(scope="module")
def runner():
    return runner_mod.Flash2Runner()


def test_fp32_instance_is_exact_to_1e5(runner):
    from gpusim.kernels.check import check_instances

    inst = KernelInstance("simt", "fp32", 64, 64, 32, 8, 2)
    for rec in check_instances(runner, [inst]):
        assert rec["ok"], rec


def test_tc_instance_has_bf16_level_error(runner):
    from gpusim.kernels.check import check_instances

    inst = KernelInstance("tc", "bf16", 128, 128, 64, 4, 2)
    for rec in check_instances(runner, [inst]):
        assert rec["nan_count"] == 0 and rec["guard_intact"], rec
        assert rec["rel_err"] < 1e-2, rec


def test_wrong_dtype_and_layout_are_refused(runner):
    cp = runner.cp
    w = Workload(batch=1, heads=1, seq_len_q=64, seq_len_k=64, head_dim=64, dtype="fp16")
    s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
    q = cp.ones((1, 1, 64, 64), dtype=cp.float32)
    with pytest.raises(GpusimError, match="dtype"):
        runner.run(w, s, q, q, q)
    h = cp.ones((1, 1, 64, 128), dtype=cp.float16)[..., ::2]
    with pytest.raises(GpusimError, match="contiguous"):
        runner.run(w, s, h, h, h)
    with pytest.raises(GpusimError, match="shape"):
        runner.run(w, s, cp.ones((1, 64, 64), dtype=cp.float16), h, h)


def test_long_context_switches_match_the_float64_reference(runner):
    from gpusim.kernels.check_long_context import CASES, check_one

    inst = KernelInstance("tc", "bf16", 128, 64, 64, 4, 2, kv_backward=True, gqa=True, split=True)
    for n, case in enumerate(CASES):
        rec = check_one(runner, inst, case, seed=50 + n, baseline=None)
        assert rec["ok"], rec
