"""A look on seen sets: PyTorch's forward by the fit against ``--instruction-counts compiled``.

    python -m gpusim.reporting.torch_fwd_compiled_look 38 39 40 41 42

Each measured run of the named held-out sets (``data/h100/2026-12-07_torch_heldout<N>_measured``,
an H100, ``h100-sxm5``): its forward by PyTorch's tile traits (``torch_flash_schedule``) with
the default fit and with the compiled counts; per set the MAPE and mean signed error of both,
and the mean signed error by head size. Judges nothing (held-out set 43 does).
"""

from __future__ import annotations

import json
import statistics as st
import sys

from gpusim.data.layout import REPO_ROOT
from gpusim.validation.torch_flash_schedule import compiled_counts

HEAD_DIMS = (64, 96, 128, 256)


@compiled_counts(False)  # the forward's counts this set judged (compiled came with set 43)
def errors(set_number: str, profile: str = "h100-sxm5") -> list[tuple[str, float, float]]:
    """``(run id, fit error, compiled error)`` of each record of a measured set."""
    import gpusim
    from gpusim.validation.backward_heldout15 import workload
    from gpusim.validation.torch_flash_schedule import torch_flash_schedule

    folder = REPO_ROOT / f"data/h100/2026-12-07_torch_heldout{set_number}_measured"
    out = []
    for line in (folder / "runs.jsonl").read_text().splitlines():
        r = json.loads(line)
        w = workload(r, "fwd")
        s, t = torch_flash_schedule(w), r["fwd"]["median_s"]
        fit = gpusim.simulate("flash2", w, s, profile).runtime_s / t - 1
        compiled = s.model_copy(update={"instruction_counts": "compiled"})
        now = gpusim.simulate("flash2", w, compiled, profile).runtime_s / t - 1
        out.append((r["id"], fit, now))
    return out


def main(argv: list[str] | None = None) -> int:
    sets = sys.argv[1:] if argv is None else argv
    for n in sets:
        v = errors(n)
        mape = [100 * st.mean(abs(x[i]) for x in v) for i in (1, 2)]
        mean = [100 * st.mean(x[i] for x in v) for i in (1, 2)]
        print(f"{n} n {len(v)} fit {mape[0]:.1f} % ({mean[0]:+.1f}) "
              f"compiled {mape[1]:.1f} % ({mean[1]:+.1f})")  # fmt: skip
        for d in HEAD_DIMS:
            xs = [x for x in v if f"_d{d}_" in x[0]]
            if xs:
                print(f"    _d{d}_ {len(xs)} fit {100 * st.mean(x[1] for x in xs):+.1f} "
                      f"compiled {100 * st.mean(x[2] for x in xs):+.1f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
