"""Held-out set 15: the backward pass, PyTorch's FlashAttention-2 backward on the H200.

    python -m gpusim.validation.backward_heldout15 --list
    python -m gpusim.validation.backward_heldout15 manifest --out DIR/manifest_configs.json
    python -m gpusim.validation.backward_heldout15 predict --out FILE [--profile P.yaml]
    # on the GPU machine (no wheels needed):
    python3 -m gpusim.validation.torch_bwd_measure --manifest DIR/manifest_configs.json --out OUT

The model's backward pass (``--pass bwd``: :mod:`algorithms.flash2_bwd`, its step described
from the tiles, nothing of it fitted to any backward timing: none had been measured) has not
been compared with a measurement. PyTorch's flash backend runs FlashAttention-2's backward,
the kernels the model describes (a CTA per K/V block, dQ by atomic adds, the dot and convert
kernels, GQA's group sums), with tiles read from its sources
(:func:`gpusim.validation.torch_flash_bwd_schedule.bwd_tiles`: 128 x 128 at d64, 64 x 128 at
d128, 64 x 64 at d256, 8 warps, Q and dO double-buffered), which the model is given as the
schedule. The runs: the FlashAttention-2 paper's sweep (batch x length 16k, hidden 2048,
d64 and d128, 512 to 16k tokens, causal and not, bf16), and beside it GQA, MQA, d256, fp16
and one long causal run. Each run also times the forward and forward + backward, which the
model predicts with the forward's schedule (:func:`~gpusim.validation.torch_flash_schedule.
torch_flash_schedule`) plus the backward's. Fixed, with the predictions, before any of it is
measured; see :data:`RULE`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from gpusim import atomic
from gpusim.engine.head_keys import head_keys
from gpusim.engine.product_groups import grouped
from gpusim.schedule import Schedule
from gpusim.source_commit import git_commit
from gpusim.validation.torch_flash_schedule import (
    compiled_counts,
    torch_flash_bwd_schedule,
    torch_flash_schedule,
)
from gpusim.workload import Workload

SET_NAME = "backward_heldout15"
PROFILE = "h200-sxm"
#: (batch, heads, heads_kv, seq_len, head_dim, dtype, causal)
PAPER_SWEEP = tuple(
    (16384 // n, 2048 // d, None, n, d, "bf16", causal)
    for d in (64, 128)
    for causal in (False, True)
    for n in (512, 1024, 2048, 4096, 8192, 16384)
)
OTHERS = (
    (2, 32, 8, 4096, 128, "bf16", False),  # GQA, 4 query heads per K/V head
    (2, 32, 8, 4096, 128, "bf16", True),
    (4, 16, 1, 2048, 128, "bf16", True),  # MQA
    (2, 8, None, 4096, 256, "bf16", False),
    (2, 8, None, 4096, 256, "bf16", True),
    (2, 16, None, 8192, 128, "fp16", False),
    (4, 32, None, 3072, 64, "fp16", True),
    (1, 16, None, 32768, 128, "bf16", True),  # long causal
)
RUNS = PAPER_SWEEP + OTHERS
RULE = (
    "reported, nothing judged against a target and nothing tuned: the model's backward "
    "(h200-sxm, --pass bwd, PyTorch's backward tiles as the schedule) against PyTorch's "
    "flash-backend backward timed by CUDA events (median of 20, L2 flushed), as runtime MAPE, "
    "mean signed error and the worst runs, beside a roofline (the backward's 10 B H N^2 d "
    "FLOPs, halved if causal, at the mma.sync peak under tensor load, or its compulsory bytes "
    "at DRAM bandwidth) and a constant-efficiency baseline (the backward at the efficiency "
    "PyTorch's forward reached on the same run, i.e. the rule of thumb that the backward "
    "costs 2.5 forwards); forward and forward + backward reported the same way. A run whose "
    "gradients fail the float64 check is reported as failed, not compared"
)


def run_id(batch: int, heads: int, heads_kv, n: int, d: int, dtype: str, causal: bool) -> str:
    kv = f"kv{heads_kv}" if heads_kv else ""
    return f"bwd_b{batch}h{heads}{kv}_n{n}_d{d}_{dtype}_c{int(causal)}"


def manifest_runs(runs: tuple = RUNS) -> list[dict[str, Any]]:
    """A set's runs (this set's by default) in ``torch_bwd_measure``'s manifest form, in run
    order."""
    return [
        {
            "id": run_id(b, h, hkv, n, d, dtype, causal),
            "batch": b,
            "heads": h,
            "heads_kv": hkv or h,
            "seq_len_q": n,
            "seq_len_k": n,
            "head_dim": d,
            "dtype": dtype,
            "causal": causal,
        }
        for b, h, hkv, n, d, dtype, causal in runs
    ]


def workload(run: dict[str, Any], pass_: str) -> Workload:
    """The model's workload of one manifest run for ``pass_``."""
    return Workload(
        batch=run["batch"],
        heads=run["heads"],
        heads_kv=run["heads_kv"],
        seq_len_q=run["seq_len_q"],
        seq_len_k=run["seq_len_k"],
        head_dim=run["head_dim"],
        dtype=run["dtype"],
        causal=run["causal"],
        pass_=pass_,
    )


def backward_schedule(run: dict[str, Any]) -> Schedule:
    """PyTorch's backward tiles on the H200 as the model's schedule."""
    return torch_flash_bwd_schedule(workload(run, "bwd"))


@grouped(False)  # the backward this set judged (grouped products came with set 41)
@head_keys(False)  # and its group sums' tiles named as then (engine/head_keys.py)
@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def predict_run(run: dict[str, Any], profile: str = PROFILE) -> dict[str, Any]:
    """The model's backward, forward and their sum for one run."""
    import gpusim

    bwd_w, fwd_w = workload(run, "bwd"), workload(run, "fwd")
    bwd_s, fwd_s = backward_schedule(run), torch_flash_schedule(fwd_w)
    # the step these sets judged: the source's formulas (the default until held-out set 38)
    bwd_s = bwd_s.model_copy(update={"instruction_counts": "formulas"})
    bwd = gpusim.simulate("flash2", bwd_w, bwd_s, profile, footprints="estimate")
    fwd = gpusim.simulate("flash2", fwd_w, fwd_s, profile)
    rec = record(run["id"], bwd, fwd, bwd_s, bwd_w, fwd_w)
    return {**rec, "fwd_schedule": fwd_s.model_dump()}


def record(run_id_: str, bwd, fwd, bwd_s: Schedule, bwd_w: Workload, fwd_w: Workload) -> dict:
    """What a backward set records of one run's model results (``gpusim.SimResult``)."""
    return {
        "id": run_id_,
        "bwd_s": bwd.runtime_s,
        "fwd_s": fwd.runtime_s,
        "fwd_bwd_s": bwd.runtime_s + fwd.runtime_s,
        "bwd_schedule": bwd_s.model_dump(),
        "bwd_bound": bwd.bound,
        "bwd_kernels": {k.name: k.duration_s for k in bwd.kernels},
        "bwd_flops": bwd_w.model_flops(),
        "fwd_flops": fwd_w.model_flops(),
    }


def predict_torch_run(
    run: dict[str, Any],
    profile: str,
    fwd_schedule: Schedule | None = None,
    ran: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], Any, Any]:
    """``(record, forward, backward)`` of one PyTorch run by the model as the caller's switches
    stand (sets 41-46): the forward at PyTorch's schedule (``fwd_schedule`` where given; else
    its code charged once per CTA where :data:`~gpusim.validation.torch_kernel_code.
    CODE_FETCH` is on), the backward by the compiled step; ``ran``: the run at the head size
    its kernels execute (default: the binary's, :func:`~gpusim.validation.torch_head_buckets.
    executed`, adopted by set 45; the run itself where that switch is off). The record's
    FLOPs stay ``run``'s."""
    import gpusim
    from gpusim.validation.torch_bwd_models import simulate_backward
    from gpusim.validation.torch_head_buckets import executed
    from gpusim.validation.torch_kernel_code import with_code_fetch

    ran = ran or run | {"head_dim": executed(workload(run, "fwd")).head_dim}
    fwd_w = workload(ran, "fwd")
    if fwd_schedule is None:  # its code charged once per CTA where that switch is on (set 46)
        fwd_schedule = with_code_fetch(workload(run, "fwd"), torch_flash_schedule(fwd_w))
    fwd = gpusim.simulate("flash2", fwd_w, fwd_schedule, profile)
    bwd = simulate_backward(ran, "compiled", profile)
    rec = record(run["id"], bwd, fwd, backward_schedule(ran), workload(run, "bwd"),
                 workload(run, "fwd"))  # fmt: skip
    return rec, fwd, bwd


def predictions(
    profile: str = PROFILE,
    runs: tuple = RUNS,
    set_name: str = SET_NAME,
    rule: str = RULE,
    predict=predict_run,
    about: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every run's prediction by ``predict(run, profile)`` (this set's by default), with what
    made them (``about``: further keys, e.g. the model a set compares)."""
    return {
        "set": set_name,
        "profile": profile,
        **(about or {}),
        "commit": git_commit(),
        "rule": rule,
        "runs": [predict(r, profile) for r in manifest_runs(runs)],
    }


def main(argv: list[str] | None = None) -> int:
    def add_predict(pr: argparse.ArgumentParser) -> None:
        pr.add_argument("--profile", default=PROFILE, help="a profile's name or YAML (a variant)")

    def predict(args: argparse.Namespace) -> dict[str, Any] | int:
        from gpusim.errors import GpusimError
        from gpusim.profiles.loader import load_profile

        try:
            load_profile(args.profile)  # a bad name or file: one line, before any run
        except GpusimError as e:
            print(f"{SET_NAME}: error: {e}", file=sys.stderr)
            return 2
        return predictions(args.profile)

    what = "the model's backward pass against PyTorch's FlashAttention-2 backward: " + __name__
    return set_main(argv, SET_NAME, what, RULE, manifest_runs, add_predict, predict)


def set_main(argv, set_name: str, what: str, rule: str, runs, add_predict, predict) -> int:
    """A backward set's command line: ``--list``, ``manifest --out``, ``predict --out`` (and
    what ``add_predict`` adds; ``predict(args)`` returns the document or an exit status)."""
    ap = argparse.ArgumentParser(description=f"held-out set {set_name}")
    ap.add_argument("--list", action="store_true", help="print the runs and exit")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("manifest").add_argument("--out", type=Path, required=True)
    pr = sub.add_parser("predict")
    pr.add_argument("--out", type=Path, required=True)
    add_predict(pr)
    args = ap.parse_args(argv)
    if args.list or args.cmd is None:
        for r in runs():
            print(json.dumps(r))
        return 0
    if refuse_existing(args.out, set_name):
        return 2
    if args.cmd == "manifest":
        doc = {"set": set_name, "what": what, "decision_rule": rule, "runs": runs()}
    else:
        doc = predict(args)
        if isinstance(doc, int):
            return doc
    return write_doc(args.out, doc)


def profile_set_main(argv, set_name: str, what: str, rule: str, runs: tuple, profiles) -> int:
    """:func:`set_main` for a set of PyTorch runs ``runs`` predicted on the lent card's profile
    (``predict --profile P``, one of ``profiles``)."""

    def add_predict(pr: argparse.ArgumentParser) -> None:
        pr.add_argument("--profile", required=True, choices=profiles, help="the card's profile")

    return set_main(argv, set_name, what, rule, lambda: manifest_runs(runs), add_predict,
                    lambda a: predictions(a.profile, runs, set_name, rule))  # fmt: skip


def model_set_main(
    argv, set_name: str, what: str, rule: str, runs: tuple, profiles, models, predict_run
) -> int:
    """:func:`set_main` for a set that compares ``models`` on the lent card's profile
    (``predict --profile P --model M``); ``predict_run(run, profile, model)`` predicts a run,
    and the document records the model."""

    def add_predict(pr: argparse.ArgumentParser) -> None:
        pr.add_argument("--profile", required=True, choices=profiles, help="the card's profile")
        pr.add_argument("--model", required=True, choices=models, help="the model to predict")

    def predict(a: argparse.Namespace) -> dict[str, Any]:
        return predictions(a.profile, runs, set_name, rule,
                           lambda r, p: predict_run(r, p, a.model), {"model": a.model})  # fmt: skip

    return set_main(argv, set_name, what, rule, lambda: manifest_runs(runs), add_predict, predict)


def refuse_existing(out: Path, set_name: str) -> bool:
    """True (and one line on standard error) when ``out`` exists: a set's files are
    written once."""
    if out.exists():
        print(f"{set_name}: error: {out} exists (write-once)", file=sys.stderr)
        return True
    return False


def write_doc(out: Path, doc: dict[str, Any]) -> int:
    """Write a set's manifest or predictions; exit status 0."""
    atomic.write_text(out, json.dumps(doc, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
