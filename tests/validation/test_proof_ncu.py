"""gpusim.validation.proof_ncu on the CPU: what it would profile, and how its labels attribute."""

from gpusim.validation import proof_ncu


def _script():
    return proof_ncu


def test_jobs_cover_every_runnable_instance_of_the_chosen_workloads():
    mod = _script()
    jobs = mod.jobs([1, 8])
    labels = [label for label, _w, _s in jobs]
    assert len(labels) == len(set(labels))  # one marker pair each
    assert all(label.startswith(("w1:d64:N8192:full:", "w8:d128:N4096:full:")) for label in labels)
    # the proof timed 27 schedules at d64 and 24 at d128, of which these are runnable
    assert 40 <= len(jobs) <= 51


def test_every_stall_reason_is_asked_for():
    mod = _script()
    asked = [m for m in mod.METRICS if "issue_stalled" in m]
    assert len(set(asked)) >= len(mod.STALLS)
