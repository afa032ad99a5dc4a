// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Runs one DeepGEMM sm90_fp8_gemm_1d2d cubin made by
// scripts/deepgemm-kernels.sh on random e4m3 data with fgemm's tensor-map
// conventions (they are DeepGEMM's: A [M, K] and B [N, K] K-major with 128-byte
// swizzle, SFA MN-major, SFB [ceil(N/128), ceil(K/128)], D bf16 [M, N]), times
// ITERS launches with CUDA events (median; for kernel-only durations run it
// under ncu) and checks 200 sampled elements of D against a CPU product (error
// / RMS of the reference). Needs only libcuda:
//   g++ -O2 -std=c++17 -I/usr/local/cuda/include scripts/deepgemm_launch.cpp
//       -o deepgemm_launch -L/usr/local/cuda/lib64/stubs -lcuda
//   deepgemm_launch CUBIN NAMEFILE M N K BM BN THREADS SMS CLUSTER [ITERS]
// THREADS = 128 + 128 x math warpgroups (BM 64: 256, else 384); SMS = the
// kernel's compiled SM count (132); CLUSTER = 1 or 2. The operands are random
// e4m3 bytes of moderate exponent, or with DGL_DATA=normal quantized normals
// as fgemm-bench and DeepGEMM's tests draw them: the tensor cores' power, and
// so the clock under the power limit, depends on the bits (DeepGEMM's 256x128
// kernel ran 2% faster on the normals; docs/PERF.md, thirty-second session).
// DGL_TIMELINE=FILE writes a stamped kernel's per-CTA timeline (writeTimeline).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    CUresult r_ = (x);                                                         \
    if (r_ != CUDA_SUCCESS) {                                                  \
      const char *s_ = nullptr;                                                \
      cuGetErrorString(r_, &s_);                                               \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);           \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

static float e4m3(uint8_t v) {
  int s = v >> 7, e = (v >> 3) & 15, m = v & 7;
  float f = e == 0 ? std::ldexp(m / 8.0f, -6) : std::ldexp(1 + m / 8.0f, e - 7);
  return s ? -f : f;
}
static float bf16(uint16_t v) {
  uint32_t u = uint32_t(v) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static CUtensorMap map2d(CUdeviceptr p, CUtensorMapDataType t, int esz,
                         uint64_t inner, uint64_t outer, uint64_t strideElems,
                         uint32_t boxIn, uint32_t boxOut,
                         CUtensorMapSwizzle sw) {
  CUtensorMap m;
  cuuint64_t dims[2] = {inner, outer};
  cuuint64_t strides[1] = {strideElems * esz};
  cuuint32_t box[2] = {boxIn, boxOut};
  cuuint32_t es[2] = {1, 1};
  CK(cuTensorMapEncodeTiled(&m, t, 2, (void *)p, dims, strides, box, es,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return m;
}

// DGL_TIMELINE=FILE: a cubin whose kernel stamps %globaltimer into the global
// u64 dg_tl[132 x 4 x 64] (row cta * 4 + role: role 0 the producer, 1 + w
// math warpgroup w; slot 0 entry, 63 exit, 1 + 3t / 2 + 3t / 3 + 3t tile t's
// start, K loop end and end) runs once more, and its stamps go to FILE in
// fgemm-bench --timeline's CSV (docs/TIMELINE.md: start -> slot 2 + 4t, K loop
// end -> 4 + 4t, end -> 5 + 4t, tiles t < 15), so scripts/timeline_summary.py
// reads both kernels alike. The L2 is flushed first (a 256 MiB memset), as
// fgemm-bench does before its timeline launch: the timed launches leave the
// operands in L2 and the first tile's loads would land early. The stamps are a
// patch to DeepGEMM's kernel made where it is built (docs/TIMELINE.md); none is
// in this repository.
static void writeTimeline(const char *path, CUmodule mod,
                          const CUlaunchConfig &cfg, CUfunction fn,
                          void **params, uint32_t M, uint32_t N, uint32_t K) {
  CUdeviceptr stamps;
  size_t bytes;
  CK(cuModuleGetGlobal(&stamps, &bytes, mod, "dg_tl"));
  CK(cuMemsetD8(stamps, 0, bytes));
  CUdeviceptr flush;
  const size_t flushBytes = size_t(256) << 20;
  CK(cuMemAlloc(&flush, flushBytes));
  CK(cuMemsetD8(flush, 0, flushBytes));
  CK(cuLaunchKernelEx(&cfg, fn, params, nullptr));
  CK(cuCtxSynchronize());
  CK(cuMemFree(flush));
  std::vector<unsigned long long> host(bytes / 8);
  CK(cuMemcpyDtoH(host.data(), stamps, bytes));
  unsigned long long first = ~0ull;
  for (auto v : host)
    if (v && v < first)
      first = v;
  FILE *out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "deepgemm_launch: cannot write %s\n", path);
    exit(1);
  }
  fprintf(out, "shape,cta,role,slot,ns\n");
  // fgemm's slots: 0 entry, 1 exit, 2 + 4t start, 4 + 4t first wgmmas (here
  // the K loop's end), 5 + 4t end.
  const size_t fromMark[3] = {0, 2, 3};
  for (size_t i = 0; i < host.size(); ++i) {
    size_t slot = i % 64, fgemmSlot;
    if (!host[i])
      continue;
    if (slot == 0 || slot == 63) {
      fgemmSlot = slot == 0 ? 0 : 1;
    } else {
      size_t tile = (slot - 1) / 3;
      if (tile >= 15)
        continue;
      fgemmSlot = 2 + 4 * tile + fromMark[(slot - 1) % 3];
    }
    fprintf(out, "%ux%ux%u,%zu,%zu,%zu,%llu\n", M, N, K, i / 256, (i / 64) % 4,
            fgemmSlot, host[i] - first);
  }
  fclose(out);
}

int main(int argc, char **argv) {
  if (argc < 11) {
    fprintf(stderr, "usage: deepgemm_launch CUBIN NAMEFILE M N K BM BN THREADS "
                    "SMS CLUSTER [ITERS]\n");
    return 2;
  }
  std::string cubin = argv[1];
  std::ifstream nf(argv[2]);
  std::string name;
  std::getline(nf, name);
  uint32_t M = atoi(argv[3]), N = atoi(argv[4]), K = atoi(argv[5]);
  uint32_t BM = atoi(argv[6]), BN = atoi(argv[7]), threads = atoi(argv[8]);
  uint32_t sms = atoi(argv[9]), cluster = atoi(argv[10]);
  int iters = argc > 11 ? atoi(argv[11]) : 20;
  CK(cuInit(0));
  CUdevice dev;
  CK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CK(cuDevicePrimaryCtxRetain(&ctx, dev));
  CK(cuCtxSetCurrent(ctx));
  CUmodule mod;
  CK(cuModuleLoad(&mod, cubin.c_str()));
  CUfunction fn;
  CK(cuModuleGetFunction(&fn, mod, name.c_str()));
  int smem = 232448;
  CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        smem));

  uint32_t kb = (K + 127) / 128, nb = (N + 127) / 128;
  uint32_t Ma = (M + 3) / 4 * 4; // TMA-aligned MN-major scale rows
  std::mt19937 rng(1234);
  std::vector<uint8_t> a(size_t(M) * K), b(size_t(N) * K);
  auto gen = [&]() {
    uint8_t s = rng() & 1, e = 4 + rng() % 6, m = rng() & 7;
    return uint8_t(s << 7 | e << 3 | m);
  };
  for (auto &x : a)
    x = gen();
  for (auto &x : b)
    x = gen();
  // DGL_DATA=normal: standard normal values quantized per 128 consecutive
  // elements with amax -> 448 (fgemm-bench's and DeepGEMM's test data; the
  // tensor cores' power depends on the operands' bits).
  if (const char *data = getenv("DGL_DATA"); data && !strcmp(data, "normal")) {
    std::vector<std::pair<float, uint8_t>> codes;
    for (int c = 0; c < 127; ++c)
      codes.push_back({e4m3(uint8_t(c)), uint8_t(c)});
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float> x(128);
    for (auto *v : {&a, &b})
      for (size_t base = 0; base < v->size(); base += 128) {
        size_t n = std::min<size_t>(128, v->size() - base);
        float amax = 1e-20f;
        for (size_t i = 0; i < n; ++i)
          amax = std::max(amax, std::fabs(x[i] = g(rng)));
        for (size_t i = 0; i < n; ++i) {
          float y = std::fabs(x[i]) * 448.0f / amax;
          auto it = std::lower_bound(
              codes.begin(), codes.end(), y,
              [](const auto &c, float y) { return c.first < y; });
          if (it == codes.end() ||
              (it != codes.begin() && y - (it - 1)->first < it->first - y))
            --it;
          (*v)[base + i] = uint8_t(it->second | (x[i] < 0 ? 0x80 : 0));
        }
      }
  }
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::vector<float> sfa(size_t(Ma) * kb), sfb(size_t(nb) * kb);
  for (auto &x : sfa)
    x = u(rng);
  for (auto &x : sfb)
    x = u(rng);
  CUdeviceptr da, db, dsfa, dsfb, dd;
  CK(cuMemAlloc(&da, a.size()));
  CK(cuMemAlloc(&db, b.size()));
  CK(cuMemAlloc(&dsfa, sfa.size() * 4));
  CK(cuMemAlloc(&dsfb, sfb.size() * 4));
  CK(cuMemAlloc(&dd, size_t(M) * N * 2));
  CK(cuMemcpyHtoD(da, a.data(), a.size()));
  CK(cuMemcpyHtoD(db, b.data(), b.size()));
  CK(cuMemcpyHtoD(dsfa, sfa.data(), sfa.size() * 4));
  CK(cuMemcpyHtoD(dsfb, sfb.data(), sfb.size() * 4));
  CK(cuMemsetD8(dd, 0xff, size_t(M) * N * 2)); // NaN poison

  CUtensorMap ta = map2d(da, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, K, M, K, 128, BM,
                         CU_TENSOR_MAP_SWIZZLE_128B);
  CUtensorMap tb = map2d(db, CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, K, N, K, 128, BN,
                         CU_TENSOR_MAP_SWIZZLE_128B);
  uint32_t sdBytes = std::min(128u, BN * 2);
  CUtensorMap td =
      map2d(dd, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, N, M, N, sdBytes / 2, BM,
            sdBytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
            : sdBytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                            : CU_TENSOR_MAP_SWIZZLE_32B);
  CUtensorMap tsfa = map2d(dsfa, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, Ma, kb, Ma,
                           BM, 1, CU_TENSOR_MAP_SWIZZLE_NONE);
  CUdeviceptr grouped = 0;
  void *params[] = {&dsfb, &grouped, &M, &N, &K, &ta, &tb, &td, &tsfa};

  CUlaunchConfig cfg = {};
  cfg.gridDimX = sms;
  cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = threads;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = smem;
  // As DeepGEMM's runtime: a cluster attribute only for clusters of two
  // (DGL_CLUSTER_ATTR=1 adds it for one too: that launch path is slower).
  CUlaunchAttribute attr[1];
  attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr[0].value.clusterDim.x = cluster;
  attr[0].value.clusterDim.y = 1;
  attr[0].value.clusterDim.z = 1;
  const char *force = getenv("DGL_CLUSTER_ATTR");
  cfg.attrs = attr;
  cfg.numAttrs = (cluster > 1 || (force && force[0] == '1')) ? 1 : 0;
  CK(cuLaunchKernelEx(&cfg, fn, params, nullptr));
  CK(cuCtxSynchronize());

  std::vector<uint16_t> d(size_t(M) * N);
  CK(cuMemcpyDtoH(d.data(), dd, d.size() * 2));
  size_t nan = 0;
  for (auto v : d)
    if (std::isnan(bf16(v)))
      ++nan;
  double worst = 0;
  std::vector<double> refs, gots;
  for (int t = 0; t < 200; ++t) {
    uint32_t i = rng() % M, j = rng() % N;
    double ref = 0;
    for (uint32_t q = 0; q < kb; ++q) {
      double s = 0;
      for (uint32_t k = q * 128; k < std::min(K, q * 128 + 128); ++k)
        s += double(e4m3(a[size_t(i) * K + k])) * e4m3(b[size_t(j) * K + k]);
      ref += s * sfa[size_t(q) * Ma + i] * sfb[size_t(j / 128) * kb + q];
    }
    refs.push_back(ref);
    gots.push_back(bf16(d[size_t(i) * N + j]));
  }
  double rms = 0;
  for (double r : refs)
    rms += r * r;
  rms = std::sqrt(rms / refs.size());
  for (size_t t = 0; t < refs.size(); ++t)
    worst = std::max(worst, std::fabs(gots[t] - refs[t]) / rms);
  CUevent e0, e1;
  CK(cuEventCreate(&e0, 0));
  CK(cuEventCreate(&e1, 0));
  std::vector<float> ms;
  for (int it = 0; it < iters + 3; ++it) {
    CK(cuEventRecord(e0, 0));
    CK(cuLaunchKernelEx(&cfg, fn, params, nullptr));
    CK(cuEventRecord(e1, 0));
    CK(cuEventSynchronize(e1));
    float t;
    CK(cuEventElapsedTime(&t, e0, e1));
    if (it >= 3)
      ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  if (const char *path = getenv("DGL_TIMELINE"))
    writeTimeline(path, mod, cfg, fn, params, M, N, K);
  printf("deepgemm-cubin %ux%ux%u bm%u bn%u cluster%u: median %.1f us, min "
         "%.1f us, "
         "nan %zu, worst rel err %.3g %s\n",
         M, N, K, BM, BN, cluster, ms[ms.size() / 2] * 1e3, ms[0] * 1e3, nan,
         worst, (nan == 0 && worst < 0.01) ? "OK" : "FAIL");
  return 0;
}
