//===- Inputs.h - Deterministic benchmark inputs ----------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===----------------------------------------------------------------------===//
//
// The inputs of one benchmark shape, as NUMERICS.md §3 prescribes: x, y
// standard normal rounded to bf16, A quantized per 1x128, B per 128x128.
// The generator is counter-based (element i's value depends only on the
// seed, the tensor and i), so the data do not depend on the thread count and
// B is the same for every M with the same (N, K).
//
//===----------------------------------------------------------------------===//

#ifndef FGEMM_BENCH_INPUTS_H
#define FGEMM_BENCH_INPUTS_H

#include "BenchOptions.h"

#include "Runtime/Numerics.h"

#include <cstdint>
#include <vector>

namespace fgemm::bench {

/// A rows x cols matrix of N(0, 1) samples rounded to bf16: the float
/// values and their bf16 bits.
struct Bf16Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<float> values;
  std::vector<uint16_t> bits;
};

/// Which operand a stream of samples is for (part of the counter key).
enum class Operand : uint64_t { A = 1, B = 2, C = 3, Bias = 4 };

/// randn(rows, cols) in bf16 for `operand`, from `seed`.
Bf16Matrix randnBf16(uint64_t seed, Operand operand, int64_t rows,
                     int64_t cols);

/// One operand: the bf16 input and its quantization.
struct OperandData {
  Bf16Matrix input;
  QuantizedMatrix quantized;
};

/// How an operand is quantized: one scale per row and 128-wide K block (A,
/// and B of the 1D1D recipe), per 128x128 block (B of 1D2D), or one scale
/// for the whole operand.
enum class Quantization { kPerToken, kPerBlock, kPerTensor };

/// Random bf16 values, quantized (per-token and per-block groups in
/// `format`; per-tensor is e4m3).
OperandData makeOperand(uint64_t seed, Operand operand, int64_t rows,
                        int64_t cols, Quantization quantization,
                        Fp8Format format = Fp8Format::kE4M3);

/// Where the groups of an M-grouped shape lie: group g's `rows[g]` valid
/// rows start at row `starts[g]` of A and D, which have `totalRows` rows
/// (contiguous and psum: each group padded to 128; unpadded: none; masked:
/// `capacity` per group).
struct GroupRows {
  std::vector<int64_t> rows, starts;
  int64_t totalRows = 0, capacity = 0;
};

/// The rows of `shape`'s groups, drawn from 0.7-1.3 M with `seed`
/// (DeepGEMM's test generator), or `given` when not empty (one count per
/// group: parseOptions checks it; another size aborts); masked: clamped to
/// the capacity, `capacity` or align(1.3 M + 1, 128) when 0.
GroupRows drawGroupRows(const GroupedShape &shape, GroupedMode mode,
                        int64_t capacity, uint64_t seed,
                        const std::vector<int64_t> &given = {});

} // namespace fgemm::bench

#endif // FGEMM_BENCH_INPUTS_H
