"""The recorded data folders' manifests and index are what the folders give (no edit, no
folder without a manifest, no stale index)."""

import json

from gpusim.data import manifest
from gpusim.data.layout import DATA_DIR


def test_every_manifest_and_the_index_match_the_folders():
    assert manifest.stale() == []


def test_index_lists_every_folder_once():
    doc = json.loads((DATA_DIR / manifest.INDEX).read_text())
    listed = [f["folder"] for f in doc["folders"]]
    on_disk = [str(p.relative_to(DATA_DIR)) for p in manifest.folders()]
    assert listed == on_disk and len(set(listed)) == len(listed)


def test_nothing_lies_outside_a_gpu_date_folder():
    loose = [
        p
        for p in DATA_DIR.rglob("*")
        if p.is_file() and len(p.relative_to(DATA_DIR).parts) < 3 and p.name != manifest.INDEX
    ]
    assert loose == []
    for folder in manifest.folders():
        date, _, what = folder.name.partition("_")
        assert len(date) == 10 and date[4] == date[7] == "-" and what, folder


def test_an_edited_measurement_makes_its_manifest_stale(tmp_path):
    run = tmp_path / "h200" / "2026-01-01_probe"
    run.mkdir(parents=True)
    (run / "r.json").write_text('{"gpu": "NVIDIA H200", "date": "2026-01-01", "x": 1}')
    manifest.main(["write", "--data", str(tmp_path)])
    assert manifest.stale(tmp_path) == []
    doc = json.loads((run / manifest.MANIFEST).read_text())
    assert doc["gpu"] == "NVIDIA H200" and doc["commit"] is None and "commit" in doc["unknown"]
    (run / "r.json").write_text('{"gpu": "NVIDIA H200", "date": "2026-01-01", "x": 2}')
    assert manifest.stale(tmp_path) == [run / manifest.MANIFEST]
