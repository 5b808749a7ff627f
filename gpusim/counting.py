"""Counting without timing: trace one CTA per class, multiply, and sum traffic and work.

``count`` is what ``gpusim count`` prints. Global bytes are the traffic between
the SMs and the memory system (the FlashAttention papers' "HBM accesses"); what
reaches DRAM after the L2 is the engine's business. Programs come compressed (a loop of
alike steps is one step with a count, :mod:`algorithms.program`), so the counts are
exact sums without tracing every step. Tracing is bounded: a schedule whose
representative programs would need more than :data:`MAX_TRACED_STEPS` traced steps
raises a :class:`GpusimError` asking for larger blocks instead of hanging.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from algorithms import get_algorithm
from algorithms.base import Kernel
from algorithms.program import CtaClass
from algorithms.tracing import TracingMachine
from gpusim.errors import GpusimError
from gpusim.schedule import Schedule
from gpusim.workload import Workload

#: Pipelined steps the tracer may run for one ``count`` (a few seconds of tracing at most).
#: A compressed loop (``tm.repeat``) costs four however long it is: causal flash2 at 1M
#: tokens with 128x64 tiles runs about 49,000 for its 8192 Q blocks (67M steps counted out).
MAX_TRACED_STEPS = 200_000


class _BudgetedTracer(TracingMachine):
    """A tracing machine that gives up once the shared step budget is spent."""

    def __init__(self, kernel: Kernel, budget: list[int]):
        super().__init__(kernel)
        self._budget = budget

    def _begin_step(self) -> None:
        self._budget[0] -= 1
        if self._budget[0] < 0:
            s = self.s
            raise GpusimError(
                f"tracing kernel {self.k.name} with block_m {s.block_m}, block_n {s.block_n} on "
                f"Nq={self.w.seq_len_q}, Nk={self.w.seq_len_k} needs more than "
                f"{MAX_TRACED_STEPS} tile steps; use larger blocks (--block-n, --block-m)"
            )
        super()._begin_step()


#: Traced kernels kept per process (a tuner simulates one schedule with several launch caps,
#: and ``simulate`` counts before it traces): the key is everything ``body`` can read.
TRACE_CACHE_SIZE = 16
_TRACES: OrderedDict[tuple, tuple[list[CtaClass], int]] = OrderedDict()


def _trace_key(kernel: Kernel) -> tuple | None:
    parts = [type(kernel)]
    for f in fields(kernel):
        v = getattr(kernel, f.name)
        if isinstance(v, dict):
            v = tuple(sorted(v.items()))
        try:
            hash(v)
        except TypeError:
            return None  # a field the cache cannot key on: trace afresh
        parts.append((f.name, v))
    return tuple(parts)


def traced_classes(kernel: Kernel, budget: list[int] | None = None) -> list[CtaClass]:
    """One traced representative per CTA class of ``kernel``, within ``budget[0]`` steps.

    A kernel traced before (same type and fields) is not traced again; its steps still
    count against ``budget``, so the refusal of a huge trace does not depend on the cache.
    """
    budget = [MAX_TRACED_STEPS] if budget is None else budget
    key = _trace_key(kernel)
    hit = _TRACES.get(key) if key is not None else None
    if hit is not None:
        _TRACES.move_to_end(key)
        classes, steps = hit
        if budget[0] - steps < 0:
            budget[0] = 0
            _BudgetedTracer(kernel, budget)._begin_step()  # raises the one-line error
        budget[0] -= steps
        return classes
    before = budget[0]
    found: dict[object, CtaClass] = {}
    for block in range(kernel.blocks_per_bh()):
        ck = kernel.block_class(block)
        cls = found.get(ck)
        if cls is None:
            tm = _BudgetedTracer(kernel, budget)
            kernel.body(tm, 0, block)
            found[ck] = CtaClass(ck, block, [block], tm.program())
        else:
            cls.blocks.append(block)
    out = list(found.values())
    if key is not None:
        _TRACES[key] = (out, before - budget[0])
        while len(_TRACES) > TRACE_CACHE_SIZE:
            _TRACES.popitem(last=False)
    return out


@dataclass
class KernelCounts:
    """Traffic and work of one kernel launch, summed over all its CTAs."""

    name: str
    ctas: int
    classes: int
    global_read_bytes: int = 0
    global_write_bytes: int = 0
    executed_mma_flops: int = 0
    fp32_ops: int = 0
    exp_ops: int = 0
    smem_traffic_bytes: int = 0  # shared-memory bytes read + written by the warps
    barriers: int = 0
    smem_bytes_per_cta: int = 0
    smem_buffers_bytes: dict[str, int] = field(default_factory=dict)
    threads_per_cta: int = 0
    regs_per_thread: int = 0
    bytes_by_tensor: dict[str, dict[str, int]] = field(default_factory=dict)


_TOTALS = {
    "read_bytes": "global_read_bytes",
    "write_bytes": "global_write_bytes",
    "mma_flops": "executed_mma_flops",
    "fp32_ops": "fp32_ops",
    "exp_ops": "exp_ops",
    "smem_bytes": "smem_traffic_bytes",
    "barriers": "barriers",
}


def count_kernel(kernel: Kernel, budget: list[int] | None = None) -> KernelCounts:
    """Counts of one kernel: each class's program times its CTAs over every (batch, head)."""
    classes = traced_classes(kernel, budget)
    chip = kernel.on_chip()
    kc = KernelCounts(
        name=kernel.name,
        ctas=kernel.num_ctas,
        classes=len(classes),
        smem_bytes_per_cta=chip.smem_bytes,
        smem_buffers_bytes=dict(chip.smem_buffers_bytes),
        threads_per_cta=chip.threads,
        regs_per_thread=chip.regs_per_thread,
    )
    bh = kernel.grid_batch_heads
    for cls in classes:
        times = cls.count_per_bh * bh
        totals = cls.program.totals()
        for key, attr in _TOTALS.items():
            setattr(kc, attr, getattr(kc, attr) + times * totals[key])
        for tensor, (rd, wr) in cls.program.bytes_by_tensor().items():
            t = kc.bytes_by_tensor.setdefault(tensor, {"read_bytes": 0, "write_bytes": 0})
            t["read_bytes"] += times * rd
            t["write_bytes"] += times * wr
    return kc


@dataclass
class Counts:
    """What ``gpusim count`` reports: model FLOPs, executed work, global traffic, per kernel too."""

    algorithm: str
    workload: dict[str, Any]
    schedule: dict[str, Any]
    flops: int
    executed_mma_flops: int
    exp_ops: int
    fp32_ops: int
    global_read_bytes: int
    global_write_bytes: int
    smem_traffic_bytes: int
    barriers: int
    smem_bytes_per_cta: int
    smem_buffers_bytes: dict[str, int]
    threads_per_cta: int
    regs_per_thread: int
    bytes_by_tensor: dict[str, dict[str, int]]
    kernels: list[KernelCounts]
    #: the tensor cores' FLOPs (every row and key of every tile computed, padded ones
    #: included: Nq = 1 in a 128-row tile computes 128 rows) over the useful ``flops``
    executed_per_useful_flop: float = 0.0

    def to_json_dict(self) -> dict[str, Any]:
        """A plain dict (ints, strings, lists, dicts) ready for ``json.dumps``."""
        return asdict(self)


def count(algorithm_name: str, workload: Workload, schedule: Schedule) -> Counts:
    """Trace ``algorithm_name`` under ``schedule`` on ``workload`` and count traffic and work."""
    algorithm = get_algorithm(algorithm_name)
    algorithm.check(workload, schedule)
    budget = [MAX_TRACED_STEPS]
    kernels = [count_kernel(k, budget) for k in algorithm.kernels(workload, schedule)]
    biggest = max(kernels, key=lambda k: k.smem_bytes_per_cta)
    by_tensor: dict[str, dict[str, int]] = {}
    for k in kernels:
        for tensor, rw in k.bytes_by_tensor.items():
            t = by_tensor.setdefault(tensor, {"read_bytes": 0, "write_bytes": 0})
            t["read_bytes"] += rw["read_bytes"]
            t["write_bytes"] += rw["write_bytes"]
    return Counts(
        algorithm=algorithm_name,
        workload=workload.model_dump(),
        schedule=schedule.model_dump(),
        flops=workload.model_flops(),
        executed_mma_flops=sum(k.executed_mma_flops for k in kernels),
        exp_ops=sum(k.exp_ops for k in kernels),
        fp32_ops=sum(k.fp32_ops for k in kernels),
        global_read_bytes=sum(k.global_read_bytes for k in kernels),
        global_write_bytes=sum(k.global_write_bytes for k in kernels),
        smem_traffic_bytes=sum(k.smem_traffic_bytes for k in kernels),
        barriers=sum(k.barriers for k in kernels),
        smem_bytes_per_cta=biggest.smem_bytes_per_cta,
        smem_buffers_bytes=biggest.smem_buffers_bytes,
        threads_per_cta=max(k.threads_per_cta for k in kernels),
        regs_per_thread=max(k.regs_per_thread for k in kernels),
        bytes_by_tensor=by_tensor,
        kernels=kernels,
        executed_per_useful_flop=sum(k.executed_mma_flops for k in kernels)
        / workload.model_flops(),
    )
