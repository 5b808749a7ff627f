"""``gpusim validate``: --from recomputes and writes the report; without a GPU, one line."""

from __future__ import annotations

import json

from gpusim.cli.main import run


def test_validate_from_dataset_json(dataset_file, capsys, tmp_path):
    out = tmp_path / "report"
    code = run(
        ["validate", "--from", str(dataset_file), "--out", str(out), "--jobs", "1", "--json"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    for key in ("dataset", "configs", "runtime_mape", "dram_bytes_mape", "l2_bytes_mape"):
        assert key in doc
    assert doc["configs"] == 2
    assert doc["failed"] == ["broken"]
    assert doc["dram_bytes_mape"] is not None
    names = {p.rsplit("/", 1)[-1] for p in doc["files"]}
    assert names == {"README.md", "scatter.png", "errors.csv", "comparison.json"}
    readme = (out / "README.md").read_text()
    assert "What fed the model and what judged it" in readme
    assert "broken" in readme  # the failed config is listed
    assert (out / "scatter.png").read_bytes()[:4] == b"\x89PNG"


def test_notes_are_included(dataset_file, capsys, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "notes.md").write_text("## Why the worst cases miss\n\nbecause.\n")
    assert run(["validate", "--from", str(dataset_file), "--out", str(out), "--jobs", "1"]) == 0
    capsys.readouterr()
    assert "because." in (out / "README.md").read_text()


def test_without_out_a_fresh_folder_not_the_datasets(dataset_file, capsys):
    before = sorted(dataset_file.parent.iterdir())
    assert run(["validate", "--from", str(dataset_file), "--jobs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    folders = {p.rsplit("/", 1)[0] for p in doc["files"]}
    assert len(folders) == 1 and folders != {str(dataset_file.parent)}
    assert sorted(dataset_file.parent.iterdir()) == before


def test_wrong_profile_is_one_line(dataset_file, capsys):
    code = run(["validate", "--from", str(dataset_file), "--profile", "a100-sxm4-80gb", "--json"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "use a profile of that GPU" in err


def test_missing_dataset_is_one_line(tmp_path, capsys):
    assert run(["validate", "--from", str(tmp_path / "x.json"), "--json"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_without_gpu_is_one_line(monkeypatch, tmp_path, capsys):
    import gpusim.kernels.runner as runner
    from gpusim.errors import GpusimError

    def no_gpu():
        raise GpusimError("CuPy is not installed; install cupy-cuda12x or cupy-cuda13x")

    monkeypatch.setattr(runner, "import_cupy", no_gpu)
    assert run(["validate", "--out", str(tmp_path), "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpusim: error: CuPy is not installed") and err.count("\n") == 1


def test_two_datasets_merge(tmp_path, capsys):
    from .conftest import make_dataset

    first, second = make_dataset(1e-3), make_dataset(3e-3)
    second["records"] = second["records"][:1]
    (tmp_path / "a.json").write_text(json.dumps(first))
    (tmp_path / "b.json").write_text(json.dumps(second))
    args = ["validate", "--from", str(tmp_path / "a.json"), "--from", str(tmp_path / "b.json")]
    assert run([*args, "--out", str(tmp_path), "--jobs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["datasets"] == [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    assert [s["superseded_by"] for s in doc["superseded"]] == ["b.json"]
    readme = (tmp_path / "README.md").read_text()
    assert "`a.json`" in readme and "`b.json`" in readme and "Re-measured" in readme
