"""Timing the validation sweep on the local GPU, one record per config, resumable.

flash2 runs go through the kernel package's timer
(:func:`gpusim.kernels.schedule_timing.time_schedules`:
CUDA events around one launch, L2 flushed before every repeat, median) and are checked for
correctness on one (batch, head) slice first; standard runs through
:class:`~gpusim.validation.standard_gpu.StandardAttention`. Anything that fails (build,
launch, out of memory, a wrong result) becomes a ``failed`` record and the sweep goes on.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.errors import GpusimError
from gpusim.validation.configs import ValidationConfig
from gpusim.validation.store import RecordStore
from gpusim.workload import Workload

#: Largest relative error (norm-wise, against float32/float64) a timed run may have.
MAX_REL_ERR = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 2e-2}


def _slice_workload(w: Workload) -> Workload:
    return w.model_copy(update={"batch": 1, "heads": 1})


def flash2_rel_err(runner: Any, c: ValidationConfig) -> float:
    """Relative error of the kernel on one (batch, head) of the config's shape."""
    from gpusim.kernels.check import as_float, reference_attention
    from gpusim.kernels.schedule_timing import random_inputs

    cp = runner.cp
    w = _slice_workload(c.workload)
    q, k, v = random_inputs(cp, w, seed=1)
    out = runner.run(w, c.schedule, q, k, v)
    fq, fk, fv = (as_float(cp, x, w.dtype) for x in (q, k, v))
    ref = reference_attention(cp, fq, fk, fv, w.causal)
    got = as_float(cp, out, w.dtype).astype(cp.float64)
    return float(cp.linalg.norm(got - ref) / cp.linalg.norm(ref))


class SweepMeasurer:
    """Measures configs on the current GPU and appends their records to a store."""

    def __init__(
        self,
        store: RecordStore,
        cubin_dir: Path | None = None,
        repeats: int = 10,
        warmup: int = 2,
        log: Callable[[str], None] = print,
    ):
        from gpusim.kernels.runner import Flash2Runner

        self.store = store
        self.runner = Flash2Runner(cubin_dir=cubin_dir)
        self.cp = self.runner.cp
        self.repeats, self.warmup, self.log = repeats, warmup, log
        self.cubin_dir = cubin_dir
        self._standard = None

    def standard(self) -> Any:
        """The standard-attention runner, built on first use."""
        if self._standard is None:
            from gpusim.validation.standard_gpu import StandardAttention

            cubin = self.cubin_dir / "row_softmax.cubin" if self.cubin_dir else None
            self._standard = StandardAttention(self.cp, cubin)
        return self._standard

    def preload(self, configs: list[ValidationConfig]) -> None:
        """Load every flash2 instance up front (cubins, or one NVRTC module for the rest)."""
        insts = []
        for c in configs:
            if c.kind == "flash2":
                # A config without an instance is recorded as failed when its turn comes.
                with contextlib.suppress(GpusimError):
                    insts.append(self.runner.instance(c.workload, c.schedule))
        missing = [
            i
            for i in insts
            if not (self.cubin_dir and (self.cubin_dir / f"{i.key}.cubin").exists())
        ]
        if missing:
            self.runner.compile(sorted(set(missing)))

    def run(self, configs: list[ValidationConfig], sampler: Any = None) -> None:
        """Measure every config the store does not have yet."""
        todo = [c for c in configs if not self.store.done(c.config_id)]
        self.log(f"{len(configs) - len(todo)} of {len(configs)} configs already on disk")
        for n, c in enumerate(todo, 1):
            t0, m0 = time.perf_counter(), time.monotonic()
            try:
                rec = self._measure(c)
            except Exception as exc:  # recorded; the sweep goes on
                rec = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
                rec["traceback_tail"] = traceback.format_exc().splitlines()[-3:]
                self._free()
            rec = c.as_dict() | rec
            rec["measured_at_utc"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            rec["wall_s"] = time.perf_counter() - t0
            if sampler is not None:
                rec["smi"] = sampler.window(m0, time.monotonic())
            self.store.add(rec)
            what = (
                f"{rec['median_s'] * 1e3:.3f} ms"
                if rec["status"] == "ok"
                else f"FAILED {rec['error'][:120]}"
            )
            self.log(f"[{n}/{len(todo)}] {c.config_id}: {what} ({rec['wall_s']:.1f} s)")

    def _free(self) -> None:
        with contextlib.suppress(Exception):  # freeing is best effort after a failure
            self.cp.get_default_memory_pool().free_all_blocks()

    def _measure(self, c: ValidationConfig) -> dict:
        from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES

        if c.kind == "standard":
            flush = self.cp.empty(L2_FLUSH_BYTES, dtype=self.cp.uint8)
            rec = self.standard().time(c.workload, self.repeats, self.warmup, flush)
            del flush
            self._free()
            return self._judge(c, rec)
        from gpusim.kernels.schedule_timing import time_schedules

        err = flash2_rel_err(self.runner, c)
        (rec,) = time_schedules(
            [(c.workload, c.schedule)], self.runner, self.repeats, self.warmup, flush_l2=True
        )
        self._free()
        if "error" in rec:
            return {"status": "failed", "error": rec["error"]}
        keep = ("instance", "median_s", "min_s", "times_s", "tflops", "ctas", "attributes")
        return self._judge(c, {k: rec[k] for k in keep if k in rec} | {"rel_err": err})

    @staticmethod
    def _judge(c: ValidationConfig, rec: dict) -> dict:
        limit = MAX_REL_ERR[c.workload.dtype]
        err = rec.get("rel_err")
        if err is None or not math.isfinite(err) or err > limit:
            return rec | {
                "status": "failed",
                "error": f"wrong result: relative error {err} above {limit}",
            }
        return rec | {"status": "ok"}
