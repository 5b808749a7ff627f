"""The device scripts name modules and files that exist (they run only where a GPU is lent,
so a renamed module or a moved manifest would otherwise be found on the device's clock)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
STEPS = ROOT / "gpusim" / "validation" / "device_steps.sh"
SCRIPTS = [*sorted((ROOT / "gpusim" / "validation").glob("run_*_device.sh")), STEPS]
#: device_steps.sh's steps that run something (their modules are checked with that file)
SHARED_STEPS = ("long_context_set", "torch_fwd_ncu")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_modules_and_data_paths_exist(script):
    text = script.read_text()
    modules = set(re.findall(r"python3? -m ([\w.]+)", text)) - {"pip"}
    calls = set(re.findall(r"\b(run_\w+_device\.sh)\b", text)) - {script.name}
    shared = any(step in text for step in SHARED_STEPS)
    assert modules or calls or shared, "a device script runs something"
    for name in calls:  # a script that runs another (set 7's as it ran)
        assert (script.parent / name).is_file(), f"{script.name}: no {name}"
    for m in modules:
        assert importlib.util.find_spec(m) is not None, f"{script.name}: no module {m}"
    for path in re.findall(r"\b(data/h200/[\w./-]+\.json)\b", text):
        assert (ROOT / path).exists(), f"{script.name}: no {path}"
