"""The group_products microbenchmark's bookkeeping (no GPU): the loops it names and counts."""

from gpusim.calibrate import group_products as gp
from gpusim.calibrate.sources import source_path


def test_each_configuration_issues_the_backward_steps_products():
    # five products of FlashAttention-2's backward a step: 320 m16n8k16 a warp at every tile
    counts = {label: gp.per_warp_counts(tuple(g)) for label, *g in gp.CONFIGS}
    assert counts == {"d64 128x128": (144, 320), "d128 64x128": (144, 320),
                      "d256 64x64": (168, 320)}  # fmt: skip


def test_kernel_names_match_the_instantiated_templates():
    names = [name for name, _ in gp.loops()]
    assert len(names) == len(set(names)) == len(gp.CONFIGS) * len(gp.VARIANTS)
    source = source_path("group_products.cu").read_text()
    for label, *groups in gp.CONFIGS:
        dims = ", ".join(str(x) for g in groups for x in g)
        assert f"GP_ALL({dims})" in source, label


def test_kappa_is_zero_at_the_longer_pipe_and_one_at_the_sum():
    class P:  # the two rates the table reads
        class mma_sync_flops_per_clk_per_sm:
            class fp16:
                value = 4096.0
        class smem_bandwidth_bytes_per_clk_per_sm:
            value = 512.0
    row = {"config": "x", "sync": True, "alu": False, "threads": 32, "ctas_per_sm": 1,
           "hmma_per_warp": 10, "ldsm_per_warp": 20}
    tensor, smem = gp.pipe_cycles(row, P)
    assert (tensor, smem) == (10.0, 20.0)
    for got, kappa in ((20.0, 0.0), (30.0, 1.0), (25.0, 0.5)):
        (r,) = gp.table({"rows": [row | {"cycles_per_iteration_per_scheduler": got}]}, P)
        assert r["kappa"] == kappa
