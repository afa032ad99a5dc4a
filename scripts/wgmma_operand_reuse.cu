// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How busy do a warpgroup's wgmmas keep the tensor pipe, by which operand two
// consecutive wgmma groups share? One CTA per SM, two math warpgroups, no
// TMA (operands stay in shared memory, bytes like quantized normals); per
// iteration each warpgroup issues two groups of 4 x m64n128k32 e4m3 (one
// 128-wide K block each), waits for each group and promotes it into its own
// accumulator with 64 FFMAs, as fgemm's and DeepGEMM's math loops do.
// 4.2 M MACs per CTA per iteration in every mode:
//   0  256x128: the two groups are two m64 row blocks (A differs, B shared)
//      -- fgemm's and DeepGEMM's 256x128 tiles
//   1  128x256: the two groups are two 128-column halves (A shared)
//   2  as 1 with A from registers (ldmatrix once, wgmma RS)
//   3  as 0 with A from registers (ldmatrix per group)
//   4  A and B both differ between the groups
//   5  as 0, each warpgroup its own 128 columns of B
//   6  A and B both the same in both groups
// Then modes 0 and 1 again with a ring: a third warpgroup streams 48 KB per
// iteration into three shared-memory stages by bulk copies on mbarriers, the
// math warpgroups wait for each stage and release it (the kernels' traffic
// and synchronization; their wgmmas still read the fixed operands). Then
// schedules 7 and 8 (kernel `overlap`: a warpgroup's next wgmmas queued while
// it promotes), without and with the ring.
// Measured (docs/PERF.md): on an H100 mode 1 kept the tensor pipe 98% busy
// and the other modes 74-76%; on an H200 every mode ran at 74-76%, mode 1
// too, and the ring cost modes 0 and 1 12-15% and 5-7% of their time;
// schedules 7 and 8 (below) 97% and 90% without the ring (H200).
// Times each with CUDA events at the clocks the power limit allows; under
// ncu, sm__pipe_tensor_cycles_active shows the tensor pipe's activity.
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
//        scripts/wgmma_operand_reuse.cu -o wgmma_operand_reuse
//   wgmma_operand_reuse [ITERS [ROUNDS]]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
// The 64 f32 registers of one m64n128 partial sum, as inline-asm operands
// and as the wgmma destination list.
#define ACCUMULATOR_OPERANDS                                                   \
  "+f"(t[0]), "+f"(t[1]), "+f"(t[2]), "+f"(t[3]), "+f"(t[4]), "+f"(t[5]),      \
      "+f"(t[6]), "+f"(t[7]), "+f"(t[8]), "+f"(t[9]), "+f"(t[10]),             \
      "+f"(t[11]), "+f"(t[12]), "+f"(t[13]), "+f"(t[14]), "+f"(t[15]),         \
      "+f"(t[16]), "+f"(t[17]), "+f"(t[18]), "+f"(t[19]), "+f"(t[20]),         \
      "+f"(t[21]), "+f"(t[22]), "+f"(t[23]), "+f"(t[24]), "+f"(t[25]),         \
      "+f"(t[26]), "+f"(t[27]), "+f"(t[28]), "+f"(t[29]), "+f"(t[30]),         \
      "+f"(t[31]), "+f"(t[32]), "+f"(t[33]), "+f"(t[34]), "+f"(t[35]),         \
      "+f"(t[36]), "+f"(t[37]), "+f"(t[38]), "+f"(t[39]), "+f"(t[40]),         \
      "+f"(t[41]), "+f"(t[42]), "+f"(t[43]), "+f"(t[44]), "+f"(t[45]),         \
      "+f"(t[46]), "+f"(t[47]), "+f"(t[48]), "+f"(t[49]), "+f"(t[50]),         \
      "+f"(t[51]), "+f"(t[52]), "+f"(t[53]), "+f"(t[54]), "+f"(t[55]),         \
      "+f"(t[56]), "+f"(t[57]), "+f"(t[58]), "+f"(t[59]), "+f"(t[60]),         \
      "+f"(t[61]), "+f"(t[62]), "+f"(t[63])
#define ACCUMULATOR_REGISTERS                                                  \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "    \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, "     \
  "%30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "     \
  "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, "     \
  "%58, %59, %60, %61, %62, %63}"
__device__ __forceinline__ uint64_t desc(uint32_t addr) {
  // K-major, 128-byte swizzle: start >> 4, LBO 1, SBO 1024 >> 4, layout 1
  // (SW128) in bits 62-63
  return uint64_t((addr >> 4) & 0x3fff) | (uint64_t(1) << 16) |
         (uint64_t(64) << 32) | (uint64_t(1) << 62);
}
__device__ __forceinline__ void ss(float *t, uint64_t a, uint64_t b,
                                   int scaled) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3."
               "e4m3 " ACCUMULATOR_REGISTERS ", %64, %65, p, 1, 1;\n}\n"
               : ACCUMULATOR_OPERANDS
               : "l"(a), "l"(b), "r"(scaled));
}
__device__ __forceinline__ void rs(float *t, const uint32_t *a, uint64_t b,
                                   int scaled) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3."
      "e4m3 " ACCUMULATOR_REGISTERS ", {%64, %65, %66, %67}, %68, p, 1, 1;\n}\n"
      : ACCUMULATOR_OPERANDS
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(scaled));
}
__device__ __forceinline__ void wgmmaFence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void commit_wait(float *t) {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n"
               : ACCUMULATOR_OPERANDS::"memory");
}
// Waits until at most `N` committed groups are in flight, the one that
// accumulates into t not among them.
template <int N>
__device__ __forceinline__ void wait_until(float *t) {
  asm volatile("wgmma.wait_group.sync.aligned %64;\n"
               : ACCUMULATOR_OPERANDS
               : "n"(N)
               : "memory");
}
__device__ __forceinline__ void ldsm(uint32_t *a, uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, "
               "[%4];\n"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(addr));
}
// The ring's mbarriers (RING = true), CTA scope.
__device__ __forceinline__ void mbarInit(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar),
               "r"(count));
}
__device__ __forceinline__ void mbarWait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
  do
    asm volatile("{\n.reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(bar), "r"(parity)
                 : "memory");
  while (!done);
}
__device__ __forceinline__ void mbarArrive(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar)
               : "memory");
}
// Announces `bytes` and copies them from global memory into shared memory
// with one bulk copy completing on `bar` (the producer's TMA traffic).
__device__ __forceinline__ void bulkLoad(uint32_t dst, const void *src,
                                         uint32_t bytes, uint32_t bar) {
  asm volatile(
      "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::"
               "bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}
// With RING, a third warpgroup's thread streams 48 KB per iteration (what a
// 256x128 or 128x256 K block loads) from global memory into a 3-stage ring,
// and the math warpgroups wait for each stage and release it as the kernels
// do, while their wgmmas still read the fixed operands.
constexpr uint32_t kRingStages = 3, kStageBytes = 49152, kRingOffset = 66560,
                   kBarrierOffset = kRingOffset + kRingStages * kStageBytes,
                   kRingSmemBytes = kBarrierOffset + 2 * kRingStages * 8,
                   kSmemBytes = 65536 + 256;
// A fragment address of lane `lane` of warp `warp` for rows row0.. (64 rows per
// warpgroup, 16 per warp), K step ks
__device__ __forceinline__ uint32_t fragAddr(uint32_t base, int row0, int warp,
                                             int lane, int ks) {
  int r = row0 + 16 * warp + ((lane >> 3) & 1) * 8 + (lane & 7);
  int chunk = 2 * ks + (lane >> 4);
  return base + r * 128 + ((chunk ^ (r & 7)) << 4);
}
// Fills the fixed operands: 64 KB of e4m3 bytes like quantized normals
// (exponent field 8..14, any sign and mantissa), then 64 scales.
__device__ void fillOperands(uint8_t *smem) {
  uint32_t *words = reinterpret_cast<uint32_t *>(smem);
  for (int i = threadIdx.x; i < 16384; i += blockDim.x) {
    uint32_t h = (i + 1) * 2654435761u ^ (blockIdx.x * 97u), w = 0;
    for (int b = 0; b < 4; ++b) {
      h = h * 1664525u + 1013904223u;
      uint32_t e = 8 + (h >> 24) % 7, s = (h >> 12) & 1, m = (h >> 16) & 7;
      w |= ((s << 7) | (e << 3) | m) << (8 * b);
    }
    words[i] = w;
  }
  float *scales = reinterpret_cast<float *>(smem + 65536);
  if (threadIdx.x < 64)
    scales[threadIdx.x] = 1.0f + threadIdx.x * 1e-3f;
}
__device__ __forceinline__ uint32_t fullBarrier(uint32_t base, int it) {
  return base + kBarrierOffset + 8 * (it % kRingStages);
}
__device__ __forceinline__ uint32_t emptyBarrier(uint32_t base, int it) {
  return base + kBarrierOffset + 8 * (kRingStages + it % kRingStages);
}
// Fills the operands and, with the ring, initializes its barriers (one
// arrival per math warp on `empty`).
__device__ void setUp(uint8_t *smem, uint32_t base, bool ring,
                      uint32_t mathWarps) {
  fillOperands(smem);
  if (ring && threadIdx.x == 0) {
    for (int stage = 0; stage < int(kRingStages); ++stage) {
      mbarInit(fullBarrier(base, stage), 1);
      mbarInit(emptyBarrier(base, stage), mathWarps);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
}
// The ring's producer: one thread streams `bytes` per iteration.
__device__ void produce(uint32_t base, int iters, const uint8_t *source,
                        int chunks, uint32_t bytes) {
  for (int it = 0; it < iters; ++it) {
    mbarWait(emptyBarrier(base, it), ((it / kRingStages) & 1) ^ 1);
    size_t chunk = (size_t(blockIdx.x) + size_t(it) * gridDim.x) % chunks;
    bulkLoad(base + kRingOffset + (it % kRingStages) * kStageBytes,
             source + chunk * kStageBytes, bytes, fullBarrier(base, it));
  }
}
template <int MODE, bool RING>
__global__ void __launch_bounds__(RING ? 384 : 256, 1)
    loop(int iters, float *out, const uint8_t *source, int chunks) {
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const float *scales = reinterpret_cast<const float *>(smem + 65536);
  setUp(smem, base, RING, 8);
  auto full = [&](int it) { return fullBarrier(base, it); };
  auto empty = [&](int it) { return emptyBarrier(base, it); };
  // With the ring, registers move from the producer warpgroup to the math
  // warpgroups as in the kernels (168 each at entry for 384 threads).
  if (RING && threadIdx.x >= 256)
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
  else if (RING)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
  if (RING && threadIdx.x >= 256) {
    if (threadIdx.x == 256)
      produce(base, iters, source, chunks, kStageBytes);
    return;
  }
  const uint32_t baseA = base, baseB = base + 32768;
  const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4,
            lane = threadIdx.x % 32;
  float f[2][64], t[64];
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 64; ++i)
      f[h][i] = 0.f;
  uint32_t a[4][4];
  for (int it = 0; it < iters; ++it) {
    if (RING)
      mbarWait(full(it), (it / kRingStages) & 1);
    float s = scales[it & 63];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (MODE == 2 && h == 0) { // RS 128x256: one A fragment per K step, used
                                 // by both N halves
#pragma unroll
        for (int ks = 0; ks < 4; ++ks)
          ldsm(a[ks], fragAddr(baseA, 64 * wg, warp, lane, ks));
      }
      if (MODE == 3) { // RS 256x128: the m-half's own A fragment
#pragma unroll
        for (int ks = 0; ks < 4; ++ks)
          ldsm(a[ks], fragAddr(baseA, 128 * wg + 64 * h, warp, lane, ks));
      }
      wgmmaFence();
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        if (MODE ==
            0) // SS 256x128: rows 128 wg + 64 h, the same 128 columns of B
          ss(t, desc(baseA + (128 * wg + 64 * h) * 128 + 32 * ks),
             desc(baseB + 32 * ks), ks);
        else if (MODE == 1) // SS 128x256: rows 64 wg, columns 128 h of B
          ss(t, desc(baseA + 64 * wg * 128 + 32 * ks),
             desc(baseB + 128 * h * 128 + 32 * ks), ks);
        else if (MODE == 2)
          rs(t, a[ks], desc(baseB + 128 * h * 128 + 32 * ks), ks);
        else if (MODE == 4) // SS, A rows differ per half (64 wg + 128 h) and B
                            // columns differ per half
          ss(t, desc(baseA + (64 * wg + 128 * h) * 128 + 32 * ks),
             desc(baseB + 128 * h * 128 + 32 * ks), ks);
        else if (MODE ==
                 5) // SS 256x128 but each warpgroup its own B columns (128 wg)
          ss(t, desc(baseA + (128 * wg + 64 * h) * 128 + 32 * ks),
             desc(baseB + 128 * wg * 128 + 32 * ks), ks);
        else if (MODE == 6) // SS, same A and same B in both halves
          ss(t, desc(baseA + 64 * wg * 128 + 32 * ks), desc(baseB + 32 * ks),
             ks);
        else if (MODE == 3)
          rs(t, a[ks], desc(baseB + 32 * ks), ks);
      }
      commit_wait(t);
      if (RING && h == 1 && lane == 0)
        mbarArrive(empty(it));
#pragma unroll
      for (int i = 0; i < 64; ++i)
        f[h][i] = fmaf(t[i], s, f[h][i]);
    }
  }
  float sum = 0.f;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 64; ++i)
      sum += f[h][i];
  out[blockIdx.x * 512 + threadIdx.x] = sum;
}
// Two schedules that keep a warpgroup's next wgmmas queued while it promotes
// (every math warpgroup owns 64 rows and all 128 columns of B):
//   7  192x128, three math warpgroups, one group per K block each (with the
//      ring 160 registers per math thread, 24 for the producer)
//   8  128x128, two math warpgroups with two partial sums each: K block k+1
//      is issued before block k is waited for and promoted
// The ring streams what the tile's K block loads (40 KB / 32 KB).
template <int SCHEDULE, bool RING>
__global__ void
__launch_bounds__((SCHEDULE == 7 ? 384 : 256) + (RING ? 128 : 0), 1)
    overlap(int iters, float *out, const uint8_t *source, int chunks) {
  constexpr int kMathThreads = SCHEDULE == 7 ? 384 : 256;
  extern __shared__ __align__(1024) uint8_t smem[];
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  const float *scales = reinterpret_cast<const float *>(smem + 65536);
  setUp(smem, base, RING, kMathThreads / 32);
  if (RING && threadIdx.x >= kMathThreads) {
    if (SCHEDULE == 7)
      asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n" ::: "memory");
    else
      asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    if (threadIdx.x == kMathThreads)
      produce(base, iters, source, chunks, SCHEDULE == 7 ? 40960 : 32768);
    return;
  }
  if (RING && SCHEDULE == 7)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 160;\n" ::: "memory");
  else if (RING)
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
  const int wg = threadIdx.x / 128, lane = threadIdx.x % 32;
  const uint32_t baseA = base + 64 * wg * 128, baseB = base + 32768;
  float f[64], ta[64], tb[64];
  for (int i = 0; i < 64; ++i)
    f[i] = 0.f;
  auto issue = [&](float *t, int it) {
    if (RING)
      mbarWait(fullBarrier(base, it), (it / kRingStages) & 1);
    wgmmaFence();
#pragma unroll
    for (int ks = 0; ks < 4; ++ks)
      ss(t, desc(baseA + 32 * ks), desc(baseB + 32 * ks), ks);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  };
  auto promote = [&](const float *t, int it) {
    if (RING && lane == 0)
      mbarArrive(emptyBarrier(base, it));
    float s = scales[it & 63];
#pragma unroll
    for (int i = 0; i < 64; ++i)
      f[i] = fmaf(t[i], s, f[i]);
  };
  if (SCHEDULE == 7) {
    for (int it = 0; it < iters; ++it) {
      issue(ta, it);
      wait_until<0>(ta);
      promote(ta, it);
    }
  } else {
    // Four K blocks per loop iteration, no group in flight across the back
    // edge: ptxas serializes the wgmmas (C7514) when a group stays in flight
    // across a loop's back edge while the other partial sum is read. iters is
    // a multiple of 4.
    for (int it = 0; it < iters; it += 4) {
      issue(ta, it);
      issue(tb, it + 1);
      wait_until<1>(ta);
      promote(ta, it);
      issue(ta, it + 2);
      wait_until<1>(tb);
      promote(tb, it + 1);
      issue(tb, it + 3);
      wait_until<1>(ta);
      promote(ta, it + 2);
      wait_until<0>(tb);
      promote(tb, it + 3);
    }
  }
  float sum = 0.f;
  for (int i = 0; i < 64; ++i)
    sum += f[i];
  out[blockIdx.x * 512 + threadIdx.x] = sum;
}
// Times one launch of `kernel` on `sms` CTAs with CUDA events.
template <typename Kernel>
float timeLaunch(Kernel kernel, int threads, uint32_t smemBytes, int iters,
                 int sms, float *out, const uint8_t *source, int chunks) {
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       smemBytes);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaEventRecord(e0);
  kernel<<<sms, threads, smemBytes>>>(iters, out, source, chunks);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float ms;
  cudaEventElapsedTime(&ms, e0, e1);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) {
    printf("error %s\n", cudaGetErrorString(err));
    exit(1);
  }
  return ms;
}
template <int MODE, bool RING = false>
float run(int iters, int sms, float *out, const uint8_t *source = nullptr,
          int chunks = 1) {
  return timeLaunch(loop<MODE, RING>, RING ? 384 : 256,
                    RING ? kRingSmemBytes : kSmemBytes, iters, sms, out, source,
                    chunks);
}
template <int SCHEDULE, bool RING = false>
float runOverlap(int iters, int sms, float *out,
                 const uint8_t *source = nullptr, int chunks = 1) {
  return timeLaunch(
      overlap<SCHEDULE, RING>, (SCHEDULE == 7 ? 384 : 256) + (RING ? 128 : 0),
      RING ? kRingSmemBytes : kSmemBytes, iters, sms, out, source, chunks);
}
int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 20000,
      rounds = argc > 2 ? atoi(argv[2]) : 3;
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float *out;
  cudaMalloc(&out, sms * 512 * sizeof(float));
  const char *names[7] = {"SS 256x128 (A once, B per m-half)",
                          "SS 128x256 (A per n-half, B once)",
                          "RS 128x256 (A by ldmatrix once)",
                          "RS 256x128 (A by ldmatrix per m-half)",
                          "SS A and B both change per half",
                          "SS 256x128, B per warpgroup",
                          "SS same A and B in both halves"};
  double macs = double(sms) * iters * 16 * 64.0 * 128 * 32;
  run<0>(iters / 10, sms, out);
  for (int r = 0; r < rounds; ++r)
    for (int m = 0; m < 7; ++m) {
      float ms = m == 0   ? run<0>(iters, sms, out)
                 : m == 1 ? run<1>(iters, sms, out)
                 : m == 2 ? run<2>(iters, sms, out)
                 : m == 3 ? run<3>(iters, sms, out)
                 : m == 4 ? run<4>(iters, sms, out)
                 : m == 5 ? run<5>(iters, sms, out)
                          : run<6>(iters, sms, out);
      printf("round %d mode %d %-40s %8.2f ms  %7.1f TFLOPS\n", r, m, names[m],
             ms, 2 * macs / ms / 1e9);
    }
  // Schedules 7 and 8: 12 and 8 wgmmas per CTA and iteration.
  const double wgmmaMacs = double(sms) * iters * 64.0 * 128 * 32;
  for (int r = 0; r < rounds; ++r) {
    float ms7 = runOverlap<7>(iters, sms, out),
          ms8 = runOverlap<8>(iters, sms, out);
    printf("round %d mode 7 %-40s %8.2f ms  %7.1f TFLOPS\n", r,
           "SS 192x128, three math warpgroups", ms7,
           2 * 12 * wgmmaMacs / ms7 / 1e9);
    printf("round %d mode 8 %-40s %8.2f ms  %7.1f TFLOPS\n", r,
           "SS 128x128, two partial sums", ms8, 2 * 8 * wgmmaMacs / ms8 / 1e9);
  }
  // Modes 0 and 1 again with the ring: 640 chunks of 48 KB (30 MB, mostly L2
  // hits, as the kernels' operands at M = 4096).
  const int chunks = 640;
  uint8_t *source;
  cudaMalloc(&source, size_t(chunks) * kStageBytes);
  cudaMemset(source, 0x3c, size_t(chunks) * kStageBytes);
  for (int r = 0; r < rounds; ++r)
    for (int m = 0; m < 2; ++m) {
      float ms = m == 0 ? run<0, true>(iters, sms, out, source, chunks)
                        : run<1, true>(iters, sms, out, source, chunks);
      printf("round %d mode %d %-40s %8.2f ms  %7.1f TFLOPS (with the ring)\n",
             r, m, names[m], ms, 2 * macs / ms / 1e9);
    }
  for (int r = 0; r < rounds; ++r) {
    float ms7 = runOverlap<7, true>(iters, sms, out, source, chunks),
          ms8 = runOverlap<8, true>(iters, sms, out, source, chunks);
    printf("round %d mode 7 %-40s %8.2f ms  %7.1f TFLOPS (with the ring)\n", r,
           "SS 192x128, three math warpgroups", ms7,
           2 * 12 * wgmmaMacs / ms7 / 1e9);
    printf("round %d mode 8 %-40s %8.2f ms  %7.1f TFLOPS (with the ring)\n", r,
           "SS 128x128, two partial sums", ms8, 2 * 8 * wgmmaMacs / ms8 / 1e9);
  }
  return 0;
}
