"""Bad input: non-zero exit, one line on stderr starting ``gpusim: error:``, nothing on stdout."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpusim.profiles import profile_path


def _assert_one_line_error(result, *fragments: str) -> None:
    assert result.code != 0
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("gpusim: error: ")
    assert "Traceback" not in result.err
    for f in fragments:
        assert f in lines[0], lines[0]


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["count", "--profile", "h300"], ["unknown profile 'h300'", "h200-sxm-datasheet"]),
        (["count", "--algorithm", "flash9"], ["unknown algorithm 'flash9'", "flash2"]),
        (["verify", "--algorithm", "flash9"], ["unknown algorithm 'flash9'"]),
        (["profiles", "h300"], ["unknown profile 'h300'"]),
        (["count", "--batch", "0"], ["--batch"]),
        (["count", "--heads", "-3"], ["--heads"]),
        (["count", "--seq-len", "0"], ["--seq-len"]),
        (["count", "--head-dim", "0"], ["--head-dim"]),
        (["count", "--block-m", "0"], ["--block-m"]),
        (["count", "--batch", "abc"], ["--batch"]),
        (["count", "--seq-len", "1.5"], ["--seq-len"]),
        (["count", "--seq-len-k", "2k"], ["--seq-len-k"]),
        (["count", "--dtype", "fp8"], ["--dtype", "fp8"]),
        (["count", "--warps", "128"], ["--warps", "64"]),
        (["count", "--no-such-option"], ["--no-such-option"]),
        (["no-such-command"], ["no-such-command"]),
    ],
)
def test_bad_input(gpusim, argv, fragments):
    result = gpusim(*argv, "--json")
    _assert_one_line_error(result, *fragments)
    assert result.code == 2


def test_oversized_schedule_says_what_it_needs_and_the_limit(gpusim):
    result = gpusim("count", "--block-m", "256", "--block-n", "256", "--stages", "4", "--json")
    _assert_one_line_error(
        result, "schedule needs 589,824 bytes of shared memory per CTA; h200-sxm allows 232,448"
    )
    result = gpusim("count", "--block-m", "128", "--warps", "33")
    _assert_one_line_error(result, "1,056 threads", "1,024 max threads per block")


def test_schedule_that_fits_a_larger_gpu_fails_on_a_smaller_one(gpusim):
    argv = ["count", "--block-m", "128", "--block-n", "128", "--stages", "2", "--json"]
    assert gpusim(*argv).code == 0  # 160 KiB: fits the H200's 227 KiB
    _assert_one_line_error(gpusim(*argv, "--profile", "rtx-4090"), "rtx-4090 allows 101,376")


@pytest.fixture
def bad_profile(tmp_path) -> Path:
    data = yaml.safe_load(profile_path("h200-sxm-datasheet").read_text())
    data["sm_count"]["value"] = 0
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_invalid_profile_file(gpusim, bad_profile, tmp_path):
    _assert_one_line_error(
        gpusim("count", "--profile", bad_profile), "bad.yaml: sm_count.value: must be > 0"
    )
    _assert_one_line_error(gpusim("profiles", bad_profile, "--json"), "bad.yaml")
    _assert_one_line_error(gpusim("count", "--profile", tmp_path / "none.yaml"), "not found")


def test_internal_errors_are_one_line_too(gpusim, monkeypatch):
    from gpusim import counting

    def boom(*args, **kwargs):
        raise RuntimeError("kaboom")

    monkeypatch.delenv("GPUSIM_DEBUG", raising=False)
    monkeypatch.setattr(counting, "count", boom)
    result = gpusim("count", "--seq-len", "64")
    _assert_one_line_error(result, "internal error", "kaboom")
    assert result.code == 3


def test_a_broken_command_module_is_one_line(gpusim, monkeypatch):
    from gpusim.cli import main

    monkeypatch.delenv("GPUSIM_DEBUG", raising=False)
    monkeypatch.setattr(main, "COMMANDS", (*main.COMMANDS, "no_such_module"))
    # Its own command, and --help (which registers every command), fail in one line.
    _assert_one_line_error(gpusim("no_such_module"), "internal error", "no_such_module")
    _assert_one_line_error(gpusim("--help"), "internal error", "no_such_module")
    # Another command imports its own module only (main.register_commands): it still runs.
    assert gpusim("profiles", "--json").code == 0
