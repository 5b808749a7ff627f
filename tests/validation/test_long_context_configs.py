"""The long-context sweep's configurations and their manifest."""

import json

import pytest

from gpusim.errors import GpusimError
from gpusim.validation.long_context_configs import (
    LongContextConfig,
    long_context_configs,
    main,
    manifest_doc,
    read_manifest,
)
from gpusim.validation.torch_flash_schedule import schedule_before_set43


def test_ids_are_unique_and_round_trip():
    configs = long_context_configs()
    ids = [c.config_id for c in configs]
    assert len(ids) == len(set(ids))
    assert [LongContextConfig.from_dict(c.as_dict()) for c in configs] == configs


def test_the_sweep_covers_the_issue_and_fits_the_device():
    configs = long_context_configs()
    assert 80 <= len(configs) <= 150
    decode = [c.workload for c in configs if c.group == "decode"]
    assert {w.seq_len_q for w in decode} == {1, 16, 128}
    assert min(w.seq_len_k for w in decode) == 4096 and max(w.seq_len_k for w in decode) == 131072
    assert {w.batch for w in decode} >= {1, 64}
    gqa = [c.workload for c in configs if c.group.startswith("gqa")]
    assert {w.kv_heads for w in gqa} == {8, 4} and {w.heads for w in gqa} == {32}
    prefill = [c for c in configs if c.group == "prefill"]
    assert {c.workload.seq_len_q for c in prefill} == {16384, 32768, 65536, 131072}
    assert {c.schedule.kv_order for c in prefill if c.kernel == "project"} == {
        "forward",
        "backward",
    }
    assert all(c.ncu == (c.group == "prefill") for c in configs)
    project_splits = {c.schedule.kv_splits for c in configs if c.kernel == "project"}
    assert {1, 4, 16} <= project_splits
    for c in configs:  # K and V of one workload stay a few GB on the H200
        assert c.workload.qkvo_bytes() < 5e9


def test_torch_runs_carry_the_schedule_its_flash_backend_chooses():
    for c in long_context_configs():
        if c.kernel == "torch":
            assert c.schedule == schedule_before_set43(c.workload, 132)


def test_manifest_round_trips_and_edits_are_caught(tmp_path):
    path = tmp_path / "m.json"
    assert main(["--write", str(path)]) == 0
    assert read_manifest(path) == long_context_configs()
    assert main(["--write", str(path)]) == 2  # never overwritten
    doc = json.loads(path.read_text())
    doc["configs"][0]["workload"]["batch"] += 1
    doc["configs"][0]["id"] = LongContextConfig.from_dict(
        {k: v for k, v in doc["configs"][0].items() if k != "id"}
    ).config_id
    path.write_text(json.dumps(doc))
    with pytest.raises(GpusimError, match="digest"):
        read_manifest(path)


def test_digest_depends_on_every_config():
    configs = long_context_configs()
    assert manifest_doc(configs)["configs_sha256"] != manifest_doc(configs[1:])["configs_sha256"]
