"""The real console script in a child process: exit status, one line on stderr, no traceback.

The in-process fuzz covers the input space; these few cases check what only a
real process shows: the exit status the shell sees, that nothing else reaches
stderr (warnings, a traceback from interpreter shutdown), and Ctrl-C.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.robustness.harness import strict_json
from tests.robustness.tally import tally

REPO = Path(__file__).resolve().parents[2]


def _gpusim() -> list[str]:
    script = Path(sys.executable).with_name("gpusim")
    if script.is_file():
        return [str(script)]
    found = shutil.which("gpusim")
    return [found] if found else [sys.executable, "-m", "gpusim.cli.main"]


def _run(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*_gpusim(), *argv], capture_output=True, text=True, timeout=120, **kwargs
    )


@pytest.fixture(scope="module")
def non_utf8_profile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("profiles") / "bad.yaml"
    path.write_bytes(b"\xff\xfe\x00 not text")
    return path


BAD = [
    (["count", "--batch", "0"], "--batch"),
    (["simulate", "--seq-len", "1.5"], "--seq-len"),
    (["simulate", "--profile", "/no/such/profile.yaml"], "not found"),
    (["simulate", "--batch", str(2**31)], "--batch"),
    (["tune", "--sram-kib", "inf"], "--sram-kib"),
    (["tune", "--sram-kib", "nan"], "--sram-kib"),
    (["verify", "--seed", "-1"], "--seed"),
    (["count", "--algorithm", "flash3"], "unknown algorithm"),
    (["count", "--dtype", "fp8"], "fp8"),
    (["frobnicate"], "frobnicate"),
]


@pytest.mark.parametrize(("argv", "fragment"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_exits_2_with_one_line(argv, fragment):
    p = _run(*argv, "--json")
    tally("subprocess: bad input")
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpusim: error: "), p.stderr
    assert fragment in lines[0]


def test_a_profile_that_is_not_text(non_utf8_profile):
    p = _run("profiles", str(non_utf8_profile), "--json")
    tally("subprocess: bad input")
    assert p.returncode == 2
    assert p.stderr == "gpusim: error: bad.yaml: not UTF-8 text (byte 0); expected YAML or JSON\n"


def test_good_input_exits_0_with_one_json_object():
    p = _run("simulate", "--batch", "1", "--heads", "2", "--seq-len", "300", "--json")
    tally("subprocess: good input")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    out = strict_json(p.stdout)
    assert out["runtime_s"] > 0 and [r["algorithm"] for r in out["results"]] == [
        "standard",
        "flash2",
    ]


def test_ctrl_c_is_exit_130_with_one_line(tmp_path):
    # A run long enough to be interrupted: judging a recorded dataset with an empty
    # prediction cache simulates tens of runs (a causal simulate, once the slow case, now
    # ends in about 3 s, and the signal met the interpreter on its way out).
    argv = [
        "validate",
        "--from",
        str(REPO / "data/h200/2026-11-30_validation_dram21/h200-dataset.json"),
    ]
    p = subprocess.Popen(
        [*_gpusim(), *argv, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "GPUSIM_CACHE_DIR": str(tmp_path)},
        # takes Ctrl-C even when this run ignores it (a background job inherits SIG_IGN)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    tally("subprocess: interrupted")
    assert p.returncode == 130, err
    assert out == ""
    assert err == "gpusim: error: interrupted\n"
