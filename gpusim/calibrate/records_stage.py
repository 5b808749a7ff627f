"""The stand-alone microbenchmarks a complete profile takes beside the suite, run and applied.

The suite (:mod:`gpusim.calibrate.suite`) measures in one process; these run each in a
process of its own (two drive Nsight Compute, three build an sm_90a cubin with nvcc) and
write one JSON record each into a records folder beside the results, laid out as
``data/h100/2026-12-05_calibration/records``:

- ``wgmma/wgmma.json``, ``wgmma/wgmma-burst.json``, ``ws/wgmma-step.json``,
  ``ws/wgmma-step-one.json`` (Hopper only): wgmma rates per N, the clock under wgmma load and
  in ms bursts, the softmax beside the products, one warpgroup's step alone on its SM
  (``gpusim.calibrate.wgmma``, ``wgmma_burst``, ``wgmma_step``, ``wgmma_step_one``);
- ``cl/cta-life.json``: what a CTA's output stores cost (``cta_life``, nvcc);
- ``dr/dram-read.json``: the DRAM read stream's bandwidth (``dram_read``);
- ``ss/step-stream.json``: how a step's tile arrives (``step_stream``; the law fitted at the
  read stream just applied: ``step_stream_fit``);
- ``l2h/l2-survive-hot.json``: how shared traffic ages the L2 (``l2_bytes --hot``, ncu);
- ``kvd/kv-walk-drift.json``: how SM-mates drift apart (``kv_walk --drift``, ncu);
- ``gp/group-products.json``: how barrier-separated products with both operands from shared
  memory overlap their pipes (``group_products``).

:func:`apply_records` sets their fields on a written profile in the order the H200's profile
was built. A step that cannot run here (no nvcc, no ncu, not Hopper) or fails is reported
with its one-line reason, and its fields keep the base profile's values, which the command's
output then names: never a silent fallback.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpusim.calibrate import (
    cta_life,
    dram_read,
    group_products,
    l2_shared_aging,
    sm_mate_drift,
    step_stream_fit,
    wgmma_burst,
    wgmma_pingpong,
    wgmma_record,
    wgmma_step_one,
)
from gpusim.errors import GpusimError


def _drift(text: str, doc: dict, path: str) -> str:
    return sm_mate_drift.apply(text, sm_mate_drift.calibration(doc), path)


def _cta_life(text: str, doc: dict, path: str) -> str:
    return cta_life.apply(cta_life.apply(text, doc, path), doc, path, "16-byte")


def _group_products(text: str, doc: dict, path: str) -> str:
    import yaml

    from gpusim.profiles.schema import HardwareProfile

    profile = HardwareProfile.model_validate(yaml.safe_load(text))  # kappa at its own rates
    return group_products.apply_field(text, doc, path, profile)


def _pingpong(text: str, doc: dict, path: str) -> str:
    # the overlap rows, as held-out set 10's rule chose; a record made before them (no overlap
    # rows) gives its fill rows' fit as it did then, and each field's source names the rows
    family = "overlap" if doc.get("overlap_rows") else "fill"
    return wgmma_pingpong.apply(text, doc, str(Path(path).parent), family)


@dataclass(frozen=True)
class Record:
    """One stand-alone microbenchmark: its record's file, how it runs, what it sets."""

    name: str
    file: str  # under the records folder
    module: str  # python -m gpusim.calibrate.<module>
    args: tuple[str, ...]  # besides --out (and --cubin for the wgmma ones)
    timeout_s: int
    apply: Callable[[str, dict, str], str]
    hopper: bool = False  # takes the wgmma cubin (sm_90a) as --cubin
    quick_args: tuple[str, ...] = ()
    sm90: bool = False  # needs an sm_90 GPU, building its own cubin


#: In the order their fields are applied (the H200 profile's).
RECORDS = (
    Record("wgmma", "wgmma/wgmma.json", "wgmma", (), 240, wgmma_record.apply, True,
           ("--quick",)),
    Record("wgmma_burst", "wgmma/wgmma-burst.json", "wgmma_burst", (), 90,
           wgmma_burst.apply, True),
    Record("l2_hot", "l2h/l2-survive-hot.json", "l2_bytes", ("--hot",), 120,
           l2_shared_aging.apply),
    Record("kv_drift", "kvd/kv-walk-drift.json", "kv_walk", ("--drift",), 180, _drift),
    # cta_life builds its own sm_90a cubin (setmaxnreg); it needs no --cubin
    Record("cta_life", "cl/cta-life.json", "cta_life", (), 120, _cta_life, sm90=True),
    Record("dram_read", "dr/dram-read.json", "dram_read", (), 90, dram_read.apply,
           quick_args=("--quick",)),
    # after dram_read: the law's queue term is the read stream that record set
    Record("step_stream", "ss/step-stream.json", "step_stream", (), 90, step_stream_fit.apply,
           quick_args=("--quick",)),
    # the grouped products' kappa (held-out set 41), at the pipe rates the suite just measured
    Record("group_products", "gp/group-products.json", "group_products", (), 120,
           _group_products, quick_args=("--quick",)),
    # --quick: the record's SHAPES and the Bc 96 ring row (not the gap, other ring and overlap rows)
    Record("wgmma_step", "ws/wgmma-step.json", "wgmma_step", (), 400, _pingpong, True,
           ("--quick",)),
    # one consumer warpgroup alone on its SM (wgmma decode set 3), the same cubin
    Record("wgmma_step_one", "ws/wgmma-step-one.json", "wgmma_step_one", (), 150,
           lambda text, doc, path: wgmma_step_one.apply(text, doc, str(Path(path).parent)),
           True, ("--quick",)),
)  # fmt: skip


#: The order they run in: those that do not take the wgmma cubin first, while nvcc builds it.
RUN_ORDER = tuple(sorted(RECORDS, key=lambda r: r.hopper))


def plan(quick: bool) -> dict[str, dict[str, Any]]:
    """What :func:`run_records` would run, in its order, for ``gpusim calibrate --plan``."""
    out = {}
    for rec in RUN_ORDER:
        args = [*rec.args, *(rec.quick_args if quick else ())]
        out[rec.name] = {
            "runs": " ".join([f"python -m gpusim.calibrate.{rec.module}", *args]),
            "record": rec.file,
            "hopper_only": rec.hopper or rec.sm90,
        }
    return out


def _hopper() -> bool:
    from gpusim.calibrate.context import import_cupy

    cp = import_cupy()
    return cp.cuda.Device(0).compute_capability.startswith("9")


class CubinBuild:
    """The sm_90a cubin of kernels/wgmma.cu the wgmma records take, built by nvcc in a process
    of its own while the suite measures.

    Compiling it takes about 30 s of one core; started after the suite's launch benchmark
    (which times the host, so it runs alone) it overlaps the suite's measurements instead of
    following them. nvcc's report goes to ``wgmma/ptxas.txt`` (a file, so a long report cannot
    fill a pipe nobody reads during the suite). A build still running when the command stops is
    killed (``with``)."""

    def __init__(self, folder: Path):
        self.build = folder / "wgmma"
        self.proc: subprocess.Popen | None = None
        self.cubin: Path | None = None
        self.reason: str | None = None  # why there is no cubin

    def start(self) -> None:
        """Start nvcc (once); on a GPU that is not Hopper, or without nvcc, only the reason."""
        if self.proc is not None or self.reason is not None:
            return
        if not _hopper():
            self.reason = NOT_SM90
            return
        from gpusim.calibrate.wgmma import nvcc_command

        self.build.mkdir(parents=True, exist_ok=True)
        try:
            cmd, self.cubin = nvcc_command(self.build)
        except RuntimeError as exc:
            self.reason = f"the wgmma cubin did not build: {_one_line(exc)}"
            return
        with (self.build / "ptxas.txt").open("w") as report:
            self.proc = subprocess.Popen(cmd, stdout=report, stderr=subprocess.STDOUT)

    def wait(self) -> tuple[Path | None, str | None]:
        """The cubin, or ``None`` and why not (starting the build here if it was not)."""
        self.start()
        if self.proc is not None and self.reason is None and self.proc.wait() != 0:
            text = (self.build / "ptxas.txt").read_text().strip().splitlines()
            self.reason = f"the wgmma cubin did not build: {(text or ['nvcc failed'])[-1]}"
        return (None, self.reason) if self.reason else (self.cubin, None)

    def __enter__(self) -> CubinBuild:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


NOT_SM90 = "needs an sm_90 GPU (Hopper)"


def run_records(
    folder: Path,
    quick: bool,
    log: Callable[[str], None],
    build: CubinBuild | None = None,
    seconds: dict[str, float] | None = None,
) -> dict[str, str]:
    """Run every record into ``folder``; ``{name: "ok" | "failed: ..." | "skipped: ..."}``.
    ``build``: the wgmma cubin's build, started during the suite (else started here). The
    records that do not take the cubin run first, while nvcc may still be compiling it.
    ``seconds`` gets each record's wall time and the wait for the cubin (``cubin_wait``)."""
    seconds = {} if seconds is None else seconds
    folder.mkdir(parents=True, exist_ok=True)
    status: dict[str, str] = {}
    not_sm90 = None if _hopper() else NOT_SM90
    build = build or CubinBuild(folder)
    if not_sm90 is None:
        build.start()
    cubin: Path | None = None
    cubin_reason = not_sm90  # why the records that take the wgmma cubin cannot run
    waited = not_sm90 is not None
    with build:  # a build still running if a record raises is killed
        for rec in RUN_ORDER:
            if rec.hopper and not waited:
                t0 = time.monotonic()
                cubin, cubin_reason = build.wait()
                waited_s = seconds["cubin_wait"] = time.monotonic() - t0
                log(f"wgmma cubin: {cubin_reason or 'built'} (waited {waited_s:.0f} s)")
                waited = True
            reason = cubin_reason if rec.hopper else not_sm90 if rec.sm90 else None
            if reason is not None:
                status[rec.name] = f"skipped: {reason}"
                log(f"{rec.name}: {status[rec.name]}")
                continue
            t0 = time.monotonic()
            log(f"running {rec.name} (its own process)")
            status[rec.name] = _run_one(rec, folder / rec.file, quick, cubin)
            seconds[rec.name] = time.monotonic() - t0
            log(f"{rec.name}: {status[rec.name]} ({seconds[rec.name]:.0f} s)")
    return {rec.name: status[rec.name] for rec in RECORDS}


def _run_one(rec: Record, out: Path, quick: bool, cubin: Path | None) -> str:
    """One record's process, its output kept beside the record; "ok" or why not."""
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", f"gpusim.calibrate.{rec.module}", *rec.args, "--out", str(out)]
    if rec.hopper:
        cmd += ["--cubin", str(cubin)]
    if quick:
        cmd += list(rec.quick_args)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=rec.timeout_s)
    except subprocess.TimeoutExpired:
        return f"failed: no record after {rec.timeout_s} s"
    (out.parent / f"{rec.name}.log").write_text(proc.stdout + proc.stderr)
    if proc.returncode == 0 and out.is_file():
        return "ok"
    last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
    return f"failed: exit {proc.returncode}: {last}"


def _one_line(exc: BaseException) -> str:
    text = getattr(exc, "stderr", None) or str(exc)
    return (str(text).strip().splitlines() or [type(exc).__name__])[-1]


def apply_records(
    text: str,
    folder: Path,
    rel: Callable[[Path], str],
    strict: bool = False,
    elsewhere: dict[str, Path] | None = None,
) -> tuple[str, list[str], dict[str, str]]:
    """``text`` with the fields of every record found in ``folder`` (paths in sources by
    ``rel``); also the names applied, and ``{name: why}`` of those not (no record, or one
    that gives no value). ``strict``: either is an error naming the record (the profile
    would not be complete). ``elsewhere``: records of the same card from another call, by
    name (a record the calibration call predates), used where ``folder`` has none."""
    applied, absent = [], {}
    for rec in RECORDS:
        path = folder / rec.file
        if not path.is_file() and rec.name in (elsewhere or {}):
            path = elsewhere[rec.name]
        why = None
        if not path.is_file():
            why = f"no record at {path}"
        else:
            try:
                doc: dict[str, Any] = json.loads(path.read_text())
                text = rec.apply(text, doc, rel(path))
            except json.JSONDecodeError as exc:
                why = f"{path} is not JSON ({exc.msg})"
            except (KeyError, ValueError, TypeError) as exc:
                why = f"its record ({path}) gives no value: {exc}"
        if why is None:
            applied.append(rec.name)
        elif strict:
            raise GpusimError(f"{rec.name}: {why}: the profile would not be complete")
        else:
            absent[rec.name] = why
    return text, applied, absent


def records_folder(results_path: Path) -> Path:
    """Where a calibration keeps its records: ``<results stem>.records`` beside the results
    (``h100.results.json`` -> ``h100.records``)."""
    stem = results_path.name.removesuffix(".json").removesuffix(".results")
    return results_path.with_name(f"{stem}.records")
