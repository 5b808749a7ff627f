"""The prediction cache gives back the very rows a simulation gives, and misses on any change
of what they depend on."""

import json

from gpusim.profiles.loader import load_profile
from gpusim.validation import predicted_vs_measured as compare
from gpusim.validation import prediction_cache


def _ok(dataset_file):
    return [r for r in json.loads(dataset_file.read_text())["records"] if r["status"] == "ok"]


def test_a_second_run_reads_the_same_rows_without_simulating(dataset_file, monkeypatch):
    profile = load_profile("h200-sxm")
    first = compare.compare_records(_ok(dataset_file), profile, jobs=1)

    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated although every row is stored")

    monkeypatch.setattr(compare, "compare_record", no_simulation)
    again = compare.compare_records(_ok(dataset_file), profile, jobs=1)
    assert [r.as_dict() for r in again] == [r.as_dict() for r in first]


def test_the_key_changes_with_the_record_the_profile_and_the_detail(dataset_file):
    rec = _ok(dataset_file)[0]
    base = prediction_cache.row_key(rec, "{}", "auto")
    assert prediction_cache.row_key(rec | {"median_s": 1.0}, "{}", "auto") != base
    assert prediction_cache.row_key(rec, '{"x": 1}', "auto") != base
    assert prediction_cache.row_key(rec, "{}", "full") != base
    assert prediction_cache.row_key(rec, "{}", "auto") == base


def test_off_stores_nothing(dataset_file, monkeypatch, tmp_path):
    monkeypatch.setenv("GPUSIM_CACHE_DIR", "off")
    assert prediction_cache.cache_dir() is None
    prediction_cache.store("ab" * 32, {"id": "x"})
    assert prediction_cache.load("ab" * 32) is None


def test_the_validation_files_the_rows_come_from_are_in_the_fingerprint():
    # A renamed module would drop out of the fingerprint unseen: its edits would keep
    # stale rows (compare.py and footprint.py were renamed once, and were).
    from gpusim.data.layout import REPO_ROOT

    for relative in prediction_cache.MODEL_IN_VALIDATION:
        assert (REPO_ROOT / relative).is_file(), relative
        assert prediction_cache._is_model(relative)
    assert compare.__file__.endswith(prediction_cache.MODEL_IN_VALIDATION[0])
