"""How far a profile's numbers may go: each quantity's inclusive plausible range.

Outside it a value is taken as a typo or a unit slip (:mod:`gpusim.profiles.schema` refuses
it in one line), far wider than any GPU.
"""

from __future__ import annotations

#: Inclusive range of each quantity, far wider than any GPU: outside it a value is a typo or
#: a unit slip, and the engine (integer picosecond clock, per-SM state) could hang on it.
PLAUSIBLE: dict[str, tuple[float, float]] = {
    "sm_count": (1, 4096),
    "sm_clock_hz": (1e6, 1e13),
    "sm_clock_tensor_load_hz": (1e6, 1e13),
    "sm_clock_stream_load_hz": (1e6, 1e13),
    "simt_mma_flops_per_clk_per_sm": (1e-3, 1e7),
    "step_efficiency_1_warp_per_scheduler": (0.01, 1.0),
    "step_efficiency_2_warps_per_scheduler": (0.01, 1.0),
    "smem_fill_cost_per_byte": (0.0, 1.0),
    "smem_sched_release_share": (0.0, 1.0),
    "tile_stream_latency_s": (1e-9, 1e-4),
    "tile_stream_ingress_bytes_per_s": (1e8, 1e13),
    "tile_stream_knee_power": (1.0, 20.0),
    "cta_duration_scatter": (0.0, 0.2),
    "smem_per_sm_bytes": (1, 2**30),
    "smem_per_block_bytes": (1, 2**30),
    "smem_reserved_per_block_bytes": (1, 2**30),
    "smem_alloc_unit_bytes": (1, 2**30),
    "smem_bandwidth_bytes_per_clk_per_sm": (1, 2**20),
    "registers_per_sm": (1, 2**24),
    "registers_per_thread_max": (1, 2**16),
    "register_alloc_unit_per_warp": (1, 2**16),
    "warp_alloc_granularity": (1, 1024),
    "max_warps_per_sm": (1, 2**16),
    "max_threads_per_block": (1, 2**20),
    "max_blocks_per_sm": (1, 2**16),
    "l2_bytes": (1, 2**40),
    "l2_bandwidth_bytes_per_s": (1e6, 1e18),
    "l2_latency_s": (1e-12, 1.0),  # one tick of the engine clock .. a second
    "dram_bytes": (1, 2**50),
    "dram_bandwidth_bytes_per_s": (1e6, 1e18),
    "dram_latency_s": (1e-12, 1.0),
    "mma_sync_flops_per_clk_per_sm": (1e-3, 1e7),
    "wgmma_flops_per_clk_per_sm": (1e-3, 1e7),
    "sm_clock_wgmma_load_hz": (1e6, 1e11),
    "sm_clock_wgmma_burst_hz": (1e6, 1e11),
    "wgmma_softmax_cycles_per_instr_2_warpgroups": (0.01, 1e3),
    "wgmma_softmax_cycles_per_instr_3_warpgroups": (0.01, 1e3),
    "wgmma_softmax_cycles_per_instr_1_warpgroups": (0.01, 1e3),
    "l2_shared_aging": (1.0, 4.0),
    "fp32_flops_per_clk_per_sm": (1e-3, 1e7),
    "sfu_exp_per_clk_per_sm": (1e-3, 1e7),
    "kernel_launch_overhead_s": (1e-12, 1.0),
    "kernel_queued_launch_s": (1e-12, 1.0),
    "warp_size_threads": (1, 1024),
    "warp_schedulers_per_sm": (1, 64),
    "issue_warp_instrs_per_clk_per_scheduler": (0.01, 64.0),
    "barrier_base_cycles": (0.01, 1e5),
    "barrier_cycles_per_warp": (0.001, 1e4),
    "l2_line_bytes": (1, 2**16),
    "l2_fetch_bytes_per_byte_padded_row_copy": (1.0, 16.0),
    "fragment_store_bytes_per_clk_per_sm": (1e-3, 1e5),
    "staged_store_bytes_per_clk_per_sm": (1e-3, 1e5),
    "dram_read_bandwidth_bytes_per_s": (1e6, 1e18),
}
