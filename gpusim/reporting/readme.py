"""reports/README.md: each figure with what it says, the command that made it, and its table.

Generated, like everything else ``gpusim report`` writes, from the figures' data,
so the numbers in the sentences are the numbers in the CSVs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpusim.reporting.figure import Figure
from gpusim.reporting.files import markdown_table

if TYPE_CHECKING:
    from gpusim.reporting.report_runner import Report

#: The hand-written analysis kept beside the generated files (validation's notes are included
#: in its generated README verbatim).
HAND_WRITTEN = ("kernels/README.md", "tuning/README.md", "validation/notes.md")
INTRO = """\
# gpusim reports

Figures and tables that answer the seeds' questions, rebuilt by

```
gpusim report            # every figure below, this README and summary.json
gpusim report --only fig2   # one figure (its PNG, CSV and Markdown table)
```

from fresh simulations (the engine's aggregated path) and from the measurements
recorded under the repository's `data/` (each folder with its `manifest.json`; `data/index.json`
lists them), which nothing here writes. Everything here is generated, `validation/` and the
tuning proofs' tables included, except the hand-written analysis ({others}): do not edit
the rest by hand. Two runs give
byte-identical files; `summary.json` holds each figure's key numbers.

Byte counts: *global* (or SM↔L2, the FlashAttention papers' "HBM accesses") is
the traffic between the SMs and the memory system; *DRAM* is what reaches
device memory after the L2. Runtimes and TFLOP/s are the model's predictions
unless a point says it was measured.
"""


def readme_text(figures: Sequence[Figure], report: Report, out_dir: Path) -> str:
    """The whole README for ``figures`` as built in ``report``."""
    others = ", ".join(f"`{o}`" for o in HAND_WRITTEN)
    parts = [INTRO.format(others=others)]
    parts.append("## Contents\n")
    for f in figures:
        parts.append(f"- [{f.title}](#{_anchor(f.title)})")
    parts.append("")
    parts.append(_recorded(report))
    for f in figures:
        d = report.figures[f.name]
        parts.append(f"## {f.title}\n")
        if d.drawable:
            parts.append(f"![{f.title}]({f.name}.png)\n")
        parts.append(f.describe(d) + "\n")
        parts.append(
            f"Made by `gpusim report --only {f.name.split('_')[0]}`; data: "
            f"[{f.name}.csv]({f.name}.csv)"
            + (f", table: [{f.name}.md]({f.name}.md)" if d.table_header else "")
            + ".\n"
        )
        for note in d.notes:
            parts.append(f"> Not recorded yet: {note}.\n")
        if d.table_header:
            parts.append(markdown_table(d.table_header, d.table_rows))
    return "\n".join(parts).rstrip() + "\n"


def _recorded(report: Report) -> str:
    """What measured data this run read, and where the predictions beside it come from."""
    lines = ["## Measured data read\n"]
    v = report.figures.get("fig6a_predicted_vs_measured")
    if v is not None and v.summary.get("recorded"):
        s = v.summary
        sets = ", ".join(f"`{d}`" for d in s.get("datasets", []))
        lines.append(
            f"- Validation: {s['ok']} measured runs on {s['gpu']} ({sets}; latest measured "
            f"{s.get('date')} at commit {s.get('commit')}); predictions: "
            f"{_code(s.get('predictions'))} with profile `{s.get('profile')}`."
        )
    else:
        lines.append("- Validation: no validation dataset recorded under `data/` yet.")
    t = report.figures.get("fig6b_tuner_heatmap")
    if t is not None and t.summary.get("recorded"):
        s = t.summary
        pred = _code(s.get("predictions")) if s.get("predictions") else "not recorded yet"
        lines.append(
            f"- Tuner proof: {_code(s.get('measured'))} measured on {s.get('gpu')}; predictions: "
            f"{pred}"
            + (f" (model commit {s['model_commit']})" if s.get("model_commit") else "")
            + "."
        )
    else:
        lines.append("- Tuner proof: no proof run recorded under `data/` yet.")
    return "\n".join(lines) + "\n"


def _code(text: str | None) -> str:
    if not text:
        return "-"
    return f"`{text}`" if "/" in text or text.endswith(".json") else text


def _anchor(title: str) -> str:
    keep = [c for c in title.lower() if c.isalnum() or c in " -"]
    return "".join(keep).replace(" ", "-")
