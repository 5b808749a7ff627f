"""The knee: where more of a parameter stops buying more than the tolerance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpusim.explore.summary import knee, workload_label


@pytest.mark.parametrize(
    ("runtimes", "expected"),
    [
        ([10.0, 6.0, 5.1, 5.0], 4),  # 5.1 is within 5 % of 5.0, 6.0 is not
        ([10.0, 6.0, 5.5, 5.0], 8),  # only the largest value is
        ([5.0, 5.0, 5.0, 5.0], 1),  # the parameter does not matter
        ([5.0, 6.0, 7.0, 8.0], None),  # runtime rises with it (a latency): no knee
        ([10.0, 5.0, 9.0, 5.1], 8),  # the dip at 2 does not count: 4 is slower again
        ([math.nan, 6.0, math.nan, 5.0], 8),  # failed points are left out
        ([math.nan, math.nan, math.nan, 5.0], None),  # one point is no curve
    ],
)
def test_knee(runtimes, expected):
    assert knee([1, 2, 4, 8], np.array(runtimes), 0.05) == expected


def test_the_knee_follows_the_values_not_the_spec_order():
    assert knee([8, 1, 4, 2], np.array([5.0, 10.0, 5.1, 6.0]), 0.05) == 4


def test_workload_labels():
    w = {"batch": 64, "heads": 32, "heads_kv": 8, "seq_len_q": 1, "seq_len_k": 32768,
         "head_dim": 128, "dtype": "bf16", "causal": False}  # fmt: skip
    assert workload_label(w) == "B64 H32 Hkv8 N1x32768 d128 bf16"
    w |= {"heads_kv": None, "seq_len_q": 4096, "seq_len_k": 4096, "causal": True}
    assert workload_label(w) == "B64 H32 N4096 d128 bf16 causal"
