// fp32 atomic adds into a buffer that stays in the L2, as a backward kernel adds its dQ
// blocks into an fp32 accumulator (FlashAttention-2's dq_accum): every SM adds into the same
// buffer, whose lines stay resident, so what limits the loop is the L2's atomic units, not DRAM.
// MODE 0: atomicAdd (compiled to RED.E.ADD.F32: the result is unused), a warp's 32 lanes on 32
// consecutive floats of one row (128 B). MODE 1: the same adds in the C-fragment layout of an
// m16n8 mma.sync accumulator as a kernel adds straight from its registers: a warp's lanes on
// 8 rows (ROW_FLOATS apart) x 4 floats two apart (lanes 4r..4r+3 on floats 2c of row r).
// MODE 2: plain 4-byte stores in MODE 0's pattern (what the model charges atomics as now).
// Each thread does ITERS passes of its warp's share of the buffer (grid-stride over chunks of
// 256 floats: 8 rows x 32 floats).
template <int MODE>
__global__ void __launch_bounds__(256) l2_atomics(float* __restrict__ buf,
                                                  unsigned long long floats, int iters,
                                                  float* __restrict__ out) {
    constexpr unsigned long long ROW_FLOATS = 128;  // a d128 accumulator's row
    const unsigned lane = threadIdx.x & 31u;
    const unsigned long long warp = ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const unsigned long long warps = ((unsigned long long)gridDim.x * blockDim.x) >> 5;
    const unsigned long long chunks = floats / 256ull;  // 8 rows x 32 floats each
    const float v = 1.0f + (float)(threadIdx.x & 7u) * 0.125f;
    for (int it = 0; it < iters; ++it) {
        for (unsigned long long c = warp; c < chunks; c += warps) {
            // chunk c covers rows 8*(c / 4) .. +7 and floats 32*(c % 4) .. +31 of each row
            const unsigned long long row0 = 8ull * (c / 4ull), col0 = 32ull * (c % 4ull);
#pragma unroll
            for (unsigned k = 0; k < 8; ++k) {
                unsigned long long idx;
                if (MODE == 1) {
                    // register k: rows row0 + lane/4, floats col0 + 4k-group: 2*(lane%4) + (k&1)
                    const unsigned long long col = col0 + 8ull * (k >> 1) + 2ull * (lane & 3u) + (k & 1u);
                    idx = (row0 + (lane >> 2)) * ROW_FLOATS + col;
                } else {
                    idx = (row0 + k) * ROW_FLOATS + col0 + lane;
                }
                if (idx < floats) {
                    if (MODE == 2) {
                        buf[idx] = v;
                    } else {
                        atomicAdd(buf + idx, v);
                    }
                }
            }
        }
    }
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

template __global__ void l2_atomics<0>(float*, unsigned long long, int, float*);
template __global__ void l2_atomics<1>(float*, unsigned long long, int, float*);
template __global__ void l2_atomics<2>(float*, unsigned long long, int, float*);
