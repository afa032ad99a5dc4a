// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Does handing out work as SMs ask for it finish a saturated operand stream
// sooner than whole tiles? The M <= 128 dense kernels are memory-bound: each
// CTA streams its tile's rows of B (N x K, K-major) and the shared rows of A
// by TMA, one 128-byte-wide box per K block, and in a plain grid some groups
// of SMs finish up to 25% before others (docs/PERF.md, thirty-second
// session). This streams the same boxes through a shared-memory ring (a
// producer thread and a consumer warp, no math) under four assignments:
//   tiles    one CTA per tile of ROWS rows, every K block (the plain grid)
//   equal    one CTA per SM, equal contiguous ranges of (tile, K block)
//   dynamic  one CTA per SM, chunks of C K blocks of a tile claimed from a
//            global counter as the producer needs them
//   wide     one CTA per tile of 2 x ROWS rows (half the CTAs)
// and times each with CUDA events after an L2 flush (median of ITERS).
//   nvcc -O2 -std=c++17 -arch=sm_90a scripts/stream_balance.cu \
//        -L/usr/local/cuda/lib64/stubs -lcuda -o stream_balance
//   stream_balance N K ROWS [ITERS]      e.g. 7168 16384 64
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x,                \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

constexpr int kStages = 12;
constexpr int kBoxBytes = 128; // one K block of e4m3

enum Mode { kTiles = 0, kEqual = 1, kDynamic = 2 };

struct Params {
  int mode, tiles, kBlocks, rows, chunk, stages;
  unsigned *counter;
  unsigned *sink;
};

__device__ __forceinline__ uint32_t smemAddr(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarInit(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)),
               "r"(count));
}
__device__ __forceinline__ void mbarWait(uint64_t *bar, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 "
               "p, [%0], %1;\n@!p bra W;\n}" ::"r"(smemAddr(bar)),
               "r"(parity));
}
__device__ __forceinline__ void mbarExpect(uint64_t *bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(
                   smemAddr(bar)),
               "r"(bytes));
}
__device__ __forceinline__ void mbarArrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddr(bar)));
}
__device__ __forceinline__ void tmaLoad(void *dst, const CUtensorMap *map,
                                        int x, int y, uint64_t *bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smemAddr(dst)),
      "l"(map), "r"(x), "r"(y), "r"(smemAddr(bar))
      : "memory");
}

__global__ void __launch_bounds__(64, 1)
    stream(const __grid_constant__ CUtensorMap mapA,
           const __grid_constant__ CUtensorMap mapB, Params p) {
  // The 128-byte swizzle wants 1024-byte aligned slots.
  extern __shared__ uint8_t dynamicSmem[];
  uint8_t *smem =
      dynamicSmem + ((1024 - (smemAddr(dynamicSmem) & 1023)) & 1023);
  const int stageBytes = 2 * p.rows * kBoxBytes;
  __shared__ uint64_t full[kStages], empty[kStages];
  __shared__ int endAt;
  if (threadIdx.x == 0) {
    endAt = -1;
    for (int s = 0; s < p.stages; ++s) {
      mbarInit(&full[s], 1);
      mbarInit(&empty[s], 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // Producer: the (tile, K block) units of its assignment, in order.
    int issued = 0;
    auto put = [&](int tile, int kb) {
      int s = issued % p.stages;
      mbarWait(&empty[s], ((issued / p.stages) & 1) ^ 1);
      mbarExpect(&full[s], stageBytes);
      uint8_t *a = smem + s * stageBytes;
      tmaLoad(a, &mapA, kb * kBoxBytes, 0, &full[s]);
      tmaLoad(a + p.rows * kBoxBytes, &mapB, kb * kBoxBytes, tile * p.rows,
              &full[s]);
      ++issued;
    };
    if (p.mode == kTiles) {
      for (int kb = 0; kb < p.kBlocks; ++kb)
        put(blockIdx.x, kb);
    } else if (p.mode == kEqual) {
      long units = long(p.tiles) * p.kBlocks;
      long first = units * blockIdx.x / gridDim.x;
      long last = units * (blockIdx.x + 1) / gridDim.x;
      for (long u = first; u < last; ++u)
        put(int(u / p.kBlocks), int(u % p.kBlocks));
    } else {
      int perTile = (p.kBlocks + p.chunk - 1) / p.chunk;
      unsigned chunks = unsigned(p.tiles) * perTile;
      for (unsigned c = atomicAdd(p.counter, 1u); c < chunks;
           c = atomicAdd(p.counter, 1u)) {
        int tile = int(c / perTile), kb0 = int(c % perTile) * p.chunk;
        for (int kb = kb0; kb < min(kb0 + p.chunk, p.kBlocks); ++kb)
          put(tile, kb);
      }
    }
    // The end: a plain arrival on the next slot's full barrier, endAt set.
    int s = issued % p.stages;
    mbarWait(&empty[s], ((issued / p.stages) & 1) ^ 1);
    endAt = issued;
    mbarArrive(&full[s]);
  } else if (threadIdx.x == 32) {
    // Consumer: reads a word of each stage and releases it.
    unsigned sum = 0;
    for (int i = 0;; ++i) {
      int s = i % p.stages;
      mbarWait(&full[s], (i / p.stages) & 1);
      if (*(volatile int *)&endAt == i)
        break;
      sum += *(const unsigned *)(smem + s * stageBytes) +
             *(const unsigned *)(smem + s * stageBytes + p.rows * kBoxBytes);
      mbarArrive(&empty[s]);
    }
    atomicAdd(p.sink, sum);
  }
}

static CUtensorMap map2d(void *base, uint64_t cols, uint64_t rows,
                         uint32_t boxRows) {
  CUtensorMap m;
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {cols};
  cuuint32_t box[2] = {uint32_t(kBoxBytes), boxRows};
  cuuint32_t es[2] = {1, 1};
  if (cuTensorMapEncodeTiled(
          &m, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, base, dims, strides, box, es,
          CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed\n");
    exit(1);
  }
  return m;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: stream_balance N K ROWS [ITERS]\n");
    return 2;
  }
  int n = atoi(argv[1]), k = atoi(argv[2]), rows = atoi(argv[3]);
  int iters = argc > 4 ? atoi(argv[4]) : 20;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  void *a, *b, *flush;
  unsigned *counter, *sink;
  size_t flushBytes = size_t(256) << 20;
  CK(cudaMalloc(&a, size_t(2 * rows) * k));
  CK(cudaMalloc(&b, size_t(n) * k));
  CK(cudaMalloc(&flush, flushBytes));
  CK(cudaMalloc(&counter, 4));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(a, 0x11, size_t(2 * rows) * k));
  CK(cudaMemset(b, 0x22, size_t(n) * k));
  int kBlocks = k / kBoxBytes;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  struct Run {
    const char *name;
    int mode, tileRows, chunk;
  };
  std::vector<Run> runs = {
      {"tiles", kTiles, rows, 0},        {"wide", kTiles, 2 * rows, 0},
      {"equal", kEqual, rows, 0},        {"dynamic-4", kDynamic, rows, 4},
      {"dynamic-8", kDynamic, rows, 8},  {"dynamic-16", kDynamic, rows, 16},
      {"dynamic-32", kDynamic, rows, 32}};
  double bytes = double(n) * k;
  printf("N %d K %d rows %d: B %.1f MB, %d SMs\n", n, k, rows, bytes / 1e6,
         sms);
  for (int round = 0; round < 2; ++round)
    for (const Run &r : runs) {
      CUtensorMap mapA = map2d(a, k, 2 * rows, r.tileRows);
      CUtensorMap mapB = map2d(b, k, n, r.tileRows);
      int tiles = n / r.tileRows;
      int grid = r.mode == kTiles ? tiles : sms;
      int stages =
          std::min(kStages, (192 << 10) / (2 * r.tileRows * kBoxBytes));
      int smemBytes = stages * 2 * r.tileRows * kBoxBytes + 1024;
      CK(cudaFuncSetAttribute(
          stream, cudaFuncAttributeMaxDynamicSharedMemorySize, smemBytes));
      Params p{r.mode,  tiles,  kBlocks, r.tileRows,
               r.chunk, stages, counter, sink};
      std::vector<float> ms;
      for (int it = 0; it < iters + 2; ++it) {
        CK(cudaMemsetAsync(flush, it, flushBytes));
        CK(cudaMemsetAsync(counter, 0, 4));
        CK(cudaEventRecord(e0));
        stream<<<grid, 64, smemBytes>>>(mapA, mapB, p);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        float t;
        CK(cudaEventElapsedTime(&t, e0, e1));
        if (it >= 2)
          ms.push_back(t);
      }
      std::sort(ms.begin(), ms.end());
      double us = ms[ms.size() / 2] * 1e3;
      printf("round %d %-11s grid %4d: median %7.1f us (min %7.1f), B at "
             "%.2f TB/s\n",
             round, r.name, grid, us, ms[0] * 1e3, bytes / us / 1e6);
    }
  return 0;
}
