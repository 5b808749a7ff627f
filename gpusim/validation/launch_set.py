"""A held-out set for the launch charge of short kernels: isolated launch or queued launch.

    python -m gpusim.validation.launch_set --write PATH          # the manifest (JSON)
    python -m gpusim.validation.launch_set --list
    python -m gpusim.validation.launch_set --write-profile PATH  # the queued-launch variant

The engine charges every kernel the profile's ``kernel_launch_overhead_s`` before it starts:
on the H200 9.36 us, one empty kernel between two CUDA events on an idle GPU
(data/h200/2026-11-30_calibration), so the host's launch path is in it. The harnesses time
a run between CUDA events right after a kernel that writes 256 MB to flush the L2
(:func:`gpusim.kernels.schedule_timing.time_launches`); while that kernel runs, the host has
already queued the start event and the run's kernels, so a kernel may start as soon as the
GPU dispatches it, and a split-KV run's second kernel as soon as the first has ended. The
variant charges each kernel what the GPU takes to dispatch a queued one, the CUDA-graph
replay rate of the same calibration record (``graph_launch_s``, 0.507 us per empty kernel).
Decode runs of a few tens of microseconds, with one kernel and with two, and short prefill
runs tell the two apart; none of the shapes is in a seen set.

The rule, fixed before the measurement (also written into the manifest): see :data:`RULE`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

from gpusim.data.layout import REPO_ROOT
from gpusim.validation.long_context_configs import (
    DECODE_TILE,
    H200_SMS,
    PREFILL_TILE,
    LongContextConfig,
    _sched,
    set_command,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43
from gpusim.workload import Workload

#: The calibration record whose ``graph_launch_s`` the variant charges per kernel.
CALIBRATION = REPO_ROOT / "data/h200/2026-11-30_calibration/h200-results.json"
BASE_PROFILE = REPO_ROOT / "hardware_profiles/h200-sxm.yaml"
VARIANT_NAME = "h200-sxm-queued-launch"

#: (group, batch, heads, K/V heads, queries, keys, head dim, causal, project splits);
#: decode with one kernel and with split keys (two), and short prefill.
SHAPES = (
    ("decode", 2, 32, 32, 1, 8192, 128, False, (1, 4)),
    ("decode", 1, 64, 64, 1, 16384, 128, False, (1, 8)),
    ("decode", 16, 32, 32, 1, 2048, 128, False, (1,)),
    ("gqa_decode", 4, 32, 8, 1, 8192, 128, False, (2,)),
    ("prefill", 1, 16, 16, 1024, 1024, 128, False, (1,)),
    ("prefill", 4, 16, 16, 512, 512, 64, True, (1,)),
)
RULE = (
    "the queued-launch variant (every kernel charged the CUDA-graph replay rate of "
    "data/h200/2026-11-30_calibration, 0.507 us) replaces the isolated launch charge "
    "(kernel_launch_overhead_s, 9.36 us) if and only if its runtime MAPE over every run of "
    "this set (the project's kernel and PyTorch's together) is lower; reported per kernel: "
    "MAPE, mean signed error and the worst run, beside the roofline and the "
    "constant-efficiency baselines; the queued launch measured in the same device call "
    "(gpusim calibrate --only launch: queued_launch_s) is reported beside the value used, "
    "not fed to any prediction"
)


def launch_configs(shapes: tuple = SHAPES, **fields) -> list[LongContextConfig]:
    """The set in run order: per shape the project's kernel at each split count (and the
    schedule ``fields`` given, e.g. ``kv_order``), then PyTorch's."""
    out: list[LongContextConfig] = []
    for group, b, h, hkv, nq, nk, d, causal, splits in shapes:
        w = Workload(
            batch=b, heads=h, heads_kv=hkv, seq_len_q=nq, seq_len_k=nk, head_dim=d,
            dtype="bf16", causal=causal,
        )  # fmt: skip
        tile = DECODE_TILE if nq <= 128 else PREFILL_TILE  # (decode: Nq 1 to 128)
        for n in splits:
            out.append(LongContextConfig("project", group, w, _sched(tile, kv_splits=n, **fields)))
        out.append(LongContextConfig("torch", group, w, schedule_before_set43(w, H200_SMS)))
    return out


def recorded_launch_s(key: str = "graph_launch_s", calibration: Path = CALIBRATION) -> float:
    """A launch time ``key`` of a recorded ``gpusim calibrate launch`` (results JSON)."""
    doc = json.loads(calibration.read_text())
    try:
        return float(doc["benchmarks"]["launch"]["values"][key]["value"])
    except KeyError:
        raise ValueError(f"{calibration}: no launch value {key}") from None


def edited_profile(
    lines: list[str],
    replace: dict[str, list[str] | None] | None = None,
    after: dict[str, list[str]] | None = None,
) -> list[str]:
    """A profile's YAML ``lines`` with top-level entries (a line and its indented ones; a
    header comment counts as one, keyed by its text up to the colon) replaced by new lines
    (``None``: dropped) or followed by new lines, by key."""
    replace, after = replace or {}, after or {}
    blocks: list[list[str]] = []
    for line in lines:
        if line.startswith("  ") and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    out: list[str] = []
    for block in blocks:
        key = block[0].split(":", 1)[0]
        new = replace.get(key, block)
        out += new or []
        out += after.get(key, [])
    return out


def judged_base_lines(base: Path = BASE_PROFILE) -> list[str]:
    """``base`` as the launch sets judged it: without the ``kernel_queued_launch_s`` that
    set 2 added to it (and the header line naming its record)."""
    drop = {"kernel_queued_launch_s": None, "# queued launch": None}
    return edited_profile(base.read_text().splitlines(), replace=drop)


def variant_profile_text(base: Path = BASE_PROFILE, calibration: Path = CALIBRATION) -> str:
    """``base`` with its name and launch charge replaced by the queued-launch variant's."""
    value = recorded_launch_s("graph_launch_s", calibration)
    rel = calibration.relative_to(REPO_ROOT)
    launch = [
        "kernel_launch_overhead_s:",
        f"  value: {value!r}",
        f"  source: {rel}, graph_launch_s (gpusim calibrate launch)",
        "  note: the launch-set variant (gpusim.validation.launch_set) - a kernel queued "
        "behind running work, charged the GPU's dispatch of a queued kernel",
    ]
    replace = {"name": [f"name: {VARIANT_NAME}"], "kernel_launch_overhead_s": launch}
    return "\n".join(edited_profile(judged_base_lines(base), replace=replace)) + "\n"


def set_main(
    prog: str,
    doc: str,
    configs: list[LongContextConfig],
    what: str,
    rule: str,
    profile_text: Callable[[], str],
    argv: list[str] | None = None,
) -> int:
    """A launch set's command: ``--write-profile PATH`` writes its variant profile
    (``profile_text()``); otherwise the manifest's ``--write PATH`` / ``--list``."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--write-profile"]:
        ap = argparse.ArgumentParser(prog=prog)
        ap.add_argument("--write-profile", type=Path, required=True)
        path = ap.parse_args(argv).write_profile
        path.write_text(profile_text())
        print(path)
        return 0
    return set_command(prog, doc, configs, what, rule, argv)


def main(argv: list[str] | None = None) -> int:
    """Write the manifest (write-once), list the configurations, or write the variant."""
    what = (
        "launch charge of short kernels held-out set (isolated against queued launch): "
        "configurations fixed before they are measured "
        "(python -m gpusim.validation.launch_set --write)"
    )
    doc = __doc__.splitlines()[0]
    return set_main("launch_set", doc, launch_configs(), what, RULE, variant_profile_text, argv)


if __name__ == "__main__":
    raise SystemExit(main())
