"""What every long-context held-out set's test checks first: its committed manifest is the
module's list with its rule, and none of its runs is in an earlier set."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.validation.long_context_configs import read_manifest

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "data/h200"
#: the long-context data folders in the order they were measured
LONG_CONTEXT_SETS = (
    "2026-12-02_long_context",
    "2026-12-02_long_context_heldout",
    "2026-12-03_long_context_heldout2",
    "2026-12-03_long_context_heldout3",
    "2026-12-03_pack_gqa",
    "2026-12-04_launch_set",
    "2026-12-04_launch_set2",
    "2026-12-04_long_context_heldout4",
    "2026-12-04_long_context_heldout5",
    "2026-12-04_load_clock_heldout7",
    "2026-12-04_cta_ends_heldout8",
    "2026-12-04_dram_read_heldout9",
    "2026-12-04_switch_replay_heldout10",
    "2026-12-04_load_latency_heldout12",
    "2026-12-04_inference_tuning_heldout13",
    "2026-12-05_inference_tuning_heldout16",
    "2026-12-05_long_context_heldout6",
    "2026-12-05_long_context_heldout7",
    "2026-12-05_long_context_heldout8",
    "2026-12-06_inference_tuning_heldout23",
)


def assert_manifest_is(folder: str, configs, rule: str) -> None:
    """The manifest in ``data/h200/<folder>`` lists ``configs`` in order, under ``rule``."""
    path = H200 / folder / "manifest_configs.json"
    assert [c.config_id for c in read_manifest(path)] == [c.config_id for c in configs]
    assert json.loads(path.read_text())["decision_rule"] == rule


def assert_set_is_new(folder: str, configs, rule: str) -> None:
    """The set's manifest is ``configs`` under ``rule``, and none of its runs is in a
    long-context set measured before it."""
    assert_manifest_is(folder, configs, rule)
    assert_none_in(LONG_CONTEXT_SETS[: LONG_CONTEXT_SETS.index(folder)], configs)


def assert_none_in(earlier: tuple[str, ...], configs) -> None:
    """No config of ``configs`` is in the manifests of the ``earlier`` data folders."""
    seen: set[str] = set()
    for name in earlier:
        seen |= {c.config_id for c in read_manifest(H200 / name / "manifest_configs.json")}
    assert not seen & {c.config_id for c in configs}


def stream_run(configs, cid: str, data: Path, predictions: Path, scope: bool):
    """(measured, law off, law on) seconds of one run of a tile-stream set (25-27) on
    ``h100-sxm5``, the law with (``scope``) or without set 26's scope; both predictions are
    checked to reproduce what was committed before the measurement."""
    import pytest

    from gpusim.engine.stream_latency import scoped, streaming
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.validation import long_context_sweep

    config = {c.config_id: c for c in configs}[cid]
    measured = {r["id"]: r for r in long_context_sweep.records(data)}[cid]["median_s"]
    committed = json.loads(predictions.read_text())["by_config"][cid]
    with streaming(False):
        off = predict_one(config, "h100-sxm5")["runtime_s"]
    with streaming(True), scoped(scope):
        on = predict_one(config, "h100-sxm5")["runtime_s"]
    assert off == pytest.approx(committed["h100-sxm5"]["runtime_s"], rel=1e-6)
    assert on == pytest.approx(committed["h100-sxm5+stream"]["runtime_s"], rel=1e-6)
    return measured, off, on


def mates_errors(config, data: Path, record: str) -> list[float]:
    """A set-32/33 run's errors recomputed from the code against its measured time: on
    h100-sxm5, the same with ``record``'s SM-mate ratio, h100-sxm5-core, the same with it."""
    from gpusim.reporting.long_context_predict import predict_one
    from gpusim.reporting.mates_set import with_record
    from gpusim.validation import long_context_sweep

    measured = {r["id"]: r for r in long_context_sweep.records(data)}[config.config_id]["median_s"]
    doc = json.loads((ROOT / record).read_text())
    errs = []
    for name in ("h100-sxm5", "h100-sxm5-core"):
        for profile in (name, with_record(name, doc, record)):
            errs.append(predict_one(config, profile)["runtime_s"] / measured - 1)
    return errs
