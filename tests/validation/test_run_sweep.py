"""The GPU-side bookkeeping that needs no GPU: selection, ncu missing, dataset assembly."""

from __future__ import annotations

from gpusim import ncu as ncu_mod
from gpusim.validation.configs import sweep_configs
from gpusim.validation.dataset import check_dataset
from gpusim.validation.run_sweep import assemble, ncu_step, select
from gpusim.validation.store import RecordStore

from .conftest import PROVENANCE


def test_select_by_id_parts():
    configs = sweep_configs()
    picked = select(configs, "standard_,_fp32_d64_n512_")
    assert {c.kind for c in picked} == {"standard", "flash2"}
    assert len(picked) == 6 + 2
    assert select(configs, None) == configs


def test_missing_ncu_gives_timing_only(monkeypatch, tmp_path):
    monkeypatch.setattr(ncu_mod, "find_ncu", lambda: None)
    state = ncu_step(sweep_configs(), tmp_path, None, 10, lambda m: None)
    assert state["available"] is False and "timing-only" in state["error"]


def test_assemble_merges_counts_in_sweep_order(tmp_path):
    configs = sweep_configs()[:3]
    store = RecordStore(tmp_path / "s.jsonl")
    for c in reversed(configs):
        store.add(c.as_dict() | {"status": "ok", "median_s": 1e-3})
    counts = {"by_config": {configs[1].config_id: {"dram_read_bytes": 1.0}}, "available": True}
    data = assemble(configs, store, counts, dict(PROVENANCE), {})
    check_dataset(data)
    assert [r["id"] for r in data["records"]] == [c.config_id for c in configs]
    assert "counts" in data["records"][1] and "counts" not in data["records"][0]
    assert data["ncu"] == {"available": True}


def test_assemble_dir_from_files(tmp_path):
    import json

    from gpusim.validation.dataset import load_dataset
    from gpusim.validation.run_sweep import PROVENANCE_FILE, SWEEP_FILE, assemble_dir

    c = sweep_configs()[0]
    RecordStore(tmp_path / SWEEP_FILE).add(c.as_dict() | {"status": "ok", "median_s": 1e-3})
    meta = {"provenance": dict(PROVENANCE), "method": {"repeats": 1}}
    (tmp_path / PROVENANCE_FILE).write_text(json.dumps(meta))
    path = assemble_dir(tmp_path, lambda m: None)
    assert path.name == "h200-dataset.json"
    assert [r["id"] for r in load_dataset(path)["records"]] == [c.config_id]
