"""Pick the FlashAttention-2 forward kernels to dump from libtorch_cuda.so's res-usage lines."""
import re, sys
WANT = {"flash_fwd_kernel": {(64, 128, 128, 4), (128, 128, 64, 4)},
        "flash_fwd_splitkv_kernel": {(64, 64, 256, 4), (128, 64, 128, 4)}}
names = sorted(set(re.findall(r"_ZN13pytorch_flash\w+", open(sys.argv[1]).read())))
out = []
for n in names:
    m = re.match(r"_ZN13pytorch_flash(\d+)", n)
    kind = n[len("_ZN13pytorch_flash") + len(m.group(1)):][: int(m.group(1))]
    if kind not in WANT or "10bfloat16_t" not in n:
        continue
    t = re.search(r"Flash_fwd_kernel_traitsILi(\d+)ELi(\d+)ELi(\d+)ELi(\d+)E", n)
    if not t or tuple(map(int, t.groups())) not in WANT[kind]:
        continue
    tail = n.rsplit("19Flash_kernel_traitsI", 1)[-1]
    b = [int(x) for x in re.findall(r"Lb([01])E", tail)]
    if len(b) != 8:
        continue
    ok = (b[0] == 0 and b[2] == 0 and b[3] == 0 and b[5] == 1 and b[6] == 0 and b[7] == 0) \
        if kind == "flash_fwd_kernel" else \
        (b[1] == 0 and b[2] == 0 and b[4] == 1 and b[5] == 0 and b[6] == 1 and b[7] == 0)
    if ok:
        out.append(n)
if not out:  # the bool filter matched nothing: every instance of the wanted tiles, at most 24
    out = [n for n in names if re.search(r"Flash_fwd_kernel_traitsILi(64|128)E", n) and "10bfloat16_t" in n][:24]
print(",".join(out))
print(len(out), "picked of", len(names), file=sys.stderr)
