"""Published figures for the A100 that its profile derives numbers from, with citations.

The A100 profile (``hardware_profiles/a100-sxm4-80gb.yaml``) takes its numbers from
NVIDIA's datasheet, whitepaper and CUDA guide and from published microbenchmark studies,
never from an attention kernel's timing. Where a study gives cycles and the engine wants
seconds (or a whitepaper gives bytes per clock), the profile's value is the product with
the SM clock; these constants and :func:`a100_derived` are that arithmetic, so that
tests/profiles/test_a100_literature.py can hold the committed file to it.
"""

from __future__ import annotations

#: NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): GPU boost clock 1410 MHz.
#: Chips and Cheese ("Nvidia's H100: Funny L2, and Tons of Bandwidth", 2023, clock-speed
#: note): an A100-SXM4-40GB went to 1410 MHz under their load and stayed there.
A100_SM_CLOCK_HZ = 1.41e9
#: NVIDIA A100 whitepaper: L2 read bandwidth 5120 bytes per clock (vendor peak).
A100_L2_BYTES_PER_CLK = 5120
#: Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU Architecture",
#: IPDPS 2024 (arXiv 2402.13499), memory-latency comparison (pointer chase), A100 column:
#: L1 37.9, L2 261.5 and global memory 466 SM cycles.
LUO_A100_L2_CYCLES = 261.5
LUO_A100_DRAM_CYCLES = 466.0
#: Abdelkhalik et al., "Demystifying the Nvidia Ampere Architecture through
#: Microbenchmarking and Instruction-level Analysis", HPEC 2022 (arXiv 2208.11174), memory
#: latencies of the A100: L1 33, L2 200, global 290 cycles (kept for comparison; see the
#: profile's notes for why the profile takes Luo et al.'s).
ABDELKHALIK_A100_L2_CYCLES = 200.0
ABDELKHALIK_A100_DRAM_CYCLES = 290.0
#: NVIDIA Developer Forums, "Trouble to Reach Peak Bandwidth of A100" (2025,
#: forums.developer.nvidia.com/t/trouble-to-reach-peak-bandwidth-of-a100/339083): a read
#: kernel on an A100 80GB SXM reached 1.80 TB/s, 88 % of the datasheet's 2.04 TB/s by
#: Nsight Compute's count (the thread cites about 90 % as the best any kernel reached in a
#: GTC talk).
FORUM_A100_80GB_DRAM_READ_BYTES_PER_S = 1.80e12


def a100_derived() -> dict[str, float]:
    """The A100 profile's values that are a cited figure times the clock."""
    clk = A100_SM_CLOCK_HZ
    return {
        "l2_bandwidth_bytes_per_s": A100_L2_BYTES_PER_CLK * clk,
        "l2_latency_s": LUO_A100_L2_CYCLES / clk,
        "dram_latency_s": LUO_A100_DRAM_CYCLES / clk,
        "dram_bandwidth_bytes_per_s": FORUM_A100_80GB_DRAM_READ_BYTES_PER_S,
    }
