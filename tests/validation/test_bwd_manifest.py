"""The manifest of the PyTorch backward timing: its runs checked (one-line errors), their
FLOP counts, and the tiles and grids expected of them."""

import json

import pytest

from gpusim.errors import GpusimError
from gpusim.validation import bwd_manifest as m

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
        ({"runs": [RUN, RUN]}, "appears twice"),
    ],
)
def test_malformed_manifests_are_one_line_errors(doc, match):
    with pytest.raises(GpusimError, match=match) as e:
        m.parse_manifest(doc)
    assert "\n" not in str(e.value)


def test_head_dim_208_is_the_binarys_256_and_unsettled_by_the_sources():
    from gpusim.validation.torch_head_buckets import binary_buckets

    (r,) = m.parse_manifest({"runs": [RUN | {"head_dim": 208}]})  # torch 2.11 has no d224
    assert r.head_dim == 208
    with binary_buckets(False), pytest.raises(GpusimError, match="224 or 256") as e:
        m.parse_manifest({"runs": [RUN | {"head_dim": 208}]})
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
