// What does the GPU charge per CTA, apart from the CTA's work? A grid of W waves of CTAs that
// do almost nothing (thread 0 writes one word), C CTAs per SM (forced by the dynamic shared
// memory asked for): the time's growth with W is what dispatching and retiring C CTAs on
// every SM costs, once per wave.
extern "C" __global__ void __launch_bounds__(128) cta_tick(float* __restrict__ out) {
    if (threadIdx.x == 0) out[blockIdx.x] = 1.0f;
}
