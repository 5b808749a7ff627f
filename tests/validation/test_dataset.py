"""Loading a dataset checks its provenance; a dataset of one GPU is never judged by another's
profile."""

from __future__ import annotations

import json

import pytest

from gpusim.errors import GpusimError
from gpusim.profiles.loader import load_profile
from gpusim.validation.dataset import check_profile, gpu_model, load_dataset

from .conftest import make_dataset


def test_loads_the_synthetic_dataset(dataset_file):
    data = load_dataset(dataset_file)
    assert data["provenance"]["gpu_name"] == "NVIDIA H200"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(kind="other"), "not a validation dataset"),
        (lambda d: d.update(schema=99), "schema"),
        (lambda d: d["provenance"].pop("gpu_name"), "provenance lacks gpu_name"),
        (lambda d: d["provenance"].pop("git_commit"), "git_commit"),
        (lambda d: d.update(records=[]), "no records"),
        (lambda d: d["records"][0].pop("median_s"), "no median_s"),
        (lambda d: d["records"][0].pop("status"), "lacks status"),
    ],
)
def test_malformed_datasets_are_refused(tmp_path, change, message):
    data = make_dataset()
    change(data)
    p = tmp_path / "d.json"
    p.write_text(json.dumps(data))
    with pytest.raises(GpusimError, match=message):
        load_dataset(p)


def test_not_json_and_missing_file(tmp_path):
    p = tmp_path / "d.json"
    p.write_text("{")
    with pytest.raises(GpusimError, match="not JSON"):
        load_dataset(p)
    with pytest.raises(GpusimError, match="does not exist"):
        load_dataset(tmp_path / "nope.json")


@pytest.mark.parametrize(
    ("name", "model"),
    [
        ("NVIDIA H200", "H200"),
        ("NVIDIA H100 80GB HBM3", "H100"),
        ("NVIDIA A100-SXM4-80GB", "A100"),
        ("NVIDIA GeForce RTX 4090", "RTX"),
        ("Tesla V100-SXM2-16GB", "V100"),
    ],
)
def test_gpu_model(name, model):
    assert gpu_model(name) == model


def test_profile_of_the_same_gpu_is_accepted():
    data = make_dataset()
    check_profile(data, load_profile("h200-sxm"))
    check_profile(data, load_profile("h200-sxm-datasheet"))


def test_profile_of_another_gpu_is_refused():
    data = make_dataset()
    with pytest.raises(GpusimError, match="measured on 'NVIDIA H200'"):
        check_profile(data, load_profile("h100-sxm5"))
    data["provenance"]["gpu_name"] = "NVIDIA H100 80GB HBM3"
    with pytest.raises(GpusimError, match="use a profile of that GPU"):
        check_profile(data, load_profile("h200-sxm-datasheet"))


def test_device_figures_must_match_the_profile():
    data = make_dataset()
    data["provenance"]["l2_bytes"] = 52428800
    with pytest.raises(GpusimError, match="l2_bytes"):
        check_profile(data, load_profile("h200-sxm"))


def test_later_dataset_supersedes_same_ids():
    from gpusim.validation.dataset import merge_records

    a, b = make_dataset(1e-3), make_dataset(2e-3)
    b["records"] = b["records"][:1]
    recs, sup = merge_records([("a.json", a), ("b.json", b)])
    assert [r["id"] for r in recs] == [r["id"] for r in a["records"]]
    assert recs[0]["median_s"] == 2e-3 and recs[0]["dataset"] == "b.json"
    assert recs[1]["dataset"] == "a.json"
    assert sup == [{"id": a["records"][0]["id"], "dataset": "a.json", "superseded_by": "b.json"}]
