"""Small versions of the report's figures (tiny workloads, one or two profiles) and their runs."""

from __future__ import annotations

import pytest

from gpusim.reporting.fig_block_size import BlockSize
from gpusim.reporting.fig_loop_orders import LoopOrders
from gpusim.reporting.fig_roofline import Roofline
from gpusim.reporting.fig_standard_vs_flash import StandardVsFlash
from gpusim.reporting.fig_timeline import Timeline
from gpusim.reporting.points import run_points


def small_figures(tmp_path=None):
    """Every simulated figure at a size that runs in about a second in all."""
    return [
        StandardVsFlash(
            profiles=("h200-sxm-datasheet",),
            seq_lens=(128, 256, 512, 1024),
            batch=1,
            heads=2,
            head_dim=64,
        ),
        BlockSize(
            profiles=("h200-sxm-datasheet",), blocks=(16, 32, 64), batch=2, heads=2, seq_len=256
        ),
        LoopOrders(profiles=("h200-sxm-datasheet",), batch=1, heads=2, seq_len=256, block=32),
        Roofline(profiles=("a100-sxm4-80gb",), batch=1, heads=2, seq_len=256, head_dim=64),
        Timeline(batch=2, heads=4, seq_len=1024, head_dim=64),
    ]


@pytest.fixture(scope="session")
def small():
    """``{figure class name: (figure, results)}`` with the simulations already run."""
    out = {}
    for f in small_figures():
        out[type(f).__name__] = (f, run_points(f.points(), jobs=1))
    return out
