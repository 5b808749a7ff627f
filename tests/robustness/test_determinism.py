"""Same input, same bytes: JSON on stdout and trace files, in one process and across processes.

The only values allowed to differ are the wall-clock measurements the JSON
reports about the run itself (:data:`WALL_CLOCK_KEYS`); the test blanks their
numbers and compares everything else byte for byte. Across processes the hash
seed changes too, so set or dict ordering cannot leak into the output.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from algorithms import ALGORITHMS
from gpusim.profiles import list_profiles
from tests.robustness.harness import check_contract, invoke
from tests.robustness.strategies import DTYPES, fuzz
from tests.robustness.tally import tally

#: Keys whose values measure the simulator's own wall time, not the simulated GPU.
WALL_CLOCK_KEYS = ("sim_wall_s", "engine_wall_s", "events_per_s", "tune_wall_s")
_WALL = re.compile('"(' + "|".join(WALL_CLOCK_KEYS) + ')": [-+0-9.eE]+')


def without_wall_clock(text: str) -> str:
    """``text`` with the numbers of :data:`WALL_CLOCK_KEYS` blanked (everything else kept)."""
    return _WALL.sub(r'"\1": 0', text)


@st.composite
def small_argv(draw) -> list[str]:
    """Options of a small simulation (well under a second)."""
    argv = [
        *("--algorithm", draw(st.sampled_from(list(ALGORITHMS)))),
        *("--profile", draw(st.sampled_from(list_profiles()))),
        *("--batch", str(draw(st.integers(1, 3)))),
        *("--heads", str(draw(st.integers(1, 4)))),
        *("--seq-len", str(draw(st.integers(1, 700)))),
        *("--head-dim", str(draw(st.sampled_from([16, 40, 64, 128])))),
        *("--dtype", draw(st.sampled_from(DTYPES))),
    ]
    return [*argv, "--causal"] if draw(st.booleans()) else argv


@fuzz(25)
@given(argv=small_argv(), command=st.sampled_from(["count", "simulate"]))
def test_same_input_same_json_in_one_process(argv, command):
    first = check_contract(invoke([command, *argv, "--json"]))
    second = check_contract(invoke([command, *argv, "--json"]))
    tally(f"determinism: {command} twice ({'result' if first.ok else 'error'})")
    assert without_wall_clock(first.out) == without_wall_clock(second.out)
    assert first.err == second.err


def test_same_input_same_bytes_across_processes(tmp_path):
    """Two processes with different hash seeds: identical JSON (tune, simulate) and traces."""
    commands = {
        "simulate": ["simulate", "--batch", "2", "--heads", "3", "--seq-len", "700", "--causal"],
        "tune": ["tune", "--batch", "1", "--heads", "2", "--seq-len", "256", "-a", "flash2"],
        "count": ["count", "-a", "flash1", "--seq-len", "333", "--head-dim", "40"],
    }
    runs = []
    for seed in ("1", "2"):
        cwd = tmp_path / f"run{seed}"
        cwd.mkdir()
        env = os.environ | {"PYTHONHASHSEED": seed}
        outs = {}
        for name, argv in commands.items():
            extra = ["--trace", "trace.json"] if name == "simulate" else []
            p = subprocess.run(
                [sys.executable, "-m", "gpusim.cli.main", *argv, *extra, "--json"],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert p.returncode == 0, p.stderr
            outs[name] = without_wall_clock(p.stdout)
        traces = sorted(cwd.glob("trace*.json"))
        assert [t.name for t in traces] == ["trace.json"]  # both algorithms, one file
        runs.append((outs, {t.name: t.read_bytes() for t in traces}))
    tally("determinism: separate processes, different hash seeds")
    assert runs[0][0] == runs[1][0]
    assert runs[0][1] == runs[1][1]


def test_wall_clock_blanking_touches_only_those_keys():
    text = '{"runtime_s": 1.5e-05, "sim_wall_s": 0.123, "events_per_s": 81367.42, "x": 2}'
    want = '{"runtime_s": 1.5e-05, "sim_wall_s": 0, "events_per_s": 0, "x": 2}'
    assert without_wall_clock(text) == want
