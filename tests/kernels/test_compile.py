"""The kernel source compiles for sm_90 with nvcc, and the machine code holds what was meant.

Skipped where nvcc is absent; the SASS checks also need cuobjdump.
"""

from pathlib import Path

import pytest

from gpusim.kernel_catalog.instances import KernelInstance
from gpusim.kernels.build import (
    compile_cubin,
    elf_function_symbols,
    find_tool,
    parse_ptxas,
    sass_opcode_counts,
)
from gpusim.kernels.source import explicit_instantiations, kernel_source

needs_nvcc = pytest.mark.skipif(find_tool("nvcc") is None, reason="nvcc not installed")

#: One instance per (variant, dtype, head dim), covering every stage count and warp count.
SAMPLE = [
    KernelInstance("tc", "bf16", 128, 128, 64, 4, 2),
    KernelInstance("tc", "fp16", 64, 64, 128, 4, 3),
    KernelInstance("tc", "bf16", 32, 128, 32, 8, 1),
    KernelInstance("tc", "fp16", 256, 64, 64, 4, 1),
    KernelInstance("simt", "fp32", 128, 64, 64, 8, 2),
    KernelInstance("simt", "fp32", 64, 64, 32, 4, 1),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if find_tool("nvcc") is None:
        pytest.skip("nvcc not installed")
    path = tmp_path_factory.mktemp("cubin") / "sample.cubin"
    report = compile_cubin(SAMPLE, path)
    return path, report


def test_source_is_one_translation_unit_without_includes():
    src = kernel_source()
    assert "#include" not in src
    assert "flash2_tc" in src and "flash2_simt" in src


def test_explicit_instantiations_name_every_instance():
    text = explicit_instantiations(SAMPLE)
    for inst in SAMPLE:
        assert inst.name_expression in text


@needs_nvcc
def test_every_sample_instance_compiles_for_sm90(built):
    path, report = built
    names = elf_function_symbols(Path(path).read_bytes())
    assert len(names) == len(SAMPLE)
    assert set(report) == set(names)
    for fn, info in report.items():
        assert info["arch"] == "sm_90"
        assert 0 < info["registers"] <= 255, fn


@needs_nvcc
def test_instances_within_budget_do_not_spill(built):
    _, report = built
    # Instances with one m16 tile per warp leave the register file room to spare.
    for fn, info in report.items():
        if "ILi32ELi128ELi32ELi8E" in fn or "flash2_simt" in fn:
            assert info["spill_store_bytes"] == 0, fn


@pytest.mark.skipif(
    find_tool("nvcc") is None or find_tool("cuobjdump") is None, reason="nvcc/cuobjdump missing"
)
def test_sass_has_tensor_core_ldmatrix_and_cp_async(built):
    path, _ = built
    counts = sass_opcode_counts(Path(path))
    for fn, ops in counts.items():
        assert ops["LDGSTS"] > 0, fn  # cp.async
        if "flash2_tc" in fn:
            assert ops["HMMA"] > 0 and ops["LDSM"] > 0, fn
        else:
            assert ops["FFMA"] > 0 and ops["HMMA"] == 0, fn


def test_parse_ptxas_reads_registers_and_spills():
    log = (
        "ptxas info    : Compiling entry function '_Z1fv' for 'sm_90'\n"
        "ptxas info    : Function properties for _Z1fv\n"
        "    32 bytes stack frame, 32 bytes spill stores, 16 bytes spill loads\n"
        "ptxas info    : Used 255 registers, used 1 barriers\n"
    )
    assert parse_ptxas(log) == {
        "_Z1fv": {
            "arch": "sm_90",
            "stack_frame_bytes": 32,
            "spill_store_bytes": 32,
            "spill_load_bytes": 16,
            "registers": 255,
        }
    }


@needs_nvcc
def test_long_context_variants_and_the_combine_kernel_compile(tmp_path):
    from gpusim.kernel_catalog.split_kv import CombineInstance

    insts = [
        KernelInstance("tc", "bf16", 128, 64, 64, 4, 2, kv_backward=True, gqa=True, split=True),
        KernelInstance("tc", "fp16", 64, 128, 64, 4, 1, q_first=True),
        CombineInstance("bf16", 128),
        CombineInstance("fp16", 32),
    ]
    report = compile_cubin(insts, tmp_path / "lc.cubin")
    names = elf_function_symbols((tmp_path / "lc.cubin").read_bytes())
    assert len(names) == len(insts) and set(report) == set(names)
    assert any("flash2_combine" in n for n in names)


def _recorded_nvcc() -> str:
    import json

    from gpusim.kernel_catalog.compiled import PTXAS_REPORT

    return json.loads(PTXAS_REPORT.read_text())["nvcc"]


@pytest.mark.skipif(
    find_tool("nvcc") is None or find_tool("cuobjdump") is None, reason="nvcc/cuobjdump missing"
)
def test_default_instances_compile_to_the_recorded_main_loop():
    from gpusim.kernels.build import nvcc_version

    if nvcc_version() != _recorded_nvcc():
        pytest.skip(f"nvcc {nvcc_version()} is not the recorded build's {_recorded_nvcc()}")
    # The long-context switches are template parameters: with all of them off, the loop the
    # model replays (data/sm90/2026-11-30_kernels_build) is what the source compiles to.
    # python -m gpusim.kernels.default_loop_check does all 182 grid instances.
    from gpusim.kernels.default_loop_check import check_defaults

    insts = [KernelInstance("tc", "bf16", 64, 128, 64, 4, 2)]  # one that a call had changed
    for key, rec in check_defaults(insts, jobs=1).items():
        assert rec["loop_counts_equal"] and rec["steady_step_equal"] and rec["ptxas_equal"], key
