"""The plan: every point of the grid, in a fixed order; bad values refused before any runs."""

from __future__ import annotations

import pytest

from gpusim.errors import GpusimError
from gpusim.explore.spec import parse_spec
from gpusim.explore.sweep_plan import expand_workloads, load_plan, make_plan
from gpusim.workload import Workload
from tests.explore.conftest import SMALL_SPEC, write_spec


def plan_of(text: str):
    return make_plan(parse_spec(text, "spec.yaml"))


def test_points_are_every_combination_in_spec_order():
    plan = plan_of(SMALL_SPEC + "\n")
    points = list(plan.points())
    assert plan.n_points == len(points) == 4
    assert [(p["params"]["sm_count"], p["workload"]["heads"]) for p in points] == [
        (66, 1), (66, 2), (132, 1), (132, 2),
    ]  # fmt: skip
    assert points[0]["workload"] == Workload(
        batch=1, heads=1, seq_len_q=128, seq_len_k=128, head_dim=64
    ).model_dump(mode="json")


def test_workload_grids_expand_and_repeats_count_once():
    ws = expand_workloads(
        [
            {"seq_len": [64, 128], "causal": [False, True]},
            {"seq_len": 64},
            {"seq_len": 64, "seq_len_k": 64},
        ]
    )
    assert len(ws) == 4
    assert ws[0] == Workload(seq_len_q=64, seq_len_k=64)  # CLI defaults otherwise
    decode = expand_workloads([{"batch": 64, "seq_len": 1, "seq_len_k": 32768, "heads_kv": 8}])
    assert (decode[0].seq_len_q, decode[0].seq_len_k, decode[0].kv_heads) == (1, 32768, 8)
    passes = expand_workloads([{"seq_len": 64, "pass": ["fwd", "bwd", "fwd+bwd"]}])
    assert [w.pass_ for w in passes] == ["fwd", "bwd", "fwd+bwd"]
    assert passes[0] == Workload(seq_len_q=64, seq_len_k=64)  # a forward reads as before


def test_table_columns_use_the_records_names():
    from gpusim.explore.table import point_object, schema

    cols = schema(plan_of(SMALL_SPEC + "\n")).names
    assert "workload.pass" in cols and "workload.pass_" not in cols
    rec = {"point": {"algorithm": "flash2", "params": {}, "workload": {"batch": 1}}, "status": "ok"}
    assert point_object(rec)["workload"] == {"pass": "fwd", "batch": 1}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vary: {sm_cnt: [66]}\nworkloads: [{}]", "did you mean 'sm_count'"),
        ("vary: {sm_count: [66, 5000]}\nworkloads: [{}]", "plausible range 1 .. 4096"),
        ("vary: {sm_count: []}\nworkloads: [{}]", "vary.sm_count: an empty list"),
        ("vary: {sm_count: [66, 66]}\nworkloads: [{}]", "listed twice"),
        ("workloads: []", "workloads: an empty list"),
        ("workloads: [{seq_len: []}]", "workloads[0].seq_len: an empty list"),
        ("workloads: [{seqlen: 4}]", "did you mean 'seq_len'"),
        ("workloads: [{seq_len: 0}]", "workloads[0]: seq_len: must be > 0"),
        ("workloads: [{heads: 6, heads_kv: 4}]", "not a multiple of heads_kv"),
        ("workloads: [{pass: sideways}]", "workloads[0]: pass:"),
        ("workloads: [{}]\nalgorithms: []", "algorithms: an empty list"),
        ("workloads: [{}]\nalgorithms: [flash3]", "algorithms: unknown algorithm 'flash3'"),
        ("workloads: [{}]\nbase_profile: h300", "base_profile: unknown profile 'h300'"),
        (
            "vary: {smem_per_sm_bytes: [98304], smem_per_block_bytes: [1024]}\nworkloads: [{}]",
            "not both",
        ),
    ],
)
def test_bad_values_are_refused_before_any_point_runs(text, expected):
    with pytest.raises(GpusimError) as e:
        plan_of(text)
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_a_combination_each_value_allows_is_left_to_its_point():
    plan = plan_of(
        "vary: {max_threads_per_block: [1024, 2048], max_warps_per_sm: [32, 64]}\n"
        "workloads: [{seq_len: 64}]"
    )
    assert plan.n_points == 4  # (2048, 32) is refused, by that point alone


def test_a_base_profile_file_is_found_beside_the_spec(tmp_path):
    import shutil

    from gpusim.profiles import profile_path

    shutil.copy(profile_path("a100-sxm4-80gb"), tmp_path / "mine.yaml")
    spec = write_spec(tmp_path, "base_profile: mine.yaml\nworkloads: [{seq_len: 64}]\n")
    plan = load_plan(spec)
    assert plan.base.name == "a100-sxm4-80gb" and plan.n_points == 1
    assert plan.base_fingerprint != plan_of("workloads: [{seq_len: 64}]").base_fingerprint


def test_a_points_ordinal_is_its_place_in_the_plan():
    plan = plan_of(SMALL_SPEC.replace("[flash2]", "[flash2, flash1]"))
    points = list(plan.points())
    assert [plan.ordinal(p) for p in points] == list(range(8))
    other = dict(points[3], algorithm="standard")
    assert plan.ordinal(other) is None
    assert plan.ordinal(dict(points[3], params={"sm_count": 66.0})) is None  # int field
    assert plan.ordinal(dict(points[3], params={"sm_count": 100})) is None
