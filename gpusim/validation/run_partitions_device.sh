#!/usr/bin/env bash
# Issue 19's SM-partition set on the H200 in one device call (about 2-4 minutes):
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_partitions_device.sh [MANIFEST]",
#       carry=[".whl", ...], timeout_s=300)
#
# .whl holds the pydantic/simpy wheels the device image lacks (see the device README).
# Steps: the versions; nvcc builds the project's two kernel instances; every config of the
# committed manifest timed on its green-context partition and checked on a float64 sample
# (python -m gpusim.validation.partitions_device; resumable). Files under $OUT, none in a
# sub-folder: run.log provenance.json sweep.jsonl ptxas.json
set -u -o pipefail
: "${OUT:?OUT must name the folder whose files come back}"
T0=$(date +%s)
LIMIT_S=${PARTITIONS_LIMIT_S:-270}   # the whole script, inside the call's 300 s
left() { echo $((LIMIT_S - ($(date +%s) - T0))); }
export PYTHONUNBUFFERED=1
exec > >(tee -a "$OUT/run.log") 2>&1

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || { echo "wheels (.whl) did not install"; exit 1; }
export PYTHONPATH="$PWD:/tmp/site"
M=${1:-data/h200/2026-12-02_partitions/manifest_configs.json}  # a held-out set names its own
[ -f "$M" ] || { echo "no manifest at $M"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
python3 -c "import torch, cupy, cuda.bindings; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cupy', cupy.__version__, 'cuda-bindings', cuda.bindings.__version__)"
nvcc --version | tail -1
echo "=== measure ($(left)s left)"
python3 -m gpusim.validation.partitions_device --manifest "$M" --out "$OUT" \
  --cubin-dir /tmp/partitions_cubins --build-jobs 2 --budget-s $(($(left) - 75))
echo "=== measure: exit $?"
cp /tmp/partitions_cubins/ptxas.json "$OUT/" 2>/dev/null
echo "=== done in $(($(date +%s) - T0))s"
sleep 2  # let tee write the end of run.log before the files are collected
