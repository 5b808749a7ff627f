"""Timing the long-context sweep on the GPU: the project's kernel and PyTorch's, side by side.

Per workload (consecutive configs of the manifest share one) the inputs are drawn once
(standard normal, never zeros; K and V with the workload's K/V heads) and the float64
reference of a sample of rows is computed once (:mod:`gpusim.validation.long_context_reference`).
Per config: one run into a NaN-poisoned output, judged on the sample and for NaN anywhere;
then CUDA events around each launch (both launches of a split-KV run), the L2 flushed before
every repeat by writing 256 MB, warm-up first, the median kept. The number of repeats
follows the run's length (about a third of a second of repeats, 5 to 30). PyTorch runs
``torch.ops.aten._scaled_dot_product_flash_attention`` (its flash backend; ``is_causal``
there is FlashAttention-2's bottom-right mask, as the workload's), on the same buffers
through DLPack; it allocates its own output, so that one is checked for NaN rather than
poisoned. The kernels PyTorch launched (names, grids, registers, shared memory) are read
from its profiler in a pass after all the timing (so that no timed run follows a profiler
session), and added to the config's record. Every record is appended to the store as soon
as it is measured; a config past the deadline is left for a later run.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import statistics
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusim.validation.long_context_configs import LongContextConfig
from gpusim.validation.long_context_reference import judge_sample, reference_sample
from gpusim.validation.measure import MAX_REL_ERR
from gpusim.validation.store import RecordStore
from gpusim.validation.torch_profile import profiled_kernels
from gpusim.workload import Workload

#: Seconds of timed repeats aimed at per config, and the bounds on their count.
REPEAT_BUDGET_S = 0.3
MIN_REPEATS, MAX_REPEATS = 5, 30


def repeats_for(one_run_s: float) -> tuple[int, int]:
    """(repeats, warm-ups) for a run that takes ``one_run_s``."""
    n = int(REPEAT_BUDGET_S / max(one_run_s, 1e-6))
    return max(MIN_REPEATS, min(MAX_REPEATS, n)), (1 if one_run_s > 0.05 else 3)


def torch_kernels(launch: Callable[[], Any]) -> list[dict[str, Any]]:
    """The GPU kernels one ``launch()`` runs, as PyTorch's profiler traces them."""
    return profiled_kernels(launch, name_chars=600)


class LongContextMeasurer:
    """Measures manifest configs on the current GPU, appending records to ``store``."""

    def __init__(
        self,
        store: RecordStore,
        cubin_dir: Path | None = None,
        deadline: float | None = None,
        log: Callable[[str], None] = print,
    ):
        from gpusim.kernels.runner import Flash2Runner
        from gpusim.kernels.schedule_timing import L2_FLUSH_BYTES

        self.store, self.deadline, self.log = store, deadline, log
        self.runner = Flash2Runner(cubin_dir=cubin_dir)
        self.cp = self.runner.cp
        self.flush = self.cp.empty(L2_FLUSH_BYTES, dtype=self.cp.uint8)
        self._inputs: tuple[Workload, dict[str, Any]] | None = None

    def run(self, configs: list[LongContextConfig], profile_grace_s: float = 60) -> None:
        """Measure every config the store does not hold yet, in order; then trace PyTorch's
        kernels of its measured runs (until ``profile_grace_s`` past the deadline)."""
        self._time_all(configs)
        self._trace_torch(configs, profile_grace_s)

    def _past(self, grace_s: float = 0.0) -> bool:
        return self.deadline is not None and time.time() > self.deadline + grace_s

    def _trace_torch(self, configs: list[LongContextConfig], grace_s: float) -> None:
        for c in configs:
            rec = self.store.records.get(c.config_id)
            if c.kernel != "torch" or rec is None or "torch_kernels" in rec:
                continue
            if self._past(grace_s):
                self.log("deadline: PyTorch's kernels left untraced for the rest")
                return
            try:
                kernels = self._torch_trace(c)
            except Exception as exc:  # the timing stands; the trace says why it is missing
                rec = rec | {"torch_kernels": None, "torch_trace_error": str(exc)[:500]}
            else:
                from gpusim.validation.torch_flash_schedule import observed_schedule

                rec = rec | {"torch_kernels": kernels, "torch_observed": observed_schedule(kernels)}
            self.store.add(rec)
            self.log(f"traced {c.config_id}: {rec.get('torch_observed')}")

    def _torch_trace(self, c: LongContextConfig) -> list[dict[str, Any]]:
        import torch

        launch, _, _ = self._torch(c, self.inputs(c.workload))
        launch()  # once before the trace, so that it sees the kernels and not their setup
        torch.cuda.synchronize()
        return torch_kernels(launch)

    def _time_all(self, configs: list[LongContextConfig]) -> None:
        todo = [c for c in configs if not self.store.done(c.config_id)]
        self.log(f"{len(configs) - len(todo)} of {len(configs)} configs already on disk")
        for n, c in enumerate(todo, 1):
            if self._past():
                self.log(f"deadline reached: {len(todo) - n + 1} configs left for a later run")
                return
            t0 = time.perf_counter()
            try:
                rec = self._measure(c)
            except Exception as exc:  # recorded; the sweep goes on
                rec = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"[:2000]}
                rec["traceback_tail"] = traceback.format_exc().splitlines()[-4:]
                self._inputs = None
                with contextlib.suppress(Exception):
                    self.cp.get_default_memory_pool().free_all_blocks()
            rec = c.as_dict() | rec
            rec["measured_at_utc"] = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
            rec["wall_s"] = time.perf_counter() - t0
            self.store.add(rec)
            what = (
                f"{rec['median_s'] * 1e3:.4f} ms rel_err {rec['rel_err']:.2e}"
                if rec["status"] == "ok"
                else f"FAILED {rec.get('error', '')[:160]}"
            )
            self.log(f"[{n}/{len(todo)}] {c.config_id}: {what} ({rec['wall_s']:.1f} s)")

    # --- inputs -------------------------------------------------------------------------
    def inputs(self, w: Workload) -> dict[str, Any]:
        """q, k, v (storage type), their float32 values' sampled reference; one workload's."""
        if self._inputs is not None and self._inputs[0] == w:
            return self._inputs[1]
        from gpusim.kernels.check import as_float
        from gpusim.kernels.schedule_timing import random_inputs

        self._inputs = None
        self.cp.get_default_memory_pool().free_all_blocks()
        q, k, v = random_inputs(self.cp, w, seed=0)
        qf, kf, vf = (as_float(self.cp, x, w.dtype) for x in (q, k, v))
        ref = reference_sample(self.cp, w, qf, kf, vf)
        del qf, kf, vf
        data = {"q": q, "k": k, "v": v, "ref": ref}
        self._inputs = (w, data)
        return data

    # --- one config ---------------------------------------------------------------------
    def _measure(self, c: LongContextConfig) -> dict[str, Any]:
        data = self.inputs(c.workload)
        make = self._project if c.kernel == "project" else self._torch
        launch, checked_run, extra = make(c, data)
        return extra | self._time_and_judge(c, launch, checked_run)

    def _time_and_judge(
        self, c: LongContextConfig, launch: Callable[[], None], checked_run: Callable[[], Any]
    ) -> dict[str, Any]:
        """``checked_run()`` runs once and returns the output (storage type), which is
        judged; then ``launch`` is timed."""
        from gpusim.kernels.check import as_float
        from gpusim.kernels.schedule_timing import time_launches

        cp, w = self.cp, c.workload
        got = checked_run()
        err = judge_sample(cp, w, as_float(cp, got, w.dtype), self.inputs(w)["ref"])
        del got
        (one,) = time_launches(cp, launch, 1, 0, self.flush)
        repeats, warmup = repeats_for(one)
        times = time_launches(cp, launch, repeats, warmup, self.flush)
        med = statistics.median(times)
        limit = MAX_REL_ERR[w.dtype]
        ok = err["nan_count"] == 0 and math.isfinite(err["rel_err"]) and err["rel_err"] <= limit
        rec = err | {
            "median_s": med,
            "min_s": min(times),
            "times_s": times,
            "repeats": repeats,
            "warmup": warmup,
            "tflops": w.model_flops() / med / 1e12,
            "status": "ok" if ok else "failed",
        }
        if not ok:
            rec["error"] = (
                f"wrong result: relative error {err['rel_err']} (limit {limit}), "
                f"{err['nan_count']} NaN"
            )
        return rec

    def _project(self, c: LongContextConfig, data: dict[str, Any]):
        from gpusim.kernels.check import poisoned_output

        r, w, s = self.runner, c.workload, c.schedule
        inst = r.instance(w, s)
        loaded = r.load(inst)
        split = r.split_workspace(w, s)
        out, _ = poisoned_output(self.cp, w, data["q"])
        q, k, v = data["q"], data["k"], data["v"]
        r.check_arrays(w, q, k, v, out)
        if split is not None:  # the workspace must be written where it is read
            split.o_part.fill(self.cp.nan)
            split.lse.fill(self.cp.nan)

        def launch() -> None:
            r.launch(loaded, w, q, k, v, out, split=split)

        def checked_run() -> Any:
            launch()
            self.cp.cuda.Device().synchronize()
            return out

        attrs = {"kernel": loaded.attributes()}
        if split is not None:
            attrs["combine"] = split.combine.attributes()
        ctas = -(-w.seq_len_q // inst.block_m) * w.batch_heads * s.kv_splits
        extra = {"instance": inst.key, "attributes": attrs, "ctas": ctas}
        return launch, checked_run, extra

    def _torch(self, c: LongContextConfig, data: dict[str, Any]):
        import torch

        w = c.workload
        tdt = {"bf16": torch.bfloat16, "fp16": torch.float16}[w.dtype]

        def as_torch(x: Any) -> Any:
            t = torch.from_dlpack(x)
            return t.view(tdt) if w.dtype == "bf16" else t

        q, k, v = (as_torch(data[n]) for n in ("q", "k", "v"))
        op = torch.ops.aten._scaled_dot_product_flash_attention
        held: dict[str, Any] = {}

        def launch() -> None:
            held["out"] = op(q, k, v, 0.0, w.causal, False)[0]

        def checked_run() -> Any:
            launch()
            torch.cuda.synchronize()
            o = held.pop("out").contiguous()
            return self.cp.from_dlpack(o.view(torch.uint16) if w.dtype == "bf16" else o)

        extra = {
            "torch_version": torch.__version__,
            "torch_op": "aten._scaled_dot_product_flash_attention",
        }
        return launch, checked_run, extra
