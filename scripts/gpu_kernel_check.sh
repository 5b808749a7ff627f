#!/usr/bin/env bash
# One device call: correctness of every flash2 instance, then the benchmark sweep.
#
# Run on the GPU machine from the repository root, with the cubins built beforehand on any
# machine with nvcc (python -m gpusim.kernels.build build/kernels) and the wheels of the
# packages the image lacks in .whl/. Results land in $OUT (default: ./gpu_out).
#   GPUSIM_COMMIT=<sha> bash scripts/gpu_kernel_check.sh [bench args...]
set -uo pipefail
OUT=${OUT:-gpu_out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site:$PWD
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw \
  --format=csv | tee "$OUT/nvidia_smi_before.csv"
CHECK_S=${CHECK_S:-200}
BENCH_S=${BENCH_S:-330}
timeout "$CHECK_S" python3 scripts/gpu_kernel_check.py --cubin-dir build/kernels \
  --out "$OUT/correctness.json" 2>&1 | tee "$OUT/correctness.log"
echo "correctness exit: ${PIPESTATUS[0]}"
if command -v cuobjdump >/dev/null; then
  for k in tc_bf16_d128_m128_n64_w4_s2 simt_fp32_d128_m64_n64_w8_s2; do
    echo "== $k"
    cuobjdump --dump-sass "build/kernels/$k.cubin" | grep -oE '(HMMA|LDSM|LDGSTS|LDL|STL)[.A-Z0-9_]*' | sort | uniq -c
  done > "$OUT/sass_on_device.txt"
fi
timeout "$BENCH_S" python3 scripts/bench_kernels.py --cubin-dir build/kernels \
  --out "$OUT/bench.json" "$@" 2>&1 | tee "$OUT/bench.log"
echo "bench exit: ${PIPESTATUS[0]}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw \
  --format=csv | tee "$OUT/nvidia_smi_after.csv"
