//===- Reference.cu - GPU reference kernels of fgemm-bench ------*- CUDA
//-*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The benchmark's references, compiled by nvcc to an sm_90 cubin at build
// time, embedded in fgemm-bench and loaded through the runtime's Driver
// wrapper (no CUDA runtime library). Host references would take minutes on
// the 4096 x 7168 x 16384 shape; these take milliseconds.
//
//   fgemm_ref_gemm_bf16  ref = x * y^T of the unquantized bf16 inputs, FP32
//                        accumulation (DeepGEMM's reference)
//   fgemm_ref_check      the exact emulation of the quantized math in FP64
//                        (plus C or a bias), compared with D
//                        element-wise and against ref + C (calc_diff sums);
//                        one CheckPartial per block
//
// Plain shared-memory tiling: these must be obviously correct, not fast.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

namespace {

/// Per-block results of fgemm_ref_check; fgemm-bench.cpp mirrors the layout.
struct CheckPartial {
  double sumXY;                 // sum d * ref over finite d
  double sumSquares;            // sum d * d + ref * ref over finite d
  double maxRatio;              // max |d - emu| / tolerance over finite d
  long long worstIndex;         // m * N + n of maxRatio (-1 if none)
  unsigned long long nonFinite; // elements of d that are NaN or infinite
  double emuXY;      // sum emu * ref: calc_diff of the exact quantized math
  double emuSquares; // sum emu * emu + ref * ref
};

__device__ float bf16ToFloat(uint16_t bits) {
  return __uint_as_float(static_cast<uint32_t>(bits) << 16);
}

/// e4m3fn -> float, exactly; 0x7f/0xff are NaN.
__device__ float e4m3ToFloat(uint8_t bits) {
  float sign = (bits & 0x80) ? -1.0f : 1.0f;
  int exponent = (bits >> 3) & 0xf;
  int mantissa = bits & 0x7;
  if (exponent == 0xf && mantissa == 0x7)
    return __int_as_float(0x7fffffff);
  if (exponent == 0)
    return sign * ldexpf(static_cast<float>(mantissa), -9);
  return sign * ldexpf(static_cast<float>(8 + mantissa), exponent - 10);
}

/// e5m2 -> float, exactly: the high byte of an IEEE half (0x7c infinity,
/// above it NaN).
__device__ float e5m2ToFloat(uint8_t bits) {
  float sign = (bits & 0x80) ? -1.0f : 1.0f;
  int exponent = (bits >> 2) & 0x1f;
  int mantissa = bits & 0x3;
  if (exponent == 0x1f)
    return mantissa ? __int_as_float(0x7fffffff)
                    : sign * __int_as_float(0x7f800000);
  if (exponent == 0)
    return sign * ldexpf(static_cast<float>(mantissa), -16);
  return sign * ldexpf(static_cast<float>(4 + mantissa), exponent - 17);
}

constexpr int kGemmTile = 64; // output tile of fgemm_ref_gemm_bf16
constexpr int kGemmTileK = 16;
constexpr int kCheckTile = 32;  // output tile of fgemm_ref_check
constexpr int kCheckTileK = 32; // divides 128, so a K tile never straddles
                                // a scale block
constexpr int kThreads = 256;   // 16 x 16 in both kernels

} // namespace

/// ref[M, N] = x[M, K] * y[N, K]^T, bf16 inputs, FP32 accumulation. Each of
/// the 16 x 16 threads computes a 4 x 4 strided sub-tile of a 64 x 64 tile.
extern "C" __global__ void __launch_bounds__(kThreads)
    fgemm_ref_gemm_bf16(const uint16_t *__restrict__ x,
                        const uint16_t *__restrict__ y, float *__restrict__ ref,
                        int M, int N, int K) {
  __shared__ float xs[kGemmTileK][kGemmTile + 1];
  __shared__ float ys[kGemmTileK][kGemmTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t rowBase = int64_t(blockIdx.y) * kGemmTile;
  const int64_t colBase = int64_t(blockIdx.x) * kGemmTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kGemmTileK) {
    for (int e = threadIdx.x; e < kGemmTile * kGemmTileK; e += kThreads) {
      int r = e / kGemmTileK, kk = e % kGemmTileK;
      int64_t gk = k0 + kk;
      int64_t gm = rowBase + r, gn = colBase + r;
      xs[kk][r] = (gm < M && gk < K) ? bf16ToFloat(x[gm * K + gk]) : 0.0f;
      ys[kk][r] = (gn < N && gk < K) ? bf16ToFloat(y[gn * K + gk]) : 0.0f;
    }
    __syncthreads();
    for (int kk = 0; kk < kGemmTileK; ++kk) {
      float xv[4], yv[4];
      for (int i = 0; i < 4; ++i) {
        xv[i] = xs[kk][ty + 16 * i];
        yv[i] = ys[kk][tx + 16 * i];
      }
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
          acc[i][j] = fmaf(xv[i], yv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      int64_t m = rowBase + ty + 16 * i, n = colBase + tx + 16 * j;
      if (m < M && n < N)
        ref[m * N + n] = acc[i][j];
    }
}

/// For each output (m, n): emu = sum_kb sfa[m,kb] sfb[n/128,kb] sum_k a b and
/// sumAbs = sum_kb |sfa sfb| sum_k |a b|, all in FP64 (the per-block sums of
/// e4m3 products are exact in FP64). Then compares with d and ref and
/// reduces per block. sfa is M-major with `sfaRows` = align(M, 4) rows per K
/// block, or one scale when `sfaRows` is 0; sfb is row-major [ceil(N/128),
/// ceil(K/128)] when `sfbRows` is 0, N-major with `sfbRows` = align(N, 4)
/// rows per K block (1D1D) when positive, one scale when -1. `c` (or null)
/// and the bf16 `bias` (or null, one per column) are added to emu and ref; d
/// is f32 when `dIsF32`, else bf16; a (b) is e5m2 when `aIsE5m2`
/// (`bIsE5m2`), else e4m3.
extern "C" __global__ void __launch_bounds__(kThreads) fgemm_ref_check(
    const uint8_t *__restrict__ a, const float *__restrict__ sfa,
    const uint8_t *__restrict__ b, const float *__restrict__ sfb,
    const float *__restrict__ c, const uint16_t *__restrict__ bias,
    const void *__restrict__ d, const float *__restrict__ ref,
    CheckPartial *__restrict__ partials, int M, int N, int K, int sfaRows,
    int sfbRows, int dIsF32, int aIsE5m2, int bIsE5m2, double relTolerance,
    double absSumTolerance, double absTolerance) {
  __shared__ float as[kCheckTileK][kCheckTile + 1];
  __shared__ float bs[kCheckTileK][kCheckTile + 1];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int64_t rowBase = int64_t(blockIdx.y) * kCheckTile;
  const int64_t colBase = int64_t(blockIdx.x) * kCheckTile;
  const int kBlocks = (K + 127) / 128;
  double emu[2][2] = {}, sumAbs[2][2] = {};

  for (int kb = 0; kb < kBlocks; ++kb) {
    double blockSum[2][2] = {}, blockAbs[2][2] = {};
    const int kEnd = min(K, (kb + 1) * 128);
    for (int k0 = kb * 128; k0 < kEnd; k0 += kCheckTileK) {
      for (int e = threadIdx.x; e < kCheckTile * kCheckTileK; e += kThreads) {
        int r = e / kCheckTileK, kk = e % kCheckTileK;
        int64_t gk = k0 + kk;
        int64_t gm = rowBase + r, gn = colBase + r;
        uint8_t aBits = (gm < M && gk < K) ? a[gm * K + gk] : 0;
        as[kk][r] = aIsE5m2 ? e5m2ToFloat(aBits) : e4m3ToFloat(aBits);
        uint8_t bBits = (gn < N && gk < K) ? b[gn * K + gk] : 0;
        bs[kk][r] = bIsE5m2 ? e5m2ToFloat(bBits) : e4m3ToFloat(bBits);
      }
      __syncthreads();
      for (int kk = 0; kk < kCheckTileK; ++kk)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j) {
            // e4m3 x e4m3 and e5m2 x e4m3 are exact in FP32 (at most 8
            // significant bits, exponents within range); the sum is exact
            // in FP64.
            double p = as[kk][ty + 16 * i] * bs[kk][tx + 16 * j];
            blockSum[i][j] += p;
            blockAbs[i][j] += fabs(p);
          }
      __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) {
        int64_t m = rowBase + ty + 16 * i, n = colBase + tx + 16 * j;
        if (m >= M || n >= N)
          continue;
        double scaleA = sfaRows ? sfa[int64_t(kb) * sfaRows + m] : sfa[0];
        double scaleB = sfbRows > 0    ? sfb[int64_t(kb) * sfbRows + n]
                        : sfbRows == 0 ? sfb[(n / 128) * kBlocks + kb]
                                       : sfb[0];
        double scale = scaleA * scaleB;
        emu[i][j] += scale * blockSum[i][j];
        sumAbs[i][j] += fabs(scale) * blockAbs[i][j];
      }
  }

  CheckPartial mine = {0, 0, -1, -1, 0, 0, 0};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      int64_t m = rowBase + ty + 16 * i, n = colBase + tx + 16 * j;
      if (m >= M || n >= N)
        continue;
      int64_t index = m * N + n;
      double dv = dIsF32 ? static_cast<const float *>(d)[index]
                         : bf16ToFloat(static_cast<const uint16_t *>(d)[index]);
      // C and the bias enter exactly (FP64); D adds them with one FP32
      // rounding.
      double cv = (c ? c[index] : 0.0) + (bias ? bf16ToFloat(bias[n]) : 0.0);
      emu[i][j] += cv;
      sumAbs[i][j] += fabs(cv);
      double rv = ref[index] + cv;
      mine.emuXY += emu[i][j] * rv;
      mine.emuSquares += emu[i][j] * emu[i][j] + rv * rv;
      if (!isfinite(dv)) {
        ++mine.nonFinite;
        continue;
      }
      mine.sumXY += dv * rv;
      mine.sumSquares += dv * dv + rv * rv;
      double tolerance = relTolerance * fabs(emu[i][j]) +
                         absSumTolerance * sumAbs[i][j] + absTolerance;
      double ratio = fabs(dv - emu[i][j]) / tolerance;
      // Ties keep the smaller index, so the report is deterministic.
      if (ratio > mine.maxRatio ||
          (ratio == mine.maxRatio && index < mine.worstIndex)) {
        mine.maxRatio = ratio;
        mine.worstIndex = index;
      }
    }

  __shared__ CheckPartial all[kThreads];
  all[threadIdx.x] = mine;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      CheckPartial &x = all[threadIdx.x];
      const CheckPartial &y = all[threadIdx.x + stride];
      x.sumXY += y.sumXY;
      x.sumSquares += y.sumSquares;
      x.emuXY += y.emuXY;
      x.emuSquares += y.emuSquares;
      x.nonFinite += y.nonFinite;
      if (y.worstIndex >= 0 &&
          (x.worstIndex < 0 || y.maxRatio > x.maxRatio ||
           (y.maxRatio == x.maxRatio && y.worstIndex < x.worstIndex))) {
        x.maxRatio = y.maxRatio;
        x.worstIndex = y.worstIndex;
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    partials[int64_t(blockIdx.y) * gridDim.x + blockIdx.x] = all[0];
}
