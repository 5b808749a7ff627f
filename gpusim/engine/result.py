"""What ``simulate`` returns: counts, predicted time, traffic by level, and what bounds it.

The bound is the resource with the highest utilisation over the run (or the
kernel): bytes moved or work done divided by what the resource could have
done in that time at its peak (DRAM and SM-to-L2 bandwidth; tensor, FP32,
SFU and shared-memory pipes summed over the SMs). When even the busiest
resource is below :data:`LATENCY_BOUND_BELOW` of its peak, the time went to
waiting (latencies, launch overhead, a short tail) and the bound is
``latency``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gpusim.engine.counters import Counters
from gpusim.engine.rates import Rates
from gpusim.schedule import Schedule

#: Below this utilisation of every resource, a run is called latency-bound.
LATENCY_BOUND_BELOW = 0.5

RESOURCES = ("dram", "l2", "tensor", "fp32", "sfu", "smem")


def utilisation(
    c: Counters, rates: Rates, duration_s: float, dram_lane: tuple[float, float] = (1.0, 1.0)
) -> dict[str, float]:
    """Each resource's work over what it could do at peak in ``duration_s``.

    ``dram_lane`` is the DRAM's best lane cost of a byte read and of a byte written
    (:func:`gpusim.engine.dram_mix.dram_mix`): a read stream moves more bytes a second than the
    copy whose bandwidth is the profile's, so bytes over the copy's bandwidth alone would
    put a DRAM-bound decode above 1."""
    if duration_s <= 0:
        return dict.fromkeys(RESOURCES, 0.0)
    work = rates.work(c.mma_flops, c.fp32_ops, c.exp_ops, c.smem_traffic_bytes, c.smem_fill_bytes)
    sm_l2 = c.sm_l2_read_bytes + c.global_write_bytes  # set by simulate before this
    read_cost, write_cost = dram_lane
    dram_lane_bytes = c.dram_read_bytes * read_cost + c.dram_write_bytes * write_cost
    out = {
        "dram": dram_lane_bytes / (rates.dram_bytes_per_s * duration_s),
        "l2": sm_l2 / (rates.l2_bytes_per_s * duration_s),
    }
    for pipe in ("tensor", "fp32", "sfu", "smem"):
        out[pipe] = work[pipe] / (rates.peak_per_s(pipe) * duration_s)
    if rates.mma_pipe == "simt":
        # fp32 products at their measured rate run on the CUDA cores, in a phase of their
        # own: the FP32 pipes are busy for the products' time and the softmax's.
        out["fp32"] += out["tensor"]
        out["tensor"] = 0.0
    return out


def bound_of(util: dict[str, float]) -> str:
    """The busiest resource, or ``latency`` when none is busy (ties: the order of RESOURCES)."""
    best = max(RESOURCES, key=lambda r: util[r])
    return best if util[best] >= LATENCY_BOUND_BELOW else "latency"


@dataclass
class KernelResult:
    """One kernel of a simulated run."""

    name: str
    ctas: int
    classes: int
    ctas_per_sm: int
    occupancy_bound_by: str
    waves: float  # CTAs over (CTAs per SM x SMs)
    smem_bytes_per_cta: int
    chunk_steps: int  # tile steps merged per simulated step (1: fully detailed)
    aggregated: bool
    start_s: float
    duration_s: float  # first CTA dispatched to last CTA finished (launch overhead excluded)
    counters: Counters
    utilisation: dict[str, float]
    bound: str
    groups: int  # CTA groups simulated (= CTAs on the detailed path)
    #: what timed the SM's steps: "pipe" or "sass-replay" (engine.prepare.PreparedKernel)
    timing_model: str = "pipe"
    timing_note: str | None = None  # why a core-model profile fell to the pipe model
    timing_source: str | None = None  # the binary whose loop was replayed (--cubin/--sass)
    waves_extrapolated: int = 0  # steady-state waves skipped (see kernel_run.py)
    #: the SM clock the kernel ran at: the profile's clock under its load (rates.py)
    sm_clock_hz: float = 0.0
    #: what timed a line missed in the L2 (engine/stream_latency.py): the tile-stream law or
    #: the chase latency, and why
    dram_fill: str = "chase latency"
    #: the first wave's younger/older SM-mate duration ratio it ran with (engine/mate_age.py;
    #: 1: even shares), and why the profile's measured ratio did not apply (None: it did)
    mate_first_wave_ratio: float = 1.0
    mate_note: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        d = asdict(self)
        c = d.pop("counters")
        d.update(c)
        d["l2_read_hit_bytes"] = self.counters.l2_read_hit_bytes
        d["l2_hit_rate"] = self.counters.l2_hit_rate
        return d


@dataclass
class SimResult:
    """Everything ``gpusim count`` has, plus the engine's predictions."""

    count: dict[str, Any]  # the Counts of gpusim.counting, as a dict
    profile: str
    detail: str  # "full" or "aggregated": the path that ran
    runtime_s: float
    tflops: float  # model FLOPs (4·B·H·Nq·Nk·d, halved if causal) / runtime / 1e12
    counters: Counters
    ctas_per_sm: int  # of the dominant (longest) kernel
    waves: float  # of the dominant kernel
    smem_bytes_per_cta: int
    utilisation: dict[str, float]
    bound: str
    events: int
    sim_wall_s: float
    engine_wall_s: float
    kernels: list[KernelResult] = field(default_factory=list)
    trace_path: str | None = None
    sm_count: int = 0  # the SMs it ran on (the profile's, or --sm-count's)
    #: which model gave the DRAM bytes (gpusim.api.dram_model), and what it used
    dram_model: str = "tile-l2"
    dram_model_detail: dict[str, Any] | None = None
    #: where the registers per thread (the occupancy) came from: "estimate" (the algorithm's
    #: formula), "ptxas (<instance>)" (the compiled CUDA instance), "binary"
    registers_from: str = "estimate"

    # The attributes callers use most, as on the JSON.
    @property
    def algorithm(self) -> str:
        """Algorithm name."""
        return self.count["algorithm"]

    @property
    def schedule(self) -> Schedule:
        """The schedule that ran (the default rule's when none was given)."""
        return Schedule(**self.count["schedule"])

    @property
    def dram_read_bytes(self) -> int:
        """Bytes read from device memory."""
        return self.counters.dram_read_bytes

    @property
    def dram_write_bytes(self) -> int:
        """Bytes written to device memory."""
        return self.counters.dram_write_bytes

    @property
    def global_read_bytes(self) -> int:
        """SM-to-L2 bytes read."""
        return self.counters.global_read_bytes

    @property
    def global_write_bytes(self) -> int:
        """SM-to-L2 bytes written."""
        return self.counters.global_write_bytes

    @property
    def l2_hit_rate(self) -> float:
        """Share of SM-to-L2 read bytes that hit."""
        return self.counters.l2_hit_rate

    @property
    def events_per_s(self) -> float:
        """Simulation events processed per second of engine wall time."""
        return self.events / self.engine_wall_s if self.engine_wall_s > 0 else 0.0

    def to_json_dict(self) -> dict[str, Any]:
        """The JSON object of ``gpusim simulate --json`` (CLI.md's keys and more)."""
        d = {k: v for k, v in self.count.items() if k != "kernels"}
        c = self.counters
        d.update(
            profile=self.profile,
            sm_count=self.sm_count,
            detail=self.detail,
            runtime_s=self.runtime_s,
            tflops=self.tflops,
            dram_read_bytes=c.dram_read_bytes,
            dram_write_bytes=c.dram_write_bytes,
            dram_model=self.dram_model,
            registers_from=self.registers_from,
            l2_read_hit_bytes=c.l2_read_hit_bytes,
            l2_hit_rate=c.l2_hit_rate,
            smem_bytes_per_cta=self.smem_bytes_per_cta,
            ctas_per_sm=self.ctas_per_sm,
            waves=self.waves,
            bound=self.bound,
            utilisation=self.utilisation,
            events=self.events,
            events_per_s=self.events_per_s,
            sim_wall_s=self.sim_wall_s,
            kernels=[
                {**ck, **k.to_json_dict()}
                for ck, k in zip(self.count.get("kernels", []), self.kernels, strict=False)
            ],
        )
        if self.trace_path is not None:
            d["trace"] = self.trace_path
        if self.dram_model_detail is not None:
            d["dram_model_detail"] = self.dram_model_detail
        return d
