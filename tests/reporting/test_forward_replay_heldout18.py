"""Held-out set 18: the committed manifest is the module's and new; the variant profile is
the shipped core profile plus the measured local-memory pair."""

from __future__ import annotations

import json
from pathlib import Path

from gpusim.reporting.forward_replay_heldout18 import (
    local_fields,
    main,
    manifest_runs,
    variant_profile,
)
from gpusim.validation import backward_heldout15, backward_heldout17
from gpusim.validation.bwd_manifest import parse_manifest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data/h200/2026-12-05_forward_replay_heldout18"


def _shape(r: dict) -> tuple:
    keys = ("batch", "heads", "heads_kv", "seq_len_q", "head_dim", "dtype", "causal")
    return tuple(r[k] for k in keys)


def test_committed_manifest_is_the_sets_and_new(capsys):
    doc = json.loads((DATA / "manifest_configs.json").read_text())
    assert doc["runs"] == manifest_runs()
    assert len(parse_manifest(doc)) == 11
    seen = {_shape(r) for m in (backward_heldout15, backward_heldout17) for r in m.manifest_runs()}
    assert not seen & {_shape(r) for r in doc["runs"]}
    assert main(["manifest", "--out", str(DATA / "manifest_configs.json")]) == 2
    assert "exists" in capsys.readouterr().err


def test_the_variant_adds_the_measured_pair_to_the_shipped_core_cycles():
    from gpusim.profiles.loader import load_profile

    fields = local_fields()
    assert 30 < fields["local_latency"] < 40 and 3.5 < fields["local_access"] < 4.5
    core, variant = load_profile("h200-sxm-core"), variant_profile()
    assert variant.sass_core_cycles.value == {**core.sass_core_cycles.value, **fields}
    assert "local_latency" not in core.sass_core_cycles.value  # no shipped profile has it


def test_replays_recomputed_against_the_record():
    """Recorded (reports/forward_replay_heldout18): d64 GQA causal N3072, replay -7.4 %, the
    variant with local memory -0.6 % (the set: 9.8 % against 7.2 %)."""
    import gpusim
    from gpusim.reporting.backward_compare import last_records
    from gpusim.reporting.torch_sass import replay_args
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import schedule_before_set43

    rid = "bwd_b3h32kv4_n3072_d64_bf16_c1"
    run = next(r for r in manifest_runs() if r["id"] == rid)
    w = workload(run, "fwd")
    s = schedule_before_set43(w)
    kw = replay_args(w, s)
    t = last_records(DATA / "runs.jsonl")[rid]["fwd"]["median_s"]
    replay, local = (
        gpusim.simulate("flash2", w, s, p, **kw).runtime_s / t - 1
        for p in ("h200-sxm-core", variant_profile())
    )
    assert -0.09 < replay < -0.06 and abs(local) < 0.02
