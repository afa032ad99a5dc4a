//===- NumericsTest.cpp - Tests of e4m3, bf16, quantizers, diff -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Runtime/Numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

using namespace fgemm;

namespace {

/// The e4m3 code nearest to v >= 0 by exhaustive search, ties to the even
/// code (the one whose mantissa LSB is 0); saturates at 448.
uint8_t nearestE4m3(double v) {
  int best = 0;
  double bestError = std::numeric_limits<double>::infinity();
  for (int code = 0; code <= 0x7e; ++code) {
    double error = std::fabs(double(e4m3ToFloat(uint8_t(code))) - v);
    if (error < bestError || (error == bestError && (code & 1) == 0)) {
      best = code;
      bestError = error;
    }
  }
  return uint8_t(best);
}

} // namespace

TEST(E4m3, ExactValues) {
  EXPECT_EQ(floatToE4m3(0.0f), 0x00);
  EXPECT_EQ(floatToE4m3(-0.0f), 0x80);
  EXPECT_EQ(floatToE4m3(1.0f), 0x38);
  EXPECT_EQ(floatToE4m3(-1.0f), 0xb8);
  EXPECT_EQ(floatToE4m3(1.125f), 0x39);
  EXPECT_EQ(floatToE4m3(448.0f), 0x7e);
  EXPECT_EQ(floatToE4m3(-448.0f), 0xfe);
  EXPECT_EQ(floatToE4m3(240.0f), 0x77);
  EXPECT_EQ(floatToE4m3(0x1p-6f), 0x08); // smallest normal
  EXPECT_EQ(floatToE4m3(0x1p-9f), 0x01); // smallest subnormal
  EXPECT_EQ(floatToE4m3(7 * 0x1p-9f), 0x07);
  EXPECT_EQ(e4m3ToFloat(0x01), 0x1p-9f);
  EXPECT_EQ(e4m3ToFloat(0x08), 0x1p-6f);
  EXPECT_EQ(e4m3ToFloat(0x38), 1.0f);
  EXPECT_EQ(e4m3ToFloat(0x77), 240.0f);
  EXPECT_EQ(e4m3ToFloat(0x7e), 448.0f);
  EXPECT_EQ(e4m3ToFloat(0xfe), -448.0f);
  EXPECT_TRUE(std::signbit(e4m3ToFloat(0x80)));
}

TEST(E4m3, EveryFiniteCodeRoundTrips) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7f) == 0x7f)
      continue;
    float value = e4m3ToFloat(uint8_t(code));
    ASSERT_FALSE(std::isnan(value)) << code;
    EXPECT_EQ(floatToE4m3(value), code) << "value " << value;
  }
}

TEST(E4m3, RoundsToNearestEven) {
  EXPECT_EQ(floatToE4m3(1.0625f), 0x38); // between 1 and 1.125: even 1
  EXPECT_EQ(floatToE4m3(1.1875f), 0x3a); // between 1.125 and 1.25: even 1.25
  EXPECT_EQ(floatToE4m3(std::nextafter(1.0625f, 2.0f)), 0x39);
  EXPECT_EQ(floatToE4m3(std::nextafter(1.0625f, 0.0f)), 0x38);
  EXPECT_EQ(floatToE4m3(1.9375f), 0x40); // carries into the next binade
  EXPECT_EQ(floatToE4m3(-1.9375f), 0xc0);
  EXPECT_EQ(floatToE4m3(0.5f * 0x1p-9f), 0x00); // subnormal ties
  EXPECT_EQ(floatToE4m3(1.5f * 0x1p-9f), 0x02);
  EXPECT_EQ(floatToE4m3(2.5f * 0x1p-9f), 0x02);
  EXPECT_EQ(floatToE4m3(7.5f * 0x1p-9f), 0x08); // into the smallest normal
  EXPECT_EQ(floatToE4m3(1e-30f), 0x00);
  EXPECT_EQ(floatToE4m3(-1e-30f), 0x80);
  EXPECT_EQ(floatToE4m3(432.0f), 0x7e); // 416..448 tie goes to 448 (even)
}

TEST(E4m3, MatchesExhaustiveNearest) {
  std::mt19937 generator(1234);
  std::uniform_real_distribution<float> exponent(-12.0f, 9.0f);
  for (int i = 0; i < 20000; ++i) {
    float value = std::exp2(exponent(generator));
    if (value >= 448.0f)
      continue;
    EXPECT_EQ(floatToE4m3(value), nearestE4m3(value)) << value;
    EXPECT_EQ(floatToE4m3(-value), 0x80 | nearestE4m3(value)) << -value;
  }
  // Every midpoint between neighbouring codes.
  for (int code = 0; code < 0x7e; ++code) {
    double mid = 0.5 * (double(e4m3ToFloat(uint8_t(code))) +
                        double(e4m3ToFloat(uint8_t(code + 1))));
    EXPECT_EQ(floatToE4m3(float(mid)), nearestE4m3(mid)) << mid;
  }
}

TEST(E4m3, Saturates) {
  EXPECT_EQ(floatToE4m3(448.1f), 0x7e);
  EXPECT_EQ(floatToE4m3(464.0f), 0x7e);
  EXPECT_EQ(floatToE4m3(480.0f), 0x7e);
  EXPECT_EQ(floatToE4m3(1e6f), 0x7e);
  EXPECT_EQ(floatToE4m3(-1e6f), 0xfe);
  EXPECT_EQ(floatToE4m3(std::numeric_limits<float>::infinity()), 0x7e);
  EXPECT_EQ(floatToE4m3(-std::numeric_limits<float>::infinity()), 0xfe);
}

TEST(E4m3, NaN) {
  float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(floatToE4m3(nan), 0x7f);
  EXPECT_EQ(floatToE4m3(-nan), 0xff);
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0x7f)));
  EXPECT_TRUE(std::isnan(e4m3ToFloat(0xff)));
}

TEST(E5m2, IsTheHighByteOfAHalf) {
  EXPECT_EQ(e5m2ToFloat(0x3c), 1.0f);
  EXPECT_EQ(e5m2ToFloat(0x7b), 57344.0f);
  EXPECT_EQ(e5m2ToFloat(0x01), 0x1p-16f); // smallest subnormal
  EXPECT_EQ(e5m2ToFloat(0x04), 0x1p-14f); // smallest normal
  EXPECT_EQ(e5m2ToFloat(0xbd), -1.25f);
  EXPECT_TRUE(std::isinf(e5m2ToFloat(0x7c)));
  EXPECT_TRUE(std::isnan(e5m2ToFloat(0x7d)));
}

TEST(E5m2, EveryFiniteCodeRoundTripsAndTiesGoToEven) {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7c) == 0x7c)
      continue; // infinities and NaNs
    float value = e5m2ToFloat(uint8_t(code));
    EXPECT_EQ(floatToE5m2(value), code) << "value " << value;
  }
  // Midpoints between neighbours go to the even code.
  for (int code = 0; code < 0x7b; ++code) {
    double mid = 0.5 * (double(e5m2ToFloat(uint8_t(code))) +
                        double(e5m2ToFloat(uint8_t(code + 1))));
    int even = (code % 2 == 0) ? code : code + 1;
    EXPECT_EQ(floatToE5m2(float(mid)), even) << mid;
  }
  EXPECT_EQ(floatToE5m2(1e6f), 0x7b); // saturates
  EXPECT_EQ(floatToE5m2(-INFINITY), 0xfb);
  EXPECT_EQ(floatToE5m2(NAN), 0x7f);
}

TEST(Quantize, E5m2PerTokenScalesByAmaxOver57344) {
  std::vector<float> x = {1.0f, -3.0f, 0.5f, 2.0f};
  QuantizedMatrix q = quantizePerToken(x, 1, 4, Fp8Format::kE5M2);
  EXPECT_EQ(q.format, Fp8Format::kE5M2);
  ASSERT_EQ(q.scales.size(), 1u);
  EXPECT_EQ(q.scales[0], 3.0f / 57344.0f);
  EXPECT_EQ(e5m2ToFloat(q.values[1]), -57344.0f);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(e5m2ToFloat(q.values[i]) * q.scales[0], x[i],
                std::fabs(x[i]) / 8);
}

TEST(Bf16, Conversions) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(-2.0f), 0xc000);
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f), 0x3f80);     // tie to even
  EXPECT_EQ(floatToBf16(1.0f + 3 * 0x1p-8f), 0x3f82); // tie to even
  EXPECT_EQ(floatToBf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(bf16ToFloat(0x3f81), 1.0f + 0x1p-7f);
  EXPECT_TRUE(std::isnan(bf16ToFloat(floatToBf16(std::nanf("")))));
  EXPECT_TRUE(std::isnan(bf16ToFloat(0xffff))); // the benchmark's D poison
}

TEST(Quantize, ScaleIsClampedAmaxOver448) {
  EXPECT_EQ(quantScale(448.0f), 1.0f);
  EXPECT_EQ(quantScale(2.0f), 2.0f / 448.0f);
  EXPECT_EQ(quantScale(0.0f), 1e-4f / 448.0f);
  EXPECT_EQ(quantScale(1e-5f), 1e-4f / 448.0f);
}

TEST(Quantize, PerTokenGroupsOf128) {
  // Row 0: block 0 has amax 4, block 1 (the 16-wide tail of K = 144) 0.5.
  // Row 1 is all zeros.
  const int64_t rows = 2, cols = 144;
  std::vector<float> x(rows * cols, 0.0f);
  for (int64_t c = 0; c < 128; ++c)
    x[c] = (c % 2 ? -1.0f : 1.0f) * float(c % 5); // amax 4 at c = 4
  x[130] = -0.5f;
  x[140] = 0.25f;
  QuantizedMatrix q = quantizePerToken(x, rows, cols);
  ASSERT_EQ(q.scaleRows, 2);
  ASSERT_EQ(q.scaleCols, 2);
  EXPECT_EQ(q.scales[0], 4.0f / 448.0f);
  EXPECT_EQ(q.scales[1], 0.5f / 448.0f);
  EXPECT_EQ(q.scales[2], 1e-4f / 448.0f);
  EXPECT_EQ(q.scales[3], 1e-4f / 448.0f);
  EXPECT_EQ(q.values[4], 0x7e);   // the amax element becomes 448
  EXPECT_EQ(q.values[130], 0xfe); // -amax of its block
  EXPECT_EQ(q.values[140], floatToE4m3(224.0f));
  EXPECT_EQ(q.values[cols + 7], 0x00); // zero row stays zero
  // Dequantized values are within e4m3's half-ulp (2^-4 relative).
  for (int64_t c = 0; c < cols; ++c) {
    float back = e4m3ToFloat(q.values[c]) * q.scales[c / 128];
    EXPECT_NEAR(back, x[c], std::fabs(x[c]) * 0x1p-4f + 1e-12f) << c;
  }
}

TEST(Quantize, PerBlock128x128) {
  const int64_t rows = 130, cols = 144;
  std::vector<float> x(rows * cols, 0.0f);
  x[5 * cols + 3] = 8.0f;      // block (0, 0)
  x[127 * cols + 140] = -2.0f; // block (0, 1)
  x[129 * cols + 0] = 1.0f;    // block (1, 0)
  QuantizedMatrix q = quantizePerBlock(x, rows, cols);
  ASSERT_EQ(q.scaleRows, 2);
  ASSERT_EQ(q.scaleCols, 2);
  EXPECT_EQ(q.scales[0], 8.0f / 448.0f);
  EXPECT_EQ(q.scales[1], 2.0f / 448.0f);
  EXPECT_EQ(q.scales[2], 1.0f / 448.0f);
  EXPECT_EQ(q.scales[3], 1e-4f / 448.0f);
  EXPECT_EQ(q.values[5 * cols + 3], 0x7e);
  EXPECT_EQ(q.values[127 * cols + 140], 0xfe);
  EXPECT_EQ(q.values[129 * cols + 0], 0x7e);
}

TEST(Quantize, SfaLayoutIsMMajorAndPadded) {
  QuantizedMatrix a;
  a.rows = 5;
  a.cols = 256;
  a.scaleRows = 5;
  a.scaleCols = 2;
  for (int i = 0; i < 10; ++i)
    a.scales.push_back(float(i)); // (m, kb) = m * 2 + kb
  std::vector<float> sfa = toSfaLayout(a, -1.0f);
  ASSERT_EQ(sfa.size(), 16u); // align(5, 4) = 8 rows per K block
  for (int m = 0; m < 5; ++m)
    for (int kb = 0; kb < 2; ++kb)
      EXPECT_EQ(sfa[kb * 8 + m], float(m * 2 + kb)) << m << "," << kb;
  for (int m = 5; m < 8; ++m) {
    EXPECT_EQ(sfa[m], -1.0f);
    EXPECT_EQ(sfa[8 + m], -1.0f);
  }
}

TEST(CalcDiff, MatchesDeepGemm) {
  std::vector<float> x = {1.5f, -2.0f, 0.25f, 3.0f};
  EXPECT_EQ(calcDiff(x.data(), x.data(), x.size()), 0.0);
  std::vector<float> zeros(4, 0.0f);
  EXPECT_EQ(calcDiff(zeros.data(), zeros.data(), 4), 0.0); // 0/0 rule
  EXPECT_EQ(calcDiffFromSums(0.0, 0.0), 0.0);
  EXPECT_DOUBLE_EQ(calcDiff(x.data(), zeros.data(), 4), 1.0);
  std::vector<float> negated, scaled;
  for (float v : x) {
    negated.push_back(-v);
    scaled.push_back(1.01f * v);
  }
  EXPECT_DOUBLE_EQ(calcDiff(x.data(), negated.data(), 4), 2.0);
  // y = a x gives (1 - a)^2 / (1 + a^2).
  double a = double(1.01f);
  EXPECT_NEAR(calcDiff(x.data(), scaled.data(), 4),
              (1 - a) * (1 - a) / (1 + a * a), 1e-9);
  EXPECT_DOUBLE_EQ(calcDiffFromSums(1.0, 4.0), 0.5);
}

TEST(Emulation, ExactQuantizedProductAndTolerance) {
  QuantizedMatrix a, b;
  a.rows = 1;
  a.cols = 256;
  a.scaleRows = 1;
  a.scaleCols = 2;
  a.values.assign(256, floatToE4m3(0.0f));
  a.scales = {0.5f, 2.0f};
  b.rows = 1;
  b.cols = 256;
  b.scaleRows = 1;
  b.scaleCols = 2;
  b.values.assign(256, floatToE4m3(0.0f));
  b.scales = {4.0f, 0.25f};
  a.values[0] = floatToE4m3(3.0f);    // 3 * 0.5 = 1.5
  b.values[0] = floatToE4m3(2.0f);    // 2 * 4 = 8       -> 12
  a.values[200] = floatToE4m3(1.5f);  // 1.5 * 2 = 3
  b.values[200] = floatToE4m3(-4.0f); // -4 * 0.25 = -1 -> -3
  EmulatedElement e = emulateElement(a, b, 0, 0);
  EXPECT_EQ(e.value, 9.0);
  EXPECT_EQ(e.sumAbs, 15.0);
  EXPECT_DOUBLE_EQ(emulationTolerance(9.0, 15.0),
                   9.0 / 128 + 15.0 / 1024 + 1e-6);
  EXPECT_DOUBLE_EQ(emulationTolerance(-9.0, 0.0), 9.0 / 128 + 1e-6);
}
