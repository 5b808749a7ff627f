"""The backward's own tiles in a training step (``--pass fwd+bwd``), as options of the
workload commands: FlashAttention-2 runs its backward with other tiles than its forward."""

from __future__ import annotations

from typing import Annotated, Any

import typer

BWD_PANEL = "Backward tiles (--pass fwd+bwd; left out: the backward's own rule, or --block-m ...)"


def _option(flag: str, what: str) -> Any:
    return Annotated[
        int | None,
        typer.Option(flag, min=1, help=f"The backward's {what}.", rich_help_panel=BWD_PANEL),
    ]


#: Annotation of each option, by WorkloadOptions field.
BWD_ANNOTATIONS: dict[str, Any] = {
    "bwd_block_m": _option("--bwd-block-m", "Br (query rows per tile)"),
    "bwd_block_n": _option("--bwd-block-n", "Bc (key rows per tile)"),
    "bwd_warps": _option("--bwd-warps", "warps per CTA"),
    "bwd_stages": _option("--bwd-stages", "shared-memory buffers"),
}
