#!/bin/bash
# One device call: the wgmma microbenchmark (gpusim/calibrate/wgmma.py) on the H200.
set -o pipefail
S=$PWD/.stage/wgmma_rates
nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv > $OUT/smi_start.txt 2>&1
{ nvcc --version | tail -2; python3 -c 'import cupy, sys; print("cupy", cupy.__version__, "python", sys.version.split()[0]); print("cuda runtime", cupy.cuda.runtime.runtimeGetVersion(), "driver", cupy.cuda.runtime.driverGetVersion())'; } > $OUT/versions.txt 2>&1
python3 - <<PY > $OUT/provenance.json
import json, datetime, subprocess, sys, cupy
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip().split(", ")
print(json.dumps({"provenance": {"date_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
  "git_commit": open("$S/COMMIT").read().strip()[:7], "python": sys.version.split()[0], "gpu_name": smi[0],
  "driver_version": smi[1], "cupy_version": cupy.__version__, "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
  "cubin": "nvcc 13.0 -gencode=arch=compute_90a,code=sm_90a -cubin -std=c++17 of gpusim/calibrate/kernels/wgmma.cu (built before the run, carried)",
  "command": "python3 -m gpusim.calibrate.wgmma --cubin wgmma.cubin --out \$OUT/wgmma-h200.json"}}, indent=1))
PY
cd $S && PYTHONUNBUFFERED=1 timeout 400 python3 -m gpusim.calibrate.wgmma --cubin $S/wgmma.cubin --out $OUT/wgmma-h200.json 2>&1 | tee $OUT/wgmma.log
rc=$?
cuobjdump --dump-sass $S/wgmma.cubin > /tmp/sass.txt 2>&1
python3 - <<'PY' > $OUT/sass_summary.txt
import re, collections
fn=None; c=collections.defaultdict(collections.Counter)
for line in open('/tmp/sass.txt'):
    m=re.search(r'Function : (\S+)', line)
    if m: fn=m.group(1); continue
    m=re.search(r'/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)(\.[A-Z0-9_.]+)?', line)
    if fn and m: c[fn][m.group(1)]+=1
for fn in sorted(c):
    k=c[fn]; print(fn, 'HGMMA', k['HGMMA'], 'WARPGROUP', k['WARPGROUP'], 'MUFU', k['MUFU'], 'SHFL', k['SHFL'], 'LDL', k['LDL'], 'STL', k['STL'], 'total', sum(k.values()))
PY
gzip -c /tmp/sass.txt > $OUT/wgmma_sass.txt.gz
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv >> $OUT/smi_start.txt 2>&1
exit $rc
