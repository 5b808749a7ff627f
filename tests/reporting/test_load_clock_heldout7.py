"""Held-out set 7: its manifest is the module's with its rule and new, the default profile is
the judged candidate, and both clocks' predictions recomputed from the code against the
H200's times (data/h200/2026-12-04_load_clock_heldout7)."""

from __future__ import annotations

import pytest

from gpusim.profiles.loader import load_profile
from gpusim.reporting.load_clock_verdict import BASE, CANDIDATE, MODELS, ROOT, compare, predict
from gpusim.validation.load_clock_heldout7 import RULE, heldout7_configs
from tests.validation.heldout_sets import H200, assert_set_is_new

FOLDER = "2026-12-04_load_clock_heldout7"
#: unmasked runs of both kernels (their response to the clock is its ratio) and one causal
RECOMPUTED = (
    "project_prefill_b6h24kv24_q3072k3072_c0_m128n64w4s2_sp1_fwd_lf",
    "project_prefill_b1h10kv10_q49152k49152_c0_m128n64w4s2_sp1_fwd_lf_d64",
    "project_prefill_b5h20kv20_q5120k5120_c1_m128n64w4s2_sp1_fwd_lf",
    "torch_prefill_b6h24kv24_q3072k3072_c0_m128n64w4s1_sp1_bwd_ff",
)


def test_manifest_is_the_module_set_with_its_rule_and_new():
    assert_set_is_new(FOLDER, heldout7_configs(), RULE)


def test_the_default_profile_is_the_candidate_it_judged():
    default = load_profile(BASE).sm_clock_stream_load_hz
    judged = load_profile(str(ROOT / CANDIDATE)).sm_clock_stream_load_hz
    assert default is not None and judged is not None and default.value == judged.value
    assert 1.7e9 < default.value < load_profile(BASE).sm_clock_tensor_load_hz.value


@pytest.fixture(scope="module")
def recomputed():
    from gpusim.reporting.pack_gqa import measured_s

    return compare(predict(list(RECOMPUTED)), measured_s(H200 / FOLDER))


def test_both_clocks_recomputed_against_the_h200(recomputed):
    before, candidate = MODELS
    rows = recomputed["rows"]
    assert len(rows) == len(RECOMPUTED)
    # the default profile is the candidate now: its prediction is the stream-load clock's
    assert all(r[candidate] > r[before] for r in rows)  # a lower clock, a longer run
    s = recomputed["stats"]
    # measured 2026-12-04: before -9.7, -1.6, -8.4, -5.9 %; candidate -8.4, -0.4, -8.0, -4.6 %
    assert s[f"{candidate}, all"]["mape"] < s[f"{before}, all"]["mape"] < 0.07
    assert s[f"{candidate}, all"]["mape"] < 0.06
