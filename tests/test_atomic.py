"""Atomic writes: the target is the old file or the new one, never a torn or half-written one."""

from __future__ import annotations

import json
import math
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gpusim import atomic


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if ".tmp" in p.name)


def test_writes_text_bytes_and_json(tmp_path):
    atomic.write_text(tmp_path / "a.txt", "héllo\r\nworld")
    assert (tmp_path / "a.txt").read_bytes() == "héllo\r\nworld".encode()  # no newline translation
    atomic.write_bytes(tmp_path / "b.bin", b"\x00\xff")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    atomic.write_json(tmp_path / "c.json", {"x": [1, 2.5, None]})
    assert json.loads((tmp_path / "c.json").read_text()) == {"x": [1, 2.5, None]}
    assert (tmp_path / "c.json").read_text().endswith("\n")
    assert _leftovers(tmp_path) == []


def test_replaces_an_existing_file(tmp_path):
    target = tmp_path / "r.json"
    atomic.write_json(target, {"v": 1})
    atomic.write_json(target, {"v": 2})
    assert json.loads(target.read_text()) == {"v": 2}
    assert _leftovers(tmp_path) == []


def test_nan_is_refused_and_the_old_file_survives(tmp_path):
    target = tmp_path / "r.json"
    atomic.write_json(target, {"v": 1})
    with pytest.raises(ValueError):
        atomic.write_json(target, {"v": math.nan})
    assert json.loads(target.read_text()) == {"v": 1}
    assert _leftovers(tmp_path) == []


def test_an_error_inside_the_block_leaves_the_target_alone(tmp_path):
    target = tmp_path / "data.csv"
    target.write_text("old\n")
    with pytest.raises(RuntimeError), atomic.atomic_open(target) as f:
        f.write("new, half")
        raise RuntimeError("writer died")
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_failed_rename_leaves_the_target_alone(tmp_path, monkeypatch):
    target = tmp_path / "report.txt"
    target.write_text("old")

    def no_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", no_replace)
    with pytest.raises(OSError):
        atomic.write_text(target, "new")
    assert target.read_text() == "old"
    assert _leftovers(tmp_path) == []


def test_atomic_path_keeps_the_suffix_for_path_writers(tmp_path):
    target = tmp_path / "fig.svg"
    with atomic.atomic_path(target) as tmp:
        assert tmp.parent == tmp_path
        assert tmp.suffix == ".svg"
        tmp.write_text("<svg/>")
        assert not target.exists()
    assert target.read_text() == "<svg/>"
    assert _leftovers(tmp_path) == []


def test_new_files_get_ordinary_permissions_and_old_ones_keep_theirs(tmp_path):
    umask = os.umask(0)
    os.umask(umask)
    fresh = atomic.write_text(tmp_path / "fresh.txt", "x")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    kept = tmp_path / "kept.txt"
    kept.write_text("x")
    kept.chmod(0o640)
    atomic.write_text(kept, "y")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


def test_bad_mode_is_refused(tmp_path):
    with pytest.raises(ValueError, match="mode"), atomic.atomic_open(tmp_path / "x", "a"):
        pass


_WRITER = """
import sys
from gpusim.atomic import write_text
path = sys.argv[1]
big = {"A": "A" * 4_000_000, "B": "B" * 3_000_000}
i = 0
while True:
    write_text(path, big["AB"[i % 2]])
    i += 1
"""


def test_a_killed_writer_never_leaves_a_torn_file(tmp_path):
    """SIGKILL a process that rewrites a large file in a loop: the file is always whole."""
    target = tmp_path / "big.txt"
    target.write_text("A" * 4_000_000)
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(target)])
    try:
        for _ in range(6):
            time.sleep(0.15)
            text = target.read_text()  # a reader during the writes sees a whole file too
            assert text in ("A" * 4_000_000, "B" * 3_000_000)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    text = target.read_text()
    assert text in ("A" * 4_000_000, "B" * 3_000_000)
