// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Does compute-sanitizer racecheck model a hand-off between the CTAs of a
// cluster through an mbarrier? Rank 1 stores 2 KB into its shared memory,
// synchronizes its threads, and one thread arrives with release semantics at
// cluster scope on an mbarrier in rank 0's shared memory; rank 0 waits on it
// with acquire semantics and reads the 2 KB through distributed shared memory
// (the K-split combine's protocol). The same hand-off through a cluster
// barrier (barrier.cluster.arrive.release / wait.acquire) for comparison.
// Both are ordered by the PTX memory model; racecheck hazards reported on the
// first but not the second mean that racecheck does not model the first.
//   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a \
//        scripts/racecheck_cluster_handoff.cu -o racecheck_cluster_handoff
//   compute-sanitizer --tool racecheck racecheck_cluster_handoff mbarrier
//   compute-sanitizer --tool racecheck racecheck_cluster_handoff cluster
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
__device__ __forceinline__ uint32_t rankOf() {
  uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::
                   : "memory");
}
// The address of `local` in rank `rank`'s shared memory.
__device__ __forceinline__ uint32_t mapTo(uint32_t local, uint32_t rank) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(remote)
               : "r"(local), "r"(rank));
  return remote;
}
template <bool MBARRIER>
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
    handoff(float *out) {
  __shared__ __align__(16) float share[128 * 4];
  __shared__ __align__(8) uint64_t ready;
  const uint32_t rank = rankOf(), t = threadIdx.x;
  const uint32_t readyAddr =
      static_cast<uint32_t>(__cvta_generic_to_shared(&ready));
  const uint32_t shareAddr =
      static_cast<uint32_t>(__cvta_generic_to_shared(share));
  if (MBARRIER && t == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(readyAddr));
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  clusterSync(); // the barrier's initialization is visible to rank 1
  if (rank == 1) {
    for (int i = 0; i < 4; ++i)
      share[t * 4 + i] = float(t * 4 + i) + 0.5f;
    if (MBARRIER) {
      __syncthreads();
      if (t == 0)
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 "
                     "_, [%0];\n" ::"r"(mapTo(readyAddr, 0))
                     : "memory");
    }
  }
  if (!MBARRIER)
    clusterSync();
  if (rank == 0) {
    if (MBARRIER) {
      uint32_t done = 0;
      do
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta."
                     "b64 p, [%1], 0;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(readyAddr)
                     : "memory");
      while (!done);
    }
    float sum = 0.f;
    for (int i = 0; i < 4; ++i) {
      float v;
      asm volatile("ld.shared::cluster.f32 %0, [%1];\n"
                   : "=f"(v)
                   : "r"(mapTo(shareAddr + 4 * ((t * 4 + i + 4) % 512), 1))
                   : "memory");
      sum += v;
    }
    out[t] = sum;
  }
  clusterSync(); // rank 1's shared memory outlives rank 0's reads
}
int main(int argc, char **argv) {
  const bool mbarrier = argc < 2 || strcmp(argv[1], "cluster") != 0;
  float *out;
  cudaMalloc(&out, 128 * sizeof(float));
  if (mbarrier)
    handoff<true><<<2, 128>>>(out);
  else
    handoff<false><<<2, 128>>>(out);
  float host[128];
  cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
  int wrong = 0;
  for (int t = 0; t < 128; ++t) {
    float expected = 0.f;
    for (int i = 0; i < 4; ++i)
      expected += float((t * 4 + i + 4) % 512) + 0.5f;
    wrong += host[t] != expected;
  }
  cudaError_t err = cudaGetLastError();
  printf("%s hand-off: %s, %d wrong sums\n",
         mbarrier ? "mbarrier" : "cluster barrier",
         err == cudaSuccess ? "ran" : cudaGetErrorString(err), wrong);
  return err != cudaSuccess || wrong != 0;
}
