"""A kernel's implementation class: what a schedule's tiles are computed and moved with.

The schedule says which tiles, warps and stages; the class says how a kernel implements
them: the product instruction (``mma`` = mma.sync m16n8k16, ``wgmma``, ``ffma``), how tiles
arrive in shared memory (``cp.async``, TMA bulk copies, plain loads), and warp
specialization (producer warps that only copy, consumer warpgroups that compute). Where
S/P and O live is the schedule's ``residency``. The per-step instruction mix follows from
the class and the tile shapes (:mod:`gpusim.instruction_mix`).

The class fields live on :class:`~gpusim.schedule.Schedule` (None: the project's own kernel
for the storage type); :func:`resolve_class` fills them in and :func:`check_class` says in
one line why a class cannot exist for a storage type.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from gpusim.errors import GpusimError
from gpusim.schedule import InstructionCounts, OStore, Product, Schedule, TileCopy

PRODUCTS: tuple[str, ...] = ("mma", "wgmma", "ffma")
TILE_COPIES: tuple[str, ...] = ("cp.async", "tma", "plain")
#: Storage types each product takes its operands in. mma.sync m16n8k16 and wgmma take 16-bit
#: operands (their tf32 forms would need a conversion of fp32 tiles the project's kernels do
#: not make); the FFMA kernel is the fp32 one (its product rate is measured in fp32).
PRODUCT_DTYPES: dict[str, tuple[str, ...]] = {
    "mma": ("fp16", "bf16"),
    "wgmma": ("fp16", "bf16"),
    "ffma": ("fp32", "fp64"),
}
#: Warps of one warpgroup (wgmma is issued by four warps together).
WARPGROUP_WARPS = 4
#: Rows of one wgmma's M dimension (m64nNk16): a consumer warpgroup's query rows come in these.
WGMMA_ROWS = 64
#: N of m64nNk16: a multiple of 8 up to 256 (the PTX ISA's wgmma shapes for 16-bit inputs).
WGMMA_N_STEP, WGMMA_MAX_N = 8, 256


class KernelClass(BaseModel):
    """The implementation class of a kernel, defaults resolved."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    product: Product
    tile_copy: TileCopy = "cp.async"
    producer_warps: int = Field(0, ge=0)
    #: warpgroups that issue the products (wgmma); 0 for the single-warp products
    consumer_warpgroups: int = Field(0, ge=0)
    #: where the per-step instruction counts come from (gpusim.instruction_mix)
    instruction_counts: InstructionCounts = "formulas"
    #: how the output block is written (``fragments``: 4-byte stores from the accumulators)
    o_store: OStore = "staged"
    #: a compiled loop's steady step, warp-instructions per compute warp besides the products
    #: (the schedule's ``step_issue_per_warp``); None: ``instruction_counts`` gives it
    step_issue_per_warp: float | None = None
    #: warp-instructions per compute warp once per CTA outside the steps (the schedule's
    #: ``cta_issue_per_warp``); None: none charged
    cta_issue_per_warp: float | None = None

    @property
    def is_project_kernel(self) -> bool:
        """Whether this is the class of the project's own CUDA kernels (flash2_tc/simt)."""
        return self.tile_copy == "cp.async" and self.producer_warps == 0 and self.product != "wgmma"

    def label(self) -> str:
        text = f"{self.product} {self.tile_copy} counts-{self.instruction_counts}"
        if self.producer_warps:
            text += f" producers{self.producer_warps}"
        if self.consumer_warpgroups:
            text += f" consumer-warpgroups{self.consumer_warpgroups}"
        if self.o_store != "staged":
            text += f" o-{self.o_store}"
        if self.step_issue_per_warp is not None:
            text += f" step-issue{self.step_issue_per_warp:g}"
        if self.cta_issue_per_warp is not None:
            text += f" cta-issue{self.cta_issue_per_warp:g}"
        return text


def default_product(dtype: str) -> str:
    """The project's kernel for ``dtype``: mma.sync for 16-bit storage, FFMA for fp32."""
    return "mma" if dtype in ("fp16", "bf16") else "ffma"


def check_class(product: str, dtype: str, schedule: Schedule) -> None:
    """A one-line :class:`GpusimError` where ``product`` cannot run ``schedule`` on ``dtype``."""
    if product not in PRODUCTS:
        raise GpusimError(f"--mma {product!r} is unknown; use one of {', '.join(PRODUCTS)}")
    if dtype not in PRODUCT_DTYPES[product]:
        takes = "/".join(PRODUCT_DTYPES[product])
        fit = [p for p in PRODUCTS if dtype in PRODUCT_DTYPES[p]]
        raise GpusimError(
            f"--mma {product} is impossible with {dtype} storage: it takes {takes} operands; "
            f"{dtype} uses --mma {'/'.join(fit)}"
        )
    if product == "wgmma":
        if schedule.warps % WARPGROUP_WARPS:
            raise GpusimError(
                f"--mma wgmma needs whole warpgroups of {WARPGROUP_WARPS} warps; "
                f"--warps {schedule.warps} is not a multiple of {WARPGROUP_WARPS}"
            )
        groups = schedule.warps // WARPGROUP_WARPS
        if schedule.block_m % (WGMMA_ROWS * groups):
            raise GpusimError(
                f"--mma wgmma: each of the {groups} consumer warpgroups takes a multiple of "
                f"{WGMMA_ROWS} query rows; --block-m {schedule.block_m} is not a multiple of "
                f"{WGMMA_ROWS * groups}"
            )
        if schedule.block_n % WGMMA_N_STEP or not WGMMA_N_STEP <= schedule.block_n <= WGMMA_MAX_N:
            raise GpusimError(
                f"--mma wgmma: --block-n {schedule.block_n} breaks wgmma's shape rule (N of "
                f"m64nNk16 is a multiple of {WGMMA_N_STEP} from {WGMMA_N_STEP} to {WGMMA_MAX_N})"
            )
    if schedule.tile_copy == "tma" and product == "ffma":
        raise GpusimError(
            "--tile-copy tma lands tiles for the tensor cores; --mma ffma uses cp.async or plain"
        )


def resolve_class(schedule: Schedule, dtype: str) -> KernelClass:
    """The schedule's class with the defaults filled in (checked: :func:`check_class`)."""
    product = schedule.mma or default_product(dtype)
    check_class(product, dtype, schedule)
    groups = schedule.warps // WARPGROUP_WARPS if product == "wgmma" else 0
    cls = KernelClass(
        product=product,
        tile_copy=schedule.tile_copy or "cp.async",
        producer_warps=schedule.producer_warps,
        consumer_warpgroups=groups,
        # The project's kernel of the class: flash3_wgmma.cu stores O from its accumulator
        # registers, flash2_tc.cu stages it through shared memory for 16-byte stores.
        o_store=schedule.o_store or ("fragments" if product == "wgmma" else "staged"),
        step_issue_per_warp=schedule.step_issue_per_warp,
        cta_issue_per_warp=schedule.cta_issue_per_warp,
    )
    # The fit describes the project's compiled loops only; every other class has formulas.
    counts = schedule.instruction_counts or ("sass-fit" if cls.is_project_kernel else "formulas")
    if counts == "sass-fit" and not cls.is_project_kernel:
        raise GpusimError(
            f"--instruction-counts sass-fit is a fit to the project's compiled kernels (mma or "
            f"ffma, cp.async, no producer warps); {cls.label()} has only the formulas"
        )
    return cls.model_copy(update={"instruction_counts": counts})
