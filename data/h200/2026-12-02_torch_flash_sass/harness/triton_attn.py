"""A small Triton FlashAttention forward (one K/V loop), compiled and run once; its cubin saved."""
import sys, torch, triton, triton.language as tl

@triton.jit
def attn_fwd(Q, K, V, O, N, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0); base = tl.program_id(1) * N * D
    om = pid * BM + tl.arange(0, BM); on = tl.arange(0, BN); od = tl.arange(0, D)
    q = tl.load(Q + base + om[:, None] * D + od[None, :])
    m = tl.full([BM], -float("inf"), tl.float32); l = tl.zeros([BM], tl.float32)
    acc = tl.zeros([BM, D], tl.float32)
    for s0 in range(0, N, BN):
        k = tl.load(K + base + (s0 + on)[None, :] * D + od[:, None])
        s = tl.dot(q, k) * scale
        mn = tl.maximum(m, tl.max(s, 1)); p = tl.exp2(s - mn[:, None]); a = tl.exp2(m - mn)
        l = l * a + tl.sum(p, 1); acc = acc * a[:, None]
        v = tl.load(V + base + (s0 + on)[:, None] * D + od[None, :])
        acc = tl.dot(p.to(tl.bfloat16), v, acc); m = mn
    tl.store(O + base + om[:, None] * D + od[None, :], (acc / l[:, None]).to(tl.bfloat16))

B, H, N, D = 1, 4, 1024, 64
q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
o = torch.full_like(q, float("nan"))
ck = attn_fwd[(N // 128, B * H)](q, k, v, o, N, 0.125 * 1.4426950408889634, D=D, BM=128, BN=64, num_warps=4, num_stages=2)
ref = torch.softmax((q.float() @ k.float().transpose(-1, -2)) * 0.125, -1) @ v.float()
print("triton", triton.__version__, "max_abs_err", (o.float() - ref).abs().max().item(), "name", ck.name, "regs", ck.n_regs, "smem", ck.metadata.shared)
open(sys.argv[1], "wb").write(ck.asm["cubin"])
