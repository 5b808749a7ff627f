"""scripts/tuning_ncu.py on the CPU: what it would profile, and how its labels attribute."""

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "tuning_ncu.py"


def _script():
    sys.path.insert(0, str(SCRIPT.parent))  # it imports tuning_proof's workload list
    spec = importlib.util.spec_from_file_location("tuning_ncu", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


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
