"""The SM-partition set's configurations and its committed manifest."""

from __future__ import annotations

import json

import pytest

from gpusim.errors import GpusimError
from gpusim.validation import partition_configs as pc
from gpusim.validation.partitions_device import MANIFEST


def test_the_set_is_every_workload_on_every_partition_for_both_kernels():
    configs = pc.partition_configs()
    assert len(configs) == len(pc.WORKLOADS) * len(pc.SM_COUNTS) * 2 == 60
    assert len({c.config_id for c in configs}) == 60
    assert {c.sm_count for c in configs} == set(pc.SM_COUNTS)
    for c in configs:
        if c.kernel == "torch":  # FlashAttention-2's schedule: one K/V buffer, no split here
            assert (c.schedule.stages, c.schedule.kv_splits) == (1, 1)
            assert c.schedule.kv_order == "backward"


def test_the_committed_manifest_is_this_set_unedited():
    committed = pc.read_manifest(MANIFEST)
    assert [c.config_id for c in committed] == [c.config_id for c in pc.partition_configs()]


def test_an_edited_manifest_is_refused(tmp_path):
    doc = json.loads(MANIFEST.read_text())
    doc["configs"][0]["sm_count"] = 24
    doc["configs"][0]["id"] = doc["configs"][0]["id"].replace("_sm8_", "_sm24_")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(GpusimError, match="digest"):
        pc.read_manifest(path)
    doc["kind"] = "other"
    path.write_text(json.dumps(doc))
    with pytest.raises(GpusimError, match="not a partitions manifest"):
        pc.read_manifest(path)


def test_an_entry_whose_id_disagrees_with_its_fields_is_refused():
    d = pc.partition_configs()[0].as_dict() | {"sm_count": 16}
    with pytest.raises(GpusimError, match="does not match"):
        pc.PartitionConfig.from_dict(d)


def test_write_refuses_to_overwrite(tmp_path, capsys):
    path = tmp_path / "m.json"
    assert pc.main(["--write", str(path)]) == 0
    assert pc.read_manifest(path)
    assert pc.main(["--write", str(path)]) == 2
    assert "exists" in capsys.readouterr().err
