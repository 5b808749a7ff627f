"""``gpusim tune`` against CLI.md: JSON keys, SRAM override, pinned options, errors, the plot."""

import pytest

SMALL = ("--batch", "1", "--heads", "4", "--seq-len", "512", "--head-dim", "64")
CANDIDATE_KEYS = {"block_m", "block_n", "warps", "stages", "smem_bytes_per_cta", "runtime_s"}


def test_json_contract(gpusim):
    r = gpusim("tune", *SMALL, "--json")
    assert r.code == 0, r.err
    d = r.json()
    assert d["candidates"] and all(set(c) >= CANDIDATE_KEYS for c in d["candidates"])
    times = [c["runtime_s"] for c in d["candidates"]]
    assert times == sorted(times)
    assert all("reason" in x and "block_m" in x for x in d["rejected"])
    assert {p["rule"] for p in d["rules"]} == {"paper", "seed"}


def test_sram_override_and_causal(gpusim):
    d = gpusim("tune", *SMALL, "--causal", "--sram-kib", "40", "--json").json()
    assert d["sram_bytes"] == 40 * 1024 and d["workload"]["causal"]
    assert all(c["smem_bytes_per_cta"] <= 40 * 1024 for c in d["candidates"])
    assert any(x["reason"].startswith("shared memory") for x in d["rejected"])


def test_pinned_block_m_tunes_the_rest(gpusim):
    d = gpusim("tune", *SMALL, "--block-m", "128", "--json").json()
    assert {c["block_m"] for c in d["candidates"]} == {128}


def test_text_output_has_ranking_rules_and_rejections(gpusim):
    r = gpusim("tune", *SMALL, "--sram-kib", "48")
    assert r.code == 0, r.err
    assert "FlashAttention paper" in r.out and "seed 000" in r.out and "Rejected" in r.out


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (("--sram-kib", "4"), "smallest SRAM that works is"),
        (("--sram-kib", "0"), "--sram-kib"),
        (("--profile", "no-such-gpu"), "no-such-gpu"),
        (("--block-m", "96"), "--block-m 96 is not in the search space"),
    ],
)
def test_bad_input_is_one_line(gpusim, argv, needle):
    r = gpusim("tune", *SMALL, *argv, "--json")
    assert r.code == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1 and needle in r.err, r.err


def test_plot_writes_the_heatmap(gpusim, tmp_path):
    path = tmp_path / "tune.png"
    d = gpusim("tune", *SMALL, "--plot", str(path), "--json").json()
    assert d["plot"] == str(path) and path.read_bytes()[:4] == b"\x89PNG"
    assert [p.name for p in tmp_path.iterdir()] == ["tune.png"]  # no temporary file left


@pytest.mark.parametrize(("name", "needle"), [("tune", "must end in"), ("tune.xyz", "must end in"),
                                              ("no/such/dir/t.png", "does not exist")])  # fmt: skip
def test_a_plot_name_it_cannot_write_is_refused_before_the_search(gpusim, tmp_path, name, needle):
    """A name without a known suffix used to get '.png' appended behind the JSON's back, and an
    unknown suffix failed after the whole search as an internal error (exit 3)."""
    r = gpusim("tune", *SMALL, "--plot", str(tmp_path / name), "--json")
    assert r.code == 2 and r.out == ""
    assert len(r.err.strip().splitlines()) == 1 and needle in r.err, r.err
    assert list(tmp_path.iterdir()) == []
