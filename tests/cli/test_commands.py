"""The commands' JSON against the contract in shared/CLI.md, and their human output."""

from __future__ import annotations

import pytest

from gpusim.profiles import list_profiles


def test_profiles_json(gpusim):
    result = gpusim("profiles", "--json")
    assert result.code == 0
    data = result.json()
    names = [p["name"] for p in data["profiles"]]
    assert names == list_profiles()
    for p in data["profiles"]:
        for key in (
            "name",
            "sm_count",
            "smem_per_sm_bytes",
            "l2_bytes",
            "dram_bandwidth_bytes_per_s",
        ):
            assert key in p
    h200 = next(p for p in data["profiles"] if p["name"] == "h200-sxm-datasheet")
    assert h200["sm_count"] == 132
    assert h200["l2_bytes"] == 62_914_560
    assert "details" not in data


def test_profiles_named_show_every_sourced_field(gpusim):
    data = gpusim("profiles", "a100-sxm4-80gb", "--json").json()
    [detail] = data["details"]
    assert detail["sm_count"] == {"value": 108, "source": detail["sm_count"]["source"]}
    assert "whitepaper" in detail["sm_count"]["source"]
    human = gpusim("profiles", "a100-sxm4-80gb")
    assert human.code == 0
    assert "108  [NVIDIA A100" in human.out  # values with their sources, for a person


def test_algorithms_json(gpusim):
    from algorithms import ALGORITHMS

    data = gpusim("algorithms", "--json").json()
    assert [a["name"] for a in data["algorithms"]] == list(ALGORITHMS)
    assert all(a["description"] for a in data["algorithms"])


def test_verify_json(gpusim):
    result = gpusim("verify", "--algorithm", "flash2", "--algorithm", "standard", "--json")
    assert result.code == 0
    data = result.json()
    # each forward, then its backward (a training step's gradients)
    assert [(r["algorithm"], r.get("pass", "fwd")) for r in data["results"]] == [
        ("flash2", "fwd"),
        ("flash2", "fwd+bwd"),
        ("standard", "fwd"),
        ("standard", "fwd+bwd"),
    ]
    for r in data["results"]:
        assert r["cases"] >= 1
        assert 0 <= r["max_rel_err"] < 1e-12
        assert r["passed"] is True
    assert data["passed"] is True
    assert "verifying" in result.err  # progress goes to stderr


def test_verify_fails_when_the_tolerance_is_impossible(gpusim):
    result = gpusim("verify", "-a", "flash2", "--tolerance", "0", "--json")
    assert result.code == 1
    assert result.json()["passed"] is False


COUNT_KEYS = (
    "algorithm",
    "workload",
    "schedule",
    "flops",
    "global_read_bytes",
    "global_write_bytes",
    "smem_bytes_per_cta",
)


def test_count_json_has_the_contract_keys_and_says_which_blocks_were_defaulted(gpusim):
    data = gpusim("count", "--seq-len", "512", "--batch", "1", "--heads", "2", "--json").json()
    for key in COUNT_KEYS:
        assert key in data
    assert data["algorithm"] == "flash2"
    assert data["workload"] == {
        "batch": 1,
        "heads": 2,
        "seq_len_q": 512,
        "seq_len_k": 512,
        "head_dim": 128,
        "dtype": "fp16",
        "causal": False,
        "heads_kv": None,
    }
    assert data["flops"] == 4 * 2 * 512 * 512 * 128
    assert set(data["defaults_used"]) == {
        "block_m",
        "block_n",
        "warps",
        "stages",
        "warp_split",
        "residency",
    }
    for k, v in data["defaults_used"].items():
        assert data["schedule"][k] == v
    assert data["profile"] == "h200-sxm"
    assert data["ctas_per_sm"] >= 1


def test_count_keeps_given_blocks_and_defaults_only_the_rest(gpusim):
    data = gpusim(
        "count", "--seq-len", "256", "--seq-len-k", "384", "--block-m", "64", "--stages", "1",
        "--causal", "--dtype", "bf16", "--profile", "a100-sxm4-80gb", "--json",
    ).json()  # fmt: skip
    assert data["schedule"]["block_m"] == 64
    assert data["schedule"]["stages"] == 1
    assert "block_m" not in data["defaults_used"]
    assert "stages" not in data["defaults_used"]
    assert "block_n" in data["defaults_used"]
    assert data["workload"]["seq_len_k"] == 384
    assert data["workload"]["causal"] is True
    assert data["workload"]["dtype"] == "bf16"
    assert data["profile"] == "a100-sxm4-80gb"


def test_count_nothing_defaulted_when_everything_is_given(gpusim):
    argv = ["count", "--seq-len", "128", "--block-m", "64", "--block-n", "32", "--warps", "4"]
    argv += ["--stages", "2", "--warp-split", "split-q", "--residency", "registers", "--json"]
    assert gpusim(*argv).json()["defaults_used"] == {}


@pytest.mark.parametrize("command", ["profiles", "algorithms", "count"])
def test_human_output_is_a_table_not_json(gpusim, command):
    result = gpusim(command, *(["--seq-len", "128"] if command == "count" else []))
    assert result.code == 0
    assert not result.out.lstrip().startswith("{")
    assert result.out.strip()


def test_help_and_version(gpusim):
    assert gpusim("--help").code == 0
    result = gpusim("count", "--help")
    assert result.code == 0
    for option in ("--block-m", "--seq-len-k", "--warp-split", "--residency", "--profile"):
        assert option in result.out
    version = gpusim("--version")
    assert version.code == 0
    assert version.out.startswith("gpusim ")
