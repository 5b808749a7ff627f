"""On an sm_90 GPU with CuPy, torch and cuda.bindings: wgmma instances against float64."""

import pytest

from gpusim.errors import GpusimError
from gpusim.kernel_catalog.wgmma_instances import WgmmaInstance

try:
    from gpusim.kernels.wgmma_runner import WgmmaRunner

    RUNNER = WgmmaRunner()
    import torch  # noqa: F401  (the baseline)

    REASON = ""
except (GpusimError, ImportError) as exc:
    RUNNER, REASON = None, str(exc)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(RUNNER is None, reason=f"needs sm_90: {REASON}")]


@pytest.mark.parametrize("inst", [WgmmaInstance("bf16", 128, 128, 2, 2)], ids=lambda i: i.key)
def test_instance_within_twice_pytorch_error(inst):
    from gpusim.kernels.check_all import torch_baseline
    from gpusim.kernels.wgmma_bench import CASES, check_one

    for n, case in enumerate(CASES[:3]):
        rec = check_one(RUNNER, inst, case, 100 + n, torch_baseline())
        assert rec["ok"], rec


def test_gqa_and_split_instances_on_awkward_shapes():
    from gpusim.reporting.wgmma_decode_set import check_shapes

    rows = check_shapes(RUNNER, RUNNER.cp)
    assert rows and all(r["ok"] for r in rows), [r for r in rows if not r["ok"]]
