//===- Numerics.h - Host FP8 quantization and accuracy checks ---*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The host side of fgemm's numerics contract (DeepGEMM-compatible, see
// NUMERICS.md §3): float <-> e4m3fn and bf16 conversions, the per-token
// (1x128) and per-block (128x128) quantizers with scale = max(amax, 1e-4)/448,
// SFA's padded M-major layout, DeepGEMM's calc_diff, and the element-wise
// tolerance against an exact emulation of the quantized GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_RUNTIME_NUMERICS_H
#define FGEMM_RUNTIME_NUMERICS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fgemm {

/// The largest finite e4m3fn value.
constexpr float kE4m3Max = 448.0f;
/// The largest finite e5m2 value.
constexpr float kE5m2Max = 57344.0f;

/// The FP8 formats of an operand.
enum class Fp8Format { kE4M3, kE5M2 };
/// Quantizers clamp amax to at least this, so all-zero blocks get a scale.
constexpr float kMinAmax = 1e-4f;
/// The quantization group along K (and along N for B's 128x128 blocks).
constexpr int64_t kScaleBlock = 128;

/// float -> e4m3fn, round to nearest even, saturating: finite values and
/// infinities beyond 448 become +-448; NaN becomes 0x7f with its sign.
uint8_t floatToE4m3(float value);
/// e4m3fn -> float (exact). 0x7f and 0xff are NaN; there is no infinity.
float e4m3ToFloat(uint8_t bits);
/// float -> e5m2, round to nearest even, saturating to +-57344 (values past
/// it, infinities too); NaN becomes 0x7f with its sign.
uint8_t floatToE5m2(float value);
/// e5m2 -> float (exact): the high byte of an IEEE half.
float e5m2ToFloat(uint8_t bits);
/// The format's conversions.
uint8_t floatToFp8(float value, Fp8Format format);
float fp8ToFloat(uint8_t bits, Fp8Format format);

/// float -> bf16 bits, round to nearest even; NaN stays a (quiet) NaN.
uint16_t floatToBf16(float value);
float bf16ToFloat(uint16_t bits);

/// The scale of a group whose largest magnitude is `amax`.
inline float quantScale(float amax, Fp8Format format = Fp8Format::kE4M3) {
  return (amax > kMinAmax ? amax : kMinAmax) /
         (format == Fp8Format::kE5M2 ? kE5m2Max : kE4m3Max);
}

/// An e4m3 matrix with one fp32 scale per group, scales row-major
/// [rowGroups, ceil(K/128)].
struct QuantizedMatrix {
  int64_t rows = 0, cols = 0;
  Fp8Format format = Fp8Format::kE4M3;
  std::vector<uint8_t> values; ///< [rows, cols] row-major
  std::vector<float> scales;   ///< [scaleRows, scaleCols] row-major
  int64_t scaleRows = 0, scaleCols = 0;
};

/// A's quantizer: one scale per row and 128-wide K block (a partial last
/// block takes the amax of the columns it has). values = x / scale in fp32.
QuantizedMatrix quantizePerToken(const std::vector<float> &x, int64_t rows,
                                 int64_t cols,
                                 Fp8Format format = Fp8Format::kE4M3);
/// B's quantizer: one scale per 128x128 block (partial blocks likewise).
QuantizedMatrix quantizePerBlock(const std::vector<float> &x, int64_t rows,
                                 int64_t cols,
                                 Fp8Format format = Fp8Format::kE4M3);
/// The per-tensor quantizer: one scale for the whole matrix (scaleRows =
/// scaleCols = 1).
QuantizedMatrix quantizePerTensor(const std::vector<float> &x, int64_t rows,
                                  int64_t cols);

/// SFA in the kernel's layout: element (m, kb) at [kb * align(M, 4) + m].
/// The padding rows m in [M, align(M, 4)) hold `padding`.
std::vector<float> toSfaLayout(const QuantizedMatrix &a, float padding);

/// DeepGEMM's calc_diff from its two FP64 sums: 1 - 2*sumXY/sumSquares, and
/// 0 when sumSquares (= sum x*x + y*y) is 0.
double calcDiffFromSums(double sumXY, double sumSquares);
/// calc_diff of two equally long arrays, in FP64.
double calcDiff(const float *x, const float *y, size_t count);

/// The accuracy a fgemm kernel must reach against the exact emulation of
/// its quantized math: |d - emu| <= 2^-7 |emu| + 2^-10 sum|a_k b_k| + 1e-6.
/// 2^-7 covers bf16 output rounding; 2^-10 of the absolute sum covers the
/// tensor cores' reduced-precision FP8 accumulation within a K block.
double emulationTolerance(double emulated, double sumAbsProducts);

/// The exact quantized product for one output element, in FP64: emulated =
/// sum_k deq(A[m,k]) deq(B[n,k]) and sumAbs = sum_k |deq(A) deq(B)|.
struct EmulatedElement {
  double value = 0;
  double sumAbs = 0;
};
EmulatedElement emulateElement(const QuantizedMatrix &a,
                               const QuantizedMatrix &b, int64_t m, int64_t n);

} // namespace fgemm

#endif // FGEMM_RUNTIME_NUMERICS_H
