#!/usr/bin/env bash
# One device call (under a minute): the SASS of PyTorch's FlashAttention-2 backward kernels
# (the 20 torch_bwd_sass_pick names) from libtorch_cuda.so, for the SM core model's binary
# replay (gpusim simulate --pass bwd --cubin FILE --kernel NAME). No wheels needed.
#
#   run(command="GPUSIM_COMMIT=<sha> bash gpusim/validation/run_torch_bwd_sass_device.sh")
#
# Files under $OUT: run.log, env.txt, torch_flash_bwd.sass.gz, res_usage_bwd.txt.
set -u -o pipefail
LIMIT_S=${BWD_SASS_LIMIT_S:-200}
. gpusim/validation/device_steps.sh
LIB=$(python3 -c "import torch,os;print(os.path.join(os.path.dirname(torch.__file__),'lib','libtorch_cuda.so'))")
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
{ echo "lib=$LIB"; python3 -c "import torch;print('torch',torch.__version__,'cuda',torch.version.cuda)"
  $CO --version | tail -2; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  ls -l "$LIB"; sha256sum "$LIB"; date -u +%FT%TZ; echo "commit=${GPUSIM_COMMIT:-}"; } > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"
RES=data/h200/2026-12-02_torch_flash_sass/flash_res_usage.txt
W=$(python3 -m gpusim.validation.torch_bwd_sass_pick $RES) || { echo "no names picked"; exit 1; }
step sass timeout 150 bash -c "$CO -sass -arch sm_90 -fun '$W' '$LIB' 2>/tmp/warn.txt | gzip -9 > '$OUT/torch_flash_bwd.sass.gz'"
grep -A1 "dq_dk_dv_loop_seqk" $RES > "$OUT/res_usage_bwd.txt"
sort /tmp/warn.txt | uniq -c | head -20
zcat "$OUT/torch_flash_bwd.sass.gz" | grep -c "Function :" 
echo "=== done in $(($(date +%s) - T0))s"
sleep 1
