"""The launch-charge held-out sets (reports/long_context/launch, launch2): each set's two
models recomputed from the code against the measured times, and the rules' verdicts.

The isolated model both sets judged is ``h200-sxm`` as it was, every kernel charged a whole
launch; set 2 adopted its variant, so ``h200-sxm`` now has ``kernel_queued_launch_s`` and
the isolated model is that profile without it."""

from __future__ import annotations

import pytest

from gpusim.profiles import load_profile
from gpusim.reporting import launch_charge as launch_set
from gpusim.reporting.launch_charge import ISOLATED, SET1, SET2
from gpusim.reporting.long_context_predict import predict_one
from gpusim.validation.long_context_configs import read_manifest


def _predicted(ls, profile) -> dict[str, dict]:
    configs = read_manifest(ls.data / "manifest_configs.json")
    return {c.config_id: predict_one(c, profile) for c in configs}


def _judged(ls, variant_predicted: dict[str, dict] | None = None) -> dict[str, dict[str, dict]]:
    """Both models of ``ls`` predicted now, with their errors against the measurement
    (``variant_predicted``: the variant's predictions when already made)."""
    isolated = load_profile(ISOLATED).model_copy(update={"kernel_queued_launch_s": None})
    variant = load_profile(str(launch_set.REPO_ROOT / ls.variant))
    measured = launch_set.measured_s(ls.data)
    if variant_predicted is None:
        variant_predicted = _predicted(ls, variant)
    return {
        ISOLATED: launch_set.errors(_predicted(ls, isolated), measured),
        ls.variant: launch_set.errors(variant_predicted, measured),
    }


@pytest.fixture(scope="module")
def set2_variant() -> dict[str, dict]:
    """Set 2's variant predicted now for every run (``predict_one``), shared by the set's
    judgement and the check that the default profile is that variant."""
    return _predicted(SET2, load_profile(str(launch_set.REPO_ROOT / SET2.variant)))


@pytest.fixture(scope="module")
def set1() -> dict[str, dict[str, dict]]:
    return _judged(SET1)


@pytest.fixture(scope="module")
def set2(set2_variant) -> dict[str, dict[str, dict]]:
    return _judged(SET2, set2_variant)


def test_every_run_is_measured_and_predicted(set1, set2):
    for groups in set1.values():
        assert groups["all"]["n"] == 14
        assert groups["one kernel"]["n"] == 8 and groups["two kernels"]["n"] == 6
    for groups in set2.values():
        assert groups["all"]["n"] == groups["two kernels"]["n"] == 14


def test_set1_recomputed(set1):
    # Judged at 14.8 % (isolated, kept) against 15.7 % (every kernel at the dispatch rate);
    # 15.1 % for the variant since the stream-load clock (held-out set 7); 14.5 % against
    # 10.4 % after held-out set 8 (active CTAs, staged stores: the variant ahead); 11.0 %
    # against 11.4 % since held-out set 9 (DRAM reads at the read stream's bandwidth): the
    # isolated charge ahead again; 7.2 % against 16.1 % since held-out set 12 (a load's latency
    # under the queue); 5.7 % against 15.6 % since held-out sets 21-22 (the shared-memory
    # release). A seen set: not a judgement either way.
    assert set1[ISOLATED]["all"]["mape"] == pytest.approx(0.0574, abs=0.002)
    assert set1[SET1.variant]["all"]["mape"] == pytest.approx(0.1559, abs=0.002)
    assert "isolated launch (kept)" in launch_set.verdict(SET1, set1)
    # What the set showed beside the verdict, and set 2 then judged: the isolated charge was
    # too large for a split run's second kernel (its two-kernel runs +10 % and more until
    # held-out set 12; +3.2 % since), the dispatch rate too small for every one-kernel run.
    assert set1[ISOLATED]["two kernels"]["mean_signed"] > 0.0
    assert set1[SET1.variant]["one kernel"]["mean_signed"] < -0.05


def test_set2_recomputed(set2):
    # judged at 15.8 % and 9.7 % (the queued second launch adopted); 13.7 % and 8.7 % since the
    # engine aligns backward K/V walks (reports/long_context/launch2/README.md, "Recomputed");
    # 14.0 % and 8.8 % since the stream-load clock (held-out set 7); 14.4 % and 8.9 % after
    # held-out set 8; 9.7 % and 7.2 % since held-out set 9; 4.4 % and 8.4 % since held-out set
    # 12 (a load's latency under the queue takes out the split decodes' slowness that the
    # queued launch had offset): on this seen set the rule would now keep the whole launch;
    # 3.9 % and 8.5 % since held-out sets 21-22 (the shared-memory release).
    # The verdict stands as judged (the launch2 README says so); a new set decides it again.
    assert set2[ISOLATED]["all"]["mape"] == pytest.approx(0.0386, abs=0.002)
    assert set2[SET2.variant]["all"]["mape"] == pytest.approx(0.0853, abs=0.002)
    assert launch_set.verdict(SET2, set2).endswith("isolated launch (kept)")


def test_the_default_profile_is_the_variant_set2_judged(set2_variant):
    variant = load_profile(str(launch_set.REPO_ROOT / SET2.variant))
    default = load_profile(ISOLATED)
    assert default.kernel_queued_launch_s.value == variant.kernel_queued_launch_s.value
    configs = read_manifest(SET2.data / "manifest_configs.json")[:4]
    for c in configs:
        assert predict_one(c, ISOLATED)["runtime_s"] == set2_variant[c.config_id]["runtime_s"]


def test_the_variant_profiles_are_what_their_commands_write():
    from gpusim.validation import launch_set as set1_module
    from gpusim.validation import launch_set2 as set2_module

    root = launch_set.REPO_ROOT
    assert (root / SET1.variant).read_text() == set1_module.variant_profile_text()
    assert (root / SET2.variant).read_text() == set2_module.variant_profile_text()
