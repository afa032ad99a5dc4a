//===- Numerics.cpp - Host FP8 quantization and accuracy checks -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Numerics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

using namespace fgemm;

/// Rounds to the nearest integer, ties to even, independent of the FPU mode.
static double roundHalfEven(double x) {
  double floor = std::floor(x);
  double fraction = x - floor;
  if (fraction > 0.5)
    return floor + 1;
  if (fraction < 0.5)
    return floor;
  return std::fmod(floor, 2.0) == 0 ? floor : floor + 1;
}

/// `value` as an FP8 code with `mantissaBits` mantissa bits and exponent
/// bias `bias`, round to nearest even, saturating at `maxCode` (the largest
/// finite code, worth `maxValue`); NaN becomes 0x7f with its sign.
static uint8_t roundToFp8(float value, int mantissaBits, int bias,
                          double maxValue, uint8_t maxCode) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint8_t sign = static_cast<uint8_t>((bits >> 24) & 0x80);
  if (std::isnan(value))
    return sign | 0x7f;
  double magnitude = std::fabs(static_cast<double>(value));
  if (magnitude >= maxValue)
    return sign | maxCode;
  // Subnormals (exponent field 0) are multiples of 2^(1 - bias - m) below
  // 2^(1 - bias); rounding up to the smallest normal gives its code, as it
  // should.
  if (magnitude < std::ldexp(1.0, 1 - bias))
    return sign | static_cast<uint8_t>(roundHalfEven(
                      std::ldexp(magnitude, bias - 1 + mantissaBits)));
  int exponent = std::ilogb(magnitude);
  // Scale into [2^m, 2^(m+1)) so the integer part holds the implicit bit and
  // the mantissa bits; power-of-two scaling is exact.
  const double implicit = std::ldexp(1.0, mantissaBits);
  double scaled = roundHalfEven(std::ldexp(magnitude, mantissaBits - exponent));
  if (scaled == 2 * implicit) {
    scaled = implicit;
    ++exponent;
  }
  uint32_t code = (static_cast<uint32_t>(exponent + bias) << mantissaBits) |
                  static_cast<uint32_t>(scaled - implicit);
  return sign | static_cast<uint8_t>(std::min<uint32_t>(code, maxCode));
}

// e4m3fn saturates at 448 (0x7e): 0x7f is NaN, not 480.
uint8_t fgemm::floatToE4m3(float value) {
  return roundToFp8(value, 3, 7, kE4m3Max, 0x7e);
}

/// An FP8 code's value with `mantissaBits` mantissa bits and exponent bias
/// `bias`, its specials (NaN, infinity) aside: subnormal at exponent 0.
static float decodeFp8(uint8_t bits, int mantissaBits, int bias) {
  const float sign = (bits & 0x80) ? -1.0f : 1.0f;
  const int exponent = (bits & 0x7f) >> mantissaBits;
  const int mantissa = bits & ((1 << mantissaBits) - 1);
  if (exponent == 0)
    return sign *
           std::ldexp(static_cast<float>(mantissa), 1 - bias - mantissaBits);
  return sign * std::ldexp(static_cast<float>((1 << mantissaBits) + mantissa),
                           exponent - bias - mantissaBits);
}

float fgemm::e4m3ToFloat(uint8_t bits) {
  if ((bits & 0x7f) == 0x7f)
    return std::numeric_limits<float>::quiet_NaN();
  return decodeFp8(bits, 3, 7);
}

// e5m2 saturates at 57344 (0x7b), below its infinity (0x7c).
uint8_t fgemm::floatToE5m2(float value) {
  return roundToFp8(value, 2, 15, kE5m2Max, 0x7b);
}

float fgemm::e5m2ToFloat(uint8_t bits) {
  if ((bits & 0x7c) == 0x7c) // exponent all ones
    return (bits & 0x3)    ? std::numeric_limits<float>::quiet_NaN()
           : (bits & 0x80) ? -std::numeric_limits<float>::infinity()
                           : std::numeric_limits<float>::infinity();
  return decodeFp8(bits, 2, 15);
}

uint8_t fgemm::floatToFp8(float value, Fp8Format format) {
  return format == Fp8Format::kE5M2 ? floatToE5m2(value) : floatToE4m3(value);
}

float fgemm::fp8ToFloat(uint8_t bits, Fp8Format format) {
  return format == Fp8Format::kE5M2 ? e5m2ToFloat(bits) : e4m3ToFloat(bits);
}

uint16_t fgemm::floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value))
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  uint32_t roundingBias = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

float fgemm::bf16ToFloat(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

/// Runs body(begin, end) over [0, count) split across the hardware threads.
template <typename Body>
static void parallelFor(int64_t count, const Body &body) {
  int64_t workers = std::max(1u, std::thread::hardware_concurrency());
  workers = std::min<int64_t>(workers, std::max<int64_t>(count, 1));
  if (workers <= 1) {
    body(int64_t(0), count);
    return;
  }
  std::vector<std::thread> threads;
  int64_t chunk = (count + workers - 1) / workers;
  for (int64_t begin = 0; begin < count; begin += chunk)
    threads.emplace_back(body, begin, std::min(count, begin + chunk));
  for (std::thread &thread : threads)
    thread.join();
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// Quantizes x with groups of `groupRows` x 128: the shared body of both
/// quantizers (groupRows = 1 for A, 128 for B).
static QuantizedMatrix quantizeGroups(const std::vector<float> &x, int64_t rows,
                                      int64_t cols, int64_t groupRows,
                                      Fp8Format format = Fp8Format::kE4M3) {
  QuantizedMatrix q;
  q.rows = rows;
  q.cols = cols;
  q.format = format;
  q.scaleRows = ceilDiv(rows, groupRows);
  q.scaleCols = ceilDiv(cols, kScaleBlock);
  q.values.assign(static_cast<size_t>(rows * cols), 0);
  q.scales.assign(static_cast<size_t>(q.scaleRows * q.scaleCols), 0.0f);
  parallelFor(q.scaleRows, [&](int64_t first, int64_t last) {
    for (int64_t group = first; group < last; ++group) {
      int64_t rowBegin = group * groupRows;
      int64_t rowEnd = std::min(rows, rowBegin + groupRows);
      for (int64_t kb = 0; kb < q.scaleCols; ++kb) {
        int64_t colBegin = kb * kScaleBlock;
        int64_t colEnd = std::min(cols, colBegin + kScaleBlock);
        float amax = 0;
        for (int64_t r = rowBegin; r < rowEnd; ++r)
          for (int64_t c = colBegin; c < colEnd; ++c)
            amax = std::max(amax, std::fabs(x[r * cols + c]));
        float scale = quantScale(amax, format);
        // DeepGEMM HEAD's form: x * (1 / scale), both in fp32.
        float inverse = 1.0f / scale;
        q.scales[group * q.scaleCols + kb] = scale;
        for (int64_t r = rowBegin; r < rowEnd; ++r)
          for (int64_t c = colBegin; c < colEnd; ++c)
            q.values[r * cols + c] =
                floatToFp8(x[r * cols + c] * inverse, format);
      }
    }
  });
  return q;
}

QuantizedMatrix fgemm::quantizePerToken(const std::vector<float> &x,
                                        int64_t rows, int64_t cols,
                                        Fp8Format format) {
  return quantizeGroups(x, rows, cols, 1, format);
}

QuantizedMatrix fgemm::quantizePerBlock(const std::vector<float> &x,
                                        int64_t rows, int64_t cols,
                                        Fp8Format format) {
  return quantizeGroups(x, rows, cols, kScaleBlock, format);
}

QuantizedMatrix fgemm::quantizePerTensor(const std::vector<float> &x,
                                         int64_t rows, int64_t cols) {
  QuantizedMatrix q;
  q.rows = rows;
  q.cols = cols;
  q.scaleRows = q.scaleCols = 1;
  float amax = 0;
  for (float v : x)
    amax = std::max(amax, std::fabs(v));
  float scale = quantScale(amax), inverse = 1.0f / scale;
  q.scales = {scale};
  q.values.resize(x.size());
  parallelFor(rows, [&](int64_t first, int64_t last) {
    for (int64_t i = first * cols; i < last * cols; ++i)
      q.values[size_t(i)] = floatToE4m3(x[size_t(i)] * inverse);
  });
  return q;
}

std::vector<float> fgemm::toSfaLayout(const QuantizedMatrix &a, float padding) {
  int64_t alignedRows = (a.rows + 3) / 4 * 4;
  std::vector<float> sfa(static_cast<size_t>(alignedRows * a.scaleCols),
                         padding);
  for (int64_t m = 0; m < a.rows; ++m)
    for (int64_t kb = 0; kb < a.scaleCols; ++kb)
      sfa[kb * alignedRows + m] = a.scales[m * a.scaleCols + kb];
  return sfa;
}

double fgemm::calcDiffFromSums(double sumXY, double sumSquares) {
  if (sumSquares == 0)
    return 0;
  return 1 - 2 * sumXY / sumSquares;
}

double fgemm::calcDiff(const float *x, const float *y, size_t count) {
  double sumXY = 0, sumSquares = 0;
  for (size_t i = 0; i < count; ++i) {
    double a = x[i], b = y[i];
    sumXY += a * b;
    sumSquares += a * a + b * b;
  }
  return calcDiffFromSums(sumXY, sumSquares);
}

double fgemm::emulationTolerance(double emulated, double sumAbsProducts) {
  return 0x1p-7 * std::fabs(emulated) + 0x1p-10 * sumAbsProducts + 1e-6;
}

EmulatedElement fgemm::emulateElement(const QuantizedMatrix &a,
                                      const QuantizedMatrix &b, int64_t m,
                                      int64_t n) {
  // Per-tensor (one scale), per-token (a row each) or per-block scales.
  auto scaleOf = [](const QuantizedMatrix &q, int64_t row, int64_t kb) {
    if (q.scales.size() == 1)
      return q.scales[0];
    int64_t scaleRow = q.scaleRows == q.rows ? row : row / kScaleBlock;
    return q.scales[scaleRow * q.scaleCols + kb];
  };
  EmulatedElement result;
  for (int64_t k = 0; k < a.cols; ++k) {
    int64_t kb = k / kScaleBlock;
    double x = double(fp8ToFloat(a.values[m * a.cols + k], a.format)) *
               scaleOf(a, m, kb);
    double y = double(fp8ToFloat(b.values[n * b.cols + k], b.format)) *
               scaleOf(b, n, kb);
    result.value += x * y;
    result.sumAbs += std::fabs(x * y);
  }
  return result;
}
