"""The long-context harness without a GPU: predict through the public API, then compare."""

import json

from gpusim.reporting.long_context import main
from gpusim.reporting.long_context_predict import predict_one
from gpusim.schedule import Schedule
from gpusim.validation.long_context_configs import LongContextConfig, manifest_doc
from gpusim.validation.store import RecordStore
from gpusim.workload import Workload


def _configs():
    w = Workload(batch=1, heads=4, seq_len_q=256, seq_len_k=256, head_dim=64, dtype="bf16")
    return [
        LongContextConfig("project", "prefill", w, Schedule(block_m=64, block_n=64)),
        LongContextConfig("project", "decode", w, Schedule(block_m=64, block_n=64, kv_splits=2)),
    ]


def test_predict_one_gives_numbers_or_a_reason_never_both():
    for c in _configs():
        got = predict_one(c, "h200-sxm-datasheet")
        assert ("runtime_s" in got) != ("error" in got)
    first = predict_one(_configs()[0], "h200-sxm-datasheet")
    assert first["runtime_s"] > 0 and first["dram_bytes"] > 0


def test_predict_then_compare_end_to_end(tmp_path, capsys):
    configs = _configs()
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps(manifest_doc(configs)))
    pred = tmp_path / "pred.json"
    args = ["--manifest", str(manifest)]
    assert main(["predict", *args, "--out", str(pred), "--profiles", "h200-sxm-datasheet"]) == 0
    doc = json.loads(pred.read_text())
    assert doc["manifest_configs_sha256"] == manifest_doc(configs)["configs_sha256"]
    measured = tmp_path / "run"
    store = RecordStore(measured / "sweep.jsonl")
    runtime = doc["by_config"][configs[0].config_id]["h200-sxm-datasheet"]["runtime_s"]
    store.add(configs[0].as_dict() | {"status": "ok", "median_s": runtime * 2})
    out = tmp_path / "cmp.json"
    rc = main(["compare", *args, "--measured", str(measured), "--predictions", str(pred),
               "--out", str(out)])  # fmt: skip
    assert rc == 0
    cmp = json.loads(out.read_text())["profiles"]["h200-sxm-datasheet"]
    assert cmp["model"]["project"]["mean_signed"] == -0.5
    assert "model" in capsys.readouterr().out


def test_a_manifest_that_is_not_one_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    assert main(["predict", "--manifest", str(bad), "--out", str(tmp_path / "p.json")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_a_folder_as_out_is_a_one_line_error(tmp_path, capsys):
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps(manifest_doc(_configs())))
    argv = ["compare", "--manifest", str(manifest), "--measured", str(tmp_path)]
    argv += ["--predictions", str(tmp_path / "p.json"), "--out", str(tmp_path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a folder" in err


def test_a_model_bug_is_recorded_for_its_config_and_the_others_go_on(monkeypatch):
    import gpusim.reporting.long_context_predict as lp

    def broken(*a, **k):
        raise AttributeError("'KernelSpec' object has no attribute 'lumped'")

    monkeypatch.setattr(lp, "simulate", broken)
    got = lp.predict_one(_configs()[0], "h200-sxm-datasheet")
    assert got["internal"] and got["error"].startswith("internal error: AttributeError")
