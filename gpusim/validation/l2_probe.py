"""Which Nsight Compute counter measures the SM-to-L2 traffic the model counts?

    python -m gpusim.validation.l2_probe --ids-file IDS --out DIR      (on the GPU)
    python -m gpusim.validation.l2_probe --compare PROBE --comparison JSON  (anywhere)

Profiles the listed sweep configs once each (:mod:`gpusim.validation.ncu_driver`) with the
L2 counters seen from both ends: at the L2 slices (sectors and requests from the SMs'
L1/TEX units, hits, and traffic between the two L2 partitions) and at the SMs (bytes that
cross the crossbar into and out of L1/TEX, and the sectors of cp.async copies). The
validation pass records only ``lts__t_sectors_srcunit_tex_op_{read,write}``; where that
disagrees with the kernel's requests, these say on which side the difference arises.
Writes ``l2-probe.json`` (per-config sums, the command, the metrics dropped as unknown) and
the raw CSV beside it. ``--compare`` prints the model's SM-to-L2 bytes (from a ``gpusim
validate`` comparison.json) against both ends' counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpusim import atomic, ncu

PROBE_METRICS = (
    "launch__grid_size",
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum",
    "lts__t_requests_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
    "lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum",
    "lts__t_sectors_srcunit_ltcfabric.sum",
    "lts__t_sectors_op_read.sum",
    "lts__t_sectors_op_write.sum",
    "l1tex__m_xbar2l1tex_read_bytes.sum",
    "l1tex__m_xbar2l1tex_read_sectors.sum",
    "l1tex__m_l1tex2xbar_write_bytes.sum",
    "l1tex__m_l1tex2xbar_req.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_ldgsts.sum",
    "sm__cycles_elapsed.avg.per_second",
)


SECTOR_BYTES = 32


def compare(probe: dict, comparison: dict) -> list[dict]:
    """Per probed config: the model's SM-to-L2 bytes against the L2 slices' count (sectors
    from L1/TEX, read and write) and the SMs' count (bytes over the crossbar, both ways)."""
    model = {
        r["id"]: r["ncu"]["l2_bytes_predicted"]
        for r in comparison["rows"]
        if r.get("ncu") and r["ncu"].get("l2_bytes_predicted")
    }
    out = []
    for cid, v in probe["by_config"].items():
        s = v["sums"]
        slices = SECTOR_BYTES * (
            s["lts__t_sectors_srcunit_tex_op_read.sum"]
            + s["lts__t_sectors_srcunit_tex_op_write.sum"]
        )
        sms = s["l1tex__m_xbar2l1tex_read_bytes.sum"] + s["l1tex__m_l1tex2xbar_write_bytes.sum"]
        pred = model.get(cid)
        out.append(
            {
                "id": cid,
                "model_bytes": pred,
                "l2_slice_bytes": slices,
                "sm_side_bytes": sms,
                "err_vs_slices": None if pred is None else pred / slices - 1,
                "err_vs_sms": None if pred is None else pred / sms - 1,
            }
        )
    return out


def _print_compare(probe_path: Path, comparison_path: Path) -> int:
    rows = compare(json.loads(probe_path.read_text()), json.loads(comparison_path.read_text()))
    print("| config | model MB | L2 slices MB | model vs slices | SMs MB | model vs SMs |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        if r["model_bytes"] is None:
            continue
        print(
            f"| {r['id']} | {r['model_bytes'] / 1e6:.0f} | {r['l2_slice_bytes'] / 1e6:.0f} | "
            f"{100 * r['err_vs_slices']:+.1f} % | {r['sm_side_bytes'] / 1e6:.0f} | "
            f"{100 * r['err_vs_sms']:+.1f} % |"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Profile the configs of the ids file with :data:`PROBE_METRICS`, or compare a probe."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ids-file", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--timeout-s", type=float, default=420.0)
    ap.add_argument("--compare", type=Path, help="a recorded l2-probe.json")
    ap.add_argument("--comparison", type=Path, help="a gpusim validate comparison.json")
    a = ap.parse_args(argv)
    if a.compare is not None:
        if a.comparison is None:
            ap.error("--compare needs --comparison")
        try:
            return _print_compare(a.compare, a.comparison)
        except (OSError, ValueError, KeyError) as exc:
            print(f"error: cannot compare {a.compare} with {a.comparison}: {exc}", file=sys.stderr)
            return 2
    if a.ids_file is None or a.out is None:
        ap.error("profiling needs --ids-file and --out")
    exe = ncu.find_ncu()
    if exe is None:
        print("error: ncu not found on PATH or under the CUDA toolkit", file=sys.stderr)
        return 2
    ids = [s.strip() for s in a.ids_file.read_text().splitlines() if s.strip()]
    known, err = ncu.query_metrics(exe)
    metrics, dropped = ncu.select_metrics(known if not err else None, PROBE_METRICS)
    a.out.mkdir(parents=True, exist_ok=True)
    driver = [sys.executable, "-m", "gpusim.validation.ncu_driver", "--ids-file", str(a.ids_file)]
    res = ncu.profile(exe, driver, ids, a.out / "l2-probe", metrics, a.timeout_s)
    by_config = {}
    for cid, summary in res.pop("by_config", {}).items():
        sums: dict[str, float] = {}
        for k in summary["kernels"]:
            for m, v in k["metrics"].items():
                if m.endswith(".sum"):
                    sums[m] = sums.get(m, 0.0) + v
        by_config[cid] = {"kernels": [k["name"] for k in summary["kernels"]], "sums": sums}
    res.update({"ids": ids, "dropped_unknown": dropped, "query_error": err, "by_config": by_config})
    atomic.write_text(a.out / "l2-probe.json", json.dumps(res, indent=1))
    print(f"wrote {a.out / 'l2-probe.json'} ({len(by_config)} configs)", file=sys.stderr)
    return 0 if by_config else 1


if __name__ == "__main__":
    raise SystemExit(main())
