#!/bin/bash
# One device call: the SASS of PyTorch's FlashAttention-2 forward kernels from libtorch_cuda.so.
set -u
T0=$(date +%s)
LIB=$(python3 -c "import torch,os;print(os.path.join(os.path.dirname(torch.__file__),'lib','libtorch_cuda.so'))")
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
export PATH=$(dirname $CO):$PATH
{ echo "lib=$LIB"; python3 -c "import torch;print('torch',torch.__version__,'cuda',torch.version.cuda,'cudnn',torch.backends.cudnn.version())";
  $CO --version | tail -2; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ls -l $LIB;
  date -u +%FT%TZ; } > $OUT/env.txt 2>&1
cat $OUT/env.txt
for A in sm_90 sm_90a; do
  $CO -res-usage -arch $A $LIB 2>/dev/null | grep -A1 'Function _ZN13pytorch_flash' > $OUT/flash_res_usage.txt
  if [ -s $OUT/flash_res_usage.txt ]; then echo "arch=$A" >> $OUT/env.txt; break; fi
done
echo "res-usage done $(( $(date +%s) - T0 )) s; $(grep -c Function $OUT/flash_res_usage.txt) flash functions ($A)"
W=$(python3 pick.py $OUT/flash_res_usage.txt)
if [ -n "$W" ]; then
  $CO -sass -arch $A -fun "$W" $LIB 2>/tmp/sass_warn.txt | gzip -9 > $OUT/torch_flash_fwd.sass.gz
fi
sort /tmp/sass_warn.txt 2>/dev/null | uniq -c | head -40 > $OUT/sass_warnings.txt
CO=$CO GPUSIM_COMMIT=${GPUSIM_COMMIT:-} python3 prov.py $LIB $A $OUT/provenance.json || echo prov failed
echo "sass done $(( $(date +%s) - T0 )) s"; ls -l $OUT
timeout 40 python3 triton_attn.py $OUT/triton_attn_fwd.cubin || echo "triton failed"
echo "all done $(( $(date +%s) - T0 )) s"
