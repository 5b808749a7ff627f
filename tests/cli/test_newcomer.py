"""What a newcomer met (issue 17): verbose lines, name suggestions, one trace for two
algorithms, memory and kernel-instance warnings, the default schedule and the help."""

from __future__ import annotations

import json

from gpusim.cli.options import build_inputs
from gpusim.tuning.space import search_space
from gpusim.tuning.tuner import tune

SMALL = ("--batch", "1", "--heads", "2", "--seq-len", "256")


def test_timing_lines_only_with_verbose(gpusim):
    quiet = gpusim("simulate", *SMALL)
    assert quiet.code == 0
    assert "events in" not in quiet.err
    loud = gpusim("simulate", *SMALL, "--verbose")
    assert "flash2: " in loud.err and "events in" in loud.err
    assert "events in" in gpusim("--verbose", "simulate", *SMALL).err


def test_no_progress_display_without_a_terminal(gpusim):
    result = gpusim("tune", *SMALL)
    assert result.code == 0
    assert "\x1b[" not in result.err  # captured stderr is no terminal: no bar drawn


def test_unknown_names_suggest_the_closest(gpusim):
    r = gpusim("simulate", "-a", "flsh2")
    assert r.code == 2
    assert r.err.count("\n") == 1 and "did you mean 'flash2'" in r.err
    r = gpusim("count", "-p", "a100")
    assert r.code == 2 and "did you mean 'a100-sxm4-80gb'" in r.err
    r = gpusim("verify", "-a", "standrd")
    assert r.code == 2 and "did you mean 'standard'" in r.err


def test_trace_of_two_algorithms_is_one_file_with_a_process_each(gpusim, tmp_path):
    path = tmp_path / "t.json"
    r = gpusim("simulate", *SMALL, "--trace", path, "--json")
    assert r.code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    doc = json.loads(path.read_text())
    names = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e["name"] == "process_name"}
    assert sorted(names.values()) == ["flash2", "standard"]
    spans = {names[e["pid"]] for e in doc["traceEvents"] if e.get("cat") == "cta"}
    assert spans == {"flash2", "standard"}
    assert all(d["trace"] == str(path) for d in r.json()["results"])


def test_buffers_beyond_device_memory_warn(gpusim):
    # standard keeps S and P: B16 H32 N32768 fp16 needs 2 x 1 TiB of them
    r = gpusim("count", "-a", "standard", "--batch", "16", "--seq-len", "32768", "--json")
    data = r.json()
    assert data["exceeds_device_memory"] is True
    assert data["buffers_bytes"] > data["device_memory_bytes"]
    assert any("device memory" in w for w in data["warnings"]) and "gpusim: warning:" in r.err
    small = gpusim("count", *SMALL, "--json").json()
    assert small["exceeds_device_memory"] is False and small["warnings"] == []


def test_schedule_without_a_cuda_instance_says_so(gpusim):
    argv = ("count", *SMALL, "--block-m", "64", "--warps", "8", "--block-n", "64", "--json")
    r = gpusim(*argv)
    data = r.json()
    assert data["cuda_instance"] is None
    assert "split-q needs block_m divisible" in data["cuda_instance_missing"]
    assert "no flash2 tc instance" in r.err
    assert gpusim("count", *SMALL, "--json").json()["cuda_instance"].startswith("tc_fp16_d128")


def test_default_schedule_is_one_the_tuner_accepts():
    for head_dim, dtype in ((128, "fp16"), (256, "fp16"), (64, "bf16"), (128, "fp32")):
        inputs = build_inputs(
            batch=1, heads=4, seq_len=1024, head_dim=head_dim, dtype=dtype, check=False
        )
        if inputs.schedule not in search_space("flash2", inputs.workload).instance_keys:
            continue  # no instance of any tile at this head_dim: the model-only grid
        pinned = ("block_m", "block_n", "warps", "stages", "kv_splits")
        fixed = {k: getattr(inputs.schedule, k) for k in pinned}
        result = tune("flash2", inputs.workload, inputs.profile, fixed=fixed, caps=False)
        assert [c.schedule for c in result.candidates] == [inputs.schedule], (head_dim, dtype)


def test_help_states_the_true_defaults(gpusim, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")

    def text(out: str) -> str:  # the help's words, without its boxes and line breaks
        return " ".join(out.replace("│", " ").split())

    sim = text(gpusim("simulate", "--help").out)
    assert "Left out: standard and flash2 side by side" in sim
    assert "[default: flash2]" not in sim
    assert "left out: searched" in text(gpusim("tune", "--help").out)


def test_progress_only_on_a_terminal_and_not_with_json(monkeypatch):
    import sys

    from gpusim.cli import output

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert output.shows_progress(json_out=False)
    assert not output.shows_progress(json_out=True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not output.shows_progress(json_out=False)
