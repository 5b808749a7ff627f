"""provenance.json of the torch flash SASS extraction (read by gpusim.data.manifest)."""
import datetime, hashlib, json, os, platform, subprocess, sys
import torch
lib, arch, out = sys.argv[1], sys.argv[2], sys.argv[3]
h = hashlib.sha256()
with open(lib, "rb") as f:
    for b in iter(lambda: f.read(1 << 24), b""):
        h.update(b)
smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                     capture_output=True, text=True).stdout.strip()
co = subprocess.run([os.environ.get("CO", "cuobjdump"), "--version"], capture_output=True, text=True).stdout
prov = {"date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "git_commit": os.environ.get("GPUSIM_COMMIT"), "python": platform.python_version(),
        "gpu_name": smi.split(",")[0].strip(), "driver_version": smi.split(",")[-1].strip(),
        "torch_version": torch.__version__, "torch_cuda": torch.version.cuda,
        "cudnn_version": torch.backends.cudnn.version(), "library": lib,
        "library_bytes": os.path.getsize(lib), "library_sha256": h.hexdigest(), "sass_arch": arch,
        "cuobjdump_version": co.strip().splitlines()[-1] if co.strip() else None,
        "command": "bash extract.sh (cuobjdump -res-usage -arch ARCH LIB | grep pytorch_flash; "
                   "python3 pick.py; cuobjdump -sass -arch ARCH -fun PICKED LIB | gzip)"}
json.dump({"provenance": prov}, open(out, "w"), indent=1)
print(json.dumps(prov))
