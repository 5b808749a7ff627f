"""The validation report's README.md: the judgement, per-class errors and provenance, as Markdown.

Hand-written analysis (why the worst cases miss, which mechanism the model lacks) lives in
``notes.md`` beside the report and is included verbatim, so regenerating the report never
loses it and never edits the measured data.
"""

from __future__ import annotations

from typing import Any

from gpusim.validation.predicted_vs_measured import CLASS_KEYS, Row


def _pct(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{100 * x:+.1f} %" if signed else f"{100 * x:.1f} %"


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1e3:.3f}"


def _gb(x: float | None) -> str:
    return "-" if x is None else f"{x / 1e9:.3f}"


def _pair(r: Row, stage: str) -> str:
    return f"{_ms(r.stages_measured_s.get(stage))} / {_ms(r.stages_predicted_s.get(stage))}"


def _table(header: list[str], lines: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(line) + " |" for line in lines]
    return "\n".join(out)


def _provenance_lines(name: str, data: dict[str, Any], used: int, ncu: int) -> list[str]:
    p, m = data["provenance"], data.get("method", {})
    smi = p.get("nvidia_smi") or p.get("nvidia_smi_before") or {}
    driver = smi.get("driver_version", p.get("driver_version", "?"))
    return [
        f"**`{name}`** ({len(data['records'])} records, {used} of them judged here, "
        f"{ncu} with Nsight counts)",
        "",
        f"- GPU: {p.get('gpu_name')} ({p.get('sm_count', '?')} SMs, L2 "
        f"{p.get('l2_bytes', '?')} bytes), driver {driver}",
        f"- CUDA runtime {p.get('cuda_runtime_version')}, driver API "
        f"{p.get('cuda_driver_version', p.get('cuda_driver_api_version'))}, CuPy "
        f"{p.get('cupy_version')}, torch {p.get('torch_version')}, Python {p.get('python')}",
        f"- measured {p.get('date_utc')} at commit {p.get('git_commit')}; SM clock as "
        f"nvidia-smi reported it at the start: {smi.get('clocks.sm', '?')} "
        f"(max {smi.get('clocks.max.sm', '?')}); {_smi_sweep(p)}",
        f"- method: {m.get('timer', 'CUDA events')}, {m.get('warmup', '?')} warm-up and "
        f"{m.get('repeats', '?')} timed launches per config, median; L2 flushed before every "
        f"launch ({m.get('l2_flush_bytes', '?')} bytes written); Nsight Compute with "
        "`--clock-control none`, caches flushed before each profiled kernel",
        "",
    ]


def _smi_sweep(p: dict[str, Any]) -> str:
    w = p.get("smi_during_sweep") or {}
    clk, pw = w.get("sm_clock_mhz"), w.get("power_w")
    if not clk:
        return "no nvidia-smi samples during the sweep"
    text = f"during the sweep ({w.get('samples')} samples) {clk['min']:.0f}-{clk['max']:.0f} MHz"
    if pw:
        text += f", {pw['min']:.0f}-{pw['max']:.0f} W"
    return text + " (nvidia-smi; Nsight's clock under load is in the bytes table)"


def markdown(
    datasets: list[tuple[str, dict[str, Any]]],
    records: list[dict[str, Any]],
    superseded: list[dict[str, Any]],
    profile_name: str,
    rows: list[Row],
    summ: dict[str, Any],
    notes: str,
) -> str:
    """The README text."""
    failed = [r for r in records if r.get("status") != "ok"]
    names = [n for n, _ in datasets]
    froms = " ".join(f"--from {n}" for n in names)
    prov: list[str] = []
    for name, data in datasets:
        used = [r for r in records if r.get("dataset") == name and r.get("status") == "ok"]
        prov += _provenance_lines(name, data, len(used), sum(1 for r in used if r.get("counts")))
    if superseded:
        prov += [
            "Re-measured configs (the later dataset's record is the one judged): "
            + ", ".join(f"`{s['id']}` ({s['dataset']} → {s['superseded_by']})" for s in superseded),
            "",
        ]
    lines = [
        "# Validation on the H200: predicted against measured",
        "",
        f"Written by `gpusim validate {froms} --out reports/validation` (`gpusim report` runs "
        "it); regenerate it the same way (no GPU needed). The datasets are the GPU runs' "
        "output as produced; nothing in them was edited. Predictions by the model at commit "
        f"`{summ.get('model_commit', '?')}`, profile `{profile_name}`.",
        "",
        "## What fed the model and what judged it",
        "",
        "- **Calibration (fed the model):** microbenchmarks only, `gpusim calibrate` on the "
        "same H200 (`data/h200/2026-11-30_calibration/`, profile "
        f"`hardware_profiles/{profile_name}.yaml`): DRAM copy bandwidth, L2 bandwidth and "
        "latency, DRAM latency, mma.sync rate per dtype and the SM clock under mma load, "
        "FFMA, MUFU.EX2 and shared-memory rates, launch overhead, device limits.",
        "- **Validation (judged it):** the attention runs of the datasets below: "
        f"{len(records)} configurations ({len(rows)} measured, {len(failed)} failed), "
        "none of which set any parameter. No constant was fitted to these timings.",
        "",
        "## Provenance",
        "",
        *prov,
        "## Headline",
        "",
        _table(
            ["measure", "value", "target", "met"],
            [
                [name, _pct(t["value"]), f"≤ {t['target']:.0%}", "yes" if t["met"] else "**no**"]
                for name, t in summ["targets"].items()
            ]
            + [
                ["runtime MAPE, flash2", _pct(summ["runtime_by_kind"]["flash2"]["mape"]), "", ""],
                [
                    "runtime MAPE, standard",
                    _pct(summ["runtime_by_kind"]["standard"]["mape"]),
                    "",
                    "",
                ],
                ["runtime mean signed error", _pct(summ["runtime_mean_err"], True), "", ""],
                ["DRAM bytes MAPE (ncu)", _pct(summ["dram_bytes_mape"]), "", ""],
                [
                    "runs within 5 % on DRAM bytes",
                    f"{summ.get('dram_within_target', '-')} of {summ['ncu_configs']}",
                    "",
                    "",
                ],
                ["SM-to-L2 bytes MAPE (ncu)", _pct(summ["l2_bytes_mape"]), "", ""],
                ["kernel time MAPE (ncu duration)", _pct(summ["kernel_time_mape"]), "", ""],
            ],
        ),
        "",
        "![predicted against measured runtime](scatter.png)",
        "",
    ]
    if notes.strip():
        lines += [notes.strip(), ""]
    lines += ["## Error by class", ""]
    for key in CLASS_KEYS:
        cls = summ["by_class"][key]
        lines += [
            f"**{key}**",
            "",
            _table(
                [key, "n", "MAPE", "max |err|", "mean err"],
                [
                    [
                        g,
                        str(s["n"]),
                        _pct(s["mape"]),
                        _pct(s["max_abs_err"]),
                        _pct(s["mean_err"], True),
                    ]
                    for g, s in cls.items()
                ],
            ),
            "",
        ]
    ncu_rows = [r for r in rows if r.ncu]
    if ncu_rows:
        lines += [
            "## Bytes against Nsight Compute",
            "",
            "DRAM = `dram__bytes_read.sum + dram__bytes_write.sum`. SM-to-L2, against the "
            "model's bytes between the SMs and the L2: at the SMs' end where the run "
            "recorded it (`l1tex__m_xbar2l1tex_read_bytes.sum + "
            "l1tex__m_l1tex2xbar_write_bytes.sum`, column end = sms), else at the L2 "
            "slices' (`lts__t_sectors_srcunit_tex_op_read.sum + ..._op_write.sum` x 32, "
            "end = slices); the slices count fewer sectors when CTAs ask for the same lines "
            "together, so where both are recorded the slices' error is shown too. "
            "GB = 1e9 bytes.",
            "",
            _table(
                [
                    "config",
                    "DRAM meas. GB",
                    "DRAM pred. GB",
                    "err",
                    "L2 end",
                    "L2 meas. GB",
                    "L2 pred. GB",
                    "err",
                    "err vs slices",
                    "ncu time ms",
                    "pred. exec ms",
                    "SM clock GHz",
                ],
                [
                    [
                        r.id,
                        _gb(r.ncu.get("dram_bytes_measured")),
                        _gb(r.ncu.get("dram_bytes_predicted")),
                        _pct(r.ncu.get("dram_bytes_err"), True),
                        r.ncu.get("l2_end", "-"),
                        _gb(r.ncu.get("l2_bytes_measured")),
                        _gb(r.ncu.get("l2_bytes_predicted")),
                        _pct(r.ncu.get("l2_bytes_err"), True),
                        _pct(r.ncu.get("l2_slice_bytes_err"), True),
                        _ms(r.ncu.get("kernel_time_measured_s")),
                        _ms(r.ncu.get("kernel_time_predicted_s")),
                        "-"
                        if not r.ncu.get("sm_clock_hz_measured")
                        else f"{r.ncu['sm_clock_hz_measured'] / 1e9:.3f}",
                    ]
                    for r in ncu_rows
                ],
            ),
            "",
        ]
    std = [r for r in rows if r.stages_measured_s]
    if std:
        stage_names = list(std[0].stages_measured_s)
        lines += [
            "## Standard attention per kernel",
            "",
            "cuBLAS products (`cupy.matmul`, fp16) and the row-softmax kernel, each timed on "
            "its own; predicted = launch overhead + the kernel's simulated execution.",
            "",
            _table(
                ["config", *[f"{s} meas./pred. ms" for s in stage_names]],
                [
                    [
                        r.id,
                        *[_pair(r, s) for s in stage_names],
                    ]
                    for r in std
                ],
            ),
            "",
        ]
    lines += [
        "## Every configuration",
        "",
        "Also in `errors.csv` (with bytes) and `comparison.json` (everything).",
        "",
        _table(
            ["config", "regs", "smem B", "CTAs/SM", "measured ms", "predicted ms", "err", "bound"],
            [
                [
                    r.id,
                    str(r.regs_per_thread or "-"),
                    str(r.smem_bytes_per_cta or "-"),
                    str(r.ctas_per_sm),
                    _ms(r.measured_s),
                    _ms(r.predicted_s),
                    _pct(r.runtime_err, True),
                    r.bound,
                ]
                for r in sorted(rows, key=lambda r: -abs(r.runtime_err))
            ],
        ),
        "",
    ]
    if failed:
        lines += [
            "## Failed configurations",
            "",
            _table(["config", "error"], [[r["id"], str(r.get("error"))[:200]] for r in failed]),
            "",
        ]
    return "\n".join(lines)
