# Shared by the device scripts of this folder (run_*_device.sh): source it after setting
# LIMIT_S (the script's seconds, inside the device call's limit). It needs $OUT (the folder
# whose files come back) and gives:
#   left          seconds of LIMIT_S still left;
#   step NAME CMD run CMD, log its exit code and seconds, never abort the script;
#   device_info   the GPU, its clocks, torch, CuPy and nvcc versions into the log;
#   wheels        install the carried .whl (pydantic, simpy) into /tmp/site and put it and
#                 the checkout on PYTHONPATH, or stop the script;
#   ncu_export NAME DIR [raw]  an ncu report's pages as CSV;
#   torch_fwd_ncu DIR B H HKV N D DTYPE CAUSAL
#                 PyTorch's flash forward kernel, one launch under Nsight Compute, its
#                 details page into DIR/b<B>h<H>_n<N>_d<D>_<DTYPE>_c<CAUSAL>.details.csv;
#   torch_fwd_stalls DIR
#                 PyTorch's flash forward under Nsight Compute with every warp-stall reason
#                 (details and raw pages), causal and not on the same short grids: what a
#                 short causal CTA waits on that an unmasked one does not (a diagnostic);
#   long_context_set MANIFEST SCRATCH
#                 a long-context set's steps: nvcc builds its instances, Nsight Compute counts
#                 the runs the manifest marks, every run is timed until the limit is near,
#                 ncu's CSVs and ptxas's report go to $OUT/extras.tar.gz;
# and sends everything the script prints to $OUT/run.log as well.
: "${OUT:?OUT must name the folder whose files come back}"
: "${LIMIT_S:?set LIMIT_S before sourcing device_steps.sh}"
T0=$(date +%s)
left() { echo $((LIMIT_S - ($(date +%s) - T0))); }
step() {
  local name=$1 t=$(date +%s) rc
  shift
  echo "=== $name (${SECONDS}s in, $(left)s left): $*"
  "$@"
  rc=$?
  echo "=== $name: exit $rc after $(($(date +%s) - t))s"
}
device_info() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv
  python3 -c "import torch, cupy; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'cupy', cupy.__version__)"
  nvcc --version | tail -1
}
wheels() {
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || { echo "wheels (.whl) did not install"; exit 1; }
  export PYTHONPATH="$PWD:/tmp/site"
}
long_context_set() {
  local m=$1 scratch=$2 lc="python3 -m gpusim.reporting.long_context"
  step build timeout 120 $lc build --manifest "$m" --cubin-dir "$scratch/cubins" --jobs 16
  step ncu timeout $(($(left) - 90)) $lc ncu --manifest "$m" --out "$OUT" \
    --scratch "$scratch/ncu" --cubin-dir "$scratch/cubins" --timeout-s $(($(left) - 100))
  step measure $lc measure --manifest "$m" --out "$OUT" --cubin-dir "$scratch/cubins" \
    --budget-s $(($(left) - 15))
  tar czf "$OUT/extras.tar.gz" -C "$scratch" --exclude='*.cubin' --exclude='*.ncu-rep' . \
    2>/dev/null
}
# ncu_export NAME DIR [raw]: /tmp/NAME.ncu-rep's details page (and its raw page with every
# metric instance, given "raw") as CSV into DIR, ncu's complaints into DIR/ncu_stderr.log.
ncu_export() {
  ncu -i "/tmp/$1.ncu-rep" --csv --page details > "$2/$1.details.csv" 2>>"$2/ncu_stderr.log"
  if [ "${3:-}" = raw ]; then
    ncu -i "/tmp/$1.ncu-rep" --csv --page raw --print-metric-instances values \
      > "$2/$1.raw.csv" 2>>"$2/ncu_stderr.log"
  fi
}
# torch_fwd_profile DIR SECONDS "SECTIONS" RAW B H HKV N D DTYPE CAUSAL: one launch of
# PyTorch's flash forward under Nsight Compute with those sections, exported into DIR (RAW
# "raw": the raw page too); what torch_fwd_ncu and torch_fwd_stalls run.
torch_fwd_profile() {
  local dir=$1 limit=$2 sections=$3 raw=$4 name s args=()
  shift 4
  name="b$1h$2_n$4_d$5_$6_c$7"
  for s in $sections; do args+=(--section "$s"); done
  step "ncu $name" timeout "$limit" ncu --clock-control none "${args[@]}" \
    --kernel-name regex:flash_fwd --launch-count 1 -o "/tmp/$name" -f \
    python3 -m gpusim.validation.torch_bwd_ncu --forward-only --run "$@"
  # shellcheck disable=SC2086
  ncu_export "$name" "$dir" $raw
}
torch_fwd_ncu() {
  local dir=$1
  shift
  torch_fwd_profile "$dir" 70 \
    "SpeedOfLight InstructionStats LaunchStats SchedulerStats WarpStateStats Occupancy" "" "$@"
}
export PYTHONUNBUFFERED=1
exec > >(tee -a "$OUT/run.log") 2>&1
torch_fwd_stalls() {
  local dir=$1 r
  mkdir -p "$dir"
  for r in "47 12 12 768 64 fp16 1" "47 12 12 768 64 fp16 0" \
           "85 32 32 384 128 bf16 1" "85 32 32 384 128 bf16 0"; do
    # shellcheck disable=SC2086
    torch_fwd_profile "$dir" 80 "SpeedOfLight InstructionStats SchedulerStats WarpStateStats \
Occupancy MemoryWorkloadAnalysis" raw $r
  done
}
