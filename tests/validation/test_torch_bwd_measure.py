"""The command that times PyTorch's backward, on the CPU: it lists a manifest's runs without
torch or the project's dependencies, and refuses a bad manifest in one line."""

import json
import subprocess
import sys

from gpusim.validation import torch_bwd_measure as m
from tests.validation.test_bwd_manifest import RUN


def test_the_script_lists_runs_without_torch_or_the_projects_dependencies(tmp_path):
    # On the GPU machine there is torch but no pydantic nor simpy; here, none of the three.
    manifest = tmp_path / "m.json"
    manifest.write_text(json.dumps({"runs": [RUN]}))
    code = (
        "import sys\n"
        "for name in ('torch', 'pydantic', 'simpy'):\n"
        "    sys.modules[name] = None\n"
        "from gpusim.validation import torch_bwd_measure as m\n"
        f"sys.exit(m.main(['--manifest', {str(manifest)!r}, '--dry-run']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("1 runs\n")


def test_the_command_lists_runs_without_a_gpu_and_refuses_a_bad_manifest(tmp_path, capsys):
    good = tmp_path / "m.json"
    good.write_text(json.dumps({"runs": [RUN]}))
    assert m.main(["--manifest", str(good), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "64x128 8 warps" in out and "grid [32, 2, 16]" in out and "1 runs" in out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"runs": [RUN | {"dtype": "int8"}]}))
    assert m.main(["--manifest", str(bad), "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("torch_bwd_measure: error:") and err.count("\n") == 1
    assert m.main(["--manifest", str(good)]) == 2  # no --out
