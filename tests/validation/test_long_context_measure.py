"""The long-context timer's repeat counts (the GPU part runs on the device only)."""

from gpusim.validation.long_context_measure import MAX_REPEATS, MIN_REPEATS, repeats_for


def test_repeats_follow_the_run_length_within_bounds():
    assert repeats_for(1e-5) == (MAX_REPEATS, 3)
    assert repeats_for(0.02) == (15, 3)
    assert repeats_for(0.4) == (MIN_REPEATS, 1)
