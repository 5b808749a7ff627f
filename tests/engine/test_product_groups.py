"""Grouped products (gpusim.engine.product_groups): the rule, where it applies, what it moves."""

import pytest

from gpusim.engine.product_groups import grouped, kernel_kappa, products_ticks
from gpusim.profiles.loader import load_profile


def test_a_grouped_products_phase_adds_kappa_of_the_shorter_pipe_at_full_rates():
    times = {"tensor": 100.0, "smem": 120.0}
    assert products_ticks(times, 0.0, 0.9) == 120.0  # off: the longer pipe
    # at rates slowed by 0.9 the full-rate times are 90 and 108: 108 + 0.5 x 90
    assert products_ticks(times, 0.5, 0.9) == pytest.approx(0.9 * (120 + 50))
    # never shorter than the longer pipe at the rates it runs
    assert products_ticks(times, 0.01, 0.5) == 120.0
    assert products_ticks({"fp32": 7.0, "sfu": 9.0}, 0.5, 1.0) == 9.0  # not a products phase


class _Kernel:
    name = "k"

    def __init__(self, grid, barriers):
        self.grid, self.barriers = grid, barriers

    def products_in_warp_grid(self):
        return self.grid

    def barriers_per_step(self):
        return self.barriers


def test_only_barrier_separated_grid_products_at_a_measured_launch_take_it():
    h100 = load_profile("h100-sxm5")
    bwd = _Kernel(True, 3)
    with grouped(False):
        assert kernel_kappa(h100, bwd, 1, 8) == (0.0, None)
    with grouped(True):
        assert kernel_kappa(h100, bwd, 1, 8) == (0.342, None)
        assert kernel_kappa(h100, _Kernel(False, 0), 1, 8) == (0.0, None)  # a forward
        assert kernel_kappa(h100, _Kernel(True, 0), 1, 8) == (0.0, None)
        # CTA counts beyond the measured: the nearest (as the step efficiency by grouping)
        assert kernel_kappa(h100, bwd, 2, 8) == (0.342, None)
        assert kernel_kappa(h100, bwd, 3, 4) == (0.309, None)
        assert kernel_kappa(h100, bwd, 1, 4) == (0.699, None)
        kappa, note = kernel_kappa(h100, bwd, 1, 2)  # a CTA size not measured: said
        assert kappa == 0.0 and "not 2:" in note and "\n" not in note
        assert kernel_kappa(load_profile("a100-sxm4-80gb"), bwd, 1, 8) == (0.0, None)


def test_the_backward_slows_by_its_products_and_the_forward_does_not_move():
    import gpusim
    from gpusim.schedule import Schedule
    from gpusim.workload import Workload

    w = Workload(batch=2, heads=8, seq_len_q=2048, seq_len_k=2048, head_dim=64, dtype="bf16")
    s = Schedule(block_m=128, block_n=128, warps=8, stages=2)
    runs = {}
    for on in (False, True):
        with grouped(on):
            runs[on] = (gpusim.simulate("flash2", w.model_copy(update={"pass_": "bwd"}), s,
                                        "h100-sxm5").runtime_s,
                        gpusim.simulate("flash2", w, s, "h100-sxm5").runtime_s)  # fmt: skip
    assert runs[True][1] == runs[False][1]
    assert 1.05 < runs[True][0] / runs[False][0] < 1.25
