"""The CPU side of the PyTorch backward timing script: the manifest, the FLOP count, the
float64 reference's arithmetic (on numpy arrays) and the verdict; torch is never imported."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from gpusim.errors import GpusimError
from gpusim.validation import torch_bwd_measure as m

RUN = {
    "id": "b2-h16-kv4-4k-d128-causal",
    "batch": 2,
    "heads": 16,
    "heads_kv": 4,
    "seq_len_q": 4096,
    "seq_len_k": 4096,
    "head_dim": 128,
    "dtype": "bf16",
    "causal": True,
}


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


def test_a_manifest_parses_into_runs():
    (r,) = m.parse_manifest({"runs": [RUN]})
    assert (r.id, r.batch, r.heads, r.heads_kv, r.group, r.causal) == (RUN["id"], 2, 16, 4, 4, True)
    assert r.seed() == m.parse_manifest({"runs": [dict(RUN)]})[0].seed()
    e = m.expected(r)
    assert (e["block_m"], e["block_n"], e["warps"]) == (64, 128, 8)
    assert e["grids"]["flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel"] == [32, 2, 16]
    assert e["gqa_sums"]


def test_flop_counts():
    r = m.parse_manifest({"runs": [RUN | {"causal": False}]})[0]
    assert r.flops_bwd() == 10 * 2 * 16 * 4096 * 4096 * 128 == 687194767360
    assert r.flops_fwd() == 4 * 2 * 16 * 4096 * 4096 * 128
    assert r.flops_bwd() * 2 == r.flops_fwd() * 5  # 2.5 times the forward
    causal = m.parse_manifest({"runs": [RUN]})[0]
    assert causal.flops_bwd() == r.flops_bwd() // 2
    assert m.bwd_flops(1, 1, 3, 5, 8, False) == 1200
    assert m.fwd_flops(1, 1, 3, 5, 8, True) == 240


@pytest.mark.parametrize(
    ("doc", "match"),
    [
        ([RUN], "an object with a list 'runs'"),
        ({"runs": []}, "'runs' is empty"),
        ({"runs": [5]}, "a run must be an object"),
        ({"runs": [{k: v for k, v in RUN.items() if k != "heads_kv"}]}, "missing heads_kv"),
        ({"runs": [RUN | {"head_dimm": 64}]}, "unknown head_dimm"),
        ({"runs": [RUN | {"id": ""}]}, "id must be a non-empty string"),
        ({"runs": [RUN | {"batch": 0}]}, "batch must be a positive integer"),
        ({"runs": [RUN | {"heads": 16.0}]}, "heads must be a positive integer"),
        ({"runs": [RUN | {"causal": 1}]}, "causal must be true or false"),
        ({"runs": [RUN | {"seq_len_q": True}]}, "seq_len_q must be a positive integer"),
        ({"runs": [RUN | {"dtype": "fp32"}]}, "dtype must be bf16 or fp16"),
        ({"runs": [RUN | {"heads_kv": 3}]}, "heads_kv 3 must divide heads 16"),
        ({"runs": [RUN | {"seq_len_q": 1}]}, "refuses is_causal with seq_len_q != seq_len_k"),
        ({"runs": [RUN | {"head_dim": 100}]}, "multiple of 8 up to 256"),
        ({"runs": [RUN | {"head_dim": 208}]}, "224 or 256"),
        ({"runs": [RUN, RUN]}, "appears twice"),
    ],
)
def test_malformed_manifests_are_one_line_errors(doc, match):
    with pytest.raises(GpusimError, match=match) as e:
        m.parse_manifest(doc)
    assert "\n" not in str(e.value)


def test_a_bad_run_is_named_by_its_index_and_id():
    with pytest.raises(GpusimError, match=r"manifest: run 1 \(second\): batch"):
        m.parse_manifest({"runs": [RUN, RUN | {"id": "second", "batch": -1}]})


def test_manifest_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{runs: ")
    with pytest.raises(GpusimError, match="not JSON"):
        m.load_manifest(bad)
    with pytest.raises(GpusimError, match="cannot read"):
        m.load_manifest(tmp_path / "missing.json")
    good = tmp_path / "m.json"
    good.write_text(json.dumps({"runs": [RUN, RUN | {"id": "x", "causal": False}]}))
    assert [r.id for r in m.load_manifest(good)] == [RUN["id"], "x"]


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


def test_relative_frobenius_error_and_nan_count():
    ref = np.array([[3.0, 0.0], [0.0, 4.0]])
    assert m.rel_fro_err(ref, ref) == 0.0
    assert m.rel_fro_err(ref + np.array([[0.0, 0.5], [0.0, 0.0]]), ref) == pytest.approx(0.1)
    assert m.rel_fro_err(2 * ref, ref) == pytest.approx(1.0)
    got = ref.copy()
    got[0, 1] = np.nan
    assert math.isnan(m.rel_fro_err(got, ref)) and m.nan_count(got) == 1
    assert m.rel_fro_err(np.zeros(2), np.zeros(2)) == 0.0
    assert m.rel_fro_err(np.ones(2), np.zeros(2)) == math.inf


def test_group_sum_adds_the_query_heads_of_each_kv_head():
    b, hk, g, n, d = 2, 3, 4, 5, 2
    x = np.arange(b * hk * g * n * d, dtype=float).reshape(b * hk * g, n, d)
    got = m.group_sum(x, b, hk, g)
    assert got.shape == (b * hk, n, d)
    # query head h of batch element i is x[i * hk * g + h]; its K/V head is h // g
    want = np.stack(
        [sum(x[i * hk * g + j * g + r] for r in range(g)) for i in range(b) for j in range(hk)]
    )
    assert np.array_equal(got, want)


def test_reference_chunks_cover_every_score_once_within_the_budget():
    for bh, nq, nk, budget in [
        (6, 4, 8, 64),
        (6, 4, 8, 40),
        (3, 10, 7, 20),
        (2, 5, 9, 3),
        (1, 1, 1, 1),
    ]:
        seen = np.zeros((bh, nq), dtype=int)
        for h0, h1, r0, r1 in m.reference_chunks(bh, nq, nk, budget):
            assert (h1 - h0) * (r1 - r0) * nk <= max(budget, nk)
            seen[h0:h1, r0:r1] += 1
        assert (seen == 1).all()
    assert m.reference_chunks(6, 4, 8, 64) == [(0, 2, 0, 4), (2, 4, 0, 4), (4, 6, 0, 4)]
    assert m.reference_chunks(1, 10, 7, 20) == [(0, 1, r, min(10, r + 2)) for r in range(0, 10, 2)]


def _attention(q, k, v, causal, scale):
    """softmax(scale Q K^T) V written directly (no chunks), float64."""
    s = q @ np.swapaxes(k, -1, -2) * scale
    if causal:
        nq, nk = s.shape[-2:]
        s = np.where(np.arange(nk)[None, :] > np.arange(nq)[:, None] + nk - nq, -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.parametrize("causal", [False, True])
def test_the_reference_gradients_are_the_derivatives_of_the_attention(causal):
    rng = np.random.default_rng(7)
    q, k, v, do = (rng.standard_normal((2, 5, 4)) for _ in range(4))
    scale = 0.5
    ops = m.NumpyOps()
    o, dq, dk, dv = m.attention_reference(ops, q, k, v, do, causal, scale, budget=7)
    assert np.allclose(o, _attention(q, k, v, causal, scale), rtol=0, atol=1e-12)
    if causal:
        assert np.allclose(o[:, 0], v[:, 0])  # the first query sees the first key alone
    # d/dx sum(O * dO), by central differences, element by element
    eps = 1e-6
    for x, grad in ((q, dq), (k, dk), (v, dv)):
        num = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            x0 = x[i]
            x[i] = x0 + eps
            up = (_attention(q, k, v, causal, scale) * do).sum()
            x[i] = x0 - eps
            down = (_attention(q, k, v, causal, scale) * do).sum()
            x[i] = x0
            num[i] = (up - down) / (2 * eps)
        assert np.allclose(grad, num, rtol=1e-6, atol=1e-7)
    # chunking does not change the result
    whole = m.attention_reference(ops, q, k, v, do, causal, scale, budget=10**9)
    for a, b in zip(whole, (o, dq, dk, dv), strict=True):
        assert np.allclose(a, b, rtol=0, atol=1e-12)


def test_verdict():
    ok = {"dq": 5e-3, "dk": 4e-3, "dv": 3e-3, "out": 2e-3}
    assert m.verdict(ok, None, "bf16") is None
    assert "dq error 0.05 > 0.02" in m.verdict(ok | {"dq": 0.05}, None, "bf16")
    # three times PyTorch's own error in the same dtype passes
    assert m.verdict(ok | {"dq": 0.05}, {"dq": 0.02}, "bf16") is None
    assert m.verdict({"dq": 4e-3}, {"dq": 1e-3}, "fp16") == "dq error 0.004 > 0.003"
    assert "dk error nan" in m.verdict(ok | {"dk": math.nan}, None, "bf16")
    assert "dv error None" in m.verdict(ok | {"dv": None}, None, "fp16")


def test_timing_summary():
    s = m.timing_summary([3e-3, 1e-3, 2e-3], flops=4 * 10**9)
    assert (s["median_s"], s["min_s"]) == (2e-3, 1e-3)
    assert s["tflops"] == pytest.approx(2.0)
