"""The engine reads kernel descriptions, never algorithm or kernel names.

A kernel renamed but otherwise the same simulates exactly as before; the description's
fields (``compiled_kernel``, ``copies_into_padded_rows``), not its name, decide what the
engine does; and no module of the engine holds an algorithm's or kernel's name.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import gpusim.engine
from algorithms import ALGORITHMS
from algorithms.flash2 import Flash2, Flash2Kernel
from gpusim.engine.simulate import simulate
from gpusim.profiles import load_profile
from gpusim.schedule import Schedule
from gpusim.workload import Workload

ENGINE = Path(gpusim.engine.__file__).parent
W = dict(batch=1, heads=4, seq_len_q=1024, seq_len_k=1024, head_dim=128)
S = Schedule(block_m=128, block_n=64, warps=4, stages=2)
#: what a simulation predicts (the kernels' own names aside)
PREDICTED = ("runtime_s", "dram_read_bytes", "dram_write_bytes", "l2_read_hit_bytes", "events")


def _prediction(result) -> dict:
    d = result.to_json_dict()
    out = {k: d[k] for k in PREDICTED}
    out["kernels"] = [{k: v for k, v in kd.items() if k != "name"} for kd in d["kernels"]]
    out["sm_l2_read_bytes"] = result.counters.sm_l2_read_bytes
    return out


def _run(dtype: str, profile: str) -> dict:
    return _prediction(simulate("flash2", Workload(**W, dtype=dtype), S, load_profile(profile)))


def _renamed(monkeypatch, name: str) -> None:
    original = Flash2.kernels

    def kernels(self, workload, schedule):
        return [dataclasses.replace(k, name=name) for k in original(self, workload, schedule)]

    monkeypatch.setattr(Flash2, "kernels", kernels)


@pytest.mark.parametrize(
    ("dtype", "profile"),
    [("bf16", "h200-sxm-core"), ("fp32", "h200-sxm-datasheet"), ("fp16", "a100-sxm4-80gb")],
)
def test_a_renamed_kernel_simulates_identically(monkeypatch, dtype, profile):
    before = _run(dtype, profile)
    _renamed(monkeypatch, "attention_main_loop")
    assert _run(dtype, profile) == before


def test_the_compiled_kernel_field_not_the_name_selects_the_core_model(monkeypatch):
    # h200-sxm-core replays the compiled loop of the instance the description names.
    before = _run("bf16", "h200-sxm-core")
    monkeypatch.setattr(Flash2Kernel, "compiled_kernel", lambda self: None)
    assert _run("bf16", "h200-sxm-core")["runtime_s"] != before["runtime_s"]


def test_the_padded_row_copy_field_sets_the_l2_fetch(monkeypatch):
    p = load_profile("h200-sxm-datasheet")
    padded = _run("fp32", "h200-sxm-datasheet")
    monkeypatch.setattr(Flash2Kernel, "copies_into_padded_rows", lambda self: False)
    plain = _run("fp32", "h200-sxm-datasheet")
    factor = padded["sm_l2_read_bytes"] / plain["sm_l2_read_bytes"]
    assert factor == pytest.approx(p.l2_fetch_bytes_per_byte_padded_row_copy.value, rel=1e-6)


def _names() -> set[str]:
    """Every algorithm's name and every kernel name the algorithms launch."""
    names = set(ALGORITHMS)
    w = Workload(**W, dtype="fp16")
    for alg in ALGORITHMS.values():
        s = Schedule(block_m=64, block_n=64, warps=4, stages=2)
        names |= {k.name for k in alg.kernels(w, s)}
    return names


def _string_literals(path: Path) -> set[str]:
    """String constants of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text())
    docs = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and n.body
        and isinstance(n.body[0], ast.Expr)
        and isinstance(n.body[0].value, ast.Constant)
    }
    return {
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    }


def test_no_engine_module_names_an_algorithm_or_a_kernel():
    names = _names()
    assert {"flash2", "flash2_fwd", "standard"} <= names  # the check sees the real names
    for path in sorted(ENGINE.glob("*.py")):
        hits = {s for s in _string_literals(path) if s in names or s.startswith("flash")}
        assert not hits, f"{path.name} names {sorted(hits)}"
