//===- Inputs.cpp - Deterministic benchmark inputs --------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//

#include "Inputs.h"

#include "Runtime/GroupedGemm.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <thread>

using namespace fgemm;
using namespace fgemm::bench;

/// SplitMix64's finalizer: a bijective mix of a 64-bit counter.
static uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Standard normal sample number `index` of a stream, by Box-Muller on the
/// two 32-bit halves of one hashed counter.
static float normalSample(uint64_t streamKey, uint64_t index) {
  uint64_t bits = mix64(streamKey ^ mix64(index));
  // u1 in (0, 1] keeps the logarithm finite; u2 in [0, 1).
  double u1 = (double(bits >> 32) + 1.0) * 0x1p-32;
  double u2 = double(bits & 0xffffffffu) * 0x1p-32;
  const double twoPi = 6.283185307179586476925286766559;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) *
                            std::cos(twoPi * u2));
}

Bf16Matrix fgemm::bench::randnBf16(uint64_t seed, Operand operand, int64_t rows,
                                   int64_t cols) {
  Bf16Matrix matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  const int64_t count = rows * cols;
  matrix.values.resize(static_cast<size_t>(count));
  matrix.bits.resize(static_cast<size_t>(count));
  // The shape is part of the key, so every (operand, shape) gets its own
  // stream rather than a prefix of another's.
  uint64_t key = mix64(seed) ^ mix64(static_cast<uint64_t>(operand) << 56 ^
                                     static_cast<uint64_t>(rows) << 28 ^
                                     static_cast<uint64_t>(cols));
  auto fill = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      uint16_t bits = floatToBf16(normalSample(key, static_cast<uint64_t>(i)));
      matrix.bits[i] = bits;
      matrix.values[i] = bf16ToFloat(bits);
    }
  };
  int64_t workers = std::max(1u, std::thread::hardware_concurrency());
  int64_t chunk = std::max<int64_t>((count + workers - 1) / workers, 1 << 16);
  std::vector<std::thread> threads;
  for (int64_t begin = 0; begin < count; begin += chunk)
    threads.emplace_back(fill, begin, std::min(count, begin + chunk));
  for (std::thread &thread : threads)
    thread.join();
  return matrix;
}

OperandData fgemm::bench::makeOperand(uint64_t seed, Operand operand,
                                      int64_t rows, int64_t cols,
                                      Quantization quantization,
                                      Fp8Format format) {
  OperandData data;
  data.input = randnBf16(seed, operand, rows, cols);
  const std::vector<float> &x = data.input.values;
  data.quantized = quantization == Quantization::kPerToken
                       ? quantizePerToken(x, rows, cols, format)
                   : quantization == Quantization::kPerBlock
                       ? quantizePerBlock(x, rows, cols, format)
                       : quantizePerTensor(x, rows, cols);
  return data;
}

GroupRows fgemm::bench::drawGroupRows(const GroupedShape &shape,
                                      GroupedMode mode, int64_t capacity,
                                      uint64_t seed,
                                      const std::vector<int64_t> &given) {
  auto align128 = [](int64_t x) { return (x + 127) / 128 * 128; };
  if (!given.empty() && int64_t(given.size()) != shape.groups)
    std::abort(); // a caller's bug: parseOptions refuses such a list
  GroupRows layout;
  if (mode == GroupedMode::Masked)
    layout.capacity = capacity ? capacity : maskedSpreadCapacity(shape.m);
  const uint64_t key =
      mix64(seed ^ mix64(uint64_t(shape.groups) * 0x10001 + uint64_t(shape.m)));
  int64_t next = 0;
  for (int64_t g = 0; g < shape.groups; ++g) {
    // Uniform in [0.7, 1.3), from the counter (g) of this shape's stream.
    double u = double(mix64(key ^ mix64(uint64_t(g))) >> 11) * 0x1p-53;
    int64_t rows = given.empty() ? int64_t(double(shape.m) * groupRowsFactor(u))
                                 : given[size_t(g)];
    if (mode == GroupedMode::Masked) {
      rows = std::min(rows, layout.capacity);
      layout.starts.push_back(g * layout.capacity);
    } else {
      // The unpadded layout's groups start right after each other.
      layout.starts.push_back(next);
      next += mode == GroupedMode::ContiguousUnpadded ? rows : align128(rows);
    }
    layout.rows.push_back(rows);
  }
  layout.totalRows =
      mode == GroupedMode::Masked ? shape.groups * layout.capacity : next;
  return layout;
}
