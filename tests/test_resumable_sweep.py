"""Resumable sweeps: nothing finished is lost or re-done, failures are recorded, torn lines cut."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pytest

from gpusim.errors import GpusimError
from gpusim.resumable_sweep import load_results, point_key, run_sweep

POINTS = [{"n": n, "causal": n % 2 == 0} for n in range(12)]


def square(point):
    return {"sq": point["n"] ** 2}


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_runs_every_point_and_writes_one_line_each(tmp_path):
    path = tmp_path / "out" / "sweep.jsonl"
    s = run_sweep(POINTS, square, path, progress=False)
    assert (s.total, s.skipped, s.ran, s.failed, s.interrupted) == (12, 0, 12, 0, False)
    recs = _lines(path)
    assert [r["point"] for r in recs] == POINTS
    assert all(r["status"] == "ok" and r["result"]["sq"] == r["point"]["n"] ** 2 for r in recs)
    assert {r["key"] for r in recs} == {point_key(p) for p in POINTS}


def test_a_second_run_skips_what_is_on_disk(tmp_path):
    path = tmp_path / "sweep.jsonl"
    run_sweep(POINTS[:5], square, path, progress=False)
    calls = []
    s = run_sweep(POINTS, lambda p: calls.append(p["n"]) or square(p), path, progress=False)
    assert calls == list(range(5, 12))
    assert (s.skipped, s.ran, s.remaining) == (5, 7, 0)
    assert len(_lines(path)) == 12


def test_key_ignores_key_order_and_duplicates_run_once(tmp_path):
    assert point_key({"a": 1, "b": 2}) == point_key({"b": 2, "a": 1})
    calls = []
    pts = [{"a": 1, "b": 2}, {"b": 2, "a": 1}, {"a": 1, "b": 3}]
    s = run_sweep(pts, lambda p: calls.append(p) or 0, tmp_path / "s.jsonl", progress=False)
    assert (s.total, s.ran, len(calls)) == (2, 2, 2)


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    def fn(p):
        if p["n"] in (3, 7):
            raise GpusimError(f"point {p['n']} does not fit\nsecond line")
        return square(p)

    path = tmp_path / "s.jsonl"
    s = run_sweep(POINTS, fn, path, progress=False)
    assert (s.ran, s.failed) == (12, 2)
    errors = {r["point"]["n"]: r["error"] for r in _lines(path) if r["status"] == "error"}
    assert errors == {
        3: "GpusimError: point 3 does not fit second line",
        7: "GpusimError: point 7 does not fit second line",
    }
    # Failures count as done unless asked to retry; a retry runs only them.
    assert run_sweep(POINTS, fn, path, progress=False).ran == 0
    calls = []
    s = run_sweep(
        POINTS, lambda p: calls.append(p["n"]) or 0, path, retry_failed=True, progress=False
    )
    assert calls == [3, 7] and s.failed == 0
    latest = load_results(path)
    assert all(r["status"] == "ok" for r in latest.values()) and len(latest) == 12


def test_a_result_that_is_not_json_is_that_points_error(tmp_path):
    s = run_sweep([{"n": 1}], lambda p: {"x": object()}, tmp_path / "s.jsonl", progress=False)
    assert s.failed == 1
    assert "cannot write object as JSON" in s.failures[0][1]


def test_keyboard_interrupt_keeps_what_is_finished(tmp_path):
    path = tmp_path / "s.jsonl"

    def fn(p):
        if p["n"] == 6:
            raise KeyboardInterrupt
        return square(p)

    s = run_sweep(POINTS, fn, path, progress=False)
    assert s.interrupted and (s.ran, s.remaining) == (6, 6)
    assert [r["point"]["n"] for r in _lines(path)] == list(range(6))
    calls = []
    s = run_sweep(POINTS, lambda p: calls.append(p["n"]) or square(p), path, progress=False)
    assert calls == list(range(6, 12)) and not s.interrupted
    assert sorted(r["point"]["n"] for r in _lines(path)) == list(range(12))


def test_a_torn_last_line_is_cut_and_its_point_run_again(tmp_path):
    path = tmp_path / "s.jsonl"
    run_sweep(POINTS[:3], square, path, progress=False)
    with open(path, "a") as f:
        f.write('{"key": "{\\"n\\":3')  # killed in the middle of a line
    assert len(load_results(path)) == 3
    calls = []
    run_sweep(POINTS[:4], lambda p: calls.append(p["n"]) or square(p), path, progress=False)
    assert calls == [3]
    assert [r["point"]["n"] for r in _lines(path)] == [0, 1, 2, 3]  # every line parses


def test_parallel_jobs_run_each_point_once(tmp_path):
    offset = 100  # a closure: the pool forks, so it need not be picklable

    def fn(p):
        return {"v": p["n"] + offset}

    path = tmp_path / "s.jsonl"
    s = run_sweep(POINTS, fn, path, jobs=2, progress=False)
    assert (s.ran, s.failed) == (12, 0)
    got = sorted((r["point"]["n"], r["result"]["v"]) for r in _lines(path))
    assert got == [(n, n + 100) for n in range(12)]


def test_progress_goes_to_stderr_only(tmp_path, capsys):
    run_sweep(POINTS[:3], square, tmp_path / "s.jsonl", progress=True, description="tiny")
    out, err = capsys.readouterr()
    assert out == ""
    assert "tiny" in err


_SLOW_SWEEP = """
import sys, time
from gpusim.resumable_sweep import run_sweep
def fn(p):
    # Slow after the first points, so that a loaded machine cannot finish the sweep before
    # the test's signal arrives.
    time.sleep(0.05 if p["n"] < 5 else 0.5)
    return {"n": p["n"]}
run_sweep([{"n": n} for n in range(100)], fn, sys.argv[1], progress=False)
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL])
def test_a_killed_sweep_resumes_without_losing_or_redoing_points(tmp_path, sig):
    path = tmp_path / "s.jsonl"
    # The child takes Ctrl-C even when this run ignores it (a background job of a
    # non-interactive shell starts with SIGINT ignored, and children inherit that).
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_SWEEP, str(path)],
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if path.exists() and path.read_text().count("\n") >= 5:
                break
            time.sleep(0.02)
    finally:
        proc.send_signal(sig)
        proc.wait(timeout=60)
    before = {r["point"]["n"] for r in load_results(path).values()}
    assert 5 <= len(before) < 100
    calls = []
    s = run_sweep(
        [{"n": n} for n in range(100)],
        lambda p: calls.append(p["n"]) or {"n": p["n"]},
        path,
        progress=False,
    )
    assert set(calls) == set(range(100)) - before  # nothing lost, nothing re-done
    assert len(calls) == len(set(calls))
    assert s.remaining == 0
    assert sorted(r["point"]["n"] for r in _lines(path)) == list(range(100))


def test_thousands_of_points_do_not_pile_up_in_memory(tmp_path):
    """Results go to disk as they come: 5000 points of 2 KB each never sit in memory together."""
    import tracemalloc

    points = ({"n": n} for n in range(5000))  # a generator: the caller need not hold a list
    tracemalloc.start()
    try:
        s = run_sweep(points, lambda p: {"blob": "x" * 2048}, tmp_path / "s.jsonl", progress=False)
        _, peak_bytes = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert s.ran == 5000
    assert (tmp_path / "s.jsonl").stat().st_size > 10_000_000
    assert peak_bytes < 5_000_000  # well under the 10 MB of results


def test_points_from_a_function_are_made_twice_and_never_held(tmp_path):
    calls = []

    def points():
        calls.append(1)
        return (p for p in POINTS)  # a fresh generator each call

    path = tmp_path / "s.jsonl"
    run_sweep(POINTS[:4], square, path, progress=False)
    s = run_sweep(points, square, path, progress=False)
    assert len(calls) == 2  # counted, then run
    assert (s.total, s.skipped, s.ran) == (12, 4, 8)


def test_an_executor_runs_the_points_to_do_and_its_records_are_written(tmp_path):
    from gpusim.resumable_sweep import run_point

    seen = []

    def executor(fn, todo):
        for key, point in reversed(list(todo)):  # any order
            seen.append(point["n"])
            yield run_point(fn, key, point)

    path = tmp_path / "s.jsonl"
    run_sweep(POINTS[:3], square, path, progress=False)
    s = run_sweep(POINTS, square, path, executor=executor, progress=False)
    assert seen == list(range(11, 2, -1)) and (s.ran, s.skipped) == (9, 3)
    assert {r["point"]["n"]: r["result"]["sq"] for r in _lines(path)} == {
        n: n * n for n in range(12)
    }
