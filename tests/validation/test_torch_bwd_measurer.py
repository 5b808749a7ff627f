"""The GPU measurer's pure part on the CPU: the timing summary; importing the module does not
import torch."""

import subprocess
import sys

import pytest

from gpusim.validation import torch_bwd_measurer as m


def test_importing_the_measurer_needs_no_torch():
    code = (
        "import sys\n"
        "for name in ('torch', 'pydantic', 'simpy'):\n"
        "    sys.modules[name] = None\n"
        "from gpusim.validation import torch_bwd_measurer\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_timing_summary():
    s = m.timing_summary([3e-3, 1e-3, 2e-3], flops=4 * 10**9)
    assert (s["median_s"], s["min_s"]) == (2e-3, 1e-3)
    assert s["tflops"] == pytest.approx(2.0)
