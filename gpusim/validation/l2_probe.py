"""Which Nsight Compute counter measures the SM-to-L2 traffic the model counts?

    python -m gpusim.validation.l2_probe --ids-file IDS --out DIR

Profiles the listed sweep configs once each (:mod:`gpusim.validation.ncu_driver`) with the
L2 counters seen from both ends: at the L2 slices (sectors and requests from the SMs'
L1/TEX units, hits, and traffic between the two L2 partitions) and at the SMs (bytes that
cross the crossbar into and out of L1/TEX, and the sectors of cp.async copies). The
validation pass records only ``lts__t_sectors_srcunit_tex_op_{read,write}``; where that
disagrees with the kernel's requests, these say on which side the difference arises.
Writes ``l2-probe.json`` (per-config sums, the command, the metrics dropped as unknown) and
the raw CSV beside it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gpusim import atomic
from gpusim.validation import ncu

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


def main(argv: list[str] | None = None) -> int:
    """Profile the configs of the ids file with :data:`PROBE_METRICS`."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ids-file", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--timeout-s", type=float, default=420.0)
    a = ap.parse_args(argv)
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
