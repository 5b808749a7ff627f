"""The instruction-cache record's curves and the charge of a kernel's code run straight."""

import json

import pytest

from gpusim.validation.torch_kernel_code import ICACHE, charge_per_warp, lost_share_curve


def test_the_curves_of_the_committed_record_never_fall_and_rotated_loses_more():
    record = json.loads(ICACHE.read_text())
    straight, rotated = (lost_share_curve(record, v) for v in ("straight", "rotated"))
    for curve in (straight, rotated):
        shares = [s for _, s in curve]
        assert shares == sorted(shares) and shares[0] >= 0.0 and shares[-1] < 1.0
        assert curve[0][0] == 16 * 1024  # 1024 instructions, the shortest kept
    assert all(r >= s for (_, s), (_, r) in zip(straight, rotated, strict=True))
    # the H100: code past 128 KiB run in step costs 2.7x; run apart, 64 KiB already 2.2x
    assert dict(straight)[144 * 1024.0] > 0.6 and dict(rotated)[64 * 1024.0] > 0.5


def test_the_charge_is_the_extra_slots_of_code_run_straight():
    curve = [(65536.0, 0.0), (131072.0, 0.5)]
    assert charge_per_warp(32768, curve) == 0.0
    assert charge_per_warp(131072, curve) == pytest.approx(8192.0)  # 8192 / (1 - 0.5) - 8192
